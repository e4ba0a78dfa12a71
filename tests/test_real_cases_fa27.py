"""The 2026-12-04 wrong-alarm sweep, sixth (fa27): 34 working launches from sources argtrace had not
seen (each repository and path grepped in tests/ and docs/ first): sgl-project/ome's serving runtimes (an
operator's ClusterServingRuntimes: engine and decoder runners, leader/worker groups, both of its shapes), the
vLLM Ascend plugin's examples and tutorials (templates called with positional arguments, `set -u` scripts that
read the caller's variables, multi-line connector JSON), cookbook and model-maker pages, Modal apps, a
supervisord program, and community launch scripts. Each file under ``tests/data/real_cases_fa27/`` is a
reconstruction (its header names the source at its commit and what it keeps; a Markdown page's header is an
HTML comment, a supervisord file's a `;` comment), checked as a new user: no options, no resolver
environment, no Hugging Face cache. docs/real_cases.md ("Working launches of 2025-2026 from new sources, 6th
sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa27"

pytestmark = pytest.mark.usefixtures("new_user_machine")

W, E = "warning", "error"
ASSUMED_NO_ARGUMENTS = "the script gets no arguments"

# file -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "dynamo_gtc_qwen3vl_fp8_gpu2_dot_fraction.sh": 1,
    "kb_glm47_flash_sglang058_eagle_lmstudio_llamacpp.md": 2,
    "llmvlmmemo_cpu_image_mimo_vl_max_len_22k.sh": 0,  # a locally built image: its entrypoint is not known
    "llmvlmmemo_run_vllm_case_options_string_image_switch.sh": 1,
    "llmvlmmemo_supervisor_qwen25vl_escaped_json_underscores.conf": 1,
    "medrag_qwen3vl_4b_5090_all_sizes_one_commented_block.sh": 1,
    "minimax_m25_vllm_deploy_guide_ep8_piecewise.md": 3,
    "modal_ragbot_vllm_popen_joined_shell_served_two_names.py": 1,  # was 0: `" ".join(cmd)` was TP095
    "oddgrid_leading_blank_conda_qwen3vl32b_tp4_gpus_2357.sh": 1,
    # was 0: OME's runners were not read (RS055 on the DeepEP prefill server is a note)
    "ome_runtime_srt_deepseek_pd_lws_leader_worker_decoder_sh_c.yaml": 4,
    "ome_runtime_srt_qwen3_embedding_4b_is_embedding.yaml": 1,  # was 0
    "ome_runtime_srt_qwen3_next_tp4_mem_frac_abbrev_router.yaml": 1,  # was 0
    "ome_runtime_vllm_deepseek_v4_flash_dp4_ep_mtp_joined_json.yaml": 1,  # was 0
    "ome_runtime_vllm_e5_mistral_containers_shape_bash_lc_trailing_backslash.yaml": 1,  # was an SH004 error
    "ome_runtime_vllm_gemma4_bash_lc_block_accelerator_classes.yaml": 1,  # was 0
    "ome_runtime_vllm_llama4_scout_v0901_middleware_image_chat_template.yaml": 1,  # was 0
    "openneuro_modal_molmo2_vllm015_pinned_image.py": 1,  # was 0, as the other Modal app
    "rocmagent_sglang_glm45air_aiter_off_triton_commented_block.sh": 1,
    "selfllm_qwen3_8b_sglang_ascend_page_unlabelled_blocks.md": 1,
    "sglcookbook_ling25_1t_two_nodes_one_block_pp2.md": 2,
    "sglcookbook_step35_page_gptoss_parsers_bench_blocks.md": 4,
    "vllmascend_glm51_dsa_guarded_defaults_arrays_escaped_json.sh": 1,
    "vllmascend_minimax_m25_pd_decode_eagle3_sysctl_mooncake.sh": 1,  # was an SH012 error, no server
    "vllmascend_mooncake_p2p_producer_xx_placeholders_dp2_tp2.sh": 1,
    "vllmascend_multi_node_dp_function_header_worker_headless.sh": 2,  # was an SH012 error
    "vllmascend_run_dp_server_moe_dp2_tp4_modelscope.sh": 1,
    "vllmascend_tutorial_qwen3coder_myst_code_block_substitutions.md": 2,
    "webgen_conda_hook_qwen3coder_pp1_tp4_comment_after_continuation.sh": 1,
}
# file -> (servers, the errors and warnings that are true of the file as written)
TRUE_FINDINGS: dict[str, tuple[int, list[tuple[str, str]]]] = {
    # `--enable-reasoning` was in SGLang's closed PR #3859 only; the image is a registry's build of a commit
    "ome_runtime_srt_deepseek_r1_registry_build_enable_reasoning.yaml": (1, [("PA002", E)]),
    "ome_runtime_vllm_kimi_k25_tp8_args_model_path_env.yaml": (1, [("PR001", W)]),  # VLLM_RPC_TIMEOUT
    "ome_runtime_vllm_nemotron3_super_command_args_chat_template_model_path.yaml": (1, [("PA036", W)]),
    "promptpeek_sglang_deterministic_triton_lpm_indent_mix.sh": (1, [("PR001", W)]),  # SGLANG_LOG_LEVEL
    "vllmascend_pd_v1_run_server_triple_dash_flag_trailing_backslash.sh": (1, [("PA001", E)]),
    # called by a launcher with $1-$7: checked without them, the project's assumed input (at most warnings)
    "vllmascend_external_dp_template_positional_json_splice.sh": (1, [("SH007", W)] * 6 + [("PA011", W)]),
}
_HEADER = "Reconstructed (not copied) after https://github.com/"


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["code"] == code]


def words(server: dict[str, Any]) -> list[str | None]:
    return [w["text"] for w in server["words"]]


def _check(tmp_path: Path, name: str, text: str, *args: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", name, *args], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(p.name for p in CASES.iterdir())
    assert files == sorted([*CLEAN, *TRUE_FINDINGS])
    for name in files:
        head = (CASES / name).read_text(encoding="utf-8").splitlines()
        first = head[1] if head[0].startswith("#!") else head[0]
        prefix = {".md": "<!-- ", ".conf": "; "}.get(Path(name).suffix, "# ")
        assert first.startswith(prefix + _HEADER), name


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


def test_deepep_normal_disabling_cuda_graphs_is_a_note_not_an_override_of_what_was_written() -> None:
    report = report_of("ome_runtime_srt_deepseek_pd_lws_leader_worker_decoder_sh_c.yaml")
    (note,) = codes(report, "RS055")
    assert note["severity"] == "info"
    assert note["message"].startswith(
        "sglang 0.4.8.post1 logs 'Cuda graph is disabled because deepep_mode=`normal`' at start-up "
        "because of --enable-deepep-moe, --deepep-mode normal (ServerArgs.__post_init__, "
        "sglang/srt/server_args.py:407): it changes a setting the launch did not write"
    )


@pytest.mark.parametrize(
    ("message", "named", "note"),
    [
        ("Cuda graph is disabled because deepep_mode=`normal`", ["deepep_mode", "enable_deepep_moe"], True),
        (
            "Disable --enable-aiter-allreduce-fusion because deterministic inference is enabled.",
            ["enable_aiter_allreduce_fusion", "enable_deterministic_inference"],
            False,  # it names the setting it replaces
        ),
        (
            "Mixed chunked prefill is disabled because of using eagle speculative decoding.",
            ["enable_mixed_chunk", "speculative_algorithm"],
            False,
        ),
        (
            "FlashAttention3 only supports fp8_e4m3 if using FP8; Setting attention backend to triton.",
            ["attention_backend", "kv_cache_dtype"],
            False,  # no reason clause: read as before
        ),
    ],
)
def test_a_warning_whose_reason_alone_names_the_launchs_settings_changes_an_unwritten_one(
    message: str, named: list[str], note: bool
) -> None:
    from argtrace.layers.start_overrides import changes_an_unwritten_setting

    assert changes_an_unwritten_setting(message, named) is note


# ---- sgl-project/ome: the engine's and decoder's runners, and what the operator sets in them


def test_the_ome_pd_runtimes_leaders_and_workers_are_read_with_what_the_operator_sets() -> None:
    report = report_of("ome_runtime_srt_deepseek_pd_lws_leader_worker_decoder_sh_c.yaml")
    placed = [
        (s["placement"]["role"], s["placement"]["nodes"], s["placement"]["gpus"]) for s in report["servers"]
    ]
    assert placed == [
        ("engine-leader", 2, 8),
        ("engine-worker", 2, 8),
        ("decoder-leader", 2, 8),
        ("decoder-worker", 2, 8),
    ]
    for server in report["servers"]:
        argv = words(server)
        # PARALLELISM_SIZE: the runner's 8 GPUs times the group's 2 pods; LWS_GROUP_SIZE 1 + worker.size
        assert argv[argv.index("--dp-size") + 1] == "16"
        assert argv[argv.index("--tp-size") + 1] == "16"
        assert argv[argv.index("--nnodes") + 1] == "2"
        # MODEL_PATH: the base model's storage path, known only in the cluster
        assert argv[argv.index("--model-path") + 1] is None
    ranks = [words(s)[words(s).index("--node-rank") + 1] for s in report["servers"]]
    assert ranks == ["0", None, "0", None]  # a worker's index is its own


def test_an_ome_runtimes_args_run_under_the_images_entrypoint() -> None:
    (server,) = report_of("ome_runtime_vllm_kimi_k25_tp8_args_model_path_env.yaml")["servers"]
    assert words(server)[:4] == ["vllm", "serve", None, "--port=8080"]
    assert (server["placement"]["kind"], server["placement"]["role"]) == ("ClusterServingRuntime", "engine")


def test_an_ome_inference_service_reads_its_engine_runner(tmp_path: Path) -> None:
    manifest = (
        "apiVersion: ome.io/v1beta1\nkind: InferenceService\nmetadata:\n  name: q\nspec:\n  engine:\n"
        "    runner:\n      name: ome-container\n      image: lmsysorg/sglang:v0.5.9\n"
        "      command: [python3, -m, sglang.launch_server, --model-path, $(MODEL_PATH), --tp-size, '2']\n"
        "      resources:\n        limits:\n          nvidia.com/gpu: 2\n"
    )
    report = _check(tmp_path, "isvc.yaml", manifest)
    (server,) = report["servers"]
    assert server["placement"]["role"] == "engine" and words(server)[4] is None
    assert alarms(report) == []


def test_a_kserve_runtime_keeps_its_own_shape(tmp_path: Path) -> None:
    manifest = (
        "apiVersion: serving.kserve.io/v1alpha1\nkind: ServingRuntime\nmetadata:\n  name: r\nspec:\n"
        "  containers:\n    - name: kserve-container\n      image: vllm/vllm-openai:v0.11.0\n"
        "      args: [--model, /mnt/models, --port, '8080']\n"
    )
    (server,) = _check(tmp_path, "rt.yaml", manifest)["servers"]
    assert server["placement"]["role"] == "runtime"


# ---- `bash -lc -- SCRIPT`: `--` ends the shell's options


@pytest.mark.parametrize("shell", ["[/bin/bash, -lc, --]", "[bash, -c, --]"])
def test_a_containers_shell_reads_the_script_after_its_double_dash(tmp_path: Path, shell: str) -> None:
    manifest = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: c\n          image: vllm/vllm-openai:v0.11.0\n"
        f"          command: {shell}\n          args:\n            - |\n"
        "              vllm serve m \\\n              --port=8000 \\\n              --max-model-len=4096\n"
    )
    report = _check(tmp_path, "d.yaml", manifest)
    (server,) = report["servers"]
    assert words(server) == ["vllm", "serve", "m", "--port=8000", "--max-model-len=4096"]
    assert alarms(report) == []


# ---- `set -u` and a variable only the script's caller sets


def test_the_workers_master_address_is_the_callers_under_set_u() -> None:
    report = report_of("vllmascend_multi_node_dp_function_header_worker_headless.sh")
    (note,) = codes(report, "SH012")
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert note["message"] == (
        "`$MASTER_ADDR` is not set (in the environment argtrace was given) and `set -u` is on: where the "
        "script's caller does not set it either, bash prints `MASTER_ADDR: unbound variable` and the script "
        "exits here; checked with its value unknown (pass `--env MASTER_ADDR=...` to check with the caller's "
        "value)"
    )
    assert ["--headless" in words(s) for s in report["servers"]] == [False, True]


@pytest.mark.parametrize(
    ("script", "note"),
    [
        # the caller's variable, extended by the script (the statement that reads it assigns it too)
        ("set -u\nexport LD_PRELOAD=/lib/j.so:$LD_PRELOAD\nvllm serve m\n", "SH012"),
        ('set -u\nvllm serve m --host "$HOST_IP"\n', "SH012"),
        # the script's own variable, assigned on another line: unset here, the script stops, and the
        # script is read again with it set (SH046, as before)
        ('set -u\nif false; then PORT=1; fi\nvllm serve m --port "$PORT"\n', "SH046"),
    ],
)
def test_set_u_reads_a_callers_variable_as_unknown(tmp_path: Path, script: str, note: str) -> None:
    report = _check(tmp_path, "l.sh", "#!/bin/bash\n" + script)
    assert [f["code"] for f in report["findings"] if f["code"] in ("SH012", "SH046")] == [note]
    assert alarms(report) == [] and len(report["servers"]) == 1


def test_a_variable_required_with_a_message_then_read_under_set_u_is_said_once(tmp_path: Path) -> None:
    script = '#!/bin/bash\nset -u\n: "${MODEL:?set MODEL}"\nvllm serve "${MODEL}" --port 8000\n'
    report = _check(tmp_path, "l.sh", script)
    assert [f["code"] for f in report["findings"] if f["code"] in ("SH012", "SH023")] == ["SH023"]
    assert alarms(report) == [] and len(report["servers"]) == 1


# ---- a flag's value refused because an argument the script was not given made it


def test_a_json_value_spliced_from_missing_arguments_rests_on_them() -> None:
    report = report_of("vllmascend_external_dp_template_positional_json_splice.sh")
    (refusal,) = codes(report, "PA011")
    assert (refusal["severity"], refusal["basis"]) == ("warning", "assumed")
    assert [a["value"] for a in refusal["assumed"]] == [ASSUMED_NO_ARGUMENTS]


def test_the_template_given_its_arguments_is_clean() -> None:
    args = ["0,1,2,3,4,5,6,7", "8000", "2", "0", "10.0.0.1", "13389", "8"]
    result = run_cli(
        ["check", "--format", "json", "vllmascend_external_dp_template_positional_json_splice.sh", *args],
        cwd=CASES,
    )
    assert alarms(result.json) == []


def test_a_value_the_script_wrote_itself_stays_the_error(tmp_path: Path) -> None:
    script = "#!/bin/bash\nvllm serve m --kv-transfer-config '{\"kv_role\": }'\n"
    (refusal,) = codes(_check(tmp_path, "l.sh", script), "PA011")
    assert (refusal["severity"], refusal.get("basis")) == ("error", "schema")


# ---- shellcheck reads a file that ends with a backslash as bash does


def test_a_last_line_ending_in_a_backslash_is_no_shellcheck_parse_failure(tmp_path: Path) -> None:
    script = "#!/bin/bash\nvllm serve m \\\n  --additional-config \\\n  '{}'\\"
    report = _check(tmp_path, "l.sh", script)
    assert not [f for f in report["findings"] if f["code"] in ("SC1072", "SC1073")]
    assert words(report["servers"][0])[-2:] == ["--additional-config", "{}"]


# ---- a Python program that joins its command list for a shell


def test_the_modal_apps_joined_command_is_read_with_its_chosen_switch() -> None:
    (server,) = report_of("modal_ragbot_vllm_popen_joined_shell_served_two_names.py")["servers"]
    assert words(server)[-4:] == [
        "--enable-prefix-caching",
        "--no-enforce-eager",
        "--tensor-parallel-size",
        "1",
    ]


@pytest.mark.parametrize(
    ("program", "read"),
    [
        (
            'EAGER = True\ncmd = ["vllm", "serve", "m"]\ncmd += ["--enforce-eager" if EAGER else "--port"]\n',
            True,
        ),
        # a word known only when the program runs: read with that word unknown (TP094), as a list given to
        # Popen is (fa28; it was TP095, the server not read)
        ('import os\ncmd = ["vllm", "serve", os.environ["MODEL"]]\n', True),
    ],
)
def test_a_command_list_joined_for_a_shell_is_read_when_every_word_is_known(
    tmp_path: Path, program: str, read: bool
) -> None:
    source = "import subprocess\n" + program + 'subprocess.Popen(" ".join(cmd), shell=True)\n'
    report = _check(tmp_path, "app.py", source)
    assert len(report["servers"]) == int(read)
    assert bool(codes(report, "TP095")) is not read
