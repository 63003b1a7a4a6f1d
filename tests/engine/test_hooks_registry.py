"""The app registry (contract §4, interface spec "Application registry"): a broken app stops
startup with a message naming the file and key; doc_events with tuple keys and "*",
override_whitelisted_methods, doctype_js and app_include_js are collected."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from engine import exceptions as exc
from engine import translation
from engine.apps import whitelisted
from engine.apps.loader import build_registry
from engine.apps.registry import AppRegistry
from tests.engine.temp_apps import doctype_json, forget_apps, temp_registry, unique, write_app

Build = Callable[..., AppRegistry]


@pytest.fixture
def build(tmp_path: Path) -> Iterator[Build]:
    """Write one app (a fresh package name each time) and build a registry of it."""
    written: list[str] = []

    def make(hooks: str = "", files: dict[str, str] | None = None, *, name: str | None = None) -> AppRegistry:
        app = name or unique("happ")
        written.append(app)
        write_app(tmp_path, app, hooks.replace("APP", app), {k.replace("APP", app): v.replace("APP", app)
                                                               for k, v in (files or {}).items()})
        return temp_registry(tmp_path, [app])

    yield make
    forget_apps(tmp_path, written)


def thing(name: str = "H Thing", **extra: object) -> str:
    return doctype_json(name, [{"fieldname": "title", "fieldtype": "Data", "label": "Title"}], **extra)


DOCTYPE_FILES = {"doctype/__init__.py": "", "doctype/h_thing/__init__.py": ""}


# -- broken apps stop startup ------------------------------------------------------------------------

def test_bad_doctype_json_names_the_file(build: Build, tmp_path: Path) -> None:
    with pytest.raises(exc.ConfigurationError) as err:
        build(files={**DOCTYPE_FILES, "doctype/h_thing/h_thing.json": '{"name": "H Thing", "fields": [,]}'})
    assert "h_thing.json" in err.value.message and "Cannot read doctype JSON" in err.value.message


def test_doctype_json_must_be_an_object(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError, match=r"h_thing\.json: a doctype file must hold one JSON object"):
        build(files={**DOCTYPE_FILES, "doctype/h_thing/h_thing.json": "[1, 2]"})


def test_unknown_hook_key_is_named(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError) as err:
        build('doc_event = {"User": {"validate": "x.y"}}\n')
    assert "unknown hooks.py key 'doc_event'" in err.value.message
    assert "hooks.py" in err.value.message


@pytest.mark.parametrize(("hooks", "key"), [
    ('doc_events = {"User": {"validate": "APP.events.missing"}}\n', "doc_events"),
    ('after_install = "APP.events.missing"\n', "after_install"),
    ('after_migrate = ["APP.events.missing"]\n', "after_migrate"),
    ('scheduler_events = {"daily": ["APP.events.missing"]}\n', "scheduler_events"),
    ('scheduler_events = {"cron": {"*/5 * * * *": ["APP.events.missing"]}}\n', "scheduler_events"),
    ('permission_query_conditions = {"User": "APP.events.missing"}\n', "permission_query_conditions"),
    ('has_permission = {"User": "APP.events.missing"}\n', "has_permission"),
])
def test_unresolved_dotted_path_names_app_key_and_path(build: Build, hooks: str, key: str) -> None:
    name = unique("happ")
    with pytest.raises(exc.ConfigurationError) as err:
        build(hooks, {"events.py": "def present(doc, method):\n    pass\n"}, name=name)
    message = err.value.message
    assert f"App {name!r}" in message
    assert f"hooks.py key {key!r}" in message
    assert f"'{name}.events.missing'" in message


def test_unimportable_module_in_a_dotted_path(build: Build) -> None:
    name = unique("happ")
    with pytest.raises(exc.ConfigurationError) as err:
        build('after_migrate = "APP.nowhere.run"\n', name=name)
    assert f"App {name!r}, hooks.py key 'after_migrate'" in err.value.message
    assert f"'{name}.nowhere.run'" in err.value.message


def test_not_a_dotted_path(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError, match="is not a dotted path"):
        build('after_install = "setup"\n')


def test_unknown_scheduler_frequency(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError, match="unknown frequency 'fortnightly'"):
        build('scheduler_events = {"fortnightly": ["APP.events.present"]}\n',
              {"events.py": "def present():\n    pass\n"})


def test_fixture_entry_without_doctype(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError, match=r"hooks.py key 'fixtures': each entry needs `dt`"):
        build('fixtures = [{"filters": []}]\n')


def test_cyclic_required_apps(tmp_path: Path) -> None:
    a, b = unique("hcyca"), unique("hcycb")
    write_app(tmp_path, a, f'required_apps = ["{b}"]\n')
    write_app(tmp_path, b, f'required_apps = ["{a}"]\n')
    try:
        with pytest.raises(exc.ConfigurationError) as err:
            temp_registry(tmp_path, [a, b])
        assert err.value.message in (f"Cyclic required_apps: {a} -> {b} -> {a}",
                                     f"Cyclic required_apps: {b} -> {a} -> {b}")
    finally:
        forget_apps(tmp_path, [a, b])


def test_app_without_hooks_file(tmp_path: Path) -> None:
    (tmp_path / "hollow_app").mkdir()
    with pytest.raises(exc.ConfigurationError) as err:
        temp_registry(tmp_path, ["hollow_app"])
    assert "'hollow_app' is listed in apps.txt" in err.value.message
    assert str(tmp_path / "hollow_app" / "hooks.py") in err.value.message


def test_controller_module_without_its_class(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError) as err:
        build(files={**DOCTYPE_FILES, "doctype/h_thing/h_thing.json": thing(),
                     "doctype/h_thing/h_thing.py": "class Wrong:\n    pass\n"})
    assert "doctype.h_thing.h_thing must define `class HThing(Document)`" in err.value.message
    assert "'H Thing'" in err.value.message


def test_controller_module_that_fails_to_import(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError, match=r"h_thing\.h_thing for 'H Thing' failed to import"):
        build(files={**DOCTYPE_FILES, "doctype/h_thing/h_thing.json": thing(),
                     "doctype/h_thing/h_thing.py": "raise ImportError('half written')\n"})


def test_doctype_in_the_wrong_folder(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError) as err:
        build(files={"doctype/__init__.py": "", "doctype/other_name/__init__.py": "",
                     "doctype/other_name/other_name.json": thing("H Thing")})
    assert "other_name.json" in err.value.message
    assert "'H Thing' must live in doctype/h_thing/" in err.value.message


def test_link_to_an_unknown_doctype(build: Build) -> None:
    fields = [{"fieldname": "ref", "fieldtype": "Link", "label": "Ref", "options": "Nowhere"}]
    with pytest.raises(exc.ConfigurationError, match=r"h_thing\.json: field 'ref' points at unknown doctype"):
        build(files={**DOCTYPE_FILES, "doctype/h_thing/h_thing.json": doctype_json("H Thing", fields)})


def test_doctype_defined_twice(build: Build) -> None:
    with pytest.raises(exc.ConfigurationError, match="'User' is defined twice"):
        build(files={"doctype/__init__.py": "", "doctype/user/__init__.py": "",
                     "doctype/user/user.json": thing("User")})


def test_broken_report_names_its_file(build: Build) -> None:
    report = {"report_name": "H Report", "ref_doctype": "User", "report_type": "Script Report"}
    files = {"report/__init__.py": "", "report/h_report/__init__.py": "",
             "report/h_report/h_report.json": json.dumps(report)}
    with pytest.raises(exc.ConfigurationError) as err:
        build(files={**files, "report/h_report/h_report.py": "def other(filters):\n    return [], []\n"})
    assert "h_report.json" in err.value.message and "no execute(filters)" in err.value.message
    with pytest.raises(exc.ConfigurationError, match=r"h_report\.json: needs report_name matching the folder"):
        build(files={**files, "report/h_report/h_report.json": json.dumps({**report, "report_name": "Other"})})
    with pytest.raises(exc.ConfigurationError, match=r"Cannot read report JSON .*h_report\.json"):
        build(files={**files, "report/h_report/h_report.json": "{"})


# -- what the registry collects ------------------------------------------------------------------------

EVENTS = '''CALLS = []


def on_pair(doc, method):
    CALLS.append(("pair", doc, method))


def on_star(doc, method):
    CALLS.append(("star", doc, method))


def on_user(doc, method):
    CALLS.append(("user", doc, method))
'''


def test_doc_events_tuple_keys_and_star(build: Build) -> None:
    registry = build('''
doc_events = {
    ("User", "Role"): {"validate": "APP.events.on_pair"},
    "User": {"validate": ["APP.events.on_user"], "on_update": "APP.events.on_user"},
    "*": {"validate": "APP.events.on_star", "on_trash": "APP.events.on_star"},
}
''', {"events.py": EVENTS})
    names = lambda dt, event: [fn.__name__ for fn in registry.handlers(dt, event)]  # noqa: E731
    assert names("User", "validate") == ["on_pair", "on_user", "on_star"]  # the doctype's own, then "*"
    assert names("Role", "validate") == ["on_pair", "on_star"]
    assert names("Error Log", "validate") == ["on_star"]
    assert names("User", "on_update") == ["on_user"]
    assert names("Role", "on_trash") == ["on_star"]
    assert names("Role", "on_submit") == []


def test_override_whitelisted_methods(build: Build) -> None:
    registry = build('''
override_whitelisted_methods = {
    "fw.client.get_count": "APP.api.count",
    "fw.auth.get_logged_user": ["APP.api.first", "APP.api.last"],
}
''')
    app = registry.apps[0].name
    assert registry.override_whitelisted_methods == {"fw.client.get_count": f"{app}.api.count",
                                                     "fw.auth.get_logged_user": f"{app}.api.last"}


def test_assets_and_metadata_are_collected(build: Build) -> None:
    registry = build('''
app_publisher = "fw tests"
app_description = "assets"
app_license = "MIT"
app_include_js = ["public/js/one.js", "public/js/two.js"]
app_include_css = "public/css/app.css"
doctype_js = {"User": "public/js/user.js", "Role": ["public/js/role_a.js", "public/js/role_b.js"]}
''')
    app = registry.apps[0].name
    assert registry.app_include_js == [(app, "public/js/one.js"), (app, "public/js/two.js")]
    assert registry.app_include_css == [(app, "public/css/app.css")]
    assert registry.doctype_js == {"User": [(app, "public/js/user.js")],
                                   "Role": [(app, "public/js/role_a.js"), (app, "public/js/role_b.js")]}


def test_hooks_and_app_pieces_are_loaded(build: Build) -> None:
    registry = build('''
import os

from APP import events

after_install = "APP.events.on_user"
before_migrate = ["APP.events.on_pair"]
after_migrate = ["APP.events.on_star"]
scheduler_events = {"hourly_long": ["APP.events.on_user"], "cron": {"0 6 * * *": "APP.events.on_star"}}
fixtures = ["Role", {"dt": "Custom Field", "filters": [["module", "=", "H"]]}]
''', {"events.py": EVENTS, **DOCTYPE_FILES, "doctype/h_thing/h_thing.json": thing(),
      "doctype/h_thing/h_thing.py": "from engine.documents.document import Document\n\n\n"
                                    "class HThing(Document):\n    pass\n"})
    app = registry.apps[0].name
    assert registry.doctype_app["H Thing"] == app and registry.doctype_app["User"] is None
    assert registry.controller("H Thing").__name__ == "HThing"
    assert [fn.__name__ for fn in registry.after_install[app]] == ["on_user"]
    assert [(a, fn.__name__) for a, fn in registry.before_migrate] == [(app, "on_pair")]
    assert [(a, fn.__name__) for a, fn in registry.after_migrate] == [(app, "on_star")]
    # (the framework's own events, engine/core/hooks.py, come after the app's)
    events = {(e.frequency, e.cron, e.queue) for e in registry.scheduler_events if e.app == app}
    assert events == {("hourly_long", None, "long"), ("cron", "0 6 * * *", "default")}
    assert registry.fixtures[app] == [{"dt": "Role", "filters": None},
                                      {"dt": "Custom Field", "filters": [["module", "=", "H"]], "or_filters": None}]


def test_translations_of_core_and_apps_are_registered(tmp_path: Path) -> None:
    name = unique("hlang")
    write_app(tmp_path, name, "", {"translations/de.csv": "Only in the app,Nur in der App\n",
                                   "translations/template.csv": "Only in the app,,\n",
                                   "translations/pt-BR.csv": "Only in the app,Só no aplicativo\n"})
    saved = {lang: dict(table) for lang, table in translation._catalogs.items()}
    was_frozen = whitelisted._frozen
    try:
        build_registry(tmp_path, [name])
        assert translation.translate("Only in the app", "de") == "Nur in der App"
        assert translation.translate("Only in the app", "pt-BR") == "Só no aplicativo"
        assert translation.translate("{0} is mandatory", "de") == "{0} ist ein Pflichtfeld"  # the framework's
        assert "template" not in translation.languages()
    finally:
        translation._catalogs.clear()
        translation._catalogs.update(saved)
        if not was_frozen:
            whitelisted.unfreeze_for_tests()
        forget_apps(tmp_path, [name])
