"""Built-in whitelisted functions, registered under Frappe's paths with `fw.` (issue: HTTP API)."""
