"""Logs that are not plain files, paths no file can have, and a gzip log that stops early: a one-line usage
error (exit 2) or a finding, never a hang and never a traceback."""

from __future__ import annotations

import gzip
import json
import os
import signal
import socket
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from argtrace.layers.log import analyze_log
from argtrace.layers.log.reader import scan_log
from tests.conftest import run_cli

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
SRC = LOGS / "vllm_0.20_qwen36_mtp.log"
SCRIPT = "python3 -m sglang.launch_server --model-path /m --port 30000\n"


@pytest.fixture(autouse=True)
def no_hang() -> Iterator[None]:
    """Opening a FIFO for reading blocks until a writer comes: fail after 20 s instead of hanging."""

    def fail(signum: int, frame: object) -> None:
        raise TimeoutError("blocked for 20 s")

    previous = signal.signal(signal.SIGALRM, fail)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def _special(tmp_path: Path, kind: str) -> tuple[str, str]:
    """A path of that kind and the words argtrace uses for it."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "server.log")
        return "server.log", "is a named pipe (FIFO)"
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(tmp_path / "server.log"))
        return "server.log", "is a socket"
    if kind == "device":
        return "/dev/zero", "is a character device"
    (tmp_path / "logs").mkdir()
    return "logs", "is a directory"


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "directory"])
def test_log_command_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path, what = _special(tmp_path, kind)
    result = run_cli(["log", path], cwd=tmp_path)
    assert (result.status, result.stdout, result.stderr) == (
        2,
        "",
        f"argtrace log: {path}: {what}, not a log file\n",
    )


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "directory"])
def test_check_log_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path, what = _special(tmp_path, kind)
    (tmp_path / "launch.sh").write_text(SCRIPT)
    result = run_cli(["check", "--no-shellcheck", "--log", path, "launch.sh"], cwd=tmp_path)
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr == f"argtrace check: --log {path}: {what}, not a log file\n"


@pytest.mark.parametrize("kind", ["fifo", "socket", "device", "directory"])
def test_check_script_refuses_what_is_not_a_regular_file(tmp_path: Path, kind: str) -> None:
    path, what = _special(tmp_path, kind)
    result = run_cli(["check", "--no-shellcheck", path], cwd=tmp_path)
    assert (result.status, result.stdout) == (2, "")
    assert result.stderr == f"argtrace check: {path}: {what}, not a launch script\n"


def test_scan_log_itself_never_opens_a_fifo(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "server.log")
    with pytest.raises(OSError, match="not a regular file"):
        scan_log(tmp_path / "server.log")


def test_path_component_too_long(tmp_path: Path) -> None:
    long = "/tmp/" + "a" * 300 + "/server.log"
    result = run_cli(["log", long])
    assert (result.status, result.stderr) == (2, f"argtrace log: {long}: file name too long\n")
    (tmp_path / "launch.sh").write_text(SCRIPT)
    result = run_cli(["check", "--no-shellcheck", "--log", long, "launch.sh"], cwd=tmp_path)
    assert (result.status, result.stderr) == (2, f"argtrace check: --log {long}: file name too long\n")
    result = run_cli(["check", "--no-shellcheck", long])
    assert (result.status, result.stderr) == (2, f"argtrace check: {long}: file name too long\n")


def _truncated_gz(tmp_path: Path) -> tuple[Path, int]:
    data = gzip.compress(SRC.read_bytes())
    path = tmp_path / "server.log.gz"
    path.write_bytes(data[: len(data) // 2])
    # What a complete decompression of that half gives: the lines that must still be analysed.
    partial = zlib.decompressobj(zlib.MAX_WBITS | 16).decompress(data[: len(data) // 2])
    return path, partial.count(b"\n")


def test_truncated_gzip_is_analysed_up_to_the_break(tmp_path: Path) -> None:
    path, lines = _truncated_gz(tmp_path)
    result = analyze_log(path, "LOG")
    assert result.sections["log"]["scan"]["gzip_problem"] == (
        "the gzip stream ends before its end marker: the file is truncated (cut short, or still being "
        "written)"
    )
    assert result.sections["log"]["lines"] in (lines, lines + 1)  # + the partial last line
    assert result.sections["log"]["framework"] == "vllm"
    cut = [f for f in result.findings if f.code == "LG010" and "gzip" in f.message]
    assert [f.message for f in cut] == [
        "LOG: the gzip stream ends before its end marker: the file is truncated (cut short, or still being "
        f"written); the {result.sections['log']['lines']} line(s) before the break were analysed, anything "
        "after it is unknown."
    ]


def test_truncated_gzip_through_the_cli(tmp_path: Path) -> None:
    path, _ = _truncated_gz(tmp_path)
    result = run_cli(["log", str(path), "--format", "json"])
    assert result.status in (0, 1) and result.stderr == ""
    assert "LG010" in [f["code"] for f in json.loads(result.stdout)["findings"]]


def test_corrupt_and_concatenated_gzip(tmp_path: Path) -> None:
    one = gzip.compress(SRC.read_bytes())
    both = tmp_path / "both.log.gz"
    both.write_bytes(one + one + b"\x00" * 16)  # two members and zero padding: a complete file
    plain = analyze_log(SRC, "LOG")
    packed = analyze_log(both, "LOG")
    assert packed.sections["log"]["scan"]["gzip_problem"] is None
    assert packed.sections["log"]["lines"] == 2 * plain.sections["log"]["lines"]
    garbage = tmp_path / "garbage.log.gz"
    garbage.write_bytes(one + b"not gzip at all")
    result = analyze_log(garbage, "LOG")
    assert result.sections["log"]["scan"]["gzip_problem"] == (
        "corrupt gzip data (Error -3 while decompressing data: incorrect header check)"
    )
    assert result.sections["log"]["lines"] == plain.sections["log"]["lines"]
