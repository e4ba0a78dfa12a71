"""Memory at start-up, 6th batch (mem33; docs/real_cases.md): sglang#5576 (Gemma-3-12B-it with online fp8 on a
16 GB card) measured with the card described as nvidia-smi prints it, the reporter's second attempt without
``--dtype``, and two correct variants of the same model (tests/data/real_cases_mem33/; the model's config.json
is mem32's, tests/data/real_cases_mem32/models/gemma-3-12b-it), run as a new user.

Mechanism fixed here (measured first, on aa354c67):

* the dtype the server builds its weights in: ``--dtype`` when the launch names one, else the config's dtype
  with float32 cast down to 16 bits (SGLang 0.5.23 ``srt/configs/model_config.py:881``, ``:2303-2325``; vLLM
  0.33.0 ``config/model.py:2440-2442``, ``:2496-2499``). argtrace read Gemma 3's ``text_config.torch_dtype``
  ("float32") as 32-bit weights and ignored ``--dtype``: 45.5 GiB for a 12B model (a wrong MM001 error on a
  48 GB card), 15.5 GiB "once fp8" on a 16 GB one (MM001 for the weights, not MM016 for the 16-bit load).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from argtrace.layers.memory.config import read_model_spec, served_dtype_bytes
from tests.batches import check_case, finding, shown_codes, table_counts, unsourced
from tests.conftest import REPO, run_cli

CASES = REPO / "tests" / "data" / "real_cases_mem33"
CASES32 = REPO / "tests" / "data" / "real_cases_mem32"
GEMMA = "../real_cases_mem32/models/gemma-3-12b-it"
# the report's card as nvidia-smi prints it (name, memory.total, compute_cap); argtrace has no profile for it
CARD = "NVIDIA GeForce RTX 4070 Ti SUPER, 16376 MiB, 8.9"
GIB = 1 << 30

pytestmark = pytest.mark.usefixtures("new_user_machine")

# the class of each failure input before this batch's fix and after it (docs/real_cases.md)
CLASSES = {
    "sglang#5576": ("b", "a"),
    "sglang#5576 (no --dtype)": ("b", "a"),
}

# case -> (directory, file, options a new user passes)
LAUNCHES = {
    "sglang#5576": (
        CASES32,
        "sglang5576_gemma3_12b_online_fp8_16g.cmd",
        ("--model-config", "models/gemma-3-12b-it", "--gpu", CARD),
    ),
    "sglang#5576 (no --dtype)": (
        CASES,
        "sglang5576_gemma3_12b_fp8_no_dtype_16g.cmd",
        ("--model-config", GEMMA, "--gpu", CARD),
    ),
    "ok:sglang l40s": (
        CASES,
        "ok_variant_gemma3_12b_bf16_l40s_sglang.cmd",
        ("--model-config", GEMMA, "--gpu", "l40s"),
    ),
    "ok:vllm l40s": (
        CASES,
        "ok_variant_gemma3_12b_bf16_l40s_vllm.cmd",
        ("--model-config", GEMMA, "--gpu", "l40s"),
    ),
}


@functools.cache
def _checked(name: str) -> str:
    cases, file, options = LAUNCHES[name]
    return json.dumps(check_case(cases, file, options))


def checked(name: str) -> dict[str, Any]:
    """``check --format json`` on one launch, run once per worker (the inputs are read-only)."""
    report: dict[str, Any] = json.loads(_checked(name))
    return report


def test_batch_counts_and_sources() -> None:
    assert table_counts(CLASSES) == ([0, 2, 0, 0], [2, 0, 0, 0])
    assert [m for m in unsourced(CASES, prefix="# source: ") if m != "README.md"] == []
    readme = (CASES / "README.md").read_text()
    assert "real_cases_mem32/models/gemma-3-12b-it" in readme


@pytest.mark.parametrize("name", [n for n in LAUNCHES if n.startswith("ok:")])
def test_gemma3_unquantized_on_48_gb_is_served_at_16_bits(name: str) -> None:
    # before: the text config's float32 counted as 32-bit weights (45.51 GiB): a wrong MM001 error
    report = checked(name)
    assert shown_codes(report) == []
    assert report["memory"]["verdict"] == "fits"
    assert round(report["memory"]["weights_bytes"] / GIB, 2) == 22.76


@pytest.mark.parametrize("name", [n for n in LAUNCHES if not n.startswith("ok:")])
def test_online_fp8_on_the_16_gb_card_names_the_16_bit_load(name: str) -> None:
    # the 12B model at fp8 is 12.74 GiB (the report: 13.64 GiB allocated when it failed, mid-load); the
    # 16-bit load before quantizing is 22.76 GiB against the card's 15.20 free: MM016 first
    report = checked(name)
    assert shown_codes(report) == [("MM016", "warning"), ("MM001", "warning")]
    mm016 = finding(report, "MM016")
    assert mm016["message"] == (
        "--quantization fp8 on a checkpoint without quantization_config: SGLang 0.5.10.post1 loads every "
        "weight at 16 bits and quantizes only after the last one, so one GPU holds 22.76 GiB while loading "
        f"(12.74 GiB once fp8), more than the 15.20 GiB {CARD} has free before loading "
        "(short by 7.56 GiB per GPU): CUDA out of memory while loading the weights"
    )
    assert mm016["fix"].endswith("or shard the 16-bit weights over more GPUs: --tp-size 2")
    # and, once loaded, --mem-fraction-static 0.6 (9.1 GiB) cannot hold the 12.74 GiB of fp8 weights either
    assert (
        "Not enough memory. Please try to increase --mem-fraction-static."
        in finding(report, "MM001")["message"]
    )
    assert round(report["memory"]["weights_bytes"] / GIB, 2) == 12.74


def test_served_dtype() -> None:
    raw = json.loads((CASES32 / "models" / "gemma-3-12b-it" / "config.json").read_text())
    spec = read_model_spec(raw)
    assert spec.dtype_bytes == 4  # text_config.torch_dtype, as the config says
    assert served_dtype_bytes(spec, {}) == 2
    assert served_dtype_bytes(spec, {"dtype": "auto"}) == 2
    assert served_dtype_bytes(spec, {"dtype": "float32"}) == 4
    assert served_dtype_bytes(spec, {"dtype": {"repr": "torch.float32"}}) == 4  # a resolved vLLM value
    assert served_dtype_bytes(spec, {"dtype": "half"}) == 2
    assert served_dtype_bytes(spec, {"dtype": "no-such-dtype"}) == 2
    bf16 = read_model_spec(json.loads((CASES32 / "models" / "llama-3.1-8b" / "config.json").read_text()))
    assert served_dtype_bytes(bf16, {}) == 2
    assert served_dtype_bytes(bf16, {"dtype": "float"}) == 4


def test_misses_recorded_as_they_are() -> None:
    # sglang PR#2863 (mem32's M32-03): EAGLE with topk 8 and 64 draft tokens per request, OOM at CUDA graph
    # capture on an H20; SGLang's CUDA graph memory is still sized from cuda_graph_max_bs alone
    report = check_case(
        CASES32,
        "sglang2863_qwen2_7b_eagle_topk8_h20.cmd",
        ("--model-config", "models/qwen2-7b-instruct", "--gpu", "h20"),
    )
    assert shown_codes(report) == []


@pytest.mark.parametrize(
    ("command", "gib"),
    [
        ("vllm serve meta-llama/Llama-3.1-8B-Instruct --dtype float32", 29.92),
        (
            "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --dtype float32",
            29.92,
        ),
        ("vllm serve meta-llama/Llama-3.1-8B-Instruct --dtype auto", 14.96),
        ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct", 14.96),
    ],
)
def test_dtype_the_launch_names_sizes_the_weights(command: str, gib: float) -> None:
    # a variant, not a report: a bf16 checkpoint served in float32 holds twice the bytes, in both frameworks
    options = ["--model-config", "models/llama-3.1-8b", "--gpu", "h100"]
    result = run_cli(["check", "--format", "json", *options, "-c", command], cwd=CASES32)
    assert round(result.json["memory"]["weights_bytes"] / GIB, 2) == gib
