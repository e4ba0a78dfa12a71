"""Planted secrets in systemd units, SkyPilot tasks, Dockerfiles, quadlets and GitHub Actions workflows never
leave argtrace, in any output format.

A unit's ``Environment=HF_TOKEN=...``, an ``EnvironmentFile=`` line, a ``${VLLM_API_KEY}`` substituted into
``ExecStart=`` and a ``bash -c`` script reading ``$HF_TOKEN``; a task's ``envs:`` token, its ``secrets:``
(one under a name that does not look secret: every ``secrets:`` value is one) and a ``--env`` override.
Each runs the real CLI and fails on a planted value anywhere in stdout or stderr.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.security.test_planted_secrets import FORMATS, assert_clean

UNIT_HF = "hf_unitPlantedToken0123456789abcdef"
UNIT_KEY = "sk-unitPlantedKey0123456789abcdef"
FILE_KEY = "envFilePlanted77q"
SKY_HF = "hf_skyPlantedToken0123456789abcdefg"
SKY_SECRET = "plainLooking42zz"
SKY_WANDB = "wandbPlanted0123456789abcdefabcdef"
GIVEN = "hf_givenOnCommandLine0123456789abcd"

UNIT = f"""[Unit]
Description=vLLM

[Service]
Environment=HF_TOKEN={UNIT_HF} "VLLM_API_KEY={UNIT_KEY}"
EnvironmentFile={{env_file}}
ExecStart=/opt/vllm/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --api-key ${{VLLM_API_KEY}} --port=$PORT \\
    --served-model-name ${{OTHER_KEY}}
"""

SHELL_UNIT = f"""[Service]
Environment=HF_TOKEN={UNIT_HF}
ExecStart=/bin/bash -c 'echo $HF_TOKEN; exec /opt/vllm/bin/vllm serve m --api-key {UNIT_KEY}'
"""

TASK = f"""resources:
  accelerators: H100:1

envs:
  MODEL_NAME: Qwen/Qwen2.5-7B-Instruct
  HF_TOKEN: {SKY_HF}
  UNSET_ONE:

secrets:
  WANDB_API_KEY: {SKY_WANDB}
  MODEL_PASSPHRASE_X: {SKY_SECRET}

run: |
  echo "$HF_TOKEN $MODEL_PASSPHRASE_X"
  vllm serve $MODEL_NAME --api-key $MODEL_PASSPHRASE_X --tensor-parallel-size 2
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_unit_secrets_are_masked(tmp_path: Path, fmt: str) -> None:
    env_file = tmp_path / "vllm.env"
    env_file.write_text(f"OTHER_KEY={FILE_KEY}\nCLIENT_SECRET={FILE_KEY}\n")
    (tmp_path / "vllm.service").write_text(UNIT.replace("{env_file}", str(env_file)))
    result = run_cli(["check", "--format", fmt, "--no-resolve", "vllm.service"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert_clean(result, UNIT_HF, UNIT_KEY, FILE_KEY)
    if fmt == "json":
        codes = [f["code"] for f in result.json["findings"]]
        assert "TP062" in codes  # the unit was read, not refused


@pytest.mark.parametrize("fmt", FORMATS)
def test_unit_bash_c_secrets_are_masked(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "vllm.service").write_text(SHELL_UNIT)
    result = run_cli(["check", "--format", fmt, "--no-resolve", "vllm.service"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert_clean(result, UNIT_HF, UNIT_KEY)


@pytest.mark.parametrize("fmt", FORMATS)
def test_task_secrets_are_masked(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "task.yaml").write_text(TASK)
    result = run_cli(
        ["check", "--format", fmt, "--no-resolve", "--env", f"HF_TOKEN={GIVEN}", "task.yaml"], cwd=tmp_path
    )
    assert result.status in (0, 1), result.stderr
    assert_clean(result, SKY_HF, SKY_SECRET, SKY_WANDB, GIVEN)
    if fmt == "json":
        codes = [f["code"] for f in result.json["findings"]]
        assert "TP066" in codes  # UNSET_ONE: the task was read


DOCKER_HF = "hf_dockerPlantedToken0123456789abcd"
DOCKER_KEY = "sk-dockerPlantedKey0123456789abcdef"
QUADLET_KEY = "sk-quadletPlantedKey0123456789abcde"
FLOW_KEY = "sk-flowPlantedKey0123456789abcdefgh"

DOCKERFILE = f"""FROM vllm/vllm-openai:v0.12.0
ENV HF_TOKEN={DOCKER_HF} VLLM_API_KEY="{DOCKER_KEY}"
CMD vllm serve Qwen/Qwen3-8B --api-key $VLLM_API_KEY --port 8000
"""

QUADLET = f"""[Container]
Image=docker.io/vllm/vllm-openai:v0.12.0
Environment=VLLM_API_KEY={QUADLET_KEY}
Exec=Qwen/Qwen3-8B --api-key ${{VLLM_API_KEY}}

[Service]
Environment=VLLM_API_KEY={QUADLET_KEY}
"""

WORKFLOW = f"""on: push
env:
  VLLM_API_KEY: {FLOW_KEY}
jobs:
  serve:
    runs-on: ubuntu-latest
    steps:
      - run: vllm serve Qwen/Qwen3-0.6B --api-key "$VLLM_API_KEY" --served-model-name ${{{{ secrets.NAME }}}}
"""


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    ("name", "text", "planted"),
    [
        ("Dockerfile", DOCKERFILE, (DOCKER_HF, DOCKER_KEY)),
        ("vllm.container", QUADLET, (QUADLET_KEY,)),
        ("serve.yml", WORKFLOW, (FLOW_KEY,)),
    ],
)
def test_dockerfile_quadlet_workflow_secrets_are_masked(
    tmp_path: Path, fmt: str, name: str, text: str, planted: tuple[str, ...]
) -> None:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", fmt, "--no-resolve", name], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert_clean(result, *planted)
    if fmt == "json":
        assert len(result.json["servers"]) == 1  # the file was read as its carrier, not refused


DSTACK_HF = "hf_dstackPlantedToken0123456789abcd"
DSTACK_KEY = "sk-dstackPlantedKey0123456789abcdef"
DSTACK_GIVEN = "hf_dstackGivenToken0123456789abcdef"
DSTACK = f"""type: service
image: vllm/vllm-openai:latest
env:
  - HF_TOKEN={DSTACK_HF}
  - VLLM_API_KEY={DSTACK_KEY}
  - HUGGING_FACE_HUB_TOKEN
commands:
  - echo "$HF_TOKEN $HUGGING_FACE_HUB_TOKEN"
  - vllm serve Qwen/Qwen3-0.6B --api-key $VLLM_API_KEY --port 8000
port: 8000
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_dstack_secrets_are_masked(tmp_path: Path, fmt: str) -> None:
    """A dstack run configuration's `env:` values, one read into the server's `--api-key`, and a bare name
    given with --env (the environment `dstack apply` runs in)."""
    (tmp_path / "serve.dstack.yml").write_text(DSTACK)
    argv = ["check", "--format", fmt, "--no-resolve", "--env", f"HUGGING_FACE_HUB_TOKEN={DSTACK_GIVEN}"]
    result = run_cli([*argv, "serve.dstack.yml"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert_clean(result, DSTACK_HF, DSTACK_KEY, DSTACK_GIVEN)
    if fmt == "json":
        assert len(result.json["servers"]) == 1


CM_HF = "hf_configMapPlanted0123456789abcdefg"
CM_KEY = "sk-configMapKeyRef0123456789abcdef"
CONFIGMAP = f"""apiVersion: v1
kind: ConfigMap
metadata:
  name: vllm-config
data:
  HF_TOKEN: "{CM_HF}"
  VLLM_API_KEY: "{CM_KEY}"
  MODEL: Qwen/Qwen3-0.6B
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: server
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          envFrom:
            - configMapRef:
                name: vllm-config
          env:
            - name: API_KEY_COPY
              valueFrom:
                configMapKeyRef:
                  name: vllm-config
                  key: VLLM_API_KEY
          command: ["/bin/bash", "-c"]
          args: ["echo $HF_TOKEN; vllm serve $MODEL --api-key $API_KEY_COPY"]
"""


@pytest.mark.parametrize("fmt", FORMATS)
def test_configmap_values_read_through_envfrom_are_masked(tmp_path: Path, fmt: str) -> None:
    """A ConfigMap of the same manifest read through envFrom and configMapKeyRef: its secret-named values
    reach the server's `--api-key` and an `echo`, and stay masked."""
    (tmp_path / "vllm.yaml").write_text(CONFIGMAP)
    result = run_cli(["check", "--format", fmt, "--no-resolve", "vllm.yaml"], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    assert_clean(result, CM_HF, CM_KEY)
    if fmt == "json":
        assert [s["argv"][:3] for s in result.json["servers"]] == [["vllm", "serve", "Qwen/Qwen3-0.6B"]]
