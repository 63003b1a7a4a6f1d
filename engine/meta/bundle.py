"""The Desk's meta: a doctype as Frappe's `DocType` dict plus its form assets (Frappe's `FormMeta`,
`frappe.desk.form.meta`), and the bundle of a doctype with its child tables (`get_meta_bundle`).

A doctype's dict is its DocType record (engine/meta/record.py: top-level keys, `fields`,
`permissions`, no nulls) with:
- `owner`, `creation`, `modified`, `modified_by` of the stored DocType record. `modified` is what a
  client caches the meta under (`getdoctype(cached_timestamp=...)`), so it is given only while the
  stored record matches the meta; a record not synced yet (a Custom Field saved a moment ago in
  another process) leaves it out, and the client cannot mistake the new meta for its cached one.
- `__js`: the form script `doctype/<dt>/<dt>.js` of the doctype's app, then the `doctype_js` hook
  scripts of every app (each file once, joined by a blank line); `__list_js` likewise from
  `<dt>_list.js` and the `doctype_list_js` hooks. Absent when there is none. `__js_url` /
  `__list_js_url`: where the Desk loads the same text as a script (`script_url`), versioned by its
  content, since its CSP runs no script text it did not load from the server.
- `__workflow_docs` (Frappe's): the doctype's active Workflow record and the Workflow State records
  of its states; `__workflow` (fw's): the same, compact, with each state's indicator colour and the
  role that may edit in it (engine.documents.workflow.desk_workflow). Absent without an active workflow.
- `__messages`: `{source: translation}` in the context's language for the strings the Desk shows
  for this doctype: its name and description, its fields' labels, descriptions and Select options,
  its workflow's states and actions, and the `__()` messages of its scripts (`source:context` keys
  for those with a context). Only strings that have a translation are listed (English gets `{}`),
  as Frappe's `get_lang_dict`.
- no `__custom_js` (fw has no Client Script records).

Everything but the record's stamps is built once per Meta and language and cached on the Meta, which
a meta reload replaces, so script files are read once per Meta (in developer mode scripts and
messages are rebuilt on every call, so an edited script shows at once). The stamps cost one read
of the DocType records until they match. The dicts returned share their nested rows with the
cache: do not change those.

Any logged-in user may read any doctype's meta (Frappe's Desk loads it for every form and list);
Guest may not.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from engine import exceptions as exc
from engine.documents import store
from engine.meta.record import doctype_record, record_hash
from engine.meta.workflows import desk_workflow, workflow_for
from engine.translation import _, translate

if TYPE_CHECKING:
    from engine.apps.registry import AppRegistry
    from engine.context import Context
    from engine.meta.schema import Meta

STAMP_KEYS = ("owner", "creation", "modified", "modified_by")
SCRIPT_KEYS = {"__js": "doctype_js", "__list_js": "doctype_list_js"}
# where the server serves a doctype's scripts (server/desk/routes.py): kind is "form" or "list"
SCRIPT_PATH = "/assets/desk/{kind}-script/{doctype}.js"
SCRIPT_URL_KEYS = {"__js": ("__js_url", "form"), "__list_js": ("__list_js_url", "list")}


def script_url(kind: str, doctype: str, text: str) -> str:
    """The URL of a doctype's form or list script, versioned by a digest of its text."""
    version = hashlib.sha256(text.encode()).hexdigest()[:16]
    return SCRIPT_PATH.format(kind=kind, doctype=quote(doctype, safe="")) + f"?v={version}"


def script_text(ctx: Context, doctype: str, kind: str) -> str | None:
    """The text of a doctype's form (`kind` "form") or list ("list") script, or None."""
    key = "__js" if kind == "form" else "__list_js"
    return _scripts(ctx, ctx.meta(doctype)).get(key)


async def doctype_meta(ctx: Context, doctype: str) -> dict[str, Any]:
    """The doctype as the Desk reads it (see the module docstring). Unknown doctype → DoesNotExistError."""
    meta = await _meta(ctx, doctype)
    stamps = await meta_stamps(ctx, [meta])
    return _meta_dict(ctx, meta, stamps[meta.name])


async def meta_bundle(ctx: Context, doctype: str) -> list[dict[str, Any]]:
    """The doctype's dict, then those of its child-table doctypes (each once, in field order)."""
    meta = await _meta(ctx, doctype)
    metas = [meta]
    for field in meta.table_fields:
        if all(m.name != field.options for m in metas):
            metas.append(ctx.meta(field.options or ""))
    stamps = await meta_stamps(ctx, metas)
    return [_meta_dict(ctx, m, stamps[m.name]) for m in metas]


def parent_doctype(ctx: Context, child: str) -> str | None:
    """The first doctype (by name) with a table of `child` rows, or None."""
    for name in ctx.site.meta.names():
        if any(f.options == child for f in ctx.meta(name).table_fields):
            return name
    return None


async def _meta(ctx: Context, doctype: str) -> Meta:
    if ctx.user == "Guest":
        raise exc.PermissionError(_("You are not permitted to access this resource: please log in"))
    # requests do not otherwise look for meta changes of other processes; this is one tiny read a second
    await ctx.site.meta.refresh_if_stale()
    return ctx.meta(doctype)


def _meta_dict(ctx: Context, meta: Meta, stamps: dict[str, Any]) -> dict[str, Any]:
    out = {**doctype_record(meta), **stamps}
    scripts = _scripts(ctx, meta)
    out.update(scripts)
    for key, (url_key, kind) in SCRIPT_URL_KEYS.items():
        if key in scripts:
            out[url_key] = script_url(kind, meta.name, scripts[key])
    out.update(_workflow(meta))
    out["__messages"] = _messages(meta, ctx.lang, scripts, cache=not ctx.site.settings.developer_mode)
    return out


def _workflow(meta: Meta) -> dict[str, Any]:
    """`__workflow_docs` and `__workflow` of the doctype's active workflow ({} without one); cached
    on the Meta, which a workflow change replaces."""
    cached = meta.bundle_cache.get("workflow")
    if cached is None:
        wf = workflow_for(meta.registry, meta.name) if meta.registry is not None else None
        cached = {} if wf is None else {"__workflow_docs": list(wf.records), "__workflow": desk_workflow(wf)}
        meta.bundle_cache["workflow"] = cached
    return cached


async def meta_stamps(ctx: Context, metas: list[Meta]) -> dict[str, dict[str, Any]]:
    """name → the stored record's stamps; cached on the Meta once the record matches it."""
    out: dict[str, dict[str, Any]] = {}
    missing = []
    for meta in metas:
        cached = meta.bundle_cache.get("stamps")
        if cached is None:
            missing.append(meta)
        else:
            out[meta.name] = cached
    if not missing:
        return out
    coll = store.collection(ctx, ctx.meta("DocType"))
    rows = await coll.find({"_id": {"$in": [m.name for m in missing]}},
                           {"json_hash": 1, **dict.fromkeys(STAMP_KEYS, 1)},
                           session=ctx.read_session()).to_list(None)
    by_name = {row["_id"]: row for row in rows}
    for meta in missing:
        row = by_name.get(meta.name) or {}
        stamps = {k: row[k] for k in STAMP_KEYS if row.get(k) is not None}
        if row.get("json_hash") == record_hash(meta):
            meta.bundle_cache["stamps"] = stamps
        else:  # not synced yet: without `modified`, no client takes this meta for the one it cached
            stamps.pop("modified", None)
        out[meta.name] = stamps
    return out


def _scripts(ctx: Context, meta: Meta) -> dict[str, str]:
    developer = ctx.site.settings.developer_mode
    scripts = None if developer else meta.bundle_cache.get("scripts")
    if scripts is None:
        scripts = read_scripts(ctx.site.apps, meta.name)
        if not developer:
            meta.bundle_cache["scripts"] = scripts
    return scripts


def read_scripts(apps: AppRegistry, doctype: str) -> dict[str, str]:
    """`__js` / `__list_js` of a doctype: the app's own files, then the hook scripts of every app."""
    app_paths = {app.name: app.path for app in apps.apps}
    candidates: dict[str, list[Path]] = {key: [] for key in SCRIPT_KEYS}
    source = apps.doctype_source.get(doctype)
    if source:  # beside the doctype's JSON: an app's doctype/<dt>/<dt>.json, or a core one (Deleted Document's)
        json_path = Path(source)
        candidates["__js"].append(json_path.with_suffix(".js"))
        candidates["__list_js"].append(json_path.with_name(f"{json_path.stem}_list.js"))
    for app in apps.apps:
        for key, hook in SCRIPT_KEYS.items():
            paths = (getattr(app.hooks, hook, None) or {}).get(doctype)
            for path in paths if isinstance(paths, list | tuple) else [paths] if paths else []:
                # a path relative to the app folder (Frappe's form); a URL cannot be read here
                if isinstance(path, str) and not path.startswith(("/", "http://", "https://")):
                    candidates[key].append(app_paths[app.name] / path.removeprefix("./"))
    out: dict[str, str] = {}
    for key, paths in candidates.items():
        texts, seen = [], set()
        for path in paths:
            resolved = path.resolve()
            if resolved in seen or not resolved.is_file():
                continue
            seen.add(resolved)
            texts.append(resolved.read_text(encoding="utf-8"))
        if texts:
            out[key] = "\n\n".join(texts)
    return out


def _messages(meta: Meta, lang: str, scripts: dict[str, str], *, cache: bool) -> dict[str, str]:
    key = ("messages", lang)
    cached = meta.bundle_cache.get(key) if cache else None
    if cached is not None:
        return cached
    out: dict[str, str] = {}
    for source, context in _sources(meta, scripts, cache=cache):
        translated = translate(source, lang, context or None)
        if translated != source:
            out[f"{source}:{context}" if context else source] = translated
    if cache:
        meta.bundle_cache[key] = out
    return out


def _sources(meta: Meta, scripts: dict[str, str], *, cache: bool) -> set[tuple[str, str]]:
    """(source, context) of every string the Desk shows for the doctype (the same in every language)."""
    cached = meta.bundle_cache.get("message_sources") if cache else None
    if cached is not None:
        return cached
    texts = [meta.name, (meta.schema.model_extra or {}).get("description")]
    wf = workflow_for(meta.registry, meta.name) if meta.registry is not None else None
    if wf is not None:
        texts += [s.state for s in wf.states] + [t.action for t in wf.transitions]
    for field in meta.fields:
        texts += [field.label, field.description]
        if field.fieldtype == "Select":
            texts += field.select_options
    sources = {(t.strip(), "") for t in texts if isinstance(t, str) and t.strip()}
    if scripts:
        from engine.messages import Extraction, javascript_messages  # babel: imported only when needed

        found = Extraction()
        for text in scripts.values():
            javascript_messages(io.BytesIO(text.encode()), found)
        sources |= {(m.source, m.context) for m in found.messages}
    if cache:
        meta.bundle_cache["message_sources"] = sources
    return sources
