"""The README tour's spreadsheet (apps/hr/demo/new_hires.csv) imports into the demo's companies and
branches as `fw data-import --doctype Employee` does (engine/dataimport/ through `importer.run`)."""

from __future__ import annotations

from pathlib import Path

from engine.context import unit_of_work
from engine.dataimport import importer
from engine.dataimport.reader import read_sheet
from engine.documents.factory import new_doc
from engine.query.listing import get_all
from engine.site import Site
from tests.apps.conftest import ws  # noqa: F401 - the reference apps' site

CSV = Path(__file__).resolve().parents[3] / "apps" / "hr" / "demo" / "new_hires.csv"
README = Path(__file__).resolve().parents[3] / "README.md"


async def test_the_tour_csv_imports(ws: Site) -> None:  # noqa: F811
    assert "fw data-import --doctype Employee --file apps/hr/demo/new_hires.csv" in README.read_text()
    ctx = ws.context("Administrator")
    async with unit_of_work(ctx):
        for company, branches in (("Northwind Logistics", ["Northwind Hamburg", "Northwind Bremen"]),
                                  ("Southwind Freight", ["Southwind Munich"])):
            await new_doc(ctx, "Company", company_name=company).insert()
            for branch in branches:
                await new_doc(ctx, "Branch", branch=branch, company=company).insert()
    content = CSV.read_bytes()
    outcome = await importer.run(ctx, read_sheet(CSV.name, content, 10_000_000),
                                 importer.Options(data_import=None, doctype="Employee",
                                                  import_type="Insert New Records"))
    assert (outcome.succeeded, outcome.failed, outcome.warnings) == (3, [], [])
    assert (outcome.total, outcome.rows) == (3, 3)
    assert sorted(await get_all(ctx, "Employee", pluck="employee_number")) == ["N-9001", "N-9002", "S-9001"]
