"""Suppression comments, ``--show-suppressed`` and ``--fail-on`` through the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.ci.test_formats import validate_sarif
from tests.conftest import run_cli

FAST = ("--no-resolve", "--no-shellcheck")

# PR006 at the export (line 4), SH007 at `$PORT` (line 8), PA012 at `--port` (line 8), PR011 at line 6. The
# empty CUDA_VISIBLE_DEVICES is written in the script, so PR006 is an error whatever the script's arguments.
SCRIPT = """#!/bin/bash
set -e
{export_directive}
export CUDA_VISIBLE_DEVICES=
{server_directive}
python3 -m sglang.launch_server \\
    --model-path /m \\
    --port $PORT \\
    --tp-size 1
"""


def _check(
    tmp_path: Path, text: str, *extra: str, name: str = "launch.sh"
) -> tuple[int, list[tuple[str, str]]]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", *FAST, *extra, name], cwd=tmp_path)
    assert result.stderr == ""
    return result.status, [(f["code"], f["at"]) for f in result.json["findings"]]


def _script(export_directive: str = "", server_directive: str = "") -> str:
    return SCRIPT.format(export_directive=export_directive, server_directive=server_directive)


def test_without_directives(tmp_path: Path) -> None:
    status, found = _check(tmp_path, _script())
    assert status == 1
    assert found == [
        ("SH007", "launch.sh:8:12"),
        ("PR011", "launch.sh:6:1"),
        ("PR006", "launch.sh:4:8"),
    ]  # PA012 (--port takes --tp-size) is SH007's consequence (causes.py, lost-value)


def test_directive_applies_to_the_next_command_only(tmp_path: Path) -> None:
    # PR006 named before the server command: the export (line 4) is another command, it stays.
    status, found = _check(tmp_path, _script(server_directive="# argtrace disable=SH007,PR006"))
    assert status == 1
    assert found == [("PR011", "launch.sh:6:1"), ("PR006", "launch.sh:4:8")]  # PA012 went with SH007
    # Named before the export, PR006 goes; SH007 (on the continued line 8 of the server command) too.
    status, found = _check(
        tmp_path,
        _script(export_directive="# argtrace disable=PR006", server_directive="# argtrace disable=sh007"),
    )
    assert status == 0
    assert found == [("PR011", "launch.sh:6:1")]  # PA012, SH007's consequence, is suppressed with it


def test_directive_before_the_first_command_covers_the_file(tmp_path: Path) -> None:
    text = _script().replace("#!/bin/bash\n", "#!/bin/bash\n# the launch\n# argtrace disable=PA012,PR011\n")
    status, found = _check(tmp_path, text)
    assert found == [("SH007", "launch.sh:10:12"), ("PR006", "launch.sh:6:8")]
    assert status == 1


def test_show_suppressed_lists_them_in_json_sarif_and_text(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(_script(export_directive="# argtrace disable=PR006"))
    hidden = run_cli(["check", "--format", "json", *FAST, "launch.sh"], cwd=tmp_path).json
    assert hidden["suppressed"] == {"count": 1, "findings": []}
    assert (
        "1 finding(s) suppressed by `# argtrace disable` comments (--show-suppressed lists them)"
        in (hidden["notes"])
    )
    shown = run_cli(["check", "--format", "json", *FAST, "--show-suppressed", "launch.sh"], cwd=tmp_path).json
    (item,) = shown["suppressed"]["findings"]
    assert (item["by"], item["finding"]["code"], item["finding"]["at"]) == (
        "launch.sh:3",
        "PR006",
        "launch.sh:4:8",
    )
    sarif = run_cli(["check", "--format", "sarif", *FAST, "--show-suppressed", "launch.sh"], cwd=tmp_path)
    log = json.loads(sarif.stdout)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert [(r["ruleId"], "suppressions" in r) for r in results] == [
        ("SH007", False),  # PA012 at `--port` is its consequence (causes.py, lost-value)
        ("PR011", False),
        ("PR006", True),
    ]
    assert results[-1]["suppressions"] == [{"kind": "inSource", "justification": "launch.sh:3"}]
    text = run_cli(["check", *FAST, "--show-suppressed", "launch.sh"], cwd=tmp_path).stdout
    assert "suppressed PR006 launch.sh:4:8 (by launch.sh:3): CUDA_VISIBLE_DEVICES is set but empty" in text


COMPOSE = """{top}services:
  sglang:
    image: lmsysorg/sglang:v0.5.23-cu129
{env_directive}    environment:
      CUDA_VISIBLE_DEVICES: ""
{command_directive}    command: python3 -m sglang.launch_server --model-path /m --port 30000 --tp-szie 2
"""


def _compose(top: str = "", env_directive: str = "", command_directive: str = "") -> str:
    return COMPOSE.format(top=top, env_directive=env_directive, command_directive=command_directive)


def test_yaml_item_and_top(tmp_path: Path) -> None:
    status, found = _check(tmp_path, _compose(), name="compose.yaml")
    assert (status, [c for c, _ in found]) == (1, ["PR006", "PA001"])
    # Before `environment:` (lines 5-6), PA001 at line 7 is outside the item.
    _, found = _check(tmp_path, _compose(env_directive="    # argtrace disable=PA001\n"), name="compose.yaml")
    assert [c for c, _ in found] == ["PR006", "PA001"]
    _, found = _check(
        tmp_path, _compose(command_directive="    # argtrace disable=PA001\n"), name="compose.yaml"
    )
    assert found == [("PR006", "compose.yaml:7")]
    status, found = _check(tmp_path, _compose(top="# argtrace disable=PR006,PA001\n"), name="compose.yaml")
    assert (status, found) == (0, [])


@pytest.mark.parametrize(("fail_on", "status"), [("error", 0), ("warning", 1), ("info", 1), ("never", 0)])
def test_fail_on_a_warning_only_launch(tmp_path: Path, fail_on: str, status: int) -> None:
    # `$PORT` empty (set to ""), unquoted: SH026 is a warning (PA012, --port taking the next flag, is its
    # consequence); PR011 is info.
    text = "#!/bin/bash\nPORT=\npython3 -m sglang.launch_server --model-path /m --port $PORT --tp-size 1\n"
    got, found = _check(tmp_path, text, "--fail-on", fail_on)
    assert [c for c, _ in found] == ["SH026", "PR011"]
    assert got == status


@pytest.mark.parametrize(("fail_on", "status"), [("error", 0), ("warning", 0), ("info", 1), ("never", 0)])
def test_fail_on_an_info_only_launch(tmp_path: Path, fail_on: str, status: int) -> None:
    text = "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m\n"
    got, found = _check(tmp_path, text, "--fail-on", fail_on)
    assert [c for c, _ in found] == ["PR011"]
    assert got == status


def test_fail_on_never_with_errors(tmp_path: Path) -> None:
    status, found = _check(tmp_path, _script(), "--fail-on", "never")
    assert (status, len(found)) == (0, 3)  # SH007 (with PA012 folded), PR011, PR006


def test_bad_fail_on_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(["check", "--fail-on", "bad", "-c", "true"])
    assert result.status == 2
    assert "argument --fail-on: invalid choice: 'bad'" in result.stderr


def test_baseline_reports_only_new_findings(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(_script())
    written = run_cli(
        ["check", "--format", "json", *FAST, "--write-baseline", "base.json", "launch.sh"], cwd=tmp_path
    )
    assert written.status == 1  # writing a baseline reports as usual
    base = json.loads((tmp_path / "base.json").read_text())
    assert base["argtrace_baseline"] == 1
    assert [(e["code"], e["file"]) for e in base["findings"]] == [
        ("SH007", "launch.sh"),
        ("PR011", "launch.sh"),
        ("PR006", "launch.sh"),
    ]
    status, found = _check(tmp_path, _script(), "--baseline", "base.json")
    assert (status, found) == (0, [])
    # Two lines added above and a new error (a misspelt flag): only the new one is reported.
    moved = _script().replace("set -e\n", "set -e\n# new\n# lines\n")
    moved = moved.replace("    --model-path /m \\\n", "    --model-path /m \\\n    --tp-szie 2 \\\n")
    status, found = _check(tmp_path, moved, "--baseline", "base.json")
    # an error although no release is named: no bundled release knows --tp-szie, so it fails whichever runs.
    # PR011 (info) comes back too: its message now says the release choice could not weigh --tp-szie, and
    # a finding's fingerprint is its code, file, setting and message (render/places.py fingerprints).
    assert (status, found) == (1, [("PR011", "launch.sh:8:1"), ("PA001", "launch.sh:10:5")])


def test_bad_baseline_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "base.json").write_text("[1]")
    result = run_cli(["check", "--baseline", "base.json", "-c", "true"], cwd=tmp_path)
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr == (
        "argtrace check: --baseline base.json: not an argtrace baseline (written by --write-baseline)\n"
    )


def test_suppressing_a_cause_covers_its_listed_consequences(tmp_path: Path) -> None:
    """With the causes issue's ``--verbose``, a consequence is its own finding with ``cause: INDEX``."""
    import os
    from dataclasses import dataclass

    from argtrace.ci.controls import apply_suppressions
    from argtrace.model import Finding, Report

    @dataclass(frozen=True)
    class Consequence(Finding):
        cause: int | None = None

    (tmp_path / "launch.sh").write_text("#!/bin/bash\nset -e\n# argtrace disable=SH004\necho a\necho b\n")
    report = Report(command="check")
    report.findings = [
        Finding("SH004", "error", "shell", "cut off", at="launch.sh:4:1"),
        Consequence("PA020", "error", "parser", "required flag missing", at="launch.sh:5:1", cause=0),
        Finding("PA001", "error", "parser", "unknown flag", at="launch.sh:5:1"),
    ]
    report.sections["inputs"] = ["launch.sh"]
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        apply_suppressions(report, show=True)
    finally:
        os.chdir(old)
    assert [f.code for f in report.findings] == ["PA001"]
    assert [(i["finding"]["code"], i["by"]) for i in report.sections["suppressed"]["findings"]] == [
        ("SH004", "launch.sh:3"),
        ("PA020", "launch.sh:3"),
    ]
