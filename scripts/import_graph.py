#!/usr/bin/env python3
"""Print the import circles among argtrace's modules (exit 1 when there is one).

Every import counts: at module level, inside a function (argtrace imports heavy modules lazily), and under
``if TYPE_CHECKING:`` (a circle there is still a circle in the design). ``from a.b import c`` is an edge to
``a.b.c`` when that is a module, else to ``a.b``; relative imports are resolved. Importing ``a.b`` also runs
``a/__init__.py`` first, but that implicit edge is not counted: a package's ``__init__`` that re-exports its
submodules would otherwise make every package a circle.

    python scripts/import_graph.py                       # all circles in src/argtrace
    python scripts/import_graph.py argtrace.layers.transport   # only circles through that package
    python scripts/import_graph.py --edges argtrace.layers.transport  # who imports what, inside it
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"


def modules(root: Path = SRC) -> dict[str, Path]:
    """``argtrace.x.y`` -> its file, for every module and package under ``root``."""
    out: dict[str, Path] = {}
    for path in sorted((root / "argtrace").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> Iterator[tuple[str, int]]:
    """The argtrace modules ``name`` imports anywhere in its file, with the line."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in known:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in known:
                    yield sub, node.lineno
                elif target in known:
                    yield target, node.lineno


def graph(known: dict[str, Path]) -> dict[str, dict[str, int]]:
    edges: dict[str, dict[str, int]] = {name: {} for name in known}
    for name, path in known.items():
        for target, line in imports(name, path, known):
            if target != name:
                edges[name].setdefault(target, line)
    return edges


def circles(edges: dict[str, dict[str, int]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def main(argv: list[str]) -> int:
    known = modules()
    edges = graph(known)
    if argv[:1] == ["--edges"]:
        prefix = argv[1] if len(argv) > 1 else "argtrace"
        for name in sorted(edges):
            if name == prefix or name.startswith(prefix + "."):
                inside = sorted(t for t in edges[name] if t == prefix or t.startswith(prefix + "."))
                print(f"{name} -> {', '.join(inside) or '-'}")
        return 0
    prefix = argv[0] if argv else None
    shown = [
        c
        for c in circles(edges)
        if prefix is None or any(m == prefix or m.startswith(prefix + ".") for m in c)
    ]
    for component in shown:
        print(f"circle of {len(component)} modules:")
        members = set(component)
        for name in component:
            for target, line in sorted(edges[name].items()):
                if target in members:
                    print(f"  {name} -> {target}  ({known[name].relative_to(SRC.parent)}:{line})")
    scope = f" through {prefix}" if prefix else ""
    print(f"{len(shown)} import circle(s){scope} among {len(known)} modules")
    return 1 if shown else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
