"""The vLLM batch of session 26 (docs/real_cases.md, "vLLM, 26th session"), measured before any fix:
concurrent partial prefills under the V1 engine and after their removal (a release, a development build of
main, none named), a KServe LLMInferenceServiceConfig preset with ``--disable-log-requests``,
``VLLM_ATTENTION_BACKEND`` after vLLM stopped reading it (with batch-invariant mode, and the
unknown-variable warning), ``--max-lora-rank`` off its list, a tool-call parser against a model's format,
flags removed by 0.11.1 (``--rope-scaling``), 0.18.0 (``--swap-space``) and 0.27.0. Each case under
``tests/data/real_cases_vllm_s26/`` names its URL on its first line (``.cmd`` launches for ``argtrace check
-c``, ``.sh`` scripts, ``.yaml`` resources, ``.txt`` the text a report quotes for ``argtrace why``, ``ok_*``
the correct launches collected with them, one a Flux HelmRelease of bjw-s's app-template chart). The
machine is a new user's (no resolver environment, no Hugging Face cache). (``real_cases_vllm26`` is an
earlier batch's, "vLLM launches of 2025-2026".)"""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from tests.batches import (
    check_case,
    finding,
    missing_cases,
    shown_codes,
    table_counts,
    unsourced,
    why_with_release,
)
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm_s26"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on b7391bf2) and now.
CLASSES = {
    "gpustackrunner251_sleep_when_idle_0271.txt": ("b", "a"),
    "kserve6037_gpt_oss_disable_log_requests.yaml": ("c", "b"),
    "lmcache2499_attention_backend_variable.sh": ("b", "b"),
    "lmcache2499_batch_invariant_no_backend.txt": ("a", "a"),
    "primerl1408_max_lora_rank_4.cmd": ("b", "b"),
    "recipes237_qwen3vl_rope_scaling.cmd": ("b", "b"),
    "runpodworker324_partial_prefills_0270.cmd": ("a", "a"),
    "unslothzoo1210_swap_space_0290.cmd": ("a", "a"),
    "vllm26561_qwen3_coder_hermes_parser.cmd": ("c", "c"),
    "vllm39737_partial_prefills_v1.cmd": ("b", "b"),
    "vllm40173_batch_invariant_backend_none.txt": ("a", "a"),
    "vllm50346_attention_backend_variable_0260.cmd": ("a", "a"),
    "vllm50346_unknown_attention_backend_variable.txt": ("b", "a"),
    "vllm51494_partial_prefills_removed.cmd": ("b", "a"),
    "vllm57413_partial_prefills_chunked.cmd": ("b", "b"),
}
CORRECT = [
    "ok_edutelligence744_hf_overrides_yarn.cmd",
    "ok_kserve6037_without_disable_log_requests.yaml",
    "ok_primerl1408_max_lora_rank_8.cmd",
    "ok_tanguille3421_qwen36_capture_sizes.yaml",
    "ok_vllm39737_without_partial_prefills.cmd",
]
# the release a report names (its text, a log line, its environment), given as --framework-version
RELEASES = {
    "gpustackrunner251_sleep_when_idle_0271.txt": "0.27.1",
    "ok_vllm39737_without_partial_prefills.cmd": "0.19.0",
    "runpodworker324_partial_prefills_0270.cmd": "0.27.0",
    "unslothzoo1210_swap_space_0290.cmd": "0.29.0",
    "vllm26561_qwen3_coder_hermes_parser.cmd": "0.11.0",
    "vllm39737_partial_prefills_v1.cmd": "0.19.0",
    "vllm50346_attention_backend_variable_0260.cmd": "0.26.0",
    "vllm50346_unknown_attention_backend_variable.txt": "0.26.0",
    "vllm51494_partial_prefills_removed.cmd": "0.26.1rc1.dev457",
}
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "kserve6037_gpt_oss_disable_log_requests.yaml": (
        "--disable-log-requests",
        "the image ghcr.io/llm-d/llm-d-cuda:v0.5.1-rc.4 names no vLLM release argtrace knows: PR011 notes "
        "that 0.17.1-0.32.0 do not know the flag, and 0.33.0, which does, is analysed",
    ),
    "lmcache2499_attention_backend_variable.sh": (
        "VLLM_ATTENTION_BACKEND",
        "no release is named: 0.14.1, the newest reading the variable, is analysed (PR011 notes that "
        "0.15.1-0.33.0 do not); batch_invariant.py's backend check is outside the modules RS032 evaluates",
    ),
    "primerl1408_max_lora_rank_4.cmd": (
        "--max-lora-rank",
        "PA009 on 0.33.0 is a note: 0.6.6.post1-0.11.0's parsers take any integer and their LoRAConfig "
        "refuses 4 after parsing (`not in possible_max_ranks`, a local tuple RS032 does not evaluate), so "
        "the refusal is not known to hold on every release",
    ),
    "recipes237_qwen3vl_rope_scaling.cmd": (
        "--rope-scaling",
        "no release is named: 0.11.0, the newest accepting the flag, is analysed; PA024 notes that 0.11.2 "
        "dropped it",
    ),
    "vllm26561_qwen3_coder_hermes_parser.cmd": (
        "hermes",
        "Qwen3-Coder writes XML tool calls (<tool_call><function=...>), which the hermes parser does not "
        "read: pairing a parser with a model's format needs its chat template; none is read",
    ),
    "vllm39737_partial_prefills_v1.cmd": (
        "--max-num-partial-prefills",
        "the V1 engine refuses concurrent partial prefills in EngineArgs._check_feature_supported through "
        "_raise_unsupported_error(feature_name=...): the raise-site index records the helper's raise, not "
        "its callers' conditions, so PA024 says only that 0.27.1 dropped the flag",
    ),
    "vllm57413_partial_prefills_chunked.cmd": (
        "--max-num-partial-prefills",
        "no release is named: 0.26.0, the newest accepting the flag, is analysed, whose V1 engine refuses it "
        "at start-up (as vllm39737's 0.19.0)",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


@functools.cache
def _why(name: str) -> dict[str, Any]:
    return why_with_release(CASES, name, RELEASES)


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([5, 8, 2, 0], [8, 6, 1, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    report = check(name)
    assert shown_codes(report) == []
    assert len(report["servers"]) == 1  # read, not passed over


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    checked = {n for n, (_, now) in CLASSES.items() if now != "a" and not n.endswith(".txt")}
    assert set(MISSING) == checked


def test_vllm51494_a_development_build_after_the_flags_removal() -> None:
    """b -> a: 0.26.1rc1.dev457 is a build of main between 0.26.0 (which takes the partial-prefill flags)
    and 0.27.1 (which does not); PA024 had said only "the script breaks on upgrade"."""
    report = check("vllm51494_partial_prefills_removed.cmd")
    assert shown_codes(report) == [("PA024", "warning"), ("PA024", "warning")]
    cause = finding(report, "PA024")
    assert cause["message"] == (
        "--max-num-partial-prefills works in vllm 0.26.0 but not in 0.27.1, and vllm 0.26.1rc1.dev457 is a "
        "development build between the two: if it was built after the flag's removal, the server refuses "
        'to start ("unrecognized arguments", exit 2)'
    )
    assert cause["fix"] == "remove --max-num-partial-prefills, which 0.27.1 does not register"


@pytest.mark.parametrize(
    ("release", "words", "expected"),
    [
        ("0.11.1rc6.dev110", "--rope-scaling {}", [("PA024", "warning")]),  # gone by 0.11.2
        ("0.26.1", "--max-num-partial-prefills 2", []),  # a patch release: its family's stand-in speaks
        ("0.25.2rc1.dev3", "--max-num-partial-prefills 2", []),  # 0.26.0, the next release, still has it
        ("0.26.1rc1.dev457", "--max-num-seqs 8", []),  # a flag every release keeps
    ],
)
def test_development_build_variants(release: str, words: str, expected: list[tuple[str, str]]) -> None:
    """Variants (not reports): which development builds and flags make PA024 a warning."""
    report = command("--framework-version", release, "-c", f"vllm serve /m {words}")
    assert shown_codes(report) == expected


def test_kserve6037_a_preset_is_read() -> None:
    """c -> b: the LLMInferenceServiceConfig's pod template is read (was "no SGLang or vLLM server start was
    found"); its image names no release, so PR011's note names the releases without the flag."""
    report = check("kserve6037_gpt_oss_disable_log_requests.yaml")
    assert len(report["servers"]) == 1
    assert ("enable_log_requests", "--disable-log-requests") in [
        (s["name"], s["flag"]) for s in report["settings"]
    ]
    assert "vllm 0.17.1-0.32.0 do not know --disable-log-requests" in finding(report, "PR011")["message"]


def test_a_preset_named_release_refuses_the_flag() -> None:
    """Variant (not a report): the preset with a release named that lacks the flag stops at it."""
    report = check_case(
        CASES, "kserve6037_gpt_oss_disable_log_requests.yaml", ("--framework-version", "0.20.2")
    )
    assert [(f["code"], f["severity"]) for f in report["findings"] if f["code"] == "PA003"] == [
        ("PA003", "error")
    ]


@pytest.mark.parametrize(
    ("name", "fix"),
    [
        (
            "vllm50346_unknown_attention_backend_variable.txt",
            "VLLM_ATTENTION_BACKEND is read by vllm 0.6.6.post1-0.14.1 only; the release that logged this "
            "does not read it, so its value is ignored; remove it and pass --attention-backend, the flag of "
            "the same name in vllm 0.26.0 (assumed from the name)",
        ),
        (
            "gpustackrunner251_sleep_when_idle_0271.txt",
            "VLLM_SLEEP_WHEN_IDLE is read by vllm 0.9.2-0.17.1 only; the release that logged this does not "
            "read it, so its value is ignored; remove it",
        ),
    ],
)
def test_why_on_the_unknown_variable_warning(name: str, fix: str) -> None:
    """b -> a: the site's fix was "make the condition false (not (hard_fail)): change NAME"; now the releases
    that read the variable, and the flag of the same name where the release has one."""
    first = _why(name)["matches"][0]
    assert first["function"].endswith("validate_environ")
    assert first["fix"] == fix


@pytest.mark.parametrize(
    ("release", "name", "fix_starts"),
    [
        # no release reads it
        (
            None,
            "VLLM_MY_TEAM_FLAG",
            "no vllm release argtrace knows reads VLLM_MY_TEAM_FLAG (a misspelling, or another program's "
            "variable with vLLM's prefix): its value is ignored; remove it, or set the name",
        ),
        # a release that is not bundled: its family's stands in
        ("0.20.0", "VLLM_USE_V1", "VLLM_USE_V1 is read by vllm 0.6.6.post1-0.11.0 only;"),
        # the text's release reads it: the site's own fix stays
        ("0.27.1", "VLLM_BATCH_INVARIANT", "make the condition false"),
    ],
)
def test_why_unknown_variable_variants(release: str | None, name: str, fix_starts: str) -> None:
    """Variants (not reports)."""
    options = ["--framework-version", release] if release else []
    text = f"WARNING [envs.py:2128] Unknown vLLM environment variable detected: {name}"
    result = run_cli(["why", "--format", "json", *options, text])
    matches = result.json["why"]["matches"]
    assert matches and matches[0]["fix"].startswith(fix_starts)


def test_why_on_batch_invariance_without_a_backend() -> None:
    """Class a before the batch: the site reads --attention-backend."""
    for name in ("lmcache2499_batch_invariant_no_backend.txt", "vllm40173_batch_invariant_backend_none.txt"):
        first = _why(name)["matches"][0]
        assert (first["function"], first["fix"]) == (
            "override_envs_for_invariance",
            "make the condition false (attention_backend not in supported_backends): change "
            "--attention-backend, --attention-config",
        )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("vllm50346_attention_backend_variable_0260.cmd", [("PR001", "warning")]),
        ("runpodworker324_partial_prefills_0270.cmd", [("PA003", "warning")]),
        ("unslothzoo1210_swap_space_0290.cmd", [("PA003", "error")]),
    ],
)
def test_class_a_before_the_batch(name: str, expected: list[tuple[str, str]]) -> None:
    assert shown_codes(check(name)) == expected


_APP_TEMPLATE = """apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: vllm
spec:
  chart:
    spec:
      chart: CHART
  values:
    controllers:
      main:
        replicas: 2
        containers:
          server:
            image:
              repository: vllm/vllm-openai
              tag: v0.29.0
            command: vllm
            args: [serve, Qwen/Qwen3-0.6B, --swap-space, "4"]
            env:
              ENV
"""


@pytest.mark.parametrize(
    ("chart", "env", "expected"),
    [
        # the chart's env mapping, a value given as {value: ...}: read as the pod the chart renders
        ("app-template", "VLLM_USE_V1: '0'\n              HF_HOME: {value: /cache}", ("PA003", "PR001")),
        # the Kubernetes list form
        ("app-template", "- {name: VLLM_USE_V1, value: '0'}", ("PA003", "PR001")),
        # another chart's values are not a pod spec
        ("ollama", "VLLM_USE_V1: '0'", ()),
    ],
)
def test_app_template_variants(tmp_path: Path, chart: str, env: str, expected: tuple[str, ...]) -> None:
    """Variants (not reports): bjw-s app-template HelmReleases (V26-20's carrier), image tag, one-string
    command and env forms; `--swap-space` is gone by 0.29.0 and VLLM_USE_V1 not read after 0.11.0."""
    path = tmp_path / "helmrelease.yaml"
    path.write_text(_APP_TEMPLATE.replace("CHART", chart).replace("ENV", env))
    report = command("--framework-version", "0.29.0", str(path))
    assert tuple(sorted({code for code, _ in shown_codes(report)})) == expected
    if expected:
        assert [(s["placement"]["kind"], s["placement"]["replicas"]) for s in report["servers"]] == [
            ("HelmRelease", 2)
        ]
