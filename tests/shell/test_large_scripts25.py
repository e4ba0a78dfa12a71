"""The twenty-fifth session's shortcuts for big scripts (issue 18), each compared with the path it skips.

A simple command of plain assignments, alone or after ``export`` (``A=b``, ``export A=b C=``), is run
without the lexer and the general command path (``fastpaths._run_plain_decl``).
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from argtrace.layers.shell import evaluate as E
from argtrace.layers.shell import fastpaths
from argtrace.layers.shell.syntax import parse_tree
from tests.shell.test_shell_layer import run

ROOT = Path(__file__).resolve().parents[2]
_NEVER = re.compile(r"(?!)")


def _state(script: str) -> Any:
    """Everything the evaluation leaves that a later pass reads: variables (every field), commands, events,
    servers, the step count and where the script ended."""
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
        ev.steps,
        ev.ended_by,
        ev.cur_at,
    )


def _both(script: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, int]:
    taken = 0
    real = fastpaths.FastPaths._run_plain_decl

    def counted(self: Any, *a: Any) -> int | None:
        nonlocal taken
        taken += 1
        return real(self, *a)

    with monkeypatch.context() as m:
        m.setattr(fastpaths.FastPaths, "_run_plain_decl", counted)
        fast = _state(script)
    with monkeypatch.context() as m:
        m.setattr(fastpaths, "PLAIN_DECL", _NEVER)
        slow = _state(script)
    return fast, slow, taken


PLAIN_SCRIPT = """#!/bin/bash
set -e
A=b
export B=/x/y:z C= D=1
E=b F=c{BLANKS}
exportG=1
readonly R=1
R=2 || true
declare -i I=3
I=4+5
set -a
H=all
set +a
export I=7
if [ -n "$A" ]; then L=/tmp/log.txt; fi
f() { local M=1; N=2; export O=3; }
f
X=$(P=1; echo "$P")
( Q=1; export S=2 )
J=a K=b echo hi
T=(a b) U[1]=v V+=w W=~/x Y=a#b Z=\\$x
python3 -m sglang.launch_server --model-path /m --port 30000
""".replace("{BLANKS}", "  ")


def test_plain_assignments_leave_what_the_general_path_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow, taken = _both(PLAIN_SCRIPT, monkeypatch)
    assert fast == slow
    # the plain ones above, in functions, subshells and substitutions too; not `E=b F=c  `, whose trailing
    # blanks make tree-sitter take the next two lines into its span (the general path reads them apart)
    assert taken == 13


def test_export_as_a_function_or_an_alias_is_not_the_builtin(monkeypatch: pytest.MonkeyPatch) -> None:
    script = (
        "function export { echo fn; }\nexport A=1\nshopt -s expand_aliases\nalias B=true\nC=1\nexport D=2\n"
    )
    fast, slow, taken = _both(script, monkeypatch)
    assert fast == slow
    assert taken == 0  # a function named export, then an alias defined: the general path every time
    fast, slow, taken = _both("function export { echo fn; }\nexport A=1\nB=2\n", monkeypatch)
    assert fast == slow
    assert taken == 1  # B=2 only


def test_random_assignment_lines_give_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(25)
    names = ["A", "_b", "PATH", "R", "I", "a1", "exportX", "A", "_b", "1a", "A[0]", "A+"]
    plain = ["", "v", "/m/x:y", "a=b", "x]", "-1", "a.b,c@d%e"]
    values = ["", "v", "/m/x:y", "a=b", "$A", "${A}", "a b", "'q'", '"d"', "~", "x~y", "a#b", "#", "\\x"]
    values += ["a;b", "a&", "(x)", "{a,b}", "*", "?", "[x]", "x]", "\xa0", "é", "\x85", "$(echo 1)", "`x`"]
    lines = ["readonly R=1", "declare -i I=1", "declare -a ARR=(1)"]
    for _ in range(400):
        words = [
            f"{rng.choice(names)}={rng.choice(plain if rng.random() < 0.8 else values)}"
            for _ in range(rng.randint(1, 3))
        ]
        lead = rng.choice(["", "", "export ", "export\t", "  ", "readonly ", "local ", "true; "])
        tail = rng.choice(["", "", " ", "\t", " # c", " || true", " echo $A"])
        lines.append(lead + " ".join(words) + tail)
    lines.append("python3 -m sglang.launch_server --model-path $A --port 30000")
    fast, slow, taken = _both("\n".join(lines) + "\n", monkeypatch)
    assert fast == slow
    assert 50 < taken < 350  # both paths are common among these lines


_PLAIN_LINE = re.compile(rb"(?m)^[ \t]*(?:export[ \t]+)?[A-Za-z_]\w*=[^\s$`'\"\\~{*?\[;&|<>()#]*[ \t]*$")


def test_corpus_scripts_give_what_the_general_path_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The public scripts of the real-case batches with a plain assignment line: the shell layer's whole
    result (servers, findings, per-command lists) is the same with the path off."""
    files = sorted((ROOT / "tests" / "data").rglob("*.sh")) + sorted((ROOT / "examples").glob("*.sh"))
    scripts = [(p, p.read_bytes()) for p in files]
    scripts = [(p, data) for p, data in scripts if _PLAIN_LINE.search(data)][:60]
    assert len(scripts) == 60
    taken = 0
    real = fastpaths.FastPaths._run_plain_decl

    def counted(self: Any, *a: Any) -> int | None:
        nonlocal taken
        taken += 1
        return real(self, *a)

    for p, data in scripts:
        with monkeypatch.context() as m:
            m.setattr(fastpaths.FastPaths, "_run_plain_decl", counted)
            fast = run(tmp_path, data, "0", "30000")
        with monkeypatch.context() as m:
            m.setattr(fastpaths, "PLAIN_DECL", _NEVER)
            slow = run(tmp_path, data, "0", "30000")
        assert repr(fast) == repr(slow), p
    assert taken >= 60  # at least the plain line each script was chosen for
