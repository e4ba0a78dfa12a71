"""The Mamba radix-cache refusal (RS001): the framework's own resolution, re-run, picks the fix.

Qwen3.5-style hybrids accept ``extra_buffer``; NemotronH does not (SGLang 0.5.10.post1 asserts
``mamba extra_buffer is not supported for NemotronHForCausalLM model`` in ``_handle_mamba_radix_cache``), so
there the fix is ``--disable-radix-cache`` and the text says why (issue 13: a model whose framework check
rejects extra_buffer was told to use it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli

pytestmark = pytest.mark.frameworks
SPEC = (
    "--speculative-algorithm EAGLE --speculative-draft-model-path /models/nem --speculative-num-steps 3 "
    "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
)


def test_nemotron_h_gets_disable_radix_cache_because_its_check_refuses_extra_buffer(tmp_path: Path) -> None:
    from tests.needs import unmet

    if unmet(["resolver:sglang==0.5.10.post1"]):
        pytest.skip("needs resolver:sglang==0.5.10.post1")
    command = f"python3 -m sglang.launch_server --model-path /models/nem {SPEC}"
    argv = [
        "--model-config",
        str(REPO / "tests/data/models/nemotron-h-8b"),
        "--gpu",
        "h100",
        "--framework-version",
        "0.5.10.post1",
        "-c",
        command,
    ]
    check = run_cli(["check", "--format", "json", *argv], cwd=tmp_path)
    rs001 = [f for f in check.json["findings"] if f["code"] == "RS001"]
    # one raise is one finding (argtrace.causes): the other settings its condition read are its evidence
    assert [f["setting"] for f in rs001] == ["mamba_scheduler_strategy"]
    evidence = " ".join(e["text"] for e in rs001[0]["evidence"])
    assert "reads disable_radix_cache" in evidence and "reads speculative_algorithm" in evidence
    for finding in rs001:
        assert finding["fix_edits"] == [
            {
                "file": "<-c>",
                "start": f"1:{len(command) + 1}",
                "end": f"1:{len(command) + 1}",
                "replacement": " --disable-radix-cache",
            }
        ]
        assert finding["fix_verified"] is True
        assert finding["fix"] == (
            "Add --disable-radix-cache to the server command at <-c>:1 (no prefix reuse between requests: "
            "every prompt is prefilled in full); the framework's own check, re-run, refuses extra_buffer for "
            "this model and release."
        )
