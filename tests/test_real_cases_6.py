"""The sixth batch of real failure reports (docs/real_cases.md, "Sixth batch"), measured before any fix.

Each case under ``tests/data/real_cases_6/`` is our reconstruction of a launch (command, script, compose file)
posted in a public issue; its header names the URL. The machine is a new user's (no resolver environment,
no Hugging Face cache); the release is passed only when the report names it. A miss is a strict ``xfail``
whose reason names the mechanism, so a change that alters the outcome turns the test red. The ``ok_`` files
are launches whose failure was not the launch: they must stay clean (no error, no warning). ``why`` cases
take the error text the report quotes; three reports quote only an error text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import recorded_check
from tests.conftest import FRAMEWORK_BUG, Launch, Missed, alarms, run_cli, v

CASES = Path(__file__).resolve().parent / "data" / "real_cases_6"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


def check(launch: Launch) -> dict[str, Any]:
    return recorded_check(CASES, launch)


LAUNCHES = {
    "vllmomni1364": Launch("vllmomni1364_omni_flag.sh", v("0.15.0")),
    "vllmomni1592": Launch("vllmomni1592_stage_configs.sh", v("0.16.0")),
    "vllmascend13717": Launch("vllmascend13717_dspark_budget.sh"),
    "vllmascend7685": Launch("vllmascend7685_kv_cache_dtype.sh", v("0.17.0")),
    "vllm12132": Launch("vllm12132_tp4_one_gpu_per_node.sh"),
    "recipes856": Launch("recipes856_rope_scaling_removed.sh"),
    # the prompt in the report shows a conda environment named sglang5.16: taken as the release named
    "sglang33501": Launch("sglang33501_model_variant.sh", v("0.5.16")),
    "dgxspark63": Launch("dgxspark63_launch_cluster_tp2.sh"),
    "sglang4048": Launch("sglang4048_context_length_160k.sh"),
    "vllm20305": Launch("vllm20305_compose_free_memory.yaml"),
    "sglang23985": Launch("sglang23985_fa4_fp8_5090.sh"),
    "vllm52181": Launch("vllm52181_fa2_cc8.sh", v("0.27.1")),
    "vllm23826": Launch("vllm23826_nvfp4_5090.sh", v("0.10.1.1")),
    "sglang33528": Launch("sglang33528_trust_remote_code_true.sh"),
    "vllm15002": Launch("vllm15002_awq_v0.sh", v("0.8.0")),
    "sglang3470": Launch("sglang3470_two_nodes_tp16.sh"),
    "vllm5302": Launch("vllm5302_spec_max_num_seqs.sh", v("0.4.3")),
}

CORRECT = {
    "vllm11903": Launch("ok_vllm11903_docker_uuid_gpus.sh", v("0.6.6.post1")),
    "sglang20148": Launch("ok_sglang20148_npu_eagle3.sh"),
    "sglang5491": Launch("ok_sglang5491_eagle_fa3.sh"),
    "vllm35967": Launch("ok_vllm35967_mac_api_server.sh"),
    "sglang2777": Launch("ok_sglang2777_eagle_prefixes.sh"),
}

# --- class a by `check`: the root cause and a correct fix on the first screen ------------------------------

VLLM_OMNI = (
    "read only when vllm-omni's own `vllm`/`vllm-omni` command parses the launch; vLLM's own `vllm` "
    "refuses it "
    '("unrecognized arguments", exit 2), as it does when vllm-omni is not installed or vLLM was installed '
    "after "
    "it (assumed: the installed packages are not visible here)"
)
FOUND_6 = {
    "vllmomni1364": [
        (
            "warning",
            "--omni is not a vllm 0.15.1 flag: it is vllm-omni's (vllm-omni 0.14.0-0.30.0 add it), "
            + VLLM_OMNI,
            "no vllm-omni release matches vLLM 0.15's major.minor (vllm-omni releases: 0.14.0, 0.16.0, "
            "0.18.0, "
            "0.20.0, 0.22.0, 0.24.0, 0.26.0, 0.28.0, 0.30.0): run vLLM 0.14 with vllm-omni 0.14.0 or vLLM "
            "0.16 "
            "with vllm-omni 0.16.0, installing vLLM first",
        )
    ],
    "vllmomni1592": [
        (
            "warning",
            f"--{flag} is not a vllm 0.16.0 flag: it is vllm-omni's (vllm-omni 0.14.0-{last} add it), "
            + VLLM_OMNI,
            "install vllm-omni 0.16.0 (its release must match vLLM 0.16's major.minor) after vLLM, so that "
            "its "
            "`vllm` command replaces vLLM's",
        )
        for flag, last in (("stage-configs-path", "0.26.0"), ("omni", "0.30.0"))
    ],
}


@pytest.mark.parametrize("name", sorted(FOUND_6))
def test_batch_6_the_root_cause_is_named(name: str) -> None:
    report = check(LAUNCHES[name])
    # the flags of one plugin are one cause (causes.py one-plugin): the others follow from the first, whose
    # fix is theirs
    got = [
        (g["severity"], g["message"], f["fix"])
        for f in report["findings"]
        for g in (f, *f.get("consequences", []))
        if g["code"] == "PA001"
    ]
    assert got == FOUND_6[name]
    # the only other alarm is PR008 (0.15.0 is analysed with 0.15.1, its family's bundled release)
    assert {f["code"] for f in alarms(report)} <= {"PA001", "PR008"}


# --- misses: no error or warning names the root cause -------------------------------------------------------


MODEL_CONFIG = "needs the model's config.json or weights, not on a new user's machine"
NODE = "the node's GPUs, network or cluster, outside the launch"
NO_PROFILE = "the report's GPU has no GPU profile, and the check is the kernel's, not a launch setting"

MISSED_6 = [
    Missed(
        "vllmascend13717",
        "the scheduler budget (max_num_batched_tokens minus draft slots per request times max_num_seqs) is "
        "VllmConfig._set_max_num_scheduled_tokens's; the slots per request depend on the release (DSpark and "
        "DFlash count them in the report's vLLM-Ascend image and in 0.26.0, not in 0.33.0, the release "
        "analysed), so only a resolver environment of that release could run it; `why` names it (class a "
        "by why)",
    ),
    Missed(
        "vllmascend7685",
        f"the Ascend plugin passes the model dtype (float16) as the KV-cache dtype: {FRAMEWORK_BUG}; `why` "
        "names vLLM's own kv_cache_dtype validation and --kv-cache-dtype, which the user had right",
        besides=("PR008",),
    ),
    Missed(
        "vllm12132",
        f"four nodes with one GPU each: {NODE}; with the mp executor, tensor parallelism cannot span nodes "
        "(the report's fix is the ray backend); `why` names the check and --tensor-parallel-size only (b)",
    ),
    Missed(
        "recipes856",
        "--rope-scaling is gone from 0.11.2 on, but no release is named and 0.6.6.post1-0.11.0 take it: "
        "analysed as 0.11.0 by design (no false alarm on a launch right for its release); the removal is a "
        "PA024 note only (b)",
    ),
    Missed(
        "dgxspark63",
        f"the second DGX Spark did not join the Ray cluster: {NODE}; `launch-cluster.sh exec` is not "
        f"followed "
        "(SH040, a warning about argtrace's own reach, true of the file)",
        besides=("SH040",),
    ),
    Missed(
        "sglang4048",
        f"the KV pool holds 59862 tokens, fewer than --context-length 163840: {MODEL_CONFIG} and the GPU "
        "(not named); `why` names validate_input_length and --allow-auto-truncate, not the pool (b)",
    ),
    Missed(
        "vllm20305",
        f"another process holds GPU memory: {NODE}; `why` names request_memory and --gpu-memory-utilization "
        "(class a by why)",
    ),
    # RS055 (sgl22) is true of the posted launch: 0.5.23 replaces --attention-backend fa3 under fp8_e5m2
    Missed("sglang23985", f"FA4's FP8 path on an RTX 5090 (SM120): {NO_PROFILE}", besides=("RS055",)),
    Missed("vllm52181", f"FlashAttention 2 on a GPU older than Ampere: {NO_PROFILE}", besides=()),
    Missed("vllm23826", f"NVFP4 MoE on an RTX 5090 with 0.10.1.1: {NO_PROFILE}", besides=("PR008",)),
    Missed(
        "sglang33528", f"MiniMax-H3's pipeline on that release (the error is a screenshot): {FRAMEWORK_BUG}"
    ),
    Missed(
        "vllm15002", f"DeepSeek-R1-AWQ on the V0 engine of that nightly: {FRAMEWORK_BUG}", besides=("PR008",)
    ),
    Missed("sglang3470", f"two pods' GPU visibility (invalid device ordinal): {NODE}"),
    Missed(
        "vllm5302",
        f"requests fail when max-num-seqs <= 2 * num-speculative-tokens on 0.4.3: {FRAMEWORK_BUG}",
        besides=("PR008",),
    ),
]


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.name, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_6]
)
def test_batch_6_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case. PR008 (the release
    # named has no schema of its own, a stand-in is used) is about the analysis, not the root cause.
    found = alarms(check(LAUNCHES[case.name]))
    assert [f for f in found if f["code"] not in ("PR008", *case.besides)] != []


def test_batch_6_the_misses_raise_no_other_alarm() -> None:
    """Class d is a wrong error or warning: the misses raise none besides the listed true ones."""
    got = {}
    for case in MISSED_6:
        codes = sorted({f["code"] for f in alarms(check(LAUNCHES[case.name]))})
        if codes:
            got[case.name] = codes
    assert got == {
        "sglang23985": ["RS055"],  # true: 0.5.23 replaces --attention-backend fa3 under fp8_e5m2 (sgl22)
    }


def test_recipes856_the_removal_is_a_note() -> None:
    """Class b: the removal is said, as info, on the release analysed (no release named)."""
    report = check(LAUNCHES["recipes856"])
    got = [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "PA024"]
    assert got == [
        (
            "info",
            "--rope-scaling works in vllm 0.11.0 but vllm 0.11.2 no longer accepts it; the script breaks "
            "on upgrade",
        )
    ]


# --- class d before 2026-12-02, fixed since: a diffusion option judged by a neighbouring release's list ---


def refused(flag: str, release: str) -> str:
    return (
        f"{flag} is not an option of SGLang {release}'s diffusion server, which `sglang serve` runs for a "
        'diffusion model: it stops with "error: unrecognized arguments" (ServerArgs.from_cli_args of '
        "sglang/multimodal_gen)"
    )


def test_sglang33501_model_variant_is_refused_by_0_5_16s_own_parser() -> None:
    """Was: two PA001 warnings read from 0.5.10.post1 for 0.5.16, one wrong; then two notes ("0.5.16 lies
    between 0.5.10.post1 and 0.5.23: which it follows is unknown"). 0.5.16's own diffusion parser, read from
    its wheel, has --performance-mode (0.5.12.post1+) and not --model-variant (0.5.17+): the report's error
    exactly, as a warning (the pipeline a model adds is not read: assumed) whose fix names the upgrade the
    maintainer asked about, and nothing on the other flag."""
    report = check(LAUNCHES["sglang33501"])
    got = [
        (f["severity"], f["message"], f["fix"], f["basis"])
        for f in report["findings"]
        if f["code"] == "PA001"
    ]
    assert got == [
        (
            "warning",
            refused("--model-variant", "0.5.16")
            + "; SGLang 0.5.17's diffusion server and every later release read take it",
            "remove the flag, or run SGLang 0.5.17 or later, whose diffusion server has it",
            "assumed",
        )
    ]
    assert [(f["severity"], f["code"]) for f in alarms(report)] == [("warning", "PA001")]


DIFFUSION = "sglang serve --model-type diffusion --model-path MiniMaxAI/MiniMax-H3 --num-gpus 8"


@pytest.mark.parametrize(
    ("release", "flag", "severity"),
    [
        # each release's own list: --model-variant came with 0.5.17, --performance-mode with 0.5.12.post1
        ("0.5.12.post1", "--model-variant", "warning"),
        ("0.5.16", "--model-variant", "warning"),
        ("0.5.17", "--model-variant", None),
        ("0.5.11", "--performance-mode", "warning"),
        ("0.5.20", "--performance-mode", None),
        ("0.5.10.post1", "--model-variant", "warning"),
        # no release read takes it: every one refuses it
        ("0.5.16", "--model-varient", "warning"),
        ("0.5.23", "--model-variant", None),
    ],
)
def test_a_diffusion_option_is_judged_by_the_releases_own_list(
    release: str, flag: str, severity: str | None, tmp_path: Path
) -> None:
    result = run_cli(
        ["check", "--format", "json", "--framework-version", release, "-c", f"{DIFFUSION} {flag} fl2va"],
        cwd=tmp_path,
    )
    report: dict[str, Any] = result.json
    got = [f["severity"] for f in report["findings"] if f["code"] == "PA001"]
    assert got == ([severity] if severity else [])


# --- correct launches: no error, no warning ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(CORRECT))
def test_batch_6_a_correct_launch_stays_clean(name: str) -> None:
    report = check(CORRECT[name])
    assert [(f["severity"], f["code"], f["message"]) for f in alarms(report)] == []


# --- `argtrace why` on the error text a report quotes -----------------------------------------------------


@dataclass(frozen=True)
class Why:
    url: str
    text: str
    function: str
    settings: tuple[str, ...]


WHY_6 = [
    # class a: the site and the settings that fix it
    Why(
        "https://github.com/vllm-project/vllm-ascend/issues/13717",
        "max_num_scheduled_tokens is set to -240, which does not allow any tokens to be scheduled",
        "VllmConfig._set_max_num_scheduled_tokens",
        ("max_num_scheduled_tokens", "max_num_batched_tokens", "speculative_config"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/50708",
        "max_num_scheduled_tokens is set to -1792, which does not allow any tokens to be scheduled",
        "VllmConfig._set_max_num_scheduled_tokens",
        ("max_num_scheduled_tokens", "max_num_batched_tokens", "speculative_config"),
    ),
    Why(
        "https://github.com/vllm-project/vllm/issues/20305",
        "Free memory on device on startup is less than desired GPU memory utilization",
        "request_memory",
        ("gpu_memory_utilization",),
    ),
    Why(
        "https://github.com/gpustack/gpustack/issues/3831",
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: "
        "self.server_args.mem_fraction_static=0.2",
        "ModelRunnerKVCacheMixin.init_memory_pool",
        ("mem_fraction_static", "max_total_tokens", "page_size"),
    ),
    # class b: the site, but not the setting that fixes the report's cause
    Why(
        "https://github.com/vllm-project/vllm/issues/12132",
        "please set tensor_parallel_size (4) to less than max local gpu count (1)",
        "MultiprocessingDistributedExecutor._check_cuda",
        ("tensor_parallel_size",),
    ),
    Why(
        "https://github.com/sgl-project/sglang/issues/4048",
        "Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens). Use a shorter "
        "input or "
        "enable --allow-auto-truncate.",
        "validate_input_length",
        ("allow_auto_truncate",),
    ),
    Why(
        "https://github.com/NVIDIA/dgx-spark-playbooks/issues/63",
        "Tensor parallel size (2) exceeds available GPUs (1)",
        "initialize_ray_cluster",
        # the message's setting, then the others world_size is made of (s20-vllm20: vllm_config_fields)
        ("tensor_parallel_size", "pipeline_parallel_size", "prefill_context_parallel_size"),
    ),
    # was b (`model`, the draft's field of --speculative-config, read as --model); since the sub-config
    # fields (layers/log/sites._sub_config): --speculative-config with the fields read, then the target
    # --model the draft defaults to (class a)
    Why(
        "https://github.com/vllm-project/vllm/issues/50012",
        "Smaller values produce incorrect output. Use num_speculative_tokens=dspark_block_size or larger "
        "(e.g. 7).",
        "SpeculativeConfig.__post_init__",
        ("speculative_config", "model"),
    ),
    # was b (the refusal named, not that the flag is vllm-omni's); since the plugin table is read: --omni,
    # vllm-omni's (class a)
    Why(
        "https://github.com/vllm-project/vllm-omni/issues/1364",
        "vllm: error: unrecognized arguments: --omni",
        "FlexibleArgumentParser.parse_args",
        ("omni",),
    ),
    # was c (the first site the bfloat16 check); since the 8th `why` batch indexes the reasons vLLM's code
    # hands back (tests/test_why_8.py): `_is_fa2_supported`'s own, whose condition is the GPU (no setting)
    Why(
        "https://github.com/vllm-project/vllm/issues/52181",
        "FA2 is only supported on devices with compute capability >= 8",
        "_is_fa2_supported",
        (),
    ),
    # the ServerArgs refusal of the diffusion server, with no setting and no release said
    Why(
        "https://github.com/sgl-project/sglang/issues/33501",
        "error: unrecognized arguments: --model-variant fl2va",
        "ServerArgs.from_cli_args",
        (),
    ),
]


@pytest.mark.parametrize(
    "case", WHY_6, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_6_why_names_the_site_and_its_settings(case: Why) -> None:
    first = explain(case.text)["matches"][0]
    assert (first["function"], tuple(s["name"] for s in first["settings"])) == (case.function, case.settings)


@dataclass(frozen=True)
class WhyMissed:
    url: str
    text: str
    function: str
    why: str


WHY_MISSED_6 = [
    WhyMissed(
        "https://github.com/vllm-project/vllm-ascend/issues/7685",
        "AssertionError: Invalid kv_cache_dtype: float16. Valid values are: ('auto', 'bfloat16', 'fp8', "
        "'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla')",
        "get_attn_backend",
        "the site is vLLM's validation, its setting --kv-cache-dtype, which the user set to fp8: the float16 "
        "comes from the Ascend plugin, whose code is not indexed",
    ),
]


@pytest.mark.parametrize(
    "case", WHY_MISSED_6, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_6_why_first_site_is_not_the_cause(case: WhyMissed) -> None:
    """Class c by `why`: its first site is another check (the function asserted is that other check)."""
    assert explain(case.text)["matches"][0]["function"] == case.function


def test_sglang23985_why_names_the_fa4_assert_flash_attentions_own() -> None:
    """Was c (the first site vLLM's bfloat16 check); now b: the traceback's source line gives its message,
    whose site is FlashAttention 4's (the flash-attn-4 wheel), copied into both frameworks; no setting is
    named (the kernel's arguments are not the server's), the fix asks for the log."""
    section = explain(
        'assert arch // 10 == 10, "FP8 is only supported on SM100 (compute capability 10.x) for FA4 CuTe"'
    )
    first = section["matches"][0]
    assert (first["framework"], first["function"], first["file"], first["settings"]) == (
        "flash_attn",
        "_flash_attn_fwd",
        "flash_attn/cute/interface.py",
        [],
    )
    assert first["conditions"] == ["is_fp8", "not (arch // 10 == 10)"]
    assert first["vendored_in"] == [
        {"framework": "vllm", "file": "vllm/vllm_flash_attn/cute/interface.py"},
        {"framework": "sglang", "file": "sglang/kernels/ops/attention/flash_attn/cute/interface.py"},
    ]


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_6_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_batch_6_case_file_is_used() -> None:
    used = {launch.file for launch in [*LAUNCHES.values(), *CORRECT.values()]}
    assert sorted(p.name for p in CASES.iterdir()) == sorted(used)
