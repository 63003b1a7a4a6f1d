"""`GET /api/openapi.json`: the site's OpenAPI 3.1 document, generated from the doctypes and the
whitelisted functions' signatures; what it holds is described in `server.openapi.document`.

Modules: `doctypes` (field and doctype component schemas), `signatures` (Python signatures and
type hints as JSON Schema), `operations` (envelopes, error responses, security: the parts of an
operation), `paths_v1` (resource, method, session and file paths, the `Error` schema), `paths_v2`
(the `/api/v2` paths, the `.v2` schemas) and `document` (the assembly, its per-site cache and the
Starlette endpoint).
"""

from server.openapi.document import build_openapi, openapi_bytes, openapi_document, openapi_json

__all__ = ["build_openapi", "openapi_bytes", "openapi_document", "openapi_json"]
