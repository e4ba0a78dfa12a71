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
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


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
        "vllm18538_enable_reasoning.cmd",
        "PA003",
        "warning",
        "--enable-reasoning was accepted up to vllm 0.9.2 but vllm 0.10.2 does not know it",
        "Delete --enable-reasoning at <-c>:1:26: --reasoning-parser is given already.",
        ("--framework-version", "0.10.0"),
    ),
    Found(
        "sglang12818_reasoning_underscore.cmd",
        "PA014",
        "error",
        "--reasoning_parser: sglang does not turn underscores into dashes",
        "Write --reasoning-parser instead of --reasoning_parser",
        ("--framework-version", "0.5.5"),
    ),
    # the image's tag names Dynamo 0.6.0, whose wheel pins sglang==0.5.3.post2 (frameworks/dynamo.py
    # engine_release): analysed with the bundled 0.5.3.post3 of that family, a warning resting on it
    Found(
        "dynamo12375_dup_bootstrap.yaml",
        "PA012",
        "warning",
        "--disaggregation-bootstrap-port needs a "
        "value but gets none, and the next word '--disaggregation-bootstrap-port' looks like a flag; "
        'argparse stops with "argument --disaggregation-bootstrap-port: expected one argument" (exit '
        "status 2)",
        # the script in the manifest is read at the manifest's own place, so the edit is the file's
        "Delete the first --disaggregation-bootstrap-port at",
    ),
    Found(
        "vllm22072_compose_list.yaml",
        "TP011",
        "error",
        "'--dtype auto' is ONE argv word",
        "--dtype=auto",
    ),
    Found(
        "vllm22072_compose_list.yaml",
        "TP010",
        "error",
        "vllm/vllm-openai:latest already has the entrypoint `vllm serve`",
        "Pass only the model and flags after the image",
    ),
    Found(
        "vllm46325_single_dash.cmd",
        "PA015",
        "error",
        "-language-model-only has a single hyphen",
        "Write --language-model-only instead of -language-model-only",
        ("--framework-version", "0.23.0"),
    ),
    Found(
        "sglang5032_enable_metrics_underscore.cmd",
        "PA014",
        "error",
        "--enable_metrics: sglang does not turn underscores into dashes",
        "Write --enable-metrics instead of --enable_metrics",
        ("--framework-version", "0.4.4.post1"),
    ),
    Found(
        "vllm22303_enforce_eager_true.cmd",
        "PA022",
        "error",
        "--enforce-eager takes no value, so 'true' is left over",
        "Delete 'true'",
        ("--framework-version", "0.9.2"),
    ),
    Found(
        "vllm42399_missing_backslash.sh",
        "SH004",
        "error",
        "line 11 starts with `--enable-prefix-caching`",
        "line 10 with a backslash",
    ),
    Found(
        "vllm15439_space_in_path.cmd",
        "PA001",
        "error",
        "'Models/mistralai__Mistral-Small-3.1-24B-Instruct"
        "-2503' (after /mnt/f/AI/AI) is not a value of any flag",
        "quote the value",
    ),
    Found(
        "vllm50292_attention_backend_env.cmd",
        "PR001",
        "warning",
        "VLLM_ATTENTION_BACKEND is read by vllm 0.6.6.post1",
        "remove VLLM_ATTENTION_BACKEND",
        ("--framework-version", "0.26.0"),
    ),
    Found(
        "blog305_redundant_serve.cmd",
        "TP010",
        "error",
        "so the container runs `vllm serve vllm serve nvidia/",
        "Pass only the model and flags after the image",
    ),
    # fixed 2026-12-02: the "did you mean" named the allreduce fusion, another feature; a suggestion is now
    # offered only for a flag plausibly the same (layers/parser/releases.same_feature), else the fix removes
    Found(
        "sglang37646_pure_allreduce.cmd",
        "PA001",
        "error",
        "--enable-flashinfer-pure-allreduce is not a sglang 0.5.18 flag",
        "remove the flag (no sglang 0.5.18 flag is spelled like it)",
        ("--framework-version", "0.5.18"),
    ),
    # fixed 2026-12-01: a Kubernetes `command` item holding a whole command line (the runtime looks for a
    # program named by the entire string)
    Found(
        "vllm4462_k8s_command_string.yaml",
        "TP011",
        "error",
        "the `command` item 'python3 -m vllm.entrypoints.openai.api_server",
        # since the carriers' 2nd batch the fix is the edit, one item per word (re-checked)
        "its own item at ",
    ),
    # fixed 2026-12-01: a shell appended to the image's `vllm serve` entrypoint (`bash -c "vllm serve ..."`)
    Found(
        "vllm32755_compose_bash_c.yaml",
        "TP010",
        "error",
        "so the container runs `vllm serve bash -c -i",
        "replace the entrypoint explicitly",
    ),
    # fixed 2026-12-01: the flag was renamed with the opposite meaning (--disable-log-requests ->
    # --enable-log-requests); the fix used to turn request logging ON, and the message said the flag "only
    # exists from 0.33.0 on" though 0.6.6-0.16.0 had it
    Found(
        "llmdbench781_disable_log_requests.cmd",
        "PA003",
        "error",
        "--disable-log-requests was "
        "accepted up to "
        "vllm 0.16.0 and again from vllm 0.33.0 on, but vllm 0.17.1 does not know it",
        "Write --no-enable-log-requests instead of --disable-log-requests",
        ("--framework-version", "0.17.1"),
    ),
    # fixed 2026-12-01: flags after an image whose entrypoint runs its arguments (lmsysorg/sglang) are run
    # as a program (TP045)
    Found(
        "sglang3855_docker_noentry.cmd",
        "TP045",
        "error",
        "the container tries to run --host as a program",
        "Name the server before its flags",
    ),
    # fixed 2026-12-01: a flag no bundled vLLM release knows was `info` when no release was named
    Found(
        "llmkube1030_enable_metrics.cmd",
        "PA002",
        "error",
        "--enable-metrics is an SGLang flag; vLLM rejects it",
        "remove the flag (argtrace knows no vLLM flag that does the same)",
    ),
    # fixed 2026-12-02: no release named, but every release that registers --speculative-config gives its
    # value to json.loads (optional_type(json.loads) from 0.10.2), which refuses the literal quotes
    # (the release index's converters); the fix removes the quotes where printf makes them
    Found(
        "mia5_printf_quotes.sh",
        "PA011",
        "error",
        "argument --speculative-config/-sc: Value "
        '\'{"method":"mtp","num_speculative_tokens":2}\' cannot be converted',
        "remove the ' characters around the value where it is made",
    ),
    # fixed 2026-12-02: a compose list-form `environment:` item keeps its value's quotes (compose-go cuts
    # the item at the first `=`), so LMCache gets a path that starts with `"` (TP019, new rule)
    Found(
        "lmcache906_compose_quotes.yaml",
        "TP019",
        "warning",
        "LMCACHE_CONFIG_FILE in `environment:` is quoted",
        "Write LMCACHE_CONFIG_FILE=/root/sdb2/LMcache_file/cpu-offload.yaml without quotes",
    ),
    # fixed in the vLLM 22nd batch: 0.9.2's EngineArgs._set_default_args_v1 sets enable_chunked_prefill back
    # to True for every model that is not a pooling model (RS060, read from the wheel; the model is not)
    Found(
        "vllm20914_no_chunked_prefill_v1.cmd",
        "RS060",
        "warning",
        "--no-enable-chunked-prefill is lost: vllm 0.9.2 sets enable_chunked_prefill back to True",
        "run vLLM 0.11.2 or later, which keeps the value given",
        ("--framework-version", "0.9.2"),
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
    framework: str = "vllm"


WHY = [
    Why(
        "https://github.com/GoogleCloudPlatform/vertex-ai-samples/issues/2620",
        "ValueError: max_num_batched_tokens (4096) is smaller than max_model_len (32768). This effectively "
        "limits the maximum sequence length to max_num_batched_tokens and makes vLLM reject longer "
        "sequences. "
        "Please increase max_num_batched_tokens or decrease max_model_len.",
        "SchedulerConfig.verify_max_model_len",
        "vllm/config/scheduler.py",
        ("max_num_batched_tokens", "max_model_len", "enable_chunked_prefill"),
    ),
    Why(
        "https://github.com/NVIDIA-NeMo/Skills/issues/1059",
        "Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)",
        "ParallelConfig.__post_init__",
        "vllm/config/parallel.py",
        (
            "VLLM_XLA_USE_SPMD",
            "data_parallel_size",
            "distributed_executor_backend",
            "nnodes",
            "pipeline_parallel_size",
            "prefill_context_parallel_size",
            "tensor_parallel_size",
        ),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/13150",
        "ValueError: BitsAndBytes quantization and QLoRA adapter only support 'bitsandbytes' load "
        "format, but "
        "got auto",
        "EngineArgs.create_engine_config",
        "vllm/engine/arg_utils.py",
        ("load_format", "qlora_adapter_name_or_path", "quantization"),
    ),
    Why(
        "https://github.com/EvolvingLMMs-Lab/LongVT/issues/9",
        "Value error, User-specified max_model_len (131072) is greater than the derived max_model_len "
        "(max_position_embeddings=32768.0 or model_max_length=None in model's config.json). To allow "
        "overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
        "_get_and_verify_max_len",
        "vllm/config/model.py",
        ("max_model_len", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/17792",
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        "OnlineRenderer.render_chat",
        "vllm/renderers/online_renderer.py",
        ("enable_auto_tool_choice", "tool_call_parser", "tokenizer"),
    ),
]


@pytest.mark.parametrize("case", WHY, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1])
def test_why_names_the_site_and_its_settings(case: Why) -> None:
    first = explain(case.text)["matches"][0]
    got = (first["framework"], first["function"], first["file"])
    assert got == (case.framework, case.function, case.file)
    assert tuple(s["name"] for s in first["settings"]) == case.settings


def test_why_finds_the_vllm_world_size_message() -> None:
    """vLLM 0.7's `world_size ... max local gpu count` (https://github.com/vllm-project/vllm/issues/15217):
    with every bundled vLLM release's messages indexed, its own site ranks first."""
    first = explain(
        "RuntimeError: please ensure that world_size (2) is less than than max local gpu count (1)"
    )["matches"][0]
    assert (first["framework"], first["function"], first["file"]) == (
        "vllm",
        "MultiprocessingDistributedExecutor._check_cuda",
        "vllm/executor/mp_distributed_executor.py",
    )
    assert first["releases"] == ["0.7.3", "0.8.5.post1", "0.9.2", "0.10.2"]


# --- every case names its source ------------------------------------------------------------------------

SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(p for p in CASES.iterdir() if p.is_file()), ids=lambda p: p.name)
def test_every_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_case_file_is_used() -> None:
    used = {c.file for c in (*FOUND, *FOUND_2, *FOUND_3, *WRONG_FIX_3)}
    used |= {c.file for c in (*MISSED, *MISSED_2, *MISSED_3)}
    used |= {c.file for c in WRONG_3}
    used |= {"vllm28132_compose_cuda_visible.yaml"}
    used |= {"vllm17792_tool_choice.cmd"}  # its launch is valid; the error comes with a request (WHY)
    used |= {p.name for p in CASES.glob("c8_*")}  # the carriers' 2nd batch: test_real_cases_carriers8.py
    # a directory holds a later batch's cases and its own test module (carriers8/: test_real_cases_carriers8b)
    assert sorted(p.name for p in CASES.iterdir() if p.is_file()) == sorted(used)


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


# --- the second batch (2026-12-02): 25 more failure reports, none of their URLs seen before ---------------
# docs/real_cases.md has the table with the classes before and after; the correct launches collected with
# them are in the false-alarm gate.

FOUND_2 = [
    # fixed 2026-12-02: `docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=2,3` gives the container two
    # GPUs, numbered 0 and 1 inside it; the host's CUDA_VISIBLE_DEVICES=2,3 copied in names neither
    Found(
        "vllm9865_docker_visible_devices.cmd",
        "TP043",
        "error",
        "CUDA_VISIBLE_DEVICES=2,3 names GPU 2, but "
        "docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=2,3 gives the container 2 GPU(s)",
        "Number the GPUs from 0 inside the container",
    ),
    Found(
        "vllm3416_compose_tp4_one_gpu.yaml",
        "PR004",
        "error",
        "the server needs 4 GPU(s) "
        "(tensor_parallel_size 4 x pipeline_parallel_size 1 x data_parallel_size 1) but "
        "CUDA_VISIBLE_DEVICES=0 makes only 1 visible",
        "make CUDA_VISIBLE_DEVICES list as many GPUs as tp x dp x pp",
    ),
    # fixed 2026-12-02: GPUStack's versioned console script (`bin/vllm_v0.10.0 serve ...`) was no server
    Found(
        "gpustack2616_enable_reasoning.cmd",
        "PA003",
        "warning",
        "--enable-reasoning was accepted up to vllm 0.9.2 but vllm 0.10.2 does not know it",
        "--reasoning-parser is given already",
        ("--framework-version", "0.10.0"),
    ),
    # the message showed `--max-model-len=32768 32768` (the value twice) before 2026-12-02
    Found(
        "gpustack3835_max_model_len_twice.cmd",
        "PA006",
        "warning",
        "--max-model-len is given 2 times "
        "(--max-model-len 8192, --max-model-len=32768); argparse keeps the last, 32768",
        "Delete --max-model-len 8192",
        ("--framework-version", "0.11.2"),
    ),
    Found(
        "gpustack3991_task_embed.cmd",
        "PA003",
        "error",
        "--task was accepted up to vllm 0.12.0 but vllm 0.13.0 does not know it",
        "remove the flag",
        ("--framework-version", "0.13.0"),
    ),
    # found after the merge with the converters per release (2026-12-02): every release that registers
    # --diffusion-config parses it with json.loads, so the doubled braces fail whichever release runs
    Found(
        "sparkvllm283_double_braces.cmd",
        "PA011",
        "error",
        "argument --diffusion-config/-dc: Value "
        '{{"canvas_length":256}} cannot be converted to <function loads>',
        "write single braces: the doubled braces are a template's escape that reached the command line",
    ),
]

MISSED_2 = [
    Missed(
        "glm45x16_tool_parser_glm45.cmd",
        "0.10.0 is not bundled; its stand-in 0.10.2 has the `glm45` tool parser (added in 0.10.1), so the "
        "invalid choice is not seen; `argtrace why` on the error names --tool-call-parser",
        ("--framework-version", "0.10.0"),
        code="PA009",
    ),
    Missed(
        "recipes51_tool_parser_openai.cmd",
        "0.10.1 is not bundled; its stand-in 0.10.2 registers the `openai` tool parser, so the KeyError at "
        "start-up is not seen; `argtrace why` on it names the check and --tool-call-parser",
        ("--framework-version", "0.10.1"),
        code="PA009",
    ),
    Missed(
        "vllm9870_chat_template_script.sh",
        "--chat-template names a shell script; what a template file holds is not read, and vLLM only fails "
        "when a chat request renders it",
    ),
    Missed(
        "glm45x3_eagle_no_draft.cmd",
        "EAGLE without --speculative-draft-model-path loads the target model a second time as its draft; the "
        "memory that needs is the model's (no config.json on a new user's machine)",
        code="MM001",
    ),
    Missed(
        "tpuinf1374_limit_mm_backslash.cmd",
        "PA011 (literal backslashes before the JSON's quotes) is found with the right fix, but `info`: with "
        "no release named, vLLM 0.6.6.post1-0.7.3 parse the flag with nullable_kvs, which is not reproduced",
        code="PA011",
    ),
    Missed(
        "glmv28_limit_mm_text_model.cmd",
        "vllm 0.8.5.post1 has no multimodal class for GLM-4.1V, so `limit_mm_per_prompt` is refused; that "
        "needs the model's config.json and the release's model registry; `why` names the check",
        ("--framework-version", "0.8.5.post1"),
    ),
    Missed(
        "vllm23192_free_memory.cmd",
        "other processes hold the GPUs' memory: nothing in the launch shows it; `why` names "
        "--gpu-memory-utilization",
        ("--framework-version", "0.9.1"),
        code="MM001",
    ),
    Missed(
        "sglang322_not_enough_memory.cmd",
        "the weights and the reserve exceed the GPU at start-up: needs the model and the GPU; `why` names "
        "--mem-fraction-static",
    ),
    Missed(
        "vllm14263_v1_pipeline.cmd",
        "VLLM_USE_V1=1 with --pipeline-parallel-size 3 on a 0.7-era release: the V1 engine's refusal is in "
        "create_engine_config, which needs a resolver environment",
    ),
    Missed(
        "vllm47600_chat_template_relative.cmd",
        "the relative template path is looked up on the node (and in the wheel, which does not ship "
        "examples/); files on the node are not visible here; `why` names the check and --chat-template",
        ("--framework-version", "0.24.0"),
    ),
    Missed(
        "gpustack2259_tp3_heads.cmd",
        "32 attention heads are not divisible by --tensor-parallel-size 3: needs the model's config.json; "
        "`why` names ModelConfig.verify_with_parallel_config",
        ("--framework-version", "0.8.5.post1"),
    ),
    Missed(
        "genaicomps336_bash_after_entrypoint.cmd",
        "vllm:cpu is a locally built image: its ENTRYPOINT (python3 -m vllm.entrypoints.openai.api_server, "
        "which the report quotes) is not known here (TP040 info), so `/bin/bash -c ...` is read as the "
        "command instead of as arguments of the api_server",
    ),
    Missed(
        "vllmomni3834_no_entrypoint.cmd",
        "vllm/vllm-omni:latest is not in the image table: that it has no ENTRYPOINT (so `--model` is run as "
        "a program) is not known here (TP040 info)",
    ),
    Missed(
        "vllm12404_awq_without_quantization.cmd",
        "an AWQ checkpoint loaded without --quantization awq on 0.6.5 fails at weight loading; the "
        "checkpoint's quantization is in its config.json (a resolver would not see it either: it fails "
        "loading the weights)",
        ("--framework-version", "0.6.5"),
        code="RS001",
    ),
]


@pytest.mark.parametrize("case", FOUND_2, ids=lambda c: f"{c.file}:{c.code}")
def test_batch_2_the_root_cause_is_named_with_its_fix(case: Found) -> None:
    test_the_root_cause_is_named_with_its_fix(case)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.file, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_2],
)
def test_batch_2_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    test_a_missed_root_cause_is_still_missed(case)


def test_an_awq_launch_with_underscore_flags_raises_no_false_alarm() -> None:
    """vllm 0.6.5 with `--gpu_memory_utilization` (https://github.com/vllm-project/vllm/issues/12404): the
    report's server parsed its flags (it failed later, loading weights). 0.6-0.8 turn underscores into
    dashes like later releases; their schemas did not say so (the generator looked for the double-quoted
    spelling of the code), so PA014 called the flag refused."""
    report = check("vllm12404_awq_without_quantization.cmd", ("--framework-version", "0.6.5"))
    assert [f["code"] for f in alarms(report)] == []  # PR008 (0.6.5 read as 0.6.6.post1) is a note


WHY_2 = [
    Why(
        "https://github.com/gpustack/gpustack/issues/2259",
        "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).",
        "ModelConfig.verify_with_parallel_config",
        "vllm/config/model.py",
        ("tensor_parallel_size",),
    ),
    Why(
        "https://github.com/THU-KEG/AdaptThink/issues/1",
        "ValueError: Total number of attention heads (28) must be divisible by tensor parallel size (8)",
        "ModelConfig.verify_with_parallel_config",
        "vllm/config/model.py",
        ("tensor_parallel_size",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/23192",
        "ValueError: Free memory on device (5.31/79.18 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 71.26 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
        "processes.",
        "request_memory",
        "vllm/v1/worker/utils.py",
        ("gpu_memory_utilization",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/47600",
        "ValueError: The supplied chat template string (examples/tool_chat_template_gemma4.jinja) appears "
        "path-like, but doesn't exist! Tried: examples/tool_chat_template_gemma4.jinja and /micromamba/envs/"
        "VLLM/lib/python3.12/site-packages/vllm/transformers_utils/chat_templates/examples/"
        "tool_chat_template_gemma4.jinja",
        "validate_chat_template",
        "vllm/renderers/chat_utils/chat_template.py",
        ("chat_template",),
    ),
    Why(
        "https://github.com/zai-org/GLM-V/issues/9",
        "Value error, `limit_mm_per_prompt` is only supported for multimodal models.",
        "ModelConfig._init_multimodal_config",
        "vllm/config.py",
        ("limit_mm_per_prompt",),
    ),
    Why(
        "https://github.com/vllm-project/recipes/issues/51",
        "KeyError: 'invalid tool call parser: openai (chose from { deepseek_v3, glm45, granite-20b-fc, "
        "granite, hermes, hunyuan_a13b, internlm, jamba, kimi_k2, llama4_pythonic, llama4_json, llama3_json, "
        "minimax, mistral, phi4_mini_json, pythonic, qwen3_coder, step3, xlam })'",
        "validate_api_server_args",
        "vllm/entrypoints/common/cli_args.py",
        ("tool_call_parser", "enable_auto_tool_choice"),
    ),
    # fixed 2026-12-02: the flag argparse names before a converter's refusal is the setting
    Why(
        "https://github.com/vllm-project/vllm/issues/39687",
        "vllm serve: error: argument --limit-mm-per-prompt: Value image=4,audio=1 cannot be converted to "
        "<function loads at 0x7f>",
        "parse_type._parse_type",
        "vllm/engine/arg_utils.py",
        ("limit_mm_per_prompt",),
    ),
    Why(
        "https://github.com/lemonade-sdk/lemonade/issues/1912",
        'api_server.py: error: argument --speculative-config/-sc: Value \'{"model": cannot be converted to '
        "<function loads at 0x7fc340c94220>.",
        "parse_type._parse_type",
        "vllm/engine/arg_utils.py",
        ("speculative_config",),
    ),
    Why(
        "https://github.com/eugr/spark-vllm-docker/issues/283",
        'vllm serve: error: argument --diffusion-config/-dc: Value {{"canvas_length":256}} cannot be '
        "converted to <function loads at 0xf6edf860ca40>.",
        "parse_type._parse_type",
        "vllm/engine/arg_utils.py",
        ("diffusion_config",),
    ),
]


@pytest.mark.parametrize(
    "case", WHY_2, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_2_why_names_the_site_and_its_settings(case: Why) -> None:
    test_why_names_the_site_and_its_settings(case)


@pytest.mark.parametrize(
    ("url", "text", "flag"),
    [
        (
            "https://github.com/vllm-project/vllm/issues/9312",
            "api_server.py: error: argument --tool-call-parser: invalid choice: 'llama3_json' (choose from "
            "'mistral', 'hermes')",
            "--tool-call-parser",
        ),
        (
            "https://github.com/intel/llm-scaler/issues/403",
            "sglang: error: argument --attention-backend: invalid choice: 'torch_sdpa' (choose from "
            "'triton', 'torch_native', 'flex_attention', 'nsa', 'cutlass_mla', 'fa3', 'fa4', 'flashinfer', "
            "'flashmla', 'trtllm_mla', 'trtllm_mha', 'dual_chunk_flash_attn', 'aiter', 'wave', 'intel_amx', "
            "'ascend', 'intel_xpu')",
            "--attention-backend",
        ),
        (
            "https://github.com/zai-org/GLM-4.5/issues/16",
            "vllm serve: error: argument --tool-call-parser: invalid choice: 'glm45' (choose from "
            "'deepseek_v3', 'glm4_moe', 'granite-20b-fc', 'granite', 'hermes', 'hunyuan_a13b', 'internlm', "
            "'jamba', 'kimi_k2', 'llama4_pythonic', 'llama4_json', 'llama3_json', 'minimax', 'mistral', "
            "'phi4_mini_json', 'pythonic', 'qwen3_coder', 'xlam')",
            "--tool-call-parser",
        ),
    ],
)
def test_why_reads_an_invalid_choice(url: str, text: str, flag: str) -> None:
    (sig,) = explain(text)["signatures"]
    assert (sig["id"], sig["groups"]["flag"]) == ("argparse-invalid-choice", flag)
    assert sig["meaning"] == (
        "A flag got a value outside its choices (a typo, or a value from another version)"
    )


def test_why_says_which_releases_take_an_unrecognized_flag() -> None:
    """https://github.com/areal-project/AReaL/pull/428: SGLang refused --max-loaded-loras; the release index
    says which bundled releases take it (fixed 2026-12-02: the signature only said "fix the spelling")."""
    (sig,) = explain("launch_server.py: error: unrecognized arguments: --max-loaded-loras 1")["signatures"]
    (known,) = sig["known_in"]
    assert (known["flag"], known["framework"], known["of"]) == ("--max-loaded-loras", "sglang", 34)
    got = known["releases"]
    assert (got[0], got[-1], len(got)) == ("0.4.10.post2", "0.5.23", 24)


def test_why_reads_a_setting_spelled_in_words() -> None:
    """https://github.com/ByteDance-Seed/Seed-X-7B/issues/7: the message names no flag, it says "provide a
    chat template"; words that spell a setting (chat_template) are its setting when nothing else is (fixed
    2026-12-02: no setting was named)."""
    first = explain(
        "As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat "
        "template if the tokenizer does not define one."
    )["matches"][0]
    assert first["function"] == "safe_apply_chat_template"
    assert [(s["name"], s["flag"], s.get("in_words")) for s in first["settings"]] == [
        ("chat_template", "--chat-template", True)
    ]
    assert first["fix"] == "make the condition false (chat_template is None): change --chat-template"


# --- the second batch's mechanisms, on minimal inputs of our own ----------------------------------------


def test_a_credential_in_compose_environment_that_argtrace_cannot_see_is_info(tmp_path: Path) -> None:
    """`HF_TOKEN=$HF_TOKEN` in `environment:` is read from the shell that runs `docker compose`, which need
    not be argtrace's; empty, it only fails downloads that need it (vllm#12308's compose file starts). An
    unset variable that is no credential, in `environment:` or in a `command:` list item, is a warning
    resting on the same assumption (the Compose specification's interpolation reads the shell that runs
    compose: the carriers' 2nd batch for `command:`, then the same for `environment:`)."""
    (tmp_path / "compose.yaml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.11.0\n"
        "    command: [--model, Qwen/Qwen3-8B, --port, '${PORT}']\n"
        "    environment:\n      - HF_TOKEN=$HF_TOKEN\n      - CUDA_VISIBLE_DEVICES=${GPUS}\n"
    )
    found = {
        (f["severity"], f["message"].split(" is not set")[0])
        for f in run(["compose.yaml"], tmp_path)["findings"]
        if f["code"] == "TP012"
    }
    assert found == {
        ("info", "${HF_TOKEN} in `environment:`"),
        ("warning", "${GPUS} in `environment:`"),
        ("warning", "${PORT} in `command:`"),
    }


@pytest.mark.parametrize(
    ("options", "codes"),
    [
        # the runtime gives the container GPUs 2 and 3, numbered 0 and 1 inside it
        ("--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=2,3 -e CUDA_VISIBLE_DEVICES=0,1", []),
        ("--runtime nvidia -e NVIDIA_VISIBLE_DEVICES=2,3 -e CUDA_VISIBLE_DEVICES=2,3", ["TP043"]),
        ("--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=5", ["TP042"]),
        # `all`, or no --runtime nvidia (the daemon's default runtime is not in the command): not counted
        ("--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all -e CUDA_VISIBLE_DEVICES=2,3", []),
        ("-e NVIDIA_VISIBLE_DEVICES=2,3 -e CUDA_VISIBLE_DEVICES=2,3", []),
        # --gpus is docker's own device request: which GPUs it and the variable leave is not shown here
        ("--gpus all --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=2,3 -e CUDA_VISIBLE_DEVICES=2,3", []),
    ],
)
def test_nvidia_visible_devices_with_the_nvidia_runtime_counts_the_container_gpus(
    options: str, codes: list[str], tmp_path: Path
) -> None:
    report = run(
        [
            "-c",
            f"docker run {options} vllm/vllm-openai:v0.11.0 --model Qwen/Qwen3-8B --tensor-parallel-size 2",
        ],
        tmp_path,
    )
    assert [f["code"] for f in report["findings"] if f["code"] in ("TP042", "TP043")] == codes


@pytest.mark.parametrize(
    ("program", "found"),
    [("/opt/gpustack/bin/vllm_v0.11.0", True), ("vllm-0.11.0", True), ("vllm_tools", False)],
)
def test_a_console_script_named_with_its_release_is_the_server(
    program: str, found: bool, tmp_path: Path
) -> None:
    command = f"{program} serve Qwen/Qwen3-8B --port 8000"
    report = run(["--framework-version", "0.11.0", "-c", command], tmp_path)
    assert [s["framework"] for s in report["servers"]] == (["vllm"] if found else [])


def test_a_repeated_flag_written_with_equals_is_shown_once_and_deleted(tmp_path: Path) -> None:
    (tmp_path / "serve.sh").write_text("vllm serve Qwen/Qwen3-8B --max-model-len=4096 --max-model-len 8192\n")
    (pa006,) = [
        f
        for f in run(["--framework-version", "0.11.0", "serve.sh"], tmp_path)["findings"]
        if f["code"] == "PA006"
    ]
    assert pa006["message"] == (
        "--max-model-len is given 2 times (--max-model-len=4096, --max-model-len 8192); argparse keeps the "
        "last, 8192"
    )
    assert pa006["fix"].startswith("Delete --max-model-len=4096 from the command in serve.sh (line 1)")


@pytest.mark.parametrize(
    ("value", "fix"),
    [
        (
            r"'{\"method\":\"ngram\"}'",
            "remove the backslashes before the double quotes: they reach the parser as written (inside "
            "single quotes the shell keeps them)",
        ),
        (
            '\'{{"method":"ngram"}}\'',
            "write single braces: the doubled braces are a template's escape that reached the command line",
        ),
        (
            '"\'{\\"method\\":\\"ngram\\"}\'"',
            "remove the ' characters around the value where it is made: they reach the server (the shell "
            "removes only the quotes written on the command line, not those written twice or produced by an "
            "expansion such as $(printf ...) or a variable)",
        ),
        (
            "method=ngram",
            "this release takes JSON here, not key=value pairs: write them as one JSON object in single "
            "quotes",
        ),
        ("'{method: ngram}'", "single-quote the JSON so that the shell keeps its double quotes"),
    ],
)
def test_an_invalid_json_value_gets_the_fix_its_defect_needs(value: str, fix: str, tmp_path: Path) -> None:
    report = run(
        ["--framework-version", "0.11.0", "-c", f"vllm serve Qwen/Qwen3-8B --speculative-config {value}"],
        tmp_path,
    )
    (pa011,) = [f for f in report["findings"] if f["code"] == "PA011"]
    assert (pa011["severity"], pa011["fix"]) == ("error", fix)


def test_the_flag_argparse_names_before_a_converter_refusal_is_the_setting() -> None:
    first = explain(
        "error: argument --compilation-config/-cc: Value {mode cannot be converted to <function "
        "loads at 0x1>."
    )["matches"][0]
    assert first["function"] == "parse_type._parse_type"
    assert [(s["name"], s["flag"]) for s in first["settings"]] == [
        ("compilation_config", "--compilation-config")
    ]


def test_an_unrecognized_flag_no_release_knows_gets_no_release_list() -> None:
    (sig,) = explain("vllm: error: unrecognized arguments: --tensor-paralel-size 2")["signatures"]
    assert sig["id"] == "argparse-unrecognized" and "known_in" not in sig


@pytest.mark.parametrize("version", ["0.6.6.post1", "0.7.3", "0.8.5.post1"])
def test_vllm_0_6_to_0_8_turn_underscores_into_dashes(version: str, tmp_path: Path) -> None:
    """FlexibleArgumentParser.parse_args rewrote `--max_model_len` and `-O3` in these releases too (written
    `replace('_', '-')` before vLLM's formatter switched to double quotes)."""
    report = run(
        ["--framework-version", version, "-c", "vllm serve Qwen/Qwen3-8B --max_model_len 4096 -O3"], tmp_path
    )
    assert alarms(report) == []
    assert {s["name"]: s["effective"] for s in report["settings"]}["max_model_len"] == 4096


# --- the third batch (2026-12-02): 17 more failure reports, measured, not tuned ---------------------------
# Collected and run before any change to src/ (docs/real_cases.md, "Third batch"): what argtrace says today.
# Nothing here was fixed; every miss and every wrong alarm is a strict xfail naming its mechanism.

FOUND_3 = [
    Found(
        "vllm5480_quatization_typo.cmd",
        "PA001",
        "error",
        "--quatization is not a vllm 0.33.0 flag: the server refuses to start",
        "Write --quantization instead of --quatization",
    ),
    # was missed (PA001 info, fix "Write --lora-target-modules"): the demo server has a flag list of its
    # own per release (frameworks/entrypoints.py); no release of it takes --lora-modules, and the bundled
    # releases after 0.24.0 do not ship it, so the launch fails whichever release runs
    Found(
        "vllm2909_api_server_lora.cmd",
        "PA001",
        "error",
        "--lora-modules is not an option of `python -m vllm.entrypoints.api_server` in vllm 0.24.0 nor in "
        "any "
        "bundled release where it parses (0.6.6.post1, 0.8.5.post1-0.24.0): its parser (parse_args) refuses "
        'it: the server refuses to start ("unrecognized arguments", exit 2); --lora-modules is taken by '
        "`vllm serve` and `python -m vllm.entrypoints.openai.api_server` (vllm 0.6.6.post1-0.33.0)",
        "start vllm serve (or python -m vllm.entrypoints.openai.api_server), whose parser takes "
        "--lora-modules, instead of python -m vllm.entrypoints.api_server",
    ),
    # was a miss (SH019 info) before 2026-12-02: `sudo` in front of `docker run` is unwrapped now
    # (layers/transport/wrapped.py), so the container launch is read and its redundant `vllm serve` named
    Found(
        "vllm37133_docker_redundant_serve.cmd",
        "TP010",
        "error",
        "vllm/vllm-openai:latest already has the entrypoint `vllm serve`; the command after the image "
        "name is "
        "appended to it, so the container runs `vllm serve vllm serve /models/GLM-4.7-Flash-AWQ-4bit",
        "Pass only the model and flags after the image",
        ("--framework-version", "0.17.1"),
    ),
    # was a miss (SH019 info): GPUStack starts vLLM with the container's environment (its code, read from
    # its wheels by scripts/gen_server_images.py), so a misspelt VLLM_* is checked like on a direct launch
    Found(
        "gpustack1420_vllm_user_v1.cmd",
        "PR001",
        "warning",
        "VLLM_USER_V1 reaches vLLM through gpustack/gpustack: GPUStack starts vLLM itself with the "
        "container's "
        "environment (GPUStack 0.4.0-2.3.0, read from its code); no bundled vllm release reads "
        "VLLM_USER_V1: a "
        "misspelling of VLLM_USE_V1 (read by vllm 0.6.6.post1-0.11.0)",
        "use VLLM_USE_V1 on a release that reads it, or remove VLLM_USER_V1",
    ),
    # was a wrong fix (class b, "remove the flag"): --omni is vllm-omni's flag (scripts/gen_plugin_flags.py
    # reads it from vllm-omni's wheels); no vllm-omni release is 0.15, the fix pairs releases instead
    Found(
        "vllm34545_omni_flag.cmd",
        "PA001",
        "warning",
        "--omni is not a vllm 0.15.1 flag: it is vllm-omni's (vllm-omni 0.14.0-0.30.0 add it), read "
        "only when "
        "vllm-omni's own `vllm`/`vllm-omni` command parses the launch; vLLM's own `vllm` refuses it "
        '("unrecognized arguments", exit 2), as it does when vllm-omni is not installed or vLLM was '
        "installed "
        "after it (assumed: the installed packages are not visible here)",
        "no vllm-omni release matches vLLM 0.15's major.minor (vllm-omni releases: 0.14.0, 0.16.0, 0.18.0, "
        "0.20.0, 0.22.0, 0.24.0, 0.26.0, 0.28.0, 0.30.0): run vLLM 0.14 with vllm-omni 0.14.0 or vLLM 0.16 "
        "with vllm-omni 0.16.0, installing vLLM first",
        ("--framework-version", "0.15.0"),
    ),
    # was a miss: RS031 (2026-12-02) judges a model value that is not a local path by huggingface_hub's
    # validate_repo_id (its REPO_ID_REGEX read from the wheel); a warning, since a directory of that name
    # may exist where the server starts
    Found(
        "sglang302_repo_revision_colon.cmd",
        "RS031",
        "warning",
        "--model-path 'TheBloke/Mistral-7B-v0.1-GPTQ:gptq-4bit-32g-actorder_True' is not a local directory "
        "here and not a valid Hugging Face repo id: characters or a shape REPO_ID_REGEX refuses",
        "give the repo id alone (the branch or tag to --revision)",
    ),
    # was a miss: the GPU is not in the command; with --gpu v100 (the report names it; a V100 profile since
    # 2026-12-02) RS030 follows vLLM's Triton attention backend, which refuses an fp8 KV cache below SM89
    # (the only backend below SM75). A warning: no release is named, 0.33.0 stands in (its check exists in
    # 0.24.0-0.33.0; the fork's own release was not read)
    Found(
        "onecat27_kv_fp8_v100.cmd",
        "RS030",
        "warning",
        "--kv-cache-dtype fp8 on Tesla V100-PCIE-32GB (compute capability 7.0): vllm 0.33.0 has no "
        "FlashAttention (SM80+) or FlashInfer (SM75+) backend for it",
        "--kv-cache-dtype auto (or float16) on Tesla V100-PCIE-32GB",
        ("--gpu", "v100"),
    ),
]

MISSED_3 = [
    # was class d (three PA001 warnings and a PA002 error on the diffusion server's own flags): `sglang
    # serve` with options only the diffusion server has is now checked against that server's parser
    # (frameworks/sglang_diffusion.py, PA028 info); test_sglang34226_raises_no_wrong_alarm below
    Missed(
        "sglang34226_diffusion_served_name.cmd",
        "no release is named, so it is analysed as 0.5.23, whose diffusion server takes --served-model-name "
        "(read from the package); 0.5.10.post1's does not (PA001 with --framework-version 0.5.10.post1, but "
        "that release lacks --model-variant and --performance-mode too), and the reporter's release, in "
        "between, was not read",
        code="PA001",
    ),
    # was a wrong alarm (class d) before 2026-12-02: PA016 "no effect ... remove the flag" was a warning
    # read from 0.6.6.post1, a stand-in of another family; it is a note now (see the test below)
    Missed(
        "vllm5302_spec_max_num_seqs.cmd",
        "the report's failure (speculative decoding with --max-num-seqs 1 on 0.4.3) is a bug in that "
        "release's code, which no bundled release has; 0.4.3 is analysed with 0.6.6.post1 (PR008 says so)",
        ("--framework-version", "0.4.3"),
        code="RS001",
    ),
    Missed(
        "sglang38236_nextn_dsv4.cmd",
        "DeepSeek-V4's model hook refuses --speculative-algorithm NEXTN (the alias is resolved after the "
        "hook): the architecture is in the model's config.json, not on a new user's machine; `why` names the "
        "hook and --speculative-algorithm",
    ),
    Missed(
        "sglang36528_eagle3_no_draft.cmd",
        "EAGLE3 without --speculative-draft-model-path loads the target as its own draft and crashes on a "
        "plain Qwen2 target: whether the architecture bundles a draft needs config.json and the release's "
        "code",
    ),
    Missed(
        "sglang1100_gptq_moe.cmd",
        "a GPTQ MoE checkpoint the release cannot load with --quantization gptq: the architecture and its "
        "quantization are in config.json; the launch's flags are all accepted",
    ),
]


# found, but with a wrong fix (class b): the entry asserts the fix a user needs, a strict xfail till then
WRONG_FIX_3: list[Found] = []  # vllm34545_omni_flag.cmd was here until 2026-12-02 (now in FOUND_3)
WRONG_FIX_3_WHY = "found, but the fix a user needs is not the one argtrace proposes"


@dataclass(frozen=True)
class Wrong:
    """A wrong error or warning (class d): ``codes`` at error/warning that should not be there."""

    file: str
    codes: tuple[str, ...]
    why: str
    options: tuple[str, ...] = ()


WRONG_3: list[Wrong] = []


@pytest.mark.parametrize("case", FOUND_3, ids=lambda c: f"{c.file}:{c.code}")
def test_batch_3_the_root_cause_is_named_with_its_fix(case: Found) -> None:
    test_the_root_cause_is_named_with_its_fix(case)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.file, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_3],
)
def test_batch_3_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    test_a_missed_root_cause_is_still_missed(case)


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=c.file, marks=pytest.mark.xfail(strict=True, reason=WRONG_FIX_3_WHY))
        for c in WRONG_FIX_3
    ],
)
def test_batch_3_a_wrong_fix_is_still_wrong(case: Found) -> None:
    test_the_root_cause_is_named_with_its_fix(case)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.file, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in WRONG_3],
)
def test_batch_3_raises_no_wrong_alarm(case: Wrong) -> None:
    wrong = [f for f in alarms(check(case.file, case.options)) if f["code"] in case.codes]
    assert wrong == [], [(f["severity"], f["code"], f["message"]) for f in wrong]


def test_sglang34226_raises_no_wrong_alarm() -> None:
    report = check("sglang34226_diffusion_served_name.cmd", ())
    assert alarms(report) == []
    backend = [f for f in report["findings"] if f["code"] == "PA028"]
    assert [(f["severity"], f["basis"]) for f in backend] == [("info", "assumed")]
    assert backend[0]["message"].startswith(
        "--model-variant, --num-gpus, --ulysses-degree, --performance-mode are options of SGLang 0.5.23's "
        "diffusion server"
    )


def test_a_stand_in_of_another_family_gives_notes_not_warnings() -> None:
    # vllm#5302: 0.4.3 is older than every bundled release and is analysed with 0.6.6.post1, where
    # --use-v2-block-manager "has no effect"; in 0.4.x speculative decoding refuses to start without it.
    # A stand-in of another family does not speak for the release: what rests on it is a note.
    report = check("vllm5302_spec_max_num_seqs.cmd", ("--framework-version", "0.4.3"))
    pa016 = next(f for f in report["findings"] if f["code"] == "PA016")
    assert (pa016["severity"], pa016["basis"], pa016["assumed"]) == (
        "info",
        "assumed",
        [{"what": "release", "value": "vllm 0.6.6.post1", "option": "--framework-version"}],
    )
    # a stand-in of the release's own family (0.10.2 for 0.10.0) still speaks for it: a warning
    same = check("gpustack2616_enable_reasoning.cmd", ("--framework-version", "0.10.0"))
    pa003 = next(f for f in same["findings"] if f["code"] == "PA003")
    assert (pa003["severity"], pa003["basis"]) == ("warning", "assumed")


WHY_3 = [
    Why(
        "https://github.com/sgl-project/sglang/issues/38236",
        "AssertionError: Only EAGLE and DSPARK speculative algorithms are supported for "
        "DeepseekV4ForCausalLM",
        "apply_deepseek_v4_defaults",
        "sglang/srt/arg_groups/deepseek_v4_hook.py",
        ("speculative_algorithm",),
        "sglang",
    ),
    Why(
        "https://github.com/gpustack/gpustack/issues/5438",
        "ValueError: LoRA rank 64 is greater than max_lora_rank 16.",
        "WorkerLoRAManager._load_adapter",
        "vllm/lora/worker_manager.py",
        ("max_lora_rank",),
    ),
    Why(
        "https://github.com/bjk110/spark_vllm_docker/issues/14",
        "ValueError: Invalid value '' for VLLM_NVFP4_GEMM_BACKEND. Valid options: [...]",
        "env_with_choices._get_validated_env",
        "vllm/envs.py",
        ("VLLM_NVFP4_GEMM_BACKEND",),
    ),
    Why(
        "https://github.com/eugr/spark-vllm-docker/issues/13",
        "RuntimeError: VLLM batch_invariant mode requires an attention backend in ['FLASH_ATTN', "
        "'FLASHINFER', 'FLASH_ATTN_MLA', 'TRITON_MLA'], but got 'None'. Please use --attention-backend or "
        "attention_config to set one of the supported backends before enabling batch_invariant.",
        "override_envs_for_invariance",
        "vllm/model_executor/layers/batch_invariant.py",
        ("attention_backend", "attention_config"),
    ),
    # argparse's own message has no raise site in the message index: the parser that refused the words is
    # found from the program name and the words (commands/why_unrecognized.py); were WHY_MISSED_3 entries
    Why(
        "https://github.com/vllm-project/vllm/issues/2909",
        "api_server.py: error: unrecognized arguments: --lora-modules "
        "sql-lora=~/.cache/huggingface/hub/models--yard1--llama-2-7b-sql-lora-test/",
        "FlexibleArgumentParser.parse_args",
        "vllm/entrypoints/api_server.py",
        ("lora_modules",),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/13669",
        "vllm: error: unrecognized arguments: --lora-path",
        "FlexibleArgumentParser.parse_args",
        "vllm/entrypoints/common/cli_args.py",
        ("lora_modules",),
    ),
    # was a miss: a message of vLLM 0.4.1-0.5.0.post1 (older than every bundled release); those releases'
    # messages are indexed since 2026-12-02, their settings named with the nearest bundled schema's flags.
    # The report's text (num_speculative_tokens=4 given) came from a build between 0.5.0.post1 and 0.5.1,
    # where the draft's n_predict (3) dropped the value; 0.5.1 on says "This speculative model supports a
    # maximum of num_speculative_tokens={n_predict}" (test_why_older_releases.py)
    Why(
        "https://github.com/vllm-project/vllm/issues/5893",
        "ValueError: Expected both speculative_model and num_speculative_tokens to be provided, but found "
        "speculative_model='ibm-fms/llama-13b-accelerator' and num_speculative_tokens=4.",
        "SpeculativeConfig.maybe_create_spec_config",
        "vllm/config.py",
        ("speculative_model", "num_speculative_tokens"),
    ),
    # was a miss: huggingface_hub's validators are indexed (a library a launch goes through); the repo id
    # is the value of the frameworks' model flag
    Why(
        "https://github.com/sgl-project/sglang/issues/302",
        "huggingface_hub.utils._validators.HFValidationError: Repo id must use alphanumeric chars or '-', "
        "'_', '.', '--' and '..' are forbidden, '-' and '.' cannot start or end the name, max length is 96: "
        "'TheBloke/Mistral-7B-v0.1-GPTQ:gptq-4bit-32g-actorder_True'.",
        "validate_repo_id",
        "huggingface_hub/utils/_validators.py",
        ("model_path", "model"),
        "huggingface_hub",
    ),
    # was a miss: Triton's dtype.to_ir is indexed (one function, a library a launch goes through); its fp8
    # type comes from an fp8 KV cache or fp8 weights, both frameworks' settings named
    Why(
        "https://github.com/1CatAI/1Cat-vLLM/issues/27",
        'ValueError("type fp8e4nv not supported in this architecture. The supported fp8 dtypes are '
        "('fp8e4b15', 'fp8e5')\")",
        "dtype.to_ir",
        "triton/language/core.py",
        ("kv_cache_dtype", "quantization", "kv_cache_dtype", "quantization"),
        "triton",
    ),
]


@pytest.mark.parametrize(
    "case", WHY_3, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_3_why_names_the_site_and_its_settings(case: Why) -> None:
    test_why_names_the_site_and_its_settings(case)


@dataclass(frozen=True)
class WhyMissed:
    """An error text `why` does not explain: its first match should name ``setting`` (a flag, field or
    variable) of ``framework``; ``why`` is the mechanism that misses."""

    url: str
    text: str
    framework: str
    setting: str
    why: str


# sglang#34226 ("error: unrecognized arguments: --served-model-name minimax-h3") left this list in why's 10th
# batch: the flag that fills the diffusion ServerArgs.from_cli_args message's placeholder is its setting
# (layers/log/sites.py, tests/test_why_10.py)
WHY_MISSED_3: list[WhyMissed] = []


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            id=c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1],
            marks=pytest.mark.xfail(strict=True, reason=c.why),
        )
        for c in WHY_MISSED_3
    ],
)
def test_batch_3_why_missed_is_still_missed(case: WhyMissed) -> None:
    matches = explain(case.text)["matches"]
    assert matches, "no site matches"
    first = matches[0]
    assert first["framework"] == case.framework
    assert case.setting in [s["name"] for s in first["settings"]]


def test_a_misspelt_variable_of_a_retired_name_is_a_warning(tmp_path: Path) -> None:
    # gpustack#1420's VLLM_USER_V1 on a direct launch: vLLM 0.33.0 no longer reads VLLM_USE_V1, so the
    # near-miss was looked for among 0.33.0's names only and the typo was a note with no suggestion
    report = run(["-c", "VLLM_USER_V1=1 vllm serve Qwen/Qwen3-8B"], tmp_path)
    pr001 = [(f["severity"], f["message"], f["fix"]) for f in report["findings"] if f["code"] == "PR001"]
    assert pr001 == [
        (
            "warning",
            "VLLM_USER_V1 looks like a vllm variable but vllm 0.33.0 never reads it; no bundled vllm release "
            "reads it: a misspelling of VLLM_USE_V1 (read by vllm 0.6.6.post1-0.11.0)",
            "use VLLM_USE_V1 on a release that reads it, or remove VLLM_USER_V1",
        )
    ]
    # a name of the script's own, near no name any release reads, stays a note
    own = run(["-c", "VLLM_MY_SETTING=1 vllm serve Qwen/Qwen3-8B"], tmp_path)
    assert [f["severity"] for f in own["findings"] if f["code"] == "PR001"] == ["info"]
