"""Parsed configuration files, kept between runs (issue 18). Stdlib only, and no ``tomllib``.

A project that configures argtrace in its ``pyproject.toml`` had every command import ``tomllib`` (with
``datetime`` and its patterns) and parse the whole file: about 10 M instructions, 2% of a short ``check``,
the same answer on every run. This module keeps what ``tomllib.loads`` returned as ``marshal`` data in the
data cache (``cache_dirs.data_cache_dir``): one store holding the last 16 files parsed, each with its whole
text. A copy is given back only for exactly the same text (compared in full), so an edited file, whatever
its size or modification time, is parsed again. A document ``marshal`` cannot hold (a TOML date or time) is
not kept, nor is a file that does not parse (its error is raised by the parse, every time). A store that
cannot be read, is not the user's own (``cache_dirs.read_private_file``) or was written by another
interpreter build is ignored. ``ARGTRACE_NO_DATA_CACHE=1`` turns it off.
"""

from __future__ import annotations

import marshal
import os
import sys
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
MAX_FILES = 16  # configuration files kept (the most recently parsed): a user works in a few projects


def _build() -> str:
    """What must match for a copy to stand for ``tomllib``'s answer: the interpreter (its ``tomllib``) and
    the ``marshal`` format."""
    return repr((FORMAT, sys.version, marshal.version))


def _store_path() -> str | None:
    from argtrace.cache_dirs import data_cache_dir, data_cache_enabled

    if not data_cache_enabled() or not hasattr(os, "getuid"):
        return None
    return os.path.join(data_cache_dir(), f"config-{sys.implementation.cache_tag}.marshal")


def _read(store: str) -> dict[str, tuple[str, dict[str, Any]]]:
    """The kept copies by file path; {} for a missing, unreadable, foreign or corrupt store."""
    from argtrace.cache_dirs import loads_checked, read_private_file

    # not a link, the user's own, in a directory nobody else can write to; None: cut short, damaged (its
    # CRC-32) or not marshal data
    stored = loads_checked(read_private_file(store))
    if not (isinstance(stored, tuple) and len(stored) == 2 and stored[0] == _build()):
        return {}
    copies = stored[1]
    return copies if isinstance(copies, dict) else {}


def lookup(path: Path, text: str) -> dict[str, Any] | None:
    """The parsed document kept for ``path`` when its text was exactly ``text``, else None."""
    store = _store_path()
    if store is None:
        return None
    copy = _read(store).get(os.path.abspath(path))
    if not (isinstance(copy, tuple) and len(copy) == 2 and copy[0] == text and isinstance(copy[1], dict)):
        return None
    return copy[1]


def keep(path: Path, text: str, data: dict[str, Any]) -> None:
    """Keep ``data``, what ``tomllib.loads(text)`` returned for the file ``path``, for the next run (the
    store is replaced atomically: concurrent runs lose at most their own copy)."""
    store = _store_path()
    if store is None:
        return
    copies = _read(store)
    where = os.path.abspath(path)
    copies.pop(where, None)
    copies[where] = (text, data)
    while len(copies) > MAX_FILES:  # the oldest first
        del copies[next(iter(copies))]
    from argtrace.cache_dirs import dumps_checked, write_private_file

    raw = dumps_checked((_build(), copies))
    if raw is None:
        return  # a date or time value (or nesting marshal refuses): parsed again next time
    write_private_file(store, raw)
