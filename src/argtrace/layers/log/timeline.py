"""Start-up steps a kept line reports: the timeline's events and their figures.

Each framework logs its steps in its own words: SGLang ``Load weight end. ... mem usage=15.3 GB``, ``KV Cache
is allocated. #tokens: ...``, ``Capture cuda graph end. Time elapsed: ...``, the scheduler's
``max_total_num_tokens=..., max_running_requests=N``; vLLM ``Model loading took 15.2 GiB``, ``GPU KV cache
size: N tokens``, ``Graph capturing finished in 12 secs, took 0.54 GiB``. ``_timeline`` turns one line into
an event of ``launch.EVENTS`` with its numbers; a line no step explains is an error candidate
(``errors.py``). A cheap test of ``_TIMELINE_KEYS`` comes before the patterns.
"""

from __future__ import annotations

import re

from argtrace.layers.log.errors import _candidate
from argtrace.layers.log.launch import Launch
from argtrace.layers.log.lazyre import LazyPattern as _lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_GB = r"([\d.]+)\s*(?:GB|GiB)"
_SGL_WEIGHT_END = _lazy(r"Load weight end\.(?P<rest>.*)", needles=("Load weight end.",))
_SGL_WEIGHT_BEGIN = _lazy(r"Load weight begin\.", needles=("Load weight begin.",))
_SGL_KV = _lazy(r"KV Cache is allocated\.(?P<rest>.*)", needles=("KV Cache is allocated.",))
_SGL_MAMBA = _lazy(r"Mamba Cache is allocated\.(?P<rest>.*)", needles=("Mamba Cache is allocated.",))
_SGL_POOL_END = _lazy(r"Memory pool end\. avail mem=" + _GB, needles=("Memory pool end. avail mem=",))
_SGL_GRAPH_END = _lazy(
    r"Capture (?P<what>[\w ]*?)(?:cuda|CUDA) graph end\.(?P<rest>.*)", needles=(" graph end.",)
)
_SGL_MAX_TOKENS = _lazy(
    r"max_total_num_tokens=(?P<tokens>\d+)(?P<rest>.*)", needles=("max_total_num_tokens=",)
)
_READY = _lazy(
    r"The server is fired up and ready to roll|Uvicorn running on|Application startup complete"
    # vLLM's "Starting vLLM API server on" became "Starting vLLM server on" (0.2x:
    # entrypoints/launchers/api_server/entry.py, logged just before serve_http), the same step; vLLM-Omni's
    # diffusion server says "Starting vLLM Diffusion API server on" (vllm-omni entrypoints/openai/
    # api_server.py, vllm-omni PR#366's log). Each names the address it serves on ("... on %s", 0.33.0
    # entry.py:139); a launcher's own "Starting vLLM server: /usr/local/bin/vllm" (gpustack#2769, before vLLM
    # has started) is not the step
    r"|Starting vLLM (?:\w+ )?(?:API )?server(?: \d+)? on\b",
    needles=(
        "The server is fired up and ready to roll",
        "Uvicorn running on",
        "Application startup complete",
        "Starting vLLM",
    ),
)
_VLLM_ARCH = _lazy(r"Resolved architecture: (?P<arch>\w+)", needles=("Resolved architecture: ",))
_VLLM_WEIGHTS = _lazy(r"(?:Model loading|Loading model weights) took " + _GB, needles=(" took ",))
_VLLM_KV_MEM = _lazy(r"Available KV cache memory: " + _GB, needles=("Available KV cache memory: ",))
_VLLM_KV_TOKENS = _lazy(r"GPU KV cache size: (?P<tokens>[\d,]+) tokens", needles=("GPU KV cache size: ",))
_VLLM_KV_CONC = _lazy(
    r"Maximum concurrency for (?P<per>[\d,]+) tokens per request: (?P<x>[\d.]+)x",
    needles=("Maximum concurrency for ",),
)
_VLLM_INIT_ENGINE = _lazy(
    r"init engine \(profile, create kv cache, warmup model\) took (?P<s>[\d.]+) s(?:econds)?",
    needles=("init engine (profile, create kv cache, warmup model) took ",),
)
_VLLM_GRAPH = _lazy(
    r"Graph capturing finished in (?P<s>[\d.]+) secs?, took " + _GB, needles=("Graph capturing finished in ",)
)
# (vLLM's "Loading drafter model..." begins the draft's loading, hang._KEPT_BEGINS: 0.33.0's
# gpu_model_runner.py:5010 logs it just before ``self.drafter.load_model(self.model)``, and "Model loading
# took" (:5089) follows both models; no vLLM line says the draft alone was loaded.)
_DRAFT_TYPE = _lazy(r"(?i)mtp|nextn|eagle|draft|dspark|medusa|dflash")

# Every timeline line contains one of these (a cheap test before the regexes).
_TIMELINE_KEYS = (
    "Load weight",
    "Cache is allocated",
    "Memory pool end",
    "graph end",
    "max_total_num_tokens",
    "fired up",
    "Uvicorn running",
    "startup complete",
    "Starting vLLM",
    "Resolved architecture",
    "took",
    "KV cache",
    "Maximum concurrency",
)


def _num(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _timeline(launch: Launch, body: str, event: Any, line_no: int) -> None:
    m: re.Match[str] | None
    if not any(key in body for key in _TIMELINE_KEYS):
        _candidate(launch, body, line_no)
        return
    if _SGL_WEIGHT_BEGIN.search(body):
        event("model_config", source="load weight begin")
        return
    m = _SGL_WEIGHT_END.search(body)
    if m:
        rest = m.group("rest")
        usage = re.search(r"mem usage=" + _GB, rest)
        typ = re.search(r"type=(\w+)", rest)
        gib = _num(usage.group(1)) if usage else None
        if "weights_loaded" in launch.events and typ and _DRAFT_TYPE.search(typ.group(1)):
            event("draft_worker_ready", type=typ.group(1), gib=gib, source="draft weights loaded")
        else:
            event("weights_loaded", gib=gib, type=typ.group(1) if typ else None)
        return
    m = _SGL_MAMBA.search(body)
    if m:
        rest = m.group("rest")
        slots = re.search(r"max_mamba_cache_size:\s*(\d+)", rest)
        conv = re.search(r"conv_state size:\s*" + _GB, rest)
        ssm = re.search(r"ssm_state size:\s*" + _GB, rest)
        parts = [
            x
            for x in (_num(conv.group(1)) if conv else None, _num(ssm.group(1)) if ssm else None)
            if x is not None
        ]
        event(
            "mamba_cache_allocated",
            slots=int(slots.group(1)) if slots else None,
            gib=round(sum(parts), 4) if parts else None,
        )
        return
    m = _SGL_KV.search(body)
    if m:
        rest = m.group("rest")
        tokens = re.search(r"#tokens:\s*(\d+)", rest)
        k = re.search(r"\bK size:\s*" + _GB, rest)
        v = re.search(r"\bV size:\s*" + _GB, rest)
        kv = re.search(r"\bKV size:\s*" + _GB, rest)
        kv_parts = [n for n in (_num(x.group(1)) for x in (k, v, kv) if x) if n is not None]
        gib = round(sum(kv_parts), 4) if kv_parts else None
        event("kv_cache_allocated", tokens=int(tokens.group(1)) if tokens else None, gib=gib)
        return
    m = _SGL_POOL_END.search(body)
    if m:
        event("memory_pool_end", avail_gib=_num(m.group(1)))
        return
    m = _SGL_GRAPH_END.search(body)
    if m:
        rest = m.group("rest")
        secs = re.search(r"(?:Time elapsed:|elapsed=)\s*([\d.]+)\s*s", rest)
        usage = re.search(r"mem usage=" + _GB, rest)
        fields = {
            "seconds": _num(secs.group(1)) if secs else None,
            "gib": _num(usage.group(1)) if usage else None,
        }
        if "draft" in m.group("what").lower():
            event("draft_worker_ready", source="draft CUDA graph captured", **fields)
        else:
            event("cuda_graph_captured", **fields)
        return
    m = _SGL_MAX_TOKENS.search(body)
    if m:
        running = re.search(r"max_running_requests=(\d+)", m.group("rest"))
        if "kv_cache_allocated" not in launch.events:
            event("kv_cache_allocated", tokens=int(m.group("tokens")))
        kv_event = launch.events["kv_cache_allocated"]
        kv_event.fields.setdefault("tokens", int(m.group("tokens")))
        kv_event.fields["max_total_num_tokens"] = int(m.group("tokens"))
        launch.scheduler_line = line_no
        if running:
            kv_event.fields["slots"] = int(running.group(1))
        return
    if _READY.search(body):
        if launch.ready_announced and "Starting vLLM" not in body:
            launch.events.pop("server_ready", None)
            launch.ready_announced = False
        elif "server_ready" not in launch.events and "Starting vLLM server" in body:
            launch.ready_announced = True
        event("server_ready")
        return
    m = _VLLM_ARCH.search(body)
    if m:
        event("model_config", architecture=m.group("arch"))
        return
    m = _VLLM_WEIGHTS.search(body)
    if m:
        if "weights_loaded" in launch.events and launch.speculative:
            event("draft_worker_ready", gib=_num(m.group(1)), source="draft model loaded")
        else:
            event("weights_loaded", gib=_num(m.group(1)))
            if "draft_worker" in launch.begun:
                # "Model loading took" follows the drafter's loading too (0.33.0 gpu_model_runner.py:5089)
                event("draft_worker_ready", source="model loading took")
        return
    m = _VLLM_KV_MEM.search(body)
    if m:
        event("kv_cache_allocated", gib=_num(m.group(1)))
        return
    m = _VLLM_KV_TOKENS.search(body)
    if m:
        event("kv_cache_allocated")
        launch.events["kv_cache_allocated"].fields["tokens"] = int(m.group("tokens").replace(",", ""))
        return
    m = _VLLM_KV_CONC.search(body)
    if m and "kv_cache_allocated" in launch.events:
        launch.events["kv_cache_allocated"].fields["max_concurrency"] = _num(m.group("x"))
        return
    m = _VLLM_GRAPH.search(body)
    if m:
        event("cuda_graph_captured", seconds=_num(m.group("s")), gib=_num(m.group(2)))
        return
    m = _VLLM_INIT_ENGINE.search(body)
    if m:
        launch.warmed_up_line = launch.warmed_up_line or line_no
        event("memory_pool_end", seconds=_num(m.group("s")))
        return
    _candidate(launch, body, line_no)
