"""The fast paths of the log scan give exactly the slow path's answer (issue 18).

Three ways to find the lines the analyser reads: the in-process matcher (``acscan.py``, ``ahocorasick_rs``),
GNU grep (``prefilter.py``) and the pure Python scan (``reader.py``, the reference). For every recorded log in
tests/data/logs (plain and gzip-compressed here), for edge files (CRLF lines, a last line without a newline,
a traceback at the very end, tracebacks close together, a hit split by a window boundary, a line longer than
a window, leading NULs) and for a generated log of the real progress lines, the report (findings, sections,
the log's JSON less the two counters of how it was read) must be the same whichever path read it; the
matcher is also run with tiny windows, so that lines, hits and the bytes after a ``Traceback`` straddle
window boundaries everywhere. Small files are sent down the fast paths by lowering ``reader.GREP_MIN``.
"""

from __future__ import annotations

import dataclasses
import gzip
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log import acscan, analyze_log, reader
from argtrace.layers.log.acscan import matcher
from argtrace.layers.log.lines import ANCHORS, MAX_LINE, TRACEBACK_BYTES
from argtrace.layers.log.prefilter import gnu_grep, scan_with_grep
from argtrace.layers.log.reader import scan_log
from tests.log import realformat

REPO = Path(__file__).resolve().parents[2]
LOGS = REPO / "tests" / "data" / "logs"
DECODE = (
    b"[2026-11-29 21:16:20 TP0] Decode batch, #running-req: 12, #token: 21020, token usage: 0.51, "
    b"cuda graph: True, gen throughput (token/s): 93.51, #queue-req: 0\n"
)
ARGS = (
    b"[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=1, "
    b"mamba_scheduler_strategy='extra_buffer', max_running_requests=48)\n"
)
TB = (
    b"[2026-11-29 21:16:22 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    b'  File "/sgl/srt/managers/scheduler.py", line 2009, in run_scheduler_process\n'
    b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB.\n"
)
OOM = b" torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB. "
# Lines holding the matcher's merged patterns (lines.MATCHED: "tart", "red ", "args", " memory", " version",
# "ot enough", "_server") but no anchor, as a logged prompt may; then such a pattern before a real anchor on
# the same line, and one overlapping the anchor it stands for.
MERGED = (
    b"[2026-11-29 21:16:21] Received request: prompt: 'please restart the colored engine with its args and "
    b"memory, version2, got enough from my_server'\n"
    b"[2026-11-29 21:16:21] restart requested; RuntimeError: boom\n"
    b"[2026-11-29 21:16:21] restart; Started server process [42]\n"
)
EDGE_FILES = {
    "merged_patterns_without_an_anchor": ARGS + (DECODE * 3 + MERGED) * 40 + TB,
    # so many such lines that the matcher searches the next windows for the anchors themselves
    # (acscan._Searcher), and back
    "merged_patterns_in_every_line": ARGS + (b"restart colored\n" * 400 + MERGED + DECODE) * 30 + TB,
    "crlf": (ARGS + DECODE * 40 + TB).replace(b"\n", b"\r\n"),
    "no_newline_at_end": ARGS + DECODE * 40 + b"[2026-11-29 21:16:23] ValueError: cut here",
    "traceback_last_line_without_newline": ARGS + DECODE * 40 + b"Traceback (most recent call last):",
    "traceback_at_end": ARGS + DECODE * 40 + TB,
    "tracebacks_close_together": ARGS + (TB + DECODE * 3) * 30,
    "traceback_then_more_than_its_window": ARGS + TB + DECODE * (2 * TRACEBACK_BYTES // len(DECODE)) + TB,
    "traceback_line_longer_than_a_kept_line": ARGS
    + b"Traceback (most recent call last): "
    + b"x" * (MAX_LINE + TRACEBACK_BYTES)
    + b"\n"
    + TB,
    "line_longer_than_a_window": b"y" * (3 << 20) + b" RuntimeError in a long line\n" + ARGS + DECODE * 5,
    "traceback_then_a_line_longer_than_a_window": ARGS + TB + b"z" * 9000 + b"\n" + TB + b"w" * 70000 + b"\n",
    "leading_nuls": b"\x00" * 70000 + ARGS + DECODE * 40 + TB,
    # lines longer than any bound (issue 18): kept as lines.LongLine keeps them (head, the bytes around their
    # anchors, tail) on every path, streamed beyond reader.MAX_CARRY; the anchor far inside still counts
    "long_line_with_an_anchor_past_its_head": ARGS
    + b"[2026-11-29 21:16:21 TP0] Receive: obj=GenerateReqInput(text='"
    + b"q" * (3 << 19)
    + OOM
    + b"q" * (1 << 19)
    + b"')\n"
    + DECODE * 3,
    "enormous_line_with_an_anchor_deep_inside": ARGS
    + DECODE * 3
    + b"[2026-11-29 21:16:21 TP0] Receive: obj=GenerateReqInput(text='"
    + b"q" * (9 << 20)
    + OOM
    + b"q" * (1 << 20)
    + b"')\n"
    + DECODE * 3
    + TB,
    "enormous_last_line_without_a_newline": ARGS
    + DECODE * 3
    + b"w" * (9 << 20)
    + b" ValueError: cut"
    + b"v" * 5000,
    # lines over reader.MAX_CARRY are listed in long_lines whether kept or not; one just over it is streamed
    # by neither the matcher nor the Python scan, and grep can still hold it
    "line_just_over_8_mb_without_an_anchor": DECODE * 3 + b"x" * ((8 << 20) + 100) + b"\n" + ARGS,
    "enormous_line_without_an_anchor": DECODE * 3 + b"x" * (9 << 20) + b"\n" + ARGS + b"x" * (9 << 20),
    "enormous_traceback_line": ARGS
    + b"[2026-11-29 21:16:22 TP0] Traceback (most recent call last): "
    + b"z" * (9 << 20)
    + b"\n"
    + TB[TB.index(b"\n") + 1 :]
    + DECODE * 3,
    "only_steady_state": DECODE * 2000,
    # a launch that hangs: its last step begun by a kept line, then by the file's last line (a progress bar
    # without a newline, NCCL's debug lines), which no anchor keeps (layers/log/hang.py)
    "hang_in_capture": ARGS
    + DECODE * 40
    + b"[2026-11-29 21:16:30 TP0] Capture cuda graph begin. This can take up to several minutes.\n"
    + b"Capturing batches (bs=512 avail_mem=3.10 GB):   0%|          | 0/52 [00:04<?, ?it/s]",
    "hang_at_nccl_last_line": ARGS + DECODE * 40 + b"node-1:271:271 [0] NCCL INFO Bootstrap : Using eth0\n\n",
}
RELEASES = [("sglang", "0.5.10.post1"), ("sglang", "0.5.23"), ("vllm", "0.33.0")]
WINDOWS = [acscan._WINDOW, 4096, 977]  # the default, and windows far smaller than a traceback's bytes

pytestmark = pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")


def _report(path: Path) -> dict[str, Any]:
    result = analyze_log(path, "LOG", launch="all")
    sections = {k: dict(v) if isinstance(v, dict) else v for k, v in result.sections.items()}
    log = sections["log"]
    scan = dict(log["scan"])
    for key in ("skipped_blocks", "searched_blocks"):  # how it was read, not what it found
        scan.pop(key)
    log["scan"] = scan
    return {
        "findings": [dataclasses.asdict(f) for f in result.findings],
        "sections": sections,
        "observations": {k: repr(v) for k, v in result.observations.items()},
    }


def _path(name: str, tmp_path: Path, compress: bool) -> Path:
    data = EDGE_FILES[name] if name in EDGE_FILES else (LOGS / name).read_bytes()
    path = tmp_path / (name + (".log.gz" if compress else ".log"))
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def _answers(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The report by each path, and the scan records of the two fast ones."""
    monkeypatch.setattr(reader, "GREP_MIN", 0)
    out: dict[str, Any] = {}
    if matcher() is not None:
        out["matcher"] = _report(path)
    with monkeypatch.context() as m:
        m.setenv("ARGTRACE_NO_MATCHER", "1")
        out["grep"] = _report(path)
        m.setenv("ARGTRACE_NO_GREP", "1")
        out["python"] = _report(path)
    return out


def _lines(scan: Any) -> list[tuple[int, str, Any, bool, int | None]]:
    return [(x.number, x.text, x.block, x.truncated, x.offset) for x in scan.lines]


NAMES = sorted(EDGE_FILES) + sorted(p.name for p in LOGS.glob("*.log"))


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", NAMES)
def test_every_path_gives_the_same_report(
    name: str, compress: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _path(name, tmp_path, compress)
    answers = _answers(path, monkeypatch)
    slow = answers.pop("python")
    for fast_path, report in answers.items():
        assert report == slow, fast_path
    if name in EDGE_FILES and name != "only_steady_state":
        assert slow["findings"] or slow["sections"]["log"]["launches"]  # there was something to find


@pytest.mark.skipif(matcher() is None, reason="ahocorasick_rs is not installed")
@pytest.mark.parametrize("window", WINDOWS[1:])
@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", NAMES)
def test_the_matcher_with_tiny_windows(
    name: str, compress: bool, window: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every line, hit and traceback block crosses window boundaries: the same lines (numbers, text,
    # offsets, the lines after each Traceback) as the grep path, whose blocks are read back by seeking.
    path = _path(name, tmp_path, compress)
    monkeypatch.setattr(reader, "GREP_MIN", 0)
    monkeypatch.setattr(acscan, "_WINDOW", window)
    small = acscan.scan_with_matcher(path, "LOG", gz=compress)
    monkeypatch.setattr(acscan, "_WINDOW", WINDOWS[0])
    big = acscan.scan_with_matcher(path, "LOG", gz=compress)
    monkeypatch.setenv("ARGTRACE_NO_MATCHER", "1")
    by_grep = scan_log(path, "LOG")
    # the grep path, but for a line too long for grep's capped memory (prefilter.GREP_MEMORY): then the Python
    # scan, which streams it
    assert (scan_with_grep(path, "LOG", gz=compress) is None) == name.startswith("enormous")
    assert big is not None and small is not None  # the matcher takes every log, whatever its lines
    fields = ("total_lines", "bytes_read", "ends_with_newline", "last_line", "long_lines", "binary")
    for scan in (small, big):
        assert _lines(scan) == _lines(by_grep)
        assert [getattr(scan, f) for f in fields] == [getattr(by_grep, f) for f in fields]


def test_a_hit_split_by_every_window_boundary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The anchor "server_args" starts at each offset around a 1 KiB window's end in turn.
    if matcher() is None:
        pytest.skip("ahocorasick_rs is not installed")
    monkeypatch.setattr(reader, "GREP_MIN", 0)
    monkeypatch.setattr(acscan, "_WINDOW", 1024)
    for shift in range(0, 40, 3):
        path = tmp_path / f"shift{shift}.log"
        path.write_bytes(b"x" * (1024 - 20 + shift) + b"\n" + ARGS + DECODE * 3 + TB)
        assert _report(path) == _answers(path, monkeypatch)["python"], shift


@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_a_large_real_format_log_plain_and_gz(
    framework: str, version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 24 MB of a release's real progress lines, a warning in the middle, a traceback at the end; the .gz is
    # above reader.GREP_MIN at 8x its size, so both take the default fast path.
    for compress in (False, True):
        path = tmp_path / f"{framework}-{version}.log{'.gz' if compress else ''}"
        if not realformat.generate(path, 24 << 20, framework, version, compress=compress):
            pytest.skip(f"no resolver environment for {framework}=={version} (its format strings)")
        default = scan_log(path)
        assert (default.searched_blocks, default.skipped_blocks) == (1, 0)  # a fast path
        answers = _answers(path, monkeypatch)
        slow = answers.pop("python")
        assert all(report == slow for report in answers.values())
        assert slow["sections"]["log"]["lines"] > 100_000


@pytest.mark.slow
def test_the_short_bench_compares_the_answers_of_every_path() -> None:
    # CI's short run of bench/log_throughput.py: the argtrace console script on a 16 MB log per release,
    # plain and .gz; it fails on a different answer only, never on time.
    if not any(realformat.site_packages(framework, version) for framework, version in RELEASES):
        pytest.skip("no resolver environment to render the real formats from")
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "log_throughput.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line for line in done.stdout.splitlines() if line.rstrip().endswith(("yes", "NO"))]
    assert rows and all(row.rstrip().endswith("yes") for row in rows), done.stdout


@pytest.mark.skipif(matcher() is None, reason="ahocorasick_rs is not installed")
def test_the_matcher_searches_for_the_anchors_after_a_window_of_many_candidates() -> None:
    searcher = acscan._Searcher(matcher())
    quiet = memoryview(DECODE * 100)
    busy = memoryview(b"restart colored\n" * (acscan._Searcher.MANY + 1))
    assert searcher.search(quiet) == ([], acscan._EXACT)
    assert searcher.search(memoryview(MERGED))[1] == acscan._EXACT  # three lines: each looked at again
    assert searcher.search(busy) == ([], acscan._ALL)  # no anchor in any of its lines
    modes = [searcher.search(memoryview(MERGED)) for _ in range(acscan._Searcher.STAY)]
    # the anchors' own matches: RuntimeError's "rror" and "Started server process", nothing else
    anchors = [
        (ANCHORS.index(a), MERGED.index(a), MERGED.index(a) + len(a))
        for a in (b"rror", b"Started server process")
    ]
    assert modes == [(anchors, acscan._ALL)] * acscan._Searcher.STAY
    assert searcher.search(quiet) == ([], acscan._EXACT)
