"""The fourth batch of real failure reports (docs/real_cases.md, "Fourth batch"), measured before any tuning.

Each case under ``tests/data/real_cases_4/`` is our reconstruction of a launch (command, script over ssh,
compose file, Kubernetes manifest) or start-up log posted in a public issue or pull request; its header
names the URL. The machine is a new user's (no resolver environment, no Hugging Face cache); the release is
passed only when the report names it, a GPU profile only when the report names the GPU and argtrace has it.
A root cause argtrace names with its fix is a ``Found`` entry; a miss, a wrong fix or a wrong alarm is a
strict ``xfail`` whose reason names the mechanism, so a change that alters the outcome turns the test red.
``why`` cases take the error text the report quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_4"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(file: str, options: tuple[str, ...] = (), args: tuple[str, ...] = ()) -> dict[str, Any]:
    path = CASES / file
    if path.suffix == ".cmd":
        lines = path.read_text().splitlines()
        command = "\n".join(line for line in lines if not line.startswith("#")).strip("\n")
        argv = ["check", "--format", "json", *options, "-c", command]
    else:
        argv = ["check", "--format", "json", *options, str(path), *args]
    result = run_cli(argv, cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


@dataclass(frozen=True)
class Launch:
    """A launch as the report gives it: the file, the options a new user would pass (the release or GPU
    the report names), the script's arguments."""

    file: str
    options: tuple[str, ...] = ()
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Missed:
    """No error or warning names the root cause; ``why`` is the mechanism (and whose area it is)."""

    launch: Launch
    why: str


@dataclass(frozen=True)
class Wrong:
    """A wrong error or warning (class d): ``codes`` at error/warning whose message contains ``says``."""

    launch: Launch
    code: str
    says: str
    why: str


GFX906_LOG = str(CASES / "vllmgfx906_48_startup.log")

LAUNCHES = {
    "sglang28312": Launch("sglang28312_qwen35_nextn_env.cmd", ("--framework-version", "0.5.13")),
    "sglang28431": Launch(
        "sglang28431_qwen35_mtp_mooncake.cmd", ("--framework-version", "0.5.13.post1", "--gpu", "h100x8")
    ),
    "sglang5873": Launch("sglang5873_pd_prefill_over_ssh.sh"),
    # the report runs the script once per node with the node rank as $1
    "sglang6296": Launch("sglang6296_dp_attention_mtp_two_nodes.sh", args=("0",)),
    "sglang9896": Launch(
        "sglang9896_dp_attention_aiter.cmd", ("--framework-version", "0.5.0rc2", "--gpu", "mi300xx8")
    ),
    "sglang4544": Launch("sglang4544_tp2_dp2.cmd"),
    "sglang3362": Launch("sglang3362_eagle_abbreviated_flags.cmd"),
    "sglang958": Launch("sglang958_pm2_nccl_init_addr.cmd"),
    "sglang7875": Launch("sglang7875_pd_prefill_049.cmd", ("--framework-version", "0.4.9")),
    "sglang12450": Launch("sglang12450_two_nodes_stuck.cmd"),
    "sglang465": Launch("sglang465_cuda_visible_oom.sh", ("--gpu", "h100")),
    "sglang322": Launch("sglang322_not_enough_memory.cmd", ("--framework-version", "0.1.13")),
    "gaie2243": Launch("gaie2243_compilation_config_3.yaml"),
    "vllm12539": Launch("vllm12539_compose_tp4_l4.yaml"),
    "vllm16343": Launch("vllm16343_phi4_rtx3090.cmd", ("--framework-version", "0.8.3")),
    "vllm13814": Launch("vllm13814_tp2_underscore.cmd", ("--framework-version", "0.6.6.post1")),
    "vllm9243": Launch("vllm9243_flashinfer_fp8_e5m2.sh", ("--framework-version", "0.6.1")),
    "vllm55509": Launch("vllm55509_flashinfer_hybrid_5060ti.cmd", ("--framework-version", "0.28.0")),
    "vllmgfx906": Launch(
        "vllmgfx906_48_tp_mismatch.cmd", ("--framework-version", "0.11.0", "--log", GFX906_LOG)
    ),
    "vllm27409": Launch("vllm27409_granite_h_pp2.cmd"),
    "vllm7716": Launch("vllm7716_tp3_llama3_8b.sh", ("--framework-version", "0.5.4")),
}

MODEL_CONFIG = "the cause is in the model's config.json, not on a new user's machine (config.json helper)"
FRAMEWORK_BUG = "a bug in the framework's code at that release, not in the launch: no launch check can see it"

MISSED_4 = [
    Missed(
        LAUNCHES["sglang28312"],
        f"NEXTN on Qwen3.5 with SGLANG_ENABLE_SPEC_V2 crashes the scheduler: {FRAMEWORK_BUG}",
    ),
    Missed(
        LAUNCHES["sglang28431"], f"1 start in 5 fails with MTP and the hierarchical cache: {FRAMEWORK_BUG}"
    ),
    Missed(
        LAUNCHES["sglang5873"],
        'the server over `ssh HOST "source ~/.bashrc && ( ... launch_server ... )"` is found since '
        "2026-12-02 (a file missing on this machine no longer fails `source` for certain: "
        f"test_a_file_missing_here_is_not_missing_on_the_node); the failure itself (DP attention with dp < "
        f"tp) is {FRAMEWORK_BUG}",
    ),
    # was class d before 2026-12-02 (RS005 error "the parallel sizes need 64 GPUs (tp x dp x pp)"): the
    # resolution layer counts one node's GPUs as the node-start layer does; test_dp_attention_adds_no_gpus
    Missed(
        LAUNCHES["sglang9896"],
        f"DP attention raises a tensor split error under load on MI300X: {FRAMEWORK_BUG}",
    ),
    Missed(LAUNCHES["sglang6296"], f"DP attention with EAGLE MTP hangs on 2 nodes: {FRAMEWORK_BUG}"),
    Missed(
        LAUNCHES["sglang4544"],
        "the --dp-size failure (sglang 0.4.3/0.4.4) is only shown as a traceback cut in "
        f"the report: {FRAMEWORK_BUG}",
    ),
    Missed(
        LAUNCHES["sglang3362"],
        "the error is a screenshot; the prefixes (--speculative-algo, "
        "--speculative-draft, --mem-fraction) are PA007 info, resolved as the full flags",
    ),
    Missed(
        LAUNCHES["sglang958"],
        "`pm2 start launch_server.py --name sgl -- ARGS`: pm2 is not unwrapped (SH019 info; wrappers "
        "helper), so "
        "--nccl-init-addr (the 0.2 spelling of --dist-init-addr) is not checked; the hang is at NCCL init",
    ),
    Missed(LAUNCHES["sglang7875"], f"0.4.9's prefill start-up error (0.4.8.post1 works): {FRAMEWORK_BUG}"),
    Missed(LAUNCHES["sglang12450"], "2 nodes stuck at start-up: network or NCCL, outside the launch"),
    Missed(
        LAUNCHES["sglang465"],
        "sglang 0.1.x fills GPU 0 although CUDA_VISIBLE_DEVICES=1 (a bug of that release); the release is "
        "not "
        "named and none that old is bundled",
    ),
    Missed(
        LAUNCHES["sglang322"],
        f"a 7B model's KV pool does not fit at the default --mem-fraction-static: {MODEL_CONFIG}, "
        "and no GPU is named",
    ),
    Missed(
        LAUNCHES["gaie2243"],
        "`--compilation-config 3` on vLLM 0.11.0: the release validates the JSON value against "
        "CompilationConfig (an object is required; the report's pod log shows the refusal), but 0.11.0's "
        "converter data predates the probe that records what the real converter does with a non-object "
        "value (scripts/gen_converter_types.py runs it in a resolver environment; only 0.33.0's is on this "
        "machine): on 0.33.0 the same value is a PA011 error since 2026-12-02 "
        "(test_a_json_config_flag_refuses_a_bare_number)",
    ),
    Missed(
        LAUNCHES["vllm12539"],
        f"CUDA out of memory on L4s: {MODEL_CONFIG}; no L4 profile (GPU profiles helper)",
    ),
    Missed(
        LAUNCHES["vllm16343"],
        "phi-4 in bf16 (28 GB) on a 24 GB RTX 3090: the OOM needs the model's config.json and a 3090 "
        "profile (`sudo docker run` is read since 2026-12-02, and with 0.8.3 named, `latest` runs that "
        "build's api_server, so `--model` is right: no alarm)",
    ),
    Missed(
        LAUNCHES["vllm13814"],
        f"tp 2 hangs while loading on 0.6.6.post1: {FRAMEWORK_BUG} (or the machine's P2P)",
    ),
    Missed(
        LAUNCHES["vllm9243"],
        "VLLM_ATTENTION_BACKEND=FLASHINFER with GPTQ and fp8_e5m2 fails on 0.6.1.dev: the backend's dtype "
        "support "
        "is not modelled; 0.6.1 is analysed with 0.6.6.post1 (PR008)",
    ),
    Missed(
        LAUNCHES["vllm55509"],
        f"FlashInfer's larger KV pages fail the start-up KV check on a hybrid model: {MODEL_CONFIG}; no RTX "
        "5060 "
        "Ti profile",
    ),
    Missed(LAUNCHES["vllm27409"], f"pipeline parallel on a hybrid granite-4.0-h over Ray: {FRAMEWORK_BUG}"),
    Missed(LAUNCHES["vllm7716"], f"tp 3 does not divide Llama-3-8B's 32 attention heads: {MODEL_CONFIG}"),
]

# Class d before 2026-12-02, fixed since (each by its mechanism, with variant tests below):
# - sglang9896: RS005 error "the parallel sizes need 64 GPUs (tp x dp x pp)" for --tp-size 8 --dp-size 8
#   --enable-dp-attention (resolution layer's GPU count: test_dp_attention_adds_no_gpus)
# - vllmgfx906: LG013 warning on --tokenizer-mode auto (the default, never in vLLM's non-default dump),
#   PR010 warning "0.11.0 was given, but the log shows 0.11.0+gfx906" (a local build label), and LG002
#   errors whose reason was "the framework changed it" although the settings missing from the dump pointed
#   to another launch (test_a_log_of_another_launch_is_named_as_such and the tests after it)
WRONG_4: list[Wrong] = []


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.launch.file, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_4],
)
def test_batch_4_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case. PR008 (the release
    # named has no schema of its own, a stand-in is used) is about the analysis, not the root cause.
    found = alarms(check(case.launch.file, case.launch.options, case.launch.args))
    assert [f for f in found if f["code"] != "PR008"] != []


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=f"{c.launch.file}:{c.code}", marks=pytest.mark.xfail(strict=True, reason=c.why))
        for c in WRONG_4
    ],
)
def test_batch_4_raises_no_wrong_alarm(case: Wrong) -> None:
    report = check(case.launch.file, case.launch.options, case.launch.args)
    wrong = [f for f in alarms(report) if f["code"] == case.code and case.says in f["message"]]
    assert wrong == [], [(f["severity"], f["code"], f["message"]) for f in wrong]


def test_a_log_of_another_launch_is_named_as_such() -> None:
    """vllm-gfx906#48: the log under the report's `--tensor-parallel-size 2` command says
    tensor_parallel_size 4 and dtype float16, and lacks the command's --gpu-memory-utilization 0.8 and
    --no-enable-chunked-prefill, which vLLM's non-default dump would list: four settings point to another
    launch (class b: the log is not this command's; why nothing happened is not in it)."""
    report = check(*LAUNCHES["vllmgfx906"].__dict__.values())
    got = [
        (f["severity"], f["code"], f["message"]) for f in alarms(report) if f["code"] in ("LG002", "LG013")
    ]
    assert got == [
        (
            "error",
            "LG002",
            "dtype: intended 'half', the server logged 'float16' (non-default args, launch 1); the evidence "
            "points to another launch: 3 other settings differ too (tensor_parallel_size, "
            "gpu_memory_utilization, enable_chunked_prefill).",
        ),
        (
            "error",
            "LG002",
            "tensor_parallel_size: intended '2', the server logged 4 (non-default args, launch 1); the "
            "evidence points to another launch: 3 other settings differ too (dtype, gpu_memory_utilization, "
            "enable_chunked_prefill).",
        ),
        (
            "warning",
            "LG013",
            "gpu_memory_utilization (intended '0.8') is not in the non-default args dump of launch 1: its "
            "default is 0.9, so vLLM would list it: it never arrived, or this log is another launch's.",
        ),
        (
            "warning",
            "LG013",
            "enable_chunked_prefill (intended False) is not in the non-default args dump of launch 1: its "
            "default is None, so vLLM would list it: it never arrived, or this log is another launch's.",
        ),
    ]
    # the release the log names is a local build of the requested one: no conflict
    assert [f for f in report["findings"] if f["code"] == "PR010"] == []


VLLM_LOG = (
    "(APIServer pid=7) INFO 10-13 17:38:38 [api_server.py:1839] vLLM API server version {version}\n"
    "(APIServer pid=7) INFO 10-13 17:38:38 [utils.py:233] non-default args: {{'model_tag': 'Qwen/Qwen3-8B', "
    "'model': 'Qwen/Qwen3-8B', 'max_model_len': 8192}}\n"
)


@pytest.mark.parametrize(
    ("flags", "lg013"),
    [
        # equal to the parser's default: vLLM never lists it, so its absence is no evidence
        ("--tokenizer-mode auto", []),
        ("--gpu-memory-utilization 0.9", []),
        # not the default: vLLM would list it, so its absence is
        (
            "--gpu-memory-utilization 0.8",
            [
                "gpu_memory_utilization (intended '0.8') is not in the non-default args dump of launch 1: "
                "its default is 0.9, so vLLM would list it: it never arrived, or this log is another "
                "launch's."
            ],
        ),
    ],
)
def test_a_default_value_missing_from_the_non_default_dump_is_no_evidence(
    flags: str, lg013: list[str], tmp_path: Path
) -> None:
    (tmp_path / "server.log").write_text(VLLM_LOG.format(version="0.11.0"))
    report = run(
        ["--log", "server.log", "-c", f"vllm serve Qwen/Qwen3-8B --max-model-len 8192 {flags}"], tmp_path
    )
    assert [f["message"] for f in report["findings"] if f["code"] == "LG013"] == lg013


@pytest.mark.parametrize(
    ("requested", "conflict"),
    [
        ("0.11.0", False),  # 0.11.0+gfx906 is a build of 0.11.0 (PEP 440 local label)
        ("0.10.2", True),  # another release: still a conflict
    ],
)
def test_a_local_build_label_is_the_same_release(requested: str, conflict: bool, tmp_path: Path) -> None:
    (tmp_path / "server.log").write_text(VLLM_LOG.format(version="0.11.0+gfx906"))
    report = run(
        [
            "--framework-version",
            requested,
            "--log",
            "server.log",
            "-c",
            "vllm serve Qwen/Qwen3-8B --max-model-len 8192",
        ],
        tmp_path,
    )
    pr010 = [f["message"] for f in report["findings"] if f["code"] == "PR010"]
    assert pr010 == (
        [
            f"--framework-version {requested} was given, but the log's `vLLM API server version "
            "0.11.0+gfx906` at server.log:1 shows vllm 0.11.0+gfx906: the analysis follows 0.10.2"
        ]
        if conflict
        else []
    )


def run(argv: list[str], cwd: Path) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


@pytest.mark.parametrize(
    ("release", "command", "message"),
    [
        # sglang#9896's mechanism: with DP attention, --dp-size runs inside the TP group and adds no GPUs
        ("0.4.10.post2", "--tp-size 8 --enable-dp-attention --dp-size 8", None),
        ("0.5.23", "--tp-size 8 --enable-dp-attention --dp-size 8", None),
        # without it each DP replica has its own TP group: 8 x 2 on 8 GPUs still fails (0.4.x names the
        # dests tensor_parallel_size / data_parallel_size)
        (
            "0.4.10.post2",
            "--tp-size 8 --dp-size 2",
            "the parallel sizes need 16 GPUs (tp_size 8 x pp_size 1 x dp_size 2) but --gpu h100x8 gives 8",
        ),
        (
            "0.5.23",
            "--tp-size 8 --dp-size 8",
            "the parallel sizes need 64 GPUs (tp_size 8 x pp_size 1 x dp_size 8) but --gpu h100x8 gives 8",
        ),
        # --nnodes divides: 16 ranks over 2 nodes need 8 on this one
        ("0.5.23", "--tp-size 16 --nnodes 2 --node-rank 0 --dist-init-addr 10.0.0.1:5000", None),
    ],
)
def test_dp_attention_adds_no_gpus(release: str, command: str, message: str | None, tmp_path: Path) -> None:
    report = run(
        [
            "--framework-version",
            release,
            "--gpu",
            "h100x8",
            "-c",
            f"python3 -m sglang.launch_server --model-path /models/dsr1 {command}",
        ],
        tmp_path,
    )
    rs005 = [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "RS005"]
    assert rs005 == ([] if message is None else [("error", message)])


@pytest.mark.parametrize(
    ("value", "refusal"),
    [
        (
            "3",
            "argument --compilation-config/-cc: 1 validation error for CompilationConfig Input should be an "
            "object [type=dataclass_type, input_value=3, input_type=int] (argparse exit 2)",
        ),
        ("'{\"mode\": 3}'", None),
    ],
)
def test_a_json_config_flag_refuses_a_bare_number(value: str, refusal: str | None, tmp_path: Path) -> None:
    # gateway-api-inference-extension#2243's mechanism on the release whose converter was probed: vLLM
    # 0.33.0's parse_dataclass validates the JSON into CompilationConfig, which takes an object only
    report = run(
        ["--framework-version", "0.33.0", "-c", f"vllm serve Qwen/Qwen3-32B --compilation-config {value}"],
        tmp_path,
    )
    got = [(f["severity"], f["message"], f["fix"]) for f in report["findings"] if f["code"] == "PA011"]
    assert got == (
        []
        if refusal is None
        else [
            (
                "error",
                refusal,
                "give CompilationConfig a JSON object of its fields in single quotes ('{\"field\": value}'), "
                "not '3'",
            )
        ]
    )


def test_the_optimization_level_shorthand_is_no_json_value(tmp_path: Path) -> None:
    # vLLM 0.33.0's FlexibleArgumentParser turns -O3 and -O 3 into --optimization-level before parsing
    for flag in ("-O3", "-O 3"):
        report = run(["--framework-version", "0.33.0", "-c", f"vllm serve Qwen/Qwen3-32B {flag}"], tmp_path)
        assert alarms(report) == [], flag


def test_a_file_missing_here_is_not_missing_on_the_node(tmp_path: Path) -> None:
    # sglang#5873's mechanism: `source ~/.bashrc` of the node's shell looked the file up on this machine and
    # failed for certain, so `&&` never started the server; its status is unknown now (SH017 stays a note)
    report = run(
        ["-c", 'ssh node1 "source ~/.bashrc && python3 -m sglang.launch_server --model-path /models/qwen"'],
        tmp_path,
    )
    assert [s["argv"][:3] for s in report["servers"]] == [["python3", "-m", "sglang.launch_server"]]
    # the node's HOME is not known here (no user named: session 26), so neither is the file: a note
    assert [
        (f["severity"], f["code"])
        for f in report["findings"]
        if f["code"] in ("SH017", "SH019") or "source ~/.bashrc" in f["message"]
    ] == [("info", "SH018"), ("info", "SH020")]
    # a file found beside the script but not where bash looks (the directory it is started from) still
    # fails for certain: no server, SH017 a warning
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "env.sh").write_text("export PORT=8000\n")
    (tmp_path / "deploy" / "launch.sh").write_text("source env.sh && vllm serve Qwen/Qwen3-8B\n")
    report = run(["deploy/launch.sh"], tmp_path)
    assert report["servers"] == []
    assert [(f["severity"], f["code"]) for f in report["findings"] if f["code"] in ("SH017", "SH019")] == [
        ("warning", "SH017"),
        ("info", "SH019"),
    ]


# --- `argtrace why` on the error text a report quotes ----------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    framework: str
    function: str
    file: str
    settings: tuple[str, ...]


WHY_4 = [
    # was a miss (the first site was SGLang's diffusion ServerArgs.from_cli_args): `why` on "unrecognized
    # arguments" picks the parser from argparse's program name (`vllm`) since 2026-12-02, and says which
    # releases take --config (0.6.6.post1 on: the reporter's release predates it)
    Why(
        "https://github.com/vllm-project/vllm/issues/8273",
        "vllm: error: unrecognized arguments: --config",
        "vllm",
        "FlexibleArgumentParser.parse_args",
        "vllm/entrypoints/common/cli_args.py",
        ("config",),
    ),
    Why(
        "https://github.com/SemiAnalysisAI/InferenceX/issues/2128",
        "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88.",
        "sglang",
        "KVCacheConfigurator._profile_available_bytes",
        "sglang/srt/mem_cache/kv_cache_configurator.py",
        ("mem_fraction_static", "device", "mm_feature_transport"),
    ),
    Why(
        "https://github.com/Ascend/sglang/issues/171",
        "AssertionError: Page size must be 1 for MambaRadixCache v1, got 128",
        "sglang",
        "MambaRadixCache.__init__",
        "sglang/srt/mem_cache/mamba_radix_cache.py",
        ("page_size",),
    ),
    # the signature was written from vllm#49064 (docs/log_signatures.md), the same message on H100
    Why(
        "https://github.com/kaito-project/kaito/issues/2319",
        "ValueError: max_num_seqs (1024) exceeds available Mamba cache blocks (614).",
        "vllm",
        "CompilationConfig.resolve_cudagraph_mode_and_sizes",
        "vllm/config/compilation.py",
        ("max_num_seqs", "gpu_memory_utilization"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/2418",
        "ValueError: The model's max seq len (4096) is larger than the maximum number of tokens that can be "
        "stored in KV cache (3664). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
        "when "
        "initializing the engine.",
        "vllm",
        "raise_if_cache_size_invalid",
        "vllm/worker/worker.py",
        ("max_model_len", "gpu_memory_utilization"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/10517",
        "The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in "
        "KV "
        "cache (23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
        "initializing "
        "the engine.",
        "vllm",
        "raise_if_cache_size_invalid",
        "vllm/worker/worker.py",
        ("max_model_len", "gpu_memory_utilization"),
    ),
]


@pytest.mark.parametrize(
    "case", WHY_4, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_4_why_names_the_site_and_its_settings(case: Why) -> None:
    first = explain(case.text)["matches"][0]
    assert (first["framework"], first["function"], first["file"]) == (
        case.framework,
        case.function,
        case.file,
    )
    assert tuple(s["name"] for s in first["settings"]) == case.settings


@dataclass(frozen=True)
class WhyMissed:
    url: str
    text: str
    framework: str
    setting: str
    why: str


WHY_MISSED_4 = [
    WhyMissed(
        "https://github.com/sgl-project/sglang/issues/38552",
        "RuntimeError: PD Disaggregation does NOT support PD different TP sizes for non-MLA SWA hybrid "
        "models "
        "yet.",
        "sglang",
        "tp_size",
        "the site is right (MooncakeKVManager.maybe_send_extra; the report's is NIXL's) but names no "
        "setting: "
        "the condition compares the prefill and decode servers' TP sizes, which are no ServerArgs field of "
        "one server (class b)",
    ),
    WhyMissed(
        "https://github.com/gpustack/gpustack/issues/4236",
        'vllm: error: unrecognized arguments: --rope-scaling={"rope_type":"yarn","factor":4.0,'
        '"original_max_position_embeddings":32768}',
        "vllm",
        "hf_overrides",
        "`why` on \"unrecognized arguments\" (the other helper's area): the first site is SGLang's diffusion "
        "ServerArgs.from_cli_args; --rope-scaling was removed from vLLM (0.13.0 here) in favour of "
        "--hf-overrides",
    ),
    WhyMissed(
        "https://github.com/VectorInstitute/vector-inference/issues/157",
        "vllm serve: error: argument --compilation-config/-O: 1 validation error for CompilationConfig\n"
        "  Input should be an object [type=dataclass_type, input_value=3, input_type=int]",
        "vllm",
        "compilation_config",
        "argparse's message around a pydantic validation error of a config class matches no site: the "
        "converter's refusal (parse_type over CompilationConfig) is not in the message index",
    ),
]


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(
            c,
            id=c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1],
            marks=pytest.mark.xfail(strict=True, reason=c.why),
        )
        for c in WHY_MISSED_4
    ],
)
def test_batch_4_why_missed_is_still_missed(case: WhyMissed) -> None:
    matches = explain(case.text)["matches"]
    assert matches, "no site matches"
    first = matches[0]
    assert first["framework"] == case.framework
    assert case.setting in [s["name"] for s in first["settings"]]


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_4_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_batch_4_case_file_is_used() -> None:
    used = {launch.file for launch in LAUNCHES.values()} | {Path(GFX906_LOG).name}
    assert sorted(p.name for p in CASES.iterdir()) == sorted(used)
