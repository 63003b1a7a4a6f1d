"""The reference app's "Warning Letter" print format (fixtures/print_format.json) on its letter head:
a confirmed Warehouse Violation printed as a PDF by an HR Reviewer, its text checked; a Warehouse
Manager (no print right) is refused."""

from __future__ import annotations

import io

import httpx
from pypdf import PdfReader

from engine.site import Site
from tests.apps.conftest import Org, People
from tests.apps.test_violation import act, create, get

PDF = "/api/method/fw.utils.print_format.download_pdf"


async def test_warning_letter_prints_a_confirmed_violation(client: httpx.AsyncClient, people: People, org: Org,
                                                            ws: Site) -> None:
    doc = await create(client, people.warehouse, employee=org.emp("E-1001"), date="2024-03-15",
                       violation_type="Blocked Aisle", description="Pallet left in aisle 4")
    assert (await act(client, people.warehouse, doc["name"], "Submit for Review")).status_code == 200
    assert (await act(client, people.hr, doc["name"], "Confirm")).status_code == 200
    confirmed = await get(client, people.hr, doc["name"])
    params = {"doctype": "Warehouse Violation", "name": doc["name"], "format": "Warning Letter",
              "letterhead": "Workforce Scoring"}
    r = await client.get(PDF, params=params, headers=people.hr.token)
    assert r.status_code == 200 and r.content.startswith(b"%PDF"), r.text[:300]
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(r.content)).pages)
    for expected in ("Workforce Scoring", "Warning Letter", "Ada Lovelace", "Acme Logistics", "Blocked Aisle",
                     "5.00", "Pallet left in aisle 4", doc["name"], "hr@example.com", "15-03-2024"):
        assert expected in text, expected
    assert str(confirmed["confirmed_at"])[:4] in text
    refused = await client.get(PDF, params=params, headers=people.warehouse.token)
    assert refused.status_code == 403
