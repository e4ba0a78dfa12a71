"""The CI formats through the real CLI: SARIF 2.1.0 validated against the official schema, GitHub workflow
commands, gcc lines, JUnit XML, JSON lines; fingerprints stable across runs and line shifts."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

SCHEMA = REPO / "tests" / "data" / "sarif" / "sarif-schema-2.1.0.json"
EXAMPLE = REPO / "examples" / "launch_mtp.sh"
FAST = ("--no-resolve", "--no-shellcheck")
# The shipped example's findings, in report order (tests/test_story.py tells its story).
EXPECTED = [
    ("SH004", "error", 27, 5),
    ("SH026", "warning", 19, 12),
    ("PR011", "info", 15, 1),
    ("PR006", "warning", 12, 8),  # CUDA_VISIBLE_DEVICES=$GPU, GPU=$1: the check passes no arguments
    # PA012 (--port takes --tp-size) follows from SH026 (`$PORT` is empty): it is SH026's consequence
    ("PA005", "info", 27, 5),
]


def validate_sarif(log: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


def _example(tmp_path: Path, *extra: str, fmt: str) -> tuple[int, str]:
    shutil.copy(EXAMPLE, tmp_path / "launch_mtp.sh")
    result = run_cli(["check", "--format", fmt, *FAST, *extra, "launch_mtp.sh"], cwd=tmp_path)
    assert result.stderr == ""
    return result.status, result.stdout


def test_sarif_is_valid_and_exact(tmp_path: Path) -> None:
    status, out = _example(tmp_path, fmt="sarif")
    assert status == 1
    log = json.loads(out)
    validate_sarif(log)
    assert log["version"] == "2.1.0"
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("argtrace", "0.1.0")
    assert driver["informationUri"] == "https://github.com/argtrace/argtrace"
    assert [r["id"] for r in driver["rules"]] == [c for c, *_ in EXPECTED]
    sh004 = driver["rules"][0]
    title = "A line starts with a flag: missing backslash on the line before"
    assert sh004["shortDescription"]["text"] == title
    assert sh004["helpUri"] == "https://github.com/argtrace/argtrace/blob/main/docs/rules/SH004.md"
    assert sh004["defaultConfiguration"] == {"level": "error"}
    assert sh004["help"]["text"] == (
        "End the previous line with a backslash (and nothing after it); when the line before is a comment "
        "inside the continued command, move the comment above the command."
    )
    got = [
        (
            r["ruleId"],
            r["level"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"],
        )
        for r in run["results"]
    ]
    level = {"error": "error", "warning": "warning", "info": "note"}
    assert got == [
        (code, level[sev], "launch_mtp.sh", {"startLine": line, "startColumn": col})
        for code, sev, line, col in EXPECTED
    ]
    assert [r["ruleIndex"] for r in run["results"]] == list(range(len(EXPECTED)))
    assert run["results"][3]["message"]["text"] == (
        "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all\n"
        "Fix: list distinct GPU indices (or UUIDs), e.g. CUDA_VISIBLE_DEVICES=0,1"
    )
    # The example's cause has a verified edit (argtrace re-checked the edited script): SARIF carries it.
    (fix,) = run["results"][0]["fixes"]
    assert fix["artifactChanges"] == [
        {
            "artifactLocation": {"uri": "launch_mtp.sh"},
            "replacements": [
                {
                    "deletedRegion": {"startLine": 15, "startColumn": 1, "endLine": 15, "endColumn": 1},
                    "insertedContent": {
                        "text": "# MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba "
                        "state cache)\n"
                    },
                },
                {
                    "deletedRegion": {"startLine": 26, "startColumn": 1, "endLine": 27, "endColumn": 1},
                    "insertedContent": {"text": ""},
                },
            ],
        }
    ]
    assert fix["description"]["text"].startswith("Move the comment at launch_mtp.sh line 26 above")


def _fingerprints(out: str) -> list[str]:
    return [r["partialFingerprints"]["argtrace/v1"] for r in json.loads(out)["runs"][0]["results"]]


def test_fingerprints_stable_across_runs_and_line_shifts(tmp_path: Path) -> None:
    _, first = _example(tmp_path, fmt="sarif")
    _, second = _example(tmp_path, fmt="sarif")
    assert _fingerprints(first) == _fingerprints(second)
    assert len(set(_fingerprints(first))) == len(EXPECTED)
    # Two comment lines above everything: every line number moves, no fingerprint does.
    shifted = tmp_path / "shifted"
    shifted.mkdir()
    lines = EXAMPLE.read_text().splitlines(keepends=True)
    (shifted / "launch_mtp.sh").write_text(lines[0] + "# one\n# two\n" + "".join(lines[1:]))
    moved = run_cli(["check", "--format", "sarif", *FAST, "launch_mtp.sh"], cwd=shifted).stdout
    results = json.loads(moved)["runs"][0]["results"]
    regions = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results]
    assert regions == [line + 2 for _, _, line, _ in EXPECTED]
    assert _fingerprints(moved) == _fingerprints(first)


def test_sarif_fixes_from_verified_edits_only(tmp_path: Path) -> None:
    from argtrace.render.sarif import to_sarif

    (tmp_path / "launch.sh").write_text("#!/bin/bash\npython -m sglang.launch_server --port $PORT\n")
    finding = {
        "code": "SH026",
        "severity": "warning",
        "layer": "shell",
        "setting": None,
        "message": "`$PORT` is empty",
        "at": "launch.sh:2:44",
        "fix": "quote it",
        "evidence": [],
        "fix_edits": [{"file": "launch.sh", "start": "2:44", "end": "2:49", "replacement": '"$PORT"'}],
        "fix_verified": True,
    }
    unverified = {**finding, "fix_verified": None, "message": "other"}
    data = {"findings": [finding, unverified], "inputs": ["launch.sh"]}
    import os

    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        log = to_sarif(data)
    finally:
        os.chdir(old)
    validate_sarif(log)
    verified, other = log["runs"][0]["results"]
    assert verified["fixes"] == [
        {
            "description": {"text": "quote it"},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "launch.sh"},
                    "replacements": [
                        {
                            "deletedRegion": {
                                "startLine": 2,
                                "startColumn": 44,
                                "endLine": 2,
                                "endColumn": 49,
                            },
                            "insertedContent": {"text": '"$PORT"'},
                        }
                    ],
                }
            ],
        }
    ]
    assert "fixes" not in other


def test_github_workflow_commands(tmp_path: Path) -> None:
    status, out = _example(tmp_path, fmt="github")
    assert status == 1
    lines = out.splitlines()
    assert [line.split("::")[1] for line in lines] == [
        "error file=launch_mtp.sh,line=27,col=5,title=SH004",
        "warning file=launch_mtp.sh,line=19,col=12,title=SH026",
        "notice file=launch_mtp.sh,line=15,col=1,title=PR011",
        "warning file=launch_mtp.sh,line=12,col=8,title=PR006",
        "notice file=launch_mtp.sh,line=27,col=5,title=PA005",
    ]
    assert lines[3] == (
        "::warning file=launch_mtp.sh,line=12,col=8,title=PR006::CUDA_VISIBLE_DEVICES is set but empty: the "
        "server sees no GPU at all%0AFix: list distinct GPU indices (or UUIDs), e.g. CUDA_VISIBLE_DEVICES=0,1"
    )


def test_github_escapes_cannot_end_the_command() -> None:
    from argtrace.render.github import render_github

    finding = {"code": "X,1", "severity": "info", "message": "50% done\r\n::error::fake", "at": None}
    data = {"findings": [finding]}
    assert render_github(data) == "::notice title=X%2C1::50%25 done%0D%0A::error::fake\n"


def test_gcc_lines(tmp_path: Path) -> None:
    _, out = _example(tmp_path, fmt="gcc")
    lines = out.splitlines()
    assert len(lines) == len(EXPECTED)
    assert lines[3] == (
        "launch_mtp.sh:12:8: warning: CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all "
        "[PR006]"
    )
    assert lines[1] == (
        "launch_mtp.sh:19:12: warning: `$PORT` is empty, so the unquoted word vanishes: `--port` takes "
        "`--tp-size` as its value [SH026]"
    )
    assert [line.split(": ")[1] for line in lines] == ["error", "warning", "note", "warning", "note"]


def test_junit_one_case_per_file_and_rule(tmp_path: Path) -> None:
    _, out = _example(tmp_path, fmt="junit")
    root = ET.fromstring(out)
    assert (root.tag, root.get("tests"), root.get("failures")) == ("testsuites", str(len(EXPECTED)), "3")
    cases = root.findall("./testsuite/testcase")
    assert [(c.get("classname"), c.get("name")) for c in cases] == [
        ("launch_mtp.sh", code) for code in ("PA005", "PR006", "PR011", "SH004", "SH026")
    ]
    pr006 = cases[1].find("failure")
    assert pr006 is not None
    assert pr006.get("message") == "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all"
    assert pr006.text == (
        "launch_mtp.sh:12:8: warning: CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all\n"
        "  fix: list distinct GPU indices (or UUIDs), e.g. CUDA_VISIBLE_DEVICES=0,1"
    )
    assert cases[0].find("failure") is None and cases[0].find("system-out") is not None


def test_json_lines_are_the_json_findings_plus_place(tmp_path: Path) -> None:
    _, out = _example(tmp_path, fmt="json-lines")
    _, full = _example(tmp_path, fmt="json")
    records = [json.loads(line) for line in out.splitlines()]
    findings = json.loads(full)["findings"]
    assert len(records) == len(findings) == len(EXPECTED)
    for record, finding in zip(records, findings, strict=True):
        extra = {k: record.pop(k) for k in ("file", "line", "col", "fingerprint")}
        assert record == finding
        assert extra["file"] == "launch_mtp.sh"
    _, sarif = _example(tmp_path, fmt="sarif")
    assert [json.loads(line)["fingerprint"] for line in out.splitlines()] == _fingerprints(sarif)


def test_finding_without_a_file_is_attached_to_the_checked_file(tmp_path: Path) -> None:
    from argtrace.render.places import finding_place

    (tmp_path / "launch.sh").write_text("x\n")
    import os

    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        url = finding_place({"at": "http://127.0.0.1:30000/server_info#/tp_size"}, "launch.sh")
        framework = finding_place({"at": "sglang/srt/server_args.py:812"}, "launch.sh")
        here = finding_place({"at": "launch.sh:1"}, None)
        outside = finding_place({"at": None}, "/etc/hostname")
    finally:
        os.chdir(old)
    assert (url.uri, url.line) == ("launch.sh", None)
    assert (framework.uri, framework.line) == ("launch.sh", None)
    assert (here.uri, here.line, here.col) == ("launch.sh", 1, None)
    assert outside.uri == "file:///etc/hostname"


def test_sarif_of_a_command_string_has_results_without_locations() -> None:
    result = run_cli(
        ["check", "--format", "sarif", *FAST, "-c", "python3 -m sglang.launch_server --tp-szie 2"]
    )
    log = json.loads(result.stdout)
    validate_sarif(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["PR011", "PA001", "PA020"]
    assert all("locations" not in r for r in results)  # `<-c>` is no file a CI system can annotate
    assert results[1]["properties"]["at"].startswith("<-c>:1:")
