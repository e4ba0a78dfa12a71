"""The 2026-12-04 wrong-alarm sweep, seventh (fa28): working launches from sources argtrace had not seen (each
repository and path grepped in tests/ and docs/ first): Modal's own example apps (dicts of settings spread
by comprehensions, `|=` merges, `json.dumps`, words known only when the program runs, pinned packages and
registry images), model makers' and cookbooks' pages (Hy3, HunyuanOCR, dstack's example pages whose launch
is a YAML block, Ant Ling's notebook), Harbor's compose fragments run from the project's directory, Vast.ai's
supervisor program, an agent skill's ROCm launcher and community scripts. Each file under
``tests/data/real_cases_fa28/`` is a reconstruction (its header names the source at its commit and what it
keeps; a Markdown page's header is an HTML comment, a notebook's is its first cell), checked as a new user:
no options, no resolver environment, no Hugging Face cache. docs/real_cases.md ("Working launches of
2025-2026 from new sources, 7th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa28"

pytestmark = pytest.mark.usefixtures("new_user_machine")

W, E = "warning", "error"

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "atomhelper_sglang_model_impl_atom_qwen3_06b_tee_background.sh": 1,
    "dstack_sglang_example_page_mkdocs_tabs_indented_yaml.md": 1,  # was 0: a yaml block is the launch
    "dstack_vllm_example_page_service_yaml_block_termy_output.md": 1,  # was 0
    # the script writes its command into a file named by `date` and starts that file: not followed
    "glm51skill_rocm_vllm_printf_q_cmd_file_nohup_read_extra_args.sh": 0,
    "hackillinois_modal_vllm013_fast_boot_enforce_eager_join.py": 1,  # release 0.13.0 from the image's pin
    # was 2 errors, 2 warnings: the fragment's env files and .env are the project's, one directory up
    "harbor/services/compose.sglang.yml": 1,
    # was 2 errors, 3 warnings; a locally built image (its entrypoint is not known)
    "harbor/services/compose.vllm.yml": 0,
    "hunyuanocr_vllm0181_archive_page_serve_sh_env_prefix_pkill.md": 0,  # the command is in serve.sh
    "hy3_local_server_page_vllm_mtp_dotted_sglang_eagle.md": 2,
    # was refused ("Python cannot parse this file"): a `!` escape continued by backslashes
    "lingcookbook_ling3_flash_vllm_nightly_uv_run_multiline_bang_mtp.ipynb": 1,
    "lingcookbook_ling3_tiny_spark_notebook_pr_branch_bang_cell.ipynb": 1,
    "modal_deepseek_v4_flash_sglang_nightly_patched_command_function.py": 1,  # was 0: `cmd = f()`
    "modal_gpt_oss_vllm013_config_dict_merges_json_dumps_eagle3.py": 1,
    "modal_ministral3_vllm0112_mistral_formats_underscored_flags_joined.py": 1,
    "modal_nemotron3_ultra_sglang0511_spec_args_plus_server_args.py": 1,
    "modal_sglang_embeddings_v056_image_is_embedding_memory_saver.py": 1,
    "modal_sglang_low_latency_qwen35_spec_dict_comprehension.py": 1,
    "modal_sglang_vlm_qwen36_v0510_int_underscore_extra_buffer_join.py": 1,  # was 0 (TP095)
    "modal_stepfun_sglang_dev_image_ifexp_revision_list.py": 1,
    "modal_very_large_models_glm47_config_yaml_string_env_word_shell_join.py": 1,  # was 0 (TP095)
    "modal_vllm_low_latency_v0112_pin_model_after_option_sleep_mode.py": 1,
    "pranav_runpod_generate_supervisor_heredoc_run_vllm_script.sh": 0,  # writes the files, starts nothing
    "sglcookbook_devstral2_page_admonition_nested_python_fence_in_output.md": 2,
    "sglcookbook_ernie45_page_model_and_model_path_markdown_in_output.md": 2,
    "sglcookbook_kimi_linear_rocm_page_docker_shell_then_server_env.md": 2,
    "sglcookbook_llada21_dllm_page_four_backtick_output_fences.md": 2,
    "sglcookbook_nemotron3_nano_page_nightly_uv_pin_three_launches_lmeval.md": 3,
    "uivenus_serve_vllm_api_required_model_array_passthrough.sh": 1,
    # without VLLM_MODEL the program exits 0 before the server, as supervisord's program does (SH046: read as
    # set, value unknown); 0 until fa32: the `eval` string's unquoted ${VLLM_MODEL:-} after "vllm serve " made
    # the whole string unknown (eval joins its words with blanks: a hole there is one whatever it splits into)
    "vastai_base_image_vllm_supervisor_eval_args_conf_ray_wait.sh": 1,
}
# launch -> (servers, the errors and warnings that are true of the file as written)
TRUE_FINDINGS: dict[str, tuple[int, list[tuple[str, str]]]] = {
    # --enable-sp is in no SGLang release (0.4.0.post2-0.5.23); the node runs a source checkout on
    # PYTHONPATH whose parser is not known: a warning resting on the release analysed
    "pass_ascend_pnode_label_line_pythonpath_checkout_dsv32_w8a8.sh": (1, [("PA001", W)]),
    # `--served-model-name MODEL --served-model-name llm`: vLLM 0.15.1 (the image's tag) keeps the last, the
    # model's name is lost (the app's own requests use "llm"); was an RS069 warning on the assumed 0.33.0
    "modal_lfm2_vllm0151_image_served_name_twice_env_default_model.py": (1, [("PA006", W)]),
}
_HEADER = "Reconstructed (not copied) after https://github.com/"


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["code"] == code]


def _check(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    result = run_cli(["check", "--format", "json", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def _header(path: Path) -> str:
    if path.suffix == ".ipynb":
        return str(json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"][0])
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(line for line in lines[:3] if _HEADER in line)


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    launches = sorted([*CLEAN, *TRUE_FINDINGS])
    # the harbor project's other files: its base compose file, .env and the services' env files
    project = ["harbor/.env", "harbor/compose.yml", "harbor/services/sglang/override.env"]
    project += ["harbor/services/vllm/override.env"]
    assert files == sorted([*launches, *project])
    for name in files:
        prefix = {".md": "<!-- ", ".ipynb": "<!-- "}.get(Path(name).suffix, "# ")
        assert _header(CASES / name).startswith(prefix + _HEADER), name


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


@pytest.mark.parametrize(
    ("name", "version", "source"),
    [
        ("hackillinois_modal_vllm013_fast_boot_enforce_eager_join.py", "0.13.0", "pip-line"),
        ("modal_vllm_low_latency_v0112_pin_model_after_option_sleep_mode.py", "0.11.2", "pip-line"),
        ("modal_sglang_embeddings_v056_image_is_embedding_memory_saver.py", "0.5.6.post2", "image"),
        ("modal_sglang_low_latency_qwen35_spec_dict_comprehension.py", "0.5.9", "image"),
        ("modal_nemotron3_ultra_sglang0511_spec_args_plus_server_args.py", "0.5.11", "image"),
        ("modal_lfm2_vllm0151_image_served_name_twice_env_default_model.py", "0.15.1", "image"),
        ("modal_sglang_vlm_qwen36_v0510_int_underscore_extra_buffer_join.py", "0.5.10.post1", "image"),
    ],
)
def test_a_modal_image_pin_or_registry_tag_is_the_release(name: str, version: str, source: str) -> None:
    framework = report_of(name)["framework"]
    assert (framework["version"], framework["source"]) == (version, source)


def test_settings_spread_from_a_dict_by_a_comprehension_are_the_servers_words() -> None:
    argv = report_of("modal_gpt_oss_vllm013_config_dict_merges_json_dumps_eagle3.py")["servers"][0]["argv"]
    assert argv[argv.index("--speculative-config") + 1] == (
        '{"model": "RedHatAI/gpt-oss-20b-speculator.eagle3", "num_speculative_tokens": 7, "method": "eagle3"}'
    )
    assert argv[argv.index("--compilation-config") + 1] == (
        '{"pass_config": {"fuse_allreduce_rms": true, "eliminate_noops": true}}'
    )
    assert argv[-10:] == [
        "--stream-interval",
        "20",
        "--kv-cache-dtype",
        "fp8",
        "--max-cudagraph-capture-size",
        "32",
        "--max-num-batched-tokens",
        "16384",
        "--max-model-len",
        "32768",
    ]
    sglang = report_of("modal_sglang_low_latency_qwen35_spec_dict_comprehension.py")["servers"][0]["argv"]
    assert sglang[sglang.index("--tp") + 1] == "2"  # `GPU_TYPE, N_GPUS = "H100!", 2`
    assert sglang[sglang.index("--cuda-graph-max-bs") + 1] == "20"  # f"{TARGET_INPUTS * 2}"
    assert sglang[-8:] == [
        "--speculative-algorithm",
        "EAGLE",
        "--speculative-num-steps",
        "3",
        "--speculative-eagle-topk",
        "1",
        "--speculative-num-draft-tokens",
        "4",
    ]


def test_a_joined_command_with_words_known_only_when_it_runs_is_read_with_them_unknown() -> None:
    report = report_of("modal_very_large_models_glm47_config_yaml_string_env_word_shell_join.py")
    (server,) = report["servers"]
    assert server["argv"][:4] == ["python", "-m", "sglang.launch_server", "--host"]
    assert server["argv"][-3:] == ["--config", "/root/config.yaml", None]  # `--load-format dummy` if asked
    assert codes(report, "TP095") == []
    said = sorted(f["message"].split(" in a Python launch")[0] for f in codes(report, "TP094"))
    assert said == ["`0 if USE_DUMMY_WEIGHTS else 1`", "`['--load-format', 'dummy']`"]


@pytest.mark.parametrize(
    ("guard", "words"),
    [
        ("import os\nDUMMY = os.environ.get('DUMMY') == '1'\n", None),  # known only when it runs
        ("DUMMY = False\n", []),
        ("DUMMY = True\n", ["--load-format", "dummy"]),
    ],
)
def test_words_a_list_gains_under_an_if_count_as_its_test_decides(
    tmp_path: Path, guard: str, words: list[str] | None
) -> None:
    program = (
        "import subprocess\n" + guard + 'cmd = ["vllm", "serve", "m", "--port", "8000"]\n'
        "if DUMMY:\n"
        '    cmd.extend(["--load-format", "dummy"])\n'
        "subprocess.Popen(cmd)\n"
    )
    report = _check(tmp_path, "app.py", program)
    argv = report["servers"][0]["argv"]
    assert argv[:5] == ["vllm", "serve", "m", "--port", "8000"]
    assert argv[5:] == ([None] if words is None else words)
    assert alarms(report) == []


def test_main_guard_and_not_and_comparison(tmp_path: Path) -> None:
    program = (
        "import subprocess\n"
        'MODE = "eager"\n'
        'cmd = ["vllm", "serve", "m"]\n'
        "if not MODE == 'graph':\n"
        '    cmd += ["--enforce-eager"]\n'
        'if __name__ == "__main__":\n'
        '    cmd.append("--port")\n'
        "    cmd.append(str(8000 - 1))\n"
        "    subprocess.Popen(cmd)\n"
    )
    report = _check(tmp_path, "app.py", program)
    assert report["servers"][0]["argv"] == ["vllm", "serve", "m", "--enforce-eager", "--port", "7999"]


@pytest.mark.parametrize(("version", "refused"), [("0.16.0", False), ("0.17.1", True), ("0.33.0", True)])
def test_served_model_name_before_the_model_is_refused_only_by_releases_that_raise_it(
    tmp_path: Path, version: str, refused: bool
) -> None:
    # vLLM PR #34973: its raise site is in the message index from 0.17.1 (argparse_utils.py:229)
    command = "vllm serve --uvicorn-log-level=info Qwen/Qwen3-8B --served-model-name llm"
    options = ["--format", "json", "--framework-version", version]
    result = run_cli(["check", *options, "-c", command], cwd=tmp_path)
    report: dict[str, Any] = result.json
    assert [f["severity"] for f in codes(report, "PA023")] == (["error"] if refused else [])


def test_a_markdown_page_whose_shell_blocks_start_a_server_keeps_them_over_its_yaml(tmp_path: Path) -> None:
    page = (
        "# Both\n\n```yaml\ntype: service\nimage: vllm/vllm-openai:v0.11.0\n"
        "commands:\n  - vllm serve Qwen/Qwen3-8B --port 8000\nport: 8000\n```\n\n"
        "```bash\nvllm serve Qwen/Qwen3-0.6B --port 8001\n```\n"
    )
    report = _check(tmp_path, "README.md", page)
    assert [s["argv"][2] for s in report["servers"]] == ["Qwen/Qwen3-0.6B"]
    assert alarms(report) == []


def test_a_yaml_block_that_is_no_launch_file_leaves_the_page_without_a_server(tmp_path: Path) -> None:
    # a framework's own --config YAML on a page names no manifest: nothing is read from it
    page = "# Config\n\n```yaml\nmodel: Qwen/Qwen3-8B\nport: 8000\n# vllm serve --config this.yaml\n```\n"
    report = _check(tmp_path, "README.md", page)
    assert report["servers"] == []


_FRAGMENT = (
    "services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.9\n    env_file:\n"
    "      - ./services/sglang/override.env\n"
    "    command: python3 -m sglang.launch_server --model-path ${MODEL} --port 30000\n"
)


def test_a_compose_fragment_reads_the_project_directory_above_it(tmp_path: Path) -> None:
    (tmp_path / "services" / "sglang").mkdir(parents=True)
    (tmp_path / "services" / "sglang" / "override.env").write_text("HF_HUB_OFFLINE=0\n")
    (tmp_path / "compose.yml").write_text("services: {}\n")
    (tmp_path / ".env").write_text("MODEL=Qwen/Qwen3-8B\n")
    report = _check(tmp_path, "services/compose.sglang.yml", _FRAGMENT)
    assert alarms(report) == []
    (note,) = codes(report, "TP106")
    assert note["severity"] == "info"
    assert note["message"].startswith(
        "services/compose.sglang.yml is read as part of the compose project in .: its env files are there, "
        "beside compose.yml, not beside it"
    )
    argv = report["servers"][0]["argv"]
    assert argv[argv.index("--model-path") + 1] == "Qwen/Qwen3-8B"  # ${MODEL} from the project's .env


def test_without_a_compose_file_above_a_missing_env_file_stays_an_error(tmp_path: Path) -> None:
    (tmp_path / "services" / "sglang").mkdir(parents=True)
    (tmp_path / "services" / "sglang" / "override.env").write_text("HF_HUB_OFFLINE=0\n")
    report = _check(tmp_path, "services/compose.sglang.yml", _FRAGMENT, "--env", "MODEL=m")
    assert codes(report, "TP106") == []
    assert [(f["code"], f["severity"]) for f in alarms(report)] == [("TP016", "error")]


def test_a_notebook_escape_continued_by_backslashes_is_one_command() -> None:
    report = report_of("lingcookbook_ling3_flash_vllm_nightly_uv_run_multiline_bang_mtp.ipynb")
    (server,) = report["servers"]
    assert server["argv"][:3] == ["uv", "run", "vllm"]
    assert server["argv"][-2:] == ["--speculative-config", '{"method":"mtp","num_speculative_tokens":3}']


def test_the_list_a_function_returns_is_the_command() -> None:
    report = report_of("modal_deepseek_v4_flash_sglang_nightly_patched_command_function.py")
    argv = report["servers"][0]["argv"]
    assert argv[:4] == ["sglang", "serve", "--model-path", "deepseek-ai/DeepSeek-V4-Flash-0731"]
    assert argv[argv.index("--dist-timeout") + 1] == "3600"  # f"{60 * MINUTES}"


def test_a_function_with_parameters_is_not_evaluated(tmp_path: Path) -> None:
    program = (
        "import subprocess\n"
        "def command(port):\n"
        '    return ["vllm", "serve", "m", "--port", str(port)]\n'
        "cmd = command(8000)\n"
        "subprocess.Popen(cmd)\n"
    )
    report = _check(tmp_path, "app.py", program)
    assert report["servers"] == []
