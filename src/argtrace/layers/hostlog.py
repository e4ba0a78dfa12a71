"""The log layer's reader, handed to the host seam so a log is read where it lies (``argtrace --host``).

This module owns what ``remote`` needs of the log layer and may not import itself (it sits below the
layers): the local scan, the source modules the node's collector loads, and the rebuilding of the ``Scan``
from the plain data the node sends back. ``layers/log/layer.py`` passes :func:`log_reader` to
``Host.scan_log``; the reader's modules are imported only when a log is read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from argtrace.remote.logseam import LogReader

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.log.reader import Scan


def log_reader() -> LogReader:
    """The reader's ``scan_log`` and its modules. Under their own names and in import order (reader ->
    prefilter -> lines, shipped lines first), so a big plain log goes through the node's GNU grep exactly as
    it would here."""
    import argtrace.layers.log.lines as lines
    import argtrace.layers.log.prefilter as prefilter
    import argtrace.layers.log.reader as reader

    return LogReader(scan=reader.scan_log, modules=(lines, prefilter, reader), rebuild=scan_from_data)


def scan_from_data(data: Mapping[str, Any]) -> Scan:
    """Rebuild the log reader's ``Scan`` from ``dataclasses.asdict`` output (a remote scan)."""
    from argtrace.layers.log.reader import Line, Scan

    names = {f.name for f in dataclasses.fields(Scan)}
    line_names = {f.name for f in dataclasses.fields(Line)}
    values = {k: v for k, v in data.items() if k in names}
    values["lines"] = [Line(**{k: v for k, v in line.items() if k in line_names}) for line in data["lines"]]
    return Scan(**values)
