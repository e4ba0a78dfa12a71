"""argparse's help formatter with its width found without importing ``shutil`` (issue 18).

``argparse.HelpFormatter`` imports ``shutil`` (with ``bz2``, ``lzma`` and ``fnmatch``) for
``shutil.get_terminal_size`` when no width is given, and ``add_argument`` makes a formatter for every
option it adds: a short ``check`` imported ``shutil`` for that alone (and for ``shutil.which``, now
``localfs.which``), 6.7 M instructions. :class:`HelpFormatter` is argparse's own with the width
``static_help.columns`` gives, ``shutil.get_terminal_size``'s rule (a positive ``COLUMNS``, else stdout's
terminal, else 80) less 2, as argparse subtracts; the texts are the same (tests/test_static_help.py compares
the top-level help with the generated one at 80 columns, tests/test_help_format.py other widths).
"""

from __future__ import annotations

import argparse

from argtrace.static_help import columns

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class HelpFormatter(argparse.HelpFormatter):
    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: int | None = None,
        **more: Any,  # what a later argparse passes (3.14: ``color``)
    ) -> None:
        width = columns() - 2 if width is None else width
        super().__init__(prog, indent_increment, max_help_position, width, **more)
