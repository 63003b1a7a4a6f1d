"""Comments over HTTP (desk.md §4's timeline, issue 14 point 4): whoever may read a document comments
on it; comments come with the form's docinfo; the author alone edits or deletes one (a System Manager
may delete any); the parent's permission decides, for adding and for changing; bad input changes
nothing; a deleted document takes its comments with it. Frappe's paths
(`frappe.desk.form.utils.add_comment`) work too."""

from __future__ import annotations

import httpx

from engine.site import Site
from tests.apps.conftest import Org, People, call
from tests.apps.test_report import score
from tests.server.conftest import ApiUser
from tests.server.helpers import ok, refused

ADD = "fw.desk.form.utils.add_comment"
UPDATE = "fw.desk.form.utils.update_comment"
DELETE = "fw.desk.form.utils.delete_comment"
GETDOC = "/api/method/fw.desk.form.load.getdoc"


async def docinfo(client: httpx.AsyncClient, user: ApiUser, doctype: str, name: str) -> dict:  # type: ignore[type-arg]
    r = await client.get(GETDOC, params={"doctype": doctype, "name": name}, headers=user.token)
    return ok(r)["docinfo"]  # type: ignore[no-any-return]


async def test_comment_on_a_readable_document(client: httpx.AsyncClient, people: People, org: Org) -> None:
    employee = org.emp("E-1001")
    made = ok(await call(client, people.hr, ADD, reference_doctype="Employee", reference_name=employee,
                         content="Checked the <b>badge</b> scan"))["message"]
    assert made["owner"] == people.hr.email and made["comment_type"] == "Comment"
    assert made["content"] == "Checked the <b>badge</b> scan"  # stored as given; the Desk shows it as text
    info = await docinfo(client, people.manager, "Employee", employee)
    assert info["total_comments"] == 1
    assert [(c["name"], c["content"], c["owner"]) for c in info["comments"]] == [
        (made["name"], made["content"], people.hr.email)]
    assert people.hr.email in info["user_info"]
    # Frappe's path
    ok(await client.post("/api/method/frappe.desk.form.utils.add_comment", headers=people.hr.token,
                         json={"reference_doctype": "Employee", "reference_name": employee, "content": "second"}))
    assert (await docinfo(client, people.hr, "Employee", employee))["total_comments"] == 2


async def test_no_comment_without_reading_the_document(client: httpx.AsyncClient, people: People, org: Org,
                                                       ws: Site) -> None:
    other = org.emp("E-2001")
    alans = await score(ws, other, 70.0)
    # Ada (an Employee) reads only her own scores (the app's row conditions)
    refused(await call(client, people.ada, ADD, reference_doctype="Employee Score", reference_name=alans,
                       content="hi"), 403)
    assert (await docinfo(client, people.hr, "Employee Score", alans))["total_comments"] == 0
    ok(await call(client, people.ada, ADD, reference_doctype="Employee Score",
                  reference_name=await score(ws, org.emp("E-1001"), 60.0), content="mine"))
    refused(await call(client, people.hr, ADD, reference_doctype="Employee", reference_name="HR-EMP-NOPE",
                       content="hi"), 404)
    refused(await call(client, people.hr, ADD, reference_doctype="No Such Type", reference_name="x",
                       content="hi"), 404)
    refused(await call(client, people.hr, ADD, reference_doctype="Employee", reference_name=other, content="  "), 417)
    assert (await docinfo(client, people.hr, "Employee", other))["total_comments"] == 0


async def test_only_the_author_edits_or_deletes(client: httpx.AsyncClient, people: People, org: Org,
                                                admin: ApiUser) -> None:
    employee = org.emp("E-1001")
    mine = ok(await call(client, people.hr, ADD, reference_doctype="Employee", reference_name=employee,
                         content="first"))["message"]
    refused(await call(client, people.manager, UPDATE, name=mine["name"], content="not yours"), 403)
    refused(await call(client, people.manager, DELETE, name=mine["name"]), 403)
    edited = ok(await call(client, people.hr, UPDATE, name=mine["name"], content="edited"))["message"]
    assert edited["content"] == "edited"
    refused(await call(client, people.hr, UPDATE, name=mine["name"], content=""), 417)
    info = await docinfo(client, people.hr, "Employee", employee)
    assert [c["content"] for c in info["comments"]] == ["edited"]
    ok(await call(client, people.hr, DELETE, name=mine["name"]))
    assert (await docinfo(client, people.hr, "Employee", employee))["comments"] == []
    refused(await call(client, people.hr, DELETE, name=mine["name"]), 404)
    # a System Manager may delete another's comment
    other = ok(await call(client, people.manager, ADD, reference_doctype="Employee", reference_name=employee,
                          content="x"))["message"]
    ok(await call(client, admin, DELETE, name=other["name"]))


async def test_the_comment_doctype_is_not_open_to_users(client: httpx.AsyncClient, people: People, org: Org) -> None:
    ok(await call(client, people.hr, ADD, reference_doctype="Employee", reference_name=org.emp("E-1001"),
                  content="private"))
    refused(await client.get("/api/resource/Comment", headers=people.ada.token), 403)
    r = await client.post("/api/resource/Comment", headers=people.ada.token,
                          json={"reference_doctype": "Employee", "reference_name": org.emp("E-2001"), "content": "x"})
    assert r.status_code == 403


async def test_deleting_the_document_deletes_its_comments(client: httpx.AsyncClient, people: People, org: Org,
                                                          ws: Site, admin: ApiUser) -> None:
    doomed = await score(ws, org.emp("E-1001"), 55.0)
    kept = await score(ws, org.emp("E-1001"), 65.0, period="2024-04")
    ok(await call(client, people.hr, ADD, reference_doctype="Employee Score", reference_name=doomed, content="a"))
    ok(await call(client, people.hr, ADD, reference_doctype="Employee Score", reference_name=kept, content="b"))
    r = await client.delete(f"/api/resource/Employee Score/{doomed}", headers=admin.token)
    assert r.status_code == 202, r.text  # (Frappe's v1 answers a delete with 202)
    r = await client.get("/api/resource/Comment", headers=admin.token, params={
        "fields": '["reference_name", "content"]', "filters": '[["reference_doctype", "=", "Employee Score"]]'})
    assert [(c["reference_name"], c["content"]) for c in ok(r)["data"]] == [(kept, "b")]
