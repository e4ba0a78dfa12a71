"""The twelfth batch of real launch failures (docs/real_cases.md, "Twelfth batch"), measured before any fix.

Sources beyond vLLM's and SGLang's own trackers: a cloud provider's start-command guide (the `pages` corpus),
GPUStack, AIBrix, Xinference, lm-evaluation-harness, lighteval/open-r1, rllm and a verl fork, auto-round,
SGLang's docs, SpecForge, vLLM's recipes and Intel's llm-scaler. Each case under
``tests/data/real_cases_cases12/`` names its URL on its first line: ``.cmd`` files are launches
(``argtrace check -c``), ``.txt`` files the error text a report quotes (``argtrace why``), ``ok_*`` the
correct launches collected with them. The machine is a new user's (no resolver environment, no Hugging Face
cache); the release is passed only when the report names it (aibrix#1525's v0.9.2 image). Most of the batch is
Python's own ``TypeError`` at ``EngineArgs``/``AsyncEngineArgs``/``ServerArgs`` when a program that launches
the engine hands it a keyword its release does not take: before, ``why`` said only that two releases do not
fit (b), or ranked an SGLang site sharing the interpreter's words first (d, when the keyword had hyphens).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import recorded_check, table_counts, unsourced
from tests.conftest import Launch, alarms, quoted_text, quoted_url, v

CASES = Path(__file__).resolve().parent / "data" / "real_cases_cases12"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


def found(report: dict[str, Any]) -> list[tuple[str, str, str, str | None]]:
    return [(f["code"], f["severity"], f["message"], f.get("fix")) for f in alarms(report)]


LAUNCHES = {
    "gongjiyun": Launch("gongjiyun_limit_mm_unquoted_json.cmd"),
    "gpustack4375": Launch("gpustack4375_blank_before_flag.cmd"),
    "aibrix1525": Launch("aibrix1525_offloading_connector_stock_image.cmd", v("0.9.2")),
}

CORRECT = {
    "ok_gongjiyun_limit_mm_quoted_json": Launch("ok_gongjiyun_limit_mm_quoted_json.cmd"),
    "ok_gpustack4375_no_blank": Launch("ok_gpustack4375_no_blank.cmd"),
    "ok_specforge802_sglang_tp_abbrev": Launch("ok_specforge802_sglang_tp_abbrev.cmd"),
    "ok_recipes_qwen3vl_image_only": Launch("ok_recipes_qwen3vl_image_only.cmd"),
    "ok_llmscaler264_readme_serve": Launch("ok_llmscaler264_readme_serve.cmd"),
}

# The class of each failure report by the better of `check` and `why`: first seen (on f9fc5a7) and now.
CLASSES = {
    "gongjiyun_limit_mm_unquoted_json.cmd": ("a", "a"),
    "gpustack4375_blank_before_flag.cmd": ("b", "a"),
    "aibrix1525_offloading_connector_stock_image.cmd": ("a", "a"),
    "sglang8582_tool_call_parser_llama4.txt": ("a", "a"),
    "xinference3054_hyphenated_kwarg.txt": ("d", "a"),
    "xinference4196_tool_call_parser_kwarg.txt": ("d", "a"),
    "xinference4548_task_vllm_0141.txt": ("b", "a"),
    "xinference2964_n_gpu_layers_kwarg.txt": ("b", "a"),
    "xinference2420_limit_mm_old_vllm.txt": ("b", "a"),
    "rllm208_model_hf_config_vllm_01011.txt": ("b", "a"),
    "timer1_7_model_hf_config_vllm_0102.txt": ("b", "a"),
    "autoround2243_disable_piecewise_cuda_graph.txt": ("b", "a"),
    "lmeval2706_worker_use_ray_vllm07.txt": ("b", "a"),
    "llamafactory9503_disable_log_requests_vllm_0110.txt": ("b", "a"),
    "llamafactory6523_limit_mm_vllm_053.txt": ("b", "a"),
    "llamafactory6654_limit_mm_py39_wording.txt": ("b", "a"),
    "trinityrft254_disable_log_requests_nightly.txt": ("b", "a"),
    "lighteval612_vllmmodelconfig_kwarg.txt": ("c", "c"),
    "openr1_408_generation_parameters_split.txt": ("d", "c"),
}


def test_batch_cases12_inventory_and_counts() -> None:
    """Every case file is classed or is a correct launch, and the counts are docs/real_cases.md's."""
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | {launch.file for launch in CORRECT.values()}
    assert table_counts(CLASSES) == ([3, 12, 1, 3], [17, 0, 2, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


# --- check: the launches ----------------------------------------------------------------------------------


def test_gongjiyun_brace_expansion_is_the_cause() -> None:
    """The guide's "wrong example": the unquoted JSON is split by brace expansion (SH022, with the quoting
    fix); argparse's refusal of the second word is its consequence."""
    report = check(LAUNCHES["gongjiyun"])
    assert found(report) == [
        (
            "SH022",
            "error",
            'brace expansion turns the unquoted `{"image":4,"video":0}` into 2 words: `"image":4`, '
            '`"video":0`',
            'Quote {"image":4,"video":0} at <-c>:1:101: write \'{"image":4,"video":0}\'.',
        ),
        (
            "PA001",
            "error",
            "'video:0' (after image:4) is not a value of any flag: vllm 0.33.0 rejects it with "
            '"unrecognized '
            'arguments" (exit 2)',
            None,  # a consequence: its fix is its cause's (causes.py brace-expansion, screen16)
        ),
    ]
    [cause] = [f for f in report["findings"] if f["code"] == "SH022"]
    # PA011 (a note: the first word, refused as the flag's value, at the flag) is the same cause's (sgl18)
    assert [(c["code"], c["at"]) for c in cause["consequences"]] == [
        ("PA011", "<-c>:1:79"),
        ("PA001", "<-c>:1:101"),
    ]


def test_gpustack4375_the_blank_before_the_flag_is_named() -> None:
    """was b: "not a value of any flag ... quote the value with the flag before it" (the word is a flag)."""
    assert found(check(LAUNCHES["gpustack4375"])) == [
        (
            "PA001",
            "error",
            "' --reasoning-parser=deepseek_r1' (after /var/lib/gpustack/cache/huggingface/Qwen/Qwen3-8B) "
            "is not a "
            "value of any flag: the word starts with a blank, and argparse takes a word that does not "
            "begin with "
            "'-' for a value, not for the option --reasoning-parser, so --reasoning-parser never reaches the "
            'server; vllm 0.33.0 rejects it with "unrecognized arguments" (exit 2)',
            "delete the blank before --reasoning-parser=deepseek_r1",
        )
    ]


def test_aibrix1525_the_stock_image_registers_no_aibrix_connector() -> None:
    assert found(check(LAUNCHES["aibrix1525"])) == [
        (
            "PA043",
            "error",
            "vllm 0.9.2 registers no KV connector 'AIBrixOffloadingConnectorV1Type1' (LMCacheConnector, "
            "LMCacheConnectorV1, MooncakeConnector, MooncakeStoreConnector, MultiConnector, NixlConnector, "
            'P2pNcclConnector, PyNcclConnector, SharedStorageConnector): the engine stops with "Unsupported '
            'connector type: AIBrixOffloadingConnectorV1Type1"',
            "use a connector this release registers",
        )
    ]


# variants that are not the reports: the same blank, elsewhere
@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "vllm serve Qwen/Qwen3-8B '--max-model-len 8192'",
            (
                "'--max-model-len 8192' (after Qwen/Qwen3-8B) is not a value of any flag: it is one word "
                "holding "
                "2 (`--max-model-len`, `8192`), and argparse takes an option-like word with a blank in "
                "it for a "
                "value, not for the option --max-model-len, so --max-model-len never gets its value; "
                "vllm 0.33.0 "
                'rejects it with "unrecognized arguments" (exit 2)',
                "give each of `--max-model-len`, `8192` its own word (a list item each, or unquoted on a "
                "shell "
                "line)",
            ),
        ),
        (
            "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B '--enable-metrics '",
            (
                "'--enable-metrics ' (after Qwen/Qwen3-8B) is not a value of any flag: the word ends "
                "with a blank, "
                "and argparse takes an option-like word with a blank in it for a value, not for the option "
                "--enable-metrics, so --enable-metrics never reaches the server; sglang 0.5.23 rejects "
                "it with "
                '"unrecognized arguments" (exit 2)',
                "delete the blank after --enable-metrics",
            ),
        ),
    ],
)
def test_a_word_holding_a_blank_and_a_flag_is_an_error_on_an_unknown_release(
    command: str, expected: tuple[str, str]
) -> None:
    report = check_launch_command(command)
    assert [(f["code"], f["severity"], f["message"], f["fix"]) for f in alarms(report)] == [
        ("PA001", "error", *expected)
    ]


def check_launch_command(command: str) -> dict[str, Any]:
    from tests.conftest import run_cli

    result = run_cli(["check", "--format", "json", "-c", command], cwd=CASES)
    report: dict[str, Any] = result.json
    return report


def test_a_quoted_args_variable_is_named_in_the_fix(tmp_path: Path) -> None:
    """`vllm serve MODEL "$ARGS"`: the double quotes keep the flags in one word (not a report: the common
    script form of the same mechanism)."""
    from tests.conftest import run_cli

    script = tmp_path / "serve.sh"
    script.write_text(
        '#!/bin/bash\nARGS="--max-model-len 8192 --port 8001"\nvllm serve Qwen/Qwen3-8B "$ARGS"\n'
    )
    report: dict[str, Any] = run_cli(["check", "--format", "json", "serve.sh"], cwd=tmp_path).json
    assert [(f["code"], f["severity"], f["fix"]) for f in alarms(report)] == [
        (
            "PA001",
            "error",
            "write $ARGS without the double quotes (or keep the flags in a bash array and pass "
            '"${NAME[@]}"), so that the shell splits it into 4 words',
        )
    ]


def test_sglang8582_check_keeps_the_invalid_choice_a_note_without_the_release() -> None:
    """sglang#8582's docs command, checked (the report quotes only the error): no bundled release lists
    'llama4', but a newer release might, so without --framework-version the refusal is a note (a documented
    launch of a release newer than the bundled ones, recipes/sglang_minimax_m3_tp8.cmd in the false-alarm
    gate, takes a value none of them lists). `why` on the quoted error is the case's answer."""
    report = check_launch_command(
        "python3 -m sglang.launch_server --model-path meta-llama/Llama-4-Scout-17B-16E-Instruct "
        "--tool-call-parser llama4"
    )
    assert alarms(report) == []
    refusals = [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "PA009"]
    assert refusals == [("PA009", "info")]


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_batch_cases12_correct_launches_raise_no_alarm(name: str) -> None:
    assert alarms(check(CORRECT[name])) == []


def test_llmscaler264_a_pipeline_s_redirect_is_not_the_server_s() -> None:
    """`... 2>&1 | tee /llm/vllm.log > /proc/1/fd/1 &`: `>` belongs to tee (and /proc/1/fd/1 is a stream);
    before, an SH009 note said the server's log was emptied at each start."""
    report = check(CORRECT["ok_llmscaler264_readme_serve"])
    assert [f["code"] for f in report["findings"]] == ["SH011", "PR011", "PR007", "PA007", "RS004"]


# --- why: the quoted error texts ----------------------------------------------------------------------------

WHY = {
    "xinference3054_hyphenated_kwarg.txt": (
        "Python's own TypeError at a call to AsyncEngineArgs.__init__: 'limit-mm-per-prompt' is the command "
        "line's spelling of the field limit_mm_per_prompt; a keyword argument is the field's own name, with "
        "underscores (vLLM 0.6.6.post1-0.33.0 know --limit-mm-per-prompt)",
        "write limit_mm_per_prompt instead of limit-mm-per-prompt where the option is handed to "
        "AsyncEngineArgs "
        "(as a keyword, a configuration key or an extra engine argument)",
    ),
    "xinference4196_tool_call_parser_kwarg.txt": (
        "Python's own TypeError at a call to AsyncEngineArgs.__init__: tool_call_parser is an option of "
        "vLLM's "
        "OpenAI server (`vllm serve --tool-call-parser`), not a field of the engine's arguments: no vLLM "
        "release's AsyncEngineArgs takes it, with either spelling",
        "take tool-call-parser out of the options given to AsyncEngineArgs; set it on the server's "
        "command line "
        "(`vllm serve ... --tool-call-parser VALUE`) or in the program that builds the server",
    ),
    "xinference4548_task_vllm_0141.txt": (
        "Python's own TypeError at a call to EngineArgs.__init__: vLLM 0.6.6.post1-0.9.2 know the field task "
        "(--task), 0.13.0-0.33.0 do not; 0.10.2-0.12.0 keep --task as a deprecated option (whether still a "
        "field, their command lines do not say): the caller was written for a release that has it, and the "
        "installed vLLM is one without it (bundled releases 0.6.6.post1-0.33.0)",
        "install a vLLM release that has task (0.6.6.post1-0.9.2), or a release of the calling program made "
        "for the installed vLLM",
    ),
    "xinference2964_n_gpu_layers_kwarg.txt": (
        "Python's own TypeError at a call to AsyncEngineArgs.__init__: no bundled vLLM release "
        "(0.6.6.post1-0.33.0) has a field n_gpu_layers: the caller was written for a vLLM older than "
        "0.6.6.post1 or a patched build of it, or it hands AsyncEngineArgs another engine's option or a "
        "misspelt one",
        "run the vLLM release or build the calling program names in its requirements, or remove n_gpu_layers "
        "from the options given to AsyncEngineArgs",
    ),
    "xinference2420_limit_mm_old_vllm.txt": (
        "Python's own TypeError at a call to AsyncEngineArgs.__init__: every bundled vLLM release "
        "(0.6.6.post1-0.33.0) has the field limit_mm_per_prompt (--limit-mm-per-prompt): the installed "
        "vLLM is "
        "older than 0.6.6.post1 or a build without it, and the caller was written for a newer one",
        "upgrade vLLM to the release the calling program names, or install a release of the calling program "
        "made for the installed vLLM",
    ),
    "rllm208_model_hf_config_vllm_01011.txt": (
        "Python's own TypeError at a call to EngineArgs.__init__: no bundled vLLM release "
        "(0.6.6.post1-0.33.0) "
        "has a field model_hf_config: the caller was written for a vLLM older than 0.6.6.post1 or a patched "
        "build of it, or it hands EngineArgs another engine's option or a misspelt one",
        "run the vLLM release or build the calling program names in its requirements, or remove "
        "model_hf_config from the options given to EngineArgs",
    ),
    "autoround2243_disable_piecewise_cuda_graph.txt": (
        "Python's own TypeError at a call to ServerArgs.__init__: SGLang 0.5.10.post1-0.5.13.post1 know the "
        "field disable_piecewise_cuda_graph (--disable-piecewise-cuda-graph), 0.4.0.post2-0.5.9, "
        "0.5.14-0.5.23 do not: the caller was written for a release that has it, and the installed SGLang is "
        "one without it (bundled releases 0.4.0.post2-0.5.23)",
        "install an SGLang release that has disable_piecewise_cuda_graph (0.5.10.post1-0.5.13.post1), or a "
        "release of the calling program made for the installed SGLang",
    ),
    "lmeval2706_worker_use_ray_vllm07.txt": (
        "Python's own TypeError at a call to EngineArgs.__init__: no bundled vLLM release "
        "(0.6.6.post1-0.33.0) has worker_use_ray as a current field; 0.6.6.post1 keeps --worker-use-ray as a "
        "deprecated option (whether still a field, their command lines do not say): the caller was written "
        "for an older release that had worker_use_ray, and the installed vLLM has dropped it",
        "install a vLLM release up to 0.6.6.post1 (the last that lists --worker-use-ray), or a release of "
        "the calling program made for the installed vLLM",
    ),
    # LLaMA-Factory#9503 on vLLM 0.11.0: the field became enable_log_requests in 0.10.1 (the reporter);
    # 0.10.2-0.16.0 keep the old option, deprecated, on the command line only; the releases without the field
    # have its opposite, which the fix names (session 18, vllm#23283: was "install 0.6.6.post1-0.9.2")
    "llamafactory9503_disable_log_requests_vllm_0110.txt": (
        "Python's own TypeError at a call to AsyncEngineArgs.__init__: vLLM 0.6.6.post1-0.9.2 know the field "
        "disable_log_requests (--disable-log-requests); 0.10.2-0.16.0 keep --disable-log-requests as a "
        "deprecated option (whether still a field, their command lines do not say); 0.10.2-0.33.0 turned it "
        "around into enable_log_requests: the caller was written for a release that has "
        "disable_log_requests, and the installed vLLM is a newer one",
        "replace disable_log_requests by enable_log_requests with the opposite value where the options are "
        "handed to AsyncEngineArgs (or leave both out for the new default), or install a vLLM release that "
        "has disable_log_requests (0.6.6.post1-0.9.2)",
    ),
}
# Time-R1#7 quotes rllm#208's text (a verl fork on vLLM 0.10.2; "vllm==0.6.3 worked well")
WHY["timer1_7_model_hf_config_vllm_0102.txt"] = WHY["rllm208_model_hf_config_vllm_01011.txt"]
# LLaMA-Factory#6523 (vLLM 0.5.3) and #6654 (vLLM 0.5.0 on Python 3.9, whose wording names no class: the
# traceback's source line quoted with it does) read as xinference#2420; the maintainer: "update vllm to 0.6.4"
WHY["llamafactory6523_limit_mm_vllm_053.txt"] = WHY["xinference2420_limit_mm_old_vllm.txt"]
WHY["llamafactory6654_limit_mm_py39_wording.txt"] = WHY["xinference2420_limit_mm_old_vllm.txt"]
# Trinity-RFT#254 on a vLLM nightly of 2025-09 (fixed by its PR#278 with enable_log_requests): as #9503
WHY["trinityrft254_disable_log_requests_nightly.txt"] = WHY[
    "llamafactory9503_disable_log_requests_vllm_0110.txt"
]


@pytest.mark.parametrize("name", sorted(WHY))
def test_why_places_the_refused_keyword(name: str) -> None:
    """was b (the two releases do not fit) or d (an SGLang site ranked on the interpreter's words)."""
    section = explain(quoted_text(CASES / name))
    assert section["matches"] == []
    call = section["call"]
    assert (call["meaning"], call["fix"], call["basis"]) == (*WHY[name], "schema")


@pytest.mark.parametrize(
    "name", ["lighteval612_vllmmodelconfig_kwarg.txt", "openr1_408_generation_parameters_split.txt"]
)
def test_why_says_nothing_of_vllm_for_lighteval_s_own_class(name: str) -> None:
    """c: lighteval's VLLMModelConfig is not vLLM's (its own release's keys and its parsing of
    generation_parameters are the causes); `why` keeps the interpreter's generic reading and names no vLLM
    release. open-r1#408 was d (SGLang's rank_consensus first, 0.76)."""
    section = explain(quoted_text(CASES / name))
    assert section["matches"] == []
    assert section["call"]["callee"] == "VLLMModelConfig.__init__"
    assert section["call"]["fix"].startswith("the caller and VLLMModelConfig.__init__ come from releases")
    assert "basis" not in section["call"]


def test_sglang8582_why_names_the_invalid_choice() -> None:
    section = explain(quoted_text(CASES / "sglang8582_tool_call_parser_llama4.txt"))
    top = section["matches"][0]
    assert top["function"] == "ArgumentParser._check_value"
    assert top["fix"].startswith(
        "'llama4' is not a choice of --tool-call-parser in any bundled sglang release "
        "(0.4.2.post4-0.5.23); the "
        "choices printed are those of sglang 0.4.6.post5-0.4.8.post1"
    )
    assert quoted_url(CASES / "sglang8582_tool_call_parser_llama4.txt") == (
        "https://github.com/sgl-project/sglang/issues/8582"
    )
