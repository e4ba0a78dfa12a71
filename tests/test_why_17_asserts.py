"""`argtrace why` on 12 public reports whose error is an AssertionError from argument handling, start-up or
the first steps of serving (texts and URLs in tests/data/why_17_asserts/; the first line of each file names
the report, the release and the fix its thread settled on), as a new user runs it, and the mechanism they
led to (docs/real_cases.md "Bare asserts", docs/why.md "Bare asserts: the assert index"):

- the assert index (``scripts/gen_messages.py --asserts``, ``frameworks/data/asserts/``): every assert of
  every indexed SGLang and vLLM wheel that prints no words (bare, or values only), with its whole condition,
  the conditions around it, its operands' assignments and the attributes it reads, each once with its line
  per release;
- a bare AssertionError's traceback is matched by its last framework frame (file and line: the releases
  whose assert sits there) and the statement shown; a frame whose ``File "`` the paste cut is still a frame;
- an ``assert COND`` an issue title or a sentence quotes (or a title writing the condition after
  ``AssertionError:``) is matched by its normalised condition, the file and line a sentence names first;
  several sites with the condition and nothing in the text to choose stay ambiguous, and ``why`` says so;
- a message sending the reader to an error above ("See stack trace above for root cause") only reports it.

Each case asserts what ``why`` says first: the site (state, file, function), how it was found, the flags, and
for the sites matched by words the first site; the cases ``why`` still does not explain are strict ``xfail``
tests naming the missing mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from argtrace.commands.why import explain, render_why
from tests.conftest import quoted_text, quoted_url

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why_17_asserts"


def _text(name: str) -> str:
    return quoted_text(DATA / f"{name}.txt")


@dataclass(frozen=True)
class Case:
    name: str  # tests/data/why_17_asserts/<name>.txt
    before: str  # the class on this branch's base (docs/real_cases.md)
    grade: str  # the class after
    assert_at: tuple[str, str, str] | None  # (state, file, function) of the indexed assert; None: none
    how: str | None = None  # line+condition, line, condition
    flags: tuple[str, ...] = ()  # the settings' flags the assert names
    ambiguous: bool = False
    first: str | None = None  # the first site matched by words (function), when there is one


CASES = [
    Case(
        "sglang11409_dsv32_logits_seq_lens",
        "b",
        "b",
        ("quoted", "sglang/srt/layers/attention/dsa/dsa_indexer.py", "Indexer._get_topk_ragged"),
        "condition",
        first="DeepseekV2AttentionMLA.__init__",
    ),
    Case(
        "sglang12676_chunked_req_line_1839",
        "c",
        "b",
        # line 1839 of scheduler.py, as the sentence says, is this assert in 0.5.4.post3
        ("quoted", "sglang/srt/managers/scheduler.py", "Scheduler.get_new_batch_prefill"),
        "line+condition",
    ),
    Case(
        "sglang2255_being_chunked_req_title",
        "c",
        "b",
        ("quoted", "sglang/srt/managers/scheduler.py", "Scheduler.get_new_batch_prefill"),
        "condition",
    ),
    Case("sglang28297_fa4_sm10_title", "b", "b", None, first="FlashAttentionForwardSm100.__init__"),
    Case(
        "vllm1581_chatglm_kv_heads_tp",
        "c",
        "a",
        ("bare", "vllm/model_executor/models/chatglm.py", "GLMAttention.__init__"),
        "line+condition",
        ("--tensor-parallel-size",),
    ),
    Case(
        "vllm16021_phi4_llama_kv_heads_tp4",
        "d",
        "a",
        # line 122 is in no indexed release (0.8.5.post1 has it elsewhere): found by its statement
        ("bare", "vllm/model_executor/models/llama.py", "LlamaAttention.__init__"),
        "condition",
        ("--tensor-parallel-size",),
        first="MPClient.__init__.sigusr1_handler",
    ),
    Case("vllm1759_tp_group_already_initialized", "b", "b", None, first="initialize_model_parallel"),
    # the NIXL check of mid-2025 (0.9.x) is in no indexed release: a strict xfail below
    Case("vllm19338_nixl_num_blocks_title", "c", "c", None),
    Case(
        "vllm28411_reorganized_kv_c_normed",
        "c",
        "b",
        ("quoted", "vllm/model_executor/layers/attention/mla_attention.py", "reorg_kvcache"),
        "condition",
    ),
    Case(
        "vllm33074_dsv32_num_kv_heads_title",
        "c",
        "b",
        # five sites assert it; the title's "DeepseekV32" names the DSv3.2 indexer's backend
        (
            "quoted",
            "vllm/v1/attention/backends/mla/indexer.py",
            "DeepseekV32IndexerBackend.get_kv_cache_shape",
        ),
        "condition",
    ),
    Case("vllm3639_tp_group_not_initialized", "b", "b", None, first="get_tensor_model_parallel_group"),
    Case("vllm8097_internvl_25_not_divisible_by_4", "b", "b", None, first="ensure_divisibility"),
]


def test_the_batch_is_12_reports_with_their_urls() -> None:
    assert sorted(c.name for c in CASES) == sorted(p.stem for p in DATA.glob("*.txt"))
    assert len({quoted_url(DATA / f"{c.name}.txt") for c in CASES}) == 12
    assert [sum(c.before == g for c in CASES) for g in "abcd"] == [0, 5, 6, 1]
    assert [sum(c.grade == g for c in CASES) for g in "abcd"] == [2, 9, 1, 0]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_why_on_the_reports_text(case: Case) -> None:
    section = explain(_text(case.name))
    first = (section["matches"] or [None])[0]
    assert (first["function"] if first else None) == case.first
    trace = section.get("traceback") or {}
    found = trace.get("assert")
    if case.assert_at is None:
        assert found is None
        return
    assert found is not None
    state, file, function = case.assert_at
    assert trace["state"] == state
    assert found["file"].startswith(file) and found["function"].startswith(function)
    assert found["how"] == case.how
    assert tuple(s["flag"] for s in found["settings"]) == case.flags
    assert bool(found.get("ambiguous")) == case.ambiguous


def test_a_bare_assert_after_its_frame_names_the_release_and_the_operands() -> None:
    # vllm#1581: the frame's `File "` is cut; line 53 of chatglm.py is this assert in the releases named
    section = explain(_text("vllm1581_chatglm_kv_heads_tp"))
    found = section["traceback"]["assert"]
    assert found["condition"] == "self.total_num_kv_heads % tp_size == 0"
    assert found["when"] == ["self.total_num_kv_heads >= tp_size"]
    assert found["operands"] == "tp_size = get_tensor_model_parallel_world_size()"
    assert found["lines"] == [53]
    view = render_why(section)
    assert "matched by its line and statement" in view
    assert "its operand tp_size (named like --tensor-parallel-size)" in view


def test_the_report_of_a_worker_failure_goes_after_the_assert_it_reports() -> None:
    # vllm#16021: before, "Got fatal signal from worker processes ... See stack trace above" was the cause
    section = explain(_text("vllm16021_phi4_llama_kv_heads_tp4"))
    assert section["traceback"]["first"] is True
    view = render_why(section).splitlines()
    assert view[0].startswith(
        "traceback: a bare AssertionError (an assert without a message) raised in vLLM's"
    )
    assert "LlamaAttention.__init__" in view[0]


def test_a_sentence_naming_the_file_and_a_title_quoting_the_condition() -> None:
    section = explain(_text("sglang2255_being_chunked_req_title"))
    found = section["traceback"]["assert"]
    assert found["condition"] == "self.being_chunked_req is None"
    assert found["when"] == ["adder.new_being_chunked_req is not None"]
    view = render_why(section).splitlines()
    assert view[1].startswith("assert: the quoted assert is SGLang's Scheduler.get_new_batch_prefill")


def test_an_ambiguous_condition_says_the_text_does_not_choose() -> None:
    # not a report: vllm#33074's condition without its title's "DeepseekV32"
    section = explain("AssertionError: num_kv_heads == 1")
    meaning = section["traceback"]["meaning"]
    assert meaning.startswith("the quoted condition `num_kv_heads == 1` is asserted at 5 sites of vLLM (")
    assert "the text does not say which" in meaning
    assert section["traceback"]["fix"].startswith("paste the traceback's last frame to tell them apart")
    assert section["traceback"]["assert"]["ambiguous"] is True


def test_a_sentence_naming_file_and_line_finds_the_release() -> None:
    # sglang#12676: "in line 1839 of python/sglang/srt/managers/scheduler.py"
    found = explain(_text("sglang12676_chunked_req_line_1839"))["traceback"]["assert"]
    assert (found["releases"], found["lines"]) == ("0.5.4.post3", [1839])
    assert found["condition"] == "self.chunked_req is None"


@pytest.mark.xfail(strict=True, reason="the NIXL connector's check of vLLM 0.9.x is in no indexed release")
def test_what_class_b_would_need_for_vllm19338() -> None:
    assert explain(_text("vllm19338_nixl_num_blocks_title")).get("traceback") is not None
