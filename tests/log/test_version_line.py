"""The release a `--log` shows (issue 11): its version line found wherever it is, plain or gzip, and that
release used by the whole analysis (parser, memory) with ``framework.source == "log"``.

The version line is the real one of gpustack/gpustack#5556 (vLLM 0.22.1,
``tests/data/logs/vllm_0.22_gpustack5556_unknown_env.log``); the filler lines are real SGLang start-up lines
(``tests/data/logs/memory/qwen3.5-9b-tp2-rtx4090.log``, which has no version line).
"""

from __future__ import annotations

import gzip
import tracemalloc
from pathlib import Path

import pytest

from argtrace.layers.log.check import logged_release
from tests.conftest import REPO, run_cli

REAL_LOG = REPO / "tests/data/logs/vllm_0.22_gpustack5556_unknown_env.log"
VERSION_LINE = REAL_LOG.read_text().splitlines()[1]
FILLER = (REPO / "tests/data/logs/memory/qwen3.5-9b-tp2-rtx4090.log").read_text()


def _log_with_version_after(tmp_path: Path, before: int, after: int, gz: bool) -> tuple[Path, int]:
    """A log of real lines with the version line after ``before`` bytes and ``after`` more bytes."""
    head = FILLER * (before // len(FILLER) + 1)
    tail = FILLER * (after // len(FILLER) + 1)
    text = f"{head}{VERSION_LINE}\n{tail}"
    line = head.count("\n") + 1
    path = tmp_path / ("server.log.gz" if gz else "server.log")
    data = text.encode()
    path.write_bytes(gzip.compress(data, compresslevel=1) if gz else data)
    return path, line


@pytest.mark.parametrize("gz", [False, True])
def test_a_version_line_after_5_mb_is_found_with_bounded_memory(tmp_path: Path, gz: bool) -> None:
    # 5 MB before the line and 6 MB after: neither the first nor the last 4 MB holds it
    path, line = _log_with_version_after(tmp_path, 5 << 20, 6 << 20, gz)
    tracemalloc.start()
    try:
        found = logged_release(str(path), "vllm")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found is not None
    assert (found.version, found.source, found.at) == ("0.22.1", "log", f"{path}:{line}")
    assert found.text == "the log's `█  version 0.22.1`"
    assert peak < 8 << 20, peak  # a chunk, its lines and the gzip window, not the 11 MB log


def test_the_latest_version_line_wins_and_none_is_none(tmp_path: Path) -> None:
    path = tmp_path / "two.log"
    older = VERSION_LINE.replace("0.22.1", "0.21.0")
    path.write_text(f"{older}\n{FILLER}{VERSION_LINE}\n{FILLER}")
    found = logged_release(str(path), "vllm")
    assert found is not None and found.version == "0.22.1"
    plain = tmp_path / "none.log"
    plain.write_text(FILLER)
    assert logged_release(str(plain), "vllm") is None
    # a gzip copy cut short still gives what it holds
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(gzip.compress(f"{VERSION_LINE}\n{FILLER * 50}".encode())[:4000])
    found = logged_release(str(cut), "vllm")
    assert found is not None and (found.version, found.at) == ("0.22.1", f"{cut}:1")


def test_the_logs_release_is_the_one_the_whole_check_uses() -> None:
    launch = "vllm serve /m --tensor-parallel-size 2 --disable-chunked-prefill"
    argv = ["check", "--no-resolve", "--gpu", "h100x2", "--model-config", "tests/data/models/llama-3.1-8b"]
    argv += ["--log", str(REAL_LOG.relative_to(REPO)), "-c", launch]
    report = run_cli([*argv[:1], "--format", "json", *argv[1:]], cwd=REPO).json
    at = "tests/data/logs/vllm_0.22_gpustack5556_unknown_env.log:2"
    assert report["framework"] == {
        "name": "vllm",
        "version": "0.22.1",
        "source": "log",
        "evidence": f"the log's `█  version 0.22.1` at {at}",
    }
    assert report["memory"]["version"] == "0.22.1"
    # the parser is 0.22.1's: --disable-chunked-prefill came later (0.33.0 has it)
    unknown = [
        f
        for f in report["findings"]
        if f["layer"] == "parser" and "--disable-chunked-prefill" in f["message"]
    ]
    assert unknown and all("0.22.1" in f["message"] for f in unknown), unknown
    text = run_cli(argv, cwd=REPO).stdout
    # the header is one line of the 100 columns off a terminal: the evidence's place, whole or by its file
    # name, does not fit (the JSON's framework.evidence above keeps it)
    assert text.splitlines()[0] == "argtrace check — vllm 0.22.1 (the log's `█  version 0.22.1`)"


def test_mem_from_log_takes_the_release_from_the_logs_version_line() -> None:
    argv = ["mem", "--framework", "vllm", "--from-log", str(REAL_LOG.relative_to(REPO)), "--gpu", "h100"]
    argv += ["--model-config", "tests/data/models/llama-3.1-8b", "--format", "json"]
    report = run_cli(argv, cwd=REPO).json
    at = "tests/data/logs/vllm_0.22_gpustack5556_unknown_env.log:2"
    assert report["framework"] == {
        "name": "vllm",
        "version": "0.22.1",
        "source": "log",
        "evidence": f"the log's `█  version 0.22.1` at {at}",
    }
    assert report["memory"]["version"] == "0.22.1"
    # --framework-version wins, and the disagreement is said
    named = run_cli([*argv, "--framework-version", "0.33.0"], cwd=REPO).json
    assert (named["framework"]["version"], named["framework"]["source"]) == ("0.33.0", "bundled-schema")
    assert named["notes"][0] == (
        f"--framework-version 0.33.0 was given, but the log's `█  version 0.22.1` at {at} shows vllm 0.22.1: "
        "the sizing follows 0.33.0"
    )
    # a log without a version line does not claim to be the source
    plain = ["mem", "--from-log", "tests/data/logs/memory/qwen3.5-9b-tp2-rtx4090.log", "--gpu", "rtx-4090"]
    plain += ["--model-config", "tests/data/models/qwen3.5-9b", "--format", "json"]
    sglang = run_cli(plain, cwd=REPO).json
    assert sglang["framework"] == {
        "name": "sglang",
        "version": None,
        "source": "none",
        "analysed_with": "0.5.10.post1",
    }


@pytest.mark.frameworks
@pytest.mark.slow
def test_the_logs_release_stays_the_source_after_resolution_ran(tmp_path: Path) -> None:
    from argtrace.resolver.environments import find_environment

    if find_environment("vllm", "0.33.0") is None:
        pytest.skip("no vllm 0.33.0 resolver environment")
    # the real gpustack#5556 log, its banner's release set to one whose resolver environment exists here
    log = tmp_path / "server.log"
    log.write_text(REAL_LOG.read_text().replace("version 0.22.1", "version 0.33.0"))
    argv = [
        "check",
        "--format",
        "json",
        "--gpu",
        "h100x2",
        "--model-config",
        "tests/data/models/llama-3.1-8b",
    ]
    report = run_cli(
        [*argv, "--log", str(log), "-c", "vllm serve /m --tensor-parallel-size 2"], cwd=REPO
    ).json
    assert report["resolution"]["status"] == "ok"
    assert report["resolution"]["interpreter"] == "resolver-env vllm==0.33.0"
    # the framework's own code ran for the release the log showed; how the release was decided is the log
    assert report["framework"] == {
        "name": "vllm",
        "version": "0.33.0",
        "source": "log",
        "evidence": f"the log's `█  version 0.33.0` at {log}:2",
    }
    assert report["memory"]["version"] == "0.33.0"


@pytest.mark.parametrize("gz", [False, True])
def test_a_line_across_a_chunk_boundary_and_after_an_overlong_line(tmp_path: Path, gz: bool) -> None:
    from argtrace.layers.log.check import _VERSION_CHUNK_BYTES, _VERSION_LINE_BYTES

    long_line = "x" * (_VERSION_LINE_BYTES + 4096)  # cut, its rest skipped: still one line
    # the version line starts 20 bytes before the first chunk's end
    pad = "y" * (_VERSION_CHUNK_BYTES - 20 - len(long_line) - 2)
    assert len(pad) > 0
    text = f"{long_line}\n{pad}\n{VERSION_LINE}\nlast line\n"
    path = tmp_path / ("b.log.gz" if gz else "b.log")
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    found = logged_release(str(path), "vllm")
    assert found is not None and (found.version, found.at) == ("0.22.1", f"{path}:3")
    # a line longer than two chunks is held only up to its cut, and the numbering goes on
    text = f"first\n{'z' * (_VERSION_CHUNK_BYTES * 2 + 7)}\n{VERSION_LINE}\n"
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    found = logged_release(str(path), "vllm")
    assert found is not None and (found.version, found.at) == ("0.22.1", f"{path}:3")
