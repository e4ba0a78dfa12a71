"""The fifth batch of real failure reports (docs/real_cases.md, "Fifth batch"), measured before any tuning.

Each case under ``tests/data/real_cases_5/`` is our reconstruction of a launch (command, script, docker run)
posted in a public issue; its header names the URL. The machine is a new user's (no resolver environment,
no Hugging Face cache); the release is passed only when the report names it, a GPU profile only when the
report names the GPU and argtrace has it. A miss, a wrong fix or a wrong alarm is a strict ``xfail`` whose
reason names the mechanism, so a change that alters the outcome turns the test red. ``why`` cases take the
error text the report quotes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_5"


# a new user's machine (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("new_user_machine")


@dataclass(frozen=True)
class Launch:
    """A launch as the report gives it: the file and the options a new user would pass (the release or GPU
    the report names)."""

    file: str
    options: tuple[str, ...] = ()


def check(launch: Launch) -> dict[str, Any]:
    path = CASES / launch.file
    if path.suffix == ".cmd":
        lines = path.read_text().splitlines()
        command = "\n".join(line for line in lines if not line.startswith("#")).strip("\n")
        argv = ["check", "--format", "json", *launch.options, "-c", command]
    else:
        argv = ["check", "--format", "json", *launch.options, str(path)]
    result = run_cli(argv, cwd=path.parent)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


@dataclass(frozen=True)
class Missed:
    """No error or warning names the root cause; ``why`` is the mechanism. ``besides`` are the codes that
    fire on the launch for another reason (a wrong alarm listed in WRONG_5, or a true one about another
    word), so they do not count as finding it."""

    launch: Launch
    why: str
    besides: tuple[str, ...] = ()


@dataclass(frozen=True)
class Wrong:
    """A wrong error or warning (class d): ``code`` at error/warning whose message contains ``says``."""

    launch: Launch
    code: str
    says: str
    why: str


LAUNCHES = {
    "sglang3927": Launch("sglang3927_docker_gguf_70b.cmd"),
    "sglang36105": Launch("sglang36105_serve_config.cmd"),
    "sglang16855": Launch("sglang16855_tp4_warmup_502.cmd"),
    "sglang929": Launch("sglang929_llama70b_a40.cmd", ("--framework-version", "0.2.7")),
    "sglang3488": Launch(
        "sglang3488_tp4_stuck_4090.cmd", ("--framework-version", "0.4.2.post4", "--gpu", "rtx-4090x8")
    ),
    "flashinfer916": Launch("flashinfer916_nextn_docker.sh"),
    "specforge231": Launch("specforge231_eagle3_draft.cmd"),
    "sglang4421": Launch("sglang4421_rocm_gfx90a.cmd", ("--framework-version", "0.4.4.post1")),
    "sglang744": Launch("sglang744_tp2_p2p_check.cmd"),
    "vllm46169": Launch("vllm46169_rocm_language_model_only.cmd", ("--framework-version", "0.23.0")),
    "vllm27251": Launch("vllm27251_gguf_480b.cmd", ("--framework-version", "0.10.2")),
    "kimik2_122": Launch("kimik2_122_kimi25_h20.cmd"),
    "vllm16777": Launch("vllm16777_command_a_tp2.cmd", ("--framework-version", "0.8.4")),
    "vllm9791": Launch("vllm9791_phi3_small_dtype_half.cmd", ("--framework-version", "0.6.3")),
    "glmv107": Launch("glmv107_glm45v_transformers.cmd"),
    "glmv172": Launch("glmv172_glm45v_fp8_bench.cmd", ("--framework-version", "0.10.1.1")),
    "vllm17250": Launch("vllm17250_qwen25vl_awq_084.cmd", ("--framework-version", "0.8.4")),
}

MODEL_CONFIG = "needs the model's config.json or weights, not on a new user's machine"
FRAMEWORK_BUG = "a bug in the framework's code at that release, not in the launch: no launch check can see it"
NODE = "the node's software or hardware (driver, image contents, network), outside the launch"

MISSED_5 = [
    Missed(
        LAUNCHES["sglang3927"],
        "garbled replies from a 70B Q4_K_M GGUF on SGLang: the weights' format support is not modelled "
        f"({MODEL_CONFIG}); the PA001 warning on --max_num_batched_tokens (no bundled SGLang release "
        "knows it) is about another word, and the report's server answered, so the posted line is not "
        "exactly what ran",
        besides=("PA001",),
    ),
    Missed(
        LAUNCHES["sglang36105"],
        "`sglang serve --config` stops with '--model-path required' though the file sets it (the "
        "launch_server module reads it): a bug of `sglang serve` in that release; argtrace says only PA020 "
        "info (required and not given) beside PA018 info (the file is not here), class b",
    ),
    Missed(LAUNCHES["sglang16855"], f"the warm-up request gets a 502 and the process is killed: {NODE}"),
    Missed(
        LAUNCHES["sglang929"], "the AssertionError is a screenshot; 0.2.7 is older than any bundled schema"
    ),
    Missed(LAUNCHES["sglang3488"], f"tp 4 hangs at start-up on RTX 4090s: {NODE} (P2P/NCCL)"),
    Missed(
        LAUNCHES["flashinfer916"],
        "the image is the script's $1, which the report does not name: with it empty, `python3` is read "
        "as the image (TP040 info) and no server is found (SH019); the failure itself (NEXTN with "
        f"--enable-flashinfer-mla) is {FRAMEWORK_BUG}",
    ),
    Missed(
        LAUNCHES["specforge231"],
        f"CUDA graph capture fails with a self-trained EAGLE3 draft: {MODEL_CONFIG} ({FRAMEWORK_BUG})",
    ),
    Missed(LAUNCHES["sglang4421"], f"the ROCm image lacks TensileLibrary_lazy_gfx90a.dat: {NODE}"),
    Missed(LAUNCHES["sglang744"], f"'Initialization failed. warmup error' with --enable-p2p-check: {NODE}"),
    Missed(LAUNCHES["vllm46169"], f"vLLM on ROCm never serves Qwen3.5-2B: {FRAMEWORK_BUG}"),
    Missed(
        LAUNCHES["vllm27251"],
        "the crash on the first request with a GGUF model is "
        f"{FRAMEWORK_BUG} (the mirror registry's path swr.../docker.io/vllm/vllm-openai:v0.10.2 is read as "
        "vllm/vllm-openai since 2026-12-02, so the launch itself is checked, and is clean)",
    ),
    Missed(
        LAUNCHES["kimik2_122"],
        "the error is a screenshot; no GPU profile for H20; the RS038 warning (--tool-call-parser kimi_k2 "
        "without --enable-auto-tool-choice, so the parser is never loaded: vLLM's serving code) is true of "
        "the posted line, but not the report's failure",
        besides=("RS038",),
    ),
    Missed(LAUNCHES["vllm16777"], f"c4ai-command-a on tp 2 fails (0.8.4): {MODEL_CONFIG}"),
    Missed(
        LAUNCHES["vllm9791"],
        f"Phi-3-small's start-up error on 0.6.3: {MODEL_CONFIG}; the PA029 warning (LLM_MODEL_NAME is not "
        "set on this machine, only in the report's compose service, so model_tag's word vanishes here) is "
        "true of the posted line and says it rests on that assumption, but it is not the report's failure",
        besides=("PA029",),
    ),
    Missed(
        LAUNCHES["glmv107"],
        "the installed transformers does not know glm4v_moe: the environment's packages are not read "
        "without --python",
    ),
    Missed(LAUNCHES["glmv172"], f"errors under benchmark load: {FRAMEWORK_BUG}"),
    Missed(
        LAUNCHES["vllm17250"],
        f"a new error after the weights load on 0.8.4 (its log is cut): {FRAMEWORK_BUG}; the PA011 alarm is "
        "was wrong before the fix (WRONG_5 below)",
    ),
]

WRONG_5: list[Wrong] = []


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, id=c.launch.file, marks=pytest.mark.xfail(strict=True, reason=c.why)) for c in MISSED_5],
)
def test_batch_5_a_missed_root_cause_is_still_missed(case: Missed) -> None:
    # an error or warning means something changed: look at it, then move the case. PR008 (the release
    # named has no schema of its own, a stand-in is used) is about the analysis, not the root cause.
    found = alarms(check(case.launch))
    assert [f for f in found if f["code"] not in ("PR008", *case.besides)] != []


@pytest.mark.parametrize(
    "case",
    [
        pytest.param(c, id=f"{c.launch.file}:{c.code}", marks=pytest.mark.xfail(strict=True, reason=c.why))
        for c in WRONG_5
    ],
)
# Class d before 2026-12-02, fixed since by its mechanism (test_a_converter_between_two_releases_is_a_note,
# tests/test_vanished_positional.py):
# - vllm9791: PA001 error "the following arguments are required: model_tag" (fix "use the flag the message
#   suggests, or remove the word") and PA020 warning "model_tag is required" on 0.6.3, read from 0.6.6.post1:
#   ${LLM_MODEL_NAME} is set in the report's compose service, not here, so its unquoted word vanished. Now
#   one PA029 warning (basis assumed) names the variable, with PA001/PA020 folded under it as notes.
# - vllm17250: PA011 warning "Value image=3,video=0 cannot be converted to <function loads>" on 0.8.4, read
#   from 0.8.5.post1, the family's stand-in; the report's 0.8.4 log loads the weights with that value
#   (0.7.3's converter, nullable_kvs, reads it). A refusal of a value by the stand-in is a note when the
#   bundled release on the requested release's other side has another converter that takes the value or is
#   not reproduced. Since 2026-12-05 nothing: 0.8.5.post1's own converter takes it (its nullable_kvs
#   fallback, scripts/gen_vllm_kvs_fallback.py).


def test_batch_5_raises_no_wrong_alarm(case: Wrong) -> None:
    report = check(case.launch)
    wrong = [f for f in alarms(report) if f["code"] == case.code and case.says in f["message"]]
    assert wrong == [], [(f["severity"], f["code"], f["message"]) for f in wrong]


def test_sglang36105_the_required_model_path_is_only_info() -> None:
    """Class b: the report's error ("--model-path required") is said, as info, for the wrong reason (the
    config file, absent here, sets it)."""
    report = check(LAUNCHES["sglang36105"])
    got = [(f["severity"], f["code"], f["message"]) for f in report["findings"] if f["code"] == "PA020"]
    assert got == [
        (
            "info",
            "PA020",
            '--model-path is required by sglang 0.5.23 and is not given: argparse stops with "the following '
            'arguments are required" (exit 2)',
        )
    ]


def test_sglang3927_the_unknown_flag_is_a_warning() -> None:
    """Not the report's symptom, but true of the posted line: no bundled SGLang release has the flag."""
    report = check(LAUNCHES["sglang3927"])
    got = [(f["severity"], f["message"]) for f in alarms(report)]
    assert got == [
        (
            "warning",
            "--max_num_batched_tokens is not a sglang 0.5.23 flag: the server refuses to start "
            '("unrecognized arguments", exit 2)',
        )
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


WHY_5 = [
    # the site only: the report's cause (the 502, the process killed) is not in the message (class c)
    Why(
        "https://github.com/sgl-project/sglang/issues/16855",
        "AssertionError: res=<Response [502]>, res.text=''",
        "sglang",
        "_execute_server_warmup",
        "sglang/srt/entrypoints/http_server.py",
        (),
    ),
    # the right site; was b (the setting that fixes it, --swap-space, not among its settings): since the
    # message's own advice is read ("Please increase the swap space", layers/log/sites._ADVICE): a
    Why(
        "https://github.com/rllm-org/rllm/issues/62",
        "RuntimeError: Aborted due to the lack of CPU swap space. Please increase the swap space to avoid "
        "this error.",
        "vllm",
        "Scheduler._swap_out",
        "vllm/core/scheduler.py",
        ("swap_space", "block_size", "enable_prefix_caching"),
    ),
]


@pytest.mark.parametrize(
    "case", WHY_5, ids=lambda c: c.url.rsplit("/", 3)[-3] + "#" + c.url.rsplit("/", 1)[-1]
)
def test_batch_5_why_names_the_site_and_its_settings(case: Why) -> None:
    first = explain(case.text)["matches"][0]
    assert (first["framework"], first["function"], first["file"]) == (
        case.framework,
        case.function,
        case.file,
    )
    assert tuple(s["name"] for s in first["settings"]) == case.settings


@dataclass(frozen=True)
class WhyMissed:
    """``why``'s first site is not of ``framework``, or (when ``setting`` is given) does not name it."""

    url: str
    text: str
    framework: str
    setting: str | None
    why: str


WHY_MISSED_5 = [
    WhyMissed(
        "https://github.com/sgl-project/sglang/issues/14398",
        "ImportError: cannot import name 'ServerArgs' from 'sglang' (unknown location)",
        "sglang",
        None,
        "no site matches: an import error of a broken install (the ROCm image's sglang package) is no raise "
        "of the framework's own code; since 2026-12-02 `why` names Python's import system as its origin "
        "(test_batch_5_why_foreign_text_names_its_origin)",
    ),
    WhyMissed(
        "https://github.com/vllm-project/production-stack/issues/454",
        '"vllm": executable file not found in $PATH: unknown',
        "vllm",
        None,
        "the container runtime's message (the image has no `vllm` on its PATH) is no framework raise; the "
        "first site is SGLang's (a diffusion download helper), matched on words: since 2026-12-02 shown as a "
        "weak candidate only, the container runtime named as the origin",
    ),
    WhyMissed(
        "https://github.com/zai-org/GLM-V/issues/107",
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
        "(APIServer pid=808275)   Value error, The checkpoint you are trying to load has model type "
        "`glm4v_moe` but Transformers does not recognize this architecture. This could be because of an "
        "issue with the checkpoint, or because your version of Transformers is out of date.",
        "vllm",
        None,
        "the message is transformers' (AutoConfig), wrapped by vLLM's ModelConfig validation: the first "
        "site is SGLang's diffusion loader (since 2026-12-02 a weak candidate, transformers named as the "
        "origin); the fix (a newer transformers) is no launch setting",
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
        for c in WHY_MISSED_5
    ],
)
def test_batch_5_why_missed_is_still_missed(case: WhyMissed) -> None:
    matches = explain(case.text)["matches"]
    assert matches, "no site matches"
    first = matches[0]
    assert first["framework"] == case.framework
    assert case.setting is None or case.setting in [s["name"] for s in first["settings"]]


# since 2026-12-02 (commands/why_confidence.py): what `why` says instead of a site matched on words
WHY_FOREIGN_5 = [
    # (report, confidence, first site (a candidate only when weak), origin)
    ("sglang#14398", "none", None, "Python's import system: the installed package is broken or missing"),
    (
        "production-stack#454",
        "weak",
        "_download_overlay_manifest",
        "the container runtime (Docker/runc): the image's entrypoint or command is not on its PATH",
    ),
    # since why's 10th batch transformers' AutoConfig is indexed: its own raise, strong (a library's site
    # carries no origin: it is the text's own)
    ("GLM-V#107", "strong", "AutoConfig.from_pretrained", None),
]


@pytest.mark.parametrize("expected", WHY_FOREIGN_5, ids=lambda e: e[0])
def test_batch_5_why_foreign_text_names_its_origin(expected: tuple[str, str, str | None, str | None]) -> None:
    case = next(c for c in WHY_MISSED_5 if c.url.endswith(expected[0].replace("#", "/issues/")))
    section = explain(case.text)
    first = section["matches"][0]["function"] if section["matches"] else None
    origin = (section["origin"] or {}).get("origin")
    assert (expected[0], section["confidence"], first, origin) == expected


SOURCE = re.compile(r"^# Reconstructed \(not copied\) after https://\S+ .*seen \d{4}-\d{2}-\d{2}: \S", re.M)


@pytest.mark.parametrize("path", sorted(CASES.iterdir()), ids=lambda p: p.name)
def test_every_batch_5_case_names_its_source(path: Path) -> None:
    assert SOURCE.search(path.read_text().splitlines()[0]), path.name


def test_every_batch_5_case_file_is_used() -> None:
    used = {launch.file for launch in LAUNCHES.values()}
    assert sorted(p.name for p in CASES.iterdir()) == sorted(used)


def test_vllm9791_the_unset_model_variable_is_one_warning() -> None:
    report = check(LAUNCHES["vllm9791"])
    got = [
        (
            f["severity"],
            f["code"],
            f["message"],
            f["fix"],
            [(c["severity"], c["code"]) for c in f["consequences"]],
        )
        for f in report["findings"]
        if f["code"] == "PA029"
    ]
    assert got == [
        (
            "warning",
            "PA029",
            "`${LLM_MODEL_NAME}` is not set in the environment argtrace was given, so the unquoted word "
            "vanishes where vllm 0.6.6.post1 needs its positional model_tag: if the server's environment "
            'sets LLM_MODEL_NAME, model_tag gets its value; if not, argparse stops with "the following '
            'arguments are required: model_tag" (exit 2)',
            "set LLM_MODEL_NAME where the server runs (check with `--env LLM_MODEL_NAME=...`), or write the "
            "model in place of `${LLM_MODEL_NAME}`; `${LLM_MODEL_NAME:?LLM_MODEL_NAME is not set}` stops "
            "with that message instead",
            [("info", "SC2086"), ("info", "PA001"), ("info", "PA020")],
        )
    ]
    assert [f["code"] for f in alarms(report)] == ["PA029"]


def test_vllm17250_the_value_is_taken() -> None:
    """The report's 0.8.4 log loads the weights with ``image=3,video=0``: read with 0.8.5.post1, whose JSON
    converter hands a value not written as an object to ``nullable_kvs`` (data/vllm_kvs_fallback.json), the
    value is taken. It was a note ("0.8.5.post1's json.loads refuses it"), from a converter without that
    fallback."""
    report = check(LAUNCHES["vllm17250"])
    assert [f for f in report["findings"] if f["code"] == "PA011"] == []


@pytest.mark.parametrize(
    ("release", "severity"),
    [
        # 0.8.5 and 0.9.x hand a JSON value not written as an object to nullable_kvs (their own
        # arg_utils.py, data/vllm_kvs_fallback.json): taken, whatever stands in
        ("0.8.4", None),
        ("0.8.5.post1", None),
        ("0.9.0", None),
        ("0.9.2", None),
        # 0.10.0 removed the fallback (vllm#21615): read with 0.10.2, its family's, a warning
        ("0.10.0", "warning"),
        # bundled: the release's own converter, no stand-in: an error
        ("0.10.2", "error"),
    ],
)
def test_the_key_value_form_per_release(release: str, severity: str | None, tmp_path: Path) -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            "--framework-version",
            release,
            "-c",
            "vllm serve Qwen/Qwen2.5-VL-7B-Instruct --limit-mm-per-prompt image=3,video=0",
        ],
        cwd=tmp_path,
    )
    report: dict[str, Any] = result.json
    assert [f["severity"] for f in report["findings"] if f["code"] == "PA011"] == (
        [severity] if severity else []
    )


@pytest.mark.parametrize(
    ("options", "severity", "code"),
    [
        # ReCall#24's correct launch (false-alarm gate): no release named, the prefix is unique in the
        # release analysed and ambiguous in 0.4.8.post1 only: which runs is not known, a note
        ((), "info", "PA007"),
        # the release named takes it: the warning about another release stays
        (("--framework-version", "0.5.23"), "warning", "PA007"),
        # the release named is the one where it is ambiguous: the server refuses to start
        (("--framework-version", "0.4.8.post1"), "error", "PA008"),
    ],
)
def test_a_prefix_ambiguous_in_one_release(
    options: tuple[str, ...], severity: str, code: str, tmp_path: Path
) -> None:
    result = run_cli(
        [
            "check",
            "--format",
            "json",
            *options,
            "-c",
            "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disable-overlap",
        ],
        cwd=tmp_path,
    )
    report: dict[str, Any] = result.json
    assert [(f["severity"], f["code"]) for f in report["findings"] if f["code"] in ("PA007", "PA008")] == [
        (severity, code)
    ]
