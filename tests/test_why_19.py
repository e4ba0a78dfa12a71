"""`argtrace why` on a 19th batch of 25 error texts from public reports of 2025-2026 it was never tuned on
(texts and URLs in tests/data/why_19/, the first line of each file names the report, the release and the fix
its thread settled on, or that none settled), as a new user runs it (``--framework-version`` only where the
reporter named the release), and the mechanisms they led to (docs/real_cases.md "`why`, 19th batch"):

- Python's ModuleNotFoundError on a module of SGLang or vLLM: the message index's files per release say
  which releases have the module (``why_module``);
- a wrapper's quoted inner error followed by the reporter's own words is the quoted part; a wrapper matched on
  fewer than 20 literal characters names no reporter (``why_wrapped``);
- a site that prints the words the text's message opens with comes before one that does not (``why_context``);
- a quantization scheme check on the GPU's compute capability names no flag (``why_quant``);
- a handler of a failed import or package lookup, and an unconditional raise whose message says how to install
  or update, give that as the fix (``why_fixes``, ``why``);
- a reason needs a word start and a value for each placeholder (``why_fixes.in_one_line``);
- curly or missing quotes in Python's AttributeError (``why_attribute``);
- the registry's "Model architectures [...] are not supported" with the releases that register them, from the
  model class tables (``why_arch``);
- Python's TypeError on a ``None`` operand, with the flags the text names that are unset by default
  (``why_none``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_attribute import origin_of_attribute
from argtrace.commands.why_fixes import in_one_line
from argtrace.commands.why_wrapped import quoted
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why_19"

# the releases the reporters named (``--framework-version``); the others ran without it
VERSION = {
    "vllm36640_keyerror_linear_attn_title": "0.17.0rc1.dev168+gdc6b57846",
    "sglang7845_no_processor_title": "0.4.6.post1",
    "graniteswitch122_full_attention_keyerror": "0.20.2",
    "vllm18450_qwen2_5_omni_keyerror_title": "0.8.5",
    "nemorl4080_openai_engine_module": "0.29.0",
    "vllm34607_eagleproposer_positions": "0.15.1",
    "vllmpr51960_moe_backend_unquantized_draft": "0.25.1",
    "trlpr6569_minimax_triton_import": "0.26.0",
    "kubeai533_input_scale": "0.8.3",
    "vllm15625_decilm_kv_heads": "0.7.3",
    "vllm41849_deepgemm_warmup_cut": "0.20.1",
}


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"), None, VERSION.get(name))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


_INSTALL = "raised unconditionally in _missing: its message says 'Please install o"
_LOOKUP = "assert_pkg_version raises this when its import or package lookup fails"

CASES = [
    WhyCase("deepgemmpr324_unknown_recipe", "c", "c", None, "none"),
    WhyCase(
        "flashinfer794_sglang_flashinfer_missing",
        "b",
        "b",
        "assert_pkg_version",
        "strong",
        "sglang/srt/utils/common.py:2434",
        (),
        _LOOKUP,
        origin="importlib.metadata",
    ),
    WhyCase("graniteswitch122_full_attention_keyerror", "c", "c", None, "none"),
    WhyCase(
        "kubeai533_input_scale",
        "b",
        "b",
        "MLACommonImpl.process_weights_after_loading.get_layer_weight",
        "weak",
        "vllm/v1/attention/backends/mla/common.py:719",
        ("attention_backend",),
        "raised unconditionally in MLACommonImpl.process_weights_after_loading.",
        origin="torch",
    ),
    WhyCase(
        "nemorl4080_openai_engine_module",
        "c",
        "a",
        None,
        "none",
        origin="Python's import system: the code imports a module the installed release lacks",
    ),
    WhyCase(
        "recipespr183_deepgemm_missing_worker",
        "b",
        "a",
        "_missing",
        "strong",
        "vllm/utils/deep_gemm.py:122",
        (),
        _INSTALL,
    ),
    WhyCase(
        "sglang6160_flashinfer_min_version_title",
        "b",
        "a",
        "assert_pkg_version",
        "strong",
        "sglang/srt/utils/common.py:2434",
        (),
        _LOOKUP,
    ),
    WhyCase(
        "sglang7845_no_processor_title",
        "b",
        "b",
        "get_mm_processor",
        "strong",
        "sglang/srt/managers/multimodal_processor.py:61",
        (),
        "raised unconditionally in get_mm_processor: avoid the call path that reaches it",
    ),
    WhyCase(
        "sglangpr34361_eagle_topk_none",
        "c",
        "a",
        None,
        "none",
        origin="Python's interpreter: an operation on None",
    ),
    WhyCase(
        "sm89fork90_flashmla_c_unavailable",
        "b",
        "b",
        "_is_flashmla_available",
        "strong",
        "vllm/v1/attention/ops/flashmla.py:35",
        (),
        "the condition not _flashmla_C_AVAILABLE is the environment's",
    ),
    WhyCase(
        "sparkvllm364_dflash2_arch_title",
        "b",
        "a",
        "_ModelRegistry._raise_for_unsupported",
        "strong",
        "vllm/model_executor/models/registry.py:1249",
        (),
        "DFlash2DraftModel is registered in vLLM 0.28.0-0.33.0 (the model class tables)",
    ),
    WhyCase(
        "trlpr6569_minimax_triton_import",
        "b",
        "b",
        None,
        "none",
        origin="Python's interpreter: code read the attribute start, which the NoneType object",
    ),
    WhyCase(
        "vllm14040_scheme_capability_title",
        "d",
        "a",
        "CompressedTensorsConfig._check_scheme_supported",
        "strong",
        "vllm/model_executor/layers/quantization/compressed_tensors/compressed_tensors.py:394",
        (),
        "the GPU's compute capability decides it",
    ),
    WhyCase(
        "vllm15625_decilm_kv_heads",
        "c",
        "b",
        None,
        "none",
        origin="Python's interpreter: code read the attribute num_key_value_heads_per_layer, which the "
        "DeciLMConfig object does not have",
    ),
    WhyCase("vllm18450_qwen2_5_omni_keyerror_title", "c", "c", None, "none"),
    WhyCase(
        "vllm24967_eagleqwen2_arch_title",
        "b",
        "a",
        "_ModelRegistry._raise_for_unsupported",
        "strong",
        "vllm/model_executor/models/registry.py:1249",
        (),
        "no bundled vLLM release (0.6.3.post1-0.33.0) registers EagleQwen2ForCausalLM",
    ),
    WhyCase(
        "vllm25653_moe_bnb_title",
        "d",
        "b",
        "BitsAndBytesModelLoader._initialize_loader_state",
        "strong",
        "vllm/model_executor/model_loader/bitsandbytes_loader.py:571",
        (),
        "make the condition false (not self.expert_params_mapping)",
    ),
    WhyCase(
        "vllm29943_worker_deepgemm_title",
        "d",
        "a",
        "_missing",
        "strong",
        "vllm/utils/deep_gemm.py:122",
        (),
        _INSTALL,
    ),
    WhyCase(
        "vllm34607_eagleproposer_positions",
        "b",
        "b",
        None,
        "none",
        origin="Python's interpreter: code read the attribute positions, which the EagleProposer object",
    ),
    # mixed35: a raise of another built-in class (a partial match) is no longer offered for a KeyError
    WhyCase("vllm36640_keyerror_linear_attn_title", "c", "c", None, "none"),
    WhyCase(
        "vllm41849_deepgemm_warmup_cut",
        "c",
        "c",
        "EngineCoreProc.run_engine_core",
        "strong",
        "vllm/v1/engine/core.py:1136",
        (),
        "this reports Exception raised by the code it wraps, with its traceback",
    ),
    WhyCase(
        "vllm45661_nvfp4_moe_backend_title",
        "b",
        "b",
        "select_nvfp4_moe_backend",
        "strong",
        "vllm/model_executor/layers/fused_moe/oracle/nvfp4.py:319",
        ("moe_backend",),
        "raised unconditionally in select_nvfp4_moe_backend: change --moe-backend",
    ),
    WhyCase(
        "vllm48406_fp8_ds_mla_no_backend",
        "a",
        "a",
        "CudaPlatformBase.get_attn_backend_cls",
        "strong",
        "vllm/platforms/cuda.py:472",
        ("attention_backend",),
        "AttentionBackend.validate_configuration gives the reason 'non-causal attention not supported'",
    ),
    WhyCase(
        "vllm54059_glm53_flash_sm89",
        "a",
        "a",
        "is_flashmla_sparse_supported",
        "strong",
        "vllm/v1/attention/ops/flashmla.py:70",
        (),
        "the condition not (current_platform.is_device_capability_family(90) or",
    ),
    WhyCase(
        "vllmpr51960_moe_backend_unquantized_draft",
        "b",
        "b",
        "map_unquantized_backend",
        "strong",
        "vllm/model_executor/layers/fused_moe/oracle/unquantized.py:159",
        ("moe_backend",),
        "raised unconditionally in map_unquantized_backend: change --moe-backend",
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([2, 12, 8, 3], [10, 10, 5, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_fix_on_the_first_screen(case: WhyCase) -> None:
    # the first 24 lines at 80 columns (under the report's "argtrace why" header): the cause first (the site,
    # or what Python's own words mean), its fix within them
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(("vllm: ", "sglang: ", "no framework raise or log site matches"))
    assert any(line.startswith(("  fix: ", "  fix:")) for line in screen)


# --- Python's ModuleNotFoundError on a framework module -------------------------------------------------
def test_a_module_another_release_has_is_named_with_its_releases() -> None:
    section = _why("nemorl4080_openai_engine_module")
    assert section["matches"] == []  # vLLM's import_from_path shares only Python's words
    found = section["module"]
    assert found["meaning"] == (
        "vllm.entrypoints.openai.engine is a module of vLLM 0.15.1-0.28.0 (the releases with indexed sites "
        "in it) and in none after it (0.29.0-0.33.0); 0.29.0, the release named, is not one of them: the "
        "code importing it was written for those releases"
    )
    assert found["fix"] == (
        "install a vLLM release that has vllm.entrypoints.openai.engine (0.15.1-0.28.0), or change the code "
        "importing it to the installed release's modules (the traceback's frame above the import names that "
        "code)"
    )


def test_a_module_the_named_release_has_and_one_no_site_is_in() -> None:
    # not reports: the release named has the module (a broken install), and a compiled extension no site is in
    has = explain("ModuleNotFoundError: No module named 'vllm.entrypoints.openai.engine'", None, "0.20.2")
    assert (
        has["module"]["fix"]
        == "reinstall vLLM 0.20.2, and check which copy Python imports (python -c 'import vllm')"
    )
    assert has["origin"]["origin"] == "Python's import system: the installed package is broken or missing"
    compiled = explain("ModuleNotFoundError: No module named 'vllm._C'")
    assert "module" not in compiled
    assert compiled["matches"][0]["function"] == "import_from_path"  # still the weak candidate it was


# --- a wrapper's quoted inner error ------------------------------------------------------------------------
def test_the_quoted_inner_error_is_explained_and_a_weak_wrapper_names_no_reporter() -> None:
    assert quoted("'DeepGEMM backend is not available or outdated.' When deploy DeepSeek-V3.2") == (
        "DeepGEMM backend is not available or outdated."
    )
    assert quoted("'a quoted message alone'") == "'a quoted message alone'"  # nothing after it: kept whole
    assert quoted("'max_model_len' must be positive") == "'max_model_len' must be positive"  # a name, not it
    section = _why("vllm29943_worker_deepgemm_title")
    first, second = section["matches"][:2]
    assert "reported_by" not in first  # roofline's "{memset_name} failed with error {err}" (15 characters)
    assert second["function"] == "get_memset_tbps.fn"
    assert first["fix"] == (
        "raised unconditionally in _missing: its message says 'Please install or update the `deep_gemm` to a "
        "newer version to enable FP8 kernels.'"
    )


# --- the site that prints the words the message opens with ------------------------------------------------
def test_the_site_printing_the_opening_words_comes_first_and_only_then() -> None:
    assert (
        _why("vllm25653_moe_bnb_title")["matches"][1]["function"] == "BitsAndBytesModelLoader._load_weights"
    )
    # not a report: a message without the leading "MoE" keeps the site whose message it is
    plain = explain("AttributeError: Model LlamaForCausalLM does not support BitsAndBytes quantization yet.")
    assert plain["matches"][0]["function"] == "BitsAndBytesModelLoader._load_weights"


# --- fixes -----------------------------------------------------------------------------------------------
def test_a_scheme_check_on_the_gpus_capability_names_no_flag() -> None:
    first = _why("vllm14040_scheme_capability_title")["matches"][0]
    assert first["settings"] == []
    assert first["fix"] == (
        "the GPU's compute capability decides it (the site's conditions read it: capability_tuple is not "
        "None; not (match_exact); error and (not supported)): the checkpoint's quantization scheme needs a "
        "newer GPU than this one, and no launch setting changes that: a GPU of the capability the message "
        "names, or a checkpoint quantized with a scheme this GPU supports"
    )


def test_a_failed_package_lookup_says_install() -> None:
    assert _why("sglang6160_flashinfer_min_version_title")["matches"][0]["fix"] == (
        "assert_pkg_version raises this when its import or package lookup fails (PackageNotFoundError): the "
        "package its message names is not installed in this environment (or not under that name): install it"
    )


def test_the_environments_private_flag_is_the_environments() -> None:
    assert _why("sm89fork90_flashmla_c_unavailable")["matches"][0]["fix"] == (
        "the condition not _flashmla_C_AVAILABLE is the environment's (whether a package is installed or the "
        "platform offers it): no launch setting changes it; install what the message names"
    )


def test_a_reason_needs_a_word_start_and_a_value() -> None:
    assert not in_one_line("dtype {selector_config.dtype} not supported", ["kv_cache_dtype not supported"])
    assert in_one_line("dtype {selector_config.dtype} not supported", ["dtype torch.float32 not supported"])
    first = _why("vllm48406_fp8_ds_mla_no_backend")["matches"][0]
    assert [b["message"] for b in first["because"]] == [
        "non-causal attention not supported",
        "kv_cache_dtype not supported",
    ]
    assert first["fix"].endswith(
        "change --kv-cache-dtype; or make false: len(valid_backends_priorities) == 0"
    )
    assert "--dtype" not in first["fix"]


def test_curly_quotes_and_a_bare_class_in_pythons_attribute_error() -> None:
    origin = origin_of_attribute("DeciLMConfig object has no attribute ‘num_key_value_heads_per_layer’")
    assert origin is not None and origin["origin"].endswith(
        "the attribute num_key_value_heads_per_layer, which the DeciLMConfig object does not have"
    )
    assert origin_of_attribute("the object has no attribute 'x'") is None  # prose, not a class


def test_the_registry_refusal_gives_the_releases_that_register_the_architecture() -> None:
    assert _why("vllm24967_eagleqwen2_arch_title")["matches"][0]["fix"] == (
        "no bundled vLLM release (0.6.3.post1-0.33.0) registers EagleQwen2ForCausalLM: the checkpoint's "
        "config.json names a class it does not have (a draft or export in another format, or a build newer "
        "than these releases or built without it) (the model class tables): a checkpoint whose architectures "
        "the release registers (converted to its format), or a build that has the class"
    )
    # not a report: an architecture later releases register, the release named lacking it
    named = explain(
        "ValueError: Model architectures ['Glm4vForConditionalGeneration'] are not supported for now.",
        None,
        "0.9.1",
    )
    assert named["matches"][0]["fix"] == (
        "Glm4vForConditionalGeneration is registered in vLLM 0.9.2-0.33.0 (0.9.1, the release named, does "
        "not) (the model class tables): install a release that registers it"
    )


def test_a_none_operand_names_the_unset_flag_the_text_names_and_only_that() -> None:
    found = _why("sglangpr34361_eagle_topk_none")["none"]
    assert found["flags"] == ["--speculative-eagle-topk"]
    assert found["fix"] == (
        "give --speculative-eagle-topk a value (the launch left it unset, and the code computes with it)"
    )
    plain = explain("TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'")
    assert "flags" not in plain["none"] and plain["matches"] == []
    assert plain["none"]["fix"].startswith("the traceback's innermost frame is where the None was used")
