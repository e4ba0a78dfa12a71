"""A script a command runs by its path (``./s.sh``, ``/abs/s.sh``, ``"$D/s.sh"``, behind ``nohup``, ``exec``,
``env X=1``, ``srun``) is read as ``bash FILE`` is (layers/shell/scriptpath.py). Each line is run for real by
bash with a stand-in ``vllm`` on PATH that records its words; argtrace must predict exactly the servers the
stand-in saw: the script's positional parameters are the call's words, its environment the exported
variables (a variable the caller only assigned does not reach it)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.shell.scriptpath import shell_kind
from tests.conftest import run_cli

RECORDER = """#!/bin/sh
printf '%s\\n' "$*" > "$RECORD_DIR/ran-$$"
"""
SERVE = '#!/bin/bash\nvllm serve "$1" --port ${PORT:-8000}\n'
# the files each test directory holds (name -> text); all executable, as bash's execve needs
FILES = {
    "s.sh": SERVE,
    "env_bash.sh": SERVE.replace("#!/bin/bash", "#!/usr/bin/env bash"),
    "posix.sh": SERVE.replace("#!/bin/bash", "#!/bin/sh"),
    "no_shebang.sh": 'vllm serve "$1" --port 1\n',  # execve refuses it: bash runs it itself
    "binary.sh": 'vllm\0serve "$1"\n',  # a NUL in the first line: "cannot execute binary file"
    "zsh.sh": SERVE.replace("#!/bin/bash", "#!/bin/zsh-not-here"),  # another interpreter (absent here)
    "wrap.sh": '#!/bin/bash\nexport PORT=7\nexec ./s.sh "$@"\n',  # a script that runs one by its path
}


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("PORT", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(RECORDER)
    (tmp_path / "records").mkdir()
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    for path in [bin_dir / "vllm", *(tmp_path / name for name in FILES)]:
        path.chmod(0o755)
    return tmp_path


def run_real(line: str, where: Path) -> list[str]:
    """Run ``line`` with bash (the stand-in first on PATH); the words each stand-in run got."""
    env = {"PATH": f"{where / 'bin'}:/usr/bin:/bin", "RECORD_DIR": str(where / "records"), "HOME": str(where)}
    subprocess.run(["bash", "-c", line], cwd=where, env=env, capture_output=True, timeout=30, check=False)
    return sorted(p.read_text().strip() for p in (where / "records").iterdir())


def predicted(line: str, cwd: Path) -> list[str]:
    """The words after ``vllm`` of each server the shell layer predicts for ``line`` run in ``cwd``."""
    result = analyze_script(
        ScriptSource("<-c>", line.encode(), None),
        [],
        {"PATH": "/usr/bin:/bin"},
        run_shellcheck=False,
        cwd=str(cwd),
    )
    return sorted(" ".join(str(w.text) for w in s.argv[1:]) for s in result.servers)


LINES = [
    ("./s.sh m", ["serve m --port 8000"]),
    ("{dir}/s.sh m", ["serve m --port 8000"]),  # an absolute path
    ('D=.; "$D/s.sh" m', ["serve m --port 8000"]),
    ("PORT=9 ./s.sh m", ["serve m --port 9"]),  # a prefix assignment is in the command's environment
    ("PORT=9; ./s.sh m", ["serve m --port 8000"]),  # assigned, not exported: the script never sees it
    ("export PORT=9; ./s.sh m", ["serve m --port 9"]),
    ("env PORT=6 ./s.sh m", ["serve m --port 6"]),
    ("nohup ./s.sh m >/dev/null 2>&1 & wait", ["serve m --port 8000"]),
    ("exec ./s.sh m", ["serve m --port 8000"]),
    ("./wrap.sh m", ["serve m --port 7"]),  # a script running a script by its path, through `exec`
    ("./env_bash.sh m", ["serve m --port 8000"]),
    ("./posix.sh m", ["serve m --port 8000"]),
    ("./no_shebang.sh m", ["serve m --port 1"]),
    # not run as a shell script, or not run at all
    ("./binary.sh m", []),
    ("./zsh.sh m", []),
    ("./missing.sh m", []),
    ("s.sh m", []),  # no `/`: looked up on PATH, where it is not
]


@pytest.mark.parametrize(("line", "seen"), LINES)
def test_a_script_run_by_its_path_as_bash_runs_it(line: str, seen: list[str], stand_in: Path) -> None:
    line = line.format(dir=stand_in)
    assert run_real(line, stand_in) == seen
    assert predicted(line, stand_in) == seen


def test_a_script_run_by_its_path_on_each_srun_task(stand_in: Path) -> None:
    # srun is not on this machine: the task's shell runs the script as bash would
    assert predicted("export PORT=5; srun -N2 --ntasks-per-node=1 ./s.sh m", stand_in) == ["serve m --port 5"]


def test_a_script_that_runs_itself_is_read_once_more_then_stops(tmp_path: Path) -> None:
    # an endless recursion when run: read statically, the same file is not entered again below itself
    (tmp_path / "r.sh").write_text("#!/bin/bash\nvllm serve m --port 1\n./r.sh\n")
    assert predicted("./r.sh", tmp_path) == ["serve m --port 1"]


def test_a_script_that_starts_itself_again_in_the_background_shows_its_server(tmp_path: Path) -> None:
    # the main script is not on the stack: one more reading is what finds a self-relaunch's server
    (tmp_path / "relaunch.sh").write_text(
        '#!/bin/bash\nif [ "$1" != child ]; then nohup "$0" child >/dev/null 2>&1 & exit 0; fi\n'
        "vllm serve m --port 1\n"
    )
    result = analyze_script(
        ScriptSource("./relaunch.sh", (tmp_path / "relaunch.sh").read_bytes(), tmp_path / "relaunch.sh"),
        [],
        {"PATH": "/usr/bin:/bin"},
        arg0="./relaunch.sh",
        run_shellcheck=False,
        cwd=str(tmp_path),
    )
    assert [" ".join(str(w.text) for w in s.argv[1:]) for s in result.servers] == ["serve m --port 1"]


def test_a_correct_launch_by_path_gets_no_error_or_warning(stand_in: Path) -> None:
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", "-c", "export PORT=9; ./s.sh m"], cwd=stand_in
    )
    report = result.json
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "m", "--port", "9"]]
    assert [f["code"] for f in report["findings"] if f["severity"] in ("error", "warning")] == []


@pytest.mark.parametrize(
    ("head", "shell"),
    [
        (b"#!/bin/bash\n", True),
        (b"#! /bin/sh -e\n", True),
        (b"#!/usr/bin/dash\n", True),
        (b"#!/usr/bin/env bash\n", True),
        (b"#!/usr/bin/env -S bash -e\n", True),
        (b"#!/usr/bin/env python3\n", False),
        (b"#!/usr/bin/python3\n", False),
        (b"#!/bin/zsh\n", False),
        (b"vllm serve m\n", True),
        (b"", True),  # an empty file: bash runs it (and nothing happens)
        (b"\x7fELF\x02\x01\x01\0", False),
        (b"abc\0def\n", False),
        (b"echo hi\n\0", True),  # a NUL after the first line: bash still runs it
    ],
)
def test_which_files_bash_runs_as_a_shell_script(head: bytes, shell: bool) -> None:
    assert shell_kind(head) is shell
