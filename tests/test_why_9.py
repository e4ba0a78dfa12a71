"""`argtrace why` on 25 error texts from public reports of 2025-2026 it was never tuned on (the 9th batch;
texts and URLs in tests/data/why_9/, the first line of each file names the report and the fix its thread
settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md "`why`, 9th batch",
docs/why.md):

- test modules a wheel ships beside its code (``test_q8_indexer.py``, ``conftest.py``) are not indexed;
  ``gen_messages.py --refilter`` applies the rule to the stored indexes;
- an HTTP error body pasted as the client got it (JSON, its quotes escaped) is read for its message;
- a traceback frame naming a site's file and function ranks that site first;
- a condition read the message spells in full (``self.context_len``, "context length") names that setting;
- a message printing the exception its ``except`` handler caught (``... loading {name}. {e}``) reports it.

Each case asserts the first site (function and file:line), the confidence, the settings and the start of
the fix; the cases ``why`` still does not explain are strict ``xfail`` tests naming the missing mechanism.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import render_why
from argtrace.commands.why_wrapped import inner_message
from argtrace.layers.log.messages import _json_message, candidates, frames
from argtrace.layers.log.sites import _abbreviates, settings_of
from argtrace.resolver.message_index import is_test_file
from tests.batches import WhyCase, assert_why_gives, batch_grades, recorded_why
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why_9"


def _text(name: str) -> str:
    return quoted_text(DATA / f"{name}.txt")


def _why(name: str) -> dict[str, Any]:
    return recorded_why(DATA / f"{name}.txt")


def _url(name: str) -> str:
    return quoted_url(DATA / f"{name}.txt")


def _gen_messages() -> Any:
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("gen_messages", root / "scripts" / "gen_messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_messages"] = module
    spec.loader.exec_module(module)
    return module


# --- the generator: test modules are not sites ---------------------------------------------------------
def test_test_modules_are_not_indexed() -> None:
    assert [
        is_test_file(name)
        for name in (
            "vllm/third_party/fmha_sm100/cute/test_q8_indexer.py",
            "vllm/entrypoints/pooling/embed/conftest.py",
            "vllm/model_executor/layers/quantization/utils/marlin_utils_test.py",
            "sglang/test/runners.py",
            "vllm/config/scheduler.py",
            "sglang/srt/managers/tokenizer_manager.py",
            "vllm/attestation.py",
        )
    ] == [True, True, True, True, False, False, False]


def test_refilter_drops_test_sites_and_recounts_each_release() -> None:
    gen = _gen_messages()
    store = {
        "releases": {"1.0": {"sites": 3}, "2.0": {"sites": 2}},
        "sites": [
            {"f": "vllm/config/scheduler.py", "fn": "f", "at": {"1.0": [10, 20], "2.0": [12]}},
            {"f": "vllm/third_party/cute/test_q8_indexer.py", "fn": "t", "at": {"1.0": [5], "2.0": [5]}},
        ],
    }
    assert gen.refilter(store) == 1
    assert [s["f"] for s in store["sites"]] == ["vllm/config/scheduler.py"]
    assert store["releases"] == {"1.0": {"sites": 2}, "2.0": {"sites": 1}}


def test_the_bundled_indexes_hold_no_test_module() -> None:
    from argtrace.resolver.message_store import sites

    for framework in ("vllm", "sglang"):
        assert [s.file for s in sites(framework) if is_test_file(s.file)] == []


# --- pasted forms: an HTTP error body, traceback frames ------------------------------------------------
def test_an_http_error_body_is_read_for_its_message() -> None:
    assert (
        _json_message(
            '{"object":"error","message":"\\"auto\\" tool choice requires --enable-auto-tool-choice","type":'
            '"BadRequestError","param":null,"code":400}'
        )
        == '"auto" tool choice requires --enable-auto-tool-choice'
    )
    # \' is not JSON: read once it is unescaped
    assert _json_message('{"object":"error","message":"the model\\\'s context length (40960 tokens)."}') == (
        "the model's context length (40960 tokens)."
    )
    assert _json_message('{"error": {"message": "Bad input", "type": "x"}}') == "Bad input"
    assert _json_message('{"detail":"Not Found"}') == "Not Found"
    # a body cut short keeps its words, unescaped
    assert _json_message('{"message":"\\"auto\\" tool choice requires --enable') == (
        '{"message":""auto" tool choice requires --enable'
    )
    assert _json_message("ValueError: {'a': 1}") is None
    assert candidates('{"message":"The input (61709 tokens) is longer than the model\\\'s context"}') == [
        "The input (61709 tokens) is longer than the model's context"
    ]


def test_traceback_frames_are_read_through_their_prefixes() -> None:
    text = (
        'vllm-server  |   File "/usr/local/lib/python3.12/dist-packages/vllm/config.py", line 1626, '
        "in __init__\n"
        '(EngineCore_0 pid=1)   File "C:\\\\env\\\\sglang\\\\srt\\\\x.py", line 3, in <module>\n'
        "RuntimeError: Failed to infer device type\n"
    )
    assert frames(text) == {
        ("/usr/local/lib/python3.12/dist-packages/vllm/config.py", "__init__"),
        ("C://env//sglang//srt//x.py", "<module>"),
    }


def test_a_docker_compose_prefix_is_removed_once() -> None:
    from argtrace.layers.log.messages import strip_prefixes

    assert [
        strip_prefixes(line)
        for line in (
            "vllm-server  | ValueError: No supported config format found in meta-llama/Llama-3.3-70B",
            "sglang-1  | [2025-01-01 10:00:00 TP0] Scheduler hit an exception",
            "a | b | c",
        )
    ] == [
        "No supported config format found in meta-llama/Llama-3.3-70B",
        "Scheduler hit an exception",
        "b | c",
    ]


# --- settings: a read the message spells in full -------------------------------------------------------
def test_a_read_abbreviating_a_setting_the_message_spells_names_it() -> None:
    assert [
        _abbreviates(a, b)
        for a, b in (
            ("context_len", "context_length"),
            ("max_len", "max_length"),
            ("context_length", "context_length"),
            ("len", "length"),
            ("context_len", "context_window_length"),
        )
    ] == [True, True, False, False, False]
    template = (
        "The input ({input_token_num} tokens) is longer than the model's context length "
        "({self.context_len} tokens)."
    )
    got = settings_of(
        "sglang",
        "0.5.23",
        ["self.allow_auto_truncate", "self.context_len"],
        template,
        "",
        "TokenizerManager._validate_one_request",
    )
    assert got == [
        {
            "name": "context_length",
            "flag": "--context-length",
            "via": "self.context_len",
            "named_in_message": True,
            "in_words": True,
        },
        {"name": "allow_auto_truncate", "flag": "--allow-auto-truncate", "via": "self.allow_auto_truncate"},
    ]
    # a request's field is not the server's setting: only the words name it (the fallback of a message whose
    # condition reads no setting), not the read
    lora = "The adapter {x.lora_path} is not one of the lora paths loaded"
    request = settings_of("sglang", "0.5.23", ["obj.lora_path"], lora.replace("x.", "obj."))
    server = settings_of("sglang", "0.5.23", ["self.lora_path"], lora.replace("x.", "self."))
    assert [(s["name"], s.get("via")) for s in request] == [("lora_paths", None)]
    assert [(s["name"], s.get("via")) for s in server] == [("lora_paths", "self.lora_path")]


# --- a condition on what the class assigned from the platform ------------------------------------------
def test_a_self_attribute_assigned_from_the_platform_is_the_devices() -> None:
    from argtrace.commands.why import _on_device

    reads = ["current_platform.device_type", "self.device_type"]
    assert _on_device("not self.device_type", reads)
    assert _on_device("not (current_platform.is_cpu())", [])
    assert not _on_device("not self.device_type", ["self.device_type"])  # nothing says it is the platform's
    assert not _on_device("self.device_type and self.max_model_len > 4", reads)  # one read is not
    assert not _on_device("device == 'auto'", reads)


# --- a message printing the exception its handler caught ----------------------------------------------
def test_the_caught_exception_a_handler_prints_is_the_inner_message() -> None:
    template = "Ignore import error when loading {name}. {e}"
    text = (
        "Ignore import error when loading sglang.srt.models.deepseek_v2. Command '['/usr/bin/gcc']' returned "
        "non-zero exit status 1.\nScheduler hit an exception: Traceback"
    )
    assert inner_message(template, text) is None  # "{name}. {e}": no word says it is an error
    assert inner_message(template, text, caught=True) == (
        "Command '['/usr/bin/gcc']' returned non-zero exit status 1."
    )


# --- the 25 texts ---------------------------------------------------------------------------------------


CASES = [
    WhyCase(
        "sglang35080_gdn_blackwell_flashinfer",
        "a",
        "a",
        "attn_backend_wrapper",
        "strong",
        "sglang/srt/layers/attention/attention_registry.py:411",
        ("attention_backend", "decode_attention_backend", "prefill_attention_backend"),
        "make the condition false (not (attn_be in allowed)): change --attention-backend",
    ),
    WhyCase(
        "pascal21_bf16_p40_logprefix",
        "a",
        "a",
        "CudaPlatformBase.check_if_supports_dtype",
        "strong",
        "vllm/platforms/cuda.py:650",
        ("dtype",),
        "make the condition false (not (capability is None)): change --dtype",
    ),
    WhyCase(
        "xinference3486_bf16_t4_address",
        "a",
        "a",
        "CudaPlatformBase.check_if_supports_dtype",
        "strong",
        "vllm/platforms/cuda.py:650",
        ("dtype",),
        "make the condition false (not (capability is None)): change --dtype",
    ),
    WhyCase(
        "verlpr7626_max_batched_tokens_pydantic",
        "d",
        "a",
        "SchedulerConfig.verify_max_model_len",
        "strong",
        "vllm/config/scheduler.py:322",
        ("max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"),
        "make the condition false (self.max_num_batched_tokens < max_model_len and (not "
        "self.enable_chunked_prefill)): change --max-num-batched-tokens",
    ),
    WhyCase(
        "verlpr259_max_batched_tokens_ansi",
        "a",
        "a",
        "SchedulerConfig.verify_max_model_len",
        "strong",
        "vllm/config/scheduler.py:322",
        ("max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"),
    ),
    WhyCase(
        "vllm14090_no_config_format_compose",
        "b",
        "b",
        "get_config",
        "strong",
        "vllm/transformers_utils/config.py:195",
        ("config_format",),
    ),
    # transformers' AutoConfig is indexed since why's 10th batch (tests/test_why_10.py): its own raise, and
    # the message's own way out; W9-07 is class a since (the thread's fix was that upgrade)
    WhyCase(
        "vllm13579_qwen25vl_transformers_title",
        "b",
        "a",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:438",
        (),
        "transformers raises this in AutoConfig.from_pretrained when its own lookup fails (KeyError), not "
        "from a server setting: its message says 'You can update Transformers",
    ),
    WhyCase(
        "sglang4410_gemma3_transformers",
        "b",
        "b",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:438",
    ),
    WhyCase(
        "sglang5441_glm4_arch_not_supported",
        "b",
        "b",
        "_ModelRegistry._raise_for_unsupported",
        "strong",
        "vllm/model_executor/models/registry.py:1249",
    ),
    WhyCase(
        "sglang4253_deepseekv3_import_error",
        "b",
        "a",
        "import_model_classes",
        "strong",
        "sglang/srt/models/registry.py:86",
        (),
        "this only reports another error, the cause: \"Command '['/usr/bin/gcc', '/tmp/tmp6x1f85tg/main.c'",
    ),
    WhyCase(
        "sglangpr14644_gated_repo_oserror",
        "b",
        "a",  # why32: the gated repository's own fix (why_fixes.hub_repo_fix) names HF_TOKEN
        "hf_raise_for_status",
        "strong",
        "huggingface_hub/utils/_errors.py:358",
        (),
        "the Hub's repository 'meta-llama/Llama-3.2-1B-Instruct' is gated: the request carried no token",
    ),
    WhyCase(
        "verl6677_eaddrinuse_double_prefix",
        "c",
        "c",
        "SharedOffloadRegion.cleanup",
        "weak",
        "vllm/v1/kv_offload/cpu/shared_offload_region.py:352",
    ),
    WhyCase(
        "langchain4j3475_auto_tool_choice_json",
        "a",
        "a",
        "OnlineRenderer.render_chat",
        "strong",
        "vllm/renderers/online_renderer.py:277",
        ("enable_auto_tool_choice", "tool_call_parser", "tokenizer"),
    ),
    WhyCase(
        "qwen3_1321_context_length_json",
        "b",
        "a",
        "TokenizerManager._validate_one_request",
        "strong",
        "sglang/srt/managers/tokenizer_manager.py:1348",
        ("context_length", "allow_auto_truncate"),
        "make the condition false (not (self.allow_auto_truncate)): change --context-length, "
        "--allow-auto-truncate",
    ),
    WhyCase(
        "sglangpr8016_context_length_plain",
        "b",
        "a",
        "TokenizerManager._validate_one_request",
        "strong",
        "sglang/srt/managers/tokenizer_manager.py:1348",
        ("context_length", "allow_auto_truncate"),
        "make the condition false (not (self.allow_auto_truncate)): change --context-length",
    ),
    WhyCase(
        "llmd787_sampler_warmup_oom_wrapped",
        "a",
        "a",
        "GPUModelRunner._dummy_sampler_run",
        "strong",
        "vllm/v1/worker/gpu_model_runner.py:5929",
        ("max_num_seqs", "gpu_memory_utilization"),
    ),
    WhyCase(
        "ttxla5932_chunked_mm_wrapped",
        "a",
        "a",
        "compute_mm_encoder_budget",
        "strong",
        "vllm/v1/core/encoder_cache_manager.py:366",
        ("max_num_batched_tokens", "disable_chunked_mm_input"),
    ),
    WhyCase(
        "rbln527_chunked_mm_whisper",
        "a",
        "a",
        "compute_mm_encoder_budget",
        "strong",
        "vllm/v1/core/encoder_cache_manager.py:366",
        ("max_num_batched_tokens", "disable_chunked_mm_input"),
    ),
    WhyCase(
        "dynamo391_failed_to_infer_device",
        "b",
        "a",
        "DeviceConfig.__init__",
        "strong",
        "vllm/config.py:1660",
        (),
        "the condition not self.device_type is the GPU's or platform's: no launch setting changes it; "
        "make an enclosing one false: device == 'auto'",
    ),
    WhyCase(
        "llamafactory9512_lora_rank_worker_failed",
        "a",
        "a",
        "WorkerLoRAManager._load_adapter",
        "strong",
        "vllm/lora/worker_manager.py:121",
        ("max_lora_rank",),
    ),
    WhyCase(
        "msswift4221_lora_rank_plain",
        "a",
        "a",
        "WorkerLoRAManager._load_adapter",
        "strong",
        "vllm/lora/worker_manager.py:121",
        ("max_lora_rank",),
        "make the condition false (lora.rank > self.lora_config.max_lora_rank): change --max-lora-rank",
    ),
    WhyCase(
        "gpustack3831_not_enough_memory_ascend",
        "a",
        "a",
        "ModelRunnerKVCacheMixin.init_memory_pool",
        "strong",
        "sglang/srt/model_executor/model_runner_kv_cache_mixin.py:416",
        ("mem_fraction_static", "max_total_tokens", "page_size"),
    ),
    WhyCase(
        "vllm17176_dp_duplicate_gpu_nccl",
        "b",
        "b",
        "NCCLLibrary.NCCL_CHECK",
        "strong",
        "vllm/distributed/device_communicators/pynccl_wrapper.py:464",
    ),
    WhyCase(
        "ascendsglang625_eaddrinuse_wrapped",
        "c",
        "c",
        "ParallelConfig.stateless_init_dp_group",
        "weak",
        "vllm/config/parallel.py:750",
    ),
    WhyCase("vllm36802_triton_smem_t4", "c", "c", None, "none"),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({_url(c.name) for c in CASES}) == 25
    assert batch_grades(CASES) == ([11, 10, 3, 1], [18, 4, 3, 0])  # W9-07: 10th batch; why32: +1 a


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case, origin=False)


def test_the_frame_names_the_release_whose_site_raised() -> None:
    # vllm/config.py's DeviceConfig.__init__ (0.6-0.7) before the later releases' __post_init__, which the
    # text matches as well; the traceback's frame says which
    view = render_why(_why("dynamo391_failed_to_infer_device"))
    # the match's strength is what the answer rests on: its own line under the fix (commands/why_text.py)
    assert view.splitlines()[0] == "vllm: RuntimeError raised in DeviceConfig.__init__ (vllm/config.py:1660)"
    assert "  rests on: match 1.00 (23 chars), strong; in 0.6.2-0.7.3" in view.splitlines()


def test_the_json_body_matches_whole() -> None:
    first = _why("qwen3_1321_context_length_json")["matches"][0]
    assert (first["how"], first["specificity"]) == ("full", 54)


def test_the_caught_import_error_is_the_cause() -> None:
    first = _why("sglang4253_deepseekv3_import_error")["matches"][0]
    assert first["reports"].endswith("/include/python3.11']' returned non-zero exit status 1.")


# --- what class a would need, for the cases not there (strict xfail: each names the missing mechanism) ----
MISSING = [
    (
        "sglang4410_gemma3_transformers",
        lambda first: "auto_factory" in first["file"],
        "the second error (SGLang's config registration against a newer transformers: auto_factory's "
        "'... is already used by a Transformers model') is not indexed, nor the SGLang release that supports "
        "Gemma 3",
    ),
    (
        "sglang5441_glm4_arch_not_supported",
        lambda first: first["framework"] == "sglang",
        "SGLang and vLLM raise the same 'Model architectures ... are not supported for now'; only the "
        "printed dict_keys([...]) and the architecture list (each framework's model registry, not indexed) "
        "tell them apart",
    ),
    (
        "vllm14090_no_config_format_compose",
        lambda first: "model" in [s["name"] for s in first["settings"]],
        "get_config's condition reads its parameter `model` (the --model value), and parameters are not "
        "traced to the caller's setting",
    ),
    (
        "vllm17176_dp_duplicate_gpu_nccl",
        lambda first: "data_parallel_size" in [s["name"] for s in first["settings"]],
        "NCCL's 'Duplicate GPU detected' is C code (not indexed); the NCCL_CHECK wrapper reads no setting",
    ),
    (
        "verl6677_eaddrinuse_double_prefix",
        lambda first: "VLLM_PORT" in [s["name"] for s in first["settings"]],
        "torch.distributed's EADDRINUSE text: the port vLLM chose is not in the text's site, and torch's "
        "TCPStore is C++",
    ),
    (
        "ascendsglang625_eaddrinuse_wrapped",
        lambda first: first["framework"] == "sglang",
        "torch.distributed's EADDRINUSE text on SGLang: torch's TCPStore is C++, and the first candidates "
        "are vLLM's",
    ),
    (
        "vllm36802_triton_smem_t4",
        lambda first: first["framework"] == "triton",
        "Triton's OutOfResources builds its message in the exception class's __init__; messages built there "
        "are not indexed, and of Triton only dtype.to_ir is",
    ),
]


@pytest.mark.parametrize(
    "name,check",
    [pytest.param(n, c, id=n, marks=pytest.mark.xfail(strict=True, reason=why)) for n, c, why in MISSING],
)
def test_class_a_would_name_the_cause(name: str, check: Any) -> None:
    section = _why(name)
    first = (section["matches"] or [None])[0]
    assert section["confidence"] == "strong"
    assert first is not None and check(first)
