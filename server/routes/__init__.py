"""HTTP routes: each handler parses, makes one engine call inside a unit of work, and answers."""
