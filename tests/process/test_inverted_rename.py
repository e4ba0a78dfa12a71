"""A deprecated variable whose replacement means the opposite (issue 11, honest advice).

SGLang 0.5.10.post1 maps ``SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK`` onto
``SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK`` by copying the value as it is (``sglang/srt/environ.py:539-544``
``_print_deprecated_env``), so the old ``=1`` turns the check on. The advice must give the new name the
opposite value, and the edit must write it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.renamed_env import as_bool, inverted_advice, is_inverted
from tests.conftest import REPO, run_cli

OLD = "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK"
NEW = "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK"
LAUNCH = "python3 -m sglang.launch_server --model-path /m"


def test_names_of_opposite_sense() -> None:
    assert is_inverted(OLD, NEW)
    assert is_inverted("VLLM_ENABLE_X", "VLLM_DISABLE_X")
    assert not is_inverted("SGL_ENABLE_JIT_DEEPGEMM", "SGLANG_ENABLE_JIT_DEEPGEMM")
    assert not is_inverted("SGLANG_LOG_GC", "SGLANG_GC_LOG")
    assert not is_inverted("SGL_DISABLE_A_CHECK", "SGLANG_ENABLE_B_CHECK")
    # SGLang's EnvBool words
    assert [as_bool(v) for v in ("1", "TRUE", "y", "0", "No", "2", None)] == [
        True,
        True,
        True,
        False,
        False,
        None,
        None,
    ]
    assert inverted_advice(OLD, NEW, "auto", "vllm 0.33.0", copies=False) == (
        f"{OLD} is deprecated in vllm 0.33.0; it now reads {NEW}, which means the opposite",
        f"use {NEW} with the opposite value ({NEW}=0 to disable, {NEW}=1 to enable)",
    )


def _pr002(value: str) -> dict:
    result = run_cli(
        [
            "check",
            "--no-resolve",
            "--format",
            "json",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            f"{OLD}={value} {LAUNCH}",
        ],
        cwd=REPO,
    )
    (finding,) = [f for f in result.json["findings"] if f["code"] == "PR002"]
    return finding


@pytest.mark.parametrize(("value", "state", "opposite"), [("1", "on", "0"), ("0", "off", "1")])
def test_the_advice_gives_the_new_name_the_opposite_value(value: str, state: str, opposite: str) -> None:
    finding = _pr002(value)
    assert finding["message"] == (
        f"{OLD} is deprecated in sglang 0.5.10.post1; it now reads {NEW}, which means the opposite, and it "
        f"copies the value as it is (sglang/srt/environ.py _print_deprecated_env): {OLD}={value} becomes "
        f"{NEW}={value} ({state}), the opposite of what it asks for"
    )
    # the rule's text, made an edit and re-checked (argtrace.fixes)
    assert finding["fix"] == (
        f"Write {NEW}={opposite} instead of {OLD}={value} at <-c>:1:1 (the new name means the opposite)."
    )
    assert finding["fix_verified"] is True


def test_fix_writes_the_opposite_value(tmp_path: Path) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(f"{OLD}=1 {LAUNCH}\n")
    result = run_cli(
        ["fix", "--no-resolve", "--framework-version", "0.5.10.post1", "--write", str(script)], cwd=REPO
    )
    assert script.read_text() == f"{NEW}=0 {LAUNCH}\n"
    assert (script.parent / "launch.sh.orig").read_text() == f"{OLD}=1 {LAUNCH}\n"
    assert result.stderr.startswith(
        f"fixed: PR002 {script}:1:1: Write {NEW}=0 instead of {OLD}=1 at {script}:1:1 "
        "(the new name means the opposite).\n"
    )
