"""Suppression comments, shellcheck-style: ``# argtrace disable=SH004,PA007``.

* In a script, a directive on its own line applies to the next command (all its lines: a continued
  ``python -m sglang.launch_server \\`` with every flag, or a whole ``if``/``for`` block); before the first
  command (after the shebang and leading comments) it applies to the whole file.
* In YAML (compose, Kubernetes, rendered Helm output), on the line before an item (a list item or a key,
  with everything indented under it) it applies to that item; at the top, before any content, to the file.

A finding is suppressed when its code is named and its line is in the directive's scope; a finding with no
line in the checked file (a framework file's line, a URL) only by a file-wide directive. Since a cause
carries its consequences (``consequences``), suppressing the cause suppresses them with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DIRECTIVE = re.compile(
    r"^\s*#\s*argtrace\s+disable\s*=\s*(?P<codes>[A-Za-z]{2}\d+(?:\s*,\s*[A-Za-z]{2}\d+)*)\s*(?:#.*)?$"
)
WHOLE_FILE = 1 << 62  # the last line of a file-wide scope


@dataclass(frozen=True)
class Scope:
    """Lines ``first``..``last`` (1-based, inclusive) of one file, where ``codes`` are not reported;
    ``by`` is the directive's ``LINE`` (for ``--show-suppressed``)."""

    codes: frozenset[str]
    first: int
    last: int
    line: int

    @property
    def whole_file(self) -> bool:
        return self.first <= 1 and self.last >= WHOLE_FILE

    def covers(self, code: str, line: int | None) -> bool:
        if code.upper() not in self.codes:
            return False
        if line is None:
            return self.whole_file
        return self.first <= line <= self.last


def _directives(lines: list[str]) -> list[tuple[int, frozenset[str]]]:
    out = []
    for i, line in enumerate(lines):
        if "argtrace" not in line:
            continue
        m = DIRECTIVE.match(line)
        if m is not None:
            codes = frozenset(c.strip().upper() for c in m.group("codes").split(","))
            out.append((i, codes))
    return out


def scopes_in(text: str, yaml: bool) -> list[Scope]:
    """Every directive of one file with the lines it covers."""
    lines = text.splitlines()
    directives = _directives(lines)
    if not directives:
        return []
    return _yaml_scopes(lines, directives) if yaml else _shell_scopes(text, directives)


def _shell_scopes(text: str, directives: list[tuple[int, frozenset[str]]]) -> list[Scope]:
    from argtrace.layers.shell.syntax import parse_tree

    # Every statement-like node by its first row: the outermost one starting on a row is "the command"
    # there (a pipeline, a redirected statement, an `if` block), with the row it ends on.
    ends: dict[int, int] = {}
    stack = [parse_tree(text).root_node]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type != "comment":
                row = child.start_point[0]
                ends[row] = max(ends.get(row, row), child.end_point[0])
            stack.append(child)
    rows = sorted(ends)
    out = []
    for row, codes in directives:
        following = [r for r in rows if r > row]
        if not rows or row < rows[0]:
            out.append(Scope(codes, 1, WHOLE_FILE, row + 1))
        elif following:
            start = following[0]
            out.append(Scope(codes, start + 1, ends[start] + 1, row + 1))
    return out


def _content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#") and stripped not in ("---", "...")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _yaml_scopes(lines: list[str], directives: list[tuple[int, frozenset[str]]]) -> list[Scope]:
    first_content = next((i for i, line in enumerate(lines) if _content(line)), len(lines))
    out = []
    for row, codes in directives:
        if row < first_content:
            out.append(Scope(codes, 1, WHOLE_FILE, row + 1))
            continue
        start = next((i for i in range(row + 1, len(lines)) if _content(lines[i])), None)
        if start is None:
            continue
        head = lines[start]
        indent = _indent(head)
        # A key with a block value may have its sequence at the same indentation (`command:\n- a`).
        is_key = not head.lstrip().startswith("- ") and head.rstrip().endswith(":")
        end = start
        for i in range(start + 1, len(lines)):
            line = lines[i]
            if not _content(line):
                continue
            same_level_sequence = is_key and _indent(line) == indent and line.lstrip().startswith("-")
            if _indent(line) > indent or same_level_sequence:
                end = i
                continue
            break
        out.append(Scope(codes, start + 1, end + 1, row + 1))
    return out


@dataclass(frozen=True)
class Suppressed:
    """A finding (by its index in the report) that an ``# argtrace disable`` directive silenced, and where
    that directive is."""

    index: int
    by: str  # FILE:LINE of the directive


def suppressed_findings(
    findings: Iterable[Any], files: dict[str, list[Scope]], places: list[tuple[str | None, int | None]]
) -> list[Suppressed]:
    """Which findings (by index) the directives suppress. ``places[i]`` is (checked file, line or None)."""
    out = []
    for i, finding in enumerate(findings):
        file, line = places[i]
        if file is None:
            continue
        for scope in files.get(file, ()):
            if scope.covers(finding.code, line):
                out.append(Suppressed(i, f"{file}:{scope.line}"))
                break
    return out
