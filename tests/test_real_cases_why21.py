"""`argtrace why` on a 21st batch of 25 error texts from public reports of 2025-2026 it was never tuned
on (texts and URLs in tests/data/real_cases_why21/, the first line of each file names the report, the release
and the fix its thread settled on, or that none settled), as a new user runs it (``--framework-version`` only
where the reporter named the release), and the mechanisms they led to (docs/real_cases.md "`why`, 21st
batch"):

- a command-line flag in a text is one word for the word-by-word match (``messages._text_words``);
- Python's ZeroDivisionError with a flag the text gives 0, and the comparison form of a ``None`` operand; a
  flag the text gives a value is not the unset one (``why_none``);
- a placeholder holding a sentence's words is a sign against a site (``why_confidence``);
- the else of a chain of comparisons: the releases whose check accepts the value the text names
  (``why_chain``);
- the registry's "not supported" releases only for that message, and only a covered release is said to lack
  the class (``why_arch``); a message that sends the reader to the log says so as its fix (``why``);
- a release named without its framework ranks the framework that has its family
  (``why_release.preferred_release``);
- transformers' AutoTokenizer messages indexed beside AutoConfig's (``message_store.LIBRARY_MODULES``).
"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_chain import _chain_values
from argtrace.commands.why_confidence import prose_in_placeholder
from argtrace.commands.why_none import none_operand, origin_of_none, zero_divisor
from argtrace.commands.why_release import preferred_release
from argtrace.layers.log.messages import _text_words
from argtrace.resolver.message_store import LIBRARY_MODULES, frameworks, indexed_releases
from tests.batches import WhyCase, assert_why_gives, batch_grades
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "real_cases_why21"

# the releases the reporters named (``--framework-version``); the others ran without it
VERSION = {
    "vllmomni2170_no_architectures": "0.18.0",
    "vllm36585_tokenizers_backend": "0.17.0",
    "vllm17630_failed_inspected": "0.9.0",
    "recipes515_gemma4_reasoning_parser_title": "0.22.1",
    "vllmomni474_config_format": "0.11.0",
    "productionstack582_kv_connector_assert": "0.9.2rc2.dev167+g762be26a8",
}


@functools.cache
def _explained(name: str) -> dict[str, Any]:
    section: dict[str, Any] = explain(quoted_text(DATA / f"{name}.txt"), None, VERSION.get(name))
    return section


def _why(name: str) -> dict[str, Any]:
    return copy.deepcopy(_explained(name))


_TRANSFORMERS = "transformers raises this in AutoConfig.from_pretrained when its own lookup fails (KeyError)"
_CONFIG = "transformers/models/auto/configuration_auto.py:438"
_SCHEDULER = ("max_num_batched_tokens", "max_model_len", "enable_chunked_prefill")
_BATCHED = (
    "make the condition false (self.max_num_batched_tokens < max_model_len and (not self.enable_chunked"
)

CASES = [
    WhyCase(
        "blackfish322_qwen3_5_moe_transformers",
        "b",
        "b",
        "AutoConfig.from_pretrained",
        "strong",
        _CONFIG,
        (),
        _TRANSFORMERS,
    ),
    WhyCase("dotsocr6_placeholder_str_cut", "c", "c", None, "none"),
    WhyCase(
        "longwriter39_default_chat_template",
        "a",
        "a",
        "apply_hf_chat_template",
        "strong",
        "vllm/entrypoints/chat_utils.py:1826",
        ("chat_template",),
        "make the condition false (hf_chat_template is None): change --chat-template",
    ),
    WhyCase("productionstack582_kv_connector_assert", "b", "b", None, "none"),
    WhyCase("recipes515_gemma4_reasoning_parser_title", "c", "c", None, "none"),
    WhyCase(
        "sglang14107_dict_chat_template_title",
        "d",
        "c",
        "_BaseConfig._kv_pairs_to_dict",
        "weak",
        "sglang/srt/debug_utils/dumper.py:128",
        (),
        "this reports (ValueError, TypeError) raised by the code it wraps",
    ),
    WhyCase(
        "sglang25827_glm5_l40_no_backend",
        "a",
        "a",
        "AttentionBackend.validate_configuration",
        "strong",
        "vllm/v1/attention/backend.py:329",
        (),
        "the condition not cls.supports_compute_capability(device_capability) is the GPU's or platform's",
    ),
    WhyCase(
        "sglang29833_online_quant_method",
        "b",
        "b",
        "QuantizationConfig.get_from_keys",
        "strong",
        "sglang/srt/layers/quantization/base_config.py:262",
        ("quantization",),
        "raised unconditionally in QuantizationConfig.get_from_keys: avoid the call path",
    ),
    # the first site is a weak wording match either way, the origin (transformers' GGUF loader) is the
    # answer: since session 29 a title without the message's closing full stop matches "{method} is not
    # supported yet." in full (vllm29), ahead of ROCm's "... is not supported by ROCm for now."
    WhyCase(
        "sglang6281_gguf_qwen3_title",
        "b",
        "b",
        "init_speculator",
        "weak",
        "vllm/v1/worker/gpu/spec_decode/__init__.py:94",
        ("speculative_config",),
        "make the condition false (not (speculative_config.use_ngram()))",
        origin="transformers' GGUF loader: it has no config mapping for this GGUF file's architecture",
    ),
    WhyCase(
        "sglang9102_tool_call_parser_none",
        "a",
        "a",
        "FunctionCallParser.__init__",
        "strong",
        "sglang/srt/function_call/function_call_parser.py:150",
        ("tool_call_parser",),
        "make the condition false (not (detector_class)): change --tool-call-parser",
    ),
    WhyCase(
        "sglangpr7823_internvl_unsupported_arch",
        "b",
        "a",
        "InternVLChatConfig.__init__",
        "strong",
        "sglang/srt/configs/internvl.py:327",
        (),
        "Qwen2ForCausalLM is a value this check accepts in SGLang 0.4.6.post5, 0.4.9.post6-0.5.23 (a branch "
        "compares with it); the check that raised it lacks that branch, as in 0.4.7.post1-0.4.8.post1: "
        "install a release that accepts Qwen2ForCausalLM",
    ),
    WhyCase(
        "verl5889_eaddrinuse_worker",
        "b",
        "b",
        "SharedOffloadRegion.cleanup",
        "weak",
        "vllm/v1/kv_offload/cpu/shared_offload_region.py:352",
        (),
        "make the condition false (result.value != 0)",
        origin="torch.distributed",
    ),
    WhyCase(
        "verlpr7632_scheduler_batched_tokens",
        "a",
        "a",
        "SchedulerConfig.verify_max_model_len",
        "strong",
        "vllm/config/scheduler.py:322",
        _SCHEDULER,
        _BATCHED,
        origin="pydantic_core._pydantic_core",
    ),
    WhyCase(
        "vllm17630_failed_inspected",
        "d",
        "b",
        "_ModelRegistry._raise_for_unsupported",
        "strong",
        "vllm/model_executor/models/registry.py:438",
        (),
        "raised in _ModelRegistry._raise_for_unsupported after another failure, which its message points to: "
        "the cause is logged before it (read the whole log: argtrace log LOG)",
    ),
    WhyCase(
        "vllm28981_arm_cpu_batched_tokens",
        "a",
        "a",
        "SchedulerConfig.verify_max_model_len",
        "strong",
        "vllm/config/scheduler.py:322",
        _SCHEDULER,
        _BATCHED,
        origin="pydantic_core._pydantic_core",
    ),
    WhyCase(
        "vllm36585_tokenizers_backend",
        "c",
        "a",  # b until why25 named the transformers releases that know the class (why_tokenizer)
        "AutoTokenizer.from_pretrained",
        "strong",
        "transformers/models/auto/tokenization_auto.py:1153",
        (),
        "TokenizersBackend is a tokenizer class the indexed transformers 5.23.0 know and 4.57.6 does not",
    ),
    WhyCase(
        "vllm54657_tp0_zerodivision_title",
        "c",
        "a",
        None,
        "none",
        origin="Python's interpreter: a division by zero",
    ),
    WhyCase(
        "vllm54665_dcp0_zerodivision_title",
        "d",
        "a",
        None,
        "none",
        origin="Python's interpreter: a division by zero",
    ),
    WhyCase(
        "vllmascend14573_reasoning_parser_telechat",
        "b",
        "b",
        "ReasoningParserManager.get_reasoning_parser",
        "strong",
        "vllm/reasoning/abs_reasoning_parsers.py:256",
        ("reasoning_parser",),
        "raised unconditionally in ReasoningParserManager.get_reasoning_parser: change --reasoning-parser",
    ),
    WhyCase("vllmascend16983_attention_config_title", "c", "c", None, "none"),
    WhyCase(
        "vllmascend8722_deepseek_v4_transformers",
        "b",
        "b",
        "AutoConfig.from_pretrained",
        "strong",
        _CONFIG,
        (),
        _TRANSFORMERS,
    ),
    # the 22nd why batch reads the KeyError of a checkpoint tensor's name (why_weights): its origin now
    WhyCase(
        "vllmascend986_w2_weight_offset_keyerror",
        "c",
        "c",
        None,
        "none",
        origin="Python's interpreter: a KeyError on a checkpoint tensor's name",
    ),
    WhyCase(
        "vllmomni2170_no_architectures",
        "b",
        "b",
        "_ModelRegistry.resolve_model_cls",
        "strong",
        "vllm/model_executor/models/registry.py:1127",
        (),
        "make the condition false (not architectures)",
        origin="pydantic",
    ),
    WhyCase(
        "vllmomni474_config_format",
        "b",
        "b",
        "get_config",
        "strong",
        "vllm/transformers_utils/config.py:559",
        ("config_format",),
        "make the condition false (not (file_or_path_exists(model, MISTRAL_CONFIG_NAME",
    ),
    WhyCase(
        "vllmpr55444_mtp_none_gt", "c", "b", None, "none", origin="Python's interpreter: an operation on None"
    ),
]


def test_the_batch_is_25_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 25
    assert batch_grades(CASES) == ([5, 10, 7, 3], [9, 11, 5, 0])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: WhyCase) -> None:
    assert_why_gives(_why(case.name), case)


@pytest.mark.parametrize("case", [c for c in CASES if c.grade == "a"], ids=lambda c: c.name)
def test_a_class_a_case_shows_its_cause_and_fix_on_the_first_screen(case: WhyCase) -> None:
    screen = render_why(_why(case.name), 80).splitlines()[:23]
    assert screen[0].startswith(
        ("vllm: ", "sglang: ", "transformers: ", "the text comes from ", "no framework raise or log site")
    )
    assert any(line.startswith("  fix: ") for line in screen)


# --- Python's ZeroDivisionError and None operands ---------------------------------------------------------
def test_a_flag_given_zero_is_the_divisor() -> None:
    section = _why("vllm54665_dcp0_zerodivision_title")
    assert section["matches"] == []  # SGLang's "decode context parallel group ..." no longer met in the flag
    assert section["none"]["flags"] == ["--decode-context-parallel-size"]
    assert section["none"]["fix"] == (
        "give --decode-context-parallel-size a value of at least 1 (the code divides by it)"
    )
    assert _why("vllm54657_tp0_zerodivision_title")["none"]["flags"] == ["--tensor-parallel-size"]


def test_a_division_by_zero_blames_only_a_known_flag_given_zero() -> None:
    # not reports: no flag, an unknown flag, a flag given another value, and no division at all
    assert zero_divisor("ZeroDivisionError: integer division or modulo by zero")["fix"].startswith(
        "the traceback's innermost frame is where it divided"
    )
    assert "flags" not in zero_divisor("--no-such-flag-here 0 ... ZeroDivisionError: division by zero")
    assert "flags" not in zero_divisor("--tensor-parallel-size 2 then ZeroDivisionError")
    assert zero_divisor("--tp-size=0 ZeroDivisionError: division by zero")["flags"] == ["--tp-size"]
    assert zero_divisor("ValueError: nothing divided") is None
    assert origin_of_none("float division by zero") == {
        "origin": "Python's interpreter: a division by zero",
        "basis": "wording",
        "evidence": "float division by zero",
        "source": "CPython's ZeroDivisionError (Objects/longobject.c, floatobject.c)",
    }


def test_a_comparison_with_none_and_a_flag_the_launch_gave() -> None:
    section = _why("vllmpr55444_mtp_none_gt")
    assert section["matches"] == []
    # --speculative-config is given a value in the text: the field left out of it is unset, not the flag
    assert "flags" not in section["none"]
    assert section["none"]["evidence"] == "'>' not supported between instances of 'NoneType' and 'int'"
    # the flag named without a value is still the unset one (sglang PR#34361's sentence)
    text = "without `--speculative-eagle-topk`: TypeError: '>' not supported between instances of 'NoneType'"
    text += " and 'int'"
    assert none_operand(text)["flags"] == ["--speculative-eagle-topk"]


# --- a flag is one word; a placeholder holding prose ------------------------------------------------------
def test_a_flag_is_one_word_for_the_word_match() -> None:
    assert _text_words("[Bug]: --decode-context-parallel-size 0 reaches") == [
        "bug",
        "decode_context_parallel_size",
        "0",
        "reaches",
    ]
    # a single-word flag and a field name are left as they are
    assert _text_words("--tp 2 max_model_len x-y") == ["tp", "2", "max_model_len", "x", "y"]


def test_a_placeholder_holding_a_sentence_is_a_sign_against_the_site() -> None:
    site = {"how": "full", "message": "{key}: expected {field_type}, got {value}"}
    text = "TypeError: expected string or bytes-like object, got 'dict'"
    assert prose_in_placeholder(text, site) == "string or bytes-like object"
    assert prose_in_placeholder("x: expected int, got str", site) is None  # values, not prose
    assert prose_in_placeholder(text, {**site, "how": "partial"}) is None
    assert _why("sglang14107_dict_chat_template_title")["reasons"][1] == (
        "a placeholder of the site holds 'string or bytes-like object', words of a message rather than a "
        "value"
    )


# --- an else chain's refusal: the releases accepting the value --------------------------------------------
def test_a_chain_of_comparisons_and_the_value_the_text_names() -> None:
    accepts = _why("sglangpr7823_internvl_unsupported_arch")["matches"][0]["accepts"]
    assert accepts["value"] == "Qwen2ForCausalLM"
    assert accepts["not_in"] == ["0.4.7.post1", "0.4.8.post1"]
    assert _chain_values(["not (x == 'Alpha')", "not (x == 'Beta')"]) == ["Alpha", "Beta"]
    assert _chain_values(["not (x == 'Alpha')", "y > 1"]) == []  # not every condition a branch not taken
    # not reports: a value every release accepts, and one no branch names, keep the site's own fix
    for value in ("LlamaForCausalLM", "FooBarForCausalLM"):
        first = explain(f"ValueError: Unsupported architecture: {value}")["matches"][0]
        assert first["function"] == "InternVLChatConfig.__init__"
        assert "accepts" not in first and first["fix"].startswith("make the condition false")


# --- the registry's two messages; the release named --------------------------------------------------------
def test_the_registry_refusal_only_for_its_own_message_and_covered_releases() -> None:
    unsupported = "ValueError: Model architectures ['Qwen3ForCausalLM'] are not supported for now."
    said = explain(unsupported, None, "0.9.0")["matches"][0]["fix"]
    # 0.9.0 has no model class table (0.8.5.post1 and 0.9.2 have): not said to lack the class
    assert said.startswith("Qwen3ForCausalLM is registered in vLLM 0.8.5.post1-")
    assert "the release named, does not" not in said
    inspected = _why("vllm17630_failed_inspected")["matches"][0]
    assert "archs" not in inspected


def test_a_release_named_alone_ranks_the_framework_of_its_family() -> None:
    indexed = {name: indexed_releases(name) for name in frameworks()}
    only, prefer, _entry = preferred_release("some text", None, "0.17.0", None, indexed)
    assert only is None and [p.framework for p in prefer] == ["vllm"]


def test_transformers_tokenizer_messages_are_indexed() -> None:
    assert "transformers/models/auto/tokenization_auto.py" in LIBRARY_MODULES["transformers"]
    first = _why("vllm36585_tokenizers_backend")["matches"][0]
    assert first["framework"] == "transformers" and first["releases"] == ["4.51.3", "4.57.6"]
