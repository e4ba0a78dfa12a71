"""Line numbers of the matcher path when windows without an anchor are not counted as they pass (issue 18).

``acscan._Numbering`` counts the stretches of uncounted windows afterwards, from the last to the first: by
reading a stretch again, or by ``wc -l -c`` from its start to the end of the file less the newlines known to
follow it. These tests build logs whose anchor lines sit at known line numbers (at the start, in the middle,
at the end, straddling a window boundary, with CRLF line ends, without a final newline) and check the exact
numbers, the line count and which way each stretch was counted; with ``wc``, without it, and with a ``wc``
whose byte count says the file changed.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log import acscan
from argtrace.layers.log.acscan import matcher

pytestmark = pytest.mark.skipif(matcher() is None, reason="ahocorasick_rs is not installed")

STEADY = b"[2026-11-29 21:16:20 TP0] Decode batch, #running-req: 12, #token: 21020, token usage: 0.51\n"
ARGS = b"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1)\n"
WARN = b"[2026-11-29 22:00:00 TP0] WARNING: request 17 exceeds the limit\n"
TB = (
    b'[2026-11-29 23:59:58 TP0] Traceback (most recent call last):\n  File "x.py", line 1\nValueError: boom\n'
)


def _log(steady: int, *, eol: bytes = b"\n", last_newline: bool = True) -> bytes:
    """ARGS on line 1, WARN on line steady + 2, TB's three lines from 2 * steady + 3 (ValueError on + 2)."""
    data = ARGS + STEADY * steady + WARN + STEADY * steady + TB
    data = data.replace(b"\n", eol)
    return data if last_newline else data[: -len(eol)]


def _scan(path: Path, monkeypatch: pytest.MonkeyPatch, window: int) -> tuple[Any, list[int]]:
    """The matcher's scan with ``window``-byte windows, and the offsets wc was asked to count from."""
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


@pytest.mark.parametrize("window", [4096, 977, 1 << 20])
def test_numbers_at_the_start_middle_and_end(
    window: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(_log(2000))
    scan, asked = _scan(path, monkeypatch, window)
    assert [(x.number, x.text[:40]) for x in scan.lines] == [
        (1, ARGS[:40].decode()),
        (2002, WARN[:40].decode()),
        (4003, TB[:40].decode()),
        (4005, "ValueError: boom"),
    ]
    assert scan.total_lines == 4005
    assert scan.lines[2].block == ['  File "x.py", line 1', "ValueError: boom", ""]  # as the Python scan
    if window == 1 << 20:  # one window (the log is 370 kB): counted as it passed
        assert asked == []
    else:  # two stretches: each from its start by wc (cheaper than reading it again)
        assert len(asked) == 2 and asked[0] > asked[1] > 0


def test_crlf_and_no_final_newline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(_log(1500, eol=b"\r\n", last_newline=False))
    scan, _ = _scan(path, monkeypatch, 4096)
    assert [x.number for x in scan.lines] == [1, 1502, 3003, 3005]
    assert scan.lines[-1].text == "ValueError: boom"  # the \r is dropped
    assert (scan.total_lines, scan.ends_with_newline, scan.last_line) == (3005, False, "ValueError: boom")


def test_a_hit_straddling_every_window_boundary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # WARN's anchor ("exceeds") starts at each offset around a 4 KiB boundary in turn, after 300 lines.
    for shift in range(-70, 10, 7):
        body = STEADY * 300
        pad = 3 * 4096 - len(ARGS) - len(body) - 40 + shift
        data = ARGS + body + b"p" * pad + b"\n" + WARN + STEADY * 400 + TB
        path = tmp_path / f"shift{shift}.log"
        path.write_bytes(data)
        scan, _ = _scan(path, monkeypatch, 4096)
        assert [x.number for x in scan.lines] == [1, 303, 704, 706], shift
        assert scan.total_lines == data.count(b"\n")


def test_without_wc_every_stretch_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(_log(2000))
    monkeypatch.setenv("PATH", str(tmp_path))  # no wc on the path
    scan, asked = _scan(path, monkeypatch, 4096)
    assert len(asked) == 2  # asked, and it said None: counted by reading again
    assert [x.number for x in scan.lines] == [1, 2002, 4003, 4005]
    assert scan.total_lines == 4005


def test_wc_counts_from_an_offset_and_notices_a_changed_file(tmp_path: Path) -> None:
    data = _log(100)
    path = tmp_path / "x.log"
    path.write_bytes(data)
    assert acscan._wc_lines(path, 0, len(data)) == data.count(b"\n") == 205
    assert acscan._wc_lines(path, 5000, len(data)) == data[5000:].count(b"\n")
    assert acscan._wc_lines(path, 0, len(data) - 1) is None  # the file is not the size scanned


def test_gz_counts_as_it_inflates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.log.gz"
    path.write_bytes(gzip.compress(_log(2000)))
    scan, asked = _scan(path, monkeypatch, 4096)
    assert asked == []  # a .gz is never read twice
    assert [x.number for x in scan.lines] == [1, 2002, 4003, 4005]
    assert scan.total_lines == 4005


def test_anchors_every_few_windows_are_counted_as_they_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A warning every 200 lines (about 4.5 windows of 4 KiB): after the second kept window no stretch is ever
    # quiet for QUIET_WINDOWS windows, so nothing after it is left to count afterwards (no wc); the stretch
    # between the start-up and the first warning, before any gap was seen, is read again (logspeed28).
    data = ARGS + (STEADY * 200 + WARN) * 30 + TB
    path = tmp_path / "x.log"
    path.write_bytes(data)
    scan, asked = _scan(path, monkeypatch, 4096)
    assert asked == []
    assert [x.number for x in scan.lines] == [1, *(202 + 201 * k for k in range(30)), 6032, 6034]
    assert scan.total_lines == data.count(b"\n") == 6034
    assert acscan._Numbering.QUIET_WINDOWS == 16


def test_after_a_lone_kept_window_or_a_long_gap_nothing_is_counted_as_it_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A start-up, a long quiet run, a warning, another 4.5 windows later, a long quiet run, the end
    # (logspeed28): the windows after the start-up and after the first warning (66 windows apart) are not
    # counted as they pass; after the second warning, 4-5 windows after the first, the next 16 are.
    steady = STEADY * 3000  # about 66 windows of 4 KiB
    data = ARGS + steady + WARN + STEADY * 200 + WARN + steady + TB
    path = tmp_path / "x.log"
    path.write_bytes(data)
    scan, asked = _scan(path, monkeypatch, 4096)
    second_warn = len(ARGS) + len(steady) + len(WARN) + 200 * len(STEADY)
    assert len(asked) == 2
    # from the first line that starts in the window after the start-up's, not 16 windows later as before
    assert 4096 <= asked[1] < 4096 + len(STEADY)
    # the stretch between the warnings is read again (short, far from the end); the 16 windows after the
    # second warning's are counted as they pass, wc counts from there
    assert second_warn + 16 * 4096 <= asked[0] < second_warn + 18 * 4096
    assert [x.number for x in scan.lines] == [1, 3002, 3203, 6204, 6206]
    assert scan.total_lines == data.count(b"\n") == 6206
