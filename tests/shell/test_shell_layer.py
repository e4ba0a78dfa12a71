"""Exact-value tests of the shell layer: origins, unknowns, every hazard, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, ShellResult, analyze_script
from argtrace.model import Finding

ENV = {"PATH": "/usr/bin:/bin", "HOME": "/root"}


def run(
    tmp_path: Path,
    script: str | bytes,
    *args: str,
    env: dict[str, str] | None = None,
    files: dict[str, str] | None = None,
    label: str = "launch.sh",
    shellcheck: bool = False,
) -> ShellResult:
    for name, text in (files or {}).items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    data = script.encode() if isinstance(script, str) else script
    path = tmp_path / label
    path.write_bytes(data)
    return analyze_script(
        ScriptSource(label, data, path),
        args,
        env if env is not None else ENV,
        run_shellcheck=shellcheck,
        cwd=str(tmp_path),
    )


def codes(r: ShellResult, *severities: str) -> set[str]:
    return {f.code for f in r.findings if not severities or f.severity in severities}


def only(r: ShellResult, code: str) -> Finding:
    found = [f for f in r.findings if f.code == code]
    assert len(found) == 1, [(f.code, f.message) for f in r.findings]
    return found[0]


# ---------------------------------------------------------------------------------------------- origins


def test_word_origins_are_exact(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "#!/bin/bash\nPORT=${2:-30000}\npython3 -m sglang.launch_server \\\n"
        '  --model-path "$1" --port $PORT --x "$@" --tp=${TP:-1}\n',
        "/m",
    )
    (s,) = r.servers
    assert s.at == "launch.sh:3:1"
    assert s.framework == "sglang" and s.entrypoint == "sglang.launch_server"
    assert s.server_args_start == 3 and s.interpreter == "python3"
    got = [(w.text, w.origin.at, w.origin.expansion) for w in s.argv]
    assert got == [
        ("python3", "launch.sh:3:1", "literal"),
        ("-m", "launch.sh:3:9", "literal"),
        ("sglang.launch_server", "launch.sh:3:12", "literal"),
        ("--model-path", "launch.sh:4:3", "literal"),
        ("/m", "launch.sh:4:16", '"$1"'),
        ("--port", "launch.sh:4:21", "literal"),
        ("30000", "launch.sh:4:28", "$PORT"),
        ("--x", "launch.sh:4:34", "literal"),
        ("/m", "launch.sh:4:38", '"$@"'),
        ("--tp=1", "launch.sh:4:43", "--tp=${TP:-1}"),
    ]
    assert r.syntax_ok


def test_columns_count_characters_not_bytes(tmp_path: Path) -> None:
    r = run(tmp_path, 'echo "é"; python3 -m sglang.launch_server --model-path /m\n')
    assert r.servers[0].at == "launch.sh:1:11"


def test_env_has_exports_prefixes_and_start_env(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "export A=1\nB=2\nexport C\nC=3\nD=4 python3 -m sglang.launch_server\n",
        env={"PATH": "/bin", "HF_HOME": "/hf"},
    )
    env = r.servers[0].env
    assert {k: v.value for k, v in env.items()} == {
        "A": "1",
        "C": "3",
        "D": "4",
        "HF_HOME": "/hf",
        "PATH": "/bin",
        "PWD": str(tmp_path),
        "SHLVL": "1",
    }
    assert env["A"].origin.at == "launch.sh:1:8" and env["A"].origin.expansion == "A=1"
    assert env["D"].origin.at == "launch.sh:5:1"
    assert env["HF_HOME"].origin.expansion == "environment" and env["HF_HOME"].origin.at is None


def test_quoted_at_keeps_its_expansion_for_the_parser_layer(tmp_path: Path) -> None:
    r = run(tmp_path, 'vllm serve /m --port 8000 "$@"\n', "--port", "9000")
    s = r.servers[0]
    assert s.entrypoint == "vllm serve" and s.server_args_start == 2
    assert [(w.text, w.origin.expansion) for w in s.argv[-2:]] == [("--port", '"$@"'), ("9000", '"$@"')]


# ---------------------------------------------------------------------------------------------- unknowns


def test_unknown_values_have_reasons(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "PORT=$(shuf -n1 -i 1-9)\nread -r TP < f\n"
        'python3 -m sglang.launch_server --port "$PORT" --tp "$TP" --n $((TP+1))\n',
    )
    w = r.servers[0].argv
    assert w[4].text is None and not w[4].known
    assert w[4].origin.reason == "command substitution `$(shuf -n1 -i 1-9)` runs only at run time"
    assert w[6].origin.reason == "`read` at launch.sh:2:1 reads it at run time"
    assert w[8].text is None and "$TP is not known statically" in (w[8].origin.reason or "")
    assert codes(r) == {"SH018"}


def test_unknown_branch_marks_values_and_keeps_servers(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "if [ -f /nonexistent/flag ]; then\n  MEM=0.9\n  vllm serve /a\nelse\n  MEM=0.8\nfi\n"
        'python3 -m sglang.launch_server --mem "$MEM"\n',
    )
    assert [s.entrypoint for s in r.servers] == ["vllm serve", "sglang.launch_server"]
    assert r.conditions[0] is not None and r.conditions[1] is None
    reason = r.servers[1].argv[4].origin.reason or ""
    assert "[ -f /nonexistent/flag ]" in reason and "(`0.9` or `0.8`)" in reason
    assert only(r, "SH020").at == "launch.sh:3:3"


def test_known_branches_are_taken(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        'case "$1" in\n  mtp) X=--speculative-algorithm;;\n  *) X=--none;;\nesac\n'
        '[[ $2 == 3* ]] && P=$2 || P=1\npython3 -m sglang.launch_server "$X" "$P"\n',
        "mtp",
        "30000",
    )
    assert [w.text for w in r.servers[0].argv[3:]] == ["--speculative-algorithm", "30000"]


def test_string_command_and_eval(tmp_path: Path) -> None:
    r = run(
        tmp_path, 'CMD="python3 -m sglang.launch_server --tp 2"\n$CMD --port 1\neval "$CMD --name \'a b\'"\n'
    )
    assert [w.text for w in r.servers[0].argv] == [
        "python3",
        "-m",
        "sglang.launch_server",
        "--tp",
        "2",
        "--port",
        "1",
    ]
    assert r.servers[0].argv[0].origin.expansion == "$CMD"
    assert [w.text for w in r.servers[1].argv][-2:] == ["--name", "a b"]
    assert r.servers[1].argv[0].origin.at == "launch.sh:3:1"


def test_functions_have_their_own_positional_parameters(tmp_path: Path) -> None:
    r = run(tmp_path, 'f() { local p=$1; shift; vllm serve /m --port "$p" "$@"; }\nf 8000 --x y\n', "ignored")
    assert [w.text for w in r.servers[0].argv] == ["vllm", "serve", "/m", "--port", "8000", "--x", "y"]


def test_source_relative_to_cwd_and_loop(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "source ./env.sh\npython3 -m sglang.launch_server --port $PORT\n",
        files={"env.sh": "PORT=31000\n"},
    )
    assert r.servers[0].argv[-1].text == "31000"
    r = run(
        tmp_path,
        "source ./a.sh\npython3 -m sglang.launch_server\n",
        files={"a.sh": "source ./b.sh\n", "b.sh": "source ./a.sh\n"},
    )
    f = only(r, "SH016")
    assert f.severity == "error" and f.at == "./b.sh:1:1"
    assert len(r.servers) == 1


def test_exec_ends_the_script_and_set_u_aborts(tmp_path: Path) -> None:
    r = run(tmp_path, "exec python3 -m sglang.launch_server --a\nvllm serve /never\n")
    assert [s.entrypoint for s in r.servers] == ["sglang.launch_server"]
    assert r.servers[0].argv[0].text == "python3"
    r = run(tmp_path, "set -u\nP=$2\npython3 -m sglang.launch_server --port $P\n", "0")
    f = only(r, "SH012")
    assert f.at == "launch.sh:2:3"
    assert f.message.startswith("`$2` is unset (the script got 1 argument) and `set -u` is on")
    assert r.servers == []


# ---------------------------------------------------------------------------------------------- hazards


def test_crlf(tmp_path: Path) -> None:
    r = run(tmp_path, b"python3 -m sglang.launch_server \\\r\n  --port 30000\r\n")
    f = only(r, "SH002")
    assert f.severity == "error" and f.at == "launch.sh:1"
    assert "the server gets `$'\\r'`" in f.message
    assert "escapes `\\r` instead of the newline" in f.message
    assert [w.text for w in r.servers[0].argv] == ["python3", "-m", "sglang.launch_server", "\r"]
    assert "SH004" not in codes(r)
    r = run(tmp_path, b"python3 -m sglang.launch_server --port 30000\r\n")
    assert r.servers[0].argv[-1].text == "30000\r"
    assert "the server gets `$'30000\\r'`" in only(r, "SH002").message


def test_backslash_space(tmp_path: Path) -> None:
    r = run(tmp_path, "python3 -m sglang.launch_server --a \\ \n  --port 30000\n")
    f = only(r, "SH003")
    assert f.at == "launch.sh:1:37"
    assert f.message == (
        "space after the line-continuation backslash at the end of line 1: the command ends on line 1 "
        "with an extra argument `' '`, and line 2 runs as a separate command; the flags after it "
        "never reach the server"
    )
    assert [w.text for w in r.servers[0].argv][-2:] == ["--a", " "]
    r = run(tmp_path, 'A=(\n  --x \\\t\n  --y\n)\npython3 -m sglang.launch_server "${A[@]}"\n')
    assert "inside the array literal" in only(r, "SH003").message
    assert [w.text for w in r.servers[0].argv][3:] == ["--x", "\t", "--y"]


def test_missing_backslash(tmp_path: Path) -> None:
    r = run(tmp_path, "python3 -m sglang.launch_server --model-path /m\n  --port 30000 --tp 2\n")
    f = only(r, "SH004")
    assert f.severity == "error" and f.at == "launch.sh:2:3"
    assert f.message.startswith(
        "line 2 starts with `--port`: the line before it does not end with a backslash"
    )
    assert [w.text for w in r.servers[0].argv][-1] == "/m"


def test_placeholder_redirect(tmp_path: Path) -> None:
    r = run(tmp_path, "python3 -m sglang.launch_server --model-path <path> --port 30000\n")
    f = only(r, "SH005")
    assert f.at == "launch.sh:1:46"
    assert "standard input from a file named `path`" in f.message
    assert "standard output into a file named `--port`" in f.message
    assert [w.text for w in r.servers[0].argv][3:] == ["--model-path", "30000"]


def test_unicode_lookalikes(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "# a comment with an en dash \u2013 is fine\n"
        "echo \u201chello\u201d\n"
        "python3 -m sglang.launch_server \u2013-port 30000\n",
    )
    errors = [f for f in r.findings if f.code == "SH006" and f.severity == "error"]
    infos = [f for f in r.findings if f.code == "SH006" and f.severity == "info"]
    assert len(errors) == 1 and len(infos) == 2
    assert errors[0].at == "launch.sh:3:33"
    assert errors[0].message == (
        "U+2013 EN DASH on line 3 looks like `-` but bash treats it as an ordinary "
        "character: the server gets `\u2013-port`"
    )
    assert errors[0].fix == "Replace U+2013 EN DASH with `-`."


def test_unset_positional_shifts_words(tmp_path: Path) -> None:
    r = run(
        tmp_path, "python3 -m sglang.launch_server --port $2 --mamba-scheduler-strategy extra_buffer\n", "0"
    )
    f = only(r, "SH007")
    assert f.severity == "error" and f.at == "launch.sh:1:40"
    assert f.message == (
        "`$2` is unset (the script got 1 argument), so the unquoted word vanishes: `--port` takes "
        "`--mamba-scheduler-strategy` as its value"
    )
    r = run(tmp_path, 'python3 -m sglang.launch_server --port "$2"\n', "0")
    assert (
        only(r, "SH007").message
        == '`"$2"` is unset (the script got 1 argument): `--port` gets an empty value'
    )


def test_nothing_is_lost_after_a_flag_that_takes_no_value(tmp_path: Path) -> None:
    # "$@" with no arguments and an empty $EXTRA after a store_true flag: correct scripts, no finding.
    script = (
        'EXTRA=\npython3 -m sglang.launch_server --model-path /m --enable-metrics "$@"\n'
        "python3 -m sglang.launch_server --model-path /m --enable-metrics $EXTRA --port 30000\n"
        "vllm serve /m --enforce-eager ${ARGS[@]}\n"
    )
    r = run(tmp_path, script)
    assert codes(r) & {"SH007", "SH026"} == set()
    # The same empty $EXTRA after a flag that takes a value is still the hazard.
    r = run(tmp_path, "EXTRA=\npython3 -m sglang.launch_server --port $EXTRA --tp-size 2\n")
    assert only(r, "SH026").message == (
        "`$EXTRA` is empty, so the unquoted word vanishes: `--port` takes `--tp-size` as its value"
    )
    # A quoted variable the caller may set: named, with the way to give it.
    r = run(tmp_path, 'vllm serve /m --api-key "${VLLM_API_KEY}" --port 8000\n', env={})
    assert only(r, "SH026").message == (
        '`"${VLLM_API_KEY}"` is not set in the environment argtrace was given (if the caller sets it, '
        "pass `--env VLLM_API_KEY=...`): `--api-key` gets an empty value"
    )


def test_a_usage_exit_is_read_past_with_the_arguments_unknown(tmp_path: Path) -> None:
    # the script's user runs it with its arguments: given none here, it is read again with $1/$#/$@ unknown
    # (as `argtrace lint` reads it) and says so, instead of "no server start" (2026-12-03 batch)
    script = 'if [ $# -lt 1 ]; then\n  echo "usage: $0 MODEL" >&2\n  exit 1\nfi\nvllm serve "$1"\n'
    r = run(tmp_path, script)
    assert "SH019" not in codes(r) and len(r.servers) == 1
    assert only(r, "SH046").message == (
        "launch.sh stops at `exit` at launch.sh:3:3 when it is given no arguments, as here: its server start "
        "is read as if it were given the arguments it expects (values unknown); pass them after the file "
        "(`argtrace check FILE ARG...`) to check the launch as it is run"
    )
    given = run(tmp_path, script, "/models/m")
    assert "SH019" not in codes(given) and "SH046" not in codes(given)


def test_an_exit_no_argument_decides_is_still_named(tmp_path: Path) -> None:
    script = 'echo "usage: $0 MODEL" >&2\nexit 1\nvllm serve "$1"\n'
    assert only(run(tmp_path, script), "SH019").message == (
        "no SGLang or vLLM server start found in the commands launch.sh would run: it stops at `exit` at "
        "launch.sh:2:1 with status 1 (given 0 arguments)"
    )


def test_split_value(tmp_path: Path) -> None:
    r = run(tmp_path, 'M="/a b"\npython3 -m sglang.launch_server --model-path $M --x\n')
    f = only(r, "SH008")
    assert f.message == "`$M` is unquoted and splits into 2 words (`/a`, `b`): `--model-path` gets only `/a`"
    r = run(tmp_path, 'EXTRA="--tp 2 --dp 1"\npython3 -m sglang.launch_server --x 1 $EXTRA\n')
    assert "SH008" not in codes(r)


def test_logs_and_background(tmp_path: Path) -> None:
    r = run(tmp_path, "nohup python3 -m sglang.launch_server > /w/logs/mtp.log 2>&1 &\n")
    assert "`/w/logs/mtp.log`" in only(r, "SH009").message
    assert only(r, "SH011").severity == "info"
    assert r.servers[0].backgrounded
    assert r.outputs[0]["stdout"] == "/w/logs/mtp.log" and r.outputs[0]["stderr"] == "/w/logs/mtp.log"
    r = run(tmp_path, "python3 -m sglang.launch_server >> s.log 2>&1 &\nPID=$!\nwait $PID\n")
    assert codes(r) == set()
    r = run(tmp_path, "python3 -m sglang.launch_server 2>&1 > s.log\n")
    assert only(r, "SH010").message.startswith("`2>&1` comes before `> s.log`")


def test_bom_and_binary_and_utf8(tmp_path: Path) -> None:
    r = run(tmp_path, "\ufeffexport X=1\npython3 -m sglang.launch_server\n".encode())
    assert only(r, "SH027").severity == "warning"
    assert "X" not in r.servers[0].env
    r = run(tmp_path, b"\x7fELF\x02\x01\x00\x00garbage\n")
    f = only(r, "SH013")
    assert f.severity == "error" and r.servers == [] and not r.syntax_ok
    r = run(tmp_path, b"python3 -m sglang.launch_server --name caf\xe9\n")
    assert only(r, "SH014").at == "launch.sh:1:43"
    assert r.servers[0].argv[-1].text == "caf\ufffd"


def test_syntax_error_reports_line_and_analyses_the_rest(tmp_path: Path) -> None:
    r = run(tmp_path, "python3 -m sglang.launch_server --a\nif true; then\n  echo\n")
    f = only(r, "SH001")
    assert f.severity == "error" and f.at == "launch.sh:4"
    assert "syntax error: unexpected end of file" in f.message
    assert not r.syntax_ok
    assert len(r.servers) == 1


def test_brace_expansion_of_unquoted_json(tmp_path: Path) -> None:
    r = run(tmp_path, 'python3 -m sglang.launch_server --json {"a":1,"b":2}\n')
    f = only(r, "SH022")
    assert f.severity == "error"
    assert [w.text for w in r.servers[0].argv][-2:] == ["a:1", "b:2"]


def test_shellcheck_is_folded_in_without_duplicates(tmp_path: Path) -> None:
    r = run(tmp_path, b"#!/bin/bash\npython3 -m sglang.launch_server --port $1\r\n", "1", shellcheck=True)
    assert "SH002" in codes(r)
    assert "SC1017" not in codes(r)  # shellcheck's CRLF finding is ours already
    r = run(tmp_path, "#!/bin/bash\nX=1\npython3 -m sglang.launch_server --port $1\n", "1", shellcheck=True)
    sc = [f for f in r.findings if f.code.startswith("SC")]
    assert {f.code for f in sc} >= {"SC2034"}
    assert all(f.layer == "shell" for f in sc)


# ---------------------------------------------------------------------------------------------- bad input


def test_never_a_traceback_on_garbage(tmp_path: Path) -> None:
    import random

    rnd = random.Random(7)
    alphabet = b" \t\n\\'\"$(){}[]<>|&;`#=~*?!-abc0123456789\r\x80\xff"
    for _ in range(200):
        data = bytes(rnd.choice(alphabet) for _ in range(rnd.randint(0, 120)))
        run(tmp_path, b"python3 -m sglang.launch_server " + data)


def test_nothing_is_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    run(
        tmp_path,
        f"touch {marker}\n$(touch {marker})\n`touch {marker}`\neval 'touch {marker}'\n"
        f'python3 -m sglang.launch_server --x "$(touch {marker})"\n',
    )
    assert not marker.exists()


@pytest.mark.slow
def test_a_megabyte_script_skips_shellcheck_and_is_evaluated_to_its_end(tmp_path: Path) -> None:
    """Far above shellcheck's bound (SH015) and still read to the last line. How long it takes is the
    bench's to say (bench/large_script.py), not a test's: tests never assert on wall-clock time."""
    line = 'X="some value"; echo "$X" >/dev/null\n'
    body = "#!/bin/bash\n" + line * (1024 * 1024 // len(line)) + 'python3 -m sglang.launch_server --x "$X"\n'
    r = run(tmp_path, body, shellcheck=True)
    assert only(r, "SH015").severity == "info"
    assert [w.text for w in r.servers[0].argv][-1] == "some value"


def test_missing_backslash_is_found_in_branches_not_taken(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        'if [ "$1" = mtp ]; then\n  python3 -m sglang.launch_server --a\n    --port 1\nfi\n'
        "ARGS=(\n  --tp 2\n)\n",
        "base",
    )
    f = only(r, "SH004")
    assert f.at == "launch.sh:3:5"
    assert f.message.startswith(
        "line 3 starts with `--port`: the line before it does not end with a backslash"
    )


def test_comment_inside_a_continued_command(tmp_path: Path) -> None:
    r = run(tmp_path, "python3 -m sglang.launch_server \\\n  # --port 1 \\\n  --tp 2\n")
    f = only(r, "SH004")
    assert (
        "the line before it is a comment: inside a continued command a comment ends the command" in f.message
    )
    assert [w.text for w in r.servers[0].argv] == ["python3", "-m", "sglang.launch_server"]


def test_unset_variable_suggests_env(tmp_path: Path) -> None:
    r = run(tmp_path, "python3 -m sglang.launch_server --model-path $MODEL_PATH --port 1\n")
    assert "pass `--env MODEL_PATH=...`" in only(r, "SH007").message
    r = run(
        tmp_path,
        "python3 -m sglang.launch_server --model-path $MODEL_PATH --port 1\n",
        env={"MODEL_PATH": "/m"},
    )
    assert "SH007" not in codes(r)


def test_two_servers_truncating_one_log(tmp_path: Path) -> None:
    r = run(
        tmp_path,
        "for p in 1 2; do\n python3 -m sglang.launch_server --port 3000$p > s.log 2>&1 &\ndone\nwait\n",
    )
    warn = [f for f in r.findings if f.code == "SH009" and f.severity == "warning"]
    assert len(warn) == 1 and warn[0].message.startswith("2 server commands (launch.sh:2:2, launch.sh:2:2)")


def test_a_flags_variable_unset_in_the_callers_environment_is_an_assumed_warning() -> None:
    """`--port $P` with P unset where argtrace runs: the server's environment may set it (a node, a
    container), so SH007 is a warning resting on that assumption, with a fix naming the variable; the
    script's own missing argument (`--port $2`, one argument given) stays an error (the rule's example)."""
    from tests.conftest import run_cli

    line = "python -m sglang.launch_server --model-path /m --port $P"
    caller = run_cli(["check", "--format", "json", "--clean-env", "-c", line]).json
    [sh007] = [f for f in caller["findings"] if f["code"] == "SH007"]
    assert (sh007["severity"], sh007["basis"]) == ("warning", "assumed")
    assert sh007["message"] == (
        "`$P` is not set (in the environment argtrace was given; if the caller sets it, pass `--env P=...`), "
        "so the unquoted word vanishes: `--port` gets no value"
    )
    # the flag has a default in the release: the fix is the edit that gives it, proven by the re-check
    # (a flag without one keeps the text naming the variable: tests/test_vanished_words.py)
    assert sh007["fix"] == (
        "Write ${P:-30000} at <-c>:1:55: when $P is unset or empty, --port gets sglang's default, 30000, "
        "instead of no value (or pass the value meant: `${P:?...}` stops early instead)."
    )
    assert (sh007["fix_edits"], sh007["fix_verified"]) == (
        [{"file": "<-c>", "start": "1:55", "end": "1:57", "replacement": "${P:-30000}"}],
        True,
    )
    assert [(c["severity"], c["code"]) for c in sh007["consequences"]] == [("info", "PA012")]
    assert [f["code"] for f in caller["findings"] if f["severity"] == "error"] == []
