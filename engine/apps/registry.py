"""`AppRegistry`: everything the apps (and the framework's own core app) contribute, resolved once
at startup by `engine.apps.loader` and read by the rest of the engine.

Plain data: the registry holds doctype schemas, controller classes and resolved hook functions;
it imports none of them. Shared by every site of the process.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import exceptions as exc
from engine.apps.callables import Handler
from engine.apps.installed import App
from engine.meta.schema import DocTypeSchema


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
    # the site's drop-in doctypes (doctype_json/), in file order; their doctype_app is None, as the core's
    site_doctypes: list[str] = field(default_factory=list)
    controllers: dict[str, type] = field(default_factory=dict)
    # the class of doctypes without a controller of their own (the loader sets engine's Document)
    default_controller: type | None = None
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
    # re-read the doctype JSON files if any changed since (the loader sets it): the DocType editor's
    # save or another process's `fw migrate` adds or changes doctypes while this process runs; answers
    # whether anything changed. ConfigurationError naming the bad file, with nothing changed.
    reread: Callable[[], bool] | None = None
    _handler_cache: dict[tuple[str, str], tuple[Handler, ...]] = field(default_factory=dict)
    _permission_hook_cache: dict[tuple[str, str], tuple[Handler, ...]] = field(default_factory=dict)
    _derived: dict[tuple[type, str], dict[Any, Any]] = field(default_factory=dict)

    @property
    def app_names(self) -> list[str]:
        return [a.name for a in self.apps]

    def require_modules(self, doing: str, doctypes: list[str] | None = None) -> None:
        """Every doctype names its app module (interface spec); fail naming each one (and its JSON file)
        that does not, among `doctypes` (default: all, the framework's own included)."""
        missing = [n for n in dict.fromkeys(self.doctypes if doctypes is None else doctypes)
                   if n in self.doctypes and not self.doctypes[n].module]
        if missing:
            named = [f"doctype {n!r} ({self.doctype_source.get(n, '?')})" for n in missing]
            listed = named[0] if len(named) == 1 else ", ".join(named[:-1]) + " and " + named[-1]
            raise exc.ConfigurationError(
                f"Cannot {doing}: {listed} {'has' if len(named) == 1 else 'have'} no `module`. Set `module` in "
                f"the JSON (the module of the app it belongs to, e.g. \"module\": \"HR\"), then run the command again.")

    def handlers(self, doctype: str, event: str) -> tuple[Handler, ...]:
        """doc_events handlers for (doctype, event): the doctype's own, then those of "*"."""
        key = (doctype, event)
        cached = self._handler_cache.get(key)
        if cached is None:
            own = self.doc_events.get(doctype, {}).get(event, [])
            star = self.doc_events.get("*", {}).get(event, [])
            cached = self._handler_cache[key] = (*own, *star)
        return cached

    def hooked(self, controller: type, doctype: str, event: str) -> bool:
        """Whether documents of `doctype` whose class is `controller` have code for `event`: a
        controller method, or doc_events handlers (the doctype's or "*"'s)."""
        return getattr(controller, event, None) is not None or bool(self.handlers(doctype, event))

    def derived(self, controller: type, doctype: str) -> dict[Any, Any]:
        """Where the engine keeps what it works out from this registry for documents of `doctype` whose
        class is `controller` (the lifecycle's step plans): valid as long as the registry, since the
        controllers and doc_events it is worked out from do not change."""
        key = (controller, doctype)
        kept = self._derived.get(key)
        if kept is None:
            kept = self._derived[key] = {}
        return kept

    def clear_derived(self) -> None:
        """Forget what was worked out from the doctypes (their definitions were re-read)."""
        self._derived.clear()

    def permission_hooks(self, key: str, doctype: str) -> tuple[Handler, ...]:
        """The `has_permission` or `permission_query_conditions` hooks (`key`) that apply to
        `doctype`: its own, then those of "*". Asked on every permission check, so kept."""
        cached = self._permission_hook_cache.get((key, doctype))
        if cached is None:
            hooks: dict[str, list[Handler]] = getattr(self, key)
            cached = self._permission_hook_cache[(key, doctype)] = (*hooks.get(doctype, ()), *hooks.get("*", ()))
        return cached

    def controller(self, doctype: str) -> type:
        """The controller class of `doctype` (the default one for a doctype without its own)."""
        cls = self.controllers.get(doctype) or self.default_controller
        if cls is None:
            raise RuntimeError(f"{doctype}: this registry has no controller (it was not built by engine.apps.loader)")
        return cls

    def add_doctype(self, schema: DocTypeSchema, source: str, app: str | None) -> None:
        if schema.name in self.doctypes:
            raise exc.ConfigurationError(
                f"Doctype {schema.name!r} is defined twice: {self.doctype_source[schema.name]} and {source}")
        self.doctypes[schema.name] = schema
        self.doctype_source[schema.name] = source
        self.doctype_app[schema.name] = app
