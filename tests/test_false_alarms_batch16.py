"""The 2026-12-03 false-alarm batch: 35 working launches of 2025-2026 from the frameworks' benchmark and CI
scripts, community repositories (scripts, Makefiles, docker runs, SLURM) and reports whose launch worked,
checked as a new user (no options). 32 are in the plain gate (``tests/test_false_alarms.py``: the ``s16_``
cases, with Makefiles as a new kind); the three that cannot be clean are here with what argtrace says of
them, and each mechanism the batch fixed has its variants, broken ones included (docs/false_alarms.md,
"The 2026-12-03 batch").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli

DATA = Path(__file__).resolve().parent / "data" / "fa16"
GATE = Path(__file__).resolve().parent / "data" / "false_alarms"

pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(cwd: Path, *argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def alarms(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["severity"], f["code"]) for f in report["findings"] if f["severity"] in ("error", "warning")]


def codes(report: dict[str, Any], code: str) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["code"] == code]


def words(report: dict[str, Any]) -> list[list[str | None]]:
    return [[w["text"] for w in s["words"]] for s in report["servers"]]


def command(path: Path) -> str:
    return "\n".join(line for line in path.read_text().splitlines() if not line.startswith("#")).strip("\n")


# ---- the three launches outside the plain gate


def test_sglang7726_stderr_redirected_before_the_log_is_a_true_warning() -> None:
    # `... 2>&1 > qwen32b_infer_$(date ...).log &`: bash points stderr at the terminal first, then stdout at
    # the file, so the server's tracebacks and log records are not in the log. The launch works; the
    # finding is true (the report's own log would miss any error)
    report = check(DATA, "-c", command(DATA / "s16_sglang7726_inductor_cache_log_redirect.cmd"))
    assert alarms(report) == [("warning", "SH010")]
    assert len(report["servers"]) == 1


def test_launches_argtrace_cannot_read_yet_are_said_as_notes() -> None:
    # vLLM's CI launcher builds its command from JSON given as $1/$2 and runs it with `eval "$cmd" &`.
    # Until session 28 an eval of a text with unknown parts was not followed (SH018, then SH019 "no server
    # start found"); now the text's known words are read and each value from the JSON is unknown
    # (layers/shell/holes.py): both servers are seen, with their unknown words as notes, and no alarm
    report = check(DATA, "s16_vllm_perf_launch_server_json_args.sh")
    assert alarms(report) == [] and codes(report, "SH019") == []
    assert words(report) == [
        ["python3", "-m", "sglang.launch_server", "--tp", None, "--model-path", None, "--port", None, None],
        ["vllm", "serve", None, "-tp", None, "--port", None, None],
    ]


def test_the_dockerfiles_exec_form_cmd_is_read_as_the_containers_launch() -> None:
    # F35: read since the sixth carriers batch (layers/transport/dockerfile.py): lmsysorg/sglang's NVIDIA
    # entrypoint runs the exec-form CMD as it is
    report = check(DATA, "Dockerfile")
    assert alarms(report) == []
    assert [[w["text"] for w in s["words"]] for s in report["servers"]] == [
        [
            "python",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "Qwen/Qwen3-8B",
            "--host",
            "0.0.0.0",
            "--port",
            "8000",
            "--grammar-backend",
            "llguidance",
        ]
    ]


# ---- PA042: two listeners of one port whose starts the file separates with a stop


_NIXL = (
    "f() {{ VLLM_NIXL_SIDE_CHANNEL_PORT=5560 vllm serve m --port {port} "
    '--kv-transfer-config \'{{"kv_connector":"NixlConnector","kv_role":"kv_both"}}\' & }}\n'
)


def test_a_port_reused_after_the_script_stops_its_servers_is_a_note(tmp_path: Path) -> None:
    # vLLM's disagg_nixl_epd_benchmark.sh: one setup, `pgrep VLLM | xargs -r kill -9`, the next setup
    (tmp_path / "b.sh").write_text(
        "#!/bin/bash\n" + _NIXL.format(port=8100) + "f\npgrep VLLM | xargs -r kill -9\nf\n"
    )
    report = check(tmp_path, "b.sh")
    assert alarms(report) == []
    (note,) = codes(report, "PA042")
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert note["message"].endswith(
        "if they run at once: the file stops processes between these starts (b.sh:4:14), which may end the "
        "first before the second binds"
    )


def test_the_same_port_with_no_stop_between_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "b.sh").write_text("#!/bin/bash\n" + _NIXL.format(port=8100) + "f\nsleep 5\nf\n")
    report = check(tmp_path, "b.sh")
    assert alarms(report) == [("error", "PA042")]


# ---- SH046: a script that needs its arguments, or a caller's variable, to reach its server


def test_a_script_given_no_arguments_is_read_with_them_unknown() -> None:
    # SGLang's shared_router/launch_server.sh: `[[ $# -lt 3 ]] && exit 2`, then the exec'd server
    report = check(GATE / "scripts", "s16_sglang_shared_router_positional.sh")
    assert len(report["servers"]) == 1 and alarms(report) == []
    (note,) = codes(report, "SH046")
    assert (note["severity"], note["basis"]) == ("info", "assumed")
    assert "when it is given no arguments" in note["message"]


def test_the_arguments_given_need_no_note() -> None:
    report = check(GATE / "scripts", "s16_sglang_shared_router_positional.sh", "/models/m", "perf", "1")
    assert codes(report, "SH046") == []
    assert words(report)[0][words(report)[0].index("--model-path") + 1] == "/models/m"


def test_a_server_only_a_caller_variable_selects_is_read_with_it_unknown(tmp_path: Path) -> None:
    (tmp_path / "l.sh").write_text(
        '#!/bin/bash\nif [[ "$ENGINE" == *vllm* ]]; then\n  vllm serve Qwen/Qwen3-0.6B\nfi\n'
    )
    report = check(tmp_path, "l.sh")
    assert len(report["servers"]) == 1 and alarms(report) == []
    (note,) = codes(report, "SH046")
    assert note["message"].startswith("l.sh starts no server when $ENGINE is not set, as where argtrace runs")
    # given, the variable decides: no server, said as before
    given = check(tmp_path, "--env", "ENGINE=sglang", "l.sh")
    assert given["servers"] == [] and codes(given, "SH046") == [] and len(codes(given, "SH019")) == 1


# ---- Makefiles: make's variables, recipes run by /bin/sh


def test_a_makefile_recipe_gets_makes_values(tmp_path: Path) -> None:
    # JaleelRadhu/Faithful_Summarization's Makefile.mk: `MODEL_NAME ?= "Qwen/..."`, `--model $(MODEL_NAME)`;
    # read as a shell script, `$(MODEL_NAME)` was a command substitution and every value was lost (SH018)
    report = check(GATE / "make", "s16_faithful_summarization_vars.mk")
    assert words(report) == [
        [
            "python",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            "Qwen/Qwen2.5-7B-Instruct",
            "--tensor-parallel-size",
            "2",
            "--port",
            "8000",
            "--host",
            "0.0.0.0",
            "--gpu-memory-utilization",
            "0.50",
        ]
    ]
    assert codes(report, "SH018") == [] and codes(report, "PA013") == []
    # the server's line is the Makefile's own
    assert report["servers"][0]["at"] == "s16_faithful_summarization_vars.mk:12:2"


_MAKEFILE = (
    "TP ?= 2\nPORT := 8000\nMODEL = Qwen/Qwen3-0.6B\n"
    'serve:\n\t@echo "$$HOME"\n\tvllm serve $(MODEL) --tensor-parallel-size $(TP) --port ${PORT}\n'
    "other:\n\tvllm serve x\n"
)


def test_a_goal_after_the_makefile_selects_its_recipe_and_env_overrides_a_default(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(_MAKEFILE)
    report = check(tmp_path, "--env", "TP=4", "Makefile", "serve")
    assert words(report) == [
        ["vllm", "serve", "Qwen/Qwen3-0.6B", "--tensor-parallel-size", "4", "--port", "8000"]
    ]
    assert alarms(report) == []
    everything = check(tmp_path, "Makefile")
    assert [w[:3] for w in words(everything)] == [
        ["vllm", "serve", "Qwen/Qwen3-0.6B"],
        ["vllm", "serve", "x"],
    ]


def test_a_make_variable_nobody_sets_is_empty_and_still_fires(tmp_path: Path) -> None:
    # make expands an undefined variable to nothing: `--max-num-seqs` then has no value (vLLM exits 2)
    (tmp_path / "Makefile").write_text("serve:\n\tvllm serve m --max-num-seqs $(SEQS)\n")
    report = check(tmp_path, "Makefile")
    assert ("warning", "SH007") in alarms(report)


def test_a_variable_an_included_file_may_set_is_unknown_not_empty(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("-include .env\nserve:\n\tvllm serve m --max-num-seqs $(SEQS)\n")
    report = check(tmp_path, "Makefile")
    assert alarms(report) == []
    assert words(report) == [["vllm", "serve", "m", "--max-num-seqs", None]]


# ---- seq: short integer lists are known


def test_a_loop_over_a_short_seq_starts_each_instance(tmp_path: Path) -> None:
    # vLLM's nixl_integration/run_accuracy_test.sh: `for i in $(seq 0 $((N-1)))` around each `eval` start
    script = "for i in $(seq 0 1); do\n  vllm serve m --port $((8100 + i)) &\ndone\n"
    report = check(tmp_path, "-c", script)
    assert [w[-1] for w in words(report)] == ["8100", "8101"]


def test_a_long_seq_stays_unknown(tmp_path: Path) -> None:
    # a 300-step wait loop is not unrolled: its list is not known, as before
    report = check(tmp_path, "-c", "for i in $(seq 1 300); do sleep 1; done\nvllm serve m --port 8000\n")
    assert len(report["servers"]) == 1


# ---- a command copied with its last backslash


def test_a_final_backslash_reads_as_typed_at_a_prompt(tmp_path: Path) -> None:
    # sglang-plugin-FL#40's block ends on `--sampling-backend flashinfer \`; shellcheck parsed the bare text
    # as an escaped end of input (SC1073/SC1072 warnings)
    report = check(tmp_path, "-c", "python3 -m sglang.launch_server --model-path m \\\n  --port 30000 \\")
    assert alarms(report) == []
    assert words(report) == [
        ["python3", "-m", "sglang.launch_server", "--model-path", "m", "--port", "30000"]
    ]


# ---- hf jobs run (huggingface_hub's CLI)


def test_hf_jobs_run_is_followed_with_the_jobs_environment(tmp_path: Path) -> None:
    # huggingface/blog#3432 (vllm-jobs.md): was SH040 "argtrace does not follow `hf jobs`"
    line = (
        "export CALLER_ONLY=1 HF_TOKEN=t; hf jobs run --flavor h200x2 --expose 8000 --timeout 2h -s HF_TOKEN "
        "-e VLLM_LOGGING_LEVEL=DEBUG vllm/vllm-openai:latest vllm serve Qwen/Qwen3.5-122B-A10B --port 8000"
    )
    report = check(tmp_path, "-c", line)
    assert alarms(report) == []
    assert words(report)[0][14:] == ["vllm", "serve", "Qwen/Qwen3.5-122B-A10B", "--port", "8000"]
    # the job's container: the image's environment (PATH unknown) plus -e/-s, never the caller's
    assert sorted(report["process"]["env"]) == ["HF_TOKEN", "PATH", "VLLM_LOGGING_LEVEL"]


@pytest.mark.parametrize(
    "line",
    [
        "hf jobs run --dry-run vllm/vllm-openai:latest vllm serve m",  # prints the configuration only
        "hf jobs run --no-such-option vllm/vllm-openai:latest vllm serve m",  # click refuses it
    ],
)
def test_hf_jobs_run_that_runs_nothing_starts_no_server(tmp_path: Path, line: str) -> None:
    assert check(tmp_path, "-c", line)["servers"] == []


def test_stops_are_placed_only_when_every_start_is_found_in_order() -> None:
    from argtrace.servers_together import stops_before_starts

    commands = [
        ("a:1", ["vllm", "serve", "m"], None),
        ("a:2", ["pgrep", "VLLM"], None),
        ("a:2", ["xargs", "-r", "kill", "-9"], None),
        ("a:3", ["vllm", "serve", "m"], None),
    ]
    assert stops_before_starts(["a:1", "a:3"], commands) == [(), ("a:2",)]
    # a start the commands do not hold (a child shell's): no stop is placed between any two
    assert stops_before_starts(["a:1", "b:9", "a:3"], commands) == [(), (), ()]
    # `kill -0 PID` only asks whether the server lives (vLLM's auto_tune.sh health loop); `docker ps` lists
    looks = [("a:1", ["vllm"], None), ("x", ["kill", "-0", "7"], None), ("y", ["docker", "ps"], None)]
    stops = [("z", ["fuser", "-k", "8000/tcp"], None), ("w", ["docker", "rm", "-f", "c"], None)]
    assert stops_before_starts(["a:1", "a:1"], [*looks, ("a:1", ["vllm"], None)]) == [(), ()]
    assert stops_before_starts(["a:1", "a:1"], [*looks, *stops, ("a:1", ["vllm"], None)]) == [(), ("z", "w")]
