"""Built-in whitelisted functions, registered under Frappe's paths with `fw.`. engine/apps/loader.py imports
each module (which registers its @whitelist functions); this package imports none, so importing one
of its modules (`engine.methods.args`) loads no other."""
