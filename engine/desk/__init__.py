"""What the browser Desk needs from the engine beyond the public API: the boot payload (`boot`) and
the sidebar of modules (`sidebar`). The server (server/desk/) only serialises what these build."""
