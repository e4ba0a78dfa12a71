"""The twenty-seventh session's shortcuts for big scripts (issue 18), each compared with the path it skips.

A lone ``NAME=WORD`` whose word is plain text, double-quoted plain text, ``$NAME``, ``${NAME}``,
``${NAME:-WORD}``/``${NAME:+WORD}`` (and without the colon) and ``$((...))`` of decimal literals gets its
value without ``do_assignment``'s ``expand_value`` (``fastpaths.FastPaths._direct_value``): the evaluator's
whole state must be what the general path leaves, and the values what bash assigns.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import control, fastpaths
from tests.shell.bash_oracle import argtrace_argv, bash_argv
from tests.shell.test_large_scripts26 import _state
from tests.shell.test_shell_layer import run

ROOT = Path(__file__).resolve().parents[2]


class _Counts:
    def __init__(self) -> None:
        self.direct = 0
        self.clauses = 0


def _fast(m: pytest.MonkeyPatch, counts: _Counts) -> None:
    real = fastpaths.FastPaths._direct_value
    real_clause = control.lone_clause

    def direct(self: Any, *a: Any) -> str | None:
        got = real(self, *a)
        counts.direct += got is not None
        return got

    def clause(node: Any) -> Any:
        got = real_clause(node)
        counts.clauses += got is not None
        return got

    m.setattr(fastpaths.FastPaths, "_direct_value", direct)
    m.setattr(control, "lone_clause", clause)


def _slow(m: pytest.MonkeyPatch) -> None:
    m.setattr(fastpaths.FastPaths, "_direct_value", lambda self, *a: None)
    m.setattr(control, "lone_clause", lambda node: None)


def _both(script: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, _Counts]:
    counts = _Counts()
    with monkeypatch.context() as m:
        _fast(m, counts)
        fast = _state(script)
    with monkeypatch.context() as m:
        _slow(m)
        slow = _state(script)
    return fast, slow, counts


ASSIGN_SCRIPT = """#!/bin/bash
X=5; E=; L=0123456789012345678901234567890123456789
P=$((30000 + 7))
Q=$(( 2 * 3 ))$X
O="--tp 1${P:+x}"
O2="--tp 1${U:+x}"
O3="${E:+y}"
O4="${E+y}"
O5="${U+y}"
O6=${U-d}
O7=${E:-d}
O8="${E-d}"
O9=${X:-d}
U1=http://$HOST:${P}/v1
U2="$U"
U3=${U}
R1=$RANDOM
R2="${LINENO}"
LONG="$L$L"
LONG2=$L
readonly RO=1
RO="$X"
RO=$((1 + 1))
declare -i I=2
I="$X"
I=$((3 * 4))
set -a
S="exported ${X}"
S2=$((7 - 9))
set +a
f() { local LC=1; Y=$((1 + 1)); Z="$LC${LC:+-}$1"; }
f arg
( W="$X" )
C=$(A1="$X"; echo "$A1")
T="$X" # c
N=$((9223372036854775807 + 1))
M=$((999999999999999999 * 999999999999999999))
Z0=$((0))
Z1=$((08))
set -u
V1="$X${U:-u}"
V2="${UNSET_V}"
V3=after
python3 -m sglang.launch_server --model-path "$O" --port "$P"
"""


def test_lone_assignments_leave_what_the_general_path_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, counts = _both(ASSIGN_SCRIPT, monkeypatch)
    assert fast == slow
    # not: `$HOST`, `$U` and `${U}` (unset, no operator), `$RANDOM`, `$LINENO`, `"$L$L"` (longer than 64
    # characters), f's `$1`, `$(...)`, `$((08))`, the 19-digit literal and `${UNSET_V}`
    assert counts.direct == 25


def _random_values(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    pieces = [
        "a",
        "/m/x:y",
        "-1",
        "=",
        "0.8",
        "$X",
        "${X}",
        "$E",
        "${E}",
        "$U",
        "${E:-d}",
        "${U:+ab}",
        "${X:+-f}",
    ]
    pieces += ["${E+y}", "${U-z}", "${X:-}", '"a b"', '"--p ${X:+x}"', '"$E/${X}"', '""', "$((1 + 2))"]
    pieces += ["$((30000 + 17))", "$((5 - 9))", "$((3*4))", "$((0))", '"#"', "$HOME", "${PATH:+p}"]
    other = ["'q'", "\\x", "~", "*", "x]", "$((X * 3))", "$((1 / 0))", "$(echo 1)", "${X:=q}", "$RANDOM", "é"]
    values = []
    for _ in range(n):
        k = rng.randint(0, 4)
        values.append(
            "".join(rng.choice(pieces) if rng.random() < 0.9 else rng.choice(other) for _ in range(k))
        )
    return values


def _random_assignments() -> str:
    """500 random lone assignments of the pieces the shortcut reads, and some it does not."""
    rng = random.Random(127)
    lines = ["X=5; E=", "readonly RO=1", "declare -i I=1"]
    for value in _random_values(127, 500):
        name = rng.choice(["A", "B", "X", "E", "RO", "I", "_c", "A1"])
        tail = rng.choice(["", "", " ", "\t", " # c", " || true", "; B=1"])
        lines.append(rng.choice(["", "", "  ", "true && "]) + f"{name}={value}{tail}")
        if rng.random() < 0.03:
            # no `set -u`: the first `$U` would end the script (ASSIGN_SCRIPT has it)
            lines.append(rng.choice(["set -a", "set +a", "unset E", "E=", "unset X", "X=5"]))
    lines.append("python3 -m sglang.launch_server --model-path $A --port 30000")
    return "\n".join(lines) + "\n"


def test_random_assignments_give_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, counts = _both(_random_assignments(), monkeypatch)
    assert fast == slow
    assert 100 < counts.direct < 450  # both paths are common among these lines


def test_the_values_are_what_bash_assigns(tmp_path: Path) -> None:
    """Each value the shortcut reads, given to the server as a word: what bash passes."""
    values = [
        v for v in _random_values(27, 300) if not re.search(r"\$U\b|\$\{U\}|RANDOM|PATH|\(echo|é|/ 0|:=", v)
    ]
    lines = ["X=5", "E=", "HOME=/root"]
    lines += [f"V{i}={v}" for i, v in enumerate(values)]
    words = " ".join(f'"$V{i}"' for i in range(len(values)))
    script = "\n".join(lines) + f"\npython3 -m sglang.launch_server --model-path m --port 1 {words}\n"
    ours = argtrace_argv(script, tmp_path)
    theirs = bash_argv(script, tmp_path)
    assert len(ours) == len(theirs) == len(values) + 6
    known = [(a, b) for a, b in zip(ours, theirs, strict=True) if a is not None]
    assert len(known) >= len(values) - 10
    assert [a for a, _ in known] == [b for _, b in known]


_ASSIGN_LINE = re.compile(rb'(?m)^[ \t]*(?:[A-Za-z_]\w*=(?:"[^"\n]*\$\{?\w|\$\(\(\d)|if )')


def test_corpus_scripts_give_what_the_general_path_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public scripts of the real-case batches with a lone quoted or arithmetic assignment or an `if`: the
    shell layer's whole result (servers, findings, per-command lists) is the same with both shortcuts off."""
    files = sorted((ROOT / "tests" / "data").rglob("*.sh")) + sorted((ROOT / "examples").glob("*.sh"))
    scripts = [(p, p.read_bytes()) for p in files]
    scripts = [(p, data) for p, data in scripts if _ASSIGN_LINE.search(data)][:120]
    assert len(scripts) >= 40
    counts = _Counts()
    for p, data in scripts:
        with monkeypatch.context() as m:
            _fast(m, counts)
            fast = run(tmp_path, data, "0", "30000")
        with monkeypatch.context() as m:
            _slow(m)
            slow = run(tmp_path, data, "0", "30000")
        assert repr(fast) == repr(slow), p
    assert counts.direct >= 40
    assert counts.clauses >= 40


IF_SCRIPT = """#!/bin/bash
A=yes; E=
if [ -n "$A" ]; then X=1; fi
if [ -n "$E" ]; then X=2; fi
if [ -n "$U" ]; then X=3; fi
if [ -n "$A" ]
then
  X=4
  Y=5
fi
if true; false; then X=6; fi
if ! [ -z "$A" ]; then X=7; fi
if [ -n "$A" ]; then :; elif [ -n "$E" ]; then X=8; fi
if [ -n "$E" ]; then :; else X=9; fi
if [ -n "$E" ]; then :; elif [ -n "$A" ]; then X=10; else X=11; fi
if [ -n "$A" ]; then if [ -n "$E" ]; then X=12; fi; fi
if [ "$RANDOM" = 1 ]; then R=1; fi
if [ -f /nonexistent ]; then F=1; fi # c
if [ -n "$A" ]; then # c
  Z=1
fi
f() { if [ -n "$1" ]; then echo "$1"; return 3; fi; }
f a
f ""
if [ -n "$A" ]; then fi
if [ -n "$A" ]; then X=13; fi &
wait
set -e
if false; then X=14; fi
if [ -n "$A" ]; then false; fi
X=15
"""


def _both_ifs(script: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, int]:
    from argtrace.layers.shell import control

    real = control.lone_clause
    hits = [0]

    def lone(node: Any) -> Any:
        got = real(node)
        hits[0] += got is not None
        return got

    with monkeypatch.context() as m:
        m.setattr(control, "lone_clause", lone)
        fast = _state(script)
    with monkeypatch.context() as m:
        m.setattr(control, "lone_clause", lambda node: None)
        slow = _state(script)
    return fast, slow, hits[0]


def test_lone_if_clauses_leave_what_the_general_reading_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, hits = _both_ifs(IF_SCRIPT, monkeypatch)
    assert fast == slow
    # every `if` run above (f's twice, the nested one's both, the empty body's too: tree-sitter reads it) but
    # the three with `elif`/`else`
    assert hits == 17


def _random_ifs() -> str:
    """300 random `if` commands: conditions known and not, bodies, `elif`/`else`, nesting and separators."""
    rng = random.Random(227)
    conds = [
        '[ -n "$A" ]',
        '[ -z "$E" ]',
        "true",
        "false",
        '[ "$RANDOM" = 1 ]',
        "! true",
        "true; false",
        "[ -f /x ]",
    ]
    bodies = ["X=1", ":", "Y=$((1 + 2))", 'echo "$A"', "X=1; Y=2", "false", "(exit 2)"]
    lines = ["A=yes; E="]
    for _ in range(300):
        sep = rng.choice(["; ", "\n", " ;\n"])
        parts = [f"if {rng.choice(conds)}{sep}then {rng.choice(bodies)}{sep}"]
        r = rng.random()
        if r < 0.15:
            parts.append(f"elif {rng.choice(conds)}; then {rng.choice(bodies)}{sep}")
        if r < 0.3 and rng.random() < 0.5:
            parts.append(f"else {rng.choice(bodies)}{sep}")
        text = "".join(parts) + "fi"
        if rng.random() < 0.1:
            text = f"if {rng.choice(conds)}; then {text}; fi"
        lines.append(text + rng.choice(["", "", " # c", " || X=3", " && Y=4"]))
        if rng.random() < 0.03:
            lines.append(rng.choice(["set -e", "set +e", "A=", "A=yes"]))
    lines.append("python3 -m sglang.launch_server --model-path $A --port 30000")
    return "\n".join(lines) + "\n"


def test_random_ifs_give_what_the_general_reading_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, hits = _both_ifs(_random_ifs(), monkeypatch)
    assert fast == slow
    assert 100 < hits < 300


def _searched_line_starts(text: str) -> list[int]:
    """The line table as the search for each newline made it."""
    starts = [0]
    i = text.find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def test_line_starts_are_where_each_newline_ends() -> None:
    """``Source.line_starts`` (the lines' lengths summed in C) against a search for each newline, on fixed
    and 3,000 random texts of letters, blanks, newlines and latin-1 bytes."""
    from argtrace.layers.shell import evaluate as E

    rng = random.Random(327)
    texts = ["", "\n", "a", "a\n", "\n\n", "ab\ncd", "ab\ncd\n", "\n" * 5 + "x"]
    texts += ["".join(rng.choice("a \n\xe9") for _ in range(rng.randint(0, 30))) for _ in range(3000)]
    assert [E.Source("t.sh", t, None).line_starts for t in texts] == [_searched_line_starts(t) for t in texts]


def test_unfollowed_start_reads_a_plain_first_word_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """``unfollowed_start``'s lookup of a first word among the plain non-starts (issue 18) gives what its
    general test gives: every such word, the wrappers among them, paths and assignments, before a server."""
    from argtrace.frameworks import detect, unfollowed

    firsts = [*sorted(unfollowed._NOT_A_START), "/bin/echo", "sudo", "X=1", "nohup", "env", "./echo", "vllm"]
    tails = [[], ["python3", "-m", "sglang.launch_server"], ["vllm", "serve", "m"], ["x"]]
    argvs = [[first, *tail] for first in firsts for tail in tails]
    fast = [repr(unfollowed.unfollowed_start(a)) for a in argvs]
    with monkeypatch.context() as m:
        m.setattr(unfollowed, "_PLAIN_NOT_A_START", frozenset())
        slow = [repr(unfollowed.unfollowed_start(a)) for a in argvs]
    assert fast == slow
    assert "sudo" not in unfollowed._PLAIN_NOT_A_START and "export" in unfollowed._PLAIN_NOT_A_START
    # the cached runs_itself answers as the function does
    assert [detect.runs_itself(f) for f in firsts] == [detect.runs_itself.__wrapped__(f) for f in firsts]


_ATTRS = [{}, {"exported": True}, {"readonly": True}, {"exported": True, "readonly": True}, {"assoc": False}]


@pytest.mark.parametrize("attrs", _ATTRS)
@pytest.mark.parametrize(("value", "reason"), [("v", None), (None, "not known"), ("", None)])
def test_set_var_builds_the_var_the_dataclass_builds(
    value: str | None, reason: str | None, attrs: Any
) -> None:
    """``set_var``'s new variable, built in place (issue 18), is ``Var(...)`` field for field, its instance
    dict in the same order."""
    from argtrace.layers.shell import evaluate as E
    from argtrace.layers.shell.state import Var
    from argtrace.layers.shell.syntax import parse_tree

    ev = E.ShellEvaluator(E.Source("t.sh", "", None), [], {}, arg0="t.sh", cwd="/tmp", parse=parse_tree)
    ev.set_var("N", value, at="t.sh:1:1", expansion="N=v", reason=reason, **attrs)
    got = ev.scopes[-1]["N"]
    want = Var(value=value, known=value is not None, reason=reason, at="t.sh:1:1", expansion="N=v", **attrs)
    assert got == want
    assert list(vars(got).items()) == list(vars(want).items())
