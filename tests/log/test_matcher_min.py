"""Logs from ``reader.MATCHER_MIN`` (128 KiB) up are read by the in-process matcher, not only from
``reader.GREP_MIN`` (4 MiB) as the grep path is (issue 18, logspeed28): the matcher starts no helper process,
and the Python scan cost about 20 ns a byte (3.4 MB of SGLang lines: 70 ms against 2.3 ms). The report is
the Python scan's, on real-format logs of each release and on edge files; below the bar, or without the
matcher, the Python scan reads them as before (the grep path still waits for GREP_MIN)."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log import acscan, reader
from argtrace.layers.log.acscan import matcher
from argtrace.layers.log.reader import MATCHER_MIN, scan_log
from tests.log import realformat
from tests.log.test_fast_equals_slow import ARGS, DECODE, EDGE_FILES, TB, _report

pytestmark = pytest.mark.skipif(matcher() is None, reason="ahocorasick_rs is not installed")
RELEASES = [("sglang", "0.5.10.post1"), ("sglang", "0.5.23"), ("vllm", "0.33.0")]


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Which scan read each log: "matcher", "grep", or nothing recorded (the Python scan)."""
    taken: list[str] = []
    real_matcher = acscan.scan_with_matcher

    def by_matcher(*args: Any, **kwargs: Any) -> Any:
        taken.append("matcher")
        return real_matcher(*args, **kwargs)

    from argtrace.layers.log import prefilter

    real_scan_with_grep = prefilter.scan_with_grep

    def by_grep(*args: Any, **kwargs: Any) -> Any:
        taken.append("grep")
        return real_scan_with_grep(*args, **kwargs)

    monkeypatch.setattr(acscan, "scan_with_matcher", by_matcher)
    monkeypatch.setattr(prefilter, "scan_with_grep", by_grep)
    return taken


def _python_report(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setenv("ARGTRACE_NO_MATCHER", "1")
        m.setenv("ARGTRACE_NO_GREP", "1")
        return _report(path)


def test_the_bar_is_128_kib_and_below_grep_s() -> None:
    assert MATCHER_MIN == 128 << 10
    assert MATCHER_MIN < reader.GREP_MIN


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_a_1_mb_real_format_log_is_read_by_the_matcher_with_the_python_scan_s_report(
    framework: str,
    version: str,
    compress: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    paths: list[str],
) -> None:
    path = tmp_path / f"{framework}-{version}.log{'.gz' if compress else ''}"
    if not realformat.generate(path, 1 << 20, framework, version, compress=compress):
        pytest.skip(f"no resolver environment for {framework}=={version} (its format strings)")
    fast = _report(path)
    assert paths == ["matcher"]
    slow = _python_report(path, monkeypatch)
    assert paths == ["matcher"]  # no grep below GREP_MIN, without the matcher either
    assert fast == slow
    assert slow["findings"] and slow["sections"]["log"]["launches"]


@pytest.mark.parametrize("name", sorted(EDGE_FILES))
def test_edge_files_above_the_bar_give_the_python_scan_s_report(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paths: list[str]
) -> None:
    # each edge file padded with steady lines to just above the bar, the padding before its own lines
    data = EDGE_FILES[name]
    pad = DECODE * ((MATCHER_MIN - len(data)) // len(DECODE) + 1) if len(data) < MATCHER_MIN else b""
    path = tmp_path / f"{name}.log"
    path.write_bytes(pad + data)
    assert path.stat().st_size >= MATCHER_MIN
    fast = _report(path)
    assert paths == ["matcher"]
    assert fast == _python_report(path, monkeypatch)


def test_below_the_bar_the_python_scan_reads_the_log(tmp_path: Path, paths: list[str]) -> None:
    path = tmp_path / "small.log"
    path.write_bytes(ARGS + DECODE * ((MATCHER_MIN - len(ARGS) - len(TB)) // len(DECODE) - 1) + TB)
    assert path.stat().st_size < MATCHER_MIN
    scan = scan_log(path)
    assert paths == []
    assert scan.searched_blocks >= 1 and scan.total_lines == path.read_bytes().count(b"\n")


def test_a_gz_counts_at_8x_its_size(tmp_path: Path, paths: list[str]) -> None:
    # 1,000 steady lines pack to a few kB: 8x that is under the bar; 50,000 are over it
    for lines, taken in ((1_000, []), (50_000, ["matcher"])):
        path = tmp_path / f"{lines}.log.gz"
        path.write_bytes(gzip.compress(ARGS + DECODE * lines + TB))
        assert (path.stat().st_size * 8 >= MATCHER_MIN) == bool(taken)
        scan = scan_log(path)
        assert paths == taken
        assert scan.total_lines == lines + 4
        paths.clear()


def test_prefilter_false_still_means_the_python_scan(tmp_path: Path, paths: list[str]) -> None:
    path = tmp_path / "big.log"
    path.write_bytes(ARGS + DECODE * (MATCHER_MIN // len(DECODE) + 10) + TB)
    scan_log(path, workers=1, prefilter=False)
    assert paths == []
