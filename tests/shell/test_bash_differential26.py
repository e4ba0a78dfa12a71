"""The shell layer's server argv against real bash's: the second differential probe (session 26).

Each FIXED script failed before its fix (named beside it): argtrace stated a word as known and bash gave
another. Every word argtrace states as known must equal bash's (``bash_oracle.bash_file_argv`` runs the
script from a file with ``python3`` defined as a function that prints its arguments). The attributes
argtrace does not follow must leave the word unknown, with the reason named."""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.shell.syntax import parse_tree
from tests.shell.bash_oracle import analyzed, argtrace_argv, bash_argv, bash_file_argv

SERVER = "python3 -m sglang.launch_server --model-path m"

FIXED = {
    # $FUNCNAME read as empty: bash's call stack (params.funcname_stack)
    "FUNCNAME": "f() { N=$FUNCNAME; }\nf\n" + SERVER + ' --served-model-name "$N"',
    "FUNCNAME stack": 'g() { echo "${FUNCNAME[0]}-${FUNCNAME[1]}-${#FUNCNAME[@]}"; }\nh() { X=$(g); }\nh\n'
    + SERVER
    + ' --served-model-name "$X"',
    "FUNCNAME with source": 'f() { . /dev/null; A="${FUNCNAME[*]}"; }\nf\n'
    + SERVER
    + ' --served-model-name "$A" --host "${FUNCNAME-none}"',
    "FUNCNAME assigned": "FUNCNAME=zz\nf() { A=$FUNCNAME; FUNCNAME=q; B=$FUNCNAME; }\nf\n"
    + SERVER
    + ' --served-model-name "$A-$B-$FUNCNAME"',
    # "${!PREFIX@}" is one word a name, as "$@"; it was one word of all names
    "prefix names @": "MY_A=1 MY_B=2\n" + SERVER + ' --served-model-name "${!MY_@}"',
    "prefix names *": "MY_A=1 MY_B=2\nIFS=,\n" + SERVER + ' --served-model-name "${!MY_*}"',
    "array keys *": "A=(x y z)\n" + SERVER + ' --served-model-name "${!A[*]}"',
    # test(1)'s syntax error is status 2 (and the `;` after a `[` tree-sitter misread gave the rest `$?` 0)
    "test syntax error": "[ a = ]; S=$?\n" + SERVER + " --tp-size $S",
    "test unary expected": "[ a b ]\nS=$?\n" + SERVER + " --tp-size $S",
    # tree-sitter reads `\<` in `[ ]` as an ERROR that swallowed the rest of the script (test_brackets)
    "escaped < in [": 'set -- a1\nif [ "$1" \\< "b" ]; then P=1; else P=2; fi\n' + SERVER + " --tp-size $P",
    "escaped > in [": 'if [ "zz" \\> "b" ]; then P=1; else P=2; fi\nQ=3\n'
    + SERVER
    + " --tp-size $P --port 3000$Q",
    # `set -o pipefail`: a pipeline's status is its last failing command's
    "pipefail": "set -o pipefail\nfalse | true; S=$?\n" + SERVER + " --tp-size $S",
    "pipefail ok": "set -euo pipefail\ntrue | true; S=$?\n" + SERVER + " --tp-size $S",
    # `source /dev/stdin` reads the command's own stdin: it was an unread file, `--port $P` unknown
    "source stdin here-string": 'V="P=30001"\nsource /dev/stdin <<< "$V"\n' + SERVER + " --port $P",
    "source stdin here-document": "source /dev/stdin <<EOF\nP=30002\nEOF\n" + SERVER + " --port $P",
}


@pytest.mark.parametrize("name", list(FIXED))
def test_every_known_word_equals_bash(name: str, tmp_path: Path) -> None:
    script = FIXED[name]
    predicted = argtrace_argv(script, tmp_path)
    assert None not in predicted  # each of these is known statically
    assert predicted == bash_file_argv(script, tmp_path)


def _last_word(script: str, tmp_path: Path) -> tuple[str | None, str | None]:
    (server,) = analyzed(script, tmp_path).servers
    return server.argv[-1].text, server.argv[-1].origin.reason


@pytest.mark.parametrize(
    ("script", "reason"),
    [
        (
            "declare -n R=T\nT=5\n" + SERVER + ' --tp-size "$R"',
            "`declare -n R` (launch.sh:1:1) makes R a name reference to T, which argtrace does not follow",
        ),
        (  # the target changes through the reference: it was stated as known (--port 1)
            "f() { local -n ref=$1; ref+=(--tp-size 2); }\nCMD=(--port 1)\nf CMD\n" + SERVER + ' "${CMD[@]}"',
            "`local -n ref` (launch.sh:1:7) makes ref a name reference to CMD, which argtrace does not "
            "follow",
        ),
        (
            "declare -l L=ABC\nL=XyZ\n" + SERVER + ' --served-model-name "$L"',
            "`declare -l L` (launch.sh:1:1) converts the case of what is assigned",
        ),
        (
            "declare -u U\nU=abc\n" + SERVER + ' --served-model-name "$U"',
            "`declare -u U` (launch.sh:1:1) converts the case of what is assigned",
        ),
        (
            "source /dev/stdin\n" + SERVER + ' --served-model-name "$NAME"',
            "not set here; read after `source /dev/stdin`, the caller's stdin, which may set it",
        ),
    ],
)
def test_attributes_not_followed_leave_the_value_unknown(script: str, reason: str, tmp_path: Path) -> None:
    """bash gives T's 5 through R, ``ABC``->``abc`` and ``ABC`` in the others: argtrace had stated ``T``,
    ``--port 1``, ``XyZ`` and ``abc`` as known."""
    assert _last_word(script, tmp_path) == (None, reason)


def test_the_misread_bracket_is_a_word_only_in_the_parse() -> None:
    """The view tree-sitter parses keeps every offset, and only where tree-sitter erred."""
    text = 'if [ "$1" \\< "b" ]; then P=1; fi\n[ -n "$P" ] && echo ok\nA=${B[0]}\n'
    tree = parse_tree(text)
    assert not tree.root_node.has_error
    kinds = [c.type for c in tree.root_node.children]
    assert kinds == ["if_statement", "list", "variable_assignment"]
    # the well-formed `[ -n "$P" ]` is still tree-sitter's test_command
    assert tree.root_node.children[1].children[0].type == "test_command"


def test_funcname_of_a_c_string_has_no_main(tmp_path: Path) -> None:
    """``bash -c`` (argtrace's ``check -c``, a container's ``sh -c``) puts no "main" under the functions."""
    script = 'f() { X="${FUNCNAME[*]}"; }\nf\n' + SERVER + ' --served-model-name "$X"'
    result = analyze_script(
        ScriptSource("<-c>", (script + "\n").encode(), None), [], {}, arg0="bash", run_shellcheck=False
    )
    (server,) = result.servers
    assert (
        [w.text for w in server.argv[1:]]
        == bash_argv(script, tmp_path)
        == [*SERVER.split()[1:], "--served-model-name", "f"]
    )


# `set -e` where bash applies it (bash(1), set -e): the server command after each is what bash starts or not
ERREXIT = {
    # bash clears -e in a command substitution: `false` there had been "the script exits here" (SH023 error)
    # and X empty (SH026), where bash sets X to hi and goes on
    "cmdsub clears -e": ("set -e\nX=$(false; echo hi)\n" + SERVER + ' --served-model-name "$X"', True),
    "assignment status": ("set -e\nX=$(false)\n" + SERVER, False),
    "last of a list": ("set -e\ntrue && false\n" + SERVER, False),
    "not last of a list": ("set -e\nfalse && true\n" + SERVER, True),
    "pipefail": ("set -eo pipefail\nfalse | true\n" + SERVER, False),
    "pipeline without pipefail": ("set -e\nfalse | true\n" + SERVER, True),
    "arithmetic": ("set -e\nX=1\n(( X-- ))\n(( X-- ))\n" + SERVER, False),
    "subshell": ("set -e\n(false)\n" + SERVER, False),
    "readonly": ("set -e\nreadonly R=1\nR=2\n" + SERVER, False),
    "negated": ("set -e\n! true\n" + SERVER, True),
    "left of ||": ("set -e\nf() { false; Y=in; }\nf || true\n" + SERVER, True),
}


@pytest.mark.parametrize("name", list(ERREXIT))
def test_set_e_exits_where_bash_exits(name: str, tmp_path: Path) -> None:
    script, starts = ERREXIT[name]
    result = analyzed(script, tmp_path)
    assert bool(result.servers) is starts
    assert bool(bash_file_argv(script, tmp_path)) is starts
    if starts:
        assert [w.text for w in result.servers[0].argv[1:]] == bash_file_argv(script, tmp_path)
    else:
        assert [f.code for f in result.findings if f.code == "SH023" and f.severity == "error"] == ["SH023"]


@pytest.mark.parametrize(
    "script",
    [
        "readonly R=1\nR=2\nS=$?\n" + SERVER + " --tp-size $S",
        'readonly R=1\nexport R="3"\nS=$?\n' + SERVER + " --tp-size $S",
        "readonly R=1\nexport R=3\nS=$?\n" + SERVER + " --tp-size $S",
    ],
)
def test_an_assignment_to_a_readonly_variable_fails(script: str, tmp_path: Path) -> None:
    """bash refuses it with status 1 (and `set -e` then exits): the status had been 0."""
    assert argtrace_argv(script, tmp_path) == bash_file_argv(script, tmp_path)
    assert argtrace_argv(script, tmp_path)[-1] == "1"


def test_set_e_in_a_background_job_ends_the_job_not_the_script(tmp_path: Path) -> None:
    """`( false; ... ) &` under set -e: the job stops at `false`; the script goes on (it had been an SH023
    error, "the script exits here")."""
    script = "set -e\n(false; " + SERVER + " --port 1) &\n" + SERVER + " --port 2"
    result = analyzed(script, tmp_path)
    assert [[w.text for w in s.argv][-1] for s in result.servers] == ["2"]
    assert bash_file_argv(script, tmp_path)[-1] == "2"
    assert not [f for f in result.findings if f.code == "SH023"]
