"""The layout of ``layers/transport/``: small modules that each say what they own, and no import circle."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "argtrace" / "layers" / "transport"
SCRIPT = REPO / "scripts" / "import_graph.py"


def import_graph() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_module_is_small_and_opens_with_what_it_owns() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) == 16
    for path in files:
        text = path.read_text()
        assert text.count("\n") < 1000, path.name
        doc = ast.get_docstring(ast.parse(text))
        assert doc is not None and len(doc) > 150, path.name
        if path.name != "__init__.py":
            assert "This module owns" in doc, path.name


def test_no_import_circle_goes_through_the_transport_layer() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "argtrace.layers.transport"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout
    assert re.fullmatch(
        r"0 import circle\(s\) through argtrace\.layers\.transport among \d+ modules\n", result.stdout
    )


def test_the_transport_modules_import_one_way() -> None:
    graph = import_graph()
    edges = graph.graph(graph.modules())
    prefix = "argtrace.layers.transport"
    inside = {
        name.removeprefix(prefix + "."): sorted(
            t.removeprefix(prefix + ".") for t in targets if t.startswith(prefix + ".")
        )
        for name, targets in edges.items()
        if name.startswith(prefix + ".")
    }
    # the shared modules import nothing of the package; ssh sits above uploads, never the reverse
    assert {name: inside[name] for name in ("words", "context", "sshcall", "envfiles", "yamlnodes")} == {
        "words": [],
        "context": [],
        "sshcall": [],
        "envfiles": [],
        "yamlnodes": [],
    }
    assert inside["ssh"] == ["context", "sshcall", "uploads", "words"]
    assert inside["uploads"] == ["context", "sshcall", "words"]
    # no module imports __init__ (the dispatcher is reached through ctx.follow)
    assert not any(prefix in targets for targets in (edges[f"{prefix}.{name}"] for name in inside))


def test_circles_finds_a_circle_and_ignores_a_chain() -> None:
    graph = import_graph()
    edges = {"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}, "e": {}}
    assert graph.circles(edges) == [["a", "b", "c"]]
    assert graph.circles({"a": {"b": 1}, "b": {}}) == []


def test_function_level_and_type_checking_imports_count(tmp_path: Path) -> None:
    graph = import_graph()
    pkg = tmp_path / "argtrace"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "one.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from argtrace import two\n"
    )
    (pkg / "two.py").write_text("def f():\n    from argtrace.one import x\n")
    known = graph.modules(tmp_path)
    assert graph.circles(graph.graph(known)) == [["argtrace.one", "argtrace.two"]]
