"""`argtrace why` on 25 error texts from public reports it was never tuned on (the 8th batch; texts and URLs
in tests/data/why8/, the first line of each file names the report), as a new user runs it, and the
mechanisms they led to (docs/real_cases.md "`why`, 8th batch", docs/why.md):

- reasons a function hands back instead of printing (``return False, "FA2 is only supported ..."``,
  ``invalid_reasons.append("head_size not supported")``) are indexed as sites of kind ``reason`` and
  explain the message that prints them (``because``);
- ``assert cond, RuntimeError("...")`` is indexed with the exception's text;
- argparse's "invalid choice" is placed on the flag, with its choices per bundled release;
- the same check of two platforms: the one the text names comes first;
- a partial match whose exception class the text contradicts needs twice the characters to be trusted.

Each case asserts the first site, the confidence and exact pieces of the text view; the cases ``why`` still
does not explain are strict ``xfail`` tests of what would, naming the missing mechanism.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from argtrace.commands.why import _attach_reasons, _platform_first, explain, render_why
from argtrace.commands.why_choice import invalid_choice_site
from argtrace.commands.why_confidence import assess
from argtrace.resolver.message_index import sites_of_source

pytestmark = pytest.mark.usefixtures("new_user_machine")

DATA = Path(__file__).parent / "data" / "why8"


def _text(name: str) -> str:
    lines = (DATA / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# https://github.com/")
    return "\n".join(lines[1:])


def _url(name: str) -> str:
    return (DATA / f"{name}.txt").read_text(encoding="utf-8").splitlines()[0].split()[1]


# --- the generator: reasons handed back, an assert's exception text ------------------------------------
def test_a_reason_returned_in_the_ok_reason_idiom_is_a_site() -> None:
    source = (
        "def _is_fa2_supported(device=None):\n"
        "    if torch.cuda.get_device_capability(device)[0] < 8:\n"
        '        return False, "FA2 is only supported on devices with compute capability >= 8"\n'
        "    return True, None\n"
    )
    assert sites_of_source(source, "x.py") == [
        {
            "f": "x.py",
            "l": 3,
            "fn": "_is_fa2_supported",
            "k": "reason",
            "x": "reason",
            "p": ["FA2 is only supported on devices with compute capability >= 8"],
            "c": ["torch.cuda.get_device_capability(device)[0] < 8"],
            "r": [],
        }
    ]


def test_a_reason_appended_to_a_list_of_reasons_is_a_site_and_an_ok_tuple_is_not() -> None:
    source = (
        "class B:\n"
        "    def validate(cls, head_size, cfg):\n"
        "        invalid_reasons = []\n"
        "        if not cls.supports_head_size(head_size):\n"
        '            invalid_reasons.append("head_size not supported")\n'
        "        if cfg.speculative_config.method == 'suffix':\n"
        '            unsupported.append(f"speculative method {cfg.speculative_config.method}")\n'
        '        names.append("not a reason list at all")\n'
        '        return True, "fine, nothing refused here"\n'
    )
    got = [(s["k"], s["p"], s["c"], s["r"]) for s in sites_of_source(source, "x.py")]
    assert got == [
        ("reason", ["head_size not supported"], ["not cls.supports_head_size(head_size)"], []),
        (
            "reason",
            ["speculative method ", ["cfg.speculative_config.method"]],
            ["cfg.speculative_config.method == 'suffix'"],
            ["cfg.speculative_config.method"],
        ),
    ]


def test_an_assert_whose_message_is_an_exception_keeps_the_exceptions_text() -> None:
    # vLLM 0.5-0.6's attention selector (vllm#9096)
    source = (
        "def get_attn_backend(backend):\n"
        "    if backend == _Backend.TORCH_SDPA:\n"
        '        assert is_cpu(), RuntimeError("Torch SDPA backend is only used for the CPU device.")\n'
    )
    (site,) = sites_of_source(source, "x.py")
    assert (site["k"], site["x"], site["p"], site["c"]) == (
        "assert",
        "AssertionError",
        ["Torch SDPA backend is only used for the CPU device."],
        ["backend == _Backend.TORCH_SDPA", "not (is_cpu())"],
    )


# --- matching: a reason under its message, the platform the text names ---------------------------------
def _group(function: str, message: str, kind: str, conditions: list[str], file: str = "x.py") -> dict:
    return {
        "framework": "vllm",
        "function": function,
        "file": file,
        "line": 1,
        "kind": kind,
        "message": message,
        "how": "full",
        "specificity": 51,
        "condition": conditions[-1],
        "conditions": conditions,
        "settings": [],
        "fix": "",
    }


def test_a_reason_goes_under_the_message_that_prints_it() -> None:
    host = _group(
        "CudaPlatformBase.get_attn_backend_cls",
        "Selected backend {selected_backend} is not valid for this configuration. Reason: {invalid_reasons}",
        "raise",
        ["selected_backend is not None", "invalid_reasons"],
    )
    reason = _group(
        "AttentionBackend.validate_configuration",
        "head_size not supported",
        "reason",
        ["not cls.supports_head_size(head_size)"],
    )
    device = _group(
        "_is_fa2_supported",
        "FA2 is only supported on devices with compute capability >= 8",
        "reason",
        ["torch.cuda.get_device_capability(device)[0] < 8"],
    )
    out = _attach_reasons([reason, host])
    assert out == [host]
    assert [r["function"] for r in host["because"]] == ["AttentionBackend.validate_configuration"]
    assert host["fix"] == (
        "AttentionBackend.validate_configuration gives the reason 'head_size not supported' when not "
        "cls.supports_head_size(head_size); or make false: selected_backend is not None"
    )
    log = _group(
        "get_flash_attn_version",
        "Cannot use FA version {fa_version} is not supported due to {fa_version_unsupported_reason(fa_version)}",
        "log",
        ["not is_fa_version_supported(fa_version)"],
    )
    _attach_reasons([device, log])
    assert log["fix"] == (
        "_is_fa2_supported gives the reason 'FA2 is only supported on devices with compute capability >= 8' "
        "when torch.cuda.get_device_capability(device)[0] < 8 (the GPU's compute capability or platform: no "
        "launch setting changes that)"
    )


def test_a_reason_alone_stays_a_match_of_its_own() -> None:
    reason = _group("B.validate", "head_size not supported", "reason", ["not ok"])
    assert _attach_reasons([reason]) == [reason]


def test_the_platform_the_text_names_comes_first_among_equal_sites() -> None:
    cuda = _group("CudaPlatformBase.get_attn_backend_cls", "m", "raise", ["c"], "vllm/platforms/cuda.py")
    rocm = _group("RocmPlatform.get_attn_backend_cls", "m", "raise", ["c"], "vllm/platforms/rocm.py")
    assert _platform_first([cuda, rocm], "AttentionBackendEnum.ROCM_ATTN is not valid") == [rocm, cuda]
    assert _platform_first([cuda, rocm], "AttentionBackendEnum.FLASHINFER is not valid") == [cuda, rocm]


def test_a_partial_match_of_another_exception_class_needs_twice_the_characters() -> None:
    first = {"how": "partial", "specificity": 30, "exception": "NotImplementedError", "kind": "raise"}
    got = assess("RuntimeError: MXFP4 quantization is not supported on gfx942", first)
    assert got == {
        "confidence": "weak",
        "reasons": [
            "the best site shares 30 literal characters with the text (fewer than 40)",
            "only some of its words occur in the text, in order",
            "the text names RuntimeError; the site raises NotImplementedError",
        ],
        "origin": None,
    }
    # the same site fully matched, or with the class the text names, stays strong
    assert assess("RuntimeError: x", {**first, "how": "full"})["confidence"] == "strong"
    assert assess("NotImplementedError: x", first)["confidence"] == "strong"


# --- argparse's "invalid choice" --------------------------------------------------------------------------
def test_an_invalid_choice_names_the_flag_its_choices_and_the_choice_spelled_like_it() -> None:
    site = invalid_choice_site(_text("sglangpr10835_mm_attention_backend_choice"))
    assert site is not None
    assert (site["framework"], site["function"], site["settings"]) == (
        "sglang",
        "ArgumentParser._check_value",
        [
            {
                "name": "mm_attention_backend",
                "flag": "--mm-attention-backend",
                "value": "triton",
                "named_in_text": True,
            }
        ],
    )
    assert site["fix"].startswith(
        "'triton' is not a choice of --mm-attention-backend in any bundled sglang release (0.4.6.post5-0.5.23); "
        "the choices printed are those of sglang 0.5.3.post3-0.5.4.post3; the choice spelled like it: "
        "triton_attn; 'triton' is a choice of --attention-backend, --decode-attention-backend, "
        "--dsa-decode-backend and 11 more (other settings) in sglang 0.5.23"
    )


def test_an_invalid_choice_of_a_flag_no_bundled_release_has_is_no_site() -> None:
    assert invalid_choice_site("error: argument --no-such-flag: invalid choice: 'x' (choose from 'a')") is None
