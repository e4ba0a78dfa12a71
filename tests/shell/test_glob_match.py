"""Patterns matched as sets of positions (``layers/shell/glob_match.py``): the same answers as the regex the
pattern translates to, without its backtracking, and "unknown" past a bound of work (session 28's probe,
docs/reliability.md "Session 28 (safe28)"). The work is counted in steps, never timed.

Before, with ``re.fullmatch``: ``+(a|aa)b`` against 60 ``a`` and ``[[ $X == *a*a*a*a*b ]]`` against 2,000
did not finish in 60 s, and ``${X//a/b}`` over a 20,000-character value took past 2 minutes (cubic)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from argtrace.layers.shell.glob_match import (
    TOO_MUCH_WORK,
    WORK_LIMIT,
    TooMuchWork,
    Work,
    compile_pattern,
    fullmatch,
    glob_fullmatch,
    prefix_lengths,
    replaced,
    trimmed,
)
from argtrace.layers.shell.patterns import MAX_GROUP_DEPTH, PatternUnknown, _glob_to_regex
from argtrace.layers.shell.printf_format import printf_output
from tests.shell.bash_oracle import analyzed, argtrace_argv

_ATOMS = ["a", "b", "*", "?", "[ab]", "[!a]", "[[:alpha:]]", "\\*", ".", "-", "(", "|", ")", "@(", "+("]
_ATOMS += ["*(", "?(", "!(", '"']


def _rx(pattern: str) -> str:
    return _glob_to_regex([(pattern, False)])


def _re_trimmed(rx: str, s: str, op: str) -> str:
    """``${X#pat}`` and friends as the shell layer computed them with ``re`` before."""
    crx = re.compile(rx, re.DOTALL)
    if op in ("#", "##"):
        for k in range(len(s) + 1) if op == "#" else range(len(s), -1, -1):
            if crx.fullmatch(s[:k]):
                return s[k:]
        return s
    for k in range(len(s), -1, -1) if op == "%" else range(len(s) + 1):
        if crx.fullmatch(s[k:]):
            return s[:k]
    return s


def _re_longest(rx: str, s: str) -> int | None:
    return next((k for k in range(len(s), -1, -1) if re.fullmatch(rx, s[:k], re.DOTALL)), None)


def _re_replaced(rx: str, s: str, rep: str, op: str) -> str:
    """``${X/pat/rep}`` and friends as computed with ``re`` before."""
    if op == "/#":
        m = _re_longest(rx, s)
        return rep + s[m:] if m is not None else s
    if op == "/%":
        k = next((k for k in range(len(s) + 1) if re.fullmatch(rx, s[k:], re.DOTALL)), None)
        return s if k is None else s[:k] + rep
    out, i = [], 0
    while i <= len(s):
        m = _re_longest(rx, s[i:])
        if m:
            out.append(rep)
            i += m
            if op == "/":
                return "".join(out) + s[i:]
            continue
        out.append(s[i : i + 1])
        i += 1
    return "".join(out)


def test_every_answer_equals_the_regex_on_random_patterns() -> None:
    rnd = random.Random(28)
    compared = 0
    for _ in range(1500):
        pattern = "".join(rnd.choice(_ATOMS) for _ in range(rnd.randint(1, 7)))
        try:
            rx = _rx(pattern)
            crx = re.compile(rx, re.DOTALL)
        except (PatternUnknown, re.error):
            continue
        pat = compile_pattern(rx)
        for _ in range(3):
            s = "".join(rnd.choice("ab.- *(") for _ in range(rnd.randint(0, 6)))
            assert fullmatch(pat, s, Work()) is (crx.fullmatch(s) is not None), (pattern, s)
            assert prefix_lengths(pat, s, Work()) == [k for k in range(len(s) + 1) if crx.fullmatch(s[:k])]
            for op in ("#", "##", "%", "%%"):
                assert trimmed(rx, s, op) == _re_trimmed(rx, s, op), (pattern, s, op)
            if rx:
                for op in ("/", "//", "/#", "/%"):
                    assert replaced(rx, s, "X", op) == _re_replaced(rx, s, "X", op), (pattern, s, op)
            compared += 1
    assert compared == 4461


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("+(a|aa)b", "a" * 5000, False),
        ("+(a|aa)b", "a" * 5000 + "b", True),
        ("*a*a*a*a*b", "a" * 20000, False),
        ("+(+(+(a)))b", "a" * 3000, False),
        ("@(" + "|".join(f"w{i}" for i in range(10000)) + "|a*)", "a" * 3000, True),
        ("!(+(a|aa)b)", "a" * 9000, True),
    ],
)
def test_a_backtracking_shape_is_answered_within_the_bound(pattern: str, text: str, expected: bool) -> None:
    work = Work()
    assert fullmatch(compile_pattern(_rx(pattern)), text, work) is expected
    assert work.spent <= WORK_LIMIT


def test_a_match_past_the_bound_is_unknown() -> None:
    rx = _rx("!(+(a|aa)b)")
    with pytest.raises(TooMuchWork):
        replaced(rx, "a" * 9000, "x", "//")
    assert glob_fullmatch(_rx("*(*(a)b|a)c"), "a" * 3000) is None


def test_groups_nested_deeper_than_the_bound_are_not_translated() -> None:
    deep = MAX_GROUP_DEPTH + 1
    assert fullmatch(compile_pattern(_rx("+(" * (deep - 1) + "a" + ")" * (deep - 1))), "aaa", Work())
    with pytest.raises(PatternUnknown):
        _rx("+(" * deep + "a" + ")" * deep)
    with pytest.raises(PatternUnknown):  # was RecursionError
        _rx("+(" * 2000 + "a" + ")" * 2000)


def test_a_substitution_over_a_long_value_is_exact(tmp_path: Path) -> None:
    script = f"X={'x' * 20000}a\nY=${{X//a/b}}\nZ=${{X%%+(x)a}}\n"
    script += "python3 -m sglang.launch_server --port ${#Y}$Z"
    assert argtrace_argv(script, tmp_path)[-1] == "20001"


def test_case_and_conditional_answers_on_long_values(tmp_path: Path) -> None:
    script = (
        "shopt -s extglob\n"
        f"X={'a' * 60}\n"
        "case $X in +(a|aa)b) T=2 ;; +(a|aa)) T=3 ;; *) T=1 ;; esac\n"
        f"Y={'a' * 2000}\n"
        "if [[ $Y == *a*a*a*a*b ]]; then U=2; else U=1; fi\n"
        "python3 -m sglang.launch_server --tp $T$U"
    )
    assert argtrace_argv(script, tmp_path)[-1] == "31"


def test_a_value_past_the_bound_says_why(tmp_path: Path) -> None:
    script = (
        f"shopt -s extglob\nV={'a' * 9000}\nW=${{V//!(+(a|aa)b)/x}}\n"
        'python3 -m sglang.launch_server --served-model-name "$W"'
    )
    (server,) = analyzed(script, tmp_path).servers
    word = server.argv[-1]
    assert word.text is None
    assert word.origin.reason == f"`${{V//!(+(a|aa)b)/x}}`: {TOO_MUCH_WORK}"


@pytest.mark.parametrize(
    ("fmt", "args"),
    [
        ("%999999999s", ["x"]),  # a 1 GB string, built whole
        ("%99999999999s", ["x"]),  # MemoryError
        ("%.99999999999f", ["1"]),  # ValueError: precision too big
        ("%*d", ["99999999999", "1"]),
        ("%-*s|", ["-999999999", "x"]),
        ("%s", ["x" * 600_000, "y" * 600_000]),  # the format used again: 1.2 MB in all
    ],
)
def test_printf_past_one_word_is_unknown(fmt: str, args: list[str]) -> None:
    assert printf_output(fmt, args) is None


def test_printf_with_many_arguments_is_linear() -> None:
    # the size check summed the whole output after each use of the format: 9,000 arguments took 6 s
    assert printf_output("a%.0s", ["x"] * 9000) == "a" * 9000
