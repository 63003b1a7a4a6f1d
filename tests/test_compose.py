"""docker-compose.yml, checked without the `docker-compose` command: the file (after Compose's variable
interpolation) is valid against the Compose Specification's JSON schema (vendored in
tests/support/compose_spec with its licence), and holds what fw's operators rely on: the services, a
MongoDB replica set that is initiated and healthy before fw starts, the settings each fw process
reads, restart policies, and no default admin password."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from engine.cli import main as fw_cli
from engine.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
SCHEMA = ROOT / "tests" / "support" / "compose_spec" / "compose-spec.json"
FW_SERVICES = {"web": "serve", "worker": "worker", "scheduler": "scheduler"}
# `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?error}`, `${NAME?error}`, `${NAME:+alt}`,
# `${NAME+alt}`, `$NAME` and `$$` (a literal `$`), as the Compose Specification's interpolation defines them
VARIABLE = re.compile(r"\$(?:(?P<escaped>\$)|(?P<bare>[A-Za-z_][A-Za-z0-9_]*)|"
                      r"\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:(?P<op>:?[-?+])(?P<arg>[^}]*))?\})")


class MissingVariable(Exception):
    """A `${NAME:?message}` whose variable is unset (Compose refuses to start with the message)."""


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """The compose document with every string interpolated from `env`, as `docker compose` does first."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        name = match["bare"] or match["name"]
        op, arg = match["op"], match["arg"] or ""
        current = env.get(name)
        unset_or_empty = not current if op and op.startswith(":") else current is None
        if op in (":-", "-"):
            return arg if unset_or_empty else str(current)
        if op in (":?", "?"):
            if unset_or_empty:
                raise MissingVariable(f"required variable {name} is missing a value: {arg}")
            return str(current)
        if op in (":+", "+"):
            return "" if unset_or_empty else arg
        return current or ""

    return VARIABLE.sub(substitute, value)


@pytest.fixture(scope="module")
def raw() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict), "docker-compose.yml is not a mapping"
    return data


@pytest.fixture(scope="module")
def compose(raw: dict[str, Any]) -> dict[str, Any]:
    """The file as `FW_ADMIN_PASSWORD=... docker compose config` sees it."""
    return interpolate(raw, {"FW_ADMIN_PASSWORD": "an-operator-secret"})


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_valid_against_the_compose_specification(compose: dict[str, Any],
                                                 validator: jsonschema.protocols.Validator) -> None:
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(compose)]
    assert not errors, errors


def test_the_schema_check_catches_mistakes(compose: dict[str, Any],
                                           validator: jsonschema.protocols.Validator) -> None:
    broken = json.loads(json.dumps(compose))
    broken["services"]["web"]["ports"] = "8000:8000"  # must be a list
    broken["services"]["worker"]["restart_policy"] = "always"  # not a Compose key
    paths = {"/".join(map(str, e.absolute_path)) for e in validator.iter_errors(broken)}
    assert "services/web/ports" in paths, paths
    assert "services/worker" in paths, paths


def test_no_default_admin_password(raw: dict[str, Any]) -> None:
    for name in FW_SERVICES:
        value = raw["services"][name]["environment"]["FW_ADMIN_PASSWORD"]
        assert re.fullmatch(r"\$\{FW_ADMIN_PASSWORD:\?[^}]+\}", value), f"{name}: {value!r} must require the variable"
    with pytest.raises(MissingVariable, match="set FW_ADMIN_PASSWORD"):
        interpolate(raw, {})
    with pytest.raises(MissingVariable):
        interpolate(raw, {"FW_ADMIN_PASSWORD": ""})  # `:?` refuses an empty value too
    assert "change-me" not in COMPOSE.read_text(encoding="utf-8")


def test_interpolation_rules() -> None:
    env = {"SET": "v", "EMPTY": ""}
    assert interpolate("$$SET ${SET} $SET ${EMPTY:-d} ${EMPTY-d} ${UNSET-d} ${SET:+alt} ${UNSET+alt}", env) \
        == "$SET v v d  d alt "
    with pytest.raises(MissingVariable, match="UNSET"):
        interpolate({"a": ["${UNSET?needed}"]}, env)


def test_services_and_the_replica_set(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"mongo", "redis", *FW_SERVICES} <= set(services), sorted(services)
    mongo = services["mongo"]
    command = mongo["command"] if isinstance(mongo["command"], list) else mongo["command"].split()
    replica_set = command[command.index("--replSet") + 1]
    # the health check initiates the replica set (a fresh volume has none) with a member address the
    # other containers can reach, and reports healthy only once it answers
    check = " ".join(mongo["healthcheck"]["test"])
    assert "rs.initiate" in check and f"_id: '{replica_set}'" in check and "host: 'mongo:27017'" in check, check
    assert mongo["healthcheck"]["retries"] >= 10
    for volume_owner in ("mongo", "redis"):
        assert services[volume_owner].get("volumes"), f"{volume_owner} keeps its data in a volume"
    for name in FW_SERVICES:
        env = services[name]["environment"]
        assert f"replicaSet={replica_set}" in env["FW_MONGO_URL"] and "//mongo:27017" in env["FW_MONGO_URL"], name
        assert env["FW_REDIS_URL"].startswith("redis://redis:"), name
        for dependency in ("mongo", "redis"):
            assert services[name]["depends_on"][dependency]["condition"] == "service_healthy", (name, dependency)


def test_each_fw_process_runs_a_real_command_with_settings_fw_reads(compose: dict[str, Any]) -> None:
    known = {f"FW_{field.upper()}" for field in Settings.model_fields}
    for name, command in FW_SERVICES.items():
        service = compose["services"][name]
        argv = service["command"]
        assert argv[:2] == ["fw", command], (name, argv)
        assert command in fw_cli.commands, f"{name}: `fw {command}` is not a command"
        env = service["environment"]
        assert {"FW_MONGO_URL", "FW_DB_NAME", "FW_REDIS_URL", "FW_ADMIN_PASSWORD"} <= set(env), (name, sorted(env))
        assert not set(env) - known, f"{name}: settings fw does not read: {sorted(set(env) - known)}"
    web = compose["services"]["web"]
    port = web["command"][web["command"].index("--port") + 1]
    assert any(str(p).endswith(f":{port}") for p in web["ports"]), (port, web["ports"])
    assert web["command"][web["command"].index("--host") + 1] == "0.0.0.0"  # reachable from outside the container


def test_restart_policies(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        assert service.get("restart") in ("always", "unless-stopped"), \
            f"{name} needs a restart policy that brings it back after a crash or an outage"


def test_mail_goes_to_the_development_sink_unless_set(raw: dict[str, Any], compose: dict[str, Any]) -> None:
    mail = compose["services"]["mail"]
    assert mail["image"].startswith("axllent/mailpit:") and {"1025:1025", "8025:8025"} <= set(mail["ports"])
    for name in FW_SERVICES:
        assert compose["services"][name]["environment"]["FW_SMTP_URL"] == "smtp://mail:1025", name
    own = interpolate(raw, {"FW_ADMIN_PASSWORD": "x", "FW_SMTP_URL": "smtp://u:p@mail.example.com:587?tls=1"})
    assert own["services"]["web"]["environment"]["FW_SMTP_URL"] == "smtp://u:p@mail.example.com:587?tls=1"
