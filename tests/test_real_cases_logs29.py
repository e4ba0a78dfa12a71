"""Real server logs, session 29's batch (docs/real_cases.md, "Logs, 16th batch"): 15 failures, 4 working.

Each ``*.log`` under ``tests/data/real_cases_logs29/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it (prefixes kept as posted), behind a ``# source:`` header line with
the URL and the date (the year alone where the copy shows no post date: vllm#54526's lines say 08-31, its
image v0.28.0). The areas the batch went for: memory at start-up (a Mamba state pool's allocation, the
free-memory check of an instance its controller restarted again and again, the sampler's warm-up after the
CUDA graphs, a Marlin repack under WSL2), speculative drafts' loading (EAGLE3 heads in vLLM and SGLang, a
plain draft model), logs of 2026 releases. Their forms: a log collector's ``[time] pod >> (SGLangEngine
pid=N)`` before SGLang's lines (slime#1177), a traceback whose quotes a JSON string escaped
(``File \\"...\\"``, sglang#15050), a vLLM traceback whose lines the report ran into one line (vllm#31883), a
screenshot's text with its misread characters (AngelSlim#16), a frame the report wrapped after its path
(sglang#24364), the report's own ``[...]`` (syv-ai/qwen38-27b-rtx3090#1). ``ok/`` holds working launches
(vLLM's API server up with an EAGLE3 draft, SGLang's capture lines of three runs under the report's labels, a
hybrid model's workers loading an MTP draft, SGLang decoding with HiCache and a draft). ``why/`` holds each
failure's error text (its lines from the first line naming an error, a failure or a death on; the whole copy
where none does).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): the exception of
vllm26328 (after ``WorkerProc failed to start.``), vllm54526 (in the drafter's ``_get_model``), sglang8229 (in
``EAGLEWorker.__init__``), sglang5448 (in the scheduler's constructor), slime1177 and sglang15050 (in the
scheduler's event loop), modelopt628 and vllm25134 (in the engine's constructor), syvai1 (in Marlin's repack,
after the report's ``[...]``), vllm_pr14728 (in the sampler's warm-up), vllm27194 (inside the engine's dump of
its scheduler output), angelslim16 (in the draft's CUDA graph capture, below CUDA's device-side assertions);
sglang24364 stops inside the OOM's own message. llmdfma709 is the one line the report quotes of an instance
its controller restarted repeatedly. The working copies stop inside their start-up or serving.

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log.launch import Launch, stage_after
from argtrace.layers.log.lines import _decode
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.stages import frames_stage
from tests.batches import (
    LogCase,
    log_batch_tests,
    recorded_why,
)
from tests.conftest import (
    class_counts,
    last_launch,
    log_files,
    log_report,
    written_log,
)

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs29"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
INFO12 = ("LG012", "info")
ERROR3 = ("LG003", "error")
ERROR4 = ("LG004", "error")
ERROR7 = ("LG007", "error")
CUT = "the exception is not in the copy (cut before it)"
CUT_TB = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
READ_AFTER = "Read the traceback after this line"
READ_ABOVE = "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line"
SCHEDULER = "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during "
ENGINE_FAILED = (
    "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
    "above it (during a step this excerpt does not show)"
)
DRAFT_FIX = (
    "In --speculative-config use a method this release runs with a matching draft (eagle or eagle3 with an "
    "EAGLE head, mtp for a model with MTP layers, ngram without a draft model), or upgrade vLLM to 0.15.1 or "
    "later, whose method draft_model runs a plain draft model"
)
MID_START = "begins mid-start-up"

CASES = [
    LogCase(
        "angelslim16_draft_cuda_graph_index_out_of_bounds.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        SCHEDULER + "capturing CUDA graphs). Line: Scheduler hit an exception:",
        READ_AFTER,
        cause="index out of bounds",
        change="draft",
        missing="CUDA's device-side assertion (`index out of bounds` in IndexKernel.cu) above the "
        "scheduler's exception is read as no error: a draft whose token ids index past an embedding, "
        "capturing the draft's CUDA graphs; the report does not say which ids",
    ),
    LogCase(
        "llmdfma709_restart_loop_free_memory_line.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "weights",
        "[vllm-free-memory-below-utilization] Another process holds GPU memory",
        "Stop the other process on that GPU (nvidia-smi), choose another GPU, or lower "
        "--gpu-memory-utilization",
        cause="free memory",
        change="--gpu-memory-utilization",
    ),
    LogCase(
        "modelopt628_eagle3_enginecore_traceback_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2) that the file cuts before its exception line",
        CUT_TB,
        cause="eagle",
        change="--speculative-config",
        missing=CUT + ": the engine's traceback stops in EngineCore.__init__ (the title: an EAGLE3 head "
        "exported by Model-Optimizer)",
    ),
    LogCase(
        # was "(during serving). Line: Scheduler hit an exception:" without the cut: the frames' quotes
        # escaped as in a JSON string (``File \"...\"``) were no frames
        "sglang15050_json_escaped_quotes_eagle_grammar_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHEDULER + "serving). Its traceback is cut after its last frame (managers/scheduler.py, run_batch)",
        READ_AFTER,
        cause="grammar",
        change="--grammar-backend",
        missing=CUT + ": the scheduler's traceback stops at eagle_worker.py's frame (the title: xgrammar's "
        "GrammarMatcher under the EAGLE worker)",
    ),
    LogCase(
        "sglang24364_wsl2_mamba_pool_oom_cut.log",
        "b",
        "b",
        (ERROR3,),
        None,
        "failed",
        "unknown",
        "[cuda-oom] The GPU ran out of memory (during a step this excerpt does not show). Line: "
        "torch.OutOfMemoryError: CUDA out of memory.",
        "Lower the memory fraction, the batch size (--max-running-requests / --max-num-seqs) or "
        "--chunked-prefill-size",
        cause="Mamba",
        change="--max-mamba-cache-size",
        missing="the frame above the OOM (memory_pool.py, in _init_mamba_pool) is wrapped after its path and "
        "has no prefix: the scan keeps no such line, so the step (the Mamba pool, cuda-oom-mamba-cache's "
        "fix) is not read; the report's cause (WSL2's hidden CUDA overhead) is in no line",
    ),
    LogCase(
        "sglang5448_eagle3_sigquit_scheduler_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "unknown",
        SCHEDULER + "a step this excerpt does not show). Its traceback is cut after its last frame "
        "(managers/scheduler.py, run_scheduler_process)",
        READ_AFTER,
        cause="eagle",
        change="--speculative",
        missing=CUT + ": the scheduler's traceback stops in its constructor",
    ),
    LogCase(
        "sglang8229_eagle3_official_scheduler_eagleworker_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "draft_worker",
        SCHEDULER + "starting the speculative draft worker). Its traceback is cut after its last frame "
        "(speculative/eagle_worker.py, __init__)",
        READ_AFTER,
        cause="eagle3",
        change="--speculative-draft-model-path",
        missing=CUT + ": the traceback stops in EAGLEWorker.__init__",
    ),
    LogCase(
        # was "Line: leihaodi-...-cfcd2 >> (SGLangEngine pid=3111) [2025-12-18 08:24:01 TP7] Scheduler hit an
        # exception:" (the collector's pod name and ``>>`` kept, so its frames were no frames)
        "slime1177_k8s_ray_prefix_scheduler_event_loop_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "serving",
        SCHEDULER + "serving). Its traceback is cut after its last frame (utils/_contextlib.py, "
        "decorate_context), before its exception line: the error that names the cause is not in the copy. "
        "Line: Scheduler hit an exception:",
        READ_AFTER,
        cause="eagle3",
        change="--speculative",
        missing=CUT + ": the scheduler's event loop, cut in torch's decorate_context",
    ),
    LogCase(
        "syvai1_wsl2_marlin_repack_enginecore_failed_elided.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE_FAILED + ". Line: EngineCore failed to start.",
        READ_ABOVE,
        cause="out of memory",
        change="--gpu-memory-utilization",
        missing=CUT + ": the report's [...] and a frame in marlin.py cut after its line number (the "
        "report: CUDA OOM while Marlin repacks the weights under WSL2)",
    ),
    LogCase(
        "vllm25134_eagle3_qwen3_30b_fp8_enginecore_failed_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "unknown",
        ENGINE_FAILED + ". Its traceback is cut after its last frame (engine/core.py, __in)",
        READ_ABOVE,
        cause="eagle3",
        change="--speculative-config",
        missing=CUT + ": the engine's traceback stops in its constructor",
    ),
    LogCase(
        # was "(during loading the weights)": "Loading drafter model..." was read as the draft's end
        "vllm26328_eagle3_gptoss_drafter_workerproc_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "draft_worker",
        "[vllm-worker-proc-failed] A worker process of vLLM's multiprocess executor raised while it started "
        "(its device, distributed set-up, weights or KV cache); the traceback after this line ends in its "
        "exception (during starting the speculative draft worker). Line: WorkerProc failed to start.",
        "Read the traceback after this line: its last line is the worker's exception (the engine's 'Engine "
        "core initialization failed' below it only repeats that a worker died)",
        cause="eagle3",
        change="draft_tensor_parallel_size",
        missing=CUT + ": the worker's traceback is below the copy's last line",
    ),
    LogCase(
        "vllm27194_dump_input_scheduler_output_cut.log",
        "c",
        "c",
        (INFO12,),
        None,
        None,
        None,
        "has 3 line(s), 1 of them logged by vLLM's own processes (`EngineCore_DP0`), and none that shows a "
        "start-up step, an error or a serving line",
        "Give argtrace the server's whole log, from its start (the terminal, `docker logs`, `kubectl logs`, "
        "the journal).",
        cause="EngineDeadError",
        change="--",
        missing="the copy holds the engine's dump of one step's scheduler output (a 70,730-token prompt), "
        "cut before the engine's exception",
    ),
    LogCase(
        # was c: no finding at all (a failed launch read as "incomplete"): the report's lines ran into one,
        # each behind its ``(APIServer pid=135812)`` tag, the exception in the middle
        "vllm31883_wsl2_draft_model_not_supported_one_line.log",
        "c",
        "a",
        (ERROR4,),
        "vllm",
        "failed",
        "validation",
        "[vllm-spec-draft-model-unsupported] This vLLM runs no plain draft model",
        DRAFT_FIX,
        cause="draft model",
        change="--speculative-config",
    ),
    LogCase(
        # was "begins mid-start-up" alone: the copy's last lines after the last whole frame (its source line,
        # ^^^, a frame cut inside its path) hid that it stops inside a traceback
        "vllm54526_speculators_eagle3_drafter_get_model_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 3) (during starting the speculative draft worker) that "
        "the file cuts before its exception line: the launch was failing there, and the exception that names "
        "the cause is not in the copy. Its last frame: spec_decode/llm_base_proposer.py, in load_model.",
        CUT_TB,
        cause="speculators",
        change="--speculative-config",
        missing=CUT + ": the drafter's _get_model (the title: an EAGLE3 head trained with speculators)",
    ),
    LogCase(
        # was "(during loading the weights)", a wrong claim: the excerpt starts at "Graph capturing finished"
        "vllm_pr14728_sampler_oom_enginecore_hit_exception_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "vllm",
        "failed",
        "warmup",
        "(during warming the model up (its dummy runs after the KV cache was allocated)). Its traceback is "
        "cut after its last frame (modules/module.py, _call_impl)",
        "Read the traceback this line begins: its last line is the engine's exception",
        cause="out of memory",
        change="--max-num-seqs",
        missing=CUT + ": the sampler's warm-up, cut in torch's module call (the PR: CUDA out of memory "
        "warming up the sampler)",
    ),
]

# Launches that started; each copy stops inside its start-up or its serving: notes only.
OK_LOGS = {
    "club3090_602_mtp_mamba_worker_lines.log": ((INFO10, INFO10), MID_START),
    "sglang_pr30393_hicache_decode_accept_len.log": ((INFO10,), MID_START),
    "sglang_pr5893_h200_capture_bs256_runs.log": ((INFO10, INFO10), MID_START),
    "vllm_pr34022_eagle3_draft_load_config_started.log": ((INFO10,), MID_START),
}


def test_the_batch() -> None:
    assert len(CASES) == 15
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([1, 1, 13, 0], [2, 1, 12, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [15, 15]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order, its fix holds)
WRAPPED = "the exception at the end of that traceback is the cause"
AFTER = "the text after the message is the cause"
WHY = {
    "angelslim16_draft_cuda_graph_index_out_of_bounds": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        AFTER,
    ),
    "llmdfma709_restart_loop_free_memory_line": (
        "strong",
        "request_memory",
        ["vllm-free-memory-below-utilization"],
        "stop them or give the server another GPU",
    ),
    "modelopt628_eagle3_enginecore_traceback_cut": ("none", None, [], None),
    "sglang15050_json_escaped_quotes_eagle_grammar_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        AFTER,
    ),
    # b: the OOM named, its step not (the frame above it is not in the error text)
    "sglang24364_wsl2_mamba_pool_oom_cut": ("none", None, ["cuda-oom"], None),
    "sglang5448_eagle3_sigquit_scheduler_cut": (
        "strong",
        "_set_envs_and_config.launch_phase_sigquit_handler",
        ["sglang-child-failed", "sglang-scheduler-exception"],
        "avoid the call path that reaches it",
    ),
    "sglang8229_eagle3_official_scheduler_eagleworker_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        AFTER,
    ),
    "slime1177_k8s_ray_prefix_scheduler_event_loop_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
        AFTER,
    ),
    "syvai1_wsl2_marlin_repack_enginecore_failed_elided": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "vllm25134_eagle3_qwen3_30b_fp8_enginecore_failed_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-failed"],
        WRAPPED,
    ),
    "vllm26328_eagle3_gptoss_drafter_workerproc_cut": (
        "strong",
        "WorkerProc.worker_main",
        ["vllm-worker-proc-failed"],
        WRAPPED,
    ),
    "vllm27194_dump_input_scheduler_output_cut": (
        "strong",
        "_dump_engine_exception",
        [],
        "avoid the call path that reaches it",
    ),
    # was b (the site, with a sibling branch's condition for its fix): the catalog's entry now (a)
    "vllm31883_wsl2_draft_model_not_supported_one_line": (
        "strong",
        "SpeculativeConfig.__post_init__",
        ["vllm-spec-draft-model-unsupported"],
        "change --model, --speculative-config",
    ),
    "vllm54526_speculators_eagle3_drafter_get_model_cut": ("none", None, [], None),
    "vllm_pr14728_sampler_oom_enginecore_hit_exception_cut": (
        "strong",
        "EngineCoreProc.run_engine_core",
        ["vllm-engine-core-hit-exception"],
        AFTER,
    ),
}
# before, after (docs/real_cases.md): a the free-memory check, then the draft-model entry; b the OOM without
# its step (and vllm31883's site before)
WHY_CLASSES = ([1, 2, 12, 0], [2, 1, 12, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=19))


def test_why_gives_the_draft_model_entrys_fix() -> None:
    section = recorded_why(LOGS / "why" / "vllm31883_wsl2_draft_model_not_supported_one_line.txt")
    assert section["signatures"][-1]["fix"] == DRAFT_FIX


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


def test_a_vllm_traceback_run_into_one_line_is_read_line_by_line(tmp_path: Path) -> None:
    # vllm#31883's form: every line behind its process tag, the newlines lost
    text = (
        '(APIServer pid=7)   File "/x/vllm/config/speculative.py", line 380, in __post_init__ '
        "(APIServer pid=7)     raise NotImplementedError( (APIServer pid=7) NotImplementedError: Speculative "
        "decoding with draft model is not supported yet. Please consider using other speculative decoding "
        "methods such as ngram, medusa, eagle, or mtp.\n"
    )
    report = log_report(written_log(tmp_path, text))
    first = report["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*ERROR4, DRAFT_FIX)
    assert first["message"].startswith("[vllm-spec-draft-model-unsupported] ")


def test_a_tag_inside_a_line_of_another_name_does_not_split_it(tmp_path: Path) -> None:
    # only vLLM's own process names split a line; a request's text quoting "(Foo pid=1) " stays one line
    text = "(APIServer pid=7) INFO 01-07 10:00:00 [serving.py:1] prompt: 'see (Foo pid=1) INFO here'\n"
    from argtrace.layers.log.pasted import unjoined
    from argtrace.layers.log.reader import Line

    assert [line.text for line in unjoined([Line(1, text.strip())])] == [text.strip()]


@pytest.mark.parametrize(
    ("line", "body", "proc"),
    [
        (
            "[2025-12-18T16:24:02+08:00] pod-a1.b >> (SGLangEngine pid=3111) [2025-12-18 08:24:01 TP7] "
            "Scheduler hit an exception: Traceback (most recent call last):",
            "Scheduler hit an exception: Traceback (most recent call last):",
            "SGLangEngine",
        ),
        # without an outer time before it, ``name >>`` is the line's own text
        ("pod-a1 >> (SGLangEngine pid=3111) hello", "pod-a1 >> (SGLangEngine pid=3111) hello", None),
    ],
)
def test_a_log_collectors_source_name_is_a_prefix(line: str, body: str, proc: str | None) -> None:
    parsed = split_prefix(line)
    assert (parsed.body, parsed.proc) == (body, proc)


def test_a_frame_with_json_escaped_quotes_is_read_as_a_frame() -> None:
    raw = b'  File \\"/sgl/python/sglang/srt/managers/scheduler.py\\", line 989, in event_loop_normal'
    assert (
        _decode(raw)
        == '  File "/sgl/python/sglang/srt/managers/scheduler.py", line 989, in event_loop_normal'
    )
    # a line without a frame keeps its backslashes (a logged JSON string's own)
    assert _decode(b'INFO body: {\\"a\\": 1}') == 'INFO body: {\\"a\\": 1}'


def test_loading_the_drafter_begins_the_draft_step(tmp_path: Path) -> None:
    # vLLM 0.33.0 gpu_model_runner.py:5010 logs "Loading drafter model..." before loading the draft
    text = (
        "(Worker_TP0 pid=529) INFO 10-06 18:54:29 [gpu_model_runner.py:2641] Loading drafter model...\n"
        "(Worker_TP0 pid=529) ERROR 10-06 18:54:30 [multiproc_executor.py:597] WorkerProc failed to start.\n"
    )
    report = log_report(written_log(tmp_path, text))
    assert "(during starting the speculative draft worker)" in report["findings"][0]["message"]
    assert last_launch(report)["stage"] == "draft_worker"


def test_a_speculative_vllm_launch_past_model_loading_is_past_its_draft(tmp_path: Path) -> None:
    # "Model loading took" follows the target's and the draft's loading: a log that stops after the CUDA
    # graphs stops before the server's start, not "before the draft worker"
    text = (
        "(APIServer pid=1) INFO 10-06 18:54:00 [utils.py:328] non-default args: {'model_tag': 'm', "
        "'speculative_config': {'method': 'eagle3', 'model': 'd', 'num_speculative_tokens': 3}}\n"
        "(EngineCore_DP0 pid=9) INFO 10-06 18:54:29 [gpu_model_runner.py:2641] Loading drafter model...\n"
        "(EngineCore_DP0 pid=9) INFO 10-06 18:54:31 [gpu_model_runner.py:2700] Model loading took 20.5 GiB "
        "and 30.1 seconds\n"
        "(EngineCore_DP0 pid=9) INFO 10-06 18:55:01 [gpu_worker.py:300] Available KV cache memory: 30.0 GiB\n"
        "(EngineCore_DP0 pid=9) INFO 10-06 18:55:30 [gpu_model_runner.py:3000] Graph capturing finished in "
        "20 secs, took 0.5 GiB\n"
    )
    report = log_report(written_log(tmp_path, text))
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG010", "warning")]
    assert (
        "stops after cuda_graph_captured (line 5) without an error and before server_ready"
        in (report["findings"][0]["message"])
    )
    assert "draft" not in report["findings"][0]["message"]


@pytest.mark.parametrize(
    ("frames", "stage"),
    [
        # vLLM's drafter loading its model (llm_base_proposer.py, eagle.py under v1/spec_decode/)
        (
            [
                '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 5445, in load_model',
                '  File "/x/vllm/v1/spec_decode/llm_base_proposer.py", line 1346, in load_model',
            ],
            "draft_worker",
        ),
        # the drafter proposing while the engine serves: not its loading
        (['  File "/x/vllm/v1/spec_decode/eagle.py", line 200, in propose'], None),
        # the warm-up after the KV cache; the profile run that sizes it
        (
            [
                '  File "/x/vllm/v1/worker/gpu_worker.py", line 400, in compile_or_warm_up_model',
                '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 5900, in _dummy_sampler_run',
            ],
            "warmup",
        ),
        (
            [
                '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 6072, in profile_run',
                '  File "/x/vllm/v1/worker/gpu_model_runner.py", line 5900, in _dummy_sampler_run',
            ],
            "kv_cache",
        ),
    ],
    ids=["drafter_load", "drafter_propose", "warm_up", "profile_run"],
)
def test_the_frames_name_the_draft_and_warm_up_steps(frames: list[str], stage: str | None) -> None:
    assert frames_stage(frames, "") == stage


def test_a_later_step_says_the_earlier_ones_ended() -> None:
    from argtrace.layers.log.launch import Event

    launch = Launch(index=1, first_line=2)
    launch.framework = "vllm"
    launch.post_args_evidence = True
    launch.events["cuda_graph_captured"] = Event("cuda_graph_captured", 2, None)
    assert stage_after(launch, 3) == "warmup"
    launch.warmed_up_line = 3
    assert stage_after(launch, 4) == "serving"


# --- the fast paths read the batch as the slow one ----------------------------------------------------------
