"""The resolution cache (resolver/cache.py): same inputs answer from the cache; any input that decides the
result (config.json, GPU, an environment variable, an argv word, the resolver environment, argtrace's
resolver code) gives a fresh resolution. Counted in resolver-process invocations, never in time.

The resolver environment here is a real directory with a manifest, found by ``find_environment`` through
``ARGTRACE_CACHE_DIR``; its ``bin/python`` is a real shell script that counts its runs in a file and writes
the recorder's answer, so every layer between the CLI and the subprocess is the real one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.resolver import cache, cache_write, environments
from tests.conftest import run_cli

MODEL = Path(__file__).resolve().parent / "data" / "models" / "qwen3.6-27b"
VERSION = "0.5.10.post1"
SG = "python3 -m sglang.launch_server --model-path /m --tp-size 1 --mem-fraction-static 0.80"
ANSWER = {
    "status": "ok",
    "version": VERSION,
    "mode": "post_init",
    "parsed": {"mem_fraction_static": 0.8, "chunked_prefill_size": None},
    "final": {"mem_fraction_static": 0.8, "chunked_prefill_size": 8192},
}


class FakeEnv:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / environments.env_name("sglang", VERSION)
        self.count = root / "runs.txt"
        (self.dir / "bin").mkdir(parents=True)
        self.manifest = environments.Manifest(
            kind="framework",
            framework="sglang",
            version=VERSION,
            python="3.11.7",
            created="2026-12-01T00:00:00Z",
            size=1,
            wheel="sglang-0.5.10.post1-py3-none-any.whl",
            wheel_sha256="a" * 64,
        )
        environments.write_manifest(self.dir, self.manifest)
        answer = root / "answer.json"
        answer.write_text(json.dumps(ANSWER))
        python = self.dir / "bin" / "python"
        # $1 = record.py, $2 = request.json, $3 = out.json (layers/resolution.py run_recorder)
        python.write_text(f'#!/bin/sh\necho run >> "{self.count}"\ncp "{answer}" "$3"\n')
        python.chmod(0o755)

    def runs(self) -> int:
        return len(self.count.read_text().splitlines()) if self.count.exists() else 0


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeEnv:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "resolvers"))
    monkeypatch.setenv("ARGTRACE_RESOLUTION_CACHE", str(tmp_path / "resolutions"))
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(tmp_path / "data"))
    monkeypatch.delenv("ARGTRACE_NO_CACHE", raising=False)
    # the fake interpreter counts fresh runs (a shell script is no resolver host: test_resolver_hosts.py)
    monkeypatch.setenv("ARGTRACE_RESOLVER_HOSTS", "0")
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "keep.txt").write_text("not argtrace's")
    return FakeEnv(tmp_path / "resolvers")


@pytest.fixture
def model(tmp_path: Path) -> Path:
    copy = tmp_path / "model"
    copy.mkdir()
    shutil.copy(MODEL / "config.json", copy / "config.json")
    return copy


def check(model: Path, *extra: str, command: str = SG, gpu: str = "h100") -> dict[str, Any]:
    argv = ["check", "--format", "json", "--no-shellcheck", "--model-config", str(model), "--gpu", gpu]
    argv += ["--framework", "sglang", "--framework-version", VERSION, *extra, "-c", command]
    result = run_cli(argv)
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


def effective(report: dict[str, Any], name: str) -> Any:
    return next(s["effective"] for s in report["settings"] if s["name"] == name)


def test_a_repeated_check_answers_from_the_cache(env: FakeEnv, model: Path) -> None:
    first = check(model)
    assert (first["resolution"]["status"], first["resolution"]["cache"], env.runs()) == ("ok", "miss", 1)
    second = check(model)
    assert (second["resolution"]["status"], second["resolution"]["cache"], env.runs()) == ("ok", "hit", 1)
    assert effective(first, "chunked_prefill_size") == effective(second, "chunked_prefill_size") == 8192
    assert first["settings"] == second["settings"]
    assert first["findings"] == second["findings"]


def test_each_deciding_input_gives_a_fresh_resolution(env: FakeEnv, model: Path) -> None:
    check(model)
    assert env.runs() == 1
    config = json.loads((model / "config.json").read_text())
    config["max_position_embeddings"] = 4096
    (model / "config.json").write_text(json.dumps(config))
    assert check(model)["resolution"]["cache"] == "miss" and env.runs() == 2  # config.json bytes
    assert check(model, gpu="h200")["resolution"]["cache"] == "miss" and env.runs() == 3  # GPU profile
    check(model, "--env", "SGLANG_ENABLE_SPEC_V2=1")  # an environment variable of the server
    assert env.runs() == 4
    check(model, command=SG + " --chunked-prefill-size 4096")  # an argv word
    assert env.runs() == 5
    # every one of those is stored: each repeats from the cache
    check(model, command=SG + " --chunked-prefill-size 4096")
    check(model, gpu="h200")
    assert env.runs() == 5
    env.manifest.wheel_sha256 = "b" * 64  # the resolver environment rebuilt from another wheel
    environments.write_manifest(env.dir, env.manifest)
    check(model)
    assert env.runs() == 6


def test_a_file_named_on_the_command_line_is_part_of_the_key(
    env: FakeEnv, model: Path, tmp_path: Path
) -> None:
    template = tmp_path / "chat.jinja"
    template.write_text("{{ messages }}")
    command = SG + f" --chat-template {template}"
    check(model, command=command)
    check(model, command=command)
    assert env.runs() == 1
    template.write_text("{{ messages | tojson }}")
    check(model, command=command)
    assert env.runs() == 2


def test_argtraces_resolver_code_is_part_of_the_key(
    env: FakeEnv, model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    check(model)
    assert env.runs() == 1
    # the same key computed over a copy of argtrace/resolver/ with one stub changed
    copy = tmp_path / "argtrace" / "resolver"
    shutil.copytree(Path(cache.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(cache_write, "_RESOLVER_DIR", copy)
    monkeypatch.setattr(cache_write, "_SIZING_PY", Path(cache_write._SIZING_PY))
    monkeypatch.setattr(cache_write, "_code_digest", None)
    same = cache_write.code_digest()
    monkeypatch.setattr(cache_write, "_code_digest", None)
    with (copy / "stubs" / "_argtrace_stubs.py").open("a") as f:
        f.write("\n# changed\n")
    assert cache_write.code_digest() != same
    check(model)
    assert env.runs() == 2


def test_no_cache_bypasses_and_clear_cache_empties(env: FakeEnv, model: Path, tmp_path: Path) -> None:
    check(model)
    report = check(model, "--no-cache")
    assert (report["resolution"]["cache"], env.runs()) == ("off", 2)
    assert check(model)["resolution"]["cache"] == "hit"  # --no-cache lasted one command
    assert env.runs() == 2
    (tmp_path / "data" / "schemas-sglang-0.5.23-0123abcd.marshal").write_bytes(b"kept")
    result = run_cli(["resolver", "--format", "json", "clear-cache"])
    assert result.status == 0, result.stderr
    section = result.json["sections"]["resolver"] if "sections" in result.json else result.json["resolver"]
    assert section["removed"] == 1
    assert section["resolution_cache"] == str(tmp_path / "resolutions")
    assert list((tmp_path / "resolutions").iterdir()) == []
    # the kept data copies and compiled dataclass methods go too (only argtrace's .marshal files)
    assert section["data_cache"] == str(tmp_path / "data")
    assert section["data_removed"] >= 1  # the copy below (and what the checks above kept, run in-process)
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["keep.txt"]
    check(model)
    assert env.runs() == 3


def test_a_corrupt_or_foreign_entry_is_ignored_and_replaced(
    env: FakeEnv, model: Path, tmp_path: Path
) -> None:
    check(model)
    (entry,) = (tmp_path / "resolutions").iterdir()
    for bad in ("{not json", json.dumps({"format": 1, "key": "0" * 64, "payload": {"data": {}}}), "[]"):
        entry.write_text(bad)
        report = check(model)
        assert report["resolution"]["cache"] == "miss"
        assert effective(report, "chunked_prefill_size") == 8192
    assert env.runs() == 4
    assert json.loads(entry.read_text())["key"] == entry.stem  # replaced by a good one
    assert check(model)["resolution"]["cache"] == "hit" and env.runs() == 4


def test_a_python_interpreter_is_never_cached(env: FakeEnv, model: Path) -> None:
    python = str(env.dir / "bin" / "python")
    assert check(model, "--python", python)["resolution"]["cache"] == "off"
    check(model, "--python", python)
    assert env.runs() == 2


def test_a_crash_is_not_stored(env: FakeEnv, model: Path) -> None:
    python = env.dir / "bin" / "python"
    good = python.read_text()
    python.write_text(f'#!/bin/sh\necho run >> "{env.count}"\nexit 1\n')
    assert check(model)["resolution"]["status"] == "crashed"
    python.write_text(good)
    assert check(model)["resolution"]["status"] == "ok"
    assert env.runs() == 2


def test_concurrent_writers_never_leave_half_an_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four processes store the same key 40 times each with a 1 MB payload while this one reads: every read
    is the whole payload (never a partial file), and no temporary file is left."""
    root = tmp_path / "resolutions"
    writer = (
        "import os, sys\n"
        f"os.environ['ARGTRACE_RESOLUTION_CACHE'] = {str(root)!r}\n"
        "from argtrace.resolver import cache_write\n"
        "for i in range(40):\n"
        "    cache_write.store('k' * 64, {'data': {'n': sys.argv[1], 'pad': 'x' * 1_000_000}})\n"
    )
    monkeypatch.setenv("ARGTRACE_RESOLUTION_CACHE", str(root))
    procs = [subprocess.Popen([sys.executable, "-c", writer, str(n)]) for n in range(4)]
    while any(p.poll() is None for p in procs):
        got = cache.load("k" * 64)
        if got is not None:
            assert got["data"]["n"] in ("0", "1", "2", "3") and len(got["data"]["pad"]) == 1_000_000
    assert [p.wait() for p in procs] == [0, 0, 0, 0]
    assert [p.name for p in root.iterdir()] == ["k" * 64 + ".json"]
    assert cache.load("k" * 64) is not None


def test_framework_sizing_runs_are_cached(env: FakeEnv, model: Path) -> None:
    from argtrace.layers.memory.framework_sizing import run_framework_sizing

    python = env.dir / "bin" / "python"
    line = json.dumps({"version": VERSION, "kv_bytes_per_token": 4096, "max_total_num_tokens": 123456})
    python.write_text(f"#!/bin/sh\necho run >> \"{env.count}\"\necho 'loading'\necho '{line}'\n")
    kwargs: dict[str, Any] = {"pre_load_bytes": 1 << 30, "post_load_bytes": 2 << 30}
    first = run_framework_sizing(model, ["--tp-size", "1"], "h100", VERSION, **kwargs)
    second = run_framework_sizing(model, ["--tp-size", "1"], "h100", VERSION, **kwargs)
    assert first is not None and second is not None
    assert (first.kv_bytes_per_token, first.max_total_num_tokens, first.error) == (4096, 123456, None)
    assert (second.kv_bytes_per_token, second.max_total_num_tokens) == (4096, 123456)
    assert env.runs() == 1
    run_framework_sizing(model, ["--tp-size", "1"], "h200", VERSION, **kwargs)
    assert env.runs() == 2
    with cache.bypassed():
        run_framework_sizing(model, ["--tp-size", "1"], "h100", VERSION, **kwargs)
    assert env.runs() == 3
