"""SGLang settings that fit: the search ``mem`` and ``check`` answer a launch that does not fit (or fits
tightly) with, best first, each with what it costs against the launch as written.

It starts from the largest ``mem_fraction_static`` the leftover for draft, CUDA graphs and activations
allows; for hybrid (Mamba) models it walks ``max_running_requests`` down a ladder with
``max_mamba_cache_size`` pinned to what those requests need, and a bfloat16 SSM state as a last resort.
It is a unit because it only sizes candidates (with the formulas of ``sglang.py`` or the framework's own
code handed in as ``evaluate``) and ranks them; analyze.py decides when to ask. vLLM's search is
``vllm.suggest``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from argtrace.gpus import GIB, GpuProfile
from argtrace.layers.memory import sglang as sg
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.weights import WeightEstimate

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SAFETY_BYTES = int(0.25 * GIB)


MRR_LADDER = (256, 128, 96, 64, 48, 32, 24, 16, 12, 8, 4, 2, 1)


def _flags(changes: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for name, value in changes.items():
        if value is None:
            continue
        out += [f"--{name.replace('_', '-')}", str(value)]
    return out


def _plan_dict(p: sg.Plan) -> dict[str, Any]:
    return {
        "max_total_num_tokens": p.max_total_num_tokens,
        "max_mamba_cache_size": p.max_mamba_cache_size if p.mamba else None,
        "max_running_requests": p.max_running_requests,
        "margin_bytes": p.margin_bytes,
    }


def suggest(
    spec: ModelSpec,
    base: sg.Resolved,
    weights: WeightEstimate,
    gpu: GpuProfile,
    current: sg.Plan,
    pre_load: int | None = None,
    *,
    ratio: int | None = None,
    evaluate: Callable[[list[dict[str, Any]], list[sg.Resolved]], list[sg.Plan]] | None = None,
) -> list[dict[str, Any]]:
    """Complete alternative settings that fit, best first, each with what it costs against ``current``.

    Search: ``mem_fraction_static`` as large as the leftover for draft + CUDA graphs + activations (+0.25 GiB)
    allows; for hybrid models, ``max_running_requests`` down a ladder with ``max_mamba_cache_size`` pinned to
    exactly what those requests need (``max_running_requests x`` the framework's mamba ratio), and the
    bfloat16 SSM state as a last resort. ``ratio``: Mamba slots per request (default the formulas');
    ``evaluate``: sizes all candidates at once (``mem --resolver``: SGLang's own code), else the formulas.
    """

    def run(r: sg.Resolved) -> sg.Plan:
        return sg.plan(spec, r, weights, gpu.total_bytes, pre_load_bytes=pre_load)

    pre = current.pre_load_bytes
    frac_safe = 0.95
    for _ in range(3):
        # What must fit outside the fraction, at the upper end of the CUDA graph range; the draft KV pool
        # grows with the tokens the fraction gives, so iterate.
        probe = run(replace(base, mem_fraction_static=frac_safe))
        draft = weights.draft_bytes_per_rank if base.speculative_algorithm in ("EAGLE", "EAGLE3") else 0
        need = (
            max(probe.draft_bytes, draft) + probe.cuda_graph_range[1] + probe.activation_bytes + SAFETY_BYTES
        )
        frac_safe = int((1 - need / pre) * 200) / 200 if pre > 0 else 0.0
        frac_safe = max(min(frac_safe, 0.95), 0.05)
    candidates: list[tuple[str, dict[str, Any]]] = [
        ("mem_fraction_static only", {"mem_fraction_static": frac_safe})
    ]
    if current.mamba is not None:
        ratio = ratio or sg.mamba_ratio(base)
        wanted = base.max_running_requests or current.max_running_requests or 48
        ladder = sorted({wanted, *MRR_LADDER}, reverse=True)
        for mrr in ladder:
            if mrr > max(wanted, 1):
                continue
            candidates.append(
                (
                    f"{mrr} running requests",
                    {
                        "mem_fraction_static": frac_safe,
                        "max_running_requests": mrr,
                        "max_mamba_cache_size": mrr * ratio,
                    },
                )
            )
        if (base.mamba_ssm_dtype or spec.mamba_ssm_dtype or "float32") == "float32":
            for mrr in ladder:
                if mrr > max(wanted, 1):
                    continue
                candidates.append(
                    (
                        f"{mrr} running requests, bfloat16 SSM state",
                        {
                            "mem_fraction_static": frac_safe,
                            "max_running_requests": mrr,
                            "max_mamba_cache_size": mrr * ratio,
                            "mamba_ssm_dtype": "bfloat16",
                        },
                    )
                )
    min_tokens = min(base.context_len, 32768)
    out: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    resolved = [replace(base, **changes) for _label, changes in candidates]
    if evaluate is not None:
        plans = evaluate([changes for _label, changes in candidates], resolved)
    else:
        plans = [run(r) for r in resolved]
    for (label, changes), r, p in zip(candidates, resolved, plans, strict=True):
        if p.verdict != "fits" or p.max_total_num_tokens < min_tokens:
            continue
        key = (p.max_running_requests, "mamba_ssm_dtype" in changes)
        if key in seen:
            continue
        seen.add(key)
        full: dict[str, Any] = {
            "mem_fraction_static": r.mem_fraction_static,
            "max_mamba_cache_size": r.max_mamba_cache_size,
            "mamba_full_memory_ratio": r.mamba_full_memory_ratio,
            "max_running_requests": r.max_running_requests,
        }
        if "mamba_ssm_dtype" in changes:
            full["mamba_ssm_dtype"] = "bfloat16"
        cost = {
            "tokens": p.max_total_num_tokens - current.max_total_num_tokens,
            "mamba_slots": (p.max_mamba_cache_size - current.max_mamba_cache_size) if p.mamba else 0,
            "running_requests": p.max_running_requests - current.max_running_requests,
        }
        words = []
        if current.verdict == "fits":
            words = [f"{v:+d} {k.replace('_', ' ')}" for k, v in cost.items() if v]
        else:
            # Against what was asked: the launch itself has no pools to compare with.
            asked = base.max_running_requests
            if asked is not None and p.max_running_requests < asked:
                words.append(f"{p.max_running_requests} running requests instead of {asked}")
        if "mamba_ssm_dtype" in changes:
            words.append("SSM state in bfloat16 (less exact recurrence)")
        out.append(
            {
                "label": label,
                "settings": full,
                "flags": _flags(
                    {k: v for k, v in full.items() if v is not None and k != "mamba_full_memory_ratio"}
                ),
                **_plan_dict(p),
                "cost": ", ".join(words) or "none",
                "cost_detail": cost,
            }
        )
    # Same numerics first (a bfloat16 SSM state is a last resort), then more running requests, more tokens.
    out.sort(
        key=lambda s: (
            "mamba_ssm_dtype" not in s["settings"],
            s["max_running_requests"],
            s["max_total_num_tokens"],
        ),
        reverse=True,
    )
    return out[:4]
