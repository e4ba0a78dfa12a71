"""SGLang with ``--pp-size N``: every pipeline stage sized with its own layers, the worst one reported.

Each stage is one ModelRunner: its weights (``pipeline.stage_weights``), its KV layers (the full-attention
layers in ``[start_layer, end_layer)``, 0.5.10.post1 ``model_runner_kv_cache_mixin.py:160-166``) and its Mamba
layers (the pool, ``:419-425``; the budget as ``pipeline.sglang_mamba_budget_layers`` says). The token
capacity is then synced across PP ranks with ``all_reduce(MIN)`` (0.5.10.post1
``model_runner_kv_cache_mixin.py:828-836``, 0.5.23 ``mem_cache/kv_cache_configurator.py:3107-3113``), so every
stage allocates the smallest stage's token count: the stages are planned once, then again with that count as
their cap, and ``_resolve_max_num_reqs`` follows the synced capacity as in the framework.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from argtrace.layers.memory import pipeline as pl
from argtrace.layers.memory import sglang as sg
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.weights import WeightEstimate
from argtrace.model import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass
class Staged:
    """SGLang's memory plan under ``--pp-size``: the stage split, then each stage's plan and weights."""

    partition: pl.Partition
    plans: list[sg.Plan]
    weights: list[WeightEstimate]


def _stage_row(stage: pl.Stage, p: sg.Plan, w: WeightEstimate, spec: ModelSpec, pp: int) -> dict[str, Any]:
    embed, head = pl.stage_extras("sglang", spec, stage, pp)
    return {
        "stage": stage.rank,
        "layers": [stage.start, stage.end],
        "embedding": embed,
        "lm_head": head,
        "weights_bytes": w.bytes_per_rank,
        "kv_layers": p.kv.layers,
        "kv_bytes_per_token": p.kv.bytes_per_token,
        "mamba_layers": p.mamba.layers if p.mamba else 0,
        "mamba_bytes_per_slot": p.mamba.bytes_per_slot if p.mamba else 0,
        "mamba_conv_bytes_per_slot": p.mamba.conv_bytes_per_slot if p.mamba else 0,
        "mamba_ssm_bytes_per_slot": p.mamba.ssm_bytes_per_slot if p.mamba else 0,
        "max_total_num_tokens": p.max_total_num_tokens if p.verdict != "oom" else None,
        "max_mamba_cache_size": p.max_mamba_cache_size if p.mamba else None,
        "verdict": p.verdict,
        "oom_stage": p.oom_stage,
        "margin_bytes": p.margin_bytes,
    }


def plan_stages(
    spec: ModelSpec,
    r: sg.Resolved,
    whole: WeightEstimate,
    gpu_total_bytes: int,
    pre_load_bytes: int | None,
    post_load_bytes: int | None,
    pp: int,
    version: str | None,
    env: Mapping[str, str],
    model_dir: Path | None,
    section: dict[str, Any],
    findings: list[Finding],
    rules: Any,
) -> tuple[Staged, int] | None:
    """The stages' plans and the index of the worst; None (with an MM007) when the split is refused."""
    part = pl.partition("sglang", version, len(spec.layer_types), pp, env)
    if part.error is not None or len(spec.layer_types) < pp:
        # make_layers asserts num_hidden_layers >= pp_size (utils/common.py:632 in 0.5.10.post1)
        message = part.error or f"{len(spec.layer_types)} layers cannot be split over pp_size {pp}"
        findings.append(rules.MM007.finding(f"pp_size {pp}: {message} ({part.source})", setting="pp_size"))
        return None
    budget = pl.sglang_mamba_budget_layers(version, spec, part) if spec.is_hybrid else None
    weights = [pl.stage_weights(spec, r.tp, whole, s, pp, "sglang", model_dir) for s in part.stages]

    def run(resolved: sg.Resolved) -> list[sg.Plan]:
        # A log's Load weight lines are rank 0's: only stage 0 takes them.
        return [
            sg.plan(
                spec,
                resolved,
                w,
                gpu_total_bytes,
                pre_load_bytes if s.rank == 0 else None,
                post_load_bytes if s.rank == 0 else None,
                caches=pl.stage_spec(spec, s),
                mamba_budget_layers=budget,
            )
            for s, w in zip(part.stages, weights, strict=True)
        ]

    plans = run(r)
    synced = "each stage's own capacity (a stage does not fit)"
    from_log = pre_load_bytes is not None or post_load_bytes is not None
    if from_log:
        # The log's Load weight lines are rank 0's and its pool sizes are already the synced ones: stage 0 is
        # the one its figures can be compared with.
        synced = "stage 0 sized from the log's own figures (rank 0's); the other stages are estimates"
    elif all(p.verdict != "oom" for p in plans):
        tokens = min(p.max_total_num_tokens for p in plans)
        capped = replace(
            r, max_total_tokens=tokens if r.max_total_tokens is None else min(tokens, r.max_total_tokens)
        )
        plans = run(capped)
        synced = f"max_total_num_tokens {tokens}: the smallest stage's, all_reduce(MIN) over the PP ranks"
    worst = 0 if from_log else pl.worst_stage(plans)
    rows = [_stage_row(s, p, w, spec, pp) for s, p, w in zip(part.stages, plans, weights, strict=True)]
    section["pipeline"] = pl.section_of(part, pp, rows, worst, synced, "log" if from_log else "worst")
    section["per"] = f"one rank of pipeline stage {worst} (of {pp}) after TP/EP sharding, bytes"
    return Staged(part, plans, weights), worst
