"""The end-to-end audit of verified fixes (bench/fix_audit.py, docs/fixes.md "Audit of verified fixes") on a
fixed subset: each fix applied as a user applies it (``argtrace fix > p.diff && patch -p0``, ``--write``, the
fixed ``-c`` command), the patched launch re-checked, and the five answers asserted exactly."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

sys.path.insert(0, str(REPO / "bench"))
import fix_audit  # (bench/ is no package)

needs_tools = pytest.mark.skipif(
    shutil.which("patch") is None, reason="needs patch (Debian package patch, scripts/ci_apt)"
)

PASS = {
    "applies": True, "gone": True, "no_new": True, "valid": True, "scoped": True, "secrets": True,
    "planted_applies": True, "masked_note_right": None,
}  # fmt: skip
# a -c command: the fixed command printed is the command with the edits applied (no diff to patch)
COMMAND = {**PASS, "planted_applies": None, "masked_note_right": True}
NONE = dict.fromkeys(PASS)

R1, R7 = "tests/data/real_cases", "tests/data/real_cases_7"
SUBSET: list[tuple[fix_audit.Case, dict[str, Any]]] = [
    (
        fix_audit.Case("examples", "launch_mtp.sh", args=("0", "30000")),
        {**PASS, "verified": ["SH004"], "info_edits": ["PA005 mamba_radix_cache_strategy"], "masked": False},
    ),
    (fix_audit.Case(R1, "vllm42399_missing_backslash.sh"), {**PASS, "verified": ["SH004"], "masked": False}),
    (
        fix_audit.Case(R1, "vllm22072_compose_list.yaml"),
        # PA001's refusal of the one word is TP011's consequence since the first-screen grouping: no note
        {**PASS, "verified": ["TP011"], "info_edits": [], "masked": False},
    ),
    (
        fix_audit.Case(R7, "dynamo14321_folded_continuations.yaml"),
        {**PASS, "verified": ["TP021"], "masked": False},
    ),
    # the file's own token is in the edited item: the diff is masked (documented), --write applies it, and
    # neither `check` nor `fix` prints the token (it printed it in `fix_edits` before the audit)
    (
        fix_audit.Case(R7, "vllm3435_compose_kv_cache.yaml"),
        {**PASS, "verified": ["TP019"], "masked": True, "planted_applies": False, "masked_note_right": True},
    ),
    (
        fix_audit.Case(R1, "vllm18538_enable_reasoning.cmd", ("--framework-version", "0.10.0")),
        {**COMMAND, "verified": ["PA003 enable_reasoning"], "masked": False},
    ),
    # a correct launch: a note with an edit, which `fix` does not apply (nothing printed, status 0)
    (
        fix_audit.Case("tests/data/false_alarms/commands", "sglang_spec_eagle2_llama2.cmd", correct=True),
        {**NONE, "verified": [], "info_edits": ["PA005 cuda_graph_max_bs_decode"], "masked": False},
    ),
]


@needs_tools
@pytest.mark.parametrize(("case", "expected"), SUBSET, ids=lambda c: getattr(c, "file", ""))
def test_a_verified_fix_applied_end_to_end(case: fix_audit.Case, expected: dict[str, Any]) -> None:
    outcome = asdict(fix_audit.audit_case(case))
    wanted = {"info_edits": [], "unverified": [], "missed_verification": [], "fix_on_correct": [], **expected}
    assert {k: outcome[k] for k in wanted} == wanted
    assert outcome["problems"] == []
    assert outcome["no_report"] == ""


def test_a_file_with_no_launch_is_a_usage_error_not_a_fix() -> None:
    outcome = fix_audit.audit_case(fix_audit.Case(R1, "c8_prodstack276_values_shm_size.yaml"))
    assert (outcome.verified, outcome.problems) == ([], [])
    assert outcome.no_report.startswith(
        "argtrace check: c8_prodstack276_values_shm_size.yaml: YAML, but neither a docker compose file"
    )


def test_the_audit_reads_each_case_with_its_tests_options() -> None:
    cases = {c.name for c in fix_audit.all_cases()}
    assert "tests/data/real_cases_4/sglang6296_dp_attention_mtp_two_nodes.sh [0]" in cases
    assert "tests/data/real_cases/vllm18538_enable_reasoning.cmd [--framework-version 0.10.0]" in cases
    assert "tests/data/false_alarms/recipes/vllm_qwen3_vl_fp8_rocm_v1.cmd" in cases
    assert "examples/launch_mtp.sh [0 30000]" in cases
    assert not any(name.endswith(".log") for name in cases)


def test_diff_lines_counts_a_replaced_line_once_and_an_insertion_before_its_line() -> None:
    diff = (
        "--- a.sh\n+++ a.sh\n@@ -9,3 +9,4 @@\n ctx\n-old\n+new\n+added\n ctx\n"
        "@@ -20,1 +21,2 @@\n+inserted\n ctx\n"
    )
    assert fix_audit.diff_lines(diff) == {"a.sh": {10, 20}}


def test_apply_own_applies_edits_by_line_and_column() -> None:
    edits = [
        {"file": "a", "start": "1:3", "end": "1:6", "replacement": "XY"},
        {"file": "a", "start": "2:1", "end": "2:1", "replacement": "# moved\n"},
    ]
    assert fix_audit.apply_own("ab---cd\nline\n", edits) == "abXYcd\n# moved\nline\n"
    assert fix_audit.allowed_lines(edits) == {"a": {1, 2}}


# --- the mechanisms the audit found failing (2026-12-02) ---------------------------------------------------

COMPOSE_WITH_A_QUOTED_TOKEN = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.11.0
    command: --model Qwen/Qwen3-8B
    environment:
      - HF_TOKEN="mySecretValue12345"
"""


def test_a_secret_known_with_its_quotes_is_masked_bare_too() -> None:
    """The process gets compose's `"v"` with its quotes; TP019's fix writes the bare v (fix_edits)."""
    from argtrace.redact import Redactor, mask

    redactor = Redactor()
    redactor.learn('"mySecretValue12345"')
    assert redactor.text("replacement: mySecretValue12345") == f"replacement: {mask('mySecretValue12345')}"
    redactor.learn("''")  # quotes around nothing: nothing to learn
    assert redactor.text("it is '' here") == "it is '' here"


def test_the_unquoting_fix_of_a_secret_prints_neither_it_nor_a_mask_of_another_word(tmp_path: Path) -> None:
    from argtrace.redact import mask

    (tmp_path / "compose.yaml").write_text(COMPOSE_WITH_A_QUOTED_TOKEN)
    report = run_cli(["check", "--format", "json", "--no-resolve", "compose.yaml"], cwd=tmp_path)
    assert "mySecretValue12345" not in report.stdout + report.stderr
    tp019 = next(f for f in report.json["findings"] if f["code"] == "TP019")
    shown = mask("mySecretValue12345")
    assert tp019["fix_edits"] == [
        {"file": "compose.yaml", "start": "6:18", "end": "6:38", "replacement": shown}
    ]
    assert tp019["fix"] == (
        f"Write HF_TOKEN={shown} without quotes at compose.yaml:6:18: compose passes a list item's value as "
        "written, quotes included."
    )
    fix = run_cli(["fix", "--no-resolve", "compose.yaml"], cwd=tmp_path)
    assert "mySecretValue12345" not in fix.stdout + fix.stderr
    assert f'-      - HF_TOKEN="{shown}"\n+      - HF_TOKEN={shown}\n' in fix.stdout
    assert run_cli(["fix", "--write", "--no-resolve", "compose.yaml"], cwd=tmp_path).status == 1
    assert (tmp_path / "compose.yaml").read_text().endswith("      - HF_TOKEN=mySecretValue12345\n")


@needs_tools
def test_a_secret_in_a_context_line_leaves_the_printed_diff_applicable(tmp_path: Path) -> None:
    """The shipped example with an ``export HF_TOKEN=...`` just above the command: the diff's context would
    show it masked, which ``patch`` cannot apply; the diff is printed with no context lines instead."""
    (tmp_path / "examples").mkdir()
    lines = (REPO / "examples" / "launch_mtp.sh").read_text().splitlines(keepends=True)
    script = tmp_path / "examples" / "launch_mtp.sh"
    script.write_text("".join([*lines[:14], "export HF_TOKEN=fxAuditPlanted93q\n", *lines[14:]]))
    fix = run_cli(["fix", "--no-resolve", "examples/launch_mtp.sh", "0", "30000"], cwd=tmp_path)
    assert fix.stdout == (
        "--- examples/launch_mtp.sh\n+++ examples/launch_mtp.sh\n@@ -15,0 +16 @@\n"
        "+# MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)\n"
        "@@ -27 +27,0 @@\n"
        "-    # MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)\n"
    )
    assert "does not apply as printed" not in fix.stderr
    as_json = run_cli(
        ["fix", "--format", "json", "--no-resolve", "examples/launch_mtp.sh", "0", "30000"], cwd=tmp_path
    )
    assert as_json.json["fix"]["diff"] == fix.stdout
    done = subprocess.run(
        ["patch", "-p0", "--batch"], input=fix.stdout, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = script.read_text()
    assert text.count("export HF_TOKEN=fxAuditPlanted93q\n# MTP on a hybrid Mamba model") == 1


def test_a_masked_fixed_command_is_named_as_such_and_not_sent_to_write(tmp_path: Path) -> None:
    """`fix -c` prints the fixed command (no diff, nothing --write could write): with a secret in it, the
    note says the command does not run as printed, not that a diff does not apply."""
    command = (
        "export HF_TOKEN=fxAuditPlanted93q\n"
        "python3 -m sglang.launch_server --model-path /m --reasoning_parser qwen3"
    )
    fix = run_cli(["fix", "--framework-version", "0.5.5", "-c", command], cwd=tmp_path)
    assert fix.status == 1
    assert "fxAuditPlanted93q" not in fix.stdout + fix.stderr
    assert fix.stdout.endswith("\npython3 -m sglang.launch_server --model-path /m --reasoning-parser qwen3\n")
    assert fix.stderr.splitlines()[0] == (
        "argtrace fix: secrets are shown as <redacted:...>, so the fixed command does not run as printed: "
        "use --show-secrets"
    )
