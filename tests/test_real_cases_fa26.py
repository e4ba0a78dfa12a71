"""The 2026-12-04 wrong-alarm sweep, fifth (fa26): 35 inputs from sources argtrace had not seen (each
repository and path grepped in tests/ and docs/ first): 33 launch files and 2 logs of working launches.
Markdown pages that hold launches (a model's deployment page, Moonshot's multi-node Kimi-K2 guide, a
ModelArts Ascend recipe, a Ray two-node README, a notes page), vendor builds and platforms (Habana's
vllm-fork on Gaudi, the vLLM Gaudi plugin, ROCm on MI300X, MI50, Ryzen AI Max and RDNA4, the ATOM plugin,
vLLM-Metal on a Mac), P/D disaggregation (a just file with NIXL, an out-of-tree KV connector, an AIBrix
StormService), multi-node Ray pipeline parallelism, speculative decoding (SGLang STANDALONE, MTP in a
config file), hybrid Mamba models (Nemotron 3 Nano, Qwen3.5), container entrypoints and compose files.
Each file under ``tests/data/real_cases_fa26/`` is a reconstruction (its header names the source at its
commit and what it keeps; a Markdown page's header is an HTML comment, a log's first line its report's
URL), checked as a new user: no options, no resolver environment, no Hugging Face cache.
docs/real_cases.md ("Working launches of 2025-2026 from new sources, 5th sweep") has the table and the
mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import log_sources, recorded_check, recorded_log_report, unsourced
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa26"
LOGS = CASES / "logs"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# file -> servers found (each gets no error or warning)
OUTCOMES: dict[str, int] = {
    "aibrix_stormservice_pd_router_rocm_sglang_1p1d.yaml": 2,  # was 0: StormService roles not read
    "aimax_podman_gfx1151_awq_usage_guard_kfd_check.sh": 0,  # its usage guard: it needs $1
    "aiplayground_minimax_m25_nvfp4_escaped_json_compilation.sh": 1,
    "aiplayground_nemotron3_nano_nvfp4_reasoning_parser_plugin.md": 1,
    "aiplayground_qwen35_awq_language_model_only_twice.sh": 1,
    "aks_airgap_fat_image_no_args_offline_env.yaml": 0,  # the image's own CMD, not in the file
    "atom_plugin_rocm_custom_backend_fastsafetensors_tee_bg.sh": 1,
    "chipbench_hsa_and_cuda_visible_same_ids_tp4.sh": 1,
    "cpumemconnector_custom_kv_connector_module_path.sh": 1,
    "falconh1_deployment_page_vllm_tp2_dp1.md": 1,  # was 9 errors and warnings, no server
    "gaudi_fork_internvl_numactl_split_qkv_v0.sh": 1,  # was 2 PA001 warnings
    "gemma4_vertex_entrypoint_filtered_args_exec.sh": 1,
    "hotaisle_export_continued_comment_line_mid_chain.sh": 1,
    "lmcache_docker_custom_image_model_slash_model_sudo.sh": 0,  # a locally built image
    "mad_qwen35_replica_entry_case_engine_kind.sh": 1,
    "mi50_gfx906_hsa_override_hip_visible_api_server.sh": 1,
    "modelarts_ascend_qwen38_w8a8_recipe_page.md": 1,  # was 8 errors and warnings
    "nastp_compose_v080_folded_command_local_model.yml": 1,
    "pigo_kimik2_deploy_guide_multinode_vllm_sglang.md": 7,  # was 22 errors and warnings
    "qwen36_compose_entrypoint_config_file_mtp.yml": 1,
    "ragexploration_mistral_nemo_fp8_cpu_offload_tp2.sh": 1,  # was a PR012 warning
    "raynote_pp2_two_nodes_readme_modelscope_path.md": 1,
    "rdna4_gfx1201_compose_defaults_in_command_list.yml": 0,  # a locally built image
    "reranker_colon_defaults_hf_download_template_guard.sh": 1,
    "rocm_bench_vllm_mi300x_env_prefixes_profiler_dir.sh": 1,
    "rocmlab_docker_run_vllm_openai_rocm_prechecks.sh": 1,
    "rocmlab_k3s_deployment_amd_gpu_args_only.yaml": 1,
    "runpod_worker_sglang_env_configured_qwen35_mamba.yml": 0,  # RunPod's worker builds the command
    "ssd_sglang_standalone_draft_llama1b_tp4.sh": 1,
    "vllmgaudi_qwen3vl_fp8_snapshot_indented_abbrev_flag_json_mm.sh": 1,
    "vllmmetal_mac_venv_loopback_exec_default_model.sh": 1,
    "xvllmdistributed_ray_pp2_host_ip_from_jq_tabs.sh": 1,
}
# refused, as argtrace refuses every just file: just expands its own `{{ }}` before a shell runs a line
NOT_READ = ["Justfile"]
WORKING_LOGS = [
    "club3090_76_vllm_dflash_spec_scheduled_tokens.log",
    "vllm40394_flexattention_eager_spec_256_tokens.log",
]
_HEADER = "Reconstructed (not copied) after https://github.com/"


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def _check(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_every_case_is_listed_and_names_its_source() -> None:
    assert sorted(p.name for p in CASES.iterdir() if p.is_file()) == sorted([*OUTCOMES, *NOT_READ])
    assert sorted(p.name for p in LOGS.iterdir()) == WORKING_LOGS
    pages = sorted(n for n in OUTCOMES if n.endswith(".md"))
    # a Markdown page's header is an HTML comment (the syntax the file allows), every other file's `# `
    assert unsourced(CASES, prefix=f"# {_HEADER}") == pages
    assert unsourced(CASES, prefix=f"<!-- {_HEADER}") == sorted({*OUTCOMES, *NOT_READ} - set(pages))
    assert len(log_sources(LOGS)) == len(WORKING_LOGS)


@pytest.mark.parametrize("name", sorted(OUTCOMES))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == OUTCOMES[name]
    assert alarms(report) == []


@pytest.mark.parametrize("name", WORKING_LOGS)
def test_a_working_launchs_log_gets_no_error_or_warning(name: str) -> None:
    assert alarms(recorded_log_report(LOGS / name)) == []


def test_a_just_file_is_refused_naming_its_server_lines() -> None:
    result = run_cli(["check", "--format", "json", "Justfile"], cwd=CASES)
    assert result.status == 2 and result.stdout == ""
    assert "a justfile, which argtrace does not read (a server command at Justfile:9, Justfile:22)" in (
        result.stderr
    )


# ---- a Markdown page is read as the shell blocks that start a server


def test_the_multi_node_guide_reads_each_nodes_launch_with_its_placeholders_unknown() -> None:
    report = report_of("pigo_kimik2_deploy_guide_multinode_vllm_sglang.md")
    assert [w[:3] for w in words(report)] == [
        ["vllm", "serve", None],
        ["vllm", "serve", None],
        ["vllm", "serve", None],
        ["python", "-m", "sglang.launch_server"],
        ["python", "-m", "sglang.launch_server"],
        ["python", "-m", "sglang.launch_server"],
        ["python", "-m", "sglang.launch_server"],
    ]
    # `$MASTER_IP` is the reader's to fill: unknown (SH018, info), not unset (SH007 was a warning)
    assert not codes(report, "SH007") and not codes(report, "SH005")
    # (SH018 is said once, under the PA013 that names the same word by its flag)
    folded = [c for f in report["findings"] for c in (f, *f.get("consequences", ()))]
    assert {f["severity"] for f in folded if f["code"] == "SH018"} == {"info"}


def test_prose_headings_and_other_tools_blocks_are_not_commands(tmp_path: Path) -> None:
    page = (
        "# Serve it (on 2 GPUs)\n\nSet `--max-model-len <N>` as you need.\n\n"
        "```bash\ndocker run -v <YOUR_DIR>:/m image\n```\n\n"
        "```bash\n# pip install vllm\nvllm serve m \\\n  --max-model-len $LEN\n```\n"
    )
    report = _check(tmp_path, "README.md", page)
    assert words(report) == [["vllm", "serve", "m", "--max-model-len", None]]
    assert alarms(report) == []
    assert report["servers"][0]["at"] == "README.md:11:1"  # the page's own line numbers


def test_a_console_blocks_prompt_is_taken_off_and_its_output_left_out(tmp_path: Path) -> None:
    page = "```console\n$ vllm serve m --port 8000\nINFO: Started server (pid 1)\n```\n"
    report = _check(tmp_path, "guide.markdown", page)
    assert words(report) == [["vllm", "serve", "m", "--port", "8000"]]
    assert alarms(report) == []


def test_a_block_inside_a_list_item_is_read_without_its_indentation(tmp_path: Path) -> None:
    page = "1. Start the server:\n\n    ```bash\n    vllm serve m \\\n      --port 8000\n    ```\n"
    page += "\n2. Query it.\n"
    report = _check(tmp_path, "README.md", page)
    assert words(report) == [["vllm", "serve", "m", "--port", "8000"]]
    assert alarms(report) == []


def test_a_page_without_a_server_block_starts_no_server(tmp_path: Path) -> None:
    report = _check(tmp_path, "notes.md", "# vLLM notes\n\n```bash\npip install vllm\n```\n")
    assert report["servers"] == [] and alarms(report) == []
    assert [f["code"] for f in report["findings"]] == ["SH019"]


# ---- a container runtime's device variable beside the process runtime's own


def test_nvidia_visible_devices_beside_cuda_visible_devices_is_no_warning() -> None:
    report = report_of("ragexploration_mistral_nemo_fp8_cpu_offload_tp2.sh")
    assert not codes(report, "PR012")


@pytest.mark.parametrize(
    ("script", "warned"),
    [
        ("export NVIDIA_VISIBLE_DEVICES=1,2\nvllm serve m\n", True),  # alone: it selects nothing
        ("NVIDIA_VISIBLE_DEVICES=0 CUDA_VISIBLE_DEVICES=0 vllm serve m\n", False),
    ],
)
def test_the_container_variable_alone_is_still_said_to_select_nothing(
    tmp_path: Path, script: str, warned: bool
) -> None:
    report = _check(tmp_path, "l.sh", "#!/bin/bash\n" + script)
    found = codes(report, "PR012")
    assert bool(found) is warned
    if warned:
        assert found[0]["severity"] == "warning"
        assert found[0]["fix"].startswith(
            "Set CUDA_VISIBLE_DEVICES for the server (CUDA_VISIBLE_DEVICES=1,2)"
        )


# ---- a flag no release knows, on a launch written for a vendor build


def test_the_gaudi_forks_own_flags_are_unknown_to_upstream_not_refused() -> None:
    report = report_of("gaudi_fork_internvl_numactl_split_qkv_v0.sh")
    assert not codes(report, "PA001")
    fork = codes(report, "PA059")
    assert [(f["severity"], f["basis"]) for f in fork] == [("info", "assumed"), ("info", "assumed")]
    assert fork[1]["message"] == (
        '--split_qkv is not a flag of any bundled vllm release (vllm 0.9.2 refuses it: "unrecognized '
        'arguments", exit 2); the launch sets VLLM_DECODE_BLOCK_BUCKET_MAX, VLLM_DECODE_BS_BUCKET_MAX, '
        "VLLM_DETOKENIZE_ON_OPENAI_SERVER and 7 more, which no vllm release reads either: it is written "
        "for a build that is not upstream's (a vendor fork or platform plugin), whose parser may add the flag"
    )


@pytest.mark.parametrize(
    ("env", "code"),
    [
        ("VLLM_PROMPT_BS_BUCKET_MAX=4 VLLM_DECODE_BLOCK_BUCKET_MAX=864", "PA059"),
        ("VLLM_PROMPT_BS_BUCKET_MAX=4", "PA001"),  # one such variable may be the script's own
        ("VLLM_PROMPT_BS_BUCKET_MAX=4 VLLM_LOGING_LEVEL=DEBUG", "PA001"),  # a misspelling is no evidence
    ],
)
def test_a_vendor_build_takes_two_variables_no_release_reads(tmp_path: Path, env: str, code: str) -> None:
    report = _check(tmp_path, "l.sh", f"#!/bin/bash\n{env} vllm serve m --split_qkv\n")
    assert [f["code"] for f in report["findings"] if f["code"] in ("PA001", "PA059")] == [code]


# ---- the roles of a RoleBasedGroup or an AIBrix StormService


def test_a_stormservices_prefill_and_decode_roles_are_read() -> None:
    report = report_of("aibrix_stormservice_pd_router_rocm_sglang_1p1d.yaml")
    assert [(s["placement"]["kind"], s["placement"]["role"]) for s in report["servers"]] == [
        ("StormService", "prefill"),
        ("StormService", "decode"),
    ]


def test_a_role_based_groups_v1alpha1_template_is_read(tmp_path: Path) -> None:
    manifest = (
        "apiVersion: workloads.x-k8s.io/v1alpha1\nkind: RoleBasedGroup\nmetadata:\n  name: g\nspec:\n"
        "  roles:\n    - name: decode\n      replicas: 2\n      template:\n        spec:\n"
        "          containers:\n            - name: e\n              image: lmsysorg/sglang:v0.5.9\n"
        "              command: [python3, -m, sglang.launch_server, --model-path, m, --port, '30000']\n"
    )
    report = _check(tmp_path, "rbg.yaml", manifest)
    (server,) = report["servers"]
    assert (server["placement"]["role"], server["placement"]["replicas"]) == ("decode", 2)
    assert alarms(report) == []
