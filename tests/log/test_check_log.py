"""``check --log``: the hook the check orchestration calls (layers/log/check.py)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace

import pytest

from argtrace.layers.log.check import analyze_check_log
from argtrace.model import LayerResult, Report, ServerCommand, UsageError

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
SERVER = ServerCommand(
    at="launch_mtp.sh:5:1",
    framework="sglang",
    argv=(),
    env={},
    server_args_start=0,
    entrypoint="sglang.launch_server",
)


def options(**kw: object) -> SimpleNamespace:
    base: dict[str, object] = {"script": None, "log": None, "launched_after": None, "extra": {}}
    base.update(kw)
    return SimpleNamespace(**base)


def test_no_log_no_layer() -> None:
    assert analyze_check_log(SERVER, options(), Report(command="check"), []) == []


def test_intent_from_earlier_layers(tmp_path: Path) -> None:
    log = tmp_path / "sglang_mtp.log"
    log.write_bytes((LOGS / "sglang_pr25116_spec_no_buffer.log").read_bytes())
    earlier = [
        LayerResult(
            intended={"mamba_scheduler_strategy": "extra_buffer", "bogus": 1}, unknown_settings={"bogus"}
        )
    ]
    (result,) = analyze_check_log(SERVER, options(log=str(log)), Report(command="check"), earlier)
    assert [f.code for f in result.findings] == ["LG004", "LG001", "LG002"]
    assert result.findings[-1].setting == "mamba_scheduler_strategy"
    assert result.sections["log"]["path"] == str(log)


def test_script_newer_than_log_means_stale(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_bytes((LOGS / "sglang_0.5.4_issue12726_timeline.log").read_bytes())
    script = tmp_path / "launch_mtp.sh"
    script.write_text("python3 -m sglang.launch_server --model-path /m\n")
    os.utime(log, (datetime(2025, 11, 6, 1, 23).timestamp(),) * 2)
    os.utime(script, (datetime(2025, 11, 7, 9, 0).timestamp(),) * 2)
    report = Report(command="check")
    (result,) = analyze_check_log(SERVER, options(log=str(log), script=str(script)), report, [])
    stale = [f for f in result.findings if f.code == "LG009"]
    assert len(stale) == 1
    assert f"before the last change to {script} (2025-11-07 09:00:00)" in stale[0].message
    assert report.notes and "reported as stale" in report.notes[0]


def test_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        analyze_check_log(SERVER, options(log=str(tmp_path / "missing.log")), Report(command="check"), [])
    log = tmp_path / "x.log"
    log.write_text("")
    with pytest.raises(UsageError):
        analyze_check_log(SERVER, options(log=str(log), launched_after="soon"), Report(command="check"), [])


def _parser_saw(value: str) -> LayerResult:
    from argtrace.model import Observation

    return LayerResult(
        intended={"mamba_scheduler_strategy": "extra_buffer"},
        observations={
            "mamba_scheduler_strategy": (
                "--mamba-scheduler-strategy",
                [Observation(layer="shell", value="extra_buffer"), Observation(layer="parser", value=value)],
            )
        },
    )


@pytest.mark.parametrize(
    ("parser_value", "verdict"),
    [
        ("extra_buffer", "the parser layer has 'extra_buffer', so it arrived and the framework changed it"),
        ("no_buffer", "the flag did not arrive as written: the parser layer already has 'no_buffer'"),
    ],
)
def test_verdict_uses_the_earlier_layers(parser_value: str, verdict: str, tmp_path: Path) -> None:
    log = tmp_path / "sglang_mtp.log"
    log.write_bytes((LOGS / "sglang_pr25116_spec_no_buffer.log").read_bytes())
    (result,) = analyze_check_log(
        SERVER, options(log=str(log)), Report(command="check"), [_parser_saw(parser_value)]
    )
    (lg002,) = [f for f in result.findings if f.code == "LG002"]
    assert verdict in lg002.message
