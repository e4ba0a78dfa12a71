"""``argtrace --help`` without argparse: the text the real parser prints, generated ahead of time.

Building the top-level parser means importing argparse (and through it gettext, locale and shutil, which
pulls in bz2 and lzma) and every command module: about twice the interpreter's own start-up (issue 18).
The texts in ``static_help_text.py`` are what ``build_parser(...).format_help()`` returns at 80 columns
under each Python minor release (argparse's wording changes between them: 3.10 says "optional
arguments:"); ``scripts/gen_help_text.py`` writes them and ``tests/test_static_help.py`` compares them with
the real parser, so they cannot drift. Any other width or interpreter builds the parser as before.
"""

from __future__ import annotations

import os
import sys

# the width the texts are generated for: argparse's fallback when stdout is no terminal, and the usual one
COLUMNS = 80


def columns() -> int:
    """The terminal width argparse's HelpFormatter would use (``shutil.get_terminal_size``'s rule: a
    positive integer ``COLUMNS``, else stdout's terminal, else 80), without importing shutil."""
    try:
        value = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        value = 0
    if value > 0:
        return value
    try:
        value = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        value = 0
    return value or COLUMNS


def top_level_help() -> str | None:
    """The top-level help text for this interpreter and terminal, or None when none was generated."""
    if columns() != COLUMNS:
        return None
    from argtrace.static_help_text import TOP_LEVEL

    return TOP_LEVEL.get(f"{sys.version_info[0]}.{sys.version_info[1]}")
