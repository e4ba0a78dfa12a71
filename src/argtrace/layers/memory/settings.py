"""The handful of server flags the memory layer reads, as ``dest -> value``.

``read_server_settings`` is a stop-gap: a tiny argparse over known flag names (SGLang 0.5.10.post1 and vLLM
0.33 spellings, ``parse_known_args`` so other flags pass). Once the parser layer
(``argtrace.layers.parser``) is importable, ``check`` hands ``analyze_memory`` the parser's (or the
resolver's) effective values instead, keyed by the same dest names, and this function is only used by
``argtrace mem`` when no parser layer exists.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence

from argtrace import safe_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _bool_flag(parser: argparse.ArgumentParser, *names: str, dest: str) -> None:
    parser.add_argument(*names, dest=dest, action="store_true", default=None)


def _sglang_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("--model-path", "--model", dest="model_path")
    p.add_argument("--tp-size", "--tp", "--tensor-parallel-size", dest="tp_size", type=int)
    p.add_argument("--dp-size", "--dp", "--data-parallel-size", dest="dp_size", type=int)
    p.add_argument("--ep-size", "--ep", "--expert-parallel-size", dest="ep_size", type=int)
    p.add_argument("--pp-size", "--pipeline-parallel-size", dest="pp_size", type=int)
    _bool_flag(p, "--enable-dp-attention", dest="enable_dp_attention")
    p.add_argument("--mem-fraction-static", dest="mem_fraction_static", type=float)
    p.add_argument("--max-running-requests", dest="max_running_requests", type=int)
    p.add_argument("--max-total-tokens", dest="max_total_tokens", type=int)
    p.add_argument("--chunked-prefill-size", dest="chunked_prefill_size", type=int)
    p.add_argument("--max-prefill-tokens", dest="max_prefill_tokens", type=int)
    p.add_argument("--cuda-graph-max-bs", dest="cuda_graph_max_bs", type=int)
    p.add_argument("--cuda-graph-bs", dest="cuda_graph_bs", type=int, nargs="+")
    _bool_flag(p, "--disable-cuda-graph", dest="disable_cuda_graph")
    _bool_flag(p, "--disable-piecewise-cuda-graph", dest="disable_piecewise_cuda_graph")
    _bool_flag(p, "--enforce-piecewise-cuda-graph", dest="enforce_piecewise_cuda_graph")
    p.add_argument("--kv-cache-dtype", dest="kv_cache_dtype")
    p.add_argument("--context-length", dest="context_length", type=int)
    p.add_argument("--page-size", dest="page_size", type=int)
    p.add_argument("--max-mamba-cache-size", dest="max_mamba_cache_size", type=int)
    p.add_argument("--mamba-full-memory-ratio", dest="mamba_full_memory_ratio", type=float)
    p.add_argument("--mamba-ssm-dtype", dest="mamba_ssm_dtype")
    p.add_argument(
        "--mamba-scheduler-strategy", "--mamba-radix-cache-strategy", dest="mamba_scheduler_strategy"
    )
    _bool_flag(p, "--disable-radix-cache", dest="disable_radix_cache")
    p.add_argument("--swa-full-tokens-ratio", dest="swa_full_tokens_ratio", type=float)
    _bool_flag(p, "--enable-lora", dest="enable_lora")
    p.add_argument("--lora-paths", dest="lora_paths", nargs="+")
    _bool_flag(p, "--disable-hybrid-swa-memory", dest="disable_hybrid_swa_memory")
    _bool_flag(p, "--disable-overlap-schedule", dest="disable_overlap_schedule")
    p.add_argument("--speculative-algorithm", dest="speculative_algorithm")
    p.add_argument("--speculative-num-steps", dest="speculative_num_steps", type=int)
    p.add_argument("--speculative-eagle-topk", dest="speculative_eagle_topk", type=int)
    p.add_argument("--speculative-num-draft-tokens", dest="speculative_num_draft_tokens", type=int)
    p.add_argument("--speculative-draft-model-path", dest="speculative_draft_model_path")
    p.add_argument("--quantization", dest="quantization")
    p.add_argument("--load-format", dest="load_format")
    p.add_argument("--dtype", dest="dtype")
    _bool_flag(p, "--language-only", dest="language_only")
    _bool_flag(p, "--enable-multimodal", dest="enable_multimodal")
    p.add_argument("--attention-backend", dest="attention_backend")
    return p


def _vllm_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    p.add_argument("--hf-config-path", dest="hf_config_path")  # the config vLLM reads (vllm_section.py)
    p.add_argument("--model", dest="model")
    p.add_argument("--tensor-parallel-size", "-tp", dest="tensor_parallel_size", type=int)
    p.add_argument("--data-parallel-size", "-dp", dest="data_parallel_size", type=int)
    p.add_argument("--pipeline-parallel-size", "-pp", dest="pipeline_parallel_size", type=int)
    _bool_flag(p, "--enable-expert-parallel", dest="enable_expert_parallel")
    p.add_argument("--gpu-memory-utilization", dest="gpu_memory_utilization", type=float)
    p.add_argument("--kv-cache-memory-bytes", dest="kv_cache_memory_bytes", type=int)
    p.add_argument("--max-model-len", dest="max_model_len", type=int)
    p.add_argument("--max-num-seqs", dest="max_num_seqs", type=int)
    p.add_argument("--max-num-batched-tokens", dest="max_num_batched_tokens", type=int)
    p.add_argument("--kv-cache-dtype", dest="kv_cache_dtype")
    p.add_argument("--block-size", dest="block_size", type=int)
    _bool_flag(p, "--enforce-eager", dest="enforce_eager")
    p.add_argument("--speculative-config", dest="speculative_config")
    p.add_argument("--mamba-ssm-cache-dtype", dest="mamba_ssm_cache_dtype")
    p.add_argument("--mamba-cache-mode", dest="mamba_cache_mode")
    p.add_argument(
        "--enable-prefix-caching",
        dest="enable_prefix_caching",
        action=argparse.BooleanOptionalAction,
        default=None,
    )
    p.add_argument("--quantization", "-q", dest="quantization")
    p.add_argument("--dtype", dest="dtype")
    p.add_argument("--kv-transfer-config", dest="kv_transfer_config")
    p.add_argument("--cpu-offload-gb", dest="cpu_offload_gb", type=float)
    _bool_flag(p, "--enable-lora", dest="enable_lora")
    p.add_argument("--cpu-offload-params", dest="cpu_offload_params", nargs="+")
    # V0 releases take an optional value (``--enable-chunked-prefill [BOOL]``), 0.33.0 the --no- form; both
    # decide V0's max_num_batched_tokens default (vllm_release.py)
    p.add_argument(
        "--enable-chunked-prefill",
        dest="enable_chunked_prefill",
        nargs="?",
        const=True,
        default=None,
        type=lambda v: v.strip().lower() in ("1", "true", "yes"),
    )
    p.add_argument("--no-enable-chunked-prefill", dest="enable_chunked_prefill", action="store_false")
    return p


def _normalise(argv: Sequence[str]) -> list[str]:
    """``--x_y=z`` -> ``--x-y``, ``z`` (vLLM normalises underscores; SGLang does not, but the parser layer
    reports that, not this one)."""
    out: list[str] = []
    for word in argv:
        if word.startswith("--"):
            name, eq, value = word.partition("=")
            out.append(name.replace("_", "-"))
            if eq:
                out.append(value)
        else:
            out.append(word)
    return out


def read_server_settings(argv: Sequence[str], framework: str) -> dict[str, Any]:
    """Effective-as-written values of the flags this layer needs (only those present in ``argv``)."""
    words = _normalise(argv)
    if framework == "vllm":
        positional_model = None
        if words and words[0] == "serve":
            words = words[1:]
        if words and not words[0].startswith("-"):
            positional_model, words = words[0], words[1:]
        namespace, _ = _vllm_parser().parse_known_args(words)
        values = {k: v for k, v in vars(namespace).items() if v is not None}
        if positional_model and "model" not in values:
            values["model"] = positional_model
        spec = values.get("speculative_config")
        if isinstance(spec, str):
            try:
                values["speculative_config"] = safe_json.loads(spec)
            except json.JSONDecodeError:
                pass
        return values
    namespace, _ = _sglang_parser().parse_known_args(words)
    return {k: v for k, v in vars(namespace).items() if v is not None}


def setting(settings: Mapping[str, Any], name: str, default: Any = None) -> Any:
    value = settings.get(name)
    return default if value is None else value
