"""Case patterns and extglob groups tree-sitter-bash misreads, compared with the real bash
(``layers/shell/pattern_views.py``, ``patterns._glob_to_regex``, ``Control.run_case``/``unreadable``).

Three mechanisms were wrong. tree-sitter-bash read some case patterns wrongly (``--@(foo|bar))``,
``*\\)*)``, ``')')``, ``\\ \\))``) and took the wrong ``)`` as the pattern's end, so a value was stated
from a pattern bash does not have; or read them into an ERROR that swallowed the rest of the script, server
start included. A group's alternatives were literal text, so ``+([0-9])`` matched ``[0-9]`` and not
``123``. And what an ERROR region assigned was stated as known. Each pattern below runs on each value in a
``case`` (and, where bash allows it, in a ``[[ ]]``); every answer argtrace states must be bash's.
``!(...)`` before more of the pattern is left unknown (its extent depends on what follows), as is a name
assigned where tree-sitter could not read the script.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from argtrace.layers.shell import syntax
from argtrace.layers.shell.control import _names_assigned_in
from tests.shell.bash_oracle import analyzed, argtrace_argv, bash_file_argv

PATTERNS = [
    "--@(foo|bar)", "@(foo|bar)", "+([0-9])", "!(x)", "a*(y)", "?(z)b", "--model?(-path)", "@(a|b)|c",
    "x|+([0-9])", "-@(foo|bar)", "--+([a-z])", "--!(x)", "-?(-)foo", "--*(o)f*(o)", '@("a b"|c)',
    "@(a|@(b|c)d)", "*.!(bak)", "+(ab|c)d", "@([0-9]|[0-9][0-9])", "@('x|y'|z)", "--@(a|b)=*",
    "--tp?(=+([0-9]))", "@(a\\)|b)", "*\\)*", "\\ \\)", "')'", "'|'|x", '")"*', "-\\(*", "a\\ b",
    "+([0-9])')'", "@(x|y)-')'", "--@(a|b)\\ =*",
]  # fmt: skip
CASE_ONLY = {"@(a|b)|c", "x|+([0-9])", "'|'|x"}
VALUES = [
    "--foo", "foo", "123", "x", "ayy", "zb", "--model-path", "--model", "c", "-foo", "a b", "bd", "f.bak",
    "f.txt", "ababcd", "42", "x|y", "--a=1", "--tp=8", "--tp=", "a)", "|", ")", " )", "-(x", "12)", "y-)",
    "--a =1",
]  # fmt: skip


def _script(pattern: str, values: list[str]) -> str:
    lines = ["shopt -s extglob", "OUT="]
    for v in values:
        lines += [
            "V='" + v.replace("'", "'\\''") + "'",
            "case $V in",
            f"  {pattern}) R=y;;",
            "  *) R=n;;",
            "esac",
            # a `|` outside a group separates a case item's patterns; in `[[ ]]` it is a syntax error
            f"if [[ $V == {pattern} ]]; then S=y; else S=n; fi" if pattern not in CASE_ONLY else "S=-",
            'OUT="$OUT$R$S"',
        ]
    return "\n".join([*lines, 'python3 -m sglang.launch_server --model-path m --r "$OUT"'])


@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_value_matches_as_in_bash(pattern: str, tmp_path: Path) -> None:
    script = _script(pattern, VALUES)
    theirs = bash_file_argv(script, tmp_path)
    assert theirs[-1] != "" and len(theirs[-1]) == 2 * len(VALUES)
    assert argtrace_argv(script, tmp_path) == theirs


@pytest.mark.parametrize("value", ["xy", "zy", "ay"])
def test_a_negated_group_before_more_of_the_pattern_is_unknown(value: str, tmp_path: Path) -> None:
    script = _script("!(x)y", [value])
    assert argtrace_argv(script, tmp_path)[-1] is None


def test_the_grouped_case_parses_as_one_item_per_pattern() -> None:
    text = "case $V in\n  --@(foo|bar)) R=y;;\n  a|-@(q)) R=q;;\n  *) R=n;;\nesac\necho done\n"
    tree = syntax.parse_tree(text)
    assert not tree.root_node.has_error
    (case, echo) = tree.root_node.children
    items = [c for c in case.children if c.type == "case_item"]
    assert [text[i.start_byte : i.end_byte] for i in items] == [
        "--@(foo|bar)) R=y;;",
        "a|-@(q)) R=q;;",
        "*) R=n;;",
    ]
    assert echo.type == "command"


def test_a_conditional_with_a_quoted_group_keeps_the_rest_of_the_script(tmp_path: Path) -> None:
    script = (
        "shopt -s extglob\nV='a b'\n"
        'if [[ $V == @("a b"|c) ]]; then T=2; else T=1; fi\n'
        'python3 -m sglang.launch_server --model-path m --tp "$T"'
    )
    assert argtrace_argv(script, tmp_path) == bash_file_argv(script, tmp_path)
    assert argtrace_argv(script, tmp_path)[-1] == "2"


def test_extglob_groups_in_command_words_are_words(tmp_path: Path) -> None:
    """`rm -f logs/!(latest).log` had been read as `rm -f logs/!`, a subshell running `latest`, and `.log`."""
    script = (
        "shopt -s extglob\nrm -f /tmp/argtrace-none/!(latest).log --x=@(a|b)\nP=1\n"
        'python3 -m sglang.launch_server --model-path m --port "$P"'
    )
    result = analyzed(script, tmp_path)
    assert [words for _at, words, _reason in result.commands[:2]] == [
        ["shopt", "-s", "extglob"],
        ["rm", "-f", "/tmp/argtrace-none/!(latest).log", "--x=@(a|b)"],
    ]
    assert argtrace_argv(script, tmp_path) == bash_file_argv(script, tmp_path)


def test_a_word_tree_sitter_took_for_an_assignment_is_unknown(tmp_path: Path) -> None:
    """`[a] X=1`: tree-sitter supplies a `;` and reads `X=1` as an assignment; bash gives `[a]` the word."""
    script = 'X=0\n[a] X=1\npython3 -m sglang.launch_server --model-path m --x "$X"'
    assert bash_file_argv(script, tmp_path)[-1] == "0"
    (server,) = analyzed(script, tmp_path).servers
    word = server.argv[-1]
    assert word.text is None
    assert word.origin.reason == "assigned in launch.sh line 2, which argtrace could not read as bash does"


def test_names_a_region_may_assign() -> None:
    text = 'OUT="$OUT$R" X+=1 A[2]=3 for i in 1; read -r a b <<< x; printf -v P %d 3; --flag=3 mapfile -t L'
    assert _names_assigned_in(text) == {"OUT", "X", "A", "i", "a", "b", "P", "L"}


@pytest.mark.parametrize("pattern", ["[[:digit:]].'a b'", "~", '${X}"|"[[:digit:]]\\)', "*\\)*"])
def test_conditional_patterns_tree_sitter_misread(pattern: str, tmp_path: Path) -> None:
    """`[[ $V == [[:digit:]].'a b' ]]` (the class's `]]` is not the conditional's end), `[[ $V != ~ ]]`:
    the rest of the script had been lost (no server read)."""
    lines = ["shopt -s extglob", "X=a", "OUT="]
    for v in ["a", "1.a b", "~", "a|1)", "x)y"]:
        lines += [
            f"V='{v}'",
            f"if [[ $V == {pattern} ]]; then R=y; else R=n; fi",
            f"[[ $V != {pattern} ]] && S=y || S=n",
            'OUT="$OUT$R$S"',
        ]
    script = "\n".join([*lines, 'python3 -m sglang.launch_server --model-path m --r "$OUT"'])
    ours = argtrace_argv(script, tmp_path)
    theirs = bash_file_argv(script, tmp_path)
    assert len(ours) == len(theirs) == 6
    assert ours[-1] in (None, theirs[-1])
