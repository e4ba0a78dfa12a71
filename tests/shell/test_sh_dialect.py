"""A script whose first line gives it to sh (``#!/bin/sh``): shellcheck reads it as sh (``-s sh``), and its
bash features are one SH052 warning resting on sh being dash, the first line made ``#!/bin/bash`` as the
verified fix.

Before (session 26) shellcheck was always asked to read bash, so ``[[ ]]`` and arrays in a ``#!/bin/sh``
script passed without a word, while dash (Debian's and Ubuntu's sh, the frameworks' images') runs ``[[`` as
a command not found and stops at the array."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell.shellcheck import dialect_of
from tests.conftest import run_cli

SERVER = "python3 -m sglang.launch_server --model-path m"


@pytest.mark.parametrize(
    ("first", "dialect"),
    [
        (b"#!/bin/sh", "sh"),
        (b"#!/bin/sh -e", "sh"),
        (b"#!/usr/bin/env sh", "sh"),
        (b"#!/bin/dash", "sh"),
        (b"#! /bin/sh", "sh"),
        (b"#!/bin/bash", "bash"),
        (b"#!/usr/bin/env bash", "bash"),
        (b"#!/bin/shell-thing", "bash"),
        (b"echo hi", "bash"),
    ],
)
def test_the_first_line_decides_the_dialect(first: bytes, dialect: str) -> None:
    assert dialect_of(first + b"\n" + SERVER.encode()) == dialect


def _check(tmp_path: Path, text: str) -> Any:
    (tmp_path / "launch.sh").write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", "--no-cache", str(tmp_path / "launch.sh")])
    assert result.stdout.startswith("{"), result.stderr
    return result.json


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is part of the test install")
def test_bash_features_under_sh_are_one_assumed_warning_with_a_verified_fix(tmp_path: Path) -> None:
    out = _check(tmp_path, '#!/bin/sh\n[[ -n "$X" ]] && T=2\nA=(1 2)\n' + SERVER + ' --tp-size "${T:-1}"\n')
    label = str(tmp_path / "launch.sh")
    (found,) = [f for f in out["findings"] if f["code"] == "SH052"]
    assert found["severity"] == "warning"
    assert found["basis"] == "assumed"
    assert found["message"] == (
        f"{label} starts with `#!/bin/sh` but uses bash features (line 2, line 3): where sh is dash (Debian, "
        "Ubuntu, and the SGLang and vLLM images built on them) they fail or mean something else, and the "
        "values argtrace reads from them follow bash"
    )
    assert [e["text"] for e in found["evidence"]] == [
        "shellcheck SC3010: In POSIX sh, [[ ]] is undefined.",
        "shellcheck SC3030: In POSIX sh, arrays are undefined.",
    ]
    assert found["fix_edits"] == [
        {"file": label, "start": "1:1", "end": "1:10", "replacement": "#!/bin/bash"}
    ]
    assert found["fix_verified"] is True
    # the shellcheck comments are the finding's evidence, not findings of their own
    assert not [f for f in out["findings"] if f["code"].startswith("SC3")]


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is part of the test install")
@pytest.mark.parametrize(
    "text",
    [
        '#!/bin/sh\nT=2\n[ -n "$T" ] && echo ok\n' + SERVER + ' --tp-size "$T"\n',
        '#!/bin/bash\n[[ -n "$X" ]] && T=2\nA=(1 2)\n' + SERVER + ' --tp-size "${T:-1}" "${A[@]}"\n',
    ],
    ids=["posix sh", "bash"],
)
def test_no_warning_where_the_shell_reads_it(tmp_path: Path, text: str) -> None:
    out = _check(tmp_path, text)
    assert not [f for f in out["findings"] if f["code"] == "SH052"]


@pytest.mark.skipif(shutil.which("dash") is None, reason="dash is Debian's and Ubuntu's sh")
def test_dash_really_runs_double_brackets_as_a_command_not_found() -> None:
    """What the rule rests on, from dash itself."""
    done = subprocess.run(["dash", "-c", "[[ 1 == 1 ]]"], capture_output=True, text=True, timeout=10)
    assert done.returncode == 127
    assert "[[: not found" in done.stderr


_MANIFEST = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: v}}
spec:
  template:
    spec:
      containers:
      - name: v
        image: vllm/vllm-openai:v0.10.2
        command: ["/bin/sh", "-c"]
        args:
        - |
          {test}
          vllm serve Qwen/Qwen3-8B --max-model-len 4096 $EXTRA
"""


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is part of the test install")
def test_a_containers_sh_c_script_with_bash_features(tmp_path: Path) -> None:
    (tmp_path / "deploy.yaml").write_text(
        _MANIFEST.format(test='if [[ -n "$TP" ]]; then EXTRA="--tensor-parallel-size $TP"; fi')
    )
    out = run_cli(
        ["check", "--format", "json", "--no-resolve", "--no-cache", str(tmp_path / "deploy.yaml")]
    ).json
    label = str(tmp_path / "deploy.yaml")
    (found,) = [f for f in out["findings"] if f["code"] == "SH052"]
    assert (found["severity"], found["basis"], found["at"]) == ("warning", "assumed", f"{label}:13")
    assert found["message"].startswith(
        "the kubernetes container v's `/bin/sh -c` runs this script but uses bash features (line 13):"
    )
    assert found["fix"] == (
        "Run the script with `bash -c` instead of `/bin/sh -c` (the SGLang and vLLM images have bash)."
    )
    assert [e["text"] for e in found["evidence"]] == ["shellcheck SC3010: In POSIX sh, [[ ]] is undefined."]
    # the POSIX form of the same test: nothing to say
    (tmp_path / "deploy.yaml").write_text(
        _MANIFEST.format(test='if [ -n "$TP" ]; then EXTRA="--tensor-parallel-size $TP"; fi')
    )
    out = run_cli(
        ["check", "--format", "json", "--no-resolve", "--no-cache", str(tmp_path / "deploy.yaml")]
    ).json
    assert not [f for f in out["findings"] if f["code"] == "SH052"]
