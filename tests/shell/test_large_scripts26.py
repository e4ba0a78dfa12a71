"""The twenty-sixth session's shortcuts for big scripts (issue 18), each compared with the path it skips.

A lone ``NAME=WORD`` whose word is plain characters, double-quoted text with simple expansions and
``$((...))`` is run without the lexer (``fastpaths._run_one_assignment``); a ``[ ... ]`` test whose words
are plain or ``"$NAME"``/``"${NAME}"`` is run without the lexer and the general word loop
(``fastpaths._run_plain_test``); a ``"$NAME"``/``"${NAME}"`` word whose variable is set to a short value is
made without ``expand_param``, ``expand_parts`` and ``_one_field`` (``expand.quoted_name_field``).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import evaluate as E
from argtrace.layers.shell import expand, fastpaths
from argtrace.layers.shell.syntax import parse_tree
from tests.shell.test_shell_layer import run

ROOT = Path(__file__).resolve().parents[2]
_NEVER = re.compile(r"(?!)")


def _state(script: str) -> Any:
    """Everything the evaluation leaves that a later pass reads: variables (every field), commands, events,
    servers, the names read, the step count and where the script ended."""
    text = E.prepare_text(script)
    src = E.Source("t.sh", text, None)
    src.tree = parse_tree(text)
    ev = E.ShellEvaluator(
        src, [], {"HOME": "/root", "PATH": "/usr/bin"}, arg0="t.sh", cwd="/tmp", parse=parse_tree
    )
    status = ev.run()
    return (
        status,
        [sorted((k, repr(v)) for k, v in scope.items()) for scope in ev.scopes],
        [repr(c) for c in ev.commands],
        [repr(e) for e in ev.events],
        [repr(s) for s in ev.servers],
        sorted(ev.read_names),
        sorted(ev.plain_read_names),
        ev.steps,
        ev.ended_by,
        ev.cur_at,
    )


class _Counts:
    def __init__(self) -> None:
        self.tests = 0
        self.fields = 0
        self.assigns = 0


def _fast(m: pytest.MonkeyPatch, counts: _Counts) -> None:
    real_test = fastpaths.FastPaths._run_plain_test
    real_field = expand.Expander.quoted_name_field
    real_assign = fastpaths.FastPaths._run_one_assignment

    def assign(self: Any, *a: Any) -> int | None:
        counts.assigns += 1
        return real_assign(self, *a)

    def test(self: Any, *a: Any) -> int | None:
        counts.tests += 1
        return real_test(self, *a)

    def field(self: Any, *a: Any) -> Any:
        got = real_field(self, *a)
        counts.fields += got is not None
        return got

    m.setattr(fastpaths.FastPaths, "_run_plain_test", test)
    m.setattr(expand.Expander, "quoted_name_field", field)
    m.setattr(fastpaths.FastPaths, "_run_one_assignment", assign)


def _slow(m: pytest.MonkeyPatch) -> None:
    m.setattr(fastpaths, "PLAIN_TEST", _NEVER)
    m.setattr(fastpaths, "ONE_ASSIGN", _NEVER)
    m.setattr(expand.Expander, "quoted_name_field", lambda self, *a: None)


def _both(script: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, _Counts]:
    counts = _Counts()
    with monkeypatch.context() as m:
        _fast(m, counts)
        fast = _state(script)
    with monkeypatch.context() as m:
        _slow(m)
        slow = _state(script)
    return fast, slow, counts


TEST_SCRIPT = """#!/bin/bash
A=yes; E=; L=0123456789012345678901234567890123456789012345678901234567890123456789
declare -a ARR=(1 2)
if [ -n "${A}" ]; then X=1; fi
if [ -n "$E" ]; then X=2; fi
if [ -z "${U}" ]; then X=3; fi
[ "$A" = yes ] && Y=1
[ "$L" != x ] || Y=2
[ "${ARR}" = 1 ] && Z=1
[ "$RANDOM" = 1 ] && Z=2
[ "$LINENO" -gt 0 ] && Z=3
[ -f /etc/passwd ] && F=1
[ ! -d /nonexistent ] && F=2
[ 3 -eq 3 -a -n "$A" ] && G=1
[ "$A" ] && G=2
[ ] || G=3
[   -n    "$A"   ]   && H=1
test -n "$A" && H=2
[ -n "$A"x ] && H=3
[ -n "$A" ] > /dev/null && H=4
[ -n "$A" ]; [ -n "$E" ]
f() { [ -n "$1" ] && echo "$1"; local V=ok; [ "$V" = ok ] && W=1; }
f a
( [ -n "$A" ] && S=1 )
X=$( [ -n "$A" ] && echo y)
[ -n "${A}" ] & wait
set -u
[ -n "$E" ] && N=1
[ -z "${UNSET_ONE}" ] && N=2
python3 -m sglang.launch_server --model-path "$A" --port 30000 --host "${E}"
"""


def test_plain_tests_leave_what_the_general_path_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, counts = _both(TEST_SCRIPT, monkeypatch)
    assert fast == slow
    # every `[ ... ]` above but `[ -n "$A"x ]` (no blank after the quote), the redirected one and `"$1"`
    assert counts.tests == 22
    # the set, short ones here and in `test` and the server's words; `${UNSET_ONE}` under `set -u` is the
    # caller's (fa27: read as unknown, no longer the exit), and the script is read on past it
    assert counts.fields == 18


def test_a_function_named_like_the_test_and_an_alias_are_the_general_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    script = 'A=1\nfunction [ { echo fn "$@"; }\n[ -n "$A" ] && B=1\nshopt -s expand_aliases\nalias C=true\n'
    script += '[ -n "$A" ] && D=1\n'
    fast, slow, counts = _both(script, monkeypatch)
    assert fast == slow
    assert counts.tests == 1  # the function is dispatch's to call; once an alias is defined, never


def _random_tests() -> str:
    """400 random `[ ... ]` lines: words plain, quoted names and others, in `if`, lists and alone."""
    rng = random.Random(26)
    names = ["A", "E", "U", "L", "ARR", "RANDOM", "LINENO", "HOME", "PATH", "_x", "N1"]
    plain = ["-n", "-z", "=", "!=", "==", "-eq", "-lt", "-f", "-d", "!", "-a", "-o", "1", "yes", "x]", "/tmp"]
    other = ["'q'", '"a b"', "$A", "${A:-x}", "*", "?", "[x]", "a#b", "#", "\\x", "$(echo 1)", "<", "é", '""']
    lines = ["A=yes; E=; L=" + "x" * 70, "declare -a ARR=(1 2)", "declare -i N1=4"]
    for _ in range(400):
        words = []
        for _ in range(rng.randint(0, 4)):
            r = rng.random()
            if r < 0.45:
                words.append(rng.choice(plain))
            elif r < 0.9:
                n = rng.choice(names)
                words.append(rng.choice([f'"${n}"', f'"${{{n}}}"']))
            else:
                words.append(rng.choice(other))
        sep = rng.choice([" ", " ", "\t", "  "])
        line = (
            "["
            + sep
            + sep.join(words)
            + (sep if words else "")
            + ("]" if rng.random() < 0.95 else rng.choice(["]x", ""]))
        )
        line = rng.choice(["", "if ", "! ", "true && "]) + line
        tail = " ; then Z=1; fi" if line.startswith("if ") else rng.choice(["", " && Z=1", " || Z=2", " # c"])
        lines.append(line + tail)
        if rng.random() < 0.05:
            lines.append(rng.choice(["unset A", "A=yes", "E=1", "E="]))
    lines.append("python3 -m sglang.launch_server --model-path $A --port 30000")
    return "\n".join(lines) + "\n"


def test_random_test_lines_give_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, counts = _both(_random_tests(), monkeypatch)
    assert fast == slow
    assert 50 < counts.tests < 350  # both paths are common among these lines
    assert counts.fields > 50


_TEST_LINE = re.compile(rb'\[ [^\n]*"\$\{?[A-Za-z_]\w*\}?" [^\n]*\]')


def test_corpus_scripts_give_what_the_general_path_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public scripts of the real-case batches with a `[ ... "$NAME" ... ]` test: the shell layer's whole
    result (servers, findings, per-command lists) is the same with both shortcuts off."""
    files = sorted((ROOT / "tests" / "data").rglob("*.sh")) + sorted((ROOT / "examples").glob("*.sh"))
    scripts = [(p, p.read_bytes()) for p in files]
    scripts = [(p, data) for p, data in scripts if _TEST_LINE.search(data)]
    assert len(scripts) >= 35
    counts = _Counts()
    for p, data in scripts:
        with monkeypatch.context() as m:
            _fast(m, counts)
            fast = run(tmp_path, data, "0", "30000")
        with monkeypatch.context() as m:
            _slow(m)
            slow = run(tmp_path, data, "0", "30000")
        assert repr(fast) == repr(slow), p
    assert counts.tests >= 30
    assert counts.fields >= 50
    assert counts.assigns >= 30


ASSIGN_SCRIPT = """#!/bin/bash
X=5; E=
P=$((30000 + 7))
O="--tp 1${P:+x}"
U=http://$HOST:${P}/v1
Q=$(($X * 2))$X"a b"
D=${UNSET_D:=dflt}
F=${UNSET_F:-a b}
N=$((1 / 0))
M=$((case))
readonly R=1
R=$((R + 1))
declare -i I=2
I="$X+1"
set -a
S="exported ${X}"
set +a
T="x" # c
V="$X";W=$((X))
f() { local L=1; Y=$((L + X)); }
f
( Z="$X" )
C=$(A1="$X"; echo "$A1")
G=~/x H=* K="$E"
J="${E}"   {TAB}
Z2="${X:?no}"
set -u
Z3="$X"
Z4="${UNSET_Z}"
Z5=after
""".replace("{TAB}", "\t")


def test_lone_assignments_leave_what_the_general_path_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, counts = _both(ASSIGN_SCRIPT, monkeypatch)
    assert fast == slow
    assert counts.assigns == 20  # all but `M` (a `case` inside), `G H K` (three) and the plain ones


def _random_assignments() -> str:
    """400 random lone assignments: values made of plain, quoted, expansion and arithmetic pieces."""
    rng = random.Random(126)
    pieces = [
        "a",
        "/m/x:y",
        "-1",
        "=",
        "~",
        "*",
        "x]",
        "$X",
        "${X}",
        "${E:-d}",
        "${U:+a b}",
        "${X:=q}",
        '"a b"',
    ]
    pieces += ['"$X/${E}"', '""', "$((1 + 2))", "$((X * 3))", "$(($X + $Y))", "$((1 / 0))", "$((Y))", '"#"']
    other = ["'q'", "\\x", " ", ";", "$(echo 1)", "`x`", "(", "$((2)", '"a', "#", "é", "\xa0", "${X", "$"]
    lines = ["X=5; Y=; E=", "readonly RO=1", "declare -i I=1"]
    for _ in range(400):
        value = "".join(
            rng.choice(pieces) if rng.random() < 0.93 else rng.choice(other) for _ in range(rng.randint(0, 4))
        )
        name = rng.choice(["A", "B", "X", "RO", "I", "_c", "PATH", "A1"])
        tail = rng.choice(["", "", " ", "\t", " # c", " || true", "; B=1"])
        lines.append(rng.choice(["", "", "  ", "true && "]) + f"{name}={value}{tail}")
    lines.append("python3 -m sglang.launch_server --model-path $A --port 30000")
    return "\n".join(lines) + "\n"


def test_random_assignments_give_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, counts = _both(_random_assignments(), monkeypatch)
    assert fast == slow
    assert 50 < counts.assigns < 350  # both paths are common among these lines


def _line_col_at(src: Any, offset: int) -> str:
    """The location the general path makes: ``line_col``'s line and column."""
    line, col = E.Source(src.label, src.text, None).line_col(offset)
    return f"{src.label}:{line}:{col}"


@pytest.mark.parametrize(
    "text", ["", "a", "\n", "ab\ncd\n", "x\n\n\ny", "line one\nline two\n" * 40, "é\nb\n"]
)
def test_locations_are_what_line_col_gives(text: str) -> None:
    """``Source.at`` on a line it did not answer last (one bisection in an ASCII text) against ``line_col``,
    at every offset in order, backwards and at random, and past the end."""
    offsets = list(range(len(text) + 3))
    rng = random.Random(len(text))
    shuffled = rng.sample(offsets, len(offsets)) * 2
    for order in (offsets, offsets[::-1], shuffled):
        src = E.Source("t.sh", E.prepare_text(text), None)
        assert [src.at(o) for o in order] == [_line_col_at(src, o) for o in order]


def test_to_str_is_the_restore_then_the_decoding() -> None:
    """``core.to_str`` tests for the placeholders itself before calling ``L.restore``: the same string as
    restoring first, on random latin-1 texts with and without placeholders and UTF-8 bytes."""
    from argtrace.layers.shell import core
    from argtrace.layers.shell import lexer as L

    def general(text: str) -> str:
        text = L.restore(text)
        return text if text.isascii() else text.encode("latin-1").decode("utf-8", "replace")

    rng = random.Random(2026)
    alphabet = [
        "a",
        " ",
        "\t",
        "\n",
        "\x01",
        "\x02",
        "\x03",
        "\\",
        "é".encode().decode("latin-1"),
        "\xff",
        "\x85",
    ]
    texts = ["", "\x01", "a\x02b\x03", "plain"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(3000)]
    assert [core.to_str(t) for t in texts] == [general(t) for t in texts]
    assert any("\r" in core.to_str(t) for t in texts) and any(not t.isascii() for t in texts)
