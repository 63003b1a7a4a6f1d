"""Built-in whitelisted functions, registered under Frappe's paths with `fw.`."""

from engine.methods import client, desk, jobs, user

__all__ = ["client", "desk", "jobs", "user"]
