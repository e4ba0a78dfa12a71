"""Bad and big input: empty, binary, invalid UTF-8, a 50 MB line, gzip, chunk boundaries, parallel scan."""

from __future__ import annotations

import gzip
import os
import random
from pathlib import Path

import pytest

from argtrace.layers.log import analyze_log, reader
from argtrace.layers.log.analyze import _trim_traceback
from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.reader import scan_log

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
DECODE = (
    b"[2026-11-29 21:16:20 TP0] Decode batch. #running-req: 12, #token: 21020, token usage: 0.51, "
    b"cuda graph: True, gen throughput (token/s): 93.51, #queue-req: 0\n"
)
PREFILL = (
    b"[2026-11-29 21:16:21 TP0] Prefill batch. #new-seq: 1, #new-token: 812, #cached-token: 0, "
    b"token usage: 0.03, #running-req: 3, #queue-req: 0\n"
)
HTTP = b'[2026-11-29 21:16:21] INFO:     127.0.0.1:40418 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
ARGS = (
    b"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1, "
    b"mamba_scheduler_strategy='extra_buffer', api_key='sk-proj-abcdefghijklmnopqrstuvwxyz012345')\n"
)


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.log"
    path.write_bytes(b"")
    r = analyze_log(path, "empty.log")
    assert [f.code for f in r.findings] == ["LG012"]
    assert r.findings[0].message == "empty.log is empty: it cannot say what the server saw."
    assert r.sections["log"]["lines"] == 0 and r.sections["log"]["launch_count"] == 0


def test_binary_garbage(tmp_path: Path) -> None:
    rnd = random.Random(7)
    path = tmp_path / "core.bin"
    path.write_bytes(bytes(rnd.randrange(256) for _ in range(200_000)) + b"\x00" * 5000)
    r = analyze_log(path, "core.bin", launch="all")
    assert "LG012" in [f.code for f in r.findings]
    assert r.sections["log"]["scan"]["binary"] is True


def test_not_a_server_log(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello\nworld\n")
    r = analyze_log(path, "notes.txt")
    assert [f.message for f in r.findings] == [
        "notes.txt has 2 line(s) but none from an SGLang or vLLM server: it cannot say what the server saw."
    ]


def test_invalid_utf8_inside_args_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.log"
    path.write_bytes(
        b"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m/caf\xe9', tp_size=2, port=30000)\n"
    )
    r = analyze_log(path, "LOG")
    args = r.sections["log"]["args"]
    assert args == {"model_path": "/m/caf\ufffd", "tp_size": 2, "port": 30000}


def test_fifty_megabyte_line(tmp_path: Path) -> None:
    path = tmp_path / "long.log"
    with path.open("wb") as fh:
        fh.write(b"x" * (50 << 20))
        fh.write(b"\n")
        fh.write(ARGS)
    r = analyze_log(path, "LOG")
    assert r.sections["log"]["lines"] == 2
    assert r.sections["log"]["scan"]["long_lines"] == [1]
    assert r.sections["log"]["launches"][0]["args_at"] == "LOG:2"


def test_no_trailing_newline_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "crlf.log"
    path.write_bytes(
        ARGS.replace(b"\n", b"\r\n") + b"[2026-11-29 21:15:06] The server is fired up and ready to roll!"
    )
    r = analyze_log(path, "LOG")
    assert r.sections["log"]["lines"] == 2
    assert r.sections["log"]["scan"]["ends_with_newline"] is False
    assert r.sections["log"]["launches"][0]["state"] == "ready"
    assert r.sections["log"]["args"]["tp_size"] == 1


def test_gzip_is_read_transparently(tmp_path: Path) -> None:
    src = LOGS / "vllm_0.20_qwen36_mtp.log"
    gz = tmp_path / "vllm.log.gz"
    gz.write_bytes(gzip.compress(src.read_bytes()))
    plain = analyze_log(src, "LOG")
    packed = analyze_log(gz, "LOG")
    assert packed.sections["log"]["gzip"] is True
    assert packed.sections["timeline"] == plain.sections["timeline"]
    assert [f.code for f in packed.findings] == [f.code for f in plain.findings]


def test_traceback_across_chunk_boundary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "CHUNK", 1 << 20)
    path = tmp_path / "boundary.log"
    n = ((1 << 20) - 300) // len(DECODE)
    tb = (
        b"[2026-11-29 21:17:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        + b'  File "/sgl/srt/managers/scheduler.py", line 1, in run_scheduler_process\n' * 40
        + b"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
    )
    path.write_bytes(ARGS + DECODE * n + tb + DECODE * 10)
    scan = scan_log(path)
    tb_lines = [line for line in scan.lines if line.block is not None]
    assert [line.number for line in tb_lines] == [n + 2]
    assert tb_lines[0].block is not None and tb_lines[0].block[40] == (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
    )
    r = analyze_log(path, "LOG")
    assert r.sections["log"]["launches"][0]["error"]["at"] == f"LOG:{n + 43}"
    assert r.sections["log"]["launches"][0]["error"]["signature"] == "sglang-not-enough-memory"


@pytest.mark.slow
def test_parallel_scan_equals_single_scan(tmp_path: Path) -> None:
    """A big synthetic log (generated here, never committed) scanned by 1 and by 2 processes."""
    path = tmp_path / "big.log"
    block = (DECODE * 30 + PREFILL * 3 + HTTP * 3) * 200
    with path.open("wb") as fh:
        for i in range(int((70 << 20) / len(block)) + 1):
            if i % 97 == 0:
                fh.write(ARGS)
                fh.write(
                    b"[2026-11-29 21:14:42 TP0] KV Cache is allocated. #tokens: 412160, K size: 9.43 GB\n"
                )
            fh.write(block)
            if i == 150:
                fh.write(
                    b"Traceback (most recent call last):\n  File \"x.py\", line 1, in f\nKeyError: 'k'\n"
                )
    assert os.path.getsize(path) >= reader.PARALLEL_MIN
    one = scan_log(path, workers=1, prefilter=False)
    two = scan_log(path, workers=2, prefilter=False)
    assert one.total_lines == two.total_lines
    assert [(x.number, x.text, x.block) for x in one.lines] == [
        (x.number, x.text, x.block) for x in two.lines
    ]
    assert one.skipped_blocks > 100 * one.searched_blocks
    if gnu_grep() is not None:
        fast = scan_log(path)
        assert fast.total_lines == one.total_lines
        assert [(x.number, x.text, x.block) for x in fast.lines] == [
            (x.number, x.text, x.block) for x in one.lines
        ]
    with path.open("rb") as fh:
        assert one.total_lines == sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 24), b""))
    r = analyze_log(path, "LOG", launch="all")
    assert r.sections["log"]["launch_count"] == len([x for x in one.lines if "server_args=" in x.text])


EDGE_FILES = {
    "no_newline_at_end": ARGS
    + DECODE * 5
    + b"[2026-11-29 21:15:06] The server is fired up and ready to roll!",
    "boring_tail": ARGS + DECODE * 50,
    "boring_head": DECODE * 50 + ARGS,
    "only_boring": DECODE * 20,
    "traceback_at_end": ARGS
    + DECODE * 3
    + b'Traceback (most recent call last):\n  File "x", line 1\nKeyError: 1\n',
    "long_line": b"y" * (3 << 20) + b" Error in a long line\n" + ARGS,
    "crlf": ARGS.replace(b"\n", b"\r\n") + HTTP.replace(b"\n", b"\r\n"),
}


@pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")
@pytest.mark.parametrize("name", sorted(EDGE_FILES) + sorted(p.name for p in LOGS.glob("*.log")))
def test_grep_prefilter_equals_python_scan(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reader, "PARALLEL_MIN", 0)
    if name in EDGE_FILES:
        path = tmp_path / name
        path.write_bytes(EDGE_FILES[name])
    else:
        path = LOGS / name
    slow = scan_log(path, workers=1, prefilter=False)
    fast = scan_log(path)
    assert fast.searched_blocks == 1 and fast.skipped_blocks == 0  # it really went through grep
    assert fast.total_lines == slow.total_lines
    assert fast.ends_with_newline == slow.ends_with_newline
    assert fast.last_line == slow.last_line
    assert fast.long_lines == slow.long_lines
    assert [(x.number, x.text, _tb(x.block), x.truncated) for x in fast.lines] == [
        (x.number, x.text, _tb(x.block), x.truncated) for x in slow.lines
    ]


def _tb(block: list[str] | None) -> list[str] | None:
    return None if block is None else _trim_traceback(block)


@pytest.mark.parametrize("prefilter", [False, True])
def test_nul_hole_from_truncation_while_open(
    prefilter: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if prefilter and gnu_grep() is None:
        pytest.skip("needs GNU grep")
    monkeypatch.setattr(reader, "PARALLEL_MIN", 0 if prefilter else 1 << 40)
    path = tmp_path / "sglang_mtp.log"
    path.write_bytes(b"\x00" * 70000 + DECODE * 3)
    r = analyze_log(path, "LOG")
    assert r.sections["log"]["scan"]["leading_nuls"] == 70000
    assert r.sections["log"]["scan"]["binary"] is False
    assert [f.code for f in r.findings] == ["LG012", "LG010"]
    assert r.findings[1].message.startswith("LOG starts with 70000 NUL byte(s)")
