"""The fastest path for big logs: every anchor at once, in this process, with ``ahocorasick_rs``.

``ahocorasick_rs`` (PyPI ``ahocorasick-rs``, Rust's ``aho-corasick`` crate) with a leftmost match kind
searches the anchors of ``lines.ANCHORS`` (40) together with its SIMD "Teddy" matcher, about 4.5 GB/s here.
Leftmost matches do not overlap, but no anchor spans a newline, so every line that contains an anchor gets at
least one match: the set of hit lines is exact. Only those lines are decoded; the steady-state lines
(``lines.BORING``) among them are dropped as the Python scan drops them.

The log is read in 1 MB windows into one reused buffer (a ``.gz`` is inflated in 1 MB pieces): the matcher
and the newline count then both read bytes still in the CPU cache, 5-10% less CPU than 8 MB chunks
(bench/log_throughput.py). The lines after a ``Traceback`` are gathered as the stream passes
(``lines.Blocks``), so a ``.gz`` log is inflated once, not a second time to read them back. Counting newlines
(``bytes.count``, ~3 GB/s) is the largest cost left, and it cannot be skipped: the report gives every kept
line's number and the log's line count. A line longer than ``reader.MAX_CARRY`` (no newline in 8 MB)
returns None: the caller then uses the grep or Python path, which handle it.
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
    carry = bytearray()  # a line begun in an earlier piece (grown in place: windows are small)
    carry_at = 0  # its stream offset
    line_no = 1  # number of the next line to start
    pos = 0  # stream offset of the current piece
    head = b""
    nuls, in_nuls = 0, True  # the run of NUL bytes the stream starts with, however long
    tail = b""
    problem: list[str | None] = []
    blocks = shared.Blocks()
    for buf, n in _chunks(path, gz, problem):
        if not head:
            head = bytes(buf[: min(n, 65536)])
        if in_nuls:
            kept = len(buf[:n].lstrip(b"\x00"))
            nuls, in_nuls = nuls + n - kept, kept == 0
        tail = (tail + buf[max(0, n - 4096) : n])[-4096:]
        first = buf.find(b"\n", 0, n)
        if first < 0:
            if not carry:
                carry_at = pos
            carry += buf[:n]
            if len(carry) > _LONG:
                return None  # one enormous line: the grep/Python paths cut it in pieces
            blocks.feed(buf, n, pos)  # it may follow a Traceback line
            pos += n
            continue
        begin = 0
        if carry:  # finish the line begun earlier: a small piece of its own
            piece = carry + buf[: first + 1]
            line_no = _hits(ac, piece, 0, len(piece), line_no, carry_at, out, blocks)
            carry, begin = bytearray(), first + 1
        cut = max(begin, buf.rfind(b"\n", begin, n) + 1)
        line_no = _hits(ac, buf, begin, cut, line_no, pos, out, blocks)
        blocks.feed(buf, n, pos)
        if cut < n:
            carry, carry_at = bytearray(buf[cut:n]), pos + cut
        pos += n
    out.bytes_read = pos
    out.gzip_problem = problem[0] if problem else None
    if carry:  # the last line, without a newline
        piece = carry + b"\n"
        _hits(ac, piece, 0, len(piece), line_no, carry_at, out, blocks)
    blocks.finish(pos)
    out.binary = shared._looks_binary(head)
    out.leading_nuls = nuls
    out.ends_with_newline = tail.endswith(b"\n") or pos == 0
    out.total_lines = line_no - 1 + (1 if carry else 0)
    tail_lines = tail.rstrip(b"\n").split(b"\n")
    out.last_line = shared._decode(tail_lines[-1][:4096]) if tail_lines and tail_lines[-1] else ""
    out.searched_blocks = 1
    return out


def _hits(
    ac: Any,
    buf: bytes | bytearray,
    begin: int,
    cut: int,
    line_no: int,
    pos: int,
    out: Scan,
    blocks: shared.Blocks,
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
            blocks.want(line, pos + le)
        out.lines.append(line)
    return current + buf.count(b"\n", counted_to, cut)
