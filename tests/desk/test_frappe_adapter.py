"""The Desk's own modules never read the `frappe` namespace (issue 28, item 5): `static/js/frappe/` is an
adapter that gives form, list and report scripts Frappe's names (`frappe.ui.form.on`, `frm.set_value`,
`cur_frm`, `frappe.validated`, `frappe.listview_settings`, ...) over the Desk's modules (`js/form/`,
`script_settings.js`, ...), and nothing outside it reads `window.frappe`, a bare `frappe` or `cur_frm`
global, or imports the adapter (main.js excepted: it installs it). Comments and strings may name them."""

from __future__ import annotations

import re
from pathlib import Path

JS = Path(__file__).parents[2] / "server" / "desk" / "static" / "js"
ADAPTER = JS / "frappe"
INSTALLER = JS / "main.js"  # installs the namespace before any app script runs

_GLOBAL = re.compile(r"(?<![\w$.])(frappe|cur_frm)(?![\w$])|\b(?:window|globalThis|self)\s*\.\s*(frappe|cur_frm)\b")
_SPECIFIER = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']""")
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^")


def _skip_string(source: str, i: int, quote: str) -> int:
    """The index after the string literal whose opening quote is at `i - 1` (a newline ends a broken one)."""
    while i < len(source) and source[i] != quote and source[i] != "\n":
        i += 2 if source[i] == "\\" else 1
    return i + 1


def _skip_regex(source: str, i: int) -> int:
    """The index after the regex literal whose opening slash is at `i - 1`."""
    in_class = False
    while i < len(source) and source[i] != "\n":
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            i += 1
            while i < len(source) and (source[i].isalpha()):
                i += 1
            return i
        i += 1
    return i


def code_of(source: str) -> str:
    """`source` without its comments, string literals, regex literals and template literals' text
    (a template's `${...}` stays: it is code)."""
    out: list[str] = []
    depths: list[int] = []  # per open template expression: its brace depth
    i, n = 0, len(source)
    in_template = False
    while i < n:
        c = source[i]
        nxt = source[i + 1] if i + 1 < n else ""
        if in_template:
            if c == "\\":
                i += 2
            elif c == "`":
                in_template = False
                out.append('""')
                i += 1
            elif c == "$" and nxt == "{":
                in_template = False
                depths.append(0)
                out.append(" ")
                i += 2
            else:
                i += 1
            continue
        if c == "/" and nxt == "/":
            while i < n and source[i] != "\n":
                i += 1
        elif c == "/" and nxt == "*":
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        elif c in "'\"":
            i = _skip_string(source, i + 1, c)
            out.append('""')
        elif c == "`":
            in_template = True
            i += 1
        elif c == "/":
            before = "".join(out).rstrip()
            if not before or before[-1] in _REGEX_BEFORE or re.search(r"\b(?:return|typeof|case|in|of)$", before):
                i = _skip_regex(source, i + 1)
                out.append("/r/")
            else:
                out.append(c)
                i += 1
        elif c == "{" and depths:
            depths[-1] += 1
            out.append(c)
            i += 1
        elif c == "}" and depths:
            if depths[-1] == 0:
                depths.pop()
                in_template = True
                out.append(" ")
            else:
                depths[-1] -= 1
                out.append(c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def global_reads(source: str) -> list[str]:
    """Each line of code that reads the `frappe` or `cur_frm` global."""
    return [line.strip() for line in code_of(source).splitlines() if _GLOBAL.search(line)]


def adapter_imports(path: Path, source: str) -> list[str]:
    """The modules of the frappe adapter that `path` imports (statically or by `import()`)."""
    found = []
    for specifier in _SPECIFIER.findall(source):
        if not specifier.startswith("."):
            continue
        target = (path.parent / specifier).resolve()
        if target == ADAPTER.resolve() or ADAPTER.resolve() in target.parents:
            found.append(specifier)
    return found


def core_modules() -> list[Path]:
    return sorted(p for p in JS.rglob("*.js") if ADAPTER not in p.parents)


def test_the_scanner_finds_what_it_looks_for() -> None:
    # the reads this module's rule forbids, as they stood in the views before the model moved
    assert global_reads("const all = (window.frappe && window.frappe.listview_settings) || {};")
    assert global_reads("\tif (frappe.validated === false) return false;")
    assert global_reads("window.cur_frm = frm;")
    assert global_reads("const x = html`<p>${frappe.boot.user}</p>`;")
    # names in comments, strings, template text and properties are not reads of the global
    source = (
        "// `frappe.ui.form.on(doctype, handlers)` (frappe/form.js)\n"
        "/* window.frappe */ const label = \"frappe.call\", url = '//x/frappe.js';\n"
        "const chart = html`<p class=\"frappe-chart\">frappe.x ${label}</p>`;\n"
        "const re = /[\"']frappe/g; const f = settings.frappe;\n"
    )
    assert global_reads(source) == []
    here = JS / "views" / "form" / "form_view.js"
    assert adapter_imports(here, 'import { Form } from "../../frappe/form.js";') == ["../../frappe/form.js"]
    assert adapter_imports(here, 'const m = await import("../../frappe/dialog.js");') == ["../../frappe/dialog.js"]
    assert adapter_imports(here, 'import { Chart } from "../../../vendor/frappe-charts.js";') == []


def test_the_desk_s_own_modules_do_not_read_the_frappe_namespace() -> None:
    modules = core_modules()
    names = {p.relative_to(JS).as_posix() for p in modules}
    # the form model and the views that used to read the namespace are among those checked
    assert {"form/form.js", "form/events.js", "views/form/form_view.js", "views/form/save.js",
            "views/list/list_view.js", "views/report/report_view.js", "controls/grid.js"} <= names
    offences = {}
    for path in modules:
        source = path.read_text(encoding="utf-8")
        found = global_reads(source)
        if path != INSTALLER:
            found += [f"imports {s}" for s in adapter_imports(path, source)]
        if found:
            offences[path.relative_to(JS).as_posix()] = found
    assert offences == {}, ("the frappe namespace is an adapter for app scripts; the Desk's modules use js/form/ "
                            "and the others directly")


def test_the_adapter_is_where_frappe_s_names_are_installed() -> None:
    index = (ADAPTER / "index.js").read_text(encoding="utf-8")
    # the form model, events and the scripts' settings come from the Desk's modules, not copies
    for specifier in ("../form/events.js", "../form/current.js", "../form/validation.js", "../form/create.js",
                      "../script_settings.js"):
        assert f'from "{specifier}"' in index
    assert not (ADAPTER / "form_events.js").exists()
    form = (ADAPTER / "form.js").read_text(encoding="utf-8")
    assert 'import { Form } from "../form/form.js";' in form and "class FrappeForm extends Form" in form
