"""The recorder names the condition guarding each write: a normalisation reads only the field it writes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from argtrace.resolver.record import annotate_conditions

SOURCE = """\
class ServerArgs:
    def _handle_speculative_decoding(self):
        if self.speculative_algorithm == "NEXTN":
            self.speculative_algorithm = "EAGLE"
        if self.speculative_algorithm is not None:
            if self.max_running_requests is None:
                self.max_running_requests = 48
        else:
            self.disable_overlap_schedule = False
        self.device = "cuda"
        if self.max_running_requests > 4096:
            self.max_running_requests = 4096
"""


@pytest.fixture
def fake_framework(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "fw" / "srt"
    package.mkdir(parents=True)
    (package / "server_args.py").write_text(SOURCE)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    return package


def test_conditions_and_the_fields_they_read(fake_framework: Path) -> None:
    writes = [{"at": f"fw/srt/server_args.py:{line}"} for line in (4, 7, 9, 10, 12)]
    writes.append({"at": "fw/srt/missing.py:3"})
    annotate_conditions(writes)
    assert [
        (w.get("condition"), w.get("condition_fields"), w.get("condition_matches_value")) for w in writes
    ] == [
        ("self.speculative_algorithm == 'NEXTN'", ["speculative_algorithm"], True),
        ("self.max_running_requests is None", ["max_running_requests"], False),
        ("not self.speculative_algorithm is not None", ["speculative_algorithm"], False),
        (None, [], None),
        ("self.max_running_requests > 4096", ["max_running_requests"], False),
        (None, None, None),
    ]
