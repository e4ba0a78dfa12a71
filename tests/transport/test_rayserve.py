"""``argtrace check serve.yaml``: a Ray Serve LLM serve config (and a RayService's ``serveConfigV2``) read as
Ray 2.60.0 turns each ``llm_configs`` entry into vLLM's engine (our own inputs; layers/transport/rayserve.py).

The generated table (scripts/gen_ray_serve_llm.py), the ``vllm serve`` argv written from ``engine_kwargs``
(switches, their ``False``, JSON values, Ray's own ``--distributed-executor-backend ray``), what Ray refuses
(TP080, TP081), what argtrace leaves unknown (TP082), ``runtime_env.env_vars``, an ``llm_configs`` path, and
the manifest's line numbers inside ``serveConfigV2``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.transport.manifests import manifest_kind
from argtrace.layers.transport.rayserve import is_serve_config, table
from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")

HEAD = """applications:
- name: llms
  import_path: ray.serve.llm:build_openai_app
  args:
    llm_configs:
    - model_loading_config:
        model_id: qwen
        model_source: Qwen/Qwen2.5-7B-Instruct
"""


def check(tmp_path: Path, text: str, *options: str, name: str = "serve.yaml") -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", *options, name], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def transport(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(f["severity"], f["code"], f["at"]) for f in report["findings"] if f["code"].startswith("TP")]


def test_the_table_is_read_from_rays_wheel_and_vllms_classes() -> None:
    data = table()
    assert data["ray"]["release"] == "2.60.0"
    assert data["ray"]["vllm"] == "vllm[audio]==0.29.0"
    assert data["llm_config_keys"] == [
        "runtime_env",
        "model_loading_config",
        "llm_engine",
        "engine_kwargs",
        "accelerator_type",
        "accelerator_config",
        "placement_group_config",
        "lora_config",
        "deployment_config",
        "server_cls",
        "experimental_configs",
        "log_engine_metrics",
        "callback_config",
    ]
    assert data["model_loading_config_keys"] == ["model_id", "model_source", "tokenizer_source"]
    assert (
        data["sources"]["unknown_engine_argument"]
        == "ray/llm/_internal/serve/engines/vllm/vllm_models.py:229"
    )
    assert data["vllm_requirement"]["2.46.0"] == "vllm>=0.8.5"
    assert data["vllm_requirement"]["2.60.0"] == "vllm[audio]==0.29.0"
    fields = data["vllm_fields"]["0.33.0"]
    assert fields["without_flag"] == [
        "_api_process_count",
        "_api_process_rank",
        "enable_mm_processor_stats",
        "mamba_config",
        "model_weights",
    ]
    assert fields["flags_not_fields"] == ["api_server_count", "config", "grpc", "headless", "model_tag"]
    check_run = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen_ray_serve_llm.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert check_run.returncode == 0, check_run.stderr


def test_a_serve_config_is_told_apart_by_its_llm_application() -> None:
    assert manifest_kind(HEAD.encode()) == "rayserve"
    standalone = b"model_loading_config:\n  model_id: q\naccelerator_type: A10G\n"
    assert is_serve_config(standalone)
    assert manifest_kind(standalone) == "rayserve"
    # a serve config of the user's own deployments is no Ray Serve LLM launch
    custom = b"applications:\n- name: app\n  import_path: serve:model\n"
    assert manifest_kind(custom) is None


def test_engine_kwargs_become_the_vllm_serve_words_ray_hands_the_engine(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        HEAD
        + """      runtime_env:
        env_vars:
          HF_HUB_OFFLINE: "1"
      engine_kwargs:
        tensor_parallel_size: 2
        enforce_eager: true
        enable_prefix_caching: false
        trust_remote_code: false
        compilation_config: {cudagraph_mode: PIECEWISE}
        gpu_memory_utilization: 0.90
        max_model_len: null
""",
    )
    assert words(report) == [
        [
            "vllm",
            "serve",
            "Qwen/Qwen2.5-7B-Instruct",
            "--served-model-name",
            "qwen",
            "--tensor-parallel-size",
            "2",
            "--enforce-eager",
            "--no-enable-prefix-caching",
            "--no-trust-remote-code",
            "--compilation-config",
            '{"cudagraph_mode": "PIECEWISE"}',
            "--gpu-memory-utilization",
            "0.90",
            "--distributed-executor-backend",
            "ray",
        ]
    ]
    assert [w["at"] for w in report["servers"][0]["words"]][5:8] == [
        "serve.yaml:13",
        "serve.yaml:13",
        "serve.yaml:14",
    ]
    assert [f for f in report["findings"] if f["severity"] in ("error", "warning")] == []
    assert report["transport"]["hops"][0]["via"] == "ray serve llm"
    assert report["transport"]["hops"][0]["model_id"] == "qwen"
    # runtime_env.env_vars are the replica's environment; its PATH is the Ray worker's, unknown here
    assert report["transport"]["hops"][0]["env"] == ["HF_HUB_OFFLINE", "PATH"]


def test_model_id_is_the_model_when_there_is_no_model_source(tmp_path: Path) -> None:
    text = HEAD.replace("        model_source: Qwen/Qwen2.5-7B-Instruct\n", "").replace(
        "model_id: qwen", "model_id: m/x"
    )
    assert words(check(tmp_path, text))[0][:5] == ["vllm", "serve", "m/x", "--served-model-name", "m/x"]


def test_what_ray_refuses_in_engine_kwargs(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        HEAD
        + """      engine_kwargs:
        served_model_name: other
        distributed_executor_backend: mp
        api_server_count: 2
""",
    )
    assert transport(report) == [
        ("error", "TP080", "serve.yaml:10"),
        ("error", "TP080", "serve.yaml:11"),
        ("error", "TP080", "serve.yaml:12"),
    ]
    messages = [f["message"] for f in report["findings"] if f["code"] == "TP080"]
    assert messages[1] == (
        "`distributed_executor_backend: mp` in application llms llm_configs[0]'s engine_kwargs: Ray Serve "
        "LLM "
        "runs vLLM's workers as Ray actors and refuses another backend on GPUs "
        "(`distributed_executor_backend != "
        "'ray' is not allowed in engine_kwargs when using Ray Serve LLM Configs.`)"
    )
    assert messages[2] == (
        "`api_server_count` in application llms llm_configs[0]'s engine_kwargs is a `vllm serve` "
        "command-line "
        "option but no field of vLLM's FrontendArgs or AsyncEngineArgs: Ray Serve LLM refuses it (`Unknown "
        "engine "
        "argument: api_server_count`)"
    )
    evidence = report["findings"][0]["evidence"][0]["text"]
    assert evidence == (
        "https://github.com/ray-project/ray/blob/ray-2.60.0/python/ray/llm/_internal/serve/engines/vllm/"
        "vllm_models.py#L139"
    )
    # the refused keys are not handed on as words
    assert words(report) == [["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--served-model-name", "qwen"]]


def test_keys_llmconfig_does_not_have(tmp_path: Path) -> None:
    """ray-project/ray#55406's shape: engine settings under model_loading_config, or a misspelt key."""
    report = check(
        tmp_path,
        HEAD
        + """        engine_kwargs:
          max_model_len: 4096
      engine_args:
        max_model_len: 4096
""",
    )
    assert transport(report) == [("error", "TP081", "serve.yaml:11"), ("error", "TP081", "serve.yaml:9")]
    assert report["findings"][1]["message"] == (
        "`engine_kwargs` in application llms llm_configs[0]'s model_loading_config is no field of Ray's "
        "ModelLoadingConfig; it has `model_id`, `model_source`, `tokenizer_source`: Ray refuses the config "
        "(`Extra inputs are not permitted`, ray 2.60.0), and what is under it reaches nothing"
    )
    assert report["findings"][0]["message"] == (
        "`engine_args` in application llms llm_configs[0] is no field of Ray's LLMConfig (did you mean "
        "`engine_kwargs`?): Ray refuses the config (`Extra inputs are not permitted`, ray 2.60.0), and what "
        "is "
        "under it reaches nothing"
    )
    assert "--max-model-len" not in words(report)[0]


def test_what_argtrace_leaves_unknown(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        HEAD
        + """      engine_kwargs:
        model_weights: /weights
    - models/elsewhere.yaml
    - model_loading_config:
        model_id: sg
      server_cls: ray.llm._internal.serve.engines.sglang:SGLangServer
- name: pd
  import_path: ray.serve.llm:build_pd_openai_app
  args: {}
""",
    )
    assert transport(report) == [
        ("info", "TP082", "serve.yaml:10"),
        ("info", "TP082", "serve.yaml:11"),
        ("info", "TP082", "serve.yaml:12"),
        ("info", "TP082", "serve.yaml:16"),
    ]
    assert [f["message"] for f in report["findings"] if f["code"] == "TP082"][2] == (
        "application llms llm_configs[2] runs server_cls "
        "ray.llm._internal.serve.engines.sglang:SGLangServer, "
        "not Ray's vLLM engine: its engine_kwargs are not checked"
    )
    assert len(report["servers"]) == 1


def test_an_llm_configs_path_is_read_next_to_the_config(tmp_path: Path) -> None:
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "q.yaml").write_text(
        "model_loading_config:\n  model_id: q\n  model_source: Qwen/Qwen2.5-0.5B-Instruct\nengine_kwargs:\n"
        "  max_model_len: 2048\n"
    )
    report = check(
        tmp_path,
        "applications:\n- import_path: ray.serve.llm:build_openai_app\n  args:\n    llm_configs:\n"
        "    - models/q.yaml\n",
    )
    assert words(report)[0][:7] == [
        "vllm",
        "serve",
        "Qwen/Qwen2.5-0.5B-Instruct",
        "--served-model-name",
        "q",
        "--max-model-len",
        "2048",
    ]
    assert report["servers"][0]["words"][5]["at"] == "models/q.yaml:5"


def test_a_rayservice_serve_config_keeps_the_manifests_lines(tmp_path: Path) -> None:
    manifest = (
        "apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: llm\nspec:\n  serveConfigV2: |\n"
        + "".join("    " + line + "\n" for line in HEAD.splitlines())
        + "          engine_kwargs:\n            model: x\n"
        + '  rayClusterConfig:\n    rayVersion: "2.51.0"\n'
    )
    report = check(tmp_path, manifest, name="rayservice.yaml")
    assert transport(report) == [("error", "TP080", "rayservice.yaml:16")]
    assert report["servers"][0]["at"] == "rayservice.yaml:12"


def test_a_ray_llm_image_names_the_vllm_its_ray_release_pins(tmp_path: Path) -> None:
    """Ray 2.56.0's llm extra pins vllm[audio]==0.22.0 (PyPI metadata): the RayService's image decides the
    release, so `task` is judged by 0.22.x without --framework-version."""
    from argtrace.frameworks.ray_llm import engine_release

    assert engine_release("vllm", "rayproject/ray-llm:2.56.0-py311-cu128") == (
        "0.22.0",
        "image rayproject/ray-llm:2.56.0-py311-cu128 (Ray 2.56.0's llm extra pins vllm[audio]==0.22.0)",
    )
    assert engine_release("vllm", "docker.io/anyscale/ray-llm:2.60.0-py312-cu130")[0] == "0.29.0"  # type: ignore[index]
    # a lower bound decides nothing, nor does an image without vLLM or another engine
    assert engine_release("vllm", "rayproject/ray-llm:2.46.0-py311-cu124") is None
    assert engine_release("vllm", "rayproject/ray:2.56.0-py311-gpu") is None
    assert engine_release("sglang", "rayproject/ray-llm:2.56.0-py311-cu128") is None
    manifest = (
        "apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: embed\nspec:\n  serveConfigV2: |\n"
        + "".join("    " + line + "\n" for line in HEAD.splitlines())
        + "          engine_kwargs:\n            task: embed\n"
        + "  rayClusterConfig:\n    workerGroupSpecs:\n    - groupName: gpu\n      template:\n        spec:\n"
        + "          containers:\n          - name: w\n"
        + "            image: rayproject/ray-llm:2.56.0-py311-cu128\n"
    )
    (tmp_path / "rs.yaml").write_text(manifest)
    result = run_cli(["check", "--format", "json", "--no-resolve", "rs.yaml"], cwd=tmp_path)
    report = result.json
    assert report["framework"]["version"] == "0.22.0"
    assert [
        (f["severity"], f["code"], f["at"]) for f in report["findings"] if f["severity"] == "warning"
    ] == [("warning", "PA003", "rs.yaml:16")]
    assert report["transport"]["hops"][0]["image"] == "rayproject/ray-llm:2.56.0-py311-cu128"


def test_an_entry_without_model_id_and_an_unknown_args_key(tmp_path: Path) -> None:
    report = check(
        tmp_path,
        "applications:\n- import_path: ray.serve.llm:build_openai_app\n  args:\n    models:\n    - a\n"
        "    llm_configs:\n    - model_loading_config:\n        model_source: Qwen/Qwen3-0.6B\n",
    )
    assert transport(report) == [("error", "TP081", "serve.yaml:4"), ("error", "TP081", "serve.yaml:7")]
    assert report["findings"][0]["message"].startswith(
        "`models` in application default's `args` is no field of Ray's LLMServingArgs; it has `llm_configs`, "
    )
    assert report["findings"][1]["message"] == (
        "application default llm_configs[0] has no `model_loading_config.model_id`, which Ray's LLMConfig "
        "requires: Ray refuses the config (`Field required`, ray 2.60.0), so no server starts"
    )
    assert report["servers"] == []
