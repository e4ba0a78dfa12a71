"""Stream a server log and pick out the few lines that matter, in constant memory.

A Python loop over lines runs at about 0.4x ``grep -c`` and a regex per line at about 0.07x, so the file is
read in large binary chunks and searched with ``bytes.find`` for a handful of anchor strings; only the lines
around a hit are decoded and handed to the analyser. Blocks made only of the lines a busy server prints
thousands of times (decode/prefill batch lines, HTTP access lines, throughput lines) are recognised by
counting and skipped without searching them for anchors. gzip logs are read transparently.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from argtrace.layers.log.lines import (  # noqa: F401  (re-exported: reader.Line, reader.ANCHORS, ...)
    _TEXT_BYTES,
    ANCHORS,
    BORING,
    CHUNK,
    MAX_LINE,
    TRACEBACK_BYTES,
    TRACEBACK_LINES,
    Blocks,
    Gunzip,
    Line,
    LongLine,
    Scan,
    _decode,
    _looks_binary,
    following_lines,
    long_line,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

BLOCK = 256 << 10  # sub-block for the boring-line test
MAX_CARRY = 8 << 20  # a line longer than this is streamed through lines.LongLine, never held whole


def open_log(path: Path) -> tuple[BinaryIO, bool]:
    """The file opened for binary reading, decompressing gzip transparently."""
    raw = path.open("rb")
    magic = raw.read(2)
    raw.seek(0)
    if magic == b"\x1f\x8b":
        import gzip  # here only: most logs are plain, and the fast paths inflate with lines.Gunzip

        raw.close()
        return gzip.open(path, "rb"), True  # type: ignore[return-value]
    return raw, False


PARALLEL_MIN = 64 << 20  # plain files at least this large are scanned by one process per core
GREP_MIN = 4 << 20  # logs at least this large take GNU grep's path (prefilter.py) when there is no matcher
# Logs at least this large (and any the grep path would take) are searched by acscan.py's matcher. It starts
# no helper process, so it pays off long before grep does: importing ``ahocorasick_rs`` and building the
# automaton cost 1.6-2 ms, the Python scan about 20 ns a byte (0.3 MB of vLLM lines: 9.5 ms against 0.5 ms
# for the matcher, 3.4 MB of SGLang's 70 ms against 2.3 ms; 60 kB: 1.3 ms against 0.2 ms + the 1.6-2).
MATCHER_MIN = 128 << 10


def scan_log(
    path: Path, label: str | None = None, *, workers: int | None = None, prefilter: bool = True
) -> Scan:
    """Read ``path`` once and keep the lines around anchor hits (with line numbers).

    Logs of at least ``MATCHER_MIN`` (a ``.gz`` at 8x its size) are searched by the anchor matcher
    (``acscan.py``); without it, those of at least ``GREP_MIN`` by GNU grep (``prefilter.py``); without
    either, big plain files are split between one scanning process per core; gzip and small files are
    streamed here.
    """
    result = _scan_log(path, label, workers=workers, prefilter=prefilter)
    if not result.gzip and result.leading_nuls:
        result.leading_nuls = _leading_nuls(path)
    return result


def _leading_nuls(path: Path) -> int:
    count = 0
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            stripped = len(chunk) - len(chunk.lstrip(b"\x00"))
            count += stripped
            if stripped < len(chunk):
                break
    return count


def _scan_log(path: Path, label: str | None, *, workers: int | None, prefilter: bool) -> Scan:
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):  # the callers refuse these first; a FIFO must never be opened here
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    size = st.st_size
    with path.open("rb") as probe:
        is_gz = probe.read(2) == b"\x1f\x8b"
    result = Scan(path=label or str(path), size=size, gzip=is_gz)
    if workers is None:
        workers = min(os.cpu_count() or 1, 4)
    # The in-process anchor matcher (acscan.py, ahocorasick_rs) first, then GNU grep (prefilter.py); a .gz
    # log counts at its compressed size x 8 (its text is about that much larger). The matcher takes every
    # log the grep path would too: the tests send small logs down both with GREP_MIN (or PARALLEL_MIN) 0.
    scaled = size * (8 if is_gz else 1)
    fast: Scan | None = None
    if (
        prefilter
        and scaled >= min(MATCHER_MIN, GREP_MIN, PARALLEL_MIN)
        and not os.environ.get("ARGTRACE_NO_MATCHER")
    ):
        fast = _matcher_scan(path, result.path, is_gz)
    if fast is None and prefilter and scaled >= min(GREP_MIN, PARALLEL_MIN):
        # imported here: the matcher path needs neither grep nor subprocess (the log command's start-up)
        from argtrace.layers.log.prefilter import scan_with_grep

        fast = scan_with_grep(path, result.path, gz=is_gz)
    if fast is not None:
        return fast
    if not is_gz and workers > 1 and size >= PARALLEL_MIN:
        _scan_parallel(path, size, workers, result)
        return result
    if is_gz:
        with Gunzip(path.open("rb")) as gz:
            _scan_stream(gz, result)  # type: ignore[arg-type]
        result.gzip_problem = gz.problem
        return result
    with path.open("rb") as fh:
        _scan_stream(fh, result)
    return result


def _matcher_scan(path: Path, label: str, gz: bool) -> Scan | None:
    try:
        from argtrace.layers.log.acscan import scan_with_matcher
    except ImportError:  # the reader sent to a node (remote/ssh.py) travels without acscan.py: grep there
        return None
    return scan_with_matcher(path, label, gz=gz)


class _Range:
    """A file object limited to ``[start, end)``."""

    def __init__(self, fh: BinaryIO, start: int, end: int) -> None:
        self.fh = fh
        self.left = end - start
        fh.seek(start)

    def read(self, n: int) -> bytes:
        if self.left <= 0:
            return b""
        data = self.fh.read(min(n, self.left))
        self.left -= len(data)
        return data


def _scan_range(args: tuple[str, int, int, str]) -> Scan:
    path, start, end, label = args
    out = Scan(path=label, size=end - start, gzip=False)
    with open(path, "rb") as fh:
        _scan_stream(_Range(fh, start, end), out)  # type: ignore[arg-type]
    for line in out.lines:
        if line.offset is not None:
            line.offset += start
    for span in out.dropped:
        span[0] += start
        span[1] += start
    return out


def _line_boundary(fh: BinaryIO, pos: int) -> int:
    """The first line start at or after ``pos`` (the end of the file if none: a range never starts inside a
    line, however long, or that line would be counted twice)."""
    if pos <= 0:
        return 0
    fh.seek(pos - 1)
    scanned = 0
    while True:
        data = fh.read(1 << 20)
        if not data:
            return pos + scanned - 1 if scanned else pos
        j = data.find(b"\n")
        if j >= 0:
            return pos + scanned + j
        scanned += len(data)


def _scan_parallel(path: Path, size: int, workers: int, out: Scan) -> None:
    import concurrent.futures
    import multiprocessing

    with path.open("rb") as fh:
        cuts = [0] + [_line_boundary(fh, size * k // workers) for k in range(1, workers)] + [size]
    ranges = [(str(path), cuts[k], cuts[k + 1], out.path) for k in range(workers) if cuts[k + 1] > cuts[k]]
    try:
        ctx = multiprocessing.get_context("fork")
        with concurrent.futures.ProcessPoolExecutor(len(ranges), mp_context=ctx) as pool:
            parts = list(pool.map(_scan_range, ranges))
    except (OSError, ValueError, concurrent.futures.process.BrokenProcessPool):
        parts = [_scan_range(r) for r in ranges]
    offset = 0
    for k, part in enumerate(parts):
        for line in part.lines:
            line.number += offset
            out.keep(line)
        out.take_dropped(part.dropped)
        out.long_lines.extend(n + offset for n in part.long_lines)
        out.bytes_read += part.bytes_read
        out.skipped_blocks += part.skipped_blocks
        out.searched_blocks += part.searched_blocks
        if k == 0:
            out.binary = part.binary
            out.leading_nuls = part.leading_nuls
        if part.last_line:
            out.last_line = part.last_line
        out.ends_with_newline = part.ends_with_newline
        offset += part.total_lines
    out.total_lines = offset
    out.settle()
    # A traceback near a range boundary may have been cut: read its lines again from the file.
    with path.open("rb") as fh:
        for line in out.lines:
            if line.block is not None and line.offset is not None:
                fh.seek(line.offset)
                data = fh.read(TRACEBACK_BYTES + MAX_LINE)
                nl = data.find(b"\n")
                if nl >= 0:
                    line.block = following_lines(data, nl, len(data))


def _chunks(fh: BinaryIO) -> Iterator[bytes]:
    while True:
        data = fh.read(CHUNK)
        if not data:
            return
        yield data


def _scan_stream(fh: BinaryIO, out: Scan) -> None:
    carry = b""
    line_no = 1  # number of the line that starts at carry[0]
    base = 0  # offset of carry[0] in the stream
    first = True
    in_nuls = True  # the run of NUL bytes the stream starts with is counted however long it is
    last_byte = b"\n"
    long: LongLine | None = None  # a line longer than MAX_CARRY, streamed (it starts at base)
    blocks = Blocks()  # the lines after a Traceback in such a line
    # every line longer than MAX_CARRY is listed in long_lines, kept or not, as the fast paths list them
    newlines, line_start, over = 0, 0, set()
    for data in _chunks(fh):
        at = out.bytes_read  # stream offset of data[0]
        out.bytes_read += len(data)
        nl = data.find(b"\n")
        if nl >= 0:
            if at + nl - line_start > MAX_CARRY:
                over.add(newlines + 1)
            newlines += data.count(b"\n")
            line_start = at + data.rfind(b"\n") + 1
        if first:
            first = False
            out.binary = _looks_binary(data[:65536])
        if in_nuls:
            kept = len(data.lstrip(b"\x00"))
            out.leading_nuls += len(data) - kept
            in_nuls = kept == 0
        last_byte = data[-1:]
        if long is not None:
            nl = data.find(b"\n")
            long.feed(data if nl < 0 else memoryview(data)[:nl])
            if nl >= 0:
                _keep_long(long, line_no, base, at + nl, out, blocks)
            blocks.feed(data, len(data), at)
            if nl < 0:
                continue
            long, line_no, base = None, line_no + 1, at + nl + 1
            data = data[nl + 1 :]
            if not data:
                continue
        else:
            blocks.feed(data, len(data), at)
        buf = carry + data if carry else data
        cut = buf.rfind(b"\n") + 1
        if cut == 0:
            if len(buf) <= MAX_CARRY:
                carry = buf
                continue
            # One enormous line: kept as lines.LongLine keeps it (head, tail, the bytes around its anchors).
            long = LongLine()
            long.feed(buf)
            carry = b""
            continue
        line_no, deferred = _scan_region(buf, cut, line_no, base, out)
        base += deferred
        carry = buf[deferred:]
    out.ends_with_newline = last_byte == b"\n"
    if long is not None:  # the final line, enormous, without a newline
        _keep_long(long, line_no, base, out.bytes_read, out, blocks)
        line_no += 1
    elif carry:
        # The final line (no newline at the end of the file), or a traceback deferred to the end.
        buf = carry if carry.endswith(b"\n") else carry + b"\n"
        line_no, _ = _scan_region(buf, len(buf), line_no, base, out, final=True)
    blocks.finish(out.bytes_read)
    out.settle()
    out.total_lines = line_no - 1
    if out.bytes_read - line_start > MAX_CARRY:
        over.add(newlines + 1)
    if over:
        out.long_lines = sorted(set(out.long_lines) | over)


def _keep_long(long: LongLine, line_no: int, start: int, newline: int, out: Scan, blocks: Blocks) -> None:
    """Keep an enormous line (stream offsets: ``start``, its ``newline``) as ``_scan_region`` keeps a line;
    it is the last non-empty line so far, as the fast paths take it (its last 4096 bytes)."""
    raw = long.text()
    tail = long.tail.rstrip(b"\n")
    out.last_line = _decode(tail[tail.rfind(b"\n") + 1 :][-4096:]) if tail else out.last_line
    if not long.anchored or any(marker in raw for marker in BORING):
        return
    line = Line(line_no, _decode(raw).rstrip("\r"), truncated=True, offset=start)
    if b"Traceback (most recent call last)" in raw:
        blocks.want(line, newline)
    out.keep(line)


def _is_boring(buf: bytes, start: int, end: int) -> bool:
    newlines = buf.count(b"\n", start, end)
    if newlines == 0:
        return False
    seen = 0
    for marker in BORING:
        seen += buf.count(marker, start, end)
        if seen >= newlines:
            return seen == newlines
    return False


def _scan_region(
    buf: bytes, end: int, line_no: int, base: int, out: Scan, *, final: bool = False
) -> tuple[int, int]:
    """Find anchor lines in ``buf[:end]`` (whole lines); return (next line number, bytes consumed).

    A traceback that starts near the end of the region is deferred (consumed stops at its line) so that
    the lines following it can be captured from the next chunk.
    """
    starts: set[int] = set()
    pos = 0
    while pos < end:
        blk_end = min(end, pos + BLOCK)
        if blk_end < end:
            nl = buf.find(b"\n", blk_end, end)
            blk_end = end if nl < 0 else nl + 1
        if _is_boring(buf, pos, blk_end):
            out.skipped_blocks += 1
        else:
            out.searched_blocks += 1
            for anchor in ANCHORS:
                find = buf.find
                j = find(anchor, pos, blk_end)
                while j >= 0:
                    ls = buf.rfind(b"\n", 0, j) + 1
                    starts.add(ls)
                    le = buf.find(b"\n", j, blk_end)
                    if le < 0:
                        break
                    j = find(anchor, le, blk_end)
        pos = blk_end

    consumed = end
    if not final and len(buf) > 4 * TRACEBACK_BYTES:
        window = end - TRACEBACK_BYTES
        late = [s for s in starts if s >= window and buf.startswith(b"Traceback", _strip_at(buf, s))]
        if late:
            consumed = min(late)
            starts = {s for s in starts if s < consumed}

    counted_to = 0
    current = line_no
    for ls in sorted(starts):
        current += buf.count(b"\n", counted_to, ls)
        counted_to = ls
        le = buf.find(b"\n", ls, end)
        if le < 0:
            le = end
        # a line longer than MAX_LINE: its head, tail and the bytes around its anchors (lines.LongLine)
        raw = long_line(memoryview(buf)[ls:le]).text() if le - ls > MAX_LINE else buf[ls:le]
        if any(marker in raw for marker in BORING):
            continue  # a steady-state line that happens to contain an anchor (as the grep prefilter drops it)
        line = Line(current, _decode(raw).rstrip("\r"), truncated=le - ls > MAX_LINE, offset=base + ls)
        if line.truncated and current not in out.long_lines:
            out.long_lines.append(current)
        if b"Traceback (most recent call last)" in raw:
            line.block = following_lines(buf, le, end if consumed == end else len(buf))
        out.keep(line)
    next_line = current + buf.count(b"\n", counted_to, consumed)
    # the last line that is not empty, as the fast paths take it (a log may end in blank lines)
    stop = consumed
    while stop > 0 and buf[stop - 1] == 0x0A:
        stop -= 1
    if stop > 0:
        prev = buf.rfind(b"\n", 0, stop) + 1
        out.last_line = _decode(buf[prev:stop][:4096])
    return next_line, consumed


def _strip_at(buf: bytes, start: int) -> int:
    """Offset of "Traceback" in a line that may carry a prefix such as ``(EngineCore pid=1) ``."""
    j = buf.find(b"Traceback", start, start + 512)
    return j if j >= 0 else start
