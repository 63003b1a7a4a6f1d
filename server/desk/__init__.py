"""The browser Desk: its routes (`/`, `/login`, `/app/...`), the shell and login pages, and its static
files (server/desk/static: plain ES modules, CSS and vendored libraries; see server/desk/README.md)."""

from server.desk.assets import DeskAssets

__all__ = ["DeskAssets"]
