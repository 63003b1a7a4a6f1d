"""The app loader: doctypes, controllers and every hooks.py key, resolved once at startup into an
`AppRegistry` (engine/apps/registry.py).

Apps keep Frappe's hooks.py format (module-level keys holding dotted-path strings). Each path is
imported here, once; a path that does not resolve stops startup naming the app, key and path.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import exceptions as exc
from engine import translation
from engine.apps import whitelisted
from engine.apps.callables import Handler, resolve_dotted
from engine.apps.installed import App, import_app_modules, load_apps, read_apps_txt
from engine.apps.registry import AppRegistry, ScheduledEvent
from engine.apps.site_doctypes import load_site_doctypes
from engine.core import hooks as core_hooks

# importing them registers the built-in @whitelist functions
from engine.desk import customize_form  # noqa: F401
from engine.documents.document import Document
from engine.meta.schema import parse_doctype, scrub
from engine.methods import (  # noqa: F401  (importing them registers their @whitelist functions)
    assign_to,
    bulk,
    client,
    comments,
    desk,
    export,
    form_load,
    jobs,
    listview,
    notification_log,
    password,
    print_format,
    report_builder,
    search,
    share,
    user,
)
from engine.reports import script_report as reports
from engine.settings import Settings

CORE_DOCTYPE_DIR = Path(__file__).resolve().parents[1] / "core" / "doctypes"
CORE_TRANSLATIONS_DIR = Path(__file__).resolve().parents[1] / "translations"
CORE_CONTROLLERS = {
    "User": "engine.core.user.User",
    "Custom Field": "engine.core.custom_field.CustomField",
    "Property Setter": "engine.core.property_setter.PropertySetter",
    "User Permission": "engine.core.user_permission.UserPermission",
    "DocShare": "engine.core.docshare.DocShare",
    "DocType": "engine.core.doctype_editor.DocType",
    "Workflow": "engine.core.workflow_doc.Workflow",
    "Workflow State": "engine.core.workflow_doc.WorkflowState",
    "File": "engine.core.file.File",
    "Email Account": "engine.core.email_account.EmailAccount",
    "Deleted Document": "engine.core.deleted_document.DeletedDocument",
    "Data Import": "engine.core.data_import.DataImport",
    "ToDo": "engine.core.todo.ToDo",
    "Notification": "engine.core.notification.Notification",
}
METADATA_KEYS = {"app_name", "app_title", "app_publisher", "app_description", "app_license", "app_email",
                 "app_version", "app_icon", "app_color", "app_home", "required_apps"}
HOOK_KEYS = METADATA_KEYS | {
    "app_include_js", "app_include_css", "doctype_js", "doctype_list_js", "after_install", "before_install",
    "after_migrate", "before_migrate", "doc_events", "scheduler_events", "permission_query_conditions",
    "has_permission", "fixtures", "override_whitelisted_methods",
}
LANGUAGE_FILE = re.compile(r"^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})?$")  # de.csv, pt-BR.csv; not template.csv
SCHEDULER_KEYS = {"all", "hourly", "daily", "weekly", "monthly", "yearly", "annual", "cron",
                  "all_long", "hourly_long", "daily_long", "weekly_long", "monthly_long"}


def _load_app_doctypes(registry: AppRegistry, app: App) -> None:
    doctype_dir = app.path / "doctype"
    if not doctype_dir.is_dir():
        return
    for json_path in sorted(doctype_dir.glob("*/*.json")):
        if json_path.stem != json_path.parent.name:
            continue
        schema = parse_doctype(_read_json(json_path), str(json_path))
        if scrub(schema.name) != json_path.stem:
            raise exc.ConfigurationError(
                f"{json_path}: doctype {schema.name!r} must live in doctype/{scrub(schema.name)}/")
        registry.add_doctype(schema, str(json_path), app.name)
        module = f"{app.name}.doctype.{json_path.stem}.{json_path.stem}"
        if json_path.with_suffix(".py").exists():
            registry.controllers[schema.name] = _controller_class(module, schema.name)


def _load_hooks(registry: AppRegistry, app: App) -> None:
    hooks = app.hooks
    for key in _hook_keys(hooks):
        if key not in HOOK_KEYS:
            raise exc.ConfigurationError(
                f"App {app.name!r}: unknown hooks.py key {key!r} in {app.path / 'hooks.py'}")

    def where(key: str) -> str:
        return f"App {app.name!r}, hooks.py key {key!r}"

    for dt_key, events in (getattr(hooks, "doc_events", {}) or {}).items():
        doctypes = dt_key if isinstance(dt_key, tuple) else (dt_key,)
        for event, paths in events.items():
            for path in _as_list(paths):
                fn = resolve_dotted(path, where("doc_events"))
                for dt in doctypes:
                    registry.doc_events.setdefault(dt, {}).setdefault(event, []).append(fn)
    for attr in ("permission_query_conditions", "has_permission"):
        target: dict[str, list[Handler]] = getattr(registry, attr)
        for dt, paths in (getattr(hooks, attr, {}) or {}).items():
            for path in _as_list(paths):
                target.setdefault(dt, []).append(resolve_dotted(path, where(attr)))
    for freq, entries in (getattr(hooks, "scheduler_events", {}) or {}).items():
        if freq not in SCHEDULER_KEYS:
            raise exc.ConfigurationError(f"{where('scheduler_events')}: unknown frequency {freq!r}")
        if freq == "cron":
            for expr, paths in entries.items():
                for path in _as_list(paths):
                    registry.scheduler_events.append(ScheduledEvent(
                        app.name, freq, expr, path, resolve_dotted(path, where("scheduler_events"))))
        else:
            for path in _as_list(entries):
                registry.scheduler_events.append(ScheduledEvent(
                    app.name, freq, None, path, resolve_dotted(path, where("scheduler_events"))))
    for attr in ("after_install", "before_install"):
        for path in _as_list(getattr(hooks, attr, None)):
            getattr(registry, attr).setdefault(app.name, []).append(resolve_dotted(path, where(attr)))
    for attr in ("after_migrate", "before_migrate"):
        for path in _as_list(getattr(hooks, attr, None)):
            getattr(registry, attr).append((app.name, resolve_dotted(path, where(attr))))
    fixtures = getattr(hooks, "fixtures", None) or []
    registry.fixtures[app.name] = [_fixture_entry(f, where("fixtures")) for f in fixtures]
    for orig, new in (getattr(hooks, "override_whitelisted_methods", {}) or {}).items():
        registry.override_whitelisted_methods[orig] = new[-1] if isinstance(new, list) else new
    for dt, path in (getattr(hooks, "doctype_js", {}) or {}).items():
        for p in _as_list(path):
            registry.doctype_js.setdefault(dt, []).append((app.name, p))
    for attr in ("app_include_js", "app_include_css"):
        for p in _as_list(getattr(hooks, attr, None)):
            getattr(registry, attr).append((app.name, p))
    for lang_file in sorted((app.path / "translations").glob("*.csv")):
        if LANGUAGE_FILE.match(lang_file.stem):
            translation.register_catalog(lang_file.stem, translation.load_csv(lang_file))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise exc.ConfigurationError(f"Cannot read doctype JSON {path}: {e}") from e
    if not isinstance(data, dict):
        raise exc.ConfigurationError(f"{path}: a doctype file must hold one JSON object")
    return data


def _controller_class(module_path: str, doctype: str) -> type:
    class_name = doctype.replace(" ", "").replace("-", "")
    try:
        module = importlib.import_module(module_path)
    except Exception as e:
        raise exc.ConfigurationError(f"Controller {module_path} for {doctype!r} failed to import: {e}") from e
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Document)):
        raise exc.ConfigurationError(
            f"{module_path} must define `class {class_name}(Document)` for doctype {doctype!r}")
    return cls


def _hook_keys(hooks: ModuleType) -> list[str]:
    return [k for k, v in vars(hooks).items()
            if not k.startswith("_") and not inspect.ismodule(v) and not callable(v)
            and not (isinstance(v, type))]


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _fixture_entry(entry: Any, where: str) -> dict[str, Any]:
    if isinstance(entry, str):
        return {"dt": entry, "filters": None}
    if isinstance(entry, dict) and (entry.get("dt") or entry.get("doctype")):
        return {"dt": entry.get("dt") or entry.get("doctype"), "filters": entry.get("filters"),
                "or_filters": entry.get("or_filters")}
    raise exc.ConfigurationError(f"{where}: each entry needs `dt` (got {entry!r})")


def build_registry(apps_dir: Path, app_names: list[str], site_doctypes: Path | None = None) -> AppRegistry:
    """Load core doctypes, the named apps (in required_apps order) and the site's drop-in doctypes
    (`site_doctypes`: its doctype_json/ folder); freeze the whitelist."""
    registry = AppRegistry(default_controller=Document)
    translation.clear_catalogs()
    for json_path in sorted(CORE_DOCTYPE_DIR.glob("*.json")):
        registry.add_doctype(parse_doctype(_read_json(json_path), str(json_path)), str(json_path), None)
    for doctype, path in CORE_CONTROLLERS.items():
        if doctype in registry.doctypes:
            registry.controllers[doctype] = _controller_class(path.rsplit(".", 1)[0], doctype)
    for lang_file in sorted(CORE_TRANSLATIONS_DIR.glob("*.csv")):
        translation.register_catalog(lang_file.stem, translation.load_csv(lang_file))
    registry.apps = load_apps(apps_dir, app_names) if app_names else []
    for app in registry.apps:
        _load_app_doctypes(registry, app)
        import_app_modules(app)
        _load_hooks(registry, app)
        for report in reports.load_app_reports(app):
            if report.name in registry.reports:
                raise exc.ConfigurationError(f"App {app.name!r}: report {report.name!r} is defined twice")
            registry.reports[report.name] = report
    if site_doctypes is not None:
        registry.site_doctypes = load_site_doctypes(registry, site_doctypes)
    _load_core_hooks(registry)
    _check_links(registry)
    whitelisted.freeze()
    stamp = _definition_files(registry, site_doctypes)
    registry.reread = partial(_reread_doctypes, registry, site_doctypes, [stamp])
    return registry


def _definition_files(registry: AppRegistry, site_doctypes: Path | None) -> tuple[tuple[str, int, int], ...]:
    """Every doctype JSON file the registry is built from, with its mtime and size: what tells a
    changed definition (one stat per file, no parsing)."""
    paths = [*CORE_DOCTYPE_DIR.glob("*.json")]
    for app in registry.apps:
        paths += (app.path / "doctype").glob("*/*.json")
    if site_doctypes is not None and site_doctypes.is_dir():
        paths += site_doctypes.glob("*.json")
    out = []
    for path in sorted(paths):
        try:
            stat = path.stat()
        except OSError:
            continue
        out.append((str(path), stat.st_mtime_ns, stat.st_size))
    return tuple(out)


def _reread_doctypes(registry: AppRegistry, site_doctypes: Path | None,
                     stamp: list[tuple[tuple[str, int, int], ...]]) -> bool:
    """Rebuild the registry's doctype tables from the files when one changed, appeared or went
    (the DocType editor, or `fw migrate` in another process); hooks, controllers of existing doctypes
    and the whitelist stay as loaded. Every file is checked as at start-up before anything changes."""
    now = _definition_files(registry, site_doctypes)
    if now == stamp[0]:
        return False
    fresh = AppRegistry(default_controller=Document, apps=registry.apps)
    for json_path in sorted(CORE_DOCTYPE_DIR.glob("*.json")):
        fresh.add_doctype(parse_doctype(_read_json(json_path), str(json_path)), str(json_path), None)
    for app in registry.apps:
        _load_app_doctypes(fresh, app)
    if site_doctypes is not None:
        fresh.site_doctypes = load_site_doctypes(fresh, site_doctypes)
    _check_links(fresh)
    registry.doctypes, registry.doctype_source = fresh.doctypes, fresh.doctype_source
    registry.doctype_app, registry.site_doctypes = fresh.doctype_app, fresh.site_doctypes
    registry.controllers.update(fresh.controllers)
    registry.clear_derived()
    stamp[0] = now
    return True


def _load_core_hooks(registry: AppRegistry) -> None:
    """The framework's own doc_events and scheduler_events (engine/core/hooks.py), after every app's."""
    for dt_key, events in core_hooks.doc_events.items():
        for event, paths in events.items():
            for path in _as_list(paths):
                fn = resolve_dotted(path, f"engine/core/hooks.py doc_events {dt_key!r} {event!r}")
                registry.doc_events.setdefault(dt_key, {}).setdefault(event, []).append(fn)
    for freq, entries in core_hooks.scheduler_events.items():
        for expr, paths in (entries.items() if freq == "cron" else [(None, entries)]):
            for path in _as_list(paths):
                fn = resolve_dotted(path, f"engine/core/hooks.py scheduler_events {freq!r}")
                registry.scheduler_events.append(ScheduledEvent("fw", freq, expr, path, fn))


def registry_from_settings(settings: Settings) -> AppRegistry:
    return build_registry(settings.apps_dir, read_apps_txt(settings.apps_txt), settings.doctype_json_dir)


def _check_links(registry: AppRegistry) -> None:
    for name, schema in registry.doctypes.items():
        for f in schema.fields:
            if f.fieldtype in ("Link", "Table", "Table MultiSelect") and f.options not in registry.doctypes:
                raise exc.ConfigurationError(
                    f"{registry.doctype_source[name]}: field {f.fieldname!r} points at unknown doctype "
                    f"{f.options!r}")
            if f.fieldtype in ("Table", "Table MultiSelect") and not registry.doctypes[f.options or ""].istable:
                raise exc.ConfigurationError(
                    f"{registry.doctype_source[name]}: table field {f.fieldname!r} needs a child doctype "
                    f"(istable), but {f.options!r} is not one")
