"""The 2026-12-05 wrong-alarm sweep, fifteenth (fa36): correct launches of 2025-2026 in the shapes earlier
sweeps read least, none of whose files was in tests/ or docs/ (each repository path grepped first): a DGX
Spark cluster repository's Makefile, Ray-container launchers (`docker exec CONTAINER /bin/bash -c '...'`
with values passed by `-e`, a `.env` sourced only where a test finds it) and NGC compose file, another
repository's launch profiles (dotted `--compilation_config.pass_config...` and `--attention-config.backend`
flags), a DFlash compose file, a Modal app on vLLM's gpt-oss wheel, a WSL starter script, vLLM's
encoder/prefill/decode disaggregation examples (`--ec-transfer-config`, `--conver` abbreviated), SGLang's AMD
and Jetson platform pages (a `drun` alias for `docker run`) and its RoleBasedGroup PD manifest (DP attention,
DeepEP, leader patches). Each file under ``tests/data/real_cases_fa36/`` is a reconstruction (its header
names the source and what it keeps; a Markdown page's header is an HTML comment), checked as a new user: no
options, no resolver environment, no Hugging Face cache. docs/real_cases.md ("Working launches of 2025-2026
from new sources, 15th sweep") has the table and the mechanisms.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import recorded_check
from tests.conftest import Launch, alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_fa36"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# launch -> servers found; each gets no error or warning
CLEAN: dict[str, int] = {
    "aeon7_qwen36_dflash_compose/docker-compose.yml": 1,
    # SH017 said `source ./.env` would fail and the script go on, under `set -e` (it exits there)
    "aistarter_nohup_dotenv_set_a_gptq.sh": 1,
    "modalchat_gpt_oss_120b_gptoss_wheel_popen_shell.py": 1,
    "sglangdocs_nvidia_jetson_orin_page.md": 2,
    # was no server: the leader's command is a patch of the role's template (rbg's patchLeaderTemplate)
    "sglangdocs_rbg_dsv32_pd_deepep.yml": 2,
    "sparkdocker_dsv4_flash_tp4_env_defaults_api_server.sh": 1,
    "sparkdocker_glm47_nvfp4_attention_config_dotted.sh": 1,
    "sparkdocker_glm47_nvfp4_64k_no_ray_note.sh": 1,
    "sparkdocker_gpt_oss_120b_flashinfer_mxfp4_tp2.sh": 1,
    "sparkdocker_kimi_k26_int4_ray_dotted_compilation_config.sh": 1,
    "sparkdocker_minimax_m2_awq_fastsafetensors.sh": 1,
    "techpreacher_ngc_compose/compose.yml": 1,
    # was no server: the recipes ran in one shell, so `cd cluster/head` of one target moved the next
    "techpreacher_spark_cluster/Makefile": 1,
    # these four said a `.env` sourced under `if [[ -f ... ]]` would fail where it is missing
    "techpreacher_spark_cluster/glm/launch-glm53-flash.sh": 1,
    "techpreacher_spark_cluster/nemotron/launch-nemotron-120b.sh": 1,
    "techpreacher_spark_cluster/qwen/launch-qwen-30b.sh": 1,
    "techpreacher_spark_cluster/qwen/launch-qwen-122b.sh": 1,
    "vllmexamples_ec_shm/run_e.sh": 1,
    "vllmexamples_ec_shm/run_pd.sh": 1,
    "vllmexamples_ec_both_encoder_script_args.sh": 1,
}
_AMD_SPLIT = (
    "SH004",
    "error",
    "line {line} starts with `--tp`: the line before it does not end with a backslash, so the command ended "
    "there and `--tp 8 --trust-remote-code --host 0.0.0.0 --port 30000` runs as a separate command (`--tp: "
    "command not found`); these flags never reach the server",
)
_STRAY = 'is not a value of any flag: sglang 0.5.23 rejects it with "unrecognized arguments" (exit 2)'
# launches the source itself breaks, or that the analysed release refuses (kept: true findings)
KEPT: dict[str, tuple[int, list[tuple[str, str, str]]]] = {
    # `--model-path M \ # <- here`: the backslash escapes a blank, `# <- here` is no comment, the line ends
    # the command; was 3 SH040 warnings ("argtrace does not follow `drun`") and no server, one of them on the
    # page's correct first launch
    "sglangdocs_amd_gpu_drun_alias_page.md": (
        3,
        [
            (_AMD_SPLIT[0], _AMD_SPLIT[1], _AMD_SPLIT[2].format(line=55)),
            (_AMD_SPLIT[0], _AMD_SPLIT[1], _AMD_SPLIT[2].format(line=71)),
            ("PA001", "error", f"' #' (after deepseek-ai/DeepSeek-V3) {_STRAY}"),
            ("PA001", "error", f"'here' (after  #) {_STRAY}"),
            ("PA001", "error", f"' #' (after meta-llama/Meta-Llama-3.1-8B-Instruct) {_STRAY}"),
            ("PA001", "error", f"'here' (after  #) {_STRAY}"),
        ],
    ),
    # the encoder at --gpu-memory-utilization 0.0: vllm 0.33.0 declares Field(gt=0); vLLM's own example now
    # gives 0.01 (vllm-project/vllm 535c031, examples/online_serving/disaggregated_encoder)
    "vllmexamples_epd_1e1p1d_ec_transfer_config.sh": (
        3,
        [
            (
                "RS070",
                "warning",
                "--gpu-memory-utilization 0: vllm 0.33.0 stops at start-up: "
                "CacheConfig.gpu_memory_utilization "
                'is declared Field(gt=0), vllm/config/cache.py:215, so pydantic refuses 0 ("Input should be '
                'greater than 0") when EngineArgs.create_engine_config builds the configuration',
            )
        ],
    ),
}
# files the launches read (sourced, or run by the Makefile)
SUPPORT = ["techpreacher_spark_cluster/cluster/lib.sh", "techpreacher_spark_cluster/nemotron/cluster-env.sh"]
_HEADER = "Reconstructed (not copied) after https://"


def report_of(name: str, *options: str) -> dict[str, Any]:
    return recorded_check(CASES, Launch(name, tuple(options)))


def test_every_case_is_listed_and_names_its_source() -> None:
    files = sorted(str(p.relative_to(CASES)) for p in CASES.rglob("*") if p.is_file())
    assert files == sorted([*CLEAN, *KEPT, *SUPPORT])
    for name in files:
        lines = (CASES / name).read_text(encoding="utf-8").splitlines()
        prefix = "<!-- " if name.endswith(".md") else "# "
        assert any(line.startswith(prefix + _HEADER) for line in lines[:3]), name


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_a_correct_launch_gets_no_error_or_warning(name: str) -> None:
    report = report_of(name)
    assert len(report["servers"]) == CLEAN[name]
    assert alarms(report) == []


@pytest.mark.parametrize("name", sorted(KEPT))
def test_a_launch_the_source_breaks_keeps_its_findings(name: str) -> None:
    report = report_of(name)
    servers, said = KEPT[name]
    assert len(report["servers"]) == servers
    assert [(f["code"], f["severity"], f["message"]) for f in alarms(report)] == said


def test_the_amd_pages_first_launch_runs_through_its_alias() -> None:
    report = report_of("sglangdocs_amd_gpu_drun_alias_page.md")
    first = report["servers"][0]
    assert first["argv"] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "NousResearch/Meta-Llama-3.1-8B",
        "--host",
        "0.0.0.0",
        "--port",
        "30000",
    ]
    assert not [f for f in alarms(report) if f["at"].split(":")[1] in {str(n) for n in range(29, 38)}]


def test_the_makefiles_target_runs_the_launcher_beside_it() -> None:
    report = report_of("techpreacher_spark_cluster/Makefile")
    (server,) = report["servers"]
    assert server["argv"][:3] == ["vllm", "serve", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"]


def test_the_rbg_roles_leaders_are_their_patched_templates() -> None:
    report = report_of("sglangdocs_rbg_dsv32_pd_deepep.yml")
    shown = [
        (s["placement"]["kind"], s["placement"]["name"], s["placement"]["role"], s["placement"]["replicas"])
        for s in report["servers"]
    ]
    assert shown == [
        ("RoleBasedGroup", "deepseek-rbg-32exp/prefill", "leader", 1),
        ("RoleBasedGroup", "deepseek-rbg-32exp/decode", "leader", 1),
    ]


# --- a Makefile's recipe lines each run in a shell of their own -------------------------------------------


def _check(tmp_path: Path, name: str, text: str, *options: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def _argvs(report: dict[str, Any]) -> list[list[str]]:
    return [s["argv"] for s in report["servers"]]


_SERVE = "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2\n"


def _two_targets(tmp_path: Path, extra: str = "") -> dict[str, Any]:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.sh").write_text(_SERVE)
    return _check(tmp_path, "Makefile", f"{extra}a:\n\tcd elsewhere && true\nb:\n\tcd b && bash run.sh\n")


def test_a_cd_of_one_recipe_line_does_not_move_the_next(tmp_path: Path) -> None:
    assert _argvs(_two_targets(tmp_path)) == [
        ["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]
    ]


def test_oneshell_runs_a_recipe_in_one_shell(tmp_path: Path) -> None:
    # .ONESHELL: the recipe's lines share one shell, so the first line's `cd` reaches the second
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "run.sh").write_text(_SERVE)
    report = _check(tmp_path, "Makefile", ".ONESHELL:\nserve:\n\tcd b\n\tbash run.sh\n")
    assert _argvs(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--tensor-parallel-size", "2"]]


def test_a_variable_of_one_recipe_line_does_not_reach_the_next(tmp_path: Path) -> None:
    report = _check(
        tmp_path, "Makefile", "serve:\n\texport TP=4\n\tvllm serve m --tensor-parallel-size $${TP:-1}\n"
    )
    assert _argvs(report) == [["vllm", "serve", "m", "--tensor-parallel-size", "1"]]


# --- a `source` a file test guards --------------------------------------------------------------------------


def _sh017(tmp_path: Path, script: str) -> list[str]:
    report = _check(tmp_path, "l.sh", "#!/bin/bash\n" + script + "vllm serve Qwen/Qwen3-8B\n")
    return [f["message"] for f in report["findings"] if f["code"] == "SH017"]


_GUARDED = (
    "`source .env`: the file is not on this machine, and the script reads it only where a test finds it"
)
_MISSING = (
    "`source .env`: the file does not exist on this machine; if it does not exist where the script runs "
    "either, bash reports an error and "
)


@pytest.mark.parametrize(
    "script",
    [
        "if [ -f .env ]; then source .env; fi\n",
        "if [[ -e .env ]]; then set -a; . .env; set +a; fi\n",
        "[ -r .env ] && source .env\n",
        "test -f .env && source .env\n",
    ],
)
def test_a_source_under_a_test_of_its_file_is_not_said_to_fail(tmp_path: Path, script: str) -> None:
    (message,) = _sh017(tmp_path, script)
    assert message == _GUARDED + ", so what it sets is not known here"


@pytest.mark.parametrize(
    "script",
    [
        "if [ ! -f .env ]; then source .env; fi\n",  # the branch where it is missing
        "[ -f .env ] || source .env\n",
        "if [ -f other.env ]; then source .env; fi\n",  # another file tested
    ],
)
def test_a_source_the_test_does_not_vouch_for_keeps_the_note(tmp_path: Path, script: str) -> None:
    (message,) = _sh017(tmp_path, script)
    assert message == _MISSING + "continues without what it would set"


def test_a_missing_source_under_set_e_stops_the_script(tmp_path: Path) -> None:
    (message,) = _sh017(tmp_path, "set -e\nsource .env\n")
    assert message == _MISSING + "the script exits there (`set -e`)"


# --- an alias a page's launch runs --------------------------------------------------------------------------


_PAGE = (
    "# Page\n\n```bash\nalias drun='docker run --rm --ipc=host --shm-size 16G \\\n"
    "    --device=/dev/kfd'\n```\n\n"
    "```bash\ndrun img \\\n    python3 -m sglang.launch_server --model-path m --port 30000\n```\n"
)


def test_a_pages_alias_is_expanded_as_the_readers_shell_does(tmp_path: Path) -> None:
    report = _check(tmp_path, "README.md", _PAGE)
    assert _argvs(report) == [
        ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30000"]
    ]
    assert alarms(report) == []


def test_an_alias_no_launch_runs_stays_out_of_the_page(tmp_path: Path) -> None:
    page = _PAGE.replace("drun img", "docker run img").replace("alias drun=", "alias other=")
    report = _check(tmp_path, "README.md", page)
    assert [s["argv"][:3] for s in report["servers"]] == [["python3", "-m", "sglang.launch_server"]]
    assert not [f for f in report["findings"] if f["code"] == "SH031"]


# --- an RBG role whose leader and workers patch the template ----------------------------------------------


def _rbg(size: int, api: str = "v1alpha1") -> str:
    command = (
        "[python3, -m, sglang.launch_server, --model-path, m, --tp, '16', --nnodes, $(LWS_GROUP_SIZE), "
        "--node-rank, $(LWS_WORKER_INDEX), --dist-init-addr, '$(LWS_LEADER_ADDRESS):20000']"
    )
    if api == "v1alpha1":
        group = (
            f"      leaderWorkerSet:\n        size: {size}\n"
            "        patchLeaderTemplate:\n          spec:\n"
            f"            containers:\n              - name: s\n                command: {command}\n"
            "        patchWorkerTemplate:\n          spec:\n            containers:\n"
            "              - name: s\n"
            f"                command: {command}\n"
            "      template:\n"
        )
    else:
        group = (
            f"      leaderWorkerPattern:\n        size: {size}\n"
            "        leaderTemplatePatch:\n          spec:\n"
            f"            containers:\n              - name: s\n                command: {command}\n"
            "        template:\n"
        )
    indent = "        " if api == "v1alpha2" else "      "
    return (
        f"apiVersion: workloads.x-k8s.io/{api}\nkind: RoleBasedGroup\nmetadata:\n  name: g\nspec:\n  roles:\n"
        f"    - name: decode\n      replicas: 1\n{group}"
        f"{indent}  spec:\n{indent}    containers:\n{indent}      - name: s\n{indent}        image: "
        f"lmsysorg/sglang:v0.5.9\n{indent}        resources:\n{indent}          limits:\n"
        f"{indent}            nvidia.com/gpu: '8'\n"
    )


@pytest.mark.parametrize(("size", "roles"), [(1, [("leader", 1)]), (2, [("leader", 1), ("worker", 1)])])
def test_a_patched_leader_and_its_workers_are_read(tmp_path: Path, size: int, roles: list[Any]) -> None:
    report = _check(tmp_path, "rbg.yaml", _rbg(size))
    assert [(s["placement"]["role"], s["placement"]["replicas"]) for s in report["servers"]] == roles
    assert all(s["argv"][:3] == ["python3", "-m", "sglang.launch_server"] for s in report["servers"])


def test_a_v1alpha2_leader_patch_is_read(tmp_path: Path) -> None:
    report = _check(tmp_path, "rbg.yaml", _rbg(1, "v1alpha2"))
    assert [(s["placement"]["role"], s["argv"][:3]) for s in report["servers"]] == [
        ("leader", ["python3", "-m", "sglang.launch_server"])
    ]
