"""The layout of ``layers/transport/``: small modules that each say what they own, and no import circle."""

from __future__ import annotations

import ast
import importlib.util
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
    sys.modules["import_graph"] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_module_is_small_and_opens_with_what_it_owns() -> None:
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) == 59  # the transport layer's modules (a new one gets its docstring checked below)
    for path in files:
        text = path.read_text()
        assert text.count("\n") < 1000, path.name
        doc = ast.get_docstring(ast.parse(text))
        assert doc is not None and len(doc) > 150, path.name
        if path.name != "__init__.py":
            assert "This module owns" in doc, path.name


def test_no_import_circle_goes_through_the_transport_layer() -> None:
    graph = import_graph()
    modules, edges = graph.build_graph()
    circles = graph.strongly_connected(modules, edges)
    assert [c for c in circles if any(m.startswith("argtrace.layers.transport") for m in c)] == []


def _edges_inside(prefix: str) -> dict[str, list[str]]:
    graph = import_graph()
    modules, edges = graph.build_graph()
    inside: dict[str, set[str]] = {
        m.removeprefix(prefix + "."): set() for m in modules if m.startswith(prefix + ".")
    }
    for e in edges:
        if e.source.startswith(prefix + ".") and e.target.startswith(prefix):
            inside[e.source.removeprefix(prefix + ".")].add(e.target.removeprefix(prefix + "."))
    return {k: sorted(v) for k, v in inside.items()}


def test_the_transport_modules_import_one_way() -> None:
    prefix = "argtrace.layers.transport"
    inside = _edges_inside(prefix)
    # the shared modules import nothing of the package; ssh sits above uploads, never the reverse
    shared = ("words", "command_names", "context", "sshcall", "envfiles", "yamlnodes")
    assert {name: inside[name] for name in shared} == {
        "words": [],
        "command_names": [],
        "context": [],
        "sshcall": [],
        "envfiles": [],
        "yamlnodes": [],
    }
    assert inside["ssh"] == ["context", "sshcall", "uploads", "words"]
    assert inside["uploads"] == ["command_names", "context", "sshcall", "words"]
    # no module imports __init__ (the dispatcher is reached through ctx.follow)
    assert not any(prefix in targets for targets in inside.values())


def test_function_level_and_type_checking_imports_count(tmp_path: Path) -> None:
    graph = import_graph()
    pkg = tmp_path / "argtrace"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "one.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from argtrace import two\n"
    )
    (pkg / "two.py").write_text("def f():\n    from argtrace.one import x\n")
    modules, edges = graph.build_graph(pkg)
    assert graph.strongly_connected(modules, edges) == [["argtrace.one", "argtrace.two"]]
