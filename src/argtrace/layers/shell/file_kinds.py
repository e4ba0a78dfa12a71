"""What an input is by its name, asked of every ``check`` before its reader is imported (issue 18).

A Makefile's and a Markdown page's readers (``makefile.py``, ``markdown.py``: ~30 KB of bytecode, two
dataclasses and a dozen patterns) are needed only for such a file; these tests are what every other input
asks of them, so they live here and the readers are imported where a file is one.
"""

from __future__ import annotations

import posixpath

MAKEFILE_NAMES = frozenset({"Makefile", "makefile", "GNUmakefile"})  # GNU make's default names
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")


def is_makefile(label: str, data: bytes) -> bool:
    """A Makefile by its name (GNU make's default names, or ``*.mk``), unless it is a script (``#!``)."""
    name = posixpath.basename(label)
    return (name in MAKEFILE_NAMES or name.endswith(".mk")) and not data.startswith(b"#!")


def is_markdown(label: str, data: bytes) -> bool:
    """A Markdown page by its name (``README.md``, ``*.markdown``), unless it is a script (``#!``)."""
    return posixpath.basename(label).lower().endswith(MARKDOWN_SUFFIXES) and not data.startswith(b"#!")
