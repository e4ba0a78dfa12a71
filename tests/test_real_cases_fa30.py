"""The 2026-12-05 wrong-alarm sweep, ninth (fa30): working launches of 2025-2026 from sources argtrace had
not seen (each repository and path grepped in tests/ and docs/ first): vLLM's recipes and SGLang's cookbook
pages per model (2025-12 to 2026-06), NVIDIA's DGX Spark and DGX Station playbooks (Markdown pages whose
`docker run` blocks read variables an earlier block exports, a compose service that runs a bind-mounted
launch script, an agent skill's page), DGX Spark launchers that hand a `bash -c`/`sh -c` string to a
container, a SLURM project whose launch array is quoted by `printf -v '%q '` and run by `srun
--container-image ... bash -lc`, and a Modal app. Each file under ``tests/data/real_cases_fa30/`` is a
reconstruction (its header names the source at its commit and what it keeps; a Markdown page's header is an
HTML comment), checked as a new user: no options, no resolver environment, no Hugging Face cache.
docs/real_cases.md ("Working launches of 2025-2026 from new sources, 9th sweep") has the table and the
mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa30"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "modal_nemotron3_nano_30b_sglang_v0511_http_server_popen_list_plus_args.py": 1,
    "openclaw_qwen3_coder_30b_nvfp4_spark_image_tag_backslash_glued.sh": 1,
    "openclaw_qwen3_next_nvfp4_spark_entrypoint_sh_c_pip_then_vllm_serve.sh": 1,
    "realtmxi_bge_m3_sglang_spark_docker_run_bash_c_patch_embedding.sh": 1,
    "realtmxi_glm47flash_spark_docker_run_bash_c_sed_patch_then_vllm_serve_ssh_tunnel.sh": 1,
    "realtmxi_sglang_service_positional_args_extra_args_tee_wait_n.sh": 1,
    "recipes_hunyuan_instruct_page.md": 1,
    "recipes_jina_reranker_m0_page.md": 2,
    "recipes_llama33_70b_page.md": 1,
    "recipes_llama4_scout_page.md": 1,
    "recipes_ministral3_instruct_page.md": 1,
    "recipes_phi4_page.md": 1,
    "recipes_qwen25_vl_page.md": 4,
    "recipes_qwen3guard_gen_page.md": 2,
    "recipes_seed_oss_36b_page.md": 2,
    "recipes_step37_flash_page.md": 3,
    "recipes_translategemma_page.md": 1,
    "sglcookbook_deepseek_math_v2_page.md": 1,
    "sglcookbook_deepseek_v32_page.md": 4,
    "sglcookbook_gemma4_page.md": 8,
    "sglcookbook_glm51_page.md": 3,
    "sglcookbook_kimi_k26_page.md": 2,
    "sglcookbook_llama4_page.md": 4,
    "sglcookbook_minimax_m27_page.md": 3,
    "sglcookbook_nemotron3_super_page_tp4_tool_reasoning_parsers.md": 3,
    "sglcookbook_qwen3_coder_next_page.md": 3,
    "sglcookbook_ring25_1t_page.md": 4,
    "sparkplaybooks_nemotron_page.md": 2,
    "sparkplaybooks_sglang_page.md": 1,
    # the image and the GPU are variables an earlier block exports (not kept): no server read (noticed)
    "sparkplaybooks_station_nemoclaw_page.md": 0,
    # was no server: `--gpus "device=$GPU_ID"` with GPU_ID the reader's left the container unread
    "sparkplaybooks_station_nvfp4_quantization_page.md": 2,
    # was a PA010 error: `--context-length $MAX_MODEL_LEN` (set in an earlier block) was '' in the container
    "sparkplaybooks_station_sglang_inference_page.md": 1,
    "sparkplaybooks_station_skill_sglang_setup_placeholder_model.md": 1,
    "sparkplaybooks_station_skill_vllm_setup_placeholder_model.md": 1,
    # was a PA010 error: `--max-model-len $MAX_MODEL_LEN`, the same
    "sparkplaybooks_station_vllm_page.md": 5,
    # were 2 SH026 warnings: `-e MAX_TOKENS="$MAX_TOKENS"` was taken for an assignment on the page, and the
    # container's `bash -lc '... $MAX_TOKENS'` read it as empty
    "sparkplaybooks_two_sparks_benchmarking_guide.md": 2,
    # `exec $VLLM_CMD` of a string whose flags depend on the GPU found at run time: not read (noticed)
    "sparkplaybooks_txt2kg_start_vllm.sh": 0,
    # 4 until fa32: the two runs of `nvcr.io/nvidia/vllm:${LATEST_VLLM_VERSION}` (an image known but for its
    # tag, unquoted) were not read
    "sparkplaybooks_vllm_page_container_two_sparks_ray_405b.md": 6,
    # was no server: the service's entrypoint runs the bind-mounted launch_server.sh
    "txt2kg/docker-compose.yml": 1,
    "txt2kg/launch_server.sh": 1,
}
# the project's files that are no launch of their own (a preset it sources, a readiness poll, an image)
_PROJECT = [
    "adq/scripts/serve/models/qwen3-4b-judge.sh",
    "adq/scripts/serve/serve_sglang.sh",
    "adq/scripts/serve/submit_sglang.sh",
    "adq/scripts/serve/wait_sglang.sh",
    "txt2kg/Dockerfile",
]
_HEADER = "Reconstructed (not copied) after https://github.com/"
_SERVE = CASES / "adq" / "scripts" / "serve"


def report_of(name: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name))


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["code"] == code]


def _check(tmp_path: Path, name: str, text: str, *args: str, files: dict[str, str] | None = None) -> Any:
    for extra, body in {name: text, **(files or {})}.items():
        target = tmp_path / extra
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
    result = run_cli(["check", "--format", "json", name, *args], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def _argvs(report: dict[str, Any]) -> list[list[str | None]]:
    return [server["argv"] for server in report["servers"]]


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    assert files == sorted([*CLEAN, *_PROJECT])
    for name in files:
        lines = (CASES / name).read_text(encoding="utf-8").splitlines()
        prefix = "<!-- " if name.endswith(".md") else "# "
        assert any(line.startswith(prefix + _HEADER) for line in lines[:3]), name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == CLEAN[name]
    assert alarms(report) == []


# --- the SLURM project: a preset sourced by a script found by `cd -- "$(dirname -- ...)"` ------------------


def test_a_script_that_finds_its_preset_through_dirname_double_dash_is_read() -> None:
    # was no server: `dirname -- X` and `basename -- X` gave `--`, and `cd -- DIR` went to `--`
    result = run_cli(["check", "--format", "json", "serve_sglang.sh", "models/qwen3-4b-judge.sh"], cwd=_SERVE)
    report = result.json
    assert alarms(report) == []
    ((*_, tp, _dp_flag, dp, _w, warmups, _m, running, _c, chunk, _t, parser, _l, level),) = _argvs(report)
    assert (tp, dp, warmups, running, chunk, parser, level) == ("1", "1", "3", "16", "2048", "qwen", "info")


def test_the_sbatch_wrapper_reads_no_server_where_slurm_submit_dir_decides_the_path() -> None:
    # `[[ -n "${SLURM_SUBMIT_DIR:-}" && -f ... ]]` (sbatch's directory, not known here) decides where the
    # serve script is: no server is read, and nothing is said wrongly (noticed)
    args = ["check", "--format", "json", "submit_sglang.sh", "models/qwen3-4b-judge.sh", "--wait"]
    report = run_cli(args, cwd=_SERVE).json
    assert (report["servers"], alarms(report)) == ([], [])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('D="$(cd -- "$(dirname -- "$0")" && pwd)"', "{here}"),
        ('D="$(dirname -- "{here}/x.sh")"', "{here}"),
        ('D="{here}/$(basename -- "/a/b/m.sh" .sh)"', "{here}/m"),
        ('D="$(cd -P -- "{here}" && pwd)"', "{here}"),
    ],
)
def test_double_dash_ends_the_options_of_dirname_basename_and_cd(
    tmp_path: Path, line: str, expected: str
) -> None:
    here = str(tmp_path)
    script = line.format(here=here) + '\nvllm serve m --served-model-name "$D"\n'
    (argv,) = _argvs(_check(tmp_path, "run.sh", script))
    assert argv[-1] == expected.format(here=here)


# --- words a docker command passes on that the local shell does not know ------------------------------------

_UNKNOWN = "M=$(hostname)\nL=$(nproc)\n"


@pytest.mark.parametrize(
    "carrier",
    [
        "docker run -d --gpus all lmsysorg/sglang:v0.5.9 sglang serve",
        "docker exec -d sgl sglang serve",
    ],
)
def test_a_word_the_local_shell_does_not_know_stays_unknown_in_the_container(
    tmp_path: Path, carrier: str
) -> None:
    script = _UNKNOWN + carrier + ' --model-path "$M" --context-length $L --port 1\n'
    report = _check(tmp_path, "run.sh", script)
    (argv,) = _argvs(report)
    # it was '$M' (as written) and '' (an argparse refusal: PA010 "Invalid integer value: ''")
    assert argv[-6:] == ["--model-path", None, "--context-length", None, "--port", "1"]
    assert codes(report, "PA010") == []
    said = [f["message"] for f in codes(report, "PA013")]
    assert said[0].startswith("the value of --model-path comes from $M (command substitution `$(hostname)`")


def test_an_env_option_whose_value_is_not_known_still_sets_the_name_in_the_container(tmp_path: Path) -> None:
    script = (
        _UNKNOWN + 'docker run --rm --gpus all -e M="$M" -e L="$L" nvcr.io/nvidia/vllm:25.12-py3 bash -lc '
        "'\nvllm serve \"$M\" --max-model-len $L\n'\n"
    )
    report = _check(tmp_path, "run.sh", script)
    # the container's shell has M and L, their values not known (it read them as unset: SH007/SH026)
    assert _argvs(report) == [["vllm", "serve", None, "--max-model-len", None]]
    assert alarms(report) == []


def test_a_gpus_value_not_known_leaves_the_container_read_with_no_count(tmp_path: Path) -> None:
    script = (
        'G=$(nvidia-smi -L | wc -l)\ndocker run --gpus "device=$G" --ipc host vllm/vllm-openai:v0.15.1 m\n'
    )
    report = _check(tmp_path, "run.sh", script)
    assert _argvs(report) == [["vllm", "serve", "m"]]
    assert report["servers"][0].get("gpus") is None


# --- Markdown pages: what a page sets -----------------------------------------------------------------------

_PAGE = (
    "# Serve\n\n```bash\nexport MAX_LEN=8192\n```\n\n```bash\n"
    'docker run --gpus all -e MODEL="$MODEL" -e MAX_LEN="$MAX_LEN" nvcr.io/nvidia/vllm:25.12-py3 \\\n'
    "  bash -lc 'vllm serve \"$MODEL\" --max-model-len $MAX_LEN'\n```\n"
)


def test_a_pages_env_option_is_no_assignment_and_its_variable_stays_the_readers(tmp_path: Path) -> None:
    report = _check(tmp_path, "README.md", _PAGE)
    assert _argvs(report) == [["vllm", "serve", None, "--max-model-len", None]]
    assert alarms(report) == []


def test_what_a_page_assigns() -> None:
    from argtrace.layers.shell.markdown import _assigned

    code = (
        'export A=1 B="x y"\nC=2 D=3 cmd -e E="$E" F=1\nexport G\nif x; then H=1; fi\n'
        "docker run -e K=1 img\nfor i in 1; do J=2; done\n"
    )
    assert sorted(_assigned(code)) == ["A", "B", "C", "D", "G", "H", "J"]


# --- compose: a service that runs a launch script it bind-mounts -------------------------------------------

_LAUNCH = '#!/bin/bash\nMODEL=${VLLM_MODEL:-Qwen/Qwen3-8B}\nexec vllm serve "$MODEL" --port 8001 "$@"\n'


@pytest.mark.parametrize(
    ("volume", "entrypoint", "servers"),
    [
        ("- ./launch.sh:/app/launch.sh", '["/bin/bash", "/app/launch.sh"]', 1),
        ("- ./launch.sh:/app/launch.sh:ro", '["/app/launch.sh"]', 1),  # run by its `#!` line
        ("- .:/app", '["bash", "/app/launch.sh"]', 1),  # a mounted directory
        (
            "- type: bind\n        source: ./launch.sh\n        target: /app/launch.sh",
            '["sh", "/app/launch.sh"]',
            1,
        ),
        ("- scripts:/app", '["/bin/bash", "/app/launch.sh"]', 0),  # a named volume: not the project's
    ],
)
def test_a_compose_service_running_a_mounted_script_reads_it(
    tmp_path: Path, volume: str, entrypoint: str, servers: int
) -> None:
    compose = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.15.1\n    environment:\n"
        "      - VLLM_MODEL=Qwen/Qwen3-4B\n    volumes:\n"
        f"      {volume}\n    entrypoint: {entrypoint}\n    command: [--max-model-len, '4096']\n"
    )
    report = _check(tmp_path, "compose.yml", compose, files={"launch.sh": _LAUNCH})
    expected = [["vllm", "serve", "Qwen/Qwen3-4B", "--port", "8001", "--max-model-len", "4096"]]
    assert _argvs(report) == expected[:servers]
    if servers:
        assert report["servers"][0]["at"].startswith("launch.sh:3:")
