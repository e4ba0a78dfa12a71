"""Weights a framework quantizes while loading them, when the launch asks for it and the checkpoint's
config.json declares no quantization (``--quantization fp8`` on a bf16 checkpoint)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from argtrace.layers.memory.config import ModelSpec, Quantization


def online_fp8(spec: ModelSpec, settings: Mapping[str, Any], framework: str) -> None:
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
        return
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
