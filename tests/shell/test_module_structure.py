"""The shell layer's modules (issue 19): each under about 1,000 lines, each opening with what it owns, and
no import circle between them, counting imports inside functions and under ``TYPE_CHECKING``."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGE = "argtrace.layers.shell"
SHELL = REPO / "src" / "argtrace" / "layers" / "shell"
MAX_LINES = 1_000


def module_name(path: Path) -> str:
    return PACKAGE if path.name == "__init__.py" else f"{PACKAGE}.{path.stem}"


def imports_of(path: Path) -> set[str]:
    """Every module of the package that ``path`` imports anywhere (top level, functions, TYPE_CHECKING)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module_name(path).split(".")
                keep = parts[: len(parts) - node.level + (1 if path.name == "__init__.py" else 0)]
                base = ".".join([*keep, base] if base else keep)
            # `from argtrace.layers.shell import lexer` imports the submodule lexer
            names = [base, *(f"{base}.{a.name}" for a in node.names)]
        else:
            continue
        found.update(n for n in names if n == PACKAGE or n.startswith(PACKAGE + "."))
    known = {module_name(p) for p in SHELL.glob("*.py")}
    return {n for n in found if n in known} - {module_name(path)}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                out.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return out


def graph() -> dict[str, set[str]]:
    # the package __init__ only re-exports for callers outside the layer; submodules never import it
    return {module_name(p): imports_of(p) - {PACKAGE} for p in SHELL.glob("*.py") if p.name != "__init__.py"}


def test_no_import_circle_between_shell_modules() -> None:
    assert cycles(graph()) == []


def test_the_checker_sees_a_circle_through_a_function_level_import() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == [["a", "b", "c", "a"]]


def test_shell_modules_are_small_and_say_what_they_own() -> None:
    for path in sorted(SHELL.glob("*.py")):
        lines = path.read_text().count("\n")
        assert lines <= MAX_LINES, f"{path.name}: {lines} lines"
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc and len(doc) > 80, f"{path.name} does not open with what it owns"
