"""The fast paths that make a 1 MB script cheap to check (issue 18) give what the general paths give.

Each shortcut is compared with the path it skips: the lexer's plain-word reading and its parenthesis
search on every short string over the characters they treat specially (and on random longer ones),
``"$NAME"`` parsing, plain and bracket words, ``Var`` copies and exported assignments; then whole scripts
are analysed with every shortcut switched off and on, which must give the same servers, commands and
findings. ``bash -n`` reads the script from a regular file and runs beside the evaluation; its answer is
the one ``bash -n FILE`` gives. Nothing here asserts on time (bench/large_script.py measures it)."""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import evaluate as E
from argtrace.layers.shell import expand as X
from argtrace.layers.shell import fastpaths, params, state, syntax
from argtrace.layers.shell import lexer as L
from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.result import ShellResult
from argtrace.layers.shell.syntax import parse_tree
from tests.shell.test_shell_layer import run

ROOT = Path(__file__).resolve().parents[2]
NEVER = re.compile(r"(?!)")  # a pattern that matches nothing: the shortcut is never taken


def _toks(text: str, **kw: Any) -> Any:
    try:
        t = L.tokenize_command(text, 0, len(text), **kw)
    except L.LexError as e:
        return ("LexError", str(e))
    return (
        [(w.raw, w.start, w.assign) for w in t.words],
        [(r.op, r.fd, r.target and (r.target.raw, r.target.start), r.start, r.heredoc) for r in t.redirs],
        t.end,
        t.stopped_at,
    )


def _both(fn: Any, monkeypatch: pytest.MonkeyPatch, name: str, obj: Any, off: Any) -> tuple[Any, Any]:
    fast = fn()
    with monkeypatch.context() as m:
        m.setattr(obj, name, off)
        slow = fn()
    return fast, slow


# ------------------------------------------------------------------------------------------- the lexer

_WORD_ALPHABET = "a1²=({})<>&;|#'\"$`\\ \n-"


def test_plain_words_read_as_the_general_reader_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["".join(p) for n in range(1, 4) for p in itertools.product(_WORD_ALPHABET, repeat=n)]
    texts += [
        "export MODEL_DIR_1=/workspace/models/m1",
        "2>err x",
        "²>err x",
        "{fd}>log cmd",
        "arr=(1 2) b",
        "echo @(a|b) x",
        "a#b #c",
        "X=1 Y=2 cmd a b",
        "cmd a;b&&c|d",
        "cat <<EOF\nbody\nEOF\n",
    ]
    rng = random.Random(18)
    texts += [
        "".join(rng.choice(_WORD_ALPHABET + "abc  ") for _ in range(rng.randint(4, 30)))
        for _ in range(20_000)
    ]
    for text in texts:
        for kw in ({}, {"multiline": True}):
            fast, slow = _both(lambda t=text, k=kw: _toks(t, **k), monkeypatch, "_SIMPLE_WORD", L, NEVER)
            assert fast == slow, (text, kw)


# pieces of words around a quoted name: the shortcut must take exactly the whole words `"$X"`/`"${X}"`
_QUOTED_PIECES = ['"$X"', '"${X}"', '"$', '"${', "X", "}", '"', " ", ";", ")", "(", "\n", "a", "$", "\\", "'",
                  "1", "<", ">", "#", "=", "X_9"]  # fmt: skip


def test_quoted_names_read_as_the_general_reader_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = ["".join(p) for n in range(1, 4) for p in itertools.product(_QUOTED_PIECES, repeat=n)]
    rng = random.Random(18)
    texts += ["".join(rng.choice(_QUOTED_PIECES) for _ in range(rng.randint(4, 9))) for _ in range(8_000)]
    taken = 0
    for text in texts:
        taken += L._QUOTED_NAME_WORD.match(text) is not None
        for kw in ({}, {"multiline": True}):
            fast, slow = _both(lambda t=text, k=kw: _toks(t, **k), monkeypatch, "_QUOTED_NAME_WORD", L, NEVER)
            assert fast == slow, (text, kw)
    assert taken > 300  # texts that start with a word it takes: the shortcut is taken, not only skipped


_PAREN_ALPHABET = "()a c\\'\"$`#;"


def test_the_parenthesis_search_stops_where_the_character_loop_stops() -> None:
    texts = ["".join(p) for n in range(1, 6) for p in itertools.product(_PAREN_ALPHABET, repeat=n)]
    texts += ["(30000 + 1))", "case $x in a) echo;; esac)", "echo $(date) )", "(1 + (2 * 3)))", "esac)"]
    rng = random.Random(18)
    texts += [
        "".join(rng.choice(_PAREN_ALPHABET + "sein") for _ in range(rng.randint(6, 40)))
        for _ in range(20_000)
    ]
    for text in texts:
        got: list[Any] = []
        for fn in (L.skip_parens, L._skip_parens_chars):
            try:
                got.append(fn(text, 0))
            except L.LexError as e:
                got.append(("LexError", str(e)))
        assert got[0] == got[1], text


@pytest.mark.parametrize("raw", ['"$X"', '"${X}"', '"$_a9"', '"${MODEL_DIR_12}"', '"$X"', '"${X_1}"'])
def test_a_quoted_name_parses_as_the_general_reader_parses_it(raw: str) -> None:
    for assignment in (False, True):
        fast = W.parse_word(raw, assignment=assignment)
        assert len(fast) == 3  # taken by the shortcut: DQStart, Param, DQEnd
        assert fast == W._parse_word(raw, False, assignment)


@pytest.mark.parametrize("raw", ['"$1"', '"${X:-a}"', '"$X$Y"', '"${X}y"', '"$@"', '"${#X}"', '"${!X}"'])
def test_other_quoted_words_are_not_taken_for_a_name(raw: str) -> None:
    assert W.QUOTED_NAME.fullmatch(raw) is None
    assert W.parse_word(raw) == W._parse_word(raw)


# ---------------------------------------------------------------------------------------- the evaluator


def _evaluator(text: str) -> E.ShellEvaluator:
    src = E.Source("t.sh", text, None)
    src.tree = parse_tree(text)
    return E.ShellEvaluator(src, [], {"HOME": "/root"}, arg0="t.sh", cwd="/tmp", parse=parse_tree)


@pytest.mark.parametrize("raw", ["[", "]", "a]", "[a", "x[1]", "[ab]", "]]", "a[", "[[", "-n"])
def test_plain_and_bracket_words_expand_as_the_general_expansion_does(raw: str) -> None:
    text = f"echo {raw}\n"
    ev = _evaluator(text)
    tok = L.WordTok(raw, 5)
    fast = ev.expand_word(tok)
    slow = ev._expand_one(raw, ev.src.at(5), 5, None)
    assert fast == slow


_VARIABLES = (
    "A=1\nE=\nS='x y'\nG='*.txt'\nQ='a?'\nB='[ab]'\nU=$(hostname)\narr=(p 'q r')\nset -- one 'two 2'\n"
)
_PIECES = ["$A", "${E}", "$S", "$G", "$Q", "$B", "$U", "$N", "${arr[1]}", "$@", "$*", "$1", "${A:+x}",
           "${N:-d}", "a", "*", "[x]", "~", "$((1+2))", "$(echo hi)", "`echo hi`", "\\*", "b c"]  # fmt: skip


def test_known_unsplit_words_expand_as_the_splitting_loop_expands_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    quoted = [f'"{p}"' for p in _PIECES] + [f"'{p}'" for p in _PIECES] + ['""', "''", '"$E"x', "x''"]
    words = [*_PIECES, *quoted]
    words += [a + b for a in words for b in [*_PIECES[:6], *quoted[:6], "=", "-"]]
    ev = _evaluator(_VARIABLES)
    ev.run()
    taken = sum(X._one_field(ev.expand_parts(W.parse_word(w), "t.sh:1:1")) is not None for w in words)
    assert taken > 300  # the shortcut is taken, not only skipped

    def expand_all() -> Any:
        ev = _evaluator(_VARIABLES)  # a fresh one each way: an event is recorded once per place
        ev.run()
        out = []
        for w in words:
            vanished: list[Any] = []
            out.append((w, ev._expand_one(w, "t.sh:1:1", 0, vanished), vanished))
        return out, ev.events

    fast, slow = _both(expand_all, monkeypatch, "_one_field", X, lambda chunks: None)
    assert fast == slow


def test_a_var_copy_is_what_dataclasses_replace_gives() -> None:
    v = state.Var(value="x", exported=True, at="t.sh:1:1", expansion="X=x")
    for kw in ({}, {"value": "y"}, {"exported": False, "readonly": True}, {"known": False, "reason": "r"}):
        got = v.with_(**kw)
        assert got == dataclasses.replace(v, **kw) and type(got) is state.Var
        assert got is not v
    assert v.value == "x"  # the original is untouched
    with pytest.raises(TypeError):
        v.with_(colour="red")


def test_a_new_var_is_what_the_dataclass_builds() -> None:
    for kw in ({}, {"value": "x", "exported": True, "at": "t.sh:1:1"}, {"known": False, "reason": "r"}):
        got = state.new_var(**kw)
        assert got == state.Var(**kw) and type(got) is state.Var
        assert list(vars(got).items()) == list(vars(state.Var(**kw)).items())  # the same fields, in order
        # and a dict sharing the class's keys, as the dataclass's own: smaller than a plain dict of them
        assert sys.getsizeof(vars(got)) < sys.getsizeof(dict(vars(got))) - 64
    with pytest.raises(TypeError):
        state.new_var(colour="red")


def test_assignment_words_split_as_the_assignment_pattern_splits_them() -> None:
    # every word of up to 5 characters over those the pattern treats specially, and random longer ones
    alphabet = "aZ_09=+[]$ -\xe9"
    rng = random.Random(18)
    words = ["".join(p) for n in range(6) for p in itertools.product("a_9=+[]", repeat=n)]
    words += ["".join(rng.choice(alphabet) for _ in range(rng.randint(6, 16))) for _ in range(20_000)]
    for w in words:
        m = L.ASSIGN_RE.match(w)
        assert L.assign_parts(w) == (None if m is None else (m.group(1), m.group(2), m.group(3), m.end())), w


_DECLARATIONS = """
export A=1
export A=2
declare -x B=2
readonly C=3
declare -i D=1+2
declare -ri E=4
local F=1 2>/dev/null
export G
G=5
declare -a H=(1 2)
declare -A J=([k]=v)
typeset -x K="$A$B"
set -a
L=1
set +a
f() { local M=1; export N=2; declare O=3; }
f
"""


def test_exported_assignments_store_what_the_general_path_stores(monkeypatch: pytest.MonkeyPatch) -> None:
    def scopes() -> list[dict[str, Any]]:
        ev = _evaluator(_DECLARATIONS)
        ev.run()
        return [dict(s) for s in ev.scopes]

    fast, slow = _both(scopes, monkeypatch, "_FLAG_ATTRS", params, frozenset())
    assert fast == slow
    assert fast[0]["A"].value == "2" and fast[0]["A"].exported
    assert fast[0]["N"].exported and "O" not in fast[0]


def _all_shortcuts_off(m: pytest.MonkeyPatch) -> None:
    m.setattr(L, "_SIMPLE_WORD", NEVER)
    m.setattr(L, "_PAREN", NEVER)  # no parenthesis found: the character loop reads every $( )
    m.setattr(W, "QUOTED_NAME", NEVER)
    m.setattr(L, "_QUOTED_NAME_WORD", NEVER)
    m.setattr(X, "_one_field", lambda chunks: None)
    m.setattr(X, "_PLAIN_BRACKETS", NEVER)
    m.setattr(params, "_FLAG_ATTRS", frozenset())
    m.setattr(state.Var, "with_", lambda self, **kw: dataclasses.replace(self, **kw))
    m.setattr(fastpaths, "PLAIN_DECL", NEVER)
    m.setattr(fastpaths, "PLAIN_TEST", NEVER)


def _summary(r: ShellResult) -> Any:
    return (
        [(s.at, [(w.text, w.origin) for w in s.argv], sorted(s.env.items())) for s in r.servers],
        r.commands,
        [(f.code, f.at, f.message) for f in r.findings],
        r.syntax_ok,
        r.exit_reason,
    )


def _bench_script(lines: int) -> str:
    out = ["#!/usr/bin/env bash", "set -e"]
    for i in range(lines):
        out.append(
            [
                f"export MODEL_DIR_{i}=/workspace/models/m{i}",
                f"PORT_{i}=$((30000 + {i}))",
                f'OPTS_{i}="--tp-size 1 --mem-fraction-static 0.8${{PORT_{i - 1}:+x}}"',
                f'if [ -n "${{MODEL_DIR_{i - 3}}}" ]; then LOG_{i}=/tmp/log_{i}.txt; fi',
                f"# comment line {i}",
                f"HF_TOKEN_{i}=hf_{i:08d}abcdef",
            ][i % 6]
        )
    out.append("python3 -m sglang.launch_server --model-path $MODEL_DIR_0 --port $PORT_1 --tp-size 2")
    return "\n".join(out) + "\n"


def _corpus() -> list[tuple[str, bytes]]:
    files = sorted((ROOT / "tests" / "data").rglob("*.sh")) + sorted((ROOT / "examples").glob("*.sh"))
    out = [(str(p.relative_to(ROOT)), p.read_bytes()) for p in files]
    return [*out, ("bench.sh", _bench_script(600).encode())]


def test_whole_scripts_give_the_same_result_with_every_shortcut_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = _corpus()
    assert len(corpus) > 50
    for name, data in corpus:
        fast = _summary(run(tmp_path, data, "0", "30000"))
        with monkeypatch.context() as m:
            _all_shortcuts_off(m)
            slow = _summary(run(tmp_path, data, "0", "30000"))
        assert fast == slow, name
    (server,) = run(tmp_path, _bench_script(600)).servers
    assert [w.text for w in server.argv] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "/workspace/models/m0",
        "--port",
        "30001",
        "--tp-size",
        "2",
    ]
    assert server.env["MODEL_DIR_594"].value == "/workspace/models/m594"


# ---------------------------------------------------------------------------------------------- bash -n


def test_bash_n_reads_a_regular_file_and_answers_as_bash_n_on_the_file(tmp_path: Path) -> None:
    script = tmp_path / "broken.sh"
    data = ("x=1\n" * 30_000 + "if true; then\n  echo a\n").encode()
    script.write_bytes(data)
    direct = subprocess.run(["bash", "-n", str(script)], capture_output=True, check=False)
    assert direct.returncode == 2
    problems = syntax.bash_syntax_errors(data, "broken.sh")
    assert problems == [syntax.SyntaxProblem(30003, "syntax error: unexpected end of file")]
    assert direct.stderr.decode().strip() == f"{script}: line 30003: syntax error: unexpected end of file"
    assert syntax.bash_syntax_errors(b"x=1\n" * 30_000, "fine.sh") == []


def test_bash_n_starts_before_the_evaluation_and_is_read_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    real_start, real_result, real_run = (
        syntax.start_bash_syntax_check,
        syntax.PendingSyntax.result,
        E.ShellEvaluator.run,
    )

    def start(data: bytes, label: str, timeout: float = 20.0) -> syntax.PendingSyntax:
        events.append("start")
        return real_start(data, label, timeout)

    def result(self: syntax.PendingSyntax) -> Any:
        events.append("result")
        return real_result(self)

    def evaluate(self: E.ShellEvaluator) -> Any:
        events.append("evaluate")
        return real_run(self)

    from argtrace.layers.shell import analysis

    monkeypatch.setattr(analysis, "start_bash_syntax_check", start)
    monkeypatch.setattr(syntax.PendingSyntax, "result", result)
    monkeypatch.setattr(E.ShellEvaluator, "run", evaluate)
    r = run(tmp_path, "#!/bin/bash\nif true; then\n python3 -m sglang.launch_server --port 1\n")
    assert events == ["start", "evaluate", "result"]
    assert [f.code for f in r.findings][:1] == ["SH001"]  # still the first finding
    assert (
        r.findings[0].message == "bash cannot parse launch.sh (line 4): syntax error: unexpected end of file"
    )


@pytest.mark.parametrize(
    "text", ["a=1\n\nb=2 # é\nc=3\n" * 50, "a=1\n\nb=2 # e\nc=3\n" * 50 + "d=4"], ids=["utf8", "ascii"]
)
def test_locations_read_in_any_order_are_those_of_a_fresh_reading(text: str) -> None:
    # the second is ASCII (Source.at then makes the locations of a line from its column) and ends without
    # a newline; offsets past the end are asked too
    offsets = list(range(len(text) + 3))
    rng = random.Random(18)
    orders = [offsets, offsets[::-1], rng.sample(offsets, len(offsets))]
    for order in orders:
        src = E.Source("t.sh", text, None)
        for off in order:
            fresh = E.Source("t.sh", text, None)
            assert src.at(off) == fresh.at(off) and src.line_col(off) == fresh.line_col(off), off
