"""SGLang batch sgl20 (docs/real_cases.md, "SGLang sgl20: piecewise CUDA graphs, STANDALONE/NGRAM drafts,
HiCache storage and FP4 KV, trtllm attention backends, EPD, load formats, tokenizer workers"), measured
before any fix.

Twenty failure reports of 2025-2026 whose cause lies in the launch or the settings a report names, and five
correct launches (``ok_*``: SGLang's EPD docs, its CI's NGRAM test, the SGLang cookbook). Each case under
``tests/data/real_cases_sgl20/`` names its URL in its header: ``.cmd`` launches (``argtrace check -c``), a
``.sh`` script (``argtrace check FILE``) and one ``.log`` (sglang#10121's posted log lines, ``argtrace
log``; the report quotes four lines, its header line is argtrace's). The error each launch's report quotes
is in ``WHY_TEXTS`` (``argtrace why``). A new user's machine (no resolver environment, no Hugging Face
cache); ``--framework-version`` only where the report names the release (sglang#13471: 0.5.4.post3, #5673:
0.4.5.post3, #25673: 0.5.11). Each command and file runs once per worker (tests/batches.py's ``recorded_*``).
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
    log_sources,
    missing_cases,
    recorded_check,
    recorded_log_report,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import Launch, alarms

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl20"
LOG = "sglang10121_http_workers.log"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check`, `why` and `log`: first seen (43ae2cff) and now.
CLASSES = {
    "sglang25673_kimi_eagle3_mla.cmd": ("b", "b"),
    "sglang3209_load_format_sharded_state.cmd": ("b", "b"),
    "sglang13471_minimax_m2_a800.cmd": ("b", "a"),
    "sglang16108_pcg_qwen3vl.cmd": ("b", "a"),
    "sglang23490_kimi_k26_eagle3_trtllm_mla.cmd": ("b", "a"),
    "sglang10121_tokenizer_worker_num.cmd": ("c", "b"),
    "sglang24051_standalone_vocab_mismatch.cmd": ("c", "c"),
    "sglangpr36121_hicache_fp4_kv.cmd": ("c", "c"),
    "sglang29878_multi_tokenizer_pp.cmd": ("c", "c"),
    "sglangpr12532_dummy_load_fp4.cmd": ("c", "c"),
    "sglang18216_eagle3_speculators_script.sh": ("c", "c"),
    "sglang12477_ngram_hicache.cmd": ("c", "c"),
    "sglang26886_hicache_file_backend.cmd": ("c", "c"),
    "sglang5673_eagle_without_steps.cmd": ("c", "c"),
    "sglang17330_qwen3next_pcg_nextn_prefill.cmd": ("c", "c"),
    "sglangpr19573_pcg_qwen35_sm100.cmd": ("c", "c"),
    "dynamo8609_pcg_context_length_64.cmd": ("c", "c"),
    "sglangpr18011_language_only_encoder_memory.cmd": ("c", "c"),
    "sglang12372_trtllm_mha_fp8_kv.cmd": ("c", "c"),
    "sglangpr14842_trtllm_mha_autoselect_sm120.cmd": ("c", "c"),
}
CORRECT = [
    "ok_epd_language_only.cmd",
    "ok_epd_grpc_prefill.cmd",
    "ok_cookbook_glm47_flash_tools.cmd",
    "ok_cookbook_qwen35_amd.cmd",
    "ok_ci_ngram_paged.cmd",
]
# the release each report names (none is passed for the others)
RELEASE = {
    "sglang13471_minimax_m2_a800.cmd": "0.5.4.post3",
    "sglang5673_eagle_without_steps.cmd": "0.4.5.post3",
    "sglang25673_kimi_eagle3_mla.cmd": "0.5.11",
}
# (code, severity) of the errors and warnings each launch gets, before the batch's fixes and now
ALARMS: dict[str, list[tuple[str, str]]] = {
    # an EAGLE-3 draft under EAGLE: true of the launch, and the report's low acceptance with the non-MLA
    # draft; the crash it files is the MLA draft's model_type, unknown to 0.5.11
    "sglang25673_kimi_eagle3_mla.cmd": [("RS033", "warning")],
    # ${SERVICE_PORT} is the caller's; checked without it, the word vanishes (true as posted)
    "sglang18216_eagle3_speculators_script.sh": [("SH007", "warning")],
}
# the error each launch's report quotes (the reports of the other launches quote none, or a screenshot)
WHY_TEXTS = {
    "sglang13471_minimax_m2_a800.cmd": (
        "ValueError: type fp8e4nv not supported in this architecture. The supported fp8 dtypes are "
        "('fp8e4b15', 'fp8e5')"
    ),
    "sglang16108_pcg_qwen3vl.cmd": "AssertionError: PCG capture stream is not set",
    "sglang23490_kimi_k26_eagle3_trtllm_mla.cmd": (
        "ValueError: trtllm_mla backend can only be used with MLA models."
    ),
    "sglangpr19573_pcg_qwen35_sm100.cmd": (
        "torch._dynamo.exc.Unsupported: Logger not supported for non-export cases. To avoid graph breaks "
        "caused by logger in compile-mode, it is recommended to disable logging by adding logging methods to "
        "config.ignore_logger_methods"
    ),
}
WHY = [
    WhyCase(
        "sglang13471_minimax_m2_a800.cmd",
        "b",
        "a",
        "dtype.to_ir",
        "strong",
        at="triton/language/core.py:599",
        settings=("kv_cache_dtype", "quantization", "kv_cache_dtype", "quantization"),
        fix="triton refused 'fp8e4nv', which comes from --kv-cache-dtype (sglang), --quantization (sglang)",
    ),
    WhyCase(
        "sglang16108_pcg_qwen3vl.cmd",
        "b",
        "a",
        "CUDAPiecewiseBackend.__call__",
        "strong",
        at="sglang/srt/compilation/cuda_piecewise_backend.py:170",
        settings=("enable_piecewise_cuda_graph", "disable_piecewise_cuda_graph"),
        fix="make the condition false (not (stream is not None)); this check is in SGLang's piecewise CUDA "
        "graph capture, which the model runner builds only while piecewise CUDA graphs are on; to start "
        "without it: sglang 0.5.8.post1, 0.5.9 build it only with --enable-piecewise-cuda-graph: drop that "
        "flag; sglang 0.5.10.post1-0.5.15.post1 build it by default: add --disable-piecewise-cuda-graph (or "
        "--cuda-graph-backend-prefill=disabled where it is deprecated)",
    ),
    WhyCase(
        "sglang23490_kimi_k26_eagle3_trtllm_mla.cmd",
        "b",
        "a",
        "create_trtllm_mla_backend",
        "strong",
        at="sglang/srt/layers/attention/attention_registry.py:97",
        settings=(
            "attention_backend",
            "decode_attention_backend",
            "prefill_attention_backend",
            "speculative_draft_attention_backend",
        ),
        fix="make the condition false (not runner.use_mla_backend); this check is the trtllm_mla attention "
        "backend's own (sglang 0.5.23's registry builds it for --attention-backend, "
        "--decode-attention-backend, --prefill-attention-backend, --speculative-draft-attention-backend, or "
        "when the server chose it for this GPU and model because none was given; a draft model takes the "
        "target's backend unless --speculative-draft-attention-backend gives its own, or the release picks "
        "one for its algorithm): give a backend other than trtllm_mla to the flag that picked it, or name "
        "one where none was given",
    ),
    WhyCase("sglangpr19573_pcg_qwen35_sm100.cmd", "c", "c", None, "none"),
]


def check(name: str) -> dict[str, Any]:
    options = ("--framework-version", RELEASE[name]) if name in RELEASE else ()
    return recorded_check(CASES, Launch(name, options))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT) | {LOG}
    assert table_counts(CLASSES) == ([0, 5, 15, 0], [3, 3, 14, 0])
    for case in WHY:
        # a case's class is the better of its commands: `why` alone is never better than the table says
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == [LOG]  # the log's header is log_sources' (below)
    for path in sorted(CASES.glob("*.cmd")) + sorted(CASES.glob("*.sh")):
        assert ", seen 2026-12-03: " in path.read_text(encoding="utf-8").splitlines()[0], path.name
    assert log_sources(CASES) == ["https://github.com/sgl-project/sglang/issues/10121"]


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_alarms_are_true_of_the_launch(name: str) -> None:
    """No wrong alarm (d), before or after: the two warnings are true of the launch as posted."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_sglang25673_the_eagle3_draft_under_eagle() -> None:
    (warning,) = alarms(check("sglang25673_kimi_eagle3_mla.cmd"))
    assert warning["message"].startswith(
        "--speculative-algorithm EAGLE with the draft '/app/models/kimi-k2.6-eagle3-mla', whose name says it "
        "is an EAGLE-3 draft: sglang 0.5.11 captures the three target hidden states an EAGLE-3 draft reads "
        "only under EAGLE3"
    )


def test_sglang3209_the_refusing_releases_are_a_note() -> None:
    """b: no release is named, and only 0.4.0.post2-0.4.3.post4 refuse the value (the report's time); the
    note names them, as it should without a release (an error would rest on a guess)."""
    (note,) = [
        f for f in check("sglang3209_load_format_sharded_state.cmd")["findings"] if f["code"] == "PR011"
    ]
    assert note["severity"] == "info"
    assert note["message"].endswith(
        "sglang 0.4.0.post2-0.4.3.post4 refuse --load-format sharded_state (not one of its choices)"
    )


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


def test_sglang13471_an_fp8_checkpoint_needs_no_flag() -> None:
    """was b: the fix said "no fp8 --quantization", and the launch gives none: MiniMax-M2's checkpoint is
    fp8 (its config.json), which SGLang runs through Triton's fp8 kernels on an A800 (SM80)."""
    (first, *_) = explain(WHY_TEXTS["sglang13471_minimax_m2_a800.cmd"])["matches"]
    assert first["fix"].endswith(
        "a checkpoint whose config.json says fp8 (quantization_config) needs a GPU of compute capability "
        "8.9+ or another variant of the model (bf16, int8, int4)"
    )


def test_the_registry_factory_rule_reads_the_backend_from_the_factory_and_the_release() -> None:
    """Variants (not reports): another factory of the registry gets its own backend's flags; a factory not
    named after its backend (fa3's ``create_flashattention_v3_backend``) keeps what it had, and its message's
    advice ("Please use `--attention-backend flashinfer`") is not read as the backend that raised."""
    cutedsl = explain("ValueError: cutedsl_mla backend can only be used with MLA models.")["matches"][0]
    assert cutedsl["function"] == "create_cutedsl_mla_backend"
    assert [s["flag"] for s in cutedsl["settings"]] == [
        "--attention-backend",
        "--decode-attention-backend",
        "--prefill-attention-backend",
        "--speculative-draft-attention-backend",
    ]
    assert "this check is the cutedsl_mla attention backend's own" in cutedsl["fix"]
    fa3 = explain(
        "AssertionError: FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use "
        "--attention-backend flashinfer."
    )["matches"][0]
    assert fa3["function"] == "create_flashattention_v3_backend"
    assert [s["flag"] for s in fa3["settings"]] == ["--attention-backend"]
    assert "attention backend's own" not in fa3["fix"]


def test_the_pcg_switch_is_only_for_the_pcg_modules() -> None:
    """Variant: a check outside SGLang's piecewise modules gets no PCG switch; the PCG site's releases
    decide which switch is named (tests the per-release reading, not one wording)."""
    other = explain("trtllm_mla backend can only be used with MLA models.")["matches"][0]
    assert "piecewise" not in other["fix"]
    pcg = explain("AssertionError: PCG capture stream is not set")["matches"][0]
    assert [s["flag"] for s in pcg["settings"]] == [
        "--enable-piecewise-cuda-graph",
        "--disable-piecewise-cuda-graph",
    ]


def test_sglang10121_the_http_workers_are_sglang_s() -> None:
    """was d (log alone): LG012 warning "none from an SGLang or vLLM server" on the posted lines, uvicorn's
    worker supervisor in the format SGLang gives uvicorn; now a note naming --tokenizer-worker-num and the
    workers that died."""
    report = recorded_log_report(CASES / LOG)
    (finding,) = report["findings"]
    assert (finding["code"], finding["severity"]) == ("LG012", "info")
    assert "line(s) of uvicorn's worker supervisor in the format SGLang gives uvicorn" in finding["message"]
    assert (
        "only --tokenizer-worker-num above 1 starts; 2 worker(s) died or hung past its health check "
        "(2752809, 2752810)" in finding["message"]
    )
    assert finding["fix"].endswith(
        "--tokenizer-worker-num 1 (the default: one tokenizer in the server's process)."
    )


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "sglang24051_standalone_vocab_mismatch.cmd": (
        "vocab",
        "the draft's and the target's tokenizers compared: both models' files (sglang PR#23838 refuses a "
        "mismatch at start from 0.5.11 on; the report's release started silently)",
    ),
    "sglangpr36121_hicache_fp4_kv.cmd": (
        "fp4",
        "HiCache's host pool does not move FP4 block scales: a bug in every bundled release, and the guard "
        "that refuses the pair is an open PR",
    ),
    "sglang10121_tokenizer_worker_num.cmd": (
        "tokenizer-worker-num",
        "a start-up race of the tokenizer workers in main of 2025-09 (`log` now names the dying workers); no "
        "release refuses the value",
    ),
    "sglang29878_multi_tokenizer_pp.cmd": (
        "tokenizer",
        "the report's text is cut before its multi-tokenizer flag; the bug (sglang PR#29214) is in main of "
        "2026-07",
    ),
    "sglang3209_load_format_sharded_state.cmd": (
        "sharded_state",
        "the report's release (January 2025, from its date) is not read: without it the refusing releases "
        "are a note",
    ),
    "sglangpr12532_dummy_load_fp4.cmd": (
        "dummy",
        "the loader's order (quantization checks before the dummy loader) is code behaviour no index holds",
    ),
    "sglang18216_eagle3_speculators_script.sh": (
        "speculators",
        "the draft's config.json (the speculators format) is needed to see SGLang cannot read it",
    ),
    "sglang12477_ngram_hicache.cmd": (
        "NGRAM",
        "a speculative-decoding bug of late 2025, fixed later; no bundled release refuses NGRAM with HiCache",
    ),
    "sglang26886_hicache_file_backend.cmd": (
        "file",
        "the file backend's prefetch never reading back is code behaviour, not a refused setting",
    ),
    "sglang5673_eagle_without_steps.cmd": (
        "speculative-num-steps",
        "the error is a screenshot; 0.4.5.post3's assert (server_args.py:336) needs one of the three given, "
        "the report's command is not shown",
    ),
    "sglang17330_qwen3next_pcg_nextn_prefill.cmd": (
        "piecewise",
        "wrong output with PCG and NEXTN on a PD prefill server is a bug; the stand-in release "
        "(0.5.13.post1) ignores --enable-piecewise-cuda-graph",
    ),
    "sglangpr19573_pcg_qwen35_sm100.cmd": (
        "piecewise",
        "torch dynamo refusing SGLang's logger inside PCG is a code bug; `why` indexes no torch message",
    ),
    "dynamo8609_pcg_context_length_64.cmd": (
        "context-length",
        "PCG capture sizes against --context-length: 0.5.10.post1 caps them by chunked_prefill_size and "
        "max_total_tokens only (server_args.py:1254-1267), 0.5.23 by the model's context; a per-release rule "
        "and the GPU's chunked-prefill default are needed",
    ),
    "sglangpr18011_language_only_encoder_memory.cmd": (
        "language-only",
        "a language-only server's memory (the vision encoder it reserved for) is not modelled",
    ),
    "sglang12372_trtllm_mha_fp8_kv.cmd": (
        "trtllm_mha",
        "a kernel path bug; no release refuses --kv-cache-dtype fp8_e4m3 with trtllm_mha",
    ),
    "sglangpr14842_trtllm_mha_autoselect_sm120.cmd": (
        "trtllm_mha",
        "the GPU (SM120) is not in the launch; with --gpu and a resolver the release's own choice would show",
    ),
    "sglang25673_kimi_eagle3_mla.cmd": (
        "model_type",
        "the MLA draft's config.json (a model_type 0.5.11 does not know) is needed for the crash the report "
        "files; RS033 names the EAGLE/EAGLE-3 mismatch",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}
