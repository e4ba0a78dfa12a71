"""Working launches' logs as false-alarm probes, 2nd collection (docs/real_cases.md, "Logs of working
launches, 2nd").

Each file under ``tests/data/logs_ok2/`` is a log of 2025-2026 quoted in a public issue or PR about something
else (a speed question, a feature, a benchmark) of an SGLang or vLLM server that started and served, saved as
the stored copy gives it: its first line names the URL, the release when the source names it, and what the
copy cut. ``launch_failure/`` holds three logs of launches that failed for a reason the log shows. The
command is ``argtrace log FILE --format json`` on a new user's machine, measured on this batch's base before
any change (``before``), then after (``findings``, ``state``, ``stage``). The mechanisms fixed have variants
on minimal inputs in tests/log/test_no_launch_pieces.py, none taken from a report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import alarms, log_files, log_report, run_cli

LOGS = Path(__file__).resolve().parent / "data" / "logs_ok2"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

I10 = ("LG010", "info")
I12 = ("LG012", "info")
W10 = ("LG010", "warning")
W12 = ("LG012", "warning")
SGL = "sglang"


@dataclass(frozen=True)
class Case:
    """``before``: (code, severity) first seen; ``findings``/``state``/``stage``/``framework``/``version``:
    what it gives now (the last launch's; None without a launch); ``wrong``: what was wrong first seen and
    ``still``: what is still wrong now (empty: nothing)."""

    file: str
    before: tuple[tuple[str, str], ...]
    findings: tuple[tuple[str, str], ...]
    state: str | None = None
    stage: str | None = None
    framework: str | None = None
    version: str | None = None
    wrong: str = ""
    still: str = ""


WORKING = [
    Case(
        "club3090_74_vllm_qwen36_dual_nvlink.log",
        (I10,),
        (I10,),
        "ready",
        None,
        "vllm",
        wrong="'Launch 1 begins ... its first line here, 10' (lines 10-10, started 04:33:07): lines 2-9 are "
        "the same launch's (APIServer pid=1, EngineCore pid=45), from 04:32:55",
    ),
    Case(
        "club3090_1107_vllm_2x5090_routes.log",
        (I10,),
        (I10,),
        "ready",
        None,
        "vllm",
        wrong="'Launch 1 begins ... its first line here, 3': line 2 (the generation_config notice) is the "
        "launch's",
    ),
    Case("club3090_747_vllm_mtp5_redacted_host.log", (I12,), (I12,)),
    Case(
        "kserve_pr4368_hfserver_vllm081_v1.log",
        (W12,),
        (I12,),
        wrong="LG012 warning 'none from an SGLang or vLLM server' on vLLM 0.8.1's lines between KServe's",
    ),
    Case("qwen38dgx9_specdecode_metrics.log", (I12,), (I12,)),
    Case(
        "qwen3vl1699_vllm0111_vl_moe_ep.log",
        (W10,),
        (W10,),
        "incomplete",
        "weights",
        "vllm",
        "0.11.1rc4.dev6+g66a168a19",
    ),
    Case("sglang13202_dp_prefill_timestamp_placeholder.log", (I12,), (I12,)),
    Case("sglang4407_decode_largest_len.log", (I12,), (I12,)),
    Case("sglang6291_046_prefill_requests.log", (I12,), (I12,)),
    Case("sglang_jax_pr564_decode_cache_miss.log", (I12,), (I12,)),
    Case("sglang_pr15909_qwen_omni_tp4_capture.log", (I10, I10), (I10, I10), "incomplete", "cuda_graph", SGL),
    Case("sglang_pr17985_musa_pp2_tp2_load.log", (I10, I10), (I10, I10), "incomplete", "kv_cache", SGL),
    Case("sglang_pr22051_pp_ignore_import_056.log", (I10, I10), (I10, I10), "incomplete", "weights", SGL),
    Case("sglang_pr22166_decode_comma_cuda_graph.log", (I12,), (I12,)),
    Case("sglang_pr22331_hisparse_decode_tp0.log", (I12,), (I12,)),
    Case(
        "tt_inference3359_docker_ts_window.log",
        (W12,),
        (I12,),
        wrong="LG012 warning 'none from an SGLang or vLLM server' on vLLM's stats and answered requests "
        "followed by a script's window header",
    ),
    Case("vllm24563_ray_tp4_v01011_start.log", (W10,), (W10,), "incomplete", "weights", "vllm", "0.10.1.1"),
    Case(
        "vllm27073_k8s_ts_wrapped_stats.log",
        (W12,),
        (I12,),
        wrong="LG012 warning 'none from an SGLang or vLLM server' on a serving server's lines ending in a "
        "Prometheus scrape",
    ),
    Case("vllm40630_journal_bash_stats.log", (I12,), (I12,)),
    Case("vllm43295_mtp_serving_stats.log", (I12,), (I12,)),
    Case("vllm_pr27521_pangu_moe_dp_tp_ep32.log", (I10, I10), (I10, I10), "incomplete", "weights", "vllm"),
    Case(
        "vllm_pr28037_dp2_tp2_ep4_nested.log",
        (W12,),
        (I12,),
        wrong="LG012 warning 'none from an SGLang or vLLM server' on lines of vLLM's `Worker_DP1_TP1_EP3` "
        "processes",
    ),
    Case("vllm_pr39559_gguf_qwen35_capture.log", (I10, I10), (I10, I10), "incomplete", "cuda_graph", "vllm"),
    Case(
        "vllm_pr42703_nixl_kv_transfer_metrics.log",
        (W12,),
        (I12,),
        wrong="LG012 warning 'none from an SGLang or vLLM server' on the APIServer's KV transfer metrics",
    ),
    Case("xinference3715_v0_metrics.log", (I12,), (I12,)),
]

FAILED = [
    Case(
        "launch_failure/gpustack1800_v0_max_seq_len_kv.log",
        (("LG003", "error"), I10),
        (("LG003", "error"), I10),
        "failed",
        "kv_cache",
        "vllm",
    ),
    Case(
        "launch_failure/sglang5762_faulthandler_enomem.log",
        (("LG011", "error"), I10),
        (("LG011", "error"), I10),
        "failed",
        "unknown",
        "sglang",
    ),
    Case(
        "launch_failure/sglang4972_minicpmv_awq_tp_align.log",
        (("LG007", "error"), I10),
        (("LG007", "error"), I10),
        "failed",
        "weights",
        "sglang",
    ),
    Case(
        "launch_failure/sglang_jax1551_no_bucket.log",
        (("LG011", "error"), ("LG001", "error")),
        (("LG011", "error"),),
        "failed",
        "unknown",
        wrong="LG011 'died during argument validation' and LG001 error 'died ... before it logged its "
        "configuration' on one quoted exception line raised while serving",
    ),
    Case(
        "launch_failure/vllm11617_get_open_port_eaddrinuse.log",
        (("LG007", "error"), I10),
        (("LG007", "error"), I10),
        "failed",
        "distributed",
        "vllm",
        wrong="LG007 'The HTTP port is taken ... (during serving)' for vLLM's get_open_port, which binds "
        "a free port for its own use during start-up, not --port",
        # fixed after the merge: a catalog entry can require or exclude the frames that raised
        # (vllm-free-port-search; port-in-use's not_frames)
    ),
]


def _check(case: Case) -> dict:
    report = log_report(LOGS / case.file)
    assert tuple((f["code"], f["severity"]) for f in report["findings"]) == case.findings
    launches = report["log"]["launches"]
    if case.state is None:
        assert launches == []
    else:
        last = launches[-1]
        got = (last["state"], last["stage"], last["framework"], last["version"])
        assert got == (case.state, case.stage, case.framework, case.version)
    return report


@pytest.mark.parametrize("case", WORKING + FAILED, ids=lambda c: c.file)
def test_what_argtrace_log_gives_now(case: Case) -> None:
    _check(case)


# the two logs that keep a warning: start-ups their quoters cut after the model's configuration, with
# nothing that says a copy was cut; LG010 names the cut among its three readings (as
# tests/test_real_cases_logs_ok.py's bare-lines variant keeps it)
CUT_AFTER_CONFIG = {"qwen3vl1699_vllm0111_vl_moe_ep.log", "vllm24563_ray_tp4_v01011_start.log"}


@pytest.mark.parametrize("case", WORKING, ids=lambda c: c.file)
def test_a_working_launchs_log_gets_no_error_and_no_warning(case: Case) -> None:
    report = log_report(LOGS / case.file)
    if case.file in CUT_AFTER_CONFIG:
        assert [(f["code"], f["severity"]) for f in alarms(report)] == [W10]
        assert "or the log was cut" in alarms(report)[0]["message"]
    else:
        assert alarms(report) == []


def test_the_right_lines_say_what_they_are() -> None:
    nested = log_report(LOGS / "vllm_pr28037_dp2_tp2_ep4_nested.log")["findings"][0]["message"]
    assert "4 of them logged by vLLM's own processes (`Worker_DP1_TP1_EP3`, `Worker_DP1_TP0_EP2`, " in nested
    scraped = log_report(LOGS / "vllm27073_k8s_ts_wrapped_stats.log")["findings"][0]["message"]
    assert "5 of them a running server's serving lines (the last: `2025-10-15T00:00:56" in scraped
    assert "it started and served" in scraped


def test_an_excerpts_launch_begins_at_its_first_logged_line() -> None:
    report = log_report(LOGS / "club3090_74_vllm_qwen36_dual_nvlink.log")
    launch = report["log"]["launches"][-1]
    assert (launch["lines"], launch["started"]) == ([2, 10], "2026-05-06 04:32:55")
    assert "begins mid-start-up (its first line here, 2, is already past" in report["findings"][0]["message"]


def test_a_lone_exception_line_is_not_placed_in_argument_validation() -> None:
    report = log_report(LOGS / "launch_failure/sglang_jax1551_no_bucket.log")
    assert report["findings"][0]["message"] == (
        "Launch 1 died during a step this excerpt does not show with: ValueError: No bucket >= 4096. "
        "Available: [64, 128, 256, 512, 1024, 2048].."
    )


def test_the_counts_first_seen_and_now() -> None:
    assert log_files(LOGS) == {c.file for c in WORKING + FAILED}
    assert (len(WORKING), len(FAILED)) == (25, 5)
    wrong_before = [c.file for c in WORKING + FAILED if c.wrong]
    wrong_now = [c.file for c in WORKING + FAILED if c.still]
    assert (len(wrong_before), len(wrong_now)) == (9, 0)
    alarms_before = sum(1 for c in WORKING for s in c.before if s[1] != "info")
    alarms_now = sum(1 for c in WORKING for s in c.findings if s[1] != "info")
    assert (alarms_before, alarms_now) == (7, 2)


# --- `argtrace why` on the lines of these logs a user may worry about -------------------------------------


@dataclass(frozen=True)
class WhyLine:
    """A line of one of the working logs above, pasted into ``argtrace why``: the file of the first site it
    names now (None: no site), and what was wrong first seen / is still wrong."""

    log: str
    text: str
    first: str | None
    wrong: str = ""
    still: str = ""


WHY_LINES = [
    WhyLine(
        "sglang_pr22051_pp_ignore_import_056.log",
        "Ignore import error when loading sglang.srt.models.midashenglm: No module named 'torchaudio'",
        "sglang/srt/models/registry.py",
        wrong="first site sglang/srt/dllm/algorithm/__init__.py (the same template), for a module the line "
        "names under sglang.srt.models",
    ),
    WhyLine(
        "sglang_pr17985_musa_pp2_tp2_load.log",
        "Parameter model.embed_tokens.weight not found in params_dict",
        "sglang/srt/models/spark2_5.py",
    ),
    WhyLine(
        "vllm_pr28037_dp2_tp2_ep4_nested.log",
        "FlashInfer CUTLASS MoE is currently not available for DP.",
        "vllm/model_executor/layers/fused_moe/oracle/unquantized.py",
        wrong="'ValueError raised in select_unquantized_moe_backend' (match 0.83, another release's message) "
        "for an INFO line of vLLM 0.11's fused_moe/layer.py",
        still="the same: the index has no vLLM 0.11 message sites",
    ),
    WhyLine(
        "club3090_1107_vllm_2x5090_routes.log",
        "Default vLLM sampling parameters have been overridden by the model's `generation_config.json`: "
        "`{'temperature': 0.7, 'top_k': 20, 'top_p': 0.8, 'min_p': 0.0}`. If this is not intended, please "
        "relaunch vLLM instance with `--generation-config vllm`.",
        "vllm/config/model.py",
    ),
    WhyLine(
        "vllm_pr39559_gguf_qwen35_capture.log",
        "Overriding num_gpu_blocks=0 with num_gpu_blocks_override=512",
        None,
    ),
    WhyLine(
        "launch_failure/sglang4972_minicpmv_awq_tp_align.log",
        "The following error message 'operation scheduled before its operands' can be ignored.",
        "vllm/v1/attention/ops/triton_decode_attention.py",
    ),
    WhyLine(
        "launch_failure/sglang4972_minicpmv_awq_tp_align.log",
        "Detected that the model can run with awq_marlin, however you specified quantization=awq explicitly, "
        "so forcing awq. Use quantization=awq_marlin for faster inference",
        None,
    ),
    WhyLine(
        "sglang_pr22051_pp_ignore_import_056.log",
        "Ignore import error when loading sglang.srt.models.glmasr: cannot import name 'GlmAsrConfig' from "
        "'transformers'",
        "sglang/srt/models/registry.py",
        wrong="first site sglang/srt/dllm/algorithm/__init__.py, as above",
    ),
]


@pytest.mark.parametrize("line", WHY_LINES, ids=lambda w: w.text[:40])
def test_why_on_a_working_logs_line(line: WhyLine) -> None:
    assert line.text in (LOGS / line.log).read_text(encoding="utf-8")  # the log's own words
    result = run_cli(["why", "--format", "json", line.text])
    report = result.json
    assert alarms(report) == []
    matches = report["why"]["matches"]
    assert (matches[0]["file"] if matches else None) == line.first


def test_why_counts() -> None:
    assert (sum(1 for w in WHY_LINES if w.wrong), sum(1 for w in WHY_LINES if w.still)) == (3, 1)
