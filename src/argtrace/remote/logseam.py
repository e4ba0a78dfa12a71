"""The host seam's one borrowed part: the log layer's reader, lent to ``remote`` from above.

This module owns the slot through which :meth:`Host.scan_log <argtrace.remote.host.Host.scan_log>` reaches
the log layer's streaming reader without ``remote`` importing a layer (dependencies point one way: layers
-> remote). The layers package lends a factory when it is imported (``argtrace/layers/__init__.py``, so
before any layer can ask for a log); the factory runs on the first log read, which keeps the reader's
modules out of every command that reads no log. A :class:`LogReader` says how to read a log here
(``scan``), which source modules the node's collector loads to read it there (``modules``, in import order;
the last one's ``scan_log`` runs) and how to rebuild the scan from the plain data that travels back
(``rebuild``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any


@dataclass(frozen=True)
class LogReader:
    """The log layer's reader as the host seam uses it (its ``Scan`` is opaque here)."""

    scan: Callable[[Path, str], Any]  # read the log on this machine: ``scan_log(path, label)``
    modules: tuple[ModuleType, ...]  # shipped to a node in this order; the last one's ``scan_log`` runs
    rebuild: Callable[[Mapping[str, Any]], Any]  # the ``Scan`` again from ``dataclasses.asdict`` output


_FACTORY: Callable[[], LogReader] | None = None
_READER: LogReader | None = None


def lend_log_reader(factory: Callable[[], LogReader]) -> None:
    """Make ``factory`` the source of the log reader (called once, by the layers package)."""
    global _FACTORY, _READER
    _FACTORY, _READER = factory, None


def log_reader() -> LogReader | None:
    """The lent reader (built on first use), or ``None`` when no layer has been imported."""
    global _READER
    if _READER is None and _FACTORY is not None:
        _READER = _FACTORY()
    return _READER
