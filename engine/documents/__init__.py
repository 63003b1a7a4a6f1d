"""Documents: the in-memory `Document`, the store that persists them, and their lifecycle."""
