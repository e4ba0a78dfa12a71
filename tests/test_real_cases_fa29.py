"""The 2026-12-05 wrong-alarm sweep, eighth (fa29): working launches of 2025-2026 from sources argtrace had
not seen (each repository and path grepped in tests/ and docs/ first): multi-node SLURM launchers that start
each node's server through `srun bash -c "docker exec ... bash -c '...'"` with words computed at run time
(pysheeet), apptainer jobs on an HPC system, model makers' deployment pages (Ring-2.5, LongCat, dots.vlm1),
KServe's and Google's GPU recipes' pages and launchers, AI on GKE's manifests and SkyPilot task, a compose
project of `include:`d files, Python and `eval` launchers, homelab and DGX Spark scripts of 2026 and a vLLM
fork's script and systemd unit. Each file under ``tests/data/real_cases_fa29/`` is a reconstruction (its
header names the source at its commit and what it keeps; a Markdown page's header is an HTML comment),
checked as a new user: no options, no resolver environment, no Hugging Face cache. docs/real_cases.md
("Working launches of 2025-2026 from new sources, 8th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa29"

pytestmark = pytest.mark.usefixtures("new_user_machine")

W, E = "warning", "error"

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    # was a TP042 error: `device_ids: ["5,6"]` is two GPUs (the daemon joins the IDs with commas)
    "agentsculptor_vllm_gptoss_tag_compose_triton_attn_device_ids_one_string.yml": 1,
    "aiongke_adk_llama31_vllm_tool_parser_chat_template_configmap.yaml": 1,
    "aiongke_lora_gateway_vllm_deployment_enable_lora_dollar_paren_model.yaml": 1,
    "aiongke_metaflow_vllm_legacy_api_server_model_from_configmap_tp2.yaml": 1,
    "aiongke_model_armor_vllm_llama31_8b_quoted_args_max_cpu_loras.yaml": 1,
    "allanchan_qwen35_27b_autoround_sglang_tp2_venv_fp8_e4m3_kv.sh": 1,
    "dotsvlm1_readme_sglang_fork_two_nodes_tp16_exported_vars_chat_template.md": 2,
    "entrpi_qwen35_122b_spark_dflash_spec_array_escaped_json_exec.sh": 1,
    "glm47flash_serverless_sglang_eagle_background_until_curl_runpod_handler.sh": 1,
    # were 2 warnings each (shellcheck's SC1128 and SC2145 on an echo line)
    "gpurecipes_sglang_launcher_hf_home_ssd_model_flag_passthrough.sh": 1,
    "gpurecipes_vllm_launcher_license_before_shebang_set_eux_model_env_passthrough.sh": 1,
    # was refused ("neither a docker compose file nor a Kubernetes manifest"): a project of `include:`d files
    "homegpt/docker/docker-compose.yml": 4,
    "hypothesaes_vllm_cmd_string_backslash_newlines_eval_optional_len.sh": 1,
    # the Hugging Face runtime's InferenceServices on a page: not read (noticed)
    "kserve_website_kvcache_offloading_page_lmcache_kv_transfer_config.md": 0,
    "kserve_website_multinode_page_vllm_tp_pp_cases_heredoc_yaml_blocks.md": 2,
    "kserve_website_text_generation_page_hf_runtime_vllm_cpu_tabs.md": 0,
    "liukunup_notes_sglang_page_docker_run_and_compose_folded_command.md": 1,
    "liukunup_notes_vllm_page_ci_image_commit_cpu_build_docker_deepseek_lite.md": 2,  # was 0
    "longcat_flash_thinking_2601_deploy_guide_sglang_ep_moe_vllm_dp_headless.md": 5,
    "miaai_mimo_v25_omni_vllm_two_sparks_ray_head_nested_defaults_nvfp4_kv.sh": 1,
    "olivia_gptoss120b_sglang_srun_apptainer_flashinfer_version_check_off.sh": 1,
    "olivia_kimi_k25_sglang_four_nodes_srun_apptainer_bash_c_escaped_nodeid.sh": 1,
    "olivia_mistral_large_sglang059_sif_snapshot_path_trailing_space.sh": 1,
    "openeval_python_launcher_function_defaults_popen_list_called_bare.py": 1,
    # were an SH012 error each and no server: `while (( "$#" ))` with no arguments never reads $1
    "pysheeet_nixl_vllm_sbatch_prefill_decode_router_groups.sh": 2,
    "pysheeet_sglang_run_sbatch_printf_q_args_docker_exec_node_rank.sh": 1,
    "pysheeet_vllm_run_sbatch_srun_bash_c_docker_exec_bash_c_serve_args.sh": 1,
    "pysheeet_vllm_run_sh_modes_single_ray_mp_rpc_headless_arrays.sh": 1,
    "ringv25_readme_sglang_fork_branch_four_nodes_tp8_pp4.md": 4,
    "v100fork_qwen35_397b_systemd_unit_environmentfile_braced_vars_in_json.service": 1,
}
# launch -> (servers, the errors and warnings that are true of the file as written)
TRUE_FINDINGS: dict[str, tuple[int, list[tuple[str, str]]]] = {
    # the pod asks for 8 GPUs and the server uses 4 (TP 4): 4 stay idle
    "aiongke_nemorl_gemma3_27b_vllm_deployment_converted_checkpoint_tp4.yaml": (1, [("PA036", W)]),
    # `experimental:` was a task key up to SkyPilot 0.10.0; SkyPilot 0.14.1 refuses it: a warning naming the
    # releases (was an error saying SkyPilot refuses the file)
    "aiongke_skypilot_dws_kueue_service_conda_vllm_api_server_gpus_per_node.yaml": (1, [("TP069", W)]),
    # the script's own comment says vLLM 0.19: VLLM_SLEEP_WHEN_IDLE is read up to 0.17.1 only; the FP8
    # Marlin switch up to 0.23.x, not by 0.33.0, the release analysed (PR011 says so)
    "allanchan_qwen36_35b_fp8_vllm_tp2_mixed_gpus_chat_template_kwargs_language_model_only.sh": (
        1,
        [("PR001", W), ("PR001", W)],
    ),
    # `--max-model-len 2300 \ ` (a blank after the backslash): the command ends there with an argument ` `
    # and the next line runs alone; was not read (no server)
    "gpurecipes_g4_vllm_readme_sudo_docker_run_backslash_space_tp1_tp8_bench.md": (
        2,
        [("SH003", E), ("PA001", W)],
    ),
    # upstream vLLM drops `thinking_token_budget` from --override-generation-config; the fork's own code is
    # not read. Was also an SH009 warning for the retry loop's one command started again
    "v100fork_qwen35_397b_awq_tp8_nohup_env_u_sm70_switches_retry_loop.sh": (2, [("RS059", W)]),
}
_HEADER = "Reconstructed (not copied) after https://github.com/"


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["code"] == code]


def _check(tmp_path: Path, name: str, text: str, *options: str, files: dict[str, str] | None = None) -> Any:
    for extra, body in {name: text, **(files or {})}.items():
        target = tmp_path / extra
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
    result = run_cli(["check", "--format", "json", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def _argvs(report: dict[str, Any]) -> list[list[str | None]]:
    return [server["argv"] for server in report["servers"]]


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    launches = sorted([*CLEAN, *TRUE_FINDINGS])
    # the homeGPT project's other compose files, which its docker-compose.yml includes
    project = [
        f"homegpt/docker/{name}"
        for name in (
            "compose-model-manager.yml",
            "compose-vllm-gpt-oss-20b.yml",
            "compose-vllm-qwen3-next-80b-a3b-thinking.yml",
            "compose-vllm-qwen3-vl-30b-a3b.yml",
            "compose-vllm-qwen3-vl-32b.yml",
            "compose-webui.yml",
        )
    ]
    assert files == sorted([*launches, *project])
    for name in files:
        lines = (CASES / name).read_text(encoding="utf-8").splitlines()
        prefix = "<!-- " if name.endswith(".md") else "# "
        assert any(line.startswith(prefix + _HEADER) for line in lines[:3]), name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == CLEAN[name]
    assert alarms(report) == []


@pytest.mark.parametrize("name", sorted(TRUE_FINDINGS))
def test_what_is_true_of_the_file_as_written_is_said(name: str) -> None:
    report = report_of(name)
    servers, expected = TRUE_FINDINGS[name]
    assert len(report["servers"]) == servers
    assert sorted((f["code"], f["severity"]) for f in alarms(report)) == sorted(expected)


# --- arithmetic and parameter expansion ---------------------------------------------------------------------

_ARGS_LOOP = (
    '#!/bin/bash\nset -euo pipefail\nMODEL=m\nwhile {test}; do\n  case "$1" in\n'
    '    -m) MODEL="$2"; shift 2 ;;\n    *) shift ;;\n  esac\ndone\nvllm serve "$MODEL"\n'
)


@pytest.mark.parametrize("test", ['(( "$#" ))', '(("$#"))', '(( "$#" > 0 ))'])
def test_a_double_quote_in_arithmetic_is_removed(tmp_path: Path, test: str) -> None:
    script = _ARGS_LOOP.format(test=test)
    report = _check(tmp_path, "run.sh", script)
    assert codes(report, "SH012") == []  # with no arguments the loop never reads $1
    assert _argvs(report) == [["vllm", "serve", "m"]]
    report = _check(tmp_path, "run.sh", script.replace("set -euo", "set -- -m q/r\nset -euo"))
    assert _argvs(report) == [["vllm", "serve", "q/r"]]


def test_a_double_quoted_expansion_in_an_arithmetic_value(tmp_path: Path) -> None:
    report = _check(tmp_path, "run.sh", 'n=4\nvllm serve m --tensor-parallel-size $(( "$n" / 2 ))\n')
    assert _argvs(report) == [["vllm", "serve", "m", "--tensor-parallel-size", "2"]]


def test_the_set_u_idiom_for_a_possibly_empty_array_gives_one_word_per_element(tmp_path: Path) -> None:
    script = 'A=(--max-model-len "4096")\nvllm serve m "${A[@]+"${A[@]}"}" --port 1\n'
    assert _argvs(_check(tmp_path, "run.sh", script)) == [
        ["vllm", "serve", "m", "--max-model-len", "4096", "--port", "1"]
    ]
    # an empty list gives no word at all, as "${A[@]}" does (bash 5.2); `"${A[*]+x}"` is one empty word
    empty = (
        'A=()\nvllm serve m "${A[@]+"${A[@]}"}" "${A[@]:+x}" --port 1\nvllm serve m "${A[*]+x}" --port 2\n'
    )
    assert _argvs(_check(tmp_path, "run.sh", empty)) == [
        ["vllm", "serve", "m", "--port", "1"],
        ["vllm", "serve", "m", "", "--port", "2"],
    ]


# --- a carried shell's command string with words known only at run time ------------------------------------

_DP = "DP=$(( $(nproc) / 2 ))\n"
_STRING = '"vllm serve m --data-parallel-size ${DP} --port 8000 2>&1 | tee /tmp/log"'
_SERVED = ["vllm", "serve", "m", "--data-parallel-size", None, "--port", "8000"]


@pytest.mark.parametrize(
    "carrier",
    [
        "docker exec -d vllm-head bash -c " + _STRING,
        "kubectl exec -it vllm-0 -- bash -c " + _STRING,
        "docker run --gpus all --entrypoint bash vllm/vllm-openai:v0.15.1 -c " + _STRING,
        # the container's name known only at run time (a group's number): read as the name
        'g=$(hostname)\ndocker exec -d "vllm-g${g}-n0" bash -c ' + _STRING,
    ],
)
def test_a_container_shell_runs_a_string_known_but_for_some_words(tmp_path: Path, carrier: str) -> None:
    report = _check(tmp_path, "run.sh", _DP + carrier + "\n")
    assert _argvs(report) == [_SERVED]
    (shown,) = [f["message"] for f in codes(report, "SH018")]
    assert shown.startswith("argument 4 of the server (`${DP}`) is not known statically")


def test_srun_with_an_unknown_node_then_docker_exec_names_the_holes_as_written(tmp_path: Path) -> None:
    script = (
        'readarray -t NODES < <(scontrol show hostnames "$SLURM_JOB_NODELIST")\n'
        + _DP
        + 'extra="--port 8000"\n'
        'srun --nodes=1 --nodelist="${NODES[0]}" bash -c "\n'
        "  docker exec -d head bash -c 'vllm serve m --data-parallel-size ${DP} ${extra}'\n\"\n"
    )
    report = _check(tmp_path, "job.sh", script)
    assert _argvs(report) == [_SERVED]
    assert "__argtrace" not in str(report["findings"])


# --- Markdown pages, docker run options ---------------------------------------------------------------------

_VLLM_IMAGE_BLOCK = (
    "# Serve\n\n```shell\ndocker run --runtime nvidia --gpus all \\\n"
    '    --env "HUGGING_FACE_HUB_TOKEN=$HF_TOKEN" \\\n'
    "    vllm/vllm-openai:latest \\\n    --model Qwen/Qwen3-0.6B\n```\n"
)


def test_a_page_block_that_runs_vllms_image_starts_a_server(tmp_path: Path) -> None:
    report = _check(tmp_path, "README.md", _VLLM_IMAGE_BLOCK)
    assert _argvs(report) == [["vllm", "serve", "--model", "Qwen/Qwen3-0.6B"]]
    pull = "# Get it\n\n```bash\ndocker pull vllm/vllm-openai:latest\n```\n"
    assert _check(tmp_path, "README.md", pull)["servers"] == []


def test_a_docker_run_option_value_not_known_does_not_hide_the_container(tmp_path: Path) -> None:
    script = 'docker run --gpus all -e "HF_TOKEN=$(cat ~/.hf)" -p "$P:8000" lmsysorg/sglang:v0.5.9 '
    script += "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n"
    report = _check(tmp_path, "run.sh", script)
    # the image's entrypoint runs the command (lmsysorg/sglang's nvidia_entrypoint.sh)
    assert _argvs(report)[0][1:] == ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B"]
    # a --gpus value not known here asks for GPUs all the same: the container is read, its GPU count not
    # known (fa30; it was left unread)
    unknown_gpus = 'G=$(nvidia-smi -L | wc -l)\ndocker run --gpus "$G" vllm/vllm-openai:v0.15.1 --model m\n'
    (server,) = _check(tmp_path, "run.sh", unknown_gpus)["servers"]
    assert (server["argv"], server.get("gpus")) == (["vllm", "serve", "--model", "m"], None)


# --- shellcheck, the shared log ----------------------------------------------------------------------------


def test_shellcheck_errors_that_change_nothing_the_launch_runs_are_notes(tmp_path: Path) -> None:
    script = '# Copyright\n#!/bin/bash\necho "args: $@"\nvllm serve m "$@"\n'
    report = _check(tmp_path, "run.sh", script)
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["code"] in ("SC1128", "SC2145")] == [
        ("SC1128", "info"),
        ("SC2145", "info"),
    ]
    mixed = '#!/bin/bash\nvllm serve m --served-model-name "name-$@"\n'
    assert [
        f["severity"] for f in _check(tmp_path, "run.sh", mixed)["findings"] if f["code"] == "SC2145"
    ] == ["warning"]


def test_one_command_started_again_by_a_retry_loop_is_not_two_writers_of_its_log(tmp_path: Path) -> None:
    retry = (
        "for attempt in 1 2; do\n  vllm serve m > /tmp/v.log 2>&1 &\n  PID=$!\n"
        '  if grep -q ready /tmp/v.log; then exit 0; fi\n  kill -0 "$PID" || continue\ndone\n'
    )
    report = _check(tmp_path, "run.sh", retry)
    assert [f["severity"] for f in codes(report, "SH009")] == ["info"]
    two = "vllm serve a --port 1 > /tmp/v.log 2>&1 &\nvllm serve b --port 2 > /tmp/v.log 2>&1 &\n"
    warned = [f for f in codes(_check(tmp_path, "run.sh", two), "SH009") if f["severity"] == "warning"]
    assert [f["message"].split(" (")[0] for f in warned] == ["2 server commands"]


# --- SkyPilot, compose --------------------------------------------------------------------------------------

_TASK = "resources:\n  accelerators: L4:1\n{key}:\n  config_overrides: {{}}\nrun: |\n  vllm serve m\n"


def test_a_task_key_older_skypilot_releases_took_is_a_warning_naming_them(tmp_path: Path) -> None:
    (found,) = codes(_check(tmp_path, "task.yaml", _TASK.format(key="experimental")), "TP069")
    assert (found["severity"], found["basis"]) == ("warning", "assumed")
    assert "SkyPilot 0.8.1, 0.10.0 took it" in found["message"]
    assert found["message"].startswith("`experimental:` is no key of a SkyPilot 0.14.1 task")
    (misspelt,) = codes(_check(tmp_path, "task.yaml", _TASK.format(key="experimentl")), "TP069")
    assert misspelt["severity"] == "error"


_INCLUDED = "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.1\n    command: >\n      Qwen/Qwen3-8B\n"


def test_a_compose_project_of_included_files_is_read(tmp_path: Path) -> None:
    main = "name: p\ninclude:\n  - compose-vllm.yml\n  - path:\n      - sub/compose-more.yml\n"
    more = _INCLUDED.replace("vllm:", "more:").replace("Qwen3-8B", "Qwen3-4B")
    report = _check(
        tmp_path,
        "docker-compose.yml",
        main,
        files={"compose-vllm.yml": _INCLUDED, "sub/compose-more.yml": more},
    )
    assert sorted(a[-1] for a in _argvs(report)) == ["Qwen/Qwen3-4B", "Qwen/Qwen3-8B"]
    assert alarms(report) == []


def test_an_included_compose_file_that_is_not_there_stops_compose(tmp_path: Path) -> None:
    report = _check(tmp_path, "compose.yml", "include:\n  - compose-vllm.yml\n")
    (missing,) = codes(report, "TP105")
    assert (missing["severity"], missing["at"]) == ("error", "compose.yml:2")
    assert missing["message"].endswith("docker compose stops before it starts any service")


@pytest.mark.parametrize(("ids", "errors"), [('["5,6"]', []), ('["5", "6"]', []), ('["5"]', ["TP042"])])
def test_compose_device_ids_are_joined_with_commas(tmp_path: Path, ids: str, errors: list[str]) -> None:
    compose = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.15.1\n"
        "    command: --model m --tensor-parallel-size 2\n"
        "    deploy:\n      resources:\n        reservations:\n          devices:\n"
        f"            - driver: nvidia\n              device_ids: {ids}\n              capabilities: [gpu]\n"
    )
    report = _check(tmp_path, "compose.yml", compose)
    assert [f["code"] for f in alarms(report)] == errors


def test_a_python_launch_word_known_only_when_it_runs_is_no_refusal(tmp_path: Path) -> None:
    program = (
        "import os, subprocess\ncmd = ['vllm', 'serve', 'Qwen/Qwen3-8B']\nif os.environ.get('LEN'):\n"
        "    cmd += ['--max-model-len', os.environ['LEN']]\nsubprocess.Popen(cmd)\n"
    )
    (skipped,) = codes(_check(tmp_path, "app.py", program), "RS004")
    assert skipped["message"] == (
        "resolution skipped: an argv word cannot be known statically, so the server never resolves "
        "its settings"
    )


def test_a_function_called_bare_runs_with_its_defaults(tmp_path: Path) -> None:
    argv = report_of("openeval_python_launcher_function_defaults_popen_list_called_bare.py")["servers"][0][
        "argv"
    ]
    assert argv[3:] == ["--host", "0.0.0.0", "--port", "7000", "--tensor-parallel-size", "4"]  # no length
    launcher = (
        "import subprocess\ndef launch(model='m', tp=2):\n"
        "    subprocess.Popen(['vllm', 'serve', model, '--tensor-parallel-size', str(tp)])\n"
    )
    bare = _check(tmp_path, "app.py", launcher + "launch()\n")
    assert _argvs(bare) == [["vllm", "serve", "m", "--tensor-parallel-size", "2"]]
    # called with an argument somewhere: its parameters are the program's
    given = _check(tmp_path, "app.py", launcher + "launch()\nlaunch(tp=4)\n")
    assert [a[2] for a in _argvs(given)] == [None]


def test_a_filled_string_no_shell_runs_is_said_as_written(tmp_path: Path) -> None:
    # vLLM's image runs `vllm serve` itself: the `bash -c STRING` after the image name are its words (TP010)
    carrier = "docker run --gpus all vllm/vllm-openai:v0.15.1 bash -c " + _STRING
    report = _check(tmp_path, "run.sh", _DP + carrier + "\n")
    assert _argvs(report) == [["vllm", "serve", "bash", "-c", _STRING.strip('"')]]
    (appended,) = codes(report, "TP010")
    assert "--data-parallel-size ${DP} --port 8000" in appended["message"]
    assert "__argtrace" not in str(report)
