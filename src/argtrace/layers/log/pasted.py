"""What a log pasted into a report looks like, for the analyser: lines joined, frames without their header.

Reports quote logs as their authors copied them. A web page or a terminal may join the lines of a log into
one (vllm#21661: a dozen ``ERROR 11-04 18:02:56 [multiproc_executor.py:597] ...`` lines on one line), and an
excerpt may start in the middle of a traceback, so that its frames arrive without the ``Traceback`` line whose
block would carry them. ``unjoined`` splits a kept line where another line's log prefix starts inside it;
``frames_before`` gives an exception line the run of loose frames just above it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from argtrace.layers.log.lazyre import LazyPattern as _lazy
from argtrace.layers.log.reader import Line

# Lines between a traceback's last frame and its exception line (the source line, its ^^^ marker).
FRAME_GAP = 4


def frames_before(frames: list[tuple[int, str]], line_no: int) -> list[str]:
    """The run of loose frames that ends just before ``line_no`` (each within ``FRAME_GAP`` lines of the
    next): the traceback of the exception on that line."""
    run: list[str] = []
    nxt = line_no
    for number, text in reversed(frames):
        if number >= line_no:
            continue
        if nxt - number > FRAME_GAP:
            break
        run.append(text)
        nxt = number
    return run[::-1]


# A log prefix (vLLM's level and time, SGLang's bracketed time) inside a line: a pasted log whose newlines
# were lost (vllm#21661) joins many lines into one.
_JOINED = _lazy(
    r"(?<=\S)\s+(?=(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[)"
    r"|^\s+(?=(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\s+\[)"
    r"|(?<=\S)\s+(?=\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^\]]*\] )"
    # a vLLM process's tag (stages.VLLM_PROCESS's names, Ray's ``ip=``) inside a line: its own lines run
    # together, each still behind its tag (vllm#31883: ``(APIServer pid=135812)     raise NotImplementedError(
    # (APIServer pid=135812) NotImplementedError: ...`` on one line)
    r"|(?<=\S)\s+(?=\((?:APIServer|EngineCore(?:_DP\d+)?|DPEngineCoreActor\w*|DPCoordinator|Worker(?:_\w+)?|"
    r"VllmWorker\w*|RayWorkerWrapper) pid=\d+(?:, ip=[\d.]+)?\) )"
    # a carriage return shown as ``^M`` (``cat -v``, seed-oss#10) before the next line's process tag or prefix
    r"|\^M(?=\([A-Za-z_]\w*(?: \w+=[\w.]+)*\) |(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d |\[\d{4}-)",
    needles=("INFO ", "WARNING ", "ERROR ", "DEBUG ", "CRITICAL ", "] ", "^M", " pid="),
)


# What may stand before a line's own log prefix: a process tag, an outer timestamp or a compose service.
# (A markdown quote's ``> `` may stand before them, and a log collector's ISO time may be in brackets:
# ``> [2025-11-06T02:08:27.716Z] [2025-11-06 02:08:27] ...``, sglang#12031.)
_PREFIX_ONLY = re.compile(
    r"^\s*(?:>\s*)?(?:\([A-Za-z_]\w*(?: \w+=[\w.]+)*\)|\d{4}-\d\d-\d\d[T ][\d:.,]+Z?(?:\s+\|)?"
    r"|\[\d{4}-\d\d-\d\dT[\d:.,]+(?:Z|[+-]\d\d:?\d\d)?\]|[\w.\-]+\s+\|)\s*$"
)


# A process tag of any name (a Ray actor's ``(SGLangWorker pid=38138)``, ``(TaskRunner pid=7, ip=10.0.0.1)``).
_TAG = re.compile(r"\([A-Za-z_]\w* pid=\d+(?:, ip=[\d.]+)?\) ")


def _repeated_tags(text: str) -> list[tuple[int, int]]:
    """The spans of space before each process tag that occurs more than once in ``text``: one process's lines
    run together, each still behind its tag (RLinf#92: a Ray actor ``(SGLangWorker pid=38138)`` before each
    of SGLang's lines, the report's newlines lost). Only a repeated tag splits: a line quoting one tag (a
    request's text) stays whole; ``_JOINED`` knows vLLM's own process names however often they occur."""
    if text.count(" pid=") < 2:
        return []
    found = list(_TAG.finditer(text))
    seen = Counter(m.group(0) for m in found)
    cuts = []
    for m in found:
        start = m.start()
        while start > 0 and text[start - 1].isspace():
            start -= 1
        if seen[m.group(0)] > 1 and 0 < start < m.start():
            cuts.append((start, m.start()))
    return cuts


def unjoined(lines: Iterable[Line]) -> Iterable[Line]:
    """Each kept line, split where another line's log prefix starts inside it (the pieces keep its number)."""
    for line in lines:
        text = line.text
        joined = (
            [m.span() for m in _JOINED.compiled.finditer(text)]
            if len(text) > 24 and _JOINED.search(text)
            else []
        )
        tagged = _repeated_tags(text) if len(text) > 24 else []
        cuts = sorted(set(joined) | set(tagged))
        if not cuts or (line.block is not None and not tagged):
            yield line
            continue
        starts = [0, *(b for _a, b in cuts)]
        ends = [*(a for a, _b in cuts), len(text)]
        pieces = [text[a:b] for a, b in zip(starts, ends, strict=True)]
        merged: list[str] = []
        for piece in pieces:
            if merged and _PREFIX_ONLY.match(merged[-1]):
                merged[-1] = f"{merged[-1]} {piece}"  # "(APIServer pid=1) INFO ...": one line's prefixes
            elif piece.strip():
                merged.append(piece)
        if len(merged) == 1:
            yield Line(
                number=line.number,
                text=merged[0],
                truncated=line.truncated,
                block=line.block,
                offset=line.offset,
            )
            continue
        # a ``Traceback`` inside the run keeps its frames as the pieces after it (loose frames, read as the
        # traceback of the exception line they end in); the lines after the file's line follow its last piece
        for i, piece in enumerate(merged):
            block = line.block if i == len(merged) - 1 else None
            yield Line(
                number=line.number, text=piece, truncated=line.truncated, block=block, offset=line.offset
            )
