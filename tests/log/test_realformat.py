"""Logs of the frameworks' real steady-state lines (tests/log/realformat.py renders them from each
release's own format strings): the fast paths (acscan.py's matcher, prefilter.py's grep) give the same lines
and findings as the Python scan, plain and ``.gz``. Generated under the test's temporary directory, never
committed; sizes just above ``reader.GREP_MIN`` so that the default path is a fast one."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log import analyze_log, reader
from argtrace.layers.log.acscan import matcher
from argtrace.layers.log.lines import ANCHORS, MATCHED
from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.reader import scan_log
from tests.log import realformat

RELEASES = [("sglang", "0.5.10.post1"), ("sglang", "0.5.23"), ("vllm", "0.33.0")]
SIZE = reader.GREP_MIN + (1 << 20)

pytestmark = pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")


@pytest.fixture(params=["matcher", "grep"])
def fast_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each fast path in turn: the in-process matcher (acscan.py, when ahocorasick_rs is installed), and
    GNU grep (prefilter.py) with the matcher turned off."""
    if request.param == "matcher" and matcher() is None:
        pytest.skip("ahocorasick_rs (a dependency of argtrace) is not installed")
    if request.param == "grep":
        monkeypatch.setenv("ARGTRACE_NO_MATCHER", "1")
    return str(request.param)


def _log(tmp_path: Path, framework: str, version: str, compress: bool = False) -> Path:
    path = tmp_path / (f"{framework}-{version}.log" + (".gz" if compress else ""))
    if not realformat.generate(path, SIZE, framework, version, compress=compress):
        pytest.skip(f"no resolver environment for {framework}=={version} (its format strings)")
    return path


def _lines(scan: Any) -> list[tuple[int, str, Any, bool, int | None]]:
    return [(x.number, x.text, x.block, x.truncated, x.offset) for x in scan.lines]


def _report(path: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    result = analyze_log(path, "LOG", launch="all")
    log = dict(result.sections["log"])
    scan = dict(log.pop("scan"))
    for key in ("skipped_blocks", "searched_blocks"):  # how it was read, not what it found
        scan.pop(key, None)
    log["scan"] = scan
    return [dataclasses.asdict(f) for f in result.findings], log


@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_the_real_progress_lines_are_what_the_lines_look_like(
    framework: str, version: str, tmp_path: Path
) -> None:
    path = _log(tmp_path, framework, version)
    text = path.read_text()
    if framework == "sglang":
        assert "] Decode batch, #running-req: " in text and "] Prefill batch, #new-seq: " in text
        assert " batch. #" not in text  # not the form the old prefix list happened to drop
    else:
        assert "[loggers.py:283] Engine 000: Avg prompt throughput: " in text
        assert "GPU KV cache usage: " in text  # the bare "KV cache" anchor was inside every stats line


@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_no_anchor_is_inside_a_steady_state_line(framework: str, version: str, tmp_path: Path) -> None:
    # What keeps the fast paths near grep's pace: a running server's repeated lines hold no anchor, so the
    # matcher reports (and this process looks at) only the few start-up and error lines, not every line.
    # (The progress lines of both forms, HTTP access lines, vLLM's stats line; not lines.BORING, which
    # lacks SGLang's real comma form.)
    steady_forms = (b"] Decode batch, #", b"] Prefill batch, #", b'HTTP/1.1" ', b"Avg prompt throughput")
    path = _log(tmp_path, framework, version)
    steady = 0
    with path.open("rb") as fh:
        for raw in fh:
            if any(form in raw for form in steady_forms):
                steady += 1
                assert [a for a in ANCHORS if a in raw] == [], raw
                # nor any pattern the matcher searches for in their place (lines.MATCHED)
                assert [p for p in MATCHED if p in raw] == [], raw
    assert steady > 20_000


def test_every_anchor_holds_a_pattern_the_matcher_searches() -> None:
    # A line with an anchor is found only through a pattern it contains; a pattern no anchor contains would
    # find lines for nothing. 32 patterns at most, none under 4 bytes: the matcher's fast prefilter form.
    assert [a for a in ANCHORS if not any(p in a for p in MATCHED)] == []
    assert [p for p in MATCHED if not any(p in a for a in ANCHORS)] == []
    assert (len(MATCHED), len(set(MATCHED)), min(len(p) for p in MATCHED)) == (32, 32, 4)


@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_fast_paths_equal_the_python_scan(
    framework: str, version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_path: str
) -> None:
    path = _log(tmp_path, framework, version)
    fast = scan_log(path)
    slow = scan_log(path, workers=1, prefilter=False)
    assert (fast.searched_blocks, fast.skipped_blocks) == (1, 0)  # it really took the fast path
    assert slow.searched_blocks > 1
    assert _lines(fast) == _lines(slow)
    assert len(fast.lines) < 60  # only the start-up lines, the warning and the traceback reach Python
    fields = ("total_lines", "bytes_read", "ends_with_newline", "last_line", "long_lines", "binary")
    assert [getattr(fast, f) for f in fields] == [getattr(slow, f) for f in fields]
    tb = [x for x in fast.lines if x.block is not None]
    assert len(tb) == 1 and tb[0].block is not None
    assert tb[0].block[:3] == [
        '  File "/sgl/srt/managers/scheduler.py", line 2009, in run_scheduler_process',
        '  File "/sgl/srt/model_executor/cuda_graph_runner.py", line 269, in __init__',
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 448.00 MiB.",
    ]
    findings, log = _report(path)
    monkeypatch.setenv("ARGTRACE_NO_GREP", "1")
    monkeypatch.setenv("ARGTRACE_NO_MATCHER", "1")
    assert _report(path) == (findings, log)
    assert any(f["code"] for f in findings)


@pytest.mark.parametrize(("framework", "version"), RELEASES[:1] + RELEASES[2:])
def test_gz_logs_take_the_fast_path_with_the_same_answer(
    framework: str, version: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_path: str
) -> None:
    packed = _log(tmp_path, framework, version, compress=True)
    plain = _log(tmp_path, framework, version)
    # repeated generated lines pack 13x, real logs about 8x (what reader.py assumes): size it as a real one
    monkeypatch.setattr(reader, "GREP_MIN", packed.stat().st_size * 8)
    fast = scan_log(packed)
    slow = scan_log(packed, workers=1, prefilter=False)
    assert fast.gzip and (fast.searched_blocks, fast.skipped_blocks) == (1, 0)
    assert _lines(fast) == _lines(slow) == _lines(scan_log(plain))
    assert (fast.total_lines, fast.bytes_read, fast.last_line, fast.gzip_problem) == (
        slow.total_lines,
        slow.bytes_read,
        slow.last_line,
        None,
    )
    findings, log = _report(packed)
    monkeypatch.setenv("ARGTRACE_NO_GREP", "1")
    monkeypatch.setenv("ARGTRACE_NO_MATCHER", "1")
    assert _report(packed) == (findings, log)


def test_a_truncated_gz_log_keeps_what_decompressed_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fast_path: str
) -> None:
    monkeypatch.setattr(reader, "GREP_MIN", 0)
    packed = _log(tmp_path, "sglang", "0.5.10.post1", compress=True)
    data = packed.read_bytes()
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[: len(data) * 3 // 4])
    fast = scan_log(cut)
    slow = scan_log(cut, workers=1, prefilter=False)
    assert (fast.searched_blocks, fast.skipped_blocks) == (1, 0)
    assert fast.gzip_problem == slow.gzip_problem
    assert fast.gzip_problem is not None and "truncated" in fast.gzip_problem
    assert _lines(fast) == _lines(slow)
    assert fast.total_lines == slow.total_lines
