"""What a scan keeps of a log with more anchor lines than it can hold (issue 18: peak RSS at most 100 MB).

``lines.Kept`` keeps a log's first lines, its last, and the lines launches begin or end with between them,
each within ``KEEP_LINES`` and ``KEEP_BYTES``; the rest are let go as they pass and counted where they lay.
Before, the first 200,000 anchor lines were kept: a 49 MB log of request errors took 185 MB and 11 s, and a
crash after them was never read. Every read path keeps through the same object, so the reports stay equal
(tests/log/test_fast_equals_slow.py's ``_answers`` runs the three).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log import lines
from argtrace.layers.log.lines import KEEP_LINES, TRACEBACK_BYTES, Kept, Line, Scan
from tests.log.test_fast_equals_slow import ARGS, TB, _answers

READY = b"[2026-11-29 21:14:40] The server is fired up and ready to roll!\n"


def _error(k: int) -> bytes:
    return b"[2026-11-29 21:16:%02d TP0] ERROR: request %d failed: ValueError: too long\n" % (k % 60, k)


def _line(offset: int, text: str = "ValueError: x") -> Line:
    return Line(offset + 1, text, offset=offset)


def test_the_head_then_the_tail_and_the_marks_between(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines, "KEEP_LINES", 3)
    kept = Kept()
    for offset in range(10):
        text = "server_args=ServerArgs(tp_size=1)" if offset in (5, 6) else "ValueError: x"
        kept.add(_line(offset, text))
    out = Scan(path="LOG", size=10, gzip=False)
    kept.settle(out)
    # head 0-2; 3 and 4 dropped from the tail; 5 and 6 are marks; the tail ends 7, 8, 9
    assert [line.offset for line in out.lines] == [0, 1, 2, 5, 6, 7, 8, 9]
    assert out.dropped == [[3, 4, 2]]
    assert out.hits_dropped == 2


def test_dropped_lines_on_both_sides_of_a_mark_are_two_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines, "KEEP_LINES", 2)
    kept = Kept()
    for offset in range(9):
        kept.add(_line(offset, "non-default args: {}" if offset == 4 else "ValueError: x"))
    out = Scan(path="LOG", size=9, gzip=False)
    kept.settle(out)
    assert [line.offset for line in out.lines] == [0, 1, 4, 7, 8]
    assert out.dropped == [[2, 3, 2], [5, 6, 2]]
    assert not any(line.dropped for line in out.lines)


def test_a_dropped_line_lets_go_of_its_text() -> None:
    kept = Kept()
    first = [_line(k) for k in range(2 * KEEP_LINES + 1)]
    for line in first:
        kept.add(line)
    # the head's lines stay; the tail's first line went when the tail was one over
    assert first[KEEP_LINES].dropped and first[KEEP_LINES].text == "" and first[KEEP_LINES].block is None
    assert not first[KEEP_LINES - 1].dropped and not first[-1].dropped


def test_bytes_bound_each_part(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lines, "KEEP_BYTES", 1000)
    kept = Kept()
    for offset in range(0, 5000, 100):
        kept.add(_line(offset, "e" * 100))
    out = Scan(path="LOG", size=5000, gzip=False)
    kept.settle(out)
    assert [line.offset for line in out.lines] == [*range(0, 1000, 100), *range(4000, 5000, 100)]
    assert out.dropped == [[1000, 3900, 30]]
    # a Traceback line counts the block it will be given
    kept = Kept()
    monkeypatch.setattr(lines, "KEEP_BYTES", TRACEBACK_BYTES + 100)
    kept.add(_line(0, "Traceback (most recent call last):"))
    kept.add(_line(50, "Traceback (most recent call last):"))
    assert len(kept.head) == 1 and kept.head_full


def _report_of(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:  # type: ignore[type-arg]
    answers = _answers(path, monkeypatch)
    slow = answers.pop("python")
    for fast_path, report in answers.items():
        assert report == slow, fast_path
    return slow


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
def test_a_flood_of_request_errors_then_a_crash(
    compress: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    errors = 3 * KEEP_LINES
    data = ARGS + READY + b"".join(_error(k) for k in range(errors)) + TB
    path = tmp_path / ("flood.log.gz" if compress else "flood.log")
    path.write_bytes(gzip.compress(data) if compress else data)
    report = _report_of(path, monkeypatch)
    log = report["sections"]["log"]
    total = errors + 5  # args, ready, the errors, the traceback's three lines
    assert log["lines"] == total
    (launch,) = log["launches"]
    # the crash at the end is read: before, the scan kept the first 200,000 anchor lines and stopped there
    assert launch["lines"] == [1, total]
    assert launch["state"] == "failed"
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB."
    assert launch["error"]["text"] == oom
    # kept: the head (args, ready, 9,998 errors) and the tail (9,998 errors, the Traceback line and the
    # exception's; its frame is in the Traceback line's block)
    assert log["scan"]["kept_lines"] == 2 * KEEP_LINES
    assert log["scan"]["lines_dropped"] == errors + 4 - 2 * KEEP_LINES
    assert launch["lines_dropped"] == errors + 4 - 2 * KEEP_LINES


def test_a_launch_whose_lines_were_dropped_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # three launches; the second logs more warnings than the head and tail hold together, then stops without
    # an error: its args line is kept (a mark), and where it stopped is not known
    warning = b"[2026-11-29 21:15:00] WARNING: the option is deprecated and will be removed\n"
    second = ARGS.replace(b"tp_size=1", b"tp_size=2")
    third = ARGS.replace(b"tp_size=1", b"tp_size=4")
    data = ARGS + READY + second + warning * (3 * KEEP_LINES) + third + READY
    path = tmp_path / "restarts.log"
    path.write_bytes(data)
    report = _report_of(path, monkeypatch)
    log = report["sections"]["log"]
    assert log["launch_count"] == 3
    launches = {lc["launch"]: lc for lc in log["launches"]}
    # the head holds the first three lines and 9,997 warnings, the tail the last 10,000; the third launch's
    # lines are marks
    assert [launches[k]["lines_dropped"] for k in (1, 2, 3)] == [0, KEEP_LINES + 3, 0]
    assert launches[3]["state"] == "ready"
    (stop,) = [f for f in report["findings"] if f["code"] == "LG010" and f["launch"] == 2]
    assert stop["severity"] == "info"
    assert (
        f"{KEEP_LINES + 3:,} of this launch's anchor lines were not read (of a log of more than "
        f"{2 * KEEP_LINES:,} of them, the first and last are read, and every launch's first lines): what "
        "ended it may be among them." in stop["message"]
    )
