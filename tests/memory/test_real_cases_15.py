"""The fifteenth memory batch (docs/real_cases.md, "Memory at start-up"): 15 public reports of 2025-2026 where
a vLLM or SGLang launch ran out of memory or was refused for memory at start-up (files in
tests/data/memory_15/, each with its URL, release, GPU and what the report shows), measured as a new user
first, then the mechanisms fixed:

* vLLM 0.20.2 and later refuse to start a hybrid model whose max_num_seqs is above the KV pool's block count
  (config/compilation.py resolve_cudagraph_mode_and_sizes): MM011, a warning that says it rests on
  argtrace's estimate of the pool (vllm_mamba_blocks.py). Before, MM006 warned that max_num_seqs "is capped
  to" the pool divided by the blocks one request holds: the wrong rule and too strong for an estimate;
* MM006 (SGLang's Mamba slots, vLLM's concurrency) is a note naming the estimate it rests on;
* --no-enable-chunked-prefill makes vLLM 0.33.0's max_num_batched_tokens max_model_len
  (engine/arg_utils.py:3194-3199): the profile run is one prefill of the whole context (club-3090#708).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.layers.memory.vllm_mamba_blocks import check, cudagraph_mode
from tests.conftest import REPO, run_cli

DATA = REPO / "tests" / "data" / "memory_15"
MODELS = REPO / "tests" / "data" / "models"


def command(name: str) -> str:
    (line,) = [x[2:] for x in (DATA / name).read_text().splitlines() if x.startswith("$ ")]
    return line


def quoted(name: str) -> str:
    lines = (DATA / name).read_text().splitlines()
    return "\n".join(x for x in lines if not x.startswith(("#", "$ ")))


def mem(*args: str) -> tuple[int, dict[str, Any]]:
    result = run_cli(["mem", "--format", "json", *args])
    return result.status, json.loads(result.stdout)


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


# --- vLLM's check of max_num_seqs against the Mamba cache blocks -------------------------------------------


@pytest.mark.parametrize(
    ("settings", "version", "seqs", "blocks", "outcome"),
    [
        ({}, None, 1024, 888, "raises"),
        ({}, "0.33.0", 1024, 888, "raises"),
        ({}, "0.20.2", 1024, 888, "raises"),
        ({}, "0.19.1", 1024, 888, "caps"),
        ({}, "0.17.1", 1024, 888, "caps"),
        ({}, "0.20.1", 1024, 888, "unknown"),
        ({"enforce_eager": True}, None, 1024, 888, "no_full_graphs"),
        ({"compilation_config": '{"cudagraph_mode": "PIECEWISE"}'}, None, 1024, 888, "no_full_graphs"),
        ({"compilation_config": {"cudagraph_mode": "FULL_DECODE_ONLY"}}, None, 1024, 888, "raises"),
        ({}, None, 888, 888, "fits"),
    ],
)
def test_mamba_block_check_follows_the_release(
    settings: dict[str, Any], version: str | None, seqs: int, blocks: int, outcome: str
) -> None:
    assert check(settings, version, seqs, blocks).outcome == outcome


def test_cudagraph_mode_of_a_launch() -> None:
    assert cudagraph_mode({}) == "FULL_AND_PIECEWISE"
    assert cudagraph_mode({"enforce_eager": True}) == "NONE"
    assert cudagraph_mode({"compilation_config": "not json"}) == "FULL_AND_PIECEWISE"


QWEN36_FP8 = ["vllm", "serve", "Qwen/Qwen3.6-27B-FP8", "--gpu-memory-utilization", "0.95"]


def test_default_max_num_seqs_above_the_blocks_is_a_warning_on_an_estimate() -> None:
    """vLLM recipes#551's launch (11th batch: 1024 above the 856 blocks of one H100), as a variant with the
    config shipped: MM011 names the start-up refusal, its estimate and the fix; not an error."""
    status, report = mem(
        "--model-config", str(MODELS / "qwen3.6-27b-fp8"), "--gpu", "h100", "--", *QWEN36_FP8
    )
    assert (status, codes(report)) == (0, [("MM011", "warning")])
    (mm011,) = report["findings"]
    assert mm011["message"] == (
        "max_num_seqs 1024 is above the about 888 Mamba cache blocks of the KV pool (CUDA graph mode "
        "FULL_AND_PIECEWISE): vLLM 0.33.0 stops at start-up with 'max_num_seqs (1024) exceeds available "
        "Mamba cache blocks' (config/compilation.py resolve_cudagraph_mode_and_sizes); this rests on "
        "argtrace's estimate of the KV pool (the profile run's activation peak, non-torch memory and CUDA "
        "graphs are estimated): the log's 'exceeds available Mamba cache blocks (N)' or 'GPU KV cache size' "
        "line decides"
    )
    assert mm011["fix"] == (
        "lower --max-num-seqs below the block count (about 888; 799 leaves a margin for the estimate), or "
        "shorten --max-model-len, or raise --gpu-memory-utilization"
    )
    assert report["memory"]["mamba_block_check"] == {
        "outcome": "raises",
        "max_num_seqs": 1024,
        "num_blocks": 888,
        "cudagraph_mode": "FULL_AND_PIECEWISE",
        "basis": "estimate",
    }


def test_the_recipes_fix_and_older_releases_leave_a_note() -> None:
    """--max-num-seqs 512 (the recipe's fix) starts: a note on how many run at once; 0.17.1 capped its CUDA
    graph sizes instead of refusing; --enforce-eager captures no full graphs."""
    model = ("--model-config", str(MODELS / "qwen3.6-27b-fp8"), "--gpu", "h100")
    status, report = mem(*model, "--", *QWEN36_FP8, "--max-num-seqs", "512")
    assert (status, codes(report)) == (0, [("MM006", "info")])
    assert report["findings"][0]["message"].startswith(
        "at most about 131 of max_num_seqs 512 requests run at once: each holds 6 Mamba state blocks (align "
        "mode) of the 923 blocks of the shared KV pool; this rests on argtrace's estimate"
    )
    assert report["findings"][0]["fix"] == (
        "lower --max-num-seqs, or shorten --max-model-len to leave more KV cache blocks"
    )
    status, report = mem(*model, "--framework-version", "0.17.1", "--", *QWEN36_FP8)
    assert (status, codes(report)) == (0, [("MM006", "info")])
    assert "vLLM 0.17.1 caps its CUDA graph capture sizes to the blocks" in report["findings"][0]["message"]
    status, report = mem(*model, "--", *QWEN36_FP8, "--enforce-eager")
    assert (status, codes(report), report["memory"]["mamba_block_check"]["outcome"]) == (
        0,
        [("MM006", "info")],
        "no_full_graphs",
    )


def test_sglang_mamba_cap_is_a_note_that_names_its_estimate() -> None:
    """MM006 on SGLang: max_running_requests lowered by the Mamba slots, which rest on the estimated memory
    after the weights: info (it was a warning)."""
    argv = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3.5-9B",
            "--mem-fraction-static", "0.85", "--max-running-requests", "256"]  # fmt: skip
    status, report = mem("--model-config", str(MODELS / "qwen3.5-9b"), "--gpu", "h100", "--", *argv)
    assert (status, codes(report)) == (0, [("MM006", "info")])
    assert report["findings"][0]["message"] == (
        "max_running_requests 256 is capped to 162 by the Mamba state cache (486 slots / 3 per request); the "
        "slots rest on argtrace's estimate of the memory after the weights: the log's 'Mamba Cache is "
        "allocated' line decides"
    )


# --- the reports -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["homeops13226_qwen36_35b_a3b_128k.txt", "vllm38632_qwen35_397b_nvfp4_b200.txt"]
)
def test_why_names_the_mamba_block_check(name: str) -> None:
    """home-ops#13226 and vLLM PR#38632 quote vLLM's refusal: `why` names its raise site and --max-num-seqs
    (class a by why)."""
    report = explain(quoted(name))
    first = report["matches"][0]
    assert (first["framework"], first["function"], first["line"]) == (
        "vllm",
        "CompilationConfig.resolve_cudagraph_mode_and_sizes",
        1525,
    )
    assert [x["flag"] for x in first["settings"]] == ["--max-num-seqs", "--gpu-memory-utilization"]
    # vLLM PR#38632's copy quotes it inside the executor's "Worker failed with error '...'" (logs25's wrapper
    # entry, after the cause's own)
    wrapped = ["vllm-worker-failed-with-error"] if "Worker failed with error" in quoted(name) else []
    assert [x["id"] for x in report["signatures"]] == ["vllm-max-num-seqs-mamba-blocks", *wrapped]


def test_homeops13226_on_a_card_that_holds_the_model() -> None:
    """home-ops#13226 names no GPU. On an H200 the bf16 checkpoint fits and 1024 (the default there) stays
    under argtrace's estimate of 2784 blocks: no refusal predicted, a note on concurrency. The report's 95
    blocks came from a smaller pool than any card argtrace can place it on; it stays a by why."""
    argv = shlex.split(command("homeops13226_qwen36_35b_a3b_128k.txt"))
    status, report = mem("--model-config", str(MODELS / "qwen3.6-35b-a3b"), "--gpu", "h200", "--", *argv)
    assert (status, codes(report)) == (0, [("MM006", "info")])
    assert report["memory"]["mamba_block_check"]["num_blocks"] == 2784


NEMOTRON = [
    "vllm",
    "serve",
    "nvidia/Nemotron-H-8B",
    "--tensor-parallel-size",
    "4",
    "--max-model-len",
    "262144",
]


def test_no_chunked_prefill_profile_run_prefills_the_whole_context() -> None:
    """club-3090#708's mechanism on a model whose config is shipped (the report's Nemotron Puzzle 75B is
    not): on four RTX 3090 the launch fits with chunked prefill, and --no-enable-chunked-prefill makes the
    profile run one prefill of 262,144 tokens; the finding names it and its fix, resting on the estimate."""
    model = ("--model-config", str(MODELS / "nemotron-h-8b"), "--gpu", "rtx-3090x4")
    status, report = mem(*model, "--", *NEMOTRON)
    assert (status, codes(report), report["memory"]["verdict"]) == (0, [], "fits")
    status, report = mem(*model, "--", *NEMOTRON, "--no-enable-chunked-prefill")
    assert (status, codes(report), report["memory"]["verdict"]) == (0, [("MM001", "warning")], "oom")
    (mm001,) = report["findings"]
    assert mm001["message"].endswith(
        "; without chunked prefill the profile run prefills all 262144 tokens at once (activation peak 16.38 "
        "GiB)"
    )
    assert mm001["fix"].startswith(
        "turn chunked prefill back on (drop --no-enable-chunked-prefill) or give "
        "--max-num-batched-tokens; or "
    )


NO_CONFIG = [
    ("club3090_708_nemotron_puzzle_no_chunked_prefill.txt", ("--gpu", "rtx-3090x4")),
    ("genesis1_qwen36_35b_awq_long_context.txt", ()),
    ("sglang12496_gemma3_12b_fp8_e5m2.txt", ()),
    ("sglang3315_qwen2_7b_eagle_h20.txt", ("--gpu", "h20")),
    ("vllm15228_qwen25_72b_gptq_tp2.txt", ("--framework-version", "0.8.1")),
    ("vllm15664_nemotron_super_49b_gptq_l40s.txt", ("--gpu", "l40s", "--framework-version", "0.8.3")),
    ("vllm16570_qwen25vl_72b_4xa100.txt", ("--framework-version", "0.8.4")),
    ("vllm17327_qwen3_30b_a3b_4xa10.txt", ("--gpu", "a10x4", "--framework-version", "0.8.5")),
    ("vllm22624_qwen3_1_7b_draft_0_6b_a800.txt", ("--gpu", "a800-80g")),
    ("vllm57475_qwen38_27b_nvfp4_laptop5090.txt", ()),
]


@pytest.mark.parametrize(("name", "options"), NO_CONFIG)
def test_no_config_no_memory_claim(
    name: str, options: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new user's `check` (no HF cache, no resolver): the model's config.json is not on the machine, so the
    memory layer says nothing, right or wrong, and nothing is an error (these stay c)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "cache"))
    result = run_cli(["check", "--format", "json", *options, "-c", command(name)])
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"] if f["layer"] == "memory"] == []
    assert [f["code"] for f in report["findings"] if f["severity"] == "error"] == []


def test_gpt_oss_20b_compose_reasoning_parser() -> None:
    """vllm#35991's compose file (v0.10.1, not bundled; 0.10.2 stands in): --reasoning-parser GptOss is not a
    choice of 0.10.2 (openai_gptoss is), but the parser was registered as GptOss before 0.10.2 renamed it
    (vllm#22334) and 0.9.2 lists other choices: 0.10.1's list is not known, so a note (it was a warning)."""
    result = run_cli(["check", "--format", "json", str(DATA / "vllm35991_gpt_oss_20b_rtx5080.yaml")])
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"] if f["severity"] != "info"] == []
    (pa009,) = [f for f in report["findings"] if f["code"] == "PA009"]
    assert pa009["message"].endswith(
        "; vllm 0.9.2 lists other choices for --reasoning-parser, and 0.10.1 lies between it and 0.10.2: "
        "which it follows is unknown"
    )


@pytest.mark.parametrize(
    ("options", "severity"),
    [(("--framework-version", "0.10.2"), "error"), (("--framework-version", "0.10.1"), "info")],
)
def test_a_refused_choice_on_a_bundled_release_stays(options: tuple[str, ...], severity: str) -> None:
    """Not a report: the same word under 0.10.2 itself is refused by that release's own parser."""
    cmd = "vllm serve openai/gpt-oss-20b --reasoning-parser GptOss"
    report = json.loads(run_cli(["check", "--format", "json", *options, "-c", cmd]).stdout)
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "PA009"] == [
        ("PA009", severity)
    ]


# --- SGLang's draft worker when the draft path is the model path (draft.py) -------------------------------

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
EAGLE_ON_ITSELF = ["python3", "-m", "sglang.launch_server", "--model-path", LLAMA, "--speculative-algorithm",
                   "EAGLE", "--speculative-draft-model-path", LLAMA]  # fmt: skip


def test_base_model_as_its_own_draft_is_loaded_whole_again() -> None:
    """sglang#6875's mechanism ("the base model as draft model", 8x H100 70B; the command is cut in the
    report) on a config that is shipped: the draft worker builds LlamaForCausalLM whole (no MTP draft class,
    configs/model_config.py _config_draft_model) with a KV pool of the target's tokens over every layer.
    At 0.6 on one H100 that does not fit outside mem_fraction_static; at 0.4 it does."""
    model = ("--model-config", str(MODELS / "llama-3.1-8b"), "--gpu", "h100")
    status, report = mem(*model, "--", *EAGLE_ON_ITSELF, "--mem-fraction-static", "0.6")
    assert (status, codes(report), report["memory"]["oom_stage"]) == (1, [("MM001", "error")], "draft")
    (mm001,) = report["findings"]
    assert mm001["message"] == (
        "out of memory at draft on h100: draft does not fit in what the pools leave (31.44 GB) (short by "
        "15.72 GiB per GPU); the draft is the whole LlamaForCausalLM again (14.96 GiB of weights and a 32.20 "
        "GiB KV pool of the target's tokens over all its layers): --speculative-draft-model-path names the "
        "model path"
    )
    assert mm001["fix"] == (
        "point --speculative-draft-model-path at a draft model (an EAGLE head or a smaller model), or lower "
        "--mem-fraction-static to leave room for a second copy of the model"
    )
    status, report = mem(*model, "--", *EAGLE_ON_ITSELF, "--mem-fraction-static", "0.4")
    assert (status, codes(report), report["memory"]["verdict"]) == (0, [], "fits")


def test_an_mtp_architecture_named_again_is_its_mtp_module() -> None:
    """Qwen3.5 maps to Qwen3_5ForCausalLMMTP as a draft: the draft path equal to the model path loads the MTP
    layer only, as without it."""
    argv = ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3.5-9B",
            "--speculative-algorithm", "EAGLE", "--speculative-draft-model-path", "Qwen/Qwen3.5-9B",
            "--mem-fraction-static", "0.8"]  # fmt: skip
    status, report = mem("--model-config", str(MODELS / "qwen3.5-9b"), "--gpu", "h100", "--", *argv)
    assert (status, codes(report), report["memory"]["draft_bytes"]) == (0, [("MM010", "warning")], 3044152320)


def test_draft_is_whole_target_rule() -> None:
    from argtrace.layers.memory.draft import draft_is_whole_target

    same = {"model_path": "/m/llama/", "speculative_draft_model_path": "/m/llama"}
    assert draft_is_whole_target(same, "LlamaForCausalLM", "EAGLE")
    assert draft_is_whole_target(same, "LlamaForCausalLM", "STANDALONE")
    assert not draft_is_whole_target(same, "LlamaForCausalLM", "NGRAM")
    assert not draft_is_whole_target(same, "DeepseekV3ForCausalLM", "EAGLE")
    assert not draft_is_whole_target({"model_path": "/m/llama"}, "LlamaForCausalLM", "EAGLE")
    other = {"model_path": "/m/llama", "speculative_draft_model_path": "/m/eagle-head"}
    assert not draft_is_whole_target(other, "LlamaForCausalLM", "EAGLE3")


def test_graph_capture_oom_names_vllms_settings() -> None:
    """vllm#19186 quotes vLLM's worker failing in torch's capture_end: `why` reads the CUDA-graph step and its
    fix now names vLLM's own settings beside SGLang's (the reporter lowered --gpu-memory-utilization)."""
    report = explain(quoted("vllm19186_graph_capture_high_utilization.txt"))
    (signature,) = [s for s in report["signatures"] if s["id"] == "cuda-oom-cuda-graph"]
    assert signature["fix"] == (
        "Lower --cuda-graph-max-bs (vLLM: --cudagraph-capture-sizes / -cc.max_cudagraph_capture_size) or "
        "--mem-fraction-static (vLLM: --gpu-memory-utilization), or disable CUDA graphs (vLLM: "
        "--enforce-eager)"
    )
