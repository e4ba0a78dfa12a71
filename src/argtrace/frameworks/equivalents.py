"""SGLang <-> vLLM flag equivalents, for "this is the other framework's flag; here it is spelled X".

Computed from the two schemas: a dest both parsers have is the same setting (``--port``, ``--host``,
``--served-model-name``...), so the other framework's option strings for it map to this framework's flag.
Only pairs whose dests differ need a hand mapping; :data:`KNOWN_PAIRS` keeps that list tiny, and a pair
is used only when both dests exist in the schemas at hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.frameworks.schema import Schema

# (SGLang dest, vLLM dest) pairs for the same setting under different names. Documented by each
# framework's server-arguments reference; keep this short.
KNOWN_PAIRS: tuple[tuple[str, str], ...] = (
    ("tp_size", "tensor_parallel_size"),
    ("tensor_parallel_size", "tensor_parallel_size"),  # SGLang 0.5.10 stores --tp-size under this dest
    ("pp_size", "pipeline_parallel_size"),
    ("dp_size", "data_parallel_size"),
    ("data_parallel_size", "data_parallel_size"),
    ("mem_fraction_static", "gpu_memory_utilization"),
    ("context_length", "max_model_len"),
    ("model_path", "model"),
    ("tokenizer_path", "tokenizer"),
    ("max_running_requests", "max_num_seqs"),
    ("random_seed", "seed"),
    ("chunked_prefill_size", "max_num_batched_tokens"),
    ("log_level_http", "uvicorn_log_level"),
)
# Opposite switches for one feature: SGLang's radix cache is on unless --disable-radix-cache; vLLM's prefix
# caching flag is a pair --enable-prefix-caching / --no-enable-prefix-caching (and --disable-prefix-caching).
_SGLANG_PREFIX_OFF = "--disable-radix-cache"
_VLLM_PREFIX_OFF = "--no-enable-prefix-caching"


def _pairs(this: Schema) -> list[tuple[str, str]]:
    """(other dest, this dest) pairs from the hand table, oriented for the analysed framework."""
    if this.framework == "sglang":
        return [(v, s) for s, v in KNOWN_PAIRS]
    return list(KNOWN_PAIRS)


def equivalent_flags(this: Schema, others: Sequence[Schema]) -> dict[str, str]:
    """Option string of the other framework -> how the analysed release says the same thing: a flag, or a
    short phrase when there is nothing to pass."""
    out: dict[str, str] = {}
    this_dests = this.dests
    for other in others:
        if other.framework == this.framework:
            continue
        for spec in other.options:
            if spec.dest in this_dests:
                flag = this.flag_for_dest(spec.dest)
                if flag:
                    for s in spec.option_strings:
                        if this.option(s) is None:
                            out.setdefault(s, flag)
        for other_dest, this_dest in _pairs(this):
            flag = this.flag_for_dest(this_dest)
            if flag is None:
                continue
            for spec in other.options_for_dest(other_dest):
                for s in spec.option_strings:
                    if this.option(s) is None:
                        out.setdefault(s, flag)
    if this.framework == "sglang" and this.option(_SGLANG_PREFIX_OFF) is not None:
        for s in ("--no-enable-prefix-caching", "--disable-prefix-caching"):
            out[s] = _SGLANG_PREFIX_OFF
        out["--enable-prefix-caching"] = "nothing to pass: SGLang's radix (prefix) cache is on by default"
    if this.framework == "vllm" and this.option("--enable-prefix-caching") is not None:
        out[_SGLANG_PREFIX_OFF] = _VLLM_PREFIX_OFF
    return out
