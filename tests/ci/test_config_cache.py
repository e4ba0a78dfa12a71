"""The parsed configuration files kept between runs (``ci/config_cache.py``): the same text is answered from
the copy without ``tomllib``, an edited text of the same size is parsed again, and what cannot be kept (a
TOML date, a parse error, a corrupt store) never changes the answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from argtrace.ci import config_cache
from argtrace.ci.config import find_config
from argtrace.model import UsageError

CONFIG = 'release = "0.5.23"\ndisable = ["PR011"]\nseverity = { SH004 = "warning" }\n'


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    return root


def _no_tomllib(monkeypatch: pytest.MonkeyPatch) -> None:
    """An import of tomllib (or tomli) from here on fails: only a kept copy can answer."""
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)


def test_same_text_answered_without_tomllib(
    tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".argtrace.toml").write_text(CONFIG)
    first = find_config(tmp_path)
    assert first is not None and first.table == {
        "release": "0.5.23",
        "disable": ["PR011"],
        "severity": {"SH004": "warning"},
    }
    assert [p.name for p in store.iterdir()] == [f"config-{sys.implementation.cache_tag}.marshal"]
    _no_tomllib(monkeypatch)
    again = find_config(tmp_path)
    assert again is not None and again.table == first.table and again.lines == first.lines
    assert again.table is not first.table  # a fresh copy: a caller's change never reaches the next run


def test_edited_text_of_the_same_size_is_parsed_again(tmp_path: Path, store: Path) -> None:
    config = tmp_path / ".argtrace.toml"
    config.write_text(CONFIG)
    assert find_config(tmp_path).table["release"] == "0.5.23"  # type: ignore[union-attr]
    config.write_text(CONFIG.replace("0.5.23", "0.5.22"))
    assert find_config(tmp_path).table["release"] == "0.5.22"  # type: ignore[union-attr]


def test_pyproject_table_from_the_copy(tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.argtrace]\n' + CONFIG)
    assert find_config(tmp_path).header == 3  # type: ignore[union-attr]
    _no_tomllib(monkeypatch)
    config = find_config(tmp_path)
    assert config is not None and config.header == 3 and config.table["disable"] == ["PR011"]


def test_a_date_is_not_kept(tmp_path: Path, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "pyproject.toml").write_text("[tool.x]\nwhen = 2026-12-04\n[tool.argtrace]\n" + CONFIG)
    assert find_config(sub).table["release"] == "0.5.23"  # type: ignore[union-attr]
    _no_tomllib(monkeypatch)
    with pytest.raises(ImportError):
        find_config(sub)


def test_parse_errors_are_raised_every_time(tmp_path: Path, store: Path) -> None:
    (tmp_path / ".argtrace.toml").write_text('release = "0.5.23\n')
    for _ in range(2):
        with pytest.raises(UsageError, match="not valid TOML"):
            find_config(tmp_path)


def test_corrupt_or_foreign_store_is_ignored(tmp_path: Path, store: Path) -> None:
    (tmp_path / ".argtrace.toml").write_text(CONFIG)
    find_config(tmp_path)
    kept = store / f"config-{sys.implementation.cache_tag}.marshal"
    kept.write_bytes(b"\x00garbage")
    assert find_config(tmp_path).table["release"] == "0.5.23"  # type: ignore[union-attr]
    kept.chmod(0o666)  # others may write it: never read
    assert config_cache.lookup(tmp_path / ".argtrace.toml", CONFIG) is None


def test_only_the_newest_files_are_kept(tmp_path: Path, store: Path) -> None:
    for i in range(config_cache.MAX_FILES + 2):
        (tmp_path / f"p{i}").mkdir()
        (tmp_path / f"p{i}" / ".argtrace.toml").write_text(CONFIG)
        find_config(tmp_path / f"p{i}")
    assert config_cache.lookup(tmp_path / "p0" / ".argtrace.toml", CONFIG) is None
    last = tmp_path / f"p{config_cache.MAX_FILES + 1}" / ".argtrace.toml"
    assert config_cache.lookup(last, CONFIG) == {
        "release": "0.5.23",
        "disable": ["PR011"],
        "severity": {"SH004": "warning"},
    }
