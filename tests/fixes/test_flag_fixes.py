"""Edits for the flag causes users hit most (issue 13's "more codes"): a flag that loses its value to an
unset or empty variable (SH007, SH026), a flag written without a value (PA012), a flag given twice (PA006), a
``argtrace fix``'s diff is applied with the real ``patch -p0`` and the
patched script re-checked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

SG10 = ("--no-resolve", "--framework-version", "0.5.10.post1")
SCRIPT = """\
#!/bin/bash
# usage: serve.sh GPU PORT
export CUDA_VISIBLE_DEVICES=$1
python3 -m sglang.launch_server \\
    --model-path /models/qwen \\
    --port $2 \\
    --mem-fraction-static 0.8 \\
    --host 0.0.0.0 \\
    --mem-fraction-static 0.85 \\
    --tp-size 1
"""
EXPECTED = """\
--- serve.sh
+++ serve.sh
@@ -3,8 +3,7 @@
 export CUDA_VISIBLE_DEVICES=$1
 python3 -m sglang.launch_server \\
     --model-path /models/qwen \\
-    --port $2 \\
-    --mem-fraction-static 0.8 \\
+    --port ${2:-30000} \\
     --host 0.0.0.0 \\
     --mem-fraction-static 0.85 \\
     --tp-size 1
"""


def _findings(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["code"]: f for f in report["findings"]}


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch (scripts/ci_apt)")
def test_a_lost_port_and_a_repeated_flag_are_fixed_with_patch_and_the_script_checks_clean(
    tmp_path: Path,
) -> None:
    (tmp_path / "serve.sh").write_text(SCRIPT)
    fixed = run_cli(["fix", *SG10, "serve.sh", "0"], cwd=tmp_path)  # PORT ($2) not given
    assert fixed.status == 1, fixed.stderr
    assert fixed.stdout == EXPECTED
    default = (
        "Write ${2:-30000} at serve.sh:6:12: when $2 is unset or empty, --port gets sglang's default, 30000, "
        "instead of the next flag (or pass the value meant: `${2:?...}` stops early instead)."
    )
    assert fixed.stderr.splitlines() == [
        f"fixed: SH007 serve.sh:6:12: {default}",  # "--port needs a value" is its consequence (one cause)
        "fixed: PA006 serve.sh:9:5: Delete --mem-fraction-static 0.8 from the command in serve.sh (line 4): "
        "argparse keeps the last, --mem-fraction-static 0.85, so the launch says once what it already does.",
        "re-check of all edits together: 0 error(s)/warning(s) left",
    ]
    done = subprocess.run(["patch", "-p0"], input=fixed.stdout, text=True, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    after = run_cli(["check", "--format", "json", *SG10, "serve.sh", "0"], cwd=tmp_path).json
    assert [f["code"] for f in after["findings"] if f["severity"] in ("error", "warning")] == []
    port = next(s for s in after["settings"] if s["flag"] == "--port")
    assert port["effective"] == 30000


def test_a_flag_written_without_its_value_gets_the_default_after_it() -> None:
    command = "python3 -m sglang.launch_server --model-path /m --port --host 0.0.0.0"
    report = run_cli(["check", "--format", "json", *SG10, "-c", command]).json
    pa012 = _findings(report)["PA012"]
    assert pa012["fix_edits"] == [{"file": "<-c>", "start": "1:55", "end": "1:55", "replacement": " 30000"}]
    assert pa012["fix_verified"] is True
    assert (
        pa012["fix"] == "Give --port its value at <-c>:1:55: 30000 is sglang's default (write the one meant)."
    )


def test_a_flag_written_again_at_once_with_its_value_loses_the_empty_first() -> None:
    # dynamo#12375 (tests/data/real_cases/dynamo12375_dup_bootstrap.yaml): the upstream fix deleted the first
    command = "python3 -m sglang.launch_server --model-path /m --port --port 8000 --host 0.0.0.0"
    report = run_cli(["check", "--format", "json", *SG10, "-c", command]).json
    pa012 = _findings(report)["PA012"]
    assert pa012["fix_edits"] == [{"file": "<-c>", "start": "1:49", "end": "1:56", "replacement": ""}]
    assert pa012["fix_verified"] is True
    assert pa012["fix"] == (
        "Delete the first --port at <-c>:1:49: it is written again right after it with its value, the one "
        "meant."
    )


def test_a_missing_value_after_an_expansion_takes_the_expansions_edit() -> None:
    """``--port $2 --tp-size 1`` with $2 unset: PA012 is about the word that vanished, so it is SH007's
    consequence (one cause); writing a value after ``--port`` would leave ``$2`` to expand later, so the
    folded PA012 keeps SH007's edit (``${2:-30000}``), proven like the cause's (``--verbose`` lists it)."""
    command = "python3 -m sglang.launch_server --model-path /m --port $2 --tp-size 1"
    argv = ["check", "--format", "json", "--verbose", *SG10, "-c", command, "--", "serve.sh", "0"]
    findings = run_cli(argv).json["findings"]
    default = [{"file": "<-c>", "start": "1:56", "end": "1:58", "replacement": "${2:-30000}"}]
    got = [(f["code"], f["severity"], f.get("cause"), f["fix_edits"], f["fix_verified"]) for f in findings]
    assert got == [("SH007", "error", None, default, True), ("PA012", "error", 0, default, True)]


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch (scripts/ci_apt)")
def test_a_lost_value_on_the_next_line_is_fixed_where_it_vanished(tmp_path: Path) -> None:
    """Variant: ``--port \\`` then ``$2 \\`` on the next line. PA012's own edit (`` 30000`` after --port)
    would fit its line but leave ``$2`` to add a stray word once passed: the folded PA012 takes the cause's
    ``${2:-30000}``, and the patched script checks clean with and without the argument."""
    (tmp_path / "serve.sh").write_text(
        "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m --port \\\n  $2 \\\n  --host 0.0.0.0\n"
    )
    report = run_cli(["check", "--format", "json", "--verbose", *SG10, "serve.sh"], cwd=tmp_path).json
    default = [{"file": "serve.sh", "start": "3:3", "end": "3:5", "replacement": "${2:-30000}"}]
    got = [
        (f["code"], f.get("cause"), f["at"], f["fix_edits"], f["fix_verified"]) for f in report["findings"]
    ]
    assert got == [
        ("SH007", None, "serve.sh:3:3", default, True),
        ("PA012", 0, "serve.sh:2:49", default, True),
    ]
    fixed = run_cli(["fix", *SG10, "serve.sh"], cwd=tmp_path)
    done = subprocess.run(["patch", "-p0"], input=fixed.stdout, text=True, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "serve.sh").read_text().splitlines()[2] == "  ${2:-30000} \\"
    for args in ([], ["8080"]):
        after = run_cli(["check", "--format", "json", *SG10, "serve.sh", "0", *args], cwd=tmp_path).json
        assert [f["code"] for f in after["findings"] if f["severity"] in ("error", "warning")] == []


def test_a_value_lost_at_the_end_of_the_command_gets_the_default() -> None:
    """Variant: ``--port $2`` ends the command ("gets no value"): the same edit, its text saying what the
    flag gets instead of nothing."""
    command = "python3 -m sglang.launch_server --model-path /m --port $2"
    argv = ["check", "--format", "json", *SG10, "-c", command, "--", "serve.sh", "0"]  # $2 not passed
    (cause,) = run_cli(argv).json["findings"]
    assert (cause["code"], cause["severity"], [c["code"] for c in cause["consequences"]]) == (
        "SH007",
        "error",
        ["PA012"],
    )
    edits = [{"file": "<-c>", "start": "1:56", "end": "1:58", "replacement": "${2:-30000}"}]
    assert cause["fix_edits"] == edits
    assert cause["fix_verified"] is True
    assert cause["fix"] == (
        "Write ${2:-30000} at <-c>:1:56: when $2 is unset or empty, --port gets sglang's default, 30000, "
        "instead of no value (or pass the value meant: `${2:?...}` stops early instead)."
    )


@pytest.mark.skipif(shutil.which("patch") is None, reason="needs patch (scripts/ci_apt)")
def test_stderr_redirected_before_stdout_on_a_continued_line_is_swapped(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text(
        "#!/bin/bash\n"
        "python3 -m sglang.launch_server --model-path /m \\\n"
        '  --port 30000 2>&1 >"server 1.log"\n'
    )
    fixed = run_cli(["fix", *SG10, "run.sh"], cwd=tmp_path)
    assert fixed.stderr.splitlines()[0] == (
        'fixed: SH010 run.sh:2:1: Write >"server 1.log" 2>&1 at run.sh:3:16: standard error follows standard '
        "output into the file only when `2>&1` comes after it."
    )
    done = subprocess.run(["patch", "-p0"], input=fixed.stdout, text=True, cwd=tmp_path, capture_output=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "run.sh").read_text().endswith('  --port 30000 >"server 1.log" 2>&1\n')
    after = run_cli(["check", "--format", "json", *SG10, "run.sh"], cwd=tmp_path).json
    assert "SH010" not in [f["code"] for f in after["findings"]]


@pytest.mark.parametrize(
    ("command", "fix", "edits", "verified"),
    [
        # the replacement is on the command already: the old switch is deleted, and re-checking proves it
        (
            "vllm serve Qwen/Qwen3-8B --enable-reasoning --reasoning-parser deepseek_r1",
            "Delete --enable-reasoning at <-c>:1:26: --reasoning-parser is given already.",
            [{"file": "<-c>", "start": "1:26", "end": "1:45", "replacement": ""}],
            True,
        ),
        # a switch renamed into an option that takes a value: the value is the user's choice, so no edit
        # (writing `--reasoning-parser` alone would take the next word as its value)
        ("vllm serve Qwen/Qwen3-8B --enable-reasoning", "use --reasoning-parser", [], None),
    ],
)
def test_a_switch_renamed_into_an_option_with_a_value(
    command: str, fix: str, edits: list[dict[str, str]], verified: bool | None
) -> None:
    """vllm#18538: `--enable-reasoning` on 0.10.0, analysed with 0.10.2 (its family's bundled release),
    which knows only `--reasoning-parser NAME`."""
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", "0.10.0", "-c", command]
    result = run_cli(argv)
    (finding,) = [f for f in result.json["findings"] if f["code"] == "PA003"]
    assert (finding["fix"], finding["fix_edits"], finding["fix_verified"]) == (fix, edits, verified)


def test_a_lost_model_gets_no_default_model_written_in() -> None:
    """vLLM's `--model` defaults to its demo model (facebook/opt-125m): a launch that lost its model must not
    be "fixed" into serving that one. The port beside it still gets its default (fixes/flags._default)."""
    command = "vllm serve --model $MODEL --port $PORT --host 0.0.0.0"
    argv = ["check", "--format", "json", "--verbose", "--no-resolve", "--framework-version", "0.6.6.post1"]
    findings = run_cli([*argv, "-c", command]).json["findings"]
    edits = [e["replacement"] for f in findings for e in f.get("fix_edits", [])]
    assert not [e for e in edits if "opt-125m" in e]
    assert "${PORT:-8000}" in edits


def test_a_flag_repeated_on_one_line_with_one_value_gets_one_edit_per_occurrence() -> None:
    """A fuzz case (``--model /m-m`` pasted ten times on one line) made copies of the first occurrence's
    edit: the re-check applied them once, the line mapping overlapped, and check died with an internal
    EditError. Each earlier occurrence is now looked for after the previous one."""
    command = "python -m vllm.entrypoints.openai.api_server --model /m --port 1 --port 1 --port 8000"
    report = run_cli(
        ["check", "--format", "json", "--no-resolve", "--framework-version", "0.11.0", "-c", command]
    )
    assert report.status == 0, report.stderr  # PA006 is a warning (the values differ): exit 0
    pa006 = _findings(report.json)["PA006"]
    assert pa006["fix_edits"] == [  # " --port 1" twice, each its own columns
        {"file": "<-c>", "start": "1:56", "end": "1:65", "replacement": ""},
        {"file": "<-c>", "start": "1:65", "end": "1:74", "replacement": ""},
    ]
    assert pa006["fix_verified"] is True
