"""Real server logs, session 33's batch (docs/real_cases.md, "Logs, 18th batch"): 7 failures, 2 working.

Each ``*.log`` under ``tests/data/real_cases_logs33/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it (prefixes kept as posted), behind a ``# source:`` header line with
the URL and the date. The areas the batch went for: start-up failures of vLLM's engine core and workers
(NCCL's communicator failing at start-up, an engine core cut in its frames), SGLang's scheduler dying at
start-up and while serving (a module of the framework missing a name another calls, cuBLAS and FlashInfer's
TRT-LLM GEMM failing under NVFP4 models, the diffusion runtime's scheduler giving up), logs behind a launcher
(GPUStack 2.x's worker starting vLLM in a container). Their forms: a copy that begins inside a traceback; an
exception line without frames, then another rank's traceback cut after its frames (flashinfer#2516,
sglang#19081); the HTTP server answering ``/health`` with 200 after the scheduler died (sglang#17874, LG017);
worker lines of two ranks interleaved (vllm#18302); two excerpts of one post joined in their order, the frames
between them not stored (vllm#17756, its header says so). ``ok/`` holds working launches: GPUStack's worker
starting vLLM 0.17.1 in a container (the report's error came with a request), SGLang's start whose
timestamps the report's client turned into ``tel:`` links (sglang#13591, cut before the report's error, which
came with requests). ``why/`` holds each failure's error text (its lines from the first line naming an error,
a failure or a death on).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): sglang9780 (in the
model runner's constructor, after the AttributeError), flashinfer2516 and sglang19081 (in the scheduler's
event loop), vllm33970 (in the engine core's executor, before its exception), vllm18302 (in NCCL's
communicator init, before its exception), vllm17756 (in the engine core's constructor, after the workers'
NCCL error), sglang17874 (in the health checks after the death). The working copies stop inside their
start-up or their first request.

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.commands.why_attribute import attribute_error, keep_class_sites
from tests.batches import (
    LogCase,
    log_batch_tests,
    recorded_log_report,
    recorded_why,
)
from tests.conftest import (
    class_counts,
    last_launch,
    log_files,
    log_report,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs33"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
ERROR7 = ("LG007", "error")
ERROR11 = ("LG011", "error")
WARN17 = ("LG017", "warning")
GENERIC = (
    "Read the exception and the traceback shown; if it is a common failure, add a signature to "
    "argtrace/data/error_signatures.json."
)
MODULE_FIX = (
    "Reinstall the framework so that all its files come from one release (a clean `pip install` of it; for a "
    "source tree such as the images' /sgl-workspace checkout, a whole-tree `git status`/`git pull` and a "
    "reinstall); if a clean install of that release raises it too, the release has the bug: move to a "
    "release where the caller and the module agree (Python's \"Did you mean\" names the module's current "
    "name)"
)
NCCL_FIX = (
    "Run with NCCL_DEBUG=INFO; check shared memory (--shm-size / --ipc=host), P2P (try --enable-p2p-check or "
    "NCCL_P2P_DISABLE=1), CUDA_VISIBLE_DEVICES; unset NCCL_BUFFSIZE"
)
CUT = "the exception is not in the copy (cut before it)"

CASES = [
    LogCase(
        # was "died during a step this excerpt does not show": the exception line has no frames; the
        # scheduler's traceback below it, cut after its frames, runs through event_loop_overlap
        "flashinfer2516_sglang058_nvfp4_trtllm_gemm_runtime.log",
        "c",
        "c",
        (ERROR11, INFO10),
        "sglang",
        "failed",
        "serving",
        "Launch 1 died during serving with: RuntimeError: Error in function 'run' at "
        "/workspace/csrc/trtllm_batched_gemm_runner.cu:258: Error occurred when running GEMM!",
        GENERIC,
        cause="trtllm",
        change="--moe-runner-backend",
        missing="no catalog entry for FlashInfer's TRT-LLM batched GEMM failing while serving (an NVFP4 MoE "
        "with --moe-runner-backend flashinfer_trtllm on SGLang 0.5.8.post1); the copy holds no launch line",
    ),
    LogCase(
        # was "a step this excerpt does not show": the diffusion runtime's loop is ``event_loop`` itself; and
        # LG017 (new): the four /health answers of 200 after the death
        "sglang17874_qwen_image_multimodal_gen_scheduler_terminated_health_ok.log",
        "c",
        "c",
        (ERROR11, INFO10, WARN17),
        "sglang",
        "failed",
        "serving",
        "Launch 1 died during serving with: RuntimeError: Scheduler terminated after 3 consecutive errors. "
        "Last error: Operation cannot be accomplished in current state.",
        GENERIC,
        cause="current state",
        change="restart",
        missing="the three errors before the scheduler gave up are not in the copy (LG017 names the /health "
        "answers after the death, not why it died)",
    ),
    LogCase(
        "sglang19081_dsv32_nvfp4_specv2_cublas_execution_failed.log",
        "c",
        "c",
        (ERROR11, INFO10),
        "sglang",
        "failed",
        "serving",
        "Launch 1 died during serving with: RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED",
        GENERIC,
        cause="CUBLAS_STATUS_EXECUTION_FAILED",
        change="--speculative",
        missing="cuBLAS failing in SpecV2's EAGLE worker on an NVFP4 DeepSeek-V3.2: a kernel failure the "
        "copy's lines tie to no setting (no launch line in the copy)",
    ),
    LogCase(
        # was LG011 with the generic fix; `why` ranked server_args.py's module __getattr__ first
        "sglang9780_qwen3coder480b_deepgemm_attr_scheduler_cut.log",
        "c",
        "a",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "scheduler_init",  # "unknown" until logs34: SGLang's scheduler constructor
        "[framework-module-attribute-missing] One of the framework's own modules lacks a name another of its "
        "modules calls",
        MODULE_FIX,
        cause="different revisions",
        change="Reinstall the framework",
    ),
    LogCase(
        "vllm17756_tp8_workerproc_nccl_unhandled_cuda_error_cut.log",
        "b",
        "b",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "distributed",
        "[nccl-error] NCCL failed while setting up or using the tensor-parallel group (during initialising "
        "the distributed (NCCL) group)",
        NCCL_FIX,
        cause="unhandled cuda error",
        change="NCCL WARN",
        missing="NCCL's unhandled CUDA error at the communicator's init is named with the list of checks; "
        "the CUDA call that failed (NCCL's WARN line under NCCL_DEBUG=INFO) is not in the copy",
    ),
    LogCase(
        "vllm18302_tp2_nccl_comm_init_ranks_interleaved_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2) (during initialising the distributed (NCCL) group)",
        "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
        "`argtrace why` on the exception line names its raise site and the settings it reads.",
        cause="NCCL",
        change="--",
        missing=CUT + ": two ranks' frames interleaved, cut in ncclCommInitRank (the title: "
        "MultiprocExecutor without io_thread_pool, the aftermath)",
    ),
    LogCase(
        "vllm33970_quantized_reranker_enginecore_failed_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up",
        "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line",
        cause="quantiz",
        change="--quantization",
        missing=CUT + ": the engine core's frames stop in the executor's constructor (the title: a quantized "
        "Qwen3-Reranker-8B)",
    ),
]

# Launches that started; each copy stops inside its start-up or its serving: notes only.
OK_LOGS = {
    # was LG012 warning "has 8 line(s) but none from an SGLang or vLLM server: it cannot say what the server
    # saw"
    "gpustack5114_vllm0171_reranker_container_start_cut.log": (
        (("LG012", "info"),),
        "of GPUStack's worker (`2026-04-09 11:01:56.868277+08:00 - gpustack.worker.backends.vllm - INFO - "
        "Creating vLLM container workload: qwen3-vl-...`), which starts the vLLM server in a container it "
        "creates, and none of the server's own",
    ),
    "sglang13591_startup_complete_tel_links.log": ((INFO10,), "begins mid-start-up"),
}


def test_the_batch() -> None:
    assert len(CASES) == 7
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([0, 1, 6, 0], [1, 1, 5, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [7, 7]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order)
WHY = {
    "flashinfer2516_sglang058_nvfp4_trtllm_gemm_runtime": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
    ),
    # the raise site, and the counter it reads; why the three errors came is not in the text
    "sglang17874_qwen_image_multimodal_gen_scheduler_terminated_health_ok": (
        "strong",
        "Scheduler.event_loop",
        [],
    ),
    "sglang19081_dsv32_nvfp4_specv2_cublas_execution_failed": (
        "strong",
        "SignalHandler.running_phase_sigquit_handler",
        ["sglang-child-failed", "sglang-scheduler-exception"],
    ),
    # was "__getattr__" first (sglang/srt/server_args.py's module __getattr__, Python's words with the
    # module a placeholder) and no signature of its own
    "sglang9780_qwen3coder480b_deepgemm_attr_scheduler_cut": (
        "strong",
        "run_scheduler_process",
        ["framework-module-attribute-missing", "sglang-scheduler-exception"],
    ),
    "vllm17756_tp8_workerproc_nccl_unhandled_cuda_error_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-worker-proc-failed", "vllm-engine-core-failed", "nccl-error"],
    ),
    "vllm18302_tp2_nccl_comm_init_ranks_interleaved_cut": ("none", None, []),
    "vllm33970_quantized_reranker_enginecore_failed_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
    ),
}
# before, after (docs/real_cases.md): sglang9780 from a wrong first site (d) to its own entry (a)
WHY_CLASSES = ([0, 1, 5, 1], [1, 1, 5, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=9))


def test_why_reads_pythons_attribute_error_on_a_framework_module() -> None:
    section = recorded_why(LOGS / "why" / "sglang9780_qwen3coder480b_deepgemm_attr_scheduler_cut.txt")
    assert all(g.get("function") != "__getattr__" for g in section["matches"])
    found = section["attribute"]
    assert (found["module"], found["attribute"]) == (
        "sglang.srt.layers.quantization.deep_gemm_wrapper",
        "get_col_major_tma_aligned_tensor",
    )
    assert "(Python's guess: the module has 'get_mn_major_tma_aligned_tensor'" in found["meaning"]
    assert section["signatures"][0]["fix"] == MODULE_FIX


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("AttributeError: module 'vllm.foo.bar' has no attribute 'baz'", "vllm.foo.bar"),
        ("AttributeError: module 'sglang.srt.x' has no attribute 'y'. Did you mean: 'z'?", "sglang.srt.x"),
        # another package's module: not the framework's own files
        ("AttributeError: module 'torch.foo' has no attribute 'bar'", None),
    ],
    ids=["vllm", "sglang_did_you_mean", "torch"],
)
def test_pythons_attribute_error_on_a_framework_module(tmp_path: Path, line: str, module: str | None) -> None:
    report = log_report(written_log(tmp_path, line + "\n"))
    ids = [f["message"].split("]")[0] for f in report["findings"] if f["code"] == "LG007"]
    assert ("[framework-module-attribute-missing" in ids) is (module is not None)
    found = attribute_error(line)
    assert (found or {}).get("module") == module


def test_a_module_getattr_of_another_module_is_not_the_site() -> None:
    # a module-level ``__getattr__`` printing Python's words with the module as a placeholder: only its own
    # module's missing names are its
    site = {"function": "__getattr__", "message": "module {__name__} has no attribute {name}"}
    other = {**site, "file": "sglang/srt/server_args.py"}
    own = {**site, "file": "sglang/srt/layers/x.py"}
    worded = {"function": "f", "message": "module {m} is missing {name}: reinstall it", "file": "a/b.py"}
    assert keep_class_sites([other, own, worded], None, "sglang.srt.layers.x") == [own, worded]


def test_gpustacks_worker_lines_point_at_the_instances_log(tmp_path: Path) -> None:
    text = (
        "2026-04-09 11:01:56.623590+08:00 - gpustack.worker.backends.sglang - INFO - Starting SGLang model "
        "instance: m-1\n"
        "2026-04-09 11:01:56.868277+08:00 - gpustack.worker.backends.sglang - INFO - Starting SGLang server\n"
    )
    report = log_report(written_log(tmp_path, text))
    (found,) = report["findings"]
    assert (found["code"], found["severity"]) == ("LG012", "info")
    assert "which starts the SGLang server as a process of its own" in found["message"]
    assert found["fix"] == (
        "Give argtrace the model instance's log (GPUStack shows it for the instance; for a container it "
        "created, `docker logs` of that container)."
    )


@pytest.mark.parametrize(
    ("tail", "stage"),
    [
        # another rank's traceback under the exception, cut after its frames: the event loop, so serving
        (
            "[2026-02-20 03:26:00 TP4] Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/x/sglang/srt/managers/scheduler.py", line 3160, in run_scheduler_process\n'
            "    scheduler.event_loop_overlap()\n",
            "serving",
        ),
        # nothing after it: where it died is not in the copy
        ("", "unknown"),
    ],
    ids=["cut_traceback_below", "alone"],
)
def test_an_exception_without_frames_takes_the_stage_of_the_cut_traceback_below(
    tmp_path: Path, tail: str, stage: str
) -> None:
    text = "RuntimeError: CUDA error: an illegal memory access was encountered\n\n" + tail
    report = log_report(written_log(tmp_path, text))
    assert last_launch(report)["stage"] == stage


def test_the_diffusion_runtimes_event_loop_is_serving(tmp_path: Path) -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/multimodal_gen/runtime/managers/gpu_worker.py", line 334, in '
        "run_scheduler_process\n"
        "    scheduler.event_loop()\n"
        '  File "/x/sglang/multimodal_gen/runtime/managers/scheduler.py", line 359, in event_loop\n'
        "    raise RuntimeError(\n"
        "RuntimeError: Scheduler terminated after 3 consecutive errors. Last error: boom\n"
    )
    report = log_report(written_log(tmp_path, text))
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("failed", "serving")


HEALTH = '[2026-01-28 08:52:46] INFO:     172.31.0.80:50570 - "GET /health HTTP/1.1" 200 OK\n'
DEATH = (
    "[2026-01-28 08:52:45 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/x/sglang/srt/managers/scheduler.py", line 1, in event_loop_overlap\n'
    "RuntimeError: boom\n"
)


def test_the_health_answers_after_the_death_are_read() -> None:
    report = recorded_log_report(
        LOGS / "sglang17874_qwen_image_multimodal_gen_scheduler_terminated_health_ok.log"
    )
    (found,) = [f for f in report["findings"] if f["code"] == "LG017"]
    assert found["message"].startswith(
        "The server answered 4 health check(s) with 200 after the launch died at line 11 (lines 14-17)"
    )
    assert found["fix"] == (
        "Restart the server: the process that served requests is gone and does not come back. SGLang's "
        "diffusion server answers /health without asking its scheduler in 0.5.10.post1; 0.5.23 answers 503 "
        "once a scheduler worker exited: a release with that check lets the probe see the death."
    )


@pytest.mark.parametrize(
    ("text", "answered"),
    [
        (DEATH + HEALTH + HEALTH, 2),
        # answers before the death: a server that served, then died
        (HEALTH + DEATH, 0),
        # a 503 after the death: the probe saw it
        (DEATH + HEALTH.replace('" 200 OK', '" 503 Service Unavailable'), 0),
    ],
    ids=["after", "before", "unhealthy"],
)
def test_health_answers_of_200_after_a_death(tmp_path: Path, text: str, answered: int) -> None:
    report = log_report(written_log(tmp_path, text))
    found = [f for f in report["findings"] if f["code"] == "LG017"]
    assert len(found) == (1 if answered else 0)
    if answered:
        assert f"answered {answered} health check(s) with 200" in found[0]["message"]
        assert "SGLang's /health_generate" in found[0]["fix"]


# --- the fast paths read the batch as the slow one ----------------------------------------------------------
