"""Weights: exact from safetensors headers when present, quantization-aware otherwise."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from argtrace.layers.memory.config import load_config, read_model_spec
from argtrace.layers.memory.weights import estimate_weights
from tests.conftest import REPO

MODELS = REPO / "tests" / "data" / "models"


def _write_safetensors(path: Path, tensors: dict[str, tuple[str, list[int]]]) -> int:
    sizes = {"BF16": 2, "F8_E4M3": 1, "F32": 4}
    header: dict[str, object] = {}
    offset = 0
    for name, (dtype, shape) in tensors.items():
        n = sizes[dtype]
        for d in shape:
            n *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw + b"\0" * offset)
    return offset


def test_safetensors_headers_are_exact_and_mtp_is_draft(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((MODELS / "llama-3.1-8b" / "config.json").read_text())
    _write_safetensors(
        tmp_path / "model-00001.safetensors", {"a": ("BF16", [1024, 1024]), "b": ("F32", [10])}
    )
    _write_safetensors(tmp_path / "model-00002.safetensors", {"mtp.layer": ("BF16", [16, 16])})
    spec = read_model_spec(load_config(tmp_path))
    w = estimate_weights(spec, 2, tmp_path)
    assert w.source == "safetensors-headers"
    assert w.bytes_per_rank == (1024 * 1024 * 2 + 40) // 2
    assert w.draft_bytes_per_rank == 16 * 16 * 2 // 2


def test_index_total_size(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text((MODELS / "llama-3.1-8b" / "config.json").read_text())
    (tmp_path / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {"total_size": 16_060_522_496}, "weight_map": {"lm_head.weight": "x"}})
    )
    w = estimate_weights(read_model_spec(load_config(tmp_path)), 1, tmp_path)
    assert (w.source, w.bytes_per_rank) == ("safetensors-index", 16_060_522_496)


def test_quantization_shrinks_the_projections() -> None:
    raw = json.loads((MODELS / "llama-3.1-8b" / "config.json").read_text())
    bf16 = estimate_weights(read_model_spec(raw), 1, None).bytes_per_rank
    sizes = {}
    for name, qc in {
        "fp8": {"quant_method": "fp8", "weight_block_size": [128, 128]},
        "awq": {"quant_method": "awq", "bits": 4, "group_size": 128},
        "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 128},
        "nvfp4": {"quant_method": "modelopt", "quant_algo": "NVFP4"},
    }.items():
        sizes[name] = estimate_weights(
            read_model_spec({**raw, "quantization_config": qc}), 1, None
        ).bytes_per_rank
    # embeddings + lm_head (2 x 128256 x 4096 x 2 B = 2.1 GB) stay bf16
    embed = 2 * 128256 * 4096 * 2
    linear_bf16 = bf16 - embed
    assert abs((sizes["fp8"] - embed) / linear_bf16 - 0.5) < 0.01
    assert 0.25 < (sizes["awq"] - embed) / linear_bf16 < 0.27
    assert 0.27 < (sizes["nvfp4"] - embed) / linear_bf16 < 0.29


def test_text_config_is_read_under_a_multimodal_wrapper() -> None:
    spec = read_model_spec(load_config(MODELS / "qwen3.6-27b"))
    assert (spec.hidden_size, spec.num_layers, len(spec.full_attention_layer_ids)) == (5120, 64, 16)
    assert spec.vision is not None and spec.mtp_layers == 1


def test_nemotron_h_kv_and_mamba_geometry() -> None:
    from argtrace.layers.memory.state import kv_geometry, mamba_geometry

    spec = read_model_spec(load_config(MODELS / "nemotron-h-8b"))
    assert (spec.layer_types.count("mamba"), spec.layer_types.count("full_attention"), spec.num_layers) == (
        24,
        4,
        52,
    )
    assert kv_geometry(spec, 1).bytes_per_token == 4 * 8 * 256 * 2
    m = mamba_geometry(spec, 1)
    assert m is not None
    # conv_dim = 128*64 + 2*8*128 = 10240, kernel 4 -> 3 columns, bf16; SSM 128 heads x 64 x 128 fp32
    assert (m.conv_bytes_per_slot, m.ssm_bytes_per_slot) == (24 * 10240 * 3 * 2, 24 * 128 * 64 * 128 * 4)
    m2 = mamba_geometry(spec, 2, "bfloat16")
    assert m2 is not None and m2.ssm_bytes_per_slot == 24 * 64 * 64 * 128 * 2


def test_qwen3_next_groups_pad_to_tp() -> None:
    """16 key heads at TP 32: SGLang pads n_groups to the TP size (extra_groups_for_head_shards)."""
    from argtrace.layers.memory.state import mamba_geometry

    spec = read_model_spec(load_config(MODELS / "qwen3-next-80b-a3b"))
    m = mamba_geometry(spec, 32)
    assert m is not None
    assert m.conv_bytes_per_slot == 36 * ((32 * 128 + 2 * 32 * 128) // 32) * 3 * 2


def test_modules_left_unquantized_by_the_checkpoint_keep_the_model_dtype() -> None:
    """``ignored_layers`` / ``modules_to_not_convert`` entries match whole dotted components: one layer's MLP
    listed costs exactly its 3 x 4096 x 14336 parameters once more (2 bytes instead of 1, per-channel fp8
    with no block scales); ``model.layers.1`` is that layer, not layer 10 or 11 too."""
    raw = json.loads((MODELS / "llama-3.1-8b" / "config.json").read_text())

    def fp8_bytes(ignored: list[str]) -> int:
        cfg = {**raw, "quantization_config": {"quant_method": "fp8", "ignored_layers": ignored}}
        return estimate_weights(read_model_spec(cfg), 1, None).bytes_per_rank

    base = fp8_bytes([])
    assert fp8_bytes(["model.layers.1.mlp"]) - base == 3 * 4096 * 14336
    assert fp8_bytes(["model.layers.1"]) - base == 3 * 4096 * 14336 + (4096 * 6144 + 4096 * 4096)
    assert fp8_bytes(["self_attn"]) - base == 32 * (4096 * 6144 + 4096 * 4096)
