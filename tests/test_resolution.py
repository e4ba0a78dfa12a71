"""The resolution layer and `why`.

Tests marked ``frameworks`` run the real SGLang/vLLM resolution in resolver environments (CI builds them
with scripts/build_test_envs; they skip where an environment is missing). The model is the Qwen3.5/3.6-27B
hybrid config in tests/data/models/qwen3.6-27b (see the README there for its source).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers import resolution as layer
from argtrace.resolver import environments
from argtrace.resolver.raise_index import match_error, score
from tests.conftest import run_cli

MODEL = Path(__file__).resolve().parent / "data" / "models" / "qwen3.6-27b"
SEED_ERROR = (
    "Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix cache when using "
    "--mamba-scheduler-strategy no_buffer"
)
SG = (
    "python3 -m sglang.launch_server --model-path /workspace/models/Qwen3.6-27B --tp-size 1 "
    "--mem-fraction-static 0.80 --speculative-algorithm NEXTN --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
)
VL = (
    "vllm serve /workspace/models/Qwen3.6-27B --max-model-len 32768 "
    '--speculative-config \'{"method": "mtp", "num_speculative_tokens": 3}\''
)


def has_env(framework: str, version: str) -> bool:
    return environments.find_environment(framework, version) is not None


def needs(framework: str, version: str) -> Any:
    return pytest.mark.skipif(
        not has_env(framework, version),
        reason=f"no resolver environment for {framework}=={version} (argtrace resolver add)",
    )


@cache
def check(version: str, command: str, framework: str = "sglang") -> dict[str, Any]:
    return run_check(version, command, framework)


def run_check(version: str, command: str, framework: str = "sglang", *options: str) -> dict[str, Any]:
    """``check --format json`` of ``command``: the qwen3.6-27b config, an H100, resolved by ``version``."""
    argv = [
        "check",
        *options,
        "--format",
        "json",
        "--model-config",
        str(MODEL),
        "--gpu",
        "h100",
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


def setting(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["settings"] if s["name"] == name)


def resolution_history(report: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [h for h in setting(report, name)["history"] if h["layer"] == "resolution"]


# ------------------------------------------------------------------------------------------ pure parts


def test_why_finds_the_seed_raise_site() -> None:
    result = run_cli(["why", "--format", "json", SEED_ERROR])
    assert result.status == 0
    (first, *_) = result.json["why"]["matches"]
    assert first["framework"] == "sglang" and first["function"] == "ServerArgs._handle_mamba_radix_cache"
    # the message is in 0.5.10.post1-0.5.13.post1 (0.5.11 from its raise-site index, the others from the
    # message index), and in no other bundled release
    assert first["versions"] == [
        {"version": "0.5.10.post1", "at": "sglang/srt/server_args.py:2206"},
        {"version": "0.5.11", "at": "sglang/srt/server_args.py:2453"},
        {"version": "0.5.12.post1", "at": "sglang/srt/server_args.py:2568"},
        {"version": "0.5.13.post1", "at": "sglang/srt/server_args.py:2754"},
    ]
    assert {"0.5.9", "0.5.14", "0.5.15.post1", "0.5.19", "0.5.23"} <= set(first["absent_in"])
    names = [s["name"] for s in first["settings"]]
    assert names[0] == "mamba_scheduler_strategy"  # the flag the message names
    assert {"disable_radix_cache", "speculative_algorithm"} <= set(names)
    assert "extra_buffer" in first["fix"] and "--disable-radix-cache" in first["fix"]
    assert "not (self.speculative_algorithm is None)" in first["conditions"]


def test_why_with_a_prefix_and_a_version_filter() -> None:
    assert match_error("ValueError: " + SEED_ERROR, "sglang", "0.5.10.post1")
    assert not match_error(SEED_ERROR, "sglang", "0.5.23")
    assert not match_error("completely unrelated words that no framework says anywhere")


def test_placeholder_only_messages_never_match() -> None:
    assert score("anything at all here", {"message": "{msg}", "regex": "(.*?)"}) == 0.0


def test_gpu_default_is_h100_times_parallel_sizes() -> None:
    selection, assumed, need = layer.gpu_selection(None, {"tp_size": 4, "dp_size": 2})
    assert assumed and need == 8 and selection.spec == "h100x8"
    selection, assumed, need = layer.gpu_selection("rtx-pro-6000x4", {"tp_size": 1})
    assert not assumed and selection.count == 4 and selection.profile.name == "rtx-pro-6000"
    selection, _, _ = layer.gpu_selection("mi300x", {"tensor_parallel_size": 2})
    assert selection.profile.name == "mi300x" and selection.count == 2


def test_fewer_gpus_than_parallel_sizes_is_an_error() -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--gpu",
            "h100x2",
            "-c",
            "python3 -m sglang.launch_server --model-path /nonexistent/m --tp-size 4",
        ]
    )
    assert "RS005" in result.codes() and result.status == 1


def test_without_a_resolver_effective_stays_the_parsers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Never imitate the framework's rules: with no resolver environment, nothing is resolved."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "empty-cache"))
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--model-config",
            str(MODEL),
            "--framework-version",
            "0.5.10.post1",
            "-c",
            SG,
        ]
    )
    report = result.json
    assert report["resolution"]["status"] == "skipped"
    assert "no resolver environment" in report["resolution"]["reason"]
    assert "RS004" in result.codes()
    for s in report["settings"]:
        assert all(h["layer"] != "resolution" for h in s["history"]), s["name"]
    spec = setting(report, "speculative_algorithm")
    assert spec["effective"] == "NEXTN"  # the parser's value; NEXTN -> EAGLE is the framework's business


def test_a_crashing_resolver_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--python",
            "/bin/false",
            "--model-config",
            str(MODEL),
            "--framework-version",
            "0.5.10.post1",
            "-c",
            SG,
        ]
    )
    assert result.status in (0, 1)
    assert result.json["resolution"]["status"] == "crashed"
    assert "RS003" in result.codes()


def test_sglang_serve_positional_model_is_rewritten() -> None:
    from argtrace.model import EnvValue, Origin, ServerCommand, Word

    words = ["sglang", "serve", "/m", "--model-type", "llm", "--tp-size", "2"]
    server = ServerCommand(
        at=None,
        framework="sglang",
        argv=tuple(Word(w, Origin("x")) for w in words),
        env={"A": EnvValue("1", Origin(None))},
        server_args_start=2,
        entrypoint="sglang serve",
    )
    assert layer.server_argv(server, "sglang") == (["--model-path", "/m", "--tp-size", "2"], None)


# ------------------------------------------------------------------------- the real frameworks (CI)


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_sglang_0_5_10_seed_value_error_and_raise_site() -> None:
    report = check("0.5.10.post1", SG)
    res = report["resolution"]
    assert res["status"] == "raised"
    assert res["exception"]["type"] == "ValueError"
    assert res["exception"]["message"].startswith(SEED_ERROR)
    assert res["at"] == "sglang/srt/server_args.py:2206"
    assert res["function"] == "_handle_mamba_radix_cache"
    # one raise site, one finding (argtrace/causes.py): the other settings its condition read are evidence
    (strategy,) = [f for f in report["findings"] if f["code"] == "RS001"]
    assert (strategy["setting"], strategy["at"], strategy["severity"]) == (
        "mamba_scheduler_strategy",
        "sglang/srt/server_args.py:2206",
        "error",
    )
    reads = [e["text"] for e in strategy["evidence"] if e["text"].startswith("reads ")]
    assert reads == [
        "reads disable_radix_cache = False (the parser's default)",
        "reads speculative_algorithm = 'NEXTN' (from the command line)",
    ]
    assert "'no_buffer'" in strategy["message"] and "server_args.py:967" in strategy["message"]
    assert "extra_buffer" in strategy["fix"] and "--disable-radix-cache" in strategy["fix"]
    # auto -> no_buffer at its real file:line, and effective is the value at the moment of the raise
    (write,) = resolution_history(report, "mamba_scheduler_strategy")
    assert write["value"] == "no_buffer" and write["old"] == "auto"
    assert write["at"] == "sglang/srt/server_args.py:967"
    assert write["by"] == "ServerArgs._handle_missing_default_values"
    assert setting(report, "mamba_scheduler_strategy")["effective"] == "no_buffer"
    assert report["resolution"]["gpu"]["product"] == "NVIDIA H100 80GB HBM3"


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_sglang_0_5_10_extra_buffer_resolves_and_eagle_caps_running_requests() -> None:
    report = check("0.5.10.post1", SG + " --mamba-scheduler-strategy extra_buffer")
    assert report["resolution"]["status"] == "ok"
    assert "RS001" not in [f["code"] for f in report["findings"]]
    assert setting(report, "mamba_scheduler_strategy")["effective"] == "extra_buffer"
    mrr = resolution_history(report, "max_running_requests")
    assert mrr[-1]["value"] == 48 and mrr[-1]["at"] == "sglang/srt/server_args.py:2994"
    assert mrr[-1]["by"] == "ServerArgs._handle_speculative_decoding"
    assert "reset to 48" in mrr[-1]["log"]
    algo = resolution_history(report, "speculative_algorithm")
    assert algo[-1]["value"] == "EAGLE" and algo[-1]["old"] == "NEXTN"
    assert setting(report, "chunked_prefill_size")["effective"] == 8192  # the fake H100 is seen


@pytest.mark.frameworks
@needs("sglang", "0.5.10.post1")
def test_recorded_values_equal_the_launchers_server_args_line() -> None:
    """Cross-check: every field the recorder resolved equals what the framework's own
    ``server_args=ServerArgs(...)`` log line prints for the same argv. Run by the target and in the
    environment ``check --gpu h100`` gives the recorder, so the host the checks above started serves it."""
    from argtrace.layers.log.pyrepr import parse_record
    from tests.test_startup_steps import check_resolver_env

    target = layer.find_target("sglang", "0.5.10.post1", None)
    assert target is not None and target.env_path is not None
    env = check_resolver_env("h100")
    argv = [*SG.split()[3:], "--mamba-scheduler-strategy", "extra_buffer"]
    argv[argv.index("/workspace/models/Qwen3.6-27B")] = str(MODEL)
    status, data, tail = layer.run_recorder(target, {"framework": "sglang", "argv": argv}, env)
    assert status == "ok" and data is not None and data["status"] == "ok", tail
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


@pytest.mark.frameworks
@needs("sglang", "0.5.23")
def test_sglang_0_5_23_declarations_and_their_hooks() -> None:
    report = check("0.5.23", SG)
    assert report["resolution"]["status"] == "ok"
    assert report["resolution"]["mode"] == "pipeline"
    strategy = resolution_history(report, "mamba_radix_cache_strategy")
    assert strategy, "no declaration recorded for mamba_radix_cache_strategy"
    last = strategy[-1]
    assert last["value"] in ("no_buffer", "extra_buffer")
    assert last["source"] and last["at"].startswith("sglang/srt/arg_groups/")
    assert not last["at"].startswith("sglang/srt/arg_groups/overrides.py:13")  # the caller, not the stash
    mrr = resolution_history(report, "max_running_requests")
    assert mrr[-1]["value"] == 48 and mrr[-1]["at"].startswith("sglang/srt/arg_groups/speculative_hook.py:")
    # the flag 0.5.10 scripts use is gone in 0.5.23
    old = check("0.5.23", SG + " --mamba-scheduler-strategy extra_buffer")
    assert any(f["code"].startswith("PA") and f["severity"] == "error" for f in old["findings"])


@pytest.mark.frameworks
@needs("vllm", "0.33.0")
def test_vllm_0_33_mamba_cache_mode_and_max_num_seqs() -> None:
    report = check("0.33.0", VL, framework="vllm")
    assert report["resolution"]["status"] == "ok", report["resolution"]
    mode = resolution_history(report, "mamba_cache_mode")
    assert mode[-1]["value"] == "align" and mode[-1]["old"] == "none"
    assert mode[-1]["at"].startswith("vllm/")
    seqs = [h for h in resolution_history(report, "max_num_seqs") if not h.get("noop")]
    decided = next(h for h in seqs if h["old"] is None)
    assert decided["value"] == 1024
    assert decided["at"].startswith("vllm/engine/arg_utils.py:")
    assert decided["by"] == "EngineArgs._set_default_max_num_seqs_and_batched_tokens_args"
    assert setting(report, "max_num_seqs")["effective"] == 1024


def _fake_python(tmp_path: Path, body: str) -> str:
    script = tmp_path / "python"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return str(script)


def _server(command: str) -> Any:
    from argtrace.model import EnvValue, Origin, ServerCommand, Word

    words = command.split()
    return ServerCommand(
        at=None,
        framework="sglang",
        argv=tuple(Word(w, Origin("x")) for w in words),
        env={"PATH": EnvValue("/usr/bin:/bin", Origin(None))},
        server_args_start=3,
        entrypoint="sglang.launch_server",
    )


def test_a_hanging_resolver_times_out_with_a_finding(tmp_path: Path) -> None:
    python = _fake_python(tmp_path, "echo 'loading...' >&2; sleep 30")
    result = layer.resolve_server(
        _server(f"python3 -m sglang.launch_server --model-path {MODEL}"),
        "sglang",
        "0.5.10.post1",
        python=python,
        timeout=1.0,
    )
    assert result.sections["resolution"]["status"] == "timeout"
    (finding,) = [f for f in result.findings if f.code == "RS003"]
    assert "timed out" in finding.message


def test_a_resolver_printing_garbage_is_a_finding_with_its_tail(tmp_path: Path) -> None:
    python = _fake_python(tmp_path, "echo 'Segmentation fault (core dumped) \\x00\\x01garbage'; exit 0")
    result = layer.resolve_server(
        _server(f"python3 -m sglang.launch_server --model-path {MODEL}"),
        "sglang",
        "0.5.10.post1",
        python=python,
    )
    assert result.sections["resolution"]["status"] == "crashed"
    (finding,) = [f for f in result.findings if f.code == "RS003"]
    assert finding.evidence and "Segmentation fault" in finding.evidence[0].text
