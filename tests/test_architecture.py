"""The architecture of ARCHITECTURE.md, enforced: import-linter's contracts (pyproject.toml) hold, and
engine/ and server/ have no import cycle, counting imports inside functions and under TYPE_CHECKING.

import-linter (grimp) sees imports inside functions and, with `exclude_type_checking_imports = false`,
those under TYPE_CHECKING; scripts/import_graph.py reads the same graph with `ast` and also counts
cycles, which import-linter's layers contract alone would allow inside one layer.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import import_graph  # noqa: E402

PACKAGES = ["engine", "server"]
CLI_PREFIXES = ("engine.cli", "engine.commands")
# babel, which only form loads with scripts need, stays out of every process that never sends one
DEFERRED_ELSEWHERE = {("engine.meta.bundle", "engine.messages"), ("engine.reports.filters", "engine.messages")}


@pytest.fixture(scope="module")
def graph() -> tuple[dict[str, Path], list[import_graph.Import]]:
    return import_graph.imports(ROOT, PACKAGES)


def test_import_linter_contracts_are_kept() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "apps"), str(ROOT)])}
    result = subprocess.run(
        [str(lint_imports), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_import_cycle_counting_every_import(graph: tuple[dict[str, Path], list[import_graph.Import]]) -> None:
    modules, edges = graph
    assert import_graph.cycles(list(modules), edges) == []


def test_no_upward_import_in_engine(graph: tuple[dict[str, Path], list[import_graph.Import]]) -> None:
    _, edges = graph
    layers = import_graph.layers_contract(ROOT, "engine")
    assert layers is not None
    assert [f"{e.src}:{e.line} -> {e.dst} ({e.kind})" for e in import_graph.upward(edges, layers)] == []


def test_every_engine_module_has_a_layer(graph: tuple[dict[str, Path], list[import_graph.Import]]) -> None:
    """The contract names every module (package __init__ files excepted: they only gather their modules)."""
    modules, _ = graph
    layers = import_graph.layers_contract(ROOT, "engine")
    assert layers is not None
    unplaced = [
        m
        for m, path in modules.items()
        if m.startswith("engine.") and path.name != "__init__.py" and import_graph.layer_of(m, layers) is None
    ]
    assert unplaced == []


def test_deferred_imports_only_in_the_cli_each_with_its_reason(
    graph: tuple[dict[str, Path], list[import_graph.Import]],
) -> None:
    """An import inside a function is allowed where it spares `fw`'s start-up (the CLI) or keeps babel
    out of processes that never need it, and says why on its line or just above its block."""
    modules, edges = graph
    unexplained = []
    for e in edges:
        if e.kind != "function" or not e.src.startswith("engine."):
            continue
        lines = modules[e.src].read_text().splitlines()
        i = e.line - 1
        while i > 0 and lines[i - 1].strip().startswith(("from ", "import ")):
            i -= 1
        block = lines[i : e.line]
        explained = "#" in lines[i - 1] or any("#" in line for line in block)
        allowed = e.src.startswith(CLI_PREFIXES) or (e.src, e.dst) in DEFERRED_ELSEWHERE
        if not (allowed and explained):
            unexplained.append(f"{e.src}:{e.line} -> {e.dst}")
    assert unexplained == []


def test_apps_import_only_the_public_api() -> None:
    """What apps may import of the engine is `engine` (`import engine as fw`) and `engine.exceptions`."""
    found = []
    for path in sorted((ROOT / "apps").rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            for name in names:
                if name.startswith("engine.") and name != "engine.exceptions":
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
                if name == "engine" and isinstance(node, ast.ImportFrom):
                    found += [
                        f"{path.relative_to(ROOT)}:{node.lineno}: engine.{a.name}"
                        for a in node.names
                        if a.name != "exceptions"
                    ]
    assert found == []


def test_the_forbidden_list_names_every_engine_module_but_exceptions() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "forbidden")
    children = {
        p.stem if p.suffix == ".py" else p.name
        for p in (ROOT / "engine").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").exists()
    }
    assert sorted(contract["forbidden_modules"]) == sorted(f"engine.{c}" for c in children - {"exceptions"})


def test_the_graph_counts_function_and_type_checking_imports(tmp_path: Path) -> None:
    """The checks above see every kind of import (a cycle hidden in a function or under TYPE_CHECKING too)."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import b\n")
    (pkg / "b.py").write_text("def f():\n    from pkg.c import x\n")
    (pkg / "c.py").write_text("import pkg.a\nx = 1\n")
    modules, edges = import_graph.imports(tmp_path, ["pkg"])
    assert {(e.src, e.dst, e.kind) for e in edges} == {
        ("pkg.a", "pkg.b", "type"),
        ("pkg.b", "pkg.c", "function"),
        ("pkg.c", "pkg.a", "module"),
    }
    assert import_graph.cycles(list(modules), edges) == [["pkg.a", "pkg.b", "pkg.c"]]


def _sources() -> list[Path]:
    return [p for pkg in ("engine", "server", "apps") for p in sorted((ROOT / pkg).rglob("*.py"))
            if "node_modules" not in p.parts]


def test_no_collection_is_reached_by_a_literal_name() -> None:
    """A document collection is reached by its doctype (engine/documents/store.py, or the meta's
    `collection` below it), a private one through its owner's constant: no `.collection("...")`
    anywhere, and no collection call at all in server/ or apps/ (they call engine functions)."""
    found = []
    for path in _sources():
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "collection" and node.args):
                continue
            literal = isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            if literal or where.parts[0] != "engine":
                found.append(f"{where}:{node.lineno}")
    assert found == []


def test_every_private_collection_is_named_once() -> None:
    """Each `_fw_*` collection name is written in exactly one module (its owner's constant)."""
    named: dict[str, list[str]] = {}
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str) and node.value.value.startswith("_fw_")):
                named.setdefault(node.value.value, []).append(str(path.relative_to(ROOT)))
    assert "_fw_state" in named and "_fw_sessions" in named
    assert {name: places for name, places in named.items() if len(places) != 1} == {}
