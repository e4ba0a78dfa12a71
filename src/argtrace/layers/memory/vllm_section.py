"""The memory section of a vLLM launch: what ``vllm.py``'s re-derivation of vLLM 0.33.0's KV sizing (and
``vllm_probe.py``'s run of vLLM's own planner, under ``--resolver``) make of one launch, as the report shows
it: the breakdown of the device's memory, the findings (out of memory, tight margins, capped requests) and
the suggested settings that fit. Split from ``vllm.py`` so that module keeps vLLM's own steps only."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from argtrace.gpus import GIB, GpuProfile
from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.settings import setting
from argtrace.layers.memory.vllm import (
    NON_TORCH_BYTES,
    VERSION,
    Plan,
    format_gib,
    plan,
    resolve_args,
    suggest,
)
from argtrace.layers.memory.vllm_mamba_blocks import check as check_mamba_blocks
from argtrace.layers.memory.vllm_probe import request_for
from argtrace.layers.memory.vllm_release import apply as apply_release
from argtrace.layers.memory.vllm_release import rules_for, with_env
from argtrace.layers.memory.weights import (
    WeightEstimate,
    assumed_quantization,
    estimate_weights,
    vllm_mxfp4_padding_bytes,
)
from argtrace.model import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KV_BYTES_FLAG = "--kv-cache-memory-bytes"


def release_accepts(version: str | None, flag: str) -> bool:
    """Whether the vLLM release that runs accepts ``flag``, read from the bundled parser schema that stands
    for it (the release itself, else its family's, as the parser layer picks it: ``nearest_bundled``). No
    release named: the analysed one (0.33.0), which does. vllm#16749 (0.8.4) was told to add
    --kv-cache-memory-bytes, a flag 0.8.x's parser refuses (exit 2)."""
    if not version:
        return True
    from argtrace.frameworks.schema import SchemaError, load_schema, nearest_bundled

    stand_in = nearest_bundled("vllm", version)
    if stand_in is None:
        return True
    try:
        return load_schema("vllm", stand_in).option(flag) is not None
    except SchemaError:
        return True


def _fewer_sampler_rows(
    spec: ModelSpec, r: Any, p: Plan, settings: Mapping[str, Any], weights: Any, total: int
) -> tuple[int, str] | None:
    """When the profile run's peak is its sampler warm-up (``min(max_num_batched_tokens, max_num_seqs)``
    rows of vocabulary logits, vllm.py ``sampler_warmup_bytes``) over a max_num_seqs the user did not write,
    and the KV cache is what ran out: the largest power-of-two ``max_num_seqs`` from 256 down to 1 with
    which the plan fits, and what it leaves. vllm#17238 (vLLM 0.8.1, default 1024) started with 8."""
    if (
        p.oom_stage not in ("kv_cache", "mamba_cache")
        or setting(settings, "max_num_seqs") is not None
        or p.sampler_bytes < p.forward_activation_bytes
    ):
        return None
    seqs = 256
    while seqs >= 1:
        if seqs < r.max_num_seqs:
            try:
                trial = plan(spec, replace(r, max_num_seqs=seqs), weights, total)
            except ValueError:
                return None
            if trial.verdict == "fits":
                return seqs, f"the warm-up then takes {format_gib(trial.sampler_bytes)} GiB"
        seqs //= 2
    return None


def _breakdown(p: Plan) -> list[dict[str, Any]]:
    lay = p.layout
    pool = max(p.num_blocks, 0) * lay.bytes_per_block if p.oom_stage is None else max(p.available_bytes, 0)
    mamba = 0
    if lay.mamba_layers and p.oom_stage is None:
        # Shares of the one pool, at max_running_requests states (the rest is attention pages).
        per_req = lay.mamba_groups * lay.mamba_blocks_per_request * lay.bytes_per_block
        mamba = min(p.max_running_requests * per_req, pool)
    rows = [
        ("context + other processes", NON_TORCH_BYTES),
        ("weights", p.weights_bytes),
        ("draft weights", p.draft_weights_bytes),
        ("kv cache", pool - mamba),
        ("mamba state", mamba),
        ("cuda graphs (est.)", p.cudagraph_bytes),
        ("activations (est.)", p.activation_bytes),
    ]
    used = sum(v for _, v in rows)
    rows.append(("free" if p.gpu_total_bytes >= used else "over", p.gpu_total_bytes - used))
    return [{"name": n, "bytes": int(v)} for n, v in rows if v or n in ("free", "over")]


def analyze(
    spec: ModelSpec,
    gpu: GpuProfile,
    settings: Mapping[str, Any],
    version: str | None,
    section: dict[str, Any],
    findings: list[Finding],
    rules: Any,
    gpu_count: int | None,
    model_dir: Any = None,
    available_bytes: int | None = None,
    env: Mapping[str, str] | None = None,
) -> Plan | None:
    """Fill the ``memory`` section for a vLLM launch; findings for OOM, tight margins, capped requests."""
    r = resolve_args(spec, gpu, settings)
    section["version"] = version or VERSION
    section["formulas"] = (
        f"vllm {VERSION} (static re-derivation, cited in layers/memory/vllm.py)"
        if not version or version == VERSION
        else f"vllm {VERSION} (no formulas bundled for {version}; nearest used)"
    )
    release = with_env(rules_for(version), env)
    if release is not None:
        given = {
            key: setting(settings, key) is not None
            for key in ("max_num_seqs", "max_num_batched_tokens", "enable_lora")
        }
        chunked = setting(settings, "enable_chunked_prefill")
        r = apply_release(release, r, spec, given, None if chunked is None else bool(chunked))
        section["formulas"] = (
            f"vllm {VERSION} with {release.release}'s differences (code of {release.read}, cited in "
            "layers/memory/vllm_release.py)"
        )
    estimate_graphs = (env or {}).get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS")
    if release is None and estimate_graphs is not None and estimate_graphs.strip() == "0":
        # envs.py:2219 bool(int(...)): 0 turns 0.33.0's CUDA-graph profiling off (graphs after the KV cache)
        r = replace(r, cudagraph_before_kv=False)
        r.notes.append(
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0: CUDA graphs are not reserved before the KV cache "
            "(vLLM 0.33.0 envs.py:2216); they are captured afterwards, in memory the KV cache may have taken"
        )
    who = f"vLLM {release.release}" if release is not None else f"vLLM {VERSION}"
    # the MXFP4 kernel the release picks on SM90 without optional packages (vllm_release.py)
    marlin_sm90 = (
        release is not None and release.mxfp4_sm90_backend == "marlin" and gpu.compute_capability[0] == 9
    )
    section["source"] = "static"
    pp_size = max(int(setting(settings, "pipeline_parallel_size", 1)), 1)
    if gpu_count is not None and r.tp * pp_size > gpu_count:
        needs = f"tensor_parallel_size {r.tp}"
        if pp_size > 1:
            needs += f" x pipeline_parallel_size {pp_size}"
        findings.append(
            rules.MM007.finding(
                f"{needs} needs {r.tp * pp_size} GPUs; --gpu has {gpu_count}",
                setting="tensor_parallel_size",
            )
        )

    def whole_model(tp: int) -> WeightEstimate:
        estimate = estimate_weights(spec, tp, model_dir)
        # MXFP4 experts are padded to the kernel's tile after loading, whatever the checkpoint holds.
        extra, backend = vllm_mxfp4_padding_bytes(
            spec, tp, gpu.compute_capability, backend="marlin" if marlin_sm90 else None
        )
        if extra:
            estimate.bytes_per_rank += extra
            estimate.detail["mxfp4_padding_bytes"] = extra
            note = (
                f"MXFP4 experts padded for the {backend} MoE kernel {who} picks on compute capability "
                f"{gpu.compute_capability[0]}.{gpu.compute_capability[1]}: +{format_gib(extra)} GiB per GPU "
                + (
                    "(quantization/mxfp4.py: Marlin on SM90 unless triton_kernels is installed, which the "
                    "wheel does not require; n % 256 and k % 128)"
                    if marlin_sm90
                    else "(fused_moe/oracle/mxfp4.py mxfp4_round_up_hidden_size_and_intermediate_size)"
                )
            )
            if note not in r.notes:
                r.notes.append(note)
        return estimate

    weights_for: Callable[[int], WeightEstimate] = whole_model

    weights = weights_for(r.tp)
    pp = max(int(setting(settings, "pipeline_parallel_size", 1)), 1)
    where = ""
    try:
        if pp > 1:
            from argtrace.layers.memory.vllm_pipeline import plan_stages

            staged = plan_stages(
                spec,
                r,
                weights,
                gpu.total_bytes,
                available_bytes,
                pp,
                version or VERSION,
                env or {},
                model_dir,
                section,
                findings,
                rules,
                plan,
            )
            if staged is None:
                return None
            p, weights, spec, where, weights_for = staged
        else:
            p = plan(spec, r, weights, gpu.total_bytes, available_bytes)
    except ValueError as exc:
        findings.append(
            rules.MM007.finding(f"tensor_parallel_size {r.tp}: {exc}", setting="tensor_parallel_size")
        )
        return None
    lay = p.layout
    quant_assumed = assumed_quantization(spec, weights)
    if quant_assumed:
        findings.append(rules.MM012.finding(quant_assumed))
    section.update(
        {
            "weights_bytes": p.weights_bytes,
            "weights_source": weights.source,
            # on the GPU: what vLLM's "Model loading took" line measures (offloaded layers are in CPU memory)
            "weights_estimated_bytes": weights.bytes_per_rank - p.cpu_offloaded_bytes,
            "cpu_offloaded_bytes": p.cpu_offloaded_bytes,
            "total_params": weights.total_params,
            "kv_bytes_per_token": p.kv.bytes_per_token,
            "kv_k_bytes_per_token": p.kv.k_bytes_per_token,
            "kv_layers": p.kv.layers,
            "mamba_conv_bytes_per_slot": p.mamba.conv_bytes_per_slot if p.mamba else 0,
            "mamba_ssm_bytes_per_slot": p.mamba.ssm_bytes_per_slot if p.mamba else 0,
            # vLLM keeps no extra_buffer; the Mamba page padding to the attention page is reported instead.
            "mamba_extra_bytes_per_slot": lay.mamba_padding_bytes * lay.mamba_layers,
            "draft_bytes": p.draft_weights_bytes,
            "draft_weights_bytes": p.draft_weights_bytes,
            "reserved_bytes": p.activation_bytes + p.cudagraph_bytes + NON_TORCH_BYTES,
            "activation_bytes": p.activation_bytes,
            # the profile run's two peaks: one forward pass of max_num_batched_tokens (argtrace's estimate)
            # and the sampler warm-up over min(max_num_seqs, max_num_batched_tokens) x vocabulary logits
            "forward_activation_bytes": p.forward_activation_bytes,
            "sampler_warmup_bytes": p.sampler_bytes,
            "cuda_graph_bytes": p.cudagraph_bytes,
            "max_total_num_tokens": p.kv_tokens if p.oom_stage is None else None,
            "max_mamba_cache_size": p.mamba_states if lay.mamba_layers and p.oom_stage is None else None,
            "max_running_requests": p.max_running_requests if p.oom_stage is None else None,
            # vLLM's gpu_memory_utilization is the fraction of the GPU the whole engine may use (weights,
            # activations, CUDA graphs and KV): it plays the role of SGLang's mem_fraction_static here.
            "mem_fraction_static": r.gpu_memory_utilization,
            "mem_fraction_static_is": "gpu_memory_utilization (vLLM's whole-engine budget)",
            "gpu_memory_utilization": r.gpu_memory_utilization,
            "available_kv_cache_bytes": p.available_bytes,
            "available_kv_cache_source": p.available_source,
            "verdict": p.verdict,
            "oom_stage": p.oom_stage,
            "margin_bytes": p.margin_bytes,
            "vllm": {
                "max_num_seqs": r.max_num_seqs,
                "max_num_batched_tokens": r.max_num_batched_tokens,
                "max_model_len": r.max_model_len,
                "block_size": lay.block_size,
                "mamba_cache_mode": r.mamba_cache_mode if spec.is_hybrid else None,
                "mamba_ssm_cache_dtype": r.mamba_ssm_cache_dtype,
                "attn_page_bytes": lay.attn_page_bytes,
                "mamba_state_bytes_per_layer": lay.mamba_state_bytes,
                "group_size": lay.group_size,
                "attn_groups": lay.attn_groups,
                "mamba_groups": lay.mamba_groups,
                "bytes_per_block": lay.bytes_per_block,
                "num_blocks": p.num_blocks,
                "blocks_per_request": p.blocks_per_request,
                "needed_bytes_one_request": p.needed_bytes,
                "max_concurrency": round(p.concurrency, 4),
                "estimated_max_model_len": p.estimated_max_model_len,
                "log_lines": p.log_lines,
                "error": p.message or None,
                "mamba_blocks_per_request": lay.mamba_blocks_per_request,
                # What vllm_probe feeds vLLM's own planner with --resolver (and --from-log reuses).
                "planning_input": request_for(p, spec),
            },
            "speculative": {
                "method": r.speculative_method,
                "num_speculative_tokens": r.num_speculative_tokens,
                "draft_attention_layers": lay.attn_layers - p.kv.layers,
                "mamba_blocks_per_request": lay.mamba_blocks_per_request if lay.mamba_layers else None,
            }
            if r.speculative_method
            else None,
            "breakdown": _breakdown(p),
            "budgeted_by_mem_fraction_static": [
                "weights",
                "draft weights",
                "kv cache",
                "mamba state",
                "cuda graphs",
                "activations",
            ],
            "outside_mem_fraction_static": ["context + other processes beyond the measured non-torch memory"],
            "notes": r.notes + spec.notes,
        }
    )
    if r.speculative_method in ("eagle", "eagle3", "draft_model") or (
        r.speculative_method == "mtp" and not weights.draft_bytes_per_rank
    ):
        section["notes"].append(
            f"speculative method {r.speculative_method}: the draft model is not sized (its weights and KV "
            "come out of the same gpu_memory_utilization budget)"
        )
    if setting(settings, "kv_transfer_config"):
        section["notes"].append(
            "--kv-transfer-config: the KV connector's own GPU buffers (LMCache, NIXL, ...) are not counted; "
            "vLLM measures them in its profile run, so the available KV memory here is an upper bound"
        )
    if setting(settings, "enable_lora"):
        section["notes"].append(
            "--enable-lora: the LoRA weight stacks (lora/layers/base_linear.py create_lora_weights, "
            "max_loras x max_lora_rank per wrapped linear) load with the model and are not counted: the "
            "weights here are too small and the KV cache too large by them"
        )
    if p.cpu_offloaded_bytes:
        section["notes"].append(
            f"--cpu-offload-gb {r.cpu_offload_gb:g}: {format_gib(p.cpu_offloaded_bytes)} GiB of "
            "decoder-layer weights held in CPU memory (UVAOffloader; vLLM moves whole parameters, so up to "
            "one parameter more)"
            + (
                "; --cpu-offload-params restricts which parameters move: the budget is assumed reached"
                if r.cpu_offload_params
                else ""
            )
        )
    section["suggested"] = suggest(
        spec, r, weights_for, gpu, p, gpu_count, kv_bytes_flag=release_accepts(version, KV_BYTES_FLAG)
    )
    if p.verdict == "oom":
        best = section["suggested"][0] if section["suggested"] else None
        fix = (
            f"use {' '.join(best['flags'])} ({best['cost']})"
            if best
            else "no setting fits on this GPU: more GPUs (--tensor-parallel-size) or a quantized checkpoint"
        )
        # The available KV memory is what vLLM measures in its profile run; argtrace estimates the run's
        # activation peak, non-torch memory and CUDA graphs. When those estimates are larger than the
        # shortfall, the verdict rests on them: a warning that says so, never an error (docs/memory.md).
        estimated = p.activation_bytes + NON_TORCH_BYTES + p.cudagraph_bytes
        on_estimate = (
            p.oom_stage in ("kv_cache", "mamba_cache")
            and p.available_source == "estimate"
            and p.margin_bytes + estimated >= 0
        )
        # a release that reserves no CUDA graphs before the KV cache (vllm_release.py) has none to name
        graphs = f" and CUDA graphs {format_gib(p.cudagraph_bytes)}" if r.cudagraph_before_kv else ""
        basis_note = (
            f"; this rests on argtrace's estimate of what vLLM measures at start-up (activation peak "
            f"{format_gib(p.activation_bytes)}, non-torch {format_gib(NON_TORCH_BYTES)}{graphs} GiB): "
            "compare with the log's 'Available KV cache memory' (argtrace mem --from-log)"
            if on_estimate
            else ""
        )
        # --no-enable-chunked-prefill makes the profile run one prefill of max_model_len (vllm.py
        # resolve_args, engine/arg_utils.py:3194-3199): name it when that prefill is what took the memory
        whole_prefill = (
            setting(settings, "enable_chunked_prefill") is False
            and setting(settings, "max_num_batched_tokens") is None
            and r.max_num_batched_tokens == r.max_model_len
            and p.oom_stage in ("kv_cache", "mamba_cache")
        )
        if whole_prefill:
            basis_note += (
                f"; without chunked prefill the profile run prefills all {r.max_model_len} tokens at once "
                f"(activation peak {format_gib(p.activation_bytes)} GiB)"
            )
            fix = (
                "turn chunked prefill back on (drop --no-enable-chunked-prefill) or give "
                f"--max-num-batched-tokens; or {fix}"
            )
        fewer = _fewer_sampler_rows(spec, r, p, settings, weights_for(r.tp), gpu.total_bytes)
        if fewer is not None:
            seqs, fits_at = fewer
            rows = max(min(r.max_num_batched_tokens, r.max_num_seqs), 1)
            basis_note += (
                f"; the profile run's sampler warm-up over {rows} dummy requests (max_num_seqs "
                f"{r.max_num_seqs}, not given) takes {format_gib(p.sampler_bytes)} GiB of it"
            )
            fix = f"lower --max-num-seqs to {seqs} ({fits_at}); or {fix}"
        named_config = setting(settings, "hf_config_path")
        if named_config and spec.quantization.method == "none" and p.oom_stage == "weights":
            # vLLM sizes the model from --hf-config-path's config (vllm/config/model.py:680-681, 0.33.0):
            # one without a quantization_config builds unquantized layers, whatever the checkpoint holds
            basis_note += (
                f"; config.json is --hf-config-path's ({named_config}), which declares no "
                "quantization_config: vLLM builds the layers unquantized (vllm/config/model.py:680-681)"
            )
            fix = f"drop --hf-config-path or point it at the checkpoint's own config; or {fix}"
        if quant_assumed and p.available_source == "estimate":
            # the weights are an upper bound (MM012): the shortfall rests on them, whatever the stage
            on_estimate = True
            basis_note += f"; this rests on the weights: {quant_assumed} (MM012)"
        findings.append(
            rules.MM001.finding(
                f"{who}: out of memory at {p.oom_stage} on {gpu.name}{where}: "
                f"{p.message.split(' Try increasing')[0]} "
                f"(short by {abs(p.margin_bytes) / GIB:.2f} GiB per GPU){basis_note}",
                setting={"weights": "tensor_parallel_size", "draft": "speculative_config"}.get(
                    p.oom_stage or "", "gpu_memory_utilization"
                ),
                fix=fix,
                severity="warning" if on_estimate else None,
                basis="assumed" if on_estimate else None,
            )
        )
        return p
    outside = gpu.total_bytes - p.requested_bytes
    if r.kv_cache_memory_bytes is None and outside < NON_TORCH_BYTES:
        findings.append(
            rules.MM005.finding(
                f"gpu_memory_utilization {r.gpu_memory_utilization} leaves {outside / GIB:.2f} GiB of the "
                f"{gpu.total_gib:.2f} GiB GPU outside vLLM's budget: the driver, other processes and "
                "allocator fragmentation must fit there",
                setting="gpu_memory_utilization",
            )
        )
    if lay.mamba_layers and p.oom_stage is None:
        named = f"vLLM {version}" if version else who
        _mamba_block_findings(
            p, r.max_num_seqs, r.mamba_cache_mode, settings, version, named, findings, rules, section
        )
    return p


VLLM_FEWER_SEQS = "lower --max-num-seqs, or shorten --max-model-len to leave more KV cache blocks"


def _mamba_block_findings(
    p: Plan,
    max_num_seqs: int,
    mode: str,
    settings: Mapping[str, Any],
    version: str | None,
    who: str,
    findings: list[Finding],
    rules: Any,
    section: dict[str, Any],
) -> None:
    """max_num_seqs against the hybrid model's Mamba cache blocks (vllm_mamba_blocks.py): 0.20.2 and later
    refuse to start when it is above the pool's block count; both the count and what it implies rest on
    argtrace's estimate of the pool, so the finding is a warning that says so (MM011), and the concurrency
    the blocks allow a note (MM006)."""
    lay = p.layout
    blocks = check_mamba_blocks(settings, version, max_num_seqs, p.num_blocks)
    section["mamba_block_check"] = {
        "outcome": blocks.outcome,
        "max_num_seqs": blocks.max_num_seqs,
        "num_blocks": blocks.num_blocks,
        "cudagraph_mode": blocks.cudagraph_mode,
        "basis": "estimate",
    }
    estimate = (
        "this rests on argtrace's estimate of the KV pool (the profile run's activation peak, non-torch "
        "memory and CUDA graphs are estimated): the log's 'exceeds available Mamba cache blocks (N)' or "
        "'GPU KV cache size' line decides"
    )
    if blocks.outcome in ("raises", "unknown"):
        certain = (
            f"{who} stops at start-up"
            if blocks.outcome == "raises"
            else f"vLLM {version} (not read: 0.19.1 capped its CUDA graph sizes, 0.20.2 refuses) may stop "
            "at start-up"
        )
        findings.append(
            rules.MM011.finding(
                f"max_num_seqs {max_num_seqs} is above the about {p.num_blocks} Mamba cache blocks of the KV "
                f"pool (CUDA graph mode {blocks.cudagraph_mode}): {certain} with "
                f"'max_num_seqs ({max_num_seqs}) exceeds available Mamba cache blocks' "
                f"(config/compilation.py resolve_cudagraph_mode_and_sizes); {estimate}",
                setting="max_num_seqs",
                fix=(
                    f"lower --max-num-seqs below the block count (about {p.num_blocks}; "
                    f"{max(1, p.num_blocks * 9 // 10)} leaves a margin for the estimate), or shorten "
                    "--max-model-len, or raise --gpu-memory-utilization"
                ),
                severity="warning" if blocks.outcome == "raises" else "info",
            )
        )
        return
    if blocks.outcome == "caps":
        findings.append(
            rules.MM006.finding(
                f"max_num_seqs {max_num_seqs} is above the about {p.num_blocks} Mamba cache blocks: {who} "
                f"caps its CUDA graph capture sizes to the blocks (the releases up to 0.19.1); {estimate}",
                setting="max_num_seqs",
                fix=VLLM_FEWER_SEQS,
            )
        )
        return
    if p.max_running_requests < max_num_seqs:
        findings.append(
            rules.MM006.finding(
                f"at most about {p.max_running_requests} of max_num_seqs {max_num_seqs} requests run at "
                f"once: each holds {lay.mamba_groups * lay.mamba_blocks_per_request} Mamba state blocks "
                f"({mode} mode) of the {p.num_blocks} blocks of the shared KV pool; {estimate}",
                setting="max_num_seqs",
                fix=VLLM_FEWER_SEQS,
            )
        )
