"""``argtrace check UNIT.service``: what systemd does to a server's words and environment (our own inputs).

Each rule of ``layers/transport/systemd.py`` on a minimal unit: the command line systemd refuses (TP060),
``$NAME`` inside a word (TP062), an unset variable (TP064), an ignored ``Environment=`` word (TP065), the
``:`` prefix, ``User=``, ``WorkingDirectory=`` with a specifier, an ``EnvironmentFile=`` not on this machine
(its variables unknown, not unset), and telling a unit from a script that writes one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argtrace.layers.transport.manifests import manifest_kind
from tests.conftest import run_cli


def check(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def transport(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (f["code"], f["severity"], f["at"], f["message"])
        for f in report["findings"]
        if f["code"].startswith("TP")
    ]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def test_dollar_name_inside_a_word_stays_literal(tmp_path: Path) -> None:
    report = check(tmp_path, "a.service", "[Service]\nExecStart=/opt/v/bin/vllm serve m --port=$PORT\n")
    assert transport(report) == [
        (
            "TP062",
            "error",
            "a.service:2",
            "`--port=$PORT`: systemd substitutes `$PORT` only as a word of its own, so the server gets the "
            "text `$PORT` literally (and PORT is set nowhere)",
        )
    ]
    assert words(report) == [["/opt/v/bin/vllm", "serve", "m", "--port=$PORT"]]


def test_unset_word_vanishes_and_the_flag_loses_its_value(tmp_path: Path) -> None:
    report = check(
        tmp_path, "b.service", "[Service]\nExecStart=/opt/v/bin/vllm serve m --port $PORT --dtype auto\n"
    )
    assert transport(report) == [
        (
            "TP064",
            "warning",
            "b.service:2",
            "`$PORT`: PORT is set nowhere in the unit, so systemd replaces the word with nothing",
        )
    ]
    assert next(f for f in report["findings"] if f["code"] == "TP064")["basis"] == "assumed"
    assert words(report) == [["/opt/v/bin/vllm", "serve", "m", "--port", "--dtype", "auto"]]


def test_environment_word_without_assignment_is_ignored(tmp_path: Path) -> None:
    unit = "[Service]\nEnvironment=VLLM_LOGGING_LEVEL=DEBUG INFO\nExecStart=/opt/v/bin/vllm serve m\n"
    report = check(tmp_path, "c.service", unit)
    assert transport(report) == [
        (
            "TP065",
            "warning",
            "c.service:2",
            "`VLLM_LOGGING_LEVEL=DEBUG INFO`: the blank ends VLLM_LOGGING_LEVEL's value, so "
            "VLLM_LOGGING_LEVEL gets `DEBUG`, and systemd ignores `INFO` "
            '("Invalid environment assignment, ignoring")',
        )
    ]
    (tp065,) = [f for f in report["findings"] if f["code"] == "TP065"]
    assert tp065["fix"] == 'Quote the whole assignment: `Environment="VLLM_LOGGING_LEVEL=DEBUG INFO"`.'
    assert report["transport"]["hops"][0]["environment"] == ["PATH", "VLLM_LOGGING_LEVEL"]


def test_two_exec_start_lines_in_a_simple_service(tmp_path: Path) -> None:
    unit = "[Service]\nExecStart=/opt/v/bin/vllm serve m\nExecStart=/opt/v/bin/vllm serve n\n"
    report = check(tmp_path, "d.service", unit)
    assert transport(report) == [
        (
            "TP060",
            "error",
            "d.service:3",
            '2 `ExecStart=` command lines in a `Type=simple` service: systemd refuses it ("Service has more '
            'than one ExecStart= setting, which is only allowed for Type=oneshot services. Refusing.")',
        )
    ]
    assert report["servers"] == []


def test_percent_sign_that_is_no_specifier(tmp_path: Path) -> None:
    unit = "[Service]\nExecStart=/opt/v/bin/vllm serve m --gpu-memory-utilization 90%2\n"
    report = check(tmp_path, "e.service", unit)
    assert transport(report) == [
        (
            "TP060",
            "error",
            "e.service:2",
            "systemd cannot read this `ExecStart=` (Failed to resolve unit specifiers in 90%2: Invalid slot "
            "(%2)): the unit has a fatal error and the service does not start",
        )
    ]


def test_line_ending_inside_quotes(tmp_path: Path) -> None:
    unit = '[Service]\nExecStart=/opt/v/bin/vllm serve m --chat-template "/opt/t.jinja\n  --port 8000\n'
    report = check(tmp_path, "f.service", unit)
    assert [(c, s, a) for c, s, a, _m in transport(report)] == [("TP060", "error", "f.service:2")]
    assert "Unbalanced quoting" in transport(report)[0][3]


def test_no_substitution_prefix_user_and_working_directory(tmp_path: Path) -> None:
    unit = (
        "[Service]\nUser=vllm\nWorkingDirectory=/srv/%N\n"
        "ExecStart=:/opt/v/bin/vllm serve ${MODEL} --port $PORT\n"
    )
    report = check(tmp_path, "vllm@a.service", unit)
    assert transport(report) == []  # ":" turns substitution off: the words are literal, nothing vanishes
    assert words(report) == [["/opt/v/bin/vllm", "serve", "${MODEL}", "--port", "$PORT"]]
    assert report["servers"][0]["cwd"] == "/srv/vllm@a"
    hop = report["transport"]["hops"][0]
    assert (hop["user"], hop["environment"]) == ("vllm", ["HOME", "LOGNAME", "PATH", "SHELL", "USER"])
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == ["PA010"]


def test_environment_file_not_here_makes_its_names_unknown(tmp_path: Path) -> None:
    unit = (
        "[Service]\nEnvironmentFile=/nonexistent-dir/vllm.env\n"
        "ExecStart=/opt/v/bin/vllm serve ${MODEL} --port ${PORT}\n"
    )
    report = check(tmp_path, "g.service", unit)
    assert transport(report) == []
    assert words(report) == [["/opt/v/bin/vllm", "serve", None, "--port", None]]
    assert report["transport"]["hops"][0]["env_files"] == [
        {
            "path": "/nonexistent-dir/vllm.env",
            "at": "g.service:2",
            "read": None,
            "variables": [],
            "problem": "no such file here",
        }
    ]


def test_environment_file_overrides_environment(tmp_path: Path) -> None:
    (tmp_path / "vllm.env").write_text("PORT=8001\n")
    unit = (
        f"[Service]\nEnvironment=PORT=8000\nEnvironmentFile={tmp_path}/vllm.env\n"
        "ExecStart=/opt/v/bin/vllm serve m --port $PORT\n"
    )
    report = check(tmp_path, "h.service", unit)
    assert words(report) == [["/opt/v/bin/vllm", "serve", "m", "--port", "8001"]]


def test_bash_c_script_goes_to_the_shell_layer(tmp_path: Path) -> None:
    unit = (
        "[Service]\nEnvironment=PORT=8000 VENV=/opt/v\n"
        "ExecStart=/bin/bash -c 'exec ${VENV}/bin/vllm serve m --port $PORT'\n"
    )
    report = check(tmp_path, "i.service", unit)
    assert transport(report) == []  # `$PORT` inside the script is the shell's to expand
    assert words(report) == [["/opt/v/bin/vllm", "serve", "m", "--port", "8000"]]


def test_a_script_that_writes_a_unit_is_still_a_script() -> None:
    script = b"#!/bin/bash\ncat > /etc/systemd/system/vllm.service <<EOF\n[Service]\nExecStart=/x\nEOF\n"
    assert manifest_kind(script) is None
    assert manifest_kind(b"# a unit\n[Unit]\nDescription=x\n\n[Service]\nExecStart=/x\n") == "systemd"
    assert manifest_kind(b"[Unit]\nDescription=no service section\n") is None


def test_bare_command_with_the_units_own_path(tmp_path: Path) -> None:
    unit = "[Service]\nEnvironment=PATH=/opt/venv/bin:/usr/bin\nExecStart=vllm serve m\n"
    report = check(tmp_path, "j.service", unit)
    assert transport(report) == [
        (
            "TP068",
            "warning",
            "j.service:3",
            "systemd looks `vllm` up in its fixed search path "
            "(/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin), not in the unit's "
            "PATH=/opt/venv/bin:/usr/bin: unless the node has `vllm` in one of those directories, the "
            "service fails with 203/EXEC",
        )
    ]
    fixed = check(tmp_path, "k.service", unit.replace("ExecStart=vllm", "ExecStart=/opt/venv/bin/vllm"))
    assert transport(fixed) == []


def test_lint_finds_units_and_tasks(tmp_path: Path) -> None:
    (tmp_path / "vllm.service").write_text("[Service]\nExecStart=/opt/v/bin/vllm serve m --port=$PORT\n")
    (tmp_path / "task.sky.yaml").write_text("resources:\n  accelerators: L4:1\nrun: |\n  vllm serve m\n")
    (tmp_path / "other.service").write_text("[Service]\nExecStart=/usr/bin/redis-server\n")  # no server
    result = run_cli(["lint", "--format", "json", "--no-resolve", "."], cwd=tmp_path)
    files = [(f["path"], f["kind"]) for f in result.json["lint"]["files"]]
    assert files == [("task.sky.yaml", "skypilot"), ("vllm.service", "systemd")]
