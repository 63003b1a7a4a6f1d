"""Built-in whitelisted functions, registered under Frappe's paths with `fw.`."""

from engine.methods import bulk, client, comments, desk, form_load, jobs, listview, search, user

__all__ = ["bulk", "client", "comments", "desk", "form_load", "jobs", "listview", "search", "user"]
