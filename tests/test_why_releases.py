"""`argtrace why` when several releases print the same message from different sites (issue 15: every
bundled vLLM release in the message index): the release the user gives or the text shows ranks its sites
first; without one, equally specific sites come newest release first, each one result listing the releases
that have it. The texts are real reports' messages (tests/test_why_messages.py, with their URLs); the
version lines put before them are vLLM's and SGLang's own start-up lines, written here."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain
from argtrace.commands.why_release import nearest_indexed
from argtrace.resolver.message_store import indexed_releases
from tests.conftest import run_cli

# https://github.com/vllm-project/vllm/issues/10439 (November 2024, V0's MQLLMEngine)
NO_CACHE_BLOCKS = (
    "ERROR 11-18 18:07:28 engine.py:366] ValueError: No available memory for the cache blocks. Try "
    "increasing `gpu_memory_utilization` when initializing the engine."
)
# https://github.com/nvidia-cosmos/cosmos-rl/issues/403
PROMPT_TOO_LONG = (
    "[rank1]:ValueError: The decoder prompt (length 16476) is longer than the maximum model length of "
    "16384. Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal "
    "tokens. For image inputs, the number of image tokens depends on the number of images, and possibly "
    "their aspect ratios as well."
)
# https://github.com/sgl-project/sglang/issues/11970
SGLANG_LEAK = (
    "ValueError: token_to_kv_pool_allocator memory leak detected! self.max_total_num_tokens=270331, "
    "available_size=644, evictable_size=269628, protected_size=0"
)
VLLM = indexed_releases("vllm")


def releases(first: str, last: str) -> list[str]:
    return list(VLLM[VLLM.index(first) : VLLM.index(last) + 1])


def summary(section: dict[str, Any], n: int) -> list[tuple[str, str, int, list[str], str]]:
    return [
        (m["function"], m["how"], m["specificity"], m["releases"], f"{m['file']}:{m['line']}")
        for m in section["matches"][:n]
    ]


def test_every_bundled_vllm_release_has_a_message_index() -> None:
    from argtrace.frameworks.schema import bundled_versions

    bundled = bundled_versions("vllm", include_user=False)
    assert [v for v in VLLM if v in bundled] == bundled and len(bundled) == 29
    # and the releases older than every bundled one (their messages only, no schema): 0.2.7 .. 0.6.5
    assert [v for v in VLLM if v not in bundled] == [
        "0.2.7", "0.3.3", "0.4.0.post1", "0.4.1", "0.4.2", "0.4.3", "0.5.0.post1", "0.5.1", "0.5.2",
        "0.5.3.post1", "0.5.4", "0.5.5", "0.6.0", "0.6.1.post2", "0.6.2", "0.6.3.post1", "0.6.4.post1",
        "0.6.5",
    ]  # fmt: skip


def test_without_a_release_equal_sites_come_newest_release_first() -> None:
    section = explain(NO_CACHE_BLOCKS)
    assert section["release"] is None
    # seven sites print these words exactly; each is one result with every release that has it
    assert summary(section, 8) == [
        (
            "_check_enough_kv_cache_memory",
            "full",
            92,
            releases("0.14.1", "0.21.0"),
            "vllm/v1/core/kv_cache_utils.py:696",
        ),
        ("check_enough_kv_cache_memory", "full", 92, ["0.13.0"], "vllm/v1/core/kv_cache_utils.py:687"),
        (
            "check_enough_kv_cache_memory",
            "full",
            92,
            releases("0.7.3", "0.12.0"),
            "vllm/v1/core/kv_cache_utils.py:686",
        ),
        (
            "raise_if_cache_size_invalid",
            "full",
            92,
            releases("0.4.1", "0.10.2"),
            "vllm/worker/worker.py:660",
        ),
        (
            "Worker.initialize_cache",
            "full",
            92,
            releases("0.6.4.post1", "0.6.6.post1"),
            "vllm/v1/worker/gpu_worker.py:175",
        ),
        ("check_block_size_valid", "full", 92, ["0.4.0.post1"], "vllm/executor/utils.py:3"),
        ("LLMEngine._init_cache", "full", 92, ["0.2.7", "0.3.3"], "vllm/engine/llm_engine.py:361"),
        # 0.22.1 on adds a sentence: a partial match, after every full one
        (
            "_check_enough_kv_cache_memory",
            "partial",
            92,
            releases("0.22.1", "0.33.0"),
            "vllm/v1/core/kv_cache_planning.py:57",
        ),
    ]


def test_a_version_line_in_the_text_ranks_that_release_s_sites_first() -> None:
    """0.6.4.post1 has no schema but its messages are indexed: its own sites rank first, each shown at its
    line in that release (493), not in the newest that has it (0.10.2: 660)."""
    text = "INFO 11-18 18:00:00 api_server.py:528] vLLM API server version 0.6.4.post1\n" + NO_CACHE_BLOCKS
    section = explain(text)
    assert section["release"] == {
        "framework": "vllm",
        "version": "0.6.4.post1",
        "source": "text",
        "indexed": "0.6.4.post1",
    }
    assert summary(section, 2) == [
        (
            "raise_if_cache_size_invalid",
            "full",
            92,
            releases("0.4.1", "0.10.2"),
            "vllm/worker/worker.py:493",
        ),
        (
            "Worker.initialize_cache",
            "full",
            92,
            releases("0.6.4.post1", "0.6.6.post1"),
            "vllm/v1/worker/gpu_worker.py:142",
        ),
    ]
    # every site 0.6.4.post1 has comes before any it lacks
    has = [("0.6.4.post1" in m["releases"]) for m in section["matches"]]
    assert has == sorted(has, reverse=True) and has[0]


def test_framework_version_of_an_indexed_release_keeps_only_its_sites() -> None:
    section = explain(PROMPT_TOO_LONG, "vllm", "0.11.0")
    assert section["release"] == {
        "framework": "vllm",
        "version": "0.11.0",
        "source": "--framework-version",
        "indexed": "0.11.0",
    }
    assert summary(section, 8) == [
        ("Processor._validate_model_input", "full", 225, ["0.11.0"], "vllm/v1/engine/processor.py:535")
    ]


def test_framework_version_of_a_release_without_an_index_ranks_the_nearest_one_first() -> None:
    """0.11.1: not bundled; 0.11.0 (its family's, not newer) ranks first, the other releases' sites stay
    listed after it, newest first."""
    section = explain(PROMPT_TOO_LONG, "vllm", "0.11.1")
    assert section["release"] == {
        "framework": "vllm",
        "version": "0.11.1",
        "source": "--framework-version",
        "indexed": "0.11.0",
    }
    assert summary(section, 5) == [
        (
            "Processor._validate_model_input",
            "full",
            225,
            ["0.11.0", "0.11.2"],
            "vllm/v1/engine/processor.py:535",
        ),
        (
            "InputProcessor._validate_prompt_len",
            "full",
            225,
            releases("0.17.1", "0.33.0"),
            "vllm/v1/engine/input_processor.py:588",
        ),
        (
            "InputProcessor._validate_model_input",
            "full",
            225,
            releases("0.12.0", "0.16.0"),
            "vllm/v1/engine/input_processor.py:755",
        ),
        (
            "LLMEngine._validate_model_input",
            "full",
            225,
            releases("0.8.5.post1", "0.10.2"),
            "vllm/engine/llm_engine.py:1792",
        ),
        (
            "Processor._validate_model_input",
            "full",
            225,
            releases("0.8.5.post1", "0.10.2"),
            "vllm/v1/engine/processor.py:514",
        ),
    ]


def test_without_a_release_the_prompt_message_is_the_newest_site_first() -> None:
    section = explain(PROMPT_TOO_LONG)
    assert [(m["function"], m["releases"][0], m["releases"][-1]) for m in section["matches"][:5]] == [
        ("InputProcessor._validate_prompt_len", "0.17.1", "0.33.0"),
        ("InputProcessor._validate_model_input", "0.12.0", "0.16.0"),
        ("Processor._validate_model_input", "0.11.0", "0.11.2"),
        ("LLMEngine._validate_model_input", "0.8.5.post1", "0.10.2"),
        ("Processor._validate_model_input", "0.8.5.post1", "0.10.2"),
    ]
    assert {m["specificity"] for m in section["matches"][:5]} == {225}


def test_the_log_s_version_line_decides_when_the_text_has_none(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        "INFO 09-01 10:00:00 [api_server.py:1000] vLLM API server version 0.9.2\n"
        "INFO 09-01 10:00:01 [core.py:61] Initializing a V1 LLM engine\n"
    )
    args = argparse.Namespace(log=str(log), all=False, model_config=None, gpu=None)
    section = explain(PROMPT_TOO_LONG, None, None, args)
    assert section["release"] == {
        "framework": "vllm",
        "version": "0.9.2",
        "source": "log",
        "indexed": "0.9.2",
        "at": f"{log}:1",
    }
    assert [(m["function"], m["releases"][0], m["releases"][-1]) for m in section["matches"][:2]] == [
        ("LLMEngine._validate_model_input", "0.8.5.post1", "0.10.2"),
        ("Processor._validate_model_input", "0.8.5.post1", "0.10.2"),
    ]


def test_the_preferred_release_s_site_ranks_first_even_when_only_partly_matched() -> None:
    """SGLang 0.4.6.post5 prints the longer 0.4.4-0.4.8 wording (the report quotes a 0.5 release's): with
    that release in the text, its site comes before the 0.5 full match, which is not in 0.4.6."""
    assert explain(SGLANG_LEAK)["matches"][0]["function"] == "SchedulerRuntimeCheckerMixin.check_memory"
    section = explain("[2025-05-01 10:00:00] sglang version: 0.4.6.post5\n" + SGLANG_LEAK)
    assert section["release"] == {
        "framework": "sglang",
        "version": "0.4.6.post5",
        "source": "text",
        "indexed": "0.4.6.post5",
    }
    first = section["matches"][0]
    assert (first["function"], first["how"], first["specificity"]) == (
        "Scheduler.check_memory",
        "partial",
        87,
    )
    assert first["releases"] == ["0.4.4.post4", "0.4.5.post3", "0.4.6.post5", "0.4.7.post1", "0.4.8.post1"]


@pytest.mark.parametrize(
    ("framework", "version", "nearest"),
    [
        ("vllm", "0.11.1", "0.11.0"),  # the family's release not newer than it
        ("vllm", "0.10.1.1", "0.10.2"),  # the family's only release
        ("vllm", "0.11.3", "0.11.2"),
        ("vllm", "0.34.0", "0.33.0"),  # newer than every indexed release: the newest
        ("vllm", "0.5.4", "0.5.4"),  # no schema, but its messages are indexed
        ("vllm", "0.4.0", "0.4.0.post1"),
        ("vllm", "0.1.7", "0.2.7"),  # older than every indexed release: the oldest
        ("sglang", "0.5.10", "0.5.10.post1"),  # SGLang's family is 0.5.N
        ("sglang", "0.5.9.post2", "0.5.9"),
        ("sglang", "0.4.3", "0.4.3.post4"),
    ],
)
def test_the_nearest_indexed_release(framework: str, version: str, nearest: str) -> None:
    assert nearest_indexed(framework, indexed_releases(framework), version) == nearest


def test_the_text_view_says_which_release_decided() -> None:
    result = run_cli(["why", "--framework", "vllm", "--framework-version", "0.11.1", PROMPT_TOO_LONG])
    assert result.status == 0, result.stderr
    text = " ".join(result.stdout.split())  # the text view wraps at the terminal's width
    assert (
        "release: vllm 0.11.1 from --framework-version (indexed release nearest to it: 0.11.0); its sites "
        "come first" in text
    )
    result = run_cli(["why", "--framework-version", "0.11.0", PROMPT_TOO_LONG])
    assert "release: 0.11.0 from --framework-version; only its sites" in " ".join(result.stdout.split())


def test_the_message_indexes_store_each_site_once_and_stay_small() -> None:
    """A site several releases share is one entry with its line in each (``at``); both files together stay
    under 4.5 MB (3.6 MB with 34 SGLang and 29 vLLM releases: docs/frameworks.md states the sizes)."""
    import gzip
    import json

    from argtrace.resolver.message_store import MESSAGE_DIR, site_key

    total = 0
    for framework in ("sglang", "vllm"):
        path = MESSAGE_DIR / f"{framework}.json.gz"
        total += path.stat().st_size
        store = json.loads(gzip.decompress(path.read_bytes()))
        keys = [site_key(s) for s in store["sites"]]
        assert len(keys) == len(set(keys))
        assert all(set(s["at"]) <= set(store["releases"]) for s in store["sites"])
        per_release = sum(r["sites"] for r in store["releases"].values())
        assert per_release == sum(len(lines) for s in store["sites"] for lines in s["at"].values())
    assert total < 4_500_000
