"""Lines of working launches that a user may paste into ``argtrace why`` (docs/real_cases.md, "Logs of working
launches, 2nd"): the site matcher (layers/log/messages.py) on variants none of the reports holds."""

from __future__ import annotations

import pytest

from argtrace.layers.log.messages import COVERAGE, MIN_PARTIAL, match_text, named_packages

pytestmark = pytest.mark.usefixtures("new_user_machine")


def test_a_short_template_inside_a_longer_line_does_not_explain_it() -> None:
    # "{header} not found" (8 literal characters) is SGLang's assertion; a library's "... not found, using
    # ..." line is not it
    got = match_text("Cached kernels not found, building them from source now")
    assert [m for m in got if m.site.template == "{header} not found"] == []
    assert all(m.specificity >= MIN_PARTIAL or m.score >= COVERAGE for m in got)


def test_a_short_template_that_is_the_whole_line_still_explains_it() -> None:
    got = match_text("mma_sm100_utils.cuh not found")
    assert any(m.site.template == "{header} not found" for m in got)


@pytest.mark.parametrize(
    ("module", "file"),
    [
        ("sglang.srt.models.some_new_model", "sglang/srt/models/registry.py"),
        ("sglang.srt.dllm.algorithm.some_algorithm", "sglang/srt/dllm/algorithm/__init__.py"),
    ],
)
def test_the_module_a_message_names_picks_its_package(module: str, file: str) -> None:
    got = match_text(f"Ignore import error when loading {module}: No module named 'somepkg'")
    assert got[0].site.file == file


def test_named_packages() -> None:
    text = "loading sglang.srt.models.x and vllm.model_executor.layers.y, not sglang.srt"
    assert named_packages(text) == {"sglang/srt/models/x", "vllm/model_executor/layers/y"}
