"""`argtrace why` on real messages copied from public issue reports and logs (each with its URL): the right
site first (framework, function, file), the right settings, the right releases; and the messages that no
framework site prints (torch's CUDA out of memory) through the log signatures and the follow-up command.

The texts are quoted as their reports show them (prefixes, truncation and all); where a report quotes an
older release's wording the expected site is the bundled release whose wording it matches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.conftest import run_cli

MODEL = Path(__file__).resolve().parent / "data" / "models" / "qwen3.6-27b"


@dataclass(frozen=True)
class Case:
    text: str
    url: str
    framework: str
    function: str
    file: str
    settings: frozenset[str] = field(default_factory=frozenset)
    release: str | None = None  # a release the site must be found in
    kind: str | None = None
    # (function, release): the report's own site, as specific as the first match and listed after it: many
    # releases print the message from different functions, and with no release in the text the site the
    # newest release has comes first (docs/why.md, "Which release"; tests/test_why_releases.py)
    tie: tuple[str, str] | None = None


def case(text: str, url: str, framework: str, function: str, file: str, *settings: str, **kw: Any) -> Case:
    return Case(text, url, framework, function, file, frozenset(settings), **kw)


SG, VL = "sglang", "vllm"
CASES = [
    case(
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
        "https://github.com/sgl-project/sglang/issues/4330",
        SG, "MemoryPoolConfig.__post_init__", "sglang/srt/model_executor/pool_configurator.py",
        "mem_fraction_static", release="0.5.23",
    ),
    case(
        "(APIServer pid=3084) WARNING 07-14 08:38:33 [envs.py:2041] Unknown vLLM environment variable "
        "detected: VLLM_IMAGE_TAG",
        "https://github.com/vllm-project/vllm/issues/48493",
        VL, "Platform.validate_environ", "vllm/platforms/interface.py", "VLLM_IMAGE_TAG", kind="log",
    ),
    case(
        "WARNING 06-26 15:11:37 [envs.py:1830] Unknown vLLM environment variable detected: VLLM_USE_V1",
        "https://github.com/llm-d-incubation/llm-d-fast-model-actuation/issues/597",
        VL, "Platform.validate_environ", "vllm/platforms/interface.py", "VLLM_USE_V1", kind="log",
    ),
    case(
        "Aug 19 18:30:11 vllm vllm[8707]: (APIServer pid=8707) WARNING 08-19 18:30:11 [envs.py:2128] Unknown "
        "vLLM environment variable detected: VLLM_MODEL",
        "https://github.com/community-scripts/ProxmoxVED/issues/2047",
        VL, "Platform.validate_environ", "vllm/platforms/interface.py", "VLLM_MODEL", kind="log",
    ),
    case(
        "ValueError: token_to_kv_pool_allocator memory leak detected! self.max_total_num_tokens=270331, "
        "available_size=644, evictable_size=269628, protected_size=0",
        "https://github.com/sgl-project/sglang/issues/11970",
        # A full match ranks above a partial one however long: 0.4.4-0.4.8's longer template (87 literal
        # characters found, match 0.94) comes after the full match of 0.5.4-0.5.10's mixin (40 characters),
        # the site of this 0.5 report
        SG, "SchedulerRuntimeCheckerMixin.check_memory",
        "sglang/srt/managers/scheduler_runtime_checker_mixin.py", release="0.5.10.post1",
    ),
    case(
        "ValueError: pool memory leak detected! [full] total=9116160, available=768, evictable=9115392, "
        "protected=0, session_held=0, uncached=0",
        "https://github.com/sgl-project/sglang/issues/36081",
        SG, "SchedulerInvariantChecker._report_leak",
        "sglang/srt/managers/scheduler_components/invariant_checker.py",
        "SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_IDLE", release="0.5.23",
    ),
    case(
        "ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try "
        "increasing `gpu_memory_utilization` when initializing the engine.",
        "https://github.com/vllm-project/vllm/issues/10439",
        # five sites print these words exactly: V1's (0.7.3-0.21.0, renamed _check_... in 0.14.1), V0's
        # raise_if_cache_size_invalid (0.6.6.post1-0.10.2) and Worker.initialize_cache (0.6.6.post1); 0.22.1
        # on adds a sentence (a partial match). The report (November 2024, `engine.py:366]`: V0's
        # MQLLMEngine) ran V0: its site is as specific as the first and listed with its releases
        VL, "_check_enough_kv_cache_memory", "vllm/v1/core/kv_cache_utils.py", "gpu_memory_utilization",
        release="0.21.0", tie=("raise_if_cache_size_invalid", "0.6.6.post1"),
    ),
    case(
        "(EngineCore_DP0 pid=1094) ValueError: To serve at least one request with the models's max seq len "
        "(262144), (24.0 GiB KV cache is needed, which is larger than the available KV cache memory (3.18 "
        "GiB). Based on the available memory, the estimated maximum model length is 34736. Try increasing "
        "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        "https://github.com/vllm-project/vllm/issues/34076",
        VL, "check_enough_kv_cache_memory", "vllm/v1/core/kv_cache_utils.py",
        "gpu_memory_utilization", "max_model_len", release="0.11.0",
    ),
    case(
        "ValueError: Free memory on device (59.32/79.15 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 71.24 GiB). Decrease GPU memory utilization or reduce GP",
        "https://github.com/ovg-project/kvcached/issues/29",
        # 0.33's request_memory and 0.11's Worker.init_device print the same words (0.33 adds the device
        # name, which may be empty): the newest first, the other second at the same specificity
        VL, "request_memory", "vllm/v1/worker/utils.py", release="0.33.0",
    ),
    case(
        "free memory on device cuda:0 (19.77/22.05 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 19.84 GiB)",
        "https://github.com/pytorch/pytorch/issues/175666",
        VL, "request_memory", "vllm/v1/worker/utils.py", release="0.33.0",
    ),
    case(
        "Value error, Total number of attention heads (64) must be divisible by tensor parallel size (3).",
        "https://github.com/vllm-project/vllm/issues/52435",
        VL, "ModelConfig.verify_with_parallel_config", "vllm/config/model.py", "tensor_parallel_size",
        release="0.33.0",
    ),
    case(
        "RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for "
        "`--max-running-requests`. self.req_to_token_pool.available_size()=1, num_reqs=2,",
        "https://github.com/sgl-project/sglang/issues/10408",
        # the report (September 2025) ran a 0.5.2-era release: ScheduleBatch.alloc_req_slots, the full match
        # in 0.4.3-0.5.3 (0.5.4 on moved it to mem_cache/allocation.py)
        SG, "ScheduleBatch.alloc_req_slots", "sglang/srt/managers/schedule_batch.py", "max_running_requests",
        release="0.5.2",
    ),
    case(
        "[2025-07-02 07:41:59 DP0 TP0] max_total_tokens=131072 is larger than the profiled value -561981. "
        "Use the profiled value instead.",
        "https://github.com/sgl-project/sglang/issues/7691",
        SG, "KVCacheConfigurator._apply_token_constraints", "sglang/srt/mem_cache/kv_cache_configurator.py",
        "max_total_tokens", kind="log", release="0.5.23",
    ),
    case(
        "Exception: Capture cuda graph failed: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
        "Connection closed by peer",
        "https://github.com/sgl-project/sglang/issues/4205",
        SG, "DecodeCudaGraphRunner.__init__", "sglang/srt/model_executor/runner/decode_cuda_graph_runner.py",
        release="0.5.23",
    ),
    case(
        "ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len "
        "(None=8192 in model's config.json). This may lead to incorrect model outputs or CUDA errors.",
        "https://github.com/vllm-project/vllm/issues/3676",
        # a 2024 report: its text ("... in model's config.json). This may lead to ...") is the one of
        # vllm/config.py up to 0.9 (raise-site index), more of it than of config/model.py from 0.10 on
        VL, "_get_and_verify_max_len", "vllm/config.py", "max_model_len", release="0.6.6.post1",
    ),
    case(
        "[rank1]:ValueError: The decoder prompt (length 16476) is longer than the maximum model length of "
        "16384. Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal "
        "tokens. For image inputs, the number of image tokens depends on the number of images, and possibly "
        "their aspect ratios as well.",
        "https://github.com/nvidia-cosmos/cosmos-rl/issues/403",
        # the same words from LLMEngine/Processor._validate_model_input (0.8.5.post1-0.11.2) and
        # InputProcessor (0.12.0 on): the newest first, 0.11's Processor listed at the same specificity
        VL, "InputProcessor._validate_prompt_len", "vllm/v1/engine/input_processor.py", "max_model_len",
        release="0.33.0", tie=("Processor._validate_model_input", "0.11.0"),
    ),
    case(
        "ValueError: Quantization method specified in the model config (fp8) does not match the "
        "quantization method specified in the `quantization` argument (gguf).",
        "https://github.com/vllm-project/vllm/issues/19050",
        VL, "ModelConfig._verify_quantization", "vllm/config/model.py", "quantization",
    ),
    case(
        "ValueError: Model architectures ['Qwen3ForCausalLM'] are not supported for now. Supported "
        "architectures: ['AquilaModel', 'AquilaForCausalLM']",
        "https://github.com/vllm-project/vllm/issues/22231",
        VL, "_ModelRegistry._raise_for_unsupported", "vllm/model_executor/models/registry.py",
    ),
    case(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
        "T4 GPU has compute capability 7.5. You can use float16 instead by explicitly setting the`dtype` "
        "flag in CLI, for example: --dtype=half.",
        "https://github.com/substratusai/vllm-docker/issues/37",
        # a 2024 report: word for word the V0 worker's message of 0.6-0.7 (a full match); CudaPlatformBase's
        # of 0.10.2 on words the dtype hint differently (a partial match, listed after it)
        VL, "_check_if_gpu_supports_dtype", "vllm/worker/worker.py", "dtype", release="0.6.6.post1",
    ),
    case(
        "[2026-03-06 00:37:19] SIGQUIT received. signum=None, frame=None. It usually means one child failed.",
        "https://github.com/sgl-project/sglang/issues/20010",
        SG, "SignalHandler.running_phase_sigquit_handler", "sglang/srt/managers/tokenizer_manager.py",
        kind="log",
    ),
    case(
        "ValueError: The input (85050 tokens) is longer than the model's context length (32768 tokens).",
        "https://github.com/sgl-project/sglang/issues/8096",
        SG, "TokenizerManager._validate_one_request", "sglang/srt/managers/tokenizer_manager.py",
        "allow_auto_truncate", kind="raise",
    ),
    case(
        "RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests. Please "
        "try lowering `max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
        "https://github.com/llm-d/llm-d/issues/787",
        VL, "GPUModelRunner._dummy_sampler_run", "vllm/v1/worker/gpu_model_runner.py",
        "max_num_seqs", "gpu_memory_utilization", release="0.11.0",
    ),
    case(
        "(VllmWorker rank=7 pid=10948) ERROR 03-16 06:12:38 [multiproc_executor.py:375] RuntimeError: CUDA "
        "out of memory occurred when warming up sampler with 1024 dummy requests. Please try lowering "
        "`max_num_seqs` or `gpu_memory_utilization` when initializing the engine.",
        "https://github.com/vllm-project/vllm/issues/14452",
        VL, "GPUModelRunner._dummy_sampler_run", "vllm/v1/worker/gpu_model_runner.py",
        "max_num_seqs", "gpu_memory_utilization",
    ),
    case(
        "(APIServer pid=1179246) RuntimeError: Engine core initialization failed. See root cause above. "
        "Failed core proc(s): {}",
        "https://github.com/vllm-project/vllm/issues/23176",
        VL, "wait_for_engine_startup", "vllm/v1/engine/utils.py", release="0.11.0",
    ),
    case(
        "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): "
        "{'EngineCore_0': 1}",
        "https://github.com/vllm-project/vllm/issues/21882",
        VL, "wait_for_engine_startup", "vllm/v1/engine/utils.py", release="0.11.0",
    ),
    case(
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        "https://github.com/vllm-project/vllm/issues/9986",
        VL, "OnlineRenderer.render_chat", "vllm/renderers/online_renderer.py",
        "enable_auto_tool_choice", "tool_call_parser",
    ),
    case(
        "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla "
        "V100-SXM2-32GB GPU has compute capability 7.0.",
        "https://github.com/vllm-project/vllm/issues/946",
        # a 2023 report: word for word (nothing after "7.0.") the worker's message of 0.2.7, the oldest
        # indexed release; the later sites add a dtype hint after it (partial matches, listed after). 0.2.7's
        # message names no flag and its condition reads the function's parameter (torch_dtype): no setting
        VL, "_check_if_gpu_supports_dtype", "vllm/worker/worker.py",
    ),
    case(
        "ValueError: Total number of attention heads (52) must be divisible by tensor parallel size (8).",
        "https://github.com/vllm-project/vllm/issues/2652",
        VL, "ModelConfig.verify_with_parallel_config", "vllm/config/model.py", "tensor_parallel_size",
    ),
    case(
        "ValueError: Quantization method specified in the model config (gptq) does not match the "
        "quantization method specified in the `quantization` argument (gptq_marlin).",
        "https://github.com/vllm-project/vllm/issues/5842",
        VL, "ModelConfig._verify_quantization", "vllm/config/model.py", "quantization",
    ),
    case(
        "ValueError: Model architectures ['LlamaForCausalLM'] are not supported for now. Supported "
        "architectures: ['AquilaModel', 'AquilaForCausalLM', 'ArcticForCausalLM', 'BaiChuanForCausalLM']",
        "https://github.com/vllm-project/vllm/issues/9515",
        VL, "_ModelRegistry._raise_for_unsupported", "vllm/model_executor/models/registry.py",
    ),
    case(
        "ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified max_model_len (4096) is greater "
        "than the derived max_model_len (seq_length=2048 or model_max_length=None in model's config.json). "
        "This may lead to incorrect model outputs or CUDA errors. Make sure the value is correct and within "
        "the model context size.",
        "https://github.com/xorbitsai/inference/issues/1715",
        # a 2024 report: "... in model's config.json). This may lead to ... Make sure the value is correct
        # and within the model context size." is vllm/config.py's wording up to 0.9 (a full match);
        # config/model.py's from 0.10.2 on is worded differently (partial, listed after it)
        VL, "_get_and_verify_max_len", "vllm/config.py", "max_model_len", release="0.6.6.post1",
    ),
    case(
        "ERROR 05-23 09:31:47 [core.py:396] EngineCore failed to start.",
        "https://github.com/vllm-project/vllm/issues/18730",
        VL, "EngineCoreProc.run_engine_core", "vllm/v1/engine/core.py", kind="log",
    ),
]  # fmt: skip


IDS = [c.url.rsplit("/", 3)[-3] + "-" + c.url.rsplit("/", 1)[-1] for c in CASES]


def test_at_least_thirty_real_messages() -> None:
    # the 32 site cases here and the two CUDA out-of-memory reports below; every URL distinct
    assert len(CASES) == 32 and len(set(IDS)) == 32


@pytest.mark.parametrize("c", CASES, ids=IDS)
def test_real_message_finds_its_site(c: Case) -> None:
    section = explain(c.text)
    assert section["matches"], c.text
    first = section["matches"][0]
    assert (first["framework"], first["function"], first["file"]) == (c.framework, c.function, c.file)
    names = {s["name"] for s in first["settings"]}
    assert c.settings <= names, names
    if c.release:
        assert c.release in first["releases"], first["releases"]
    if c.kind:
        assert first["kind"] == c.kind
    if c.function == "request_memory" and "kvcached" in c.url:
        second = section["matches"][1]
        releases = ["0.9.2", "0.10.2", "0.11.0", "0.11.2", "0.12.0", "0.13.0"]
        assert (second["function"], second["releases"]) == ("Worker.init_device", releases)
        assert second["specificity"] == first["specificity"]
    if c.tie:
        function, release = c.tie
        tied = [
            m
            for m in section["matches"][1:]
            if (m["specificity"], m["how"]) == (first["specificity"], first["how"])
            and m["function"] == function
            and release in m["releases"]
        ]
        assert len(tied) == 1, [(m["function"], m["releases"]) for m in section["matches"]]
    assert first["versions"][-1]["at"] == f"{first['file']}:{first['line']}"
    assert first["fix"]


# --- messages no framework site prints: the log signatures and the command that tells more -------------

TORCH_OOM_VLLM = (  # https://github.com/vllm-project/vllm/issues/15105
    "(VllmWorker rank=1 pid=2978) ERROR 03-19 07:27:53 [multiproc_executor.py:375] torch.OutOfMemoryError: "
    "CUDA out of memory. Tried to allocate 1.74 GiB. GPU 1 has a total capacity of 23.57 GiB of which "
    "605.88 MiB is free."
)
TORCH_OOM_4090 = (  # https://github.com/pytorch/pytorch/issues/16417
    "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.00 MiB. GPU 0 has a total "
    "capacity of 23.65 GiB of which 11.06 MiB is free. Including non-PyTorch memory, this process has "
    "23.60 GiB memory in use."
)


def test_cuda_oom_from_a_vllm_log_names_the_mem_command() -> None:
    section = explain(TORCH_OOM_VLLM)
    assert section["matches"] == []
    assert [s["id"] for s in section["signatures"]] == ["cuda-oom"]
    # the log format says vLLM; 23.57 GiB is no bundled GPU profile, so GPU stays a placeholder
    assert [m["command"] for m in section["more"]] == [
        "argtrace mem --model-config MODEL_DIR --gpu GPU --framework vllm -- SERVER_FLAGS...",
        "argtrace log LOG",
    ]


def test_cuda_oom_capacity_names_the_gpu_profile() -> None:
    section = explain(TORCH_OOM_4090)
    assert section["matches"] == []
    assert (
        section["more"][0]["command"]
        == "argtrace mem --model-config MODEL_DIR --gpu rtx-4090 -- SERVER_FLAGS..."
    )
    assert "add --framework vllm for a vLLM server" in section["more"][0]["why"]


def test_more_commands_are_filled_from_the_options() -> None:
    result = run_cli(
        ["why", "--format", "json", "--framework", "sglang", "--model-config", str(MODEL), "--gpu",
         "h100x2", "--log", "/var/log/sglang.log", TORCH_OOM_4090]
    )  # fmt: skip
    assert result.status == 0, result.stderr
    assert [m["command"] for m in result.json["why"]["more"]] == [
        f"argtrace mem --model-config {MODEL} --gpu h100x2 --framework sglang "
        "--from-log /var/log/sglang.log -- SERVER_FLAGS...",
        "argtrace log /var/log/sglang.log",
    ]


def test_values_the_message_states_become_flags() -> None:
    # SGLang 0.5.10's wording with its optional "Current value" piece (the text is constructed from the
    # template: the public reports quote the message without it)
    text = (
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. "
        "Current value: mem_fraction_static=0.88"
    )
    section = explain(text)
    first = section["matches"][0]
    assert first["function"] == "MemoryPoolConfig.__post_init__" and first["how"] == "full"
    assert section["more"][0]["command"] == (
        "argtrace mem --model-config MODEL_DIR --gpu GPU --framework sglang -- --mem-fraction-static 0.88"
    )


# --- the JSON contract and the text view --------------------------------------------------------------


def _stored_releases(framework: str) -> list[str]:
    import gzip
    import json

    from argtrace.resolver.message_store import MESSAGE_DIR, sort_releases

    data = json.loads(gzip.decompress((MESSAGE_DIR / f"{framework}.json.gz").read_bytes()))
    return sort_releases(list(data["releases"]))


def test_json_shape() -> None:
    result = run_cli(["why", "--format", "json", CASES[0].text])
    assert result.status == 0, result.stderr
    section = result.json["why"]
    assert set(section) == {
        "query",
        "matches",
        "signatures",
        "more",
        "indexed",
        "release",
        # added 2026-12-02 (tests/test_why_weak.py): how far the first site can be trusted
        "confidence",
        "reasons",
        "origin",
    }
    assert (section["confidence"], section["reasons"], section["origin"]) == ("strong", [], None)
    assert section["query"] == CASES[0].text
    assert section["release"] is None  # no --framework-version, no version line
    # the releases of each framework's message store file, oldest first (issue 15 adds them a family at
    # a time: read from the file, with the first four always there)
    stored = {
        fw: _stored_releases(fw)
        for fw in ("flash_attn", "huggingface_hub", "sglang", "transformers", "triton", "vllm")
    }
    assert {"0.5.10.post1", "0.5.15.post1", "0.5.19", "0.5.23"} <= set(stored["sglang"])
    assert {"0.11.0", "0.33.0"} <= set(stored["vllm"])
    assert stored["huggingface_hub"] == ["0.21.4", "0.36.2", "2.4.0"]  # libraries a launch goes through
    assert stored["triton"] == ["2.3.1", "3.2.0", "3.9.0"]
    assert stored["flash_attn"] == ["4.0.0b36"]  # flash-attn-4's wheel (FlashAttention 4, CuTe)
    assert stored["transformers"] == ["4.51.3", "4.57.6", "5.23.0"]  # AutoConfig (why's 10th batch)
    assert section["indexed"] == stored
    first = section["matches"][0]
    assert set(first) == {
        "framework", "function", "kind", "exception", "level", "message", "score", "specificity", "how",
        "file", "line", "condition", "conditions", "settings", "reads", "versions", "releases",
        "absent_in", "fix", "index",
    }  # fmt: skip
    assert first["kind"] == "raise" and first["exception"] == "RuntimeError" and first["level"] is None
    assert first["condition"] == "self.max_total_num_tokens <= 0" and first["index"] == "messages"
    assert first["settings"][0] == {
        "name": "mem_fraction_static", "flag": "--mem-fraction-static", "named_in_message": True,
    }  # fmt: skip
    # every indexed release either has the site or is listed as lacking it (the first four all have it)
    assert {"0.5.10.post1", "0.5.15.post1", "0.5.19", "0.5.23"} <= set(first["releases"])
    assert sorted(first["releases"] + first["absent_in"]) == sorted(stored["sglang"])
    assert not set(first["releases"]) & set(first["absent_in"])
    assert first["fix"] == (
        "make the condition false (self.max_total_num_tokens <= 0): change --mem-fraction-static"
    )


def test_text_view() -> None:
    result = run_cli(["why", CASES[1].text])
    assert result.status == 0, result.stderr
    out = result.stdout
    assert "vllm: warning logged in Platform.validate_environ (vllm/platforms/interface.py:" in out
    assert "message: Unknown vLLM environment variable detected: {env}" in out
    assert "when: not (hard_fail)" in out
    assert "log signature vllm-unknown-env (LG006)" in out
    assert "more: argtrace log LOG" in out


def test_a_release_filter_shows_that_release_s_site() -> None:
    section = explain(CASES[0].text, "sglang", "0.5.10.post1")
    first = section["matches"][0]
    assert (first["file"], first["line"]) == ("sglang/srt/model_executor/model_runner_kv_cache_mixin.py", 60)
    assert first["versions"] == [
        {"version": "0.5.10.post1", "at": "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:60"}
    ]
    assert explain("Unknown vLLM environment variable detected: VLLM_FOO", "vllm", "0.11.0")["matches"] == []


def test_nothing_matches_unrelated_text() -> None:
    result = run_cli(
        ["why", "--format", "json", "completely unrelated words that no framework says anywhere"]
    )
    assert result.status == 0, result.stderr
    assert result.json["why"]["matches"] == [] and result.json["why"]["signatures"] == []
    assert result.json["notes"] == [
        "no framework raise or log site matches; try a shorter, literal part of the message"
    ]
