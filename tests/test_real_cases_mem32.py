"""Memory at start-up, 5th batch (mem32; docs/real_cases.md): 4 public reports of 2025-2026 where an SGLang
launch ran out of GPU memory at start-up, and 3 correct launches of the same kinds
(tests/data/real_cases_mem32/, each file's header names its URL; the models' config.json under models/, their
sources in the directory's README), run as a new user: ``check`` with the GPU and release the report names and
the model's config.json.

Mechanism fixed here (measured first, on a11d79e8):

* MM016: ``--quantization fp8`` on a checkpoint without ``quantization_config`` makes SGLang build every
  linear weight at the checkpoint's 16 bits, load them all and quantize only then (0.5.10.post1
  ``srt/layers/quantization/fp8.py:372`` and ``model_loader/loader.py:697-709``; 0.5.23 ``fp8.py:654-656``,
  ``loader.py:1063`` and ``:1080-1089``): the load holds the 16-bit shard once. The memory plan counts the
  weights at 8 bits (right for the pools); the load itself is a second figure (layers/memory/online_quant.py).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from argtrace.layers.memory.config import Quantization, read_model_spec
from argtrace.layers.memory.online_quant import online_fp8, sglang_load_peak
from tests.batches import check_case, finding, shown_codes, table_counts, unsourced
from tests.conftest import REPO

CASES = REPO / "tests" / "data" / "real_cases_mem32"
M = "models/"
GIB = 1 << 30

pytestmark = pytest.mark.usefixtures("new_user_machine")

# the class of each failure report before this batch's fixes and after them (docs/real_cases.md)
CLASSES = {
    "sglang#2895": ("c", "a"),
    "sglang#5576": ("c", "c"),
    "sglang PR#2863": ("c", "c"),
    "sglang#8833": ("a", "a"),
}

# case -> (file, options a new user passes: the model's config, the GPU and release the report names)
LAUNCHES = {
    "sglang#2895": (
        "sglang2895_deepseek_v3_bf16_online_fp8_8xh200.cmd",
        ("--model-config", M + "deepseek-v3-bf16", "--gpu", "h200x8"),
    ),
    "sglang#5576": ("sglang5576_gemma3_12b_online_fp8_16g.cmd", ("--model-config", M + "gemma-3-12b-it")),
    "sglang PR#2863": (
        "sglang2863_qwen2_7b_eagle_topk8_h20.cmd",
        ("--model-config", M + "qwen2-7b-instruct", "--gpu", "h20"),
    ),
    "sglang#8833": (
        "sglang8833_gptoss120b_bf16_tp2_h100.cmd",
        ("--model-config", M + "gpt-oss-120b-bf16", "--gpu", "h100"),
    ),
    "ok:sglang PR#2863": (
        "ok_sglang2863_qwen2_7b_eagle_no_cuda_graph.cmd",
        ("--model-config", M + "qwen2-7b-instruct", "--gpu", "h20"),
    ),
    "ok:sglang#8337": (
        "ok_sglang8337_qwen3_235b_online_fp8_pp4_tp8.cmd",
        ("--model-config", M + "qwen3-235b-a22b", "--gpu", "h200"),
    ),
    "ok:sglang PR#4485": (
        "ok_sglang4485_llama31_8b_online_w8a8_fp8.cmd",
        ("--model-config", M + "llama-3.1-8b"),
    ),
}


@functools.cache
def _checked(name: str, *extra: str) -> str:
    file, options = LAUNCHES[name]
    return json.dumps(check_case(CASES, file, (*options, *extra)))


def checked(name: str, *extra: str) -> dict[str, Any]:
    """``check --format json`` on one recorded launch, run once per worker (the inputs are read-only)."""
    report: dict[str, Any] = json.loads(_checked(name, *extra))
    return report


def test_batch_counts_and_sources() -> None:
    assert table_counts(CLASSES) == ([1, 0, 3, 0], [2, 0, 2, 0])
    assert [m for m in unsourced(CASES, prefix="# source: ") if m != "README.md"] == []
    readme = (CASES / "README.md").read_text()
    for _, options in LAUNCHES.values():
        config = options[options.index("--model-config") + 1]
        assert (CASES / config / "config.json").is_file(), config
        assert f"`{config.removeprefix(M)}/`" in readme, config


@pytest.mark.parametrize("name", [n for n in LAUNCHES if n.startswith("ok:")])
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(checked(name)) == []


def test_online_fp8_loads_the_16_bit_shard_first() -> None:
    # sglang#2895: DeepSeek-V3 converted to bf16, --quantization fp8, tp 8 on 8x H200: 156 GiB per GPU while
    # loading (the report's traceback: 136.20 GiB allocated of 139.72 when it failed), 78 GiB once fp8
    report = checked("sglang#2895")
    # no release named: a warning (the loader is each release's own code); with 0.5.23 named, an error
    assert shown_codes(report) == [("MM016", "warning")]
    mm016 = finding(report, "MM016")
    assert mm016["message"] == (
        "--quantization fp8 on a checkpoint without quantization_config: SGLang 0.5.10.post1 loads every "
        "weight at 16 bits and quantizes only after the last one, so one GPU holds 156.24 GiB while loading "
        "(78.35 GiB once fp8), more than the 139.10 GiB h200 has free before loading (short by 17.14 GiB per "
        "GPU): CUDA out of memory while loading the weights"
    )
    assert mm016["fix"] == (
        "load a checkpoint quantized to fp8 offline (its config.json carries a quantization_config, and its "
        "weights load at 8 bits), or shard the 16-bit weights over more GPUs: --tp-size 16"
    )
    # the plan itself is the fp8 one: the pools fit
    assert report["memory"]["verdict"] == "fits"
    named = checked("sglang#2895", "--framework-version", "0.5.23")
    assert shown_codes(named) == [("MM016", "error")]
    assert "SGLang 0.5.23 loads every weight at 16 bits" in finding(named, "MM016")["message"]


def test_load_peak_arithmetic_and_what_it_leaves_alone() -> None:
    raw = json.loads((CASES / M / "deepseek-v3-bf16" / "config.json").read_text())
    spec = read_model_spec(raw)
    checkpoint = online_fp8(spec, {"quantization": "fp8"}, "sglang")
    assert checkpoint == Quantization("none", 16, None)
    assert spec.quantization.method == "fp8"
    avail = 139 * GIB
    peak = sglang_load_peak(spec, checkpoint, {}, 8, 1, None, 0, avail)
    assert peak is not None and (round(peak.bytes_per_rank / GIB, 2), peak.tp_that_fits) == (156.24, 16)
    # the layered loader builds one module at a time; a fitting shard gives nothing
    assert sglang_load_peak(spec, checkpoint, {"load_format": "layered"}, 8, 1, None, 0, avail) is None
    assert sglang_load_peak(spec, checkpoint, {}, 16, 1, None, 0, avail) is None
    # a checkpoint that declares its quantization is loaded as it is: nothing to restore
    fp8 = read_model_spec(json.loads((REPO / "tests/data/models/deepseek-v3/config.json").read_text()))
    assert online_fp8(fp8, {"quantization": "fp8"}, "sglang") is None


def test_misses_recorded_as_they_are() -> None:
    # sglang#5576: Gemma-3-12B in 16 bits (24 GB) before fp8 on a 16 GB RTX 4070 Ti SUPER, a card argtrace
    # has no profile for: on the assumed H100 the 16-bit load fits, so MM016 (rightly) stays silent
    report = checked("sglang#5576")
    assert shown_codes(report) == []
    assert finding(report, "MM004")["message"] == "no --gpu given; assumed h100 (NVIDIA H100 80GB HBM3)"
    # sglang PR#2863: EAGLE with topk 8 and 64 draft tokens; the OOM came at CUDA graph capture, which
    # argtrace sizes from cuda_graph_max_bs alone (not the draft tokens per request)
    assert shown_codes(checked("sglang PR#2863")) == []
    # sglang#8833: gpt-oss-120b in bf16 at --tp 2 on H100s: the weights alone do not fit (found before)
    report = checked("sglang#8833")
    assert ("MM001", "error") in shown_codes(report)
    assert (
        "the weights alone do not fit on one GPU (short by 30.28 GiB per GPU)"
        in finding(report, "MM001")["message"]
    )
