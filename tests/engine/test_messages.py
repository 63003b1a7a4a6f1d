"""`engine.messages`: what `fw extract-messages` finds, and what it leaves out."""

from __future__ import annotations

import json
from pathlib import Path

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
