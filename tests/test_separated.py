"""Flags cut off from the server command by a shell hazard stay on record as settings that never arrived."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CliResult, run_cli

HEAD = "#!/bin/bash\npython3 -m sglang.launch_server --model-path /m \\\n    --port 30000"


def check_json(path: Path, version: str) -> CliResult:
    """``argtrace check --format json`` of ``path``, analysed as SGLang ``version`` (no resolver)."""
    words = ["--no-resolve", "--no-shellcheck", "--framework-version", version, str(path)]
    return run_cli(["check", "--format", "json", *words])


def settings(tmp_path: Path, script: str) -> dict[str, dict]:  # type: ignore[type-arg]
    path = tmp_path / "launch.sh"
    path.write_text(script)
    result = check_json(path, "0.5.10.post1")
    assert result.status == 1, result.stderr
    return {s["name"]: s for s in result.json["settings"]}


@pytest.mark.parametrize(
    ("breakage", "line"),
    [
        ("\n", 4),  # missing backslash
        (" \\ \n", 4),  # blank after the backslash
        (" \\\n    # tuned for H100\n", 5),  # comment inside the continued command
    ],
)
def test_cut_off_flags_are_intended_but_never_arrive(tmp_path: Path, breakage: str, line: int) -> None:
    found = settings(tmp_path, HEAD + breakage + "    --chunked-prefill-size 4096 --disable-radix-cache\n")
    chunked = found["chunked_prefill_size"]
    assert (chunked["intended"], chunked["effective"]) == ("4096", None)
    assert [(o["layer"], o["value"]) for o in chunked["history"]] == [
        ("shell", "4096"),
        ("process", None),
        ("parser", None),
    ]
    assert chunked["history"][0]["at"] == f"{tmp_path / 'launch.sh'}:{line}:5"
    radix = found["disable_radix_cache"]
    assert (radix["intended"], radix["effective"]) == (True, False)
    assert found["port"]["effective"] == 30000


def test_a_flag_also_in_the_server_command_is_followed_by_the_parser_layer(tmp_path: Path) -> None:
    found = settings(tmp_path, HEAD + "\n    --port 30001\n")
    assert [o["layer"] for o in found["port"]["history"]] == ["shell", "process", "parser"]
    assert found["port"]["effective"] == 30000


def test_the_next_real_command_ends_the_run(tmp_path: Path) -> None:
    found = settings(tmp_path, HEAD + "\n    --tp-size 2\nsleep 5\n--dp-size 2\n")
    assert found["tp_size"]["intended"] == "2"
    assert "data_parallel_size" not in found


def test_what_the_parser_would_say_once_the_flags_arrive(tmp_path: Path) -> None:
    path = tmp_path / "launch.sh"
    path.write_text(HEAD + "\n    --mamba-scheduler-strategy extra_buffer\n")
    for version, expected in (("0.5.23", ["SH004", "PA003"]), ("0.5.10.post1", ["SH004", "PA024"])):
        result = check_json(path, version)
        findings = [f for f in result.json["findings"] if f["layer"] in ("shell", "parser")]
        assert [f["code"] for f in findings] == expected, version
    pa003 = findings_of(tmp_path, path, "0.5.23", "PA003")
    assert pa003["at"] == f"{path}:4:5"
    assert pa003["message"].startswith(
        "once these flags reach the server: --mamba-scheduler-strategy was accepted up to sglang 0.5.19 but "
        "sglang 0.5.23 does not know it"
    )


def findings_of(tmp_path: Path, path: Path, version: str, code: str) -> dict:  # type: ignore[type-arg]
    result = check_json(path, version)
    return next(f for f in result.json["findings"] if f["code"] == code)
