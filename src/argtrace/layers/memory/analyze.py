"""The memory layer's entry point: ``analyze_memory`` -> ``LayerResult`` with ``sections["memory"]``.

Reads the model config, counts weights, sizes KV/Mamba/draft/reserves with the framework version's own
formulas (``sglang.py``; vLLM in ``vllm.py``), decides a verdict, and searches settings that fit
(``sglang_suggest.suggest``). Never raises for bad input: an unreadable config, missing fields, an unknown
GPU or a TP size that does not split the heads come back as findings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from argtrace import localfs
from argtrace.gpus import GIB, GpuProfile, GpuSelection, count_given, parse_gpu_spec
from argtrace.layers.memory import dp_attention
from argtrace.layers.memory import sglang as sg
from argtrace.layers.memory.config import (
    ConfigError,
    ModelSpec,
    load_config,
    read_model_spec,
    served_dtype_bytes,
)
from argtrace.layers.memory.online_quant import online_fp8, sglang_load_peak
from argtrace.layers.memory.sglang_suggest import SAFETY_BYTES, suggest
from argtrace.layers.memory.weights import WeightEstimate, assumed_quantization, estimate_weights
from argtrace.model import Evidence, Finding, LayerResult

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_GPU = "h100"
STATIC_SOURCE = f"argtrace formulas after sglang {sg.VERSION}"
FRAMEWORK_FIX = (
    "The framework's own numbers are the ones used (memory.source); the formulas follow SGLang "
    f"{sg.VERSION}: compare with your startup log, and report a difference for {sg.VERSION} itself"
)
# Compared between SGLang's own sizing and the formulas (MM009 when they differ).
COMPARED = (
    "kv_bytes_per_token",
    "mamba_conv_bytes_per_slot",
    "mamba_ssm_bytes_per_slot",
    "mem_fraction_static",
    "max_total_num_tokens",
    "max_mamba_cache_size",
    "max_running_requests",
)
# framework_sizing.py ``resolved`` names -> ``sglang.Resolved`` fields (0.5.15+ renamed the strategy's dest).
RESOLVED_FIELDS = {
    "mem_fraction_static": "mem_fraction_static",
    "chunked_prefill_size": "chunked_prefill_size",
    "cuda_graph_max_bs": "cuda_graph_max_bs",
    "max_running_requests": "max_running_requests",
    "max_total_tokens": "max_total_tokens",
    "page_size": "page_size",
    "kv_cache_dtype": "kv_cache_dtype",
    "speculative_algorithm": "speculative_algorithm",
    "speculative_num_steps": "speculative_num_steps",
    "speculative_num_draft_tokens": "speculative_num_draft_tokens",
    "mamba_scheduler_strategy": "mamba_scheduler_strategy",
    "mamba_radix_cache_strategy": "mamba_scheduler_strategy",
    "mamba_ssm_dtype": "mamba_ssm_dtype",
    "mamba_full_memory_ratio": "mamba_full_memory_ratio",
    "disable_radix_cache": "disable_radix_cache",
    "disable_overlap_schedule": "disable_overlap_schedule",
    "disable_cuda_graph": "disable_cuda_graph",
    "context_len": "context_len",
}
# The framework's own "does not fit" raises, by the pool that failed.
FRAMEWORK_OOM = (
    ("Hybrid (mamba/linear-attention) state cache is too small", "mamba_cache"),
    ("Not enough GPU memory for hybrid", "mamba_cache"),
    ("Not enough memory", "kv_cache"),
    ("Loaded weights leave no GPU memory", "kv_cache"),
)


def _rules() -> Any:
    from argtrace.rules import memory as rules

    return rules


def gib(value: float | int | None) -> float | None:
    return None if value is None else round(float(value) / GIB, 3)


def _empty_section(framework: str, version: str | None, gpu: str | None) -> dict[str, Any]:
    return {
        "framework": framework,
        "version": version,
        "gpu": gpu,
        "per": "rank 0 after TP/EP sharding, bytes",
        "weights_bytes": None,
        "kv_bytes_per_token": None,
        "mamba_conv_bytes_per_slot": 0,
        "mamba_ssm_bytes_per_slot": 0,
        "mamba_extra_bytes_per_slot": 0,
        "draft_bytes": 0,
        "reserved_bytes": None,
        "max_total_num_tokens": None,
        "max_mamba_cache_size": None,
        "max_running_requests": None,
        "mem_fraction_static": None,
        "verdict": None,
        "oom_stage": None,
        "suggested": [],
    }


def _breakdown(p: sg.Plan) -> list[dict[str, Any]]:
    rows = [
        ("context + other processes", p.gpu_total_bytes - p.pre_load_bytes),
        ("weights", p.weights_bytes),
        ("kv cache", p.kv_pool_bytes),
        ("mamba state", p.mamba_bytes),
        ("mamba speculative states", p.mamba_spec_bytes),
        ("draft weights", p.draft_weights_bytes),
        ("draft kv cache", p.draft_kv_bytes),
        ("cuda graphs (est.)", p.cuda_graph_bytes),
        ("activations (est.)", p.activation_bytes),
    ]
    if p.oom_stage in ("kv_cache", "mamba_cache"):
        # No pool was allocated: show what the caches asked for (their budget under mem_fraction_static plus
        # the shortfall), so the bar explains the OOM rather than showing the GPU half empty.
        rows.insert(2, (NEEDED_CACHES, int(max(p.rest_bytes, 0)) - p.margin_bytes))
    used = sum(v for _, v in rows)
    rows.append(("free" if p.gpu_total_bytes >= used else "over", p.gpu_total_bytes - used))
    return [{"name": n, "bytes": int(v)} for n, v in rows if v or n in ("free", "over")]


NEEDED_CACHES = "caches needed (not allocated)"


def _model_dir(model_config: Path) -> Path:
    return Path(model_config).parent if localfs.is_file(model_config) else Path(model_config)


def _framework_evaluator(
    model_dir: Path,
    spec: ModelSpec,
    weights: WeightEstimate,
    profile: GpuProfile,
    gpu_spec: str,
    section: dict[str, Any],
    framework_argv: Sequence[str],
    env: Mapping[str, str],
    current: sg.Plan,
) -> Callable[[list[dict[str, Any]], list[sg.Resolved]], list[sg.Plan]]:
    """``suggest``'s candidates sized by SGLang's own code: one more run in the resolver environment with
    every candidate's settings as a variant of the launch; argtrace only allocates what it computed."""
    from argtrace.layers.memory.framework_sizing import run_framework_sizing

    version = str(section["framework_sizing"]["version"])
    pre, post, total = current.pre_load_bytes, current.post_load_bytes, profile.total_bytes

    def evaluate(changes: list[dict[str, Any]], resolved: list[sg.Resolved]) -> list[sg.Plan]:
        fw = run_framework_sizing(
            model_dir,
            framework_argv,
            gpu_spec,
            version,
            pre_load_bytes=pre,
            post_load_bytes=post,
            env=env,
            variants=changes,
        )
        if fw is None or len(fw.variants) != len(changes):
            why = "no environment" if fw is None else (fw.error or "no result per candidate")
            section["notes"].append(
                f"--resolver: the suggestions could not be sized by SGLang's own code ({why}); they follow "
                "the formulas"
            )
            section["suggested_source"] = STATIC_SOURCE  # the label says what sized them, not what was asked
            return [sg.plan(spec, r, weights, total, pre, post) for r in resolved]
        section["framework_sizing"]["suggestions_seconds"] = fw.seconds
        plans = []
        for r, got in zip(resolved, fw.variants, strict=True):
            r2 = _resolved_from_framework(r, got.get("resolved") or {})
            if got.get("error"):
                stage = next((st for text, st in FRAMEWORK_OOM if text in got["error"]), "kv_cache")
                plan = sg.plan(spec, r2, weights, total, pre, post)
                plans.append(replace(plan, verdict="oom", oom_stage=stage, message=str(got["error"])))
                continue
            fixed = sg.FixedPools(
                max_total_num_tokens=int(got.get("max_total_num_tokens") or 0),
                max_mamba_cache_size=int(got.get("max_mamba_cache_size") or 0),
                max_running_requests=int(got.get("max_running_requests") or 0),
                version=fw.version,
            )
            plans.append(sg.plan(spec, r2, weights, total, pre, post, fixed=fixed))
        return plans

    return evaluate


def _resolved_from_framework(r: sg.Resolved, resolved: Mapping[str, Any]) -> sg.Resolved:
    """``r`` with the values SGLang's own resolution produced (``framework_sizing.py`` ``resolved``)."""
    changes: dict[str, Any] = {}
    for name, attr in RESOLVED_FIELDS.items():
        if name not in resolved:
            continue
        value = resolved[name]
        if value is None and attr not in ("max_running_requests", "max_total_tokens", "mamba_ssm_dtype"):
            continue  # a field this version leaves unset keeps the formulas' value
        if attr == "speculative_algorithm" and value is not None:
            value = str(value).upper()
        if attr == "mamba_scheduler_strategy" and value == "auto":
            continue  # 0.5.19+ keep "auto" in the field and decide later; the ratio comes from the framework
        changes[attr] = value
    return replace(r, **changes)


def _adopt_framework_sizing(
    model_dir: Path,
    spec: ModelSpec,
    r: sg.Resolved,
    p: sg.Plan,
    weights: WeightEstimate,
    profile: GpuProfile,
    gpu_spec: str,
    section: dict[str, Any],
    findings: list[Finding],
    rules: Any,
    framework_argv: Sequence[str],
    env: Mapping[str, str],
) -> tuple[sg.Resolved, sg.Plan, int] | None:
    """Run SGLang's own sizing for this launch (resolver environment of ``section["version"]``) and make
    its numbers the primary ones; the formulas' plan goes to ``section["static_prediction"]``. None when
    there is no environment or the framework's code could not be driven (a note says why)."""
    from argtrace.layers.memory.framework_sizing import run_framework_sizing

    version = str(section["version"])
    fw = run_framework_sizing(
        model_dir,
        framework_argv,
        gpu_spec,
        version,
        pre_load_bytes=p.pre_load_bytes,
        post_load_bytes=p.post_load_bytes,
        env=env,
    )
    notes: list[str] = section.setdefault("notes", [])
    if fw is None:
        from argtrace.resolver.environments import framework_environments

        others = sorted(str(m.version) for m in framework_environments("sglang") if m.version)
        notes.append(
            f"--resolver: no SGLang {version} resolver environment (argtrace resolver add sglang=={version})"
            + (f"; environments here: {', '.join(others)} (--framework-version)" if others else "")
        )
        return None
    static = {key: section.get(key) for key in COMPARED}
    static.update(
        kv_bytes_per_token=p.kv.bytes_per_token,
        mamba_conv_bytes_per_slot=p.mamba.conv_bytes_per_slot if p.mamba else 0,
        mamba_ssm_bytes_per_slot=p.mamba.ssm_bytes_per_slot if p.mamba else 0,
        mem_fraction_static=round(r.mem_fraction_static, 4),
        max_total_num_tokens=p.max_total_num_tokens
        if p.oom_stage not in ("weights", "kv_cache", "mamba_cache")
        else None,
        max_mamba_cache_size=p.max_mamba_cache_size if p.mamba else None,
        max_running_requests=p.max_running_requests or None,
    )
    section["framework_sizing"] = {
        "version": fw.version,
        "source": f"sglang {fw.version} (framework code, resolver environment)",
        "seconds": fw.seconds,
        "pre_load_avail_bytes": p.pre_load_bytes,
        "post_load_avail_bytes": p.post_load_bytes,
        "kv_cell_bytes_per_token": fw.kv_cell_bytes_per_token,
        "kv_cache_dtype": fw.kv_cache_dtype,
        "mamba_slots_per_request": fw.mamba_ratio,
        "resolved": fw.resolved,
        "functions": fw.functions,
        "stand_in_modules": fw.standins,
        "logs": fw.logs,
        "error": fw.error,
        "error_at": fw.error_at,
    }
    section["static_prediction"] = {"source": section["formulas"], **static}
    notes.extend(f"--resolver: {note}" for note in fw.notes)
    if fw.error is not None:
        stage = next((s for text, s in FRAMEWORK_OOM if text in fw.error), None)
        if stage is None:
            notes.append(
                f"--resolver: SGLang {fw.version}'s sizing could not be driven here ({fw.error}); "
                "the numbers are argtrace's formulas"
            )
            return None
        # SGLang's own code says the pools do not fit: that is the answer.
        section["source"] = section["framework_sizing"]["source"]
        r2 = _resolved_from_framework(r, fw.resolved)
        p2 = replace(p, resolved=r2, verdict="oom", oom_stage=stage, message=fw.error)
        findings.append(
            rules.MM009.finding(
                f"SGLang {fw.version}'s own sizing raises at {fw.error_at}: {fw.error}"
                + (
                    ""
                    if p.verdict == "oom"
                    else f"; argtrace's formulas said it fits ({p.max_total_num_tokens} tokens)"
                ),
                at=fw.error_at,
            )
        )
        _compare_resolved(fw.version, r, r2, findings, rules)
        return r2, p2, sg.mamba_ratio(r2) if p.mamba else 0
    r2 = _resolved_from_framework(r, fw.resolved)
    fixed = sg.FixedPools(
        max_total_num_tokens=int(fw.max_total_num_tokens or 0),
        max_mamba_cache_size=int(fw.max_mamba_cache_size or 0),
        max_running_requests=int(fw.max_running_requests or 0),
        version=fw.version,
    )
    p2 = sg.plan(spec, r2, weights, profile.total_bytes, p.pre_load_bytes, p.post_load_bytes, fixed=fixed)
    section["source"] = section["framework_sizing"]["source"]
    ours = {
        "kv_bytes_per_token": fw.kv_bytes_per_token,
        "mamba_conv_bytes_per_slot": fw.mamba_conv_bytes_per_slot,
        "mamba_ssm_bytes_per_slot": fw.mamba_ssm_bytes_per_slot,
        "mem_fraction_static": round(float(fw.mem_fraction_static or 0.0), 4),
        "max_total_num_tokens": fw.max_total_num_tokens,
        "max_mamba_cache_size": fw.max_mamba_cache_size,
        "max_running_requests": fw.max_running_requests,
    }
    section["framework_sizing"].update(ours)
    for key in COMPARED:
        if key == "mem_fraction_static":
            continue  # _compare_resolved says it
        if static[key] != ours[key]:
            findings.append(
                rules.MM009.finding(
                    f"{key}: SGLang {fw.version}'s own code gives {ours[key]}, "
                    f"argtrace's formulas (after {sg.VERSION}) {static[key]}",
                    setting=key if key in ("mem_fraction_static", "max_running_requests") else None,
                    fix=FRAMEWORK_FIX,
                    # Another release's code differing from the formulas is expected; the same release's is a
                    # formula to mend.
                    severity="warning" if fw.version == sg.VERSION else "info",
                )
            )
    _compare_resolved(fw.version, r, r2, findings, rules)
    ratio = int(fw.mamba_ratio or 0) if p2.mamba else 0
    return r2, p2, ratio


def _compare_resolved(
    version: str, r: sg.Resolved, r2: sg.Resolved, findings: list[Finding], rules: Any
) -> None:
    """MM009 for the resolved values the memory formulas read that SGLang's own resolution sets otherwise."""
    for attr in (
        "mem_fraction_static",
        "max_running_requests",
        "speculative_num_draft_tokens",
        "chunked_prefill_size",
        "cuda_graph_max_bs",
        "mamba_scheduler_strategy",
        "disable_overlap_schedule",
    ):
        mine, theirs = getattr(r, attr), getattr(r2, attr)
        if attr == "mem_fraction_static":
            mine, theirs = round(float(mine), 4), round(float(theirs), 4)
        if mine != theirs:
            findings.append(
                rules.MM009.finding(
                    f"{attr}: SGLang {version}'s own resolution gives {theirs}, argtrace's re-derivation "
                    f"(after {sg.VERSION}) {mine}",
                    setting=attr,
                    fix=FRAMEWORK_FIX,
                    severity="warning" if version == sg.VERSION else "info",
                )
            )


def _present(raw: Mapping[str, Any], names: Sequence[str]) -> bool:
    """True when one of ``names`` is a key of config.json's top level or its ``text_config``."""
    text = raw.get("text_config")
    levels = [raw, text] if isinstance(text, Mapping) else [raw]
    return any(name in level for level in levels for name in names)


def _add_dp_attention_weights(
    spec: ModelSpec, r: Any, settings: Mapping[str, Any], weights: WeightEstimate, section: dict[str, Any]
) -> None:
    """SGLang's DP attention: each rank holds the attention of its attention-TP group (dp_attention.py);
    add what plain TP sharding did not count, and say where it comes from."""
    attn_tp = dp_attention.attention_tp(r.tp, r.dp, r.enable_dp_attention)
    if r.enable_dp_attention and r.dp <= 1:
        section.setdefault("notes", []).append(
            "--enable-dp-attention with dp_size 1: SGLang 0.5.10.post1 turns DP attention off "
            "(server_args.py:2633-2636 _handle_data_parallelism); give --dp-size to use it"
        )
    extra, layout = dp_attention.extra_weight_bytes(
        spec, r.tp, attn_tp, bool(settings.get("enable_dp_lm_head"))
    )
    if not extra or layout is None:
        return
    weights.bytes_per_rank += extra
    weights.detail["dp_attention_bytes"] = extra
    section.setdefault("notes", []).append(
        f"DP attention (tp {r.tp}, dp {r.dp}): each rank holds the attention of a {attn_tp}-rank "
        f"attention-TP group, +{extra / GIB:.2f} GiB per GPU over plain TP (SGLang 0.5.10.post1 "
        f"srt/models/{layout.where}; srt/layers/dp_attention.py:237-251)"
    )


def _online_load_peak(
    spec: ModelSpec,
    checkpoint: Any,
    settings: Mapping[str, Any],
    r: Any,
    pp: int,
    model_config: Path,
    p: Any,
    gpu_name: str,
    version: str | None,
    findings: list[Finding],
    rules: Any,
) -> None:
    """MM016: SGLang loads an online-quantized checkpoint at its own precision before quantizing it (both
    bundled releases, 0.5.10.post1 and 0.5.23, do: online_quant.sglang_load_peak)."""
    peak = sglang_load_peak(
        spec, checkpoint, settings, r.tp, pp, _model_dir(model_config), p.weights_bytes, p.pre_load_bytes
    )
    if peak is None:
        return
    short = (peak.bytes_per_rank - peak.available_bytes) / GIB
    fix = (
        "load a checkpoint quantized to fp8 offline (its config.json carries a quantization_config, and its "
        "weights load at 8 bits)"
    )
    if peak.tp_that_fits is not None:
        fix += f", or shard the 16-bit weights over more GPUs: --tp-size {peak.tp_that_fits}"
    findings.append(
        rules.MM016.finding(
            f"--quantization {settings.get('quantization')} on a checkpoint without quantization_config: "
            f"SGLang {version or sg.VERSION} loads every weight at 16 bits and quantizes only after the "
            f"last one, so one GPU holds {peak.bytes_per_rank / GIB:.2f} GiB while loading "
            f"({peak.quantized_bytes_per_rank / GIB:.2f} GiB once fp8), more than the "
            f"{peak.available_bytes / GIB:.2f} GiB {gpu_name} has free before loading (short by "
            f"{short:.2f} GiB per GPU): CUDA out of memory while loading the weights"
            + (" (pipeline stage: the model's share over pp_size, an estimate)" if pp > 1 else ""),
            setting="quantization",
            fix=fix,
        )
    )


def analyze_memory(
    model_config: Path,
    gpu: str | None,
    settings: Mapping[str, Any],
    framework: str,
    version: str | None,
    *,
    env: Mapping[str, str] | None = None,
    pre_load_bytes: int | None = None,
    post_load_bytes: int | None = None,
    framework_argv: Sequence[str] | None = None,
    framework_suggestions: bool = True,
    optional: bool = False,
) -> LayerResult:
    """Will this launch fit, per GPU? ``settings`` are effective server values by dest name (from the
    parser/resolution layers, or ``settings.read_server_settings``). ``framework_argv`` (the server's flags,
    SGLang only): size the pools with SGLang's own code in the version's resolver environment when one
    exists (``framework_sizing.py``), the formulas' prediction kept beside for comparison;
    ``framework_suggestions=False`` sizes alternatives with that code only when the launch does not fit.
    ``optional``: the sizing is a side answer (``check``), so a config.json whose absent fields leave it
    unsized is a note, not an error (``mem`` asked for the sizing itself)."""
    rules = _rules()
    result = LayerResult()
    section = _empty_section(framework, version, gpu)
    result.sections["memory"] = section
    findings: list[Finding] = result.findings
    at = str(model_config)
    try:
        raw = load_config(Path(model_config))
    except ConfigError as exc:
        findings.append(rules.MM002.finding(f"cannot read the model config: {exc}", at=at))
        return result
    spec = read_model_spec(raw)
    spec.dtype_bytes = served_dtype_bytes(spec, settings)
    section["model"] = {"architecture": spec.architecture, "family": spec.family}
    if spec.invalid:
        findings.append(
            rules.MM002.finding(
                f"{spec.architecture}: config.json has values no model has: {'; '.join(spec.invalid)}; "
                "memory cannot be sized",
                at=at,
            )
        )
        return result
    if spec.missing:
        findings.append(
            rules.MM002.finding(
                f"{spec.architecture}: config.json lacks {', '.join(spec.missing)}; memory is not sized "
                "(the checkpoint's config class fills absent fields with its defaults, which argtrace does "
                "not guess; real checkpoints such as Gemma 3 leave vocab_size out)",
                at=at,
                # check: absent fields do not show the launch failing, only the sizing missing; a field that
                # is there but not an integer (NaN, "abc") is a broken config
                severity="info" if optional and not _present(raw, spec.missing) else None,
            )
        )
        return result
    if not spec.known_architecture:
        findings.append(
            rules.MM003.finding(
                f"architecture {spec.architecture} is not one argtrace knows; "
                f"sized as a {spec.family} decoder",
                at=at,
            )
        )
    checkpoint_quant = online_fp8(spec, settings, framework)
    gpu_name = gpu or DEFAULT_GPU
    try:
        selection: GpuSelection = parse_gpu_spec(gpu_name)
    except ValueError as exc:
        findings.append(rules.MM002.finding(str(exc)))
        return result
    if gpu is None:
        findings.append(
            rules.MM004.finding(f"no --gpu given; assumed {DEFAULT_GPU} ({selection.profile.label})")
        )
    profile = selection.profile
    # A bare name (``--gpu h100``, or none given) is as many as the launch needs: only a count the user
    # wrote (``h100x2``) can be too small.
    gpu_count = selection.count if gpu is not None and count_given(gpu) else None
    section["gpu"] = {
        "name": selection.spec,
        "label": profile.label,
        "total_bytes": profile.total_bytes,
        "smi_total_mib": profile.smi_total_mib,
        "count": selection.count,
    }
    if profile.estimate:  # a device described on the command line (gpus.described)
        section["gpu"]["estimate"] = profile.estimate
    env = env or {}
    if framework == "vllm":
        from argtrace.layers.memory import vllm_section

        model_dir = Path(model_config).parent if localfs.is_file(model_config) else Path(model_config)
        vllm_section.analyze(
            spec, profile, settings, version, section, findings, rules, gpu_count, model_dir, env=env
        )
        return result
    section["version"] = version or sg.VERSION
    section["formulas"] = STATIC_SOURCE
    if version and version != sg.VERSION:
        section["formulas"] += f" (no formulas of {version}; these are {sg.VERSION}'s)"
    section["source"] = STATIC_SOURCE
    r = sg.resolve_args(spec, profile, settings, env)
    world = r.tp * int(settings.get("pp_size") or 1) * (r.dp if not r.enable_dp_attention else 1)
    if gpu_count is not None and world > gpu_count:
        findings.append(
            rules.MM007.finding(
                f"the launch needs {world} GPUs (tp {r.tp} x dp x pp) but --gpu {selection.spec} has "
                f"{selection.count}",
                setting="tp_size",
            )
        )
    weights = estimate_weights(
        spec, r.tp, Path(model_config).parent if localfs.is_file(model_config) else Path(model_config)
    )
    _add_dp_attention_weights(spec, r, settings, weights, section)
    pp = max(int(settings.get("pp_size") or 1), 1)
    staged: tuple[Any, int] | None = None
    try:
        if pp > 1:
            from argtrace.layers.memory.sglang_pipeline import plan_stages

            staged = plan_stages(
                spec,
                r,
                weights,
                profile.total_bytes,
                pre_load_bytes,
                post_load_bytes,
                pp,
                version or sg.VERSION,
                env,
                _model_dir(model_config),
                section,
                findings,
                rules,
            )
            if staged is None:
                return result
            p, weights = staged[0].plans[staged[1]], staged[0].weights[staged[1]]
        else:
            p = sg.plan(spec, r, weights, profile.total_bytes, pre_load_bytes, post_load_bytes)
    except ValueError as exc:
        findings.append(rules.MM007.finding(f"tp_size {r.tp}: {exc}", setting="tp_size"))
        return result
    ratio = sg.mamba_ratio(r) if p.mamba else 0
    quant_assumed = assumed_quantization(spec, weights)
    if quant_assumed:
        findings.append(rules.MM012.finding(quant_assumed))
    if checkpoint_quant is not None and p.oom_stage != "weights":
        _online_load_peak(
            spec, checkpoint_quant, settings, r, pp, model_config, p, profile.name, version, findings, rules
        )
    who = f"SGLang {sg.VERSION} (argtrace's re-derivation)"
    sized_by_framework = False
    if framework_argv is not None and staged is not None:
        # framework_sizing.py drives one ModelRunner (rank 0's layers): the stages are the formulas'.
        section.setdefault("notes", []).append(
            f"pp_size {pp}: SGLang's own sizing runs for one rank; every pipeline stage is sized by the "
            "formulas"
        )
    elif framework_argv is not None:
        adopted = _adopt_framework_sizing(
            _model_dir(model_config),
            spec,
            r,
            p,
            weights,
            profile,
            selection.spec,
            section,
            findings,
            rules,
            framework_argv,
            env,
        )
        if adopted is not None:
            r, p, ratio = adopted
            who = f"SGLang {section['framework_sizing']['version']} (its own code)"
            sized_by_framework = True
    section.update(
        {
            "weights_bytes": p.weights_bytes,
            "weights_source": weights.source,
            "total_params": weights.total_params,
            "kv_bytes_per_token": p.kv.bytes_per_token,
            "kv_k_bytes_per_token": p.kv.k_bytes_per_token,
            "kv_layers": p.kv.layers,
            "weights_estimated_bytes": weights.bytes_per_rank,
            "mamba_conv_bytes_per_slot": p.mamba.conv_bytes_per_slot if p.mamba else 0,
            "mamba_ssm_bytes_per_slot": p.mamba.ssm_bytes_per_slot if p.mamba else 0,
            # extra_buffer keeps (ratio - 3) more slots per running request (ping-pong tracking buffers):
            # expressed per running request, in bytes.
            "mamba_extra_bytes_per_slot": (ratio - sg.MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO)
            * p.mamba.bytes_per_slot
            if p.mamba and r.extra_buffer
            else 0,
            "mamba_slots_per_request": ratio or None,
            "mamba_spec_bytes": p.mamba_spec_bytes,
            "draft_bytes": p.draft_bytes,
            "draft_weights_bytes": p.draft_weights_bytes,
            "draft_kv_bytes": p.draft_kv_bytes,
            "reserved_bytes": p.reserved_bytes,
            "cuda_graph_bytes": p.cuda_graph_bytes,
            "cuda_graph_range_bytes": list(p.cuda_graph_range),
            "activation_bytes": p.activation_bytes,
            "reserved_mem_formula_mb": r.reserved_mem_mb,
            "pre_load_avail_bytes": p.pre_load_bytes,
            "post_load_avail_bytes": p.post_load_bytes,
            "rest_bytes": int(p.rest_bytes),
            "kv_pool_bytes": p.kv_pool_bytes,
            "mamba_pool_bytes": p.mamba_bytes,
            "max_total_num_tokens": p.max_total_num_tokens
            if p.oom_stage not in ("weights", "kv_cache", "mamba_cache")
            else None,
            "max_mamba_cache_size": p.max_mamba_cache_size if p.mamba else None,
            "max_running_requests": p.max_running_requests or None,
            # hybrid sliding-window models (GPT-OSS): the sliding layers' own pool, swa_full_tokens_ratio of
            # the full layers' max_total_num_tokens (_resolve_hybrid_swa_tokens)
            "swa_max_total_num_tokens": p.swa_max_total_num_tokens
            if p.oom_stage not in ("weights", "kv_cache", "mamba_cache")
            else None,
            "mem_fraction_static": round(r.mem_fraction_static, 4),
            "mem_fraction_static_given": r.mem_fraction_given,
            "verdict": p.verdict,
            "oom_stage": p.oom_stage,
            "margin_bytes": p.margin_bytes,
            "speculative": {
                "algorithm": r.speculative_algorithm,
                "num_draft_tokens": r.speculative_num_draft_tokens,
                "reserve_bytes": int(p.spec_reserve_bytes),
            }
            if r.speculative_algorithm
            else None,
            "breakdown": _breakdown(p),
            # profile_max_num_token: rest = after_weights - before_weights x (1 - fraction)
            "budgeted_by_mem_fraction_static": [
                "weights",
                "kv cache",
                "mamba state",
                "mamba speculative states",
            ],
            "outside_mem_fraction_static": ["draft weights", "draft kv cache", "cuda graphs", "activations"],
            "notes": section.get("notes", []) + r.notes + spec.notes,
        }
    )
    sizing = section.get("framework_sizing")
    if sizing and sizing.get("error") is not None and section["source"] != STATIC_SOURCE:
        # SGLang raised before these existed.
        section.update(max_total_num_tokens=None, max_mamba_cache_size=None, max_running_requests=None)
    if sizing and sizing.get("error") is None:
        # Per-token / per-slot bytes as SGLang's own code computed them (the pools above use the formulas'
        # geometry: MM009 says when the two differ).
        for key in ("kv_bytes_per_token", "mamba_conv_bytes_per_slot", "mamba_ssm_bytes_per_slot"):
            section[key] = sizing[key]
    if (
        r.speculative_algorithm in ("EAGLE", "EAGLE3", "STANDALONE")
        and not weights.draft_bytes_per_rank
        and not r.draft_is_target
    ):
        draft_path = settings.get("speculative_draft_model_path")
        section["notes"].append(
            f"the draft model{f' at {draft_path}' if draft_path else ''} is not sized (this config has "
            "no MTP layers): its weights and KV pool come out of the memory mem_fraction_static leaves"
        )
    if settings.get("enable_lora") or settings.get("lora_paths"):
        # model_runner.py (0.5.10.post1): load_model :507, init_lora_manager :596, init_memory_pool :623.
        section["notes"].append(
            "LoRA: the adapter buffers (lora/mem_pool.py init_buffers, max_loras_per_batch x max_lora_rank "
            "per target module and layer) are allocated after the weights and before the KV pool and are not "
            "counted: the KV pool here is too large by them"
        )
    evaluate = None
    if framework_argv is not None and sized_by_framework and (framework_suggestions or p.verdict == "oom"):
        evaluate = _framework_evaluator(
            _model_dir(model_config), spec, weights, profile, selection.spec, section, framework_argv, env, p
        )
    if sized_by_framework and evaluate is None:
        # The formulas' alternatives would contradict the framework's own numbers above, and sizing them
        # with the framework costs another run (check, when the launch fits): none, and where to get them.
        section["suggested"] = []
        section["notes"].append(
            f"alternatives sized by SGLang {version}'s own code: argtrace mem --resolver --framework-version "
            f"{version} --model-config ... --gpu {selection.spec} -- FLAGS"
        )
    else:
        # With PP the alternatives are sized for the worst stage (its layers and weights).
        view = spec
        if staged is not None:
            from argtrace.layers.memory.pipeline import stage_spec

            view = stage_spec(spec, staged[0].partition.stages[staged[1]])
        section["suggested"] = suggest(
            view, r, weights, profile, p, pre_load_bytes, ratio=ratio or None, evaluate=evaluate
        )
    section.setdefault("suggested_source", section["source"] if evaluate is not None else STATIC_SOURCE)
    evidence = tuple(Evidence("memory", None, n) for n in r.notes)
    where = ""
    if staged is not None:
        from argtrace.layers.memory.pipeline import stage_line

        reported = str(section["pipeline"]["reported"])
        where = f" ({stage_line(staged[0].partition, staged[1], pp, reported)})"
        evidence += (Evidence("memory", None, staged[0].partition.source),)
    if p.verdict == "oom":
        best = section["suggested"][0] if section["suggested"] else None
        fix = (
            f"use {' '.join(best['flags'])} ({best['cost']})"
            if best
            else "no setting fits on this GPU: use more GPUs "
            + ("(--tp-size, or more pipeline stages with --pp-size)" if staged is not None else "(--tp-size)")
            + " or a quantized checkpoint"
        )
        # The formulas follow one release; for another, the pools below the weights are that release's own
        # arithmetic (0.5.15+ sizes the Mamba cache differently): a prediction, not a certainty.
        other_release = (
            not sized_by_framework and bool(version) and version != sg.VERSION and p.oom_stage != "weights"
        )
        caveat = (
            f"; argtrace's formulas follow SGLang {sg.VERSION} and {version} sizes its pools with its own "
            f"code: `argtrace resolver add sglang=={version}`, then `argtrace mem --resolver`, runs it"
            if other_release
            else ""
        )
        # CUDA graphs and activations are measured by SGLang at run time; argtrace only estimates them, so
        # running out there is a warning resting on that estimate, never an error.
        estimated_stage = p.oom_stage in ("cuda_graph", "activations")
        if estimated_stage:
            stage = str(p.oom_stage).replace("_", " ")
            caveat += (
                f"; the {stage} figure is argtrace's estimate (SGLang measures it at run time): compare "
                "with the log (argtrace mem --from-log)"
            )
        if p.oom_stage == "draft" and r.draft_is_target:
            # draft.py: the draft path names the target checkpoint, which SGLang builds whole a second time
            caveat += (
                f"; the draft is the whole {spec.architecture} again ({p.draft_weights_bytes / GIB:.2f} GiB "
                f"of weights and a {p.draft_kv_bytes / GIB:.2f} GiB KV pool of the target's tokens over all "
                "its layers): --speculative-draft-model-path names the model path"
            )
            fix = (
                "point --speculative-draft-model-path at a draft model (an EAGLE head or a smaller model), "
                "or lower --mem-fraction-static to leave room for a second copy of the model"
                + (f"; or {fix}" if best else "")
            )
        # the weights are an upper bound (MM012) unless SGLang's own code or the log measured them
        on_assumed_weights = bool(quant_assumed) and post_load_bytes is None and not sized_by_framework
        if on_assumed_weights:
            caveat += f"; this rests on the weights: {quant_assumed} (MM012)"
        findings.append(
            rules.MM001.finding(
                f"out of memory at {p.oom_stage} on {profile.name}{where}: {p.message} "
                f"(short by {abs(p.margin_bytes) / GIB:.2f} GiB per GPU){caveat}",
                severity="warning" if other_release or estimated_stage or on_assumed_weights else "error",
                basis="assumed" if estimated_stage or on_assumed_weights else None,
                setting={
                    "kv_cache": "mem_fraction_static",
                    "mamba_cache": "max_mamba_cache_size",
                    "draft": "mem_fraction_static",
                    "cuda_graph": "mem_fraction_static",
                    "activations": "mem_fraction_static",
                    "weights": "tp_size",
                }.get(p.oom_stage or ""),
                fix=fix,
                evidence=evidence,
            )
        )
    else:
        if p.margin_bytes < p.cuda_graph_range[1] - p.cuda_graph_bytes + SAFETY_BYTES:
            findings.append(
                rules.MM005.finding(
                    f"only {p.margin_bytes / GIB:.2f} GiB stays free after pools, draft, CUDA graphs and "
                    "activations; "
                    f"CUDA graphs alone measure up to {p.cuda_graph_range[1] / GIB:.2f} GiB at run time",
                    setting="mem_fraction_static",
                )
            )
        wanted = r.max_running_requests
        if p.mamba and wanted and p.max_running_requests < wanted:
            findings.append(
                rules.MM006.finding(
                    f"max_running_requests {wanted} is capped to {p.max_running_requests} "
                    "by the Mamba state cache "
                    f"({p.max_mamba_cache_size} slots / {ratio} per request); the slots rest on "
                    "argtrace's estimate of the memory after the weights: the log's 'Mamba Cache is "
                    "allocated' line decides",
                    setting="max_running_requests",
                )
            )
    if (
        p.spec_reserve_bytes
        and p.rest_bytes > 0
        and (p.spec_reserve_bytes >= 0.10 * p.rest_bytes or p.oom_stage in ("mamba_cache", "kv_cache"))
    ):
        assert p.mamba is not None
        # The requests the reserve was made for (0.5.15+: those the slots allow, not the requested ones).
        reserved_for = round(
            p.spec_reserve_bytes / ((r.speculative_num_draft_tokens or 1) * p.mamba.bytes_per_slot)
        )
        findings.append(
            rules.MM010.finding(
                f"speculative decoding reserves {p.spec_reserve_bytes / GIB:.2f} GiB of intermediate "
                f"Mamba states ({reserved_for} running requests x "
                f"{r.speculative_num_draft_tokens} draft tokens x "
                f"{p.mamba.bytes_per_slot / (1 << 20):.1f} MiB) "
                f"out of {p.rest_bytes / GIB:.2f} GiB for the caches",
                setting="max_running_requests",
            )
        )
    if not r.mem_fraction_given:
        findings.append(
            rules.MM008.finding(
                f"mem_fraction_static not given: {who} computes {r.mem_fraction_static:.3f} "
                f"(reserved_mem {r.reserved_mem_mb:.0f} MB of {profile.smi_total_mib} MiB)",
                setting="mem_fraction_static",
                evidence=evidence,
            )
        )
    return result
