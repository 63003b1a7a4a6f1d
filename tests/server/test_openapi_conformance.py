"""schemathesis with every check, on a representative set of operations (issue 17): the OpenAPI
document says what the server really answers.

`st run --checks all` (schemathesis' own runner, as an operator would run it) fuzzes resource CRUD on
two fixture doctypes, the common `fw.client` calls and login against the app, served by uvicorn on
the test's loop (see tests/server/test_openapi.py for why), in every phase: the schema's examples,
coverage (boundary and missing values, unsupported methods, missing required headers), fuzzing
(positive and negative data) and stateful sequences (create, then read/update/delete what was
created: use after free, resource availability). Every check runs: not a server error; status code,
content type, headers and schema conformance; negative data rejected; positive data accepted;
ignored auth (each call again without credentials); unsupported methods and the Allow header; and the
stateful ones. Expected statuses where Frappe's protocol differs from schemathesis' defaults (the
config file below): invalid data is refused with 417 (contract §4: ValidationError and its
subclasses), a body over a size limit with 413; and valid-looking data may be refused with 417 where
the refusal rests on the database rather than the request's shape (a Link to a document that does not
exist, a duplicate name), which no JSON Schema can express. 5xx is never expected.

It is the fast, always-on conformance run (about 20 s); tests/server/test_openapi.py fuzzes the
whole API with the conformance checks, longer. `FW_CONFORMANCE_EXAMPLES` scales the examples per
operation; `FW_CONFORMANCE_RANDOM=1` explores with a random seed instead of the deterministic mode.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import httpx

from engine.site import Site
from tests.server.conftest import ApiUser
from tests.server.test_openapi import serve_on_this_loop

EXAMPLES = int(os.environ.get("FW_CONFORMANCE_EXAMPLES", "40"))
RANDOM = os.environ.get("FW_CONFORMANCE_RANDOM") == "1"

OPERATIONS = [
    *(f"{op}_{doctype}" for doctype in ("Test_Note", "Test_Customer")
      for op in ("list", "create", "get", "update", "delete")),
    "method_fw_client_get_list_get", "method_fw_client_get_list_post", "method_fw_client_get_count_get",
    "method_fw_client_get_value_get", "method_fw_client_insert_post", "method_fw_client_set_value_post",
    "method_fw_client_get_get", "method_fw_client_delete_post", "method_fw_auth_get_logged_user_get",
    "method_ping_get", "method_fwtest_http_methods_add_post", "login",
]

CONFIG = """\
[parameters]
# the fw.client calls name a doctype: a real one, so they get past the lookup to the rest of the call
doctype = "Test Note"

[checks.negative_data_rejection]
# Frappe's statuses for a refused request: 417 for invalid data (ValidationError), 413 over a limit
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "417", "422", "428", "429"]

[checks.positive_data_acceptance]
# 417 too: a schema-valid Link may name no document, a schema-valid name may be taken
expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "417", "429"]

[checks.not_a_server_error]
expected-statuses = ["2xx", "3xx", "4xx"]
"""


async def test_all_checks_on_a_representative_set(site: Site, admin: ApiUser, client: httpx.AsyncClient,
                                                 tmp_path: Path) -> None:
    for doctype, body in (("Test Customer", {"customer_name": "Acme", "region": "N"}),
                          ("Test Note", {"title": "seed", "customer": "Acme", "count": 3})):
        assert (await client.post(f"/api/resource/{doctype}", json=body, headers=admin.token)).status_code == 200
    document = await client.get("/api/openapi.json")
    ids = {op["operationId"] for item in document.json()["paths"].values() for op in item.values()
           if isinstance(op, dict) and "operationId" in op}
    assert set(OPERATIONS) <= ids, sorted(set(OPERATIONS) - ids)
    (tmp_path / "schemathesis.toml").write_text(CONFIG)
    st = Path(sys.executable).with_name("st")
    async with serve_on_this_loop(site) as base_url:
        args = [str(st), "--config-file", str(tmp_path / "schemathesis.toml"), "run",
                f"{base_url}/api/openapi.json", "--url", base_url, "--checks", "all",
                "--phases", "examples,coverage,fuzzing,stateful", "--max-examples", str(EXAMPLES),
                *([] if RANDOM else ["--generation-deterministic"]), "--workers", "1", "--no-color",
                "--header", f"Authorization: {admin.token['Authorization']}", "--request-timeout", "30",
                "--max-response-time", "10", "--suppress-health-check", "all",
                "--continue-on-failure", "--output-truncate", "false"]
        for op_id in OPERATIONS:
            args += ["--include-operation-id", op_id]
        proc = await asyncio.create_subprocess_exec(*args, cwd=tmp_path, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
    text = out.decode(errors="replace")
    print(text[-4000:])
    assert proc.returncode == 0, text[-60_000:]
    counts = re.search(r"(\d+) generated, (\d+) passed", text)
    assert counts and int(counts.group(1)) == int(counts.group(2)) >= 20 * len(OPERATIONS), text[-4000:]
    assert f"Tested: {len(OPERATIONS)}" in text, text[-4000:]
