"""Run vLLM's own KV cache planning inside a resolver environment (``argtrace resolver``, vLLM 0.33.0).

``probe_plan`` runs this file with the environment's Python. ``main`` builds the per-layer
``FullAttentionSpec`` / ``MLAAttentionSpec`` / ``MambaSpec`` objects (``v1/kv_cache_interface.py``) with the
geometry ``vllm.py`` derived (block size after ``_align_hybrid_block_size``, padded Mamba page), then calls
the pure planning functions of ``v1/core/kv_cache_planning.py``: ``get_global_kv_cache_groups``,
``get_kv_cache_configs`` (null block, ``num_blocks``, ``_check_enough_kv_cache_memory`` with its
ValueError text and estimated maximum model length) and ``v1/core/kv_cache_utils.py``
``get_kv_cache_capacity`` (the ``GPU KV cache size`` tokens and ``Maximum concurrency``). The engine
config those functions read is a small stand-in object holding only the attributes they touch; no model,
no GPU. Importing vLLM takes about 10-15 s, so this only runs with ``--resolver``.

What stays argtrace's: the per-layer geometry (heads, dtypes, state shapes) and the available memory (the
profile run is measured on a GPU); ``docs/memory.md`` says so.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_S = 240
VERSION = "0.33.0"


def _state_params(spec: Any, plan: Any) -> dict[str, Any] | None:
    """The config fields vLLM's ``MambaStateShapeCalculator`` reads, for the probe to call it."""
    if spec is None or plan.mamba is None:
        return None
    if spec.family == "hybrid_gdn":
        return {
            "kind": "gdn",
            "num_k_heads": spec.linear_num_key_heads,
            "num_v_heads": spec.linear_num_value_heads,
            "head_k_dim": spec.linear_key_head_dim,
            "head_v_dim": spec.linear_value_head_dim,
            "conv_kernel": spec.conv_kernel,
        }
    return {
        "kind": "mamba2",
        "intermediate": spec.mamba_num_heads * spec.mamba_head_dim,
        "n_groups": spec.mamba_n_groups,
        "heads": spec.mamba_num_heads,
        "head_dim": spec.mamba_head_dim,
        "state": spec.ssm_state_size,
        "conv_kernel": spec.conv_kernel,
    }


def request_for(plan: Any, spec: Any = None, max_model_len: int | None = None) -> dict[str, Any]:
    """The probe's input from a ``vllm.Plan``: layer kinds, geometry, available memory; with ``spec``
    also the raw state parameters, so that vLLM computes the Mamba state shapes itself."""
    lay = plan.layout
    kv = plan.kv
    r = plan.resolved
    return {
        "state_params": _state_params(spec, plan),
        "model_dtype_bytes": spec.dtype_bytes if spec is not None else 2,
        "mamba_ssm_cache_dtype": r.mamba_ssm_cache_dtype,
        "block_size": lay.block_size,
        "attn_layers": lay.attn_layers,
        "mamba_layers": lay.mamba_layers,
        "mla": kv.mla,
        "num_kv_heads": kv.kv_heads_per_rank,
        "head_size": (kv.per_layer_bytes // int(kv.element_bytes or 1))
        // (1 if kv.mla else 2 * kv.kv_heads_per_rank)
        if kv.per_layer_bytes
        else 0,
        "kv_element_bytes": kv.element_bytes,
        "conv_elems": (plan.mamba.conv_bytes_per_slot // plan.mamba.layers // plan.mamba.conv_dtype_bytes)
        if plan.mamba
        else 0,
        "ssm_elems": (plan.mamba.ssm_bytes_per_slot // plan.mamba.layers // plan.mamba.ssm_dtype_bytes)
        if plan.mamba
        else 0,
        "conv_bytes": plan.mamba.conv_dtype_bytes if plan.mamba else 2,
        "ssm_bytes": plan.mamba.ssm_dtype_bytes if plan.mamba else 4,
        "mamba_page_padded": lay.attn_page_bytes if lay.mamba_layers else None,
        "mamba_cache_mode": r.mamba_cache_mode,
        "num_speculative_blocks": r.num_speculative_tokens if r.speculative_method else 0,
        "max_model_len": max_model_len or r.max_model_len,
        "sliding_layers": len(spec.sliding_layer_ids) if spec is not None and lay.swa_groups else 0,
        "sliding_window": lay.sliding_window,
        "in_flight_tokens": lay.in_flight_tokens,
        "available": plan.available_bytes,
        "tp": r.tp,
    }


def probe_plan(request: dict[str, Any], version: str = VERSION) -> dict[str, Any] | None:
    """vLLM's own planning for ``request``; None when no resolver environment for that version exists.
    A failure to run comes back as ``{"error": ...}``."""
    from argtrace.resolver.environments import cache_dir, env_name, env_python, find_environment, runtime_env

    manifest = find_environment("vllm", version)
    if manifest is None:
        return None
    env_dir = Path(manifest.path) if manifest.path else cache_dir() / env_name("vllm", version)
    from argtrace.resolver import hosts

    try:
        done = hosts.run(
            str(env_python(env_dir)),
            __file__,
            [json.dumps(request)],
            prep=[],
            env=runtime_env(manifest, None),
            cwd=os.getcwd(),
            timeout=TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"probe failed: {exc}"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["probe failed"])[-1]}
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def host_imports() -> None:  # pragma: no cover - runs inside the resolver environment
    """The import step every run of this file takes first, for a host to take once (resolver/hosts.py)."""
    _drop_own_directory()
    import torch  # noqa: F401
    from vllm.v1.core import kv_cache_planning, kv_cache_utils  # noqa: F401


def _drop_own_directory() -> None:  # pragma: no cover - runs inside the resolver environment
    """This file sits beside argtrace's own vllm.py: drop its directory so ``import vllm`` is vLLM."""
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != here]


def main(argv: Sequence[str]) -> int:  # pragma: no cover - runs inside the resolver environment
    from types import SimpleNamespace as NS

    _drop_own_directory()
    import torch
    from vllm.v1.core import kv_cache_planning as planning
    from vllm.v1.core import kv_cache_utils as utils
    from vllm.v1.kv_cache_interface import FullAttentionSpec, MambaSpec, MLAAttentionSpec, SlidingWindowSpec
    from vllm.v1.kv_cache_layout import KVCacheLayout

    req = json.loads(argv[0])
    dtypes = {1: torch.float8_e4m3fn, 2: torch.bfloat16, 4: torch.float32}
    kv_dtype = dtypes[int(req["kv_element_bytes"])]
    block = int(req["block_size"])
    specs: dict[str, Any] = {}
    for i in range(int(req["attn_layers"])):
        if req["mla"]:
            spec: Any = MLAAttentionSpec(
                block_size=block, num_kv_heads=1, head_size=int(req["head_size"]), dtype=kv_dtype
            )
        elif i < int(req.get("sliding_layers") or 0):
            spec = SlidingWindowSpec(
                block_size=block,
                num_kv_heads=int(req["num_kv_heads"]),
                head_size=int(req["head_size"]),
                dtype=kv_dtype,
                sliding_window=int(req["sliding_window"]),
            )
        else:
            spec = FullAttentionSpec(
                block_size=block,
                num_kv_heads=int(req["num_kv_heads"]),
                head_size=int(req["head_size"]),
                dtype=kv_dtype,
            )
        specs[f"model.layers.{i}.attn"] = spec
    shapes: Any = ((int(req["conv_elems"]),), (int(req["ssm_elems"]),))
    state_dtypes: Any = (dtypes[int(req["conv_bytes"])], dtypes[int(req["ssm_bytes"])])
    out: dict[str, Any] = {"source": f"vllm {VERSION} (resolver environment)"}
    params = req.get("state_params")
    if params and int(req["mamba_layers"]):
        # vLLM's own state shapes and dtypes (model_executor/layers/mamba/mamba_utils.py).
        from vllm.model_executor.layers.mamba.mamba_utils import (
            MambaStateDtypeCalculator,
            MambaStateShapeCalculator,
        )

        n_spec = int(req["num_speculative_blocks"])
        tp = int(req["tp"])
        if params["kind"] == "gdn":
            shapes = MambaStateShapeCalculator.gated_delta_net_state_shape(
                tp,
                params["num_k_heads"],
                params["num_v_heads"],
                params["head_k_dim"],
                params["head_v_dim"],
                params["conv_kernel"],
                n_spec,
            )
        else:
            shapes = MambaStateShapeCalculator.mamba2_state_shape(
                tp,
                params["intermediate"],
                params["n_groups"],
                params["heads"],
                params["head_dim"],
                params["state"],
                params["conv_kernel"],
                n_spec,
            )
        ssm = req.get("mamba_ssm_cache_dtype") or "auto"
        state_dtypes = MambaStateDtypeCalculator.mamba2_state_dtype(
            dtypes[int(req["model_dtype_bytes"])], "auto", ssm
        )
        probe_spec = MambaSpec(block_size=block, shapes=tuple(shapes), dtypes=tuple(state_dtypes))
        out["mamba_state_bytes"] = probe_spec.page_size_bytes
        out["mamba_state_shapes"] = [list(x) for x in shapes]
    for i in range(int(req["mamba_layers"])):
        specs[f"model.layers.{i}.mamba"] = MambaSpec(
            block_size=block,
            shapes=tuple(shapes),
            dtypes=tuple(state_dtypes),
            page_size_padded=req["mamba_page_padded"],
            mamba_cache_mode=req["mamba_cache_mode"],
            num_speculative_blocks=int(req["num_speculative_blocks"]),
        )
    cache = NS(
        get_resolved_kv_cache_layout=lambda: KVCacheLayout.LBHNC,
        num_gpu_blocks_override=None,
        prefix_cache_retention_interval=None,
        mamba_cache_mode=req["mamba_cache_mode"],
    )
    max_len = int(req["max_model_len"])
    config = NS(
        cache_config=cache,
        attention_config=NS(hisparse_config=None),
        model_config=NS(
            max_model_len=max_len, original_max_model_len=max_len, supports_kv_cache_grouping=False
        ),
        scheduler_config=NS(disable_hybrid_kv_cache_manager=False),
        parallel_config=NS(decode_context_parallel_size=1, tensor_parallel_size=int(req["tp"])),
        speculative_config=None,
        num_prefill_lookahead_tokens=0,
        device_config=NS(device_type="cuda"),
        kv_transfer_config=None,
        max_in_flight_tokens=int(req.get("in_flight_tokens") or 0),
    )
    try:
        groups = planning.get_global_kv_cache_groups(config, [specs])
        out["groups"] = [[type(g.kv_cache_spec).__name__, len(g.layer_names)] for g in groups]
        out["bytes_per_block"] = planning._pool_bytes_per_block(config, groups)
        configs = planning.get_kv_cache_configs(config, [specs], [int(req["available"])], groups)
        tokens, concurrency = utils.get_kv_cache_capacity(config, configs[0])
        out.update({"num_blocks": configs[0].num_blocks, "kv_tokens": tokens, "concurrency": concurrency})
    except ValueError as exc:
        out["error"] = str(exc)
    except AssertionError as exc:  # a padded page smaller than vLLM's own state: the geometry disagrees
        out["assertion"] = str(exc) or "assertion failed in vLLM's planner"
    print(json.dumps(out))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))


def compare_with_vllm(section: dict[str, Any], notes: list[str]) -> dict[str, Any] | None:
    """``--resolver``: run vLLM's own planner on ``section["vllm"]["planning_input"]`` and record it beside
    argtrace's numbers (``section["framework_kv"]``); ``memory.source`` says which one the user sees."""
    request = (section.get("vllm") or {}).get("planning_input")
    if not request:
        return None
    got = probe_plan(request)
    if got is None:
        notes.append(f"--resolver: no vLLM {VERSION} resolver environment (see argtrace resolver)")
        return None
    if "source" not in got:
        notes.append(f"--resolver: {got.get('error', 'probe failed')}")
        return None
    ours = section["vllm"]
    if "mamba_state_bytes" in got and got["mamba_state_bytes"] != ours.get("mamba_state_bytes_per_layer"):
        matches = False
    elif "error" in got:
        matches = got["error"] == ours.get("error")
    else:
        matches = got.get("num_blocks") == ours.get("num_blocks") and got.get("kv_tokens") == section.get(
            "max_total_num_tokens"
        )
    if not matches:
        notes.append(
            f"--resolver: vLLM's own planner disagrees with argtrace's re-derivation: {json.dumps(got)[:300]}"
        )
    got["matches"] = matches
    section["framework_kv"] = got
    section["source"] = f"vllm {VERSION} planner (resolver environment); static re-derivation beside it"
    return got
