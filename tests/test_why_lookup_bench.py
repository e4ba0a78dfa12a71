"""`why`'s lookup file (`resolver/message_lookup.py`, issue 18) end to end: the console script gives the same
answer on every why batch text with the lookup as with every site scanned (``bench/why_speed.py --check``).

Apart from tests/test_why_lookup.py (the sites the prefilter keeps against the full scan's, in-process)
because each is one of the suite's longest runs: under ``--dist loadscope`` a module runs on one worker, and
the two together were one worker's tail.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_bench_check_finds_the_same_answers_with_and_without_the_lookup() -> None:
    # CI's short run of bench/why_speed.py --check: the console script on 20 why batch texts spread over
    # the batches (JSON; 6 of them as text), against ARGTRACE_NO_LOOKUP=1 (every site scanned); it fails on
    # a different answer only, never on time. Every text's kept sites are compared in process by
    # tests/test_why_lookup.py; the bench's full --check (75 texts, 174 runs, ~150 s) is for a change to
    # the lookup itself.
    done = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "why_speed.py"),
            "--check",
            "--texts",
            "6",
            "--check-texts",
            "20",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1] == "20 texts (JSON), 6 of them also as text: same answers"
