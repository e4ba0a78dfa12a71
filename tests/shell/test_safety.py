"""The shell evaluator never hangs (issue 24): nesting, endless loops, restart loops, every valid `case`
form, and a command with 10^5 flags. A hang fails the test instead of hanging CI (``signal.alarm`` around
in-process runs, a subprocess timeout around the CLI)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType

import pytest

from argtrace.layers.shell import ShellResult
from argtrace.layers.shell import evaluate as E
from tests.conftest import REPO
from tests.shell.test_fuzz_differential import compare
from tests.shell.test_shell_layer import only, run

SERVER = "python3 -m sglang.launch_server --model-path /m"


class Hang(Exception):
    pass


@contextlib.contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging) when the block takes longer than ``seconds``."""

    def alarm(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def cli_json(tmp_path: Path, script: str, *extra: str, timeout: float = 120) -> dict[str, object]:
    """``argtrace check --format json`` on ``script`` in a subprocess that may not outlive ``timeout``."""
    (tmp_path / "launch.sh").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "argtrace", "check", *extra, "--format", "json", "launch.sh"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    data: dict[str, object] = json.loads(proc.stdout)
    return data


def last_word(r: ShellResult) -> str | None:
    return r.servers[0].argv[-1].text


# ------------------------------------------------------------------------------------- nesting


def nest(depth: int, command: str, inner: str = "echo a") -> str:
    text = inner
    for _ in range(depth):
        text = f"{command} $({text})"
    return text


def test_nested_command_substitutions_are_evaluated_once_per_level(tmp_path: Path) -> None:
    # 18 levels of $(cat $(cat ...)) took 38 s (each level evaluated twice: _emulate, then _capture)
    t0 = time.monotonic()
    with within(30):
        r = run(tmp_path, f"x=$({nest(18, 'cat')})\n{SERVER} --port $x\n")
    assert time.monotonic() - t0 < 10
    word = r.servers[0].argv[-1]
    assert word.text is None
    assert word.origin.reason == (
        "command substitution `$(cat $(cat $(cat $(cat $(cat $(cat $(cat $(cat $(cat $(c...` runs only at "
        "run time (unquoted: it may also split into several words)"
    )


def test_nested_function_substitutions_stay_linear(tmp_path: Path) -> None:
    t0 = time.monotonic()
    with within(30):
        r = run(tmp_path, f"f() {{ echo $1; }}\nx=$({nest(18, 'f')})\n{SERVER} --port $x\n")
    assert time.monotonic() - t0 < 10
    assert last_word(r) is None  # deeper than the 8 nested captures argtrace follows


def test_nested_echo_substitutions_are_still_computed(tmp_path: Path) -> None:
    with within(30):
        r = run(tmp_path, f"x=$({nest(18, 'echo')})\n{SERVER} --port $x\n")
    assert last_word(r) == "a"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("echo -e 'a\\tb'", "a\tb"),
        ("echo -ne x", "x"),
        ("printf '%s-%s' a b", "a-b"),
        ("printf", ""),
        ("pwd extra", "{cwd}"),
        ("echo $(cat f)", None),
        ("dirname $(echo /a/b/c)", "/a/b"),
    ],
)
def test_emulated_substitutions_match_bash(tmp_path: Path, body: str, expected: str | None) -> None:
    (tmp_path / "f").write_text("from the file\n")
    r = run(tmp_path, f'x="$({body})"\n{SERVER} --x "$x"\n')
    want = expected.format(cwd=tmp_path) if expected is not None else None
    assert last_word(r) == want
    if want is not None:
        bash = subprocess.run(
            ["bash", "-c", f'x="$({body})"; printf %s "$x"'],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        )
        assert bash.stdout == want


@pytest.mark.parametrize(
    "body",
    ["echo ${y:=5}", "echo ${y=5}", "echo $((y = 5))", "echo $((y++))", "dirname ${y:=/a/b}"],
)
def test_assignments_inside_a_substitution_stay_in_its_subshell(tmp_path: Path, body: str) -> None:
    text = f'#!/bin/bash\nx=$({body})\n{SERVER} --x "$x" --y "$y"\n'
    got = compare(text, [], tmp_path)
    assert got is not None, "the prediction has an unknown word"
    pred, real = got
    assert pred == real
    r = run(tmp_path, text)
    assert r.servers[0].argv[-1].text == ""  # y is set only inside $(...)


def test_unknown_eval_inside_a_substitution_makes_it_unknown_not_empty(tmp_path: Path) -> None:
    r = run(tmp_path, f"x=$(eval echo $(cat f))\n{SERVER} --port $x\n")
    assert last_word(r) is None


# ------------------------------------------------------------------------------------- budget


def test_endless_nested_loops_end_in_the_budget_finding(tmp_path: Path) -> None:
    script = (
        f"{SERVER} --port 1\nwhile true; do\n  while true; do n=$((n + 1)); done\ndone\n{SERVER} --port 2\n"
    )
    t0 = time.monotonic()
    with within(120):
        r = run(tmp_path, script)
    elapsed = time.monotonic() - t0
    steps = E.MAX_STEPS + len(script) // E.STEP_BYTES
    f = only(r, "SH029")
    assert f.severity == "info"
    assert f.at == "launch.sh:3:15"
    assert f.message == (
        f"argtrace stopped evaluating at launch.sh:3:15 after {steps} steps (its evaluation budget); "
        "what comes after is not followed"
    )
    # what was found before the budget ran out is still analysed
    assert [[w.text for w in s.argv][-1] for s in r.servers] == ["1"]
    print(f"budget of {steps} steps reached in {elapsed:.1f} s")


def test_corpus_scripts_are_far_below_the_budget() -> None:
    counted: list[int] = []
    original = E.ShellEvaluator.run

    def counting(self: E.ShellEvaluator) -> int | None:
        status = original(self)
        counted.append(self.steps)
        return status

    from argtrace.layers.shell import ScriptSource, analyze_script

    E.ShellEvaluator.run = counting  # type: ignore[method-assign]
    try:
        for script in sorted((REPO / "tests" / "data" / "shell").glob("*/*.sh")):
            analyze_script(
                ScriptSource(script.name, script.read_bytes(), script),
                [],
                {"PATH": "/usr/bin:/bin"},
                run_shellcheck=False,
                cwd=str(script.parent),
            )
    finally:
        E.ShellEvaluator.run = original  # type: ignore[method-assign]
    assert len(counted) >= 80
    assert max(counted) <= 100  # 300 times below MAX_STEPS


# ------------------------------------------------------------------------------------- restart loops


def test_restart_loop_is_one_repeated_server(tmp_path: Path) -> None:
    script = f"#!/bin/bash\nwhile true; do\n  {SERVER} --port 30000\n  sleep 5\ndone\n"
    with within(60):
        data = cli_json(tmp_path, script)
    servers = data["servers"]
    assert isinstance(servers, list) and len(servers) == 1
    assert servers[0]["at"] == "launch.sh:3:3"
    assert servers[0]["repeated"] is True
    assert servers[0]["loop"] == "launch.sh:2"
    assert len(json.dumps(data)) < 100_000


def test_restart_loop_text_says_where_the_loop_is(tmp_path: Path) -> None:
    (tmp_path / "launch.sh").write_text(f"until false; do\n  {SERVER}\ndone\n")
    proc = subprocess.run(
        [sys.executable, "-m", "argtrace", "check", "launch.sh"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO / "src")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (
        "Server 1 of 1 at launch.sh:2:3: sglang sglang.launch_server (in a loop at launch.sh:1)\n"
        in proc.stdout
    )


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        # (server at, loop) for each server reported
        (f"until false; do {SERVER}; done\n", [("launch.sh:1:17", "launch.sh:1")]),
        (f"for i in $(seq 1000); do {SERVER}; done\n", [("launch.sh:1:26", "launch.sh:1")]),
        (f"for ((;;)); do {SERVER}; done\n", [("launch.sh:1:16", "launch.sh:1")]),
        (f"until {SERVER}; do sleep 1; done\n", [("launch.sh:1:7", "launch.sh:1")]),
        (f"for i in 0 1 2 3; do {SERVER}; done\n", [("launch.sh:1:22", "launch.sh:1")]),
        # two different starts in one loop body stay two servers
        (
            f"while true; do\n  {SERVER}\n  vllm serve /m\ndone\n",
            [("launch.sh:2:3", "launch.sh:1"), ("launch.sh:3:3", "launch.sh:1")],
        ),
        # one start per GPU: four different commands, each runs once
        (
            f"for i in 0 1 2 3; do {SERVER} --port 3000$i & done\nwait\n",
            [("launch.sh:1:22", None)] * 4,
        ),
        (f"{SERVER}\n", [("launch.sh:1:1", None)]),
    ],
)
def test_server_starts_in_loops(tmp_path: Path, script: str, expected: list[tuple[str, str | None]]) -> None:
    with within(60):
        r = run(tmp_path, script)
    assert [(s.at, s.loop) for s in r.servers] == expected
    assert [s.repeated for s in r.servers] == [loop is not None for _, loop in expected]


def test_a_loop_that_changes_the_command_each_time_is_cut_at_64_servers(tmp_path: Path) -> None:
    with within(60):
        r = run(tmp_path, f"n=0\nwhile true; do {SERVER} --port $((30000 + n)); n=$((n + 1)); done\n")
    assert [s.argv[-1].text for s in r.servers] == [str(30000 + i) for i in range(64)]
    assert {s.loop for s in r.servers} == {"launch.sh:2"}
    assert only(r, "SH024").message == (
        "argtrace reached the limit of 64 different servers started by one command in a loop (the rest "
        "are folded into the last one); values after this point may be incomplete"
    )


# ------------------------------------------------------------------------------------- case forms

CASE_FORMS = {
    "leading paren": "x=a\ncase $x in (a) P=1;; (b) P=2;; esac\n",
    "fall through": "x=a\ncase $x in a) P=1;& b) P=${P}2;; c) P=3;; esac\n",
    "test next": "x=a\ncase $x in a) P=1;;& a|b) P=${P}2;; *) P=${P}3;; esac\n",
    "alternatives": "x=b\ncase $x in a|b) P=1;; esac\n",
    "extglob": "shopt -s extglob\nx=abc\ncase $x in @(abc|d)) P=1;; *) P=2;; esac\n",
    "extglob not matching": "shopt -s extglob\nx=d\ncase $x in !(abc|d)) P=1;; *) P=2;; esac\n",
    "one line": "x=a; case $x in a) P=1;; esac\n",
    "esac after a pattern": "x=b\ncase $x in a) P=1;; b) esac\nP=x$P\n",
    "no ;; before esac": "x=a\ncase $x in a) P=1\nesac\n",
    "empty body": "x=a\ncase $x in a) ;; *) P=2;; esac\nP=x$P\n",
    "no items": "x=a\ncase $x in esac\nP=x$P\n",
    "words on their own lines": "x=a\ncase $x\nin\na)\nP=1\n;;\nesac\n",
    ";& before esac": "x=a; case $x in a) P=1;& esac\n",
    ";;& before esac": "x=a; case $x in a) P=1;;& esac\n",
    ";& on its own line": "x=a\ncase $x in\n  a) P=1\n  ;&\nesac\n",
    "comments": "x=a\ncase $x in\n  # a comment\n  a) P=1 ;; # another\nesac\n",
    "keyword as pattern": "x=esac; case $x in (esac) P=1;; esac\n",
    "in $(...)": "x=a; P=$(case $x in a) echo 1;; esac)\n",
    "in $(...), leading paren": "x=b; P=$(case $x in (a|b) echo 1;; *) echo 2;; esac)\n",
    "in $(...), fall through": "x=a; P=$(case $x in a) echo 1;& b) echo 2;; esac)\n",
    "in $(...), nested": "x=a; y=b; P=$(case $x in a) case $y in b) echo 3;; esac;; esac)\n",
    "in $(...), quoted paren": 'x=a; P=$(case $x in a) echo "1)";; esac)\n',
    "in $(...), multi-line": "x=a; P=$(\n  case $x in\n    a) echo 7 ;;\n  esac\n)\n",
    "in $(...), extglob": "shopt -s extglob\nx=b; P=$(case $x in @(a|b)) echo 1;; esac)\n",
    "in backquotes": "x=a; P=`case $x in a) echo 1;; esac`\n",
}


@pytest.mark.parametrize("form", CASE_FORMS, ids=list(CASE_FORMS))
def test_case_form_matches_bash(form: str, tmp_path: Path) -> None:
    text = "#!/bin/bash\n" + CASE_FORMS[form] + f"{SERVER} --x $P\n"
    got = compare(text, [], tmp_path)
    assert got is not None, "the prediction has an unknown word"
    pred, real = got
    assert len(real) == 1
    assert pred == real


def test_case_forms_parse_without_syntax_findings(tmp_path: Path) -> None:
    for form, body in CASE_FORMS.items():
        r = run(tmp_path, "#!/bin/bash\n" + body + f"{SERVER} --x $P\n")
        assert "SH001" not in {f.code for f in r.findings}, form
        assert len(r.servers) == 1, form


def test_a_string_with_a_fallthrough_and_esac_is_not_rewritten(tmp_path: Path) -> None:
    r = run(tmp_path, f"x='a;& esac'\n{SERVER} --x \"$x\"\n")
    assert last_word(r) == "a;& esac"


# ------------------------------------------------------------------------------------- many flags


def test_thousands_of_flags_are_parsed_up_to_the_bound(tmp_path: Path) -> None:
    words = " ".join(["--port"] * 5000)  # each one an argparse error: 275 s before the bounds
    t0 = time.monotonic()
    data = cli_json(tmp_path, f"{SERVER} {words}\n", timeout=120)
    elapsed = time.monotonic() - t0
    findings = data["findings"]
    assert isinstance(findings, list)
    pa027 = [f for f in findings if f["code"] == "PA027"]
    assert [(f["severity"], f["layer"], f["at"], f["message"]) for f in pa027] == [
        (
            "info",
            "parser",
            "launch.sh:1:7203",
            "the server command has 5002 words for the parser: argtrace parsed the first 1024 and not the "
            "other 3978 (from launch.sh:1:7203 on)",
        )
    ]
    assert sum(f["code"] == "PA012" for f in findings) == 32
    print(f"5,000 flags without values checked in {elapsed:.1f} s")


@pytest.mark.slow
def test_a_hundred_thousand_flags_take_seconds_not_minutes(tmp_path: Path) -> None:
    words = " ".join(["--port 1"] * 50_000)
    t0 = time.monotonic()
    data = cli_json(tmp_path, f"{SERVER} {words}\n", timeout=180)
    elapsed = time.monotonic() - t0
    findings = data["findings"]
    assert isinstance(findings, list)
    messages = [f["message"] for f in findings if f["code"] == "PA027"]
    assert messages == [
        "the server command has 100002 words for the parser: argtrace parsed the first 1024 and not the "
        "other 98978 (from launch.sh:1:4648 on)"
    ]
    print(f"10^5 flags checked in {elapsed:.1f} s")
