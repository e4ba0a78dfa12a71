"""``printf`` as bash prints it (``layers/shell/printf_format.py``), compared with the real bash.

Every format below is run on every argument list by bash itself (one process, each output ended by the
bytes 036 037); each answer argtrace computes must equal bash's, and the answers it leaves unknown are the
ones the module says it does not compute. Arguments are given to argtrace as the shell layer holds text:
bytes read as latin-1 (so a width counts bytes, as bash's does)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from argtrace.layers.shell.printf_format import printf_output, shell_quote
from tests.shell.bash_oracle import argtrace_argv, bash_file_argv

FORMATS = [
    "%s", "%5s|", "%-5s|", "%.2s", "%05d", "%+d", "% d", "%x", "%X", "%o", "%u", "%5.2f", "%.3e", "%g",
    "%G", "%c", "%q", "%q ", "%b", "%s,", "%d-%s;", "%*d|", "%-*s|", "%.*f", "%10q|", "%i",
    "a\\tb%s\\n", "\\x41%s\\101", "%%%s", "%-05d|", "%E", "%F",
]  # fmt: skip
ARGS = [
    [], ["a"], ["abc", "de"], ["42"], ["-7"], ["0x1f"], ["010"], ["'A"], ["3.14159"], ["1e3"], ["a b"],
    ["it's"], ["$HOME"], ["~x"], ["#c"], ["x,y"], [""], ["12abc"], ["5", "7"], ["3", "x"], ["a\\tb"],
    ["é"], ["0", "-3", "2.5"],
]  # fmt: skip


def _bash_outputs(pairs: list[tuple[str, list[str]]], tmp_path: Path) -> list[bytes]:
    lines = []
    for fmt, args in pairs:
        words = " ".join("'" + w.replace("'", "'\\''") + "'" for w in [fmt, *args])
        lines.append(f"printf {words} 2>/dev/null || printf '\\001'; printf '\\036\\037'")
    script = tmp_path / "printf.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run(["bash", str(script)], capture_output=True, timeout=60, check=True)
    return done.stdout.split(b"\x1e\x1f")[:-1]


def test_every_computed_output_is_bash_s(tmp_path: Path) -> None:
    pairs = [(f, a) for f in FORMATS for a in ARGS]
    outputs = _bash_outputs(pairs, tmp_path)
    assert len(outputs) == len(pairs)
    known = 0
    for (fmt, args), theirs in zip(pairs, outputs, strict=True):
        ours = printf_output(fmt, [a.encode().decode("latin-1") for a in args])
        if ours is None:
            continue
        known += 1
        assert not theirs.endswith(b"\x01"), (fmt, args, "bash failed where argtrace computed", ours)
        assert ours.encode("latin-1") == theirs, (fmt, args)
    # what stays unknown: numbers from words that are not numbers, %q of a non-ASCII text, %c of nothing
    assert known == 454


@pytest.mark.parametrize(
    ("fmt", "args"),
    [
        ("%d", ["12abc"]),  # bash prints 12 and fails
        ("%q", ["é".encode().decode("latin-1")]),  # bash picks the form by the locale
        ("%q", ["a\nb"]),  # $'a\nb'
        ("%c", [""]),  # a NUL byte
        ("%a", ["1"]),
        ("%(%F)T", ["-1"]),
        ("%#x", ["255"]),
        ("%.2q", ["ab"]),
    ],
)
def test_left_unknown(fmt: str, args: list[str]) -> None:
    assert printf_output(fmt, args) is None


def test_quote_of_each_printable_character_is_bash_s(tmp_path: Path) -> None:
    chars = [chr(c) for c in range(0x20, 0x7F)]
    texts = [t for c in chars for t in (f"a{c}b", f"{c}ab", f"ab{c}")] + ["", "a b c", "--x='1 2'"]
    outputs = _bash_outputs([("%q", [t]) for t in texts], tmp_path)
    assert [shell_quote(t) for t in texts] == [o.decode() for o in outputs]
    assert shell_quote("~x") == "\\~x"
    assert shell_quote("x~") == "x~"


def test_printf_q_rebuilds_the_words_a_remote_shell_reads(tmp_path: Path) -> None:
    """`"$(printf '%q ' "${CMD[@]}")"`, the usual way to hand an array to `ssh` or `bash -c`: read back by
    `eval`, it gives each word as written."""
    script = (
        "CMD=(--chat-template '{% if x %}a b{% endif %}' --served-model-name \"it's\" --x '$HOME')\n"
        "Q=$(printf '%q ' \"${CMD[@]}\")\n"
        'eval "python3 -m sglang.launch_server --model-path m $Q"'
    )
    expected = bash_file_argv(script, tmp_path)
    assert expected[-6:] == [
        "--chat-template",
        "{% if x %}a b{% endif %}",
        "--served-model-name",
        "it's",
        "--x",
        "$HOME",
    ]
    assert argtrace_argv(script, tmp_path) == expected


def test_printf_v_with_a_numeric_format(tmp_path: Path) -> None:
    script = (
        "printf -v PORT '%d' 0x7530\nprintf -v TAG 'run-%03d' 7\n"
        'python3 -m sglang.launch_server --model-path m --port "$PORT" --t "$TAG"'
    )
    assert argtrace_argv(script, tmp_path) == bash_file_argv(script, tmp_path)
    assert argtrace_argv(script, tmp_path)[-3:] == ["30000", "--t", "run-007"]
