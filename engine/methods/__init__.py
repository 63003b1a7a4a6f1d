"""Built-in whitelisted functions, registered under Frappe's paths with `fw.`."""

from engine.methods import client, desk, user

__all__ = ["client", "desk", "user"]
