"""The shell layer's server argv against real bash's, on idioms of launch scripts.

Each case is a script ending in a server start; bash runs it with ``python3`` defined as a function that
prints its arguments, argtrace's shell layer evaluates it statically, and every word argtrace states as
known must equal bash's. Found by a differential probe (session 25); the first group each failed before
its fix (the fix named), the rest pin what already agreed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shell.bash_oracle import analyzed, argtrace_argv, bash_argv

SERVER = "python3 -m sglang.launch_server --model-path m"

FIXED = {
    # glob bracket classes: `[[:space:]]` was escaped into a backslash and an `s`
    "posix class in ${//}": 'X=" a b "\n' + SERVER + ' --served-model-name "${X//[[:space:]]/}"',
    "posix class in case": 'X=" "\ncase $X in [[:space:]]) T=1;; *) T=2;; esac\n' + SERVER + " --tp-size $T",
    # an assignment-only command's status is its last command substitution's: `|| X=5` ran
    "assignment status": "X=$(false) || X=5\n" + SERVER + " --tp-size $X",
    "assignment status ok": "X=$(true) && X=6\n" + SERVER + " --tp-size $X",
    # [[ =~ ]] sets BASH_REMATCH
    "BASH_REMATCH": '[[ "v0.5.3" =~ ^v([0-9])\\.([0-9]) ]] && T=${BASH_REMATCH[2]}\n'
    + SERVER
    + " --tp-size $T",
    # an empty pattern anchored at the start or end of each word: it was ignored
    "prefix each word": "set -- a1 'b 2'\nA=(x y)\n" + SERVER + ' "${@/#/--x=}" "${A[@]/%/.z}"',
    # test's integers are decimal
    "test decimal": "[ 010 -eq 10 ] && T=2 || T=1\n" + SERVER + " --tp-size $T",
}

AGREED = {
    "array append": "A=(--tp-size 2); A+=(--port 31000)\n" + SERVER + ' "${A[@]}"',
    "assoc array": "declare -A M=([tp]=4)\n" + SERVER + ' --tp-size "${M[tp]}"',
    "case modifiers": "X=hello\n" + SERVER + ' --served-model-name "${X^}-${X^^}-${X:1:3}-${#X}"',
    "path trims": "X=/models/Qwen3-8B/\n"
    + SERVER
    + ' --served-model-name "${X%/}" --host "$(basename "$X")"',
    "set --": "set -- --tp-size 2\n" + SERVER + ' "$@"',
    "function echo": 'f() { echo "--port $1"; }\n' + SERVER + " $(f 30002)",
    "while loop": "N=0; while [ $N -lt 4 ]; do N=$((N+1)); done\n" + SERVER + " --tp-size $N",
    "read here-string": 'IFS=, read -r A B <<< "4,30003"\n' + SERVER + " --tp-size $A --port $B",
    ":= default": ": ${PORT:=30004}\n" + SERVER + " --port $PORT",
    "let and (( ))": 'X=3; (( X += 2 )); let "Y = X * 2"\n' + SERVER + " --tp-size $X --port 300$Y",
    "indirection": "V=PORT_A; PORT_A=30005\n" + SERVER + " --port ${!V}",
    "printf -v": "printf -v P '%d' 30006\n" + SERVER + ' --port "$P"',
    "local": "f() { local R=5; }\nR=1; f\n" + SERVER + " --tp-size $R",
    "subshell": "X=1\n( X=2 )\n" + SERVER + " --tp-size $X",
    "pipeline side": "X=1\necho hi | X=2\n" + SERVER + " --tp-size $X",
    "prefix assignment": "X=1\nX=4 true\n" + SERVER + " --tp-size $X",
    "ternary": "N=7\n" + SERVER + " --tp-size $(( N > 5 ? 1 : 0 )) --port $(( 2 ** 5 ))",
    "bases": "X=010\n" + SERVER + " --tp-size $((X + 1)) --port $((10#$X + 30000))",
    "read -ra": 'GPUS=0,1,2,3\nIFS="," read -ra G <<< "$GPUS"\n' + SERVER + " --tp-size ${#G[@]}",
    "array slices": "A=(x y z)\n" + SERVER + ' --served-model-name "${A[*]}" "${A[@]:1}" ${A[-1]}',
    "case fallthrough": "X=a\ncase $X in a) T=1;& b) T=2;; esac\n" + SERVER + " --tp-size $T",
    "case continue": "X=a\ncase $X in a) T=1;;& a*) T=2;; esac\n" + SERVER + " --tp-size $T",
    "c for": "for ((i=0; i<3; i++)); do T=$i; done\n" + SERVER + " --tp-size $T",
    "break": "T=0\nfor i in {1..4}; do [ $i -eq 3 ] && break; T=$i; done\n" + SERVER + " --tp-size $T",
    "return status": "f() { return 3; }\nf; R=$?\n" + SERVER + " --tp-size $R",
    "negative offsets": "T=hello\n" + SERVER + ' --served-model-name "${T:1:-1}" --host "${T: -2:1}"',
    "bitwise": "T=7\n" + SERVER + " --tp-size $(( T & 6 )) --port $(( 30000 | T ))",
    "arith names": "x=5; y=x; z=y\n" + SERVER + " --tp-size $(( z + 1 ))",
    "regex no match": "[[ abc =~ z ]]\n" + SERVER + ' --served-model-name "x${#BASH_REMATCH[@]}"',
}


@pytest.mark.parametrize("name", [*FIXED, *AGREED])
def test_every_known_word_equals_bash(name: str, tmp_path: Path) -> None:
    script = {**FIXED, **AGREED}[name]
    predicted = argtrace_argv(script, tmp_path)
    assert None not in predicted  # each of these is known statically
    assert predicted == bash_argv(script, tmp_path)


def test_a_file_read_by_dollar_paren_less_than_is_unknown_not_empty(tmp_path: Path) -> None:
    """``$(< FILE)`` is bash's shorthand for ``$(cat FILE)``; it was evaluated as a command with no words
    and gave the empty string, stated as known (``--served-model-name`` then lost its value)."""
    script = "M=$(< model.txt)\n" + SERVER + " --served-model-name $M"
    (server,) = analyzed(script, tmp_path).servers
    assert server.argv[-1].text is None
    assert server.argv[-1].origin.reason == (
        "command substitution `$(< model.txt)` runs only at run time (unquoted: it may also split into "
        "several words)"
    )
