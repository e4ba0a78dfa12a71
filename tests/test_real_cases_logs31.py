"""Real server logs, session 31's batch (docs/real_cases.md, "Logs, 17th batch"): 8 failures, 2 working.

Each ``*.log`` under ``tests/data/real_cases_logs31/`` is a log quoted in a public report of 2025-2026, saved
as the search corpus's stored copy gives it (prefixes kept as posted), behind a ``# source:`` header line with
the URL and the date (the year alone where the copy shows none: sglang#8879, strix-halo-toolboxes#12). The
areas the batch went for: start-up failures of the engine core and SGLang's scheduler, CUDA graph capture on
Blackwell GPUs (Triton's PTX assembler for sm_120), a pipeline-parallel KV cache too small for the model's
length, logs behind a launcher (gpustack's, Kaito's ``k logs``, verl's Ray driver). Their forms: a Ray actor's
``(SGLangWorker pid=N)`` before each of SGLang's lines, the report's newlines lost and the whole log one line
quoted behind ``> `` (RLinf#92); a copy that begins inside a traceback, its header cut (sglang#8879); a
launcher's own "Starting vLLM server: /usr/local/bin/vllm" before vLLM's lines (gpustack#2769). ``ok/`` holds
working launches (vLLM's route list on a Strix Halo toolbox whose port the report could not reach, vLLM 0.19's
banner and arguments for Gemma 4). ``why/`` holds each failure's error text (its lines from the first line
naming an error, a failure or a death on; the whole copy where none does).

What each copy cuts (the corpus keeps about 2,000 characters around the words searched): sglang13342 (in the
model runner's constructor), sglang_pr19718 (at the piecewise CUDA graph capture's first line), kaito1101 and
gpustack2769 (vLLM's start-up, before the error their titles name), verl4503 (the Ray driver's traceback of
the rollout server's launch: no line of the server's own); vllm34076 is the one line the report quotes,
RLinf#92 stops in "During handling of the above exception", sglang8879 inside ptxas's message. The working
copies stop inside their start-up.

Classes as in the other batches (``a`` the root cause and the change among the errors and warnings, ``b``
named but only as a note or without its change, ``c`` not named, ``d`` a wrong error, warning or claim).
``CASES`` holds what each gives now, exactly; every case not ``a`` has a strict ``xfail`` naming what it
lacks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.log.pasted import unjoined
from argtrace.layers.log.reader import Line
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

LOGS = Path(__file__).resolve().parent / "data" / "real_cases_logs31"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

INFO10 = ("LG010", "info")
WARN10 = ("LG010", "warning")
ERROR3 = ("LG003", "error")
ERROR7 = ("LG007", "error")
WARN12 = ("LG012", "warning")
CUT = "the exception is not in the copy (cut before it)"
MID_START = "begins mid-start-up"
PTXAS = (
    "[triton-ptxas-failed] Triton's PTX assembler failed compiling a Triton kernel for this GPU's "
    "architecture"
)
PTXAS_FIX = (
    "Compare the `--gpu-name` of the failed command with `ptxas --help` of the ptxas Triton ran: point "
    "TRITON_PTXAS_PATH (TRITON_PTXAS_BLACKWELL_PATH for sm_100 and up) at a CUDA toolkit's ptxas that "
    "lists it, or install a Triton (with its torch) whose bundled ptxas does; where ptxas's stderr says a "
    'feature is "not supported on .target", the kernel does not run on this GPU: choose another backend for '
    "that kernel or a release that supports the GPU"
)
STOPS = "stops after"
WAIT = "Wait and read again, check `dmesg` for the OOM killer, or keep the whole log (no `> log` truncation)."
READ_FROM_START = (
    "Read the launch from its start: an older rotated file (server.log.1), the terminal or the service "
    "journal; or relaunch with the log kept whole."
)

CASES = [
    LogCase(
        # was two launches, the first "ready": gpustack's "Starting vLLM server: /usr/local/bin/vllm" (its own
        # line, before vLLM started) was read as vLLM's "Starting vLLM server on ADDRESS"
        "gpustack2769_vllm0101_rtx5090_vl_head_cut.log",
        "c",
        "c",
        (WARN10,),
        "vllm",
        "incomplete",
        "weights",
        "Launch 1 stops after model_config (line 8) without an error",
        WAIT,
        cause="5090",
        change="vLLM",
        missing=CUT
        + ": the copy stops after vLLM 0.10.1 resolved the architecture (the title: a VL model on "
        "an RTX 5090, which 0.9.2 serves)",
        version="0.10.1",
    ),
    LogCase(
        "kaito1101_kubectl_logs_phi2_vllm082_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "vllm",
        "incomplete",
        "weights",
        "The args Namespace dump at line 11 is cut short",
        "Read the line whole where the server wrote it (the file, the terminal or the journal; a copy or a "
        "viewer cut it here).",
        cause="ValueError",
        change="--",
        missing=CUT + ": `k logs` of vLLM 0.8.2's start, cut inside its args Namespace (the title: a value "
        "error)",
        version="0.8.2",
    ),
    LogCase(
        # was c: "(during a step this excerpt does not show). Line: Capturing batches ... (SGLangWorker
        # pid=38138) [2025-09-18 03:27:45 DP1 TP0] Scheduler hit an exception:", the lines run into one behind
        # a Ray actor's tag, ptxas's CalledProcessError not read
        "rlinf92_ray_tags_one_line_ptxas_sm120_capture.log",
        "c",
        "a",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "cuda_graph",
        PTXAS,
        PTXAS_FIX,
        cause="PTX assembler",
        change="TRITON_PTXAS_PATH",
    ),
    LogCase(
        # "during a step this excerpt does not show" until logs34: the frames are SGLang's scheduler's
        # constructor
        "sglang13342_gptoss_rtxpro6000_scheduler_cut.log",
        "c",
        "c",
        (ERROR7, INFO10),
        "sglang",
        "failed",
        "scheduler_init",
        "[sglang-scheduler-exception] SGLang's scheduler crashed; the traceback follows (during starting "
        "SGLang's scheduler: a step of its constructor the frames do not name). Its traceback is cut after "
        "its last frame (managers/tp_worker.py, __init__)",
        "Read the traceback after this line",
        cause="gpt-oss",
        change="--",
        missing=CUT
        + ": the scheduler's traceback stops in ModelRunner's constructor (the title: gpt-oss-120b "
        "on an RTX PRO 6000 Blackwell)",
    ),
    LogCase(
        # was c: LG011 "died during argument validation with: triton.runtime.errors.PTXASError" (a copy that
        # begins inside a traceback was placed in the arguments' check) with the generic fix
        "sglang8879_gptoss_ptxas_sm120a_triton_codegen.log",
        "c",
        "a",
        (ERROR7, INFO10),
        None,
        "failed",
        "unknown",
        PTXAS,
        PTXAS_FIX,
        cause="PTX assembler",
        change="not supported on .target",
    ),
    LogCase(
        "sglang_pr19718_gptoss_sm120_piecewise_capture_cut.log",
        "c",
        "c",
        (INFO10, INFO10),
        "sglang",
        "incomplete",
        "cuda_graph",
        MID_START,
        READ_FROM_START,
        cause="piecewise",
        change="--",
        missing=CUT + ": the copy stops at the piecewise CUDA graph capture's first line (the comment: the "
        "PR's triton_kernels MoE on an RTX PRO 6000 Blackwell Server Edition)",
    ),
    LogCase(
        "verl4503_tp2_ray_vllmhttpserver_launch_cut.log",
        "c",
        "c",
        (WARN12,),
        None,
        "incomplete",
        "validation",
        "has 15 line(s) but none from an SGLang or vLLM server",
        "Point argtrace at the file the server writes (the redirect target in the launch script).",
        cause="tensor",
        change="--",
        missing="no line of the server's own: the Ray driver's traceback of verl's "
        "vLLMHttpServer.launch_server (the title: tp=2 fails where tp=1 runs)",
    ),
    LogCase(
        "vllm34076_pp_kv_cache_max_seq_len_one_line.log",
        "a",
        "a",
        (ERROR3, INFO10),
        "vllm",
        "failed",
        "kv_cache",
        "[vllm-max-model-len-exceeds-kv] The KV cache cannot hold one sequence of max_model_len tokens",
        "Lower --max-model-len to the estimate, raise --gpu-memory-utilization or use --kv-cache-dtype fp8",
        cause="max_model_len",
        change="--max-model-len",
    ),
]

# Launches that started; each copy stops inside its start-up or its serving: notes only.
OK_LOGS = {
    "strixhalo12_toolbox_routes_server_started.log": ((INFO10,), MID_START),
    "vllm39734_gemma4_spark_banner_args.log": ((INFO10, INFO10), "is cut short"),
}


def test_the_batch() -> None:
    assert len(CASES) == 8
    assert {c.file for c in CASES} | {f"ok/{k}" for k in OK_LOGS} == log_files(LOGS)
    assert class_counts(CASES) == ([1, 0, 7, 0], [3, 0, 5, 0])
    assert [sum(WHY_CLASSES[0]), sum(WHY_CLASSES[1])] == [8, 8]
    assert {p.stem for p in (LOGS / "why").glob("*.txt")} == {Path(c.file).stem for c in CASES}


# --- `why` on each failure's error text -----------------------------------------------------------------

# name -> (confidence, the first site's function or None, the signatures' ids in order)
WHY = {
    "gpustack2769_vllm0101_rtx5090_vl_head_cut": ("none", None, []),
    # weak: the copy holds no error; vLLM's INFO line "Chunked prefill is enabled" is matched to a site
    "kaito1101_kubectl_logs_phi2_vllm082_cut": ("weak", "EngineArgs._set_default_args_v0", []),
    # was ["sglang-scheduler-exception"] alone: the signature of ptxas's failure now comes first
    "rlinf92_ray_tags_one_line_ptxas_sm120_capture": (
        "strong",
        "run_scheduler_process",
        ["triton-ptxas-failed", "sglang-scheduler-exception"],
    ),
    "sglang13342_gptoss_rtxpro6000_scheduler_cut": (
        "strong",
        "run_scheduler_process",
        ["sglang-scheduler-exception"],
    ),
    # was none at all
    "sglang8879_gptoss_ptxas_sm120a_triton_codegen": ("none", None, ["triton-ptxas-failed"]),
    # weak: no error in the copy; SGLang's "Using KV cache dtype" line is matched to a site
    "sglang_pr19718_gptoss_sm120_piecewise_capture_cut": ("weak", "_dsa_kv_cache_dtype_default", []),
    "verl4503_tp2_ray_vllmhttpserver_launch_cut": ("none", None, []),
    "vllm34076_pp_kv_cache_max_seq_len_one_line": (
        "strong",
        "check_enough_kv_cache_memory",
        ["vllm-max-model-len-exceeds-kv"],
    ),
}
# before, after (docs/real_cases.md): a the KV cache's entry, then the two ptxas failures
WHY_CLASSES = ([1, 0, 7, 0], [3, 0, 5, 0])


globals().update(log_batch_tests(LOGS, CASES, OK_LOGS, WHY, sources=10))


def test_why_gives_the_ptxas_entrys_fix() -> None:
    for name in (
        "rlinf92_ray_tags_one_line_ptxas_sm120_capture",
        "sglang8879_gptoss_ptxas_sm120a_triton_codegen",
    ):
        section = recorded_why(LOGS / "why" / f"{name}.txt")
        assert section["signatures"][0]["fix"] == PTXAS_FIX


# --- the mechanisms on minimal inputs -----------------------------------------------------------------------


def test_a_repeated_process_tag_splits_a_line_run_together(tmp_path: Path) -> None:
    # RLinf#92's form: a Ray actor's tag (not one of vLLM's own process names) before each line, the newlines
    # lost, a ``Traceback`` inside the run
    text = (
        "(W pid=9) [2025-09-18 03:27:45 TP0] Scheduler hit an exception: Traceback (most recent call last): "
        '(W pid=9) File "/x/triton/backends/nvidia/compiler.py", line 292, in make_cubin '
        "(W pid=9) subprocess.run(cmd, shell=True, check=True) "
        "(W pid=9) subprocess.CalledProcessError: Command '/x/triton/backends/nvidia/bin/ptxas -lineinfo -v "
        "--gpu-name=sm_120 /tmp/a.ptx -o /tmp/a.ptx.o 2> /tmp/b.log' returned non-zero exit status 255.\n"
    )
    report = log_report(written_log(tmp_path, text))
    first = report["findings"][0]
    assert (first["code"], first["severity"], first["fix"]) == (*ERROR7, PTXAS_FIX)
    assert first["message"].startswith(PTXAS)
    assert (last_launch(report)["state"], report["log"]["framework"]) == ("failed", "sglang")


def test_a_tag_named_once_does_not_split_a_line() -> None:
    # one tag of another process quoted inside a line (a request's text) leaves the line whole; the same tag
    # twice splits it before each
    once = "INFO 01-07 10:00:00 [serving.py:1] prompt: 'see (Foo pid=1) here and there'"
    twice = "(Foo pid=1) first line of Foo (Foo pid=1) second line of Foo"
    assert [line.text for line in unjoined([Line(1, once)])] == [once]
    assert [line.text for line in unjoined([Line(1, twice)])] == [
        "(Foo pid=1) first line of Foo",
        "(Foo pid=1) second line of Foo",
    ]


def test_the_lines_after_a_split_traceback_line_follow_its_last_piece() -> None:
    block = ['  File "/x/a.py", line 1, in f', "ValueError: x"]
    line = Line(1, "(Foo pid=1) a (Foo pid=1) Traceback (most recent call last):", block=list(block))
    pieces = list(unjoined([line]))
    assert [(p.text, p.block) for p in pieces] == [
        ("(Foo pid=1) a", None),
        ("(Foo pid=1) Traceback (most recent call last):", block),
    ]


@pytest.mark.parametrize(
    ("first", "stage", "says"),
    [
        # the copy begins with a frame or a frame's indented line: where it died is not in the file
        (
            '  File "/x/foo/bar.py", line 10, in baz\n    raise FooBarError("qux")\n',
            "unknown",
            "died during a step this excerpt does not show",
        ),
        ('    raise FooBarError("qux")\n', "unknown", "died during a step this excerpt does not show"),
        # a whole traceback, its header the file's first line, nothing logged before: argument validation
        (
            'Traceback (most recent call last):\n  File "/x/foo/bar.py", line 10, in baz\n',
            "validation",
            "died during argument validation",
        ),
    ],
    ids=["frame", "raise_line", "header"],
)
def test_a_copy_that_begins_inside_a_traceback_is_not_placed_in_argument_validation(
    tmp_path: Path, first: str, stage: str, says: str
) -> None:
    report = log_report(written_log(tmp_path, first + "foo.FooBarError: qux happened\n"))
    assert last_launch(report)["stage"] == stage
    assert says in report["findings"][0]["message"]


@pytest.mark.parametrize(
    ("line", "ready"),
    [
        # vLLM 0.33.0 entrypoints/launchers/api_server/entry.py:139: "Starting vLLM server on %s"
        (
            "(APIServer pid=1) INFO 04-08 20:32:02 [entry.py:139] Starting vLLM server on http://0.0.0.0:8080",
            True,
        ),
        ("INFO 05-01 10:00:00 [api_server.py:1] Starting vLLM API server on http://0.0.0.0:8000", True),
        ("INFO 05-01 10:00:00 [api_server.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000", True),
        # a launcher's own line before vLLM runs (gpustack#2769)
        (
            "2025-08-20 14:01:06.523791+08:00 - gpustack.worker.backends.vllm - INFO - Starting vLLM server: "
            "/usr/local/bin/vllm",
            False,
        ),
    ],
    ids=["server_on", "api_server_on", "api_server_index_on", "launcher_line"],
)
def test_only_vllms_own_starting_line_is_the_ready_step(tmp_path: Path, line: str, ready: bool) -> None:
    report = log_report(written_log(tmp_path, line + "\n"))
    assert (last_launch(report)["state"] == "ready") is ready


# --- the fast paths read the batch as the slow one ----------------------------------------------------------
