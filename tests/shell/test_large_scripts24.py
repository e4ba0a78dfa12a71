"""The twenty-fourth session's shortcuts for big scripts (issue 18), each compared with the path it skips.

Arithmetic of decimal literals only (``$((30000 + 7))``) answered without the expression evaluator, the
shell result's per-command lists made in one pass over the commands, a ``"$NAME"``/``"${NAME}"`` word
expanded from the parts its match gives, SH044's pass over the commands leaving at once a declaration
with no word but assignments, and the end of a ``${...}`` without nested quotes or expansions found with one
match.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import analysis, lexer, lost, params, wordparts
from argtrace.layers.shell.arith import ArithError, Evaluator, literal_value
from argtrace.model import VanishedWord
from tests.shell.test_shell_layer import run

ROOT = Path(__file__).resolve().parents[2]


def _evaluated(expr: str) -> int | str:
    try:
        return Evaluator(lambda name: None, lambda name, value: None).evaluate(expr)
    except ArithError as e:
        return f"error: {e}"


def test_literal_arithmetic_is_what_the_evaluator_gives() -> None:
    rng = random.Random(24)
    pieces = ["0", "1", "7", "09", "010", "30000", "9" * 18, "9" * 19, "1" * 25, "0x1f", "2#101", "x"]
    pieces += [" ", "  ", "\t", "\n", "+", "-", "*", "/", "%", "**", "<<", "(", ")", "\xa0", "\u0663"]
    exprs = ["30000 + 7", " 5", "5 ", "1+2", "3 - 9", "4*5", "9" * 18 + "*" + "9" * 18, "", "+", "1 + 2 + 3"]
    exprs += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(20_000)]
    taken = 0
    for expr in exprs:
        fast = literal_value(expr)
        if fast is not None:
            taken += 1
            assert fast == _evaluated(expr), repr(expr)
    assert 1000 < taken < len(exprs) - 1000  # both paths are common among these expressions
    assert literal_value("9" * 18 + "*" + "9" * 18) == _evaluated("9" * 18 + "*" + "9" * 18)  # wraps
    assert literal_value("010 + 1") is None  # octal: the evaluator's


def _result(r: Any) -> Any:
    return (
        [(s.at, [(w.text, w.origin) for w in s.argv], sorted(s.env.items())) for s in r.servers],
        [(f.code, f.severity, f.at, f.message, f.fix) for f in r.findings],
        r.commands,
        r.command_vanished,
        r.command_paths,
        r.command_dirs,
        r.command_background,
        r.command_io,
        r.command_env,
        r.command_holed,
    )


ARITH_SCRIPT = """#!/bin/bash
set -e
BASE=30000
PORT=$((30000 + 7))
N=$(( 4 * 5 ))
M=$((010 + 1))
W=$((9223372036854775807 + 1))
D=$((BASE - 1))
(( I = 3 ))
J=$(( 2*3 ))
declare -i K=7+1
A[$((1 + 1))]=x
echo $((0)) $(( 12 )) "${A[2]}"
python3 -m sglang.launch_server --model-path /m --port $PORT --tp-size $((1 + 1)) --x $N,$M,$W,$D,$I,$J,$K
"""


def test_scripts_with_arithmetic_give_what_the_evaluator_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted((ROOT / "tests" / "data").rglob("*.sh")) + sorted((ROOT / "examples").glob("*.sh"))
    scripts = [p.read_bytes() for p in files if re.search(rb"\$\(\(|\(\(|\blet\b", p.read_bytes())][:40]
    scripts.append(ARITH_SCRIPT.encode())
    assert len(scripts) > 10
    for data in scripts:
        fast = _result(run(tmp_path, data, "0", "30000"))
        with monkeypatch.context() as m:
            m.setattr(params, "literal_value", lambda expr: None)
            slow = _result(run(tmp_path, data, "0", "30000"))
        assert fast == slow, data[:200]
    (server,) = run(tmp_path, ARITH_SCRIPT).servers
    assert [w.text for w in server.argv][5:] == [
        *("--port", "30007", "--tp-size", "2"),
        *("--x", "20,9,-9223372036854775808,29999,3,6,8"),
    ]


def _columns_by_comprehensions(commands: list[Any]) -> tuple[list[Any], ...]:
    """What ``analyze`` made before ``_command_columns``: one list comprehension per field."""
    return (
        [(c.at, list(c.texts), c.conditional) for c in commands],
        [tuple(VanishedWord(v.index, v.raw, v.at, v.state, v.name) for v in c.vanished) for c in commands],
        [c.path for c in commands],
        [(c.moved, c.cwd) for c in commands],
        [c.background for c in commands],
        [c.io for c in commands],
        [c.env for c in commands],
        {number: c.holed for number, c in enumerate(commands) if c.holed},
    )


COLUMNS_SCRIPT = """#!/bin/bash
cd /tmp
PATH=/opt/bin:$PATH docker compose up -d
docker run --rm $EMPTY img $UNSET_X serve &
cat <<EOF > cfg.yaml
a: 1
EOF
python3 -m sglang.launch_server --model-path /m $NOTHING --port 30000
ip=$(hostname -I)
ssh node1 "python3 -m sglang.launch_server --dist-init-addr $ip:5000"
"""


def test_the_per_command_lists_are_those_the_comprehensions_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted((ROOT / "tests" / "data" / "shell").rglob("*.sh"))[:40]
    scripts = [p.read_bytes() for p in files] + [COLUMNS_SCRIPT.encode()]
    seen_vanished = seen_holed = False
    for data in scripts:
        fast = _result(run(tmp_path, data, "0", "30000"))
        with monkeypatch.context() as m:
            m.setattr(analysis, "_command_columns", _columns_by_comprehensions)
            slow = _result(run(tmp_path, data, "0", "30000"))
        assert fast == slow, data[:200]
        seen_vanished = seen_vanished or any(fast[3])
        seen_holed = seen_holed or bool(fast[9])
    assert seen_vanished  # a command with vanished words is among them
    assert seen_holed  # and one with a word known but for a value (layers/shell/holes.py)


QUOTED_SCRIPT = """#!/bin/bash
A="a b"
E=
X=$(some_tool)
if [ -n "${A}" ] && [ -z "$E" ]; then B="$A"; fi
[ -n "${UNSET_Y}" ] || C="${X}"
for w in "$A" "${E}" "$UNSET_Z"; do echo "$w"; done
set -u
D="${A}"
python3 -m sglang.launch_server --model-path "$A" --served-model-name "${E}" --x "$X" "$UNSET_W" --y "$1"
"""


def test_quoted_names_expand_as_the_general_reader_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = sorted((ROOT / "tests" / "data" / "shell").rglob("*.sh")) + sorted(
        (ROOT / "examples").glob("*.sh")
    )
    scripts = [p.read_bytes() for p in files if re.search(rb'"\$\{?[A-Za-z_]', p.read_bytes())][:40]
    scripts.append(QUOTED_SCRIPT.encode())
    assert len(scripts) > 20
    for data in scripts:
        fast = _result(run(tmp_path, data, "0", "30000"))
        with monkeypatch.context() as m:
            # neither expand_word's shortcut nor parse_word's: the general reader's parts
            m.setattr(wordparts, "QUOTED_NAME", re.compile("(?!)"))
            slow = _result(run(tmp_path, data, "0", "30000"))
        assert fast == slow, data[:200]


def _evaluator(options: str) -> Any:
    from argtrace.layers.shell.core import Source, _prepare
    from argtrace.layers.shell.evaluate import ShellEvaluator
    from argtrace.layers.shell.syntax import parse_tree

    # UNSET_1 is the script's own (assigned on a branch not taken): unset under `set -u` it is the exit; a
    # name the script never assigns is the caller's, read as unknown (fa27, session 27)
    text = _prepare(
        f'A="a b"\nE=\nX=$(some_tool)\ndeclare -a R=(1 2)\nif false; then UNSET_1=own; fi\n{options}\n'
    )
    src = Source("w.sh", text, None)
    src.tree = parse_tree(text)
    ev = ShellEvaluator(src, ["p 1"], {"HOME": "/root", "Q": "*"}, arg0="w.sh", cwd="/tmp", parse=parse_tree)
    ev.run()
    return ev


def _expanded(ev: Any, tok: Any) -> Any:
    """What expanding ``tok`` gives: its fields (or the exit it raises), vanished words and events."""
    vanished: list[Any] = []
    before = len(ev.events)
    try:
        fields: Any = ev.expand_word(tok, vanished=vanished)
    except Exception as e:  # `set -u`'s exit
        fields = (type(e).__name__, e.args)
    return fields, vanished, ev.events[before:]


def test_a_quoted_names_fields_and_events_are_the_general_readers(monkeypatch: pytest.MonkeyPatch) -> None:
    from argtrace.layers.shell.lexer import WordTok

    names = ["A", "E", "X", "R", "Q", "HOME", "UNSET_1", "_", "a1", "1", "@", "*", "#", "PWD"]
    words = [f'"${n}"' for n in names] + [f'"${{{n}}}"' for n in names]
    words += ['"$A"x', '"$A$E"', '"${A}"b', '"$ A"', '"${A:-z}"', '"$"']
    shapes = set()
    for options in ("", "set -u", "IFS=", "set -f"):
        for i, raw in enumerate(words):
            tok = WordTok(raw, 1 + i)
            fast = _expanded(_evaluator(options), tok)
            with monkeypatch.context() as m:
                m.setattr(wordparts, "QUOTED_NAME", re.compile("(?!)"))  # the general reader's parts
                slow = _expanded(_evaluator(options), tok)
            assert fast == slow, (options, raw)
            shapes.add(type(fast[0]).__name__)
    assert shapes == {"list", "tuple"}  # fields, and set -u's exit


def test_declarations_without_words_are_those_sh044_found_none_in(monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace

    from argtrace.layers.shell.core import PredictedCommand

    rng = random.Random(44)
    pool = [None, "", "A=1", "-x", "python3", "-m", "sglang.launch_server", "vllm", "serve", "--port", "1"]
    commands = [
        PredictedCommand(
            f"f:{i}:1", [rng.choice(lost.DECLARATIONS), *rng.choices(pool, k=rng.randint(0, 6))], None
        )
        for i in range(3000)
    ]
    ev = SimpleNamespace(commands=commands)
    fast = [(f.code, f.at, f.message) for f in lost.declared_server_findings(ev)]  # type: ignore[arg-type]
    with monkeypatch.context() as m:
        m.setattr(lost, "any", lambda words: True, raising=False)  # the pass without the early leave
        slow = [(f.code, f.at, f.message) for f in lost.declared_server_findings(ev)]  # type: ignore[arg-type]
    assert fast == slow
    assert 30 < len(fast) < 2900
    assert sum(not any(c.texts[1:]) for c in commands) > 100  # the early leave is taken


def _braces_end(scan: Any, text: str, i: int) -> int | str:
    try:
        return int(scan(text, i))
    except lexer.LexError as e:
        return str(e)


def test_the_end_of_plain_braces_is_where_the_loop_finds_it() -> None:
    rng = random.Random(18)
    alphabet = "ab_:+-#%/ \t\n{}$()'\"`\\"
    texts = ["PORT_7:+x}", "X}", "}", "", "X:-${Y}}", "A:-'}'}", 'A:-"}"}', "A:-\\}}", "A:-`}`}", "A{}}"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(30_000)]
    plain = 0
    for text in texts:
        for i in (0, 1):
            if i > len(text):
                continue
            assert _braces_end(lexer.skip_braces, text, i) == _braces_end(lexer._skip_braces, text, i), text
            plain += lexer._PLAIN_BRACES.match(text, i) is not None
    assert 3000 < plain < 50_000  # the shortcut is taken, and so is the loop
