"""Files: the `File` doctype's content, stored in MongoDB and served over `/files` and `/private/files`.

- `engine.files.names`: cleaning client file names, URLs, content types (pure);
- `engine.files.storage`: deduplicated, chunked, reference-counted content in MongoDB;
- `engine.files.upload`: `upload_file` (what `POST /api/method/upload_file` calls) and `save_file`
  (for server code);
- `engine.files.serving`: which File a URL names and whether the caller may read it;
- `engine.files.attachments`: a deleted document takes its attached Files with it.

The `File` controller is `engine.core.file`, its row rule `engine.core.file_permission`.
"""

from __future__ import annotations

from engine.exceptions import MaxFileSizeReachedError

__all__ = ["MaxFileSizeReachedError"]
