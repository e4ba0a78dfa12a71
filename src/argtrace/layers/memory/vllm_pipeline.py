"""vLLM with ``--pipeline-parallel-size N``: every stage planned with its own layers, the worst reported.

Each PP worker profiles its own memory and reports its own KV cache specs (only the layers its
``make_layers`` built, ``model_executor/models/utils.py`` over ``distributed/utils.py:198``
``get_pp_indices``); ``get_kv_cache_configs`` then gives every rank the smallest rank's block count
(0.33.0 ``v1/core/kv_cache_planning.py:1580-1594``). So the stage with the fewest blocks decides the
capacity, and a stage whose weights or check do not fit stops the start-up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from argtrace.layers.memory import pipeline as pl
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.weights import WeightEstimate, estimate_weights
from argtrace.model import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def plan_stages(
    spec: ModelSpec,
    r: Any,
    whole: WeightEstimate,
    gpu_total_bytes: int,
    available_bytes: int | None,
    pp: int,
    version: str,
    env: Mapping[str, str],
    model_dir: Path | None,
    section: dict[str, Any],
    findings: list[Finding],
    rules: Any,
    plan: Callable[..., Any],
) -> tuple[Any, WeightEstimate, ModelSpec, str, Callable[[int], WeightEstimate]] | None:
    """(the worst stage's plan, its weights, its view of the model, how findings name it, its weights at
    another TP size); None with an MM007 when the split is refused. ``plan`` is ``vllm.plan`` (passed in:
    ``vllm`` imports this module)."""
    part = pl.partition("vllm", version, len(spec.layer_types), pp, env)
    if part.error is not None or len(spec.layer_types) < pp:
        message = (
            part.error or f"{len(spec.layer_types)} layers cannot be split over pipeline_parallel_size {pp}"
        )
        findings.append(
            rules.MM007.finding(
                f"pipeline_parallel_size {pp}: {message} ({part.source})", setting="pipeline_parallel_size"
            )
        )
        return None
    weights = [pl.stage_weights(spec, r.tp, whole, s, pp, "vllm", model_dir) for s in part.stages]
    views = [pl.stage_spec(spec, s) for s in part.stages]
    # A log's "Available KV cache memory" line is rank 0's.
    plans = [
        plan(v, r, w, gpu_total_bytes, available_bytes if s.rank == 0 else None, last_stage=s.last)
        for s, v, w in zip(part.stages, views, weights, strict=True)
    ]
    # A log's available memory is rank 0's: then stage 0 is the one its figures can be compared with.
    worst = (
        0
        if available_bytes is not None
        else pl.worst_stage(plans, key=lambda p: (p.num_blocks, p.margin_bytes))
    )
    rows = []
    for s, p, w in zip(part.stages, plans, weights, strict=True):
        embed, head = pl.stage_extras("vllm", spec, s, pp)
        rows.append(
            {
                "stage": s.rank,
                "layers": [s.start, s.end],
                "embedding": embed,
                "lm_head": head,
                "weights_bytes": w.bytes_per_rank,
                "kv_layers": p.kv.layers,
                "kv_bytes_per_token": p.kv.bytes_per_token,
                "mamba_layers": p.layout.mamba_layers,
                "available_kv_cache_bytes": p.available_bytes,
                "num_blocks": p.num_blocks,
                "max_total_num_tokens": p.kv_tokens if p.oom_stage is None else None,
                "verdict": p.verdict,
                "oom_stage": p.oom_stage,
                "margin_bytes": p.margin_bytes,
            }
        )
    synced = (
        "stage 0 sized from the log's available KV cache memory (rank 0's); the other stages are estimates"
        if available_bytes is not None
        else f"num_blocks {plans[worst].num_blocks}: the smallest rank's, get_kv_cache_configs"
        if all(p.verdict != "oom" for p in plans)
        else "each stage's own (a stage does not fit)"
    )
    reported = "log" if available_bytes is not None else "worst"
    section["pipeline"] = pl.section_of(part, pp, rows, worst, synced, reported)
    section["per"] = f"one rank of pipeline stage {worst} (of {pp}) after TP/EP sharding, bytes"
    stage = part.stages[worst]

    def weights_for(tp: int) -> WeightEstimate:
        return pl.stage_weights(spec, tp, estimate_weights(spec, tp, model_dir), stage, pp, "vllm", model_dir)

    where = f" ({pl.stage_line(part, worst, pp, reported)})"
    return plans[worst], weights[worst], views[worst], where, weights_for
