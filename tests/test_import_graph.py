"""scripts/import_graph.py: the import circles of src/argtrace, and the script's own reading of imports."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "import_graph.py"

# The circles other work is removing. Empty this set (and keep the test) once they are gone: the test then
# says "no import circle at all".
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()

# Modules that must never be part of a circle (the parser layer, the framework adapters, the check path).
OWNED_PREFIXES = (
    "argtrace.layers.parser",
    "argtrace.frameworks.vllm",
    "argtrace.frameworks.sglang",
    "argtrace.frameworks.actions",
    "argtrace.check",
    "argtrace.layers.running",
    "argtrace.commands.live",
    "argtrace.commands.check",
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False
    )


def _owned(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in OWNED_PREFIXES)


def test_the_circles_of_argtrace_are_exactly_the_known_ones() -> None:
    proc = _run("--json")
    data = json.loads(proc.stdout)
    cycles = {frozenset(c["modules"]) for c in data["cycles"]}
    assert cycles == KNOWN_CYCLES
    assert proc.returncode == (1 if KNOWN_CYCLES else 0)


def test_no_circle_touches_the_parser_layer_or_the_framework_adapters() -> None:
    data = json.loads(_run("--json").stdout)
    assert [c["modules"] for c in data["cycles"] if any(_owned(m) for m in c["modules"])] == []


def test_no_import_points_against_the_layer_order() -> None:
    """Dependencies point one way: commands -> orchestration -> layers -> frameworks/rules -> remote ->
    model. Framework adapters never call back into layers; layers never import check or a command; remote
    never imports a layer or the probe (the caller hands down what it needs)."""
    proc = _run("--json")
    data = json.loads(proc.stdout)
    assert [(v["from"], v["line"], v["to"]) for v in data["violations"]] == []
    assert _run().stdout.rstrip().endswith("0 circle(s), 0 import(s) against the layer order")


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "argtrace"


def test_relative_lazy_and_type_checking_imports_make_edges(tmp_path: Path) -> None:
    src = _write(
        tmp_path,
        {
            "argtrace/__init__.py": "",
            "argtrace/model.py": "import json\n",
            "argtrace/layers/__init__.py": "",
            "argtrace/layers/a.py": "from . import b\nfrom ..model import X\n",
            "argtrace/layers/b.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from argtrace.frameworks.f import T\n"
            ),
            "argtrace/frameworks/__init__.py": "",
            "argtrace/frameworks/f.py": "def g():\n    from argtrace.layers.a import h\n",
            "argtrace/commands/c.py": "import argtrace.layers.b\n",
        },
    )
    proc = _run("--src", str(src), "--json")
    data = json.loads(proc.stdout)
    assert proc.returncode == 1
    assert data["modules"] == 8
    assert data["cycles"] == [
        {
            "modules": ["argtrace.frameworks.f", "argtrace.layers.a", "argtrace.layers.b"],
            "edges": [
                {"from": "argtrace.frameworks.f", "to": "argtrace.layers.a", "line": 2, "how": "function"},
                {"from": "argtrace.layers.a", "to": "argtrace.layers.b", "line": 1, "how": "module"},
                {
                    "from": "argtrace.layers.b",
                    "to": "argtrace.frameworks.f",
                    "line": 3,
                    "how": "type-checking",
                },
            ],
        }
    ]
    assert data["violations"] == [
        {
            "from": "argtrace.frameworks.f",
            "to": "argtrace.layers.a",
            "line": 2,
            "how": "function",
            "levels": ["frameworks/rules", "layers"],
        }
    ]
    text = _run("--src", str(src))
    assert text.returncode == 1
    assert "circle: argtrace.frameworks.f <-> argtrace.layers.a <-> argtrace.layers.b" in text.stdout
    assert text.stdout.rstrip().endswith("1 circle(s), 1 import(s) against the layer order")


def test_no_circle_exits_zero(tmp_path: Path) -> None:
    src = _write(
        tmp_path,
        {
            "argtrace/__init__.py": "",
            "argtrace/model.py": "",
            "argtrace/layers/x.py": "from argtrace.model import A\nfrom argtrace import model\n",
        },
    )
    proc = _run("--src", str(src))
    assert proc.returncode == 0
    assert proc.stdout == "3 modules, 2 imports\n0 circle(s), 0 import(s) against the layer order\n"
