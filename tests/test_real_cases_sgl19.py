"""SGLang batch sgl19 (docs/real_cases.md, "SGLang sgl19: router launches, parser values per release, KV
dtypes with attention backends, page sizes, torch compile, DP attention, HF/SGLANG variables"), measured
before any fix.

Twenty failure reports of 2025-2026 whose cause lies in the launch (or the settings a report names), and
five correct launches (``ok_*``, SGLang's own docs of the model gateway and DP attention). Each case under
``tests/data/real_cases_sgl19/`` names its URL in its header: ``.cmd`` launches (``argtrace check -c``), a
``.sh`` script and a compose file (``argtrace check FILE``), two ``.txt`` error texts a report quotes
without its launch (``argtrace why``); the error a launch's report quotes is in ``WHY_TEXTS``. A new user's
machine (no resolver environment, no Hugging Face cache); ``--framework-version`` only where the report
names the release (sglang#5386: 0.4.5, #7769: 0.4.8.post1, #9398: 0.4.9.post2, #17454: 0.5.6.post2); the
compose file's image tag names 0.4.4.post1, which argtrace reads itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_pyo3 import pyo3_argument
from tests.batches import (
    RECONSTRUCTED,
    WhyCase,
    assert_why_gives,
    check_case,
    shown_codes,
    table_counts,
    unsourced,
)
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl19"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (on 46b09e7) and now.
CLASSES = {
    "sglang2796_router_no_worker_urls.cmd": ("c", "a"),
    "sglang23865_cuda_graph_padding_torch_compile.cmd": ("a", "a"),
    "sglangpr14474_pd_page_size_mismatch.txt": ("a", "a"),
    "sglangpr8973_chunked_prefill_minus_one_page.cmd": ("a", "a"),
    "sglang17454_serve_torch_sdpa_qwen_image.cmd": ("d", "b"),
    "sglang4057_lora_paths_multinode.sh": ("d", "c"),
    "sglang4968_compose_torch_compile_dp.yaml": ("c", "c"),
    "sglang4160_router_launch_server_dp8.cmd": ("c", "c"),
    "sglang4497_dsv25_torch_compile_max_bs.cmd": ("c", "c"),
    "sglang5386_hf_hub_offline.cmd": ("c", "c"),
    "sglang5651_fa3_kv_fp8.cmd": ("c", "c"),
    "sglang6354_flashmla_fp8_kv.cmd": ("c", "c"),
    "sglang7769_qwen3_tool_parser_qwen25.cmd": ("c", "c"),
    "sglang7918_torch_compile_cuda_graph.txt": ("c", "c"),
    "sglang9398_embedding_auto_truncate.cmd": ("c", "c"),
    "sglang37187_gptoss_dp_attention.cmd": ("c", "c"),
    "sglang38196_ascend_page16.cmd": ("c", "c"),
    "sglangpr13182_modelscope_id_mismatch.cmd": ("c", "c"),
    "sglangpr8128_llama4_page_size.cmd": ("c", "c"),
    "sglangpr8989_prefill_decode_attention_hicache.cmd": ("c", "c"),
}
CORRECT = [
    "ok_smgguide_colaunch_router_policy.cmd",
    "ok_smgguide_dpa_deepep.cmd",
    "ok_smgguide_router_cache_aware_tuning.cmd",
    "ok_gatewaydoc_pd_policies.cmd",
    "ok_gatewaydoc_grpc_parsers.cmd",
]
# the release each report names (none is passed for the others)
RELEASE = {
    "sglang5386_hf_hub_offline.cmd": "0.4.5",
    "sglang7769_qwen3_tool_parser_qwen25.cmd": "0.4.8.post1",
    "sglang9398_embedding_auto_truncate.cmd": "0.4.9.post2",
    "sglang17454_serve_torch_sdpa_qwen_image.cmd": "0.5.6.post2",
}
# (code, severity) of the errors and warnings each launch gets now, consequences folded under a cause included
ALARMS: dict[str, list[tuple[str, str]]] = {
    "sglang23865_cuda_graph_padding_torch_compile.cmd": [("RS032", "warning")],
    # the snippet's $1 $2 $3 are the script's arguments; run without them, each word vanishes (true as posted)
    "sglang4057_lora_paths_multinode.sh": [("SH007", "warning")] * 3,
}
# the error each launch's report quotes
WHY_TEXTS = {
    "sglang2796_router_no_worker_urls.cmd": (
        "[Router (Python)] 2025-01-09 00:28:10 - ERROR - Error starting router: argument 'worker_urls': "
        "'NoneType' object cannot be converted to 'Sequence'"
    ),
    "sglangpr8973_chunked_prefill_minus_one_page.cmd": (
        "AssertionError: chunked_prefill_size must be divisible by page_size"
    ),
    "sglang17454_serve_torch_sdpa_qwen_image.cmd": (
        "No model info found for model path: /data/Qwen-Image-2512"
    ),
    "sglang4160_router_launch_server_dp8.cmd": (
        "health check is pending with error: error sending request for url (http://127.0.0.1:31000/health)"
    ),
    "sglang4497_dsv25_torch_compile_max_bs.cmd": "torch/_guards.py:283] [14/1] Error while creating guard:",
}
WHY = [
    WhyCase(
        "sglang2796_router_no_worker_urls.cmd",
        "c",
        "a",
        "pyo3 extract_argument",
        "strong",
        at="pyo3/src/impl_/extract_argument.rs:None",
        settings=("worker_urls",),
        fix="a Rust extension (built with PyO3) refused the value passed for its parameter 'worker_urls': a "
        "NoneType where it converts to Sequence; worker_urls is the dest of sglang-router's --worker-urls",
    ),
    WhyCase(
        "sglangpr8973_chunked_prefill_minus_one_page.cmd",
        "a",
        "a",
        "check_server_args",
        "strong",
        at="sglang/srt/arg_groups/validation_hook.py:244",
        settings=("chunked_prefill_size", "page_size", "disaggregation_mode"),
        fix="make the condition false (not (cfg.chunked_prefill_size % cfg.page_size == 0)): change "
        "--chunked-prefill-size, --page-size",
    ),
    WhyCase(
        "sglang17454_serve_torch_sdpa_qwen_image.cmd",
        "b",
        "b",
        "_get_config_info",
        "strong",
        at="sglang/multimodal_gen/registry.py:291",
        settings=("model_path",),
        fix="make the condition false (not (len(matched_model_names) >= 1)): change --model-path",
    ),
    WhyCase("sglang4160_router_launch_server_dp8.cmd", "c", "c", None, "none"),
    WhyCase("sglang4497_dsv25_torch_compile_max_bs.cmd", "c", "c", None, "none"),
    WhyCase(
        "sglangpr14474_pd_page_size_mismatch.txt",
        "a",
        "a",
        "CommonKVManager.try_ensure_parallel_info",
        "strong",
        at="sglang/srt/disaggregation/common/conn.py:1321",
        settings=("page_size",),
        fix="make the condition false (info.page_size is not None and info.page_size != "
        "self.kv_args.page_size): change --page-size",
    ),
    WhyCase(
        "sglang7918_torch_compile_cuda_graph.txt",
        "c",
        "c",
        "check_cuda_result",
        "weak",
        at="sglang/srt/utils/common.py:1321",
        fix="this only reports another error, the cause: 'operation not permitted when stream is capturing'",
    ),
]


def check(name: str) -> dict[str, Any]:
    options = ("--framework-version", RELEASE[name]) if name in RELEASE else ()
    return check_case(CASES, name, options)


def quoted(name: str) -> str:
    if name.endswith(".txt"):
        return (CASES / name).read_text(encoding="utf-8").splitlines()[1]
    return WHY_TEXTS[name]


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([3, 0, 15, 2], [4, 1, 15, 0])
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


@pytest.mark.parametrize("name", sorted(n for n in CLASSES if not n.endswith(".txt")))
def test_alarms_are_the_cause_or_none(name: str) -> None:
    """No wrong alarm (d): sglang#23865's refusal by 0.5.23 (the cause) and the snippet's unset script
    arguments of sglang#4057 (true of the text as posted) are the only errors and warnings."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


@pytest.mark.parametrize("case", WHY, ids=[c.name for c in WHY])
def test_why_on_the_quoted_errors(case: WhyCase) -> None:
    assert_why_gives(explain(quoted(case.name)), case, origin=False)


def test_sglang17454_a_choice_only_the_diffusion_server_takes_is_no_error() -> None:
    """was d: PA009 "argument --attention-backend: invalid choice: 'torch_sdpa'" (an error) on `sglang serve
    --attention-backend torch_sdpa --model-path /data/Qwen-Image-2512`. `sglang serve` of 0.5.6.post2 ran the
    diffusion server (the report's error is its registry's), whose --attention-backend lists torch_sdpa:
    a value only that parser takes now reads the launch as a diffusion model's (PA028, a note that says it
    is assumed), as an option only it has did before."""
    report = check("sglang17454_serve_torch_sdpa_qwen_image.cmd")
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("PA028", "info"), ("RS004", "info")]
    (note,) = [f for f in report["findings"] if f["code"] == "PA028"]
    assert note["message"].startswith(
        "--attention-backend torch_sdpa is a value that only SGLang 0.5.6.post2's diffusion server "
        "(sglang/multimodal_gen) takes: the LLM server's parser refuses it (invalid choice): read as a "
        "diffusion model's launch"
    )


@pytest.mark.parametrize(
    ("words", "codes"),
    [
        # a value both servers take: nothing says which server, the LLM server's parser judges it
        ("--attention-backend fa3", []),
        # a value neither takes: the LLM server's refusal stands
        ("--attention-backend nosuch", [("PA009", "error")]),
        ("--attention-backend=torch_sdpa", [("PA028", "info")]),
    ],
)
def test_the_choice_rule_needs_a_value_only_the_diffusion_parser_takes(
    words: str, codes: list[tuple[str, str]]
) -> None:
    """Variants (not reports): the value decides, in both spellings of the option."""
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.5.6.post2",
            "-c",
            f"sglang serve --model-path /data/m {words}",
        ]
    )
    got = [(f["code"], f["severity"]) for f in result.json["findings"] if f["code"] in ("PA009", "PA028")]
    assert got == codes


def test_sglang4057_names_the_positional_parameter_not_its_line_continuation() -> None:
    """was d: SH007 "`$2\\<newline>` is not set (in the environment argtrace was given; if the caller sets
    it, pass `--env 2=...`)": the word `$2\\` at a line's end is `$2` followed by a line continuation,
    which the shell removes before it reads the word. It is the script's second argument, like `$1`."""
    report = check("sglang4057_lora_paths_multinode.sh")
    messages = [f["message"] for f in report["findings"] if f["code"] == "SH007"]
    assert messages == [
        "`$1` is unset (the script got 0 arguments), so the unquoted word vanishes: `--tp` takes "
        "`--dist-init-addr` as its value",
        "`$2` is unset (the script got 0 arguments), so the unquoted word vanishes: `--dist-init-addr` takes "
        "`--nnodes` as its value",
        "`$3` is unset (the script got 0 arguments), so the unquoted word vanishes: `--nnodes` gets no value",
    ]


def test_sglang4968_compose_command_through_the_image_entrypoint_is_read() -> None:
    """was unread (no server start found): lmsysorg/sglang's entrypoint nvidia_entrypoint.sh runs its
    arguments, and the compose `command:` is `bash -c "python3 -m sglang.launch_server ..."`; the shell
    string is now analysed behind the entrypoint. Still c: the crash is torch compile with DP attention."""
    report = check("sglang4968_compose_torch_compile_dp.yaml")
    assert report["framework"]["version"] == "0.4.4.post1"
    assert [f["code"] for f in report["findings"]] == ["PR008", "PA007", "PA007", "PA006", "RS004"]
    dup = next(f for f in report["findings"] if f["code"] == "PA006")
    assert dup["message"].startswith("--chunked-prefill-size is given 2 times")


def test_a_docker_run_through_the_entrypoint_to_bash_c_is_read() -> None:
    """Variant (not a report): the same path for `docker run IMAGE bash -c STRING`."""
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "-c",
            "docker run lmsysorg/sglang:v0.4.4.post1-cu125 bash -c "
            "'exec python3 -m sglang.launch_server --model-path /m --dp 2'",
        ]
    )
    assert result.json["framework"]["version"] == "0.4.4.post1"
    assert [f["code"] for f in result.json["findings"]] == ["PR008", "PA007", "RS004"]


def test_sglang23865_the_refused_pair_is_named_with_the_release() -> None:
    """a as first seen: 0.5.23's ServerArgs refuses the pair (sglang PR#23903); the report's release hung
    instead. A warning, since the running release is not known."""
    (finding,) = alarms(check("sglang23865_cuda_graph_padding_torch_compile.cmd"))
    assert finding["message"].startswith(
        "sglang 0.5.23 refuses --disable-cuda-graph-padding, --enable-torch-compile at start-up: "
        "AssertionError '--disable-cuda-graph-padding is incompatible with --enable-torch-compile."
    )


def test_pyo3_wording_without_a_router_flag() -> None:
    """Variant (not a report): a parameter no router flag has is still PyO3's refusal, with no flag named;
    an integer refusal is read too; a text without the `argument 'NAME': ` prefix is not PyO3's."""
    other = pyo3_argument(
        "TypeError: argument 'block_table': 'NoneType' object cannot be converted to 'Tensor'"
    )
    assert other is not None
    assert (other["framework"], other["settings"]) == (None, [])
    assert other["fix"].endswith("give the option whose dest is block_table")
    number = pyo3_argument("argument 'port': 'str' object cannot be interpreted as an integer")
    assert number is not None and number["settings"][0]["flag"] == "--port"
    assert number["fix"].endswith("give --port a value of the form the router takes")
    assert pyo3_argument("'NoneType' object cannot be converted to 'Sequence'") is None
