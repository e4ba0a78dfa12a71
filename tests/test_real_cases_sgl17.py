"""SGLang batch sgl17 (docs/real_cases.md, "SGLang sgl17: MoE runners, routers, PD bootstrap, YAML configs,
deprecated flags and variables"), measured before any fix.

Twenty failure reports of 2025-2026 whose launch (or error text) is posted and whose cause the thread
establishes, and five correct launches (``ok_*``). Each case under ``tests/data/real_cases_sgl17/`` names its
URL in its header: ``.cmd`` launches (``argtrace check -c``), ``.sh`` scripts (``argtrace check FILE``), a
``.txt`` error text (``argtrace why``). A new user's machine (no resolver environment, no Hugging Face
cache); no report names a bundled release, so none is passed; the GPU where the report names one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.batches import RECONSTRUCTED, check_case, shown_codes, table_counts, unsourced
from tests.conftest import run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_sgl17"
MODELS = Path(__file__).resolve().parent / "data" / "models"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure report by the better of `check` and `why`: first seen (on 5eb8d65) and now.
CLASSES = {
    "aiconfigurator613_moe_dense_tp_size.cmd": ("a", "a"),
    "sglangpr38219_sgl_disable_tp_mem_check.cmd": ("a", "a"),
    "sglang2943_yarn_context_length.cmd": ("a", "a"),
    "ascend16_llama4_lora_fa3.cmd": ("b", "b"),
    "sglangpr11747_pd_bootstrap_port.txt": ("b", "b"),
    "sglangpr38550_yaml_boolean_optional.sh": ("b", "a"),
    "slime1344_enable_ep_deepep_moe.sh": ("b", "b"),
    "sglangpr27592_jit_deepgemm_false_cuda13.cmd": ("b", "b"),
    "sglangpr9429_lora_target_modules.cmd": ("b", "b"),
    "ascend367_mm_flags_removed.cmd": ("b", "b"),
    "sglang27951_fp8_moe_flashinfer_cutlass.cmd": ("c", "c"),
    "sglang7901_router_pd_cache_aware.cmd": ("c", "c"),
    "sglangpr24384_moe_runner_marlin.cmd": ("c", "b"),
    "sglangpr28201_tokenspeed_mla_kv_auto.cmd": ("c", "c"),
    "sglangpr6656_moe_dense_tp_without_dp_lm_head.cmd": ("c", "c"),
    "sglang23272_pd_mooncake_sustained_load.sh": ("c", "c"),
    "flashinfer1436_cutlass_moe_main.cmd": ("c", "c"),
    "sglangpr17393_jit_deepgemm_off_nameerror.cmd": ("c", "c"),
    "sglangpr9642_w8a8_int8_nameerror.cmd": ("c", "a"),  # a since sgl30: the scheme signature
    "sglang17576_ngram_xgrammar.cmd": ("c", "c"),
}
CORRECT = [
    "ok_sglang11948_eagle3_qwen3_8b.cmd",
    "ok_sglangpr12894_gptoss_eagle3_parsers.cmd",
    "ok_sglangpr10183_spec_moe_runner_cutlass_fp8.cmd",
    "ok_sglangpr4880_mooncake_prefill.cmd",
    "ok_sglang23272_router_pd.cmd",
]
DATA = {"sglangpr38550_config.yaml"}  # read by sglangpr38550_yaml_boolean_optional.sh
OPTIONS = {
    "sglang27951_fp8_moe_flashinfer_cutlass.cmd": ("--gpu", "h200"),
    "sglangpr28201_tokenspeed_mla_kv_auto.cmd": ("--gpu", "b200"),
    "sglang2943_yarn_context_length.cmd": ("--model-config", str(MODELS / "qwen2.5-72b-instruct-yarn")),
    "sglangpr27592_jit_deepgemm_false_cuda13.cmd": ("--framework-version", "0.5.12"),
}
# the error text each report quotes, as `why` takes it
WHY = {
    "ascend16_llama4_lora_fa3.cmd": (
        "AssertionError: fa3, aiter, triton, trtllm_mha or intel_xpu is required for Llama4 model "
        "but got ascend"
    ),
    "sglang27951_fp8_moe_flashinfer_cutlass.cmd": (
        "AttributeError: 'Fp8MoEMethod' object has no attribute 'runner'"
    ),
    "sglang2943_yarn_context_length.cmd": (
        "ValueError: User-specified context_length (128000) is greater than the derived context_length "
        "(32768). This may lead to incorrect model outputs or CUDA errors. Note that the derived "
        "context_length may differ from max_position_embeddings in the model's config. To allow overriding "
        "this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1"
    ),
    "sglangpr17393_jit_deepgemm_off_nameerror.cmd": "NameError: name 'deep_gemm' is not defined",
    "sglangpr27592_jit_deepgemm_false_cuda13.cmd": (
        "ImportError: libcudart.so.13: cannot open shared object file: No such file or directory"
    ),
    "sglangpr9642_w8a8_int8_nameerror.cmd": (
        "NameError: name 'CompressedTensorsW8A8Int8' is not defined. Did you mean: "
        "'CompressedTensorsW8A8Fp8'?"
    ),
    "sglangpr9429_lora_target_modules.cmd": (
        "ValueError: Cannot find target module name for base_model.model.model.layers.0.mlp.down_proj."
        "lora_A.weight in {'embed_tokens'}"
    ),
}
# alarms true of the launch at the release analysed (a), by case
ALARMS = {
    "aiconfigurator613_moe_dense_tp_size.cmd": [("RS032", "warning")],
    "sglangpr38219_sgl_disable_tp_mem_check.cmd": [("PR002", "warning")],
    "sglangpr38550_yaml_boolean_optional.sh": [("PA018", "error")],
}


def check(name: str) -> dict[str, Any]:
    return check_case(CASES, name, tuple(OPTIONS.get(name, ())))


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT) | DATA
    assert table_counts(CLASSES) == ([3, 7, 10, 0], [5, 7, 8, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES, prefix=RECONSTRUCTED) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    assert shown_codes(check(name)) == []


@pytest.mark.parametrize("name", sorted(n for n in CLASSES if not n.endswith(".txt")))
def test_alarms_are_the_cause_or_none(name: str) -> None:
    """No wrong alarm (d): the two class-a cases carry their cause as a warning, every other case none."""
    assert shown_codes(check(name)) == ALARMS.get(name, [])


def test_aiconfigurator613_names_the_moe_dense_tp_size_assertion() -> None:
    (rs032,) = [
        f for f in check("aiconfigurator613_moe_dense_tp_size.cmd")["findings"] if f["code"] == "RS032"
    ]
    assert rs032["message"].startswith(
        "sglang 0.5.23 refuses --moe-dense-tp-size 4, --tp-size 8 at start-up: "
    )
    assert "moe_dense_tp_size only supports None, 1, or tp_size currently" in rs032["message"]


def test_sglangpr38219_names_the_inverted_variable() -> None:
    (pr002,) = [
        f for f in check("sglangpr38219_sgl_disable_tp_mem_check.cmd")["findings"] if f["code"] == "PR002"
    ]
    assert "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK, which means the opposite" in pr002["message"]


def test_sglangpr38550_yaml_boolean_optional_is_refused_at_the_merge() -> None:
    """was b (the right cause as a note: the release is unknown); now a: every bundled release that knows
    --lora-strict-loading (0.5.11-0.5.23) registers it as a BooleanOptionalAction, which the merger refuses,
    and the others refuse the merged --lora-strict-loading as an unknown flag: it fails whichever runs. The
    YAML's keys also narrow the releases the launch is analysed with (PR011)."""
    report = check("sglangpr38550_yaml_boolean_optional.sh")
    (pa018,) = [f for f in report["findings"] if f["code"] == "PA018"]
    assert (pa018["severity"], pa018["message"], pa018["fix"]) == (
        "error",
        "sglangpr38550_config.yaml: Unsupported config option 'lora_strict_loading' with action "
        "'BooleanOptionalAction'",
        "remove `lora-strict-loading` from sglangpr38550_config.yaml and pass it on the command line: "
        "--lora-strict-loading",
    )
    (pr011,) = [f for f in report["findings"] if f["code"] == "PR011"]
    assert "(accepted by 0.5.11-0.5.23)" in pr011["message"]


def test_slime1344_deprecated_action_that_raises_is_a_refusal() -> None:
    """b before and after (no release named: a note), but the reason was wrong: argtrace analysed the launch
    as 0.5.3.post3, "the newest release that accepts every flag", whose DeprecatedAction raises
    ValueError(help) for both flags (the generator's probe recorded it as ``removed``), and reported
    "accepted but ignored ... nothing is stored". Now a release whose action refuses a flag does not accept
    it: the launch is analysed as 0.5.2 (both flags deprecated there), and PR011 says which releases refuse
    them and which do not know them."""
    report = check("slime1344_enable_ep_deepep_moe.sh")
    (pr011,) = [f for f in report["findings"] if f["code"] == "PR011"]
    assert "analysed as sglang 0.5.2, " in pr011["message"]
    assert pr011["message"].endswith(
        "sglang 0.5.4.post3-0.5.23 do not know --enable-ep-moe, --enable-deepep-moe; sglang 0.5.3.post3 "
        "refuses --enable-ep-moe, --enable-deepep-moe (its action stops the launch)"
    )
    assert [f["code"] for f in report["findings"] if f["code"].startswith("PA0")] == [
        "PA007",
        "PA005",
        "PA005",
    ]


def test_a_deprecated_action_that_raises_refuses_the_launch_at_that_release() -> None:
    """At the named release 0.5.3.post3 the same flags are refused, a traceback (exit 1), not ignored."""
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            "0.5.3.post3",
            "slime1344_enable_ep_deepep_moe.sh",
        ],
        cwd=CASES,
    )
    pa016 = [f["message"] for f in result.json["findings"] if f["code"] == "PA016"]
    assert pa016 == [
        "--enable-ep-moe is refused by sglang 0.5.3.post3: its action raises ValueError: NOTE: "
        "--enable-ep-moe is deprecated. Please set `--ep-size` to the same value as `--tp-size` instead. "
        "(a traceback while the arguments are parsed; the server does not start)",
        "--enable-deepep-moe is refused by sglang 0.5.3.post3: its action raises ValueError: NOTE: "
        "--enable-deepep-moe is deprecated. Please set `--moe-a2a-backend` to 'deepep' instead. (a traceback "
        "while the arguments are parsed; the server does not start)",
    ]
    assert result.json["parser"]["exit_status"] == 1


@pytest.mark.parametrize(
    ("version", "flag", "start"),
    [
        (
            "0.5.3.post3",
            "--enable-ep-moe",
            "--enable-ep-moe is refused by sglang 0.5.3.post3: its action raises ",
        ),
        (
            "0.5.10.post1",
            "--hybrid-kvcache-ratio",
            "--hybrid-kvcache-ratio is accepted but ignored by sglang ",
        ),
    ],
)
def test_deprecated_action_follows_what_the_release_s_action_does(
    version: str, flag: str, start: str
) -> None:
    """Variant (not a report): at a named release the raising action is an error; 0.5.10.post1's
    DeprecatedAction only warns and stores nothing (still PA016, "accepted but ignored")."""
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            version,
            "-c",
            f"python3 -m sglang.launch_server --model-path /m {flag}",
        ]
    )
    (pa016,) = [f for f in result.json["findings"] if f["code"] == "PA016"]
    assert (pa016["severity"], pa016["message"].startswith(start)) == ("error", True)


def test_why_names_the_site_of_the_b_cases() -> None:
    section = explain(WHY["ascend16_llama4_lora_fa3.cmd"])
    assert (section["confidence"], section["matches"][0]["function"]) == (
        "strong",
        "ServerArgs._handle_model_specific_adjustments",
    )
    text = (CASES / "sglangpr11747_pd_bootstrap_port.txt").read_text().splitlines()[1]
    section = explain(text)
    assert (section["confidence"], section["matches"][0]["function"]) == (
        "strong",
        "CommonKVReceiver._get_prefill_dp_size_from_server",
    )


def test_sglang27951_why_has_no_site() -> None:
    """c: an AttributeError of a quantization method's missing runner: Python's own wording, no site."""
    section = explain(WHY["sglang27951_fp8_moe_flashinfer_cutlass.cmd"])
    assert (section["confidence"], section["matches"]) == ("none", [])


def test_sglangpr24384_names_the_releases_whose_choices_refuse_marlin() -> None:
    """was c (nothing: the newest release, analysed, takes marlin); now b: PR011 names 0.5.1.post3-0.5.11,
    whose --moe-runner-backend choices lack marlin (the release index's choice sets, generated from the
    schemas), and the launch is analysed with a release that takes it."""
    (pr011,) = [f for f in check("sglangpr24384_moe_runner_marlin.cmd")["findings"] if f["code"] == "PR011"]
    assert pr011["severity"] == "info"
    assert "(accepted by 0.5.12.post1-0.5.23)" in pr011["message"]
    assert pr011["message"].endswith(
        "sglang 0.5.1.post3-0.5.11 refuse --moe-runner-backend marlin (not one of its choices)"
    )


def test_a_value_narrows_the_releases_only_while_some_release_is_left() -> None:
    """Variant (not a report): a value some releases refuse narrows the releases the launch is analysed
    with; one that would leave none (a script mixing eras) decides nothing, nor does a value every release
    knowing the flag refuses."""
    from argtrace.frameworks.release_index import release_index

    index = release_index("sglang")
    flags = ["--model-path", "--moe-runner-backend"]
    assert index.accepting(flags, [], [("--moe-runner-backend", "marlin")])[0] == "0.5.12.post1"
    assert index.accepting(flags, [], [("--moe-runner-backend", "nonesuch")]) == index.accepting(flags, [])
    # tokenspeed_mla is taken from 0.5.12.post1 on, marlin too: both narrow to the same releases
    both = [("--moe-runner-backend", "marlin"), ("--attention-backend", "tokenspeed_mla")]
    assert index.accepting(flags, [], both) == index.accepting(flags, [], both[:1])


@pytest.mark.parametrize(
    ("name", "confidence", "function"),
    [
        ("sglang2943_yarn_context_length.cmd", "strong", "ModelConfig.__init__"),
        ("sglangpr9429_lora_target_modules.cmd", "strong", "get_target_module_name"),
        ("sglangpr17393_jit_deepgemm_off_nameerror.cmd", "none", None),
        ("sglangpr9642_w8a8_int8_nameerror.cmd", "none", None),
    ],
)
def test_why_on_the_quoted_errors(name: str, confidence: str, function: str | None) -> None:
    """a: sglang#2943's ValueError is ModelConfig's own check, whose fix names
    SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN; b: the LoRA target-module error's site is found, its fix is
    the call path, not --lora-target-modules; c: the NameErrors of a release's missing code have no site."""
    section = explain(WHY[name])
    assert section["confidence"] == confidence
    if function is None:
        assert section["matches"] == []
    else:
        assert section["matches"][0]["function"] == function
    if name.startswith("sglang2943"):
        assert "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN" in section["matches"][0]["fix"]
    if name.startswith("sglangpr9642"):  # no site, but the signature of sgl30 names the scheme's release
        assert [s["id"] for s in section["signatures"]] == ["sglang-compressed-tensors-scheme-undefined"]


def test_sglangpr27592_why_names_the_dynamic_loader() -> None:
    """b: the missing libcudart.so.13 is the dynamic loader's (a wheel built for another CUDA); that 0.5.12
    imports deep_gemm before reading SGLANG_ENABLE_JIT_DEEPGEMM is not in the text."""
    section = explain(WHY["sglangpr27592_jit_deepgemm_false_cuda13.cmd"])
    assert section["matches"] == []
    assert section["origin"]["origin"] == "the dynamic loader: a shared library the packages need is missing"


def test_ascend367_names_the_release_that_dropped_the_mm_flags() -> None:
    """b: the flags the NPU page documents exist in 0.5.4.post3-0.5.9 only; the launch is analysed as 0.5.9
    and PA024 says 0.5.10.post1 no longer accepts them (a note: no release named)."""
    report = check("ascend367_mm_flags_removed.cmd")
    pa024 = [(f["severity"], f["message"]) for f in report["findings"] if f["code"] == "PA024"]
    assert pa024 == [
        (
            "info",
            f"{flag} works in sglang 0.5.9 but sglang 0.5.10.post1 no longer accepts it; the script "
            "breaks on upgrade",
        )
        for flag in ("--mm-max-concurrent-calls", "--mm-per-request-timeout")
    ]
