"""What the safe33 probe of session 32's additions found (docs/reliability.md "Session 32 (safe33)"), as exact
tests: a ``--gpu`` line behind a long blank run, a store of compiled methods whose CRC-32 holds but whose
entries could not have been written for their keys, and ``bash -n`` killed by a signal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code, gpus
from argtrace.cache_dirs import dumps_checked, loads_checked
from argtrace.layers.shell.syntax import SyntaxProblem, _problems
from tests.test_dataclass_code32 import BY_KEY, build, describe

LINE = "NVIDIA GeForce RTX 4070 Ti SUPER, 16376 MiB, 8.9"


def test_a_described_line_is_read_around_blanks_and_refused_past_any_such_line() -> None:
    match = gpus._described_match(f"  \t{LINE.replace(', ', ' ,  ')} x 2 \n")
    assert match is not None
    assert match.groupdict() == {
        "name": "NVIDIA GeForce RTX 4070 Ti SUPER",
        "mib": "16376",
        "major": "8",
        "minor": "9",
        "count": "2",
    }
    # 120,000 spaces before the line: the old pattern's leading \s* and the name's own spaces tried every
    # split (quadratic: 20,000 spaces 2 s, an argument's 128 KiB about 90 s); now stripped, and a text longer
    # than any nvidia-smi line is none
    stripped = gpus._described_match(" " * 120_000 + LINE)  # blanks around are stripped
    assert stripped is not None and stripped.group(0) == LINE
    assert gpus._described_match(" " * 120_000 + "x") is None
    assert gpus._described_match(" " * 120_000 + LINE.replace("8.9", "x")) is None  # (gpus-3302-1)
    assert gpus._described_match("x" * 300 + ", 16376 MiB, 8.9") is None
    assert gpus._described_match("a" * 120_000 + LINE) is None
    with pytest.raises(ValueError, match="unknown GPU profile"):
        gpus.parse_gpu_spec(" " * 1000 + "x")
    assert gpus.count_given(" " * 120_000 + LINE + "x2") is True


def test_the_pattern_is_not_tried_past_its_first_character() -> None:
    # matched whole (fullmatch) against the stripped text: nothing may lead with a blank run
    pattern = gpus._DESCRIBED.pattern
    assert not pattern.startswith(("^", r"\s")) and pattern.startswith(r"(?:(?P<name>[^,\s]")


def _hostile(store: Path, how: str) -> None:
    """Rewrite the store's __init__ and frozen-pair entries ``how``, behind a CRC-32 that holds."""
    texts, named = dataclass_code._read_all(str(store))
    codes: dict[Any, Any] = dict(texts)
    for key, entry in named.items():
        if key[0] == "__init__":
            recipe = entry[1:]
            entry = {
                "past the fields": (entry[0], *[999] * len(recipe)),
                "past the constants": (entry[0], *[-99] * len(recipe)),
                "no recipe": (entry[0],),
                "twice the recipe": (entry[0], *recipe, *recipe),
                "too big for an index": (entry[0], *[10**30] * len(recipe)),
                "a default the field lacks": (entry[0], *[1] * len(recipe)),
                "another method's code": (named[("__repr__", *key[6 : 6 + 2 * key[5] : 2])][0], *recipe),
            }.get(how, entry)
        elif key[0] == "__setattr__" and how == "one of the frozen pair":
            entry = entry[:1]
        elif key[0] == "__repr__" and how == "an __init__'s code for __repr__":
            entry = next(e for k, e in named.items() if k[0] == "__init__")[:1]
        codes[key] = entry
    data = dumps_checked((dataclass_code._build(), codes))
    assert data is not None
    store.write_bytes(data)


HOSTILE = [
    "past the fields",
    "past the constants",
    "no recipe",
    "twice the recipe",
    "too big for an index",
    "a default the field lacks",
    "another method's code",
    "one of the frozen pair",
    "an __init__'s code for __repr__",
]


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text, kept by text")
@pytest.mark.parametrize("how", HOSTILE)
def test_an_entry_that_could_not_be_written_for_its_key_is_ignored(how: str, tmp_path: Path) -> None:
    # before: IndexError or TypeError inside dataclasses, an internal error of every command
    store = tmp_path / "dataclass-code-check.marshal"
    build(store, prefix=f"probe33_{HOSTILE.index(how)}")
    whole = dataclass_code._read(str(store))
    _hostile(store, how)
    kept = dataclass_code._read(str(store))
    assert len(kept) < len(whole)  # the entries rewritten are left out, the others kept
    made = build(store, prefix=f"probe33_{HOSTILE.index(how)}")
    plain = build(None, prefix=f"probe33_{HOSTILE.index(how)}")
    assert {name: describe(cls) for name, cls in made.items()} == {
        name: describe(cls) for name, cls in plain.items()
    }


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text, kept by text")
def test_every_entry_a_run_writes_is_kept(tmp_path: Path) -> None:
    store = tmp_path / "dataclass-code-check.marshal"
    build(store, prefix="probe33_whole")
    stored = loads_checked(store.read_bytes())
    assert isinstance(stored, tuple)
    assert set(dataclass_code._read(str(store))) == set(stored[1])


def test_bash_killed_by_a_signal_is_said_so() -> None:
    crashed = (
        "bash -n was killed by signal 11 while parsing it (bash's own parser crashed, as on commands nested "
        "thousands deep; bash parses the script the same way before running it)"
    )
    assert _problems(-11, b"") == [SyntaxProblem(None, crashed)]
    assert _problems(139, b"") == [SyntaxProblem(None, crashed)]  # through a remote shell
    assert _problems(2, b"") == [SyntaxProblem(None, "bash -n reported a syntax error")]
    assert _problems(0, b"") == []
