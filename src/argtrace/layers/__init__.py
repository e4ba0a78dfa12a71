"""The analysis layers: what each source of evidence (the script, its carriers, the framework's parser and
resolver, processes, logs, endpoints, memory) says about a server start (docs/architecture.md).

Importing any layer lends the log layer's reader to the host seam (:mod:`argtrace.layers.hostlog` into
:mod:`argtrace.remote.logseam`), so ``Host.scan_log`` reads a log here or ships the reader to a node without
``remote`` importing a layer. Only a function is lent: the reader itself loads when a log is first read.
"""

from __future__ import annotations

from argtrace.layers.hostlog import log_reader
from argtrace.remote.logseam import lend_log_reader

lend_log_reader(log_reader)
