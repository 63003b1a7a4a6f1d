"""frappe-js-sdk, unmodified, against a real `fw serve`: `js/sdk_check.mjs` drives the SDK (cookie
login and token auth, document CRUD, lists, counts, values, method calls, submit/cancel, errors) and
prints every result as JSON; this test asserts on the values and on what went over the wire.

Node.js is required: without it this test fails (it does not skip)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ADMIN_PASSWORD, FwServerFactory, login

JS_DIR = Path(__file__).parent / "js"
SDK = "frappe-js-sdk"
CUSTOMER = "Test Customer"


def _pinned_version() -> str:
    return str(json.loads((JS_DIR / "package.json").read_text())["dependencies"][SDK])


def ensure_node() -> str:
    """The node binary, with the SDK installed in js/node_modules (npm ci when it is missing).
    Called in the test itself, so a machine without Node.js shows a FAILED test, not a skip."""
    node_bin, npm_bin = shutil.which("node"), shutil.which("npm")
    if node_bin is None or npm_bin is None:
        pytest.fail("Node.js (node and npm, version 18 or newer) is required for the frappe-js-sdk "
                    "compatibility test; install it, then run `npm ci --prefix tests/e2e/js`")
    installed = JS_DIR / "node_modules" / SDK / "package.json"
    if not installed.exists() or json.loads(installed.read_text())["version"] != _pinned_version():
        lock = (JS_DIR / "package-lock.json").exists()
        cmd = [npm_bin, "ci" if lock else "install", "--no-audit", "--no-fund"]
        result = subprocess.run(cmd, cwd=JS_DIR, capture_output=True, text=True, timeout=600, check=False)
        if result.returncode != 0:
            pytest.fail(f"`{' '.join(cmd)}` in {JS_DIR} failed ({result.returncode}):\n"
                        f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    assert json.loads(installed.read_text())["version"] == _pinned_version()
    return node_bin


def run_sdk_check(node: str, base_url: str, key: str, secret: str, prefix: str) -> dict[str, Any]:
    env = {**os.environ, "FW_USER": "Administrator", "FW_PASSWORD": ADMIN_PASSWORD, "FW_API_KEY": key,
           "FW_API_SECRET": secret, "FW_PREFIX": prefix}
    result = subprocess.run([node, "sdk_check.mjs", base_url], cwd=JS_DIR, env=env, capture_output=True,
                            text=True, timeout=120, check=False)
    try:
        summary: dict[str, Any] = json.loads(result.stdout)
    except json.JSONDecodeError:
        pytest.fail(f"sdk_check.mjs printed no JSON (exit {result.returncode}):\n{result.stdout[-3000:]}\n"
                    f"{result.stderr[-3000:]}")
    if result.returncode != 0:
        failed = {k: summary["results"].get(k) for k in summary.get("failures", [])}
        pytest.fail(f"frappe-js-sdk calls failed against fw (exit {result.returncode}):\n"
                    f"{json.dumps(failed, indent=1)[:6000]}\n{result.stderr[-2000:]}")
    return summary


def test_frappe_js_sdk(fw_servers: FwServerFactory) -> None:
    node = ensure_node()
    server = fw_servers.start()
    with login(server.url) as admin:
        r = admin.post("/api/method/fw.core.doctype.user.user.generate_keys", data={"user": "Administrator"})
        assert r.status_code == 200, r.text
        keys = r.json()["message"]
    summary = run_sdk_check(node, server.url, keys["api_key"], keys["api_secret"], "SDK")
    res = summary["results"]

    def value(label: str) -> Any:
        entry = res[label]
        assert entry["ok"] and "value" in entry, (label, entry)
        return entry["value"]

    def error(label: str, status: int, exc_type: str) -> dict[str, Any]:
        entry = res[label]
        assert entry["ok"] and "error" in entry, (label, entry)
        err = entry["error"]
        assert (err["httpStatus"], err["exc_type"]) == (status, exc_type), (label, err)
        # the SDK surfaces `exception ?? exc_type`; fw sends Frappe's "<module>.<Class>: <message>"
        assert exc_type in err["exception"], (label, err)
        return err  # type: ignore[no-any-return]

    assert summary["sdk"] == _pinned_version()
    assert summary["failures"] == []

    # -- authentication ---------------------------------------------------------------------------
    err = error("session.login.wrongPassword", 401, "AuthenticationError")
    assert err["message"] == "Invalid login credentials"
    error("session.getLoggedInUser.guest", 403, "PermissionError")
    assert value("session.login") == {"message": "Logged In", "home_page": "/app", "full_name": "Administrator"}
    assert "sid" in value("session.cookies")
    assert value("session.getLoggedInUser") == "Administrator"
    assert value("session.logout") is None
    assert "sid" not in value("session.cookies.afterLogout")
    error("session.getLoggedInUser.afterLogout", 403, "PermissionError")
    assert value("token.getLoggedInUser") == "Administrator"
    error("badToken.getLoggedInUser", 401, "AuthenticationError")
    # the SDK's forgetPassword reaches fw's reset_password (business.md §2.2): the same answer whether
    # or not the user exists
    assert res["session.forgetPassword"]["ok"] is True, res["session.forgetPassword"]

    # -- the same document operations, over the cookie session and over token auth --------------
    for p in ("SDKS", "SDKT"):
        alpha, beta, gamma = f"{p} Alpha", f"{p} Beta", f"{p} Gamma"
        created = value(f"{p}.createDoc.alpha")
        assert {k: created[k] for k in ("doctype", "name", "customer_name", "region", "credit_limit", "docstatus",
                                        "owner")} == {
            "doctype": CUSTOMER, "name": alpha, "customer_name": alpha, "region": "North", "credit_limit": 100,
            "docstatus": 0, "owner": "Administrator"}
        assert created["creation"] and created["modified"]
        assert value(f"{p}.getDocList.filtered") == [
            {"name": alpha, "region": "North", "credit_limit": 100},
            {"name": gamma, "region": "North", "credit_limit": 10}]
        assert value(f"{p}.getDocList.page") == [{"name": beta}]
        assert value(f"{p}.getDocList.orFilters") == [{"name": alpha}, {"name": beta}]
        assert value(f"{p}.getDocList.in") == [{"name": alpha}, {"name": gamma}]
        assert value(f"{p}.getDocList.asList") == [[alpha, "North"], [beta, "South"], [gamma, "North"]]
        default = value(f"{p}.getDocList.default")
        assert all(set(row) == {"name"} for row in default) and {"name": alpha} in default
        assert default == sorted(default, key=lambda row: row["name"])  # sort_field customer_name ASC

        assert value(f"{p}.getDocList.noOrder") == [{"name": alpha}, {"name": beta}, {"name": gamma}]
        assert value(f"{p}.getDoc")["region"] == "North"
        updated = value(f"{p}.updateDoc")
        assert (updated["region"], updated["credit_limit"]) == ("West", 150)
        assert updated["modified"] > created["modified"]
        assert (value(f"{p}.getDoc.afterUpdate")["region"], value(f"{p}.getDoc.afterUpdate")["credit_limit"]) \
            == ("West", 150)
        assert value(f"{p}.getCount") == 3
        assert value(f"{p}.getCount.north") == 1
        assert isinstance(value(f"{p}.getCount.all"), int) and value(f"{p}.getCount.all") >= 3
        assert value(f"{p}.getValue") == {"message": {"region": "West", "credit_limit": 150}}
        assert value(f"{p}.getValue.single") == {"message": {"region": "South"}}
        assert value(f"{p}.setValue")["message"]["region"] == "East"
        after_object = value(f"{p}.setValue.object")["message"]
        assert (after_object["region"], after_object["credit_limit"]) == ("Central", 75)
        assert value(f"{p}.getLastDoc")["name"] == gamma  # the newest by creation
        assert value(f"{p}.deleteDoc") == {"data": "ok"}
        error(f"{p}.getDoc.deleted", 404, "DoesNotExistError")
        assert value(f"{p}.getCount.afterDelete") == 2

        assert value(f"{p}.call.get.ping") == {"message": "pong"}
        assert value(f"{p}.call.post.get_value") == {"message": {"credit_limit": 150}}
        assert value(f"{p}.call.get.get_value") == {"message": {"region": "Central", "credit_limit": 75}}
        assert value(f"{p}.call.get.get_list") == {"message": [{"name": alpha}, {"name": beta}]}
        assert value(f"{p}.call.put.set_value")["message"]["region"] == "Put"
        assert value(f"{p}.call.delete.delete") == {}  # frappe.client.delete returns None: no `message`
        assert value(f"{p}.getCount.end") == 1

    # -- singles, rename, submit/cancel with a child table, errors -----------------------------------
    single = value("token.updateDoc.single")
    assert (single["name"], single["default_region"], single["max_items"]) == ("Test Settings", "North", 7)
    assert value("token.getDoc.single")["max_items"] == 7
    assert value("token.getSingleValue") == {"message": 7}
    assert value("token.getSingleValue.data") == {"message": "North"}
    error("token.getSingleValue.unknownField", 417, "DataError")
    assert value("token.renameDoc") == {"message": "SDK New"}
    assert value("token.getDoc.renamed")["name"] == "SDK New"
    order = value("token.createDoc.order")
    assert order["customer_name"] == "SDK New"  # fetch_from ran
    assert order["total"] == 13 and [row["amount"] for row in order["items"]] == [10, 3]
    assert [row["idx"] for row in order["items"]] == [1, 2]
    assert all(row["parent"] == order["name"] and row["parentfield"] == "items" for row in order["items"])
    assert value("token.submit")["docstatus"] == 1
    cancelled = value("token.cancel")["message"]
    assert (cancelled["name"], cancelled["docstatus"]) == (order["name"], 2)
    error("token.deleteDoc.submitted", 417, "DocstatusTransitionError")
    error("token.createDoc.missingMandatory", 417, "MandatoryError")
    error("token.createDoc.duplicate", 409, "DuplicateEntryError")
    error("token.getDoc.missing", 404, "DoesNotExistError")
    error("token.getDocList.badField", 417, "DataError")
    error("token.call.notWhitelisted", 403, "PermissionError")

    # -- files: uploadFile, then the content over /private/files and /files ------------------------
    session_file = value("session.uploadFile")["message"]
    assert (session_file["file_url"], session_file["is_private"], session_file["owner"]) == (
        "/private/files/session.txt", 1, "Administrator")
    assert value("session.private.read") == "session bytes"
    uploaded = value("files.uploadFile.private")["message"]
    logo = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")
    assert {k: uploaded[k] for k in ("doctype", "file_name", "file_url", "is_private", "file_size", "content_type",
                                     "attached_to_doctype", "attached_to_name", "attached_to_field")} == {
        "doctype": "File", "file_name": "logo.png", "file_url": "/private/files/logo.png", "is_private": 1,
        "file_size": len(logo), "content_type": "image/png", "attached_to_doctype": CUSTOMER,
        "attached_to_name": "SDK Files", "attached_to_field": "logo"}
    assert value("files.getDoc.afterUpload")["logo"] == "/private/files/logo.png"  # the field was set
    read = value("files.private.read")
    assert read["status"] == 200 and base64.b64decode(read["base64"]) == logo
    assert read["headers"] == {
        "content-type": "image/png", "content-length": str(len(logo)),
        "etag": f'"{hashlib.sha256(logo).hexdigest()}"', "cache-control": "private, no-cache",
        "x-content-type-options": "nosniff", "content-disposition": read["headers"]["content-disposition"]}
    assert read["headers"]["content-disposition"].startswith('inline; filename="logo.png"')
    assert value("files.private.guest") == 403
    public = value("files.uploadFile.public")["message"]
    assert (public["file_url"], public["is_private"]) == ("/files/hello sdk.txt", 0)
    assert value("files.public.read") == {
        "status": 200, "text": "hello from the sdk", "nosniff": "nosniff",
        "etag": f'"{hashlib.sha256(b"hello from the sdk").hexdigest()}"'}
    error("files.uploadFile.notAttachField", 417, "ValidationError")

    # -- what the SDK sent ---------------------------------------------------------------------------
    sent = {}
    for req in summary["requests"]:
        sent.setdefault(req["label"], []).append(req)
    login_req = sent["session.login"][0]
    assert (login_req["method"], login_req["url"]) == ("POST", "/api/method/login")
    assert login_req["body"] == {"usr": "Administrator", "pwd": ADMIN_PASSWORD}
    assert sent["session.getLoggedInUser"][0]["url"] == "/api/method/frappe.auth.get_logged_user"
    assert sent["session.getLoggedInUser"][0]["auth"] == "cookie"
    assert sent["token.getLoggedInUser"][0]["auth"] == "token"
    count_req = sent["SDKT.getCount"][0]
    assert count_req["method"] == "GET"
    assert count_req["url"].startswith("/api/method/frappe.client.get_count?doctype=Test+Customer&filters=")
    list_req = sent["SDKT.getDocList.filtered"][0]
    assert list_req["url"].startswith("/api/resource/Test Customer?fields=")
    assert "order_by=credit_limit+desc" in list_req["url"] and "limit=10" in list_req["url"]
    assert "as_dict=true" in list_req["url"]
    assert "order_by=&" in sent["SDKT.getDocList.noOrder"][0]["url"]
    assert sent["token.getSingleValue"][0]["url"] == \
        "/api/method/frappe.client.get_single_value?doctype=Test+Settings&field=max_items"
    upload_req = sent["files.uploadFile.private"][0]
    assert (upload_req["method"], upload_req["url"], upload_req["auth"]) == ("POST", "/api/method/upload_file", "token")
    assert str(upload_req["content_type"]).startswith("multipart/form-data")
    assert sent["session.uploadFile"][0]["auth"] == "cookie"
    assert sent["session.forgetPassword"][0]["body"] == {
        "cmd": "frappe.core.doctype.user.user.reset_password", "user": "nobody@example.com"}
    assert all(req["status"] == 200 for label in ("SDKS.createDoc.alpha", "SDKT.updateDoc")
               for req in sent[label])
