"""Launch scripts that parse their own arguments (``getopts``, ``while [[ $# -gt 0 ]]; case "$1"``,
``for arg in "$@"``, ``set --``, ``"${@:2}"``, ``mapfile``/``readarray``, aliases), differentially against
the real /bin/bash: for each construct, scripts written here run under bash with recorders on PATH
(tests/shell/recorder.py) over many argument vectors, and argtrace's predicted server argv must equal the
recorded one exactly. ``getopts`` itself is also compared step by step (status, name, OPTIND, OPTARG).
bash runs only the scripts this file writes."""

from __future__ import annotations

import random
import shlex
import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.shell.getopts import getopts_step
from tests.shell.test_differential import run_case

# ---------------------------------------------------------------------------------------- getopts alone

_STEPS = r"""
OPTARG=before
while :; do
  getopts "$SPEC" opt; rc=$?
  printf '%s|%s|%s|%s\n' "$rc" "$opt" "$OPTIND" "${OPTARG-<unset>}"
  [ $rc -ne 0 ] && break
done
"""

_POOL = [
    "-m",
    "/models/Qwen3",
    "-t",
    "4",
    "-p",
    "8000",
    "-s",
    "-st4",
    "-mx",
    "-x",
    "-q",
    "--",
    "-",
    "extra",
    "a b",
    "",
    "-ts",
    "-:",
    "--model",
    "-sm",
    "-p9",
]
_SPECS = ["m:p:t:s", ":m:p:t:s", "hm:", ":hw:u:p:l:b:c:s", "st:", "m:"]


def _bash_steps(spec: str, words: list[str]) -> list[str]:
    out = subprocess.run(
        ["/bin/bash", "-c", _STEPS, "getopts-probe", *words],
        env={"SPEC": spec, "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    return out.stdout.splitlines()


def _predicted_steps(spec: str, words: list[str]) -> list[str]:
    lines = []
    optind, charindex = 1, 0
    for _ in range(100):
        step = getopts_step(spec, words, optind, charindex)
        optind, charindex = step.optind, step.charindex
        arg = "<unset>" if step.optarg is None else step.optarg
        lines.append(f"{step.status}|{step.name_value}|{step.optind}|{arg}")
        if step.status:
            break
    return lines


def _vectors(seed: int, n: int) -> list[list[str]]:
    rnd = random.Random(seed)
    return [[rnd.choice(_POOL) for _ in range(rnd.randint(0, 7))] for _ in range(n)]


@pytest.mark.parametrize("spec", _SPECS)
def test_getopts_steps_equal_bash(spec: str) -> None:
    vectors = [[], ["-m"], ["-sm"], ["-s", "--", "-t", "1"], ["x", "-s"], ["-"], *_vectors(len(spec), 60)]
    for words in vectors:
        assert _predicted_steps(spec, words) == _bash_steps(spec, words), (spec, words)


# ---------------------------------------------------------------------------- whole scripts, many argvs

SCRIPTS = {
    "getopts_loop": r"""
MODEL=/models/default; TP=1; PORT=30000; EXTRA=""
while getopts "m:p:t:e:s" opt; do
  case $opt in
    m) MODEL=$OPTARG;;
    p) PORT=$OPTARG;;
    t) TP=$OPTARG;;
    e) EXTRA="$EXTRA $OPTARG";;
    s) SKIP=1;;
    \?) echo "bad option" >&2; exit 1;;
  esac
done
shift $((OPTIND-1))
python -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port "$PORT" \
  ${SKIP:+--skip-server-warmup} $EXTRA "$@"
""",
    "getopts_silent": r"""
MODEL=m0
while getopts ":m:h" o; do
  case "$o" in
    m) MODEL="$OPTARG" ;;
    :) echo "missing value for -$OPTARG"; MODEL="missing-$OPTARG" ;;
    \?) echo "unknown -$OPTARG"; UNK="${UNK:-}$OPTARG" ;;
    h) exit 0 ;;
  esac
done
shift "$((OPTIND - 1))"
vllm serve "$MODEL" ${UNK:+--served-model-name "$UNK"} "$@"
""",
    "getopts_in_function": r"""
parse() {
  local OPTIND opt
  while getopts "p:" opt; do
    case $opt in p) PORT=$OPTARG;; esac
  done
  shift $((OPTIND-1))
  REST=("$@")
}
PORT=1; parse "$@"
parse -p 7 "${REST[@]}"
python3 -m vllm.entrypoints.openai.api_server --port "$PORT" "${REST[@]}"
""",
    "while_case_shift": r"""
MODEL=def; EXTRA=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --model|-m) MODEL="$2"; shift 2 ;;
    --tp=*) TP="${1#*=}"; shift ;;
    --) shift; break ;;
    -h) exit 0 ;;
    *) EXTRA+=("$1"); shift ;;
  esac
done
python -m sglang.launch_server --model-path "$MODEL" ${TP:+--tp-size "$TP"} "${EXTRA[@]}" "$@"
""",
    "for_arg": r"""
ARGS=()
for arg in "$@"; do
  case $arg in
    --model=*) MODEL="${arg#*=}" ;;
    --skip) continue ;;
    --stop) break ;;
    *) ARGS+=("$arg") ;;
  esac
done
vllm serve "${MODEL:-none}" "${ARGS[@]}"
""",
    "set_defaults_slice": r"""
if [ $# -eq 0 ]; then
  set -- /models/default --port 30000
fi
MODEL="$1"
REST="${@:2}"
python -m sglang.launch_server --model-path "$MODEL" $REST "${@:3:1}"
""",
}

_ARGV_POOL = [
    "-m",
    "/models/Qwen3",
    "-t",
    "4",
    "-p",
    "8000",
    "-s",
    "-st4",
    "-e",
    "--x y",
    "-q",
    "--",
    "-",
    "extra",
    "--model",
    "--tp=2",
    "--model=/m",
    "--skip",
    "--stop",
    "-h",
    "a b",
    "-mfoo",
    ":",
]


def _argvs(name: str, n: int) -> list[list[str]]:
    rnd = random.Random(name)
    fixed = [[], ["-m", "/models/Qwen3", "-t", "4"], ["--model", "/m", "--tp=8", "--", "--port", "1"]]
    out = fixed + [[rnd.choice(_ARGV_POOL) for _ in range(rnd.randint(0, 6))] for _ in range(n)]
    # `--model` last makes `shift 2` fail and the `while [[ $# -gt 0 ]]` loop spin forever in bash
    return [[*v, "v"] if v[-1:] in (["--model"], ["-m"]) else v for v in out]


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_argument_parsing_scripts_equal_bash(name: str, tmp_path: Path) -> None:
    compared = 0
    for i, argv in enumerate(_argvs(name, 10)):
        d = tmp_path / f"{i}"
        (d / "src").mkdir(parents=True)
        script = d / "src" / "launch.sh"
        script.write_text(f"# args: {shlex.join(argv)}\n" + SCRIPTS[name])
        predicted, recorded, _ = run_case(script, d)
        assert predicted == recorded, (name, argv)
        compared += bool(recorded)
    assert compared >= 3  # most vectors reach the server


MAPFILE = r"""
mapfile -t ARGS < server.args
readarray -s 1 -n 2 B < server.args
mapfile -t -O 3 C <<< "x y"
mapfile -d , -t D <<< "a,b,c"
mapfile E < server.args
python -m sglang.launch_server "${ARGS[@]}" "${B[@]}" "${C[@]}" "${!C[@]}" "${D[@]}" "${E[@]}"
"""


@pytest.mark.parametrize(
    "content",
    ["--model-path\n/models/Qwen3\n--tp\n4\n", "--port 1\n\n--x\n", "no-newline", "", "a\nb\r\nc\n"],
)
def test_mapfile_from_a_file_equals_bash(content: str, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "server.args").write_text(content)
    script = tmp_path / "src" / "launch.sh"
    script.write_text("# args:\n" + MAPFILE)
    predicted, recorded, _ = run_case(script, tmp_path)
    assert predicted == recorded


def test_mapfile_of_a_file_not_here_or_written_first_stays_unknown(tmp_path: Path) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(
        "printf '%s\\n' --tp 2 > made.args\nmapfile -t A < made.args\nmapfile -t B < /nonexistent/x.args\n"
        'python -m sglang.launch_server --model-path m "${A[@]}" "${B[@]}"\n'
    )
    r = analyze_script(ScriptSource("launch.sh", script.read_bytes(), script), [], {}, cwd=str(tmp_path))
    assert [w.text for w in r.servers[0].argv] == [
        "python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        "m",
        None,
        None,
    ]
    reasons = [str(w.origin.reason) for w in r.servers[0].argv[5:]]
    written = "`mapfile` at launch.sh:2:1 reads `made.args`, which the script writes first (launch.sh:1:22)"
    assert written in reasons[0]
    assert "reads `/nonexistent/x.args`, which is not on this machine (it may be on the node)" in reasons[1]


ALIASES = r"""
shopt -s expand_aliases
alias serve='python -m sglang.launch_server'
alias gpu0='CUDA_VISIBLE_DEVICES=0 '
f() { serve --port 1; }
serve --model-path m --port 2
gpu0 serve --model-path "$1"
alias serve='python3 -m sglang.launch_server --tp 4'; serve --same-line x
serve --after y
if true; then alias serve2='python -m sglang.launch_server --z'; serve2 --in-block; fi
serve2 --later
f
unalias serve2
serve2 --gone 2>/dev/null
"""


@pytest.mark.parametrize("expand", [True, False])
def test_aliases_equal_bash(expand: bool, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    script = tmp_path / "src" / "launch.sh"
    text = ALIASES if expand else ALIASES.replace("shopt -s expand_aliases", "shopt -u expand_aliases")
    script.write_text("# args: /models/A\n" + text)
    predicted, recorded, _ = run_case(script, tmp_path)
    assert predicted == recorded
    assert len(recorded) == (6 if expand else 0)


# ------------------------------------------------- break/continue on one fork of an unknown condition

BREAK_ON_A_FORK = r"""
eval set -- "$(getopt -o m: --long model: -- "$@")"
MODEL=def
while true; do
  case "$1" in
    -m|--model) MODEL="$2"; shift 2 ;;
    --) shift; break ;;
    *) exit 1 ;;
  esac
done
python -m sglang.launch_server --model-path "$MODEL" --port 30000
"""


def _analyse(text: str, tmp_path: Path, args: list[str]) -> object:
    script = tmp_path / "launch.sh"
    script.write_text(text)
    return analyze_script(ScriptSource("launch.sh", script.read_bytes(), script), args, {}, cwd=str(tmp_path))


def test_break_taken_on_one_fork_goes_on_after_the_loop(tmp_path: Path) -> None:
    """Before: the `--)` fork's `break` was taken as that path ending, the other forks exit, and the
    report said the script stops at `exit` with no server. bash goes on after the loop on that fork."""
    # a program whose output is not known (getopt's itself is computed since session 27, below)
    unknown_parser = BREAK_ON_A_FORK.replace("getopt -o m: --long model:", "/opt/tools/parse-args")
    r = _analyse(unknown_parser, tmp_path, ["-m", "/models/Q"])
    assert len(r.servers) == 1  # type: ignore[attr-defined]
    argv = r.servers[0].argv  # type: ignore[attr-defined]
    assert [w.text for w in argv] == [
        "python",
        "-m",
        "sglang.launch_server",
        "--model-path",
        None,
        "--port",
        "30000",
    ]
    assert str(argv[4].origin.reason).startswith('its value depends on `case "$1"` (launch.sh:5)')
    assert not any(f.code == "SH019" for f in r.findings)  # type: ignore[attr-defined]


def test_getopt_s_own_output_gives_the_options(tmp_path: Path) -> None:
    r = _analyse(BREAK_ON_A_FORK, tmp_path, ["-m", "/models/Q"])
    argv = r.servers[0].argv  # type: ignore[attr-defined]
    assert [w.text for w in argv][3:5] == ["--model-path", "/models/Q"]


def test_continue_taken_on_one_fork_joins_the_next_iteration(tmp_path: Path) -> None:
    text = (
        'eval set -- "$(cat /nonexistent/args)"\nA=()\nfor x in one two; do\n'
        '  if [ "$1" = skip ]; then continue; fi\n  A+=("$x")\ndone\n'
        'vllm serve m --tag "${A[0]}" --fixed 1\n'
    )
    r = _analyse(text, tmp_path, [])
    argv = [w.text for w in r.servers[0].argv]  # type: ignore[attr-defined]
    # bash: "one" when $1 is not skip, unset when it is: unknown, not "one" as if certain
    assert argv == ["vllm", "serve", "m", "--tag", None, "--fixed", "1"]


def test_break_on_a_fork_with_the_other_fork_exiting_in_the_loop(tmp_path: Path) -> None:
    text = (
        'eval set -- "$(cat /nonexistent/args)"\nP=1\nfor x in a b; do\n'
        '  if [ "$1" = go ]; then P=2; break; fi\n  exit 3\ndone\n'
        'vllm serve m --port "$P"\n'
    )
    r = _analyse(text, tmp_path, [])
    assert [w.text for w in r.servers[0].argv] == ["vllm", "serve", "m", "--port", "2"]  # type: ignore[attr-defined]


def test_an_alias_bash_does_not_expand_is_a_warning_not_a_server(tmp_path: Path) -> None:
    """Without `shopt -s expand_aliases` bash runs `serve` as a program (command not found): SH031, and the
    alias's definition is not taken for a server start argtrace does not follow (it was SH040)."""
    text = "#!/bin/bash\nalias serve='python3 -m sglang.launch_server'\nserve --model-path /m --port 1\n"
    r = _analyse(text, tmp_path, [])
    assert r.servers == []  # type: ignore[attr-defined]
    alarms = [(f.severity, f.code, f.at) for f in r.findings if f.severity != "info"]  # type: ignore[attr-defined]
    assert alarms == [("warning", "SH031", "launch.sh:3:1")]
    sh031 = next(f for f in r.findings if f.code == "SH031")  # type: ignore[attr-defined]
    assert sh031.message == (
        "`serve` is an alias, but bash expands aliases in a script only after `shopt -s expand_aliases`: it "
        "runs a program named `serve` instead (command not found unless the node has one), and what the "
        "alias names never starts"
    )
    # a command that starts the server as written either way, and a script run by sh: no SH031
    for other in (
        "#!/bin/bash\nalias python=python3\npython -m sglang.launch_server --model-path /m\n",
        "#!/bin/sh\nalias serve='python3 -m sglang.launch_server'\nserve --model-path /m\n",
    ):
        assert not [f for f in _analyse(other, tmp_path, []).findings if f.code == "SH031"]  # type: ignore[attr-defined]


def test_break_on_a_fork_inside_a_subshell_stays_in_the_subshell(tmp_path: Path) -> None:
    text = (
        'eval set -- "$(cat /nonexistent/args)"\nP=1\nfor x in a b; do\n'
        '  ( if [ "$1" = go ]; then P=2; break; fi; P=3 )\ndone\nvllm serve m --port "$P"\n'
    )
    r = _analyse(text, tmp_path, [])
    assert [w.text for w in r.servers[0].argv] == ["vllm", "serve", "m", "--port", "1"]  # type: ignore[attr-defined]
