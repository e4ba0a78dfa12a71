"""tree-sitter-bash's error recovery is quadratic in an erroneous statement's length: its work is counted
as the bytes it reads (``syntax.READ_FACTOR``), and past the budget the line it reads most is read as
blank, said by SH056 (session 30, docs/reliability.md "Session 30 (safe30)"). Counted, never timed."""

from __future__ import annotations

from argtrace.layers.shell import syntax
from argtrace.layers.shell.analysis import _unread_lines
from argtrace.layers.shell.syntax import parse_tree

HEAD = "#!/bin/bash\nshopt -s extglob\nvllm serve m --port 8000\n"
LONG = HEAD + "echo " + "!(a)" * 10_000 + "\nvllm serve m --tp 2\n"


def _served(text: str) -> int:
    """The bytes the parser reads of ``text`` without a budget."""
    data = text.encode("latin-1")
    served = 0

    def read(byte: int, point: tuple[int, int]) -> bytes:
        nonlocal served
        chunk = data[byte : byte + 16384]
        served += len(chunk)
        return chunk

    syntax._parser().parse(read)
    return served


def test_a_long_line_the_parser_recovers_on_is_read_as_blank_and_the_rest_is_read() -> None:
    blanked: list[tuple[int, int]] = []
    tree = parse_tree(LONG, blanked)
    assert blanked == [(4, 40005)]
    assert not tree.root_node.has_error
    commands = [c.text.decode() for c in tree.root_node.children]
    assert commands == ["#!/bin/bash", "shopt -s extglob", "vllm serve m --port 8000", "vllm serve m --tp 2"]


def test_the_work_grows_with_the_square_and_the_budget_is_far_above_a_clean_script() -> None:
    # 1,000 groups: 4 KB read about 1,000 times over; 2,000: 8 KB about 2,000 times (four times the bytes)
    small, double = (_served("echo " + "!(a)" * n + "\n") for n in (1000, 2000))
    assert (small // 4005, double // 8005) == (1002, 2002)
    clean = "vllm serve m --tp 2\n" * 20_000
    assert _served(clean) <= 2 * len(clean)
    blanked: list[tuple[int, int]] = []
    parse_tree(clean, blanked)
    assert blanked == []


def test_a_case_the_parser_cannot_read_is_read_as_far_as_it_got() -> None:
    text = "vllm serve m\ncase $x in\n" + "".join(f"--@(a{i}|b)) ;;\n" for i in range(5000)) + "esac\n"
    blanked: list[tuple[int, int]] = []
    parse_tree(text, blanked)
    assert blanked == [(-5004, 0)]  # the parser asked most for the end: no line to blank


def test_the_finding_names_the_lines_once() -> None:
    finding = _unread_lines("launch.sh", [(4, 40005), (9, 12000)])
    assert finding.code == "SH056"
    assert finding.message == (
        "line 4 (40,005 characters), line 9 (12,000 characters) of launch.sh are read as blank: "
        "tree-sitter-bash's error recovery there takes time that grows with the square of the statement's "
        "length (minutes); what is not read is unknown here, though bash may run it"
    )
    stopped = _unread_lines("launch.sh", [(-5004, 0)])
    assert stopped.message.startswith("launch.sh is read only as far as its parser got: tree-sitter-bash's")
