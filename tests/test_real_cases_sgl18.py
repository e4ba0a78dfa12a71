"""SGLang batch sgl18 (docs/real_cases.md, "SGLang sgl18: speculative parameters, Mamba strategies, DeepEP
modes, PD, HiCache, variables and JSON values"), measured before any fix.

Twenty failure reports of 2025-2026 whose launch (or the settings it used) and error are posted, and five
correct launches (``ok_*``). Each case under ``tests/data/real_cases_sgl18/`` names its URL in its header:
``.cmd`` launches (``argtrace check -c``), ``.sh`` scripts (``argtrace check FILE``), a ``.log`` (``argtrace
log``); the error a report quotes is given to ``argtrace why`` (``WHY``). A new user's machine (no resolver
environment, no Hugging Face cache); no report names a bundled release, so none is passed (sglang#14365's
image tag names 0.5.6, which argtrace reads itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.frameworks.env_aliases import prefix_aliases
from argtrace.frameworks.release_index import release_index
from argtrace.resolver.ast_index import env_prefix_aliases
from tests.batches import (
    RECONSTRUCTED,
    LogCase,
    WhyCase,
    assert_what_the_log_gives,
    assert_why_gives,
    check_case,
    recorded_log_report,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl18"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check`, `log` and `why`: first seen (on d078c49) and now.
CLASSES = {
    "sglang6017_decode_missing_backslash.sh": ("a", "a"),
    "sglangpr19169_extra_buffer_disable_radix.cmd": ("b", "a"),
    "ormandj12_mamba_pingpong.log": ("b", "b"),
    "sglang34676_mamba_prefill_alloc.cmd": ("b", "b"),
    "sglang14365_dsv32_docker_run.cmd": ("d", "c"),
    # RS088 since session 36 (sglmtp36): num_steps alone leaves topk None for the `topk > 1` comparison
    "aiconfigurator1383_nextn_num_steps_only.cmd": ("c", "a"),
    "sglangpr22895_nextn_num_steps_one.cmd": ("c", "a"),
    "sglangpr39430_extra_buffer_non_mamba.cmd": ("c", "c"),
    "sglangpr22462_pd_decode_extra_buffer.cmd": ("c", "c"),
    "sglang15665_pd_unquoted_sampling_params.sh": ("c", "c"),
    "sglang6218_deepep_normal_cuda_graph.cmd": ("c", "c"),
    "sglangpr11666_deepep_auto_cuda_graph.cmd": ("c", "c"),
    "sglang29942_deepep_ll_dspark_b300.cmd": ("c", "c"),
    "sglang3658_dp_attention_torch_compile.cmd": ("c", "c"),
    "sglang5372_hicache_mem_fraction_oom.cmd": ("c", "c"),
    "sglang28396_mimo_hicache_mooncake_b300.sh": ("c", "c"),
    "sglang27974_rope_override_text_config.cmd": ("c", "c"),
    "sglang21352_diffusion_config_only.sh": ("c", "c"),
    "ktransformers1854_kt_flags_fork.cmd": ("c", "c"),
    "sglangpr24188_xpu_nixl_prefill.cmd": ("c", "c"),
}
CORRECT = [
    "ok_sglangpr15591_qwen3next_nextn_spec_v2.cmd",
    "ok_sglangpr4767_deepep_low_latency.cmd",
    "ok_sglangpr1433_lora_paths_abbreviated.cmd",
    "ok_inferencex1075_qwen35_fp4_b200_mtp.sh",
    "ok_dynamo10999_qwen36_extra_buffer.sh",
]
DATA = {"sglang21352_MyCustom.yaml"}  # read by sglang21352_diffusion_config_only.sh
# (code, severity) of the errors and warnings each launch gets now, consequences folded under a cause included
ALARMS: dict[str, list[tuple[str, str]]] = {
    "sglang6017_decode_missing_backslash.sh": [("SH004", "error"), *[("SH007", "warning")] * 4],
    "sglang15665_pd_unquoted_sampling_params.sh": [
        ("SH022", "error"),
        ("PA011", "error"),
        *[("PA001", "error")] * 3,
    ],
    # RS088 (session 36): a warning, the release being assumed (nothing names it)
    "aiconfigurator1383_nextn_num_steps_only.cmd": [("RS088", "warning")],
    "sglangpr22895_nextn_num_steps_one.cmd": [("RS088", "warning")],
}
# the error each report quotes (sglang PR#19169: the ValueError the PR describes)
WHY = [
    WhyCase(
        "sglangpr19169_extra_buffer_disable_radix.cmd",
        "b",
        "a",
        "ServerArgs._handle_mamba_radix_cache",
        "strong",
        at="sglang/srt/server_args.py:2512",
        settings=("disable_radix_cache", "mamba_scheduler_strategy"),
        fix="make the condition false (self.disable_radix_cache): change --disable-radix-cache, "
        "--mamba-scheduler-strategy",
    ),
    WhyCase(
        "sglang34676_mamba_prefill_alloc.cmd",
        "b",
        "b",
        "HybridReqToTokenPool.alloc",
        "strong",
        at="sglang/srt/mem_cache/memory_pool.py:1620",
        # the derived enable_mamba_extra_buffer reads the strategy and the radix cache (sgl22's helper reads)
        settings=("mamba_full_memory_ratio", "disable_radix_cache", "mamba_radix_cache_strategy"),
        fix="make the condition false",
    ),
    WhyCase(
        "sglang6017_decode_missing_backslash.sh",
        "a",
        "a",
        "DecodeCudaGraphRunner.__init__",
        "strong",
        at="sglang/srt/model_executor/runner/decode_cuda_graph_runner.py:602",
        fix="this reports RuntimeError raised by the code it wraps",
    ),
    WhyCase("sglangpr22895_nextn_num_steps_one.cmd", "c", "c", None, "none"),
    WhyCase("sglangpr39430_extra_buffer_non_mamba.cmd", "c", "c", None, "none"),
    WhyCase("sglang21352_diffusion_config_only.sh", "c", "c", None, "none"),
    WhyCase("sglang28396_mimo_hicache_mooncake_b300.sh", "c", "c", None, "none"),
]
TEXTS = {
    "sglangpr19169_extra_buffer_disable_radix.cmd": (
        "ValueError: mamba extra_buffer is not compatible with --disable-radix-cache Overlap scheduling is "
        "already supported with no_buffer + disable_radix_cache. Please use --mamba-scheduler-strategy "
        "no_buffer instead."
    ),
    "sglang34676_mamba_prefill_alloc.cmd": "AssertionError: Not enough space for mamba ping pong idx",
    "sglang6017_decode_missing_backslash.sh": (
        "Exception: Capture cuda graph failed: Failed: Assertion error /sgl-workspace/DeepEP/csrc/"
        "deep_ep.cpp:1030 'x.size(0) == topk_idx.size(0) and x.size(0) <= num_max_dispatch_tokens_per_rank'"
    ),
    "sglangpr22895_nextn_num_steps_one.cmd": (
        "TypeError: '>' not supported between instances of 'NoneType' and 'int'"
    ),
    "sglangpr39430_extra_buffer_non_mamba.cmd": "TypeError: 'NoneType' object is not subscriptable",
    "sglang21352_diffusion_config_only.sh": "IndexError: list index out of range",
    "sglang28396_mimo_hicache_mooncake_b300.sh": (
        "RuntimeError: cudaMemcpyBatchAsync failed (invalid argument)"
    ),
}
LOG = LogCase(
    "ormandj12_mamba_pingpong.log",
    "b",
    "b",
    (("LG007", "error"), ("LG010", "info")),
    "sglang",
    "failed",
    "mamba_cache",
    "SGLang's scheduler crashed; the traceback follows (during allocating the Mamba state cache). Its "
    "traceback ends in AssertionError: Not enough space for mamba ping pong idx",
    "Read the traceback after this line",
    missing="the scheduler's allocation is not transactional (a bug); the log shows the pool at its cap",
)


def check(name: str, *options: str) -> dict[str, Any]:
    return check_case(CASES, name, options)


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT) | DATA
    assert table_counts(CLASSES) == ([1, 3, 15, 1], [4, 2, 14, 0])
    for case in [*WHY, LOG]:
        name = case.name if isinstance(case, WhyCase) else case.file
        grade = case.grade if isinstance(case, WhyCase) else case.after
        # a case's class is the better of its commands: `why` alone is never better than the table says
        assert "abcd".index(CLASSES[name][1]) <= "abcd".index(grade), name


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize("name", sorted(n for n in CLASSES if not n.endswith(".log")))
def test_alarms_are_the_cause_or_none(name: str) -> None:
    """No wrong alarm (d): sglang#6017's cut command and sglang#15665's brace expansion (true of the text
    as posted) carry their cause, every other case none."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_sglang14365_sgl_variable_is_copied_to_its_sglang_name() -> None:
    """was d: PR001 "SGL_ENABLE_JIT_DEEPGEMM is read by sglang 0.4.4.post4-0.5.2 but not by 0.5.6.post2: the
    release ignores it" (a warning). 0.5.6.post2's ``_convert_SGL_to_SGLANG`` (sglang/srt/environ.py:389)
    copies every SGL_* variable to SGLANG_* at import, and the release reads SGLANG_ENABLE_JIT_DEEPGEMM: the
    value is used, with the framework's own deprecation warning. Now PR002 as a note (c: the report's CUDA
    graph failure is not a setting argtrace can see)."""
    report = check("sglang14365_dsv32_docker_run.cmd")
    assert report["framework"]["version"] == "0.5.6"
    assert [f["code"] for f in report["findings"]] == ["PR008", "PR002", "PA007", "RS004"]
    (pr002,) = [f for f in report["findings"] if f["code"] == "PR002"]
    assert (pr002["severity"], pr002["message"]) == (
        "info",
        "SGL_ENABLE_JIT_DEEPGEMM is deprecated in sglang 0.5.6.post2; it now reads "
        "SGLANG_ENABLE_JIT_DEEPGEMM: at import it copies every SGL_* variable to SGLANG_* "
        "(sglang/srt/environ.py:389), so the value is used (with a warning)",
    )


@pytest.mark.parametrize(
    ("options", "codes"),
    [
        ((), [("PR011", "info"), ("PR002", "info"), ("RS004", "info")]),
        (("--framework-version", "0.5.2"), [("RS004", "info")]),
        (("--framework-version", "0.4.0.post2"), [("PR001", "error"), ("RS004", "info")]),
    ],
)
def test_a_copied_prefix_is_read_by_every_release_that_copies_it(
    options: tuple[str, ...], codes: list[tuple[str, str]]
) -> None:
    """Variant (not a report): with no release named the launch is analysed with the newest release (the
    variable no longer narrows it to 0.4.4.post4-0.5.2, which read the old name itself); 0.5.2 reads the
    name as written; 0.4.0.post2 reads neither, and every later release reads it (one way or the other)."""
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            *options,
            "-c",
            "SGL_ENABLE_JIT_DEEPGEMM=1 python3 -m sglang.launch_server --model-path /m --tp-size 8",
        ]
    )
    findings = result.json["findings"]
    assert [(f["code"], f["severity"]) for f in findings] == codes
    if not options:
        assert "analysed as sglang 0.5.23, " in findings[0]["message"]
        assert findings[0]["message"].endswith(
            "(accepted by 0.4.4.post4-0.5.23); sglang 0.4.0.post2-0.4.3.post4 do not know "
            "SGL_ENABLE_JIT_DEEPGEMM"
        )
    if options[-1:] == ("0.4.0.post2",):
        assert findings[0]["message"].endswith(
            "0.5.22, 0.5.23 but not by sglang 0.4.0.post2: only newer releases read it"
        )


def test_the_copied_prefix_is_generated_from_the_wheels() -> None:
    """The data (scripts/gen_env_prefix_aliases.py, from each release's wheel): SGLang 0.5.3.post3 and later
    copy SGL_ to SGLANG_ in sglang/srt/environ.py; 0.5.2 and earlier read their SGL_ names themselves."""
    assert prefix_aliases("sglang", "0.5.2") == ()
    (alias,) = prefix_aliases("sglang", "0.5.6.post2")
    assert (alias.old, alias.new, alias.where) == ("SGL_", "SGLANG_", "sglang/srt/environ.py:389")
    assert alias.renamed("SGL_ENABLE_JIT_DEEPGEMM") == "SGLANG_ENABLE_JIT_DEEPGEMM"
    assert alias.renamed("SGLANG_X") is None
    index = release_index("sglang")
    copying = [r for r in index.releases if prefix_aliases("sglang", r)]
    assert copying[0] == "0.5.3.post3" and copying[-1] == index.releases[-1]
    assert prefix_aliases("vllm", "0.33.0") == ()


def test_the_generator_reads_the_loop_not_the_names(tmp_path: Path) -> None:
    """``env_prefix_aliases`` on a minimal package: the loop that copies a prefix is found; a loop that only
    reads the environment, or renames without assigning ``os.environ``, is not."""
    pkg = tmp_path / "sglang" / "srt"
    pkg.mkdir(parents=True)
    (pkg / "environ.py").write_text(
        "import os\n"
        "def _convert_SGL_to_SGLANG():\n"
        "    for key, value in os.environ.items():\n"
        "        if key.startswith('SGL_'):\n"
        "            new_key = key.replace('SGL_', 'SGLANG_', 1)\n"
        "            os.environ[new_key] = value\n"
        "def _listed():\n"
        "    return [k.replace('A_', 'B_') for k in os.environ if k.startswith('A_')]\n"
    )
    assert env_prefix_aliases(tmp_path / "sglang", tmp_path) == [
        {"old": "SGL_", "new": "SGLANG_", "where": "sglang/srt/environ.py:3", "too_late": []}
    ]


def test_a_name_renamed_one_to_one_before_the_copy_is_not_the_copy_s(tmp_path: Path) -> None:
    """The one-to-one renames that run before the prefix copy (``_print_deprecated_env``; its argument
    order flipped in 0.5.11: ``(old_name, new_name)``) are recorded: 0.5.11-0.5.17 turn
    SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK into SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK first (sglang
    PR#38219, batch sgl17), so the copy to SGLANG_DISABLE_... is not what the release reads."""
    (alias,) = prefix_aliases("sglang", "0.5.17")
    assert "SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK" in alias.too_late
    assert alias.renamed("SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK") is None
    (environ := tmp_path / "sglang" / "srt" / "environ.py").parent.mkdir(parents=True)
    environ.write_text(
        "import os\n"
        "def _print_deprecated_env(old_name, new_name=None):\n"
        "    os.environ[new_name] = os.environ[old_name]\n"
        "def _convert():\n"
        "    _print_deprecated_env('SGLANG_GC_LOG', 'SGLANG_LOG_GC')\n"
        "    for key, value in os.environ.items():\n"
        "        if key.startswith('SGL_'):\n"
        "            os.environ[key.replace('SGL_', 'SGLANG_', 1)] = value\n"
    )
    (found_alias,) = env_prefix_aliases(tmp_path / "sglang", tmp_path)
    assert found_alias["too_late"] == ["SGLANG_GC_LOG"]


@pytest.mark.parametrize(
    ("variable", "expected"),
    [
        ("SGLANG_LOG_GC=1", []),
        (
            "SGLANG_GC_LOG=1",
            [("warning", "SGLANG_GC_LOG is deprecated in sglang 0.5.17; it now reads SGLANG_LOG_GC")],
        ),
    ],
)
def test_a_rename_is_read_in_the_order_the_release_s_code_gives(variable: str, expected: list[Any]) -> None:
    """Found while fixing the prefix copy (a wrong warning, not a report): 0.5.11 flipped
    ``_print_deprecated_env``'s arguments to ``(old_name, new_name)``, which the schemas read the other way
    round, so 0.5.11-0.5.17 called SGLANG_LOG_GC (the new name) deprecated for SGLANG_GC_LOG. The renames are
    now read by the function's parameter names (scripts/gen_env_prefix_aliases.py)."""
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.5.17",
            "-c",
            f"{variable} python3 -m sglang.launch_server --model-path /m",
        ]
    )
    said = [(f["severity"], f["message"]) for f in result.json["findings"] if f["code"].startswith("PR")]
    assert said == expected


def test_sglang15665_brace_expansion_is_one_cause() -> None:
    """c (the report's failure is Mooncake's transfer), but the posted command's one mistake was shown as two
    errors: SH022 (brace expansion splits the unquoted JSON) and PA011 (the flag's value `temperature:0.7`
    is not JSON), which sits at the flag while SH022 sits at the brace word. The setting's shell
    observation is at the brace word: PA011 is now SH022's consequence, beside the three PA001."""
    report = check("sglang15665_pd_unquoted_sampling_params.sh")
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert [f["code"] for f in errors] == ["SH022"]
    assert [c["code"] for c in errors[0]["consequences"]] == ["PA011", "PA001", "PA001", "PA001"]
    assert errors[0]["consequences"][0]["message"].startswith(
        "argument --preferred-sampling-params: invalid json.loads value: 'temperature:0.7'"
    )


def test_sglang6017_names_the_line_that_ends_the_command() -> None:
    """a: the line `--enable-deepep-moe --deepep-mode low_latency` has no backslash; --cuda-graph-bs 128 and
    the rest never reach the server (SH004, an error, first)."""
    report = check("sglang6017_decode_missing_backslash.sh")
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ("SH004", "error")
    assert first["message"].startswith(
        "line 11 starts with `--mem-fraction-static`: the line before it does not end with a backslash"
    )


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(TEXTS[case.name]), case, origin=False)


def test_a_fix_hint_names_the_raise_it_is_for() -> None:
    """sglang PR#19169 was b: `why` gave the raise of extra_buffer *with* --disable-radix-cache the hint of
    the seed's raise in the same function (``_handle_mamba_radix_cache``: "pass --mamba-scheduler-strategy
    extra_buffer ... or --disable-radix-cache", the two settings the launch already has). The hint is now
    tied to its raise's words; the seed keeps it."""
    seed = explain(
        "ValueError: Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix "
        "cache when using --mamba-scheduler-strategy no_buffer."
    )
    assert seed["matches"][0]["fix"].startswith("pass --mamba-scheduler-strategy extra_buffer (keeps")
    other = explain(TEXTS["sglangpr19169_extra_buffer_disable_radix.cmd"])
    assert "pass --mamba-scheduler-strategy extra_buffer" not in other["matches"][0]["fix"]


def test_the_mamba_log_names_the_crash_and_its_allocation() -> None:
    """b: the log's scheduler crash is placed in the Mamba state allocation, and `why` on its assertion
    names SGLang's advice (--mamba-full-memory-ratio); the non-transactional allocation is the bug."""
    assert_what_the_log_gives(recorded_log_report(CASES / LOG.file), LOG)
