"""Real server logs, 5th batch (docs/real_cases.md, "Logs, 5th batch"): 15 failed launches and 3 working ones.

Each file under ``tests/data/logs_5/`` is a log quoted in a public report of 2025-2026 (SGLang 0.4-0.5 and its
2026 main, vLLM 0.10-0.29, vllm-ascend, vLLM under lemonade, slime's and veRL's Ray actors, a cloud logging
export, containerd's CRI format, docker compose, docker's json-file records), saved as the stored copy of the
report gives it: its first line names the URL and what the copy cut. ``ok/`` holds three working launches. The
command is ``argtrace log FILE --format json`` on a new user's machine. Measured on this batch's base before
any change (``before``), then after.

Classes as in the other batches: ``a`` the root cause and the right setting or change among the errors and
warnings, ``b`` named but only as a note or without a change, ``c`` not named, ``d`` a wrong error or
warning or a wrong claim (release, launch split, stage, hang). ``CASES`` holds what each gives now,
exactly; every case not ``a`` has a strict ``xfail`` naming what it lacks. The mechanisms this batch
added have variants on minimal inputs below.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argtrace.layers.log.lines import _decode
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

LOGS = Path(__file__).resolve().parent / "data" / "logs_5"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
# logs18: a copy that stops inside a traceback (LG010 "stops inside a traceback")
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
ERROR7 = ("LG007", "error")
EXCERPT = "begins mid-start-up"
READ_FROM_START = (
    "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
    "journal; or relaunch with the log kept whole."
)
SCHEDULER_FIX = "Read the traceback after this line"
# logs21: a scheduler's traceback cut inside the CUDA graph capture gets the capture's own switch first
SCHEDULER_CAPTURE_FIX = (
    "It failed inside the CUDA graph capture. Relaunch with --disable-cuda-graph to confirm (or a smaller "
    "--cuda-graph-max-bs), then try --disable-custom-all-reduce. " + SCHEDULER_FIX
)
ENGINE_FIX = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
WORKER_FIX = (
    "Read the traceback after this line: its last line is the worker's exception (the engine's 'Engine core "
    "initialization failed' below it only repeats that a worker died)"
)
WORKER_SAYS = (
    "[vllm-worker-proc-failed] A worker process of vLLM's multiprocess executor raised while it started"
)
NOT_SHOWN = "(during a step this excerpt does not show)"
CUT = "the exception is not in the copy (cut before it)"


CASES = [
    LogCase(
        "vllmrocm5_lemonade_kv_max_len.log",
        "a",
        "a",
        (("LG003", "error"), INFO10),
        "vllm",
        "failed",
        "kv_cache",
        "[vllm-max-model-len-exceeds-kv] The KV cache cannot hold one sequence of max_model_len tokens "
        "(during allocating the KV cache). Logged estimated=127776.",
        "Lower --max-model-len to the estimate, raise --gpu-memory-utilization or use --kv-cache-dtype fp8",
        cause="max_model_len",
        change="--max-model-len",
    ),
    LogCase(
        "sglang8826_b200_capture_frames.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during capturing "
        "CUDA graphs)",
        SCHEDULER_CAPTURE_FIX,
        cause="B200",
        change="--",
        missing=CUT + ": frames through the model's forward inside the capture",
    ),
    LogCase(
        "sglang7227_capture_after_pool.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        "(during capturing CUDA graphs)",
        SCHEDULER_CAPTURE_FIX,
        cause="capture",
        change="--cuda-graph-max-bs",
        missing=CUT + ": frames through the scheduler's construction",
    ),
    LogCase(
        "sglang18980_gcp_severity_serving.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        "(during serving)",
        SCHEDULER_FIX,
        cause="nsa",
        change="--attention-backend",
        missing=CUT + ": frames through run_batch while serving",
    ),
    LogCase(
        "sglang28659_containerd_pp_loading.log",
        "c",
        "c",
        (INFO10, INFO10),
        "sglang",
        "incomplete",
        "weights",
        EXCERPT,
        READ_FROM_START,
        cause="pipeline",
        change="--pp-size",
        missing="the crash the title names is not in the copy (cut while the weights load)",
    ),
    LogCase(
        "vllm_backport39_compose_pp_worker.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        WORKER_SAYS,
        WORKER_FIX,
        cause="sm89",
        change="--",
        missing=CUT + "; was no finding, the launch 'incomplete'",
    ),
    LogCase(
        "vllm56007_worker_ep_loading.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        WORKER_SAYS,
        WORKER_FIX,
        cause="checkpoint",
        change="--",
        missing=CUT + "; was no finding, the launch 'incomplete'",
    ),
    LogCase(
        "vllm_ascend12901_dp_tp_ep_worker.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2) (during loading the weights)",
        CUT_TB_FIX,
        cause="w4a8",
        change="--",
        missing=CUT + "; the copy begins inside the traceback, without its WorkerProc line",
    ),
    LogCase(
        "vllm_ascend3464_gloo_worker_load.log",
        "d",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "weights",
        WORKER_SAYS,
        WORKER_FIX,
        cause="fp8",
        change="--quantization",
        missing=CUT
        + "; was an LG010 note 'stops ... without an error' and a hang's fix (download the model)",
    ),
    LogCase(
        "glmv162_rank0_warning_engine_0.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during a step this excerpt does not show)",
        ENGINE_FIX,
        cause="GLM",
        change="--",
        missing=CUT + ": frames through the engine's construction",
    ),
    LogCase(
        # logs19: the frames right under "WorkerProc failed to start." name its stage (load_model)
        "vllm_ascend8098_cpu_offload_worker.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "weights",
        WORKER_SAYS + " (its device, distributed set-up, weights or KV cache); the traceback after this line "
        "ends in its exception (during loading the weights)",
        WORKER_FIX,
        cause="offload",
        change="--cpu-offload-gb",
        missing=CUT + ": frames to load_model; was no finding, the launch 'incomplete'",
    ),
    LogCase(
        "awesome106_docker_json_ansi.log",
        "d",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "naming SGLang's own process(es) (`sglang::scheduler_TP0`, the titles the server gives them) and "
        "none of the server's log lines",
        "Give argtrace the server's whole log, from its start (the terminal, `docker logs`, `kubectl logs`), "
        "with the Python traceback before the native frames.",
        cause="scheduler",
        change="--",
        missing="only native frames of the scheduler are in the copy; was LG012 warning 'none from a server'",
    ),
    LogCase(
        "slime1653_update_weights_scheduler.log",
        "d",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "unknown",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows " + NOT_SHOWN,
        SCHEDULER_FIX,
        cause="int4",
        change="--",
        missing="the copy ends at the traceback's first line; was LG001 error 'died during argument "
        "validation, before it logged its configuration'",
    ),
    LogCase(
        "sglang26032_weight_update_online.log",
        "d",
        "c",
        (("LG012", "info"),),
        None,
        None,
        None,
        "with SGLang's scheduler lines (`[2026-05-21 16:07:41 DP6 TP6] Failed to update parameter online: "
        "start out of range (expected to be in ra`) and none of its start-up",
        "Give argtrace the log from the server's start (an older rotated file, the journal, "
        "`docker logs`/`kubectl logs` of the whole container).",
        cause="update parameter",
        change="--",
        missing="an online weight update failing in SGLang's NPU weight layout (a framework bug): no "
        "setting; was LG012 warning 'none from a server'",
    ),
    LogCase(
        "glm5_10_apiserver_tail.log",
        "d",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it " + NOT_SHOWN,
        ENGINE_FIX,
        cause="GLM",
        change="--",
        missing="the engine's root cause is above the copy ('See root cause above'); was LG001 error 'died "
        "during argument validation' and the stage validation",
    ),
]
OK_LOGS = {
    "slime138_rollout_actor_ready.log": ((INFO10,), "ready", None),
    # it stops inside SGLang's piecewise capture, begun after the decode graphs' ended (was: "the next step,
    # starting the server", stage serving)
    "sglang_pr20758_musa_piecewise.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
    "vllm_pr39910_s390x_warmup.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([1, 0, 9, 5], [1, 0, 14, 0])


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case)
    # no "none from a server" warning, no "stops ... without an error" on a failed launch
    assert not any(f["code"] == "LG012" and f["severity"] == "warning" for f in report["findings"])
    if case.state == "failed":
        assert not any("without an error" in f["message"] for f in report["findings"])


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


def test_the_first_screen_of_the_a_case() -> None:
    case = CASES[0]
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    assert_working_launch(recorded_log_report(LOGS / "ok" / name), OK_LOGS[name])


# --- variants of the mechanisms, on minimal inputs -------------------------------------------------------


def _codes(report: dict) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


@pytest.mark.parametrize(
    "text",
    [
        # SGLang logs server_args= before it starts the scheduler processes that print this
        "[2026-01-05 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n",
        # vLLM logs its non-default args before it builds the engine whose start-up failed
        "(APIServer pid=7) RuntimeError: Engine core initialization failed. See root cause above. Failed "
        "core proc(s): {'EngineCore_DP0': 1}\n",
        "ERROR 03-02 08:00:00 [core.py:700] EngineCore failed to start.\n",
    ],
    ids=["sglang-scheduler", "vllm-api-server", "vllm-engine-core"],
)
def test_a_started_servers_failure_is_past_the_configuration_line(tmp_path: Path, text: str) -> None:
    report = log_report(written_log(tmp_path, text))
    assert _codes(report) == [ERROR7, INFO10]
    assert NOT_SHOWN in report["findings"][0]["message"]
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("failed", "unknown")


def test_vllms_worker_that_failed_to_start_is_an_error_not_a_stop(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "(Worker_TP1 pid=9) INFO 03-01 10:00:00 [gpu_model_runner.py:2338] Starting to load model /m...\n"
            "(Worker_TP1 pid=9) ERROR 03-01 10:00:02 [multiproc_executor.py:700] WorkerProc failed to "
            "start.\n",
        )
    )
    assert _codes(report) == [ERROR7, INFO10]
    assert report["findings"][0]["message"].startswith(WORKER_SAYS)
    assert report["findings"][0]["fix"] == WORKER_FIX
    assert not any("without an error" in f["message"] for f in report["findings"])
    assert last_launch(report)["state"] == "failed"


def test_sglangs_ranked_lines_without_an_anchor_are_a_running_servers(tmp_path: Path) -> None:
    report = log_report(
        written_log(tmp_path, "[2026-01-02 03:04:05 DP1 TP3] Prefill out of sync with decode\n")
    )
    assert _codes(report) == [("LG012", "info")]
    assert (
        "with SGLang's scheduler lines (`[2026-01-02 03:04:05 DP1 TP3] Prefill out of sync with decode`) and "
        "none of its start-up" in report["findings"][0]["message"]
    )
    # the launcher's own lines carry no rank: a file of them alone is not read as a scheduler's
    plain = log_report(written_log(tmp_path, "[2026-01-02 03:04:05] Prefill out of sync with decode\n"))
    assert _codes(plain) == [("LG012", "warning")]


def test_process_titles_name_the_servers_processes(tmp_path: Path) -> None:
    frames = log_report(
        written_log(
            tmp_path, "frame #3: + 0x1234 (0x7f00 in VLLM::Worker_TP1)\nframe #4: <unknown function>\n"
        )
    )
    assert _codes(frames) == [("LG012", "info")]
    assert "naming vLLM's own process(es) (`VLLM::Worker_TP1`" in frames["findings"][0]["message"]
    # the OOM killer names a process the framework starts after its arguments: not argument validation
    oom = log_report(
        written_log(
            tmp_path, "Out of memory: Killed process 4242 (VLLM::EngineCor) total-vm:123kB, anon-rss:99kB\n"
        )
    )
    assert _codes(oom) == [("LG003", "error"), INFO10]
    assert oom["findings"][0]["message"].startswith(
        "[host-oom-killed] The kernel's OOM killer ended the process (host RAM, not GPU memory) " + NOT_SHOWN
    )
    assert oom["log"]["framework"] == "vllm"
    # titles of both frameworks in one file say nothing about which server it was
    both = log_report(written_log(tmp_path, "x in sglang::scheduler_TP0\ny in VLLM::EngineCore\n"))
    assert _codes(both) == [("LG012", "warning")]


def test_a_step_begun_before_a_frameless_error_is_its_stage(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "(Worker_TP0 pid=3) INFO 05-01 09:00:00 [gpu_model_runner.py:2338] Starting to load model /m...\n"
            "(Worker_TP0 pid=3) ERROR 05-01 09:00:05 [multiproc_executor.py:700] WorkerProc failed to "
            "start.\n",
        )
    )
    assert "(during loading the weights)" in report["findings"][0]["message"]
    assert last_launch(report)["stage"] == "weights"
    # without a begun step the excerpt does not show which one it was
    bare = log_report(
        written_log(
            tmp_path,
            "(Worker_TP0 pid=3) ERROR 05-01 09:00:05 [multiproc_executor.py:700] WorkerProc failed to "
            "start.\n",
        )
    )
    assert NOT_SHOWN in bare["findings"][0]["message"]


CAPTURED = (
    "[2026-03-17 07:16:38 TP0] Capture cuda graph end. Time elapsed: 27.41 s. mem usage=0.83 GB. avail "
    "mem=10.81 GB.\n"
)


@pytest.mark.parametrize(
    "begin",
    [
        # SGLang 0.5.10: the piecewise capture follows the decode graphs' (model_runner.py)
        "Capture piecewise CUDA graph begin. avail mem=10.81 GB",
        # SGLang 0.5.2x names each capture (cuda_graph_setup.py: f"Capture {capture_name} CUDA graph begin.")
        "Capture target prefill CUDA graph begin. backend=fa3, num_tokens=[4, 8]",
    ],
    ids=["piecewise", "named"],
)
def test_a_capture_begun_after_one_ended_is_where_it_stops(tmp_path: Path, begin: str) -> None:
    report = log_report(written_log(tmp_path, CAPTURED + f"[2026-03-17 07:16:38 TP0] {begin}\n"))
    assert alarms(report) == []
    last = last_launch(report)
    assert (last["state"], last["stage"]) == ("incomplete", "cuda_graph")
    assert (last["waiting_in"]["step"], last["waiting_in"]["began_at"].endswith(":2")) == ("cuda_graph", True)
    assert "and before the capture begun after it ended" in report["findings"][-1]["message"]
    # a draft model's capture is the draft worker's step, not the target's capture again
    draft = log_report(
        written_log(
            tmp_path, CAPTURED + "[2026-03-17 07:16:38 TP0] Capture draft cuda graph begin. avail mem=9 GB\n"
        )
    )
    assert last_launch(draft)["waiting_in"]["step"] == "server_start"


def _summary(report: dict) -> tuple[list[tuple[str, str]], list[tuple[str, str | None]]]:
    return _codes(report), [(lc["state"], lc["stage"]) for lc in report["log"]["launches"]]


def _coloured(line: str) -> str:
    # the colour codes a terminal, Ray or a logging handler puts around a line's process tag and level
    for tag in ("(", "INFO ", "ERROR ", "WARNING "):
        if line.startswith(tag):
            end = line.index(")") + 1 if tag == "(" else len(tag)
            return f"\x1b[36m{line[:end]}\x1b[0m{line[end:]}"
    return line


@pytest.mark.parametrize("name", sorted(str(p.relative_to(LOGS)) for p in LOGS.rglob("*.log")))
def test_windows_line_ends_and_colour_codes_change_nothing(name: str, tmp_path: Path) -> None:
    # none of the reports kept them (a stored copy does not), so this batch's logs are given both here
    text = (LOGS / name).read_text(encoding="utf-8")
    expected = _summary(recorded_log_report(LOGS / name))
    crlf = tmp_path / "crlf.log"
    crlf.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    assert _summary(log_report(crlf)) == expected
    ansi = tmp_path / "ansi.log"
    head, *rest = text.split("\n")
    ansi.write_text("\n".join([head, *map(_coloured, rest)]), encoding="utf-8")
    assert _summary(log_report(ansi)) == expected


@pytest.mark.parametrize(
    ("line", "proc", "pid", "rank", "body"),
    [
        # containerd's CRI log (a Kubernetes container's file): an ISO time with an offset, the stream, F/P
        (
            "2026-06-17T19:50:32.059286578+02:00 stderr F [2026-06-17 17:50:32 PP1] Load weight begin. "
            "avail mem=265.90 GB",
            None,
            None,
            "PP1",
            "Load weight begin. avail mem=265.90 GB",
        ),
        # a cloud logging export: its severity, its time, its severity tag
        (
            "ERROR 2026-02-18T14:43:05.821451064Z [severity: ERROR] [2026-02-18 14:43:05 TP1] Scheduler hit "
            "an exception: Traceback (most recent call last):",
            None,
            None,
            "TP1",
            "Scheduler hit an exception: Traceback (most recent call last):",
        ),
        # lemonade's process wrapper
        (
            "2026-06-09 14:01:52.982 [Error] (Process) (EngineCore pid=42521) ERROR 06-09 14:01:52 "
            "[core.py:1136]     raise ValueError(",
            "EngineCore",
            42521,
            None,
            "    raise ValueError(",
        ),
        # vLLM's engine forwarding a Ray worker's line: two tags, Ray's with a comma; the inner one logged
        (
            "(EngineCore_DP0 pid=183) (RayWorkerWrapper pid=220, ip=10.0.0.2) INFO 08-01 10:00:00 "
            "[gpu_model_runner.py:1] Starting to load model /m...",
            "RayWorkerWrapper",
            220,
            None,
            "Starting to load model /m...",
        ),
        # a Ray actor's tag before SGLang's prefix (slime's SGLangEngine)
        (
            "(SGLangEngine pid=1493437) [2026-05-21 16:07:41 DP6 TP6] Failed to update parameter online",
            "SGLangEngine",
            1493437,
            "DP6 TP6",
            "Failed to update parameter online",
        ),
    ],
    ids=["cri", "cloud-logging", "lemonade", "ray-in-engine", "ray-actor"],
)
def test_container_runtimes_log_services_and_ray_tags_are_prefixes(
    line: str, proc: str | None, pid: int | None, rank: str | None, body: str
) -> None:
    parsed = split_prefix(line)
    assert (parsed.proc, parsed.pid, parsed.rank, parsed.body) == (proc, pid, rank, body)
    # vLLM's own level line is not a log service's severity (no ISO time after it)
    assert split_prefix("INFO 06-09 14:01:52 [core.py:1] x").body == "x"


def test_a_docker_json_file_record_is_its_line() -> None:
    record = (
        b'{"log":"\\u001b[36m(EngineCore_DP0 pid=1)\\u001b[0m ERROR 01-02 03:04:05 [core.py:9]   File '
        b'\\"/v/core.py\\", line 3, in f\\n","stream":"stderr","time":"2026-01-02T03:04:05.1Z"}'
    )
    assert (
        _decode(record)
        == '(EngineCore_DP0 pid=1) ERROR 01-02 03:04:05 [core.py:9]   File "/v/core.py", line 3, in f'
    )
    # a record the file's end cut inside its string keeps what it holds
    assert _decode(b'{"log":"INFO cut \\"here') == 'INFO cut "here'
    # a line that only looks like one stays as it is
    assert _decode(b'{"log": 1}') == '{"log": 1}'


def _wrapped(text: str, wrap: str) -> str:
    head, *rest = text.split("\n")
    cut = bool(rest) and rest[-1] != ""
    out = []
    for n, line in enumerate(rest):
        if not line.strip():
            out.append(line)
        elif wrap == "json":
            record = json.dumps(
                {"log": line + "\n", "stream": "stderr"}, separators=(",", ":"), ensure_ascii=False
            )
            if cut and n == len(rest) - 1:
                record = json.dumps({"log": line}, separators=(",", ":"), ensure_ascii=False)[:-2]
            out.append(record)
        else:
            out.append(WRAPS[wrap] + line)
    return "\n".join([head, *out])


WRAPS = {
    "cri": "2026-06-17T19:50:31.188518826+02:00 stderr F ",
    "cloud-logging": "INFO 2026-02-18T14:43:05.821451064Z [severity: INFO] ",
    "lemonade": "2026-06-09 14:01:52.982 [Info] (Process) ",
    "ray": "(SGLangEngine pid=179232) ",
}
# a compose service column inside another wrapper is no real log's
_ALREADY_WRAPPED = {"vllm16514_compose_gloo_timeout.log"}
_WRAPPED_LOGS = sorted(
    p
    for d in ("logs_4", "logs_5")
    for p in (LOGS.parent / d).rglob("*.log")
    if p.name not in _ALREADY_WRAPPED
)


@pytest.mark.parametrize("wrap", [*WRAPS, "json"])
def test_real_logs_behind_this_batchs_wrappers_read_as_their_own(wrap: str, tmp_path: Path) -> None:
    # the 4th and 5th batches' logs, each line behind a wrapper this batch met (measured on the 165 real
    # logs under tests/data: the same answers but for a compose column inside another wrapper)
    differ = []
    for path in _WRAPPED_LOGS:
        copy = tmp_path / path.name
        copy.write_text(_wrapped(path.read_text(encoding="utf-8"), wrap), encoding="utf-8")
        if _summary(log_report(copy)) != _summary(recorded_log_report(path)):
            differ.append(path.name)
    assert differ == []


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
