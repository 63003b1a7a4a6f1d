"""Built-in whitelisted functions, registered under Frappe's paths with `fw.`."""

from engine.methods import client, desk, form_load, jobs, search, user

__all__ = ["client", "desk", "form_load", "jobs", "search", "user"]
