"""Real server logs, 3rd batch (docs/real_cases.md, "Logs, 3rd batch"): 20 failed launches and 2 working ones.

Each file under ``tests/data/logs_3/`` is a log quoted in a public report (2025-2026; vLLM 0.7-0.20 and
vllm-ascend/vllm-omni builds, SGLang 0.4-0.5 and its 2026 main), saved as the stored copy of the report
gives it: its first line names the URL and what the copy cut. ``ok/`` holds two working launches. The
command is ``argtrace log FILE --format json`` on a new user's machine.

Classes as in the other batches: ``a`` the root cause and the right setting or change among the errors and
warnings, ``b`` named but only as a note or without a change, ``c`` not named, ``d`` a wrong error or
warning or a wrong claim (release, launch split, hang). ``CASES`` holds what each gives now, exactly; every
case not ``a`` has a strict ``xfail`` naming the mechanism it lacks (for most, the copy does not hold the
cause, which no reader of that file can name). The mechanisms this batch added have variants on minimal
inputs below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log.prefilter import gnu_grep
from argtrace.layers.log.prefix import split_prefix
from argtrace.layers.log.stages import frames_stage, runtime_module
from tests.batches import LogCase, assert_what_the_log_gives, not_class_a, recorded_log_report
from tests.conftest import (
    assert_working_launch,
    class_counts,
    last_launch,
    log_files,
    log_report,
    names_the_cause_and_the_change,
    written_log,
)
from tests.log.test_fast_equals_slow import _answers

LOGS = Path(__file__).resolve().parent / "data" / "logs_3"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

EXCERPT = (
    "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
    "journal; or relaunch with the log kept whole."
)
CAPTURE_FIX = (
    "It failed inside the CUDA graph capture. Relaunch with --enforce-eager to confirm (or a smaller "
    "--max-cudagraph-capture-size, --max-seq-len-to-capture before 0.11), then try "
    "--disable-custom-all-reduce."
)
OOM_FIX = (
    "Lower the memory fraction, the batch size (--max-running-requests / --max-num-seqs) or "
    "--chunked-prefill-size"
)
ILLEGAL_ACCESS_FIX = (
    "Relaunch with CUDA_LAUNCH_BLOCKING=1 (slow: for finding it only) so the traceback names the kernel that "
    "faulted; then run without that kernel (another attention backend or quantization kernel; "
    "--enforce-eager, SGLang --disable-cuda-graph, when it happens only under CUDA graphs; "
    "--disable-custom-all-reduce) and report it with that traceback to the server's project"
)
STOP_FIX = (
    "Wait and read again, check `dmesg` for the OOM killer, or keep the whole log (no `> log` truncation)."
)
# logs18: an args dump cut short has its own fix (read the line where the server wrote it)
CUT_LINE_FIX = (
    "Read the line whole where the server wrote it (the file, the terminal or the journal; a copy or a "
    "viewer cut it here)."
)


INFO10 = ("LG010", "info")
# logs18: a copy that stops inside a traceback (LG010 "stops inside a traceback")
CUT_TB_FIX = (
    "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
    "`argtrace why` on the exception line names its raise site and the settings it reads."
)
CASES = [
    LogCase(
        # logs21: CUDA's stream-capture error has its own entry (was LG011 with the capture's switch)
        "vllm_pr36634_capture_triton_chained.log",
        "b",
        "a",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "cuda_graph",
        "[cuda-stream-capture-error] A CUDA call was made that is not allowed while a CUDA graph is being "
        "captured",
        "Relaunch with --enforce-eager (SGLang: --disable-cuda-graph) to confirm the capture is what fails; "
        "then run the release before the one that failed or another attention backend and report the op the "
        "traceback names (vLLM can also capture piecewise graphs only: --compilation-config "
        '\'{"cudagraph_mode": "PIECEWISE"}\')',
    ),
    LogCase(
        "vllm36861_pp_no_cache_blocks.log",
        "a",
        "a",
        (("LG003", "error"), INFO10),
        "vllm",
        "failed",
        "kv_cache",
        "[vllm-no-kv-cache-memory] After weights and activations, nothing was left for the KV cache within "
        "gpu_memory_utilization (during allocating the KV cache).",
        "Raise --gpu-memory-utilization, shard the model (--tensor-parallel-size) or use a smaller/quantized "
        "model",
    ),
    LogCase(
        "vllm_omni1084_stage_prefix_failed.log",
        "c",
        "c",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-failed] vLLM's engine process died during start-up; the cause is the first error "
        "above it (during a step this excerpt does not show). Its traceback is cut after its last frame "
        "(engine/core.py, __init__), before its exception line: the error that names the cause is not in the "
        "copy. Line: EngineCore failed to start.",
        "Read the first ERROR/traceback printed by the EngineCore or Worker process above this line",
        cause="out of memory",
        change="--gpu-memory-utilization",
        missing="the cause (an OOM, says the title) is not in the copy, which stops inside the traceback",
    ),
    LogCase(
        "vllm_ascend10363_v0202_config_line.log",
        "d",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "weights",
        "Launch 1 begins mid-start-up (its first line here, 2,",
        EXCERPT,
        cause="Error",
        change="--",
        missing="the error is not in the copy (the engine's configuration line only); was LG010 warning "
        "'stops after model_config' on an excerpt",
        version="0.20.2",
    ),
    LogCase(
        "vllm_ascend4503_v0110_dp_config.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "weights",
        "Launch 1 begins mid-start-up (its first line here, 3,",
        EXCERPT,
        cause="Error",
        change="--data-parallel-size",
        missing="the DP start-up error is not in the copy (cut inside the configuration line)",
        version="0.11.0",
    ),
    LogCase(
        "sglang15385_dp_multinode_mixed_formats.log",
        "d",
        "c",
        (INFO10,),
        "sglang",
        "incomplete",
        "unknown",
        "Launch 1 begins mid-start-up (its first line here, 2,",
        EXCERPT,
        cause="dist_init_addr",
        change="--dist-init-addr",
        missing="the crash is not in the copy; was LG012 warning 'none from an SGLang or vLLM server'",
    ),
    LogCase(
        "sglang24843_think_end_token.log",
        "d",
        "a",
        (("LG011", "error"), INFO10),
        "sglang",
        "failed",
        "unknown",
        "Launch 1 died during a step this excerpt does not show with: ValueError: think_end_token '</think>' "
        "must encode to exactly one token for constrained reasoning.. sglang raises it in "
        "ReasonerGrammarBackend.__init__ (sglang/srt/constrained/reasoner_grammar_backend.py) when "
        "`len(think_end_ids) != 1`, which reads --reasoning-parser.",
        "Change --reasoning-parser so that `len(think_end_ids) != 1` no longer holds (`argtrace why` on the "
        "message shows the site in every release).",
    ),
    LogCase(
        "vllm5613_ray_ansi_capture.log",
        "c",
        "c",
        (),
        "vllm",
        "incomplete",
        "validation",
        "",
        None,
        cause="invalid argument",
        change="--disable-custom-all-reduce",
        missing="the error is not in the copy; Ray's colour codes and carriage returns as pager text "
        "(`ESC[36m`, `^M`) hide the capture bars from every anchor",
    ),
    LogCase(
        "vllm13978_chat_template_first_request.log",
        "c",
        "c",
        (INFO10,),
        "vllm",
        "incomplete",
        "validation",
        "stops inside a traceback (from line 4)",
        CUT_TB_FIX,
        cause="template",
        change="--chat-template",
        missing="the template error is cut by the copy; a 500 access line is one of lines.BORING's, dropped "
        "before the analyser, so nothing says the server was serving",
    ),
    LogCase(
        # was LG010 "stops inside a traceback (from line 6)": vLLM 0.8's wrapper line read since logs25
        "vllm17095_dp_tp_two_nodes.log",
        "c",
        "c",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "[vllm-engine-core-hit-exception] vLLM's V1 engine core process raised",
        "Read the traceback this line begins: its last line is the engine's exception",
        cause="Error",
        change="--data-parallel",
        missing="the exception is cut by the copy",
    ),
    LogCase(
        "sglang3783_four_nodes_interleaved.log",
        "b",
        "b",
        (INFO10, INFO10),
        "sglang",
        "incomplete",
        "kv_cache",
        "Launch 1 begins mid-start-up (its first line here, 2,",
        EXCERPT,
        cause="timeout",
        change="--dist-timeout",
        missing="the watchdog timeout is not in the copy; the step after the weights is named as a note",
    ),
    LogCase(
        "vllm27466_serving_engine_dead.log",
        "d",
        "c",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "serving",
        # the API server's EngineDeadError only follows the engine's failure (logs22's `vllm-engine-dead`)
        "[vllm-engine-dead] vLLM's API server found its engine core process dead",
        "Read the first error the EngineCore or a Worker process printed above this line (its "
        "traceback's last "
        "line, after 'EngineCore encountered a fatal error.'): that is the cause; when there is none, "
        "the engine "
        "was killed without a trace (check `dmesg` for the OOM killer)",
        cause="out of memory",
        change="--max-num-seqs",
        missing="the engine's own error (an OOM under load, says the report) is not in the copy; was LG011 "
        "and LG001 errors 'died during argument validation'",
    ),
    LogCase(
        # was two warnings (logs26: a dump the file's end cuts is the copy's cut, notes)
        "aibrix1154_kubectl_logs_joined.log",
        "c",
        "c",
        (("LG010", "info"), ("LG010", "info")),
        "vllm",
        "incomplete",
        "weights",
        "The args Namespace dump at line 2 is cut short: 41 setting(s) read",
        CUT_LINE_FIX,
        cause="kv",
        change="--kv-transfer-config",
        missing="the failure is not in the copy (cut inside the args dump of a joined line)",
        version="0.8.6.dev0+g4e8c9f5e9.d20250506",
    ),
    LogCase(
        "vllm22843_runai_tokenizer.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 2)",
        CUT_TB_FIX,
        cause="tokenizer",
        change="--tokenizer",
        missing="the exception is cut by the copy (frames through get_tokenizer only)",
    ),
    LogCase(
        # was b, LG011 "died during serving with: torch.AcceleratorError: CUDA error: an illegal memory access
        # was encountered." and the generic fix; now the catalog's cuda-illegal-memory-access (logs28), whose
        # fix names --enforce-eager for a fault under CUDA graphs (the report: turboquant with CUDA graphs).
        # The copy's header comment quotes the error too, and is read as one more of its lines (x3)
        "vllm45670_gb200_interleaved_serving.log",
        "b",
        "a",
        (("LG007", "error"), INFO10),
        "vllm",
        "failed",
        "serving",
        "[cuda-illegal-memory-access] A CUDA kernel the engine ran read or wrote memory outside what it was "
        "given (cudaErrorIllegalAddress)",
        ILLEGAL_ACCESS_FIX,
        cause="illegal memory access",
        change="--enforce-eager",
    ),
    LogCase(
        # logs29: the copy's last lines after its last whole frame (a frame cut inside its line) no longer
        # hide that it stops inside the engine's traceback, in _initialize_kv_caches
        "vllm17822_journald_kv_init.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "unknown",
        "Launch 1 stops inside a traceback (from line 3) (during allocating the KV cache) that the file cuts "
        "before its exception line",
        "Give argtrace the lines after the traceback's last frame (its exception line) or the whole log; "
        "`argtrace why` on the exception line names its raise site and the settings it reads.",
        cause="out of memory",
        change="--max-lora-rank",
        missing="the exception is cut by the copy",
    ),
    LogCase(
        "vllm_omni4285_stage_engine_oom.log",
        "d",
        "b",
        (("LG003", "error"), INFO10),
        "vllm",
        "failed",
        "model_run",
        "[cuda-oom] The GPU ran out of memory (during running the model (its weights loaded; the frames do "
        "not name the step)).",
        OOM_FIX,
        cause="out of memory",
        change="--limit-mm-per-prompt",
        missing="the step (an encoder forward under injected memory pressure) is not in the frames; the "
        "generic fix",
    ),
    LogCase(
        "vllm29360_deepgemm_warmup_oom_wrapped.log",
        "b",
        "b",
        (("LG003", "error"), INFO10),
        "vllm",
        "failed",
        "unknown",
        "[cuda-oom] The GPU ran out of memory (during a step this excerpt does not show).",
        OOM_FIX,
        cause="warm",
        change="VLLM_DEEP_GEMM_WARMUP",
        missing="lines wrapped by a terminal: the frame naming deep_gemm_warmup.py continues on a line "
        "without "
        "prefix or anchor, so the warm-up step is lost",
    ),
    LogCase(
        "dynamo787_wrapped_vllm_capture.log",
        "d",
        "b",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "cuda_graph",
        "Launch 1 begins mid-start-up (its first line here, 1,",
        EXCERPT,
        cause="invalid argument",
        change="--disable-custom-all-reduce",
        missing="the error is not in the copy; the capture step and --disable-custom-all-reduce are named "
        "as a "
        "note (was a warning on an excerpt, its framework unread)",
    ),
    LogCase(
        # was two warnings (logs26: a dump the file's end cuts is the copy's cut, notes)
        "vllm17469_compose_085_args.log",
        "c",
        "c",
        (("LG010", "info"), ("LG010", "info")),
        "vllm",
        "incomplete",
        "weights",
        "The args Namespace dump at line 4 is cut short: 37 setting(s) read",
        CUT_LINE_FIX,
        cause="out of memory",
        change="--enforce-eager",
        missing="the OOM is not in the copy (cut inside the args dump)",
        version="0.8.5",
    ),
]
OK_LOGS = {
    "sglang17402_host_started.log": ((INFO10,), "ready", None),
    "vllm_pr30515_dp0_kv_capping.log": ((INFO10, INFO10), "incomplete", "cuda_graph"),
}


def test_the_batch() -> None:
    assert len(CASES) == 20
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([1, 4, 9, 6], [4, 4, 12, 0])


@pytest.mark.parametrize("case", CASES, ids=[c.file for c in CASES])
def test_what_each_log_gives(case: LogCase) -> None:
    report = recorded_log_report(LOGS / case.file)
    assert_what_the_log_gives(report, case, version=True)


@pytest.mark.parametrize("case", not_class_a(CASES))
def test_the_first_screen_names_the_cause_and_the_change(case: LogCase) -> None:
    assert names_the_cause_and_the_change(recorded_log_report(LOGS / case.file), case.cause, case.change)


@pytest.mark.parametrize("name", sorted(OK_LOGS))
def test_working_launches_give_no_alarm(name: str) -> None:
    assert_working_launch(recorded_log_report(LOGS / "ok" / name), OK_LOGS[name])


# --- variants of the mechanisms, on minimal inputs -------------------------------------------------------


def test_vllms_engine_configuration_line_proves_its_args_line(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "Initializing a V1 LLM engine (v0.20.2) with config: model='/m', tensor_parallel_size=8, "
            "enforce_eager=False\n",
        )
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [INFO10, INFO10]
    assert report["log"]["version"] == "0.20.2"
    assert "begins mid-start-up" in report["findings"][0]["message"]


def test_sglangs_dp_launch_lines_are_sglangs_and_past_the_args_line(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "[2025-12-18 07:58:51] Launch DP0 starting at GPU #0.\n"
            "[2025-12-18 07:58:51] Launch DP1 starting at GPU #4.\n",
        )
    )
    assert report["log"]["framework"] == "sglang"
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [INFO10]
    assert last_launch(report)["stage"] == "unknown"


def test_the_api_servers_serving_frames_and_engine_dead_error_are_serving(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            "(APIServer pid=7) ERROR 10-24 01:26:57 [serving_chat.py:1145] vllm.v1.engine.exceptions."
            "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.\n",
        )
    )
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [("LG007", "error"), INFO10]
    assert report["findings"][0]["message"].startswith("[vllm-engine-dead] ")
    assert "(during serving)" in report["findings"][0]["message"]
    block = [
        '  File "/v/vllm/entrypoints/openai/serving_chat.py", line 574, in chat_completion_stream_generator'
    ]
    assert frames_stage(block, "RuntimeError: x") == "serving"


def test_a_models_forward_is_past_the_weights() -> None:
    block = [
        '  File "/v/torch/nn/modules/module.py", line 1790, in _call_impl',
        '  File "/v/vllm/model_executor/models/qwen2_5_vl.py", line 393, in forward',
    ]
    assert frames_stage(block, "torch.OutOfMemoryError: CUDA out of memory.") == "model_run"
    sgl = ['  File "/s/sglang/srt/models/llama.py", line 380, in forward']
    assert frames_stage(sgl, "RuntimeError: x") == "model_run"
    assert frames_stage(['  File "/s/sglang/srt/models/llama.py", line 380, in __init__'], "E: x") is None


def test_a_raise_site_in_runtime_code_is_past_validation() -> None:
    assert runtime_module("sglang/srt/constrained/reasoner_grammar_backend.py")
    assert runtime_module("vllm/v1/core/kv_cache_utils.py")
    assert not runtime_module("sglang/srt/server_args.py")
    assert not runtime_module("vllm/engine/arg_utils.py")


def test_prefixes_of_wrappers_and_of_vllm_builds() -> None:
    omni = split_prefix(
        "(EngineCore_DP0 pid=12809) [Stage-0] ERROR 01-29 01:46:12 [core.py:936] EngineCore failed"
    )
    assert (omni.proc, omni.pid, omni.src, omni.month_day, omni.body) == (
        "EngineCore_DP0",
        12809,
        "core.py:936",
        (1, 29, 1, 46, 12),
        "EngineCore failed",
    )
    dyn = split_prefix(
        "2025-04-23T03:34:24.537Z  INFO dynamo_engine_vllm::worker: VLLM: (VllmWorkerProcess 04-23 11:34:24 "
        "model_runner.py:1434] Capturing cudagraphs for decoding."
    )
    assert (dyn.proc, dyn.pid, dyn.src, dyn.month_day, dyn.body) == (
        "VllmWorkerProcess",
        None,
        "model_runner.py:1434",
        (4, 23, 11, 34, 24),
        "Capturing cudagraphs for decoding.",
    )
    # a bracketed word before a level only after a process tag; elsewhere it is the line's own text
    assert split_prefix("[Stage-0] ERROR 01-29 01:46:12 [core.py:936] x").body.startswith("[Stage-0]")


def test_an_unknown_error_inside_the_capture_gets_the_captures_switch(tmp_path: Path) -> None:
    report = log_report(
        written_log(
            tmp_path,
            '(EngineCore_DP0 pid=1) ERROR 03-10 14:43:46 [core.py:1100]   File "/v/vllm/v1/worker/'
            'gpu_model_runner.py", line 5337, in capture_model\n'
            # an error no entry reads (the stream-capture error of vllm PR#36634 has its own since logs21)
            "(EngineCore_DP0 pid=1) ERROR 03-10 14:43:46 [core.py:1100] RuntimeError: Triton Error [CUDA]: "
            "unexpected kernel state\n",
        )
    )
    first = report["findings"][0]
    assert (first["code"], first["severity"]) == ("LG011", "error")
    assert first["fix"] == CAPTURE_FIX


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


def test_an_engine_error_before_the_clients_engine_dead_error_is_serving(tmp_path: Path) -> None:
    # the engine's lines and the API server's interleave: the error above EngineDeadError is its cause
    report = log_report(
        written_log(
            tmp_path,
            "(EngineCore pid=2) torch.AcceleratorError: CUDA error: an illegal memory access was "
            "encountered\n(APIServer pid=1) ERROR 06-15 16:27:50 [serving.py:471] vllm.v1.engine.exceptions."
            "EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.\n",
        )
    )
    # the catalog's entry since logs28 (was LG011 "Launch 1 died during serving with: ..."): still serving
    message = report["findings"][0]["message"]
    assert message.startswith("[cuda-illegal-memory-access] ")
    assert "(during serving). Line: torch.AcceleratorError: CUDA error: an illegal memory access" in message
    assert last_launch(report)["stage"] == "serving"
