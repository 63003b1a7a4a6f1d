"""Built-in whitelisted functions, registered under Frappe's paths with `fw.`."""

from engine.methods import client, user

__all__ = ["client", "user"]
