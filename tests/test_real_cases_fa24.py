"""The 2026-12-04 wrong-alarm sweep, third (fa24): 35 working launches of 2025-2026 from sources argtrace
had not seen (each repository and path grepped in tests/ and docs/ first): RL frameworks' and evaluation
harnesses' launchers (SkyRL, a dLLM SGLang server, an MMLU harness), benchmark scripts (a background server
with a `trap` cleanup, `nsys profile` around `vllm serve`), Kubernetes manifests (EKS, AKS, GKE TPU, a CPU
manifest a script writes and applies), docker compose files (list and folded `command:`, `bash -c` scripts
with `$$`, `entrypoint: ["sglang"]`), SLURM batch files, a Makefile, prefill/decode servers, and two logs of
working launches (``logs/``). Each file under ``tests/data/real_cases_fa24/`` is a reconstruction (its header
names the source at its commit and what it keeps; a log's first line is its report's URL), checked as a new
user: no options, no resolver environment, no Hugging Face cache. docs/real_cases.md ("Working launches of
2025-2026 from new sources, 3rd sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import log_sources, recorded_check, recorded_log_report, unsourced
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa24"
LOGS = CASES / "logs"

pytestmark = pytest.mark.usefixtures("new_user_machine")

W, E = "warning", "error"
# a caller's variable not set here: the project's rule (tests/test_missing_script_arguments.py) is an assumed
# warning naming the option that replaces the assumption (`--env NAME=...`); true of the file checked bare
ASSUMED_INPUT = "assumed: the caller's variables, not given to check"

# file -> (servers found, the errors and warnings it gets, why they are there when there are any)
OUTCOMES: dict[str, tuple[int, list[tuple[str, str]], str]] = {
    "agentweave_sglang_dir_fallback_unquoted_port.sh": (1, [], ""),
    "amasu_compose_sglang_serve_entrypoint_list.yml": (1, [], ""),
    "amdtools_set_typo_hip_devices_prefill.sh": (1, [], ""),
    "anud18_docker_entrypoint_vllm_conditional_flags.sh": (1, [], ""),
    "awscdk_cpu_heredoc_manifest_kubectl_apply.sh": (1, [], ""),
    # was SH040 warning: `nsys profile [switches] vllm serve ...` was not followed
    "cclbench_nsys_profile_vllm_dp_ep.sh": (1, [], ""),
    "bielik_k8s_vllm_cpu_device_latest.yaml": (1, [], ""),
    "canyonbench_sbatch_module_conda_required_arg.sh": (1, [], ""),
    "cwortman_compose_rocm_bash_c_cmd_args.yml": (1, [], ""),
    "devops_sglang_dsv31_terminus_one_line.sh": (1, [], ""),
    # was PA014 error on `--block_size` (vLLM's served-model-name ValueError left the word unconverted)
    "flagscale_omniinfer_dp_tp_equals_short_flag.sh": (1, [], ""),
    "foyer_sglang_exports_exec_yarn96k.sh": (1, [], ""),
    "glm53_exec_vllm_serve_passthrough_args.sh": (1, [], ""),
    "h20_sglang_serve_diffusion_args_array.sh": (0, [], ""),
    "hsb943_eks_vllm_args_list_probes.yaml": (1, [], ""),
    "lewidi_make_vllm_reasoning_16k.mk": (1, [], ""),
    "llminfra_vllm_required_first_arg_defaults.sh": (1, [], ""),
    "longbench_sglang_model_alias_dp4.sh": (1, [], ""),
    "mickie_compose_sglang_exec_list_env_defaults.yml": (1, [(W, "TP012")], ASSUMED_INPUT),
    "mlsys_minimax_m21_underscore_ep.sh": (1, [], ""),
    "moyiii_vllm_background_bench_trap.sh": (1, [], ""),
    "niushuai_compose_sglang_nextn_env_defaults.yml": (1, [], ""),
    # was SH023 error "the script exits here" for `${MODEL_PATH:?...}`, a variable its caller sets
    "qwen35eval_sglang_required_env_array_exec.sh": (1, [], ""),
    "rdeng_aks_vllm_v0221_no_service_links.yaml": (1, [], ""),
    "recipe_rocm_pd_decode_mooncake_tee.sh": (1, [], ""),
    "semanticrouting_qwen3vl_trailing_backslash_eof.sh": (1, [], ""),
    "sglangassist_internvl3_pd_prefill_nixl.sh": (1, [], ""),
    # `[ "$rank_id" -eq 0 ]` with RANK not set here: bash refuses the empty operand, so the branch is unknown
    "sgrpo_rank_branches_multinode_sglang.sh": (2, [(W, "SH026"), (W, "PA012")], ASSUMED_INPUT),
    "skyrl_uv_run_vllm_server_module.sh": (0, [], ""),
    "stepup_vastai_vllm_v070_docker_args.sh": (0, [], ""),
    "storywriter_sbatch_mamba_source_activate_trap.sh": (1, [], ""),
    "thinkingfastslow_sglang_dllm_case_mode_arrays.sh": (1, [], ""),
    "xprilion_gke_tpu_vllm_equals_args_nightly.yaml": (1, [], ""),
}
WORKING_LOGS = ["arenahard81_vllm_tp2_serving_throughput.log", "club3090_77_vllm_dual_3090_routes.log"]


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def shown_alarms(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in alarms(report)]


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def test_every_case_is_listed_and_names_its_source() -> None:
    assert sorted(p.name for p in CASES.iterdir() if p.is_file()) == sorted(OUTCOMES)
    assert sorted(p.name for p in LOGS.iterdir()) == WORKING_LOGS
    assert unsourced(CASES, prefix="# Reconstructed (not copied) after https://github.com/") == []
    assert len(log_sources(LOGS)) == len(WORKING_LOGS)


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_what_each_launch_gets(name: str) -> None:
    report = report_of(name)
    servers, expected, why = OUTCOMES[name]
    assert len(report["servers"]) == servers
    assert shown_alarms(report) == expected
    if why == ASSUMED_INPUT:
        # each alarm rests on the assumption; a consequence folded under one (PA012 under SH026) follows it
        causes = [f for f in report["findings"] if f["severity"] in ("error", "warning")]
        assert all(f["basis"] == "assumed" for f in causes)


@pytest.mark.parametrize("name", WORKING_LOGS)
def test_a_working_launchs_log_gets_no_error_or_warning(name: str) -> None:
    report = recorded_log_report(LOGS / name)
    assert alarms(report) == []


def _check(tmp_path: Path, script: str, *args: str) -> dict[str, Any]:
    (tmp_path / "l.sh").write_text("#!/bin/bash\n" + script)
    result = run_cli(["check", "--format", "json", "l.sh", *args], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


# ---- nsys profile / nsys launch


def test_the_server_under_nsys_profile_is_checked() -> None:
    report = report_of("cclbench_nsys_profile_vllm_dp_ep.sh")
    assert words(report)[0][12:17] == [
        "vllm", "serve", "/pscratch/sd/c/cp724/DeepSeek-V2-Lite", "--enforce-eager", "--tensor-parallel-size",
    ]  # fmt: skip
    assert not codes(report, "SH040")


def test_nsys_launch_sets_its_env_var_pairs_for_the_server(tmp_path: Path) -> None:
    report = _check(tmp_path, "nsys launch -e HF_HUB_OFFLINE=1,CUDA_VISIBLE_DEVICES= -t cuda vllm serve m\n")
    assert words(report)[0][-3:] == ["vllm", "serve", "m"]
    # the pair reaches the server's environment: an empty CUDA_VISIBLE_DEVICES hides every GPU
    assert [f["message"] for f in alarms(report)] == [
        "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all"
    ]


def test_an_nsys_switch_not_written_as_the_guide_writes_it_is_still_said_unfollowed(tmp_path: Path) -> None:
    # `--output rep`: a long switch without `=`; which word is its parameter is not known here
    report = _check(tmp_path, "nsys profile --output rep vllm serve m\n")
    assert report["servers"] == [] and shown_alarms(report) == []
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("SH040", "info")]


# ---- vLLM's `--served-model-name` without a positional model


def test_the_missing_model_is_one_finding_not_the_words_the_raise_left_unconverted(tmp_path: Path) -> None:
    report = _check(tmp_path, "vllm serve ${MODEL_PATH} --served-model-name=deepseek --block_size 128\n")
    assert not codes(report, "PA014")
    (missing,) = codes(report, "PA023")
    assert missing["message"].startswith("vllm serve with --served-model-name but no positional model stops")


def test_an_unknown_flag_after_the_missing_model_is_still_one(tmp_path: Path) -> None:
    report = _check(tmp_path, "vllm serve --served-model-name=x --max_model_len 8 --no-such-flag 1\n")
    assert [f["setting"] for f in codes(report, "PA001")] == ["no_such_flag"]
    assert not codes(report, "PA014")


# ---- `${VAR:?message}` of a caller's variable


def test_a_variable_the_script_requires_of_its_caller_is_read_as_the_callers(tmp_path: Path) -> None:
    report = _check(tmp_path, 'M="${MODEL:?set MODEL}"\nvllm serve "$M" --port 8000\n')
    assert words(report)[0] == ["vllm", "serve", None, "--port", "8000"]
    (note,) = codes(report, "SH023")
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert note["message"] == (
        "`${MODEL:?set MODEL}` requires $MODEL of the script's caller, and it is not set in the environment "
        "argtrace was given: where the caller does not set it either, bash prints `set MODEL` and the script "
        "exits here; checked with its value unknown (pass `--env MODEL=...` to check with the caller's value)"
    )
    given = run_cli(["check", "--format", "json", "--env", "MODEL=Qwen/Qwen3-8B", "l.sh"], cwd=tmp_path).json
    assert words(given)[0][2] == "Qwen/Qwen3-8B" and not codes(given, "SH023")


def test_a_required_variable_the_script_empties_still_stops_it(tmp_path: Path) -> None:
    report = _check(tmp_path, 'MODEL=\nvllm serve "${MODEL:?set MODEL}"\n')
    assert report["servers"] == [] and shown_alarms(report) == [(E, "SH023")]


def test_a_required_argument_missing_from_the_arguments_given_still_stops_it(tmp_path: Path) -> None:
    # one argument given, the script needs two: certain, not the caller's
    report = _check(tmp_path, 'vllm serve "$1" --port "${2:?usage: l.sh MODEL PORT}"\n', "m")
    assert report["servers"] == [] and shown_alarms(report) == [(E, "SH023")]


# ---- compose's nested defaults


def test_a_nested_default_in_a_compose_environment_entry_is_interpolated() -> None:
    # `SGLANG_MODEL_PATH=${SGLANG_MODEL_PATH:-${MODEL_NAME:-Qwen/Qwen3.8-27B-FP8}}`: was the literal inner
    # `${MODEL_NAME:-Qwen/Qwen3.8-27B-FP8}` as the model path
    report = report_of("cwortman_compose_rocm_bash_c_cmd_args.yml")
    assert words(report)[0][3:7] == [
        "--model-path", "Qwen/Qwen3.8-27B-FP8", "--served-model-name", "Qwen/Qwen3.8-27B-FP8",
    ]  # fmt: skip


def test_a_nested_default_in_a_compose_command_is_interpolated(tmp_path: Path) -> None:
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n"
        "    command: --model ${MODEL:-$OTHER_MODEL} --port ${PORT:-${DEFAULT_PORT:-8000}}\n"
    )
    given = ["check", "--format", "json", "--env", "MODEL=m", "docker-compose.yml"]
    report = run_cli(given, cwd=tmp_path).json
    # was `--port ${DEFAULT_PORT:-8000}` and PA010 "invalid int value"; $OTHER_MODEL, in a default compose
    # does not use, is not said unset
    assert words(report)[0][2:] == ["--model", "m", "--port", "8000"] and alarms(report) == []
    inner = run_cli([*given[:-1], "--env", "DEFAULT_PORT=9000", given[-1]], cwd=tmp_path).json
    assert words(inner)[0][-1] == "9000"
