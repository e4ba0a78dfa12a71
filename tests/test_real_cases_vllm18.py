"""The vLLM batch of session 18 (docs/real_cases.md, "vLLM, 18th session"), measured before any fix:
speculative decoding with pipeline parallelism, KV connectors and removed flags per release, `--config`
YAML files whose mapping a release hands a JSON flag as its Python repr, `--task` after its removal (its
value then taken as the model), keywords an engine class no longer takes (one turned around into its
opposite), a RoPE scaling type, the model only in a config file. Each case under
``tests/data/real_cases_vllm18/`` names its URL on its first line: ``.cmd`` launches (``argtrace check
-c``), ``.txt`` the error text a report quotes (``argtrace why``), ``.yaml`` a config file a launch reads,
``ok_*`` the correct launches collected with them. The machine is a new user's (no resolver environment, no
Hugging Face cache)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import check_case, finding, shown_codes, table_counts, unsourced, why_with_release
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm18"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on d078c49) and now.
CLASSES = {
    "mooncake421_kv_transfer_0641.cmd": ("c", "c"),
    "mooncake421_kv_transfer_0641.txt": ("a", "a"),
    "vllm14117_pp_spec_deepseek.cmd": ("c", "c"),
    "vllm36643_qwen35_pp_mtp.cmd": ("c", "c"),
    "vllm7456_spec_model_pp.cmd": ("c", "c"),
    "pr33196_yaml_dict_hf_overrides.cmd": ("c", "b"),
    "pr33196_yaml_dict_hf_overrides.txt": ("b", "a"),
    "nemorl870_logprobs_mode.txt": ("a", "a"),
    "unsloth2002_compilation_config.txt": ("a", "a"),
    "vllm23283_disable_log_requests.txt": ("b", "a"),
    "vllm6689_rope_extended.cmd": ("c", "c"),
    "vllm6689_rope_extended.txt": ("a", "a"),
    "vllm35603_task_embedding.cmd": ("b", "b"),
    "vllm35603_task_embedding.txt": ("a", "a"),
    "vllmfl127_task_embed_0130.cmd": ("a", "a"),
    "nat1675_task_embed_pooler.cmd": ("d", "b"),
    "ray64504_unknown_engine_argument_task.txt": ("c", "c"),
    "vllm14819_config_model_only.cmd": ("c", "c"),
}
CONFIG_FILES = ["pr33196_config.yaml", "vllm14819_config_model_only.yaml"]
CORRECT = [
    "ok_recipes657_async_scheduling.cmd",
    "ok_pr32359_async_scheduling_pp.cmd",
    "ok_nat1675_runner_pooling.cmd",
    "ok_pr39539_ministral_mistral_format.cmd",
    "ok_pr16729_compilation_config_literal.cmd",
]
# the release a report names (its title, a log line, a version in the text), given as --framework-version
RELEASES = {
    "mooncake421_kv_transfer_0641.cmd": "0.6.4.post1",
    "mooncake421_kv_transfer_0641.txt": "0.6.4.post1",
    "unsloth2002_compilation_config.txt": "0.6.1.post1",
    "vllm6689_rope_extended.cmd": "0.5.3.post1",
    "vllm6689_rope_extended.txt": "0.5.3.post1",
    "vllmfl127_task_embed_0130.cmd": "0.13.0",
    "nat1675_task_embed_pooler.cmd": "0.16.0",
    "ok_nat1675_runner_pooling.cmd": "0.16.0",
    "ok_recipes657_async_scheduling.cmd": "0.24.0",
    "ok_pr39539_ministral_mistral_format.cmd": "0.19.1",
}


def check(name: str, release: str | None = None) -> dict[str, Any]:
    version = release or RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


def why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


shown = shown_codes


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT) | set(CONFIG_FILES)
    assert table_counts(CLASSES) == ([6, 3, 8, 1], [8, 3, 7, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown(check(name)) == []


@pytest.mark.parametrize("release", ["0.6.6.post1", "0.7.3", "0.8.5.post1"])
def test_pr16729_a_python_dict_literal_where_from_cli_reads_literals(release: str) -> None:
    """Was a wrong error (PA011 "is not valid JSON ... the parser keeps the string") on the docs' own
    example: CompilationConfig.from_cli reads anything but 0-3 with ast.literal_eval in these releases
    (vllm/config.py:3529 in 0.8.5.post1; frameworks/data/vllm_from_cli.json), so the dict literal is
    taken and stored."""
    report = check("ok_pr16729_compilation_config_literal.cmd", release)
    assert shown(report) == []
    effective = {s["name"]: s["effective"] for s in report["settings"]}
    assert effective["compilation_config"] == {"cudagraph_capture_sizes": [1, 2, 4, 8]}


def test_pr16729_the_same_literal_from_0_9_is_refused_with_its_json() -> None:
    """From 0.9 the flag is parsed as JSON (parse_dataclass's validate_json): the refusal is real, and the
    fix is the same object written as JSON."""
    report = check("ok_pr16729_compilation_config_literal.cmd", "0.9.2")
    assert shown(report) == [("PA011", "error")]
    assert finding(report, "PA011")["fix"] == (
        "write it as JSON, double quotes inside and single quotes around: "
        "'{\"cudagraph_capture_sizes\": [1, 2, 4, 8]}'"
    )


def test_from_cli_still_refuses_what_its_code_refuses() -> None:
    """KVTransferConfig.from_cli is model_validate_json (JSON only); CompilationConfig.from_cli's
    literal_eval refuses a bare name: both are argparse's "invalid from_cli value" (exit 2)."""
    report = check_case(
        CASES,
        "ok_pr16729_compilation_config_literal.cmd",
        ("--framework-version", "0.7.3"),
    )
    assert shown(report) == []
    refused = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.7.3",
            "-c",
            "vllm serve m --compilation-config '{level: 3}' --kv-transfer-config \"{'kv_connector': 'x'}\"",
        ]
    ).json
    messages = [f["message"] for f in alarms(refused)]
    assert [m.split(": invalid")[0] for m in messages] == [
        "argument --compilation-config/-O",
        "argument --kv-transfer-config",
    ]
    assert all("invalid from_cli value" in m for m in messages)


def test_nat1675_the_removed_flags_value_takes_the_model_slot() -> None:
    """was d: PA001 said the model 'ssmits/...' was a stray word to "remove"; argparse left --task over
    alone and took 'embed' as model_tag, so the model had no place. The word's PA001 now says so and is a
    consequence of --task's PA003, whose fix removes the value too."""
    report = check("nat1675_task_embed_pooler.cmd")
    causes = [(f["code"], f["severity"]) for f in report["findings"] if f["severity"] != "info"]
    assert causes == [("PA003", "error"), ("PA003", "error")]
    task = report["findings"][0]
    assert task["message"].endswith("; argparse then reads the word after it, 'embed', as model_tag")
    assert task["fix"] == "remove the flag and 'embed' after it, or pin the older release"
    (consequence,) = task["consequences"]
    assert consequence["code"] == "PA001"
    assert consequence["message"] == (
        "'ssmits/Qwen2-7B-Instruct-embed-base' (after 8001) is not a value of any flag: vllm 0.16.0 does not "
        "know --task, so argparse took the word after it, 'embed', as model_tag, and "
        "'ssmits/Qwen2-7B-Instruct-embed-base' has no place left: \"unrecognized arguments\" (exit 2)"
    )
    assert {s["name"]: s["effective"] for s in report["settings"]}["model_tag"] == "embed"
    # the release line's own deprecation message names --override-pooler-config's replacement
    # (frameworks/data/flag_replacements.json, from the message index)
    assert report["findings"][1]["fix"] == (
        "remove the flag; its deprecation message said to use --pooler-config instead (vllm/config/model.py "
        "(ModelConfig.__post_init__), vllm 0.11.0-0.11.2); or pin the older release"
    )


def test_vllmfl127_task_with_its_value_left_over() -> None:
    """a: the model came first, so 'embed' is left over with --task (PA003 alone)."""
    report = check("vllmfl127_task_embed_0130.cmd")
    assert shown(report) == [("PA003", "error")]
    assert finding(report, "PA003")["fix"] == "remove the flag, or pin the older release"


@pytest.mark.parametrize("release", ["0.11.0", "0.15.1"])
def test_pr33196_a_yaml_mapping_reaches_the_flag_as_its_repr(release: str) -> None:
    """The releases whose load_config_file ends in str(value) (0.6.6.post1-0.15.1, read from each wheel:
    frameworks/data/vllm_config_file.json) hand --hf-overrides the mapping's Python repr: PA011, whose fix
    rewrites the YAML value as a JSON string. 0.12.0-0.15.1 used to be read as passing JSON (clean)."""
    report = check("pr33196_yaml_dict_hf_overrides.cmd", release)
    assert shown(report) == [("PA011", "error")]
    pa011 = finding(report, "PA011")
    assert pa011["message"] == (
        "argument --hf-overrides: Value {'architectures': ['Qwen3ForCausalLM']} cannot be converted to "
        "<function loads>. (argparse exit 2)"
    )
    assert pa011["fix"].startswith(
        "in pr33196_config.yaml, write hf_overrides as a JSON string in single quotes (hf_overrides: "
        '\'{"architectures": ["Qwen3ForCausalLM"]}\'): vllm '
    )
    assert pa011["fix"].endswith("which json.loads refuses; vllm 0.16.0 and later pass a mapping as JSON")


def test_pr33196_unnamed_release_notes_the_releases_that_refuse_it() -> None:
    """c -> b: the release is not named (main between 0.15 and 0.16); analysed as 0.33.0, which passes the
    mapping as JSON, the older releases that pass its repr are a note (PA052)."""
    report = check("pr33196_yaml_dict_hf_overrides.cmd")
    assert shown(report) == []
    note = finding(report, "PA052")
    assert (note["severity"], note["setting"]) == ("info", "hf_overrides")
    assert note["message"] == (
        "pr33196_config.yaml: `hf_overrides` is a YAML mapping: vllm 0.33.0 passes it to --hf-overrides as "
        "JSON, but vllm 0.6.6.post1-0.15.1 pass its Python repr (str(value) in their load_config_file), "
        "which json.loads refuses: on those releases the server stops at parsing"
    )


def test_pr33196_why_reads_the_repr_as_a_config_files_or_programs() -> None:
    """was b: "give it valid JSON, in single quotes", a command line's fix for a value nobody typed."""
    first = why("pr33196_yaml_dict_hf_overrides.txt")["matches"][0]
    assert first["function"] == "parse_type._parse_type"
    assert first["fix"] == (
        "--hf-overrides is read with json.loads (the text's <function loads>), which refused "
        "\"{'architectures': ['Qwen3ForCausalLM']}\": the value is a Python dict's repr, not JSON: vLLM's "
        "--config file reader turns a YAML mapping into str(value) before vllm 0.16.0, and so does a "
        "program that passes str(dict); in the YAML file write it as a JSON string (hf_overrides: "
        '\'{"architectures": ["Qwen3ForCausalLM"]}\'), from a program pass json.dumps(value)'
    )


def test_vllm23283_a_keyword_turned_around_names_its_opposite() -> None:
    """was b: the fix said to install 0.6.6.post1-0.9.2; 0.10.2 on have enable_log_requests instead."""
    call = why("vllm23283_disable_log_requests.txt")["call"]
    assert call["fix"] == (
        "replace disable_log_requests by enable_log_requests with the opposite value where the options are "
        "handed to AsyncEngineArgs (or leave both out for the new default), or install a vLLM release that "
        "has disable_log_requests (0.6.6.post1-0.9.2)"
    )
    assert "0.10.2-0.33.0 turned it around into enable_log_requests" in call["meaning"]


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        (
            "nemorl870_logprobs_mode.txt",
            "install a vLLM release that has logprobs_mode (0.10.2-0.33.0), or a release of the calling "
            "program made for the installed vLLM",
        ),
        (
            "unsloth2002_compilation_config.txt",
            "upgrade vLLM to the release the calling program names, or install a release of the calling "
            "program made for the installed vLLM",
        ),
    ],
)
def test_engine_keywords_a_release_lacks(name: str, fix: str) -> None:
    assert why(name)["call"]["fix"] == fix


@pytest.mark.parametrize(
    ("name", "flag", "fix"),
    [
        (
            "vllm35603_task_embedding.txt",
            "task",
            "--task is taken by vllm 0.6.6.post1-0.12.0: the release that refused it is not one of them",
        ),
        (
            "mooncake421_kv_transfer_0641.txt",
            "kv_transfer_config",
            "--kv-transfer-config is taken by vllm 0.6.6.post1-0.33.0: the release that refused it is not "
            "one of them",
        ),
    ],
)
def test_unrecognized_flags_per_release(name: str, flag: str, fix: str) -> None:
    first = why(name)["matches"][0]
    assert (first["function"], [s["name"] for s in first["settings"]], first["fix"]) == (
        "FlexibleArgumentParser.parse_args",
        [flag],
        fix,
    )


def test_vllm6689_the_rope_scaling_site() -> None:
    first = why("vllm6689_rope_extended.txt")["matches"][0]
    assert (first["function"], first["file"], [s["name"] for s in first["settings"]]) == (
        "get_rope",
        "vllm/model_executor/layers/rotary_embedding.py",
        ["rope_scaling"],
    )


def test_vllm35603_unnamed_release_reads_task_as_deprecated() -> None:
    """b: with no release named, the newest release that takes --task (0.12.0) is analysed; --task is a
    note there (PA005), not the refusal the report's 2026 release gives."""
    report = check("vllm35603_task_embedding.cmd")
    assert shown(report) == []
    assert finding(report, "PA005")["message"] == (
        "--task is deprecated in vllm 0.12.0: the parser marks it deprecated"
    )


@pytest.mark.parametrize(
    "name",
    [
        "mooncake421_kv_transfer_0641.cmd",
        "vllm14117_pp_spec_deepseek.cmd",
        "vllm36643_qwen35_pp_mtp.cmd",
        "vllm7456_spec_model_pp.cmd",
        "vllm6689_rope_extended.cmd",
        "vllm14819_config_model_only.cmd",
    ],
)
def test_the_launches_missed_raise_no_alarm(name: str) -> None:
    """c: a flag newer than a release with no bundled schema (0.6.4.post1), speculative decoding with
    pipeline parallelism (V0's create_spec_worker refuses it in 0.6.5-0.9.2; a 2026 MTP draft without
    SupportsPP), a RoPE scaling type, the model in a config file of a release that wants it on the command
    line: none is modelled, and nothing wrong is said instead (PR008, the stand-in release, is a note)."""
    assert shown(check(name)) == []
