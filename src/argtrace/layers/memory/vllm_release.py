"""What a named vLLM release does differently from 0.33.0 when it sizes the KV cache, read from that release's
own code (the wheels of 0.6.4.post1, 0.7.3, 0.10.1, 0.11.0 and 0.17.1 from PyPI; paths relative to ``vllm/``).

``vllm.py`` re-derives 0.33.0. When the launch names another release (``--framework-version``, an image tag, a
log's version line) and that release's code was read, ``rules_for`` returns the parts that differ, and
``apply`` changes the resolved settings accordingly; any other release keeps 0.33.0's steps (the section says
"nearest used"). Only what was read is here; each field names its source line.

- V0 (0.6.4.post1, 0.7.3; the default engine before 0.8): ``config.py`` ``SchedulerConfig``
  (0.6.4.post1 :1103-1118, 0.7.3 :1521-1536): without chunked prefill ``max_num_batched_tokens =
  max(max_model_len, 2048)``, so the profile run is one prefill of the whole ``max_model_len``; with it 512
  (0.6.4.post1) or 2048 (0.7.3). ``engine/arg_utils.py`` (0.6.4.post1 :996-1020, 0.7.3 :1164-1194) turns
  chunked prefill on by default only when ``max_model_len > 32768`` (not for multimodal models, sliding
  windows, speculative decoding or LoRA); ``max_num_seqs`` defaults to 256. ``worker/worker.py``
  ``determine_num_available_blocks`` (0.6.4.post1 :174-230, 0.7.3 :226-236 through ``memory_profiling``):
  ``total x gpu_memory_utilization - peak``, the peak being torch's (weights + profile run) plus non-torch
  memory; CUDA graphs are captured afterwards and not reserved. The check (``worker/worker.py``
  ``raise_if_cache_size_invalid``, 0.6.4.post1 :486-502, 0.7.3 :532-545): ``max_model_len > block_size x
  num_gpu_blocks`` fails, no null block held back.
- V1 0.10.1 and 0.11.0: ``v1/worker/gpu_worker.py`` ``determine_available_memory`` (0.10.1 :257, 0.11.0
  :279): ``requested_memory - non_kv_cache_memory`` (weights, the profile run's torch peak, non-torch); CUDA
  graphs are captured after the KV cache and not reserved. The sampler warm-up
  (``v1/worker/gpu_model_runner.py`` ``_dummy_sampler_run``, 0.10.1 :2426, 0.11.0 :3183: top_k vocab - 1,
  top_p 0.9 over ``min(max_num_batched_tokens, max_num_seqs)`` rows) takes FlashInfer's sampler only when
  FlashInfer is importable (``v1/sample/ops/topk_topp_sampler.py`` ``TopKTopPSampler.__init__``), and the
  wheel installs it only with the ``flashinfer`` extra (its METADATA: ``flashinfer-python; extra ==
  "flashinfer"``). Without it ``forward_native`` -> ``apply_top_k_top_p`` (0.10.1 :170-210, 0.11.0
  :164-204) holds, at the ``scatter``, per logit: the model-dtype logits (``compute_logits``), the float32
  copy (``v1/sample/sampler.py`` 0.10.1 :47, 0.11.0 :86), ``logits_sort`` (float32), ``logits_idx`` (int64),
  two boolean masks, ``probs_sort`` (float32, cumsum in place) and the scatter's float32 output: dtype + 26
  bytes. MXFP4 experts on SM90 take Marlin unless ``triton_kernels`` is installed
  (``model_executor/layers/quantization/mxfp4.py`` 0.10.1 :123-135 ``_should_use_marlin``, 0.11.0 :94-100
  ``get_mxfp4_backend``), which the wheel does not require. The ``GPU KV cache size: N tokens`` line is
  ``num_blocks // number of KV cache groups x block_size`` (``v1/core/kv_cache_utils.py`` 0.10.1 :1011,
  0.11.0 :1080), not 0.33.0's capacity at ``max_model_len``.
- V1 0.8.1 (the wheel from PyPI): ``engine/arg_utils.py`` ``_set_default_args_v1`` (:1673-1731) defaults
  ``max_num_seqs`` to 1024 on every GPU (:1726-1728; ``max_num_batched_tokens`` 2048 for ``vllm serve``
  except on H100/H200, 8192, as 0.33.0's defaults give on those cards). ``v1/worker/gpu_worker.py``
  ``determine_available_memory`` (:139-185): ``total x gpu_memory_utilization - peak`` (torch's peak of the
  profile run plus non-torch memory); no CUDA graphs reserved. The profile run
  (``v1/worker/gpu_model_runner.py`` ``profile_run`` :1384-1473) ends in ``_dummy_sampler_run`` (:1312) over
  the logits of ``min(max_num_batched_tokens, max_num_seqs)`` dummy requests (``_dummy_run`` :1260-1261),
  top_k vocab - 1 and top_p 0.9; FlashInfer 0.2.3+ is turned off for top-k/top-p
  (``v1/sample/ops/topk_topp_sampler.py:26-41``), so ``apply_top_k_top_p`` (:100-132) holds per logit the
  float32 copy (``v1/sample/sampler.py:39``), ``logits_sort``, ``logits_idx`` (int64), the top-k mask,
  ``probs_sort``, ``probs_sum`` (cumsum not in place), the top-p mask and the scatter's output: 30 bytes
  beside the model-dtype logits. At 1024 requests that warm-up alone is 4.6 GB for a 152k vocabulary
  (vllm#17238: Qwen2.5-32B on two 24 GB cards had no KV memory left until ``--max-num-seqs 8``).
- V1 0.8.3 (the wheel from PyPI): the same default (``engine/arg_utils.py`` :1669-1671), the same budget
  (``v1/worker/gpu_worker.py:139-185``) and warm-up rows (``gpu_model_runner.py:1383``, ``:1434``,
  ``:1506-1575``); its ``apply_top_k_top_p`` (``topk_topp_sampler.py:167-206``, FlashInfer 0.2.3+ still off
  at :34-49) takes the cumsum in place (``out=probs_sort``): 26 bytes per logit, as 0.10.1's.
- V1 0.17.1: ``gpu_worker.py`` ``determine_available_memory`` (:352-430) subtracts no CUDA graphs either, and
  prints the KV tokens the same way (``kv_cache_utils.py:1295-1314``). Its sampler warm-up holds what 0.33.0's
  does: FlashInfer's sampler is opt-in (``VLLM_USE_FLASHINFER_SAMPLER``, ``topk_topp_sampler.py``), and the
  default ``apply_top_k_top_p`` (:245) masks the float32 logits in place with a Triton kernel for 8 rows or
  more (``topk_topp_triton.py:947``, one row per SM of scratch), then ``softmax`` and ``random_sample``'s
  draw: float32 logits, probabilities and draw beside the model-dtype logits. MXFP4 backends not read:
  0.33.0's.
- Any other V1 release before 0.21.0 (not read): only that its CUDA graphs are not reserved before the KV
  cache, which 0.33.0's own ``envs.py:2216-2218`` dates (``VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS``,
  "Enabled by default as of v0.21.0"); the rest follows 0.33.0. The same variable set to 0 in the launch's
  environment turns the reservation off in 0.33.0 itself (``vllm_section.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from argtrace.layers.memory.config import ModelSpec

TYPE_CHECKING = False
if TYPE_CHECKING:  # vllm.py imports this module; the type only is needed here
    from argtrace.layers.memory.vllm import Resolved

# V0's default scheduler settings (engine/arg_utils.py EngineArgs.max_num_seqs; config.py SchedulerConfig)
V0_MAX_NUM_SEQS = 256
V0_MIN_BATCHED_TOKENS = 2048
V0_LONG_CONTEXT = 32768  # arg_utils.py use_long_context = max_model_len > 32768
# V0 sampler.py _apply_top_k_top_p (0.6.4.post1 :426-452), per logit: the float32 logits (Sampler.forward
# :269), logits_sort, logits_idx (int64), the top-k mask, probs_sort, probs_sum (cumsum not in place), the
# top-p mask and the scatter's empty_like output, beside the model-dtype logits.
V0_SAMPLER_BYTES = 4 + 4 + 8 + 1 + 4 + 4 + 1 + 4
# V1 0.10.1 / 0.11.0 forward_native, per logit beside the model-dtype logits (module docstring).
V1_NATIVE_SAMPLER_BYTES = 4 + 4 + 8 + 1 + 4 + 1 + 4


@dataclass(frozen=True)
class ReleaseRules:
    """The parts of one release's KV sizing that differ from 0.33.0's."""

    release: str  # the release named by the launch
    read: str  # the release whose code these rules come from
    engine: str  # "v0" or "v1"
    chunked_prefill_tokens: int | None  # V0's default max_num_batched_tokens with chunked prefill on
    sampler_bytes_per_logit: int | None  # beside the model-dtype logits in the warm-up's peak; None: 0.33.0's
    mxfp4_sm90_backend: str | None  # the MXFP4 MoE kernel on SM90 without optional packages; None: 0.33.0's
    kv_tokens_from_blocks: bool = True  # "GPU KV cache size" = num_blocks // groups x block size
    only_cuda_graphs: bool = False  # a release not read: only the CUDA-graph reservation is known to differ
    max_num_seqs: int | None = None  # V1's default max_num_seqs when it differs from 0.33.0's


_V0 = {
    "0.6.4": ("0.6.4.post1", 512),
    "0.6.4.post1": ("0.6.4.post1", 512),
    "0.7.3": ("0.7.3", 2048),
}
_V1 = {"0.10.1": "0.10.1", "0.10.1.1": "0.10.1", "0.11.0": "0.11.0"}
_V1_LIKE_0330_SAMPLER = {"0.17.1": "0.17.1"}
# V1 0.8.1 and 0.8.3: max_num_seqs 1024 by default (arg_utils.py); their warm-ups' bytes per logit (docstring)
_V1_081 = {"0.8.1": ("0.8.1", V0_SAMPLER_BYTES), "0.8.3": ("0.8.3", V1_NATIVE_SAMPLER_BYTES)}
V1_081_MAX_NUM_SEQS = 1024
# vLLM 0.33.0's envs.py:2216-2218 (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS): "Enabled by default as of
# v0.21.0"; its gpu_worker.py:788 logs "CUDA graph memory profiling is enabled (default since v0.21.0)".
CUDAGRAPH_PROFILING_SINCE = (0, 21)
V1_DEFAULT_SINCE = (0, 8)  # V0 was the default engine before 0.8 (0.7.3 envs.py:503 VLLM_USE_V1 "0")
CUDAGRAPH_SOURCE = "0.33.0's envs.py:2216 (CUDA graph profiling on by default as of v0.21.0)"


def _plain(version: str) -> str:
    return re.sub(r"^v", "", version.strip().split("+")[0])


def rules_for(version: str | None) -> ReleaseRules | None:
    """The rules of ``version`` when its code was read (above); None for 0.33.0 and for releases not read."""
    if not version:
        return None
    v = _plain(version)
    if v in _V0:
        read, chunked = _V0[v]
        return ReleaseRules(v, read, "v0", chunked, V0_SAMPLER_BYTES, None)
    if v in _V1:
        return ReleaseRules(v, _V1[v], "v1", None, V1_NATIVE_SAMPLER_BYTES, "marlin")
    if v in _V1_081:
        read, sampler = _V1_081[v]
        return ReleaseRules(v, read, "v1", None, sampler, None, max_num_seqs=V1_081_MAX_NUM_SEQS)
    if v in _V1_LIKE_0330_SAMPLER:
        return ReleaseRules(v, _V1_LIKE_0330_SAMPLER[v], "v1", None, None, None)
    parts = re.match(r"(\d+)\.(\d+)", v)
    if parts and V1_DEFAULT_SINCE <= (int(parts[1]), int(parts[2])) < CUDAGRAPH_PROFILING_SINCE:
        # Not read, but older than CUDA-graph profiling: the graphs are captured after the KV cache.
        return ReleaseRules(v, CUDAGRAPH_SOURCE, "v1", None, None, None, False, True)
    return None


def with_env(rules: ReleaseRules | None, env: Mapping[str, str] | None) -> ReleaseRules | None:
    """``rules`` under the launch's environment: ``VLLM_USE_V1=0`` runs 0.8.x's V0 engine, whose defaults
    differ (0.8.1 ``engine/arg_utils.py:1669-1671``: ``max_num_seqs`` 256) and whose profile run was not read
    for those releases: the V1 rules read from 0.8.1 and 0.8.3 give way to what is known of any 0.8-0.20
    release (its CUDA graphs are not reserved)."""
    if rules is None or rules.max_num_seqs is None:
        return rules
    if str((env or {}).get("VLLM_USE_V1", "")).strip() != "0":
        return rules
    return ReleaseRules(rules.release, CUDAGRAPH_SOURCE, "v1", None, None, None, False, True)


def apply(
    rules: ReleaseRules, r: Resolved, spec: ModelSpec, given: dict[str, bool], chunked_prefill: bool | None
) -> Resolved:
    """``r`` (0.33.0's defaults) with the release's defaults for what the user did not write (``given``:
    whether max_num_seqs, max_num_batched_tokens, enable_lora were written; ``chunked_prefill``: the
    --enable-chunked-prefill value written, None when not) and its profile run."""
    changes: dict[str, object] = {
        "engine": rules.engine,
        "cudagraph_before_kv": False,
        "sampler_bytes_per_logit": rules.sampler_bytes_per_logit,
    }
    notes = list(r.notes)
    if rules.engine == "v0":
        if not given["max_num_seqs"]:
            changes["max_num_seqs"] = V0_MAX_NUM_SEQS
        if not given["max_num_batched_tokens"]:
            chunked = chunked_prefill
            if chunked is None:
                chunked = (
                    r.max_model_len > V0_LONG_CONTEXT
                    and spec.vision is None  # is_multimodal_model
                    and not spec.sliding_layer_ids
                    and not r.speculative_method
                    and not given["enable_lora"]
                )
            tokens = rules.chunked_prefill_tokens if chunked else max(r.max_model_len, V0_MIN_BATCHED_TOKENS)
            changes["max_num_batched_tokens"] = tokens
            notes.append(
                f"vLLM {rules.release} (V0, code of {rules.read}): max_num_batched_tokens {tokens} "
                + (
                    "(chunked prefill on)"
                    if chunked
                    else f"= max(max_model_len, 2048): the profile run is one prefill of {tokens} tokens"
                )
                + "; CUDA graphs are not reserved before the KV cache"
            )
    elif rules.only_cuda_graphs:
        notes.append(
            f"vLLM {rules.release}: CUDA graphs are captured after the KV cache, not reserved "
            f"({rules.read}); the rest follows 0.33.0 (that release's code was not read)"
        )
    else:
        changes["kv_tokens_from_blocks"] = rules.kv_tokens_from_blocks
        note = (
            f"vLLM {rules.release} (code of {rules.read}): CUDA graphs are captured after the KV cache, not "
            "reserved"
        )
        if rules.max_num_seqs is not None:
            # 0.8.1/0.8.3: their own KV check and words (vllm.py _check_08)
            changes["kv_check_08"] = True
            if not given["max_num_seqs"]:
                changes["max_num_seqs"] = rules.max_num_seqs
                note += f"; max_num_seqs defaults to {rules.max_num_seqs} (engine/arg_utils.py)"
        if rules.sampler_bytes_per_logit is not None:
            note += (
                "; the sampler warm-up takes PyTorch's top-k/top-p path (sort, int64 indices), as "
                "`pip install vllm` without the flashinfer extra runs it (assumed: FlashInfer's sampler, in "
                "the Docker image, holds less)"
            )
        notes.append(note)
    return replace(r, notes=notes, **changes)  # type: ignore[arg-type]
