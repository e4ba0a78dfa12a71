"""The import graph of ``src/argtrace``: every import circle and every import against the layer order.

Every ``import`` statement counts, wherever it stands: at module level, inside a function (a lazy import
still ties the two modules together), under ``if TYPE_CHECKING:`` (the type checker follows it) and in a
``try``. Relative imports are resolved against the importing module's package. ``from P import name``
is an edge to the submodule ``P.name`` when that module exists, else to ``P`` itself. Importing a module
also runs its parent packages' ``__init__``, but that implicit edge is not counted: a package's
``__init__`` re-exporting its own submodules is not a circle of design.

A circle is a strongly connected component of more than one module (or a module importing itself). The
layer order (the direction dependencies may point)::

    warm -> cli -> commands -> check / probe -> layers -> frameworks, rules, resolver, render -> remote
        -> model, redact, gpus

An import from a lower level to a higher one is a violation (printed, not fatal). Modules of the same
level may import each other as long as no circle forms.

Usage: ``python scripts/import_graph.py [--src src/argtrace] [--json]``; exit status 1 when a circle exists.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = "argtrace"
DEFAULT_SRC = Path(__file__).resolve().parent.parent / "src" / ROOT

# Lower number = lower level. The longest matching prefix decides; every module must match one.
LEVELS: tuple[tuple[str, int], ...] = (
    ("argtrace.model", 0),
    ("argtrace.redact", 0),
    ("argtrace.secret_detection", 0),  # the secret names and shapes redact is built on
    ("argtrace.gpus", 0),
    ("argtrace.safe_json", 0),
    ("argtrace.cache_dirs", 0),  # where the caches live: asked before any other argtrace module is imported
    ("argtrace.dataclass_code", 0),  # the dataclasses' compiled methods, kept between runs (cli installs it)
    ("argtrace.regex_code", 0),  # the regular expressions' compiled programs, kept between runs (cli)
    ("argtrace.package_data", 0),  # where the bundled data files are (beside the modules)
    ("argtrace", 0),  # the package's own __init__ (its version string)
    ("argtrace.remote", 1),
    ("argtrace.localfs", 1),  # which local paths may be opened (beside the host seam it shares a stat with)
    ("argtrace.overlay", 1),  # issue 13: edited files a re-check reads instead of the disk's
    ("argtrace.frameworks", 2),
    ("argtrace.rules", 2),
    ("argtrace.resolver", 2),
    ("argtrace.render", 2),
    ("argtrace.layers", 3),
    ("argtrace.check", 4),
    ("argtrace.check_options", 4),  # what the user asked check for (split from check.py)
    ("argtrace.check_release", 4),  # which release a check analyses a server with (split from check.py)
    ("argtrace.servers_together", 4),  # findings across a launch's servers (multi-node, PD), run by check
    ("argtrace.verdicts", 4),  # the run's assumptions applied to the findings, after the layers
    ("argtrace.probe", 4),
    ("argtrace.ci", 4),  # CI controls over reports (suppressions, baselines, config) and lint over a tree
    # issue 13: the re-checking half runs check; the edit catalog (read by the rule pages) is rule-level
    ("argtrace.fixes", 4),
    ("argtrace.fixes.edits", 2),
    ("argtrace.fixes.words", 2),
    ("argtrace.fixes.registry", 2),
    ("argtrace.fixes.apply", 2),
    ("argtrace.fixes.environment", 2),  # the environment changes' catalog, read by the rule pages too
    ("argtrace.fixes.values", 2),
    ("argtrace.fixes.flags", 2),  # edits of values, env names, items and --config keys (rule pages read it)
    ("argtrace.fixes.supervisor", 2),  # edits of a Supervisor command= (rule pages read it)
    ("argtrace.commands", 5),
    ("argtrace.usage", 5),
    ("argtrace.quick_argv", 5),  # a command's plain words read without argparse (its options' tables)
    ("argtrace.agent_tools", 5),  # argtrace mcp: tool inputs as argtrace command lines
    ("argtrace.mcp_server", 5),  # the shared command-line options, checked before a command runs
    ("argtrace.cli", 6),
    ("argtrace.__main__", 6),
    ("argtrace.warm", 7),  # warm start: the launcher's client and the forking server, which runs the cli
)
LEVEL_NAMES = {
    0: "model",
    1: "remote",
    2: "frameworks/rules",
    3: "layers",
    4: "orchestration",
    5: "commands",
    6: "cli",
    7: "warm start",
}


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    line: int
    how: str  # "module", "function" (inside a def) or "type-checking" (under ``if TYPE_CHECKING``)


def module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def discover(src: Path) -> dict[str, Path]:
    return {module_name(p, src): p for p in sorted(src.rglob("*.py"))}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement with where it stands (the innermost of function / TYPE_CHECKING wins)."""

    def walk(node: ast.AST, how: str) -> Iterable[tuple[ast.Import | ast.ImportFrom, str]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, how
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from walk(child, "function")
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), "type-checking")
                for stmt in child.orelse:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), how)
            else:
                yield from walk(child, how)

    return walk(tree, "module")


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([target] if target else [])])


def build_graph(src: Path = DEFAULT_SRC) -> tuple[dict[str, Path], list[Edge]]:
    modules = discover(src)
    edges: list[Edge] = []
    seen: set[Edge] = set()

    def existing(name: str) -> str | None:
        """``name`` or its nearest enclosing module that exists (``pkg.mod.attr`` -> ``pkg.mod``)."""
        while name:
            if name in modules:
                return name
            name = name.rpartition(".")[0]
        return None

    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node, how in _imports(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = (
                    _resolve_relative(name, is_package, node.level, node.module)
                    if node.level
                    else (node.module or "")
                )
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                if target != ROOT and not target.startswith(ROOT + "."):
                    continue  # the standard library and third-party packages
                resolved = existing(target)
                if resolved is None or (resolved == ROOT and target != ROOT):
                    continue
                edge = Edge(name, resolved, node.lineno, how)
                if edge not in seen:  # ``from m import a, b`` is one import of m
                    seen.add(edge)
                    edges.append(edge)
    return modules, edges


def strongly_connected(nodes: Iterable[str], edges: Sequence[Edge]) -> list[list[str]]:
    """Tarjan's algorithm (iterative: no recursion limit); components of one module only with a self-loop."""
    graph: dict[str, set[str]] = {n: set() for n in nodes}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, list[str]]] = [(root, sorted(graph[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, pending = work[-1]
            if pending:
                nxt = pending.pop(0)
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(graph[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in graph[node]:
                    out.append(sorted(component))
    return sorted(out)


def level_of(module: str) -> int:
    best: tuple[int, int] | None = None
    for prefix, level in LEVELS:
        if module == prefix or module.startswith(prefix + "."):
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), level)
    if best is None:
        raise ValueError(f"{module} has no level in LEVELS")
    return best[1]


def violations(edges: Sequence[Edge]) -> list[Edge]:
    """Imports that point up the layer order."""
    return [e for e in edges if level_of(e.source) < level_of(e.target)]


def cycle_edges(component: Sequence[str], edges: Sequence[Edge]) -> list[Edge]:
    members = set(component)
    return [e for e in edges if e.source in members and e.target in members]


def report(src: Path = DEFAULT_SRC) -> dict[str, object]:
    modules, edges = build_graph(src)
    cycles = strongly_connected(modules, edges)
    return {
        "modules": len(modules),
        "edges": len(edges),
        "cycles": [
            {
                "modules": comp,
                "edges": [
                    {"from": e.source, "to": e.target, "line": e.line, "how": e.how}
                    for e in cycle_edges(comp, edges)
                ],
            }
            for comp in cycles
        ],
        "violations": [
            {
                "from": e.source,
                "to": e.target,
                "line": e.line,
                "how": e.how,
                "levels": [LEVEL_NAMES[level_of(e.source)], LEVEL_NAMES[level_of(e.target)]],
            }
            for e in violations(edges)
        ],
    }


def _path_of(module: str, modules: Mapping[str, Path], src: Path) -> str:
    path = modules.get(module)
    return str(path.relative_to(src.parent.parent)) if path is not None else module


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC, help="the package directory (src/argtrace)")
    ap.add_argument("--json", action="store_true", help="print the findings as JSON")
    args = ap.parse_args(argv)
    src = args.src.resolve()
    data = report(src)
    cycles = data["cycles"]
    assert isinstance(cycles, list)
    if args.json:
        print(json.dumps(data, indent=2))
        return 1 if cycles else 0
    modules = discover(src)
    print(f"{data['modules']} modules, {data['edges']} imports")
    for comp in cycles:
        print(f"circle: {' <-> '.join(comp['modules'])}")
        for e in comp["edges"]:
            print(f"  {_path_of(e['from'], modules, src)}:{e['line']}: imports {e['to']} ({e['how']})")
    viols = data["violations"]
    assert isinstance(viols, list)
    for v in viols:
        print(
            f"against the layer order: {_path_of(v['from'], modules, src)}:{v['line']}: "
            f"{v['levels'][0]} imports {v['levels'][1]} ({v['to']}, {v['how']})"
        )
    print(f"{len(cycles)} circle(s), {len(viols)} import(s) against the layer order")
    return 1 if cycles else 0


if __name__ == "__main__":
    sys.exit(main())
