"""Carriers, 10th batch (docs/real_cases.md, "Carriers, 10th"): Ansible playbooks, Apptainer/Singularity
definition files, Procfiles, tmux/screen launches, justfiles and Taskfiles, on real public files, measured
before any change.

Each ``tests/data/real_cases_carriers10/`` file names its URL at a commit in its header. The machine is a
new user's (no resolver environment, no Hugging Face cache). The mechanism tests run on our own minimal
inputs: honcho's environment per process (PORT, ``.env``, HONCHO_PROCESS_NAME), a name given twice (TP101),
a definition file's ``%environment``/``%runscript``/``%startscript`` and its ``%post`` exports (TP102), and
the refusals of Ansible, just and go-task files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.batches import unsourced
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_carriers10"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str, *options: str, cwd: Path = CASES, args: tuple[str, ...] = ()) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name, *args], cwd=cwd)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def refused(name: str, cwd: Path = CASES) -> str:
    result = run_cli(["check", name], cwd=cwd)
    assert result.status == 2 and result.stdout == ""
    return result.stderr


def write(tmp_path: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (tmp_path / path).write_text(text)


def argvs(report: dict[str, Any]) -> list[list[str]]:
    return [s["argv"] for s in report["servers"]]


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in report["findings"]]


def test_every_file_names_its_source() -> None:
    assert len([p for p in CASES.iterdir() if p.is_file()]) == 8
    assert unsourced(CASES, lines=1) == []


# --- Ansible: before, 10-18 SH001/SH004 errors and shellcheck warnings on each correct playbook -------------


@pytest.mark.parametrize(
    ("name", "server"),
    [
        ("sbnb_run_sglang.yaml", " (a server command at sbnb_run_sglang.yaml:32)"),
        ("sbnb_run_vllm.yaml", ""),  # its command is `{{ LLM_ARGS }}`: no server word to point at
        ("louislepage_start_vllm.yml", ""),  # vLLM is in the compose file the play runs
    ],
)
def test_ansible_playbook_is_refused_not_read_as_bash(name: str, server: str) -> None:
    said = refused(name)
    assert said.startswith(
        f"argtrace check: {name}: an Ansible playbook, which argtrace does not read{server}: "
    )
    assert "`ansible-playbook -vvv` prints it" in said and "Jinja2" in said


def test_ansible_task_file_is_refused(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "main.yml": "---\n- name: Start SGLang\n  ansible.builtin.command:\n"
            "    cmd: python3 -m sglang.launch_server --model-path {{ model }} --port 30000\n"
            "  environment:\n    HF_HOME: /data/hf\n"
        },
    )
    said = refused("main.yml", tmp_path)
    assert said.startswith("argtrace check: main.yml: an Ansible task file, which argtrace does not read ")
    assert "(a server command at main.yml:4)" in said


def test_a_yaml_list_that_is_not_ansible_is_not_called_ansible(tmp_path: Path) -> None:
    # a list of plain values (a framework's own YAML, a values list) stays what it was
    write(tmp_path, {"models.yaml": "- Qwen/Qwen3-8B\n- meta-llama/Llama-3.1-8B\n"})
    result = run_cli(["check", "--no-shellcheck", "--no-resolve", "models.yaml"], cwd=tmp_path)
    assert "Ansible" not in result.stderr + result.stdout


# --- tmux: AgentFlow's launcher types a command holding `export` into the session --------------------------


def test_agentflow_tmux_send_keys_is_read_and_clean() -> None:
    """Before: TP014 "CUDA_VISIBLE_DEVICES exported here do not reach it", but the `export` is text inside
    the quoted command typed into the session, where it does set the variable (a correct launch)."""
    report = check("agentflow_serve_vllm_tmux.sh")
    model = (
        "checkpoints/AgentFlow_Qwen2.5-7B-turn5/rollout_all_Qwen2.5-7B-turn5/global_step_26/actor/huggingface"
    )
    assert argvs(report) == [
        ["vllm", "serve", model, "--host", "0.0.0.0", "--port", "8007", "--tensor-parallel-size", "1"]
    ]
    assert report["process"]["env"]["CUDA_VISIBLE_DEVICES"] == "7"
    assert alarms(report) == []


def test_a_real_export_before_tmux_still_gets_tp014() -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "-c",
            "export CUDA_VISIBLE_DEVICES=1\ntmux new -d -s v 'vllm serve Qwen/Qwen3-8B'",
        ]
    )
    report = result.json
    assert [f["message"] for f in report["findings"] if f["code"] == "TP014"] == [
        "tmux new-session runs the server in the environment of the tmux server, not of this shell: when a "
        "tmux server is already running, CUDA_VISIBLE_DEVICES exported here do not reach it"
    ]


def test_singularity_exec_script_is_read_exactly() -> None:
    report = check("sglang_minmax_singularity.sh")
    assert (
        argvs(report)[0][-18:]
        == [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "MiniMaxAI/MiniMax-M2.5",
            "--host",
            "0.0.0.0",
            "--port",
            "8000",
            "--tp-size",
            "4",
            "--trust-remote-code",
            "--tool-call-parser",
            "minimax-m2",
            "--reasoning-parser",
            "minimax-append-think",
            "--mem-fraction-static",
            "0.85",
        ][-18:]
    )
    assert alarms(report) == []


# --- Apptainer/Singularity definition files ---------------------------------------------------------------


@pytest.mark.parametrize("name", ["dsl_research_assistant.def", "model_survey.def"])
def test_real_definition_files_without_a_server_give_no_finding(name: str) -> None:
    """Before: %post's build commands and the header read as a script (SH006, SH017, SC2164 notes)."""
    report = check(name)
    assert report["servers"] == [] and report["findings"] == []


VLLM_DEF = (
    "Bootstrap: docker\nFrom: vllm/vllm-openai:v0.10.1\n\n%post\n    export BUILD_ONLY=1\n"
    "    pip install flash-attn\n\n%environment\n    export HF_HUB_OFFLINE=1\n\n"
    '%runscript\n    exec vllm serve "$@" --port 8000\n\n'
    "%startscript\n    exec vllm serve Qwen/Qwen3-0.6B --port 8001\n"
)


def test_definition_runscript_gets_the_run_arguments_and_environment(tmp_path: Path) -> None:
    write(tmp_path, {"vllm.def": VLLM_DEF})
    report = check("vllm.def", cwd=tmp_path, args=("Qwen/Qwen3-8B",))
    assert argvs(report) == [
        ["vllm", "serve", "Qwen/Qwen3-8B", "--port", "8000"],
        ["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8001"],
    ]
    assert [s["at"] for s in report["servers"]] == ["vllm.def:12:5", "vllm.def:15:5"]
    assert report["process"]["env"]["HF_HUB_OFFLINE"] == "1"
    assert "BUILD_ONLY" not in report["process"]["env"]  # %post is the build's, not the run's
    assert report["framework"]["version"] == "0.10.1" and report["framework"]["source"] == "image"
    assert [h["via"] for h in report["transport"]["hops"]] == [
        "apptainer run (%runscript)",
        "apptainer instance start (%startscript)",
    ]
    assert alarms(report) == []


def test_definition_without_runscript_runs_the_images_entrypoint(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"vllm.def": "Bootstrap: docker\nFrom: vllm/vllm-openai:v0.10.1\n\n%environment\n    export A=1\n"},
    )
    report = check("vllm.def", cwd=tmp_path, args=("--model", "Qwen/Qwen3-8B"))
    assert argvs(report) == [
        ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B"]
    ]
    assert report["transport"]["hops"][0]["via"] == "apptainer run (the image's ENTRYPOINT)"
    assert report["servers"][0]["at"] == "vllm.def:2:1" and alarms(report) == []


def test_post_export_read_by_the_runscript_is_tp102(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "vllm.def": "Bootstrap: docker\nFrom: vllm/vllm-openai:v0.10.1\n\n%post\n"
            "    export MODEL=Qwen/Qwen3-8B\n"
            '\n%runscript\n    exec vllm serve "$MODEL" --port 8000\n'
        },
    )
    report = check("vllm.def", cwd=tmp_path)
    tp102 = [f for f in report["findings"] if f["code"] == "TP102"]
    assert [(f["severity"], f["at"]) for f in tp102] == [("warning", "vllm.def:5:5")]
    assert tp102[0]["message"] == (
        "`MODEL` is exported in %post (build time), but the runscript reads it at line 8: %post's exports "
        "end with the build, so `$MODEL` is unset when the server starts"
    )


# --- Procfiles (honcho, foreman) ----------------------------------------------------------------------------


def test_real_procfile_without_a_server_gives_no_finding() -> None:
    """Before: `web:` read as a command (SH019, SC2086 notes)."""
    report = check("Procfile.neuralite")
    assert report["servers"] == [] and report["findings"] == []


def test_procfile_processes_get_honchos_environment(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Procfile": "# the API and its server\nweb: python3 app.py\n"
            "llm: vllm serve $MODEL --port $PORT --max-model-len 8192\n",
            ".env": "MODEL=Qwen/Qwen3-8B\n",
        },
    )
    report = check("Procfile", cwd=tmp_path)
    assert argvs(report) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "5100", "--max-model-len", "8192"]]
    # the second process type: honcho's base port 5000 plus 100; the hop is honcho's `sh -c` of the line
    assert report["servers"][0]["at"] == "Procfile:3:6"
    assert report["transport"]["hops"][1] == {
        "at": "Procfile:3:6",
        "via": "honcho (llm)",
        "argv": ["sh", "-c", "vllm serve $MODEL --port $PORT --max-model-len 8192"],
    }
    assert alarms(report) == []


def test_procfile_port_from_env_file_is_the_base(tmp_path: Path) -> None:
    write(tmp_path, {"Procfile": "llm: vllm serve Qwen/Qwen3-8B --port $PORT\n", ".env": "PORT=9000\n"})
    assert argvs(check("Procfile", cwd=tmp_path)) == [["vllm", "serve", "Qwen/Qwen3-8B", "--port", "9000"]]


def test_procfile_name_twice_is_tp101(tmp_path: Path) -> None:
    write(tmp_path, {"Procfile": "web: vllm serve Qwen/Qwen3-8B --port $PORT\nweb: python3 worker.py\n"})
    report = check("Procfile", cwd=tmp_path)
    assert codes(report) == [("error", "TP101")] and report["servers"] == []
    assert report["findings"][0]["at"] == "Procfile:2:1"


# --- justfiles and Taskfiles: refused, with the tool's dry run --------------------------------------------


def test_justfile_is_refused(tmp_path: Path) -> None:
    write(
        tmp_path, {"justfile": 'model := "Qwen/Qwen3-8B"\n\nserve:\n    vllm serve {{model}} --port 8000\n'}
    )
    said = refused("justfile", tmp_path)
    assert said.startswith(
        "argtrace check: justfile: a justfile, which argtrace does not read (a server command "
    )
    assert "`just --dry-run RECIPE ARGS` prints them" in said


def test_taskfile_is_refused_as_a_taskfile_not_helm_values(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Taskfile.yml": "version: '3'\ntasks:\n  serve:\n    cmds:\n"
            "      - vllm serve {{.MODEL}} --port 8000\n"
        },
    )
    said = refused("Taskfile.yml", tmp_path)
    assert said.startswith("argtrace check: Taskfile.yml: a Taskfile (go-task), which argtrace does not read")
    assert "`task --dry TASK` prints them" in said and "helm" not in said


def test_lint_lists_the_runners_files(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "Procfile": "llm: vllm serve Qwen/Qwen3-8B --port $PORT\n",
            "vllm.def": VLLM_DEF,
            "play.yml": "- hosts: gpu\n  tasks:\n    - shell: vllm serve Qwen/Qwen3-8B\n",
        },
    )
    result = run_cli(["lint", "--format", "json", "--no-resolve", "."], cwd=tmp_path)
    files = {f["path"]: f for f in result.json["lint"]["files"]}
    assert {p: (f["kind"], f.get("servers")) for p, f in files.items()} == {
        "Procfile": ("procfile", 1),
        "play.yml": ("refused", None),
        "vllm.def": ("apptainer", 2),
    }
    assert files["play.yml"]["error"].startswith("play.yml: an Ansible playbook")
    assert [f for f in result.json["findings"] if f["severity"] in ("error", "warning")] == []
