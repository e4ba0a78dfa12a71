"""Working launches' logs as false-alarm probes (docs/real_cases.md, "Logs of working launches").

Each file under ``tests/data/logs_ok/`` is a log of 2025-2026 quoted in a public source (an issue or PR that
pastes it to show something that worked, a blog post, a note) of an SGLang or vLLM launch that started and
served, saved as the stored copy gives it: its first line names the URL and what the copy cut.
``serving_failure/`` holds two logs that end in a request-level failure while serving, where no launch
setting is to blame. The truth for every file is "nothing is wrong with the settings": no error or warning
may name a setting, and a working launch's log gets none at all. The command is ``argtrace log FILE
--format json`` on a new user's machine, measured on this batch's base before any change (``before``), then
after (``findings``, ``state``, ``stage``). The mechanisms fixed have variants on minimal inputs below, none
taken from a report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import alarms, last_launch, log_report

LOGS = Path(__file__).resolve().parent / "data" / "logs_ok"

# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")

I10 = ("LG010", "info")
I12 = ("LG012", "info")
W10 = ("LG010", "warning")
W12 = ("LG012", "warning")
E07 = ("LG007", "error")


@dataclass(frozen=True)
class Case:
    """``before``: (code, severity) first seen; ``findings``/``state``/``stage``: what it gives now (the last
    launch's; None without a launch); ``wrong``: what was wrong first seen (empty: nothing)."""

    file: str
    before: tuple[tuple[str, str], ...]
    findings: tuple[tuple[str, str], ...]
    state: str | None
    stage: str | None
    wrong: str = ""


CASES = [
    Case("ai2048_vllm_api_server_explained.log", (I10,), (I10,), "ready", None),
    Case("excalicode_vllm_startup_routes.log", (I10,), (I10,), "ready", None),
    Case(
        "huikang_blog_vllm_logs_explained.log",
        (W10,),
        (I10,),
        "incomplete",
        "weights",
        wrong="LG010 warning 'stops after args_logged' on a blog post quoting a start-up between paragraphs",
    ),
    Case("lmcache_pr1343_disagg_1p1d_proxy.log", (I10,), (I10,), "ready", None),
    Case("r9700_4_vllm_mm_warmup.log", (I10,), (I10,), "incomplete", "unknown"),
    Case(
        "ray_pr55754_serve_llm_ready.log",
        (W12,),
        (I12,),
        "incomplete",
        "validation",
        wrong="LG012 warning 'none from an SGLang or vLLM server' on Ray Serve LLM's lines",
    ),
    Case(
        "ray_pr66230_serve_controller_deploy.log",
        (W12,),
        (I12,),
        "incomplete",
        "validation",
        wrong="LG012 warning 'none from an SGLang or vLLM server' on Ray Serve LLM's controller",
    ),
    Case("sglang_pr10622_dp_ep_deepgemm_jit.log", (I12,), (I12,), None, None),
    Case(
        "sglang_pr11453_router_openai_backend.log",
        (W12,),
        (I12,),
        None,
        None,
        wrong="LG012 warning 'none from an SGLang or vLLM server' on SGLang's router's start",
    ),
    Case("sglang_pr26083_nvfp4_dp_init.log", (I10, I10), (I10, I10), "incomplete", "weights"),
    Case("sglang_pr29271_mlx_userwarnings.log", (), (), "incomplete", "validation"),
    Case("sglang_pr3888_int8_serving.log", (I12,), (I12,), None, None),
    Case("sglang_pr4058_dp_attention_ignored_error.log", (I10, I10), (I10, I10), "incomplete", "weights"),
    Case("sglang_pr5390_dp_b200_fired_up.log", (I10,), (I10,), "ready", None),
    Case("sglang_pr5675_default_fp8_config.log", (I12,), (I12,), None, None),
    Case("verifiers78_vllm_server_ready.log", (I10,), (I10,), "ready", None),
    Case(
        "vllm16107_rfc3339_debug_ready.log",
        (I10, I10),
        (I10, I10),
        "incomplete",
        "serving",
        wrong="stage cuda_graph ('the next step, capturing CUDA graphs, never began') after vLLM's "
        "'init engine (profile, create kv cache, warmup model) took', which ends the capture",
    ),
    Case(
        "vllm24578_v0_gguf_routes.log",
        (I12,),
        (I10,),
        "ready",
        None,
        wrong="LG012 'neither the release nor the launch it belongs to shows' and stage validation on a V0 "
        "engine's configuration line and the server's route list",
    ),
    Case("vllm_pr19794_sm120_userwarning.log", (I10, I10), (I10, I10), "incomplete", "serving"),
    Case("vllm_pr34495_docker_run_banner.log", (I10,), (I10,), "ready", None),
    Case(
        "serving_failure/sglang4574_invalid_json_schema_scheduler.log",
        (E07, I10),
        (E07, I10),
        "failed",
        "serving",
    ),
    Case(
        "serving_failure/vllm34322_tool_parser_indexerror.log",
        (),
        (I10,),
        "ready",
        None,
        wrong="stage validation for a server whose request handler (serving_chat.py) logged a request's "
        "error",
    ),
]


def _report(case: Case) -> dict:
    return log_report(LOGS / case.file)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.file)
def test_what_argtrace_log_gives_now(case: Case) -> None:
    report = _report(case)
    assert tuple((f["code"], f["severity"]) for f in report["findings"]) == case.findings
    launches = report["log"]["launches"]
    if case.state is None:
        assert launches == []
    else:
        assert (last_launch(report)["state"], last_launch(report)["stage"]) == (case.state, case.stage)


@pytest.mark.parametrize("case", [c for c in CASES if "serving_failure" not in c.file], ids=lambda c: c.file)
def test_a_working_launchs_log_gets_no_error_and_no_warning(case: Case) -> None:
    assert alarms(_report(case)) == []


@pytest.mark.parametrize("case", [c for c in CASES if "serving_failure" in c.file], ids=lambda c: c.file)
def test_a_failure_while_serving_blames_no_setting(case: Case) -> None:
    report = _report(case)
    for finding in alarms(report):
        assert finding.get("setting") is None
        assert "--" not in (finding.get("fix") or "")
    assert last_launch(report)["stage"] == "serving" or last_launch(report)["state"] == "ready"


def test_the_counts_first_seen_and_now() -> None:
    wrong_before = [c.file for c in CASES if c.wrong]
    assert len(CASES) == 22
    assert len(wrong_before) == 7
    working = [c for c in CASES if "serving_failure" not in c.file]
    alarms_before = sum(1 for c in working for s in c.before if s[1] != "info")
    alarms_now = sum(1 for c in working for s in c.findings if s[1] != "info")
    assert (alarms_before, alarms_now) == (4, 0)


# --- the mechanisms, on minimal inputs none of the reports holds -------------------------------------------

VLLM_ARGS = (
    "(APIServer pid=11) INFO 01-02 03:04:05 [utils.py:233] non-default args: {'model': 'Qwen/Qwen3-8B', "
    "'enforce_eager': True}\n"
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_vllms_warmup_line_ends_the_capture_step(tmp_path: Path) -> None:
    # --enforce-eager: no capture line at all; the engine's warm-up line is the last start-up step it logs
    log = _write(
        tmp_path,
        "eager.log",
        VLLM_ARGS
        + "(EngineCore_DP0 pid=12) INFO 01-02 03:04:30 [gpu_model_runner.py:2653] Model loading took "
        "15.27 GiB and 9.1 seconds\n"
        "(EngineCore_DP0 pid=12) INFO 01-02 03:04:40 [kv_cache_utils.py:1087] GPU KV cache size: "
        "90,000 tokens\n"
        "(EngineCore_DP0 pid=12) INFO 01-02 03:04:41 [core.py:210] init engine (profile, create kv cache, "
        "warmup model) took 20.50 seconds\n",
    )
    launch = last_launch(log_report(log))
    got = (launch["state"], launch["stage"], launch["next_expected"])
    assert got == ("incomplete", "serving", "server_ready")


def test_a_request_handlers_line_is_a_serving_server(tmp_path: Path) -> None:
    log = _write(
        tmp_path,
        "handler.log",
        "(APIServer pid=7) ERROR 03-04 05:06:07 [serving_completion.py:421] Error in completion stream "
        "generator.\n"
        "(APIServer pid=7) ERROR 03-04 05:06:07 [serving_completion.py:421] ValueError: a bad request\n",
    )
    report = log_report(log)
    assert alarms(report) == []
    assert (last_launch(report)["state"], last_launch(report)["stage"]) == ("ready", None)


def test_a_file_ending_in_serving_lines_is_a_serving_server(tmp_path: Path) -> None:
    # SGLang's scheduler starts, then only its batches: the file's last line is a decode batch
    log = _write(
        tmp_path,
        "batches.log",
        "[2026-01-02 03:04:05 TP0] Load weight begin. avail mem=70.00 GB\n"
        "[2026-01-02 03:05:05 TP0] Decode batch. #running-req: 3, #token: 900, token usage: 0.01, "
        "gen throughput (token/s): 120.00, #queue-req: 0\n",
    )
    report = log_report(log)
    assert alarms(report) == []
    assert last_launch(report)["state"] == "ready"


def test_vllms_route_list_at_the_end_is_a_started_server(tmp_path: Path) -> None:
    log = _write(
        tmp_path,
        "routes.log",
        VLLM_ARGS
        + "(APIServer pid=11) INFO 01-02 03:09:00 [launcher.py:46] Route: /v1/models, Methods: GET\n",
    )
    report = log_report(log)
    assert alarms(report) == []
    assert last_launch(report)["state"] == "ready"


def test_a_v0_engine_names_its_release(tmp_path: Path) -> None:
    log = _write(
        tmp_path,
        "v0.log",
        "INFO 05-06 07:08:09 [llm_engine.py:230] Initializing a V0 LLM engine (v0.9.2) with config: "
        "model='m', speculative_config=None, tokenizer='m', dtype=torch.float16, max_seq_len=4096\n",
    )
    launch = last_launch(log_report(log))
    assert (launch["framework"], launch["version"]) == ("vllm", "0.9.2")


def test_sglangs_router_lines_are_a_note(tmp_path: Path) -> None:
    router = _write(
        tmp_path,
        "router.log",
        "[Router (Rust)] 2026-01-02 03:04:05 - INFO - Worker http://10.0.0.2:30000 health check passed\n",
    )
    report = log_report(router)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [I12]
    assert "line(s) of SGLang's router (`[Router (Rust)] 2026-01-02" in report["findings"][0]["message"]


def test_ray_serve_llms_lines_are_a_note_and_other_ray_serve_lines_stay_a_warning(tmp_path: Path) -> None:
    llm = _write(
        tmp_path,
        "serve_llm.log",
        "(ServeReplica:default:LLMServer:qwen pid=41) INFO 2026-02-03 04:05:06,007 default_LLMServer:qwen "
        "ab12cd34 -- Started initializing replica.\n",
    )
    report = log_report(llm)
    assert [(f["code"], f["severity"]) for f in report["findings"]] == [I12]
    message = report["findings"][0]["message"]
    assert "of Ray Serve LLM (`(ServeReplica:default:LLMServer:qwen pid=41)" in message
    assert report["findings"][0]["fix"].startswith("Give argtrace the server's log: Ray Serve LLM's")
    other = _write(
        tmp_path,
        "serve_echo.log",
        "(ServeReplica:default:Echo pid=41) INFO 2026-02-03 04:05:06,007 default_Echo ab12cd34 -- Started "
        "initializing replica.\n",
    )
    assert [(f["code"], f["severity"]) for f in log_report(other)["findings"]] == [W12]


PROSE = (
    "This walk-through explains each line of the server's start-up and what it tells you about memory.\n\n"
    "The first line below shows the settings you gave, the ones that differ from the defaults of vLLM.\n\n"
    "After it the engine reads the model's configuration and starts to load the weights from the disk.\n\n"
)


def test_a_document_quoting_a_log_stops_where_its_author_did(tmp_path: Path) -> None:
    quoted = log_report(_write(tmp_path, "post.md", PROSE + VLLM_ARGS))
    last_finding = quoted["findings"][-1]
    assert (last_finding["code"], last_finding["severity"]) == ("LG010", "info")
    assert "The file quotes the log between paragraphs of prose" in last_finding["message"]
    # the same lines as the server's own file: where it stops is where the launch stopped
    bare = log_report(_write(tmp_path, "server.log", VLLM_ARGS))
    assert [(f["code"], f["severity"]) for f in bare["findings"]] == [W10]
