"""The vLLM generalisation batch of 2026-12-03 (docs/real_cases.md, "vLLM launches of 2025-2026"), measured
before any fix: a ``--config`` YAML, ``--speculative-config`` JSON, ``--kv-transfer-config`` on a V0 engine,
tool-call and reasoning parsers, quantization and dtypes, an attention-backend variable, the mistral format
flags, ``--task`` for embedding checkpoints. Each case under ``tests/data/real_cases_vllm26/`` names its URL
on its first line: ``.cmd`` launches (``argtrace check -c``), ``.sh`` scripts (``argtrace check FILE``),
``.txt`` the error text a report quotes (``argtrace why``), ``ok_*`` the correct launches collected with
them; the two ``.yaml`` files are the ``--config`` files two launches name. The machine is a new user's (no
resolver environment, no Hugging Face cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_attribute import attribute_error
from tests.batches import check_case, shown_codes, table_counts, unsourced
from tests.conftest import alarms, quoted_text, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm26"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (on 39d6f71) and now.
CLASSES = {
    "pr18999_config_yaml_model_key.cmd": ("c", "c"),
    "vllm24888_ngram_spec_config.cmd": ("c", "c"),
    "vllm24888_speculative_config_get.txt": ("d", "b"),
    "vllm18933_nixl_connector_v100.sh": ("c", "c"),
    "vllm18933_kv_connector_base_assert.txt": ("c", "c"),
    "vllm55754_tool_parser_without_auto.cmd": ("c", "a"),
    "vllm28857_gemma3_awq_bfloat16.cmd": ("c", "c"),
    "vllm28857_awq_bfloat16.txt": ("b", "b"),
    "vllm28857_gemma3_float16.txt": ("b", "b"),
    "flashinfer720_qwen2vl_flashinfer_backend.cmd": ("c", "c"),
    "flashinfer720_qwen2vl_backend.txt": ("d", "b"),
    "vllm17609_reasoning_parser_qwen3_085post1.cmd": ("a", "a"),
    "pr17132_mistral_format_on_hf_repo.cmd": ("c", "c"),
    "pr17132_params_json.txt": ("b", "b"),
    "vllm17581_qwen3_fp8_ampere.cmd": ("c", "c"),
    "vllm21823_qwen3_embedding_without_task.cmd": ("c", "c"),
    "vllm21614_no_module_layers.txt": ("b", "b"),
    "qwen3embedding1_task_embedding_0901.cmd": ("c", "c"),
    "vllmascend2556_qwen3_embedding_without_task.cmd": ("c", "c"),
}
CORRECT = [
    "ok_pr18999_config_yaml_no_model.cmd",
    "ok_qwen3vl1492_expert_parallel_prefix.cmd",
    "ok_pr25250_eagle3_speculator.cmd",
    "ok_pr36138_draft_model_qwen3.cmd",
    "ok_euroeval1120_gpt_oss_tp2.cmd",
]
CONFIG_FILES = {"pr18999_config_with_model.yaml", "ok_pr18999_config.yaml"}
# the release a report names (a log line, a version in the text, `pip show`), given as --framework-version
RELEASES = {
    "vllm28857_gemma3_awq_bfloat16.cmd": "0.11.0",
    "flashinfer720_qwen2vl_flashinfer_backend.cmd": "0.6.3.post1",
    "vllm17581_qwen3_fp8_ampere.cmd": "0.8.5",
    "vllm21823_qwen3_embedding_without_task.cmd": "0.10.0",
    "qwen3embedding1_task_embedding_0901.cmd": "0.9.0.1",
    "vllmascend2556_qwen3_embedding_without_task.cmd": "0.10.0",
    "ok_euroeval1120_gpt_oss_tp2.cmd": "0.10.1.1",
}


def check(name: str) -> dict[str, Any]:
    release = ("--framework-version", RELEASES[name]) if name in RELEASES else ()
    return check_case(CASES, name, release)


shown = shown_codes


def finding(report: dict[str, Any], code: str) -> dict[str, Any]:
    found = [f for f in alarms(report) if f["code"] == code]
    assert len(found) == 1, shown(report)
    return found[0]


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT) | CONFIG_FILES
    assert table_counts(CLASSES) == ([1, 4, 12, 2], [2, 6, 11, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    # a named release without a schema is read from its family's bundled release: PR008 says so in a note
    # (about argtrace's reach, not the launch; a warning until this batch)
    assert shown(check(name)) == []


def test_qwen3vl1492_an_abbreviated_flag_is_a_note() -> None:
    """argparse takes `--enable-expert-paralle` as the one flag it starts (vLLM keeps allow_abbrev): the
    launch works, and argtrace says so in a note."""
    report = check("ok_qwen3vl1492_expert_parallel_prefix.cmd")
    notes = [f for f in report["findings"] if f["code"] == "PA007"]
    assert [(f["severity"], f["message"]) for f in notes] == [
        (
            "info",
            "--enable-expert-paralle is not a vllm 0.33.0 flag: argparse silently takes it as an "
            "abbreviation of --enable-expert-parallel",
        )
    ]


def test_vllm55754_a_tool_parser_without_auto_tool_choice() -> None:
    """was c: vLLM builds the tool-call parser only under --enable-auto-tool-choice (RS038); the release is
    not named, so the verdict rests on 0.33.0."""
    found = finding(check("vllm55754_tool_parser_without_auto.cmd"), "RS038")
    assert (found["severity"], found["basis"], found["message"], found["fix"]) == (
        "warning",
        "assumed",
        "--tool-call-parser hermes without --enable-auto-tool-choice: vllm 0.33.0 builds the tool-call "
        "parser only when --enable-auto-tool-choice is set (ParserManager.get_tool_parser in "
        "vllm/parser/parser_manager.py, OpenAIServingChat.__init__ in older releases; vllm "
        "0.6.3.post1-0.33.0), so hermes is never loaded: the model's tool calls come back as text and a "
        'request with tool_choice "auto" is refused ("auto" tool choice requires --enable-auto-tool-choice '
        'and --tool-call-parser to be set), and one with "required" or a named tool too '
        '(tool_choice="required" requires --tool-call-parser to be set)',
        "add --enable-auto-tool-choice (with --tool-call-parser hermes), or drop --tool-call-parser if the "
        "server takes no tool calls",
    )
    assert shown(check("vllm55754_tool_parser_without_auto.cmd")) == [("RS038", "warning")]


def test_vllm17609_the_qwen3_reasoning_parser_is_not_in_0_8_5() -> None:
    """a from the start: the image tag names 0.8.5.post1, whose --reasoning-parser choices lack qwen3."""
    found = finding(check("vllm17609_reasoning_parser_qwen3_085post1.cmd"), "PA009")
    assert (found["severity"], found["message"]) == (
        "error",
        "argument --reasoning-parser: invalid choice: 'qwen3' (choose from 'deepseek_r1', 'granite'); "
        "'qwen3' is valid in 0.9.2, 0.10.2, 0.11.0 (argparse exit 2)",
    )


def test_vllm18933_an_unset_port_variable_rests_on_the_caller() -> None:
    """The posted fragment sets VLLM_NIXL_SIDE_CHANNEL_PORT from $SIDE_CHANNEL_PORT, which the rest of the
    reporter's script defines: the warning says it rests on that variable being unset (not a wrong alarm);
    the cause (V100 runs the V0 engine, whose connector factory takes no V1 connector) is not in the
    launch."""
    report = check("vllm18933_nixl_connector_v100.sh")
    assert shown(report) == [("PR009", "warning")]
    found = finding(report, "PR009")
    assert (found["basis"], found["assumed"]) == (
        "assumed",
        [
            {
                "what": "environment",
                "value": "SIDE_CHANNEL_PORT is not set where the server starts",
                "option": "--env SIDE_CHANNEL_PORT=VALUE",
            }
        ],
    )


@pytest.mark.parametrize(
    "name",
    [
        "pr18999_config_yaml_model_key.cmd",
        "vllm24888_ngram_spec_config.cmd",
        "pr17132_mistral_format_on_hf_repo.cmd",
    ],
)
def test_the_misses_raise_no_alarm(name: str) -> None:
    """c: a dev build before the release that takes `model:` in a --config file (vLLM PR#18999), a bug of
    the --speculative-config path, a checkpoint's format: nothing in the launch shows them."""
    assert shown(check(name)) == []


@pytest.mark.parametrize(
    "name",
    [
        "vllm28857_gemma3_awq_bfloat16.cmd",
        "flashinfer720_qwen2vl_flashinfer_backend.cmd",
        "vllm17581_qwen3_fp8_ampere.cmd",
        "vllm21823_qwen3_embedding_without_task.cmd",
        "qwen3embedding1_task_embedding_0901.cmd",
        "vllmascend2556_qwen3_embedding_without_task.cmd",
    ],
)
def test_named_releases_without_a_schema_say_so_and_nothing_else(name: str) -> None:
    """c: the checkpoint's quantization and dtype, the vision encoder's backends, the GPU, the task a
    checkpoint resolves to: none is in the command. The stand-in release (0.11.0 is bundled) is a note."""
    report = check(name)
    assert shown(report) == []
    notes = [f["code"] for f in report["findings"] if f["severity"] == "info"]
    assert ("PR008" in notes) == (RELEASES[name] != "0.11.0")


def test_flashinfer720_why_names_the_qwen2_vl_site_first() -> None:
    """was d: Qwen2.5-VL's vision transformer (0.11.0-0.16.0, --mm-encoder-attn-backend) came first for a
    text about Qwen2-VL, both partial matches of 31 characters; the site whose words the text holds without
    a gap now leads (layers/log/messages.py), Qwen2.5-VL's after Qwen2-VL's."""
    matches = explain(quoted_text(CASES / "flashinfer720_qwen2vl_backend.txt"))["matches"]
    assert [(m["function"], m["message"]) for m in matches[:3]] == [
        ("Qwen2VisionAttention.__init__", "Qwen2-VL does not support {self.attn_backend} backend now."),
        ("Qwen2VisionAttention.__init__", "Qwen2-VL does not support {selected_backend} backend now."),
        (
            "Qwen2_5_VisionTransformer.__init__",
            "Qwen2.5-VL does not support {self.attn_backend} backend now.",
        ),
    ]
    assert [s["name"] for s in matches[1]["settings"]] == ["VLLM_ATTENTION_BACKEND"]


def test_vllm24888_why_ties_the_class_to_its_flag_and_names_both_readings() -> None:
    """was d: "the code and the package come from releases that do not fit" was said as the cause; the
    report's is vLLM's own arg_utils calling .get on the SpeculativeConfig its parser built. Now the class
    is tied to --speculative-config by its name, .get read as a dict's method, and both readings named."""
    found = attribute_error(quoted_text(CASES / "vllm24888_speculative_config_get.txt"))
    assert found is not None
    assert (found["class"], found["attribute"], found["framework"], found["flag"], found["basis"]) == (
        "SpeculativeConfig",
        "get",
        "vllm",
        "--speculative-config",
        "assumed",
    )
    assert found["meaning"] == (
        "Python's own AttributeError: the SpeculativeConfig object has no attribute 'get'; SpeculativeConfig "
        "is the object vLLM builds from --speculative-config (by the name), and .get is a dict's method: the "
        "code took it for the JSON object --speculative-config was given, while the value had already been "
        "built into the object; either the code reading SpeculativeConfig.get and the package defining "
        "SpeculativeConfig come from releases that do not fit, or that code reads the wrong object on this "
        "path (a bug of the release); the traceback's innermost frame, not in this text, tells which"
    )


def test_an_attribute_error_on_a_class_no_flag_builds_names_both_readings() -> None:
    """The variant without a flag: no flag is named, both readings are."""
    found = attribute_error("AttributeError: 'Qwen2Tokenizer' object has no attribute 'get'")
    assert found is not None
    assert "flag" not in found
    assert found["meaning"].endswith(
        "so no launch flag is named by it; either the code reading Qwen2Tokenizer.get and the package "
        "defining Qwen2Tokenizer come from releases that do not fit, or that code reads the wrong object on "
        "this path (a bug of the release); the traceback's innermost frame, not in this text, tells which"
    )


@pytest.mark.parametrize(
    ("name", "function", "settings"),
    [
        ("vllm28857_awq_bfloat16.txt", "_get_quantization_config", ["dtype", "quantization"]),
        ("vllm28857_gemma3_float16.txt", "_check_valid_dtype", []),
        ("pr17132_params_json.txt", "load_params_config", []),
        ("vllm21614_no_module_layers.txt", "AutoWeightsLoader._load_module", []),
    ],
)
def test_why_finds_the_raise_but_not_the_launch_setting(
    name: str, function: str, settings: list[str]
) -> None:
    """b: the site is right; its condition reads a parameter (dtype), a file's absence (params.json) or a
    checkpoint's weights (layers), not a flag argtrace can name."""
    first = explain(quoted_text(CASES / name))["matches"][0]
    assert (first["framework"], first["function"], first["how"]) == ("vllm", function, "full")
    assert [s["name"] for s in first["settings"]] == settings


def test_vllm18933_why_has_no_site_for_a_bare_assert() -> None:
    """c: `assert issubclass(connector_cls, KVConnectorBase)` has no message, and the message index holds
    raises and asserts with a message only."""
    assert explain(quoted_text(CASES / "vllm18933_kv_connector_base_assert.txt"))["matches"] == []


def test_rs038_variants() -> None:
    """Not a report: the pair given, SGLang (its parser needs no such flag), and releases of each reading."""
    both = run_cli(
        [
            "check",
            "--format",
            "json",
            "-c",
            "vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser hermes",
        ]
    ).json
    assert [f for f in alarms(both) if f["code"] == "RS038"] == []
    sglang = run_cli(
        [
            "check",
            "--format",
            "json",
            "-c",
            "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tool-call-parser qwen25",
        ]
    ).json
    assert [f for f in alarms(sglang) if f["code"] == "RS038"] == []
    old = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.8.5.post1",
            "-c",
            "vllm serve Qwen/Qwen3-8B --tool-call-parser hermes",
        ]
    ).json
    found = [f for f in alarms(old) if f["code"] == "RS038"]
    assert [(f["severity"], f["basis"]) for f in found] == [("warning", "framework-code")]
    assert found[0]["message"].endswith(
        "so hermes is never loaded: the model's tool calls come back as text and a request with "
        'tool_choice "auto" is refused ("auto" tool choice requires --enable-auto-tool-choice and '
        "--tool-call-parser to be set)"
    )
