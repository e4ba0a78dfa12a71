"""Health checks the server answered with 200 after its launch died (LG017).

The scan drops HTTP access lines as a running server's steady lines (``lines.BORING``), on every path; only
for a launch that died, and only the file's last 64 KiB, are they read again here: the answers to
``/health`` logged after the death's line. SGLang 0.5.10.post1's diffusion server answers ``/health`` with
``{"status": "ok"}`` without asking its scheduler (``multimodal_gen/runtime/entrypoints/http_server.py:65``);
0.5.23 answers 503 once a scheduler worker exited (``http_server.py:237-245``), so its log shows no such
answer after the death (sglang#17874's log: four 200s in the 40 s after "Scheduler terminated").
"""

from __future__ import annotations

import re

from argtrace.layers.log.launch import Launch
from argtrace.layers.log.reader import Scan
from argtrace.model import Finding
from argtrace.rules import log as rules

# uvicorn's access line for a health probe answered 200 (SGLang's and vLLM's ``/health``; SGLang's
# ``/health_generate``)
_HEALTH_OK = re.compile(r"\"GET /health\w*\S* HTTP/1\.[01]\" 200\b")
_TAIL = 1 << 16


def _tail_lines(path: str, total: int) -> list[tuple[int, str]]:
    """The file's last lines (at most 64 KiB), each with its line number (the last is ``total``)."""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - _TAIL))
            data = fh.read()
    except OSError:
        return []
    lines = data.decode("utf-8", "replace").splitlines()
    if size > _TAIL and lines:
        lines = lines[1:]  # the first is cut by the window
    return [(total - len(lines) + 1 + i, line) for i, line in enumerate(lines)]


def health_after_death(scan: Scan, lc: Launch, label: str) -> list[Finding]:
    """LG017 when the server answered ``/health`` with 200 after the line its launch died at."""
    fatal = lc.fatal
    if fatal is None or scan.gzip:
        return []
    answered = [
        n
        for n, line in _tail_lines(scan.path, scan.total_lines)
        if n > fatal.line and _HEALTH_OK.search(line)
    ]
    if not answered:
        return []
    diffusion = any("multimodal_gen" in frame for frame in fatal.traceback)
    fix = "Restart the server: the process that served requests is gone and does not come back. " + (
        "SGLang's diffusion server answers /health without asking its scheduler in 0.5.10.post1; 0.5.23 "
        "answers 503 once a scheduler worker exited: a release with that check lets the probe see the "
        "death."
        if diffusion
        else "Point the probe at an endpoint that runs the model (SGLang's /health_generate) so that it "
        "sees a death."
    )
    return [
        rules.LG017.finding(
            f"The server answered {len(answered)} health check(s) with 200 after the launch died at line "
            f"{fatal.line} (lines {answered[0]}-{answered[-1]}): a probe on /health (Kubernetes readiness or "
            "liveness, a load balancer, a launcher waiting for the server) reads this dead server as healthy "
            "and keeps sending it requests.",
            at=f"{label}:{answered[0]}",
            fix=fix,
            launch=lc.index,
        )
    ]
