"""The logs batch of real cases (docs/real_cases.md, "Logs batch"), measured before any tuning.

Each file under ``tests/data/real_cases_logs/`` is a server log quoted in a public issue or pull request,
saved as the stored copy of the report gives it (its first line names the URL; nothing is added, a line
the copy cuts in the middle is left out unless it is the args dump). ``ok/`` holds logs of launches that
worked. The machine is a new user's (no resolver environment, no Hugging Face cache); the command is
``argtrace log FILE --format json``; one test reads the text output's first screen.

Classes as in the earlier batches: ``a`` the root cause named with a correct fix among the errors and
warnings; ``b`` found with a wrong reason or fix; ``c`` missed; ``d`` a wrong error or warning. A ``b``, ``c``
or ``d`` entry is a strict ``xfail`` whose reason names the mechanism, so a change that alters the outcome
turns the test red. A working launch's log must give no error and no warning.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import alarms, log_report, run_cli

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def named(report: dict[str, Any], code: str, says: str) -> bool:
    return any(
        f["code"] == code and says in f["message"] + " fix: " + (f.get("fix") or "") for f in alarms(report)
    )


@dataclass(frozen=True)
class Case:
    """``code``/``says``: the alarm a correct first screen shows (for ``d``: the wrong alarm shown)."""

    file: str
    cls: str
    code: str
    says: str
    why: str = ""


CASES = [
    # --- a: found, with the setting and a fix ---------------------------------------------------------------
    Case(
        "vllm_club3090_60_driver_oom.log", "a", "LG003", "ran out of memory while loading the model weights"
    ),
    # --- b: found, wrong reason or fix ----------------------------------------------------------------------
    # was b (an OOM in the engine's busy loop after the server served requests, its stage unknown); since
    # logs33 the cut traceback under the exception line names the stage: serving, and the fix is the batch's
    Case("vllm_club3090_16_runtime_oom.log", "a", "LG003", "(during serving)"),
    # was b (the stage fell back to weights, the fix named --tp and quantized checkpoints); since the logs'
    # 2nd batch an excerpt without a start-up step has no stage: the generic OOM fix names --max-num-seqs
    Case("vllm27508_gptoss_sampler_oom.log", "a", "LG003", "--max-num-seqs"),
    Case(
        "vllm18446_qwen3_235b_nccl_oom.log",
        "b",
        "LG007",
        "tearing",
        "the NCCL error is raised while tearing the group down (destroy_model_parallel) after a CUDA OOM;"
        " the nccl-error signature's stage is 'initialising the distributed group', so the first screen "
        "leads with NCCL set-up fixes (the OOM is no longer put at weight loading since the logs' 2nd batch)",
    ),
    # --- c: missed ------------------------------------------------------------------------------------------
    Case(
        "sglang1479_dsv25_cuda_graph.log",
        "c",
        "LG007",
        "cuda graph",
        "the excerpt stops two lines into the traceback, before its exception line; SGLang <= 0.3's "
        "'Exception in run_tp_server:' marker is not in the signature catalog, so the launch 'stops "
        "without an error' although it logged one",
    ),
    Case(
        "sglang1751_phi35_cuda_graph.log",
        "c",
        "LG007",
        "cuda graph",
        "a traceback through cuda_graph_runner.capture whose exception line the excerpt cuts is not an "
        "error; the stage (cuda_graph) is right",
    ),
    Case(
        "sglang1522_awq_torch_compile_args.log",
        "c",
        "LG011",
        "torch",
        "the excerpt ends inside the args dump: the failure (torch.compile with an AWQ model) is not in it",
    ),
    Case(
        "sglang4895_gemma3_args_only.log",
        "c",
        "LG003",
        "Not enough memory",
        "the excerpt ends inside the args dump: the 'Not enough memory' error is not in it",
    ),
    Case(
        "sglang25487_cuda13_args_tail.log",
        "c",
        "LG011",
        "ninja",
        "only the middle of the server_args line: the ninja build error is not in the excerpt",
    ),
    Case(
        "sglang19781_npu_qwen35_oom.log",
        "c",
        "LG003",
        "out of memory",
        "the scheduler crash is found (LG007), its cause (NPU out of memory) is after the excerpt's cut",
    ),
    Case(
        "sglang3889_scheduler_exception.log",
        "c",
        "LG011",
        "Error",
        "the scheduler crash is found (LG007), its exception line is after the excerpt's cut",
    ),
    Case(
        "sglang_verl630_scheduler_exception.log",
        "c",
        "LG003",
        "memory",
        "the crash in the scheduler's event loop is found (LG007, during serving since 2026-12-02); its cause"
        " (host memory growing during training) is not in the excerpt",
    ),
    Case(
        # logs25: vLLM's "EngineCore hit an exception" wrapper is read (LG007, behind the Buildkite prefix)
        "vllm14574_ci_no_cache_blocks.log",
        "c",
        "LG003",
        "No available memory for the cache blocks",
        "the copy cuts the engine's traceback before its exception (the report's 'No available memory for "
        "the cache blocks'); only the engine's wrapper line is read",
    ),
    Case(
        "vllm27508_gptoss_kv_cache.log",
        "c",
        "LG003",
        "No available memory for the cache blocks",
        "the exception line is not in the excerpt and its text is split over the `raise ValueError(...)` "
        "source lines, which are not matched; the frame check_enough_kv_cache_memory is not read as the "
        "KV cache stage (the engine failure is put at weight loading)",
    ),
    Case(
        "vllm7721_054_namespace_minicpm.log",
        "c",
        "LG003",
        "out of memory",
        "the OOM is not in the excerpt (its `args: Namespace(...)` dump is read since 2026-12-02)",
    ),
    Case(
        "vllm_qwen3vl1204_085.log",
        "c",
        "LG003",
        "out of memory",
        "the OOM is not in the excerpt (vLLM 0.8.5's Namespace dump is read since 2026-12-02)",
    ),
    # --- fixed 2026-12-02 (was b: the stage fell back to weights; the overlap thread's frames say serving)
    Case(
        "sglang4547_overlap_cuda_oom.log",
        "a",
        "LG003",
        "[cuda-oom] The GPU ran out of memory (during serving)",
    ),
    # --- fixed 2026-12-02 (were d: LG001 "died before it logged its configuration" on an excerpt) -----------
    Case("sglang8974_nccl_unhandled.log", "a", "LG007", "[nccl-error] NCCL failed"),
    Case("vllm16707_ray_nccl_unhandled.log", "a", "LG007", "[nccl-error] NCCL failed"),
    Case(
        "vllm15105_080_sampler_warmup_oom.log",
        "a",
        "LG003",
        "Lower --max-num-seqs or --gpu-memory-utilization",
    ),
    # --- d: a wrong error or warning ------------------------------------------------------------------------
    # was d (LG012 warning "none from an SGLang or vLLM server", "point argtrace at another file"): since
    # 2026-12-02 a piece of an argument dump is named as such, an info (layer._argument_dump_piece)
    Case(
        "vllm14992_namespace_no_cache_blocks.log",
        "c",
        "LG003",
        "cache blocks",
        "the excerpt is the middle of vLLM's `args: Namespace(...)` line: the failure (no memory for the "
        "cache blocks) is not in it; LG012 says it is part of a vllm argument dump (info)",
    ),
]

OK_LOGS = {
    "ok/sglang_pr11830_kv_cache_graphs.log": "LG010 warnings: 'begins mid-start-up' (the excerpt starts "
    "after the args line) and 'stops after cuda_graph_captured without an error' (the excerpt ends there)",
    "ok/sglang_pr4826_gemma3_timeline.log": "LG010 warnings: 'begins mid-start-up' and 'stops after "
    "memory_pool_end' on an excerpt of a working start-up",
    "ok/vllm_pr24162_0102dev_tp2.log": "LG010 warning 'stops after model_config without an error': the "
    "excerpt ends there; the log's end cannot be told from a start-up killed without a trace",
    "ok/vllm_pr30749_routes.log": "LG010 warning 'begins mid-start-up' on a launch that reached ready",
    "ok/vllm_ragflow11166_html_routes.log": "LG010 warning 'begins mid-start-up' on a launch that "
    "reached ready",
}
# Fixed 2026-12-02: "begins mid-start-up" is a note, and so is "stops after X" in a file that also begins
# mid-start-up (an excerpt at both ends).
OK_FIXED = {
    "ok/sglang_pr11830_kv_cache_graphs.log",
    "ok/sglang_pr4826_gemma3_timeline.log",
    "ok/vllm_pr30749_routes.log",
    "ok/vllm_ragflow11166_html_routes.log",
}


def _param(case: Case) -> Any:
    marks = []
    if case.cls in ("b", "c", "d"):
        marks.append(pytest.mark.xfail(strict=True, reason=f"{case.cls}: {case.why}"))
    return pytest.param(case, id=case.file.removesuffix(".log"), marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_log_case(case: Case) -> None:
    report = log_report(LOGS / case.file)
    if case.cls == "d":
        assert not named(report, case.code, case.says), case.why
    else:
        assert named(report, case.code, case.says), [(f["code"], f["message"][:120]) for f in alarms(report)]


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            id=n.removeprefix("ok/").removesuffix(".log"),
            marks=[pytest.mark.xfail(strict=True, reason=f"d: {why}")],
        )
        if n not in OK_FIXED
        else pytest.param(n, id=n.removeprefix("ok/").removesuffix(".log"))
        for n, why in OK_LOGS.items()
    ],
)
def test_working_launch_log_has_no_alarm(name: str) -> None:
    report = log_report(LOGS / name)
    assert alarms(report) == []


def test_every_log_is_a_case() -> None:
    on_disk = {p.relative_to(LOGS).as_posix() for p in LOGS.rglob("*.log")}
    assert on_disk == {c.file for c in CASES} | set(OK_LOGS)


def test_every_log_names_its_source() -> None:
    for path in LOGS.rglob("*.log"):
        assert path.read_text().startswith("# source: https://github.com/"), path


def test_text_output_leads_with_the_same_alarm(monkeypatch: pytest.MonkeyPatch) -> None:
    # The text report's first screen (the Diagnosis block) shows the error the JSON carries first. The header
    # names the log once; a headline names the line (render/screen.py line_places), so the message has the
    # room the log's name took ("...out of memory while…" at 100 columns before).
    monkeypatch.setenv("COLUMNS", "100")
    result = run_cli(["log", "vllm_club3090_60_driver_oom.log"], cwd=LOGS)
    first = result.stdout.split("\n")[2]
    assert first == (
        "ERROR LG003 line 8 [cuda-oom-weights] The GPU ran out of memory while loading the model weights"
    )


# --- the mechanisms fixed, on our own minimal inputs (not the reports' lines) -------------------------------
LG001_SAYS = "before it logged its configuration"


@pytest.mark.parametrize(
    "file",
    [
        "sglang8974_nccl_unhandled.log",
        "vllm16707_ray_nccl_unhandled.log",
        "vllm15105_080_sampler_warmup_oom.log",
    ],
)
def test_the_reports_that_had_a_wrong_lg001_have_none(file: str) -> None:
    assert not named(log_report(LOGS / file), "LG001", LG001_SAYS)


def run_log(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "server.log"
    path.write_text(text)
    return log_report(path)


def test_an_excerpt_starting_at_an_nccl_error_is_not_a_launch_that_died_before_its_args(
    tmp_path: Path,
) -> None:
    # NCCL set-up runs in the scheduler/worker, after the args line: the error's own stage proves it existed.
    report = run_log(
        tmp_path, "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)\n"
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG007", "error"), ("LG010", "info")]
    assert not named(report, "LG001", LG001_SAYS)


def test_a_ray_worker_prefix_is_vllm_after_its_args(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "(RayWorkerWrapper pid=7) ERROR 01-02 03:04:05 [worker_base.py:620] ValueError: not a real message\n",
    )
    assert report["log"]["framework"] == "vllm"
    assert not named(report, "LG001", LG001_SAYS)


def test_a_line_logged_by_vllms_engine_module_is_after_the_args_line(tmp_path: Path) -> None:
    # No process prefix: the logger's module (gpu_model_runner.py) is the engine's, which starts after the API
    # server logged its arguments; and the message's own stage (the sampler warm-up) picks its signature.
    report = run_log(
        tmp_path,
        "ERROR 01-02 03:04:05 [gpu_model_runner.py:1548] RuntimeError: CUDA out of memory occurred when "
        "warming up sampler with 256 dummy requests. Please try lowering `max_num_seqs` or "
        "`gpu_memory_utilization` when initializing the engine.\n",
    )
    assert report["log"]["framework"] == "vllm"
    assert [f["code"] for f in alarms(report)] == ["LG003"]
    assert alarms(report)[0]["message"].startswith("[vllm-sampler-warmup-oom] ")


def test_vllms_logger_inside_sglang_does_not_name_the_framework(tmp_path: Path) -> None:
    # SGLang <= 0.4 logs through vLLM's logger from vLLM's parallel_state/custom_all_reduce modules.
    report = run_log(
        tmp_path,
        "INFO 01-02 03:04:05 custom_all_reduce.py:100] Registering 10 cuda graph addresses\n"
        "[2025-01-02 03:04:06 TP0] Capture cuda graph end. Time elapsed: 1.00 s\n",
    )
    assert report["log"]["framework"] == "sglang"


def test_an_excerpt_of_a_start_up_gives_notes_not_warnings(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "[2025-01-02 03:04:05 TP0] Load weight end. type=X, dtype=torch.bfloat16, avail mem=10.00 GB\n"
        "[2025-01-02 03:04:06 TP0] Memory pool end. avail mem=2.00 GB\n",
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG010", "info"), ("LG010", "info")]
    assert "begins mid-start-up" in report["findings"][0]["message"]
    assert "stops after memory_pool_end" in report["findings"][1]["message"]


def test_a_start_up_with_its_args_that_stops_without_an_error_still_warns(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "[2025-01-02 03:04:05] server_args=ServerArgs(model_path='/m', tp_size=1)\n"
        "[2025-01-02 03:04:09 TP0] Load weight end. type=X, dtype=torch.bfloat16, avail mem=10.00 GB\n",
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG010", "warning")]


def test_an_error_under_the_serving_loop_is_placed_at_serving(tmp_path: Path) -> None:
    # Frames of the loop that runs once start-up is over say the stage, whatever the excerpt lacks.
    report = run_log(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 1, in event_loop_normal\n'
        "    self.run_batch(batch)\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB.\n",
    )
    assert [f["code"] for f in alarms(report)] == ["LG003"]
    assert alarms(report)[0]["message"].startswith("[cuda-oom] The GPU ran out of memory (during serving). ")


def test_vllms_namespace_dump_is_read_as_the_launch_arguments() -> None:
    # vLLM 0.5.4 (L17): the whole argparse result, cut by the stored copy; every complete pair is kept.
    report = log_report(LOGS / "vllm7721_054_namespace_minicpm.log")
    assert report["log"]["framework"] == "vllm" and report["log"]["version"] == "0.5.4"
    args = report["log"]["args"]
    assert (args["max_model_len"], args["trust_remote_code"], args["model"]) == (
        2048,
        True,
        "/opt/apps/models/miniCPM-v2.6/v1",
    )
    first = report["timeline"][0]
    assert (first["event"], first["format"], first["settings"], first["truncated"]) == (
        "args_logged",
        "vllm-namespace",
        39,
        True,
    )


def test_a_namespace_dump_is_a_whole_dump_not_a_non_default_one(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "INFO 01-02 03:04:05 api_server.py:340] args: Namespace(host=None, port=8000, model='/m', "
        "max_model_len=4096, tensor_parallel_size=2)\n",
    )
    assert report["log"]["args"] == {
        "host": None,
        "port": 8000,
        "model": "/m",
        "max_model_len": 4096,
        "tensor_parallel_size": 2,
    }
    assert [f["code"] for f in alarms(report)] == ["LG010"]  # stops after args_logged, its start in the file


def test_a_piece_of_an_argument_dump_is_named_not_called_foreign(tmp_path: Path) -> None:
    """vllm#14992's excerpt is the middle of vLLM's Namespace line: the file is the server's, too little of
    it to say what it saw (an info naming the dump), not "none from a server" with "point argtrace at
    another file" (a warning)."""
    dump = ", ".join(
        f"{name}={value}"
        for name, value in [
            ("tensor_parallel_size", 1),
            ("pipeline_parallel_size", 1),
            ("max_model_len", 8192),
            ("gpu_memory_utilization", 0.9),
            ("enable_lora", False),
            ("max_loras", 1),
            ("max_lora_rank", 16),
            ("served_model_name", "['m']"),
            ("enable_prefix_caching", None),
        ]
    )
    report = run_log(tmp_path, dump + "\n")
    [lg012] = [f for f in report["findings"] if f["code"] == "LG012"]
    assert lg012["severity"] == "info"
    assert lg012["fix"] == "Give argtrace the whole log, from the server's start."
    assert "holding part of a vllm argument dump (9 of its settings as name=value)" in lg012["message"]
    # a few name=value words are no argument dump: still "none from a server", a warning
    other = run_log(tmp_path, "x=1 y=2 max_model_len=3\n")
    assert [(f["code"], f["severity"]) for f in other["findings"]] == [("LG012", "warning")]
