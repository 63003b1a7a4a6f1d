"""fw's engine: the public API for apps.

```python
import engine as fw

class WarehouseViolation(fw.Document):
    async def validate(self) -> None:
        employee = await fw.get_value(self.ctx, "Employee", self.employee, ["company", "branch"], as_dict=True)
        ...

@fw.whitelist(methods=["POST"])
async def calculate(ctx: fw.Context, employee: str) -> dict: ...
```
Everything takes the `Context` first; names resolve lazily so importing `engine` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Context": "engine.context",
    "unit_of_work": "engine.context",
    "Document": "engine.documents.document",
    "new_doc": "engine.documents.factory",
    "get_doc": "engine.documents.factory",
    "get_list": "engine.query.listing",
    "get_all": "engine.query.listing",
    "get_value": "engine.query.listing",
    "get_cached_value": "engine.query.listing",
    "count": "engine.query.listing",
    "exists": "engine.query.listing",
    "has_permission": "engine.permissions",
    "whitelist": "engine.apps.whitelisted",
    "_": "engine.translation",
    "throw": "engine.api",
    "delete_doc": "engine.api",
    "get_single_value": "engine.api",
    "aggregate": "engine.api",
    "insert_many": "engine.documents.bulk",
    "rename_field": "engine.documents.rename_field",
    "coerce_value": "engine.meta.fieldtypes",
    "enqueue": "engine.jobs.queue",
    "sendmail": "engine.mail.queue",
    "publish_realtime": "engine.realtime",
    "publish_progress": "engine.realtime",
    "log_error": "engine.error_log",
    "apply_workflow": "engine.documents.workflow",
    "exceptions": "engine",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    if name == "exceptions":
        return importlib.import_module("engine.exceptions")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
