"""The fastest path for big logs: every anchor at once, in this process, with ``ahocorasick_rs``.

``ahocorasick_rs`` (PyPI ``ahocorasick-rs``, Rust's ``aho-corasick`` crate) with a leftmost match kind searches
the anchors of ``lines.ANCHORS`` (40) together with its SIMD "Teddy" matcher, at about 4.5 GB/s here. Leftmost
matches do not overlap, but no anchor spans a newline, so every line that contains an anchor gets at least one
match: the set of hit lines is exact. Only those lines are decoded; the steady-state lines (``lines.BORING``)
among them are dropped as the Python scan drops them.

The log is read in 1 MB windows into one reused buffer (a ``.gz`` is inflated in 1 MB pieces): the matcher and
the newline count then both read bytes that are still in the CPU cache, 5-10% less CPU than 8 MB chunks
(bench/log_throughput.py). The lines after a ``Traceback`` are gathered as the stream passes (``_Blocks``), so
a ``.gz`` log is inflated once, not a second time to read them back. Counting newlines (``bytes.count``, ~3 GB/s) is the largest cost left, and it
cannot be skipped: the report gives every kept line's number and the log's line count. A line longer than
``reader.MAX_CARRY`` (no newline in 8 MB) returns None: the caller then uses the grep or Python path, which
handle it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any

from argtrace.layers.log import lines as shared
from argtrace.layers.log.lines import Line, Scan

_WINDOW = 1 << 20  # bytes read (or inflated) at a time: cache-sized, see the module's docstring
_LONG = 8 << 20  # reader.MAX_CARRY
_TB = b"Traceback (most recent call last)"


@lru_cache(maxsize=1)
def matcher() -> Any | None:
    """The compiled anchor matcher, or None when ``ahocorasick_rs`` is not installed."""
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    # The anchors only: the steady-state markers (``lines.BORING``) were patterns too, but then every
    # steady-state line (nearly all of a running server's log) was a match this process looked at in Python:
    # 0.06x grep's throughput on a vLLM log. A hit that is also a steady-state line is dropped in _hits.
    return ahocorasick_rs.BytesAhoCorasick(
        list(shared.ANCHORS), matchkind=ahocorasick_rs.MATCHKIND_LEFTMOST_FIRST
    )


def _chunks(path: Path, gz: bool, problem: list[str | None]) -> Iterator[tuple[bytes | bytearray, int]]:
    """``(buffer, length)`` pieces of the (decompressed) stream; a plain file is read into one reused
    buffer (no allocation per chunk), so a piece is valid only until the next one is asked for."""

    if gz:
        with shared.Gunzip(path.open("rb"), piece=_WINDOW) as stream:
            for piece in iter(lambda: stream.read(), b""):
                yield piece, len(piece)
        problem.append(stream.problem)
        return
    buf = bytearray(_WINDOW)
    with path.open("rb") as fh:
        while n := fh.readinto(buf):
            yield buf, n


def scan_with_matcher(path: Path, label: str, *, gz: bool = False) -> Scan | None:
    """The scan of ``path`` (``gz``: gzip-compressed), or None (no matcher, or a line too long for it)."""
    ac = matcher()
    if ac is None:
        return None
    out = Scan(path=label, size=path.stat().st_size, gzip=gz)
    carry = b""  # a line begun in an earlier piece
    carry_at = 0  # its stream offset
    line_no = 1  # number of the next line to start
    pos = 0  # stream offset of the current piece
    head = b""
    tail = b""
    problem: list[str | None] = []
    blocks = _Blocks()
    for buf, n in _chunks(path, gz, problem):
        if not head:
            head = bytes(buf[: min(n, 65536)])
        tail = (tail + buf[max(0, n - 4096) : n])[-4096:]
        first = buf.find(b"\n", 0, n)
        if first < 0:
            if not carry:
                carry_at = pos
            carry += buf[:n]
            if len(carry) > _LONG:
                return None  # one enormous line: the grep/Python paths cut it in pieces
            pos += n
            continue
        begin = 0
        if carry:  # finish the line begun earlier: a small piece of its own
            piece = carry + buf[: first + 1]
            line_no = _hits(ac, piece, 0, len(piece), line_no, carry_at, out, blocks)
            carry, begin = b"", first + 1
        cut = max(begin, buf.rfind(b"\n", begin, n) + 1)
        line_no = _hits(ac, buf, begin, cut, line_no, pos, out, blocks)
        blocks.feed(buf, n, pos)
        if cut < n:
            carry, carry_at = bytes(buf[cut:n]), pos + cut
        pos += n
    out.bytes_read = pos
    out.gzip_problem = problem[0] if problem else None
    if carry:  # the last line, without a newline
        piece = carry + b"\n"
        _hits(ac, piece, 0, len(piece), line_no, carry_at, out, blocks)
    blocks.finish(pos)
    out.binary = shared._looks_binary(head)
    out.leading_nuls = len(head) - len(head.lstrip(b"\x00"))
    out.ends_with_newline = tail.endswith(b"\n") or pos == 0
    out.total_lines = line_no - 1 + (1 if carry else 0)
    tail_lines = tail.rstrip(b"\n").split(b"\n")
    out.last_line = shared._decode(tail_lines[-1][:4096]) if tail_lines and tail_lines[-1] else ""
    out.searched_blocks = 1
    return out


class _Blocks:
    """The lines after each ``Traceback`` line, gathered from the stream as it passes.

    The same lines ``prefilter._traceback_blocks`` reads back at the line's offset (``following_lines`` of
    ``stream[offset : offset + BLOCK_BYTES]``): at most ``TRACEBACK_BYTES`` after the line's newline, the
    last (possibly cut) line dropped unless the stream or that window ends first; nothing when the line's
    newline is not within the window (a line longer than it, or the last line without a newline)."""

    def __init__(self) -> None:
        # (line, stream offsets: first byte wanted, byte after the last, the window's end; the bytes so far)
        self.open: list[tuple[Line, int, int, int, bytearray]] = []

    def want(self, line: Line, newline: int) -> None:
        """``line`` (its ``offset`` set) has a ``Traceback``; ``newline``: the stream offset of its end."""
        assert line.offset is not None
        window_end = line.offset + shared.BLOCK_BYTES
        if newline >= window_end:
            return  # no newline within the window: the block stays empty
        start = newline + 1
        end = min(start + shared.TRACEBACK_BYTES, window_end)
        self.open.append((line, start, end, window_end, bytearray()))

    def feed(self, buf: bytes | bytearray, n: int, pos: int) -> None:
        """The stream's bytes ``[pos, pos + n)`` are ``buf[:n]``."""
        if not self.open:
            return
        still = []
        for item in self.open:
            line, start, end, window_end, got = item
            a = max(start + len(got), pos)
            b = min(end, pos + n)
            if b > a:
                got += buf[a - pos : b - pos]
            if pos + n > end:  # a byte beyond the wanted ones: the stream goes on past them
                self._resolve(line, got, cut_last=end < window_end)
            else:
                still.append(item)
        self.open = still

    def finish(self, size: int) -> None:
        """The stream ended at ``size`` bytes."""
        for line, start, _end, _window_end, got in self.open:
            if start > size:
                continue  # the last line, without a newline (its newline was added at the end)
            self._resolve(line, got, cut_last=False)
        self.open = []

    @staticmethod
    def _resolve(line: Line, got: bytearray, *, cut_last: bool) -> None:
        pieces = bytes(got).split(b"\n")
        if cut_last:
            pieces = pieces[:-1]
        line.block = [shared._decode(x).rstrip("\r") for x in pieces[: shared.TRACEBACK_LINES]]


def _hits(
    ac: Any, buf: bytes | bytearray, begin: int, cut: int, line_no: int, pos: int, out: Scan, blocks: _Blocks
) -> int:
    """Keep the anchor lines of ``buf[begin:cut]`` (whole lines; ``pos``: the stream offset of ``buf[0]``);
    the number of the line after them."""
    counted_to = begin
    current = line_no
    line_end = -1
    for _pattern, start, _end in ac.find_matches_as_indexes(memoryview(buf)[begin:cut]):
        start += begin
        if start < line_end:
            continue  # another match on a line already kept or dropped
        le = buf.find(b"\n", start, cut)
        line_end = le
        ls = buf.rfind(b"\n", begin, start) + 1 or begin
        current += buf.count(b"\n", counted_to, ls)
        counted_to = ls
        raw = bytes(buf[ls : min(le, ls + shared.MAX_LINE)])
        if any(marker in raw for marker in shared.BORING):
            continue
        if len(out.lines) >= shared.MAX_HITS:
            out.hits_dropped += 1
            continue
        line = Line(current, shared._decode(raw).rstrip("\r"), truncated=le - ls > shared.MAX_LINE)
        line.offset = pos + ls
        if line.truncated and current not in out.long_lines:
            out.long_lines.append(current)
        if _TB in raw:
            line.block = []
            blocks.want(line, pos + le)
        out.lines.append(line)
    return current + buf.count(b"\n", counted_to, cut)
