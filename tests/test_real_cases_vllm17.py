"""The vLLM batch of session 17 (docs/real_cases.md, "vLLM, 17th session"), measured before any fix: LoRA
on a model class without LoRA, GGUF files whose architecture transformers cannot convert, a request naming a
model the server does not serve, a flag newer than the release, JSON flags given key=value, the -O shorthand,
pipeline parallelism per architecture, --max-lora-rank's allowed values, --max-num-batched-tokens. Each case
under ``tests/data/real_cases_vllm17/`` names its URL on its first line: ``.cmd`` launches (``argtrace check
-c``), ``.txt`` the error text a report quotes (``argtrace why``), ``ok_*`` the correct launches collected
with them (one ``.sh``). The machine is a new user's (no resolver environment, no Hugging Face cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import check_case, finding, shown_codes, table_counts, unsourced, why_with_release
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm17"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 5eb8d65) and now.
CLASSES = {
    "qwenomni302_enable_lora_omni.cmd": ("c", "c"),
    "qwenomni302_omni_lora.txt": ("b", "a"),
    "vllm18059_mistral3_lora.txt": ("b", "a"),
    "vllm15277_gguf_deepseek2.txt": ("d", "a"),
    "vllm42229_gguf_deepseek_v4.cmd": ("c", "c"),
    "vllm33229_gguf_minimax_docker.cmd": ("c", "c"),
    "vllm33229_gguf_minimax.txt": ("c", "a"),
    "longbench102_model_does_not_exist.txt": ("b", "a"),
    "vllm27347_all2all_backend_flag.txt": ("a", "a"),
    "mobileagent162_limit_mm_key_value.txt": ("b", "a"),
    "vllm7993_gguf_without_extension.cmd": ("c", "c"),
    "vllm22301_gpt_oss_on_0100.cmd": ("c", "c"),
    "vllm28150_compilation_mode_name.cmd": ("c", "c"),
    "truss1752_max_lora_rank.txt": ("a", "a"),
    "vllm9015_pp_architectures.txt": ("a", "a"),
    "discuss1602_large_max_num_batched_tokens.cmd": ("c", "c"),
    "vllm11260_tpu_pipeline_parallel.cmd": ("c", "c"),
}
CORRECT = [
    "ok_pr26732_all2all_backend_flag.cmd",
    "ok_pr13505_guided_backend_options.cmd",
    "ok_vllm16883_ngram_v0.sh",
    "ok_pr13620_max_num_batched_tokens.cmd",
    "ok_pr7784_sharded_state.cmd",
]
# the release a report names (a log line, a version in the text or its title), given as --framework-version
RELEASES = {
    "vllm15277_gguf_deepseek2.txt": "0.8.1",
    "vllm33229_gguf_minimax_docker.cmd": "0.15.1",
    "vllm33229_gguf_minimax.txt": "0.14.0",
    "vllm7993_gguf_without_extension.cmd": "0.5.5",
    "vllm22301_gpt_oss_on_0100.cmd": "0.10.0",
    "vllm9015_pp_architectures.txt": "0.6.2",
    "ok_vllm16883_ngram_v0.sh": "0.8.4",
}


def check(name: str) -> dict[str, Any]:
    release = ("--framework-version", RELEASES[name]) if name in RELEASES else ()
    return check_case(CASES, name, release)


def why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


shown = shown_codes


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([3, 4, 9, 1], [9, 0, 8, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown(check(name)) == []


@pytest.mark.parametrize(
    "name",
    [
        "qwenomni302_enable_lora_omni.cmd",
        "vllm42229_gguf_deepseek_v4.cmd",
        "vllm33229_gguf_minimax_docker.cmd",
        "vllm22301_gpt_oss_on_0100.cmd",
        "vllm28150_compilation_mode_name.cmd",
        "discuss1602_large_max_num_batched_tokens.cmd",
        "vllm11260_tpu_pipeline_parallel.cmd",
    ],
)
def test_the_launches_missed_raise_no_alarm(name: str) -> None:
    """c: the model class's LoRA support, a GGUF header's architecture, the model a release knows, a value
    the config class's validator refuses later, memory at the profile run, the TPU platform: none is in the
    command line, and nothing wrong is said instead."""
    assert shown(check(name)) == []


def test_vllm7993_a_release_without_a_schema_is_said_so() -> None:
    """c: 0.5.5 has no bundled schema nor family: PR008 says the launch is read with another release (a
    note about argtrace's reach, not about the launch); the file name without .gguf is not modelled."""
    report = check("vllm7993_gguf_without_extension.cmd")
    assert shown(report) == []
    assert finding(report, "PR008")["severity"] == "info"


def test_vllm15277_transformers_gguf_message_is_not_rocms() -> None:
    """was d: with 0.8.1 named, vLLM's "Model architecture '{model_arch}' is not supported by ROCm for now."
    came first as a strong match (31 characters, partial); the text goes on with "yet" where that message
    goes on with "by", and its wording is transformers' GGUF loader's: the site is a candidate only and the
    text's origin names --hf-config-path."""
    section = why("vllm15277_gguf_deepseek2.txt")
    assert section["confidence"] == "weak"
    assert (
        section["reasons"][-1] == "the text's message goes on with 'yet' where the site's goes on with 'by'"
    )
    assert section["origin"] == {
        "origin": "transformers' GGUF loader: it has no config mapping for this GGUF file's architecture "
        "(vLLM builds the model's config from the GGUF header through it unless --hf-config-path names the "
        "original model's config)",
        "basis": "wording",
        "evidence": "GGUF model with architecture deepseek2 is not supported yet",
        "source": "https://github.com/vllm-project/vllm/issues/15277",
    }


def test_vllm33229_the_same_wording_for_another_architecture() -> None:
    section = why("vllm33229_gguf_minimax.txt")
    assert section["confidence"] == "weak"
    assert section["origin"]["evidence"] == "GGUF model with architecture minimax-m2 is not supported yet"


def test_longbench102_a_request_field_is_not_a_launch_setting() -> None:
    """was b: `{request.model}` was tied to --model and the fix said "change --model"; the request's model
    is what the client sent, and the names the server accepts are --served-model-name's."""
    first = why("longbench102_model_does_not_exist.txt")["matches"][0]
    assert (first["function"], first["settings"]) == ("BaseServing._maybe_get_adapters", [])
    assert first["fix"] == (
        "raised for a request: it prints the request's `model`, not a launch setting; change what the "
        "client sends; the server accepts the values given with --served-model-name"
    )


def test_mobileagent162_a_json_converter_refusal_gives_the_json() -> None:
    """was b: "the text after the message is the cause"; the text names json.loads, the value is key=value."""
    first = why("mobileagent162_limit_mm_key_value.txt")["matches"][0]
    assert first["function"] == "parse_type._parse_type"
    assert first["fix"] == (
        "--limit-mm-per-prompt is read with json.loads (the text's <function loads>), which refused "
        "'image=5': this release takes JSON here, not key=value pairs: write them as one JSON object in "
        "single quotes: --limit-mm-per-prompt '{\"image\": 5}'"
    )


def test_qwenomni302_the_lora_switch_is_named() -> None:
    """was b: the fix named VLLM_TEST_DYNAMO_FULLGRAPH_CAPTURE and --compilation-config, which load_model
    also reads; the conditions read self.lora_config (built only under --enable-lora) and self.model."""
    first = why("qwenomni302_omni_lora.txt")["matches"][0]
    assert (first["function"], first["conditions"]) == (
        "GPUModelRunnerBase.load_model",
        ["self.lora_config", "not (supports_lora(self.model))"],
    )
    assert (
        first["fix"]
        == "make the condition false (not (supports_lora(self.model))): change --enable-lora, --model"
    )


def test_vllm18059_v1s_lora_check_names_the_model_and_the_switch() -> None:
    """b -> a (session 29, commands/why.py's interface reads): V1's LoRAModelRunnerMixin.load_lora_model
    checks the model class only (``not supports_lora(model)``), which names the model and the switch that
    makes ``lora_config``, as V0's GPUModelRunnerBase.load_model reads them."""
    first = why("vllm18059_mistral3_lora.txt")["matches"][0]
    assert (first["function"], [s["flag"] for s in first["settings"]], first["fix"]) == (
        "LoRAModelRunnerMixin.load_lora_model",
        ["--model", "--enable-lora"],
        "make the condition false (not supports_lora(model)): change --model, --enable-lora",
    )


@pytest.mark.parametrize(
    ("name", "function", "flags"),
    [
        ("truss1752_max_lora_rank.txt", "LoRAConfig.__post_init__", ["--max-lora-rank"]),
        (
            "vllm9015_pp_architectures.txt",
            "ModelConfig.verify_with_parallel_config",
            ["--pipeline-parallel-size", "--model"],
        ),
    ],
)
def test_why_names_the_site_and_the_flags(name: str, function: str, flags: list[str]) -> None:
    first = why(name)["matches"][0]
    assert first["function"] == function
    assert [s["flag"] for s in first["settings"]] == flags


def test_vllm27347_a_flag_newer_than_the_release() -> None:
    first = why("vllm27347_all2all_backend_flag.txt")["matches"][0]
    assert (
        first["fix"]
        == "--all2all-backend is taken by vllm 0.11.2-0.33.0: the release that refused it is not one of them"
    )


@pytest.mark.parametrize(
    ("release", "effective"),
    [
        ("0.11.2", {"model_tag": "M", "compilation_config": {"mode": 3}, "compilation_config.mode": 3}),
        ("0.12.0", {"model_tag": "M", "optimization_level": "3"}),
    ],
)
def test_dash_o_shorthand_per_release(release: str, effective: dict[str, Any]) -> None:
    """Found on vllm#28150 (not a report): 0.11.1-0.11.2 turn -O3 into the dotted -O.mode=3 of -O, their
    alias of --compilation-config (argparse_utils.py:255-267 of the 0.11.2 wheel); argtrace read it as
    0.12's --optimization-level and said 0.11.2 refuses it (PA004 error). From 0.12.0 -O3 is
    --optimization-level 3."""
    report = run_cli(
        ["check", "--format", "json", "--framework-version", release, "-c", "vllm serve M -O3"]
    ).json
    assert alarms(report) == []
    assert {s["name"]: s["effective"] for s in report["settings"]} == effective
