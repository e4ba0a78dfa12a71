"""The getopts batch (docs/real_cases.md, "Launch scripts that parse their own arguments"): eight public
launch scripts that read their own options before starting the server (``getopts``, ``while [[ $# -gt 0 ]];
case $1``, ``"${@:2}"``, an external ``getopt`` fed to ``eval set --``, ``"$@"`` passed on), each checked with
the arguments a user would give it, as a new user (no resolver environment, no Hugging Face cache). Each
``tests/data/real_cases_getopts/`` file names its URL in its header and its arguments in ``# args:``.

The server argv must be the one bash builds; where no program the script runs is missing here (every case
but the Gaudi script's `hl-smi` probe and the Slurm one's `getopt`/`sbatch`), real bash runs the case file
with recorders on PATH (tests/shell/recorder.py) and the two must be equal.

First seen (on f9fc5a7) / now: server argv exact 6 / 7 of 8; words unknown where bash is certain 7 / 0;
wrong claims (d) 1 / 0; missed servers 1 / 1 (a server inside `sbatch --wrap="$(...)"`, not followed).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import alarms, run_cli
from tests.shell.test_differential import run_case

CASES = Path(__file__).resolve().parent / "data" / "real_cases_getopts"

pytestmark = pytest.mark.usefixtures("new_user_machine")


@dataclass(frozen=True)
class Case:
    file: str
    argv: list[str | None] | None  # the server argv argtrace predicts (None: no server found)
    before: str  # what check said on f9fc5a7 (the class of docs/real_cases.md)
    after: str
    bash: bool = True  # real bash can run it here with recorders (no probe of a program missing here)


CASES_ = [
    Case(
        "01_mlcommons_gptoss_args_string.sh",
        [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "/models/gpt-oss-120b",
            "--host",
            "0.0.0.0",
            "--port",
            "30000",
            "--tp-size=1",
            "--data-parallel-size=2",
            "--max-running-requests",
            "1024",
            "--mem-fraction-static",
            "0.85",
            "--chunked-prefill-size",
            "16384",
            "--ep-size=1",
            "--stream-interval",
            "500",
            "--speculative-draft-model-path",
            "/models/gpt-oss-120b-eagle3",
            "--speculative-algorithm",
            "EAGLE3",
        ],
        "exact",
        "exact",
    ),
    Case(
        "02_mlcommons_gptoss_dp_only.sh",
        [
            "python3",
            "-m",
            "sglang.launch_server",
            "--model-path",
            "openai/gpt-oss-120b",
            "--host",
            "0.0.0.0",
            "--port",
            "30000",
            "--tp-size=1",
            "--data-parallel-size=4",
            "--max-running-requests",
            "256",
            "--mem-fraction-static",
            "0.85",
            "--chunked-prefill-size",
            "16384",
            "--ep-size=1",
            "--quantization",
            "mxfp4",
            "--stream-interval",
            "50",
        ],
        "exact",
        "exact",
    ),
    Case(
        "03_habana_getopts.sh",
        [
            "python3",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--host",
            "0.0.0.0",
            "--port",
            "8700",
            "--block-size",
            "128",
            "--model",
            "/data/hf_models/DeepSeek-R1-Gaudi",
            "--device",
            "hpu",
            "--dtype",
            "bfloat16",
            "--kv-cache-dtype",
            "fp8_inc",
            "--tensor-parallel-size",
            "8",
            "--trust-remote-code",
            "--max-model-len",
            "32768",
            "--max-num-seqs",
            "64",
            "--max-num-batched-tokens",
            "32768",
            "--distributed_executor_backend",
            "ray",
            "--gpu_memory_utilization",
            "0.75",
            "--disable-log-requests",
            "--reasoning-parser",
            "deepseek_r1",
        ],
        "7 words unknown (b)",
        "exact",
        bash=False,  # `hl-smi` is not here: bash takes the `exit 1` branch
    ),
    Case(
        "04_towerdefense_at_slice.sh",
        [
            "vllm",
            "serve",
            "--model",
            "/models/Qwen2.5-7B-Instruct",
            "--port",
            "8000",
            "--host",
            "127.0.0.1",
            "--max-model-len",
            "32768",
            "--gpu-memory-utilization",
            "0.8",
            "--tensor-parallel-size",
            "2",
        ],
        "exact",
        "exact",
    ),
    Case(
        "05_purple_getopt_sbatch.sh",
        # session 27: util-linux getopt's output is computed (getopt_program.py), so the options, the
        # defaults and the `sbatch --wrap` server they build are known (it had been "no server found")
        [
            "python",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--model",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--tensor_parallel_size",
            "4",
            "--host",
            "0.0.0.0",
            "--port",
            "8001",
        ],
        "d: says it stops at `exit`",
        "exact",
        bash=False,
    ),
    Case(
        "06_llava_passthrough.sh",
        [
            "python3",
            "-m",
            "vllm.entrypoints.openai.api_server",
            "--host",
            "0.0.0.0",
            "--port",
            "8000",
            "--model",
            "llava-hf/llava-1.5-7b-hf",
            "--max-model-len",
            "4096",
        ],
        "exact",
        "exact",
    ),
    Case(
        "07_dibench_positional.sh",
        [
            "vllm",
            "serve",
            "Qwen/Qwen2.5-Coder-7B-Instruct",
            "--port",
            "8123",
            "--trust-remote-code",
            "--gpu-memory-utilization",
            "0.99",
        ],
        "exact",
        "exact",
    ),
    Case(
        "08_spyre_entrypoint.sh",
        [
            "vllm",
            "serve",
            "ibm-granite/granite-3.3-8b-instruct",
            "--max-model-len",
            "4096",
            "--max-num-seqs",
            "4",
            "--tensor-parallel-size",
            "4",
        ],
        "exact",
        "exact",
    ),
]


def script_args(file: str) -> list[str]:
    for line in (CASES / file).read_text().splitlines()[:5]:
        if line.startswith("# args:"):
            return shlex.split(line.split(":", 1)[1])
    raise AssertionError(f"{file} has no `# args:` line")


def check(file: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", file, *script_args(file)], cwd=CASES)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


@pytest.mark.parametrize("case", CASES_, ids=[c.file for c in CASES_])
def test_server_argv_is_the_one_bash_builds(case: Case) -> None:
    report = check(case.file)
    servers = [s["argv"] for s in report["servers"]]
    assert servers == ([] if case.argv is None else [case.argv])
    # each is a correct launch for these arguments: nothing to warn about
    assert [(f["severity"], f["code"]) for f in alarms(report)] == []


@pytest.mark.parametrize("case", [c for c in CASES_ if c.bash], ids=[c.file for c in CASES_ if c.bash])
def test_real_bash_builds_the_same_argv(case: Case, tmp_path: Path) -> None:
    single = tmp_path / "case"
    single.mkdir()
    (single / case.file).write_text((CASES / case.file).read_text())
    predicted, recorded, _ = run_case(single / case.file, tmp_path / "run")
    assert recorded, "bash must start the server"
    assert predicted == recorded


def test_habana_getopts_values_come_from_the_options() -> None:
    """Was: every value the options set unknown ("depends on the condition of `while getopts ...`")."""
    report = check("03_habana_getopts.sh")
    assert [f["code"] for f in report["findings"] if f["code"].startswith("SH")] == []
    argv = report["servers"][0]["argv"]
    # -l 32768 takes the `(( max_model_len <= 16384 ))` else branch: 0.75, known, not "0.85 or 0.75"
    assert argv[argv.index("--gpu_memory_utilization") + 1] == "0.75"


def test_slurm_getopt_script_no_longer_claims_it_stops_at_exit() -> None:
    """Was SH019 "... it stops at `exit` at ...:14:43 with status 1": the `--)` fork's `break` was taken as
    that path ending; then (session 26) SH019 "no server found" with an SH018 note on the `eval` of getopt's
    output. Now getopt's output is computed: no `eval` of an unknown string, and the server the script
    hands to `sbatch --wrap` is read with the options the user passed."""
    report = check("05_purple_getopt_sbatch.sh")
    assert [f["code"] for f in report["findings"] if f["code"].startswith("SH")] == []
    assert report["servers"][0]["argv"][-1] == "8001"


def test_dash_dash_after_the_script_is_its_first_argument(tmp_path: Path) -> None:
    """`check launch.sh -- -m M`: bash gives the script `--` as $1 and its `getopts` stops there, so -m M
    reach the server unparsed (the two PA001 errors are true of that launch); a note on stderr says how to
    end argtrace's own options instead."""
    script = tmp_path / "launch.sh"
    script.write_text(
        'M=/models/default\nwhile getopts "m:t:" o; do case $o in m) M=$OPTARG;; t) T=$OPTARG;; esac; done\n'
        'shift $((OPTIND-1))\npython -m sglang.launch_server --model-path "$M" --tp-size "${T:-1}" "$@"\n'
    )
    words = ["-m", "/models/Q", "-t", "4"]
    after = run_cli(["check", "--format", "json", "launch.sh", "--", *words], cwd=tmp_path)
    assert after.json["servers"][0]["argv"][3:] == [
        "--model-path",
        "/models/default",
        "--tp-size",
        "1",
        "-m",
        "/models/Q",
        "-t",
        "4",
    ]
    assert "note: after SCRIPT, `--` is the script's $1, as `bash SCRIPT -- ...` gives it" in after.stderr
    before = run_cli(["check", "--format", "json", "--", "launch.sh", *words], cwd=tmp_path)
    assert before.json["servers"][0]["argv"][3:] == ["--model-path", "/models/Q", "--tp-size", "4"]
    assert "note:" not in before.stderr
    assert alarms(before.json) == []


def test_counts() -> None:
    exact_before = sum(c.before == "exact" for c in CASES_)
    exact_after = sum(c.after == "exact" for c in CASES_)
    assert (exact_before, exact_after, len(CASES_)) == (6, 8, 8)  # 05 exact since session 27 (getopt)
