"""systemd-run in service mode hands its command to the manager as ``ExecStart=``, whose ``$NAME``/``${NAME}``
the manager substitutes from the service's environment (systemd-run(1); systemd/systemd#23631); ``--scope``
execs the command itself, ``--expand-environment=no`` (systemd 254) turns it off (our own inputs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import alarms, run_cli


def check(tmp_path: Path, line: str) -> dict[str, Any]:
    (tmp_path / "launch.sh").write_text("#!/bin/bash\n" + line + "\n")
    result = run_cli(["check", "--format", "json", "--no-resolve", "launch.sh"], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def test_setenv_values_fill_the_words_the_shell_left(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        "systemd-run --setenv=PORT=8001 -E LEN=4096 vllm serve m --port '${PORT}' --max-model-len '$LEN'",
    )
    assert words(report) == [
        [
            "systemd-run",
            "--setenv=PORT=8001",
            "-E",
            "LEN=4096",
            "vllm",
            "serve",
            "m",
            "--port",
            "8001",
            "--max-model-len",
            "4096",
        ]
    ]
    assert [f["code"] for f in alarms(report)] == []


def test_a_name_the_service_lacks(tmp_path: Path) -> None:
    report = check(tmp_path, "systemd-run vllm serve m --port '${PORT}'")
    assert [(f["severity"], f["code"]) for f in alarms(report)] == [
        ("warning", "SH049"),
        ("warning", "PA010"),
    ]
    sh049 = report["findings"][0]
    assert sh049["message"] == (
        "`${PORT}` reaches systemd-run as written, and the service manager substitutes it from the transient "
        "service's environment, where PORT is not set (systemd-run gives the service --setenv/-p "
        "Environment= values, not the caller's variables): `--port` gets an empty value"
    )
    assert [c["code"] for c in sh049["consequences"]] == ["PA010"]
    assert words(report) == [["systemd-run", "vllm", "serve", "m", "--port", ""]]


def test_scope_leaves_the_words(tmp_path: Path) -> None:
    # with --scope systemd-run execs the command itself: no manager substitutes anything
    report = check(tmp_path, "systemd-run --scope vllm serve m --served-model-name '$NAME'")
    assert words(report) == [["systemd-run", "--scope", "vllm", "serve", "m", "--served-model-name", "$NAME"]]
    assert "SH049" not in [f["code"] for f in report["findings"]]
