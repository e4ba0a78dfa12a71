"""The first screen's notes (``render/screen.py``): a repeated note is told once, the first ``info`` cause
of a code, then one line naming the others (``repeated_notes``, ``more_line``; errors and warnings are each
told); shellcheck's notes come after argtrace's own (``shellcheck_note``)."""

from __future__ import annotations

from argtrace.model import Finding
from argtrace.render import render_report
from argtrace.render.screen import diagnosis_order, more_line, repeated_notes
from tests.conftest import run_cli
from tests.test_render import sample_report


def _diagnosis(text: str) -> list[str]:
    lines = text.splitlines()
    end = next(n for n, line in enumerate(lines) if line.startswith("Server "))
    return lines[1:end]  # from the counts line to the first server


def test_two_servers_with_one_abbreviation_give_one_headline_and_a_line_naming_the_other() -> None:
    script = (
        "python3 -m sglang.launch_server --model-path /m --tp 2 --port 30000 &\n"
        "python3 -m sglang.launch_server --model-path /m --tp 2 --port 30001\n"
    )
    result = run_cli(["check", "--framework-version", "0.5.23", "-c", script])
    diagnosis = _diagnosis(result.stdout)
    assert [line for line in diagnosis if line.startswith("INFO PA007")] == [
        "INFO PA007 <-c>:1:49 --tp is not a sglang 0.5.23 flag: argparse silently takes it as an…"
    ]
    assert "  + 1 more PA007 (Details): line 2" in diagnosis
    # Details still tell both in full
    details = result.stdout.split("\nDetails\n", 1)[1]
    assert details.count("PA007 [parser] <-c>:") == 2


def _note(code: str, message: str, at: str | None, severity: str = "info") -> Finding:
    return Finding(code, severity, "resolution", message, at=at)


def test_notes_of_one_code_are_named_by_the_variable_their_message_names_first() -> None:
    report = sample_report()
    report.findings = [
        _note("RS006", f"{name}: None -> '0' by handle_environment_variables (hook.py:{n})", f"hook.py:{n}")
        for n, name in enumerate(("SGLANG_A", "SGLANG_B", "SGLANG_C"), start=1)
    ]
    assert _diagnosis(render_report(report, fmt="text")) == [
        "Diagnosis: 3 info",
        "INFO RS006 hook.py:1 SGLANG_A: None -> '0' by handle_environment_variables (hook.py:1)",
        "  + 2 more RS006 (Details): SGLANG_B, SGLANG_C",
    ]


def test_errors_and_warnings_are_each_told_and_notes_about_the_reach_are_not_grouped() -> None:
    findings = [
        {"code": "PA001", "severity": "error", "at": "a.sh:1:1", "message": "x"},
        {"code": "PA001", "severity": "error", "at": "a.sh:2:1", "message": "y"},
        {"code": "PR011", "severity": "info", "at": "a.sh:1:1", "message": "release"},
        {"code": "PR011", "severity": "info", "at": "a.sh:2:1", "message": "release"},
        {"code": "SC2086", "severity": "info", "at": "a.sh:3:5", "message": "shellcheck: Double quote"},
        {"code": "SC2086", "severity": "info", "at": "b.sh:4:5", "message": "shellcheck: Double quote"},
        # an info cause whose consequence is a warning ranks as a warning: told in full
        {
            "code": "SC2086",
            "severity": "info",
            "at": "a.sh:9:1",
            "message": "z",
            "consequences": [{"code": "PA002", "severity": "warning"}],
        },
    ]
    order = list(range(len(findings)))
    assert repeated_notes(findings, order) == {4: [5]}
    # another file's place is named whole ("shellcheck" is a tool, not a subject)
    assert more_line(findings[4], [findings[5]], 100).plain == "  + 1 more SC2086 (Details): b.sh:4:5"


def test_shellcheck_notes_come_after_the_launchs_own_notes_and_before_the_notes_on_argtraces_reach() -> None:
    findings = [
        {"code": "SC2086", "severity": "info", "layer": "shell", "message": "shellcheck: Double quote"},
        {"code": "PR011", "severity": "info", "layer": "process", "message": "release"},
        {"code": "PA007", "severity": "info", "layer": "parser", "message": "--tp is not a flag"},
        {"code": "PA013", "severity": "info", "layer": "parser", "message": "x", "basis": "assumed"},
        # a shellcheck note a warning follows from ranks as that warning, first
        {
            "code": "SC2215",
            "severity": "info",
            "layer": "shell",
            "message": "shellcheck: This flag is used as a command name",
            "consequences": [{"code": "PA001", "severity": "warning"}],
        },
    ]
    assert [findings[i]["code"] for i in diagnosis_order(findings)] == [
        "SC2215",
        "PA007",
        "PA013",
        "SC2086",
        "PR011",
    ]
