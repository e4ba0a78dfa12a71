"""`argtrace log`'s first screen at 80 columns: the cause first, told whole enough to act on.

bench/first_screens_log_why.py measured the log batches (docs/real_cases.md, "First screens of `log` and
`why`"): the change itself (the fix) was cut to one line on 25 of the 29 cases whose cause argtrace knows, the
log's name took the headline's room on every finding, nothing said what a finding rests on, and the hang
batch's answer (where the launch stops) came under the note that the file is an excerpt. These are the exact
first lines of three of those cases, and the pieces that make them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.render.screen import diagnosis_order, line_places, rests_on, wrapped
from tests.conftest import run_cli

DATA = Path(__file__).resolve().parents[1] / "data"


def screen(monkeypatch: pytest.MonkeyPatch, directory: str, name: str, lines: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(["log", name], cwd=DATA / directory)
    return result.stdout.splitlines()[:lines]


def test_an_error_is_its_message_its_whole_fix_and_the_line_it_read(monkeypatch: pytest.MonkeyPatch) -> None:
    # vllm#56180 (logs batch 4): the fix was "Relaunch with --disable-custom-all-reduce (NCCL then does the…"
    assert screen(monkeypatch, "logs_4", "vllm56180_custom_all_reduce_after_capture.log", 12) == [
        "argtrace log vllm56180_custom_all_reduce_after_capture.log — vllm ? (log)",
        "Diagnosis: 1 error, 1 info",
        "ERROR LG007 line 15 [custom-all-reduce-cuda-failed] A CUDA call of the custom",
        "  all-reduce kernel failed and its CUDACHECK macro (csrc/custom_all_reduce.cuh)",
        "  printed this and exited the worker: the all-reduce's CUDA IPC buffers could",
        "  not be used between these GPUs, most often while capturing CUDA graphs (during",
        "  a step this excerpt does not show). Logged cuda_error=invalid argument. Line…",
        "  fix: Relaunch with --disable-custom-all-reduce (NCCL then does the",
        "       all-reduce); --enforce-eager (SGLang: --disable-cuda-graph) confirms a",
        "       failure inside the capture",
        "  rests on: line 15 (observed): Failed: Cuda error /workspace/csrc/custom_all_r…",
        "INFO LG010 line 1 Launch 1 begins mid-start-up (its first line here, 1, is…",
    ]


def test_a_stop_that_may_be_a_hang_leads_and_says_it_is_an_assumption(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # sglang#4417 (hang batch): both findings are LG010 notes; the excerpt note came first (the stop: line 6)
    assert screen(monkeypatch, "real_logs_hang", "sglang4417_capture_two_nodes.log", 13) == [
        "argtrace log sglang4417_capture_two_nodes.log — sglang ? (log)",
        "Diagnosis: 2 info",
        "INFO LG010 line 2 Launch 1 stops after its first lines (line 2) without an error",
        "  and before cuda_graph_captured: the server is still starting, was killed",
        "  without a trace (the OOM killer writes to dmesg, not here), or the log was",
        "  cut. Where: it stops while capturing CUDA graphs (begun at line 2, never",
        "  ended). If the launch is still there (a hang, not a log cut by its copy),…",
        "  fix: Relaunch with --disable-cuda-graph to confirm (or a smaller",
        "       --cuda-graph-max-bs), then try --disable-custom-all-reduce; rerun with",
        "       NCCL_DEBUG=INFO to see which rank NCCL waits for, set NCCL_SOCKET_IFNAME",
        "       and GLOO_SOCKET_IFNAME to the interface the nodes share.",
        "  rests on: line 2 (observed), read with an assumption (basis: assumed)",
        "INFO LG010 line 2 Launch 1 begins mid-start-up (its first line here, 2, is…",
    ]


def test_a_short_cause_is_whole_on_its_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    assert screen(monkeypatch, "real_cases_logs", "vllm_club3090_60_driver_oom.log", 9) == [
        "argtrace log vllm_club3090_60_driver_oom.log — vllm ? (log)",
        "Diagnosis: 1 error, 1 info",
        "ERROR LG003 line 8 [cuda-oom-weights] The GPU ran out of memory while loading",
        "  the model weights (during loading the weights). Line: RuntimeError: CUDA",
        "  driver error: out of memory",
        "  fix: Shard over more GPUs (--tp), use a quantized checkpoint, or free the GPU",
        "       from other processes",
        "  rests on: line 8 (observed): RuntimeError: CUDA driver error: out of memory",
        "INFO LG010 line 2 Launch 1 begins mid-start-up (its first line here, 2, is…",
    ]


def test_the_json_report_keeps_the_logs_name_in_every_place() -> None:
    # the text names lines; the JSON contract is unchanged
    result = run_cli(
        ["log", "--format", "json", "vllm_club3090_60_driver_oom.log"], cwd=DATA / "real_cases_logs"
    )
    assert [f["at"] for f in result.json["findings"]] == [
        "vllm_club3090_60_driver_oom.log:8",
        "vllm_club3090_60_driver_oom.log:2",
    ]


def test_places_in_the_file_read_are_its_lines() -> None:
    assert line_places(
        ["run/server.log:12", "run/server.log", "other.log:3", "run/server.log:4:7"], "run/server.log"
    ) == {
        "run/server.log:12": "line 12",
        "run/server.log:4:7": "line 4",
    }


def test_wrapped_cuts_at_words_and_marks_only_the_last_cut() -> None:
    assert wrapped("one two three four five six", 9, 2) == ["one two", "three…"]
    assert wrapped("one two three", 20, 3) == ["one two three"]
    assert wrapped("abcdefghijkl", 5, 3) == ["abcde", "fghij", "kl"]


def test_rests_on_says_observed_or_assumed() -> None:
    places = {"s.log:3": "line 3"}
    seen = {"basis": "observed", "at": "s.log:3", "evidence": [{"at": "s.log:3", "text": "OOM"}]}
    line = rests_on(seen, places, 80)
    assert line is not None and line.plain == "  rests on: line 3 (observed): OOM"
    assumed = {"basis": "assumed", "at": "s.log:3", "evidence": []}
    line = rests_on(assumed, places, 80)
    assert (
        line is not None
        and line.plain == "  rests on: line 3 (observed), read with an assumption (basis: assumed)"
    )
    assert rests_on({"basis": None}, places, 80) is None


def test_the_excerpt_note_ranks_after_the_launchs_own_note() -> None:
    excerpt = {
        "code": "LG010",
        "severity": "info",
        "layer": "log",
        "message": "Launch 1 begins mid-start-up (...)",
    }
    stop = {"code": "LG010", "severity": "info", "layer": "log", "message": "Launch 1 stops after ..."}
    assert diagnosis_order([excerpt, stop]) == [1, 0]
    # an error still outranks a note, whatever the note is about
    error = {"code": "LG007", "severity": "error", "layer": "log", "message": "x"}
    assert diagnosis_order([stop, excerpt, error]) == [2, 0, 1]


def test_no_log_first_screen_measure_got_worse(capsys: pytest.CaptureFixture[str]) -> None:
    # the bench's totals over the 172 logs of the log batches against the run saved with its fixes
    import importlib.util
    import sys

    bench = Path(__file__).resolve().parents[2] / "bench"
    spec = importlib.util.spec_from_file_location("first_screens_log_why", bench / "first_screens_log_why.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    status = module.main(
        ["--command", "log", "--check", str(bench / "results" / "first_screens_log_why.json")]
    )
    assert status == 0, [line for line in capsys.readouterr().out.splitlines() if line.startswith("worse:")]
