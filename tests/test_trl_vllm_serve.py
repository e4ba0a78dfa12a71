"""TRL's ``trl vllm-serve`` (frameworks/trl_vllm_serve.py, trl_launch.py): the table generated from the TRL
wheels, TrlParser's reading of the words, the argv vLLM gets, the forms detected, and the batch trl21's real
launches (docs/real_cases.md, "TRL's vllm-serve"), each under ``tests/data/real_cases_trl21/`` with its URL.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks.detect import detect_server
from argtrace.frameworks.trl_vllm_serve import (
    first_forwarding,
    read_trl,
    record,
    release_for_vllm,
    releases,
    resolver_argv,
    runs_module,
    trl_env,
)
from tests.batches import check_case
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_trl21"

# failure reports: class first seen (b108a039) -> now, by the better of `check` and `why`
CLASSES = {
    "tp2_one_gpu.sh": ("c", "a"),
    "pr3310_dp8_trl_cli.sh": ("c", "b"),
    "trl3304_worker_extension_cls.sh": ("a", "a"),  # `why` on its traceback (unchanged), `check` says nothing
    "simplear24_trl016_invalid_choice.sh": ("c", "c"),
    "trl3157_coder14b_vllm082.sh": ("c", "c"),  # a vLLM bug: no setting to blame, and none blamed
}
CORRECT = ["coderm_run_correct.sh", "trl3467_maintainer_correct.sh", "trl_docs_tp2_dp2_correct.sh"]


@functools.cache
def _report(name: str) -> dict[str, Any]:
    return check_case(CASES, name)


def _codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f["code"], f["severity"]) for f in report["findings"]]


def _setting(report: dict[str, Any], dest: str) -> dict[str, Any]:
    return next(s for s in report["settings"] if s["dest"] == dest)


# -- the generated table (scripts/gen_trl_vllm_serve.py over the PyPI wheels) ----------------------------


def test_table_covers_the_releases_with_vllm_serve() -> None:
    got = releases()
    assert (got[0], got[-1], len(got)) == ("0.16.0", "1.16.0", 39)
    assert first_forwarding() == "1.11.0"
    assert record("1.10.0")["remaining"] == "refused" and "llm" in record("1.10.0")
    new = record("1.16.0")
    assert new["remaining"] == "forwarded"
    assert new["command"]["env"] == {"VLLM_SERVER_DEV_MODE": "'1'"}
    lits = [i["lit"] for i in new["command"]["items"] if "lit" in i and "when" not in i]
    assert lits[-6:] == [
        "--weight-transfer-config",
        '{"backend": "nccl"}',
        "--logprobs-mode",
        "processed_logprobs",
        "--max-logprobs",
        "-1",
    ]
    assert {"lit": "--enable-scale-out", "when": {"vllm_min": "0.30.0"}} in new["command"]["items"]
    old = record("0.17.0")["llm"]
    assert old["keywords"]["worker_extension_cls"] == {
        "lit": "trl.scripts.vllm_serve.WeightSyncWorkerExtension"
    }
    assert old["uvicorn"] == {"host": "host", "log_level": "log_level", "port": "port"}
    assert sorted(old["env"]) == [
        "VLLM_DP_MASTER_PORT",
        "VLLM_DP_RANK",
        "VLLM_DP_RANK_LOCAL",
        "VLLM_DP_SIZE",
        "VLLM_WORKER_MULTIPROC_METHOD",
    ]
    assert runs_module("trl.cli", "0.28.0") and not runs_module("trl.cli", "0.29.0")
    assert runs_module("trl.cli.main", "0.29.0")
    assert [r for r in releases() if record(r).get("cli_warning")][-1] == "0.25.0"


def test_release_assumed_from_the_vllm_release_and_the_form() -> None:
    assert release_for_vllm("0.30.0")[0] == "1.16.0"
    assert release_for_vllm("0.10.2")[0] == "1.0.0"
    assert release_for_vllm("0.8.5.post1")[0] == "0.20.0"
    assert release_for_vllm("0.7.3")[0] == "0.16.0"
    rel, why = release_for_vllm("0.33.0", "trl.cli")
    assert rel == "0.28.0"
    assert why.startswith("`python -m trl.cli` runs in TRL 0.16.0-0.28.0; of those")


# -- TrlParser (HfArgumentParser) over ScriptArguments ----------------------------------------------------


def test_hfargumentparser_rules() -> None:
    read = read_trl(
        ["--model", "m", "--tensor-parallel-size", "2", "--enforce_eager", "--trust_remote_code", "no"]
    )
    assert read.given["tensor_parallel_size"] == (2, (2, 3))
    assert read.given["enforce_eager"] == (True, (4,))  # nargs="?", const=True
    assert read.given["trust_remote_code"] == (False, (5, 6))
    assert read.error is None and read.remaining == []
    # Optional[bool] defaulting to None: no const, a value is needed
    assert read_trl(["--model", "m", "--enable_prefix_caching"]).error == (
        "argument --enable_prefix_caching: expected one argument"
    )
    assert read_trl(["--model", "m", "--port", "x"]).error == "argument --port: invalid int value: 'x'"
    assert read_trl(["--port", "1"]).error == "the following arguments are required: --model"
    # a positional model is no option of TrlParser: left over, and --model is still missing
    positional = read_trl(["Qwen/Qwen3-8B"], "1.16.0")
    assert (positional.remaining, positional.error) == ([0], "the following arguments are required: --model")
    assert read_trl(["--model", "m", "--enforce_eager", "maybe"]).error == (
        "argument --enforce_eager: Truthy value expected: got maybe but expected one of yes/no, true/false, "
        "t/f, y/n, 1/0 (case insensitive)."
    )
    assert read_trl(["--model=m", "--tensor", "4"]).given["tensor_parallel_size"][0] == 4  # allow_abbrev


def test_unknown_words_forwarded_from_1_11_refused_before() -> None:
    words = ["--model", "m", "--max-num-seqs", "64"]
    assert read_trl(words, "1.16.0").remaining == [2, 3] and read_trl(words, "1.16.0").unused is None
    assert read_trl(words, "1.10.0").unused == (
        "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--max-num-seqs', '64']"
    )


def test_vllm_serve_argv_built_as_build_command() -> None:
    words = [
        "--model",
        "Qwen/Qwen3-8B",
        "--port",
        "8880",
        "--tensor_parallel_size",
        "2",
        "--gpu-memory-utilization",
        "0.85",
        "--max-num-seqs",
        "8",
    ]
    argv, why = resolver_argv(words)
    assert why is None
    assert argv == [
        *("Qwen/Qwen3-8B", "--host", "0.0.0.0", "--port", "8880", "--tensor-parallel-size", "2"),
        *("--data-parallel-size", "1", "--gpu-memory-utilization", "0.85", "--dtype", "auto"),
        *("--kv-cache-dtype", "auto", "--model-impl", "vllm", "--uvicorn-log-level", "info"),
        *("--weight-transfer-config", '{"backend": "nccl"}', "--logprobs-mode", "processed_logprobs"),
        *("--max-logprobs", "-1", "--max-num-seqs", "8"),
    ]
    assert trl_env(read_trl(words)) == {"VLLM_SERVER_DEV_MODE": "1"}
    assert resolver_argv(["--model", "m", "--x"])[0] is not None
    assert resolver_argv(["--port", "1"]) == (
        None,
        "trl vllm-serve stops first: the following arguments are required: --model",
    )


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (["trl", "vllm-serve", "--model", "m"], 2),
        (["python", "-m", "trl.cli", "vllm-serve", "--model", "m"], 4),
        (["python3", "-m", "trl.cli.main", "vllm-serve", "--model", "m"], 4),
        (["python", "-m", "trl.scripts.vllm_serve", "--model", "m"], 3),
        (["nohup", "uv", "run", "trl", "vllm-serve", "--model", "m"], 5),
        (["uv", "run", "-m", "trl.scripts.vllm_serve", "--model", "m"], 4),
        (["CUDA_VISIBLE_DEVICES=0", "trl", "vllm-serve", "--model", "m"], 3),
    ],
)
def test_forms_detected(argv: list[str], start: int) -> None:
    found = detect_server(argv)
    assert found is not None
    assert (found.framework, found.entrypoint, found.server_args_start) == ("vllm", "trl vllm-serve", start)


def test_not_a_server_start() -> None:
    assert detect_server(["trl", "grpo", "--model", "m"]) is None
    assert detect_server(["python", "-m", "trl.cli", "sft"]) is None


# -- the real launches of batch trl21 --------------------------------------------------------------------


@pytest.mark.usefixtures("new_user_machine")
def test_brief_example_tp2_on_one_gpu() -> None:
    report = _report("tp2_one_gpu.sh")
    assert [(f["code"], f["severity"]) for f in alarms(report)] == [("PR004", "error")]
    assert alarms(report)[0]["message"].startswith(
        "the server needs 2 GPU(s) (tensor_parallel_size 2 x pipeline_parallel_size 1 x "
        "data_parallel_size 1) but CUDA_VISIBLE_DEVICES=0 makes only 1 visible"
    )
    # what vLLM saw: the user's TRL words, TRL's defaults, TRL's own flags
    port = _setting(report, "port")
    assert port["effective"] == 8880
    assert [h["layer"] for h in port["history"]][:1] == ["shell"]
    assert _setting(report, "host")["effective"] == "0.0.0.0"
    host_via = [h.get("via") for h in _setting(report, "host")["history"]]
    assert "TRL's default (trl 1.16.0 build_command)" in host_via
    assert _setting(report, "max_logprobs")["effective"] == -1
    assert _setting(report, "gpu_memory_utilization")["effective"] == 0.85
    note = report["parser"]["notes"][0]
    assert note.startswith(
        "trl vllm-serve (trl 1.16.0 (assumed: the newest TRL release read whose vllm extra"
    )
    assert "VLLM_SERVER_DEV_MODE=1" in note and "--gpu-memory-utilization 0.9" not in note


@pytest.mark.usefixtures("new_user_machine")
def test_pr3310_dp_through_the_cli_module() -> None:
    report = _report("pr3310_dp8_trl_cli.sh")
    assert alarms(report) == []
    pa065 = next(f for f in report["findings"] if f["code"] == "PA065")
    assert pa065["severity"] == "info"
    assert pa065["message"].startswith(
        "TRL 0.17.0-0.25.0's CLI warns about this launch: Detected configuration: tensor_parallel_size=1 and "
        "data_parallel_size>1."
    )
    assert _setting(report, "data_parallel_size")["effective"] == 8  # VLLM_DP_SIZE per worker
    assert "trl 0.28.0" in report["parser"]["notes"][0]


@pytest.mark.usefixtures("new_user_machine")
@pytest.mark.parametrize("name", [*CORRECT, "trl3157_coder14b_vllm082.sh", "trl3304_worker_extension_cls.sh"])
def test_correct_arguments_are_clean(name: str) -> None:
    report = _report(name)
    assert alarms(report) == []
    assert {c for c, _s in _codes(report)} <= {"PR011", "PR007", "RS004"}


@pytest.mark.usefixtures("new_user_machine")
def test_coderm_values_reach_the_engine() -> None:
    report = _report("coderm_run_correct.sh")
    assert _setting(report, "enable_prefix_caching")["effective"] is True
    assert _setting(report, "max_model_len")["effective"] == 4608
    assert _setting(report, "gpu_memory_utilization")["effective"] == 0.85


def test_config_yaml_as_trlparser_reads_it() -> None:
    words = ["--config", "serve.yaml", "--port", "9000", "--max-num-seqs", "8"]
    config = {
        "model": "m",
        "gpu_memory_utilization": "0.7",
        "max_num_seqs": 32,
        "env": {"NCCL_DEBUG": "WARN"},
    }
    read = read_trl(words, "1.16.0", config=config)
    assert (read.config, read.from_config) == (0, {"model": "m", "gpu_memory_utilization": 0.7})
    assert (read.config_words, read.config_env, read.remaining) == (
        ["--max_num_seqs", "32"],
        {"NCCL_DEBUG": "WARN"},
        [4, 5],
    )
    argv, why = resolver_argv(words, config)
    assert why is None and argv is not None
    assert argv[argv.index("--gpu-memory-utilization") + 1] == "0.7"
    assert argv[-4:] == ["--max_num_seqs", "32", "--max-num-seqs", "8"]  # the YAML's words first
    assert read_trl(words, "1.0.0", config=config).unused == (
        "ValueError: Unknown arguments from config file: ['--max_num_seqs', '32']. Please remove them, "
        "add them "
        "to the dataclass, or set `fail_with_unknown_args=False`."
    )
    assert read_trl(["--config", "c"], "0.17.0", config=config).unused is None  # 0.16-0.19 drop them
    assert read_trl(["--config", "c"], "1.16.0", config=["m"], config_path="c").error == (
        "ValueError: Config file c must contain a YAML mapping."
    )


@pytest.mark.usefixtures("new_user_machine")
def test_trl_options_do_not_narrow_vllm_releases() -> None:
    """``--vllm_model_impl`` is TRL's option, which no vLLM release knows: only the words TRL forwards are
    vLLM's, so the release decision (PR011) does not call it a misspelling."""
    command = "trl vllm-serve --model m --vllm_model_impl transformers --log_level debug --max-num-seqs 4"
    report = run_cli(["check", "--format", "json", "-c", command]).json
    pr011 = next(f for f in report["findings"] if f["code"] == "PR011")
    assert pr011["message"].endswith("(accepted by 0.6.6.post1-0.33.0)")
    assert _setting(report, "model_impl")["effective"] == "transformers"
    assert _setting(report, "uvicorn_log_level")["effective"] == "debug"


@pytest.mark.usefixtures("new_user_machine")
def test_text_marks_what_trl_wrote() -> None:
    command = "CUDA_VISIBLE_DEVICES=0,1 trl vllm-serve --model m --port 8880 --tensor_parallel_size 2"
    lines = [line.split() for line in run_cli(["check", "-c", command]).stdout.splitlines()]
    assert ["--host", "0.0.0.0", "(TRL's", "default)"] in lines
    assert ["--max-logprobs", "-1", "(set", "by", "TRL)"] in lines
    assert ["--port", "8880"] in lines  # the user's word: no mark
