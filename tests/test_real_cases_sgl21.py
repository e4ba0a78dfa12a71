"""SGLang batch sgl21 (docs/real_cases.md, "SGLang sgl21: LoRA flags, parser values, embedding and reward
models, JSON overrides, deterministic inference, DP sizes, API keys and served names, multimodal backends"),
measured before any fix.

Twenty failure reports of 2025-2026 whose cause lies in the launch settings or the settings a report names,
and five correct launches (``ok_*``: SGLang's LoRA, reasoning-parser and structured-output docs, a README's
embedding server). Each case under ``tests/data/real_cases_sgl21/`` names its URL in its header: ``.cmd``
launches (``argtrace check -c``) and one ``.sh`` script (``argtrace check FILE``). The error each report
quotes is in ``WHY_TEXTS`` (``argtrace why``). A new user's machine (no resolver environment, no Hugging
Face cache); ``--framework-version`` only where the report names the release (sglang#25127: 0.5.11, #3506:
0.4.2.post4, #29357: 0.5.13.post1, #4062: 0.4.3). Each command and file runs once per worker
(tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import (
    RECONSTRUCTED,
    WhyCase,
    assert_why_gives,
    missing_cases,
    recorded_check,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl21"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (cf79c547) and now.
CLASSES = {
    "sglang8256_skywork_reward_is_embedding.sh": ("b", "a"),
    "sglang11949_api_key_warmup_403.cmd": ("b", "a"),
    "sglang36174_dsv4_deterministic.cmd": ("a", "a"),
    "minimax25_21_a100_fp8.cmd": ("a", "a"),
    "sglangpr29253_mimo_v25_fa3_blackwell.cmd": ("a", "a"),
    "sglangpr9316_tool_call_parser_typo.cmd": ("a", "a"),
    "slime2019_tool_call_parser_qwen3.cmd": ("a", "a"),
    "areal442_lora_all_linear_qwen25vl.cmd": ("b", "b"),
    "sglang33505_qwen3vl_rope_parameters_override.cmd": ("c", "c"),
    "sglang9294_served_model_name_not_checked.cmd": ("c", "c"),
    "sglang25127_gemma4_api_key_responses.cmd": ("c", "c"),
    "sglang3506_dp_attention_qwen_distill_3090.cmd": ("c", "c"),
    "sglang9142_chunked_prefill_off_flashinfer.cmd": ("c", "c"),
    "sglang7727_skip_tokenizer_init_openai.cmd": ("c", "c"),
    "sglang29357_llama4_scout_lora.cmd": ("c", "c"),
    "sglang4062_granite_vision.cmd": ("c", "c"),
    "sglang36690_gemma3n_enable_multimodal.cmd": ("c", "c"),
    "sglang3890_dp_tp_mi300x.cmd": ("c", "c"),
    "sglang3465_qwen2_eagle_abbreviations.cmd": ("c", "c"),
    "sglang12349_frspec_64_draft_tokens.cmd": ("c", "c"),
}
CORRECT = [
    "ok_docs_lora_multi_adapter.cmd",
    "ok_docs_lora_dynamic_all_modules.cmd",
    "ok_docs_reasoning_parser_r1.cmd",
    "ok_docs_grammar_llguidance.cmd",
    "ok_readme_embedding_server.cmd",
]
# the release each report names (none is passed for the others)
RELEASE = {
    "sglang25127_gemma4_api_key_responses.cmd": "0.5.11",
    "sglang3506_dp_attention_qwen_distill_3090.cmd": "0.4.2.post4",
    "sglang29357_llama4_scout_lora.cmd": "0.5.13.post1",
    "sglang4062_granite_vision.cmd": "0.4.3",
}
# the error each report quotes (the others quote none, a screenshot or an attachment)
WHY_TEXTS = {
    "sglang8256_skywork_reward_is_embedding.sh": "AssertionError: embedding is not supported yet",
    "sglang11949_api_key_warmup_403.cmd": (
        "AssertionError: res=<Response [403]>, res.text='<html>\\n<head><title>403 Forbidden</title></head>"
        '\\n<body>\\n<div style="text-align: center;"><h1>403 Forbidden</h1></div>\\n</body>\\n</html>\''
    ),
    "minimax25_21_a100_fp8.cmd": (
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")"
    ),
    "sglangpr29253_mimo_v25_fa3_blackwell.cmd": (
        "ValueError: The 'fa3' backend is not supported on Blackwell GPUs"
    ),
    "sglang36174_dsv4_deterministic.cmd": (
        "ValueError: Currently only ['ascend', 'fa3', 'fa4', 'flashinfer', 'triton'] attention backends are "
        "supported for deterministic inference, but you explicitly specified 'dsv4'."
    ),
    "sglangpr9316_tool_call_parser_typo.cmd": (
        "launch_server.py: error: argument --tool-call-parser: invalid choice: 'gpt-os' (choose from "
        "'llama3', 'qwen25', 'mistral', 'deepseekv3', 'pythonic', 'kimi_k2', 'qwen3_coder', 'glm45', "
        "'step3', 'gpt-oss')"
    ),
    "slime2019_tool_call_parser_qwen3.cmd": "Unsupported tool_call_parser: qwen3",
    "sglang33505_qwen3vl_rope_parameters_override.cmd": (
        "[transformers] Unrecognized keys in `rope_parameters` for 'rope_type'='yarn': {'mrope_section', "
        "'mrope_interleaved'}"
    ),
}
WHY = [
    WhyCase(
        "sglang8256_skywork_reward_is_embedding.sh",
        "b",
        "a",
        "TransformersForCausalLM.forward",
        "strong",
        at="sglang/srt/models/transformers.py:261",
        settings=("model_impl", "is_embedding"),
        fix="make the condition false (not (get_embedding is False)); this check is in SGLang's "
        "Transformers fallback (TransformersForCausalLM), which serves a model whose config.json "
        "architectures the release does not implement, or any model with --model-impl transformers (sglang "
        "0.4.9.post6-0.5.9); get_embedding is what the model runner passes to a model that does not generate "
        "(--is-embedding, or an embedding or reward architecture)",
    ),
    WhyCase(
        "sglang11949_api_key_warmup_403.cmd",
        "b",
        "a",
        "_execute_server_warmup",
        "strong",
        at="sglang/srt/entrypoints/http_server.py:2376",
        fix="make the condition false (not (res.status_code == 200)); the warmup got status 403 with a web "
        "page ('403 Forbidden'), and SGLang's endpoints answer JSON: the page is not the server's own, most "
        "likely a proxy's between the warmup and the server",
    ),
    WhyCase(
        "minimax25_21_a100_fp8.cmd",
        "a",
        "a",
        "dtype.to_ir",
        "strong",
        at="triton/language/core.py:599",
        settings=("kv_cache_dtype", "quantization", "kv_cache_dtype", "quantization"),
        fix="triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
    WhyCase(
        "sglangpr29253_mimo_v25_fa3_blackwell.cmd",
        "a",
        "a",
        "VisionAttention._determine_attention_backend",
        "strong",
        at="sglang/srt/layers/attention/vision.py:1331",
        settings=("mm_attention_backend",),
        fix="make the condition false (backend == 'fa3' and get_platform().is_blackwell); the backend that "
        "raised is the one --mm-attention-backend picked",
    ),
    WhyCase(
        "sglang36174_dsv4_deterministic.cmd",
        "a",
        "a",
        "_deterministic_attention_backend",
        "strong",
        at="sglang/srt/arg_groups/overrides.py:1119",
        settings=("attention_backend",),
        fix="make the condition false (view.attention_backend not in "
        "DETERMINISTIC_ATTENTION_BACKEND_CHOICES): change --attention-backend",
    ),
    WhyCase(
        "sglangpr9316_tool_call_parser_typo.cmd",
        "a",
        "a",
        "ArgumentParser._check_value",
        "strong",
        at="sglang/srt/server_args.py:668",
        settings=("tool_call_parser",),
        fix="'gpt-os' is not a choice of --tool-call-parser in any bundled sglang release "
        "(0.4.2.post4-0.5.23); the choice spelled like it: gpt-oss",
    ),
    WhyCase(
        "slime2019_tool_call_parser_qwen3.cmd",
        "a",
        "a",
        "FunctionCallParser.__init__",
        "strong",
        at="sglang/srt/function_call/function_call_parser.py:150",
        settings=("tool_call_parser",),
        fix="make the condition false (not (detector_class)): change --tool-call-parser",
    ),
    WhyCase("sglang33505_qwen3vl_rope_parameters_override.cmd", "c", "c", None, "none"),
]


def check(name: str) -> dict[str, Any]:
    options = ("--framework-version", RELEASE[name]) if name in RELEASE else ()
    return recorded_check(CASES, Launch(name, options))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([5, 3, 12, 0], [7, 1, 12, 0])
    for case in WHY:
        # a case's class is the better of its commands: `why` alone is never better than the table says
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-03: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# sglang#12349's launch is kept only up to where the report's excerpt is cut: as kept it writes
# --speculative-num-draft-tokens without --speculative-num-steps, which SGLang's own assertion refuses (RS088,
# session 36: a warning on the assumed release); true of the text as kept, not the report's cause (the full
# launch started: 60 draft tokens worked)
ALARMS = {"sglang12349_frspec_64_draft_tokens.cmd": [("RS088", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm (d), before or after: no launch of the batch gets an error or a warning (what argtrace
    finds in them are notes: abbreviations, a release not named, refused choices of a release not named),
    but RS088 on a launch kept in part."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_refused_choices_without_a_release_stay_notes_with_their_fix() -> None:
    """b (AReaL#442) and the check half of slime#2019: a choice no bundled release lists is refused by the
    parser; a newer release might list it (sglang#8582's llama4, tests/test_real_cases_cases12.py), so with
    no release named it is a note, and its fix is the choice argparse's list holds ('qwen3' -> 'qwen', the
    maintainers' answer; PEFT's 'all-linear' -> one of SGLang's modules, 'all' among them)."""
    (lora,) = [f for f in check("areal442_lora_all_linear_qwen25vl.cmd")["findings"] if f["code"] == "PA009"]
    assert lora["severity"] == "info"
    assert lora["message"].startswith("argument --lora-target-modules: invalid choice: 'all-linear'")
    assert "'all')" in lora["message"]
    (parser,) = [f for f in check("slime2019_tool_call_parser_qwen3.cmd")["findings"] if f["code"] == "PA009"]
    assert parser["severity"] == "info"
    assert parser["fix"].startswith("Write qwen (one of ")


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


def test_sglang8256_the_transformers_fallback_ends_with_the_way_out() -> None:
    (first, *_) = explain(WHY_TEXTS["sglang8256_skywork_reward_is_embedding.sh"])["matches"]
    assert first["fix"].endswith(
        "serve the model with an architecture the release implements (argtrace check --model-config DIR "
        "says whether it registers the model's, RS047), or use a release that implements it, and drop "
        "--model-impl transformers"
    )


def test_the_fallback_rule_is_for_the_fallback_module_only() -> None:
    """Variants (not reports): another check of the fallback under ``if get_embedding:`` (0.5.10.post1 on)
    gets both settings; a check of another model's module keeps what it had."""
    pooling = explain("AssertionError: pooling is not enabled for this model class")["matches"][0]
    assert pooling["file"] == "sglang/srt/models/transformers.py"
    assert [s["flag"] for s in pooling["settings"]] == ["--model-impl", "--is-embedding"]
    assert "Transformers fallback" in pooling["fix"]
    other = explain("AssertionError: LlamaForSequenceClassification is only used for embedding")["matches"][0]
    assert other["file"] == "sglang/srt/models/llama_reward.py"
    assert "Transformers fallback" not in other["fix"]


def test_the_warmup_proxy_cause_needs_a_web_page() -> None:
    """Variants: the warmup refused with SGLang's own JSON, or with no body (sglang#2468's 502 with empty
    text), names no proxy; a 502 page does, with its status and title."""
    plain = explain('AssertionError: res=<Response [401]>, res.text=\'{"error":"Unauthorized"}\'')
    assert "proxy" not in plain["matches"][0]["fix"]
    empty = explain("AssertionError: res=<Response [502]>, res.text=''")["matches"]
    assert "proxy" not in empty[0]["fix"]
    page = explain(
        "AssertionError: res=<Response [502]>, res.text='<!DOCTYPE html><html><head><title>502 Bad Gateway"
        "</title></head></html>'"
    )["matches"][0]
    assert "the warmup got status 502 with a web page ('502 Bad Gateway')" in page["fix"]
    assert page["fix"].endswith(
        "add the server's host (127.0.0.1,localhost or the --host address) to no_proxy and NO_PROXY in the "
        "server's environment, or unset the proxy variables there"
    )


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "areal442_lora_all_linear_qwen25vl.cmd": (
        "all-linear",
        "PEFT's 'all-linear' is refused by every bundled release, but a value no release lists may be a "
        "newer one's: with no release named the refusal stays a note (the report's traceback is cut at "
        "init_lora_manager)",
    ),
    "sglang33505_qwen3vl_rope_parameters_override.cmd": (
        "rope_parameters",
        "a dict-valued --json-model-override-args replaces the checkpoint's dict where get_config does a "
        "plain config.update (0.5.10.post1 hf_transformers_utils.py:629; 0.5.23 merges rope dicts): a "
        "per-release fact no script generates yet, and transformers' rope validation is not indexed",
    ),
    "sglang9294_served_model_name_not_checked.cmd": (
        "served-model-name",
        "the Python OpenAI route does not compare a request's model with --served-model-name: code behaviour",
    ),
    "sglang25127_gemma4_api_key_responses.cmd": (
        "api-key",
        "a client sending another key than --api-key: the request, not the launch",
    ),
    "sglang3506_dp_attention_qwen_distill_3090.cmd": (
        "dp-attention",
        "DP attention on a model without MLA in 0.4.2.post4 needs the model's config.json; the error is an "
        "attachment",
    ),
    "sglang9142_chunked_prefill_off_flashinfer.cmd": (
        "chunked-prefill-size",
        "a crash with chunked prefill off once the prompts pass --max-prefill-tokens: a bug, no release "
        "refuses the values",
    ),
    "sglang7727_skip_tokenizer_init_openai.cmd": (
        "skip-tokenizer-init",
        "the OpenAI endpoints need the tokenizer --skip-tokenizer-init skips: request-time code behaviour",
    ),
    "sglang29357_llama4_scout_lora.cmd": (
        "lora",
        "the error is a screenshot; LoRA on Llama 4's MoE layers is the model class's, not in the launch",
    ),
    "sglang4062_granite_vision.cmd": (
        "LlavaNext",
        "an architecture 0.4.3 does not register: RS047 needs --model-config (config.json)",
    ),
    "sglang36690_gemma3n_enable_multimodal.cmd": (
        "gemma",
        "gemma-3n's shared-KV layers broken on every backend: a bug",
    ),
    "sglang3890_dp_tp_mi300x.cmd": (
        "dp-size",
        "custom all-reduce failing with --dp-size 4 --tp 2 on MI300X: a bug of that build",
    ),
    "sglang3465_qwen2_eagle_abbreviations.cmd": (
        "EAGLE",
        "a crash under load with EAGLE: a bug (PA007 notes name the abbreviations)",
    ),
    "sglang12349_frspec_64_draft_tokens.cmd": (
        "token-map",
        "an illegal memory access at 64 draft tokens with an FR-Spec token map: a kernel bug",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
