"""Real failure reports, checked as a new user would: the launch a user posted with the error it caused.

Each case under ``tests/data/real_cases/`` is our reconstruction of the launch command, script, compose file
or manifest posted in a public issue or pull request (its header names the URL); the test runs
``argtrace check`` on it as a new user would (no resolver environment, no Hugging Face cache; the release
only when the report names it) and asserts the finding that names the root cause: its code, its severity
(error or warning, so it is on the first screen) and the fix it proposes. ``argtrace why`` cases take the
error text the report quotes and assert the framework site that raises it and the settings it names.

A case argtrace still misses (or finds only as ``info``) is a strict ``xfail`` whose reason names the
mechanism, so the day a fix makes it pass the test turns red until the entry is moved to ``FOUND``.
docs/real_cases.md has the table, the before/after counts and the mechanisms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases"


@pytest.fixture(autouse=True)
def first_run_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new user's machine: no resolver environments, no Hugging Face cache (tests/test_false_alarms.py)."""
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "argtrace-cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)


@dataclass(frozen=True)
class Found:
    """The finding that names the root cause: ``code`` at ``severity``, its message containing ``says``
    and its fix containing ``fix``."""

    file: str
    code: str
    severity: str
    says: str
    fix: str
    options: tuple[str, ...] = ()


FOUND = [
    # 0.10.0 is not bundled: it is analysed with 0.10.2, the bundled release of its family (it was the
    # nearest older, 0.9.2, where the flag is only deprecated); the verdict rests on that stand-in (a
    # warning), and the fix deletes the switch, since --reasoning-parser is on the command already
    Found(
        "vllm18538_enable_reasoning.cmd", "PA003", "warning",
        "--enable-reasoning was accepted up to vllm 0.9.2 but vllm 0.10.2 does not know it",
        "Delete --enable-reasoning at <-c>:1:26: --reasoning-parser is given already.",
        ("--framework-version", "0.10.0"),
    ),
    Found(
        "sglang12818_reasoning_underscore.cmd", "PA014", "error", "--reasoning_parser: sglang does not turn "
        "underscores into dashes", "Write --reasoning-parser instead of --reasoning_parser",
        ("--framework-version", "0.5.5"),
    ),
    # the image's tag names Dynamo 0.6.0, whose wheel pins sglang==0.5.3.post2 (frameworks/dynamo.py
    # engine_release): analysed with the bundled 0.5.3.post3 of that family, a warning resting on it
    Found(
        "dynamo12375_dup_bootstrap.yaml", "PA012", "warning", "--disaggregation-bootstrap-port needs a "
        "value but gets none, and the next word '--disaggregation-bootstrap-port' looks like a flag; "
        'argparse stops with "argument --disaggregation-bootstrap-port: expected one argument" (exit '
        "status 2)",
        "make sure the value is there",
    ),
    Found(
        "vllm22072_compose_list.yaml", "TP011", "error", "'--dtype auto' is ONE argv word", "--dtype=auto",
    ),
    Found(
        "vllm22072_compose_list.yaml", "TP010", "error", "vllm/vllm-openai:latest already has the entrypoint "
        "`vllm serve`", "Pass only the model and flags after the image",
    ),
    Found(
        "vllm46325_single_dash.cmd", "PA015", "error", "-language-model-only has a single hyphen",
        "Write --language-model-only instead of -language-model-only", ("--framework-version", "0.23.0"),
    ),
    Found(
        "sglang5032_enable_metrics_underscore.cmd", "PA014", "error", "--enable_metrics: sglang does not "
        "turn underscores into dashes", "Write --enable-metrics instead of --enable_metrics",
        ("--framework-version", "0.4.4.post1"),
    ),
    Found(
        "vllm22303_enforce_eager_true.cmd", "PA022", "error", "--enforce-eager takes no value, so 'true' is "
        "left over", "Delete 'true'", ("--framework-version", "0.9.2"),
    ),
    Found(
        "vllm42399_missing_backslash.sh", "SH004", "error", "line 11 starts with `--enable-prefix-caching`",
        "line 10 with a backslash",
    ),
    Found(
        "vllm15439_space_in_path.cmd", "PA001", "error", "'Models/mistralai__Mistral-Small-3.1-24B-Instruct"
        "-2503' (after /mnt/f/AI/AI) is not a value of any flag", "quote the value",
    ),
    Found(
        "vllm50292_attention_backend_env.cmd", "PR001", "warning", "VLLM_ATTENTION_BACKEND is read by vllm "
        "0.6.6.post1", "remove VLLM_ATTENTION_BACKEND", ("--framework-version", "0.26.0"),
    ),
    Found(
        "blog305_redundant_serve.cmd", "TP010", "error", "so the container runs `vllm serve vllm "
        "serve nvidia/",
        "Pass only the model and flags after the image",
    ),
    # fixed 2026-12-02: the "did you mean" named the allreduce fusion, another feature; a suggestion is now
    # offered only for a flag plausibly the same (layers/parser/releases.same_feature), else the fix removes
    Found(
        "sglang37646_pure_allreduce.cmd", "PA001", "error", "--enable-flashinfer-pure-allreduce is not a "
        "sglang 0.5.18 flag", "remove the flag (no sglang 0.5.18 flag is spelled like it)",
        ("--framework-version", "0.5.18"),
    ),
    # fixed 2026-12-01: a Kubernetes `command` item holding a whole command line (the runtime looks for a
    # program named by the entire string)
    Found(
        "vllm4462_k8s_command_string.yaml", "TP011", "error", "the `command` item 'python3 -m "
        "vllm.entrypoints"
        ".openai.api_server", "Give each word its own item (`python3`, `-m`, "
        "`vllm.entrypoints.openai.api_server`, ...)",
    ),
    # fixed 2026-12-01: a shell appended to the image's `vllm serve` entrypoint (`bash -c "vllm serve ..."`)
    Found(
        "vllm32755_compose_bash_c.yaml", "TP010", "error", "so the container runs `vllm serve bash -c -i",
        "replace the entrypoint explicitly",
    ),
    # fixed 2026-12-01: the flag was renamed with the opposite meaning (--disable-log-requests ->
    # --enable-log-requests); the fix used to turn request logging ON, and the message said the flag "only
    # exists from 0.33.0 on" though 0.6.6-0.16.0 had it
    Found(
        "llmdbench781_disable_log_requests.cmd", "PA003", "error", "--disable-log-requests was "
        "accepted up to "
        "vllm 0.16.0 and again from vllm 0.33.0 on, but vllm 0.17.1 does not know it",
        "Write --no-enable-log-requests instead of --disable-log-requests", ("--framework-version", "0.17.1"),
    ),
    # fixed 2026-12-01: flags after an image whose entrypoint runs its arguments (lmsysorg/sglang) are run
    # as a program (TP045)
    Found(
        "sglang3855_docker_noentry.cmd", "TP045", "error", "the container tries to run --host as a program",
        "Name the server before its flags",
    ),
    # fixed 2026-12-01: a flag no bundled vLLM release knows was `info` when no release was named
    Found(
        "llmkube1030_enable_metrics.cmd", "PA002", "error", "--enable-metrics is an SGLang flag; "
        "vLLM rejects "
        "it", "remove the flag (argtrace knows no vLLM flag that does the same)",
    ),
    # fixed 2026-12-02: no release named, but every release that registers --speculative-config gives its
    # value to json.loads (optional_type(json.loads) from 0.10.2), which refuses the literal quotes
    # (the release index's converters); the fix removes the quotes where printf makes them
    Found(
        "mia5_printf_quotes.sh", "PA011", "error", "argument --speculative-config/-sc: Value "
        "'{\"method\":\"mtp\",\"num_speculative_tokens\":2}' cannot be converted",
        "remove the ' characters around the value where it is made",
    ),
    # fixed 2026-12-02: a compose list-form `environment:` item keeps its value's quotes (compose-go cuts
    # the item at the first `=`), so LMCache gets a path that starts with `"` (TP019, new rule)
    Found(
        "lmcache906_compose_quotes.yaml", "TP019", "warning", "LMCACHE_CONFIG_FILE in `environment:` is "
        "quoted", "Write LMCACHE_CONFIG_FILE=/root/sdb2/LMcache_file/cpu-offload.yaml without quotes",
    ),
]


@dataclass(frozen=True)
class Missed:
    """A case argtrace misses today: no error or warning names the root cause (``code``, when the rule
    that would is known; else none at all). ``why`` is the mechanism."""

    file: str
    why: str
    options: tuple[str, ...] = ()
    code: str | None = None


MISSED = [
    Missed(
        "vllm27389_imageid_serve.cmd",
        "the image is named by an ID (ee2917e260bb): its entrypoint (then python3 -m "
        "vllm.entrypoints.openai.api_server, which takes no `serve` or positional model) is "
        "unknown, TP040 info",
    ),
    Missed(
        "longvt9_max_model_len.cmd",
        "--max-model-len 131072 exceeds the model's max_position_embeddings (32768), which needs the model's "
        "config.json (no --model-config, no local cache); `argtrace why` on the error finds the site",
    ),
    Missed(
        "selfllm459_enable_reasoning.cmd",
        "--enable-reasoning was removed after 0.9.2; with no release named the launch is analysed "
        "as 0.9.2, the "
        "newest release that accepts it, so the removal is only in PR011 (info)",
        code="PA003",
    ),
    Missed(
        "inferencex1371_disable_log_requests.sh",
        "--disable-log-requests is refused by vllm 0.17.1-0.32.0 only; with no release named it is "
        "analysed as "
        "0.33.0, which accepts it again",
    ),
    Missed(
        "vllm15217_pp_multinode.cmd",
        "pipeline parallel over two Ray nodes needs --distributed-executor-backend ray on 0.7.x; "
        "the node count "
        "is not in the command",
        ("--framework-version", "0.7.3"),
    ),
    Missed(
        "vllm20914_no_chunked_prefill_v1.cmd",
        "on 0.9.2's V1 engine --no-enable-chunked-prefill is parsed but chunked prefill stays on; "
        "no resolver "
        "environment for 0.9.2 is bundled, so the effective value is the parser's",
        ("--framework-version", "0.9.2"),
    ),
]


def check(file: str, options: tuple[str, ...]) -> dict[str, Any]:
    path = CASES / file
    if path.suffix == ".cmd":
        lines = path.read_text().splitlines()
        command = "\n".join(line for line in lines if not line.startswith("#")).strip("\n")
        argv = ["check", "--format", "json", *options, "-c", command]
    else:
        argv = ["check", "--format", "json", *options, str(path)]
    result = run_cli(argv, cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def alarms(report: dict[str, Any]) -> list[dict[str, Any]]:
    every = [*report["findings"], *(c for f in report["findings"] for c in f.get("consequences", []))]
    return [f for f in every if f["severity"] in ("error", "warning")]


@pytest.mark.parametrize("case", FOUND, ids=lambda c: f"{c.file}:{c.code}")
def test_the_root_cause_is_named_with_its_fix(case: Found) -> None:
    report = check(case.file, case.options)
    named = [f for f in alarms(report) if f["code"] == case.code and case.says in f["message"]]
    assert named, [(f["severity"], f["code"], f["message"]) for f in report["findings"]]
    assert named[0]["severity"] == case.severity
    assert case.fix in (named[0].get("fix") or "")


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.file, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED],
)
def test_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning with the code (any, when none is named) means something changed: look at it,
    # then move the case to FOUND
    found = alarms(check(case.file, case.options))
    assert [f for f in found if case.code in (None, f["code"])] != []


def test_a_compose_launch_whose_problem_is_elsewhere_raises_no_false_alarm() -> None:
    """vllm/vllm-openai:v0.11.0 with `--model` after the image: the report says the server starts (its
    problem is which GPU it picks). The image table's tag ranges put v0.11.0 on the api_server module's
    entrypoint (`python3 -m vllm.entrypoints.openai.api_server`), which takes `--model`: no PA023 at all
    (it was a warning under an assumed `vllm serve`)."""
    report = check("vllm28132_compose_cuda_visible.yaml", ())
    assert alarms(report) == []
    assert [f for f in report["findings"] if f["code"] == "PA023"] == []
    assert report["servers"][0]["argv"][:3] == ["python3", "-m", "vllm.entrypoints.openai.api_server"]


# --- `argtrace why` on the error text a report quotes ---------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    function: str
    file: str
    settings: tuple[str, ...]


WHY = [
    Why(
        "https://github.com/GoogleCloudPlatform/vertex-ai-samples/issues/2620",
        "ValueError: max_num_batched_tokens (4096) is smaller than max_model_len (32768). This effectively "
        "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
        "sequences. "
        "Please increase max_num_batched_tokens or decrease max_model_len.",
        "SchedulerConfig.verify_max_model_len", "vllm/config/scheduler.py",
        ("max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"),
    ),
    Why(
        "https://github.com/NVIDIA-NeMo/Skills/issues/1059",
        "Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)",
        "ParallelConfig.__post_init__", "vllm/config/parallel.py",
        (
            "VLLM_XLA_USE_SPMD", "data_parallel_size", "distributed_executor_backend", "nnodes",
            "pipeline_parallel_size", "prefill_context_parallel_size", "tensor_parallel_size",
        ),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/13150",
        "ValueError: BitsAndBytes quantization and QLoRA adapter only support 'bitsandbytes' load "
        "format, but "
        "got auto",
        "EngineArgs.create_engine_config", "vllm/engine/arg_utils.py",
        ("load_format", "qlora_adapter_name_or_path", "quantization"),
    ),
    Why(
        "https://github.com/EvolvingLMMs-Lab/LongVT/issues/9",
        "Value error, User-specified max_model_len (131072) is greater than the derived max_model_len "
        "(max_position_embeddings=32768.0 or model_max_length=None in model's config.json). To allow "
        "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
        "_get_and_verify_max_len", "vllm/config/model.py", ("max_model_len", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/17792",
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        "OnlineRenderer.render_chat", "vllm/renderers/online_renderer.py",
        ("enable_auto_tool_choice", "tool_call_parser", "tokenizer"),
    ),
]


@pytest.mark.parametrize("case", WHY, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1])
def test_why_names_the_site_and_its_settings(case: Why) -> None:
    first = explain(case.text)["matches"][0]
    assert (first["framework"], first["function"], first["file"]) == ("vllm", case.function, case.file)
    assert tuple(s["name"] for s in first["settings"]) == case.settings


def test_why_finds_the_vllm_world_size_message() -> None:
    """vLLM 0.7's `world_size ... max local gpu count` (https://github.com/vllm-project/vllm/issues/15217):
    with every bundled vLLM release's messages indexed, its own site ranks first."""
    first = explain("RuntimeError: please ensure that world_size (2) is less than than max local "
    "gpu count (1)")["matches"][0]
    assert (first["framework"], first["function"], first["file"]) == (
        "vllm", "MultiprocessingDistributedExecutor._check_cuda", "vllm/executor/mp_distributed_executor.py"
    )
    assert first["releases"] == ["0.7.3", "0.8.5.post1", "0.9.2", "0.10.2"]


# --- every case names its source ------------------------------------------------------------------------

SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_case_file_is_used() -> None:
    used = {c.file for c in FOUND} | {c.file for c in MISSED} | {"vllm28132_compose_cuda_visible.yaml"}
    used |= {"vllm17792_tool_choice.cmd"}  # its launch is valid; the error comes with a request (WHY)
    assert sorted(p.name for p in CASES.iterdir()) == sorted(used)


# --- the mechanisms, on minimal inputs of our own ------------------------------------------------------


def run(argv: list[str], cwd: Path) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


@pytest.mark.parametrize(
    ("command", "severity"),
    [
        # no bundled release knows the misspelling: it fails whichever runs
        ("vllm serve Qwen/Qwen3-8B --tensor-paralel-size 2", "error"),
        ("python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tensor-paralel-size 2", "error"),
        # 0.7.3-0.9.2 know --enable-reasoning: with no release named it depends on which one runs
        ("vllm serve Qwen/Qwen3-8B --enable-reasoning --reasoning-parser deepseek_r1", "info"),
    ],
)
def test_an_unknown_flag_with_no_release_named(command: str, severity: str, tmp_path: Path) -> None:
    report = run(["-c", command], tmp_path)
    (found,) = [f for f in report["findings"] if f["code"] in ("PA001", "PA005")]
    assert found["severity"] == severity


def test_a_whole_command_line_in_a_compose_entrypoint_item(tmp_path: Path) -> None:
    (tmp_path / "compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    entrypoint:\n"
        "      - vllm serve Qwen/Qwen3-8B --port 8000\n"
    )
    (tp011,) = [f for f in run(["compose.yaml"], tmp_path)["findings"] if f["code"] == "TP011"]
    assert tp011["severity"] == "error"
    assert tp011["message"].startswith(
        "the `entrypoint:` list item 'vllm serve Qwen/Qwen3-8B --port 8000' is ONE argv word"
    )
    # split into items, the same entrypoint is right
    (tmp_path / "compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:latest\n    entrypoint: [vllm, serve]\n"
        "    command: [Qwen/Qwen3-8B, --port, '8000']\n"
    )
    assert [f["code"] for f in run(["compose.yaml"], tmp_path)["findings"] if f["code"] == "TP011"] == []


def test_a_converter_refusal_reads_the_same_in_every_run() -> None:
    """vLLM's `parse_type` names its converter by repr (`<function loads at 0x7f...>`), whose address
    differs per process: the report drops it, so two runs on the same launch give the same JSON."""
    report = check("mia5_printf_quotes.sh", ())
    refusals = [f["message"] for f in report["findings"] if "cannot be converted to" in f["message"]]
    assert refusals and all("cannot be converted to <function loads>." in m for m in refusals)
