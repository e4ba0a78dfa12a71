"""The message index (`resolver/message_index.py`), its generator (`scripts/gen_messages.py`) and the
matcher's prefix handling (`layers/log/messages.py`), on small sources and a real zip file."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from argtrace.layers.log.messages import candidates, strip_prefixes
from argtrace.resolver.message_index import index_wheel, sites_of_source
from argtrace.resolver.message_store import template_of

REPO = Path(__file__).resolve().parent.parent

SOURCE = """
import logging
import warnings
logger = logging.getLogger(__name__)


class Runner:
    def __init__(self, server_args):
        self.mem_fraction = server_args.mem_fraction_static
        self.server_args = server_args

    def init_pool(self, total):
        tokens = int(total * self.mem_fraction) - self.server_args.chunked_prefill_size
        if tokens <= 0:
            msg = "Not enough memory. Please try to increase --mem-fraction-static."
            if self.mem_fraction is not None:
                msg += f" Current value: mem_fraction_static={self.mem_fraction}"
            raise RuntimeError(msg)
        if envs.SGLANG_ENABLE_X.get() and tokens > 10:
            logger.warning("Pool of %d tokens is larger than %s", tokens, "the cap")
        try:
            allocate(tokens)
        except torch.OutOfMemoryError as e:
            raise RuntimeError(f"Allocation of the token pool failed: {e}") from e

    def check(self):
        sa = self.server_args
        assert sa.tp_size % 2 == 0, "tp_size must be even, got {}".format(sa.tp_size)
        if os.environ.get("VLLM_FOO") == "1":
            warnings.warn("VLLM_FOO is deprecated and will be removed", DeprecationWarning)
        if self.server_args.strict:
            text = f"leak detected! available={self.avail}"
            raise_error_or_warn(self, self.server_args.strict, "count_leaks", text)


def pick(kind):
    if kind == "a":
        reason = "the first kind is not supported here"
    else:
        reason = f"kind {kind} is not supported in this build"
    raise ValueError(reason)
"""


def by_message(sites: list[dict[str, Any]], start: str) -> dict[str, Any]:
    return next(s for s in sites if template_of(s["p"]).startswith(start))


def test_sites_of_a_source() -> None:
    sites = sites_of_source(SOURCE, "pkg/runner.py")
    mem = by_message(sites, "Not enough memory")
    assert mem["l"] == 18 and mem["fn"] == "Runner.init_pool" and mem["k"] == "raise"
    assert mem["x"] == "RuntimeError"
    assert mem["p"] == [
        "Not enough memory. Please try to increase --mem-fraction-static.",
        {"o": [" Current value: mem_fraction_static=", ["self.mem_fraction"]]},
    ]
    assert mem["c"] == ["tokens <= 0"]
    # `tokens` is traced through the local to the setting; `self.mem_fraction` through __init__
    assert mem["r"] == [
        "self.mem_fraction",
        "self.server_args.chunked_prefill_size",
        "server_args.mem_fraction_static",
    ]
    warn = by_message(sites, "Pool of")
    assert warn["k"] == "log" and warn["x"] == "warning"
    assert warn["p"] == ["Pool of ", ["tokens"], " tokens is larger than ", ["'the cap'"]]
    assert warn["c"] == ["envs.SGLANG_ENABLE_X.get() and tokens > 10"]
    assert "env:SGLANG_ENABLE_X" in warn["r"]
    caught = by_message(sites, "Allocation of the token pool")
    assert caught["c"] == ["except torch.OutOfMemoryError"]
    tp = by_message(sites, "tp_size must be even")
    assert tp["k"] == "assert" and tp["c"] == ["not (sa.tp_size % 2 == 0)"]
    assert tp["r"] == ["self.server_args.tp_size"]
    dep = by_message(sites, "VLLM_FOO is deprecated")
    assert dep["k"] == "warn" and dep["x"] == "DeprecationWarning" and dep["r"] == ["env:VLLM_FOO"]
    leak = by_message(sites, "leak detected!")
    assert leak["x"] == "raise_error_or_warn" and "self.server_args.strict" in leak["r"]
    first, other = (s for s in sites if s["fn"] == "pick")
    assert first["p"] == ["the first kind is not supported here"] and first["c"] == ["kind == 'a'"]
    assert other["p"] == ["kind ", ["kind"], " is not supported in this build"]
    assert other["c"] == ["not (kind == 'a')"]


def test_template_of_parts() -> None:
    parts = ["Not enough\n memory.", {"o": [" Current value: ", ["x"]]}]
    assert template_of(parts) == "Not enough memory.[ Current value: {x}]"


def make_wheel(path: Path, version_text: str) -> Path:
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("vllm/__init__.py", "")
        wheel.writestr(
            "vllm/envs.py", 'logger.warning("Unknown vLLM environment variable detected: %s", k)\n'
        )
        wheel.writestr("vllm/tests/test_x.py", 'raise ValueError("a test file is never indexed at all")\n')
        wheel.writestr("vllm/engine.py", f'\n\nraise ValueError("engine refused: {version_text} here")\n')
        wheel.writestr("other/mod.py", 'raise ValueError("another package is never indexed")\n')
    return path


def test_index_wheel_reads_the_zip(tmp_path: Path) -> None:
    wheel = make_wheel(tmp_path / "vllm-9.9.0-py3-none-any.whl", "first")
    sites = index_wheel(str(wheel), "vllm")
    assert [(s["f"], s["l"], template_of(s["p"])) for s in sites] == [
        ("vllm/engine.py", 3, "engine refused: first here"),
        ("vllm/envs.py", 1, "Unknown vLLM environment variable detected: {k}"),
    ]


def test_generator_merges_releases(tmp_path: Path) -> None:
    one = make_wheel(tmp_path / "vllm-9.9.0-py3-none-any.whl", "first")
    two = make_wheel(tmp_path / "vllm-10.0.0-py3-none-any.whl", "second")
    out = tmp_path / "out"
    script = REPO / "scripts" / "gen_messages.py"
    for wheel in (two, one):
        done = subprocess.run(
            [sys.executable, str(script), str(wheel), "--out", str(out)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    store = json.loads(gzip.decompress((out / "vllm.json.gz").read_bytes()))
    assert list(store["releases"]) == ["9.9.0", "10.0.0"]
    assert store["releases"]["9.9.0"]["wheel"] == one.name and store["releases"]["9.9.0"]["sites"] == 2
    env = next(s for s in store["sites"] if s["f"] == "vllm/envs.py")
    assert env["at"] == {"9.9.0": [1], "10.0.0": [1]}  # one site, both releases
    engines = [s for s in store["sites"] if s["f"] == "vllm/engine.py"]
    assert [s["at"] for s in engines] == [{"9.9.0": [3]}, {"10.0.0": [3]}]
    done = subprocess.run(
        [sys.executable, str(script), "--drop", "vllm==9.9.0", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    store = json.loads(gzip.decompress((out / "vllm.json.gz").read_bytes()))
    assert list(store["releases"]) == ["10.0.0"] and len(store["sites"]) == 2
    bad = subprocess.run([sys.executable, str(script), "torch==2.0"], capture_output=True, text=True)
    assert bad.returncode != 0 and "the package is one of sglang, vllm, huggingface_hub" in bad.stderr


def test_prefixes_are_dropped() -> None:
    cases = [
        ("[2025-03-29 18:18:34 TP0] Scheduler hit an exception: boom", "Scheduler hit an exception: boom"),
        ("[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=1 is larger", "max_total_tokens=1 is larger"),
        (
            "(APIServer pid=1) WARNING 06-11 10:07:08 [envs.py:2041] Unknown variable: X",
            "Unknown variable: X",
        ),
        ("ERROR 04-30 10:20:36 [core.py:396] ValueError: No available memory", "No available memory"),
        ("[rank1]:ValueError: The decoder prompt (length 1)", "The decoder prompt (length 1)"),
        ("torch.OutOfMemoryError: CUDA out of memory. Tried", "CUDA out of memory. Tried"),
        ("Value error, Total number of attention heads (64)", "Total number of attention heads (64)"),
        ("Aug 19 18:30:11 vllm vllm[8707]: (APIServer pid=8707) WARNING 08-19 18:30:11 [e.py:2] X y", "X y"),
    ]
    for line, body in cases:
        assert strip_prefixes(line) == body, line


def test_candidates_skip_traceback_frames() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/model_runner.py", line 12, in init\n'
        "    raise RuntimeError(msg)\n"
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
    )
    assert candidates(text) == ["Not enough memory. Please try to increase --mem-fraction-static."]


def test_the_run_time_cache_is_used_and_survives_garbage(tmp_path: Path, monkeypatch: Any) -> None:
    from argtrace.frameworks.schema import bundled_versions
    from argtrace.resolver import message_store

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("ARGTRACE_DATA_CACHE", raising=False)
    message_store.site_index.cache_clear()
    try:
        built = message_store.site_index("vllm")
        (cached,) = (tmp_path / "argtrace" / "data").glob("why-vllm-*.lookup")
        message_store.site_index.cache_clear()
        loaded = message_store.site_index("vllm")
        bundled = bundled_versions("vllm", include_user=False)  # every bundled release is indexed (and older)
        assert loaded.releases == built.releases and [v for v in loaded.releases if v in bundled] == bundled
        assert len(loaded) == len(built)
        assert loaded.lookup.postings("tensor") == built.lookup.postings("tensor")
        assert (loaded.site(0).file, loaded.site(0).words) == (built.site(0).file, built.site(0).words)
        cached.write_bytes(b"not a lookup file")  # a damaged copy is rebuilt, never trusted
        message_store.site_index.cache_clear()
        assert message_store.site_index("vllm").releases == built.releases
        assert cached.read_bytes() != b"not a lookup file"
    finally:
        message_store.site_index.cache_clear()
