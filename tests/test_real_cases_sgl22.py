"""SGLang batch sgl22 (docs/real_cases.md, "SGLang sgl22: mixed chunk, DCP with hybrid Mamba, DP attention
with drafts, KV dtypes per backend, request limits, grammar backends, load formats, `sglang serve`"),
measured before any fix.

Twenty failure reports of 2025-2026 whose cause lies in the launch settings or their interplay per release,
and five correct launches (``ok_*``: multi-thread loading, Qwen3-Next with NEXTN and extra_buffer, the
XGrammar backend, the Qwen3-Next docs, DeepSeek-V3.2-Exp's DP attention). Each case under
``tests/data/real_cases_sgl22/`` names its URL in its header: ``.cmd`` launches (``argtrace check -c``), one
``.sh`` script and one Python program (``argtrace check FILE``). The error a report quotes is in
``WHY_TEXTS`` (``argtrace why``). A new user's machine (no resolver environment, no Hugging Face cache);
``--framework-version`` only where the report names the release (sglang#29811: 0.5.14, #33858: 0.5.16).
Each command and file runs once per worker (tests/batches.py's ``recorded_*``).
"""

from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.frameworks.sglang_helpers import helper_reads
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
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl22"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (45424715) and now.
CLASSES = {
    "sglang18550_kv_e5m2_fa3.cmd": ("a", "a"),
    "sglangpr35297_qwen38_dcp_no_buffer.cmd": ("b", "a"),
    "sglangpr34760_dcp_auto_no_buffer.cmd": ("b", "a"),
    "sglangpr28616_ngram_dp_attention.cmd": ("b", "a"),
    "verlpr1068_load_format_dummy_dtensor.py": ("b", "a"),
    "glmimage4_sglang_serve_local_path.cmd": ("b", "b"),
    "sglang29811_mixed_chunk_mtp.cmd": ("c", "c"),
    "sglangpr22876_mixed_chunk_extra_buffer.cmd": ("c", "c"),
    "sglangpr32591_mlx_mixed_chunk.cmd": ("c", "c"),
    "sglang33199_dsv4_spec_max_running.cmd": ("c", "c"),
    "sglang33483_cuda_graph_max_bs_32.cmd": ("c", "c"),
    "sglang36537_qwen38_nextn_extra_buffer.cmd": ("c", "c"),
    "sglangpr11401_grammar_backend_none.cmd": ("c", "c"),
    "sglangpr35321_dflash_dp_attention.cmd": ("c", "c"),
    "sglangpr38180_qwen4_mixed_chunk.cmd": ("c", "c"),
    "aiconfigurator308_moe_dense_tp_size.cmd": ("c", "c"),
    "sglang36140_dflash_pd_decode.cmd": ("c", "c"),
    "sglangpr27399_max_running_requests_clamped.cmd": ("c", "c"),
    "sglangpr23635_dsv4_max_running_requests_1.cmd": ("c", "c"),
    "sglang33858_tokenizer_worker_num_hang.cmd": ("c", "c"),
}
CORRECT = [
    "ok_sglangpr7277_multithread_load.cmd",
    "ok_sglangpr18808_qwen3next_nextn_extra_buffer.sh",
    "ok_sglangpr2697_grammar_xgrammar.cmd",
    "ok_sglangpr15337_qwen3next_docs.cmd",
    "ok_dsv32exp_dp_attention.cmd",
]
# the release each report names (none is passed for the others)
RELEASE = {
    "sglang29811_mixed_chunk_mtp.cmd": "0.5.14",
    "sglang33858_tokenizer_worker_num_hang.cmd": "0.5.16",
}
# the error each report quotes (the others quote none, a screenshot, or describe it in words)
WHY_TEXTS = {
    "sglang18550_kv_e5m2_fa3.cmd": (
        "FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton."
    ),
    "sglangpr35297_qwen38_dcp_no_buffer.cmd": (
        "AssertionError: MambaComponent requires page_size=1 when mamba_extra_buffer is disabled, got 2"
    ),
    "sglangpr34760_dcp_auto_no_buffer.cmd": (
        "AssertionError: MambaComponent requires page_size=1 when mamba_extra_buffer is disabled, got 512"
    ),
    "sglangpr28616_ngram_dp_attention.cmd": (
        "ValueError: Currently ngram speculative decoding does not support dp attention."
    ),
    "verlpr1068_load_format_dummy_dtensor.py": "ValueError: 'dummy_dtensor' is not a valid LoadFormat",
    "glmimage4_sglang_serve_local_path.cmd": "RuntimeError: No model info found for model path: /root/models",
    "sglang36140_dflash_pd_decode.cmd": (
        "AttributeError: 'NoneType' object has no attribute 'prepare_for_decode'"
    ),
}
_MAMBA = ("page_size", "disable_radix_cache", "mamba_radix_cache_strategy")
_MAMBA_FIX = (
    "make the condition false (not (params.page_size == 1)): change --page-size, --disable-radix-cache, "
    "--mamba-radix-cache-strategy"
)
WHY = [
    WhyCase(
        "sglang18550_kv_e5m2_fa3.cmd",
        "a",
        "a",
        "_attention_backend_fa3_fp8_fallback",
        "strong",
        at="sglang/srt/arg_groups/overrides.py:1265",
        settings=("attention_backend", "kv_cache_dtype"),
        fix="make the condition false (view.attention_backend == 'fa3' and view.kv_cache_dtype == "
        "'fp8_e5m2'): change --attention-backend, --kv-cache-dtype",
    ),
    WhyCase(
        "sglangpr35297_qwen38_dcp_no_buffer.cmd",
        "b",
        "a",
        "MambaComponent.__init__",
        "strong",
        at="sglang/srt/mem_cache/unified_cache/components/mamba.py:78",
        settings=_MAMBA,
        fix=_MAMBA_FIX,
    ),
    WhyCase(
        "sglangpr34760_dcp_auto_no_buffer.cmd",
        "b",
        "a",
        "MambaComponent.__init__",
        "strong",
        at="sglang/srt/mem_cache/unified_cache/components/mamba.py:78",
        settings=_MAMBA,
        fix=_MAMBA_FIX,
    ),
    WhyCase(
        "sglangpr28616_ngram_dp_attention.cmd",
        "b",
        "a",
        "_handle_ngram",
        "strong",
        at="sglang/srt/arg_groups/speculative_hook.py:1369",
        settings=("attn_dp_size", "ep_join_mode"),
        fix="make the condition false (attn_dp_enabled_of(view)): change --attn-dp-size, "
        "--elastic-ep-join-mode",
    ),
    WhyCase(
        "verlpr1068_load_format_dummy_dtensor.py",
        "c",
        "a",
        "LoadFormat.__call__",
        "strong",
        at="sglang/srt/server_args.py:None",
        settings=("load_format",),
        fix="LoadFormat is the enum --load-format's value becomes, so this value reached it without the "
        "parser's choices check (a keyword or a config passed in code); 'dummy_dtensor' is not a choice of "
        "--load-format in any bundled sglang release (0.4.0.post2-0.5.23); the choice spelled like it: "
        "dummy;",
    ),
    WhyCase(
        "glmimage4_sglang_serve_local_path.cmd",
        "b",
        "b",
        "_get_config_info",
        "strong",
        at="sglang/multimodal_gen/registry.py:291",
        settings=("model_path",),
        fix="make the condition false (not (len(matched_model_names) >= 1)): change --model-path",
    ),
    WhyCase("sglang36140_dflash_pd_decode.cmd", "c", "c", None, "none"),
]


def check(name: str) -> dict[str, Any]:
    options = ("--framework-version", RELEASE[name]) if name in RELEASE else ()
    return recorded_check(CASES, Launch(name, options))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 5, 14, 0], [5, 1, 14, 0])
    for case in WHY:
        # a case's class is the better of its commands: `why` alone is never better than the table says
        assert "abcd".index(CLASSES[case.name][1]) <= "abcd".index(case.grade), case.name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []
    for path in sorted(CASES.iterdir()):
        assert ", seen 2026-12-04: " in path.read_text(encoding="utf-8").splitlines()[0], path.name


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


# the alarms `check` gives now (none before any fix): each a true one
ALARMS = {"sglang18550_kv_e5m2_fa3.cmd": [("RS055", "warning")]}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_no_alarm_is_wrong(name: str) -> None:
    """No wrong alarm (d), before or after: the only warning is RS055's on sglang#18550 (the release drops
    --attention-backend fa3); what argtrace finds in the others are notes (abbreviations, deprecated flags,
    a release not named, a refused choice of a release not named)."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_sglang18550_check_says_the_backend_is_replaced() -> None:
    (rs055,) = [f for f in check("sglang18550_kv_e5m2_fa3.cmd")["findings"] if f["code"] == "RS055"]
    assert rs055["message"] == (
        "sglang 0.5.23 overrides --attention-backend fa3, --kv-cache-dtype fp8_e5m2 at start-up: it logs "
        "'FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton.' "
        "(_attention_backend_fa3_fp8_fallback, sglang/srt/arg_groups/overrides.py:1265)"
    )
    assert rs055["fix"] == (
        "change --attention-backend or --kv-cache-dtype so the release keeps what you wrote (its message "
        "says what it takes instead)"
    )


def _overrides(command: str, release: str) -> list[str]:
    argv = ["check", "--format", "json", "--no-resolve", "--framework-version", release, "-c", command]
    report = run_cli(argv).json
    return [f["message"].split(" at start-up")[0] for f in report["findings"] if f["code"] == "RS055"]


def test_rs055_reads_each_release_and_only_its_overrides() -> None:
    """Variants (not reports): 0.5.10.post1 tests the algorithm beside --enable-mixed-chunk (sglang#29811's
    pair) and says so; 0.5.14 tests --enable-mixed-chunk alone inside its EAGLE-only function, so nothing
    is said; a warning that overrides nothing (SGLang's EXPERIMENTAL decode radix cache) and the pair
    FlashAttention3 takes (fp8_e4m3) get nothing."""
    server = "python -m sglang.launch_server --model-path /m"
    spec = f"{server} --speculative-algorithm EAGLE --speculative-draft-model-path /d --enable-mixed-chunk"
    assert _overrides(spec, "0.5.10.post1") == [
        "sglang 0.5.10.post1 overrides --speculative-algorithm EAGLE, --enable-mixed-chunk"
    ]
    assert _overrides(spec, "0.5.14") == []
    decode = f"{server} --disaggregation-mode decode --disaggregation-decode-enable-radix-cache"
    assert _overrides(decode, "0.5.23") == []
    assert _overrides(f"{server} --attention-backend fa3 --kv-cache-dtype fp8_e4m3", "0.5.23") == []


def test_verl1068_check_refuses_the_keyword_as_a_note() -> None:
    """The check half of verl PR#1068: the Engine keyword is read as --load-format, and with no release named
    a choice no bundled release lists stays a note (sgl21's decision)."""
    (pa009,) = [
        f for f in check("verlpr1068_load_format_dummy_dtensor.py")["findings"] if f["code"] == "PA009"
    ]
    assert pa009["severity"] == "info"
    assert pa009["message"].startswith("argument --load-format: invalid choice: 'dummy_dtensor'")


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(WHY_TEXTS[case.name]), case, origin=False)


def test_helper_reads_follow_the_release_table() -> None:
    """Variants (not reports): a helper call anywhere in a condition, nested arguments included, and a
    derived field read on any object's attribute chain; nothing for a helper the table does not hold, nor
    for a release it does not hold (0.5.22's helpers of the same name are not assumed alike)."""
    assert helper_reads(
        "0.5.23", ["cfg.x == 'A' and attn_dp_enabled_of(resolved_view(server_args))"], []
    ) == [
        "attn_dp_enabled_of.attn_dp_size",
        "attn_dp_enabled_of.ep_join_mode",
    ]
    assert helper_reads("0.5.23", ["not self.mamba.enable_mamba_extra_buffer"], []) == [
        "self.mamba.disable_radix_cache",
        "self.mamba.mamba_radix_cache_strategy",
    ]
    assert helper_reads("0.5.23", ["frobnicate_of(cfg)"], []) == []
    assert helper_reads("0.5.22", ["attn_dp_enabled_of(view)"], []) == []
    already = ["attn_dp_enabled_of.attn_dp_size"]
    assert helper_reads("0.5.23", ["attn_dp_enabled_of(view)"], already) == [
        "attn_dp_enabled_of.ep_join_mode"
    ]


def test_other_helper_sites_name_their_flags() -> None:
    """Variants: 0.5.23's STANDALONE refusal under DP attention (the same helper, nested in its condition)
    and DFLASH's --enable-dp-lm-head check now name --attn-dp-size beside their own settings."""
    standalone = explain(
        "ValueError: Currently standalone speculative decoding does not support dp attention."
    )
    first = standalone["matches"][0]
    assert first["function"] == "_handle_eagle_family"
    assert [s["flag"] for s in first["settings"]][:2] == ["--speculative-algorithm", "--attn-dp-size"]
    dflash = explain("ValueError: DFLASH with dp attention requires --enable-dp-lm-head.")["matches"][0]
    assert "--attn-dp-size" in [s["flag"] for s in dflash["settings"]]


def test_enum_refusals_name_the_option() -> None:
    """Variants: a near miss gets the choice spelled like it; an enum of vLLM's option answers for vLLM;
    an enum no option is named after gets no match."""
    near = explain("ValueError: 'safetensor' is not a valid LoadFormat")["matches"][0]
    assert near["function"] == "LoadFormat.__call__"
    assert "the choice spelled like it: safetensors;" in near["fix"]
    impl = explain("ValueError: 'hf' is not a valid ModelImpl")["matches"][0]
    assert (impl["framework"], impl["settings"][0]["flag"]) == ("vllm", "--model-impl")
    assert explain("ValueError: 'fp8' is not a valid Color")["matches"] == []


# Each case not in class a: a word an alarm of its launch would hold if argtrace named the cause, and the
# mechanism it lacks (a strict xfail: it fails until the mechanism exists).
MISSING = {
    "glmimage4_sglang_serve_local_path.cmd": (
        "diffusion",
        "`sglang serve` sends the launch to SGLang Diffusion, whose registry matches a local model by its "
        "directory's name: the path's name, not the flag, is the cause (why says only 'change --model-path')",
    ),
    "sglang29811_mixed_chunk_mtp.cmd": (
        "mixed-chunk",
        "0.5.14 drops --enable-mixed-chunk in _handle_eagle_family, whose log site's condition reads only "
        "enable_mixed_chunk (the algorithm is tested by the caller): a logged override is not evaluated "
        "statically, and the resolver for 0.5.14 is not built",
    ),
    "sglangpr22876_mixed_chunk_extra_buffer.cmd": (
        "mixed-chunk",
        "an accuracy loss under concurrency with extra_buffer: no release refuses the pair (the PR was "
        "closed)",
    ),
    "sglangpr32591_mlx_mixed_chunk.cmd": (
        "mixed-chunk",
        "a segfault of the MLX backend's mixed batches: a bug, no release refuses the values",
    ),
    "sglang33199_dsv4_spec_max_running.cmd": (
        "max-running-requests",
        "the DeepSeek-V4 hook sets 256 before the speculative hook's 48: needs the model's config.json and "
        "the resolver (the order of the hooks)",
    ),
    "sglang33483_cuda_graph_max_bs_32.cmd": (
        "cuda-graph",
        "--cuda-graph-max-bs far below the resolved max_running_requests: the limit is the memory profile's, "
        "known only on the GPU",
    ),
    "sglang36537_qwen38_nextn_extra_buffer.cmd": (
        "extra_buffer",
        "rejected drafts after LRU eviction of eagerly materialized Mamba state: a bug of extra_buffer, "
        "no release refuses it",
    ),
    "sglangpr11401_grammar_backend_none.cmd": (
        "grammar-backend",
        "a request with response_format crashed a server launched with --grammar-backend none: the request, "
        "not the launch, and no message is quoted",
    ),
    "sglangpr35321_dflash_dp_attention.cmd": (
        "enable-dp-lm-head",
        "0.5.23's DFLASH check under DP attention names one option and tests attn_dp_enabled_of(cfg): RS032 "
        "judges only refused combinations its message names",
    ),
    "sglangpr38180_qwen4_mixed_chunk.cmd": (
        "mixed-chunk",
        "Qwen4's compressed QSA asserts on mixed batches: a model no bundled release has",
    ),
    "aiconfigurator308_moe_dense_tp_size.cmd": (
        "moe-dense-tp-size",
        "releases of January 2026 allowed only 1 or None, 0.5.14 on also tp_size: with no release named the "
        "newest accepts the value, and the older releases' refusal is not said",
    ),
    "sglang36140_dflash_pd_decode.cmd": (
        "DFLASH",
        "DFLASH has no disaggregation draft input on the decode side: a missing feature no release refuses",
    ),
    "sglangpr27399_max_running_requests_clamped.cmd": (
        "max-running-requests",
        "an explicit value above the heuristic is capped in the model runner (resolution after the memory "
        "profile): not in the argument code",
    ),
    "sglangpr23635_dsv4_max_running_requests_1.cmd": (
        "max-running-requests",
        "ReqToTokenPool's reserved row leaves no slot for --max-running-requests 1: a bug of the pool",
    ),
    "sglang33858_tokenizer_worker_num_hang.cmd": (
        "tokenizer-worker-num",
        "requests hang on queue overflow with two tokenizer workers: a bug",
    ),
}


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}


def _generator() -> Any:
    path = Path(__file__).resolve().parents[1] / "scripts" / "gen_sglang_helpers.py"
    spec = importlib.util.spec_from_file_location("gen_sglang_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Cut from sglang 0.5.23's runtime_context.py, arg_groups/model_override_base.py, arg_groups/fields/exec_.py
# (bodies cut to what is read; ``not_an_option`` and ``tp_helper`` added: neither is kept).
RUNTIME_CONTEXT = """
def attn_dp_enabled_of(cfg):
    from sglang.srt.arg_groups.model_override_base import ep_scale_joiner_of
    return cfg.attn_dp_size > 1 or ep_scale_joiner_of(cfg)

def tp_helper(cfg):
    return cfg.tp_size
"""
OVERRIDE_BASE = """
def ep_scale_joiner_of(cfg):
    return cfg.ep_join_mode is not None and cfg.not_an_option

def mamba_extra_buffer_of(cfg):
    return cfg.disable_radix_cache is False and cfg.mamba_radix_cache_strategy in ("extra_buffer",)
"""
EXEC_FIELDS = """
class ExecMamba:
    enable_mamba_extra_buffer = Derived(fn="sglang.srt.arg_groups.model_override_base.mamba_extra_buffer_of")
"""


def test_the_generator_reads_helpers_and_derived_fields(tmp_path: Path) -> None:
    wheel = tmp_path / "sglang-0.5.23-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.writestr("sglang/srt/runtime_context.py", RUNTIME_CONTEXT)
        zf.writestr("sglang/srt/arg_groups/model_override_base.py", OVERRIDE_BASE)
        zf.writestr("sglang/srt/arg_groups/fields/exec_.py", EXEC_FIELDS)
        zf.writestr("sglang/srt/managers/scheduler.py", "def ignored_of(cfg):\n    return cfg.tp_size\n")
    table = _generator().read_release(wheel, "0.5.23")
    assert table == {
        "functions": {
            "attn_dp_enabled_of": ["attn_dp_size", "ep_join_mode"],
            "ep_scale_joiner_of": ["ep_join_mode"],
            "mamba_extra_buffer_of": ["disable_radix_cache", "mamba_radix_cache_strategy"],
        },
        "derived": {"enable_mamba_extra_buffer": ["disable_radix_cache", "mamba_radix_cache_strategy"]},
    }
    bundled = json.loads(
        (Path(__file__).resolve().parents[1] / "src/argtrace/frameworks/data/sglang_helpers.json").read_text()
    )
    assert bundled["generated_by"] == "scripts/gen_sglang_helpers.py"
    assert bundled["releases"]["0.5.23"]["functions"]["attn_dp_enabled_of"] == [
        "attn_dp_size",
        "ep_join_mode",
    ]


def _overrides_generator() -> Any:
    path = Path(__file__).resolve().parents[1] / "scripts" / "gen_sglang_overrides.py"
    spec = importlib.util.spec_from_file_location("gen_sglang_overrides", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _log(message: str, conditions: list[str], *, level: str = "warning", file: str = "") -> dict[str, Any]:
    return {
        "f": file or "sglang/srt/arg_groups/overrides.py",
        "fn": "f",
        "k": "log",
        "x": level,
        "p": [message],
        "c": conditions,
        "r": [],
        "at": {"0.5.23": [10]},
    }


def test_the_overrides_table_keeps_only_judgeable_overrides() -> None:
    """gen_sglang_overrides on sites shaped like the index's: an override of two settings is kept (``view.X``
    read as ``cfg.X``); a deprecation, a warning that overrides nothing, one setting, an error-level line, a
    module outside the argument code and a setting no release has are dropped."""
    both = "view.attention_backend == 'fa3' and view.kv_cache_dtype == 'fp8_e5m2'"
    store = {
        "sites": [
            _log("Setting attention backend to triton.", [both]),
            _log("--x is deprecated; setting --y instead.", [both]),
            _log("EXPERIMENTAL: Radix cache is enabled for decode server", [both]),
            _log("Mixed chunked prefill is disabled.", ["server_args.enable_mixed_chunk"]),
            _log("Setting attention backend to triton.", [both], level="error"),
            _log("Setting attention backend to triton.", [both], file="sglang/srt/managers/scheduler.py"),
            _log("Setting it to 1.", ["cfg.tp_size > 1 and cfg.no_such_option"]),
        ]
    }
    (kept,) = _overrides_generator().table(store)
    assert kept == {
        "message": "Setting attention backend to triton.",
        "function": "f",
        "file": "sglang/srt/arg_groups/overrides.py",
        "conditions": ["cfg.attention_backend == 'fa3' and cfg.kv_cache_dtype == 'fp8_e5m2'"],
        "named": ["attention_backend", "kv_cache_dtype"],
        "at": {"0.5.23": 10},
    }
