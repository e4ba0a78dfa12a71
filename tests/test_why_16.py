"""`argtrace why` on a 16th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/why_16/, the first line of each file names the report, the release and the fix
its thread settled on, or that none settled), as a new user runs it, and the mechanisms they led to
(docs/real_cases.md "`why`, 16th batch", docs/why.md "pydantic's ValidationError" and "Tracebacks without
a message"):

- pydantic's ValidationError on a vLLM config class (``1 validation error for LoRAConfig / max_lora_rank /
  Input should be 1, 8, ...``): the class and field are a parser option's group and dest in the bundled
  schemas, so the field is tied to its flag, and pydantic's rule with the refused value gives the fix;
- a traceback that ends without a message (cut before its exception line, or a bare ``AssertionError``):
  its deepest SGLang/vLLM frame names where it failed, a bare assert's source line the condition that was
  false and the server arguments it reads;
- a site that logs the exception its handler caught ("EngineCore failed to start.") or wraps a bare
  AssertionError ("Worker failed with error 'AssertionError: '") only reports it: its own condition is no
  fix; a traceback's header is no cause; such a report goes after a site the text holds whole;
- a setting's value the text shows empty did not come from the command line;
- argparse's refusal by a ``python -m`` child that a launcher tags (``[smg] __main__.py: error: ...``) is that
  program's parser, not SGLang's or vLLM's.

Each case asserts the first site (function and file:line), the confidence, the settings, the start of the
fix, the origin, the flag of a validation error and the frame of a traceback; the cases ``why`` still does
not explain are strict ``xfail`` tests naming the missing mechanism.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import render_why
from argtrace.commands.why_pydantic import field_errors, validation_error
from argtrace.commands.why_traceback import consequences_last, explain_traceback
from argtrace.commands.why_unrecognized import origin_of_parser
from argtrace.commands.why_value import _empty_holes
from tests.batches import WhyCase, assert_why_gives, batch_grades, recorded_why
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why_16"


def _text(name: str) -> str:
    return quoted_text(DATA / f"{name}.txt")


def _why(name: str) -> dict[str, Any]:
    return recorded_why(DATA / f"{name}.txt")


_REPORTS = "this reports Exception raised by the code it wraps"
_BARE_WORKER = "this only reports another error: a bare AssertionError (raised without a message"

CASES = [
    WhyCase(
        "glmv204_mm_budget_traceback_cut",
        "c",
        "c",
        None,
        "none",
        frame=("cut", "vllm/multimodal/registry.py", "get_max_tokens_per_item_by_nonzero_modality"),
    ),
    WhyCase(
        "inferencex1570_scheduler_cut",
        "d",
        "c",
        "run_scheduler_process",
        "strong",
        "sglang/srt/managers/scheduler.py:6372",
        fix="this reports Exception raised by the code it wraps; the text after the message is the cause",
        frame=("cut", "sglang/srt/managers/tp_worker.py", "__init__"),
    ),
    WhyCase(
        "lmcache1436_hma_disabled",
        "b",
        "b",
        "unify_hybrid_kv_cache_specs",
        "strong",
        "vllm/v1/core/kv_cache_planning.py:870",
        fix="logged unconditionally in unify_hybrid_kv_cache_specs",
        frame=("cut", "vllm/tracing/otel.py", "sync_wrapper"),
    ),
    WhyCase(
        "lmcache2306_vllm_instance_not_found",
        "b",
        "b",
        "gen_sgl_trtllm_gen_fused_moe_sm100_module",
        "weak",
        "sglang/kernels/ops/lora/moe/trtllm_lora_temp/jit.py:47",
    ),
    WhyCase(
        "minimaxm1_21_cannot_find_model_module",
        "b",
        "b",
        "_ModelRegistry._try_resolve_transformers",
        "strong",
        "vllm/model_executor/models/registry.py:1317",
        ("code_revision", "model", "revision", "trust_remote_code"),
    ),
    WhyCase(
        "modelopt261_unknown_quant_wrapped",
        "d",
        "b",
        "ModelConfig._verify_quantization",
        "strong",
        "vllm/config/model.py:1466",
        ("quantization_config", "quantization"),
    ),
    WhyCase(
        "sglang25017_mlx_no_attention_title",
        "b",
        "b",
        "find_attention_layers",
        "strong",
        "sglang/srt/hardware_backend/mlx/kv_cache/model_patching.py:40",
    ),
    WhyCase(
        "sglang26754_dsv4_state_pools_title",
        "b",
        "b",
        "DeepSeekV4StateHostPool.__init__",
        "strong",
        "sglang/srt/mem_cache/memory_pool_host.py:785",
    ),
    WhyCase(
        "sglang31600_hicache_element_size",
        "b",
        "b",
        "can_use_hicache_jit_kernel",
        "strong",
        "sglang/kernels/ops/kvcache/hicache.py:163",
    ),
    # the quoted statement is in the assert index since s17-asserts (EPMoE's check; self.tp_size only spelled
    # like --tp-size): the right site, no correct change (the thread: a main-branch regression)
    WhyCase(
        "sglang6913_num_experts_tp_title",
        "c",
        "b",
        None,
        "none",
        frame=("quoted", "sglang/srt/layers/moe/ep_moe/layer.py", "EPMoE.__init__"),
    ),
    WhyCase(
        "sglang9140_trtllm_mha_sm120",
        "a",
        "a",
        "ServerArgs._handle_attention_backend_compatibility",
        "strong",
        "sglang/srt/server_args.py:1900",
        ("attention_backend", "decode_attention_backend", "prefill_attention_backend"),
        "make the condition false (not is_sm100_supported()): change --attention-backend",
    ),
    WhyCase(
        "sglangpr40426_deepep_v2_not_validated",
        "b",
        "b",
        "validate_deepep_v2_model_architecture",
        "strong",
        "sglang/srt/arg_groups/moe_hook.py:726",
    ),
    WhyCase(
        "tokenspeed163_smg_reasoning_parser",
        "b",
        "a",
        None,
        "none",
        origin="smg's own argument parser: smg is no SGLang or vLLM program",
    ),
    WhyCase(
        "vllm22193_mla_head_size_title",
        "b",
        "b",
        "RocmAttentionBackend.validate_head_size",
        "strong",
        "vllm/v1/attention/backends/rocm_attn.py:165",
        ("VLLM_ATTENTION_BACKEND",),
    ),
    WhyCase(
        "vllm24888_specconfig_get",
        "b",
        "b",
        None,
        "none",
        origin="Python's interpreter: code read the attribute get",
    ),
    WhyCase(
        "vllm26028_placement_group_title",
        "b",
        "a",  # s20-vllm20: world_size is ParallelConfig's product of the parallel sizes (vllm_config_fields)
        "initialize_ray_cluster",
        "strong",
        "vllm/v1/executor/ray_utils.py:239",
        ("pipeline_parallel_size", "tensor_parallel_size"),
    ),
    WhyCase(
        "vllm34028_unknown_quantization_title",
        "b",
        "b",
        "_remap_mistral_quantization_args",
        "strong",
        "vllm/transformers_utils/configs/mistral.py:221",
    ),
    WhyCase(
        "vllm34403_deepseek_vl2_cut",
        "d",
        "c",
        "EngineCoreProc.run_engine_core",
        "strong",
        "vllm/v1/engine/core.py:1584",
        fix=_REPORTS,
        frame=("cut", "vllm/v1/engine/core.py", "__init__"),
    ),
    WhyCase(
        "vllm41027_worker_assertion_empty",
        "d",
        "c",
        "MultiprocExecutor.collective_rpc.get_response",
        "strong",
        "vllm/v1/executor/multiproc_executor.py:525",
        ("enable_fault_tolerance",),
        _BARE_WORKER,
    ),
    WhyCase(
        "vllm42911_hybrid_kv_unify",
        "b",
        "b",
        "unify_hybrid_kv_cache_specs",
        "strong",
        "vllm/v1/core/kv_cache_utils.py:1519",
    ),
    WhyCase(
        "vllm43626_page_size_bytes_assert",
        "c",
        "b",
        None,
        "none",
        frame=("bare", "vllm/v1/core/kv_cache_utils.py", "unify_kv_cache_spec_page_size"),
    ),
    WhyCase(
        "vllmascend8525_backend_not_supported",
        "b",
        "b",
        "create_whisper_attention_backend_with_block_pooling",
        "strong",
        "vllm/model_executor/models/whisper_causal.py:322",
    ),
    WhyCase(
        "vllmomni1397_max_lora_rank_literal",
        "c",
        "a",
        None,
        "none",
        origin="pydantic_core._pydantic_core",
        flag="--max-lora-rank",
    ),
    WhyCase(
        "vllmpr44233_num_gpu_blocks_greater_than",
        "c",
        "a",
        None,
        "none",
        flag="--num-gpu-blocks-override",
    ),
    WhyCase(
        "vllmpr47635_page_size_padded",
        "c",
        "b",
        None,
        "none",
        frame=("bare", "vllm/v1/kv_cache_interface.py", "page_size_bytes"),
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    # W16-10 c -> b (s17-asserts); W16-16 b -> a (s20-vllm20)
    assert batch_grades(CASES) == ([1, 14, 6, 4], [5, 16, 4, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case, flag_from="validation", frame=True)


# --- pydantic's ValidationError on a config class ------------------------------------------------------
def test_a_literal_field_error_gives_the_flag_and_the_smallest_allowed_value() -> None:
    section = _why("vllmomni1397_max_lora_rank_literal")
    found = section["validation"]
    assert (found["class"], found["field"], found["type"], found["value"]) == (
        "LoRAConfig",
        "max_lora_rank",
        "literal_error",
        "48",
    )
    assert found["meaning"] == (
        "pydantic's ValidationError: LoRAConfig.max_lora_rank refused 48 (Input should be 1, 8, 16, 32, "
        "64, 128, 256, 320 or 512, type literal_error); vLLM 0.8.5.post1-0.33.0 set LoRAConfig.max_lora_rank "
        "from --max-lora-rank"
    )
    assert found["fix"] == (
        "set --max-lora-rank to one of 1, 8, 16, 32, 64, 128, 256, 320, 512 (it was 48); the smallest that "
        "holds 48 is 64"
    )
    view = render_why(section).splitlines()
    assert view[2].startswith("pydantic: pydantic's ValidationError: LoRAConfig.max_lora_rank refused 48")


def test_a_bound_field_error_and_a_site_sharing_its_words_is_dropped() -> None:
    # vllm PR#44233: before, a LoRA id check ("should be greater than 0") was the weak first candidate
    section = _why("vllmpr44233_num_gpu_blocks_greater_than")
    assert section["matches"] == []
    assert section["validation"]["fix"] == (
        "give --num-gpu-blocks-override a value that is greater than 0 (it was 0), or leave "
        "--num-gpu-blocks-override unset for its default"
    )


def test_field_errors_of_other_classes_and_model_level_errors() -> None:
    # not reports: a scheduler bound (vLLM's), another program's class, and a model validator's own message
    mine = validation_error(
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for SchedulerConfig\n"
        "max_num_seqs\n  Input should be greater than 0 [type=greater_than, input_value=-1, input_type=int]"
    )
    assert mine is not None and (mine["flag"], mine["value"]) == ("--max-num-seqs", "-1")
    other = validation_error(
        "ValidationError: 1 validation error for TorchLlmArgs\ncache_transceiver_config.backend\n"
        "  Input should be 'DEFAULT', 'UCX', 'NIXL' or 'MPI' [type=literal_error, input_value='default', "
        "input_type=str]"
    )
    assert other is not None and "flag" not in other and other["value"] == "default"
    assert other["meaning"].endswith(
        "no bundled SGLang or vLLM release's parser has an option for "
        "TorchLlmArgs.cache_transceiver_config.backend: not a flag of theirs (another program's class, or a "
        "value its code or a file sets)"
    )
    model_level = (
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
        "  Value error, Expecting value: line 1 column 1 (char 0) [type=value_error, input_value=ArgsKwargs"
    )
    assert field_errors(model_level) == []


# --- tracebacks that end without a message --------------------------------------------------------------
def test_a_bare_assert_names_its_condition_and_the_server_arguments_it_reads() -> None:
    # not a report: an SGLang frame whose bare assert reads self.tp_size, a ServerArgs field
    found = explain_traceback(
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/moe/ep_moe/layer.py", line 120, '
        "in __init__\n    assert self.num_experts % self.tp_size == 0\nAssertionError"
    )
    assert found is not None
    # since s17-asserts the assert index has EPMoE's assert (line 120 is in no indexed release: found by its
    # statement); self.tp_size is EPMoE's own attribute, only spelled like --tp-size
    assert (found["state"], found["file"], found["line"], found["settings"]) == (
        "bare",
        "sglang/srt/layers/moe/ep_moe/layer.py",
        120,
        [{"name": "self.tp_size", "flag": "--tp-size", "how": "named"}],
    )
    assert found["fix"] == (
        "change what makes `self.num_experts % self.tp_size == 0` false: its operand self.tp_size (named "
        "like --tp-size)"
    )
    assert found["assert"]["releases"] == "0.4.1.post7-0.4.7.post1"


def test_a_bare_assert_of_the_codes_own_values_names_no_setting() -> None:
    section = _why("vllm43626_page_size_bytes_assert")
    # since s17-asserts: the assert index places line 1042 in 0.21.0 and gives the condition around it
    assert section["traceback"]["meaning"] == (
        "a bare AssertionError (an assert without a message) raised in vLLM's unify_kv_cache_spec_page_size "
        "(vllm/v1/core/kv_cache_utils.py:1042; 0.21.0): `new_spec.page_size_bytes == max_page_size` was "
        "false, under `not (layer_spec.page_size_bytes == max_page_size)` (the traceback's last vLLM frame, "
        "matched by its line and statement)"
    )
    assert section["traceback"]["settings"] == []
    assert render_why(section).splitlines()[1].startswith("traceback: a bare AssertionError")


def test_a_traceback_with_an_error_message_is_the_indexs() -> None:
    text = (
        '  File "/x/site-packages/vllm/config/model.py", line 1466, in _verify_quantization\n'
        "ValueError: Unknown quantization method: foo. Must be one of ['fp8']."
    )
    assert explain_traceback(text) is None


def test_a_failure_report_gets_the_frame_it_reports() -> None:
    first = _why("vllm34403_deepseek_vl2_cut")["matches"][0]
    assert first["fix"] == (
        "this reports Exception raised by the code it wraps, with its traceback: the exception at the end of "
        "that traceback is the cause (fix that); the traceback it reports: the pasted traceback stops before "
        "its exception line; its last frame is vLLM's vllm/v1/engine/core.py, in __init__ (line 105 of the "
        "release that ran): `self.model_executor = executor_class(vllm_config)`: the error was raised there "
        "or in what it called"
    )


def test_a_traceback_header_is_not_the_cause() -> None:
    fix = _why("inferencex1570_scheduler_cut")["matches"][0]["fix"]
    assert "the cause: 'Traceback" not in fix


def test_a_report_goes_after_a_cause_the_text_holds_whole() -> None:
    report = {"message": "EngineCore failed to start.", "kind": "log", "level": "exception"}
    report["conditions"] = ["except Exception", "engine_core is None"]
    twin = {"message": "EngineCore failed to start.", "kind": "raise", "conditions": [], "how": "full"}
    cause = {"message": "Hybrid KV cache manager is disabled ...", "kind": "log", "level": "warning"}
    cause.update(conditions=[], how="full", specificity=198)
    assert consequences_last([report, twin, cause]) == [cause, report, twin]
    assert consequences_last([report, {**cause, "specificity": 12}])[0] is report  # a few words: no cause


def test_a_launchers_tag_names_the_program_whose_parser_refused() -> None:
    section = _why("tokenspeed163_smg_reasoning_parser")
    assert section["origin"]["evidence"].startswith(
        "[smg] __main__.py: error: argument --reasoning-parser: invalid choice: 'kimi_k2'"
    )
    # not a report: a `python -m sglang.launch_server` child tagged by its framework's own name stays SGLang's
    assert origin_of_parser("[sglang] __main__.py: error: argument --dtype: invalid choice: 'fp9'") is None


def test_an_empty_value_is_not_the_command_lines() -> None:
    template = "Unknown quantization method: {self.quantization}. Must be one of {supported_quantization}."
    assert _empty_holes(template, "Unknown quantization method: . Must be one of ['awq']") == [
        "self.quantization"
    ]
    assert _empty_holes(template, "Unknown quantization method: foo. Must be one of ['awq']") == []
    first = _why("modelopt261_unknown_quant_wrapped")["matches"][0]
    assert first["empty_value"] == "--quantization"
    assert first["fix"].endswith(
        "the refused value is empty: a command line rarely gives --quantization nothing, so when the launch "
        "did not pass --quantization the value came from where vllm fills it otherwise (the model's files or "
        "a default): check that source (for a checkpoint, its config.json and the files its export wrote)"
    )


# --- what class a would need, for the cases not there (strict xfail: each names the missing mechanism) ----
MISSING = [
    (
        "vllm42911_hybrid_kv_unify",
        lambda s, first: any(x["name"] == "disable_hybrid_kv_cache_manager" for x in first["settings"]),
        "the message says the hybrid KV cache manager is disabled, which --kv-transfer-config (a connector "
        "without hybrid support) or --disable-hybrid-kv-cache-manager decides; the caller's condition is not "
        "traced into the raising function",
    ),
    (
        "minimaxm1_21_cannot_find_model_module",
        lambda s, first: "release" in first["fix"],
        "which vLLM releases register an architecture is not generated: the fix (a release that has "
        "MiniMaxM1ForCausalLM) cannot be said",
    ),
    (
        "vllm24888_specconfig_get",
        lambda s, first: "--speculative-config" in str(s.get("origin")),
        "SpeculativeConfig is the type --speculative-config parses into (the schema's help names it); the "
        "class is not tied to its flag",
    ),
]


@pytest.mark.parametrize("name,holds,mechanism", MISSING, ids=[m[0] for m in MISSING])
def test_what_class_a_would_need(name: str, holds: object, mechanism: str) -> None:
    section = _why(name)
    first = (section["matches"] or [None])[0]
    assert callable(holds)
    if not holds(section, first):
        pytest.xfail(mechanism)
    raise AssertionError(f"now holds, move {name} to class a: {mechanism}")
