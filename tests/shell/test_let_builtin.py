"""bash's ``let`` builtin in the shell layer: each word an arithmetic expression, the last one's value the
status. A word with an unquoted ``*`` goes through pathname expansion first (bash's manual, "Shell
Arithmetic" and "Bash Builtins": let's arguments are expanded as any command's), so what it assigns is not
known statically; it used to be left unset and read as empty (``let J=2*3`` then ``--port $J$K`` gave a
wrong port, stated as known). Values argtrace does compute are compared with real bash."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shell.bash_oracle import SERVER, bash_says, server_port


@pytest.mark.parametrize(
    "lets",
    [
        'let "K = 4 + 1" L=K+1',  # several words, the second reading what the first set
        "let K=5 L=K++",  # post-increment: L gets 5, K 6
        "let 'K = 0x10' 'L = K << 1'",  # bases and shifts
    ],
)
def test_let_values_equal_bash(lets: str, tmp_path: Path) -> None:
    predicted, _ = server_port(f"{lets}\n" + SERVER.format(port="$K$L"), tmp_path)
    assert predicted == bash_says(f"{lets}; echo $K$L", tmp_path)


def test_a_word_pathname_expansion_reads_makes_what_it_assigns_unknown(tmp_path: Path) -> None:
    predicted, reason = server_port("let J=2*3\n" + SERVER.format(port="$J"), tmp_path)
    assert predicted is None  # J was left unset: `--port $J` lost its value word, stated as known
    assert reason == (
        "`let` at launch.sh:1:1: pathname expansion of `J=2*3` depends on the files present when the script "
        "runs (unquoted: it may also split into several words)"
    )


def test_the_words_after_an_unknown_one_still_evaluate(tmp_path: Path) -> None:
    assert server_port("let J=2*3 M=7\n" + SERVER.format(port="$M"), tmp_path) == ("7", None)
    # one that reads the unknown name is unknown too
    predicted, reason = server_port("let J=2*3 M=J+1\n" + SERVER.format(port="$M"), tmp_path)
    assert predicted is None and reason is not None


@pytest.mark.parametrize("lets", ["let 0 1", "let 1 0", "let 2*3 1", "let 'X = 3' 0"])
def test_the_status_is_the_last_expressions(lets: str, tmp_path: Path) -> None:
    """``let``'s status decides a branch: the last expression's value, 0 -> status 1 (an unknown word before
    it does not change that)."""
    script = f"if {lets}; then P=1; else P=2; fi\n" + SERVER.format(port="$P")
    predicted, _ = server_port(script, tmp_path)
    if "*" in lets:
        assert predicted == "1"  # bash: the last word, 1, is non-zero; the glob word before it is unknown
    else:
        assert predicted == bash_says(f"if {lets}; then echo 1; else echo 2; fi", tmp_path)


def test_a_word_a_command_substitution_makes_unknown_makes_what_it_assigns_unknown(tmp_path: Path) -> None:
    """``X`` had kept its value from before the ``let`` (a stale value stated as known)."""
    predicted, reason = server_port("X=1\nlet X=$(nproc)*2\n" + SERVER.format(port="$X"), tmp_path)
    assert predicted is None and reason is not None and reason.startswith("`let` at launch.sh:2:1: ")
