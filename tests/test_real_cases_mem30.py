"""Memory at start-up, 4th batch (mem30; docs/real_cases.md): 9 public reports of 2025-2026 where a vLLM or
SGLang launch ran out of GPU memory or was refused for it, and 3 correct launches of the same models
(tests/data/real_cases_mem30/, each file's header names its URL; the models' config.json under models/, their
sources in the directory's README), run as a new user: ``check`` with the GPU and release the report names
and the model's config.json.

Mechanisms fixed here (measured first):

* vLLM 0.8.1's own defaults (read from its wheel, layers/memory/vllm_release.py): ``max_num_seqs`` 1024 on
  every GPU and the PyTorch top-k/top-p sampler in the profile run's warm-up, 30 bytes per logit; when that
  warm-up is the profile's peak and ``--max-num-seqs`` was not written, MM001 names it and the fix lowers it;
* a suggested fix uses ``--kv-cache-memory-bytes`` only on a release whose parser has the flag (0.10.2+);
* InternVL-style checkpoints: ``llm_config`` is the text config (vLLM 0.33.0 transformers_utils/config.py:195)
  and a wrapper whose text config names a known architecture is sized as that one plus its vision tower;
* Qwen2-VL is a known architecture, its ViT sized from ``embed_dim`` and ``mlp_ratio`` (qwen2_vl.py:549-556).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from argtrace.layers.memory.config import read_model_spec
from argtrace.layers.memory.vllm_release import rules_for, with_env
from argtrace.layers.memory.vllm_section import release_accepts
from argtrace.layers.memory.weights import vision_params
from tests.batches import check_case, finding, shown_codes, table_counts, unsourced
from tests.conftest import REPO

CASES = REPO / "tests" / "data" / "real_cases_mem30"
M = "models/"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# the class of each failure report before this batch's fixes and after them (docs/real_cases.md)
CLASSES = {
    "vllm#17238": ("c", "a"),
    "sglang#11471": ("c", "c"),
    "vllm#16749": ("c", "a"),
    "sglang#10736": ("a", "a"),
    "vllm#15783": ("d", "c"),
    "Qwen3#1387": ("b", "b"),
    "sglang#9872": ("c", "c"),
    "vllm#17462": ("c", "c"),
    "vllm#23050": ("a", "a"),
}

_3090 = ("--gpu", "rtx-3090x2", "--framework-version", "0.8.1")
_L20 = ("--gpu", "l20x2", "--framework-version", "0.8.5")

# case -> (file, options a new user passes: the model's config, the GPU and release the report names)
LAUNCHES = {
    "sglang#11471": (
        "sglang11471_qwen3vl235b_awq_4x4090_48g.cmd",
        ("--model-config", M + "qwen3-vl-235b-a22b-awq"),
    ),
    "Qwen3#1387": (
        "qwen3x1387_qwen3_30b_a3b_4xa10.cmd",
        ("--model-config", M + "qwen3-30b-a3b", "--gpu", "a10x4"),
    ),
    "sglang#9872": (
        "sglang9872_qwen3_30b_a3b_gptq_tp1.cmd",
        ("--model-config", M + "qwen3-30b-a3b-gptq-int4"),
    ),
    "vllm#17238": (
        "vllm17238_qwen25_32b_w8a16_2x3090.cmd",
        ("--model-config", M + "qwen2.5-32b-instruct-int8-w8a16", *_3090),
    ),
    "vllm#16749": (
        "vllm16749_internvl3_78b_4xa100_40g.cmd",
        ("--model-config", M + "internvl3-78b", "--gpu", "a100-40gx4", "--framework-version", "0.8.4"),
    ),
    "sglang#10736": (
        "sglang10736_qwen3next80b_1xh20_torchao.cmd",
        ("--model-config", M + "qwen3-next-80b-a3b", "--gpu", "h20"),
    ),
    "vllm#15783": (
        "vllm15783_qwen2vl7b_llm_085.py",
        ("--model-config", M + "qwen2-vl-7b-instruct", "--framework-version", "0.7.2"),
    ),
    "vllm#17462": ("vllm17462_qwen3_32b_tp2_2xl20.cmd", ("--model-config", M + "qwen3-32b", *_L20)),
    "vllm#23050": (
        "vllm23050_qwen3_30b_a3b_thinking_5090.cmd",
        ("--model-config", M + "qwen3-30b-a3b-thinking-2507", "--gpu", "rtx-5090"),
    ),
    "ok:vllm#17238": (
        "ok_vllm17238_qwen25_32b_w8a16_max_num_seqs8.cmd",
        ("--model-config", M + "qwen2.5-32b-instruct-int8-w8a16", *_3090),
    ),
    "ok:vllm#17462": ("ok_vllm17462_qwen3_32b_tp2_v0.cmd", ("--model-config", M + "qwen3-32b", *_L20)),
    "ok:recipes#335": ("ok_recipes335_qwen36_35b_a3b_tp8.cmd", ("--model-config", M + "qwen3.6-35b-a3b")),
}


@functools.cache
def _checked(name: str) -> str:
    file, options = LAUNCHES[name]
    return json.dumps(check_case(CASES, file, options))


def checked(name: str) -> dict[str, Any]:
    """``check --format json`` on one recorded launch, run once per worker (the inputs are read-only)."""
    report: dict[str, Any] = json.loads(_checked(name))
    return report


def test_batch_counts_and_sources() -> None:
    assert table_counts(CLASSES) == ([2, 1, 5, 1], [4, 1, 4, 0])
    assert [m for m in unsourced(CASES, prefix="# source: ") if m != "README.md"] == []
    readme = (CASES / "README.md").read_text()
    for _, options in LAUNCHES.values():
        config = options[options.index("--model-config") + 1]
        assert (CASES / config / "config.json").is_file(), config
        assert f"`{config.removeprefix(M)}/`" in readme, config


@pytest.mark.parametrize("name", [n for n in LAUNCHES if n.startswith("ok:")])
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(checked(name)) == []


def test_vllm_081_sampler_warmup_over_its_default_max_num_seqs() -> None:
    # vllm#17238: 0.8.1 defaults max_num_seqs to 1024; the profile's sampler warm-up over 1024 rows of a
    # 152k vocabulary left no KV memory on two 3090s. The reporter started it with --max-num-seqs 8.
    report = checked("vllm#17238")
    assert shown_codes(report) == [("MM001", "warning")]
    mm001 = finding(report, "MM001")
    # 0.8.1's own check and words (v1/core/kv_cache_utils.py:477-484): the whole available memory, "models's"
    assert mm001["message"].startswith(
        "vLLM 0.8.1: out of memory at kv_cache on rtx-3090: To serve at least one request with the models's "
        "max seq len (4096), (0.50 GB KV cache is needed, which is larger than the available KV cache memory "
        "(0.19 GB). (short by 0.31 GiB per GPU); "
    )
    assert (
        "the profile run's sampler warm-up over 1024 dummy requests (max_num_seqs 1024, not given) takes "
        "4.66 GiB of it" in mm001["message"]
    )
    assert mm001["fix"].startswith("lower --max-num-seqs to 256 (the warm-up then takes 1.18 GiB); or use ")
    assert any("max_num_seqs defaults to 1024 (engine/arg_utils.py)" in n for n in report["memory"]["notes"])
    # the same launch with --max-num-seqs 8 fits (test_correct_launches_stay_clean)
    assert checked("ok:vllm#17238")["memory"]["verdict"] == "fits"


def test_vllm_08x_releases_read_from_their_wheels() -> None:
    # 0.8.1 and 0.8.3 default max_num_seqs to 1024; 0.8.1's top-p cumsum is a new tensor (30 bytes per
    # logit), 0.8.3's is in place (26); 0.8.2 was not read: only its CUDA graphs are known
    r081, r083, r082 = rules_for("0.8.1"), rules_for("0.8.3"), rules_for("0.8.2")
    assert r081 is not None and r083 is not None and r082 is not None
    assert (r081.engine, r081.max_num_seqs, r081.sampler_bytes_per_logit) == ("v1", 1024, 30)
    assert (r083.engine, r083.max_num_seqs, r083.sampler_bytes_per_logit) == ("v1", 1024, 26)
    assert (r082.only_cuda_graphs, r082.max_num_seqs) == (True, None)
    # VLLM_USE_V1=0 runs 0.8.x's V0 engine (max_num_seqs 256), whose profile run was not read for these
    forced = with_env(r081, {"VLLM_USE_V1": "0"})
    assert forced is not None and (forced.only_cuda_graphs, forced.max_num_seqs) == (True, None)
    assert with_env(r081, {"VLLM_USE_V1": "1"}) == r081


def test_kv_cache_memory_bytes_is_suggested_only_where_the_parser_has_it() -> None:
    assert release_accepts("0.8.4", "--kv-cache-memory-bytes") is False  # stands in: 0.8.5.post1
    assert release_accepts("0.10.2", "--kv-cache-memory-bytes") is True
    assert release_accepts(None, "--kv-cache-memory-bytes") is True  # the analysed 0.33.0
    # vllm#16749: InternVL3-78B bf16 on 4x A100 40 GB; the fix was --kv-cache-memory-bytes, unknown to 0.8.4
    report = checked("vllm#16749")
    assert shown_codes(report) == [("MM001", "warning")]
    mm001 = finding(report, "MM001")
    assert mm001["message"].startswith("vLLM 0.8.4: out of memory at kv_cache on a100-40g: ")
    assert (
        mm001["fix"]
        == "no setting fits on this GPU: more GPUs (--tensor-parallel-size) or a quantized checkpoint"
    )
    assert all("--kv-cache-memory-bytes" not in s["flags"] for s in report["memory"]["suggested"])


def test_internvl_llm_config_is_the_text_config() -> None:
    raw = json.loads((CASES / M / "internvl3-78b" / "config.json").read_text())
    spec = read_model_spec(raw)
    assert (spec.architecture, spec.family, spec.known_architecture) == ("InternVLChatModel", "dense", True)
    assert (spec.hidden_size, spec.num_layers, spec.vocab_size) == (8192, 80, 152064)
    # InternViT-6B, 45 blocks of 3200: 5.5 B parameters (the model card's 5540 M) plus the projector
    assert vision_params(spec) == 5_802_950_400
    assert checked("vllm#16749")["memory"]["weights_bytes"] == 39256186752


def test_qwen2_vl_is_known_and_its_vit_is_embed_dim_wide() -> None:
    raw = json.loads((CASES / M / "qwen2-vl-7b-instruct" / "config.json").read_text())
    spec = read_model_spec(raw)
    assert (spec.family, spec.known_architecture) == ("dense", True)
    # 32 blocks of 1280 with a 5120 MLP (675 M, Qwen2-VL's 0.67 B ViT) and the merger to 3584
    assert vision_params(spec) == 675_471_360
    report = checked("vllm#15783")
    assert "MM003" not in [f["code"] for f in report["findings"]]


def test_weights_that_exceed_the_card_stay_errors() -> None:
    # sglang#10736: Qwen3-Next-80B in bf16 on one H20 (torchao quantizes after loading); vllm#23050: an
    # unquantized 30B MoE on one RTX 5090
    for name, short in (
        ("sglang#10736", "short by 53.82 GiB per GPU"),
        ("vllm#23050", "short by 26.01 GiB per GPU"),
    ):
        report = checked(name)
        mm001 = finding(report, "MM001")
        assert mm001["severity"] == "error"
        assert "the weights alone do not fit on one GPU" in mm001["message"]
        assert short in mm001["message"]


def test_misses_recorded_as_they_are() -> None:
    # sglang#11471 (modded 48 GB 4090s, no profile) and sglang#9872 (card not named): they fit on the
    # assumed H100 (MM004 says so); the GPTQ MoE repack's transient copy is not sized
    assert shown_codes(checked("sglang#11471")) == []
    assert shown_codes(checked("sglang#9872")) == []
    assert finding(checked("sglang#9872"), "MM004")["severity"] == "info"
    # Qwen3#1387 (class b): no release named, read on 0.33.0, which reserves CUDA graphs before the KV cache;
    # May 2025's 0.8.5 did not, and the same setup started only with --enforce-eager (vllm#17469)
    report = checked("Qwen3#1387")
    assert shown_codes(report) == [("MM001", "warning")]
    assert finding(report, "MM001")["fix"].startswith("use --gpu-memory-utilization 0.95 ")
    # vllm#17462 (0.8.5, 2x L20): the OOM came at V1's CUDA graph capture after the KV cache; not sized
    assert shown_codes(checked("vllm#17462")) == []
    # vllm#15783 (class d -> c): LLM(device="cuda:7") is read as `--device cuda:7`, which argparse's choices
    # refuse; LLM() passes the keyword to EngineArgs without argparse (0.8.1 config.py DeviceConfig takes it):
    # the refusal is a note that says so (check._engine_call_choices); the OOM itself is not sized
    report = checked("vllm#15783")
    assert "PA009" not in [code for code, _ in shown_codes(report)]
    pa009 = finding(report, "PA009")
    assert pa009["severity"] == "info"
    assert pa009["message"].endswith(
        "(argparse exit 2); but the launch is a Python call of the engine, which runs no argparse: the value "
        "reaches EngineArgs as given, and whether this release takes it is for its config classes"
    )
