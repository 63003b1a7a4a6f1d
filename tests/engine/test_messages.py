"""`engine.messages`: what `fw extract-messages` finds, and what it leaves out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import exceptions as exc
from engine.messages import extract_messages, write_template
from tests.engine.cli_apps import write_files


def test_extraction_sources_and_template_format(tmp_path: Path) -> None:
    app = tmp_path / "msgapp"
    write_files(app, {
        "hooks.py": 'app_name = "msgapp"\n',
        "logic.py": 'from engine.translation import _\n\n\ndef f(x):\n    _(x)\n    _(f"dyn {x}")\n'
                    '    return _("Saved {0}", x), _("Saved {0}", x)\n',
        "public/js/a.js": 'let a = __("Hello"); let b = __(`Hi ${name}`); let c = __("Save", null, "Button");\n',
        "report/sales/sales.json": json.dumps({"report_name": "Sales", "columns": [{"label": "Net, Total"}]}),
        "doctype/box/box.json": json.dumps({"name": "Box", "description": "Holds things", "fields": [
            {"fieldname": "size", "fieldtype": "Select", "label": "Size", "options": "\nS\nM"},
            {"fieldname": "note", "fieldtype": "Data", "description": "Free text"}]}),
        "tests/test_x.py": 'from engine.translation import _\n_("only in tests")\n',
        "node_modules/lib/x.js": '__("vendored")\n',
    })
    extraction = extract_messages(app)
    sources = {(m.source, m.context) for m in extraction.messages}
    assert sources == {("Saved {0}", ""), ("Hello", ""), ("Save", "Button"), ("Sales", ""), ("Net, Total", ""),
                       ("Box", ""), ("Holds things", ""), ("Size", ""), ("S", ""), ("M", ""), ("Free text", "")}
    assert extraction.counts["python"] == 2  # found twice, written once
    target = write_template(app, extraction)
    assert target == app / "translations" / "template.csv"
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["Box,,", "Free text,,", "Hello,,"]
    assert '"Net, Total",,' in lines
    assert "Save,,Button" in lines
    assert len(lines) == 11


def test_python_context_keyword_is_kept(tmp_path: Path) -> None:
    app = tmp_path / "ctxapp"
    write_files(app, {
        "logic.py": 'import fw\nfrom engine.translation import _\n\n\ndef f(x, ctx):\n'
                    '    _("Open", context="status")\n'     # the context keyword
                    '    _("Open", context="verb")\n'       # the same source with another context: its own row
                    '    _("Open")\n'                       # and without one
                    '    _("Saved {0}", x, lang="de")\n'    # format arguments and lang are not part of the key
                    '    fw._("Closed", context="status")\n'  # the attribute form
                    '    _(x, context="status")\n'          # a variable is not a message
                    '    _(f"Open {x}", context="status")\n'  # nor an f-string
                    '    _("A" + x)\n'                      # nor a concatenation
                    '    _(*x)\n'
                    '    _("Pending", context=ctx)\n'       # a variable context: the row without context
                    '    _(message="Keyword", context="k")\n'
                    '    return _(x or "Document")\n',      # the literal fallback is translated too
    })
    extraction = extract_messages(app)
    assert {(m.source, m.context) for m in extraction.messages} == {
        ("Open", "status"), ("Open", "verb"), ("Open", ""), ("Saved {0}", ""), ("Closed", "status"),
        ("Pending", ""), ("Keyword", "k"), ("Document", "")}
    lines = write_template(app, extraction).read_text(encoding="utf-8").splitlines()
    assert lines[lines.index("Open,,"):lines.index("Open,,") + 3] == ["Open,,", "Open,,status", "Open,,verb"]
    assert "Closed,,status" in lines


def test_a_python_file_that_does_not_parse_is_named(tmp_path: Path) -> None:
    app = tmp_path / "badapp"
    write_files(app, {"ok.py": '_("Fine")\n', "pkg/broken.py": 'from engine.translation import _\n\ndef f(:\n'})
    with pytest.raises(exc.ConfigurationError, match=r"Cannot parse .*pkg/broken\.py \(line 3\)"):
        extract_messages(app)
