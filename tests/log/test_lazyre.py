"""The analyser's patterns compiled on first use (``layers/log/lazyre.py``) answer exactly as ``re`` does.

Each module-level ``LazyPattern`` of the log layer (``layers/log/*.py``) is run on every line of every
recorded log under tests/data: its
``search`` and ``match`` give the same spans and groups as the compiled expression's, and every line a
pattern with ``needles`` matches holds one of them (a needle that is not in every match would make the
analyser miss that line).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path

import pytest

import argtrace.layers.log
from argtrace.layers.log import analyze
from argtrace.layers.log.lazyre import LazyPattern

DATA = Path(__file__).resolve().parents[1] / "data"


def _patterns() -> dict[str, LazyPattern]:
    """Every module-level pattern of the layer, each once, named after the module that defines it."""
    out: dict[str, LazyPattern] = {}
    seen: set[int] = set()
    for info in sorted(pkgutil.iter_modules(argtrace.layers.log.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"argtrace.layers.log.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, LazyPattern) and id(value) not in seen:
                seen.add(id(value))
                out[f"{info.name}.{name}"] = value
    return out


PATTERNS = _patterns()


# Line shapes the recorded logs lack (written here, in the forms the analyser's patterns describe), so each
# pattern has lines it matches.
EXTRA = [
    "Nov 29 21:16:20 gpu-node-3 sglang[4242]: [2026-11-29 21:16:20] Load weight end. type=Qwen3, "
    "mem usage=15.3 GB",
    "[rank0]: Traceback (most recent call last):",
    "INFO server_args.py:512: Attention backend not set. Use fa3 backend by default.",
    "TP0 EP0",
    "(EngineCore_DP0 pid=1) INFO 11-29 21:16:20 [gpu_model_runner.py:2020] Loading drafter model...",
    "(EngineCore_DP0 pid=1) INFO 11-29 21:16:20 [gpu_model_runner.py:2020] Graph capturing finished in 12 "
    "secs, took 0.54 GiB",
    '  File "/sgl/python/sglang/srt/server_args.py", line 401, in __post_init__',
    "(EngineCore_DP0 pid=1) INFO 11-29 21:16:20 [core.py:210] init engine (profile, create kv cache, warmup "
    "model) took 41.20 seconds",
    # what split_prefix meets after a process tag or an outer time (logs_3: vllm-omni, dynamo)
    "[Stage-0] ERROR 01-29 01:46:12 [core.py:936] EngineCore failed to start.",
    # what split_prefix meets after a launcher's time (logs25: a Python launcher's logging record, a command
    # tag, vLLM's process tag in brackets)
    "- INFO - [container] (APIServer pid=557) INFO 05-29 09:14:45 [api_server.py:1] vLLM API server",
    "[/bin/sh]: [EngineCore_DP0][pid=1242] ERROR 01-22 12:05:33.129 [core.py:1302] EngineCore failed to "
    "start.",
    "[EngineCore_DP0][pid=1242] ERROR 01-22 12:05:33.129 [core.py:1302] EngineCore failed to start.",
    "1756144014882,(APIServer pid=1) RuntimeError: Engine core initialization failed.",
    "INFO dynamo_engine_vllm::worker: VLLM: (VllmWorkerProcess 04-23 11:34:24 model_runner.py:1434] Load",
    "(VllmWorkerProcess 04-23 11:34:24 model_runner.py:1434] Capturing cudagraphs for decoding.",
    # what split_prefix meets after an outer time (logs_5: a cloud logging export, lemonade's wrapper)
    "[severity: ERROR] [2026-02-18 14:43:05 TP1] Scheduler hit an exception: Traceback",
    "[Error] (Process) (EngineCore pid=42521) ERROR 06-09 14:01:52 [core.py:1136]     raise ValueError(",
    # what split_prefix meets after an outer time (logs29: a log collector's pod name and ``>>``,
    # slime#1177)
    "leihaodi-qwen3-8b-rl-eagle3-20251218-162008s-3da56-cfcd2 >> (SGLangEngine pid=3111) [2025-12-18 "
    "08:24:01 TP7] Scheduler hit an exception: Traceback (most recent call last):",
]


def _lines() -> list[str]:
    out: list[str] = []
    for line in EXTRA:
        out.append(line)
        out.append(analyze.split_prefix(line).body)
    for path in sorted(DATA.rglob("*.log")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            out.append(line)
            out.append(analyze.split_prefix(line).body)  # the analyser searches the body after the prefix
    return out


LINES = _lines()


def _span(m: re.Match[str] | None) -> tuple[tuple[int, int], tuple[str | None, ...]] | None:
    return None if m is None else (m.span(), m.groups())


def test_the_analyser_has_lazy_patterns_with_needles() -> None:
    # analyze.py's 39, pasted.py's _JOINED, prefix.py's 3 of logs_3, _COMPOSE of logs_4, 2 of logs_5,
    # 2 of logs6 (a bracketed ISO time, a markdown quote), 1 of logs18 (a CI viewer's line number), 3 of
    # logs25 (a CSV export's epoch time, a launcher's tag, vLLM's process tag in brackets), pyrepr.py's
    # _IDENT (logspeed29: a name read in one match); logs29: 1 more (a log collector's source name before
    # ``>>``), 1 fewer (timeline's _VLLM_DRAFT: no vLLM line says a draft alone was loaded; "Loading drafter
    # model" begins the step, hang._KEPT_BEGINS)
    assert len(PATTERNS) == 53
    assert sum(1 for p in PATTERNS.values() if p.needles) == 41
    assert len(LINES) > 500


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_same_answers_as_re(name: str) -> None:
    lazy = PATTERNS[name]
    compiled = re.compile(lazy.source, lazy.flags)
    matched = 0
    for line in LINES:
        found = compiled.search(line)
        assert _span(lazy.search(line)) == _span(found), line
        assert _span(lazy.match(line)) == _span(compiled.match(line)), line
        if found is not None:
            matched += 1
            if lazy.needles:
                assert any(needle in line for needle in lazy.needles), line
    assert matched > 0, name


def test_a_line_without_a_needle_does_not_compile() -> None:
    pattern = LazyPattern(r"Load weight end\.(?P<rest>.*)", needles=("Load weight end.",))
    assert pattern.search("Decode batch, #running-req: 3") is None
    assert pattern._compiled is None
    m = pattern.search("[x] Load weight end. type=Qwen3")
    assert m is not None and m.group("rest") == " type=Qwen3"
    assert pattern._compiled is not None
    assert LazyPattern(r"\d+").sub("0", "a12b3") == "a0b0"
