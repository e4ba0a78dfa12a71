"""Real server logs, 4th batch (docs/real_cases.md, "Logs, 4th batch"): 12 failed launches and 2 working ones.

Each file under ``tests/data/logs_4/`` is a log quoted in a public report (2025-2026; vLLM 0.8-0.2x and its
2026 main, SGLang 0.4-0.5), saved as the stored copy of the report gives it: its first line names the URL
and what the copy cut. ``ok/`` holds two working launches. The command is ``argtrace log FILE --format
json`` on a new user's machine. Measured on this batch's base before any change (``before``), then after.

Classes as in the other batches: ``a`` the root cause and the right setting or change among the errors and
warnings, ``b`` named but only as a note or without a change, ``c`` not named, ``d`` a wrong error or
warning or a wrong claim (release, launch split, stage, hang). ``CASES`` holds what each gives now,
exactly; every case not ``a`` has a strict ``xfail`` naming the mechanism it lacks. The mechanisms this
batch added have variants on minimal inputs below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.prefix import split_prefix
from tests.batches import LogCase, assert_what_the_log_gives, not_class_a, recorded_log_report
from tests.conftest import (
    alarms,
    assert_working_launch,
    class_counts,
    last_launch,
    log_files,
    log_report,
    names_the_cause_and_the_change,
    written_log,
)
from tests.log.test_fast_equals_slow import _answers

LOGS = Path(__file__).resolve().parent / "data" / "logs_4"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
# logs18: a copy that stops inside a traceback (LG010 "stops inside a traceback")
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
EXCERPT = "begins mid-start-up"
WATCHDOG_FIX = (
    "Give argtrace the server's whole log (every node's, for a multi-node launch); rerun with "
    "NCCL_DEBUG=INFO to see the collective that hung."
)
ALL_REDUCE_FIX = (
    "Relaunch with --disable-custom-all-reduce (NCCL then does the all-reduce); --enforce-eager (SGLang: "
    "--disable-cuda-graph) confirms a failure inside the capture"
)
STORE_FIX = (
    "Find the processes that never joined (their own error comes earlier, or on their node); start every "
    "node with the same parallel sizes, and check that each reaches the master address and port (firewall, "
    "GLOO_SOCKET_IFNAME/NCCL_SOCKET_IFNAME)"
)
READ_FROM_START = (
    "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
    "journal; or relaunch with the log kept whole."
)


CASES = [
    LogCase(
        "vllm56180_custom_all_reduce_after_capture.log",
        "c",
        "a",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "[custom-all-reduce-cuda-failed] A CUDA call of the custom all-reduce kernel failed",
        ALL_REDUCE_FIX,
        cause="custom all-reduce",
        change="--disable-custom-all-reduce",
    ),
    LogCase(
        "vllm49101_custom_all_reduce_shm_wait.log",
        "c",
        "a",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "Logged cuda_error=invalid argument. Line (x2): Failed: Cuda error "
        "/workspace/csrc/custom_all_reduce.cuh:455 'invalid argument'",
        ALL_REDUCE_FIX,
        cause="custom all-reduce",
        change="--disable-custom-all-reduce",
    ),
    LogCase(
        "vllm16334_dp_embed_store_timeout.log",
        "b",
        "b",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "distributed",
        "[torch-store-clients-timeout] torch.distributed's TCP store, on the rank that hosts it, waited for "
        "every process of the group and only some joined",
        STORE_FIX,
        cause="data parallel",
        change="--task",
        missing="DP with a pooling model (--task embed) is a vLLM bug of that release; the store's timeout "
        "is named, with a generic change",
    ),
    LogCase(
        "vllm24036_v0_dp_clients_timeout.log",
        "c",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        "stops inside a traceback (from line 3)",
        CUT_TB_FIX,
        cause="waiting for clients",
        change="VLLM_USE_V1",
        missing="the store's timeout line holds no anchor (vLLM's ERROR is upper case, `rror` does not match "
        "it) and its traceback is cut before the exception line; the matcher's patterns are full",
    ),
    LogCase(
        "vllm16514_compose_gloo_timeout.log",
        "d",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "unknown",
        EXCERPT,
        READ_FROM_START,
        cause="gloo",
        change="--",
        missing="the root cause is in the stack trace above the copy ('See stack trace above'); was LG012 "
        "warning 'none from a server' (a compose container_name prefix)",
    ),
    LogCase(
        "sglang3932_two_nodes_nccl_watchdog.log",
        "d",
        "b",
        (("LG012", "info"),),
        None,
        "incomplete",
        "validation",
        "line(s) of torch.distributed's NCCL watchdog from rank(s) 3 and none of the server's own",
        WATCHDOG_FIX,
        cause="NCCL",
        change="--",
        missing="the first rank's error is not in the copy (node 0's watchdog lines only); was LG012 warning "
        "'none from a server'",
    ),
    LogCase(
        "sglang3424_r1_watchdog_allgather.log",
        "d",
        "b",
        (("LG012", "info"),),
        None,
        "incomplete",
        "validation",
        "(`Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1522789, OpType=_ALLGATHER_BASE",
        WATCHDOG_FIX,
        cause="NCCL",
        change="--",
        missing="an occasional all-gather timeout while serving: no setting in the copy; was LG012 warning",
    ),
    LogCase(
        "vllm31940_dp0_determine_memory_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2)",
        CUT_TB_FIX,
        cause="memory",
        change="--gpu-memory-utilization",
        missing="the exception is not in the copy (cut inside determine_available_memory's frames)",
    ),
    LogCase(
        "vllm26565_dp0_sampler_after_load.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2)",
        CUT_TB_FIX,
        cause="sampler",
        change="--",
        missing="the exception is not in the copy (cut inside determine_available_memory's frames)",
    ),
    LogCase(
        "vllm37350_placeholder_block_size_pathsrc.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 4)",
        CUT_TB_FIX,
        cause="placeholder_block_size",
        change="--",
        missing="the NameError (a vLLM bug of that build) is not in the copy",
    ),
    LogCase(
        "vllm19670_worker_socket_timeout.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 3)",
        CUT_TB_FIX,
        cause="socket",
        change="--",
        missing="the DistNetworkError is only in the issue's title, not in the copy",
    ),
    LogCase(
        "vllm44411_worker_init_otel_frames.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2)",
        CUT_TB_FIX,
        cause="Error",
        change="--",
        missing="the exception is not in the copy (cut inside the worker's construction)",
    ),
]
OK_LOGS = {
    "sglang_pr27537_musa_tp2_capture.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
    "vllm_pr44106_server_routes.log": ((INFO10,), "ready", None),
}


def test_the_batch() -> None:
    assert len(CASES) == 12
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 1, 8, 3], [2, 3, 7, 0])


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case)
    # no "none from a server" warning: every file here is a server's
    assert not any(f["code"] == "LG012" and f["severity"] == "warning" for f in report["findings"])


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    assert_working_launch(recorded_log_report(LOGS / "ok" / name), OK_LOGS[name])


# --- variants of the mechanisms, on minimal inputs -------------------------------------------------------


def test_a_compose_container_name_is_a_prefix() -> None:
    line = (
        "vllm-qwen-72b-instruct  | (VllmWorker rank=0 pid=225) ERROR 04-11 13:45:00 [parallel_state.py:1158] "
        "Error ignored"
    )
    parsed = split_prefix(line)
    assert (parsed.proc, parsed.pid, parsed.src, parsed.body) == (
        "VllmWorker",
        225,
        "parallel_state.py:1158",
        "Error ignored",
    )
    assert split_prefix("qwen3-1  | INFO 05-01 10:00:00 [api_server.py:1] x").body == "x"
    # a progress bar's "| 1/7" and a table's "a | b" are a line's own text
    bar = "Loading safetensors checkpoint shards: 100% Completed | 1/1 [00:01<00:00,  1.94s/it]"
    assert split_prefix(bar).body == bar
    assert split_prefix("a | b").body == "a | b"


def test_torch_nccl_watchdog_lines_are_a_servers_not_another_programs(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "[rank1]:[E1123 00:52:57.664949121 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught collective "
            "operation timeout: WorkNCCL(SeqNum=1516, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
            "Timeout(ms)=600000) ran for 600017 milliseconds before timing out.\n",
        )
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG012", "info")]
    assert "from rank(s) 1 and none of the server's own" in report["findings"][0]["message"]
    assert report["findings"][0]["fix"] == WATCHDOG_FIX


def test_a_custom_all_reduce_failure_is_past_validation_and_names_its_switch(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path, "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:368 'invalid argument'\n"
        )
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG007", "error"), INFO10]
    assert report["findings"][0]["fix"] == ALL_REDUCE_FIX
    assert "(during a step this excerpt does not show)" in report["findings"][0]["message"]
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("failed", "unknown")


def test_vllms_starting_server_line_of_2026_is_ready(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "(APIServer pid=1) INFO 06-02 00:52:40 [api_server.py:584] Starting vLLM server on "
            "http://0.0.0.0:8000\n",
        )
    )
    assert alarms(report) == []
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("ready", None)


@pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")
@pytest.mark.parametrize("name", sorted(str(p.relative_to(LOGS)) for p in LOGS.rglob("*.log")))
def test_every_path_reads_these_logs_alike(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the matcher, GNU grep and the pure Python scan (each forced whatever the file's size) give one report
    path = tmp_path / "copy.log"
    path.write_bytes((LOGS / name).read_bytes())
    answers = _answers(path, monkeypatch)
    slow = answers.pop("python")
    assert answers
    for fast_path, report in answers.items():
        assert report == slow, fast_path
