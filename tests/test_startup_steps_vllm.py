"""Issue 14's start-up checks that run vLLM's own code (``vllm serve``'s argument checks, the engine
config, the fake GPU's device count) in its resolver environment; moved from ``test_startup_steps.py`` (the
SGLang, static and pure parts stay there) so the two halves can run on two pytest-xdist workers
(``--dist loadscope`` keeps a module on one worker).

Tests marked ``frameworks`` run the real vLLM code in the resolver environment (skipped where it is missing).
Real public reports are regression cases, each with its URL.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from argtrace.resolver import environments
from tests.test_startup_steps import (
    LLAMA2,
    LLAMA31,
    _model_with_generation_config,
    check,
    codes,
    needs,
    rs,
    step,
)

WORLD = "is larger than the number of available GPUs"


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
@pytest.mark.parametrize("tp", [2, 4, 8])
def test_vllm_tensor_parallel_with_matching_gpus_resolves(tp: int) -> None:
    report = check("0.33.0", f"vllm serve /m --tensor-parallel-size {tp}", "vllm", f"h100x{tp}")
    res = report["resolution"]
    assert res["status"] == "ok", res
    assert not any(WORLD in f["message"] for f in report["findings"])
    engine = step(report, "create_engine_config")
    assert engine["status"] == "ran"
    assert engine["detail"]["world_size"] == tp
    assert engine["detail"]["distributed_executor_backend"] == "mp"
    assert engine["detail"]["max_model_len"] == 262144


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_vllm_tp4_on_two_gpus_fails_with_the_frameworks_own_count() -> None:
    report = check("0.33.0", "vllm serve /m --tensor-parallel-size 4", "vllm", "h100x2")
    res = report["resolution"]
    assert res["status"] == "raised" and res["at"] == "vllm/config/parallel.py:1071"
    assert (
        "World size (4) is larger than the number of available GPUs (2) in this node"
        in (res["exception"]["message"])
    )
    assert [(s["name"], s["status"]) for s in res["steps"]] == [
        ("parse", "ran"),
        ("validate_parsed_serve_args", "ran"),
        ("validate_api_server_args", "ran"),
        ("create_engine_config", "raised"),
    ]
    assert "RS005" in codes(report)


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_vllm_regression_heads_not_divisible_by_tensor_parallel_size() -> None:
    """https://github.com/vllm-project/vllm/issues/4232 and https://github.com/vllm-project/vllm/issues/2652
    ("32heads on 3gpus"): hidden before by the false world-size error, now vLLM's own model/parallel check."""
    report = check("0.33.0", "vllm serve /m --tensor-parallel-size 3", "vllm", "h100x3", str(LLAMA2))
    res = report["resolution"]
    assert res["status"] == "raised", res
    assert (
        "Total number of attention heads (32) must be divisible by tensor parallel size (3)."
        in (res["exception"]["message"])
    )
    assert res["at"].startswith("vllm/config/")
    assert not any(WORLD in f["message"] for f in report["findings"])
    passing = check("0.33.0", "vllm serve /m --tensor-parallel-size 4", "vllm", "h100x4", str(LLAMA2))
    assert passing["resolution"]["status"] == "ok", passing["resolution"]


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_rs023_uses_vllms_own_sampling_defaults(tmp_path: Path) -> None:
    folder = _model_with_generation_config(tmp_path)
    report = check("0.33.0", "vllm serve /m", "vllm", "h100", str(folder))
    assert report["resolution"]["status"] == "ok", report["resolution"]
    own = step(report, "create_engine_config")["detail"]["sampling_defaults"]
    # exactly what vLLM logged for this generation config in the PR 15281 server log
    assert own == {"repetition_penalty": 1.05, "temperature": 0.1, "top_k": 1, "top_p": 0.001}
    (f,) = rs(report, "RS023")
    assert "vLLM's own get_diff_sampling_param" in f["message"]


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_fake_device_count_follows_cuda_visible_devices() -> None:
    """torch's own CUDA_VISIBLE_DEVICES parsing over the fake NVML, as vLLM counts GPUs.

    One interpreter imports torch and vLLM (8 s of CPU; a process per value took five imports) and forks a
    child per value, which sets the variable before its first count (torch and vLLM read it at each count,
    never at import). The interpreter itself starts with ``2,9,1``: that value's child counts it as a
    launch's environment gives it at start; the others replace or remove it."""
    from argtrace.gpus import parse_gpu_spec
    from argtrace.resolver.fake_gpu import fake_gpu_env

    manifest = environments.find_environment("vllm", "0.33.0")
    assert manifest is not None
    python = str(environments.env_python(Path(manifest.path)))
    values = [None, "0,1", "2,9,1", "", "GPU-argtrace-fake-0003"]
    probe = (
        "import json, os, sys\n"
        "import torch\n"
        "import vllm.platforms.cuda as c\n"
        "assert os.environ['CUDA_VISIBLE_DEVICES'] == '2,9,1'\n"
        f"for visible in {values!r}:\n"
        "    sys.stdout.flush()\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        if visible is None:\n"
        "            del os.environ['CUDA_VISIBLE_DEVICES']\n"
        "        else:\n"
        "            os.environ['CUDA_VISIBLE_DEVICES'] = visible\n"
        "        counts = [torch.cuda.device_count(), c._cuda_device_count_stateless(None)]\n"
        "        print(json.dumps([visible, counts]), flush=True)\n"
        "        os._exit(0)\n"
        "    assert os.waitpid(pid, 0)[1] == 0\n"
    )
    extra = {"ARGTRACE_FAKE_GPU": fake_gpu_env(parse_gpu_spec("h100x4")), "CUDA_VISIBLE_DEVICES": "2,9,1"}
    env = environments.runtime_env_for({"PATH": "/usr/bin:/bin", "HOME": "/root"}, extra)
    done = subprocess.run(
        [python, "-c", probe], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = {}
    for line in done.stdout.splitlines():
        if line.startswith("["):
            visible, counts = json.loads(line)
            seen[visible] = counts
    assert seen == {
        None: [4, 4],
        "0,1": [2, 2],
        "2,9,1": [1, 1],
        "": [0, 0],
        "GPU-argtrace-fake-0003": [1, 1],
    }


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_vllm_regression_kubernetes_vllm_port_uri_raises_in_vllms_own_code() -> None:
    """https://github.com/vllm-project/vllm/issues/34199: with data parallelism vLLM picks its internal
    ports while building the config, so the resolver reaches its own raise (vllm/envs.py get_vllm_port)."""
    report = check(
        "0.33.0",
        "VLLM_PORT=tcp://169.169.193.120:6785 vllm serve /m --data-parallel-size 2",
        "vllm",
        "h100x2",
        str(LLAMA31),
    )
    res = report["resolution"]
    assert res["status"] == "raised"
    assert res["at"] == "vllm/envs.py:540" and res["function"] == "get_vllm_port"
    assert "VLLM_PORT 'tcp://169.169.193.120:6785' appears to be a URI." in res["exception"]["message"]
    rs001 = [f for f in report["findings"] if f["code"] == "RS001"]
    # the pydantic dump of every ParallelConfig field is not read as the settings the raise is about
    assert [f["setting"] for f in rs001] == [None]
    assert [f["severity"] for f in report["findings"] if f["code"] == "RS020"] == ["error"]


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_vllm_serve_checks_refuse_auto_tool_choice_without_a_known_parser() -> None:
    """``vllm serve`` validates its own arguments before it builds the engine: TypeError/KeyError there are
    the framework's verdicts (vllm/entrypoints/common/cli_args.py), not the resolver crashing."""
    missing = check("0.33.0", "vllm serve /m --enable-auto-tool-choice", "vllm", "h100")
    res = missing["resolution"]
    assert res["status"] == "raised"
    assert res["exception"] == {
        "type": "TypeError",
        "message": "Error: --enable-auto-tool-choice requires --tool-call-parser",
    }
    assert res["at"] == "vllm/entrypoints/common/cli_args.py:554"
    assert [(s["name"], s["status"]) for s in res["steps"]] == [
        ("parse", "ran"),
        ("validate_parsed_serve_args", "raised"),
        ("validate_api_server_args", "not_reached"),
        ("create_engine_config", "not_reached"),
    ]
    (rs001,) = [f for f in missing["findings"] if f["code"] == "RS001"]
    assert rs001["severity"] == "error" and rs001["setting"] == "enable_auto_tool_choice"
    unknown = check(
        "0.33.0", "vllm serve /m --enable-auto-tool-choice --tool-call-parser nope", "vllm", "h100"
    )
    res = unknown["resolution"]
    assert res["status"] == "raised" and res["at"] == "vllm/entrypoints/common/cli_args.py:620"
    assert res["exception"]["type"] == "KeyError"
    assert res["exception"]["message"].startswith("'invalid tool call parser: nope (chose from { ")
    assert ",hermes," in res["exception"]["message"]
    assert [(s["name"], s["status"]) for s in res["steps"]][1:3] == [
        ("validate_parsed_serve_args", "ran"),
        ("validate_api_server_args", "raised"),
    ]
    ok = check("0.33.0", "vllm serve /m --enable-auto-tool-choice --tool-call-parser hermes", "vllm", "h100")
    assert ok["resolution"]["status"] == "ok", ok["resolution"]
    assert [s["status"] for s in ok["resolution"]["steps"]] == ["ran", "ran", "ran", "ran"]
    assert "RS001" not in codes(ok)
