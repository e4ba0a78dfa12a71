"""Append-mode logs: launches split, selected, timed; intent diffs and staleness."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from argtrace.layers.log import analyze_log
from argtrace.model import UsageError

PRE_ARGS_TB = (
    "Traceback (most recent call last):\n"
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/launch_server.py", line 11, in <module>\n'
    "    server_args = prepare_server_args(sys.argv[1:])\n"
    '  File "/opt/venv/lib/python3.12/site-packages/sglang/srt/server_args.py", line 722, in __post_init__\n'
    "    self._handle_mamba_radix_cache(model_arch)\n"
    "ValueError: Speculative decoding for Qwen3_5ForConditionalGeneration is not compatible with radix cache "
    "when using --mamba-scheduler-strategy no_buffer. To use radix cache with speculative decoding, "
    "please use "
    "--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1.\n"
)
USAGE = (
    "usage: launch_server.py [-h] --model-path MODEL_PATH [--port PORT]\n"
    "launch_server.py: error: argument --port: expected one argument\n"
)


def args_line(ts: str, strategy: str = "extra_buffer", port: int = 30000, mfs: float = 0.8) -> str:
    return (
        f"[{ts}] server_args=ServerArgs(model_path='/models/Qwen3.6-27B', tp_size=1, "
        f"mem_fraction_static={mfs}, "
        f"max_running_requests=48, mamba_scheduler_strategy='{strategy}', speculative_algorithm='EAGLE', "
        f"port={port}, api_key=None)\n"
    )


KV_OOM = (
    "[2026-11-29 20:10:40 TP0] Load weight end. type=Qwen3_5ForConditionalGeneration, dtype=torch.bfloat16, "
    "avail mem=3.10 GB, mem usage=52.12 GB.\n"
    "[2026-11-29 20:10:41 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl/srt/managers/scheduler.py", line 2009, in run_scheduler_process\n'
    '  File "/sgl/srt/model_executor/model_runner.py", line 1800, in init_memory_pool\n'
    "    raise RuntimeError(\n"
    "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n"
)
READY = (
    "[2026-11-29 21:14:40 TP0] Load weight end. type=Qwen3_5ForConditionalGeneration, dtype=torch.bfloat16, "
    "avail mem=41.10 GB, mem usage=52.12 GB.\n"
    "[2026-11-29 21:14:41 TP0] Mamba Cache is allocated. max_mamba_cache_size: 96, conv_state size: 0.37 GB, "
    "ssm_state size: 11.25 GB\n"
    "[2026-11-29 21:14:42 TP0] KV Cache is allocated. #tokens: 412160, K size: 9.43 GB, V size: 9.43 GB\n"
    "[2026-11-29 21:14:42 TP0] Memory pool end. avail mem=20.01 GB\n"
    "[2026-11-29 21:15:02 TP0] Capture cuda graph end. Time elapsed: 19.80 s. mem usage=1.21 GB. "
    "avail mem=18.80 GB.\n"
    "[2026-11-29 21:15:03 TP0] Load weight end. type=Qwen3_5MTP, dtype=torch.bfloat16, avail mem=17.9 GB, "
    "mem usage=0.90 GB.\n"
    "[2026-11-29 21:15:04 TP0] max_total_num_tokens=412160, chunked_prefill_size=8192, "
    "max_prefill_tokens=16384, "
    "max_running_requests=48, context_len=262144, available_gpu_mem=17.9 GB\n"
    "[2026-11-29 21:15:06] The server is fired up and ready to roll!\n"
)
DECODE = (
    "[2026-11-29 21:16:20 TP0] Decode batch. #running-req: 12, #token: 21020, token usage: 0.51, "
    "cuda graph: True, "
    "gen throughput (token/s): 93.51, #queue-req: 0\n"
)


@pytest.fixture()
def append_log(tmp_path: Path) -> Path:
    path = tmp_path / "sglang_mtp.log"
    path.write_text(
        PRE_ARGS_TB
        + USAGE
        + args_line("2026-11-29 20:10:02", strategy="no_buffer")
        + KV_OOM
        + args_line("2026-11-29 21:14:02")
        + READY
        + DECODE * 50
    )
    os.utime(path, (datetime(2026, 11, 29, 21, 30).timestamp(),) * 2)
    return path


def test_launches_are_split(append_log: Path) -> None:
    r = analyze_log(append_log, "LOG", launch="all")
    launches = r.sections["log"]["launches"]
    assert [lc["lines"] for lc in launches] == [[1, 6], [7, 8], [9, 15], [16, 24]]
    assert [lc["state"] for lc in launches] == ["failed", "failed", "failed", "ready"]
    assert [lc["stage"] for lc in launches] == ["validation", "arguments", "kv_cache", None]
    assert [(lc["error"] or {}).get("signature") for lc in launches] == [
        "sglang-spec-mamba-no-buffer",
        "argparse-expected-one-argument",
        "sglang-not-enough-memory",
        None,
    ]
    assert [lc["started"] for lc in launches] == [None, None, "2026-11-29 20:10:02", "2026-11-29 21:14:02"]
    by_launch = sorted({(f.launch, f.code) for f in r.findings})
    assert by_launch == [(1, "LG001"), (1, "LG004"), (2, "LG001"), (2, "LG005"), (3, "LG003")]


def test_last_launch_by_default(append_log: Path) -> None:
    r = analyze_log(append_log, "LOG")
    assert r.sections["log"]["selected"] == [4]
    assert r.findings == []
    ev = {e["event"]: e for e in r.sections["timeline"]}
    assert list(ev) == [
        "args_logged",
        "weights_loaded",
        "mamba_cache_allocated",
        "kv_cache_allocated",
        "memory_pool_end",
        "cuda_graph_captured",
        "draft_worker_ready",
        "server_ready",
    ]
    assert ev["mamba_cache_allocated"]["slots"] == 96 and ev["mamba_cache_allocated"]["gib"] == 11.62
    assert ev["kv_cache_allocated"]["tokens"] == 412160 and ev["kv_cache_allocated"]["gib"] == 18.86
    assert ev["kv_cache_allocated"]["slots"] == 48
    assert ev["draft_worker_ready"]["type"] == "Qwen3_5MTP"
    obs = r.observations["mamba_scheduler_strategy"][1]
    assert [(o.value, o.at) for o in obs] == [("extra_buffer", "LOG:16")]


def test_select_one_launch_and_bad_selection(append_log: Path) -> None:
    r = analyze_log(append_log, "LOG", launch=3)
    assert r.sections["log"]["selected"] == [3]
    assert [f.code for f in r.findings] == ["LG003"]
    assert r.observations["mamba_scheduler_strategy"][1][0].value == "no_buffer"
    assert analyze_log(append_log, "LOG", launch=-1).sections["log"]["selected"] == [4]
    with pytest.raises(UsageError):
        analyze_log(append_log, "LOG", launch=9)
    with pytest.raises(UsageError):
        analyze_log(append_log, "LOG", launch="first")


def test_intent_mismatch_in_this_launch(append_log: Path) -> None:
    r = analyze_log(
        append_log, "LOG", launch=3, intended={"mamba_scheduler_strategy": "extra_buffer", "tp_size": "1"}
    )
    lg002 = [f for f in r.findings if f.code == "LG002"]
    assert len(lg002) == 1
    assert lg002[0].setting == "mamba_scheduler_strategy" and lg002[0].at == "LOG:9"
    assert (
        "intended 'extra_buffer', the server logged 'no_buffer' (server_args, launch 3)" in lg002[0].message
    )
    assert (
        "the flag did not arrive (shell/parser layers: `argtrace check --log LOG SCRIPT`) or the framework"
        in lg002[0].message
    )


def test_many_mismatches_point_to_another_launch(append_log: Path) -> None:
    intended = {
        "mamba_scheduler_strategy": "extra_buffer",
        "port": "8000",
        "mem_fraction_static": "0.7",
        "max_running_requests": "16",
        "tp_size": "4",
    }
    r = analyze_log(append_log, "LOG", intended=intended)
    lg002 = {f.setting: f.message for f in r.findings if f.code == "LG002"}
    assert sorted(lg002) == ["max_running_requests", "mem_fraction_static", "port", "tp_size"]
    assert "points to another launch: 3 other settings differ too" in lg002["port"]


def test_absent_setting(append_log: Path) -> None:
    r = analyze_log(
        append_log, "LOG", intended={"mamba_radix_cache_strategy": "extra_buffer", "nonexistent_flag": 1}
    )
    # mamba_radix_cache_strategy is the 0.5.15+ name of mamba_scheduler_strategy: found through the alias
    assert [(f.code, f.setting) for f in r.findings] == [("LG013", "nonexistent_flag")]


def test_stale_log(append_log: Path) -> None:
    r = analyze_log(append_log, "LOG", launched_after=datetime(2026, 11, 30, 8, 0))
    assert [f.code for f in r.findings] == ["LG009"]
    assert (
        "started at 2026-11-29 21:14:02, before --launched-after (2026-11-30 08:00:00)"
        in r.findings[0].message
    )
    r = analyze_log(append_log, "LOG", launch=3, launched_after=datetime(2026, 11, 29, 21, 0))
    stale = [f for f in r.findings if f.code == "LG009"]
    assert "The error it holds (line 15) is from that earlier run, not from yours." in stale[0].message
    assert analyze_log(append_log, "LOG", launched_after=datetime(2026, 11, 29, 21, 0)).findings == []


def test_stale_by_file_time_without_timestamps(tmp_path: Path) -> None:
    path = tmp_path / "only-error.log"
    path.write_text(PRE_ARGS_TB)
    os.utime(path, (datetime(2026, 11, 29, 7, 0).timestamp(),) * 2)
    r = analyze_log(path, "LOG", launched_after=datetime(2026, 11, 30, 8, 0))
    assert [f.code for f in r.findings] == ["LG004", "LG001", "LG009"]
    assert "was last written at 2026-11-29 07:00:00" in r.findings[-1].message


def test_vllm_year_from_file_time(tmp_path: Path) -> None:
    path = tmp_path / "vllm.log"
    path.write_text(
        "(APIServer pid=7) INFO 12-31 23:59:50 [utils.py:233] non-default args: {'model': 'm', "
        "'max_num_seqs': 8}\n"
        "(APIServer pid=7) INFO 01-01 00:00:30 [launcher.py:46] Route: /v1/models, Methods: GET\n"
        "(APIServer pid=7) INFO:     Application startup complete.\n"
    )
    os.utime(path, (datetime(2027, 1, 1, 0, 1).timestamp(),) * 2)
    r = analyze_log(path, "LOG")
    lc = r.sections["log"]["launches"][0]
    # 12-31 cannot be later than the file's time: it belongs to the year before
    assert lc["started"] == "2026-12-31 23:59:50"
    assert lc["pids"] == [7] and lc["state"] == "ready"


def test_vllm_absent_setting_means_default_or_lost(tmp_path: Path) -> None:
    path = tmp_path / "vllm.log"
    path.write_text(
        "(APIServer pid=7) INFO 05-01 17:08:06 [utils.py:233] non-default args: {'model': 'm', "
        "'max_num_seqs': 8}\n"
    )
    r = analyze_log(path, "LOG", intended={"max_num_seqs": 8, "enable_prefix_caching": "false"})
    lg013 = [f for f in r.findings if f.code == "LG013"]
    assert [f.setting for f in lg013] == ["enable_prefix_caching"]
    assert "vLLM lists only non-default values" in lg013[0].message


def test_chained_traceback_stays_one_launch(tmp_path: Path) -> None:
    path = tmp_path / "chain.log"
    path.write_text(
        "Traceback (most recent call last):\n"
        '  File "/t/configuration_auto.py", line 1360, in from_pretrained\n'
        "KeyError: 'glm_moe_dsa'\n"
        "\n"
        "During handling of the above exception, another exception occurred:\n"
        "\n"
        "Traceback (most recent call last):\n"
        '  File "/sgl/launch_server.py", line 32, in <module>\n'
        "    server_args = prepare_server_args(sys.argv[1:])\n"
        '  File "/sgl/srt/server_args.py", line 5082, in use_mla_backend\n'
        '  File "/sgl/srt/configs/model_config.py", line 127, in __init__\n'
        "ValueError: The checkpoint you are trying to load has model type `glm_moe_dsa` but "
        "Transformers does not "
        "recognize this architecture.\n"
    )
    r = analyze_log(path, "LOG", launch="all")
    assert r.sections["log"]["launch_count"] == 1
    lc = r.sections["log"]["launches"][0]
    assert lc["error"]["signature"] == "transformers-unknown-architecture"
    assert lc["stage"] == "model_config"


def test_pid_of_running_server_differs(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    path.write_text(
        args_line("2026-11-29 21:14:02") + "[2026-11-29 21:15:05] INFO:     Started server process [4242]\n"
    )
    r = analyze_log(path, "LOG", intended={"port": 8000}, pid=777)
    assert r.sections["log"]["launches"][0]["pids"] == [4242]
    (f,) = [f for f in r.findings if f.code == "LG002"]
    assert "the running server is PID 777, this launch logged PID 4242" in f.message


def test_vllm_append_mode_two_launches(tmp_path: Path) -> None:
    banner = (
        "(APIServer pid={pid}) INFO 05-01 17:08:06 [utils.py:299]  ▄▄ ▄█ █     █     █ ▀▄▀ █  "
        "version 0.20.0\n"
    )
    args = (
        "(APIServer pid={pid}) INFO 05-01 {hms} [utils.py:233] non-default args: "
        "{{'model': 'Qwen/Qwen3-8B', 'gpu_memory_utilization': {util}, 'max_num_seqs': 8}}\n"
    )
    fail = (
        "(EngineCore_DP0 pid=90) ERROR 05-01 17:08:30 [core.py:718] ValueError: Free memory on device "
        "(3.22/4.0 GiB) on startup is less than desired GPU memory utilization (0.9, 3.6 GiB). Decrease GPU "
        "memory utilization or reduce GPU memory used by other processes.\n"
    )
    ready = "(APIServer pid={pid}) INFO:     Application startup complete.\n"
    path = tmp_path / "vllm.log"
    path.write_text(
        banner.format(pid=1)
        + args.format(pid=1, hms="17:08:06", util=0.9)
        + fail
        + banner.format(pid=2)
        + args.format(pid=2, hms="17:20:00", util=0.7)
        + ready.format(pid=2)
    )
    os.utime(path, (datetime(2026, 5, 1, 18, 0).timestamp(),) * 2)
    r = analyze_log(path, "LOG", launch="all", intended={"gpu_memory_utilization": 0.7})
    launches = r.sections["log"]["launches"]
    assert [(lc["lines"], lc["state"], lc["pids"], lc["started"]) for lc in launches] == [
        ([1, 3], "failed", [1], "2026-05-01 17:08:06"),
        ([4, 6], "ready", [2], "2026-05-01 17:08:06"),
    ]
    assert sorted((f.launch, f.code) for f in r.findings) == [(1, "LG002"), (1, "LG003")]


def test_unknown_error_names_its_settings(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    path.write_text(
        args_line("2026-11-29 21:14:02")
        + "Traceback (most recent call last):\n"
        + '  File "/sgl/srt/managers/scheduler.py", line 10, in run_scheduler_process\n'
        + "AssertionError: --page-size must be 1 when max_running_requests is set this way\n"
    )
    r = analyze_log(path, "LOG")
    (f,) = [f for f in r.findings if f.code == "LG011"]
    assert f.setting == "page_size"
    assert f.message.endswith("Settings named in the error: page_size, max_running_requests.")


def test_only_limits_observations(append_log: Path) -> None:
    r = analyze_log(append_log, "LOG", only={"port"})
    assert list(r.observations) == ["port"]
    assert len(r.sections["log"]["args"]) == 8


def test_crash_loop_keeps_the_output_bounded(tmp_path: Path) -> None:
    path = tmp_path / "loop.log"
    path.write_text((USAGE) * 300)
    r = analyze_log(path, "LOG", launch=1)
    log = r.sections["log"]
    assert log["launch_count"] == 300
    assert [lc["launch"] for lc in log["launches"]][:2] == [1, 201]
    assert len(log["launches"]) == 101


def test_max_running_requests_capped_by_mamba_cache(tmp_path: Path) -> None:
    path = tmp_path / "s.log"
    path.write_text(
        args_line("2026-11-29 21:14:02").replace(
            "max_running_requests=48", "max_running_requests=48, max_mamba_cache_size=64"
        )
        + READY.replace("max_running_requests=48, context_len", "max_running_requests=16, context_len")
    )
    r = analyze_log(path, "LOG")
    (f,) = [f for f in r.findings if f.code == "LG008"]
    assert f.setting == "max_running_requests" and f.at == "LOG:8"
    assert "asks for max_running_requests=48 (line 1) but the scheduler runs with 16 (line 8)" in f.message
    assert "holds 64 slots, 4 slot(s) per request" in f.message
