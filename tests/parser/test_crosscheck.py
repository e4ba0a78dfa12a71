"""Cross-check: argtrace's rebuilt parser against the REAL framework parser, on the same argv.

For each corpus argv, the real parser runs inside the resolver environment of that release
(``argtrace.resolver.environments``); the exit status must match (0 parsed, 2 argparse error, 1 the
launcher stopped before argparse) and, when it parsed, every namespace value must equal ours. Skipped
when the environment is not built (CI builds them: ``python -m argtrace.resolver.environments build``).
"""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import sglang, vllm
from argtrace.frameworks.schema import bundled_versions, load_schema
from argtrace.layers.parser import _jsonable, build_parser, run_parser

from .corpus import CONFIG_FILES, SGLANG, SGLANG_CONFIG, VLLM, VLLM_CONFIG
from .helpers import server

pytestmark = pytest.mark.frameworks

RUNNER = Path(__file__).with_name("real_parse.py")


def corpus_of(framework: str) -> list[tuple[str, list[str], bool]]:
    """(entrypoint, argv, needs the config directory) for every case of one framework."""
    plain = SGLANG if framework == "sglang" else VLLM
    config = SGLANG_CONFIG if framework == "sglang" else VLLM_CONFIG
    return [(e, a, False) for e, a in plain] + [(e, a, True) for e, a in config]


@functools.lru_cache(maxsize=1)
def config_dir() -> str:
    import tempfile

    path = Path(tempfile.mkdtemp(prefix="argtrace-crosscheck-"))
    for name, text in CONFIG_FILES.items():
        (path / name).write_text(text)
    return str(path)


TARGETS = [("sglang", "0.5.10.post1"), ("sglang", "0.5.23"), ("vllm", "0.33.0")]
# Also checked when their schema and environment exist (CI needs only the three above).
EXTRA_TARGETS = [("sglang", "0.5.15.post1"), ("sglang", "0.5.19"), ("vllm", "0.11.0")]
# Known differences, each with its reason: what the schema cannot tell argtrace.
KNOWN_DIFFERENCES: dict[tuple[str, str], dict[tuple[str, ...], str]] = {}


def _manifest(framework: str, version: str) -> Any:
    try:
        from argtrace.resolver import environments
    except ImportError:
        return None
    return environments.find_environment(framework, version)


@functools.lru_cache(maxsize=8)
def real_results(framework: str, version: str) -> list[dict[str, Any]] | None:
    manifest = _manifest(framework, version)
    if manifest is None:
        return None
    from argtrace.resolver import environments

    extra = {}
    try:
        from argtrace.resolver.fake_gpu import fake_gpu_env

        extra["ARGTRACE_FAKE_GPU"] = fake_gpu_env("h100")
    except Exception:
        pass
    cases = [
        {"entrypoint": e, "argv": a, "cwd": config_dir() if cfg else None}
        for e, a, cfg in corpus_of(framework)
    ]
    proc = subprocess.run(
        [str(environments.env_python(Path(manifest.path))), str(RUNNER), framework],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=900,
        env=environments.runtime_env(manifest, extra),
    )
    if proc.returncode != 0 or not proc.stdout.strip():
        raise AssertionError(f"real parser runner failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def ours(
    framework: str, version: str, entrypoint: str, argv: list[str], cwd: str | None = None
) -> dict[str, Any]:
    schema = load_schema(framework, version)
    srv = server(argv, entrypoint=entrypoint, cwd=cwd)
    adapter = sglang if framework == "sglang" else vllm
    prepared = adapter.prepare_argv(srv, schema)
    if prepared.fatal:
        return {"exit": prepared.fatal[0], "error": prepared.fatal[1], "namespace": None}
    outcome = run_parser(prepared, schema)
    ns = {k: _jsonable(v) for k, v in outcome.namespace.items()} if outcome.exit_status == 0 else None
    return {"exit": outcome.exit_status, "error": outcome.first_error, "namespace": ns}


def _same(mine: Any, real: Any) -> bool:
    if isinstance(real, dict) and "__enum__" in real:
        # pydantic turns "FULL" into CUDAGraphMode.FULL: the name or the value is what the user wrote.
        name = str(real["__enum__"])
        return (isinstance(mine, str) and mine.lower() == name.lower()) or _same(mine, real.get("value"))
    if isinstance(real, dict) and "__obj__" in real:
        attrs = real.get("attrs", {})
        if isinstance(mine, dict):
            return all(k in attrs and _same(v, attrs[k]) for k, v in mine.items())
        return False
    if isinstance(mine, float) or isinstance(real, float):
        try:
            return float(mine) == float(real)
        except (TypeError, ValueError):
            return False
    if isinstance(mine, (list, tuple)) and isinstance(real, (list, tuple)):
        return len(mine) == len(real) and all(_same(a, b) for a, b in zip(mine, real, strict=True))
    if isinstance(mine, dict) and isinstance(real, dict):
        return set(mine) == set(real) and all(_same(mine[k], real[k]) for k in mine)
    return bool(mine == real)


def compare(framework: str, version: str, index: int, real: dict[str, Any]) -> list[str]:
    """Differences between our result and the real one for corpus case ``index`` (empty: equal)."""
    entrypoint, argv, cfg = corpus_of(framework)[index]
    mine = ours(framework, version, entrypoint, argv, config_dir() if cfg else None)
    diffs: list[str] = []
    if mine["exit"] != real["exit"]:
        return [f"exit {mine['exit']} ({mine['error']}) != real {real['exit']} ({real['error']})"]
    if real["exit"] != 0:
        return diffs
    schema = load_schema(framework, version)
    skip = build_parser(schema).unknown_converters
    real_ns = real["namespace"] or {}
    mine_ns = mine["namespace"] or {}
    for dest, value in real_ns.items():
        if dest not in mine_ns:
            diffs.append(f"{dest}: missing (real {value!r})")
            continue
        mv = mine_ns[dest]
        if isinstance(value, dict) and "repr" in value and len(value) == 1:
            continue
        if (
            any(sp.default_is_repr for sp in schema.options_for_dest(dest))
            and isinstance(mv, str)
            and (mv == _default(schema, dest))
        ):
            continue  # an object default the schema can only repr, not passed on the command line
        if dest in skip and (mv == _default(schema, dest)):
            continue
        if not _same(mv, value):
            diffs.append(f"{dest}: ours {mv!r} != real {value!r}")
    return diffs


def _default(schema: Any, dest: str) -> Any:
    for spec in schema.options_for_dest(dest):
        return spec.default_value
    return None


@pytest.mark.parametrize(("framework", "version"), TARGETS + EXTRA_TARGETS)
def test_crosscheck(framework: str, version: str) -> None:
    if version not in bundled_versions(framework):
        pytest.skip(f"no bundled schema for {framework} {version}")
    results = real_results(framework, version)
    if results is None:
        pytest.skip(f"no resolver environment for {framework} {version}")
    corpus = corpus_of(framework)
    assert len(results) == len(corpus) >= 60
    failures = []
    known = KNOWN_DIFFERENCES.get((framework, version), {})
    for i, real in enumerate(results):
        diffs = compare(framework, version, i, real)
        if diffs and tuple(corpus[i][1]) not in known:
            failures.append(f"{corpus[i][0]} {corpus[i][1]}: " + "; ".join(diffs[:5]))
    assert not failures, f"{len(failures)}/{len(corpus)} differ:\n" + "\n".join(failures)
