"""The vLLM batch of session 32 (docs/real_cases.md, "vLLM, 32nd session"), measured before any fix: flags a
release removed or never had (the pooling task, a reasoning switch, a fork's kernel flag, an engine keyword
of ``LLM(...)``), an FP8 KV cache on a GPU the release's attention backends no longer serve, and an
architecture override naming the multimodal class for a text checkpoint. Each case under
``tests/data/real_cases_vllm32/`` names its URL on its first line (after a ``#!`` line): ``.cmd`` launches
for ``argtrace check -c``, ``.py`` programs, ``.txt`` the error text a report quotes (``argtrace why``),
``ok_*`` the correct launches collected with them. The machine is a new user's (no resolver environment, no
Hugging Face cache)."""

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

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm32"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on a11d79e8) and now.
CLASSES = {
    "lighteval532_worker_use_ray_070.py": ("a", "a"),
    "qwen3issue1489_enable_reasoning_parser_085.cmd": ("a", "a"),
    "sparkvllmdocker385_gdn_decode_kernel.cmd": ("a", "a"),
    "trelis17_enable_reasoning_runpod.cmd": ("b", "b"),
    "vllm47549_fp8_kv_cache_sm75_0240.cmd": ("a", "a"),
    "vllmascendpr13510_reranker_vl_architecture_0260.cmd": ("c", "c"),
    "vllmascendpr5257_task_embed_0130.cmd": ("a", "a"),
}
CORRECT = [
    "ok_recipespr877_dotted_speculative_config.cmd",
    "ok_vllmascendpr13943_reranker_text_architecture_0230.cmd",
    "ok_vllmpr55380_max_model_len_auto.cmd",
]
# the error text a report quotes, for `why` (the class of its launch is the better of the two)
WHY_TEXTS = ["vllm47549_fp8_kv_cache_sm75_0240.txt"]
# the release a report names (its text, its image or package, the PR's date), given as --framework-version
RELEASES = {
    "lighteval532_worker_use_ray_070.py": "0.7.3",
    "ok_vllmascendpr13943_reranker_text_architecture_0230.cmd": "0.23.0",
    "qwen3issue1489_enable_reasoning_parser_085.cmd": "0.8.5.post1",
    "vllm47549_fp8_kv_cache_sm75_0240.cmd": "0.24.0",
    "vllm47549_fp8_kv_cache_sm75_0240.txt": "0.24.0",
    "vllmascendpr13510_reranker_vl_architecture_0260.cmd": "0.26.0",
    "vllmascendpr5257_task_embed_0130.cmd": "0.13.0",
}
# the check inputs not in class a by `check` alone: a word the alarm naming the cause must hold, and what
# argtrace lacks (vllm47549 is in class a by `why`, tested below)
MISSING = {
    "trelis17_enable_reasoning_runpod.cmd": (
        "--enable-reasoning",
        "with no release named the launch is analysed as 0.9.2, the newest bundled release that accepts "
        "--enable-reasoning, so its removal (0.10.2-0.33.0 refuse it) is in PR011's note only; the same "
        "launch is a documented working one in the false-alarm gate (fa22's vllm-generator serve_8_gpus.sh): "
        "which release runs decides, and nothing in the command shows it",
    ),
    "vllm47549_fp8_kv_cache_sm75_0240.cmd": (
        "--kv-cache-dtype",
        "which attention backends a release's selector keeps for a compute capability "
        "(FlashInferBackend.supports_compute_capability's floor, 7.5 in 0.23.0, 8.0 in 0.24.0) is not read "
        "from the wheels: the launch names no backend, and the raise is in the Triton backend it falls to",
    ),
    "vllmascendpr13510_reranker_vl_architecture_0260.cmd": (
        "Qwen3VLForSequenceClassification",
        "that Qwen/Qwen3-Reranker-0.6B is a text checkpoint (its config's model_type) is not read for a Hub "
        "id on a new user's machine, so the multimodal class --hf-overrides names cannot be compared with it",
    ),
}


@functools.cache
def _check(name: str) -> dict[str, Any]:
    version = RELEASES.get(name)
    return check_case(CASES, name, ("--framework-version", version) if version else ())


def check(name: str) -> dict[str, Any]:
    """Each recorded launch is checked once; the tests read copies."""
    return copy.deepcopy(_check(name))


def command(*argv: str) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-resolve", *argv])
    assert result.stdout.startswith("{"), result.stderr
    report: dict[str, Any] = result.json
    return report


def test_inventory_and_counts() -> None:
    files = {p.name for p in CASES.iterdir()}
    assert files == set(CLASSES) | set(CORRECT) | set(WHY_TEXTS)
    assert table_counts(CLASSES) == ([5, 1, 1, 0], [5, 1, 1, 0])


def test_every_case_names_its_source() -> None:
    assert unsourced(CASES) == []


@pytest.mark.parametrize("name", CORRECT)
def test_correct_launches_stay_clean(name: str) -> None:
    report = check(name)
    assert shown_codes(report) == []
    assert len(report["servers"]) == 1


@pytest.mark.parametrize("name", missing_cases(MISSING))
def test_the_cause_is_an_alarm(name: str) -> None:
    word = MISSING[name][0]
    assert any(word in f["message"] for f in alarms(check(name)))


def test_the_missing_list_is_every_check_case_not_in_class_a_by_check() -> None:
    by_check = {n for n, (_, now) in CLASSES.items() if now != "a"} | {"vllm47549_fp8_kv_cache_sm75_0240.cmd"}
    assert set(MISSING) == by_check


def test_trelis17_the_removal_is_a_note_when_no_release_is_named() -> None:
    """b as first seen and now: PR011 names the releases that refuse --enable-reasoning, PA005 its
    deprecation in 0.9.2, both notes (see MISSING)."""
    report = check("trelis17_enable_reasoning_runpod.cmd")
    assert shown_codes(report) == []
    note = finding(report, "PR011")["message"]
    assert note.startswith("nothing shows which vllm release runs")
    assert note.endswith("vllm 0.10.2-0.33.0 do not know --enable-reasoning")
    assert finding(report, "PA005")["severity"] == "info"


def test_vllmascendpr5257_the_task_flag_on_0130() -> None:
    """a as first seen: 0.13.0 no longer knows --task."""
    report = check("vllmascendpr5257_task_embed_0130.cmd")
    assert shown_codes(report) == [("PA003", "error")]
    assert finding(report, "PA003")["message"].startswith(
        "--task was accepted up to vllm 0.12.0 but vllm 0.13.0 does not know it"
    )


def test_sparkvllmdocker385_a_flag_no_release_has() -> None:
    """a as first seen: --gdn-decode-kernel is the experimental build's, no bundled release knows it."""
    report = check("sparkvllmdocker385_gdn_decode_kernel.cmd")
    assert shown_codes(report) == [("PA001", "warning")]
    assert finding(report, "PA001")["message"].startswith("--gdn-decode-kernel is not a vllm 0.33.0 flag")


def test_lighteval532_an_engine_keyword_070_no_longer_takes() -> None:
    """a as first seen: LLM(**model_args) with worker_use_ray on 0.7.x; the replacement the flag's own
    deprecation named is the fix. (Its consequence is worded for the command line, V31-01's limit.)"""
    report = check("lighteval532_worker_use_ray_070.py")
    assert shown_codes(report) == [("PA003", "error")]
    assert finding(report, "PA003")["fix"] == "use --distributed-executor-backend"


def test_qwen3issue1489_a_misspelt_switch() -> None:
    """a as first seen: --enable-reasoning-parser is no flag; the nearest one of 0.8.5.post1 is named."""
    report = check("qwen3issue1489_enable_reasoning_parser_085.cmd")
    assert shown_codes(report) == [("PA001", "error")]
    assert finding(report, "PA001")["message"].endswith("did you mean --enable-reasoning?")


def test_vllm47549_why_names_the_triton_backends_fp8_check() -> None:
    """a by `why` as first seen: the raise in 0.24.0's Triton backend, read from --kv-cache-dtype; the site is
    in 0.24.0 only, which is the regression's release."""
    first = why_with_release(CASES, "vllm47549_fp8_kv_cache_sm75_0240.txt", RELEASES)["matches"][0]
    assert (first["function"], first["file"], first["line"]) == (
        "TritonAttentionImpl.__init__",
        "vllm/v1/attention/backends/triton_attn.py",
        477,
    )
    assert [s["flag"] for s in first["settings"]] == ["--kv-cache-dtype"]
    assert first["releases"] == ["0.24.0"]


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        # no release named: the launch is analysed as 0.9.2, which accepts the flag (PR011, PA005: notes)
        ((), []),
        # a release that deprecates it: a note; one that refuses it: the error
        (("--framework-version", "0.9.2"), []),
        (("--framework-version", "0.10.2"), [("PA003", "error")]),
    ],
)
def test_enable_reasoning_by_the_release_named(
    options: tuple[str, ...], expected: list[tuple[str, str]]
) -> None:
    """Variants (not reports): the same words, the release named or not (trelis17's miss)."""
    launch = "vllm serve /m --enable-reasoning --reasoning-parser deepseek_r1"
    assert shown_codes(command(*options, "-c", launch)) == expected
