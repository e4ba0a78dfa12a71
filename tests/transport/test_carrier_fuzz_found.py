"""Defects the fuzz campaigns over systemd units and SkyPilot tasks found (docs/reliability.md, campaign 11).

Each is the smallest input that crashed or hung ``argtrace check`` before its fix; the fuzz reproducers
under ``tests/fuzz/reproducers/`` (``systemd-*``, ``skypilot-*``) run the found cases through the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from argtrace.layers.transport import systemd_syntax as S
from argtrace.layers.transport.skypilot import _count
from tests.conftest import run_cli


def check(tmp_path: Path, name: str, text: str) -> dict[str, Any]:
    (tmp_path / name).write_text(text)
    result = run_cli(["check", "--format", "json", "--no-resolve", name], cwd=tmp_path)
    assert result.stdout.startswith("{"), f"status {result.status}: {result.stderr}"
    report: dict[str, Any] = result.json
    return report


def test_working_directory_with_an_unknown_specifier(tmp_path: Path) -> None:
    """``WorkingDirectory=%Z``: systemd refuses the setting; the working directory is not known, no crash
    (was: SyntaxProblem out of ``_working_directory``)."""
    report = check(
        tmp_path, "a.service", "[Service]\nWorkingDirectory=%Z\nExecStart=/opt/v/bin/vllm serve m\n"
    )
    assert [s["cwd"] for s in report["servers"]] == [None]


def test_accelerator_count_beyond_a_float() -> None:
    """``H100:999...`` (400 digits) and ``H100:inf`` are no GPU count (was: OverflowError in math.ceil)."""
    assert [_count("9" * 400), _count("inf"), _count("nan"), _count("8"), _count("0.5")] == [
        None,
        None,
        None,
        8.0,
        0.5,
    ]


def test_accelerator_count_beyond_a_float_in_a_task(tmp_path: Path) -> None:
    text = f"resources:\n  accelerators: H100:{'9' * 400}\nrun: |\n  vllm serve m\n"
    hop = check(tmp_path, "task.yaml", text)["transport"]["hops"][0]
    assert (hop["accelerators"], hop["gpus_per_node"]) == (f"H100:{'9' * 400}", None)


def test_one_word_repeating_an_unset_variable_is_one_note() -> None:
    """``${A}`` 100,000 times in one word: one TP064 note, not 100,000 copies of a 400 kB word (was: a hang
    building the messages)."""
    word = "${A}" * 100_000
    out = S.expand_argv(("/bin/x", word), {})
    assert (out.argv, out.empty) == (["/bin/x", ""], [(word, "A")])


def test_one_word_naming_many_variables_is_capped() -> None:
    word = "".join(f"${{V{i}}}$W{i}" for i in range(20))
    out = S.expand_argv((word,), {})
    assert [n for _w, n in out.empty] == [f"V{i}" for i in range(S.MAX_NOTES_PER_WORD)]
    assert [n for _w, n in out.literal] == [f"W{i}" for i in range(S.MAX_NOTES_PER_WORD)]


def test_substitution_stops_at_linux_exec_limits() -> None:
    """``${A}`` 10,000 times with A 100 kB long would be a 1 GB argument (was: a hang, then the memory):
    the substitution stops where execve would refuse the argument (E2BIG) and keeps the rest as written."""
    word = "${A}" * 10_000
    out = S.expand_argv(("/bin/x", word), {"A": "x" * 100_000})
    assert (out.too_long, out.argv) == ("A", ["/bin/x", "x" * 100_000 + "${A}" * 9_999])


def test_substitution_stops_at_the_total_limit() -> None:
    out = S.expand_argv(("/bin/x", *["$A"] * 100, "${A}"), {"A": "y" * 100_000})
    cut = S.MAX_ARGS_TOTAL // 100_000
    assert (out.too_long, len(out.argv)) == ("A", 102)
    assert out.argv[1 : cut + 2] == ["y" * 100_000] * cut + ["$A"]
