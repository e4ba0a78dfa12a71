"""``[[ WORD =~ REGEX ]]`` and ``BASH_REMATCH`` in the shell layer, compared with real bash.

bash matches REGEX as a POSIX extended regular expression and sets BASH_REMATCH from the match. argtrace
used to search with Python's ``re`` on the quote-removed text and never set BASH_REMATCH, so
``[[ $V =~ ^a(b)c$ ]] && T=${BASH_REMATCH[1]}`` then ``--r $T`` lost the value word, stated as known; a
quoted ``"."`` was read as any character and ``\\d`` as a digit (glibc's ERE reads both as themselves).
Now a regex is evaluated only where ERE and Python provably agree (``ere.py``), otherwise it is unknown."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.shell.ere import EreMatch, ere_match
from tests.shell.bash_oracle import SERVER, bash_says, server_port

# (the text, the regex word as written in the script): each evaluated by argtrace, compared with bash
KNOWN = [
    ("abc", "^a(b)c$"),
    ("xx-v0.5.23-yy", "v([0-9]).([0-9])"),
    ("H100", "[[:digit:]][[:digit:]]"),
    ("a.c", 'a"."c'),  # quoted: literal, and no special character is left unquoted
    ("abc", "z"),  # no match: BASH_REMATCH is an empty array
    ("a\nb", "a$"),  # ERE's $ is the end of the string, not before a final newline
    ("p]q", "[]]"),
    ("GPU=A100", "^GPU=(A|H)100$"),  # matched, captures unknown (alternation): only the status is compared
]


@pytest.mark.parametrize(("text", "regex"), KNOWN)
def test_the_match_equals_bash(text: str, regex: str, tmp_path: Path) -> None:
    script = f"V=$'{text.replace(chr(10), chr(92) + 'n')}'\nif [[ $V =~ {regex} ]]; then S=1; else S=0; fi\n"
    predicted, _ = server_port(script + SERVER.format(port="$S"), tmp_path)
    assert predicted == bash_says(script + "echo $S", tmp_path)


@pytest.mark.parametrize(("text", "regex"), [k for k in KNOWN if "|" not in k[1]])
def test_bash_rematch_equals_bash(text: str, regex: str, tmp_path: Path) -> None:
    script = f"V=$'{text.replace(chr(10), chr(92) + 'n')}'\n[[ $V =~ {regex} ]]\n"
    words = 'x"${#BASH_REMATCH[@]}:${BASH_REMATCH[0]}:${BASH_REMATCH[1]}:${BASH_REMATCH[2]}"'
    predicted, reason = server_port(script + SERVER.format(port=words), tmp_path)
    assert reason is None
    assert predicted == bash_says(script + f"echo {words}", tmp_path)


@pytest.mark.parametrize(
    ("text", "word", "re_value", "quoted", "why"),
    [
        # glibc reads \d as d (Python: a digit); the regex comes from a variable, so bash does not quote it
        (
            "d",
            "$RE",
            "\\d",
            False,
            "a POSIX extended regex whose meaning differs from Python's is not evaluated",
        ),
        (
            "9",
            "$RE",
            "[[:nosuch:]]",
            False,
            "a POSIX extended regex whose meaning differs from Python's is not evaluated",
        ),
        (
            "ab",
            "$RE",
            "(?i)AB",
            False,
            "a POSIX extended regex whose meaning differs from Python's is not evaluated",
        ),
        # a quoted expansion matches itself, an unquoted one is a regex: the expanded text cannot tell which
        (
            "abc",
            'a"$RE"c',
            "a.c",
            True,
            "a regex with quoted parts: which characters are literal is not evaluated",
        ),
    ],
)
def test_where_ere_and_python_may_differ_the_test_is_unknown(
    text: str, word: str, re_value: str, quoted: bool, why: str, tmp_path: Path
) -> None:
    script = f"RE='{re_value}'\nV={text}\n[[ $V =~ {word} ]] && S=1 || S=0\n"
    predicted, _ = server_port(script + SERVER.format(port="$S"), tmp_path)
    assert predicted is None  # both branches are followed: bash may set either
    expanded = re_value if word == "$RE" else "a" + re_value + "c"
    assert ere_match(text, expanded, quoted=quoted) == EreMatch(None, None, why)


@pytest.mark.parametrize(
    ("text", "word"), [("d", "\\d"), ("abc", "a\\.c"), ("a.c", "a\\.c"), ("abc", '"a.c"'), ("a.c", "'a.c'")]
)
def test_quoted_characters_of_a_word_without_expansions_match_themselves(
    text: str, word: str, tmp_path: Path
) -> None:
    script = f"V={text}\nif [[ $V =~ {word} ]]; then S=1; else S=0; fi\n"
    predicted, _ = server_port(script + SERVER.format(port="$S"), tmp_path)
    assert predicted == bash_says(script + "echo $S", tmp_path)


def test_captures_of_a_quantified_regex_are_unknown_with_the_reason(tmp_path: Path) -> None:
    script = "V=aab\n[[ $V =~ (a*)(ab)? ]] && T=${BASH_REMATCH[1]}\n"
    predicted, reason = server_port(script + SERVER.format(port='"$T"'), tmp_path)
    assert predicted is None
    assert reason == (
        "BASH_REMATCH follows POSIX's leftmost-longest rule, not evaluated for a regex with a quantifier or "
        "alternation"
    )


def test_a_test_bash_skips_leaves_bash_rematch_alone(tmp_path: Path) -> None:
    script = "V=abc\n[[ abc =~ (b) ]]\n[[ -n $V || $V =~ (c) ]]\n"
    predicted, _ = server_port(script + SERVER.format(port="${BASH_REMATCH[1]}"), tmp_path)
    assert predicted == bash_says(script + "echo ${BASH_REMATCH[1]}", tmp_path) == "b"


def test_a_test_bash_may_skip_makes_bash_rematch_unknown(tmp_path: Path) -> None:
    script = "[[ abc =~ (b) ]]\n[[ -n $(hostname) || abc =~ (c) ]]\n"
    predicted, reason = server_port(script + SERVER.format(port="${BASH_REMATCH[1]}"), tmp_path)
    assert predicted is None
    assert reason is not None and "whether bash evaluated is not known statically" in reason
