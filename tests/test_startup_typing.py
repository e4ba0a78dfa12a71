"""Start-up: a plain check never imports ``typing`` (typing34; docs/status.md "Start-up, session 33
(typing34)").

``typing`` (160 KB of bytecode, ~47 classes) was imported by nearly every module, for names that only
annotations use, and annotations are never evaluated (``from __future__ import annotations``). Each module
imports them under a type-checking block that itself imports nothing::

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import Any

mypy takes any name ``TYPE_CHECKING`` as true when checking and false at run time (mypy 2.4.1,
mypy/reachability.py:164, ``infer_condition_value``: ``name == "MYPY" or name == "TYPE_CHECKING"`` gives
``MYPY_TRUE``), so it reads the block's imports and skips any ``else:``. A typing name a module uses at run
time takes another form: a type alias is a string (``X: TypeAlias = "dict[str, Any]"``), a ``Protocol``
base is ``object`` at run time (``else: Protocol = object``), a ``TypeVar`` used in annotations only is made
inside the block. Asserted on what is imported, never on time (bench/check_startup.py measures)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
EXAMPLE = str(ROOT / "examples" / "launch_mtp.sh")
# the modules that still import typing when imported, and why: neither is imported by a plain check
RUN_TIME_TYPING = {
    # the MCP SDK reads the tools' parameters from `Annotated[...]` at run time (and imports typing itself)
    "argtrace/mcp_server.py",
    # a dataclass with a `Generic[T, R]` base: `fleet` reads replicas on threads (layers/fleet/parallel.py)
    "argtrace/layers/fleet/parallel.py",
}


def _imported(words: list[str]) -> tuple[int, set[str]]:
    """(exit status, every module in ``sys.modules``) after ``main(words)`` in a fresh ``-S`` interpreter
    with the site-packages directories on the path: no .pth file's code runs first (an editable install's
    finder imports typing), so every module there was imported by the command."""
    code = (
        "import site, sys; sys.path.extend(site.getsitepackages())\n"
        "import contextlib, io\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main({words!r})\n"
        "print(status, ' '.join(sorted(sys.modules)))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(SRC), ARGTRACE_WARM="0")
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, env=env, check=True
    )
    status, _, modules = done.stdout.strip().partition(" ")
    return int(status), set(modules.split())


@pytest.mark.parametrize(
    "words",
    [
        ["--version"],
        ["check", "--format", "json", "--no-resolve", EXAMPLE, "0", "30000"],
        ["check", "--format", "json", EXAMPLE, "0", "30000"],
    ],
    ids=["version", "check-json-no-resolve", "check-json"],
)
def test_a_plain_check_and_version_import_no_typing(words: list[str]) -> None:
    # (`--format text` renders with rich, whose __init__ imports typing)
    status, modules = _imported(words)
    assert "argtrace.cli" in modules and (words == ["--version"] or "argtrace.check" in modules)
    assert status in (0, 1)  # it ran: the example's findings give 1
    assert "typing" not in modules


def _run_time_typing_imports(path: Path) -> list[int]:
    """The lines of ``path``'s module-level ``typing`` imports that run when it is imported (outside ``if
    TYPE_CHECKING:``; inside a function they run only when it is called)."""
    lines: list[int] = []

    def walk(body: list[ast.stmt]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module == "typing":
                lines.append(stmt.lineno)
            elif isinstance(stmt, ast.Import) and any(a.name == "typing" for a in stmt.names):
                lines.append(stmt.lineno)
            elif isinstance(stmt, ast.If):
                if not (isinstance(stmt.test, ast.Name) and stmt.test.id == "TYPE_CHECKING"):
                    walk(stmt.body)
                walk(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                for part in (stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody):
                    walk(part)

    walk(ast.parse(path.read_text(encoding="utf-8")).body)
    return lines


def test_only_the_listed_modules_import_typing_when_imported() -> None:
    # one idiom in every module, so a module a plain check imports tomorrow does not bring typing back
    found = {
        str(path.relative_to(SRC)): lines
        for path in sorted((SRC / "argtrace").rglob("*.py"))
        if (lines := _run_time_typing_imports(path))
    }
    assert set(found) == RUN_TIME_TYPING


def test_no_dataclass_annotates_a_field_classvar_or_initvar() -> None:
    # dataclasses decides that an annotation is `ClassVar[...]` through sys.modules["typing"] (3.11
    # Lib/dataclasses.py, _get_field: `typing = sys.modules.get('typing')`): with typing not imported, as
    # in a plain check, such a string annotation would be made an instance field. None is written.
    written, seen = [], 0
    for path in sorted((SRC / "argtrace").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            decorators = [ast.unparse(d) for d in node.decorator_list]
            if not any(d.split("(")[0].rpartition(".")[2] == "dataclass" for d in decorators):
                continue
            seen += 1
            for stmt in node.body:
                if isinstance(stmt, ast.AnnAssign):
                    text = ast.unparse(stmt.annotation)
                    if "ClassVar" in text or "InitVar" in text:
                        written.append(f"{path.relative_to(SRC)}:{stmt.lineno}")
    assert seen > 100 and written == []  # (the dataclasses were found)
