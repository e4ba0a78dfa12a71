"""Environment changes for ``--env`` (issue 13): a finding caused by a variable the launch inherits (given
with ``--env`` or read from the caller's environment) gets ``fix_edits`` of the environment kind,
``{"env": NAME, "value": NEW | null}``, verified by re-checking with the changed environment; ``argtrace fix``
prints them as ``export``/``unset`` lines after the diff, and the real bash running those lines before a
real ``argtrace check`` gives a launch without the finding."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

SG10 = ("--framework-version", "0.5.10.post1")
SERVER = "python -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --tp-size 1"
PATCH = shutil.which("patch")


def _check(*env: str, command: str = SERVER) -> dict[str, Any]:
    argv = ["check", "--no-resolve", "--format", "json", *SG10]
    for item in env:
        argv += ["--env", item]
    result = run_cli([*argv, "-c", command])
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def _finding(data: dict[str, Any], code: str, start: str = "") -> dict[str, Any]:
    return next(f for f in data["findings"] if f["code"] == code and f["message"].startswith(start))


@pytest.fixture(scope="module")
def inherited() -> dict[str, Any]:
    """One check with four inherited variables, each the cause of a finding (shared: each test reads one)."""
    return _check(
        'SGLANG_ENABLE_TORCH_COMPILE="1"',  # quotes handed on as part of the value (PR009)
        "CUDA_VISIBLE_DEVICES=1,1",  # a repeated GPU (PR006)
        "SGL_ENABLE_JIT_DEEPGEMM=1",  # the old prefix of a variable the release reads (PR002: copied)
        "SGLANG_GC_LOG=1",  # deprecated, now SGLANG_LOG_GC (PR002)
    )


def test_a_quoted_value_given_with_env_is_given_without_its_quotes(inherited: dict[str, Any]) -> None:
    finding = _finding(inherited, "PR009")
    assert finding["fix_edits"] == [{"env": "SGLANG_ENABLE_TORCH_COMPILE", "value": "1"}]
    assert finding["fix_verified"] is True
    assert finding["fix"] == (
        "Give SGLANG_ENABLE_TORCH_COMPILE the value 1 without the quote characters "
        "(`export SGLANG_ENABLE_TORCH_COMPILE=1`): SGLANG_ENABLE_TORCH_COMPILE comes from the environment "
        "the launch starts with (--env or the caller's), no file."
    )


def test_a_repeated_gpu_is_listed_once(inherited: dict[str, Any]) -> None:
    finding = _finding(inherited, "PR006")
    assert finding["fix_edits"] == [{"env": "CUDA_VISIBLE_DEVICES", "value": "1"}]
    assert finding["fix_verified"] is True


def test_an_old_prefix_moves_the_value_to_the_name_the_release_reads(inherited: dict[str, Any]) -> None:
    """0.5.10.post1 copies SGL_* to SGLANG_* at import (sglang/srt/environ.py:578): the old prefix is read,
    deprecated (PR002, a note), and the fix moves the value to the new name."""
    finding = _finding(inherited, "PR002", "SGL_ENABLE_JIT_DEEPGEMM")
    assert finding["fix_edits"] == [
        {"env": "SGL_ENABLE_JIT_DEEPGEMM", "value": None},
        {"env": "SGLANG_ENABLE_JIT_DEEPGEMM", "value": "1"},
    ]
    assert finding["severity"] == "info"  # inherited: argtrace verifies errors and warnings only
    assert finding["fix_verified"] is None


def test_a_deprecated_variable_is_renamed_and_the_rename_verified(inherited: dict[str, Any]) -> None:
    finding = _finding(inherited, "PR002", "SGLANG_GC_LOG")
    assert (
        finding["message"] == "SGLANG_GC_LOG is deprecated in sglang 0.5.10.post1; it now reads SGLANG_LOG_GC"
    )
    assert finding["fix_edits"] == [
        {"env": "SGLANG_GC_LOG", "value": None},
        {"env": "SGLANG_LOG_GC", "value": "1"},
    ]
    assert finding["fix_verified"] is True


def test_a_deprecated_variable_whose_replacement_has_the_opposite_sense_gets_the_opposite_value() -> None:
    """SGL_DISABLE_X=1 read now as SGLANG_ENABLE_X: the same value would mean the opposite, so the change is
    the new name with the opposite value (layers/renamed_env.py)."""
    finding = _finding(_check("SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1"), "PR002")
    assert finding["fix"] == (
        "Replace SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=1 by SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0, which "
        "means the same (`unset SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK; export "
        "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK=0`): SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK comes from the "
        "environment the launch starts with (--env or the caller's), no file."
    )
    assert finding["fix_edits"] == [
        {"env": "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK", "value": None},
        {"env": "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "value": "0"},
    ]
    assert finding["fix_verified"] is True


def test_an_empty_visible_devices_is_unset() -> None:
    finding = _finding(_check("CUDA_VISIBLE_DEVICES="), "PR006")
    assert finding["message"] == "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all"
    assert finding["fix_edits"] == [{"env": "CUDA_VISIBLE_DEVICES", "value": None}]
    assert finding["fix_verified"] is True


def test_an_environment_change_is_no_sarif_fix() -> None:
    argv = ["check", "--no-resolve", "--format", "sarif", *SG10, "--env", "CUDA_VISIBLE_DEVICES="]
    sarif = json.loads(run_cli([*argv, "-c", SERVER]).stdout)
    result = next(r for r in sarif["runs"][0]["results"] if r["ruleId"] == "PR006")
    assert "fixes" not in result


def test_a_variable_the_script_sets_gets_a_file_edit_or_none_never_an_environment_change() -> None:
    """The same bad value set by the command itself (``CUDA_VISIBLE_DEVICES=1,1 python ...``) is the file's:
    the environment change would not reach a variable the script overrides."""
    data = _check("CUDA_VISIBLE_DEVICES=0", command="CUDA_VISIBLE_DEVICES=1,1 " + SERVER)
    finding = _finding(data, "PR006")
    assert not any("env" in e for e in finding["fix_edits"])


@pytest.mark.skipif(PATCH is None, reason="needs patch (Debian package patch, scripts/ci_apt)")
def test_fix_prints_the_changes_after_the_diff_and_bash_running_them_gives_a_clean_launch(
    tmp_path: Path,
) -> None:
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/bash\n{SERVER} \\\n  # the port the router expects\n  --port 30000\n")
    argv = ["fix", "--no-resolve", *SG10, "--env", 'SGLANG_ENABLE_TORCH_COMPILE="1"']
    result = run_cli([*argv, "--env", "CUDA_VISIBLE_DEVICES=", "serve.sh"], cwd=tmp_path)
    assert result.status == 1
    diff, _, shell = result.stdout.partition("   --port 30000\n")
    assert diff.startswith("--- serve.sh\n+++ serve.sh\n")
    assert shell == "export SGLANG_ENABLE_TORCH_COMPILE=1\nunset CUDA_VISIBLE_DEVICES\n"
    assert result.stderr.splitlines()[-1] == "re-check of all edits together: 0 error(s)/warning(s) left"
    # the whole stdout, shell lines included, is what the user pipes to patch
    done = subprocess.run(["patch", "-p0"], input=result.stdout, text=True, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    # the caller's shell had the bad values exported; the printed lines, run by the real bash, change them,
    # and the environment bash ends with is the one the launch starts from (checked in-process, no second
    # interpreter start-up)
    names = ("SGLANG_ENABLE_TORCH_COMPILE", "CUDA_VISIBLE_DEVICES")
    env = {"PATH": os.environ["PATH"], "SGLANG_ENABLE_TORCH_COMPILE": '"1"', "CUDA_VISIBLE_DEVICES": ""}
    ran = subprocess.run(
        ["bash", "-c", shell + "env -0"], env=env, capture_output=True, text=True, check=True
    )
    ended = dict(item.split("=", 1) for item in ran.stdout.split("\0") if "=" in item)
    assert {n: ended.get(n) for n in names} == {
        "SGLANG_ENABLE_TORCH_COMPILE": "1",
        "CUDA_VISIBLE_DEVICES": None,
    }
    given = [w for n in names if n in ended for w in ("--env", f"{n}={ended[n]}")]
    after = run_cli(
        ["check", "--format", "json", *SG10, "--no-resolve", *given, "serve.sh"], cwd=tmp_path
    ).json
    assert [f["code"] for f in after["findings"] if f["severity"] in ("error", "warning")] == []
    assert "--port" in after["parser"]["argv"]


def test_an_inherited_vllm_port_taken_for_the_api_port_is_unset() -> None:
    argv = ["check", "--no-resolve", "--format", "json", "--framework-version", "0.33.0"]
    report = run_cli([*argv, "--env", "VLLM_PORT=9000", "-c", "vllm serve /m"]).json
    rs020 = _finding(report, "RS020")
    assert rs020["message"].startswith("VLLM_PORT=9000 does not set the API port")
    assert rs020["severity"] == "warning"
    assert rs020["fix_edits"] == [{"env": "VLLM_PORT", "value": None}]
    assert rs020["fix_verified"] is True
    # equal to the API port the server starts: information, its edit offered but not verified
    report = run_cli([*argv, "--env", "VLLM_PORT=8000", "-c", "vllm serve /m"]).json
    rs020 = _finding(report, "RS020")
    assert (rs020["severity"], rs020["fix_edits"], rs020["fix_verified"]) == (
        "info",
        [{"env": "VLLM_PORT", "value": None}],
        None,
    )
