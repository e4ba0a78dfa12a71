"""The redaction shapes' prefilters (secret_detection.py, issue 18) skip a pattern only where it cannot match.

Each ``_may_hold_*`` test is a necessary condition of its pattern: a text it says no to must have no match.
Checked on texts made of pieces of every shape (secret and near-secret, any case, the non-ASCII letters that
match ASCII ones when case is ignored) and on every line of the repository's launch scripts.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from argtrace import secret_detection as R

PIECES = [
    "hf_" + "a1B2" * 6,
    "sk-" + "x" * 24,
    "ghp_" + "Z9" * 12,
    "github_pat_" + "q" * 22,
    "AKIA" + "ABCDEFGHIJKLMNOP",
    "xoxb-" + "1234567890ab",
    "eyJ" + "a" * 12 + "." + "b" * 12 + ".c",
    "https://user:pw@host/x",
    "redis://:secret@h:6379",
    "Authorization: Bearer abc.def",
    "AUTHORIZATION=Basic xyz",
    "proxy-authorization: token t",
    "\u212authorization: Basic kelvin",  # the Kelvin sign matches k when case is ignored
    "Bearer tok123",
    "bearer lower",
    "HF_TOKEN=abc",
    "--api-key sekret",
    "--api-key=sekret",
    "'password': 'x'",
    '"token": "y"',
    "X-Api-Key: zz",
    "#new-token: 896",
    "/workspace/models/m12",
    "script.sh:3:8",
    "MODEL_DIR_3",
    "--tp-size 2",
    " ",
    "-k",
    "-",
    ":",
    "=",
    "@",
    "//",
    "h",
    "f_",
    "g",
    "s",
    "k",
]


def _texts() -> list[str]:
    rng = random.Random(18)
    out = list(PIECES)
    for _ in range(6000):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.5:  # cut pieces apart: half shapes, glued neighbours
            a, b = sorted(rng.randint(0, len(text)) for _ in range(2))
            text = text[a:b]
        if rng.random() < 0.2:
            text = text.swapcase()
        out.append(text)
    root = Path(__file__).resolve().parents[1] / "data"
    for path in sorted(root.rglob("*.sh")):
        out.extend(path.read_text(errors="replace").splitlines())
    return out


TEXTS = _texts()

CASES = [
    (R._may_hold_token, R._TOKEN_VALUE),
    (R._may_hold_url_password, R._URL_PASSWORD),
    (R._may_hold_auth, R._AUTH_HEADER),
    (R._may_hold_named, R._NAMED_VALUE),
]


@pytest.mark.parametrize("may_hold, pattern", CASES, ids=["token", "url", "auth", "named"])
def test_a_text_the_prefilter_skips_has_no_match(may_hold, pattern) -> None:
    skipped = [t for t in TEXTS if not may_hold(t)]
    matched = [t for t in TEXTS if pattern.search(t)]
    assert skipped and matched  # the texts exercise both sides
    assert [t for t in skipped if pattern.search(t)] == []


def test_the_kelvin_sign_is_searched() -> None:
    # not ASCII: str.lower() is not how the pattern ignores case there, so the pattern is asked
    assert R._may_hold_auth("\u212authorization: Basic c2VjcmV0")
    assert not R._may_hold_auth("kauthorizatio: Basic c2VjcmV0")
    assert "c2VjcmV0" not in R.redact_text("Authorization: Basic c2VjcmV0")


def test_the_token_marks_spelled_out_are_the_tuple() -> None:
    assert [R._may_hold_token(t) for t in TEXTS] == [any(m in t for m in R._TOKEN_MARKS) for t in TEXTS]
