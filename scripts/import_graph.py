#!/usr/bin/env python3
"""engine/'s import graph, counting every import: module level, inside functions and under TYPE_CHECKING,
and the package __init__ files an import runs first.

usage: scripts/import_graph.py [--edges] [--package engine]

Prints each cycle (a strongly connected component of more than one module) with the imports that
close it, then each upward import (from a module to one in a higher layer of the `layers` contract
for the package in pyproject.toml's [tool.importlinter]), then the figures. Exit status 1 when
there is a cycle or an upward import. tests/test_architecture.py runs the same analysis.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Import:
    """One import statement's edge: `src` imports `dst` at `line`, at module level or not."""

    src: str
    dst: str
    line: int
    kind: str  # "module", "function" (inside a def) or "type" (under `if TYPE_CHECKING:`)


def module_files(root: Path, package: str) -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, kind: str):
    """Yield (import node, kind) for every import below `node`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, kind
        elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _walk(child, "function" if kind == "module" else kind)
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.body:
                if isinstance(stmt, ast.Import | ast.ImportFrom):
                    yield stmt, "type"
                else:
                    yield from _walk(stmt, "type")
            for stmt in child.orelse:
                yield from _walk(stmt, kind)
        else:
            yield from _walk(child, kind)


def imports(root: Path, packages: list[str]) -> tuple[dict[str, Path], list[Import]]:
    """Every module of `packages` and every import between two of them."""
    modules: dict[str, Path] = {}
    for package in packages:
        modules.update(module_files(root, package))

    def resolve(name: str) -> str | None:
        while name:
            if name in modules:
                return name
            name = name.rpartition(".")[0]
        return None

    edges: list[Import] = []
    for mod, path in modules.items():
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), str(path))
        for node, kind in _walk(tree, "module"):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                if node.level:
                    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                # `from engine.documents import lifecycle` imports the submodule; `from x import name` x
                targets = [f"{prefix}.{a.name}" for a in node.names]
            for target in targets:
                dst = resolve(target)
                if dst and dst != mod and not mod.startswith(dst + "."):
                    edges.append(Import(mod, dst, node.lineno, kind))
                    # importing a.b.c runs the __init__ of a.b (and a) first: at run time those are
                    # imports of `mod` too (a package __init__ that imports its modules can close a cycle)
                    parent = dst.rpartition(".")[0]
                    while parent:
                        if parent in modules and parent != mod and not mod.startswith(parent + "."):
                            edges.append(Import(mod, parent, node.lineno, kind))
                        parent = parent.rpartition(".")[0]
    return modules, edges


def cycles(nodes: list[str], edges: list[Import]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, iteratively)."""
    graph: dict[str, list[str]] = {n: [] for n in nodes}
    for e in edges:
        graph[e.src].append(e.dst)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for start in nodes:
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(set(graph[start]))))]
        while work:
            node, it = work[-1]
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(set(graph[nxt])))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == node:
                            break
                    if len(comp) > 1:
                        found.append(sorted(comp))
    return sorted(found, key=len, reverse=True)


def layers_contract(root: Path, package: str) -> list[list[str]] | None:
    """The `layers` contract of `package` in pyproject.toml, top first; each layer a list of modules."""
    config = tomllib.loads((root / "pyproject.toml").read_text()).get("tool", {}).get("importlinter", {})
    for contract in config.get("contracts", []):
        if contract.get("type") == "layers" and contract.get("containers") == [package]:
            layers = []
            for layer in contract["layers"]:
                names = [n.strip().strip("()") for n in layer.replace("|", ":").split(":")]
                layers.append([f"{package}.{n}" for n in names if n])
            return layers
    return None


def layer_of(module: str, layers: list[list[str]]) -> int | None:
    """The index of `module`'s layer (0 is the top), or None for a module no layer names."""
    for i, layer in enumerate(layers):
        for name in layer:
            if module == name or module.startswith(name + "."):
                return i
    return None


def upward(edges: list[Import], layers: list[list[str]]) -> list[Import]:
    """Imports from a module to one in a higher layer (a lower index)."""
    found = []
    for e in edges:
        src, dst = layer_of(e.src, layers), layer_of(e.dst, layers)
        if src is not None and dst is not None and dst < src:
            found.append(e)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="engine")
    parser.add_argument("--edges", action="store_true", help="list every import edge inside a cycle")
    args = parser.parse_args()
    modules, edges = imports(ROOT, [args.package])
    found = cycles(list(modules), edges)
    for comp in found:
        print(f"cycle of {len(comp)}: {', '.join(comp)}")
        if args.edges:
            members = set(comp)
            for e in edges:
                if e.src in members and e.dst in members:
                    print(f"    {e.src} -> {e.dst}  (line {e.line}, {e.kind})")
    layers = layers_contract(ROOT, args.package)
    up = upward(edges, layers) if layers else []
    for e in up:
        print(f"upward: {e.src}:{e.line} -> {e.dst} ({e.kind})")
    by_kind = {k: sum(1 for e in edges if e.kind == k) for k in ("module", "function", "type")}
    print(
        f"{args.package}: {len(modules)} modules, {len(edges)} imports ({by_kind['module']} module level, "
        f"{by_kind['function']} inside functions, {by_kind['type']} under TYPE_CHECKING); "
        f"{len(found)} cycles ({sum(map(len, found))} modules in them); "
        + (f"{len(up)} upward imports" if layers else "no layers contract")
    )
    return 1 if found or up else 0


if __name__ == "__main__":
    sys.exit(main())
