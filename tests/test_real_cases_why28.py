"""`argtrace why` on a 26th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/real_cases_why28/, the first line of each file names the report, the release and
the cause its thread settled on), as a new user runs it, and the mechanisms they led to (docs/real_cases.md
"`why`, 26th batch (why28)"):

- an environment variable is one some release reads (the release index, generated from the packages): vLLM's
  ``CompilationMode.VLLM_COMPILE``, which a condition compares and a message names, is no variable
  (``sites._is_env``); a bare name a condition tests that the message names in words is the field of that name
  (``sites.named_locals``: ``cudagraph_mode``, --compilation-config);
- a traceback whose innermost frame is in a plugin named after a framework (``vllm_omni/``) comes from that
  plugin, and an innermost frame that quotes a ``raise`` in another function than the site's says the site is
  not the raiser (``why_confidence.plugin_package``, ``raising_frame``);
- a partial match whose site opens with literal words the text does not hold is another message
  (``why_confidence.head_missing``);
- a message saying its own state "should not happen" is the release's bug, not a setting's value
  (``why._BUG_SAID``);
- the exception line right after a frame of compiled code (a ``.pyx`` frame quotes no source line) is a
  message, not source (``messages.candidates``): cupy's NCCL error reaches the NCCL signature, whose fix now
  names NCCL_BUFFSIZE;
- a message asking to "check whether your <setting>" names that setting (``sites._ADVICE``);
- a directory transformers refuses whose name says a speculative draft comes from the draft's setting
  (``why_library._draft_settings``);
- other programs' words: the dynamic loader's "undefined symbol" (a compiled extension built against another
  torch), DeepGEMM's "(csrc/apis/*.hpp:N): Unsupported architecture" (``FOREIGN_WORDINGS``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_confidence import head_missing, origin_of, plugin_package, raising_frame
from argtrace.commands.why_library import library_settings
from argtrace.layers.log.messages import candidates
from argtrace.layers.log.sites import _is_env, named_locals, settings_of
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why28"


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


CASES = [
    WhyCase(
        "ascendsglang602_eagle3_model_type",
        "b",
        "a",
        "AutoConfig.from_pretrained",
        "strong",
        "transformers/models/auto/configuration_auto.py:450",
        ("speculative_draft_model_path", "speculative_config", "model_path", "model"),
        "transformers refused '/root/.cache/modelscope/hub/models/YZY/Qwen3-8B_eagle3', which comes",
    ),
    WhyCase(
        "flagos13_count_nonzero",
        "c",
        "c",
        "merge_features_for_dynamic_s2",
        "weak",
        "sglang/srt/models/nvila.py:328",
        (),
        "make the condition false (not (block_cnt == len(image_features)))",
    ),
    WhyCase(
        "flashinfer1796_page_544",
        "c",
        "c",
        None,
        "none",
    ),
    WhyCase(
        "llmcompressor1258_w4a16_v100",
        "a",
        "a",
        "CompressedTensorsConfig._check_scheme_supported",
        "strong",
        "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py:394",
        (),
        "the GPU's compute capability decides it (the site's conditions read it: capability_tuple i",
    ),
    WhyCase(
        "lmcache2845_hma_connector",
        "a",
        "a",
        "KVConnectorFactory.create_connector",
        "strong",
        "vllm/distributed/kv_transfer/kv_connector/factory.py:57",
        ("disable_hybrid_kv_cache_manager", "kv_transfer_config"),
        "make the condition false (hma_enabled and (not cls.supports_hma_config(kv_transfer_config)",
    ),
    WhyCase(
        "minimax42_nccl_shm",
        "a",
        "a",
        None,
        "none",
        origin="torch.distributed",
    ),
    WhyCase(
        "sglang14368_new_indices_topk",
        "b",
        "a",
        "EagleDraftInput.filter_batch",
        "strong",
        "sglang/srt/speculative/eagle_info.py:230",
        ("SGLANG_SPEC_ENABLE_STRICT_FILTER_CHECK",),
        "logged in EagleDraftInput.filter_batch on a state its own code says is impossible (its mes",
    ),
    WhyCase(
        "sglang22840_ascend_transfer_engine",
        "a",
        "a",
        "AscendTransferEngine.initialize",
        "strong",
        "sglang/srt/disaggregation/ascend/transfer_engine.py:84",
        ("ASCEND_MF_STORE_URL",),
        "make the condition false (ret_value != 0): change ASCEND_MF_STORE_URL",
    ),
    WhyCase(
        "sglang23657_deepgemm_sm120",
        "c",
        "a",
        None,
        "none",
        origin="DeepGEMM's kernels (the build inside the server or image): it has no k",
    ),
    WhyCase(
        "sglang32063_gdn_cutlass",
        "b",
        "b",
        "_get_flashinfer_gdn_kernels",
        "strong",
        "sglang/srt/layers/attention/linear/kernels/gdn_flashinfer.py:155",
        (),
        "this reports (ImportError, RuntimeError) raised by the code it wraps; the text after the m",
        origin="Python's import system: the installed package is broken or missing",
    ),
    WhyCase(
        "sglangpr23351_pcg_nsa_tensor_match",
        "a",
        "a",
        "enable_piecewise_cuda_graph",
        "strong",
        "sglang/srt/compilation/piecewise_context_manager.py:48",
        ("disable_piecewise_cuda_graph",),
        "this reports Exception raised by the code it wraps; the text after the message is the caus",
    ),
    WhyCase(
        "sglangpr27811_pcg_num_tokens",
        "a",
        "a",
        "enable_piecewise_cuda_graph",
        "strong",
        "sglang/srt/compilation/piecewise_context_manager.py:48",
        ("disable_piecewise_cuda_graph",),
        "this reports Exception raised by the code it wraps; the text after the message is the caus",
        origin="Python's interpreter: code read the attribute num_tokens, which the Tc",
    ),
    WhyCase(
        "sglangpr34334_dspark_tensor_split",
        "c",
        "c",
        None,
        "none",
        origin="Python's interpreter: code read the attribute tensor_split, which the ",
    ),
    WhyCase(
        "vllm19613_nccl_buffsize",
        "c",
        "a",
        None,
        "none",
        origin="cupy_backends.cuda.libs.nccl",
    ),
    WhyCase(
        "vllm22422_mxfp4_sm86",
        "a",
        "a",
        "_get_quantization_config",
        "strong",
        "vllm/model_executor/model_loader/loader.py:106",
        ("quantization",),
        "the condition capability < quant_config.get_min_capability() is the GPU's or platform's: n",
    ),
    WhyCase(
        "vllm35789_numa_autobind",
        "b",
        "b",
        "CPUWorker._get_autobind_cpu_ids",
        "strong",
        "vllm/v1/worker/cpu_worker.py:176",
        (
            "VLLM_CPU_SIM_MULTI_NUMA",
            "data_parallel_size",
            "data_parallel_size_local",
            "nnodes",
            "pipeline_parallel_size",
            "prefill_context_parallel_size",
            "tensor_parallel_size",
        ),
        "make the condition false (not (len(allowed_numa_nodes) >= local_world_size or sim_multi_nu",
    ),
    WhyCase(
        "vllm36771_lmcache_undefined_symbol",
        "c",
        "a",
        None,
        "none",
        origin="the dynamic loader: a compiled extension needs a symbol the libraries ",
    ),
    WhyCase(
        "vllm49379_reasoning_token_ids",
        "b",
        "a",
        "VllmConfig.__post_init__",
        "strong",
        "vllm/config/vllm.py:2212",
        ("reasoning_parser", "reasoning_config", "max_model_len"),
        "make the condition false (not self.reasoning_config.enabled): change --reasoning-parser, -",
    ),
    WhyCase(
        "vllmascend13346_cudagraph_full_mla",
        "b",
        "a",
        "CompilationConfig.resolve_cudagraph_mode_and_sizes",
        "strong",
        "vllm/config/compilation.py:1419",
        ("compilation_config",),
        "make the condition false (cudagraph_mode.mixed_mode() == CUDAGraphMode.FULL and min_cg_sup",
    ),
    WhyCase(
        "vllmomni2756_stage_configs",
        "d",
        "a",
        "StageMissingLayer.__call__",
        "weak",
        "vllm/model_executor/models/utils.py:770",
        (),
        "raised unconditionally in StageMissingLayer.__call__: avoid the call path that reaches it",
        origin="vllm_omni",
    ),
    WhyCase(
        "vllmpr32704_ptxas_sm121a",
        "a",
        "a",
        None,
        "none",
        origin="Triton's compiler: the ptxas its release bundles does not know this GP",
    ),
    WhyCase(
        "vllmpr32936_cudagraph_flashinfer_spec",
        "a",
        "a",
        "CompilationConfig.resolve_cudagraph_mode_and_sizes",
        "strong",
        "vllm/config/compilation.py:1466",
        ("attention_backend", "compilation_config"),
        "make the condition false (cudagraph_mode.decode_mode() == CUDAGraphMode.FULL and uniform_d",
    ),
    WhyCase(
        "vllmpr41363_block_size_8",
        "a",
        "a",
        "CudaPlatformBase.get_attn_backend_cls",
        "strong",
        "vllm/platforms/cuda.py:398",
        ("kv_cache_dtype", "block_size"),
        "make the condition false (len(valid_backends_priorities) == 0): change --kv-cache-dtype, -",
    ),
    WhyCase(
        "vllmpr46778_prefix_caching_kv",
        "b",
        "b",
        "_check_enough_kv_cache_memory",
        "strong",
        "vllm/v1/core/kv_cache_planning.py:77",
        ("max_model_len", "gpu_memory_utilization"),
        "make the condition false (estimated_max_len > 0): change --max-model-len, --gpu-memory-uti",
    ),
    WhyCase(
        "xgrammar427_npu_device",
        "d",
        "c",
        "Platform.device_control_id_to_physical_device_id",
        "weak",
        "vllm/platforms/interface.py:272",
        (),
        "this reports ValueError raised by the code it wraps; the text after the message is the cau",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([10, 7, 6, 2], [18, 3, 4, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_way_out_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        ("vllm: ", "sglang: ", "transformers: ", "no framework raise or log site", "the text comes from")
    )
    assert any(line.startswith(("  fix: ", "the text comes from ")) for line in screen)


# --- environment variables and the locals a message names -------------------------------------------------
def test_an_environment_variable_is_one_a_release_reads() -> None:
    assert _is_env("vllm", "VLLM_USE_V1") and _is_env("sglang", "SGLANG_SPEC_ENABLE_STRICT_FILTER_CHECK")
    # not: an enum member spelled like one, a name not spelled like one
    assert not _is_env("vllm", "VLLM_COMPILE")
    assert not _is_env("vllm", "CUDA_VISIBLE_DEVICES")
    message = "make sure compilation mode is VLLM_COMPILE"
    assert settings_of("vllm", "0.33.0", ["CompilationMode.VLLM_COMPILE"], message) == []


def test_a_local_the_message_names_is_the_field_of_that_name() -> None:
    message = (
        "CUDAGraphMode.{cudagraph_mode.name} is not supported with {min_cg_attn_backend} backend (support: "
        "{min_cg_support}); setting cudagraph_mode=PIECEWISE"
    )
    conditions = ["cudagraph_mode.mixed_mode() == CUDAGraphMode.FULL and min_cg_support != X.ALWAYS"]
    assert named_locals(conditions, message, ["min_cg_support.value"]) == ["self.cudagraph_mode"]
    # not: a name only a placeholder prints, a name already read, a method called on an object
    assert named_locals(conditions, message, ["self.cudagraph_mode"]) == []
    assert named_locals(["self.cache.cudagraph_mode > 1"], message, []) == []
    function = "CompilationConfig.resolve_cudagraph_mode_and_sizes"
    assert settings_of("vllm", "0.33.0", ["self.cudagraph_mode"], message, "", function) == [
        {
            "name": "compilation_config",
            "flag": "--compilation-config",
            "fields": ["cudagraph_mode"],
            "via": "self.cudagraph_mode",
            "named_in_message": True,
        }
    ]


# --- whose code raised -------------------------------------------------------------------------------------
def test_a_frame_in_a_framework_plugin_and_a_frame_that_raises() -> None:
    text = quoted_text(DATA / "vllmomni2756_stage_configs.txt")
    assert plugin_package(text) == "vllm_omni"
    assert origin_of(text) == {
        "origin": "vllm_omni",
        "basis": "frames",
        "evidence": "innermost frame in vllm_omni/",
    }
    site = {"kind": "raise", "function": "StageMissingLayer.__call__"}
    assert raising_frame(text, site) == "create_model_config (engine/arg_utils.py)"
    # not: a checkout of SGLang itself, the site's own function, a log site, a frame quoting no raise
    checkout = 'File "/data/sglang_main/python/sglang/srt/x.py", line 3, in f\n' + "    raise ValueError(a)"
    assert plugin_package(checkout) is None
    assert raising_frame(text, {"kind": "raise", "function": "EngineArgs.create_model_config"}) is None
    assert raising_frame(text, {"kind": "log", "function": "f"}) is None
    called = 'File "/w/x.py", line 3, in f\n    g(a)\nValueError: a'
    assert raising_frame(called, site) is None


def test_a_site_whose_opening_the_text_lacks_is_another_message() -> None:
    site = {"how": "partial", "message": "Non-integer device ID {device_id} is not supported by {x}."}
    assert head_missing("Device is not supported: 'npu'", site) == "Non-integer device ID"
    assert _why("xgrammar427_npu_device")["reasons"][-1] == (
        "the site's message opens with 'Non-integer device ID', which the text does not hold"
    )
    # not: a copy cut short (it keeps the opening), a full match, a message opening with a placeholder
    assert head_missing("Non-integer device ID cuda:x is not", site) is None
    assert head_missing("Device is not supported", {**site, "how": "full"}) is None
    assert head_missing("x is not supported", {"how": "partial", "message": "{a} is not supported"}) is None


# --- a state the code says is impossible -------------------------------------------------------------------
def test_a_message_saying_it_should_not_happen_is_the_releases_bug() -> None:
    first = _why("sglang14368_new_indices_topk")["matches"][0]
    assert first["fix"] == (
        "logged in EagleDraftInput.filter_batch on a state its own code says is impossible (its message: "
        "'should not happen'): a bug of the release, not a setting's value: a release with the fix, or its "
        "issue tracker; SGLANG_SPEC_ENABLE_STRICT_FILTER_CHECK only decides whether the check runs or how it "
        "reports"
    )
    # not: a message without those words keeps its condition and settings
    first = _why("sglang22840_ascend_transfer_engine")["matches"][0]
    assert first["fix"] == "make the condition false (ret_value != 0): change ASCEND_MF_STORE_URL"


# --- an exception line after a frame of compiled code -------------------------------------------------------
def test_the_exception_line_after_a_compiled_frame_is_a_message() -> None:
    text = (
        'File "cupy_backends/cuda/libs/nccl.pyx", line 129, in cupy_backends.cuda.libs.nccl.check_status\n'
        "cupy_backends.cuda.libs.nccl.NcclError: NCCL_ERROR_SYSTEM_ERROR: unhandled system error"
    )
    assert candidates(text) == ["NCCL_ERROR_SYSTEM_ERROR: unhandled system error"]
    signature = _why("vllm19613_nccl_buffsize")["signatures"][0]
    assert signature["id"] == "nccl-error"
    assert signature["fix"].endswith("CUDA_VISIBLE_DEVICES; unset NCCL_BUFFSIZE")
    # not: a frame's source line, which stays out
    assert candidates('File "/w/x.py", line 3, in f\n    g(a)\nValueError: bad value') == ["bad value"]


# --- a message asking to check a setting; a draft's directory -----------------------------------------------
def test_a_message_asking_to_check_a_setting_names_it() -> None:
    message = "Please check whether your reasoning parser has implemented the `reasoning_start_str`."
    assert [s["flag"] for s in settings_of("vllm", "0.33.0", [], message)] == ["--reasoning-parser"]


def test_a_draft_directory_transformers_refuses_comes_from_the_drafts_setting() -> None:
    parts = ["Unrecognized model in ", ["pretrained_model_name_or_path"], ". Should have a `model_type` key"]
    text = "ValueError: Unrecognized model in /m/Qwen3-8B_eagle3. Should have a `model_type` key in it"
    settings, _ = library_settings("transformers", parts, text, "sglang")
    assert [s["flag"] for s in settings] == ["--speculative-draft-model-path", "--model-path"]
    assert settings[0]["how"].startswith("its name (Qwen3-8B_eagle3) says a speculative draft's directory")
    # not: a model directory of another name
    settings, _ = library_settings("transformers", parts, text.replace("_eagle3", ""), "sglang")
    assert [s["flag"] for s in settings] == ["--model-path"]


# --- other programs' words ----------------------------------------------------------------------------------
def test_other_programs_words() -> None:
    def said(text: str) -> str:
        return (origin_of(text) or {}).get("origin", "")

    assert said("ImportError: /x/lmcache/c_ops.so: undefined symbol: _ZN3c104cuda29c10_cuda").startswith(
        "the dynamic loader: a compiled extension needs a symbol the libraries it loads against lack"
    )
    assert said(
        "RuntimeError: Assertion error (csrc/apis/attention.hpp:211): Unsupported architecture"
    ).startswith("DeepGEMM's kernels")
    # not: prose about symbols, an arch refusal from no C++ source
    assert said("the symbol table is undefined here") == ""
    assert said("Unsupported architecture: gfx90a") == ""
