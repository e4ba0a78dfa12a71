"""The vLLM batch of session 31 (docs/real_cases.md, "vLLM, 31st session"), measured before any fix: embedding
checkpoints served without the pooling runner, engine keywords and flags a release removed or deprecated,
and JSON flag values that carry what a shell should have removed or expanded (quotes passed without a
shell, a variable inside single quotes). Each case under ``tests/data/real_cases_vllm31/`` names its URL on
its first line (after a ``#!`` line): ``.cmd`` launches for ``argtrace check -c``, ``.sh`` scripts, ``.py``
programs, ``ok_*`` the correct launches collected with them. The machine is a new user's (no resolver
environment, no Hugging Face cache)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import pytest

from tests.batches import check_case, finding, missing_cases, shown_codes, table_counts, unsourced
from tests.conftest import alarms, run_cli

CASES = Path(__file__).resolve().parent / "data" / "real_cases_vllm31"

pytestmark = pytest.mark.usefixtures("new_user_machine")

# The class of each failure input by the better of `check` and `why`: first seen (on 8509b40b) and now.
CLASSES = {
    "curator1200_max_seq_len_to_capture_0110.py": ("a", "a"),
    "gpustack2171_qwen3_embedding_no_task_085.cmd": ("c", "c"),
    "gpustack2822_hf_overrides_quoted_argv.py": ("b", "a"),
    "gpustack4268_vl_embedding_no_runner_0130.cmd": ("c", "c"),
    "kthena937_engine_id_single_quoted.sh": ("b", "a"),
    "qwen3vlembedding21_lm_head_0110.cmd": ("c", "c"),
}
CORRECT = [
    "ok_recipes563_speculative_config_underscore.cmd",
    "ok_vllmascend1024_rope_scaling_085.cmd",
    "ok_vllmascendpr5002_llm_task_embed_0120.py",
    "ok_vllmpr30303_vl_embedding_runner_pooling.py",
]
# the release a report names (its text, its image or package, the PR's date), given as --framework-version
RELEASES = {
    "curator1200_max_seq_len_to_capture_0110.py": "0.11.0",
    "gpustack2171_qwen3_embedding_no_task_085.cmd": "0.8.5",
    "gpustack4268_vl_embedding_no_runner_0130.cmd": "0.13.0",
    "ok_vllmascend1024_rope_scaling_085.cmd": "0.8.5",
    "ok_vllmascendpr5002_llm_task_embed_0120.py": "0.12.0",
    "qwen3vlembedding21_lm_head_0110.cmd": "0.11.0",
}
_POOLING = (
    "that the checkpoint is an embedding model is in its files (a sentence-transformers modules.json, a "
    "pooling architecture) and its name; neither is read for a Hub id on a new user's machine, and the "
    "config names a generative class"
)
# the check inputs not in class a: a word the alarm naming the cause must hold, and what argtrace lacks
MISSING = {
    "gpustack2171_qwen3_embedding_no_task_085.cmd": ("--task", _POOLING),
    "gpustack4268_vl_embedding_no_runner_0130.cmd": ("--runner", _POOLING),
    "qwen3vlembedding21_lm_head_0110.cmd": ("--runner", _POOLING),
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
    assert files == set(CLASSES) | set(CORRECT)
    assert table_counts(CLASSES) == ([1, 2, 3, 0], [3, 0, 3, 0])


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


def test_the_missing_list_is_every_check_case_not_in_class_a() -> None:
    assert set(MISSING) == {n for n, (_, now) in CLASSES.items() if now != "a"}


def test_curator1200_an_engine_keyword_the_release_removed() -> None:
    """a as first seen: 0.11.0 has no --max-seq-len-to-capture (accepted up to 0.10.2)."""
    report = check("curator1200_max_seq_len_to_capture_0110.py")
    assert shown_codes(report) == [("PA003", "error")]
    cause = finding(report, "PA003")
    assert cause["message"].startswith(
        "--max-seq-len-to-capture was accepted up to vllm 0.10.2 but vllm 0.11.0 does not know it"
    )
    assert cause["fix"] == "remove the flag, or pin the older release"


def test_gpustack2822_quotes_passed_without_a_shell() -> None:
    """b -> a: the JSON reaches vLLM with the single quotes a shell would have removed; the fix said to add
    single quotes, now it says to remove them where the value is made."""
    report = check("gpustack2822_hf_overrides_quoted_argv.py")
    assert shown_codes(report) == [("PA011", "error")]
    cause = finding(report, "PA011")
    assert cause["message"] == (
        "--hf-overrides '\\'{\"architectures\" :[\"ApertusForCausalLM\"]}\\'' is not valid JSON (Expecting "
        "value at column 1); the parser keeps the string and the server fails when it decodes it"
    )
    assert cause["fix"] == (
        "remove the ' characters around the value where it is made: they reach the server (the shell "
        "removes only the quotes written on the command line, not those written twice or produced by an "
        "expansion such as $(printf ...) or a variable)"
    )


def test_kthena937_a_variable_inside_single_quotes() -> None:
    """b -> a: only shellcheck's SC2016 note said it; PA060 names the flag and the variable, and the note is
    folded under it."""
    report = check("kthena937_engine_id_single_quoted.sh")
    assert shown_codes(report) == [("PA060", "warning")]
    cause = finding(report, "PA060")
    assert cause["at"] == "kthena937_engine_id_single_quoted.sh:13:3"
    assert cause["message"] == (
        "--kv-transfer-config: the value holds $MOONCAKE_ENGINE_ID as written: the word was single-quoted "
        "(or passed without a shell), so nothing expanded it, and vllm 0.33.0 does not expand environment "
        "variables in its flags, so the server gets the text $MOONCAKE_ENGINE_ID, not the value the launch "
        "sets (kthena937_engine_id_single_quoted.sh:3:8)"
    )
    assert cause["fix"] == (
        "let the shell expand $MOONCAKE_ENGINE_ID: end the single quotes before it and start them again "
        "after it, writing it in double quotes ('...'\"$MOONCAKE_ENGINE_ID\"'...'), or build the value in a "
        "variable first"
    )
    assert [c["code"] for c in cause.get("consequences", [])] == ["SC2016"]


_KV = '{"kv_connector": "NixlConnector", "kv_role": "kv_both", "engine_id": '


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        # the variable set, its name kept by single quotes
        (f"ID=d0 vllm serve /m --kv-transfer-config '{_KV}\"$ID\"}}'", ["PA060"]),
        (f"ID=d0 vllm serve /m --kv-transfer-config='{_KV}\"${{ID}}\"}}'", ["PA060"]),
        # expanded by the shell: nothing
        (f"ID=d0 vllm serve /m --kv-transfer-config '{_KV}\"'\"$ID\"'\"}}'", []),
        # not set where the launch runs: a $ that may be meant as text
        (f"vllm serve /m --kv-transfer-config '{_KV}\"$ID\"}}'", []),
        # a credential's flag is not quoted
        ("KEY=x vllm serve /m --api-key '$KEY'", []),
        # a positional word is no flag's value
        ("ID=d0 vllm serve '$ID'", []),
    ],
)
def test_literal_variable_variants(words: str, expected: list[str]) -> None:
    """Variants (not reports): when PA060 speaks."""
    report = command("--framework-version", "0.33.0", "-c", words)
    assert [f["code"] for f in report["findings"] if f["code"] == "PA060"] == expected
