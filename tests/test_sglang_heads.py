"""RS024 for SGLang (mtp37): the attention class of the architecture's model file asserts, while the model is
built, that --tp-size divides the heads and splits or replicates the KV heads (scripts/
gen_sglang_head_asserts.py reads the asserts from the wheels); config.json files of the sizes that fail."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_cli

QWEN2_40 = {
    "architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 5120,
    "intermediate_size": 13824, "num_hidden_layers": 48, "num_attention_heads": 40, "num_key_value_heads": 8,
    "max_position_embeddings": 32768, "vocab_size": 152064, "torch_dtype": "bfloat16",
}  # fmt: skip
LLAMA_48_12 = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 6144,
    "intermediate_size": 16384, "num_hidden_layers": 40, "num_attention_heads": 48, "num_key_value_heads": 12,
    "max_position_embeddings": 8192, "vocab_size": 32000, "torch_dtype": "bfloat16",
}  # fmt: skip
QWEN3_40 = {**QWEN2_40, "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "head_dim": 128}


def _rs024(
    tmp_path: Path, config: dict[str, Any], flags: str, release: str = "0.5.23"
) -> list[dict[str, Any]]:
    model = tmp_path / "m"
    model.mkdir(exist_ok=True)
    (model / "config.json").write_text(json.dumps(config))
    launch = f"python -m sglang.launch_server --model-path {model} {flags}"
    options = ["--framework-version", release] if release else []
    report = run_cli(
        ["check", "--format", "json", "--no-resolve", "--gpu", "h100x16", *options, "-c", launch]
    ).json
    return [f for f in report["findings"] if f["code"] == "RS024"]


def test_forty_heads_at_tp_16(tmp_path: Path) -> None:
    (error,) = _rs024(tmp_path, QWEN2_40, "--tp-size 16")
    assert (error["severity"], error["setting"], error["basis"]) == ("error", "tp_size", "framework-code")
    assert error["message"] == (
        f"tp_size 16 does not divide the model's 40 attention heads ({tmp_path}/m/config.json: "
        "num_attention_heads): sglang 0.5.23's Qwen2Attention asserts it while the scheduler builds the "
        "model (srt/models/qwen2.py:167: assert self.total_num_heads % tp_size == 0), and the launch stops "
        "with an AssertionError"
    )
    assert error["fix"] == "use a --tp-size that fits (2, 4, 5, 8, 10, 20), and --pp-size for the other GPUs"
    (older,) = _rs024(tmp_path, QWEN2_40, "--tp-size 16", "0.5.2")
    assert "sglang 0.5.2's Qwen2Attention" in older["message"]


def test_kv_heads_split_and_replicated(tmp_path: Path) -> None:
    (split,) = _rs024(tmp_path, LLAMA_48_12, "--tp-size 8")
    assert split["message"].startswith(
        f"tp_size 8 does not divide the model's 12 KV heads ({tmp_path}/m/config.json: num_key_value_heads): "
        "sglang 0.5.23's LlamaAttention asserts it while the scheduler builds the model "
        "(srt/models/llama.py:189: assert self.total_num_kv_heads % tp_size == 0)"
    )
    (copy,) = _rs024(tmp_path, LLAMA_48_12, "--tp-size 16")
    assert copy["message"].startswith(
        "tp_size 16 is not a multiple of the model's 12 KV heads (each rank takes a copy)"
    )
    assert "(srt/models/llama.py:193: assert tp_size % self.total_num_kv_heads == 0)" in copy["message"]
    assert copy["fix"] == "use a --tp-size that fits (2, 3, 4, 6, 12, 24), and --pp-size for the other GPUs"


@pytest.mark.parametrize(
    ("config", "flags", "release"),
    [
        (QWEN2_40, "--tp-size 8", "0.5.23"),  # 40 heads and 8 KV heads split over 8
        (LLAMA_48_12, "--tp-size 4", "0.5.23"),
        (LLAMA_48_12, "--tp-size 2", "0.5.23"),
        (QWEN2_40, "--tp-size 16", "0.5.21"),  # a release whose wheel was not read
        (QWEN2_40, "--tp-size 16 --model-impl transformers", "0.5.23"),  # another class
        (QWEN3_40, "--tp-size 16 --dp-size 2 --enable-dp-attention", "0.5.23"),  # attention TP 8
        ({**QWEN2_40, "architectures": ["SomethingElse"]}, "--tp-size 16", "0.5.23"),
    ],
)
def test_silent(tmp_path: Path, config: dict[str, Any], flags: str, release: str) -> None:
    assert _rs024(tmp_path, config, flags, release) == []


def test_no_release_named_rests_on_the_assumed_one(tmp_path: Path) -> None:
    (warning,) = _rs024(tmp_path, QWEN2_40, "--tp-size 16", "")
    assert (warning["severity"], warning["basis"]) == ("warning", "assumed")


def test_the_table_as_read_from_the_wheels() -> None:
    """Seven SGLang wheels (0.5.2-0.5.23) read; Llama's and Qwen2's attention assert on the TP size, Qwen3's
    on the attention TP size; a file whose model builds its attention elsewhere is not in it."""
    data = json.loads((REPO / "src/argtrace/frameworks/data/sglang_head_asserts.json").read_text())[
        "releases"
    ]
    assert sorted(data) == ["0.5.10.post1", "0.5.14", "0.5.2", "0.5.20", "0.5.22", "0.5.23", "0.5.9"]
    newest = data["0.5.23"]
    assert newest["sites"]["srt/models/llama.py"] == [
        "LlamaAttention",
        183,
        "assert self.total_num_heads % tp_size == 0",
        "tensor",
        [189, 193],
    ]
    assert newest["sites"]["srt/models/qwen3.py"][3] == "attention"
    assert newest["architectures"]["Qwen2ForCausalLM"] == "srt/models/qwen2.py"
    assert "MistralForCausalLM" not in newest["architectures"]
    sys.path.insert(0, str(REPO / "scripts"))
    from gen_sglang_head_asserts import facts

    model = (
        "class FooAttention:\n"
        "    def __init__(self, num_heads, num_kv_heads):\n"
        "        tp_size = get_tensor_model_parallel_world_size()\n"
        "        self.total_num_heads = num_heads\n"
        "        assert self.total_num_heads % tp_size == 0\n"
        "class FooModel:\n"
        "    def __init__(self, config):\n"
        "        self.attn = FooAttention(num_heads=config.num_attention_heads, num_kv_heads=1)\n"
        "class Vision:\n"
        "    def __init__(self, num_heads):\n"
        "        tp_size = get_tensor_model_parallel_world_size()\n"
        "        self.total_num_heads = num_heads\n"
        "        assert self.total_num_heads % tp_size == 0\n"
        "EntryClass = [FooModel]\n"
    )
    assert facts({"sglang/srt/models/foo.py": model}) == {
        "architectures": {"FooModel": "srt/models/foo.py"},
        "sites": {
            "srt/models/foo.py": [
                "FooAttention",
                5,
                "assert self.total_num_heads % tp_size == 0",
                "tensor",
                None,
            ]
        },
    }
