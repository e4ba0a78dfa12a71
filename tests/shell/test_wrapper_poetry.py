"""``poetry run`` in front of a server, against the real poetry (issue 17).

Each line runs for real in a poetry project (``POETRY_VIRTUALENVS_CREATE=false``: the command runs in the
interpreter poetry runs under, found on PATH) whose directory holds a stand-in ``sglang/launch_server.py``
that records the arguments the server's parser gets. argtrace's ``detect_server`` must find the start and
name the same arguments; where poetry refuses the line, argtrace must find none. Poetry's options come from
``poetry help run`` (scripts/gen_wrapper_options.py, Debian's python3-poetry 1.3.2 and PyPI's poetry 2.5.1;
scripts/ci_apt installs the Debian one). Of conda, micromamba, pixi and poetry only poetry installs here
(docs/shell.md says why the others do not).
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from argtrace.frameworks.detect import detect_server
from argtrace.frameworks.wrappers import options_of

POETRY = shutil.which("poetry")
pytestmark = pytest.mark.skipif(POETRY is None, reason="poetry is installed by scripts/ci_apt")

PY = "python3 -m sglang.launch_server"
# lines both poetry 1.3.2 and 2.5.1 handle alike (tried by hand with both, 2026-12-01)
CASES = [
    f"poetry run {PY} --port 1",
    f"poetry run -q {PY} --port 2",  # an option of poetry's right after `run` is still poetry's
    f"poetry -q run {PY} --port 3",
    f"poetry run -- {PY} --port 4",
    f"poetry -C . run {PY} --port 5",
    f"poetry -n run -v {PY} --port 7",
    f"poetry run {PY} -q --port 8",  # after the command, the command's
    f"poetry --no-ansi run {PY} --port 10",
    f"poetry --dir=. run {PY} --port 11",  # cleo takes no prefix: poetry refuses the line
]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("poetry")
    (root / "sglang").mkdir()
    (root / "sglang" / "__init__.py").write_text("")
    rec = str(root / "rec.json")
    (root / "sglang" / "launch_server.py").write_text(
        f"import json, sys\nwith open({rec!r}, 'w') as f:\n    json.dump(sys.argv[1:], f)\n"
    )
    (root / "pyproject.toml").write_text(
        '[tool.poetry]\nname = "proj"\nversion = "0.1.0"\ndescription = ""\n'
        'authors = ["x <x@example.com>"]\npackages = []\n\n'
        '[tool.poetry.dependencies]\npython = ">=3.8"\n'
    )
    return root


def _real(line: str, root: Path) -> list[str] | None:
    rec = root / "rec.json"
    rec.unlink(missing_ok=True)
    env = {
        "PATH": f"{Path(str(POETRY)).parent}:/usr/bin:/bin",
        "HOME": str(root),
        "POETRY_VIRTUALENVS_CREATE": "false",
        "POETRY_CACHE_DIR": str(root / "cache"),
    }
    argv = shlex.split(line)
    subprocess.run([str(POETRY), *argv[1:]], env=env, cwd=root, capture_output=True, timeout=120)
    return json.loads(rec.read_text()) if rec.exists() else None


def _predicted(line: str) -> list[str] | None:
    words = shlex.split(line)
    det = detect_server(words)
    return None if det is None else words[det.server_args_start :]


@pytest.mark.parametrize("line", CASES)
def test_poetry_run_hands_on_what_argtrace_predicts(line: str, project: Path) -> None:
    real = _real(line, project)
    assert _predicted(line) == real
    if real is not None:
        det = detect_server(shlex.split(line))
        assert det is not None and det.runner == "poetry run"


def test_the_option_table_is_the_installed_poetrys() -> None:
    spec = options_of("poetry run")
    assert spec is not None and spec.family == "cleo"
    with_value = {n for n, kind in spec.long.items() if kind == "required"}
    assert with_value == {"directory", "project"}
    out = subprocess.run([str(POETRY), "--version"], capture_output=True, text=True).stdout
    version = re.search(r"\d+\.\d+\.\d+", out)
    assert version is not None and f"Poetry (version {version.group(0)})" in spec.version
