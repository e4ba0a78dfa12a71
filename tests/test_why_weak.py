"""``why`` on texts that are not SGLang's or vLLM's own (a container runtime, transformers, tokenizers, an
import or loader failure, the CUDA driver, torch.distributed, Ray, pip) says so instead of presenting a
site matched on a few words as where the launch failed; the control group (real framework texts ``why``
sites correctly, reused from tests/test_real_cases*.py) keeps its first site and stays ``strong``.
Texts and their reports: tests/data/why_foreign_texts.json, tests/data/why_control_texts.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from argtrace.commands.why import explain, render_why
from argtrace.commands.why_confidence import STRONG_CHARS, assess, origin_of
from tests.conftest import run_cli

DATA = Path(__file__).parent / "data"
FOREIGN: list[dict[str, Any]] = json.loads((DATA / "why_foreign_texts.json").read_text())
CONTROL: list[dict[str, Any]] = json.loads((DATA / "why_control_texts.json").read_text())


def test_the_measured_counts() -> None:
    # docs/why.md "Weak matches": 15 foreign texts, 32 control texts
    assert (len(FOREIGN), len(CONTROL)) == (15, 32)
    assert [t["expect"]["confidence"] for t in FOREIGN].count("weak") == 7
    assert [t["expect"]["confidence"] for t in FOREIGN].count("none") == 6
    # vllm#10626: vLLM's own NCCL_CHECK raises "NCCL error: ..." (the right site, its class named);
    # GLM-V#107: transformers' own AutoConfig raise, indexed since why's 10th batch
    assert [t["id"] for t in FOREIGN if t["expect"]["confidence"] == "strong"] == ["GLM-V#107", "vllm#10626"]
    assert {t["expect"]["confidence"] for t in CONTROL} == {"strong"}


@pytest.mark.parametrize("case", FOREIGN, ids=lambda c: c["id"])
def test_a_foreign_text_is_not_sited_confidently(case: dict[str, Any]) -> None:
    section = explain(case["text"])
    first = section["matches"][0]["function"] if section["matches"] else None
    origin = section["origin"]["origin"] if section["origin"] else None
    assert (section["confidence"], first, origin) == (
        case["expect"]["confidence"],
        case["expect"]["first"],
        case["expect"]["origin"],
    )


@pytest.mark.parametrize("case", CONTROL, ids=lambda c: c["url"].split("github.com/", 1)[-1])
def test_a_framework_text_keeps_its_first_site(case: dict[str, Any]) -> None:
    section = explain(case["text"])
    first = section["matches"][0]
    assert (section["confidence"], first["framework"], first["function"]) == (
        "strong",
        case["expect"]["framework"],
        case["expect"]["first"],
    )
    assert section["reasons"] == []


def test_the_container_runtime_text_reads_as_not_found() -> None:
    # production-stack#454: the first site was SGLang's diffusion download helper ("not found in")
    section = explain('"vllm": executable file not found in $PATH: unknown')
    assert section["reasons"] == [
        f"the best site shares 10 literal characters with the text (fewer than {STRONG_CHARS})",
        "the text comes from the container runtime (Docker/runc) (its wording)",
    ]
    lines = render_why(section).splitlines()
    # who printed it first: for another program's text that is the answer (bench/first_screens_log_why.py)
    assert lines[:3] == [
        "the text comes from the container runtime (Docker/runc): the image's entrypoint or command is not "
        "on its PATH (its wording: 'executable file not found in $PATH')",
        "no site of SGLang or vLLM matches this text well: the best site shares 10 literal characters "
        "with the text (fewer than 20); the text comes from the container runtime (Docker/runc) "
        "(its wording)",
        "candidates only (matched on words; not where it failed):",
    ]
    assert lines[3].startswith("candidate: sglang: EntryNotFoundError raised in _download_overlay_manifest (")


def test_a_class_the_site_does_not_raise_is_a_sign() -> None:
    # nunif#702: the CUDA driver's message; vLLM's check_cuda_result raises Exception("CUDA error: ...")
    section = explain(
        "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"
    )
    assert section["reasons"][1:] == [
        "the text names RuntimeError; the site raises Exception",
        "the text comes from the CUDA driver (its wording)",
    ]


def test_a_short_site_whose_class_the_text_names_stays_strong() -> None:
    # sglang#16855: 10 literal characters, the right site (the text names the AssertionError it raises)
    section = explain("AssertionError: res=<Response [502]>, res.text=''")
    assert (section["confidence"], section["matches"][0]["function"]) == ("strong", "_execute_server_warmup")
    assert "candidate" not in render_why(section)


def test_origin_from_frames_and_from_a_qualified_class() -> None:
    frames = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3/dist-packages/vllm/engine/arg_utils.py", line 1, in f\n'
        '  File "/usr/lib/python3/dist-packages/transformers/configuration_utils.py", line 2, in g\n'
        "ValueError: x"
    )
    assert origin_of(frames) == {
        "origin": "transformers",
        "basis": "frames",
        "evidence": "innermost frame in transformers/",
    }
    assert origin_of("ray.exceptions.ActorDiedError: The actor died") == {
        "origin": "ray.exceptions",
        "basis": "exception class",
        "evidence": "ray.exceptions.ActorDiedError",
    }
    assert origin_of("vllm.v1.engine.exceptions.EngineDeadError: x") is None


def test_a_partial_short_match_is_weak_without_an_origin() -> None:
    first = {"specificity": 12, "how": "partial", "exception": "ValueError", "kind": "raise", "index": "x"}
    assert assess("some words", first) == {
        "confidence": "weak",
        "reasons": [
            f"the best site shares 12 literal characters with the text (fewer than {STRONG_CHARS})",
            "only some of its words occur in the text, in order",
        ],
        "origin": None,
    }
    assert assess("some words", first | {"specificity": STRONG_CHARS})["confidence"] == "strong"


def test_no_site_and_an_origin_is_said_in_the_note() -> None:
    # vllm#31018: the dynamic loader's message; no site, and no "try a shorter part" (none would match)
    result = run_cli(
        [
            "why",
            "--format",
            "json",
            "ImportError: libcudart.so.12: cannot open shared object file: No such file",
        ]
    )
    assert result.status == 0, result.stderr
    assert (result.json["why"]["confidence"], result.json["why"]["origin"]["basis"]) == ("none", "wording")
    assert result.json["notes"] == [
        "no framework raise or log site matches; the text comes from the dynamic loader, not from SGLang "
        "or vLLM"
    ]
