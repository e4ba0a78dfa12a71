"""``argtrace fix``: a diff the real ``patch -p0`` applies, ``--write`` with ``FILE.orig``, ``-c``, manifests,
unverified edits and exit statuses; and the shipped example fixed end to end."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

PATCH = shutil.which("patch")
needs_patch = pytest.mark.skipif(PATCH is None, reason="needs patch (Debian package patch, scripts/ci_apt)")
SG10 = ("--framework-version", "0.5.10.post1")
EXPECTED_DIFF = """\
--- examples/launch_mtp.sh
+++ examples/launch_mtp.sh
@@ -12,6 +12,7 @@
 export CUDA_VISIBLE_DEVICES=$GPU
 export SGLANG_ENABLE_SPEC_V2=1
|
+# MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)
 nohup python3 -m sglang.launch_server \\
     --model-path $MODEL \\
     --served-model-name qwen3.6-27b \\
@@ -23,7 +24,6 @@
     --speculative-num-steps 3 \\
     --speculative-eagle-topk 1 \\
     --speculative-num-draft-tokens 4 \\
-    # MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)
     --mamba-scheduler-strategy extra_buffer \\
     --max-mamba-cache-size 64 \\
     --mamba-full-memory-ratio 0.5 \\
""".replace("\n|\n", "\n \n")  # the blank line's context line is one space (kept out of the source)


def _patch(diff: str, cwd: Path) -> None:
    assert PATCH is not None
    done = subprocess.run([PATCH, "-p0"], input=diff, text=True, cwd=cwd, capture_output=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def _shipped(tmp_path: Path) -> Path:
    (tmp_path / "examples").mkdir()
    shutil.copy(REPO / "examples" / "launch_mtp.sh", tmp_path / "examples" / "launch_mtp.sh")
    return tmp_path / "examples" / "launch_mtp.sh"


def _strategy(data: dict[str, object]) -> dict[str, object]:
    settings = data["settings"]
    assert isinstance(settings, list)
    return next(s for s in settings if s["flag"] == "--mamba-scheduler-strategy")


@needs_patch
def test_the_shipped_example_patched_with_the_fix_has_no_shell_error_and_extra_buffer_reaches_the_parser(
    tmp_path: Path,
) -> None:
    script = _shipped(tmp_path)
    check = run_cli(
        ["check", "--format", "json", *SG10, "examples/launch_mtp.sh", "0", "30000"], cwd=tmp_path
    )
    sh004 = next(f for f in check.json["findings"] if f["code"] == "SH004")
    assert sh004["fix_edits"] == [
        {
            "file": "examples/launch_mtp.sh",
            "start": "15:1",
            "end": "15:1",
            "replacement": "# MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state "
            "cache)\n",
        },
        {"file": "examples/launch_mtp.sh", "start": "26:1", "end": "27:1", "replacement": ""},
    ]
    assert sh004["fix_verified"] is True
    assert sh004["fix"].startswith("Move the comment at examples/launch_mtp.sh line 26 above the command")
    fix = run_cli(["fix", *SG10, "examples/launch_mtp.sh", "0", "30000"], cwd=tmp_path)
    assert fix.status == 1
    assert fix.stdout == EXPECTED_DIFF
    assert fix.stderr.splitlines()[0].startswith("fixed: SH004 examples/launch_mtp.sh:27:5: Move the comment")
    _patch(fix.stdout, tmp_path)
    after = run_cli(
        ["check", "--format", "json", *SG10, "examples/launch_mtp.sh", "0", "30000"], cwd=tmp_path
    )
    shell_errors = [f for f in after.json["findings"] if f["layer"] == "shell" and f["severity"] == "error"]
    assert shell_errors == []
    parser = [o for o in _strategy(after.json)["history"] if o["layer"] == "parser"]
    assert [o["value"] for o in parser] == ["extra_buffer"]
    assert script.read_text().count("--mamba-scheduler-strategy extra_buffer") == 1
    again = run_cli(["fix", *SG10, "examples/launch_mtp.sh", "0", "30000"], cwd=tmp_path)
    assert (again.status, again.stdout) == (0, "")


@pytest.mark.frameworks
@needs_patch
def test_the_readme_run_of_the_shipped_example_is_fixed_through_resolution(tmp_path: Path) -> None:
    """The README's command with the resolver: the fix makes SGLang's own resolution accept the launch."""
    _shipped(tmp_path)
    argv = [
        *SG10,
        "--model-config",
        str(REPO / "tests/data/models/qwen3.6-27b"),
        "--gpu",
        "rtx-pro-6000",
        "examples/launch_mtp.sh",
        "0",
        "30000",
    ]
    before = run_cli(["check", "--format", "json", *argv], cwd=tmp_path)
    assert "RS001" in before.codes()
    fix = run_cli(["fix", *argv], cwd=tmp_path)
    assert fix.status == 1 and fix.stdout == EXPECTED_DIFF
    _patch(fix.stdout, tmp_path)
    after = run_cli(["check", "--format", "json", *argv], cwd=tmp_path)
    assert "RS001" not in after.codes() and "SH004" not in after.codes()
    assert _strategy(after.json)["effective"] == "extra_buffer"


def test_write_keeps_the_original_and_the_mode(tmp_path: Path) -> None:
    script = tmp_path / "serve me.sh"
    text = "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m \\ \n  --port 30000\n"
    script.write_text(text)
    script.chmod(0o750)
    result = run_cli(["fix", "--write", *SG10, "serve me.sh"], cwd=tmp_path)
    assert result.status == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "fixed: SH003 serve me.sh:2:49: Delete the blanks after the backslash at the end of serve me.sh line "
        "2, so that `\\` is the last character of the line.",
        # the PA001 for the ' ' word the blank leaves behind is SH003's consequence: one cause, one fix
        "wrote serve me.sh (the old file is serve me.sh.orig)",
    ]
    assert script.read_text() == text.replace("\\ \n", "\\\n")
    assert (tmp_path / "serve me.sh.orig").read_text() == text
    assert script.stat().st_mode & 0o777 == 0o750


def test_fix_c_prints_the_fixed_command() -> None:
    result = run_cli(
        ["fix", *SG10, "-c", "python3 -m sglang.launch_server --model-path /m --mem-fraction-statc .8"]
    )
    assert result.status == 1
    assert result.stdout == "python3 -m sglang.launch_server --model-path /m --mem-fraction-static .8\n"
    assert result.stderr == (
        "fixed: PA001 <-c>:1:49: Write --mem-fraction-static instead of --mem-fraction-statc at <-c>:1:49.\n"
    )


def test_an_edit_that_brings_a_new_warning_is_listed_not_applied() -> None:
    """--model_path written for a second model: the rename PA014 asks for gives --model-path twice (PA006,
    a warning the launch did not have), so the edit is not verified; ``--unverified`` applies it anyway."""
    command = "python3 -m sglang.launch_server --model-path /m --model_path /n"
    check = run_cli(["check", "--format", "json", *SG10, "-c", command])
    pa014 = next(f for f in check.json["findings"] if f["code"] == "PA014")
    assert pa014["fix_edits"] == [
        {"file": "<-c>", "start": "1:49", "end": "1:61", "replacement": "--model-path"}
    ]
    assert pa014["fix_verified"] is False
    result = run_cli(["fix", *SG10, "-c", command])
    assert (result.status, result.stdout) == (0, "")
    assert result.stderr == (
        "not applied (not verified): PA014 <-c>:1:49: Write --model-path instead of --model_path at "
        "<-c>:1:49.\n"
    )
    forced = run_cli(["fix", "--unverified", *SG10, "-c", command])
    assert forced.status == 1
    assert forced.stdout == "python3 -m sglang.launch_server --model-path /m --model-path /n\n"


def test_a_backslash_that_lets_a_misspelt_flag_arrive_is_fixed_with_the_flag(tmp_path: Path) -> None:
    """The flag cut off by the missing backslash is misspelt too: the separated-flags layer already predicts
    its PA001, so the backslash adds no new error (verified), and both edits go in one diff."""
    (tmp_path / "a.sh").write_text(
        "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m\n  --mem-fraction-statc 0.8\n"
    )
    result = run_cli(["fix", *SG10, "a.sh"], cwd=tmp_path)
    assert result.status == 1
    assert result.stdout.splitlines()[-4:] == [
        "-python3 -m sglang.launch_server --model-path /m",
        "-  --mem-fraction-statc 0.8",
        "+python3 -m sglang.launch_server --model-path /m \\",
        "+  --mem-fraction-static 0.8",
    ]
    # each edit was proven alone; both together are re-checked once more
    assert result.stderr.splitlines()[-1] == "re-check of all edits together: 0 error(s)/warning(s) left"


@needs_patch
def test_a_compose_file_is_fixed_in_its_list_item(tmp_path: Path) -> None:
    compose = tmp_path / "compose.yaml"
    compose.write_text(
        "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.10.post1\n    command:\n"
        "      - python3\n      - -m\n      - sglang.launch_server\n      - --model-path\n      - /m\n"
        '      - --mem-fraction-statc\n      - "0.8"\n'
    )
    result = run_cli(["fix", "compose.yaml"], cwd=tmp_path)
    assert result.status == 1
    assert "-      - --mem-fraction-statc\n+      - --mem-fraction-static\n" in result.stdout
    _patch(result.stdout, tmp_path)
    assert run_cli(["check", "--format", "json", "compose.yaml"], cwd=tmp_path).status == 0


def test_a_gpu_too_small_gets_text_only(tmp_path: Path) -> None:
    """MM001's cause is outside the launch files: no edit, fix_verified null, and fix has nothing to do."""
    model = str(REPO / "tests/data/models/qwen3-235b-a22b-fp8")
    argv = ["--model-config", model, "--gpu", "rtx-4090", "--no-resolve", *SG10]
    command = "python3 -m sglang.launch_server --model-path /m"
    check = run_cli(["check", "--format", "json", *argv, "-c", command])
    mm001 = [f for f in check.json["findings"] if f["code"] == "MM001"]
    assert mm001 and all(f["fix_edits"] == [] and f["fix_verified"] is None for f in mm001)
    result = run_cli(["fix", *argv, "-c", command])
    assert (result.status, result.stdout) == (0, "")
    assert any(line.startswith("no edit: MM001") for line in result.stderr.splitlines())


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run_cli(["fix"], cwd=tmp_path).status == 2
    missing = run_cli(["fix", "nowhere.sh"], cwd=tmp_path)
    assert missing.status == 2 and "argtrace fix:" in missing.stderr


def test_secrets_in_the_diff_are_masked_and_the_user_is_told(tmp_path: Path) -> None:
    secret = "sk-fixture-9f8e7d6c5b4a39281706"
    # on the edited line itself: a secret only in a context line is left out of the diff instead
    # (tests/fixes/test_fix_audit.py)
    (tmp_path / "a.sh").write_text(
        f"#!/bin/bash\npython3 -m sglang.launch_server --model-path /m \\\n"
        f"  --mem-fraction-statc 0.8 --api-key {secret}\n"
    )
    masked = run_cli(["fix", *SG10, "a.sh"], cwd=tmp_path)
    assert masked.status == 1
    assert secret not in masked.stdout + masked.stderr
    assert "\n-  --mem-fraction-statc 0.8 --api-key <redacted:" in masked.stdout
    assert masked.stderr.splitlines()[0] == (
        "argtrace fix: secrets are shown as <redacted:...>, so this diff does not apply as printed: use "
        "--write, or --show-secrets"
    )
    shown = run_cli(["fix", "--show-secrets", *SG10, "a.sh"], cwd=tmp_path)
    assert f"+  --mem-fraction-static 0.8 --api-key {secret}\n" in shown.stdout


@needs_patch
def test_after_the_fix_the_old_log_no_longer_tells_the_user_to_pass_what_the_launch_passes(
    tmp_path: Path,
) -> None:
    """Issue 13: a user already passing both suggested flags was told to pass them. The shipped example,
    fixed, read with the log of its old failure: the signature's advice becomes what is really left."""
    _shipped(tmp_path)
    log = str(REPO / "tests/data/logs/sglang_pr25116_spec_no_buffer.log")
    argv = ["--no-resolve", "--log", log, "examples/launch_mtp.sh", "0", "30000"]
    before = run_cli(["check", "--format", "json", *argv], cwd=tmp_path)
    lg004 = next(f for f in before.json["findings"] if f["code"] == "LG004")
    assert lg004["fix_verified"] is True  # the SH004 edit makes the prediction carry extra_buffer
    assert lg004["fix"].startswith("--mamba-scheduler-strategy extra_buffer is written but never reaches")
    _patch(run_cli(["fix", *argv], cwd=tmp_path).stdout, tmp_path)
    after = run_cli(["check", "--format", "json", *argv], cwd=tmp_path)
    lg004 = next(f for f in after.json["findings"] if f["code"] == "LG004")
    assert (lg004["fix_edits"], lg004["fix_verified"]) == ([], None)
    assert lg004["fix"] == (
        "The launch already passes --mamba-scheduler-strategy extra_buffer and SGLANG_ENABLE_SPEC_V2=1, and "
        "argtrace predicts them reaching the server: the error is not this launch's (relaunch and read the "
        "new log), or the node runs other code than the analysis (pass --framework-version). Otherwise: "
        "pass --disable-radix-cache"
    )


def test_fix_json_has_the_report_and_a_fix_section() -> None:
    command = "python3 -m sglang.launch_server --model-path /m --mem-fraction-statc .8 --chunked-prefill 64"
    result = run_cli(["fix", "--format", "json", *SG10, "-c", command])
    assert result.status == 1
    data = result.json
    assert data["command"] == "check"
    assert data["fix"] == {
        "diff": "",
        "command": command.replace("statc", "static"),
        "written": [],
        "environment": [],
        "shell": "",
        "applied": ["PA001 <-c>:1:49"],
        "not_applied": [
            {
                "code": "PA007",
                "at": "<-c>:1:73",
                "why": "not verified (info finding)",
                "fix": "Write --chunked-prefill-size instead of --chunked-prefill at <-c>:1:73.",
            }
        ],
    }
