"""The shell mechanisms of the transport4 batch, each against the real program on this machine.

* SH041: a ``NAME=VALUE`` word after ``nohup``, ``timeout``, ``nice``, ``setsid``, ``stdbuf``, GNU ``time``,
  bash's ``exec``/``command`` is run as the program (execvp: not found, status 127); only the shell's prefix,
  ``env``, ``sudo`` and bash's ``time`` keyword read it as an assignment. Each line is run for real by bash
  with a stand-in ``vllm`` on PATH that records its environment; argtrace must find a server exactly when the
  stand-in ran, and give it the variable the stand-in saw.
* SH042: ``NAME=v bash script.sh`` where the script assigns NAME again for its server: real bash, the same
  stand-in.
* SH043: a sourced env file line ``NAME=a b c`` runs ``b``: real ``bash -c 'source FILE'`` says which names
  are set and which words are run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.shell.envlines import env_lines_running_a_word
from tests.conftest import run_cli

RECORDER = """#!/bin/sh
printf '%s\\n' "$X" > "$RECORD_DIR/ran-$$"
"""


@pytest.fixture
def stand_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with an executable ``vllm`` that writes the X it got to ``records/``."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("X", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(RECORDER)
    (bin_dir / "vllm").chmod(0o755)
    (tmp_path / "records").mkdir()
    return tmp_path


def run_real(line: str, where: Path) -> list[str]:
    """Run ``line`` with bash (the stand-in first on PATH); the X each stand-in run saw."""
    env = {
        "PATH": f"{where / 'bin'}:/usr/sbin:/usr/bin:/sbin:/bin",
        "RECORD_DIR": str(where / "records"),
        "HOME": str(where),
    }
    subprocess.run(["bash", "-c", line], cwd=where, env=env, capture_output=True, timeout=30, check=False)
    return sorted(p.read_text().strip() for p in (where / "records").iterdir())


def server_x(line: str, cwd: Path) -> list[str | None]:
    """The X of each server the shell layer predicts for ``line`` run in ``cwd``."""
    result = analyze_script(
        ScriptSource("<-c>", line.encode(), None),
        [],
        {"PATH": "/usr/bin:/bin"},
        run_shellcheck=False,
        cwd=str(cwd),
    )
    return sorted(s.env["X"].value if "X" in s.env else None for s in result.servers)  # type: ignore[type-var]


def check(line: str, cwd: Path) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", line], cwd=cwd)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


# (line, the X the stand-in sees, or None when the stand-in never runs)
WRAPPED = [
    ("nohup X=1 vllm serve m", None),
    ("timeout 30 X=1 vllm serve m", None),
    ("nice -n 5 X=1 vllm serve m", None),
    ("setsid -w X=1 vllm serve m", None),
    ("stdbuf -oL X=1 vllm serve m", None),
    ("/usr/bin/time -p X=1 vllm serve m", None),
    ("exec X=1 vllm serve m", None),
    ("command X=1 vllm serve m", None),
    ("nohup timeout 30 X=1 vllm serve m", None),
    # the forms that do read the assignment
    ("X=1 nohup vllm serve m", "1"),
    ("nohup env X=1 vllm serve m", "1"),
    ("env X=1 nohup vllm serve m", "1"),
    ("time X=1 vllm serve m", "1"),  # bash's reserved word, then a simple command with its prefix
    ("exec env X=1 vllm serve m", "1"),
]


@pytest.mark.parametrize(("line", "seen"), WRAPPED)
def test_an_assignment_after_a_wrapper_as_the_real_programs_read_it(
    line: str, seen: str | None, stand_in: Path
) -> None:
    if line.startswith("/usr/bin/time") and not Path("/usr/bin/time").exists():
        pytest.skip("GNU time is not installed (scripts/ci_apt installs it)")
    assert run_real(line, stand_in) == ([] if seen is None else [seen])
    report = check(line, stand_in)
    sh041 = [f for f in report["findings"] if f["code"] == "SH041"]
    if seen is None:
        assert report["servers"] == []
        assert [(f["severity"], f["basis"]) for f in sh041] == [("error", "static")]
        assert [f["code"] for f in report["findings"] if f["code"] in ("SH019", "SH040")] == []
    else:
        assert sh041 == []
        assert len(report["servers"]) == 1
        assert server_x(line, stand_in) == [seen]


def test_sh041_message_names_the_wrapper_the_word_and_the_fix(stand_in: Path) -> None:
    """The report's own line (wizyoung/YOLOv3_TensorFlow#131), a Python program and not a server."""
    report = check("nohup CUDA_VISIBLE_DEVICES=GPU_ID python train.py &", stand_in)
    sh041 = next(f for f in report["findings"] if f["code"] == "SH041")
    assert sh041["message"] == (
        "`nohup` runs `CUDA_VISIBLE_DEVICES=GPU_ID` as the program (only the shell reads NAME=VALUE in front "
        "of a command): no program has that name, so `nohup` exits with status 127 and `python train.py` "
        "never starts; CUDA_VISIBLE_DEVICES is not set for anything"
    )
    assert sh041["fix"] == (
        "Put the assignment before `nohup`: `CUDA_VISIBLE_DEVICES=GPU_ID nohup python train.py` (or "
        "`nohup env CUDA_VISIBLE_DEVICES=GPU_ID python train.py`)."
    )
    # python train.py starts no SGLang or vLLM server: SH019 stays beside it
    assert [f["code"] for f in report["findings"]] == ["SH041", "SH019"]


def test_sudo_reads_an_assignment_after_its_options(stand_in: Path) -> None:
    """sudo(8): "Environment variables to be set for the command may also be passed on the command line in
    the form of VAR=value". Run for real when this machine's sudo runs without a password (root, CI)."""
    line = "sudo -E X=1 vllm serve m"
    if shutil.which("sudo") is not None and os.geteuid() == 0:
        # sudo looks the command up on its secure_path, so the stand-in is named by its path
        assert run_real(f"sudo -E X=1 {stand_in / 'bin' / 'vllm'} serve m", stand_in) == ["1"]
    report = check(line, stand_in)
    assert [f["code"] for f in report["findings"] if f["code"] == "SH041"] == []
    assert server_x(line, stand_in) == ["1"]


# --- SH042: the caller's value replaced by the script -----------------------------------------------------

SCRIPT = "#!/bin/bash\nfor i in 0 1; do\n  {assign} vllm serve m --port 800$i &\ndone\nwait\n"


@pytest.mark.parametrize(
    ("assign", "expected", "sh042"),
    [
        ("X=$i", ["0", "1"], True),  # DeepSpec#36's shape: the caller's X=7 never arrives
        ("X=${X:-$i}", ["7", "7"], False),  # the script keeps the caller's value
        ("", ["7", "7"], False),  # nothing assigned: the caller's value is inherited
    ],
)
def test_a_value_given_to_a_script_and_replaced_there(
    assign: str, expected: list[str], sh042: bool, stand_in: Path
) -> None:
    (stand_in / "launch.sh").write_text(SCRIPT.format(assign=assign))
    assert run_real("X=7 bash launch.sh", stand_in) == expected
    assert server_x("X=7 bash launch.sh", stand_in) == expected
    report = check("X=7 bash launch.sh", stand_in)
    found = [f for f in report["findings"] if f["code"] == "SH042"]
    if not sh042:
        assert found == []
        return
    assert [(f["severity"], f["at"]) for f in found] == [("warning", "launch.sh:3:3")]
    assert found[0]["message"] == (
        "X=7 is given to the script at <-c>:1:1, but the script sets X=0, 1 for its 2 servers here without "
        "reading it: the value given never reaches them"
    )
    # the same through an export of the calling script
    report = check("export X=7; bash launch.sh", stand_in)
    assert [f["code"] for f in report["findings"] if f["code"] == "SH042"] == ["SH042"]


def test_sh042_keeps_a_secret_value_out(stand_in: Path) -> None:
    (stand_in / "launch.sh").write_text("#!/bin/bash\nHF_TOKEN=hf_inner vllm serve m\n")
    report = check("HF_TOKEN=hf_outer_secret bash launch.sh", stand_in)
    text = json.dumps(report)
    assert "hf_outer_secret" not in text and "hf_inner" not in text
    sh042 = next(f for f in report["findings"] if f["code"] == "SH042")
    assert sh042["message"].startswith("HF_TOKEN=<redacted> is given to the script at <-c>:1:1")


# --- SH043: a sourced env line bash runs as a command -----------------------------------------------------

ENV_TEXTS = [
    # (file text, lines that run a word: (line, NAME, value bash keeps, word))
    ("COMPUTE_CONTEXT_NAME=SAS Job Execution compute context\n", [(1, "COMPUTE_CONTEXT_NAME", "SAS", "Job")]),
    ("A=1 B=2\nexport C=x\n", []),  # two assignments on a line: no command
    ("A=1 # a comment\nB=2\n", []),
    ("A=\"x y\"\nB='z w'\n", []),
    ("# header\nexport MODEL=Qwen/Qwen3-8B extra\nPORT=8000\n", []),  # export: `extra` is one more name
    ("# header\nMODEL=Qwen/Qwen3-8B extra\nPORT=8000\n", [(2, "MODEL", "Qwen/Qwen3-8B", "extra")]),
    ("A=1\nvllm serve m\n", []),  # a script, not an env file
]


@pytest.mark.parametrize(("text", "expected"), ENV_TEXTS)
def test_env_lines_that_run_a_word_as_bash_sources_them(
    text: str, expected: list[tuple[int, str, str, str]], tmp_path: Path
) -> None:
    (tmp_path / "f.env").write_text(text)
    probe = subprocess.run(
        ["bash", "-c", "source ./f.env 2>/tmp/err.$$; cat /tmp/err.$$; rm -f /tmp/err.$$; declare -p"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=30,
        check=False,
    )
    assert env_lines_running_a_word(text) == expected
    if not any(line.split("=", 1)[0].endswith("vllm serve m") for line in text.splitlines()):
        for _line, name, _value, word in expected:
            assert f"{word}: command not found" in probe.stdout
            assert f"declare -- {name}=" not in probe.stdout and f"declare -x {name}=" not in probe.stdout
