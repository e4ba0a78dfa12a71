from __future__ import annotations

import json

from argtrace.model import (
    EnvValue,
    Finding,
    FrameworkInfo,
    Observation,
    Origin,
    ProcessInfo,
    Report,
    ServerCommand,
    Setting,
    Word,
)
from argtrace.render import render_report


def sample_report() -> Report:
    words = tuple(
        Word(t, Origin("launch.sh:5:1" if i < 3 else "launch.sh:6:5", "literal"))
        for i, t in enumerate(
            ["python3", "-m", "sglang.launch_server", "--mamba-scheduler-strategy", "extra_buffer"]
        )
    )
    server = ServerCommand(
        at="launch.sh:5:1",
        framework="sglang",
        argv=words,
        env={"CUDA_VISIBLE_DEVICES": EnvValue("0", Origin("launch.sh:2:8", "$1"))},
        server_args_start=3,
        entrypoint="sglang.launch_server",
        interpreter="python3",
    )
    report = Report(command="check", framework=FrameworkInfo("sglang", "0.5.10.post1", "bundled-schema"))
    report.servers = [server]
    report.process = ProcessInfo(
        argv=tuple(server.argv_text), env={"CUDA_VISIBLE_DEVICES": "0"}, at=server.at
    )
    report.settings = [
        Setting(
            "mamba_scheduler_strategy",
            "--mamba-scheduler-strategy",
            intended="extra_buffer",
            history=[
                Observation("shell", "extra_buffer", "launch.sh:6:32", detail={"expansion": "literal"}),
                Observation("parser", "extra_buffer", "launch.sh:5:1", by="--mamba-scheduler-strategy"),
                Observation(
                    "resolution", "no_buffer", "sglang/srt/server_args.py:967", by="f", detail={"old": "x"}
                ),
            ],
        )
    ]
    report.findings = [
        Finding(
            "RS001",
            "error",
            "resolution",
            "rewritten",
            at="launch.sh:6:5",
            setting="mamba_scheduler_strategy",
        )
    ]
    report.sections["resolution"] = {"status": "ok"}
    return report


def test_json_contract_shape() -> None:
    data = json.loads(render_report(sample_report(), fmt="json"))
    assert data["schema_version"] == 1
    assert data["framework"] == {"name": "sglang", "version": "0.5.10.post1", "source": "bundled-schema"}
    assert data["process"] == {
        "argv": ["python3", "-m", "sglang.launch_server", "--mamba-scheduler-strategy", "extra_buffer"],
        "env": {"CUDA_VISIBLE_DEVICES": "0"},
        "at": "launch.sh:5:1",
    }
    assert data["servers"][0]["at"] == "launch.sh:5:1"
    assert data["servers"][0]["framework"] == "sglang"
    assert data["servers"][0]["words"][4] == {
        "text": "extra_buffer",
        "at": "launch.sh:6:5",
        "expansion": "literal",
    }
    setting = data["settings"][0]
    assert setting["intended"] == "extra_buffer"
    assert setting["effective"] == "no_buffer"
    assert setting["history"][0] == {
        "layer": "shell",
        "value": "extra_buffer",
        "at": "launch.sh:6:32",
        "expansion": "literal",
    }
    assert setting["history"][2] == {
        "layer": "resolution",
        "value": "no_buffer",
        "at": "sglang/srt/server_args.py:967",
        "by": "f",
        "old": "x",
    }
    assert data["findings"][0] == {
        "code": "RS001",
        "severity": "error",
        "layer": "resolution",
        "setting": "mamba_scheduler_strategy",
        "message": "rewritten",
        "at": "launch.sh:6:5",
        "fix": None,
        "evidence": [],
        "fix_edits": [],
        "fix_verified": None,
        "basis": "framework-code",
    }
    assert data["resolution"] == {"status": "ok"}


def test_effective_is_null_when_the_framework_does_not_know_the_flag() -> None:
    s = Setting("x", "--x", "1", [Observation("shell", "1")], unknown_to_framework=True)
    assert s.effective is None


def test_text_report_opens_with_the_diagnosis_then_the_command_then_the_settings() -> None:
    text = render_report(sample_report(), fmt="text")
    assert text.splitlines() == [
        "argtrace check — sglang 0.5.10.post1 (bundled-schema)",
        "Diagnosis: 1 error",
        "ERROR RS001 launch.sh:6:5 rewritten",
        "Server 1 of 1 at launch.sh:5:1: sglang sglang.launch_server",
        "  python3 -m sglang.launch_server --mamba-scheduler-strategy extra_buffer",
        "  env: CUDA_VISIBLE_DEVICES=0",
        "Settings (1)",
        # the row: intended -> effective, the codes of its findings; where it changed under it
        "  --mamba-scheduler-strategy  extra_buffer -> no_buffer  (RS001)",
        "      resolution: extra_buffer -> no_buffer  sglang/srt/server_args.py:967 (f)",
        "resolution: ok",
        "  0 writes, 0 declarations recorded",
        "Details",
        "  #1   error   RS001 [resolution] launch.sh:6:5: rewritten",
        "1 error(s), 0 warning(s), 0 info",
    ]


def test_listing_commands_end_without_a_verdict_line() -> None:
    for command in ("resolver", "ps", "why"):
        report = sample_report()
        report.command = command
        report.findings = []
        assert "error(s)" not in render_report(report, fmt="text")


def test_people_read_long_values_cut_and_machines_get_them_whole() -> None:
    """A 5 MB image name (a fuzz case) was echoed whole: 4 MB of text report. The views people read cut
    every value at 10,000 characters and say so; JSON keeps the public contract whole."""
    long_value = "a" * 50_000
    report = sample_report()
    report.notes.append(long_value)

    text = render_report(report, fmt="text")
    unwrapped = text.replace("\n", "")  # rich wraps the note at the terminal's width
    assert f"note: {'a' * 10_000}… [40,000 more characters; --format json has the whole value]" in unwrapped
    assert len(text) < 20_000
    assert json.loads(render_report(report, fmt="json"))["notes"][-1] == long_value
    gcc = render_report(report, fmt="gcc")
    assert long_value not in gcc and len(gcc) < 20_000


def test_values_within_the_limit_are_shown_as_they_are() -> None:
    from argtrace.render.boundary import clipped, readable_data

    assert clipped("x" * 10_000) == "x" * 10_000
    assert clipped("x" * 10_001) == "x" * 10_000 + "… [1 more characters; --format json has the whole value]"
    assert readable_data({"k": ["y" * 3, {"z": "w" * 12}]}, longest=10) == {
        "k": ["yyy", {"z": "w" * 10 + "… [2 more characters; --format json has the whole value]"}]
    }
