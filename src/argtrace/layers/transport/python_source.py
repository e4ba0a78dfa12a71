"""This module owns telling a Python program apart from a shell script, and the Python code of a file: a
``.py`` module or a Jupyter notebook's code cells (``.ipynb``), with IPython's shell escapes taken out as
shell commands.

Read only as text: ``ast.parse`` never imports or runs anything. A notebook's cells keep their place in the
file: each line of a cell's ``source`` list is the JSON file's own line (nbformat writes one list item per
line), so a finding's ``FILE:LINE`` is a line of the ``.ipynb`` the user can open.

IPython's own syntax in a code cell (IPython's ``inputtransformer2``): ``!cmd`` and ``x = !cmd`` run ``cmd``
in a shell; a cell whose first line is ``%%bash``, ``%%sh`` or ``%%script bash|sh`` is a shell script; other
``%`` line magics and ``%%`` cell magics are IPython's and not read (their line is blank for ``ast``).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

_PY_EXTENSIONS = (".py", ".pyw", ".ipynb")
PY_SHEBANG = re.compile(rb"^#![^\n]*\bpython[0-9.]*\b")
_SHELL_CELL = re.compile(r"^%%(bash|sh|script[ \t]+(ba)?sh)\b")
# `!cmd`, `!!cmd`, `name = !cmd`: IPython's system escape
_ESCAPE = re.compile(r"^(?P<indent>[ \t]*)(?:[A-Za-z_][\w, ]*=[ \t]*)?!!?(?P<cmd>.*)$")


@dataclass
class PythonCode:
    """The Python text of a file, line numbers kept (blank lines where something else was), and the shell
    commands IPython runs from it: (line, column, text)."""

    text: str
    shell: list[tuple[int, int, str]] = field(default_factory=list)
    notebook: bool = False
    cells: int = 0


def is_python_launch(label: str, data: bytes) -> bool:
    """A Python program or notebook: by its name (``.py``, ``.ipynb``), its ``#!`` line, or, with neither,
    by bash refusing what ``ast`` reads (a one-word file both read is left to bash)."""
    name = label.lower()
    if name.endswith(_PY_EXTENSIONS):
        return True
    if data.startswith(b"#!"):
        return bool(PY_SHEBANG.match(data))
    if name.endswith((".sh", ".bash", ".cmd")) or b"\x00" in data[:65536]:
        return False
    if not re.search(rb"(?m)^\s*(import|from)\s+\w|\w\(", data[:65536]):
        return False  # no import and no call: nothing for a Python reading to find
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    from argtrace.layers.shell.syntax import bash_syntax_errors

    return bool(bash_syntax_errors(data, label))


def python_code(label: str, data: bytes) -> PythonCode:
    """The Python code of ``data``; a notebook's code cells placed at their lines in the JSON file."""
    if label.lower().endswith(".ipynb") or _looks_like_notebook(data):
        return _notebook(data)
    text = data.decode("utf-8", "replace")
    return _escapes(text.splitlines(), 1, PythonCode(text=""), notebook=False)


def _looks_like_notebook(data: bytes) -> bool:
    head = data[:4096].lstrip()
    return head.startswith(b"{") and b'"cells"' in data[: 1 << 20] and b'"nbformat"' in data


def _notebook(data: bytes) -> PythonCode:
    from argtrace.model import UsageError

    raw = data.decode("utf-8", "replace")
    from argtrace.safe_json import loads

    try:
        notebook = loads(raw)  # the user's file: nesting too deep is a decoding error, not a crash
    except ValueError as exc:
        raise UsageError(f"not a Jupyter notebook (its JSON does not read: {exc})") from exc
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise UsageError("not a Jupyter notebook (no `cells` list)")
    file_lines = raw.splitlines()
    out = PythonCode(text="", notebook=True)
    lines: dict[int, str] = {}
    cursor = 0  # where the search for the next cell's `"source"` key starts
    free = len(file_lines) + 1  # a cell whose lines are not found goes after the file's end
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        found = next((i for i in range(cursor, len(file_lines)) if '"source"' in file_lines[i]), None)
        source = cell.get("source")
        text = "".join(source) if isinstance(source, list) else source if isinstance(source, str) else ""
        if found is not None:
            cursor = found + 1
        if cell.get("cell_type") != "code" or not text.strip():
            continue
        out.cells += 1
        cell_lines = text.splitlines()
        # one list item per JSON line (nbformat's writer): the first item is on the key's line or the next
        if found is not None and isinstance(source, list):
            first = found + 1 if file_lines[found].rstrip().endswith("[") else found
            start = first + 1
        else:
            start, free = free, free + len(cell_lines) + 1
        if _SHELL_CELL.match(cell_lines[0]):
            # the magic's line is IPython's; the rest is the script bash runs
            out.shell.append((start + 1, 0, "\n".join(cell_lines[1:])))
            continue
        if cell_lines[0].startswith("%%"):
            continue  # another cell magic (%%time, %%writefile, %%capture...): not Python argtrace reads
        cell_code = _escapes(cell_lines, start, PythonCode(text=""), notebook=True)
        out.shell.extend(cell_code.shell)
        for offset, line in enumerate(cell_code.text.splitlines()):
            lines[start + offset] = line
    last = max(lines, default=0)
    out.text = "\n".join(lines.get(n, "") for n in range(1, last + 1)) + "\n"
    return out


def _escapes(lines: list[str], start: int, out: PythonCode, *, notebook: bool) -> PythonCode:
    """``lines`` (the first at line ``start``) with IPython's ``!cmd`` escapes taken out as shell commands
    and ``%`` magics blanked, in a notebook; a module's lines as they are."""
    kept: list[str] = []
    joined = 0  # lines an escape's trailing backslashes took in (IPython joins them to the command)
    for offset, line in enumerate(lines):
        if joined:
            joined -= 1
            kept.append("")
            continue
        stripped = line.lstrip()
        if notebook and stripped.startswith("%"):
            kept.append("")
            continue
        match = _ESCAPE.match(line) if notebook and "!" in line else None
        if match is not None and not _is_python(line):
            command = match.group("cmd")
            column = (
                line.index("!") + 1 + (1 if line[line.index("!") + 1 : line.index("!") + 2] == "!" else 0)
            )
            # `!uv pip install \` continued on the next lines: IPython's assemble_continued_line
            # (inputtransformer2) drops each trailing backslash and joins the lines with a space; the
            # backslash-newline kept before a blank-led line is the same to bash, and keeps the lines
            pieces = [command]
            while _continues(pieces[-1]) and offset + len(pieces) < len(lines):
                following = lines[offset + len(pieces)]
                pieces.append(following if following[:1] in (" ", "\t") else " " + following)
            joined = len(pieces) - 1
            out.shell.append((start + offset, column, "\n".join(pieces)))
            kept.append(match.group("indent") + "pass")
            continue
        kept.append(line)
    out.text = "\n".join(kept) + "\n"
    return out


def _continues(line: str) -> bool:
    """A line ending in an odd number of backslashes: the next line continues it."""
    trailing = len(line) - len(line.rstrip("\\"))
    return trailing % 2 == 1


def _is_python(line: str) -> bool:
    """A line with a ``!`` that Python reads itself (``a != b``, ``x = f(!...)`` never): only a line Python
    refuses is IPython's escape."""
    try:
        ast.parse(line.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
