"""Real log excerpts (tests/data/logs, first line names the source) through the log layer, exact values."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argtrace.layers.log import analyze_log
from argtrace.model import LayerResult

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"


def run(name: str, **kwargs: Any) -> LayerResult:
    return analyze_log(LOGS / name, name, **kwargs)


def codes(result: LayerResult) -> list[str]:
    return [f.code for f in result.findings]


def events(result: LayerResult) -> dict[str, dict[str, Any]]:
    return {ev["event"]: ev for ev in result.sections["timeline"]}


def launch(result: LayerResult, n: int = -1) -> dict[str, Any]:
    return result.sections["log"]["launches"][n]


def test_every_fixture_names_its_source() -> None:
    for path in sorted(LOGS.glob("*.log")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# source: "), path.name
        assert "github.com" in first or "code index" in first, path.name


def test_seed_error_without_args_line() -> None:
    r = run("sglang_pr25116_spec_no_buffer.log")
    assert codes(r) == ["LG004", "LG001"]
    lc = launch(r)
    assert lc["framework"] == "sglang"
    assert lc["state"] == "failed"
    assert lc["stage"] == "validation"
    assert lc["args_at"] is None
    assert lc["error"]["signature"] == "sglang-spec-mamba-no-buffer"
    assert lc["error"]["at"] == "sglang_pr25116_spec_no_buffer.log:2"
    f = r.findings[0]
    assert f.setting == "mamba_scheduler_strategy"
    assert f.launch == 1
    assert "It means mamba_scheduler_strategy was not 'extra_buffer' when checked." in f.message
    ((flag, obs),) = [r.observations["mamba_scheduler_strategy"]]
    assert flag == "--mamba-scheduler-strategy"
    assert (
        obs[0].known is False and obs[0].value is None and obs[0].detail["implies"] == {"not": "extra_buffer"}
    )


def test_seed_error_with_intent_says_the_value_did_not_arrive() -> None:
    r = run("sglang_pr25116_spec_no_buffer.log", intended={"mamba_scheduler_strategy": "extra_buffer"})
    assert codes(r) == ["LG004", "LG001", "LG002"]
    lg002 = r.findings[-1]
    assert lg002.setting == "mamba_scheduler_strategy"
    assert lg002.severity == "error"
    assert "is raised only when mamba_scheduler_strategy is not 'extra_buffer'" in lg002.message
    assert "the flag did not arrive" in lg002.message


def test_sglang_058_repr_startup_in_progress() -> None:
    r = run("sglang_0.5.8_glm5_rocm_repr.log")
    lc = launch(r)
    assert (lc["framework"], lc["args_format"], lc["settings_logged"]) == ("sglang", "sglang-repr", 327)
    assert lc["args_at"] == "sglang_0.5.8_glm5_rocm_repr.log:10"
    assert lc["started"] == "2026-02-26 05:19:58"
    assert lc["state"] == "incomplete" and lc["stopped_after"] == "args_logged"
    assert codes(r) == ["LG010"]
    obs = r.observations["mamba_scheduler_strategy"][1][0]
    assert (obs.value, obs.at, obs.by) == ("no_buffer", "sglang_0.5.8_glm5_rocm_repr.log:10", "server_args")
    assert r.sections["log"]["args"]["kv_cache_dtype"] == "fp8_e4m3"


def test_sglang_dict_timeline_with_draft_worker() -> None:
    r = run("sglang_0.5.2x_dsv41_dict.log")
    lc = launch(r)
    assert (lc["args_format"], lc["settings_logged"], lc["args_truncated"]) == ("sglang-dict", 495, False)
    ev = events(r)
    assert ev["weights_loaded"]["gib"] == 94.0 and ev["weights_loaded"]["type"] == "DeepseekV4ForCausalLM"
    assert (
        ev["draft_worker_ready"]["gib"] == 2.8
        and ev["draft_worker_ready"]["type"] == "DeepseekV4ForCausalLMDSpark"
    )
    assert ev["memory_pool_end"]["avail_gib"] == 9.9
    assert ev["cuda_graph_captured"] == {
        "launch": 1,
        "event": "cuda_graph_captured",
        "at": "sglang_0.5.2x_dsv41_dict.log:20",
        "time": "2026-09-11 23:46:44",
        "seconds": 13.48,
        "gib": 0.58,
    }
    assert ev["kv_cache_allocated"]["tokens"] == 2999808 and ev["kv_cache_allocated"]["slots"] == 4
    assert "server_ready" not in ev
    assert codes(r) == ["LG010"]
    # the dump's own redaction placeholder stays as it is
    assert r.sections["log"]["args"]["api_key"] == "[REDACTED]"


def test_sglang_04_truncated_dump() -> None:
    r = run("sglang_0.4.4_pr4848_truncated_repr.log")
    lc = launch(r)
    assert lc["args_truncated"] is True and lc["settings_logged"] == 45
    assert codes(r) == ["LG010", "LG010"]
    assert "cut short: 45 setting(s) read, the last complete one decode_log_interval" in r.findings[0].message


def test_sglang_timeline_kv_and_graph() -> None:
    r = run("sglang_0.5.4_issue12726_timeline.log")
    ev = events(r)
    assert ev["kv_cache_allocated"]["tokens"] == 421472
    assert ev["kv_cache_allocated"]["gib"] == 57.88
    assert ev["kv_cache_allocated"]["slots"] == 48
    assert ev["cuda_graph_captured"]["seconds"] == 2.89 and ev["cuda_graph_captured"]["gib"] == 0.61
    assert launch(r)["stopped_after"] == "cuda_graph_captured"
    assert codes(r) == ["LG010", "LG010"]  # begins mid-start-up, ends before server_ready


def test_warmup_failure_then_killed() -> None:
    r = run("sglang_0.4_issue2468_warmup_killed.log")
    assert codes(r) == ["LG007", "LG003", "LG010"]
    assert [f.message.split("]")[0] + "]" for f in r.findings[:2]] == [
        "[sglang-warmup-failed]",
        "[host-oom-killed]",
    ]
    lc = launch(r)
    assert lc["state"] == "failed" and lc["stopped_after"] == "server_ready"
    assert events(r)["kv_cache_allocated"]["slots"] == 2049


def test_argparse_unrecognized() -> None:
    r = run("sglang_issue4116_unrecognized.log")
    assert codes(r) == ["LG005", "LG001"]
    assert launch(r)["stage"] == "arguments"
    assert "--enable-reasoning" in r.findings[0].message


def test_nccl_failure_stage() -> None:
    r = run("sglang_issue4289_nccl.log")
    assert codes(r) == ["LG007", "LG010"]
    assert launch(r)["error"]["signature"] == "nccl-error"
    assert launch(r)["error"]["at"] == "sglang_issue4289_nccl.log:9"


def test_cuda_graph_oom_is_placed_by_its_frames() -> None:
    r = run("sglang_issue5285_cuda_graph_oom.log")
    assert launch(r)["error"]["signature"] == "cuda-oom-cuda-graph"
    assert launch(r)["stage"] == "cuda_graph"
    assert codes(r) == ["LG003", "LG010"]


def test_negative_profiled_tokens_across_ranks() -> None:
    r = run("sglang_issue7691_negative_tokens.log")
    f = r.findings[0]
    assert f.code == "LG003" and f.setting == "mem_fraction_static"
    assert "(x3)" in f.message and "profiled=-561981" in f.message
    assert events(r)["weights_loaded"]["gib"] == 166.59


def test_vllm_020_ready_with_args_and_engine_config() -> None:
    r = run("vllm_0.20_qwen36_mtp.log")
    log = r.sections["log"]
    assert (log["framework"], log["version"]) == ("vllm", "0.20.0")
    lc = launch(r)
    assert lc["state"] == "ready" and lc["pids"] == [1]
    ev = events(r)
    assert ev["weights_loaded"]["gib"] == 17.62
    assert ev["kv_cache_allocated"]["gib"] == 6.67 and ev["kv_cache_allocated"]["tokens"] == 53312
    assert ev["memory_pool_end"]["seconds"] == 57.05
    assert ev["server_ready"]["at"] == "vllm_0.20_qwen36_mtp.log:30"
    assert ev["model_config"]["architecture"] == "Qwen3_5ForConditionalGeneration"
    assert codes(r) == ["LG006", "LG008"]
    assert [f.severity for f in r.findings] == ["warning", "info"]
    # user input first, then the engine's effective config (max_seq_len is max_model_len)
    history = r.observations["max_model_len"][1]
    assert [(o.by, o.value) for o in history] == [("non-default args", 32768), ("engine config", 32768)]
    assert [(o.by, o.value) for o in r.observations["quantization"][1]] == [
        ("non-default args", "compressed-tensors"),
        ("engine config", "modelopt_fp4"),
    ]


def test_vllm_engine_error_without_args_in_excerpt() -> None:
    r = run("vllm_issue25837_free_memory.log")
    assert codes(r) == ["LG003", "LG010"]
    f = r.findings[0]
    assert f.setting == "gpu_memory_utilization"
    assert "gpu_memory_utilization=0.9" in f.message


def test_vllm_unknown_env() -> None:
    r = run("vllm_0.22_gpustack5556_unknown_env.log")
    assert codes(r) == ["LG006"]
    assert "name=VLLM_USE_V1" in r.findings[0].message


def test_vllm_05_engine_config_without_api_server() -> None:
    r = run("vllm_0.5_issue2140_old_config.log", intended={"max_model_len": 32768, "load_format": "auto"})
    log = r.sections["log"]
    assert (log["framework"], log["version"]) == ("vllm", "0.5.0.post1")
    # the engine's curated line: max_seq_len is max_model_len, LoadFormat.AUTO compares equal to "auto"
    assert [f.code for f in r.findings if f.code in ("LG002", "LG013")] == []
    assert log["args"]["load_format"] == "LoadFormat.AUTO"
    assert log["args"]["decoding_config"] == {
        "__class__": "DecodingConfig",
        "guided_decoding_backend": "outlines",
    }
    ev = events(r)
    assert ev["weights_loaded"]["gib"] == 13.4966
    assert ev["model_config"]["source"] == "engine config"
