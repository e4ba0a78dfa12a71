"""A file with no launch argtrace reads, that is still the server's (layers/log/no_launch.py): serving lines
that are not the file's last line, and lines behind vLLM's own process tags. Minimal inputs, none taken from a
report (the reports are tests/test_real_cases_logsok2.py's)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from argtrace.layers.log.stages import VLLM_PROCESS
from tests.conftest import alarms, log_report, written_log

pytestmark = pytest.mark.usefixtures("new_user_machine")

STATS = (
    "(APIServer pid=7) INFO 03-04 05:06:07 [loggers.py:259] Engine 000: Avg prompt throughput: "
    "10.0 tokens/s, Avg generation throughput: 20.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs, "
    "GPU KV cache usage: 1.0%, "
    "Prefix cache hit rate: 0.0%\n"
)


def _codes(report: dict) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


def test_serving_lines_before_a_last_line_that_is_none(tmp_path: Path) -> None:
    # an SGLang server's batches, then a health probe's line that no serving pattern holds
    log = written_log(
        tmp_path,
        "[2026-02-03 04:05:06] Decode batch, #running-req: 2, #token: 300, token usage: 0.01, "
        "cuda graph: True, "
        "gen throughput (token/s): 90.00, #queue-req: 0\n"
        '[2026-02-03 04:05:07] INFO:     10.0.0.9:5000 - "GET /metrics HTTP/1.1" 200 OK\n',
    )
    report = log_report(log)
    assert _codes(report) == [("LG012", "info")]
    assert (
        "has 2 line(s), 1 of them a running server's serving lines (the last: `[2026-02-03 04:05:06] Decode"
        in (report["findings"][0]["message"])
    )


def test_a_digest_after_the_servers_lines(tmp_path: Path) -> None:
    log = written_log(tmp_path, STATS + STATS + "== 2 lines matched ==\nwindow 3 of 9\n")
    report = log_report(log)
    assert _codes(report) == [("LG012", "info")]
    assert "2 of them a running server's serving lines" in report["findings"][0]["message"]


def test_lines_of_vllms_processes_with_no_step(tmp_path: Path) -> None:
    log = written_log(
        tmp_path,
        "(DPCoordinator pid=9) INFO 03-04 05:06:07 [coordinator.py:80] DP coordinator waiting for engines\n"
        "(EngineCore_DP3 pid=12) INFO 03-04 05:06:08 [utils.py:50] a line with no step in it\n",
    )
    report = log_report(log)
    assert _codes(report) == [("LG012", "info")]
    assert (
        "2 of them logged by vLLM's own processes (`DPCoordinator`, `EngineCore_DP3`)"
        in (report["findings"][0]["message"])
    )
    assert alarms(report) == []


def test_lines_in_vllms_log_format_with_no_tag(tmp_path: Path) -> None:
    # vLLM's logger without a process tag (a wrapper's process, or ``vllm bench``): vLLM's code, not
    # necessarily its server
    log = written_log(
        tmp_path,
        "INFO 05-06 07:08:09 [__init__.py:43] Available plugins for group vllm.platform_plugins:\n"
        "some other program's line\n",
    )
    report = log_report(log)
    assert _codes(report) == [("LG012", "info")]
    message = report["findings"][0]["message"]
    assert "1 of them in vLLM's log format (`INFO 05-06 07:08:09 [__init__.py:43]`)" in message
    assert "lines of vLLM's code (a server, or another command that runs it)" in message


def test_another_programs_process_tag_stays_a_warning(tmp_path: Path) -> None:
    log = written_log(tmp_path, "(MyWebApp pid=3) INFO started the cache\n(MyWebApp pid=3) INFO listening\n")
    report = log_report(log)
    assert _codes(report) == [("LG012", "warning")]
    assert "none from an SGLang or vLLM server" in report["findings"][0]["message"]


def test_a_dp_ep_worker_names_vllm(tmp_path: Path) -> None:
    # ``Worker_DP0_TP1_EP1``: the tag alone says vLLM (was no framework, and LG012 "none from ... vLLM")
    log = written_log(
        tmp_path,
        "(Worker_DP0_TP1_EP1 pid=5021) INFO 01-02 03:04:05 [default_loader.py:272] Loading weights took 2.36 "
        "seconds\n",
    )
    report = log_report(log)
    assert report["log"]["launches"][-1]["framework"] == "vllm"
    assert alarms(report) == []


@pytest.mark.parametrize(
    ("name", "is_vllms"),
    [
        ("APIServer", True),
        ("EngineCore", True),
        ("EngineCore_DP12", True),
        ("Worker_TP3", True),
        ("Worker_DP1_TP1_EP3", True),
        ("DPEngineCoreActor_DP2", True),
        ("VllmWorkerProcess", True),
        ("RayWorkerWrapper", True),
        ("ServeReplica", False),
        ("Workers", False),
        ("MyWebApp", False),
    ],
)
def test_vllms_process_names(name: str, is_vllms: bool) -> None:
    assert bool(VLLM_PROCESS.match(name)) is is_vllms


def test_an_excerpts_launch_begins_at_its_first_logged_line(tmp_path: Path) -> None:
    # SGLang's ranks on lines no anchor keeps, then its first kept step: the launch begins at the first
    log = written_log(
        tmp_path,
        "copied from the pod:\n"
        "[2026-03-04 05:06:01 TP1] Using default W8A8 Block FP8 kernel config.\n"
        "[2026-03-04 05:06:02 TP0] Using default W8A8 Block FP8 kernel config.\n"
        "[2026-03-04 05:06:09 TP0] Load weight end. type=Qwen3ForCausalLM, avail mem=40.00 GB, "
        "mem usage=30.00 GB.\n",
    )
    report = log_report(log)
    launch = report["log"]["launches"][-1]
    assert (launch["lines"], launch["started"]) == ([2, 4], "2026-03-04 05:06:01")
    assert (
        "(its first line here, 2, is already past the configuration line)" in report["findings"][0]["message"]
    )


def test_a_launch_with_its_configuration_keeps_its_first_kept_line(tmp_path: Path) -> None:
    # not an excerpt: where it begins is its configuration line's business, not changed here
    log = written_log(
        tmp_path,
        "(APIServer pid=7) INFO 03-04 05:06:00 [utils.py:233] non-default args: {'model': 'm'}\n" + STATS,
    )
    assert log_report(log)["log"]["launches"][-1]["lines"][0] == 1


def test_a_lone_exception_line_is_placed_nowhere(tmp_path: Path) -> None:
    report = log_report(written_log(tmp_path, "KeyError: 'decoder.layers.0.mlp.experts.w13_weight'\n"))
    assert _codes(report) == [("LG011", "error")]
    assert report["log"]["launches"][-1]["stage"] == "unknown"
    # the same line after another line of the launch stays where that line puts it
    pre = written_log(
        tmp_path,
        "INFO 03-04 05:06:00 [__init__.py:241] Automatically detected platform cuda.\n"
        "KeyError: 'decoder.layers.0.mlp.experts.w13_weight'\n",
    )
    assert log_report(pre)["log"]["launches"][-1]["stage"] == "validation"


def test_a_compressed_excerpt_begins_where_the_plain_one_does(tmp_path: Path) -> None:
    text = "[2026-03-04 05:06:01 TP1] Using default W8A8 Block FP8 kernel config.\n" + (
        "[2026-03-04 05:06:09 TP0] Load weight end. type=Qwen3ForCausalLM, avail mem=40.00 GB.\n"
    )
    plain = written_log(tmp_path, text)
    packed = tmp_path / "server.log.gz"
    packed.write_bytes(gzip.compress(text.encode()))
    lines = [log_report(p)["log"]["launches"][-1]["lines"] for p in (plain, packed)]
    assert lines == [[1, 2], [1, 2]]
