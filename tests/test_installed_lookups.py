"""One command reads the installed release from the same files once (frameworks/installed.remembered,
issue 18): the check and each fix re-check ask the same interpreter for the same framework."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argtrace import overlay
from argtrace.frameworks import installed, site_packages
from tests.conftest import run_cli

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh"


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    calls: list[tuple[Any, ...]] = []
    real = site_packages.installed_version

    def counted(*args: Any, **kwargs: Any) -> site_packages.Lookup:
        calls.append((*args, *sorted(kwargs.items())))
        return real(*args, **kwargs)

    monkeypatch.setattr(site_packages, "installed_version", counted)
    yield calls


PYTHON = sys.executable


def test_a_check_and_its_fix_rechecks_read_the_installed_release_once(lookups: list[Any]) -> None:
    result = run_cli(["check", "--format", "json", "--no-resolve", str(EXAMPLE)])
    findings = json.loads(result.stdout)["findings"]
    assert sum(1 for f in findings if f.get("fix_verified") is not None) >= 2  # re-checks ran
    assert len(lookups) == 1


def test_outside_a_command_each_lookup_reads_the_files(lookups: list[Any]) -> None:
    first = installed.installed_framework_version("sglang", python=PYTHON)
    second = installed.installed_framework_version("sglang", python=PYTHON)
    assert first == second
    assert len(lookups) == 2


def test_within_a_command_another_environment_or_framework_is_read_again(lookups: list[Any]) -> None:
    flags = site_packages.Flags()
    with installed.remembered():
        installed.installed_framework_version("sglang", python=PYTHON)
        installed.installed_framework_version("sglang", python=PYTHON)
        installed.installed_framework_version("vllm", python=PYTHON)
        installed._lookup(PYTHON, "sglang", {"PYTHONPATH": "/elsewhere"}, None, flags)
        installed._lookup(PYTHON, "sglang", {}, "/tmp", flags)
        installed._lookup(PYTHON, "sglang", {}, None, site_packages.Flags(no_site=True))
        installed._lookup(PYTHON, "sglang", {"PYTHONPATH": "/elsewhere"}, None, flags)
        # a name the lookup does not read changes nothing; one it reads (PYTHONPATH) does
        installed._lookup(PYTHON, "sglang", {"PYTHONPATH": "/elsewhere", "SHLVL": "2"}, None, flags)
        installed._lookup(PYTHON, "sglang", {"PYTHONPATH": "/other"}, None, flags)
    assert [(call[1], dict(call[2]), call[3]) for call in lookups] == [
        ("sglang", {}, None),
        ("vllm", {}, None),
        ("sglang", {"PYTHONPATH": "/elsewhere"}, None),
        ("sglang", {}, "/tmp"),
        ("sglang", {}, None),
        ("sglang", {"PYTHONPATH": "/other"}, None),
    ]


def test_a_lookup_while_an_edited_file_is_read_is_not_remembered(lookups: list[Any], tmp_path: Path) -> None:
    with installed.remembered():
        with overlay.overlay({str(tmp_path / "cfg.yaml"): b"x: 1\n"}):
            assert overlay.active()
            installed.installed_framework_version("sglang", python=PYTHON)
        installed.installed_framework_version("sglang", python=PYTHON)
        installed.installed_framework_version("sglang", python=PYTHON)
    assert not overlay.active()
    assert len(lookups) == 2
