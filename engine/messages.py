"""`fw extract-messages APP`: an app's translatable strings, for translators.

Sources (Frappe's): `_("...", context="...")` in Python (read with `ast`, so the context keyword
is kept), `__("...", args, "context")` in JavaScript (babel's extractor), and in doctype and report
JSON the doctype/report names, labels, descriptions and Select options. The template
`translations/template.csv` has one row `source,,context` per message (sorted, no header); copy it
to `<lang>.csv` and fill in the second column.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from babel.messages.extract import extract_javascript

from engine import exceptions as exc

TEMPLATE = "template.csv"
SKIP_DIRS = frozenset({"node_modules", "__pycache__", "tests", "fixtures", "translations", ".git"})


@dataclass(frozen=True)
class Message:
    source: str
    context: str = ""


@dataclass
class Extraction:
    messages: set[Message] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)  # kind → strings found (before de-duplication)

    def add(self, kind: str, source: Any, context: Any = None) -> None:
        if isinstance(source, str) and source.strip():
            self.messages.add(Message(source, context if isinstance(context, str) else ""))
            self.counts[kind] += 1

    def rows(self) -> list[tuple[str, str, str]]:
        return [(m.source, "", m.context) for m in sorted(self.messages, key=lambda m: (m.source, m.context))]


def _files(root: Path, suffix: str) -> Iterator[Path]:
    for path in sorted(root.rglob(f"*{suffix}")):
        if path.is_file() and not SKIP_DIRS.intersection(path.relative_to(root).parts[:-1]):
            yield path


def _literal(node: ast.expr | None) -> str | None:
    # only a plain string literal is a message: f-strings, names and concatenations are not
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _alternatives(node: ast.expr | None) -> Iterator[str]:
    """The literal messages of a first argument: `"a"`, and the literal fallbacks of `x or "a"` and
    `"a" if c else "b"` (e.g. `_(doctype or "Document")` translates "Document" when there is none)."""
    if isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _alternatives(value)
    elif isinstance(node, ast.IfExp):
        yield from _alternatives(node.body)
        yield from _alternatives(node.orelse)
    elif (text := _literal(node)) is not None:
        yield text


def _is_translate(func: ast.expr) -> bool:
    """`_(...)` or `<anything>._(...)` (e.g. `fw._`)."""
    return (isinstance(func, ast.Name) and func.id == "_") or (isinstance(func, ast.Attribute) and func.attr == "_")


def _python(path: Path, out: Extraction) -> None:
    # `ast` rather than babel's extractor: babel drops keyword arguments, and with them `context=`
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))  # bytes: honours a coding declaration
    except SyntaxError as e:
        raise exc.ConfigurationError(f"Cannot parse {path} (line {e.lineno}): {e.msg}") from e
    except (OSError, ValueError) as e:
        raise exc.ConfigurationError(f"Cannot read {path}: {e}") from e
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_translate(node.func)):
            continue
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        # `_(message, *args, lang=None, context=None)`: the context can only be a keyword; a
        # non-literal one is dropped, and `translate()` then falls back to the row without context
        context = _literal(keywords.get("context"))
        for message in _alternatives(node.args[0] if node.args else keywords.get("message")):
            out.add("python", message, context)


def _javascript(path: Path, out: Extraction) -> None:
    with path.open("rb") as fh:
        javascript_messages(fh, out)


def javascript_messages(source: IO[bytes], out: Extraction) -> None:
    """The `__(message, args, context)` messages of JavaScript source (the Desk bundle reads its form
    scripts' messages with this). The raw extractor gives every argument, so the context is kept."""
    # (`${__("...")}` inside template literals too: the Desk writes its markup as htm templates)
    keywords: dict[str, None] = {"__": None}  # (no argument spec: every argument is given back)
    for _lineno, _func, args, _comments in extract_javascript(source, keywords, [], {"parse_template_string": True}):
        values = args if isinstance(args, tuple) else (args,)
        message = values[0] if values else None
        if isinstance(message, str) and "${" not in message:  # a template literal is not a message
            out.add("javascript", message, values[2] if len(values) > 2 else None)


def _doctype(data: dict[str, Any], out: Extraction) -> None:
    out.add("doctype", data.get("name"))
    out.add("doctype", data.get("description"))
    for f in data.get("fields") or []:
        if not isinstance(f, dict):
            continue
        out.add("doctype", f.get("label"))
        out.add("doctype", f.get("description"))
        if f.get("fieldtype") == "Select" and isinstance(f.get("options"), str):
            for option in f["options"].split("\n"):
                out.add("doctype", option.strip())


def _labels(value: Any, out: Extraction) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("label", "description") and isinstance(item, str):
                out.add("report", item)
            else:
                _labels(item, out)
    elif isinstance(value, list):
        for item in value:
            _labels(item, out)


def _report(data: dict[str, Any], out: Extraction) -> None:
    out.add("report", data.get("report_name") or data.get("name"))
    _labels({k: v for k, v in data.items() if k not in ("report_name", "name")}, out)


def _json(path: Path, app_path: Path, out: Extraction) -> None:
    parts = path.relative_to(app_path).parts
    if len(parts) != 3 or parts[0] not in ("doctype", "report") or path.stem != parts[1]:
        return
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise exc.ConfigurationError(f"Cannot read {path}: {e}") from e
    if isinstance(data, dict):
        (_doctype if parts[0] == "doctype" else _report)(data, out)


def extract_messages(app_path: Path) -> Extraction:
    """Every translatable string of the app folder."""
    out = Extraction()
    for path in _files(app_path, ".py"):
        _python(path, out)
    for path in _files(app_path, ".js"):
        _javascript(path, out)
    for path in _files(app_path, ".json"):
        _json(path, app_path, out)
    return out


def write_template(app_path: Path, extraction: Extraction) -> Path:
    """Write `translations/template.csv` (rows `source,,context`, sorted, no header)."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(extraction.rows())
    target = app_path / "translations" / TEMPLATE
    target.parent.mkdir(exist_ok=True)
    target.write_text(buffer.getvalue(), encoding="utf-8")
    return target
