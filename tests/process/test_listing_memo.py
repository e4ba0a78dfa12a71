"""The directory listings a check repeats (site-packages' distributions, the schema files) are kept per
modification time of the directory (issue 18): an install, an uninstall or a new schema is seen at once,
and a directory changed in the last two seconds is not kept at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from argtrace.frameworks import site_packages
from argtrace.frameworks.schema import _schema_files
from argtrace.remote.host import LocalHost

OLD = 1_600_000_000  # seconds: a modification time well in the past, so the listing is kept


def _age(directory: Path, seconds: int) -> None:
    os.utime(directory, (seconds, seconds))


def test_a_distribution_installed_after_a_lookup_is_found(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    (site / "sglang-0.5.9.dist-info").mkdir(parents=True)
    (site / "numpy-2.0.0.dist-info").mkdir()
    _age(site, OLD)
    files = site_packages.HostFiles(LocalHost())
    found = site_packages._find(files, [str(site)], "sglang")
    assert found is not None and found.version == "0.5.9"
    assert site_packages._DIST_INDEX[str(site)][0] == OLD * 10**9  # kept: the directory is old
    # pip upgrades it: the old record goes, a new one comes; the directory's time changes
    (site / "sglang-0.5.9.dist-info").rmdir()
    (site / "sglang-0.5.10.dist-info").mkdir()
    _age(site, OLD + 60)
    found = site_packages._find(files, [str(site)], "SGLang")
    assert found is not None and found.version == "0.5.10"
    (site / "sglang-0.5.10.dist-info").rmdir()
    _age(site, OLD + 120)
    assert site_packages._find(files, [str(site)], "sglang") is None


def test_a_directory_changed_just_now_is_not_kept(tmp_path: Path) -> None:
    site = tmp_path / "site-packages"
    (site / "vllm-0.33.0.dist-info").mkdir(parents=True)
    files = site_packages.HostFiles(LocalHost())
    found = site_packages._find(files, [str(site)], "vllm")
    assert found is not None and found.version == "0.33.0"
    assert str(site) not in site_packages._DIST_INDEX
    # a second install within the same timestamp tick would not change the time: read again anyway
    (site / "vllm-0.33.0.dist-info").rmdir()
    (site / "vllm-0.34.0.dist-info").mkdir()
    st = (site).stat()
    os.utime(site, ns=(st.st_atime_ns, st.st_mtime_ns))
    found = site_packages._find(files, [str(site)], "vllm")
    assert found is not None and found.version == "0.34.0"


def test_a_schema_generated_after_a_listing_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path))
    user = tmp_path / "schemas"
    user.mkdir()
    _age(user, OLD)
    before = _schema_files("sglang")
    assert "9.9.9" not in before and before  # the bundled releases are listed
    (user / "sglang-9.9.9.json").write_text("{}")
    _age(user, OLD + 60)
    after = _schema_files("sglang")
    assert after["9.9.9"] == user / "sglang-9.9.9.json"
    assert {v: p for v, p in after.items() if v != "9.9.9"} == before
    (user / "sglang-9.9.9.json").unlink()
    _age(user, OLD + 120)
    assert _schema_files("sglang") == before
    # written just now (the timestamp may not move for the next file): listed afresh every time
    (user / "sglang-9.9.8.json").write_text("{}")
    assert "9.9.8" in _schema_files("sglang")
    (user / "sglang-9.9.8.json").unlink()
    os.utime(user, ns=(user.stat().st_atime_ns, user.stat().st_mtime_ns))
    assert "9.9.8" not in _schema_files("sglang")
