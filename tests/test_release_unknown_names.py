"""PR011 says which names of the launch no bundled release knows, instead of claiming it accepts them all.

Found by the documentation sweep (docs/false_alarms.md, 2026-12-02): SGLang's quantized-KV-cache page
writes ``--int8-kv-cache``, a flag of no bundled release, and PR011 said the release it analysed "accepts
every flag and variable of the launch". A name no release knows decides nothing in the choice of the
release (``ReleaseIndex.accepting``), so the message now says which ones it left out. vLLM's own spellings
of a flag (an underscore spelling, a dotted JSON key) are known names: its parser reads them as the flag
(``frameworks/vllm.py`` ``option_read_as``).
"""

from __future__ import annotations

import pytest

from argtrace.frameworks.vllm import option_read_as
from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("new_user_machine")

OPENING = (
    "nothing shows which {fw} release runs (no --framework-version, log, installed package, image tag or pip "
    "line): analysed as {fw} {release}, the newest bundled release that accepts every flag and variable of "
    "the launch"
)


def release_note(command: str) -> str:
    result = run_cli(["check", "--no-resolve", "--format", "json", "-c", command])
    [finding] = [f for f in result.json["findings"] if f["code"] == "PR011"]
    assert finding["severity"] == "info"
    return str(finding["message"])


def test_a_flag_no_bundled_release_knows_is_named_not_claimed_accepted() -> None:
    assert release_note(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --page-size 1 --int8-kv-cache"
    ) == (
        OPENING.format(fw="sglang", release="0.5.23")
        + " that a bundled release knows (accepted by 0.4.4.post4-0.5.23); sglang 0.4.0.post2-0.4.3.post4 do "
        "not know --page-size; no bundled sglang release knows --int8-kv-cache (a misspelling, or a newer "
        "release's)"
    )


def test_a_variable_no_bundled_release_reads_is_named_too() -> None:
    assert release_note("VLLM_USE_PCP_DIRECT_KV=1 vllm serve Qwen/Qwen3-0.6B") == (
        OPENING.format(fw="vllm", release="0.33.0")
        + " that a bundled release knows (accepted by 0.6.6.post1-0.33.0); no bundled vllm release knows "
        "VLLM_USE_PCP_DIRECT_KV (a misspelling, or a newer release's)"
    )


def test_another_frameworks_flag_is_a_name_no_release_knows() -> None:
    assert release_note("vllm serve Qwen/Qwen3-0.6B --tp 8") == (
        OPENING.format(fw="vllm", release="0.33.0")
        + " that a bundled release knows (accepted by 0.6.6.post1-0.33.0); no bundled vllm release knows "
        "--tp (a misspelling, or a newer release's)"
    )


def test_vllms_underscore_and_dotted_spellings_are_known_names() -> None:
    command = "vllm serve Qwen/Qwen3-0.6B --gpu_memory_utilization 0.8 --kv-transfer-config.kv_role kv_both"
    assert (
        release_note(command)
        == OPENING.format(fw="vllm", release="0.33.0") + " (accepted by 0.6.6.post1-0.33.0)"
    )


@pytest.mark.parametrize(
    ("word", "read"),
    [
        ("--gpu_memory_utilization", "--gpu-memory-utilization"),
        ("--default_mm_loras={}", "--default-mm-loras"),
        ("--kv-transfer-config.kv_connector_extra_config.backends+", "--kv-transfer-config"),
        ("--eplb_config.window_size", "--eplb-config"),
        ("-tp", "-tp"),
    ],
)
def test_the_option_string_vllms_parser_reads_for_a_word(word: str, read: str) -> None:
    assert option_read_as(word) == read
