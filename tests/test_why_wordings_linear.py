"""``why`` reads other programs' wordings (``why_confidence.FOREIGN_WORDINGS``, the toolchain's and the
environment's among them) by searching the whole pasted text. A pattern that begins with an unbounded
repetition (``\\S+ ...``, ``[^\\s:]*\\.so ...``) is tried at every character and runs to the end of the word
each time: quadratic in a long word (a base64 blob, a pasted line without spaces). Two did: 20,000 characters
took 1.7-3.3 s of regex search, 50,000 about 20 s. Such a pattern must start where a word starts (a
lookbehind); the test reads each pattern's parse tree rather than timing it (tests never assert on time)."""

from __future__ import annotations

import random
import re
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any

import pytest

from argtrace.commands.why_confidence import FOREIGN_WORDINGS

_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)


def leads_with_unbounded_repeat(items: list[tuple[Any, Any]]) -> bool:
    """Whether a match attempt can begin by repeating without bound (an optional part may be skipped and the
    next one lead); a lookbehind, an anchor or a literal first ends the question."""
    for op, av in items:
        if op in _REPEATS:
            low, high, sub = av
            if high == sre.MAXREPEAT or leads_with_unbounded_repeat(list(sub)):
                return True
            if low > 0:
                return False
            continue
        if op == sre.SUBPATTERN:
            return leads_with_unbounded_repeat(list(av[-1]))
        if op == sre.BRANCH:
            return any(leads_with_unbounded_repeat(list(branch)) for branch in av[1])
        if op == sre.ATOMIC_GROUP:
            return leads_with_unbounded_repeat(list(av))
        return False
    return False


def test_the_detector_knows_both_shapes_that_were_quadratic() -> None:
    for pattern in (r"(?:[^\s:'\"]*\.so[.\d]*: )?undefined symbol: \S+", r"\S+ [\w.+!-]+ requires"):
        assert leads_with_unbounded_repeat(list(sre_parse.parse(pattern)))
    for pattern in (r"(?<!\S)\S+ requires", r"undefined symbol: \S+", r"^\S+ x", r"(?:ab)?\S+x" ""):
        assert leads_with_unbounded_repeat(list(sre_parse.parse(pattern))) == (pattern == r"(?:ab)?\S+x")


def _named(wording: Any) -> str:
    return str(wording.source.rsplit("/", 3)[-3] + "#" + wording.source.rsplit("/", 1)[-1])


@pytest.mark.parametrize("wording", FOREIGN_WORDINGS, ids=_named)
def test_no_wording_starts_with_an_unbounded_repeat(wording: Any) -> None:
    assert not leads_with_unbounded_repeat(list(sre_parse.parse(wording.pattern))), wording.pattern


OLD_SO = r"(?:[^\s:'\"]*\.so[.\d]*: )?undefined symbol: \S+"
OLD_PIP = r"\S+ [\w.+!-]+ requires [^\n]+?, but you have \S+ [\w.+!-]+ which is incompatible"
PIECES = [
    "/usr/lib/libc10.so",
    ".so",
    ".so.12: ",
    ": ",
    "undefined symbol: ",
    "_ZN3c104cuda9SetDeviceEi",
    " ",
    "\n",
    "'",
    "x",
    "kt-kernel 0.6.1 requires torch>=2.10",
    ", but you have ",
    "torch 2.9.1",
    " which is incompatible",
    "ERROR: pip's resolver: ",
]


def _new(old: str) -> str:
    return next(w.pattern for w in FOREIGN_WORDINGS if w.pattern.endswith(old.split(")?", 1)[-1]))


@pytest.mark.parametrize("old", [OLD_SO, OLD_PIP])
def test_the_anchored_patterns_find_what_the_old_ones_found(old: str) -> None:
    new = _new(old)
    assert new != old
    rng = random.Random(30)
    texts = [
        "ImportError: /opt/lmcache/c_ops.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
        "_ZN3c104cuda9SetDeviceEi",
        "xundefined symbol: foo",
        "ERROR: pip's dependency resolver does not currently take into account all the packages that are "
        "installed.\nkt-kernel 0.6.1 requires torch>=2.10, but you have torch 2.9.1 which is incompatible.",
        *("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 14))) for _ in range(3000)),
    ]
    for text in texts:
        before, after = re.search(old, text), re.search(new, text)
        assert (before and before.group(0)) == (after and after.group(0)), text
