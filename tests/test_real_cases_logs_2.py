"""The logs' 2nd batch of real cases (docs/real_cases.md, "Logs, 2nd batch"), measured before any change.

Each file under ``tests/data/real_logs_2/`` is a log or an error text quoted in a public sglang-project/sglang
or vllm-project/vllm issue or pull request, saved as the stored copy of the report gives it (its first line
names the URL and what the copy cut; nothing is added). ``ok/`` holds logs of launches that worked. The
machine is a new user's (no resolver environment, no Hugging Face cache); the commands are ``argtrace log FILE
--format json`` and ``argtrace why TEXT`` on the error text the report quotes.

Classes as in the earlier batches: ``a`` the root cause named with a correct fix among the errors and warnings
(``why``: on its first screen); ``b`` found with a wrong reason or fix, or a right fix below the first screen;
``c`` missed; ``d`` a wrong error or warning. A ``b``/``c`` entry is a strict ``xfail`` whose reason names the
missing mechanism; an entry fixed by this batch asserts the alarm it gives now and that the wrong one is gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import alarms, log_report, run_cli

LOGS = Path(__file__).resolve().parent / "data" / "real_logs_2"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


def said(report: dict[str, Any], code: str, says: str) -> bool:
    """An error or warning of ``code`` whose message or fix holds ``says``."""
    return any(
        f["code"] == code and says in f["message"] + " fix: " + (f.get("fix") or "") for f in alarms(report)
    )


@dataclass(frozen=True)
class Case:
    """``findings``: the exact (code, severity) list the report gives; ``says``: in the first alarm's message
    or fix (for ``c``: what a correct first screen would hold)."""

    file: str
    cls: str
    findings: tuple[tuple[str, str], ...]
    says: str
    why: str = ""


CASES = [
    # --- fixed by this batch (were d: a wrong error or warning) --------------------------------------------
    # vllm#6746: [rank0]:-prefixed frames through capture_model, no Traceback line: was "[cuda-oom] (during
    # argument validation)" and LG001 "died before it logged its configuration"
    Case(
        "vllm6746_rank0_capture_oom.log",
        "a",
        (("LG003", "error"), ("LG010", "info")),
        "[cuda-oom-cuda-graph] The GPU ran out of memory while capturing CUDA graphs",
    ),
    # vllm PR#19660: pydantic's ValidationError of ModelConfig (vLLM builds it after logging its args): was
    # LG011 + LG001 "died during argument validation, before it logged its configuration"
    Case(
        "vllm_pr19660_max_model_len_pydantic.log",
        "a",
        (("LG011", "error"), ("LG010", "info")),
        "Change --max-model-len, VLLM_ALLOW_LONG_MAX_MODEL_LEN so that",
    ),
    # vllm#21661: a dozen log lines joined into two; was LG012 "none from an SGLang or vLLM server"
    Case(
        "vllm21661_nccl_lines_joined.log",
        "a",
        (("LG007", "error"), ("LG010", "info")),
        "[nccl-error] NCCL failed while setting up or using the tensor-parallel group (during initialising "
        "the distributed (NCCL) group). Line: RuntimeError: NCCL error: unhandled cuda error",
    ),
    # sglang#3460: frames whose indentation the report lost, no exception line: was LG012 warning "none from a
    # server", "point argtrace at the file the server writes"; now a note naming the traceback piece
    Case(
        "sglang3460_nccl_no_indent.log",
        "c",
        (("LG012", "info"),),
        "NCCL",
        "the frames stop before the exception line (NCCL error: unhandled system error is only in the "
        "report's title): nothing in the file names the error; `argtrace why` on the title is a",
    ),
    # sglang PR#11275: [DP0 TP0]-ranked lines of a capture that hangs; was LG012 warning "none from a server"
    Case(
        "sglang_pr11275_capture_hang.log",
        "b",
        (("LG010", "info"), ("LG010", "info")),
        "capturing CUDA graphs",
        "since the hang batch LG010 says it stops while capturing CUDA graphs (begun at line 2, never "
        "ended) with fix --disable-cuda-graph / --disable-custom-all-reduce, but as a note: the excerpt "
        "begins mid-start-up and may as well be cut at its end by the copy "
        "(tests/test_real_cases_logs_hang.py)",
    ),
    # vllm#26161: was LG011 + LG001 "died before it logged its configuration"; the JSON error's cause (which
    # file held no JSON) is not in the traceback
    Case(
        "vllm26161_pydantic_expecting_value.log",
        "c",
        (("LG011", "error"), ("LG010", "info")),
        "--limit-mm-per-prompt",
        "'Expecting value: line 1 column 1 (char 0)' is json's message for an empty or non-JSON input: the "
        "traceback does not say which value or file it parsed, and no site in the message index raises it",
    ),
    # --- a: found, with a fix ------------------------------------------------------------------------------
    Case(
        "vllm_pr17944_model_option.log",
        "a",
        (("LG006", "warning"),),
        "[vllm-model-option-deprecated] vllm serve was given --model",
    ),
    Case(
        "vllm6732_053_nccl_init_device.log",
        "a",
        (("LG007", "error"), ("LG010", "info")),
        "[nccl-error] NCCL failed while setting up or using the tensor-parallel group",
    ),
    # was b (LG011 "died during loading the weights", the generic fix): the message index's raise site
    Case(
        "vllm16118_kv_cache_max_seq_len.log",
        "a",
        (("LG011", "error"), ("LG010", "info")),
        "Change --max-model-len, --gpu-memory-utilization so that `needed_memory > available_memory` no "
        "longer holds",
    ),
    # was b (LG011 with the generic fix)
    Case(
        "sglang_pr34684_deterministic_trtllm.log",
        "a",
        # LG001 (no configuration line) follows from it: a consequence since `log` folds causes (screen16)
        (("LG011", "error"),),
        "Change --attention-backend so that",
    ),
    # --- b: found, wrong reason or fix ---------------------------------------------------------------------
    Case(
        "sglang23602_dsv4_oom_chained.log",
        "b",
        (("LG003", "error"), ("LG010", "info")),
        "--cuda-graph-max-bs",
        "the chained traceback stops in init_tp_model_worker: which start-up step ran out of memory is not "
        "in the excerpt (was put at weight loading; since this batch 'a step this excerpt does not show' "
        "with the generic OOM fix)",
    ),
    # --- c: missed -----------------------------------------------------------------------------------------
    Case(
        "sglang7139_eagle3_index_assert.log",
        "c",
        (("LG007", "error"), ("LG010", "info")),
        "vocab",
        "a CUDA device-side assert (`srcIndex < srcSelectDimSize`, an index past a table: EAGLE3's draft "
        "vocabulary) before the scheduler crash is not a signature; the exception line is cut",
    ),
    Case(
        "sglang_pr21723_nextn_serving.log",
        "c",
        (("LG007", "error"), ("LG010", "info")),
        "grammar",
        "the scheduler crash during serving is found; its exception line (spec decoding with a grammar) is "
        "cut by the copy",
    ),
    Case(
        # was two warnings (logs26: a dump the file's end cuts is the copy's cut, notes)
        "sglang12835_npu_qwen3next_args.log",
        "c",
        (("LG010", "info"), ("LG010", "info")),
        "no SGlang implementation",
        "the excerpt ends inside the args dump: the error (Qwen3NextForCausalLM has no SGLang "
        "implementation on this build) is only in the report's title",
    ),
    Case(
        "sglang_pr11801_deterministic_traceback.log",
        "c",
        (("LG001", "error"),),
        "deterministic",
        "the traceback through prepare_server_args stops before its exception line: LG001 says the "
        "launch died in argument validation (since this batch; no finding before); the ValueError is cut",
    ),
    Case(
        "sglang6831_pp_event_loop.log",
        "c",
        (("LG007", "error"), ("LG010", "info")),
        "AssertionError",
        "the crash in event_loop_pp is placed at serving since this batch (was loading the weights); its "
        "AssertionError is cut by the copy",
    ),
    Case(
        "sglang8081_gemma3n_startup.log",
        "c",
        (("LG010", "warning"),),
        "gemma",
        "the excerpt stops while the weights load (LG010 'stops after model_config ... before "
        "weights_loaded'; it said 'before args_logged' before this batch); the failure is not in it",
    ),
    Case(
        "vllm17431_a800_v1_engine_failed.log",
        "c",
        (("LG007", "error"), ("LG010", "info")),
        "--gpu-memory-utilization",
        "'EngineCore failed to start.' is read since this batch (the 'ailed to start' anchor); the "
        "ValueError (no available memory for the cache blocks) is after the copy's cut; `argtrace why` on "
        "the title is a",
    ),
    Case(
        "vllm17979_085_engine_failed.log",
        "c",
        (("LG007", "error"), ("LG010", "info")),
        "memory",
        "the engine failure is placed at the KV cache step; its exception is after the copy's cut",
    ),
    Case(
        "vllm15598_ray_capture_oom.log",
        "c",
        (("LG010", "info"),),
        "out of memory",
        "the ERROR line is cut ('Error executing metho'); the OOM during CUDA graph capture with "
        "gpu_memory_utilization 0.98 is only in the report's title",
    ),
]

# Launches that worked: no error and no warning.
OK_LOGS = (
    "ok/sglang_pr12978_graphs_tp2.log",
    "ok/sglang_pr21296_musa_startup.log",
    "ok/sglang_pr29853_npu_kv_cache.log",
    "ok/vllm_pr20707_engine_ready.log",
    "ok/vllm_pr29335_model_loading.log",
)


def _param(case: Case) -> Any:
    marks = []
    if case.cls in ("b", "c"):
        marks.append(pytest.mark.xfail(strict=True, reason=f"{case.cls}: {case.why}"))
    return pytest.param(case, id=case.file.removesuffix(".log"), marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_log_case(case: Case) -> None:
    report = log_report(LOGS / case.file)
    assert tuple(codes(report)) == case.findings
    first = alarms(report)[0] if alarms(report) else {"message": "", "fix": ""}
    assert case.says in first["message"] + " fix: " + (first.get("fix") or ""), first


@pytest.mark.parametrize("case", [c for c in CASES if c.cls in ("b", "c")], ids=lambda c: c.file[:-4])
def test_the_unfixed_cases_give_the_findings_measured(case: Case) -> None:
    # What the b and c entries give today, exactly: a change that alters it turns this red.
    assert tuple(codes(log_report(LOGS / case.file))) == case.findings


@pytest.mark.parametrize("name", OK_LOGS, ids=lambda n: n[3:-4])
def test_working_launch_log_has_no_alarm(name: str) -> None:
    report = log_report(LOGS / name)
    assert alarms(report) == []
    assert report["log"]["framework"] == ("sglang" if "sglang" in name else "vllm")


def test_every_log_is_a_case() -> None:
    on_disk = {p.relative_to(LOGS).as_posix() for p in LOGS.rglob("*.log")}
    assert on_disk == {c.file for c in CASES} | set(OK_LOGS)
    assert len(CASES) == 20 and len(OK_LOGS) == 5


def test_every_log_names_its_source() -> None:
    for path in LOGS.rglob("*.log"):
        head = path.read_text().splitlines()[0]
        assert head.startswith(
            (
                "# source: https://github.com/sgl-project/sglang/",
                "# source: https://github.com/vllm-project/vllm/",
            )
        ), path


def test_the_wrong_alarms_are_gone() -> None:
    died = "before it logged its configuration"
    for name in ("vllm6746_rank0_capture_oom.log", "vllm_pr19660_max_model_len_pydantic.log"):
        assert not said(log_report(LOGS / name), "LG001", died), name
    assert not said(log_report(LOGS / "vllm26161_pydantic_expecting_value.log"), "LG001", died)
    for name in (
        "vllm21661_nccl_lines_joined.log",
        "sglang3460_nccl_no_indent.log",
        "sglang_pr11275_capture_hang.log",
    ):
        assert not said(log_report(LOGS / name), "LG012", "none from an SGLang or vLLM server"), name


# --- `argtrace why` on the error text the report quotes -----------------------------------------------------
@dataclass(frozen=True)
class WhyCase:
    """``says``: on the first screen (the first 8 lines) of ``argtrace why TEXT``."""

    id: str
    text: str
    cls: str
    says: str
    why: str = ""


WHY = [
    WhyCase(
        "sglang_pr34684",
        "ValueError: Currently only ['ascend', 'fa3', 'fa4', 'flashinfer', 'triton'] attention backends are "
        "supported for deterministic inference, but you explicitly specified 'trtllm_mha'.",
        "a",
        "reads: attention_backend (--attention-backend)",
    ),
    WhyCase(
        "vllm17431",
        "ValueError: No available memory for the cache blocks",
        "a",
        "reads: gpu_memory_utilization (--gpu-memory-utilization)",
    ),
    WhyCase(
        "vllm_pr17944",
        "ValueError: With `vllm serve`, you should provide the model as a positional argument or in a config "
        "file instead of via the `--model` option.",
        "a",
        "reads: model (--model)",
    ),
    WhyCase(
        "vllm_pr19660",
        "Value error, User-specified max_model_len (513) is greater than the derived max_model_len "
        "(max_position_embeddings=512 or model_max_length=None in model's config.json). This may lead to "
        "incorrect model outputs or CUDA errors. To allow overriding this maximum, set the env var "
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
        "a",
        "_get_and_verify_max_len",
    ),
    WhyCase(
        "vllm16118",
        "ValueError: To serve at least one request with the models's max seq len (1048576), (24.00 GiB KV "
        "cache is needed, which is larger than the available KV cache memory (9.97 GiB). Try increasing "
        "`gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        "a",
        "check_enough_kv_cache_memory",
    ),
    # were b: the NCCL fix was the log signature's, 79 lines down, below every release's NCCL_CHECK site
    WhyCase(
        "sglang3460",
        "RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)",
        "a",
        "fix: Run with NCCL_DEBUG=INFO",
    ),
    WhyCase(
        "vllm21661", "RuntimeError: NCCL error: unhandled cuda error", "a", "fix: Run with NCCL_DEBUG=INFO"
    ),
    WhyCase(
        "vllm6732",
        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "a",
        "fix: Run with NCCL_DEBUG=INFO",
    ),
    WhyCase(
        "sglang12835",
        "Qwen3NextForCausalLM has no SGlang implementation",
        "b",
        "upgrade",
        "the site (resolve_transformers_arch) is found; its fix changes --model-impl, not the release that "
        "implements the architecture on that device",
    ),
    WhyCase(
        "sglang23602",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1024.00 MiB. GPU 0 has a total "
        "capacity of 95.07 GiB of which 298.69 MiB is free.",
        "b",
        "--cuda-graph-max-bs",
        "torch's text says nothing of the step: since 2026-12-02 `why` says so, lists each step's fix and "
        "asks for `argtrace log` (the step is in the log)",
    ),
    WhyCase(
        "vllm15598",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 6 has a total capacity "
        "of 44.53 GiB of which 448.00 KiB is free.",
        "b",
        "--gpu-memory-utilization",
        "torch's text says nothing of the CUDA graph capture the log shows: since 2026-12-02 `why` says the "
        "step is unknown and asks for `argtrace log`",
    ),
    WhyCase(
        "vllm6746",
        "RuntimeError: CUDA error: out of memory",
        "b",
        "--cuda-graph-max-bs",
        "the text alone says nothing of the CUDA graph capture: candidates, and since 2026-12-02 each step's "
        "fix with the step said unknown",
    ),
    WhyCase(
        "sglang7139",
        "Assertion `srcIndex < srcSelectDimSize` failed.",
        "c",
        "index",
        "a CUDA device-side assert from torch's indexing kernels is in no message index and no signature",
    ),
    WhyCase(
        "vllm26161",
        "Value error, Expecting value: line 1 column 1 (char 0)",
        "c",
        "JSON",
        "json's own message, raised under pydantic's; no framework site",
    ),
]


def _why_param(case: WhyCase) -> Any:
    marks = []
    if case.cls in ("b", "c"):
        marks.append(pytest.mark.xfail(strict=True, reason=f"{case.cls}: {case.why}"))
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_why_param(c) for c in WHY])
def test_why_case(case: WhyCase) -> None:
    result = run_cli(["why", case.text])
    screen = "\n".join(result.stdout.splitlines()[:9])
    assert case.says in " ".join(screen.split()), screen


# --- the mechanisms fixed, on our own minimal inputs (not the reports' lines) -------------------------------
def run_log(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "server.log"
    path.write_text(text)
    return log_report(path)


DIED = "before it logged its configuration"


def test_rank_prefixed_frames_without_their_traceback_line_give_the_stage(tmp_path: Path) -> None:
    # torch's [rank0]: prefix; vLLM V0's capture_model: the CUDA graph step, after the args line.
    report = run_log(
        tmp_path,
        '[rank0]:   File "/x/vllm/worker/model_runner.py", line 9, in capture_model\n'
        "[rank0]:     graph_runner.capture()\n"
        "[rank0]: RuntimeError: CUDA error: out of memory\n",
    )
    assert codes(report) == [("LG003", "error"), ("LG010", "info")]
    assert report["findings"][0]["message"].startswith("[cuda-oom-cuda-graph] ")
    assert not said(report, "LG001", DIED)


def test_engine_prefixed_frames_without_their_traceback_line_give_the_stage(tmp_path: Path) -> None:
    # vLLM's ERROR prefix before the frames; the KV cache check's function names the step.
    report = run_log(
        tmp_path,
        'ERROR 01-02 03:04:05 [core.py:1]   File "/x/vllm/v1/core/kv_cache_utils.py", line 9, in '
        "check_enough_kv_cache_memory\n"
        "ERROR 01-02 03:04:05 [core.py:1]     raise ValueError(\n"
        "ERROR 01-02 03:04:05 [core.py:1] ValueError: not a message of any release\n",
    )
    assert codes(report) == [("LG011", "error"), ("LG010", "info")]
    assert report["findings"][0]["message"].startswith("Launch 1 died during allocating the KV cache with: ")


def test_vllms_engine_configuration_comes_after_its_args_line(tmp_path: Path) -> None:
    # pydantic's ValidationError of a vLLM config, with its detail line: not "died before its args".
    report = run_log(
        tmp_path,
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
        "  Value error, not a message of any release [type=value_error]\n",
    )
    assert report["log"]["framework"] == "vllm"
    assert codes(report) == [("LG011", "error"), ("LG010", "info")]
    assert report["findings"][0]["message"] == (
        "Launch 1 died during building vLLM's engine configuration (after its arguments were logged) with: "
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig Value error, not a "
        "message of any release [type=value_error]."
    )


def test_a_traceback_through_vllms_engine_configuration_is_no_new_launch(tmp_path: Path) -> None:
    # Its frames (create_engine_config) used to mark a pre-args traceback: a 2nd launch without args (LG001).
    report = run_log(
        tmp_path,
        "INFO 01-02 03:04:05 [api_server.py:1] vLLM API server version 0.10.2\n"
        "INFO 01-02 03:04:05 [utils.py:1] non-default args: {'model': '/m', 'max_model_len': 513}\n"
        "Traceback (most recent call last):\n"
        '  File "/x/vllm/engine/arg_utils.py", line 9, in create_engine_config\n'
        "    model_config = self.create_model_config()\n"
        "ValueError: not a message of any release\n",
    )
    assert len(report["log"]["launches"]) == 1
    assert codes(report) == [("LG011", "error")]
    assert "building vLLM's engine configuration" in report["findings"][0]["message"]


def test_lines_a_report_joined_are_read_one_by_one(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        'x ERROR 01-02 03:04:05 [multiproc_executor.py:1] File "/x/a.py", line 1, in f ERROR 01-02 '
        "03:04:05 [multiproc_executor.py:1] raise RuntimeError(msg) ERROR 01-02 03:04:05 "
        "[multiproc_executor.py:1] RuntimeError: NCCL error: unhandled cuda error\n",
    )
    assert report["log"]["framework"] == "vllm"
    assert codes(report) == [("LG007", "error"), ("LG010", "info")]
    assert report["findings"][0]["message"].endswith("Line: RuntimeError: NCCL error: unhandled cuda error")


def test_a_process_tag_before_the_log_prefix_is_one_line(tmp_path: Path) -> None:
    # "(APIServer pid=1) INFO ..." holds one log prefix after a process tag: not two joined lines.
    report = run_log(
        tmp_path,
        "(APIServer pid=1) INFO 01-02 03:04:05 [utils.py:1] non-default args: {'model': '/m'}\n"
        "(APIServer pid=1) INFO 01-02 03:04:06 [launcher.py:1] Starting vLLM API server 0 on http://0.0.0.0:8000\n",
    )
    assert report["log"]["launches"][0]["pids"] == [1]
    assert report["log"]["args"] == {"model": "/m"}
    assert alarms(report) == []


def test_frames_that_lost_their_indentation_are_named_not_called_foreign(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        'File "/x/sglang/srt/managers/scheduler.py", line 1, in run_scheduler_process\n'
        "scheduler = Scheduler()\n"
        'File "/x/sglang/srt/model_executor/model_runner.py", line 2, in init_torch_distributed\n',
    )
    assert codes(report) == [("LG012", "info")]
    assert (
        "holding 2 frame(s) of a sglang traceback (the last in init_torch_distributed)"
        in (report["findings"][0]["message"])
    )
    # a file of prose and paths is still none from a server
    other = run_log(tmp_path, 'see File "/tmp/a.py", line 1, in f\n')
    assert codes(other) == [("LG012", "warning")]


def test_ranked_capture_lines_are_sglangs(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "[2025-01-02 03:04:05 DP0 TP0] Capture cuda graph begin. This can take up to several minutes.\n",
    )
    assert report["log"]["framework"] == "sglang"
    # the excerpt note, and (since the hang batch) where it stops: capturing CUDA graphs
    assert codes(report) == [("LG010", "info"), ("LG010", "info")]
    waiting = report["log"]["launches"][0]["waiting_in"]
    assert (waiting["step"], waiting["began_at"], waiting["basis"]) == (
        "cuda_graph",
        f"{tmp_path}/server.log:1",
        "assumed",
    )


def test_enginecore_failed_to_start_is_an_engine_failure(tmp_path: Path) -> None:
    report = run_log(tmp_path, "ERROR 01-02 03:04:05 [core.py:1] EngineCore failed to start.\n")
    assert codes(report) == [("LG007", "error"), ("LG010", "info")]
    assert report["findings"][0]["message"].startswith("[vllm-engine-core-failed] ")
    assert "(during a step this excerpt does not show)" in report["findings"][0]["message"]


def test_every_sglang_event_loop_is_serving(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "[2025-01-02 03:04:05 PP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/managers/scheduler.py", line 1, in event_loop_pp\n'
        "    self.run()\n"
        "AssertionError\n",
    )
    assert "(during serving)" in report["findings"][0]["message"]


def test_an_oom_without_a_start_up_step_before_it_has_no_stage(tmp_path: Path) -> None:
    # was put at weight loading (the first step after the args line), with the weights' fix
    report = run_log(
        tmp_path,
        "[2025-01-02 03:04:05 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB.\n",
    )
    assert report["findings"][0]["message"].startswith(
        "[cuda-oom] The GPU ran out of memory (during a step this excerpt does not show). "
    )
    # a step the excerpt shows still sets the stage
    shown = run_log(
        tmp_path,
        "[2025-01-02 03:04:04 TP0] Load weight end. type=X, dtype=torch.bfloat16, avail mem=10.00 GB\n"
        "[2025-01-02 03:04:05 TP0] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB.\n",
    )
    assert shown["findings"][0]["message"].startswith("[cuda-oom-kv-cache] ")


def test_a_message_naming_its_own_stage_wins_when_the_excerpt_shows_none(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "(EngineCore_DP0 pid=1) ERROR 01-02 03:04:05 [core.py:1] RuntimeError: CUDA out of memory occurred "
        "when warming up sampler with 256 dummy requests.\n",
    )
    assert report["findings"][0]["message"].startswith("[vllm-sampler-warmup-oom] ")


def test_marlin_repacking_is_the_weights_step(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        'ERROR 01-02 03:04:05 [core.py:1]   File "/x/vllm/_custom_ops.py", line 9, in gptq_marlin_repack\n'
        "ERROR 01-02 03:04:05 [core.py:1] RuntimeError: CUDA driver error: out of memory\n",
    )
    assert report["findings"][0]["message"].startswith("[cuda-oom-weights] ")


def test_an_unknown_fatal_error_gets_its_raise_site_from_the_message_index(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "ERROR 01-02 03:04:05 [core.py:1] ValueError: To serve at least one request with the models's max "
        "seq len (4096), (2.00 GiB KV cache is needed, which is larger than the available KV cache memory "
        "(1.00 GiB). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing "
        "the engine.\n",
    )
    [lg011] = [f for f in report["findings"] if f["code"] == "LG011"]
    assert lg011["setting"] == "max_model_len"
    assert (
        "vllm raises it in check_enough_kv_cache_memory (vllm/v1/core/kv_cache_utils.py) when "
        "`needed_memory > available_memory`, which reads --max-model-len, --gpu-memory-utilization."
    ) in lg011["message"]
    assert lg011["fix"] == (
        "Change --max-model-len, --gpu-memory-utilization so that `needed_memory > available_memory` no "
        "longer holds (`argtrace why` on the message shows the site in every release)."
    )


def test_why_leads_with_the_signature_when_the_site_passes_a_message_on() -> None:
    lines = run_cli(["why", "RuntimeError: NCCL error: unhandled cuda error"]).stdout.splitlines()
    assert lines[1].startswith("log signature nccl-error (LG007): ")
    assert lines[4] == "(the raise site below passes the message on: NCCL error: {error_str})"
    # a site with its own words and settings still comes first
    site = run_cli(["why", "ValueError: No available memory for the cache blocks"]).stdout.splitlines()
    assert site[1].startswith("vllm: ValueError raised in ")


def test_a_traceback_through_argument_validation_cut_before_its_exception_is_a_death_there(
    tmp_path: Path,
) -> None:
    report = run_log(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/launch_server.py", line 11, in <module>\n'
        "    server_args = prepare_server_args(sys.argv[1:])\n"
        '  File "/x/sglang/srt/server_args.py", line 3489, in prepare_server_args\n',
    )
    assert codes(report) == [("LG001", "error")]
    assert (
        "died during argument validation (its traceback stops before the exception line)"
        in (report["findings"][0]["message"])
    )


def test_an_excerpt_that_reached_the_model_config_is_past_its_args_line(tmp_path: Path) -> None:
    report = run_log(
        tmp_path,
        "[2025-01-02 03:04:05] Init torch distributed begin.\n"
        "[2025-01-02 03:04:06] Load weight begin. avail mem=78.50 GB\n",
    )
    assert codes(report) == [("LG010", "warning")]
    assert (
        "stops after model_config (line 2) without an error and before weights_loaded"
        in (report["findings"][0]["message"])
    )
