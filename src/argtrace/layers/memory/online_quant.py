"""Weights a framework quantizes while loading them, when the launch asks for it and the checkpoint's
config.json declares no quantization (``--quantization fp8`` on a bf16 checkpoint)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from argtrace.layers.memory.config import ModelSpec, Quantization
from argtrace.layers.memory.weights import estimate_weights

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GIB = 1 << 30
# SGLang's load formats that build every layer before loading any weight (model_loader/loader.py
# DefaultModelLoader); ``layered`` materializes one module at a time (LayeredModelLoader) and others have
# their own loaders: the peak below is the default loader's.
_DEFAULT_LOAD_FORMATS = ("", "auto", "safetensors", "pt", "npcache")


def online_fp8(spec: ModelSpec, settings: Mapping[str, Any], framework: str) -> Quantization | None:
    """``--quantization fp8`` on a checkpoint whose config.json declares no quantization: the weights are
    quantized to fp8 while loading, one scale per tensor (vLLM up to 0.30.0 ``quantization/fp8.py``: with no
    ``quantization_config`` ``is_checkpoint_fp8_serialized`` is False and ``process_weights_after_loading``
    keeps ``ops.scaled_fp8_quant``'s fp8 copy; from 0.31.0 ``--quantization fp8_per_tensor`` does it and
    ``fp8`` is refused, ``Fp8Config.__init__`` at ``fp8.py:107`` in 0.31.0-0.33.0; SGLang 0.5.10.post1
    ``srt/layers/quantization/fp8.py`` the same). Until 2026-12-03 the weights were counted at 16 bits: the
    Qwen3-VL-235B FP8 launch a maintainer runs on 8x H100 (QwenLM/Qwen3-VL#1489) was an out-of-memory
    warning."""
    method = str(settings.get("quantization") or "").lower()
    if spec.quantization.method != "none" or method not in ("fp8", "fp8_per_tensor"):
        return None
    checkpoint = spec.quantization
    spec.quantization = Quantization("fp8", 8, None)
    note = (
        f"--quantization {method} on a checkpoint without quantization_config: the weights are quantized to "
        "fp8 while loading (one scale per tensor) and counted so"
    )
    if framework == "vllm" and method == "fp8":
        note += (
            "; vLLM 0.31.0 and later refuse this online quantization under the name fp8 "
            "(Fp8Config.__init__, model_executor/layers/quantization/fp8.py:107): "
            "--quantization fp8_per_tensor"
        )
    spec.notes.append(note)  # both frameworks' sections show the spec's notes
    return checkpoint  # what the weights are loaded as before the quantization (sglang_load_peak)


@dataclasses.dataclass(frozen=True)
class LoadPeak:
    """What one GPU holds at the end of SGLang's weight loading when it quantizes online (MM016)."""

    bytes_per_rank: int  # the weights at the checkpoint's precision, one rank's shard
    quantized_bytes_per_rank: int  # what they become once quantized (the memory plan's weights)
    available_bytes: int  # what the GPU has before loading (the plan's pre-load figure)
    tp_that_fits: int | None  # the smallest tensor-parallel size whose shard loads, when one up to 16 does


def sglang_load_peak(
    spec: ModelSpec,
    checkpoint: Quantization,
    settings: Mapping[str, Any],
    tp: int,
    pp: int,
    model_dir: Path | None,
    quantized_bytes_per_rank: int,
    available_bytes: int,
) -> LoadPeak | None:
    """SGLang's online ``--quantization fp8`` builds each linear weight at the checkpoint's dtype
    (0.5.10.post1 ``srt/layers/quantization/fp8.py:372``, 0.5.23 ``:654-656``: ``float8_e4m3fn if
    is_checkpoint_fp8_serialized else params_dtype``; the MoE experts alike, 0.5.10.post1 ``:808``), loads
    every weight, and only then quantizes module by module (0.5.10.post1 ``model_loader/loader.py:697-709``
    ``load_weights_and_postprocess``; 0.5.23 ``:1063`` then ``:1080-1089``). One rank therefore holds its
    whole shard at 16 bits once: the peak, when it does not fit the GPU, is a CUDA out of memory while
    loading although the fp8 model would fit (sglang#2895; sglang PR#17945 describes the same). ``None``
    when the peak fits or another loader is asked for (``--load-format layered`` builds one module at a
    time). Under pipeline parallelism the stage's share is the model's over ``pp`` (an estimate)."""
    load_format = str(settings.get("load_format") or "").lower()
    if load_format not in _DEFAULT_LOAD_FORMATS:
        return None
    original = dataclasses.replace(spec, quantization=checkpoint)
    pp = max(pp, 1)
    peak = estimate_weights(original, tp, model_dir).bytes_per_rank // pp
    if peak <= available_bytes:
        return None
    fits: int | None = None
    candidate = tp * 2
    while candidate <= 16:
        try:
            if estimate_weights(original, candidate, model_dir).bytes_per_rank // pp <= available_bytes:
                fits = candidate
                break
        except ValueError:  # a size the model's heads do not split into
            pass
        candidate *= 2
    return LoadPeak(peak, quantized_bytes_per_rank, available_bytes, fits)
