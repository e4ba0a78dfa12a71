"""Carriers, 7th batch: dstack run configurations (``.dstack.yml``) and ``bash -lc`` (grouped shell options).

The ``ok_*`` files are dstack's own published examples (tests/data/carriers7/, each header names its URL at
a commit); before this batch argtrace refused every one (exit 2: "YAML, but neither a docker compose file
... nor a Kubernetes manifest"). Each must now give its exact server argv with no error and no warning.
The rest are our own minimal inputs for the rules: dstack's ``_commands``/``_join_shell_commands``
(``src/dstack/_internal/server/services/jobs/configurators/base.py``), ``EnvSentinel.from_env``
(``core/models/envs.py``) and bash's "Invoking Bash" option grammar.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell.invocation import shell_invocation
from argtrace.layers.transport.manifests import manifest_kind
from tests.conftest import alarms, run_cli

DATA = Path(__file__).resolve().parents[1] / "data" / "carriers7"


def check(path: Path, *extra: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *extra, path.name], cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((f["code"], f["severity"]) for f in report["findings"])


_PD = "python -m sglang.launch_server --model-path zai-org/GLM-4.5-Air-FP8 --disaggregation-mode"
_PD_REST = "--disaggregation-transfer-backend mooncake --host 0.0.0.0 --port 8000"
# each server's argv as one string; `?` is a word whose value is not known here (`$DSTACK_GPUS_NUM`)
OK: dict[str, list[str]] = {
    "ok_dstack_vllm_llama31.dstack.yml": [
        "vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --max-model-len 4096 --tensor-parallel-size ?"
    ],
    "ok_dstack_sglang_pd_replicas.dstack.yml": [
        f"{_PD} prefill {_PD_REST} --disaggregation-bootstrap-port 8998",
        f"{_PD} decode {_PD_REST}",
    ],
    "ok_dstack_sglang_rocm.dstack.yml": [
        "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-R1-Distill-Llama-70B --port 8000 "
        "--trust-remote-code"
    ],
    "ok_dstack_vllm_image.dstack.yml": [
        "vllm serve deepseek-ai/DeepSeek-R1-Distill-Llama-8B --max-model-len 4096"
    ],
    "ok_dstack_vllm_task.dstack.yml": [
        "vllm serve meta-llama/Meta-Llama-3.1-8B-Instruct --tensor-parallel-size ? --max-model-len 4096"
    ],
    # the ` # Should match the number of GPUs` is a YAML comment, gone before the shell sees the command
    "ok_dstack_mixtral_comment_in_command.dstack.yml": [
        "python -m vllm.entrypoints.openai.api_server --model mistralai/Mixtral-8x7B-Instruct-v0.1 "
        "--host 0.0.0.0 --tensor-parallel-size 2"
    ],
    "ok_dstack_vllm_rocm_build.dstack.yml": [
        "vllm serve meta-llama/Meta-Llama-3.1-70B-Instruct --max-model-len 126192 --port 8000"
    ],
    "ok_dstack_api_server_pythonpath.dstack.yml": [
        "python3 -m vllm.entrypoints.openai.api_server --model NousResearch/Llama-2-7b-chat-hf --port 8000"
    ],
}


def argv(line: str) -> list[str | None]:
    return [None if word == "?" else word for word in line.split()]


@pytest.mark.parametrize("name", sorted(OK))
def test_dstack_examples_read_exactly_and_clean(name: str) -> None:
    report = check(DATA / name)
    assert [s["argv"] for s in report["servers"]] == [argv(line) for line in OK[name]]
    assert alarms(report) == []
    assert "SH019" not in {f["code"] for f in report["findings"]}


def test_dstack_files_are_told_apart_by_content() -> None:
    for name in OK:
        assert manifest_kind((DATA / name).read_bytes()) == "dstack", name
    # another tool's YAML with a `type:` key stays what it was
    assert manifest_kind(b"type: object\nproperties:\n  a: 1\n") is None
    assert manifest_kind(b"apiVersion: v1\nkind: Pod\ntype: service\ncommands: []\n") == "kubernetes"


def test_bare_env_name_is_a_note_without_env_and_an_error_when_env_lacks_it(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        "type: service\nimage: vllm/vllm-openai:v0.10.1\nenv:\n  - HF_TOKEN\n  - MODEL=Qwen/Qwen3-0.6B\n"
        "commands:\n  - vllm serve $MODEL --port 8000\nport: 8000\n"
    )
    report = check(path)
    tp089 = [f for f in report["findings"] if f["code"] == "TP089"]
    assert [(f["severity"], f["at"]) for f in tp089] == [("info", "serve.dstack.yml:4")]
    assert tp089[0]["message"] == (
        "env: HF_TOKEN has no value: `dstack apply` takes it from its own environment and refuses the run "
        'when it is not set there ("Environment variable HF_TOKEN is not set"); that environment is not '
        "known here"
    )
    report = check(path, "--env", "OTHER=1")
    assert [f["severity"] for f in report["findings"] if f["code"] == "TP089"] == ["error"]
    report = check(path, "--env", "HF_TOKEN=hf_x")
    assert "TP089" not in {f["code"] for f in report["findings"]}
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]]


def test_commands_are_one_and_list_so_cd_and_export_carry_over(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        "type: task\npython: '3.11'\nenv:\n  - MODEL=Qwen/Qwen3-0.6B\ncommands:\n  - export LEN=4096\n"
        "  - vllm serve $MODEL --max-model-len $LEN --tensor-parallel-size $DSTACK_GPUS_NUM &\n"
        "  - sleep 10\nports: [8000]\n"
    )
    report = check(path, "--env", "DSTACK_GPUS_NUM=2")
    assert [s["argv"] for s in report["servers"]] == [
        ["vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "4096", "--tensor-parallel-size", "2"]
    ]
    # the server's own line of the YAML file (the column is that of the `{ ... & }` dstack wraps it in)
    assert report["servers"][0]["at"] == "serve.dstack.yml:7:3"
    hop = next(h for h in report["transport"]["hops"] if h.get("via") == "dstack")
    assert hop["shell"] == "/bin/bash -i -c"  # no image: dstack's base image, bash
    assert alarms(report) == []


def test_entrypoint_is_an_argv_without_a_shell(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        "type: service\nimage: lmsysorg/sglang:v0.5.5\nentrypoint: python3 -m sglang.launch_server\n"
        "commands:\n  - --model-path\n  - Qwen/Qwen3-0.6B\n  - --served-model-name\n  - $NAME\nport: 30000\n"
    )
    report = check(path)
    # no shell reads the words: `$NAME` reaches the server as written
    assert [s["argv"] for s in report["servers"]] == [
        [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "Qwen/Qwen3-0.6B",
            "--served-model-name",
            "$NAME",
        ]
    ]


def test_image_without_commands_is_said_unknown(tmp_path: Path) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text("type: service\nimage: vllm/vllm-openai:latest\nport: 8000\n")
    report = check(path)
    assert report["servers"] == []
    assert ("TP090", "info") in codes(report)
    assert alarms(report) == []
    tp090 = next(f for f in report["findings"] if f["code"] == "TP090")
    assert tp090["at"] == "serve.dstack.yml:2"
    assert "runs the image's own ENTRYPOINT/CMD" in tp090["message"]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["bash", "-lc", "CMD", "a0"], (2, True)),
        (["sh", "-ec", "CMD"], (2, True)),
        (["bash", "-o", "pipefail", "-c", "CMD"], (4, True)),
        (["bash", "-c", "-l", "CMD"], (3, True)),
        (["bash", "--norc", "--rcfile", "f", "-xc", "CMD"], (5, True)),
        (["bash", "-l", "script.sh", "-c"], (2, False)),
        (["bash", "--", "script.sh"], (2, False)),
    ],
)
def test_shell_invocation_grammar(words: list[str], expected: tuple[int, bool]) -> None:
    assert shell_invocation(words) == expected


@pytest.mark.parametrize(
    "command",
    [
        'bash -lc "vllm serve Qwen/Qwen3-0.6B --port 8000"',
        'sh -ec "vllm serve Qwen/Qwen3-0.6B --port 8000"',
        'apptainer exec --nv vllm.sif bash -lc "vllm serve Qwen/Qwen3-0.6B --port 8000"',
    ],
)
def test_grouped_c_option_reaches_the_server(tmp_path: Path, command: str) -> None:
    """Before: SH019 "no SGLang or vLLM server start found" (the command string read as a script path)."""
    result = run_cli(["check", "--format", "json", "--no-resolve", "-c", command], cwd=tmp_path)
    report = result.json
    assert [s["argv"] for s in report["servers"]] == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8000"]]
    assert alarms(report) == []


# --- Kubernetes: the ConfigMaps of the same manifest (envFrom, configMapKeyRef) ---------------------------

OPEA = DATA / "opea_chatqna_vllm_gaudi_configmap.yaml"


def test_envfrom_configmap_of_the_same_file_gives_the_bash_c_its_model() -> None:
    """Before: `$MODEL_ID` read as unset, a wrong SH007 warning ("--model takes --port")."""
    report = check(OPEA)
    assert [s["argv"] for s in report["servers"]] == [
        argv(
            "python3 -m vllm.entrypoints.openai.api_server --enforce-eager --gpu-memory-utilization 0.5 "
            "--dtype auto --model meta-llama/Llama-3.1-70B-Instruct --port 2080 --tensor-parallel-size 8 "
            "--block-size 128 --max-num-seqs 256 --max-seq_len-to-capture 2048"
        )
    ]
    assert alarms(report) == []
    hop = next(h for h in report["transport"]["hops"] if h.get("via") == "kubernetes")
    assert hop["env_from"] == {
        "read": [{"configMap": "chatqna-vllm-config", "at": "opea_chatqna_vllm_gaudi_configmap.yaml:9"}],
        "not_in_file": [],
    }


def test_envfrom_source_not_in_the_file_leaves_the_name_unknown_not_unset(tmp_path: Path) -> None:
    text = OPEA.read_text()
    start = text.index("apiVersion: v1\nkind: ConfigMap")
    path = tmp_path / "deploy.yaml"
    path.write_text(text[:start] + text[text.index("---", start) + 4 :])
    report = check(path)
    assert [s["argv"][8:10] for s in report["servers"]] == [["--model", None]]
    assert alarms(report) == []
    # said once, under the PA013 that names the same word by its flag
    folded = [c for f in report["findings"] for c in (f, *f.get("consequences", ()))]
    sh018 = next(f for f in folded if f["code"] == "SH018")
    assert "may be set by envFrom configMapRef chatqna-vllm-config (not in this file)" in sh018["message"]


def test_args_dollar_paren_from_configmap_and_key_ref(tmp_path: Path) -> None:
    path = tmp_path / "vllm.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata:\n  MODEL: Qwen/Qwen3-8B\n  TP: '2'\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: vllm}\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.1\n"
        "        envFrom:\n        - prefix: V_\n          configMapRef: {name: cfg}\n        env:\n"
        "        - name: PORT\n          valueFrom:\n            configMapKeyRef: {name: cfg, key: TP}\n"
        '        args: ["--model", "$(V_MODEL)", "--tensor-parallel-size", "$(V_TP)", "--port", "80$(PORT)0",'
        ' "--served-model-name", "$(NOPE)"]\n'
    )
    report = check(path)
    assert [s["argv"] for s in report["servers"]] == [
        argv(
            "python3 -m vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --tensor-parallel-size 2 "
            "--port 8020 --served-model-name $(NOPE)"
        )
    ]
    # every envFrom source is in the file: a name none of them has stays literal, as Kubernetes leaves it
    tp012 = [f for f in report["findings"] if f["code"] == "TP012"]
    assert [f["message"].split(":")[0] for f in tp012] == [
        "$(NOPE) in container vllm's `args` is not defined in the container's env"
    ]


# --- sbatch --wrap ----------------------------------------------------------------------------------------


def test_sbatch_wrap_is_the_sh_script_it_wraps(tmp_path: Path) -> None:
    script = (
        "#!/bin/bash\nexport PORT=8001\n"
        'sbatch --gres=gpu:2 -J vllm --wrap="vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 '
        '--port $PORT"\n'
    )
    (tmp_path / "submit.sh").write_text(script)
    report = check(tmp_path / "submit.sh")
    assert [s["argv"] for s in report["servers"]] == [
        argv("vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2 --port 8001")
    ]
    assert alarms(report) == []
    assert "SH040" not in {f["code"] for f in report["findings"]}  # before: "argtrace does not follow sbatch"


@pytest.mark.parametrize(
    ("export", "expected"),
    [
        ("", "vllm serve Qwen/Qwen3-8B --port 8000"),  # --export defaults to ALL
        ("--export=ALL,HF_HOME=/x ", "vllm serve Qwen/Qwen3-8B --port 8000"),
        # NONE: the job's shell does not have MODEL, the word vanishes and vllm serve gets no model
        ("--export=NONE ", "vllm serve --port 8000"),
    ],
)
def test_sbatch_export_decides_what_the_job_shell_reads(tmp_path: Path, export: str, expected: str) -> None:
    script = (
        f"#!/bin/bash\nexport MODEL=Qwen/Qwen3-8B\nsbatch {export}--wrap 'vllm serve $MODEL --port 8000'\n"
    )
    (tmp_path / "submit.sh").write_text(script)
    report = check(tmp_path / "submit.sh")
    assert [s["argv"] for s in report["servers"]] == [argv(expected)]


def test_unquoted_wrap_is_refused_by_sbatch(tmp_path: Path) -> None:
    (tmp_path / "submit.sh").write_text(
        "#!/bin/bash\nsbatch -N1 --wrap=vllm serve Qwen/Qwen3-8B --port 8000\n"
    )
    report = check(tmp_path / "submit.sh")
    assert report["servers"] == []
    sh050 = [f for f in report["findings"] if f["code"] == "SH050"]
    assert [(f["severity"], f["at"]) for f in sh050] == [("error", "submit.sh:2:1")]
    assert sh050[0]["message"].startswith(
        "`sbatch --wrap=vllm` is followed by more words (serve Qwen/Qwen3-8B --port 8000): sbatch reads them"
    )
    # the refusal is the one finding about the missing server (no SH040 "not followed", no SH019)
    assert {"SH040", "SH019"} & {f["code"] for f in report["findings"]} == set()


def test_purple_sbatch_wrap_behind_getopt_is_read_without_alarm() -> None:
    """linfeng-du/PURPLE builds the --wrap string from `echo -n` pieces after `eval set -- "$(getopt ...)"`.
    The getopt result had not been known, so the sbatch line was not reached; since session 27 getopt's
    output is computed (``getopt_program.py``), and with no arguments the defaults make the server."""
    report = check(DATA / "purple_sbatch_wrap_echo.sh")
    assert [s["argv"] for s in report["servers"]] == [
        [
            "python",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            "meta-llama/Meta-Llama-3-70B-Instruct",
            "--tensor_parallel_size",
            "4",
            "--host",
            "0.0.0.0",
            "--port",
            "8000",
        ]
    ]
    assert alarms(report) == []


def test_opea_infra_vllm_args_after_an_unknown_image_stay_unread_and_quiet() -> None:
    """opea/vllm:latest's entrypoint is not known: the args are not a command (TP040, a note); the
    ConfigMap of the file is read, the optional extra-env-config (not in the file) stays the cluster's."""
    report = check(DATA / "opea_infra_vllm_envfrom_optional.yaml")
    assert report["servers"] == []
    assert codes(report) == [("TP040", "info")]
    hop = next(h for h in report["transport"]["hops"] if h.get("via") == "kubernetes")
    assert hop["env_from"]["not_in_file"] == ["configMapRef extra-env-config"]


def test_opea_infra_vllm_gaudi_service_named_vllm_is_the_one_error() -> None:
    """A Service named `vllm` gives the pod VLLM_PORT=tcp://... (service links), which vLLM reads as its
    own port variable: TP041, found before this batch too; the `--model ...` words after the `-c` string
    are that string's $0 $1 ... and change nothing."""
    report = check(DATA / "opea_infra_vllm_gaudi_bash_c_extra_args.yaml")
    assert [s["argv"][:6] for s in report["servers"]] == [
        argv(
            "python3 -m vllm.entrypoints.openai.api_server --enforce-eager --model Intel/neural-chat-7b-v3-3"
        )
    ]
    assert [(f["code"], f["severity"]) for f in alarms(report)] == [("TP041", "error")]


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        ("image: vllm/vllm-openai:v0.10.1\n", [("TP091", "warning", "serve.dstack.yml:4", "assumed")]),
        ("image: vllm/vllm-openai:v0.10.1\nshell: bash\n", []),  # the configuration asks for bash
        ("python: '3.11'\n", []),  # no image: dstack's base image, /bin/bash
    ],
)
def test_bash_builtin_under_the_images_sh(tmp_path: Path, head: str, expected: list[tuple[str, ...]]) -> None:
    path = tmp_path / "serve.dstack.yml"
    path.write_text(
        f"type: service\n{head}commands:\n  - source /opt/venv/bin/activate\n  - vllm serve Qwen/Qwen3-0.6B\n"
    )
    report = check(path)
    found = [
        (f["code"], f["severity"], f["at"], f["basis"]) for f in report["findings"] if f["code"] == "TP091"
    ]
    assert [(c, s, b) for c, s, _a, b in found] == [(c, s, b) for c, s, _a, b in expected]
    if expected:
        assert [a for _c, _s, a, _b in found] == [expected[0][2]]
        message = next(f["message"] for f in report["findings"] if f["code"] == "TP091")
        assert '"source: not found" (status 127)' in message
