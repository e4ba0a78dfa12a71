"""`argtrace why` on a 24th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why26/, the first line of each file names the report, the release and
the cause its thread settled on), as a new user runs it (``--framework-version`` only where the reporter named
the release), and the mechanisms they led to (docs/real_cases.md "`why`, 24th batch (why26)"):

- other programs' words: ptxas's "Value 'sm_X' is not defined for option 'gpu-name'" without its prefix,
  DeepGEMM's "Unsupported architecture", PyTorch's INTERNAL ASSERT (``FOREIGN_WORDINGS``);
- Python's call TypeError as a title retells it ("got unexpected keyword 'x'", ``why_call``);
- a partial match whose shared words the text writes in another letter case is retold, not printed
  (``why_confidence.case_differs``);
- one token of a wrapped line (a variable's assignment) is not a cut-out of a message that names it
  (``messages._full``), and torch's device accounting alone is an out-of-memory (``cuda-oom``'s wording);
- a short template matched whole yields to a partial match of twice its characters (``messages.match_text``);
- the device's capability against a quantization method's minimum is the GPU's condition (``why._DEVICE``);
- an ``assert COND`` a sentence goes on after without a comma (``assert_lookup.quoted_condition``);
- a JSON flag's value whose keys have no double quotes, in the refusal without argparse's "argument --x:"
  (``json_values.bare_keys_json``, ``why_fixes.converter_fix``);
- a request-length refusal is one request's check: the prompt plus max_tokens (``why_fixes``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import _on_device, explain, render_why
from argtrace.commands.why_call import call_error
from argtrace.commands.why_confidence import case_differs, origin_of
from argtrace.commands.why_fixes import request_length_note
from argtrace.layers.log.messages import match_text
from argtrace.layers.parser.json_fixes import bare_keys_json, json_value_fix
from argtrace.resolver.assert_lookup import quoted_condition
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why26"

# the releases the reporters named (``--framework-version``); the others ran without it
VERSION = {
    "vllm47486_eagle_dirname": "0.24.0",
    "msswift4202_worker_extension_cls_title": "0.7.3",
    "vllm32732_regression_no_backend_title": "0.14.0",
}


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"), None, VERSION.get(name))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


_GPU = "the condition"
_CALL = "Python's interpreter: a call to"

CASES = [
    WhyCase(
        "autoround2242_quant_mismatch_title",
        "a",
        "a",
        "ModelConfig._verify_quantization",
        "strong",
        "vllm/config/model.py:1457",
        (
            "code_revision",
            "config_format",
            "hf_config_path",
            "hf_token",
            "model",
            "quantization_config",
            "quantization",
            "revision",
            "trust_remote_code",
        ),
        "make the condition false (self.quantization != quant_method): change --quantization",
    ),
    WhyCase(
        "cognithor317_free_memory_util",
        "a",
        "a",
        "request_memory",
        "strong",
        "vllm/v1/worker/utils.py:762",
        ("gpu_memory_utilization",),
        "--gpu-memory-utilization 0.95 asks 30.25 GiB of the device's 31.84 GiB",
    ),
    WhyCase(
        "cosmosreason2_30_sm121a_ptxas",
        "c",
        "a",
        None,
        "none",
        origin="Triton's compiler: the ptxas its release bundles does not know this GPU's architecture",
    ),
    WhyCase(
        "glm5_13_ampere_sparse_mla",
        "a",
        "a",
        "is_flashmla_sparse_supported",
        "strong",
        "vllm/v1/attention/ops/flashmla.py:74",
        (),
        "the condition not (current_platform.is_device_capability_family(90)",
    ),
    WhyCase(
        "glyph9_decoder_prompt_max_model_len",
        "b",
        "b",
        "InputProcessor._validate_prompt_len",
        "strong",
        "vllm/v1/engine/input_processor.py:588",
        ("max_model_len",),
        "make the condition false (self.supports_mm_inputs): change --max-model-len",
    ),
    WhyCase(
        "interpengine2_mm_item_budget",
        "a",
        "a",
        "compute_mm_encoder_budget",
        "strong",
        "vllm/v1/core/encoder_cache_manager.py:366",
        ("max_num_batched_tokens", "disable_chunked_mm_input"),
        "make the condition false (scheduler_config.disable_chunked_mm_input and max_tokens_per_mm_item > "
        "scheduler_config.max_num_batched_tokens): change --max-num-batched-tokens",
    ),
    WhyCase(
        "lmcachepr2499_batch_invariant_backend",
        "a",
        "a",
        "override_envs_for_invariance",
        "strong",
        "vllm/model_executor/layers/batch_invariant.py:1017",
        ("attention_backend", "attention_config"),
        "make the condition false (attention_backend not in supported_backends): change --attention-backend",
    ),
    WhyCase(
        "msswift4202_worker_extension_cls_title",
        "c",
        "a",
        None,
        "none",
        origin=f"{_CALL} EngineArgs.__init__ that does not fit its signature",
    ),
    WhyCase(
        "nemorl2620_mamba_cache_blocks",
        "a",
        "a",
        "CompilationConfig.resolve_cudagraph_mode_and_sizes",
        "strong",
        "vllm/config/compilation.py:1525",
        ("max_num_seqs", "gpu_memory_utilization"),
        "make the condition false (kv_cache_config is not None and max_num_reqs is not None",
    ),
    WhyCase(
        "ray52975_trust_remote_code_kwarg",
        "a",
        "a",
        None,
        "none",
        origin=f"{_CALL} resolve_chat_template_content_format",
    ),
    WhyCase(
        "sglang25877_deepgemm_hc_sm120",
        "c",
        "a",
        None,
        "none",
        origin="DeepGEMM's kernels (the build inside the server or image): it has no kernel for this GPU",
    ),
    WhyCase(
        "sglangpr20700_undefined_tojson",
        "c",
        "c",
        "MsgpackEncoder.enc_hook",
        "weak",
        "vllm/v1/serial_utils.py:221",
        ("VLLM_ALLOW_INSECURE_SERIALIZATION",),
        "make the condition false (not envs.VLLM_ALLOW_INSECURE_SERIALIZATION)",
    ),
    WhyCase(
        "sglangpr27968_fp8moe_runner_attr",
        "c",
        "c",
        None,
        "none",
        origin="Python's interpreter: code read the attribute runner, which the Fp8MoEMethod object",
    ),
    WhyCase(
        "sparkvllm163_spec_config_value",
        "b",
        "a",
        "parse_type._parse_type",
        "strong",
        "vllm/engine/arg_utils.py:166",
        (),
        "the flag's value is read with json.loads, which refused '{method: mtp, num_speculative_tokens: 1}': "
        "its keys have no double quotes",
    ),
    WhyCase(
        "vastai283_moe_block_size_ep",
        "a",
        "a",
        "check_quantized_moe_compatibility",
        "strong",
        "sglang/srt/model_executor/model_runner_components/moe_ep_setup.py:172",
        ("ep_size", "tp_size", "SGLANG_SHARED_EXPERT_TP1"),
        "make the condition false (not envs.SGLANG_SHARED_EXPERT_TP1.get() and moe_intermediate_size",
    ),
    WhyCase(
        "verl705_captures_underway",
        "c",
        "a",
        None,
        "none",
        origin="PyTorch's internal assert (TORCH_INTERNAL_ASSERT)",
    ),
    WhyCase(
        "vllm22288_mxfp4_sm75_title",
        "d",
        "a",
        "VllmConfig._get_quantization_config",
        "strong",
        "vllm/config/vllm.py:931",
        ("quantization",),
        f"{_GPU} capability < quant_config.get_min_capability() is the GPU's or platform's: no launch "
        "setting changes it",
    ),
    WhyCase(
        "vllm30214_cutlass_mla_sparse_title",
        "c",
        "c",
        "AttentionBackend.validate_configuration",
        "weak",
        "vllm/v1/attention/backend.py:323",
        (),
        "make the condition false (use_sparse)",
    ),
    WhyCase(
        "vllm32732_regression_no_backend_title",
        "b",
        "b",
        "CudaPlatformBase.get_attn_backend_cls",
        "strong",
        "vllm/platforms/cuda.py:338",
        ("attention_backend",),
        "make the condition false (len(valid_backends_priorities) == 0): change --attention-backend",
    ),
    WhyCase(
        "vllm33418_context_length_message",
        "b",
        "a",
        "OpenAIServing._validate_input",
        "strong",
        "vllm/entrypoints/openai/engine/serving.py:751",
        ("max_model_len",),
        "make the condition false (token_num >= max_model_len): change --max-model-len; it is one request's "
        "check, not the launch's",
    ),
    WhyCase(
        "vllm38916_gdn_prefill_timeout_title",
        "d",
        "c",
        "GDNKernelDispatcher.__init__",
        "weak",
        "sglang/srt/layers/attention/linear/gdn_backend.py:329",
        # GDNKernelDispatcher's kernels are --linear-attn-backend's (was attention_backend: sgl27)
        ("linear_attn_backend",),
        "the condition not is_cuda() is the GPU's or platform's",
    ),
    WhyCase(
        "vllm47486_eagle_dirname",
        "b",
        "b",
        "_ModelRegistry._raise_for_unsupported",
        "weak",
        "vllm/model_executor/models/registry.py:1061",
        (),
        "no bundled vLLM release (0.6.3.post1-0.33.0) registers EagleQwen2ForCausalLM",
    ),
    WhyCase(
        "vllmpr31289_tp_exceeds_warning",
        "b",
        "b",
        "initialize_ray_cluster",
        "strong",
        "vllm/v1/executor/ray_utils.py:293",
        ("tensor_parallel_size", "pipeline_parallel_size", "prefill_context_parallel_size"),
        "make the condition false (parallel_config.world_size > available_gpus)",
    ),
    WhyCase("vllmpr44125_token_budget_assert", "c", "b", None, "none"),
    WhyCase("vllmpr57595_capture_oom_util098", "d", "a", None, "none"),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([8, 6, 8, 3], [16, 5, 4, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(("vllm: ", "sglang: ", "no framework raise or log site"))
    assert any(line.startswith(("  fix: ", "the text comes from ")) for line in screen)


# --- other programs' words ---------------------------------------------------------------------------------
def test_other_programs_words() -> None:
    def said(text: str) -> str:
        return (origin_of(text) or {}).get("origin", "")

    assert said("Value 'sm_121a' is not defined for option 'gpu-name'").startswith("Triton's compiler")
    deepgemm = (
        "RuntimeError: Assertion error (/workspace/.deps/deepgemm-src/csrc/apis/hyperconnection.hpp:56): "
        "Unsupported architecture",
        "tvm.error.InternalError: Assertion error (/deepgemm/csrc/apis/attention.hpp:211): Unsupported "
        "architecture",
    )
    assert all(said(t).startswith("DeepGEMM's kernels") for t in deepgemm)
    assert said(
        'RuntimeError: captures_underway.empty() INTERNAL ASSERT FAILED at "CUDACachingAllocator.cpp":2967'
    ).startswith("PyTorch's internal assert")
    # not: the words alone, another library's "Unsupported architecture", prose about an internal assert
    assert said("ValueError: Unsupported architecture: Qwen3ForCausalLM") == ""
    assert said("the gpu-name option of ptxas") == ""
    assert said("an internal assert failed somewhere") == ""


# --- Python's call TypeError retold -------------------------------------------------------------------------
def test_a_call_typeerror_as_a_title_retells_it() -> None:
    found = call_error("EngineArgs.__init__() got unexpected keyword 'worker_extension_cls'")
    assert found is not None and (found["callee"], found["argument"]) == (
        "EngineArgs.__init__",
        "worker_extension_cls",
    )
    assert found["fix"].startswith("install a vLLM release that has worker_extension_cls")
    # SGLang's own "got unexpected keyword argument(s)" names no argument in quotes: not Python's
    assert call_error("rank_consensus() got unexpected keyword argument(s): x, y") is None


# --- another letter case -----------------------------------------------------------------------------------
def test_words_in_another_case_are_retold() -> None:
    site = {"how": "partial", "message": "FlashInfer GDN backend requires CUDA"}
    assert case_differs("Qwen3.5 TimeoutError with flashinfer gdn backend", site) == (
        "flashinfer gdn backend",
        "FlashInfer GDN backend",
    )
    reasons = _why("vllm38916_gdn_prefill_timeout_title")["reasons"]
    assert reasons[-1] == (
        "the text writes the site's words 'FlashInfer GDN backend' as 'flashinfer gdn backend': retold, not "
        "printed"
    )
    # not: the site's own spelling, a full match, a run of one word
    assert case_differs("ValueError: FlashInfer GDN backend requires", site) is None
    assert case_differs("flashinfer gdn backend requires cuda", {**site, "how": "full"}) is None
    assert case_differs("the FLASHINFER engine", site) is None


# --- a token of a wrapped line, a short template whole ------------------------------------------------------
def test_one_token_is_not_a_cut_out_of_a_message() -> None:
    def functions(text: str) -> list[str]:
        return [m.site.function for m in match_text(text, "vllm") if m.how == "full"]

    assert "Worker.determine_available_memory" not in functions("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0")
    # words of the message still are: a cut-out with a space in it
    assert "Worker.determine_available_memory" in functions(
        "CUDA graph memory profiling is disabled (VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=0)"
    )


def test_torchs_accounting_alone_is_an_out_of_memory() -> None:
    # the paste starts after "CUDA out of memory.": torch's accounting of the device is its own wording
    assert [s["id"] for s in _why("vllmpr57595_capture_oom_util098")["signatures"]] == ["cuda-oom"]
    accounting = explain("GPU 0 has a total capacity of 79.10 GiB of which 2.00 MiB is free.")
    assert [s["id"] for s in accounting["signatures"]] == ["cuda-oom"]
    assert explain("the GPU has a total capacity of eighty gigabytes")["signatures"] == []


def test_a_short_template_whole_yields_to_a_longer_partial() -> None:
    first = match_text("The quantization method mxfp4 is not supported for the current GPU SM75", "vllm")[0]
    assert (first.site.function, first.how) == ("VllmConfig._get_quantization_config", "partial")
    # alone, the short template still comes first: nothing longer matches
    alone = match_text("AssertionError: method mean not supported", "vllm")[0]
    assert (alone.site.function, alone.how) == ("seq_cls_model_loader", "full")


def test_a_quantization_methods_minimum_capability_is_the_gpus() -> None:
    assert _on_device("capability < quant_config.get_min_capability()", [])
    assert _on_device("capability_tuple is not None", [])
    assert not _on_device("self.quantization != quant_method", [])


# --- an assert a sentence goes on after ---------------------------------------------------------------------
def test_an_assert_a_sentence_goes_on_after() -> None:
    assert quoted_condition(
        "[4] token_budget = -1 -> assert token_budget >= 0 FAILS (bare AssertionError)"
    ) == (
        "token_budget >= 0",
        None,
        None,
    )
    trace = _why("vllmpr44125_token_budget_assert")["traceback"]
    assert (trace["function"], trace["assert"]["condition"]) == ("Scheduler.schedule", "token_budget >= 0")
    # not: prose after "assert" that no head of makes a comparison
    assert quoted_condition("we assert the server failed to start today") is None


# --- JSON without its double quotes -------------------------------------------------------------------------
def test_a_json_value_whose_keys_have_no_quotes() -> None:
    meant = bare_keys_json("{method: mtp, num_speculative_tokens: 1, draft: true}")
    assert meant == '{"method": "mtp", "num_speculative_tokens": 1, "draft": true}'
    fix = _why("sparkvllm163_spec_config_value")["matches"][0]["fix"]
    assert '{"method": "mtp", "num_speculative_tokens": 1}' in fix
    # not: valid JSON, a key=value list, words that are not an object once quoted
    assert bare_keys_json('{"method": "mtp"}') is None
    assert bare_keys_json("method=mtp,n=1") is None
    assert bare_keys_json("{method mtp}") is None
    # check's own fix stands for what a script wrote (the shell ate the quotes; PA011: single quotes)
    assert json_value_fix("{method: ngram}") is None


# --- a request's own length check ---------------------------------------------------------------------------
def test_a_request_length_refusal_is_one_requests_check() -> None:
    note = request_length_note("This model's maximum context length is {max_model_len} tokens. However, ...")
    assert note.startswith("; it is one request's check, not the launch's")
    assert request_length_note(
        "The input ({n} tokens) is longer than the model's context length ({m} tokens)."
    )
    assert request_length_note("max_num_seqs ({n}) exceeds available Mamba cache blocks ({m}).") == ""
