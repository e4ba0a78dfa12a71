"""`argtrace why`'s first screen at 80 columns: the best site, its fix in full, what the answer rests on.

bench/first_screens_log_why.py measured the why batches (docs/real_cases.md, "First screens of `log` and
`why`"): the site's headline ran over the screen's width on 114 of 117 texts, each release's place of the site
("in: 0.7.3 (...), 0.8.5.post1 (...), ...") took up to 16 lines above the fix, the terminal broke the
indented lines back to column 0, and the notes repeated the view's first lines above it. These are the exact
first lines of three texts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import quoted_text, run_cli

DATA = Path(__file__).parent / "data" / "why_10"


def screen(monkeypatch: pytest.MonkeyPatch, text: str, lines: int) -> list[str]:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(["why", text])
    assert result.status == 0, result.stderr
    return result.stdout.splitlines()[:lines]


def test_the_site_its_condition_its_setting_and_the_change(monkeypatch: pytest.MonkeyPatch) -> None:
    # vllm#2847 (batch 8); the headline no longer fits with the file's name: the place gets its own line
    assert screen(monkeypatch, "ValueError: LoRA rank 64 is greater than max_lora_rank 16.", 10) == [
        "argtrace why",
        "vllm: ValueError raised in WorkerLoRAManager._load_adapter",
        "  at: vllm/lora/worker_manager.py:121",
        "  message: LoRA rank {lora.rank} is greater than max_lora_rank",
        "           {self.lora_config.max_lora_rank}.",
        "  when: lora.rank > self.lora_config.max_lora_rank",
        "  reads: max_lora_rank (--max-lora-rank)",
        "  fix: make the condition false (lora.rank > self.lora_config.max_lora_rank):",
        "       change --max-lora-rank",
        "  rests on: match 1.00 (32 chars), strong; in 0.5.2-0.6.6.post1",
    ]


def test_the_fix_is_whole_and_the_release_list_is_not_above_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # NeMo Skills#1059 (batch 1): the fix began on line 18, under the releases' places; now on line 12, whole
    got = screen(
        monkeypatch,
        "Value error, Tensor parallel size (16) cannot be larger than the number of available GPUs (8)",
        19,
    )
    assert got[1] == "vllm: ValueError raised in ParallelConfig.__post_init__ (parallel.py:564)"
    fix = got.index("  fix: the condition current_platform.is_cuda() and")
    assert fix == 11
    assert got[fix + 5 :] == [
        "       --nnodes, --pipeline-parallel-size, --prefill-context-parallel-size,",
        "       --tensor-parallel-size",
        "  rests on: match 0.95 (60 chars), strong; in 0.11.2-0.12.0",
    ]
    assert not any(line.startswith("  in: ") for line in got)


def test_another_programs_text_says_whose_it_is_first(monkeypatch: pytest.MonkeyPatch) -> None:
    # buun-llama-cpp#123 (why batch 10): who printed it is the answer; the reasons say it again, after it
    text = quoted_text(DATA / "buunllama123_glm5next_journald.txt")
    assert screen(monkeypatch, text, 8) == [
        "argtrace why",
        "the text comes from llama.cpp (llama-server, Ollama's runner, its bindings), not",
        "  SGLang or vLLM: the build does not know the model's architecture (a newer",
        "  build does) (its wording: 'llama_model_load:')",
        "no site of SGLang or vLLM matches this text well: the best site shares 18",
        "  literal characters with the text (fewer than 40); only some of its words occur",
        "  in the text, in order; the text comes from llama.cpp (llama-server, Ollama's…",
        "candidates only (matched on words; not where it failed):",
    ]


def test_the_notes_follow_the_view(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    out = run_cli(["why", "zzqx frobnicated the wibble"]).stdout.splitlines()
    notes = [n for n, line in enumerate(out) if line.startswith("note: ")]
    assert notes and notes[0] > 1 and out[1].startswith("no framework raise or log site matches")
