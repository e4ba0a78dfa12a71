"""The vLLM batch of session 21 (docs/real_cases.md, "vLLM, 21st session"), measured before any fix: an
--hf-overrides key written with a hyphen under VLLM_ALLOW_LONG_MAX_MODEL_LEN, tool and reasoning parser
names a release does not list, --disable-log-requests after its removal, two servers on one GPU through
`docker run --gpus 0`, a VLLM_API_KEY left in .bashrc, a model family newer than the release, CPU weight
offloading with a hybrid model or the V2 model runner, a quantization scheme on a 7.5 GPU. Each case under
``tests/data/real_cases_vllm21/`` names its URL on its first line: ``.cmd`` launches (``argtrace check -c``),
``.sh`` a script (``argtrace check FILE``), ``.txt`` the text a report quotes (``argtrace why``), ``ok_*``
the correct launches collected with them. The machine is a new user's (no resolver environment, no Hugging
Face cache)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why_attribute import attribute_error
from argtrace.commands.why_choice import _printed_choices
from argtrace.commands.why_unrecognized import unrecognized_site
from tests.batches import check_case, finding, shown_codes, table_counts, unsourced, why_with_release

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm21"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on cf79c54) and now.
CLASSES = {
    "vllm31709_rope_scaling_hyphen_long_len.cmd": ("c", "a"),
    "glm45_4_parsers_glm45.cmd": ("b", "b"),
    "glm45_4_reasoning_parser_choice.txt": ("a", "a"),
    "glmv144_tool_parser_glm45.txt": ("a", "a"),
    "hygon132_disable_log_requests_0181.cmd": ("a", "a"),
    "dgxspark13_disable_log_requests.txt": ("b", "a"),
    "vllm14376_second_instance_v1.cmd": ("d", "c"),
    "vllm14376_no_cache_blocks.txt": ("a", "a"),
    "vllm22407_api_key_in_bashrc.sh": ("c", "b"),
    "vllm14687_gemma3_on_073.cmd": ("c", "c"),
    "vllm14687_gemma3_vocab_size.txt": ("b", "a"),
    "vllm51396_cpu_offload_v2_runner.cmd": ("c", "c"),
    "vllm26206_cpu_offload_qwen3next.cmd": ("c", "c"),
    "vllm26206_reinit_input_batch.txt": ("a", "a"),
    "vllm25022_scheme_capability_75.txt": ("a", "a"),
}
CORRECT = [
    "ok_docs0100_reasoning_parser.cmd",
    "ok_docs083_enable_reasoning.cmd",
    "ok_docs090_api_key.cmd",
    "ok_recipes27_glm45_on_01011.cmd",
    "ok_pr24263_seed_oss_parsers.cmd",
]
# the release a report names (its text, a log line, the maintainer's reply), given as --framework-version
RELEASES = {
    "vllm31709_rope_scaling_hyphen_long_len.cmd": "0.11.2",
    "hygon132_disable_log_requests_0181.cmd": "0.18.1",
    "vllm14687_gemma3_on_073.cmd": "0.7.3",
    "vllm14687_gemma3_vocab_size.txt": "0.7.3",
    "vllm26206_cpu_offload_qwen3next.cmd": "0.11.0",
    "vllm26206_reinit_input_batch.txt": "0.11.0",
    "ok_docs0100_reasoning_parser.cmd": "0.10.0",
    "ok_docs083_enable_reasoning.cmd": "0.8.3",
    "ok_docs090_api_key.cmd": "0.9.0",
    "ok_recipes27_glm45_on_01011.cmd": "0.10.1.1",
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def first_site(name: str) -> dict[str, Any]:
    return copy.deepcopy(_why(name)["matches"][0])


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([6, 3, 5, 1], [9, 2, 4, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


def test_vllm31709_a_hyphenated_hf_overrides_key_is_lost() -> None:
    """c -> a: vLLM sets --hf-overrides' top-level keys on the HF configuration as written (setattr in
    ModelConfig._apply_dict_overrides, 0.11.2): 'rope-scaling' is read by nothing, YaRN never applies and
    VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets 87040 pass the model's 40960 until the first long request. SH007 on
    the report's unset $port stays a warning resting on the caller's environment (the line that sets it is
    not in the report)."""
    report = check("vllm31709_rope_scaling_hyphen_long_len.cmd")
    assert shown_codes(report) == [("SH007", "warning"), ("PA058", "error")]
    lost = finding(report, "PA058")
    assert lost["message"] == (
        "--hf-overrides: vllm 0.11.2 sets the key 'rope-scaling' on the model's configuration as written, "
        "and a configuration field is a Python name without a hyphen: nothing reads it, so the override is "
        "lost without a word"
    )
    assert lost["fix"] == "write rope_scaling (the field as the model's config.json spells it)"
    assert lost["setting"] == "hf_overrides"


def test_the_underscored_key_is_clean() -> None:
    """Variant (not a report): the same override spelled as the field is not PA058's."""
    from tests.conftest import run_cli

    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.11.2",
            "-c",
            "vllm serve Qwen/Qwen3-32B-FP8 --hf-overrides "
            '\'{"rope_scaling": {"rope_type": "yarn", "factor": 4.0}, "max-model-len-x": 1}\'',
        ]
    )
    codes = [f["code"] for f in result.json["findings"]]
    assert codes.count("PA058") == 1
    assert "'max-model-len-x'" in finding(result.json, "PA058")["message"]


def test_glm45_4_the_release_is_read_from_the_bare_choices_it_printed() -> None:
    """a -> a: CPython 3.12.8+ prints argparse's choices without quotes; they are vLLM 0.9.2's."""
    assert _printed_choices("deepseek_r1, granite, qwen3") == ("deepseek_r1", "granite", "qwen3")
    assert _printed_choices("'hermes', 'mistral'") == ("hermes", "mistral")
    first = first_site("glm45_4_reasoning_parser_choice.txt")
    assert first["function"] == "ArgumentParser._check_value"
    assert "'glm45' is a choice of --reasoning-parser in vllm 0.10.2, 0.11.0" in first["fix"]
    assert "the choices printed are those of vllm 0.9.2" in first["fix"]


def test_glm45_4_check_without_a_release_says_which_releases_refuse_glm45() -> None:
    """b: nothing in the command names the ROCm image's release; PR011 says 0.9.2 refuses the word."""
    report = check("glm45_4_parsers_glm45.cmd")
    assert shown_codes(report) == []
    assert "vllm 0.9.2 refuses --reasoning-parser glm45" in finding(report, "PR011")["message"]


def test_glmv144_tool_parser_releases() -> None:
    first = first_site("glmv144_tool_parser_glm45.txt")
    assert first["fix"].startswith("'glm45' is a choice of --tool-call-parser in vllm 0.10.2-0.33.0")


def test_disable_log_requests_check_and_why_name_the_replacement() -> None:
    """check was a; why b -> a: the refusing releases' spelling of the setting."""
    report = check("hygon132_disable_log_requests_0181.cmd")
    assert shown_codes(report) == [("PA003", "error")]
    assert finding(report, "PA003")["fix"] == (
        "Write --no-enable-log-requests instead of --disable-log-requests at <-c>:1:28."
    )
    first = first_site("dgxspark13_disable_log_requests.txt")
    assert first["fix"] == (
        "--disable-log-requests is taken by vllm 0.6.6.post1-0.16.0, 0.33.0: the release that refused it is "
        "not one of them; in vllm 0.17.1-0.32.0 the setting is --no-enable-log-requests"
    )
    site = unrecognized_site("vllm: error: unrecognized arguments: --enable-reasoning")
    assert site is not None and site["fix"].endswith(
        "in vllm 0.10.2-0.33.0 the setting is --reasoning-parser"
    )


def test_vllm14376_gpus_zero_is_a_count_and_latest_follows_the_analysed_release() -> None:
    """d -> c: TP042 was an error ("gives the container 0"); `--gpus 0` is a count of zero, which Docker
    Engine 27.3.0 on turns into NVIDIA_VISIBLE_DEVICES=void and older engines leave to the image: a warning
    resting on the engine. PA023 (--model under `vllm serve`) was a warning from the newest image's
    entrypoint; VLLM_USE_V1 makes 0.11.0 the analysed release, whose images ran the api_server module, so
    it is a note. The report's cause (V1 counting the first server's memory) is not read."""
    report = check("vllm14376_second_instance_v1.cmd")
    assert shown_codes(report) == [("TP042", "warning")]
    gpus = finding(report, "TP042")
    assert gpus["message"].startswith("docker run --gpus 0 asks for a count of 0 GPUs, not for GPU 0")
    assert "moby PR#48482" in gpus["message"]
    assert gpus["fix"] == "write --gpus device=0 for GPU 0 (or --gpus 1 for one GPU)"
    assert finding(report, "PA023")["severity"] == "info"
    first = first_site("vllm14376_no_cache_blocks.txt")
    assert "--gpu-memory-utilization" in first["fix"]


def test_vllm22407_a_variable_that_sets_the_api_key() -> None:
    """c -> b: RS065 says VLLM_API_KEY sets the server's key (a note: setting it is no error)."""
    report = check("vllm22407_api_key_in_bashrc.sh")
    assert shown_codes(report) == []
    note = finding(report, "RS065")
    assert note["severity"] == "info"
    assert note["message"] == (
        "VLLM_API_KEY is set, and vllm 0.33.0 reads it when --api-key is not given "
        "(vllm/entrypoints/serve/middleware/register.py:33): it sets the server's api_key; every /v1 request "
        "must then carry that key in its Authorization header, or the server answers 401"
    )
    assert note["at"] == "vllm22407_api_key_in_bashrc.sh:2:8"


def test_rs065_the_variable_read_first_loses_the_flag() -> None:
    """Variant: vLLM 0.7.3 reads `envs.VLLM_API_KEY or args.api_key`: with both, --api-key is lost."""
    from tests.conftest import run_cli

    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.7.3",
            "-c",
            "VLLM_API_KEY=a vllm serve /m --api-key b",
        ]
    )
    lost = finding(result.json, "RS065")
    assert lost["severity"] == "error"
    assert "api_server.py:751: the variable first" in lost["message"]


def test_vllm14687_a_model_family_newer_than_the_release() -> None:
    """why b -> a: Gemma3Config's family (Gemma3For...) is registered from 0.8.5.post1 among the bundled
    releases; 0.7.3 is older. check stays c: the model's architecture is in its config.json."""
    found = first_attribute("vllm14687_gemma3_vocab_size.txt")
    assert found["fix"] == "run vLLM 0.8.5.post1 or later (with the transformers release it requires)"
    assert "registers from 0.8.5.post1 on among the bundled releases, and 0.7.3 is older" in found["meaning"]
    # a family every covered release knows says nothing of the release; SGLang's tables are not vLLM's
    assert "registers from" not in attribute_error("'LlamaConfig' object has no attribute 'x'")["meaning"]
    assert (
        attribute_error("'Gemma3Config' object has no attribute 'x'", "vllm", "0.8.5.post1")["fix"]
        != (found["fix"])
    )
    assert shown_codes(check("vllm14687_gemma3_on_073.cmd")) == []


def first_attribute(name: str) -> dict[str, Any]:
    found: dict[str, Any] = copy.deepcopy(_why(name)["attribute"])
    return found


def test_cpu_offload_cases() -> None:
    """c: the hybrid block sizes (Qwen3-Next) and the V2 model runner's architectures are not read; why on
    the re-initialisation assert names --cpu-offload-gb (a)."""
    assert shown_codes(check("vllm26206_cpu_offload_qwen3next.cmd")) == []
    assert shown_codes(check("vllm51396_cpu_offload_v2_runner.cmd")) == []
    first = first_site("vllm26206_reinit_input_batch.txt")
    assert first["function"] == "GPUModelRunner.may_reinitialize_input_batch"
    assert first["fix"].endswith("change --block-size, --cpu-offload-gb")


def test_vllm25022_the_gpu_decides() -> None:
    first = first_site("vllm25022_scheme_capability_75.txt")
    assert first["function"] == "CompressedTensorsConfig._check_scheme_supported"
    assert "no launch setting changes that" in first["fix"]
