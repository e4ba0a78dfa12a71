"""Issue 19: ``frameworks/installed.py -> transport/processes.py -> layers/observed.py -> installed.py``
was an import circle. Every import counts (inside functions and under ``TYPE_CHECKING`` too), read from
the source."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """argtrace module -> the argtrace modules it imports anywhere in its text."""
    modules = {_module_name(p): p for p in (SRC / "argtrace").rglob("*.py") if "stubs" not in p.parts}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def reaches(graph: dict[str, set[str]], start: str, goal: str) -> list[str] | None:
    """A path of imports from ``start`` to ``goal``, or None."""
    stack, seen = [[start]], {start}
    while stack:
        path = stack.pop()
        for nxt in sorted(graph[path[-1]]):
            if nxt == goal:
                return [*path, nxt]
            if nxt not in seen:
                seen.add(nxt)
                stack.append([*path, nxt])
    return None


def test_installed_and_site_packages_are_in_no_import_circle() -> None:
    graph = import_graph()
    assert "argtrace.layers.observed_remote" not in graph["argtrace.frameworks.installed"]
    assert "argtrace.frameworks.installed" not in graph["argtrace.layers.observed"]
    for module in ("argtrace.frameworks.installed", "argtrace.frameworks.site_packages"):
        assert reaches(graph, module, module) is None
    # the lower module imports only the host seam (and what that needs), and the dataclass decorator that
    # processes a class at its first use (store37), which imports no argtrace module
    assert graph["argtrace.frameworks.site_packages"] == {
        "argtrace.remote.host",
        "argtrace.deferred_dataclass",
    }
    assert graph["argtrace.deferred_dataclass"] == set()
