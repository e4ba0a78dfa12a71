"""Which of some modules a plain check of the shipped example imports (the start-up tests of the sessions
that moved code where it is first used: tests/test_startup35.py on)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

SRC = str(Path(__file__).resolve().parent.parent / "src")
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh"


def imported_by_plain_checks(tmp_path: Path, modules: Iterable[str], *, runs: int = 2) -> list[list[str]]:
    """The ``modules`` each of ``runs`` checks imports (``check --format json --no-resolve`` of the example,
    copied to ``tmp_path``, where no .argtrace.toml or pyproject.toml is found upward), run in turn in fresh
    interpreters (``-S``, site-packages on the path) sharing one cache: the first stores shellcheck's
    opinion and the data cache, the later ones read them."""
    example = tmp_path / "launch_mtp.sh"
    example.write_bytes(EXAMPLE.read_bytes())
    code = (
        "import contextlib, io, sys, site\n"
        "sys.path.extend(site.getsitepackages())\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', '--format', 'json', '--no-resolve', {str(example)!r}, '0', '30000'])\n"
        f"print(' '.join(sorted(set({sorted(modules)!r}) & (set(sys.modules) - before))))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_CACHE_DIR=str(tmp_path / "cache"), ARGTRACE_WARM="0")
    env["ARGTRACE_DATA_CACHE"] = str(tmp_path / "data")
    argv = [sys.executable, "-S", "-c", code]
    found = []
    for _ in range(runs):
        done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
        found.append(done.stdout.split())
    return found
