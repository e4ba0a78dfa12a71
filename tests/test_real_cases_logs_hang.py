"""Real logs of launches that hang, and of pastes that merely end early (docs/real_cases.md, "Logs of hangs").

Each file under ``tests/data/real_logs_hang/`` is a log quoted in a public issue where the report says the
launch hangs, is stuck or makes no progress, saved as the stored copy of the report gives it (its first line
names the URL and what the copy cut; nothing is added). ``ok/`` holds logs that end early without a hang: a
running server's serving lines, and a working launch whose paste stops after the graph capture. The machine
is a new user's; the command is ``argtrace log FILE --format json``.

Classes as in the other batches: ``a`` the step named with a correct fix among the errors and warnings, ``b``
found only as ``info`` (or with a wrong reason), ``c`` missed, ``d`` a wrong error or warning. Every hang here
is an excerpt (none holds its launch's configuration line), so it may as well be cut at its end by whoever
copied it: the step is named as a note (b), and the ``a`` test stays a strict ``xfail``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.log.hang import STEP_ORDER, begun_at_tail, waiting_step
from argtrace.layers.log.hang_text import named_flags
from tests.conftest import alarms, log_report

LOGS = Path(__file__).resolve().parent / "data" / "real_logs_hang"
SCHEMAS = Path(__file__).resolve().parents[1] / "src" / "argtrace" / "frameworks" / "data" / "schemas"
EXCERPT = "begins mid-start-up"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


def stop(report: dict[str, Any]) -> dict[str, Any]:
    """The LG010 finding that says where the launch stops."""
    found = [f for f in report["findings"] if f["code"] == "LG010" and "stops after" in f["message"]]
    assert len(found) == 1, report["findings"]
    return found[0]


@dataclass(frozen=True)
class Case:
    """``step``: the launch summary's ``waiting_in.step``; ``says``/``fix``: in that finding's message/fix."""

    file: str
    step: str
    says: str
    fix: str
    before: str  # the class measured before this batch
    why: str = ""


NCCL_FIX = (
    "rerun with NCCL_DEBUG=INFO to see which rank NCCL waits for, "
    "set NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME"
)
CASES = [
    Case(
        "sglang4417_capture_two_nodes.log",
        "cuda_graph",
        "it stops while capturing CUDA graphs (begun at line 2, never ended)",
        "Relaunch with --disable-cuda-graph to confirm (or a smaller --cuda-graph-max-bs), then try "
        "--disable-custom-all-reduce",
        "c",
    ),
    Case(
        "vllm8058_nccl_step.log",
        "distributed",
        "it stops while joining the distributed (NCCL) group (begun at line 12, never ended)",
        NCCL_FIX,
        "d",
    ),
    Case(
        "vllm8087_tp2_after_nccl_version.log",
        "distributed",
        "it stops while joining the distributed (NCCL) group (begun at line 6, never ended)",
        NCCL_FIX,
        "d",
    ),
    Case(
        "vllm50430_b200_nccl.log",
        "distributed",
        "it stops while joining the distributed (NCCL) group (begun at line 10, never ended)",
        NCCL_FIX,
        "d",
    ),
    Case(
        "vllm20891_stuck_starting_to_load.log",
        "weights",
        "it stops while loading the weights (begun at line 4, never ended). If the launch is still there (a "
        "hang, not a log cut by its copy), what usually blocks loading the weights is: a download from the "
        "Hugging Face Hub",
        "Download the model first (`huggingface-cli download`) and pass its local path, or keep it on a "
        "local disk (--download-dir); --load-format dummy skips the weights",
        "d",
    ),
    Case(
        "vllm_ascend6734_safetensors_stuck.log",
        "weights",
        "it stops while loading the weights (begun at line 16, never ended)",
        "--load-format dummy skips the weights to isolate this step",
        "d",
    ),
    Case(
        "dynamo4087_vllm_kvbm_capture.log",
        "cuda_graph",
        "it stops while capturing CUDA graphs (begun at line 21, never ended)",
        "Relaunch with CUDA graphs off (SGLang --disable-cuda-graph, vLLM --enforce-eager) to confirm",
        "d",
        "the file does not say which framework (the capture bar and Gloo lines hold no vLLM line an anchor "
        "keeps), so the fix names both frameworks' switches",
    ),
    Case(
        "sglang7478_multihost_nccl_ipv6.log",
        "distributed",
        "what usually blocks setting up NCCL's communicators",
        NCCL_FIX,
        "d",
    ),
    Case(
        "sglang4007_capture_two_a100_nodes.log",
        "distributed",
        "(at the distributed start, or at the first collective, which a CUDA graph capture may be)",
        NCCL_FIX,
        "d",
        "the report says the capture is stuck; the file holds only NCCL's debug lines, so the step named is "
        "NCCL's set-up, which the capture's first all-reduce may be",
    ),
    Case(
        "sglang9917_after_checkpoint_loading.log",
        "weights",
        "it stops while loading the weights (begun at line 2, never ended)",
        "Download the model first",
        "d",
        "shards at 100 %: the step after them (SGLang's `Load weight end.`) never came",
    ),
]

OK_LOGS = (
    "ok/sglang1270_decode_running.log",
    "ok/sglang9099_http_running.log",
    "ok/vllm_pr11349_capture_then_cut.log",
)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.file[:-4])
def test_the_hang_names_its_step_and_fix(case: Case) -> None:
    # b: named as a note, exactly these findings: the excerpt note and where it stops
    report = log_report(LOGS / case.file)
    assert codes(report) == [("LG010", "info"), ("LG010", "info")]
    assert EXCERPT in report["findings"][0]["message"]
    found = stop(report)
    assert case.says in found["message"], found["message"]
    assert case.fix in found["fix"], found["fix"]
    assert found["basis"] == "assumed"
    (launch,) = report["log"]["launches"]
    assert launch["state"] == "incomplete"
    assert launch["waiting_in"]["step"] == case.step and launch["waiting_in"]["basis"] == "assumed"
    assert not alarms(report)  # before this batch: LG012 warning "none from a server" (d), or nothing (c)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            id=c.file[:-4],
            marks=pytest.mark.xfail(
                strict=True,
                reason="b: the log is an excerpt (no configuration line), which may as well be cut at its "
                "end by the copy: a hang is not a warning there" + (f"; {c.why}" if c.why else ""),
            ),
        )
        for c in CASES
    ],
)
def test_the_hang_is_an_alarm(case: Case) -> None:
    assert any(case.says in f["message"] for f in alarms(log_report(LOGS / case.file)))


@pytest.mark.parametrize("name", OK_LOGS, ids=lambda n: n[3:-4])
def test_a_log_that_merely_ends_early_is_no_alarm(name: str) -> None:
    report = log_report(LOGS / name)
    assert alarms(report) == []


def test_a_running_servers_lines_are_named_not_called_foreign() -> None:
    # was LG012 warning "none from an SGLang or vLLM server", fix "point argtrace at the file the server
    # writes"
    for name in OK_LOGS[:2]:
        report = log_report(LOGS / name)
        assert codes(report) == [("LG012", "info")]
        assert "end in a running server's serving lines" in report["findings"][0]["message"]
        assert report["findings"][0]["fix"] == (
            "Give argtrace the log from the server's start (an older rotated file, the journal)."
        )


def test_a_paste_cut_after_the_capture_is_a_note_without_a_hang_fix() -> None:
    report = log_report(LOGS / OK_LOGS[2])
    assert codes(report) == [("LG010", "info"), ("LG010", "info")]
    found = stop(report)
    assert (
        "Where: the next step, starting the server, never began or never logged its start."
        in found["message"]
    )
    assert found["basis"] == "observed"  # no framework, no blocker: nothing assumed is claimed


def test_every_log_names_its_source() -> None:
    on_disk = {p.relative_to(LOGS).as_posix() for p in LOGS.rglob("*.log")}
    assert on_disk == {c.file for c in CASES} | set(OK_LOGS)
    for path in LOGS.rglob("*.log"):
        assert path.read_text().startswith("# source: https://github.com/"), path


def test_every_flag_a_blocker_names_is_an_option_of_its_framework() -> None:
    # the knowledge is typed here, the options are not: each must be in a bundled parser schema
    for framework, flags in named_flags().items():
        pattern = "*.json" if framework == "any" else f"{framework}-*.json"
        text = "".join(p.read_text() for p in SCHEMAS.glob(pattern))
        for flag in sorted(flags):
            assert f'"{flag}"' in text, (framework, flag)
    assert {"sglang", "vllm", "any"} <= set(named_flags())


# --- variants on minimal inputs ---------------------------------------------------------------------------
SGL_ARGS = "[2026-11-29 21:14:02] server_args=ServerArgs(model_path='/m', tp_size=2{extra})\n"
SGL_STEPS = (
    "[2026-11-29 21:14:10 TP0] Init torch distributed begin.\n"
    "[2026-11-29 21:14:12 TP0] Load weight begin. avail mem=78.50 GB\n"
    "[2026-11-29 21:14:40 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, "
    "avail mem=60.1 GB, mem usage=15.0 GB.\n"
    "[2026-11-29 21:14:41 TP0] KV Cache is allocated. #tokens: 100000, K size: 5.0 GB, V size: 5.0 GB\n"
    "[2026-11-29 21:14:41 TP0] Memory pool end. avail mem=40.0 GB\n"
)
CAPTURE = (
    "[2026-11-29 21:14:42 TP0] Capture cuda graph begin. "
    "This can take up to several minutes. avail mem=40 GB\n"
)


def run_log(tmp_path: Path, text: str, mtime: float | None = None) -> dict[str, Any]:
    path = tmp_path / "server.log"
    path.write_text(text)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return log_report(path)


def test_a_whole_launch_that_stops_in_the_capture_is_a_warning(tmp_path: Path) -> None:
    report = run_log(tmp_path, SGL_ARGS.format(extra="") + SGL_STEPS + CAPTURE)
    assert codes(report) == [("LG010", "warning")]
    found = stop(report)
    assert found["message"].startswith(
        "Launch 1 stops after memory_pool_end (line 7) without an error and before cuda_graph_captured:"
    )
    assert "Where: it stops while capturing CUDA graphs (begun at line 7, never ended)." in found["message"]
    assert found["fix"].startswith("Relaunch with --disable-cuda-graph to confirm")
    assert found["basis"] == "assumed"
    assert report["log"]["launches"][0]["waiting_in"] == {
        "step": "cuda_graph",
        "began_at": f"{tmp_path}/server.log:7",
        "basis": "assumed",
    }


def test_after_the_pool_sglang_warms_its_kernels_up_before_the_capture(tmp_path: Path) -> None:
    report = run_log(tmp_path, SGL_ARGS.format(extra="") + SGL_STEPS)
    found = stop(report)
    assert (
        "Where: the next step, warming the kernels up, never began or never logged its start."
        in found["message"]
    )
    assert "SGLANG_JIT_DEEPGEMM_PRECOMPILE=0" in found["fix"]


def test_with_cuda_graphs_off_the_step_after_the_pool_is_the_server_start(tmp_path: Path) -> None:
    report = run_log(tmp_path, SGL_ARGS.format(extra=", disable_cuda_graph=True") + SGL_STEPS)
    assert report["log"]["launches"][0]["waiting_in"]["step"] == "server_start"
    assert "--skip-server-warmup" in stop(report)["fix"]


def test_a_launch_waiting_for_its_peers_names_the_rendezvous(tmp_path: Path) -> None:
    text = SGL_ARGS.format(extra=", nnodes=2, dist_init_addr='10.0.0.1:5000'") + SGL_STEPS.splitlines(True)[0]
    found = stop(run_log(tmp_path, text))
    assert (
        "Where: it stops while joining the distributed (NCCL) group (begun at line 2, never ended)."
        in (found["message"])
    )
    assert found["fix"].startswith("Start every node with the same --dist-init-addr and --nnodes")


VLLM_ARGS = "(APIServer pid=1) INFO 11-29 21:14:02 [api_server.py:1] non-default args: {'model': '/m'}\n"


def test_vllm_stopping_while_loading_names_the_download(tmp_path: Path) -> None:
    text = (
        VLLM_ARGS
        + "(EngineCore_DP0 pid=2) INFO 11-29 21:14:09 [gpu_model_runner.py:1] Starting to load model /m...\n"
    )
    report = run_log(tmp_path, text)
    assert codes(report) == [("LG010", "warning")]
    found = stop(report)
    assert "Where: it stops while loading the weights (begun at line 2, never ended)." in found["message"]
    assert "--load-format dummy" in found["fix"]


def test_vllm_stopping_after_the_weights_names_torch_compile(tmp_path: Path) -> None:
    text = VLLM_ARGS + (
        "(EngineCore_DP0 pid=2) INFO 11-29 21:14:30 [gpu_model_runner.py:1] Model loading took 15.0 GiB and "
        "20.0 seconds\n"
    )
    found = stop(run_log(tmp_path, text))
    assert (
        "Where: the next step, sizing the KV cache, never began or never logged its start."
        in found["message"]
    )
    assert found["fix"].startswith("Relaunch with --enforce-eager")


def test_a_file_still_written_at_its_last_lines_time_is_a_start_under_way(tmp_path: Path) -> None:
    now = datetime.now().replace(microsecond=0)
    line = f"[{now:%Y-%m-%d %H:%M:%S} TP0] Capture cuda graph begin. This can take up to several minutes.\n"
    report = run_log(tmp_path, SGL_ARGS.format(extra="") + SGL_STEPS + line, mtime=now.timestamp())
    found = stop(report)
    assert found["severity"] == "info"
    assert re.search(
        r"The file was last written \d+ s ago, at the time of its last line: the launch may still",
        found["message"],
    )


def test_a_file_quiet_since_its_last_line_says_so(tmp_path: Path) -> None:
    then = datetime(2026, 11, 29, 21, 14, 42)
    report = run_log(tmp_path, SGL_ARGS.format(extra="") + SGL_STEPS + CAPTURE, mtime=then.timestamp() + 5)
    found = stop(report)
    assert found["severity"] == "warning"
    assert "The file was last written at its last line's time and not for " in found["message"]


def test_a_copy_written_later_than_its_last_line_gives_no_time_evidence(tmp_path: Path) -> None:
    then = datetime(2026, 11, 29, 21, 14, 42) + timedelta(days=3)
    found = stop(run_log(tmp_path, SGL_ARGS.format(extra="") + SGL_STEPS + CAPTURE, mtime=then.timestamp()))
    assert "last written" not in found["message"]


def test_a_ready_server_whose_last_line_is_ncclss_is_no_hang(tmp_path: Path) -> None:
    text = (
        SGL_ARGS.format(extra="")
        + SGL_STEPS
        + "[2026-11-29 21:15:00] The server is fired up and ready to roll!\n"
        + "node-1:271:271 [0] NCCL INFO comm 0x1 rank 0 nranks 2 - Init COMPLETE\n"
    )
    report = run_log(tmp_path, text)
    assert codes(report) == []
    assert report["log"]["launches"][0]["waiting_in"] is None


def test_the_steps_a_last_line_shows() -> None:
    assert begun_at_tail("Loading safetensors checkpoint shards:  14% Completed | 14/99") == "weights"
    assert begun_at_tail("Capturing batches (bs=512 avail_mem=3.10 GB):   0%|") == "cuda_graph"
    assert begun_at_tail("(Worker pid=1) INFO 07-30 12:25:10 [pynccl.py:113] vLLM is using nccl==2.28") == (
        "distributed"
    )
    assert begun_at_tail("[2026-11-29 21:15:00 TP0] Decode batch. #running-req: 1") is None


def test_the_waiting_step_follows_the_step_order() -> None:
    assert STEP_ORDER.index("distributed") < STEP_ORDER.index("weights") < STEP_ORDER.index("cuda_graph")
    # the latest step reached decides, whatever order the ranks' lines came in
    assert waiting_step("sglang", {"cuda_graph": 9, "distributed": 12}, {"weights_loaded": 5}) == (
        "cuda_graph",
        9,
    )
    assert waiting_step("vllm", {}, {"cuda_graph_captured": 5}) == ("server_start", None)
    assert waiting_step("sglang", {}, {"cuda_graph_captured": 5}, speculative=True) == ("draft_worker", None)
    assert waiting_step("vllm", {}, {"args_logged": 1}) is None  # which step comes next is not in the log
    assert waiting_step("vllm", {"weights": 3}, {"server_ready": 9}) is None
