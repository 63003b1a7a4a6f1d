"""The app registry: doctypes, controllers and every hooks.py key, resolved once at startup.

Apps keep Frappe's hooks.py format (module-level keys holding dotted-path strings). Each path is
imported here, once; a path that does not resolve stops startup naming the app, key and path.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from engine import exceptions as exc
from engine import translation, whitelisted
from engine.apps import App, import_app_modules, load_apps, read_apps_txt
from engine.meta.schema import DocTypeSchema, parse_doctype, scrub

CORE_DOCTYPE_DIR = Path(__file__).resolve().parent.parent / "doctype_json"
CORE_CONTROLLERS = {
    "User": "engine.core.user.User",
    "Custom Field": "engine.core.custom_field.CustomField",
    "Workflow": "engine.core.workflow_doc.Workflow",
    "Workflow State": "engine.core.workflow_doc.WorkflowState",
    "File": "engine.core.file.File",
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

Handler = Callable[..., Any]


def resolve_dotted(path: Any, where: str) -> Handler:
    """Import `pkg.module.attr`; errors name where the path was written."""
    if not isinstance(path, str) or "." not in path:
        raise exc.ConfigurationError(f"{where}: {path!r} is not a dotted path like 'app.module.function'")
    module_path, attr = path.rsplit(".", 1)
    try:
        module = importlib.import_module(module_path)
    except Exception as e:
        raise exc.ConfigurationError(f"{where}: cannot import {module_path!r} for {path!r}: {e}") from e
    target = getattr(module, attr, None)
    if target is None or not callable(target):
        raise exc.ConfigurationError(f"{where}: {path!r} does not resolve: {module_path!r} has no callable {attr!r}")
    return target


@functools.lru_cache(maxsize=1024)
def _accepted_keywords(fn: Handler) -> frozenset[str] | None:
    """The keyword names `fn` takes, or None when it takes `**kwargs` (inspecting costs microseconds)."""
    params = inspect.signature(fn).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return None
    return frozenset(params)


def call_with_supported(fn: Handler, /, *args: Any, **kwargs: Any) -> Any:
    """Call `fn` with the keyword arguments its signature accepts (Frappe's hook convention)."""
    accepted = _accepted_keywords(fn)
    if accepted is not None:
        kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    return fn(*args, **kwargs)


@dataclass
class ScheduledEvent:
    app: str
    frequency: str          # hook key: daily, hourly_long, cron, ...
    cron: str | None        # the expression for `cron` entries
    path: str
    fn: Handler

    @property
    def queue(self) -> str:
        return "long" if self.frequency.endswith("_long") else "default"


@dataclass
class AppRegistry:
    """Everything apps contribute, resolved and frozen; shared by all sites of the process."""

    apps: list[App] = field(default_factory=list)
    doctypes: dict[str, DocTypeSchema] = field(default_factory=dict)
    doctype_source: dict[str, str] = field(default_factory=dict)
    doctype_app: dict[str, str | None] = field(default_factory=dict)
    controllers: dict[str, type] = field(default_factory=dict)
    doc_events: dict[str, dict[str, list[Handler]]] = field(default_factory=dict)
    permission_query_conditions: dict[str, list[Handler]] = field(default_factory=dict)
    has_permission: dict[str, list[Handler]] = field(default_factory=dict)
    scheduler_events: list[ScheduledEvent] = field(default_factory=list)
    fixtures: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    after_install: dict[str, list[Handler]] = field(default_factory=dict)
    before_install: dict[str, list[Handler]] = field(default_factory=dict)
    after_migrate: list[tuple[str, Handler]] = field(default_factory=list)
    before_migrate: list[tuple[str, Handler]] = field(default_factory=list)
    override_whitelisted_methods: dict[str, str] = field(default_factory=dict)
    doctype_js: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    app_include_js: list[tuple[str, str]] = field(default_factory=list)
    app_include_css: list[tuple[str, str]] = field(default_factory=list)
    reports: dict[str, Any] = field(default_factory=dict)
    _handler_cache: dict[tuple[str, str], tuple[Handler, ...]] = field(default_factory=dict)
    _permission_hook_cache: dict[tuple[str, str], tuple[Handler, ...]] = field(default_factory=dict)

    @property
    def app_names(self) -> list[str]:
        return [a.name for a in self.apps]

    def handlers(self, doctype: str, event: str) -> tuple[Handler, ...]:
        """doc_events handlers for (doctype, event): the doctype's own, then those of "*"."""
        key = (doctype, event)
        cached = self._handler_cache.get(key)
        if cached is None:
            own = self.doc_events.get(doctype, {}).get(event, [])
            star = self.doc_events.get("*", {}).get(event, [])
            cached = self._handler_cache[key] = (*own, *star)
        return cached

    def permission_hooks(self, key: str, doctype: str) -> tuple[Handler, ...]:
        """The `has_permission` or `permission_query_conditions` hooks (`key`) that apply to
        `doctype`: its own, then those of "*". Asked on every permission check, so kept."""
        cached = self._permission_hook_cache.get((key, doctype))
        if cached is None:
            hooks: dict[str, list[Handler]] = getattr(self, key)
            cached = self._permission_hook_cache[(key, doctype)] = (*hooks.get(doctype, ()), *hooks.get("*", ()))
        return cached

    def controller(self, doctype: str) -> type:
        cls = self.controllers.get(doctype)
        if cls is None:  # (imported here: the document module imports this one's neighbours)
            from engine.documents.document import Document

            cls = self.controllers[doctype] = Document
        return cls

    # -- building ----------------------------------------------------------------------------

    def add_doctype(self, schema: DocTypeSchema, source: str, app: str | None) -> None:
        if schema.name in self.doctypes:
            raise exc.ConfigurationError(
                f"Doctype {schema.name!r} is defined twice: {self.doctype_source[schema.name]} and {source}")
        self.doctypes[schema.name] = schema
        self.doctype_source[schema.name] = source
        self.doctype_app[schema.name] = app

    def _load_app_doctypes(self, app: App) -> None:
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
            self.add_doctype(schema, str(json_path), app.name)
            module = f"{app.name}.doctype.{json_path.stem}.{json_path.stem}"
            if json_path.with_suffix(".py").exists():
                self.controllers[schema.name] = _controller_class(module, schema.name)

    def _load_hooks(self, app: App) -> None:
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
                        self.doc_events.setdefault(dt, {}).setdefault(event, []).append(fn)
        for attr in ("permission_query_conditions", "has_permission"):
            target: dict[str, list[Handler]] = getattr(self, attr)
            for dt, paths in (getattr(hooks, attr, {}) or {}).items():
                for path in _as_list(paths):
                    target.setdefault(dt, []).append(resolve_dotted(path, where(attr)))
        for freq, entries in (getattr(hooks, "scheduler_events", {}) or {}).items():
            if freq not in SCHEDULER_KEYS:
                raise exc.ConfigurationError(f"{where('scheduler_events')}: unknown frequency {freq!r}")
            if freq == "cron":
                for expr, paths in entries.items():
                    for path in _as_list(paths):
                        self.scheduler_events.append(ScheduledEvent(
                            app.name, freq, expr, path, resolve_dotted(path, where("scheduler_events"))))
            else:
                for path in _as_list(entries):
                    self.scheduler_events.append(ScheduledEvent(
                        app.name, freq, None, path, resolve_dotted(path, where("scheduler_events"))))
        for attr in ("after_install", "before_install"):
            for path in _as_list(getattr(hooks, attr, None)):
                getattr(self, attr).setdefault(app.name, []).append(resolve_dotted(path, where(attr)))
        for attr in ("after_migrate", "before_migrate"):
            for path in _as_list(getattr(hooks, attr, None)):
                getattr(self, attr).append((app.name, resolve_dotted(path, where(attr))))
        fixtures = getattr(hooks, "fixtures", None) or []
        self.fixtures[app.name] = [_fixture_entry(f, where("fixtures")) for f in fixtures]
        for orig, new in (getattr(hooks, "override_whitelisted_methods", {}) or {}).items():
            self.override_whitelisted_methods[orig] = new[-1] if isinstance(new, list) else new
        for dt, path in (getattr(hooks, "doctype_js", {}) or {}).items():
            for p in _as_list(path):
                self.doctype_js.setdefault(dt, []).append((app.name, p))
        for attr in ("app_include_js", "app_include_css"):
            for p in _as_list(getattr(hooks, attr, None)):
                getattr(self, attr).append((app.name, p))
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
    from engine.documents.document import Document

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


def build_registry(apps_dir: Path, app_names: list[str]) -> AppRegistry:
    """Load core doctypes and the named apps (in required_apps order); freeze the whitelist."""
    registry = AppRegistry()
    translation.clear_catalogs()
    for json_path in sorted(CORE_DOCTYPE_DIR.glob("*.json")):
        registry.add_doctype(parse_doctype(_read_json(json_path), str(json_path)), str(json_path), None)
    for doctype, path in CORE_CONTROLLERS.items():
        if doctype in registry.doctypes:
            registry.controllers[doctype] = _controller_class(path.rsplit(".", 1)[0], doctype)
    for lang_file in sorted((CORE_DOCTYPE_DIR.parent / "engine" / "translations").glob("*.csv")):
        translation.register_catalog(lang_file.stem, translation.load_csv(lang_file))
    registry.apps = load_apps(apps_dir, app_names) if app_names else []
    _import_builtin_methods()
    for app in registry.apps:
        registry._load_app_doctypes(app)
        import_app_modules(app)
        registry._load_hooks(app)
        for report in load_app_reports(app):
            if report.name in registry.reports:
                raise exc.ConfigurationError(f"App {app.name!r}: report {report.name!r} is defined twice")
            registry.reports[report.name] = report
    _check_links(registry)
    whitelisted.freeze()
    return registry


def registry_from_settings(settings: Any) -> AppRegistry:
    return build_registry(settings.apps_dir, read_apps_txt(settings.apps_txt))


def load_app_reports(app: App) -> list[Any]:
    from engine.reports import load_app_reports as load

    return load(app)


def _import_builtin_methods() -> None:
    importlib.import_module("engine.methods")


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
