"""The fast paths of the log scan give the slow path's answer on the working launches' logs of the 2nd
collection too (tests/data/logs_ok2: journald, container times, nested process tags, lines broken in two,
KServe's lines between vLLM's), plain and gzip-compressed: the same comparison as test_fast_equals_slow.py."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from argtrace.layers.log.prefilter import gnu_grep
from tests.log.test_fast_equals_slow import _answers

LOGS = Path(__file__).resolve().parents[1] / "data" / "logs_ok2"
NAMES = sorted(str(p.relative_to(LOGS)) for p in LOGS.rglob("*.log"))

pytestmark = pytest.mark.skipif(gnu_grep() is None, reason="needs GNU grep")


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gz"])
@pytest.mark.parametrize("name", NAMES)
def test_every_path_gives_the_same_report(
    name: str, compress: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (LOGS / name).read_bytes()
    path = tmp_path / ("log.log.gz" if compress else "log.log")
    path.write_bytes(gzip.compress(data) if compress else data)
    answers = _answers(path, monkeypatch)
    slow = answers.pop("python")
    assert answers  # a fast path ran
    for fast_path, report in answers.items():
        assert report == slow, fast_path
