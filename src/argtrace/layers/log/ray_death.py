"""What a Ray worker printed just before the raylet reported it dead: torch's NCCL watchdog taking it down.

Ray's raylet reports a worker that ended without a clean exit ("A worker died or was killed while executing a
task by an unexpected system error", node_manager.cc); the worker's own last lines, behind its
``(RayWorkerWrapper pid=N, ip=...)`` tag, say why. When those are the native backtrace of torch's
ProcessGroupNCCL watchdog thread (``c10d::ProcessGroupNCCL::ncclCommWatchdog()``, ``watchdogHandler()``,
``WorkNCCL::checkTimeout``: torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp), the watchdog took the process
down after a collective failed or timed out (vllm#13535): that is the death's cause. Those frame lines hold no
word the scan keeps (no anchor), so the bytes just before the raylet's line are read again: at most
``_BACK`` bytes, once per report, never for a compressed log.
"""

from __future__ import annotations

import re

from argtrace.layers.log.lines import Scan

_BACK = 16 << 10
_WATCHDOG_FRAME = re.compile(
    r"ProcessGroupNCCL::(?P<fn>ncclCommWatchdog|watchdogHandler|WorkNCCL::checkTimeout|"
    r"heartbeatMonitor)\b"
)


def watchdog_before(scan: Scan, line_number: int) -> tuple[int, str] | None:
    """``(line, frame)`` of the last NCCL watchdog frame within ``_BACK`` bytes before the kept line
    ``line_number``; None when there is none or the bytes cannot be read again (a .gz log, no offset)."""
    if scan.gzip:
        return None
    line = next((ln for ln in scan.lines if ln.number == line_number), None)
    if line is None or line.offset is None:
        return None
    start = max(0, line.offset - _BACK)
    try:
        with open(scan.path, "rb") as handle:
            handle.seek(start)
            data = handle.read(line.offset - start)
    except OSError:
        return None
    text = data.decode("utf-8", "replace")
    rows = text.split("\n")
    if start > 0:
        rows = rows[1:]  # the first row is a cut line
    found = None
    for back, row in enumerate(reversed(rows[:-1] if rows and rows[-1] == "" else rows)):
        m = _WATCHDOG_FRAME.search(row)
        if m:
            found = (line_number - 1 - back, f"ProcessGroupNCCL::{m.group('fn')}")
            break
    return found
