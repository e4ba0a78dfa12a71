"""``printf -v VAR FORMAT ARGS...`` with an argument not known statically (``read -r MODEL < FILE``, then
``printf -v ARGS -- "--model-path %s --port %d" "$MODEL" 30000`` and an unquoted ``$ARGS``): the variable is
known but for that value (layers/shell/holes.py ``printf_holed``), so the server's other words are read.

Before (session 28) the whole value was unknown: the server read one unknown word where bash gives
``--model-path VALUE --port 30000``, and PA020 said the required ``--model-path`` was missing. bash's own
printf options are read as ``help printf`` gives them (``-v VAR``, ``-vVAR``, ``--``; a format left starting
with ``-`` is refused): argtrace took the ``--`` of ``printf -v A -- FORMAT`` for the format, and skipped
``printf -vA`` as a command with no effect. Our own inputs; the bash side runs each script with the unknown
value given."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.shell.bash_oracle import analyzed

VALUE = "Qwen/Qwen3-8B"
READ = "read -r M < model.txt\n"
SERVER = "python3 -m sglang.launch_server"

CASES = {
    "a hole and a known number": f'{READ}printf -v A -- "--model-path %s --port %d" "$M" 30000\n{SERVER} $A',
    "-vNAME": f'{READ}printf -vA -- "--model-path=%s" "$M"\n{SERVER} $A --tp-size 2',
    "quoted": f'{READ}printf -v A "%s" "$M"\n{SERVER} --model-path "$A" --port 1',
    "known only": f'printf -v A -- "--model-path %s" /m\n{SERVER} $A --port 30000',
    "known, -vNAME": f'printf -vA "%s" /m\n{SERVER} --model-path "$A"',
    "substitution with --": f'A=$(printf -- "--model-path %s" /m)\n{SERVER} $A --port 30000',
    "refused: a format starting with -": f'A=$(printf "--model-path %s" /m)\n{SERVER} $A --port 30000',
    "refused: -v": f'printf -v A "--model-path %s" /m\n{SERVER} $A --port 30000',
    "a width: unknown": f'{READ}printf -v A "%20s" "$M"\n{SERVER} --model-path $A --port 1',
    "a precision: unknown": f'{READ}printf -v A "%.3s" "$M"\n{SERVER} --model-path "$A" --port 1',
    "%q: unknown": f'{READ}printf -v A "%q" "$M"\n{SERVER} --model-path "$A" --port 1',
}


def bash_argv(script: str, tmp_path: Path) -> list[str]:
    """The server's argv as real bash runs the script, model.txt holding VALUE."""
    (tmp_path / "model.txt").write_text(VALUE + "\n")
    shown = 'python3() { printf "%s\\n" "$@"; }\n' + script
    done = subprocess.run(["bash", "-c", shown], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    return done.stdout.splitlines()


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_word_stated_is_bash_s_and_the_value_s_words_are_unknown(name: str, tmp_path: Path) -> None:
    script = CASES[name]
    theirs = bash_argv(script, tmp_path)
    (tmp_path / "model.txt").unlink()  # argtrace reads the script alone: the file's value is not known
    (server,) = analyzed(script, tmp_path).servers
    ours = [w.text for w in server.argv[1:]]
    assert len(ours) == len(theirs), (ours, theirs)
    for mine, real in zip(ours, theirs, strict=True):
        if VALUE[:3] in real:
            assert mine is None
        else:
            assert mine == real


@pytest.mark.parametrize(
    ("name", "known"),
    [
        (
            "a hole and a known number",
            ["-m", "sglang.launch_server", "--model-path", None, "--port", "30000"],
        ),
        ("-vNAME", ["-m", "sglang.launch_server", None, "--tp-size", "2"]),
        ("known only", ["-m", "sglang.launch_server", "--model-path", "/m", "--port", "30000"]),
        ("refused: -v", ["-m", "sglang.launch_server", "--port", "30000"]),
        # a width pads by the value's length: the whole value is unknown, and so is every word of it
        ("a width: unknown", ["-m", "sglang.launch_server", "--model-path", None, "--port", "1"]),
    ],
)
def test_the_words_argtrace_states(name: str, known: list[str | None], tmp_path: Path) -> None:
    (server,) = analyzed(CASES[name], tmp_path).servers
    assert [w.text for w in server.argv[1:]] == known


def test_the_unknown_word_keeps_the_value_s_reason(tmp_path: Path) -> None:
    (server,) = analyzed(CASES["a hole and a known number"], tmp_path).servers
    (word,) = [w for w in server.argv if w.text is None]
    assert (
        word.origin.reason
        == "`read` at launch.sh:1:1 reads it at run time (unquoted: it may also split into several words)"
    )
