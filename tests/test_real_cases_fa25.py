"""The 2026-12-04 wrong-alarm sweep, fourth (fa25): 36 inputs from sources argtrace had not seen (each
repository and path grepped in tests/ and docs/ first): 33 launch files and 3 logs of working launches.
SkyPilot tasks (the project's gallery: Gemma 3, Llama 3.2 Vision with a pinned release, an RL rollout
server, a LoRA serve), OpenShift AI's KServe ServingRuntime + InferenceService pairs, Lambda's dstack guide,
a script a systemd unit runs, `systemd-run --scope`, SLURM jobs whose `srun bash -c '...'` holds the launch
(Kimi-K2 on SGLang and on vLLM DP 16), Ascend NPU launches (`sglang serve`, the PD router), restart loops, a
`set -a; source .env` deployer, a make file with comments after its values, compose, docker images from ECR
and local builds, and model-card style launches (GLM-4.5V, MiniMax-M2.5, gpt-oss with an EAGLE-3
speculator). Each file under ``tests/data/real_cases_fa25/`` is a reconstruction (its header names the
source at its commit and what it keeps; a log's first line is its report's URL), checked as a new user: no
options, no resolver environment, no Hugging Face cache. docs/real_cases.md ("Working launches of 2025-2026
from new sources, 4th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import log_sources, recorded_check, recorded_log_report, unsourced
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa25"
LOGS = CASES / "logs"

pytestmark = pytest.mark.usefixtures("new_user_machine")

W, E = "warning", "error"
# vLLM's multiproc executor asserts `tensor_parallel_size <= cuda_device_count` ("please set
# tensor_parallel_size (8) to less than max local gpu count (1)", vllm/executor/multiproc_gpu_executor.py of
# the 0.5 releases the task pins); with Ray the placement group cannot get 8 GPUs of one L4 either
TRUE_FINDING = "the launch fails: TP 8 on the one L4 the task asks for"

# file -> (servers found, the errors and warnings it gets, why they are there when there are any)
OUTCOMES: dict[str, tuple[int, list[tuple[str, str]], str]] = {
    "adaptivesampling_sglang_custom_logit_tp2.sh": (1, [], ""),
    "ascend_minimax_m25_sglang_serve_npu_dp_attention.sh": (1, [], ""),
    "ascend_pd_router_nohup_bootstrap_port_trailing_amp.sh": (0, [], ""),
    "code2sql_conda_nohup_env_sglang_tp2.sh": (1, [], ""),
    "dgxspark_docker_custom_image_eagle3_speculator_json.sh": (0, [], ""),
    "faithful_eval_make_inline_comments_after_values.mk": (1, [], ""),
    "gemma3serving_uv_run_nohup_gpu_arg_port_arith.sh": (1, [], ""),
    "gustobot_glm45v_fp8_modelscope_joined_backslash.sh": (1, [], ""),
    "invoice_gemma3_unsloth_bnb_mm_limits_kv.sh": (1, [], ""),
    "kimik2_srun_bash_c_single_quoted_sglang.sh": (1, [], ""),
    "kimik2_srun_vllm_dp16_headless_and_or.sh": (1, [], ""),
    "korgym_conda_api_server_equals_underscores_pp2.sh": (1, [], ""),
    "lambda_dstack_task_hermes3_spot_gpu_range.dstack.yml": (1, [], ""),
    "lexi_exec_venv_python_api_server_fp16.sh": (1, [], ""),
    "lifesim_vllm_braced_vars_api_key.sh": (1, [], ""),
    "llmenv_compose_folded_vllm_serve_bf16.yml": (1, [], ""),
    "lmcache_role_branches_env_prefixes_kv_both.sh": (2, [], ""),
    "localdeploy_sglang_restart_loop_four_args.sh": (1, [], ""),
    "osswork_sglang_lora_paths_pkill_defaults.sh": (1, [], ""),
    "pandaguard_restart_loop_trap_sigint_vars.sh": (1, [], ""),
    "panicdemo_api_server_fp16_fp8_kv_tp2.sh": (1, [], ""),
    "rare_api_server_tokenizer_pool_no_shebang.sh": (1, [], ""),
    "rhibm_vllm_cpu_ecr_image_tab_indent_trailing_blank.sh": (0, [], ""),
    "rhoai_isvc_args_merged_into_runtime_image_cmd.yaml": (0, [], ""),
    "rhoai_servingruntime_rocm_isvc_modelcar.yaml": (1, [], ""),
    "sky_coder_rollout_server_v066_image_quoted_model.yaml": (1, [], ""),
    "sky_gemma3_api_server_envs_spot_any_of.yaml": (1, [], ""),
    "sky_llama31_lora_serve_tee_wait_loop.yaml": (1, [(E, "TP042")], TRUE_FINDING),
    "sky_llama32_vision_pinned_v062_mm_limit_kv.yaml": (1, [], ""),
    "tabmodel_module_load_venv_sglang_coder_128k.sh": (1, [], ""),
    "tb250_systemd_run_scope_api_server.sh": (1, [], ""),
    # was no server read: it stopped at its `[ -z "$MODEL_LIST" ]` guard, then at the next one
    "vllmdeployer_set_a_source_env_loop_config_sed.sh": (1, [], ""),
    "zmarty_notes_glm45_air_awq_ep_single_gpu.sh": (1, [], ""),
}
# not a launch: the real instance of the Makefile mechanism (was refused as "not valid YAML")
NOT_A_LAUNCH = ["faithful_human_eval_only_run_target_no_launch.mk"]
WORKING_LOGS = [
    "club3090_1047_vllm_a6000_nvfp4_mamba_pages.log",
    "club3090_127_vllm_tp4_cudagraph_profiling.log",
    "kunlun330_vllm_xtrace_interleaved_capture.log",
]


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def shown_alarms(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in alarms(report)]


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def _check(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_every_case_is_listed_and_names_its_source() -> None:
    assert sorted(p.name for p in CASES.iterdir() if p.is_file()) == sorted([*OUTCOMES, *NOT_A_LAUNCH])
    assert sorted(p.name for p in LOGS.iterdir()) == WORKING_LOGS
    assert unsourced(CASES, prefix="# Reconstructed (not copied) after https://github.com/") == []
    assert len(log_sources(LOGS)) == len(WORKING_LOGS)


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_what_each_launch_gets(name: str) -> None:
    report = report_of(name)
    servers, expected, _why = OUTCOMES[name]
    assert len(report["servers"]) == servers
    assert shown_alarms(report) == expected


@pytest.mark.parametrize("name", WORKING_LOGS)
def test_a_working_launchs_log_gets_no_error_or_warning(name: str) -> None:
    report = recorded_log_report(LOGS / name)
    assert alarms(report) == []


def test_the_true_finding_names_the_gpus_the_task_gives() -> None:
    (tp,) = codes(report_of("sky_llama31_lora_serve_tee_wait_loop.yaml"), "TP042")
    assert tp["message"] == (
        "the server needs 8 GPU(s) (tensor_parallel_size 8 x pipeline_parallel_size 1) but "
        "resources.accelerators L4 (per node) gives the container 1"
    )


# ---- a Makefile is a Makefile: its targets are not a SkyPilot task's or a compose file's keys


def test_a_make_file_whose_only_target_is_run_is_read_as_make_reads_it() -> None:
    # `run :` was taken for SkyPilot's `run:` key, the file parsed as YAML and refused ("not valid YAML")
    report = report_of("faithful_human_eval_only_run_target_no_launch.mk")
    assert report["servers"] == [] and shown_alarms(report) == []
    assert [f["code"] for f in report["findings"]] == ["SH019"]


@pytest.mark.parametrize(
    ("name", "targets"),
    [
        ("Makefile", "setup:\n\tpip install vllm\n\nrun:\n"),  # every key a SkyPilot task has
        ("serve.mk", "services:\n\tdocker compose up -d\n\nrun:\n"),  # `services:`: a compose file's
    ],
)
def test_a_makefile_with_task_or_compose_targets_starts_its_server(
    tmp_path: Path, name: str, targets: str
) -> None:
    report = _check(tmp_path, name, f"MODEL ?= Qwen/Qwen3-8B\n\n{targets}\tvllm serve $(MODEL) --port 8000\n")
    assert words(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"]]
    assert shown_alarms(report) == []


def test_the_same_keys_in_a_yaml_file_are_still_a_skypilot_task(tmp_path: Path) -> None:
    report = _check(
        tmp_path, "task.yaml", "setup: |\n  pip install vllm\nrun: |\n  vllm serve m --port 8000\n"
    )
    assert words(report) == [["vllm", "serve", "m", "--port", "8000"]]
    assert [hop["via"] for hop in report["transport"]["hops"]] == ["skypilot"]


# ---- guards one after another on variables the script never sets


def test_each_guard_on_a_variable_the_sourced_env_file_sets_is_read_as_the_callers() -> None:
    report = report_of("vllmdeployer_set_a_source_env_loop_config_sed.sh")
    assert words(report)[0] == ["vllm", "serve", None, "--config", None, "--port", None]
    (guard,) = codes(report, "SH046")
    assert (guard["severity"], guard["basis"]) == ("info", "assumed")
    assert "when $MODEL_LIST, $MODEL_DIR are not set, as where argtrace runs" in guard["message"]
    (missing,) = codes(report, "SH017")
    assert missing["fix"] == (
        "Check with the values the file sets where the script runs: `argtrace check --env NAME=VALUE ...` "
        "for each variable the launch reads from it."
    )


def test_three_guards_in_a_row_are_all_passed(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\n"
        '[ -z "$A" ] && exit 1\n[ -z "$B" ] && exit 1\n[ -z "$C" ] && exit 1\n'
        'vllm serve "$A" --port 8000\n'
    )
    report = _check(tmp_path, "l.sh", script)
    assert words(report) == [["vllm", "serve", None, "--port", "8000"]]
    (guard,) = codes(report, "SH046")
    assert "when $A, $B, $C are not set" in guard["message"]


def test_a_guard_the_script_itself_fails_still_stops_it(tmp_path: Path) -> None:
    # B is the script's own (empty): no caller sets it, so the exit is certain and nothing is assumed
    script = '#!/bin/bash\n[ -z "$A" ] && exit 1\nB=\n[ -z "$B" ] && exit 1\nvllm serve "$A" --port 8000\n'
    report = _check(tmp_path, "l.sh", script)
    assert report["servers"] == [] and not codes(report, "SH046")
