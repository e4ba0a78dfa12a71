"""Issue 14: the start-up checks that need no GPU (resolver/startup_steps.py), ``--device`` other than cuda,
and the start-up rules RS020-RS023 (layers/startup_rules.py). The tests that run vLLM's own code (and the
fake GPU's device count) are in ``test_startup_steps_vllm.py``: two modules, so two workers can share them.

Tests marked ``frameworks`` run the real SGLang/vLLM code in the resolver environments (skipped where one
is missing). Real public reports are regression cases, each with its URL.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers import resolution as layer
from argtrace.resolver import environments
from tests.conftest import run_cli

MODELS = Path(__file__).resolve().parent / "data" / "models"
QWEN = MODELS / "qwen3.6-27b"  # 24 attention heads, 4 KV heads, hybrid (Gated DeltaNet)
LLAMA2 = MODELS / "llama-2-7b-chat"  # 32 attention heads
LLAMA31 = MODELS / "llama-3.1-8b"
RECORD = Path(layer.__file__).resolve().parent.parent / "resolver" / "record.py"
STEPS = RECORD.parent / "startup_steps.py"


def needs(framework: str, version: str) -> Any:
    return pytest.mark.skipif(
        environments.find_environment(framework, version) is None,
        reason=f"no resolver environment for {framework}=={version}",
    )


def _load(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


record = _load(RECORD, "argtrace_record_under_test")
steps = _load(STEPS, "argtrace_startup_steps_under_test")


@cache
def check(version: str, command: str, framework: str, gpu: str, model: str = str(QWEN)) -> dict[str, Any]:
    argv = [
        "check",
        "--format",
        "json",
        "--model-config",
        model,
        "--gpu",
        gpu,
        "--framework",
        framework,
        "--framework-version",
        version,
        "-c",
        command,
    ]
    result = run_cli(argv)
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


def step(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["resolution"]["steps"] if s["name"] == name)


def codes(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"]]


# ------------------------------------------------------------------------------------ pure parts


def test_raise_condition_reads_the_assert_and_its_guard(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A raise outside the bundled index: the settings its condition reads, from the installed source
    (the shape of SGLang 0.5.23's arg_groups/validation_hook.py check)."""
    pkg = tmp_path / "fw"
    pkg.mkdir()
    (pkg / "hook.py").write_text(
        "def check(cfg):\n"
        "    if cfg.chunked_prefill_size > 0 and cfg.disaggregation_mode != 'decode':\n"
        "        assert cfg.chunked_prefill_size % cfg.page_size == 0, (\n"
        "            'chunked_prefill_size must be divisible by page_size'\n"
        "        )\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    got = record.raise_condition("fw/hook.py", 3)
    assert got == {
        "conditions": [
            "cfg.chunked_prefill_size > 0 and cfg.disaggregation_mode != 'decode'",
            "cfg.chunked_prefill_size % cfg.page_size == 0",
        ],
        "condition_fields": ["chunked_prefill_size", "disaggregation_mode", "page_size"],
    }
    assert record.raise_condition("fw/missing.py", 3) == {}


def test_steps_plan_run_crash_and_finish(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "fw").mkdir()
    (tmp_path / "fw" / "engine.py").write_text("x = 1\n    server_args.check_server_args()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    out: dict[str, Any] = {"status": "ok"}
    steps.plan(
        out,
        [
            ("resolve", None, None, None),
            ("envs", None, None, "not run: process-wide state"),
            ("check", "fw/engine.py", "server_args.check_server_args()", None),
            ("model", None, None, None),
        ],
    )
    assert [(s["name"], s["status"], s["called_at"]) for s in out["steps"]] == [
        ("resolve", "pending", None),
        ("envs", "skipped", None),
        ("check", "pending", "fw/engine.py:2"),
        ("model", "pending", None),
    ]
    record.step_done(out, "resolve")
    recorder = record.Recorder()

    def boom() -> None:
        raise RuntimeError("a stub cannot do this")

    # not the framework's verdict: the step crashed, resolution goes on
    assert steps.run_step(out, "model", recorder, boom) is None
    model = out["steps"][3]
    assert model["status"] == "crashed" and model["reason"] == "RuntimeError: a stub cannot do this"
    assert recorder.active is False

    def refuse() -> None:
        raise AssertionError("chunked_prefill_size must be divisible by page_size")

    with pytest.raises(AssertionError):
        steps.run_step(out, "check", recorder, refuse)
    out["status"] = "raised"
    out["exception"] = {"type": "AssertionError"}
    record.finish_steps(out)
    assert [(s["name"], s["status"], s["reason"]) for s in out["steps"]] == [
        ("resolve", "ran", None),
        ("envs", "skipped", "not run: process-wide state"),
        ("check", "raised", "AssertionError"),
        ("model", "crashed", "RuntimeError: a stub cannot do this"),
    ]


def test_steps_after_a_raise_are_not_reached() -> None:
    out: dict[str, Any] = {"status": "raised", "exception": {"type": "ValueError"}}
    steps.plan(out, [("post_init", None, None, None), ("check_server_args", None, None, None)])
    record.finish_steps(out)
    assert [(s["status"], s["reason"]) for s in out["steps"]] == [
        ("raised", "ValueError"),
        ("not_reached", "an earlier step raised"),
    ]


def test_steps_section_maps_local_paths_back_and_drops_junk() -> None:
    got = layer.startup_steps_section(
        [
            {
                "name": "model_config",
                "status": "skipped",
                "reason": "no local config.json at '/tmp/x/m'",
                "called_at": "sglang/srt/managers/scheduler.py:438",
            },
            "junk",
            {"status": "ran"},
        ],
        {"/tmp/x/m": "/workspace/models/M"},
    )
    assert got == [
        {
            "name": "model_config",
            "status": "skipped",
            "reason": "no local config.json at '/workspace/models/M'",
            "called_at": "sglang/srt/managers/scheduler.py:438",
        }
    ]


def test_model_dir_reason_refuses_remote_code(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"auto_map": {"AutoConfig": "x.Config"}}))
    assert steps._model_dir_reason(str(tmp_path), True) == (
        "the model's config class is remote code (auto_map with --trust-remote-code)"
    )
    assert steps._model_dir_reason(str(tmp_path), False) is None
    assert steps._model_dir_reason(str(tmp_path / "none"), False).startswith("no local config.json at ")


@pytest.mark.parametrize("device", ["npu", "xpu", "hpu", "cpu"])
def test_sglang_device_other_than_cuda_is_not_resolved(device: str) -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--model-config",
            str(QWEN),
            "--gpu",
            "h100",
            "--framework-version",
            "0.5.10.post1",
            "-c",
            f"python3 -m sglang.launch_server --model-path /m --device {device}",
        ]
    )
    report = result.json
    res = report["resolution"]
    assert res["status"] == "skipped"
    assert res["reason"].startswith(f"--device {device}: the resolver fakes CUDA (NVIDIA) or ROCm GPUs only")
    assert res["steps"] == [{"name": "resolution", "status": "skipped", "reason": res["reason"]}]
    (rs004,) = [f for f in report["findings"] if f["code"] == "RS004"]
    assert rs004["setting"] == "device" and rs004["message"] == f"resolution skipped: {res['reason']}"


def test_cuda_device_with_an_index_is_resolvable() -> None:
    assert layer.unresolvable_device("sglang", {"device": "cuda:1"}) is None
    assert layer.unresolvable_device("sglang", {"device": None}) is None
    assert layer.unresolvable_device("sglang", {"device": "npu"}) == "npu"
    assert layer.unresolvable_device("vllm", {"device": "npu"}) is None  # vLLM 0.33 has no --device


# ------------------------------------------------------------------------- RS020-RS023, static


def static(
    command: str, version: str, *extra: str, files: dict[str, str] | None = None, tmp: Path | None = None
) -> dict[str, Any]:
    cwd = tmp
    if files:
        assert tmp is not None
        for name, text in files.items():
            (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp / name).write_text(text)
    result = run_cli(
        ["check", "--format", "json", "--no-resolve", *extra, "--framework-version", version, "-c", command],
        cwd=cwd,
    )
    assert result.status in (0, 1), result.stderr
    return dict(result.json)


def rs(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def test_rs020_vllm_port_without_port_is_not_the_api_port() -> None:
    (f,) = rs(static("VLLM_PORT=9000 vllm serve /m", "0.33.0"), "RS020")
    assert f["severity"] == "warning" and f["setting"] == "port"
    assert f["message"] == (
        "VLLM_PORT=9000 does not set the API port: the server listens on --port (8000, the default; "
        "vllm/entrypoints/launchers/launcher.py:379) and uses 9000 and up for its internal sockets "
        "(vllm/utils/network_utils.py get_open_ports_list)"
    )


def test_rs020_vllm_port_equal_to_the_api_port_however_the_command_is_built(tmp_path: Path) -> None:
    # set in an exported variable and written literally into --port: still the internal port
    script = "#!/bin/bash\nexport VLLM_PORT=8100\nexec vllm serve /m --port 8100\n"
    (tmp_path / "launch.sh").write_text(script)
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--no-resolve",
            "--framework-version",
            "0.33.0",
            str(tmp_path / "launch.sh"),
        ]
    )
    (f,) = [x for x in result.json["findings"] if x["code"] == "RS020"]
    assert f["message"].startswith("VLLM_PORT=8100 equals the API port: vLLM's internal ports start at")
    assert "move to 8101 and up" in f["message"]


def test_rs020_a_deliberate_internal_port_is_fine() -> None:
    assert rs(static("VLLM_PORT=29600 vllm serve /m --port 8000", "0.33.0"), "RS020") == []
    assert rs(static("vllm serve /m --port 8000", "0.33.0"), "RS020") == []


def test_rs020_regression_kubernetes_service_link_uri() -> None:
    """https://github.com/vllm-project/vllm/issues/34199: a Service named `vllm` makes Kubernetes set
    VLLM_PORT=tcp://IP:PORT in the pod; vLLM raises "VLLM_PORT '...' appears to be a URI"."""
    report = static("VLLM_PORT=tcp://169.169.193.120:6785 vllm serve /m", "0.33.0", "--gpu", "h100")
    (f,) = rs(report, "RS020")
    assert f["severity"] == "error"
    assert f["message"].startswith("VLLM_PORT='tcp://169.169.193.120:6785' is a URI: vLLM reads VLLM_PORT")
    assert "enableServiceLinks: false" in f["fix"]
    assert "PR009" in codes(report)  # the type check stays; RS020 says why and what to do


def test_rs021_kv_pool_below_one_request_of_the_context_length() -> None:
    cmd = "python3 -m sglang.launch_server --model-path /m --context-length 131072"
    report = static(cmd, "0.5.10.post1", "--model-config", str(LLAMA31), "--gpu", "rtx-4090")
    pool = report["memory"]["max_total_num_tokens"]
    assert isinstance(pool, int) and pool < 131072
    (f,) = rs(report, "RS021")
    assert f["severity"] == "warning" and f["setting"] == "context_length"
    assert (
        f"fewer than one request of the context length 131072 (--context-length): SGLang caps inputs at "
        f"{pool - 6} tokens (srt/managers/tp_worker.py:301-305) and longer ones are rejected"
    ) in f["message"]
    truncating = static(
        cmd + " --allow-auto-truncate", "0.5.10.post1", "--model-config", str(LLAMA31), "--gpu", "rtx-4090"
    )
    (g,) = rs(truncating, "RS021")
    assert g["severity"] == "info" and "cut to that length (--allow-auto-truncate)" in g["message"]
    fits = static(
        cmd.replace("131072", "8192"), "0.5.10.post1", "--model-config", str(LLAMA31), "--gpu", "rtx-4090"
    )
    assert rs(fits, "RS021") == []


def test_rs022_mamba_strategy_on_a_plain_transformer() -> None:
    cmd = "python3 -m sglang.launch_server --model-path /m --mamba-scheduler-strategy extra_buffer"
    (f,) = rs(static(cmd, "0.5.10.post1", "--model-config", str(LLAMA31)), "RS022")
    assert f["severity"] == "info" and f["setting"] == "mamba_scheduler_strategy"
    assert f["message"] == (
        "mamba_scheduler_strategy = 'extra_buffer' has no effect: LlamaForCausalLM has no Mamba or "
        "linear-attention layers, and the framework reads this setting only for models that do"
    )
    assert rs(static(cmd, "0.5.10.post1", "--model-config", str(QWEN)), "RS022") == []
    cmd23 = "python3 -m sglang.launch_server --model-path /m --mamba-radix-cache-strategy extra_buffer"
    (g,) = rs(static(cmd23, "0.5.23", "--model-config", str(LLAMA31)), "RS022")
    assert g["setting"] == "mamba_radix_cache_strategy"


# Qwen2.5-VL-7B-Instruct's sampling defaults, as vLLM logged them in
# https://github.com/vllm-project/vllm/pull/15281 ("Using default chat sampling params from model:
# {'repetition_penalty': 1.05, 'temperature': 0.1, 'top_k': 1, 'top_p': 0.001}"), reported in
# https://github.com/vllm-project/vllm/issues/15241 as "temperature is ignored".
QWEN_VL_GENERATION = {
    "bos_token_id": 151643,
    "do_sample": True,
    "eos_token_id": [151645, 151643],
    "pad_token_id": 151643,
    "repetition_penalty": 1.05,
    "temperature": 0.1,
    "top_k": 1,
    "top_p": 0.001,
}


def _model_with_generation_config(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text((LLAMA31 / "config.json").read_text())
    (folder / "generation_config.json").write_text(json.dumps(QWEN_VL_GENERATION))
    return folder


def test_rs023_regression_generation_config_sets_sampling_defaults(tmp_path: Path) -> None:
    folder = _model_with_generation_config(tmp_path)
    (f,) = rs(static("vllm serve /m", "0.33.0", "--model-config", str(folder)), "RS023")
    assert f["severity"] == "info" and f["setting"] == "generation_config"
    assert f["message"].startswith(
        "requests that do not set them get the model's sampling defaults repetition_penalty=1.05, "
        "temperature=0.1, top_k=1, top_p=0.001 ("
    )
    assert (
        rs(static("vllm serve /m --generation-config vllm", "0.33.0", "--model-config", str(folder)), "RS023")
        == []
    )
    overridden = static(
        'vllm serve /m --override-generation-config \'{"temperature": 0.7, "top_p": 0.9, "top_k": 20, '
        '"repetition_penalty": 1.0}\'',
        "0.33.0",
        "--model-config",
        str(folder),
    )
    assert rs(overridden, "RS023") == []
    # no generation_config.json: vLLM derives one from config.json, which is not this rule's case
    assert rs(static("vllm serve /m", "0.33.0", "--model-config", str(LLAMA31)), "RS023") == []


# ------------------------------------------------------------------ the framework's own code
# In the order of the resolver hosts they use (resolver/hosts.py: one per release, script and whole
# environment; a worker keeps 4, the least recently used stopped): 0.5.10.post1's, then 0.5.23's, then the
# launches that set NCCL_CUMEM_ENABLE. So no host starts twice (6 hosts; 8 in the order of the topics).


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_sglang_0_5_10_check_server_args_chunked_prefill_not_divisible_by_page_size() -> None:
    """The issue's repro: the real server asserts; resolution said "ok" before."""
    report = check(
        "0.5.10.post1",
        "python3 -m sglang.launch_server --model-path /m --chunked-prefill-size 1000 --page-size 64",
        "sglang",
        "h100",
    )
    res = report["resolution"]
    assert res["status"] == "raised"
    assert res["exception"] == {
        "type": "AssertionError",
        "message": "chunked_prefill_size must be divisible by page_size",
    }
    assert res["at"] == "sglang/srt/server_args.py:6110" and res["function"] == "check_server_args"
    assert res["condition_fields"] == ["chunked_prefill_size", "disaggregation_mode", "page_size"]
    assert [(s["name"], s["status"]) for s in res["steps"]] == [
        ("post_init", "ran"),
        ("set_envs_and_config", "ran"),
        ("check_server_args", "raised"),
        ("resolve_auto_parsers", "not_reached"),
        ("model_config", "not_reached"),
    ]
    assert step(report, "check_server_args")["called_at"] == "sglang/srt/entrypoints/engine.py:642"
    rs001 = {f["setting"]: f for f in report["findings"] if f["code"] == "RS001"}
    # one raise is one finding (argtrace.causes): the other settings its condition read are its evidence
    assert set(rs001) == {"chunked_prefill_size"}
    assert rs001["chunked_prefill_size"]["message"] == (
        "AssertionError in check_server_args (sglang/srt/server_args.py:6110) reads chunked_prefill_size = "
        "1000 (from the command line): chunked_prefill_size must be divisible by page_size"
    )
    evidence = [e["text"] for e in rs001["chunked_prefill_size"]["evidence"]]
    assert "reads page_size = 64 (from the command line)" in evidence
    assert "reads disaggregation_mode = 'null' (the parser's default)" in evidence
    assert all(f["at"] == "sglang/srt/server_args.py:6110" for f in rs001.values())


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_sglang_0_5_10_regression_disabled_chunked_prefill_passes_check_server_args() -> None:
    """https://github.com/sgl-project/sglang/pull/8973 (issue 8935): ``--chunked-prefill-size -1`` crashed
    on the same assert before the check skipped disabled chunked prefill; 0.5.10.post1 has the fix. Also the
    passing launch of the repro: every step runs and the scheduler's ModelConfig is built."""
    report = check(
        "0.5.10.post1",
        "python3 -m sglang.launch_server --model-path /m --chunked-prefill-size -1 --page-size 64",
        "sglang",
        "h100",
    )
    res = report["resolution"]
    assert res["status"] == "ok", res
    assert "RS001" not in codes(report)
    assert [(s["name"], s["status"]) for s in res["steps"]] == [
        ("post_init", "ran"),
        ("set_envs_and_config", "ran"),
        ("check_server_args", "ran"),
        ("resolve_auto_parsers", "skipped"),  # 0.5.10.post1 has no parser auto-detection
        ("model_config", "ran"),
    ]
    model = step(report, "model_config")
    assert model["called_at"] == "sglang/srt/managers/scheduler.py:438"
    assert model["detail"]["context_len"] == 262144
    assert model["detail"]["architectures"] == ["Qwen3_5ForConditionalGeneration"]
    assert model["detail"]["num_hidden_layers"] == 64


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_sglang_0_5_10_model_config_json_override_reaches_the_context_length() -> None:
    """``json_model_override_args`` is applied to config.json by the framework's ModelConfig: the context
    length it derives follows the override, and a --context-length above it raises, with the setting."""
    override = "'{\"max_position_embeddings\": 65536}'"
    command = f"python3 -m sglang.launch_server --model-path /m --json-model-override-args {override}"
    report = check("0.5.10.post1", command, "sglang", "h100", str(LLAMA31))
    assert report["resolution"]["status"] == "ok", report["resolution"]
    detail = step(report, "model_config")["detail"]
    assert detail["context_len"] == 65536
    assert detail["model_override_args"] == {"max_position_embeddings": 65536}
    refused = check("0.5.10.post1", command + " --context-length 131072", "sglang", "h100", str(LLAMA31))
    res = refused["resolution"]
    assert res["status"] == "raised" and res["function"] == "_derive_context_length"
    assert res["at"].startswith("sglang/srt/configs/model_config.py:")
    assert res["exception"]["message"].startswith(
        "Warning: User-specified context_length (131072) is greater than the derived context_length (65536)."
    )
    assert "context_length" in {f["setting"] for f in refused["findings"] if f["code"] == "RS001"}


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_sglang_0_5_10_nested_override_replaces_the_text_config() -> None:
    """An override of one key of a nested config replaces the whole sub-config with a plain dict
    (``PretrainedConfig.update``), and SGLang's ``get_hf_text_config`` asserts that ``text_config`` has
    ``num_attention_heads`` (srt/utils/hf_transformers_utils.py:246): the launch dies at start-up."""
    override = '\'{"text_config": {"max_position_embeddings": 65536}}\''
    report = check(
        "0.5.10.post1",
        f"python3 -m sglang.launch_server --model-path /m --json-model-override-args {override}",
        "sglang",
        "h100",
    )
    res = report["resolution"]
    assert res["status"] == "raised"
    assert res["exception"] == {"type": "AssertionError", "message": ""}
    assert res["at"] == "sglang/srt/utils/hf_transformers_utils.py:246"
    assert "RS001" in codes(report)


def check_resolver_env(gpu: str) -> dict[str, str]:
    """The environment ``check --gpu GPU`` runs the resolver with for a launch that sets no variable: the
    caller's, as the shell layer passes it on to the server, through ``launch_env_for_resolver`` (the
    resolution layer's steps). A cross-check run in it is served by the resolver host the checks of the
    same release and GPU started (resolver/hosts.py serves only an equal environment), where a fresh
    process imported the framework again (8-10 s of CPU)."""
    from argtrace.gpus import parse_gpu_spec
    from argtrace.layers.shell import analyze_script
    from argtrace.layers.shell.result import ScriptSource
    from argtrace.resolver.fake_gpu import fake_gpu_env

    launch = ScriptSource("<-c>", b"python3 -m sglang.launch_server", None)
    (server,) = analyze_script(launch, [], os.environ, run_shellcheck=False).servers
    launch_env = {k: v.value for k, v in server.env.items() if v.value is not None}
    return environments.runtime_env_for(
        environments.launch_env_for_resolver(launch_env),
        {"ARGTRACE_FAKE_GPU": fake_gpu_env(parse_gpu_spec(gpu))},
    )


def _cross_check(version: str, argv: list[str]) -> dict[str, Any]:
    """The recorder's effective values against the ``server_args=`` line the launcher logs for the same
    argv, which it logs after check_server_args: the start-up steps change nothing it prints. Run by the
    target and in the environment ``check --gpu h100`` gives the recorder (:func:`check_resolver_env`)."""
    from argtrace.layers.log.pyrepr import parse_record

    target = layer.find_target("sglang", version, None)
    assert target is not None and target.env_path is not None
    env = check_resolver_env("h100")
    status, data, tail = layer.run_recorder(target, {"framework": "sglang", "argv": argv}, env)
    assert status == "ok" and data is not None and data["status"] == "ok", tail
    # 0.5.10.post1 has no parser auto-detection (resolve_auto_parsers), 0.5.23 runs it
    auto_parsers = "skipped" if version == "0.5.10.post1" else "ran"
    assert [s["status"] for s in data["steps"]] == ["ran", "ran", "ran", auto_parsers, "ran"]
    logged = parse_record(data["args_line"]).values
    final = data["final"]
    assert len(logged) > 300
    mismatched = {
        k: (v, final.get(k))
        for k, v in logged.items()
        if json.loads(json.dumps(v, default=str)) != final.get(k)
        and not (isinstance(final.get(k), dict) and "repr" in final[k])
    }
    assert mismatched == {}
    return data


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_cross_check_0_5_10_after_check_server_args_and_model_config() -> None:
    _cross_check(
        "0.5.10.post1",
        [
            "--model-path",
            str(QWEN),
            "--chunked-prefill-size",
            "2048",
            "--page-size",
            "64",
            "--mamba-scheduler-strategy",
            "extra_buffer",
        ],
    )


@pytest.mark.frameworks
@needs("sglang", "0.5.23")
def test_sglang_0_5_23_check_server_args_is_the_validation_hook() -> None:
    """From 0.5.19 ``check_server_args`` delegates to arg_groups/validation_hook.py; not in the bundled
    index at that line, its condition is read from the installed source."""
    report = check(
        "0.5.23",
        "python3 -m sglang.launch_server --model-path /m --chunked-prefill-size 1000 --page-size 64",
        "sglang",
        "h100",
    )
    res = report["resolution"]
    assert res["status"] == "raised"
    assert res["at"] == "sglang/srt/arg_groups/validation_hook.py:244"
    assert res["condition_fields"] == ["chunked_prefill_size", "disaggregation_mode", "page_size"]
    assert [(s["name"], s["status"]) for s in res["steps"]] == [
        ("resolve_once", "ran"),
        ("set_envs_and_config", "ran"),
        ("check_server_args", "raised"),
        ("resolve_auto_parsers", "not_reached"),
        ("model_config", "not_reached"),
    ]
    assert step(report, "check_server_args")["called_at"] == "sglang/srt/entrypoints/engine.py:1165"
    (rs001,) = [f for f in report["findings"] if f["code"] == "RS001"]  # one raise, one finding
    assert rs001["setting"] == "chunked_prefill_size"
    read = {e["text"].split(" = ")[0] for e in rs001["evidence"] if e["text"].startswith("reads ")}
    assert read == {"reads page_size", "reads disaggregation_mode"}
    ok = check(
        "0.5.23",
        "python3 -m sglang.launch_server --model-path /m --chunked-prefill-size 1024 --page-size 64",
        "sglang",
        "h100",
    )
    assert ok["resolution"]["status"] == "ok", ok["resolution"]
    assert [s["status"] for s in ok["resolution"]["steps"]] == ["ran", "ran", "ran", "ran", "ran"]
    assert step(ok, "model_config")["detail"]["context_len"] == 262144


@pytest.mark.frameworks
@needs("sglang", "0.5.23")
def test_sglang_auto_parser_detection_needs_the_tokenizer_files() -> None:
    report = check(
        "0.5.23", "python3 -m sglang.launch_server --model-path /m --tool-call-parser auto", "sglang", "h100"
    )
    assert report["resolution"]["status"] == "ok"
    auto = step(report, "resolve_auto_parsers")
    assert auto["status"] == "skipped"
    assert auto["reason"].startswith("--tool-call-parser auto loads the tokenizer, and ")
    assert auto["reason"].endswith(" holds no tokenizer files here")
    assert auto["called_at"] == "sglang/srt/entrypoints/engine.py:1169"


@pytest.mark.frameworks
@needs("sglang", "0.5.23")
def test_cross_check_0_5_23_after_check_server_args_and_model_config() -> None:
    _cross_check("0.5.23", ["--model-path", str(QWEN), "--chunked-prefill-size", "2048", "--page-size", "64"])


# ------------------------------------------------- the launcher's environment, vLLM serve checks


@pytest.mark.frameworks
@pytest.mark.parametrize(
    ("version", "line"),
    [
        pytest.param("0.5.10.post1", 1090, marks=needs("sglang", "0.5.10.post1")),
        pytest.param("0.5.23", 1905, marks=needs("sglang", "0.5.23")),
    ],
)
def test_sglang_set_envs_and_config_replaces_the_launchs_nccl_cumem_value(version: str, line: int) -> None:
    """``_set_envs_and_config`` writes NCCL_CUMEM_ENABLE from --enable-symm-mem even when the launch set it
    (srt/entrypoints/engine.py): the script's 0 never reaches the server's children."""
    command = "NCCL_CUMEM_ENABLE=0 python3 -m sglang.launch_server --model-path /m --enable-symm-mem"
    report = check(version, command, "sglang", "h100")
    res = report["resolution"]
    assert res["status"] == "ok", res
    envs_step = step(report, "set_envs_and_config")
    assert envs_step["status"] == "ran"
    assert envs_step["called_at"].startswith("sglang/srt/entrypoints/engine.py:")
    assert envs_step["detail"]["note"] == steps.SET_ENVS_NOTE
    assert {"CUDA_DEVICE_MAX_CONNECTIONS", "NCCL_NVLS_ENABLE", "SGLANG_RUN_ID"} <= set(
        envs_step["detail"]["sets"]
    )
    at = f"sglang/srt/entrypoints/engine.py:{line}"
    assert [w for w in res["env_writes"] if w["step"] == "set_envs_and_config"] == [
        {
            "name": "NCCL_CUMEM_ENABLE",
            "old": "0",
            "new": "1",
            "at": at,
            "by": "_set_envs_and_config",
            "step": "set_envs_and_config",
        }
    ]
    (replaced,) = [
        f for f in report["findings"] if f["code"] == "RS006" and f["setting"] == "NCCL_CUMEM_ENABLE"
    ]
    assert replaced["message"] == (
        f"NCCL_CUMEM_ENABLE: '0' -> '1' by _set_envs_and_config ({at}) in the start-up step "
        "set_envs_and_config; the value the launch set does not reach the server's children"
    )
    assert replaced["severity"] == "info"
    # without --enable-symm-mem the launcher keeps the launch's value: nothing replaced, nothing reported
    kept = check(version, command.replace(" --enable-symm-mem", ""), "sglang", "h100")
    assert [w for w in kept["resolution"]["env_writes"] if w["step"] == "set_envs_and_config"] == []
    assert not [f for f in kept["findings"] if f["code"] == "RS006" and f["setting"] == "NCCL_CUMEM_ENABLE"]


def test_vllm_parser_plugins_are_never_imported(tmp_path: Path) -> None:
    """The launcher imports a --tool-parser-plugin file before validate_api_server_args: user code, which
    argtrace never runs; the step is skipped with that reason."""

    class Namespace:
        tool_parser_plugin = str(tmp_path / "plugin.py")
        reasoning_parser_plugin = ""

    class Recorder:
        active = False
        step = None

    out: dict[str, Any] = {}
    steps.plan(out, steps.VLLM_STEPS)
    steps.vllm_serve_checks(Namespace(), Recorder(), out)
    by_name = {s["name"]: s for s in out["steps"]}
    assert by_name["validate_parsed_serve_args"]["status"] == "skipped"  # no vLLM importable here
    assert (by_name["validate_api_server_args"]["status"], by_name["validate_api_server_args"]["reason"]) == (
        "skipped",
        "--tool-parser-plugin names a plugin file the server imports first",
    )
