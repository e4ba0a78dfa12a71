"""The regular expressions' compiled programs kept between runs (regex_code.py): a pattern made from the
store equals the one ``re`` makes (``Pattern.__eq__`` compares flags, text and every program word), a second
process compiles nothing, and a store that is corrupt, damaged, of another build or writable by others is
ignored."""

from __future__ import annotations

import marshal
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace import regex_code
from argtrace.cache_dirs import with_crc

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="Python 3.10 has no re._compiler")

PATTERNS: list[tuple[str | bytes, int]] = [
    (r"--(?P<flag>[a-z][a-z0-9-]*)(?:=(?P<value>\S+))?", 0),
    (r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=", re.MULTILINE),
    (r"(?<![\w-])cuda_visible_devices", re.IGNORECASE),
    (
        r"""
        (?P<major>\d+) \. (?P<minor>\d+)   # a release
        (?:\.post(?P<post>\d+))?
     """,
        re.VERBOSE,
    ),
    (rb"\x1b\[[0-9;]*m", 0),
    (r"[^\W\d_]+", re.ASCII),
    (r"(a|b)*?c{2,5}[ä-ü]", 0),
]


def _compile_all() -> list[Any]:
    re.purge()  # re's own per-process cache would answer before the store is asked
    return [re.compile(text, flags) for text, flags in PATTERNS]


def test_patterns_made_from_the_store_equal_res_own(tmp_path: Path) -> None:
    path = str(tmp_path / "re.marshal")
    with regex_code.kept(path) as first:
        made = _compile_all()
    assert first is not None and len(first.new) == len(PATTERNS)
    with regex_code.kept(path) as second:
        again = _compile_all()
    assert second is not None and second.new == {} and len(second.used) == len(PATTERNS)
    re.purge()
    own = [re.compile(text, flags) for text, flags in PATTERNS]
    assert again == made == own
    assert [p.groupindex for p in again] == [p.groupindex for p in own]
    m = again[0].match("--tp-size=4")
    assert m is not None and (m["flag"], m["value"]) == ("tp-size", "4")


def test_re_is_itself_again_after_the_store_ends(tmp_path: Path) -> None:
    from re import _compiler  # type: ignore[attr-defined]

    original = _compiler.compile
    with regex_code.kept(str(tmp_path / "a")) as outer:
        assert outer is not None and _compiler.compile == outer.compile
        with regex_code.kept(str(tmp_path / "b")) as inner:
            assert inner is outer
    assert _compiler.compile is original
    assert not (tmp_path / "b").exists()


def test_debug_patterns_and_errors_pass_through(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with regex_code.kept(str(tmp_path / "re.marshal")) as store:
        re.purge()
        try:
            re.compile("(unclosed")
        except re.error as exc:
            message = str(exc)
        re.compile("a+b", re.DEBUG)  # re prints the parse: never kept, so it prints on every run
        assert store is not None and store.new == {}
    assert message == "missing ), unterminated subpattern at position 0"
    assert "MAX_REPEAT 1 MAXREPEAT" in capsys.readouterr().out


RUN: dict[str, Any] = {"capture_output": True, "text": True, "check": True}


def test_a_second_process_compiles_nothing(tmp_path: Path) -> None:
    store = str(tmp_path / "re.marshal")
    script = (
        "import sys\nfrom argtrace import regex_code\nfrom tests.test_regex_code import _compile_all\n"
        "with regex_code.kept(sys.argv[1]) as store:\n    _compile_all()\n"
        "print(len(store.new), len(store.used))\n"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script, store], env=env, capture_output=True, text=True, check=True
        )
        for _ in range(2)
    ]
    assert [run.stdout.split() for run in runs] == [["7", "7"], ["0", "7"]]


def test_a_corrupt_damaged_foreign_or_shared_store_is_ignored(tmp_path: Path) -> None:
    store = tmp_path / "re.marshal"
    with regex_code.kept(str(store)):
        _compile_all()
    programs = regex_code._read(str(store))
    assert len(programs) == len(PATTERNS)

    os.chmod(store, 0o666)  # others could have written into it
    assert regex_code._read(str(store)) == {}
    os.chmod(store, 0o600)
    assert regex_code._read(str(store)) == programs

    store.write_bytes(marshal.dumps(("another build", programs)))
    assert regex_code._read(str(store)) == {}
    store.write_bytes(b"\x01not marshal")
    assert regex_code._read(str(store)) == {}

    # a program _sre refuses (an opcode out of range) is compiled anew, as re would
    key = (PATTERNS[0][0], PATTERNS[0][1])
    flags, _code, groups, groupindex, indexgroup = programs[key]
    damaged = {**programs, key: regex_code.packed((flags, [999999, 1, 2], groups, groupindex, indexgroup))}
    store.write_bytes(with_crc(marshal.dumps((regex_code._build(), damaged))))  # damaged before it was sealed
    os.chmod(store, 0o600)
    with regex_code.kept(str(store)) as again:
        made = _compile_all()
    assert again is not None and list(again.new) == [key]
    re.purge()
    assert made[0] == re.compile(str(PATTERNS[0][0]), PATTERNS[0][1])


def test_each_command_has_its_own_store_and_the_switch_turns_it_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(tmp_path))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    tag = sys.implementation.cache_tag
    assert regex_code.store_path("check") == str(tmp_path / f"regex-code-check-{tag}.marshal")
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    with regex_code.kept() as store:
        assert store is None


def test_a_store_read_ahead_serves_the_first_store_of_its_file_while_unchanged(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A warm process reads each command's store ahead (argtrace/warm/): a child's first store of that
    file takes the programs without reading the file; a second store, or the file rewritten, reads it."""
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(tmp_path))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    monkeypatch.setattr(regex_code, "_read_ahead", {})
    path = regex_code.store_path("check")
    assert path is not None
    with regex_code.kept(command="check"):
        made = _compile_all()
    regex_code.read_ahead("check")
    regex_code.read_ahead("log")  # no store for it yet: nothing read
    assert list(regex_code._read_ahead) == [path]
    ahead = regex_code._read_ahead[path][1]
    reads = []
    real_read = regex_code._read
    monkeypatch.setattr(regex_code, "_read", lambda p: reads.append(p) or real_read(p))
    with regex_code.kept(command="check") as store:
        assert _compile_all() == made
        assert store is not None and store.programs is ahead and not store.new
    assert reads == [] and regex_code._read_ahead == {}
    with regex_code.kept(command="check") as store:
        assert _compile_all() == made
    assert reads == [path]
    regex_code.read_ahead("check")
    assert reads == [path, path]
    os.utime(path, ns=(1, 1))  # the file changed under it: read again, the copy ahead dropped
    with regex_code.kept(command="check") as store:
        assert _compile_all() == made
    assert reads == [path, path, path] and regex_code._read_ahead == {}
