"""PA007 when the abbreviated word is a flag of its own in other releases, for another setting.

limJhyeok/s1-clone ``scripts/vllm_deepseek.sh`` (a real launch script) passes ``vllm serve ... --device
cuda``: vLLM's device type up to 0.9.2. In 0.30.0 no ``--device`` exists and argparse takes the word as an
abbreviation of ``--device-ids`` (the GPUs to use), so ``cuda`` lands there; 0.33.0 has two flags starting
with it and refuses. Before, PA007 said to "write --device-ids in full", an edit that keeps the value in the
wrong setting.
"""

from __future__ import annotations

import json

from tests.conftest import run_cli

LAUNCH = (
    "vllm serve deepseek-ai/DeepSeek-R1-Distill-Qwen-7B --device cuda --dtype auto --seed 42 "
    "--max-model-len 16384 --gpu-memory-utilization 0.9 --max-num-seqs 1 --disable-log-stats --port 8000"
)


def _pa007(*options: str) -> list[tuple[str, str, str | None, bool | None]]:
    done = run_cli(["check", "--format", "json", "--no-shellcheck", *options, "-c", LAUNCH])
    assert done.status in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return [
        (f["severity"], f["message"], f.get("fix"), bool(f.get("fix_edits")))
        for f in report["findings"]
        if f["code"] == "PA007"
    ]


def test_a_former_flag_of_another_setting_is_named_and_not_completed() -> None:
    assert _pa007("--framework-version", "0.30.0") == [
        (
            "warning",
            "--device is vllm 0.9.2's flag for device, not a vllm 0.30.0 flag: argparse silently takes it "
            "as an abbreviation of --device-ids, another setting, so device_ids is set with 'cuda'; in vllm "
            "0.33.0 it is ambiguous and the server refuses to start",
            "remove --device and its value (vllm 0.30.0 has no device setting), or run 0.9.2",
            False,  # no edit: writing --device-ids in full would keep `cuda` in the wrong setting
        )
    ]


def test_on_the_release_that_has_it_the_flag_is_its_own() -> None:
    assert _pa007("--framework-version", "0.9.2") == []
