"""Carriers, 8th batch (docs/real_cases.md, "Carriers, 8th batch"): Kustomize overlays, `gcloud run deploy`,
Knative / Cloud Run services and Terraform HCL, on real public files, measured before any change.

Each ``tests/data/real_cases/carriers8/`` file names its URL at a commit in its first line. The machine is a
new user's (no resolver environment, no Hugging Face cache). The variant tests run each mechanism on our own
minimal inputs: Kustomize's strategic merge and JSON patches, gcloud's list escaping (``gcloud topic
escaping``), Knative's injected variables, and the HCL refusal.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.gcloud_run import gcloud_list, parse_run_deploy
from argtrace.layers.transport.manifests import manifest_kind
from tests.batches import unsourced
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases" / "carriers8"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(name: str, *options: str, cwd: Path = CASES) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *options, name], cwd=cwd)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def check_in(tmp_path: Path, files: dict[str, str], name: str) -> dict[str, Any]:
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return check(name, "--no-resolve", cwd=tmp_path)


def argvs(report: dict[str, Any]) -> list[list[str]]:
    return [s["argv"] for s in report["servers"]]


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in report["findings"]]


def test_every_file_names_its_source() -> None:
    assert len([p for p in CASES.rglob("*") if p.is_file()]) == 18
    assert unsourced(CASES, recursive=True) == []


# --- Kustomize overlays: GoogleCloudPlatform/kubernetes-engine-samples llm-serving-gemma/vllm ---------------


API = ["python3", "-m", "vllm.entrypoints.openai.api_server"]


@pytest.mark.parametrize(
    ("overlay", "argv", "at"),
    [
        # before: no server and no word at all (kind Kustomization read as a manifest with no pod)
        (
            "vllm-2b-awq",
            ["--model=google/gemma-2b-AWQ", "--tensor-parallel-size=1", "--quantization=awq"],
            "gke_vllm/vllm-2b-awq/patch.yaml:16",
        ),
        # the 2b "parallel" overlay builds on the 7b base (2 GPUs, TP 2) and patches only MODEL_ID
        (
            "vllm-2b-parallel",
            ["--model=google/gemma-2b", "--tensor-parallel-size=2"],
            "gke_vllm/vllm-7b.yaml:37",
        ),
        (
            "vllm-7b-awq",
            ["--model=google/gemma-7b-AWQ", "--tensor-parallel-size=1", "--quantization=awq"],
            "gke_vllm/vllm-7b-awq/patch.yaml:17",
        ),
        (
            "vllm-7b-kvcache",
            [
                "--model=google/gemma-7b",
                "--tensor-parallel-size=1",
                "--kv-cache-dtype=fp8_e5m2",
                "--max-model-len=1200",
            ],
            "gke_vllm/vllm-7b-kvcache/patch.yaml:17",
        ),
        # no `env` in the patch: the base's MODEL_ID stays
        (
            "vllm-7b-token",
            ["--model=google/gemma-7b", "--tensor-parallel-size=1", "--max-model-len=600"],
            "gke_vllm/vllm-7b-token/patch.yaml:28",
        ),
    ],
)
def test_gke_kustomize_overlay_is_built_and_clean(overlay: str, argv: list[str], at: str) -> None:
    report = check(f"gke_vllm/{overlay}/kustomization.yaml")
    assert argvs(report) == [API + argv]
    assert report["servers"][0]["at"] == at
    assert alarms(report) == []
    assert codes(report) == [("info", "PR008"), ("info", "RS004")]  # vllm 0.10.0 analysed as 0.10.2


def test_gke_overlay_gpus_come_from_the_patched_limits() -> None:
    # vllm-7b-awq's patch lowers the base's 2 GPUs to 1, with TP 1: no TP042
    report = check("gke_vllm/vllm-7b-awq/kustomization.yaml")
    assert report["servers"][0]["placement"]["gpus"] == 1
    assert report["process"]["env"]["MODEL_ID"] == "google/gemma-7b-AWQ"


# --- gcloud run deploy: vladkol/qwen-3-enbedding-cloud-run deploy.sh at two commits -----------------------


def test_gcloud_deploy_literal_dollar_in_args_is_an_error() -> None:
    """`--api-key=\\$CUSTOM_API_KEY`: the script's backslash keeps the `$` for Cloud Run, which expands only
    `$(NAME)`: vLLM's API key is the text `$CUSTOM_API_KEY` (before: SH019, no server)."""
    report = check("cloudrun/vladkol_deploy_literal_api_key.sh")
    assert argvs(report) == [
        [
            *API,
            "--model=Qwen/Qwen3-Embedding-0.6B",
            "--task=embed",
            "--port=8080",
            "--api-key=<redacted:546a2b84>",
        ]
    ]
    assert [(f["severity"], f["code"]) for f in alarms(report)] == [("error", "TP013")]
    tp013 = next(f for f in report["findings"] if f["code"] == "TP013")
    assert tp013["at"] == "cloudrun/vladkol_deploy_literal_api_key.sh:45"
    assert "exec-form argv: no shell runs it" in tp013["message"]
    assert tp013["fix"].startswith(
        "Write `--api-key=$(CUSTOM_API_KEY)` and give CUSTOM_API_KEY in the container's"
    )
    env = report["process"]["env"]
    assert (env["PORT"], env["K_SERVICE"], env["HF_HOME"]) == ("8080", "qwen3-embedding-vllm", "/model-cache")


def test_gcloud_deploy_expanded_key_is_clean() -> None:
    report = check("cloudrun/vladkol_deploy_api_key_expanded.sh")
    assert argvs(report) == [
        [
            *API,
            "--model=Qwen/Qwen3-Embedding-0.6B",
            "--task=embed",
            "--port=8080",
            "--api-key=<redacted:9b6e2957>",
        ]
    ]
    assert alarms(report) == []
    hops = report["transport"]["hops"]
    assert hops[0]["via"] == "gcloud run deploy" and hops[0]["service"] == "qwen3-embedding-vllm"


@pytest.mark.parametrize(
    "name", ["devrel_finetune_gemma_base_bash_c.sh", "devrel_finetune_gemma_ft_bash_c.sh"]
)
def test_gcloud_deploy_with_an_unknown_args_word_says_so(name: str) -> None:
    """GoogleCloudPlatform/devrel-demos finetune_gemma: `--args="^;^-c;vllm serve gs://$BUCKET_NAME/..."`,
    BUCKET_NAME from `$(gcloud config get-value project)`: the word is not known here, so it is not read;
    TP093 says so (before: SH019 alone)."""
    report = check(f"cloudrun/{name}")
    assert report["servers"] == []
    assert alarms(report) == []
    tp093 = next(f for f in report["findings"] if f["code"] == "TP093")
    assert tp093["severity"] == "info"
    assert "1 of its words is not known here" in tp093["message"]


# --- Knative / Cloud Run service YAML: yoshimasak/zenn-contents run-gemma2-on-cloud-run ---------------------


def test_cloud_run_service_yaml_gets_knatives_variables_and_is_clean() -> None:
    report = check("knative/zenn_cloudrun_vllm_gemma2_9b.service.yaml")
    assert argvs(report) == [
        [
            "python",
            "-m",
            "vllm.entrypoints.api_server",
            "--host=0.0.0.0",
            "--port=8000",
            "--gpu-memory-utilization=0.95",
            "--enable-chunked-prefill",
            "--model=/models/gemma-2-9b",
            "--max-model-len=3968",
        ]
    ]
    assert alarms(report) == []
    assert report["process"]["env"] == {
        "K_CONFIGURATION": "vllm-gemma-2-9b",
        "K_REVISION": None,
        "K_SERVICE": "vllm-gemma-2-9b",
        "MODEL_ID": "/models/gemma-2-9b",
        "PATH": None,
        "PORT": "8000",
    }


# --- Terraform HCL: aws-ia/ecs-blueprints vllm-gpu/main.tf ------------------------------------------------


def test_terraform_is_refused_not_read_as_a_script() -> None:
    """Before: 2 SH001 errors and shellcheck warnings on HCL read as bash."""
    result = run_cli(["check", "hcl/ecs_blueprints_vllm_gpu_main.tf"], cwd=CASES)
    assert result.status == 2
    assert result.stdout == ""
    assert "HCL (Terraform or Nomad), which argtrace does not read" in result.stderr


# --- the mechanisms, on minimal inputs of our own -----------------------------------------------------------

BASE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: vllm
spec:
  template:
    spec:
      containers:
      - name: server
        image: vllm/vllm-openai:v0.10.0
        command: [python3, -m, vllm.entrypoints.openai.api_server]
        args: [--model=$(MODEL), --port=8000]
        env:
        - name: MODEL
          value: Qwen/Qwen3-0.6B
        - name: KEEP
          value: "1"
      - name: sidecar
        image: busybox
"""
KUSTOMIZATION = (
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base.yaml\n"
)


def test_strategic_merge_merges_containers_and_env_by_name_and_replaces_args(tmp_path: Path) -> None:
    patch = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n"
        "      containers:\n      - name: server\n        args: [--model=$(MODEL), --max-model-len=4096]\n"
        "        env:\n        - name: MODEL\n          value: Qwen/Qwen3-1.7B\n"
    )
    files = {
        "base.yaml": BASE,
        "overlay/kustomization.yaml": KUSTOMIZATION + "patchesStrategicMerge:\n  - patch.yaml\n",
        "overlay/patch.yaml": patch,
    }
    report = check_in(tmp_path, files, "overlay/kustomization.yaml")
    assert argvs(report) == [[*API, "--model=Qwen/Qwen3-1.7B", "--max-model-len=4096"]]
    assert report["process"]["env"]["KEEP"] == "1"  # env merged by name: the base's other entry stays
    assert report["servers"][0]["at"] == "overlay/patch.yaml:10"


def test_json6902_patch_and_images_and_config_map_generator(tmp_path: Path) -> None:
    kustomization = KUSTOMIZATION + (
        "patches:\n  - target:\n      kind: Deployment\n      name: vll.*\n    patch: |-\n"
        "      - op: add\n        path: /spec/template/spec/containers/0/args/-\n"
        "        value: --enforce-eager\n"
        "      - op: replace\n        path: /spec/template/spec/containers/0/env/0/value\n"
        "        value: $(FROM_MAP)\n"
        "images:\n  - name: vllm/vllm-openai\n    newTag: v0.11.0\n"
        "configMapGenerator:\n  - name: extra\n    literals:\n      - FROM_MAP=Qwen/Qwen3-8B\n"
    )
    base = BASE.replace(
        "        env:\n", "        envFrom:\n        - configMapRef:\n            name: extra\n        env:\n"
    )
    files = {"base.yaml": base, "overlay/kustomization.yaml": kustomization}
    report = check_in(tmp_path, files, "overlay/kustomization.yaml")
    # MODEL's value became `$(FROM_MAP)`: the kubelet expands an env value from the variables defined before
    # it, envFrom's first, and the generated ConfigMap is read under the name the Deployment uses
    assert argvs(report) == [[*API, "--model=Qwen/Qwen3-8B", "--port=8000", "--enforce-eager"]]
    assert [h["image"] for h in report["transport"]["hops"]] == ["vllm/vllm-openai:v0.11.0", "busybox"]
    assert report["process"]["env"]["FROM_MAP"] == "Qwen/Qwen3-8B"


def test_a_part_not_applied_is_named(tmp_path: Path) -> None:
    files = {
        "base.yaml": BASE,
        "overlay/kustomization.yaml": KUSTOMIZATION + "components:\n  - ../gpu\n",
    }
    report = check_in(tmp_path, files, "overlay/kustomization.yaml")
    assert argvs(report) == [[*API, "--model=Qwen/Qwen3-0.6B", "--port=8000"]]
    tp092 = [f for f in report["findings"] if f["code"] == "TP092"]
    assert [(f["severity"], f["at"]) for f in tp092] == [("info", "overlay/kustomization.yaml:6")]
    assert "did not apply its components" in tp092[0]["message"]


def test_manifest_kind_tells_a_kustomization() -> None:
    assert manifest_kind(KUSTOMIZATION.encode()) == "kustomize"
    assert manifest_kind(b"resources:\n  - a.yaml\n") is None  # no kind, no apiVersion: not claimed


@pytest.mark.parametrize(
    ("value", "items"),
    [
        ("a,b,c", ["a", "b", "c"]),
        ("^:^a,b:c,d", ["a,b", "c,d"]),  # gcloud topic escaping's own examples
        ("^--^a-,b--c", ["a-,b", "c"]),
        ("^a,b,c", ["^a", "b", "c"]),
        ("", []),
    ],
)
def test_gcloud_list_escaping(value: str, items: list[str]) -> None:
    assert gcloud_list(value) == items


def test_parse_run_deploy_reads_the_container_flags() -> None:
    deploy = parse_run_deploy(
        [
            "gcloud",
            "beta",
            "run",
            "deploy",
            "svc",
            "--image",
            "img:1",
            "--command",
            "bash",
            "--args=^;^-c;vllm serve m --port 8080",
            "--set-env-vars",
            "A=1,B=x=y",
            "--set-secrets",
            "HF_TOKEN=hf:latest",
            "--port=9000",
            "--allow-unauthenticated",
        ]
    )
    assert deploy is not None
    assert (deploy.service, deploy.image, deploy.command, deploy.args, deploy.port) == (
        "svc",
        "img:1",
        ["bash"],
        ["-c", "vllm serve m --port 8080"],
        "9000",
    )
    assert deploy.env == [("A", "1"), ("B", "x=y"), ("HF_TOKEN", None)]
    assert parse_run_deploy(["gcloud", "run", "services", "describe", "svc"]) is None


def test_gcloud_args_port_reference_and_default_port(tmp_path: Path) -> None:
    script = (
        "gcloud run deploy vllm --image=vllm/vllm-openai:v0.10.0 --command=vllm "
        '--args="serve,Qwen/Qwen3-0.6B,--port,\\$(PORT)"\n'
    )
    report = check_in(tmp_path, {"deploy.sh": script}, "deploy.sh")
    assert argvs(report) == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8080"]]
    assert alarms(report) == []  # `gcloud ... vllm serve` is followed now: no SH040


def test_knative_service_port_and_no_service_links(tmp_path: Path) -> None:
    service = (
        "apiVersion: serving.knative.dev/v1\nkind: Service\nmetadata:\n  name: vllm\nspec:\n  template:\n"
        "    spec:\n      containers:\n      - image: vllm/vllm-openai:v0.10.0\n"
        "        command: [vllm, serve, Qwen/Qwen3-0.6B, --port, $(PORT)]\n"
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: vllm\nspec:\n  ports:\n  - port: 80\n"
    )
    report = check_in(tmp_path, {"svc.yaml": service}, "svc.yaml")
    # PORT is Knative's (8080 without a containerPort); before: TP012 error "$(PORT) is not defined"
    assert argvs(report) == [["vllm", "serve", "Qwen/Qwen3-0.6B", "--port", "8080"]]
    # a Service named vllm would set VLLM_PORT=tcp://... by a service link; Knative turns links off
    assert alarms(report) == []
    assert "VLLM_PORT" not in report["process"]["env"]


def test_nomad_job_is_refused(tmp_path: Path) -> None:
    (tmp_path / "vllm.nomad.hcl").write_text(
        'job "vllm" {\n  group "g" {\n    task "t" {\n      driver = "docker"\n    }\n  }\n}\n'
    )
    result = run_cli(["check", "vllm.nomad.hcl"], cwd=tmp_path)
    assert result.status == 2 and "HCL (Terraform or Nomad)" in result.stderr
