"""Newline counts by ``lines.Newlines`` and where the matcher path counts a plain log's lines (log36).

``Newlines`` counts a byte range by ``bytes.count`` or by ``len`` less the length of ``replace(b"\\n", b"")``
(a ``memchr`` loop: cheaper for lines longer than about 32 bytes), over the whole buffer less what lies
outside the range when that is small; every way must give ``bytes.count``'s number. ``acscan._Numbering``
counts every window as it passes when the log's mean line is at least ``WC_LINE`` bytes (no ``wc`` run, no
second reading), and leaves the quiet windows of a log of shorter lines to ``wc`` as before
(tests/log/test_numbering.py).
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log import acscan
from argtrace.layers.log.acscan import matcher
from argtrace.layers.log.lines import Newlines, Scan
from argtrace.layers.log.reader import _scan_stream


def _buffers(rng: random.Random) -> list[bytes]:
    out = []
    for density in (0.0, 0.002, 0.01, 0.05, 0.2, 0.9):
        size = rng.choice((0, 1, 100, 4095, 16 << 10, (16 << 10) + 7, 70_000, 200_000))
        out.append(bytes(10 if rng.random() < density else rng.randrange(32, 127) for _ in range(size)))
    return out


def test_every_way_gives_bytes_count() -> None:
    rng = random.Random(36)
    for _ in range(40):
        counter = Newlines()
        for data in _buffers(rng):
            for buf in (data, bytearray(data)):
                n = len(buf)
                ranges = [
                    (0, n),
                    (0, n // 2),
                    (n // 3, n),
                    (n // 10, n - n // 10),
                    (1, n - 1) if n > 1 else (0, 0),
                ]
                ranges += [tuple(sorted((rng.randrange(n + 1), rng.randrange(n + 1)))) for _ in range(4)]
                for start, end in ranges:
                    assert counter(buf, start, end) == buf.count(b"\n", start, end), (len(buf), start, end)


def test_the_loop_follows_the_lines() -> None:
    counter = Newlines()
    long_lines = (b"x" * 199 + b"\n") * 1000  # 200-byte lines: the memchr loop
    assert counter(long_lines, 0, len(long_lines)) == 1000 and not counter.dense
    short = b"ab\n" * 30_000  # 3-byte lines: bytes.count from the next range on
    assert counter(short, 0, len(short)) == 30_000 and counter.dense
    assert counter(short, 5, len(short) - 5) == short.count(b"\n", 5, len(short) - 5)
    assert counter(long_lines, 0, len(long_lines)) == 1000 and not counter.dense
    assert counter.bytes == 2 * len(long_lines) + 2 * len(short) - 10
    assert counter.newlines == 2000 + 30_000 + short.count(b"\n", 5, len(short) - 5)
    assert counter(b"a\nb", 0, 3) == 1  # a short range never changes the loop
    assert not counter.dense


pytestmark_matcher = pytest.mark.skipif(matcher() is None, reason="ahocorasick_rs is not installed")

ARGS = b"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1)\n"
WARN = b"[2026-11-29 22:00:00 TP0] WARNING: request 17 exceeds the limit\n"
TB = (
    b'[2026-11-29 23:59:58 TP0] Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n'
)
# a steady line of SGLang's length (245 bytes in the real-format logs), and one of 60 bytes
LONG = b"[2026-11-29 21:16:20 TP0] Decode batch, #running-req: 12, #token: 21020, token usage: 0.51, " + (
    b"cuda graph: True, gen throughput (token/s): 93.51, #queue-req: 0" + b" " * 88 + b"\n"
)
SHORT = b"[2026-11-29 21:16:20 TP0] Decode batch, #running-req: 12\n"


def _scan(path: Path, monkeypatch: pytest.MonkeyPatch, window: int) -> tuple[Any, list[int]]:
    asked: list[int] = []
    real = acscan._wc_lines

    def wc(p: Path, start: int, size: int) -> int | None:
        asked.append(start)
        return real(p, start, size)

    monkeypatch.setattr(acscan, "_WINDOW", window)
    monkeypatch.setattr(acscan, "_wc_lines", wc)
    scan = acscan.scan_with_matcher(path, "LOG", gz=path.suffix == ".gz")
    assert scan is not None
    return scan, asked


def _python_scan(data: bytes) -> Scan:
    import io

    out = Scan(path="LOG", size=len(data), gzip=False)
    _scan_stream(io.BytesIO(data), out)  # type: ignore[arg-type]
    return out


@pytestmark_matcher
@pytest.mark.parametrize("window", [4096, 977, 1 << 20])
@pytest.mark.parametrize("steady", [LONG, SHORT], ids=["long lines", "short lines"])
def test_long_lines_are_counted_as_they_pass(
    steady: bytes, window: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert len(LONG) == 245 and len(SHORT) == 57 and acscan._Numbering.WC_LINE == 96
    count = 12_000 if steady is LONG else 40_000  # about 2.9 and 2.3 MB: three 1 MB windows or more
    data = ARGS + steady * count + WARN + steady * count + TB
    path = tmp_path / "x.log"
    path.write_bytes(data)
    scan, asked = _scan(path, monkeypatch, window)
    numbers = [1, count + 2, 2 * count + 3, 2 * count + 5]
    assert [x.number for x in scan.lines] == numbers
    assert scan.total_lines == data.count(b"\n") == 2 * count + 5
    slow = _python_scan(data)
    assert [(x.number, x.text) for x in scan.lines] == [(x.number, x.text) for x in slow.lines]
    if steady is LONG:
        assert asked == []  # every window counted as it passed: no wc, no second reading
    elif window < 1 << 20:  # 57-byte lines: the quiet stretches before and after the warning left to wc
        assert len(asked) == 2 and asked[0] > asked[1] > 0
    else:  # as before: the one quiet 1 MB window after the start-up is read again (short, far from the end)
        assert asked == []
    gz = tmp_path / "x.log.gz"
    gz.write_bytes(gzip.compress(data, 1))
    scan, asked = _scan(gz, monkeypatch, window)
    assert asked == [] and [x.number for x in scan.lines] == numbers
    assert scan.total_lines == 2 * count + 5
