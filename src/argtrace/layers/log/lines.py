"""What a log scan keeps: the anchor strings, the steady-state line templates, the ``Line``/``Scan`` records.

Shared by the streaming reader (``reader.py``) and its GNU grep prefilter (``prefilter.py``), so that the
reader can use the prefilter without the prefilter importing the reader back (one direction:
``reader`` -> ``prefilter`` -> ``lines``). Standard library only: it is sent to a node with the reader.
"""

from __future__ import annotations

import json
import re
import zlib
from bisect import bisect_right
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # the C scanner, not in typeshed

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

MAX_LINE = 1 << 20  # longest line text kept for analysis (args dumps are ~20 kB)
TRACEBACK_LINES = 160  # lines kept after "Traceback (most recent call last):"
TRACEBACK_BYTES = 64 << 10  # bytes read after a Traceback line for its block
CHUNK = 8 << 20  # bytes read at a time
# What a scan keeps of a log with very many anchor lines (a flood of request errors, logged prompts that each
# hold "error"): the first lines, the last, and between them the lines a launch begins or ends with, each
# part within a count and a byte bound (``Kept``). Holding the first 200,000 of them took a 49 MB log of
# error lines to 185 MB and 11 s, and lost its end, where a crash is told (issue 18).
KEEP_LINES = 10_000
KEEP_BYTES = 4 << 20
# Where a launch begins or ends (the analyser's start markers and readiness lines): kept wherever they are,
# so a long log's launches are all counted and each keeps its arguments. Looked for in a line's first
# LANDMARK_REACH characters, where a logger's prefix ends (a logged prompt quoting one is not a launch).
LANDMARKS: tuple[str, ...] = (
    "server_args",
    "non-default args",
    "args: Namespace(",
    "API server version",
    "usage: ",
    "fired up",
    "startup complete",
    "Started server process",
)
LANDMARK_REACH = 1024

# Every line the analyser can use contains one of these (see analyze.py for what each line means).
ANCHORS: tuple[bytes, ...] = (
    b"server_args",
    b"non-default args",
    b"args: Namespace(",  # vLLM <= 0.9 logs every argument: ``args: Namespace(host=None, port=8000, ...)``
    b"with config:",
    b"API server version",
    b"rror",  # ValueError, RuntimeError, OutOfMemoryError, "error:", NCCL error, ...
    b"Traceback (most recent call last)",
    b"illed",  # Killed / killed
    b" end.",  # Load weight end. / Memory pool end. / Capture cuda graph end.
    b" begin",  # Load weight begin, Capture cuda graph begin
    b"llocated",  # KV Cache is allocated / Mamba Cache is allocated
    b"max_total_num_tokens",
    b"startup complete",
    b"fired up",
    # Not uvicorn's "Uvicorn running on": it follows "Application startup complete." (FastAPI's lifespan,
    # which SGLang's and vLLM's apps have), so it told nothing more, and its pattern was the matcher's 33rd:
    # Teddy's 16-bucket form, 20 ms more per 300 MB of vLLM lines (docs/log.md)
    b"took ",  # vLLM: Model loading took / Graph capturing finished in .., took
    # vLLM's KV cache lines the analyser reads, not "KV cache" alone: that is in every periodic stats line
    # ("GPU KV cache usage: 42.9%"), which made every one of them a hit to look at (issue 18)
    b"KV cache memory",  # Available KV cache memory: 6.67 GiB; ... larger than the available KV cache memory
    b"KV cache size",  # GPU KV cache size: 53,312 tokens
    b"stored in KV cache",  # ValueError: ... max seq len (N) is larger than ... stored in KV cache (M)
    b"KV cache dtype",  # SGLang: Using KV cache dtype: torch.bfloat16 / Setting KV cache dtype to fp8_e4m3
    b"Resolved architecture",
    b"usage: launch_server",
    b"usage: vllm",
    b"usage: api_server",
    b"usage: sglang",
    b"deprecat",
    b"nknown",
    b"profiled value",
    b"Started server process",
    b"not enough",
    b"Not enough",
    b"out of memory",
    b"exceeds",
    b"capped",
    b"draft",
    b"Starting vLLM",
    b"[Errno",
    b"positional argument",
    b"cache mode",
    b"Exception",
    b" version ",
    # Traceback frames behind a prefix (torch's ``[rank0]:``, vLLM's ``ERROR .. [core.py:396]``): in an
    # excerpt that starts mid-traceback they are the only frames, and name the stage of the error after them.
    # (Not the bare ``  File "`` of every traceback: those arrive with their Traceback line's block.)
    b']:   File "',
    b']   File "',
    # the same in a docker json-file record (``{"log":"ERROR .. [core.py:396]   File \\"/usr/..``), its quotes
    # escaped: unwrapped by ``_decode`` once kept
    b']:   File \\"',
    b']   File \\"',
    # the same behind docker compose's service column (``deepseek-v32-exp  |   File "...``, sglang#11218):
    # inside the matched pattern "   File ", so no new matcher pattern
    b'|   File "',
    b"graph begin",  # SGLang: Capture cuda graph begin (a launch that hangs while capturing stops here)
    b"ailed to start",  # vLLM: EngineCore failed to start. (its cause is the traceback after it)
    b"Starting to load model",  # vLLM: the weights step begins (a launch that hangs there stops after it)
    # SGLang's data parallel controller: ``Launch DP0 starting at GPU #0.`` (once per DP rank, after the
    # launcher logged server_args; inside the matched pattern "tart", so no new matcher pattern)
    b"starting at GPU",
    # SGLang's router giving up on its workers: ``Timeout 300s waiting for workers [..] to become healthy.
    # Please set --router-worker-startup-timeout-secs ...`` (sgl-router src/routers/router.rs; its level is
    # ``ERROR``, which "rror" does not find): inside the matched pattern "tart", so no new matcher pattern
    b"startup-timeout-secs",
)
# What the in-process matcher (acscan.py) searches for: every anchor contains one of these, so a line holding
# an anchor is always found; a line found by a pattern that is not itself an anchor is kept only when it
# holds one (acscan.py looks again with the anchors themselves). Few: the matcher's SIMD prefilter ("Teddy"
# in Rust's aho-corasick) takes a slower 16-bucket form above 32 patterns (a 33rd cost 18-30% of the
# matcher on vLLM lines; 33 patterns of at least 4 bytes are the fewest that cover the 46 anchors there
# were, so "Uvicorn running" is no longer one); and none shorter than 4 bytes, its fingerprint's length.
# 41 anchors searched as such took 0.038-0.047 s CPU per 100 MB of real-format lines, these 0.026-0.032 s
# (issue 18). The order matters too: it decides which patterns share a bucket (the n-th goes to bucket
# n mod 8), and a bucket's shared fingerprint nibbles are what raises false candidates; this order was the
# fastest of 150 random ones on 24 MB of each release's real lines (SGLang 0.5.10.post1, 0.5.23, vLLM
# 0.33.0): 16-17 ms for the three against 18-19 ms in the order the 33 had less the one, 17-23 ms for
# the others (60 orders of the 33 before: 0.017 s against up to 0.033 s per 60 MB).
# None may occur in a running server's repeated lines (tests/log/test_realformat.py).
MATCHED: tuple[bytes, ...] = (
    b"deprecat",
    b"   File ",  # a traceback's frames behind a rank or log prefix (`[rank0]:   File "...`, json-file `\\"`)
    b"capped",
    b" memory",  # KV cache memory, out of memory
    b"tart",  # startup complete, Started server process, Starting vLLM
    b"llocated",
    b"red ",  # fired up, stored in KV cache
    b" end.",
    b"args",  # server_args, non-default args, args: Namespace(
    b"KV cache dtype",
    b" version",  # API server version, " version "
    b"with config:",
    b" begin",  # Load weight begin, Capture cuda graph begin
    b"max_total_num_tokens",
    b"usage: sglang",
    b"illed",
    b"took ",
    b"cache mode",
    b"positional argument",
    b"exceeds",
    b"nknown",
    b"rror",
    b"ot enough",  # not enough, Not enough
    b"Exception",
    b"usage: vllm",
    b"Resolved architecture",
    b"Traceback (most recent call last)",
    b"KV cache size",
    b"draft",
    b"_server",  # usage: launch_server, usage: api_server
    b"profiled value",
    b"[Errno",
)


# Lines printed over and over once a server runs; a block made only of these holds nothing to analyse.
BORING: tuple[bytes, ...] = (
    b" batch. #",  # SGLang "] Decode batch. #running-req" and "] Prefill batch. #new-seq"
    b'HTTP/1.1" ',
    b"Avg prompt throughput",  # vLLM periodic stats
)


# One search instead of a loop over the strings (a log whose every line is kept asks it of each line past the
# head: a million per 100 MB of request errors, issue 18); on a line's first LANDMARK_REACH characters only,
# where a pattern beats a loop of ``in``.
_landmark = re.compile("|".join(re.escape(mark) for mark in LANDMARKS)).search


@dataclass
class Line:
    """A kept line: its number, text, and for a ``Traceback`` line the lines after it."""

    number: int  # 1-based
    text: str
    truncated: bool = False
    # For a "Traceback (most recent call last)" line: the lines that follow it.
    block: list[str] | None = None
    offset: int | None = None  # byte offset of the line in the (decompressed) stream
    dropped: bool = False  # let go by the scan's bounds (``Kept``): its text is gone


class Kept:
    """The lines one scan keeps, in bounded memory, in the order they come (issue 18).

    A line goes to the *head* while it is not full (``KEEP_LINES`` lines, ``KEEP_BYTES``), then to the *tail*,
    which drops its oldest line whenever it is over the same bounds; a landmark (``LANDMARKS``) past the head
    goes to the *marks* instead, within the same bounds again. A dropped line's text is let go at once; where
    dropped lines lay is kept as spans of stream offsets (``[first, last, count]``), made whole at the end
    against the lines kept, so that every read path (and the parallel one, which hands over its workers'
    spans) ends with the same lines and spans. A Traceback line counts ``TRACEBACK_BYTES`` more, the block it
    will be given."""

    def __init__(self) -> None:
        self.head: list[Line] = []
        self.head_bytes = 0
        self.head_full = False
        self.marks: list[Line] = []
        self.mark_offsets: list[int] = []
        self.mark_bytes = 0
        self.tail: deque[tuple[Line, int]] = deque()  # each line with its cost, counted once
        self.tail_bytes = 0
        self.spans: list[list[int]] = []  # [first offset, last offset, count] of lines dropped from the tail
        self.handed: list[list[int]] = []  # spans a worker of the parallel scan dropped
        self.dropped = 0
        self.long: list[Line] = []  # the lines cut at MAX_LINE, kept or dropped: each is listed in long_lines

    def add(self, line: Line) -> None:
        cost = _cost(line)
        if line.truncated:
            self.long.append(line)
        if not self.head_full:
            if len(self.head) < KEEP_LINES and self.head_bytes + cost <= KEEP_BYTES:
                self.head.append(line)
                self.head_bytes += cost
                return
            self.head_full = True
        if (
            len(self.marks) < KEEP_LINES
            and self.mark_bytes + cost <= KEEP_BYTES
            and _landmark(line.text, 0, LANDMARK_REACH) is not None
        ):
            self.marks.append(line)
            self.mark_offsets.append(_offset(line))
            self.mark_bytes += cost
            return
        self.tail.append((line, cost))
        self.tail_bytes += cost
        while len(self.tail) > KEEP_LINES or self.tail_bytes > KEEP_BYTES:
            old, old_cost = self.tail.popleft()
            self.tail_bytes -= old_cost
            self._drop(old)

    def hand_over(self, spans: list[list[int]]) -> None:
        """Lines a worker of the parallel scan dropped (its spans, offsets in the whole file)."""
        self.handed.extend(list(span) for span in spans)

    def _drop(self, line: Line) -> None:
        at = _offset(line)
        last = self.spans[-1] if self.spans else None
        # the tail drops in stream order: the new line joins the last span unless a mark lies between them
        marks = self.mark_offsets
        if last is not None and bisect_right(marks, last[1]) == bisect_right(marks, at):
            last[1] = at
            last[2] += 1
        else:
            self.spans.append([at, at, 1])
        line.text = ""
        line.block = None
        line.dropped = True
        self.dropped += 1

    def settle(self, out: Scan) -> None:
        """The kept lines into ``out.lines`` (stream order), the dropped ones counted and placed."""
        kept = self.head + sorted([*self.marks, *(line for line, _cost in self.tail)], key=_offset)
        offsets = [_offset(line) for line in kept]
        merged: list[list[int]] = []
        for span in sorted([*self.spans, *self.handed]):
            # two spans with no kept line between them are one stretch of dropped lines
            if merged and bisect_right(offsets, merged[-1][1]) == bisect_right(offsets, span[0]):
                merged[-1][1] = max(merged[-1][1], span[1])
                merged[-1][2] += span[2]
            else:
                merged.append(list(span))
        out.lines = kept
        out.long_lines = sorted(set(out.long_lines) | {line.number for line in self.long})
        out.dropped = merged
        out.hits_dropped = sum(span[2] for span in merged)


def _offset(line: Line) -> int:
    return -1 if line.offset is None else line.offset


def _cost(line: Line) -> int:
    """What a kept line holds: its text, and the block a Traceback line is given (at most TRACEBACK_BYTES)."""
    return len(line.text) + (TRACEBACK_BYTES if "Traceback (most recent call last)" in line.text else 0)


@dataclass
class Scan:
    """What one read of a log kept, and what it saw of the whole (line count, last line, NULs, gzip)."""

    path: str
    size: int
    gzip: bool
    lines: list[Line] = field(default_factory=list)
    total_lines: int = 0
    bytes_read: int = 0
    ends_with_newline: bool = True
    binary: bool = False
    long_lines: list[int] = field(default_factory=list)
    hits_dropped: int = 0
    # the stretches of anchor lines the scan's bounds let go (``Kept``): [first offset, last offset, count]
    dropped: list[list[int]] = field(default_factory=list)
    last_line: str = ""
    skipped_blocks: int = 0
    searched_blocks: int = 0
    # NUL bytes at the start: the file was truncated while a process kept writing at its old offset.
    leading_nuls: int = 0
    # A .gz log that does not decompress to its end (cut short, or corrupt): why; the part before was read.
    gzip_problem: str | None = None
    # the bounds on what is kept, while the scan runs (``settle`` ends it: None travels from a node)
    kept: Kept | None = field(default=None, repr=False, compare=False)

    def keep(self, line: Line) -> None:
        """Keep ``line`` within the scan's bounds (every read path keeps its lines through here)."""
        if self.kept is None:
            self.kept = Kept()
        self.kept.add(line)

    def take_dropped(self, spans: list[list[int]]) -> None:
        """What a worker of the parallel scan dropped (its spans, offsets in the whole file)."""
        if self.kept is None:
            self.kept = Kept()
        self.kept.hand_over(spans)

    def settle(self) -> None:
        """The scan is over: ``lines`` becomes what the bounds kept, ``dropped`` where the rest lay."""
        if self.kept is not None:
            self.kept.settle(self)
            self.kept = None


def _decode(data: bytes) -> str:
    text = data.decode("utf-8", "replace").replace("\x00", "\\x00")
    if text.startswith('{"log":"'):
        return _json_file_record(text)
    if "^[" in text or "ESC[" in text or "#033[" in text or text.endswith("^M"):
        return _caret_notation(text)
    if "&quot;" in text or "&#39;" in text or "&#x27;" in text:
        # imported here: building ``html.entities``' 2,200-name table is 8 M instructions of every ``log``
        # run (issue 18), and only a log copied from a web page's source holds these entities
        import html

        return html.unescape(text)
    if 'File \\"' in text:
        return text.replace('\\"', '"')
    return text


# A log copied from a web page's HTML source (an issue's page, a forum, a rendered notebook) keeps the page's
# character references: quotes as ``&quot;``, ``<module>`` as ``&lt;module&gt;``
# (xorbitsai/inference#3785: ``File &quot;/home/test/.local/.../vllm/engine/async_llm_engine.py&quot;, line
# 976``). A line holding an escaped quote, which a server's own line never writes, is read as the page showed
# it; a line with a lone ``&lt;`` or ``&amp;`` (a logged prompt's own text) stays as written.


# A traceback copied out of a JSON string (a report pasting a service's JSON error field) keeps its quotes
# escaped: ``  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2708, in
# run_scheduler_process`` (sglang#15050). A frame line holding ``File \"`` is read with its quotes unescaped;
# docker's json-file records are unwrapped whole above.


# A log shown through ``cat -v`` or a pager and pasted from there: ESC printed as ``^[`` and a carriage return
# as ``^M`` (seed-oss#10: ``^[[1;36m(APIServer pid=679631)^[[0;0m ERROR ...^M``). The colour codes are taken
# off as a real ESC's are; a ``^M`` ends a line (one at the end is dropped; one inside it, before the next
# line's prefix, is where ``pasted.unjoined`` splits the line). A viewer that names control characters
# shows ESC as the word ``ESC`` instead (vllm#25043: ``(EngineCore_DP0 pid=35109)ESC[0;0m ERROR ...``): the
# same colour codes, taken off alike; rsyslog (and a log service fed by it) writes a control character as
# ``#`` and its three octal digits, ESC as ``#033`` (aws-samples/amazon-sagemaker-generativeai#111's
# CloudWatch export: ``#033[1;36m(APIServer pid=1)#033[0;0m``).
_CARET_CSI = re.compile(r"(?:\^\[|ESC|#033)\[[0-9;?]*[A-Za-z]")


def _caret_notation(text: str) -> str:
    text = _CARET_CSI.sub("", text)
    while text.endswith("^M"):
        text = text[:-2]
    return text


# Colour codes (SGR and the other CSI sequences a terminal or Ray's log forwarding adds).
_CSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _json_file_record(text: str) -> str:
    """The line a docker ``json-file`` record holds (``{"log":"INFO ...\\n","stream":"stderr","time":...}``,
    the file under /var/lib/docker/containers/ that a report may quote; Awesome-ML-SYS-Tutorial#106): its
    ``log`` string unescaped, its newline and colour codes taken off. The record is unwrapped here, where
    every scan path decodes a kept line, so the three read it alike; of a record cut inside its string (the
    file's end) what it holds is kept."""
    try:
        value, _end = scanstring(text, 8)
    except ValueError:
        # a record cut inside its string (the file's last line, a long line cut at MAX_LINE): what it holds
        try:
            # a JSON string literal (the text starts with `{"log":"`): it cannot nest, so plain json is
            # safe here, and this module is shipped to nodes where argtrace is not installed (remote/)
            value = json.loads(text[7:].rstrip("\\") + '"')
        except ValueError:
            value = text[8:]
    return _CSI.sub("", value.rstrip("\r\n"))


class Newlines:
    """Counts the newlines of byte ranges by the cheaper of two C loops for the log's lines (log36).

    ``bytes.count`` of one byte visits every byte (CPython 3.11 ``stringlib/fastsearch.h`` ``count_char``,
    whose ``maxcount`` test keeps the compiler from vectorising it): 0.30 ms per MB here whatever the lines.
    ``replace(b"\\n", b"")`` finds each newline with ``memchr`` (``stringlib/transmogrify.h``
    ``countchar``, then the copy between them): about 30 us per MB plus 10-13 ns a newline, so 0.11 ms per
    MB of vLLM's 120-byte lines and 0.075 of SGLang's 245-byte ones, but 0.63 of 16-byte lines (32-byte
    lines: the same as ``count``). The density of the last range of at least ``SAMPLE`` bytes picks the loop
    for the next; a shorter range is counted by ``count`` (no copy). Both give the same number. The bytes and
    newlines of every range counted give the log's mean line (``acscan._Numbering``)."""

    SAMPLE = 16 << 10
    DENSE = 32  # a mean line shorter than this: bytes.count

    __slots__ = ("bytes", "dense", "newlines")

    def __init__(self) -> None:
        self.dense = False
        self.bytes = 0  # of the ranges counted, and their newlines: the log's mean line
        self.newlines = 0

    def __call__(self, buf: bytes | bytearray, start: int, end: int) -> int:
        size = end - start
        whole = len(buf)
        if size < self.SAMPLE or self.dense:
            found = buf.count(b"\n", start, end)
        elif (whole - size) * 8 <= whole:
            # the whole buffer, less what lies outside the range: a slice would be one more 1 MB copy, and two
            # such buffers alive at once made glibc give the heap's top back and fault it in again every
            # window (the scan of 100 MB of vLLM lines took 0.15 s instead of 0.04)
            found = whole - len(buf.replace(b"\n", b""))
            found -= buf.count(b"\n", 0, start) + buf.count(b"\n", end, whole)
        else:
            found = size - len(buf[start:end].replace(b"\n", b""))
        self.bytes += size
        self.newlines += found
        if size >= self.SAMPLE:
            self.dense = found * self.DENSE > size
        return found


def after_nuls(buf: bytes | bytearray, n: int) -> int:
    """``len(buf[:n].lstrip(b"\\x00"))``: the bytes of ``buf[:n]`` after its leading NULs. A buffer that does
    not start with one (every log but a truncated one) is not copied: slicing and stripping a reused 1 MB
    ``bytearray`` copy it twice (0.2-0.3 ms of every fast-path run)."""
    if n and buf[0]:
        return n
    return len(buf[:n].lstrip(b"\x00"))


_TEXT_BYTES = bytes(range(0x20, 0x7F)) + b"\t\n\r\x1b"


def _looks_binary(sample: bytes) -> bool:
    """More than 5% control bytes or invalid UTF-8 in the first 64 kB (a leading run of NULs aside)."""
    sample = sample.lstrip(b"\x00")
    if not sample:
        return False
    ascii_only = sample.translate(None, _TEXT_BYTES)
    controls = sum(1 for b in ascii_only if b < 0x80)
    invalid = sample.decode("utf-8", "replace").count("\ufffd")
    return (controls + invalid) * 20 > len(sample)


class Gunzip:
    """A gzip stream read as decompressed chunks that keeps what it could decompress.

    ``gzip.GzipFile`` raises ``EOFError`` at the end of a truncated file (a log still being compressed,
    a partial copy) and a ``read`` that raises loses the bytes it had gathered; here every piece that
    decompresses is handed on, and ``problem`` says why the stream stopped early. Concatenated members
    (``cat a.gz b.gz``) and trailing zero padding are read as ``gzip`` reads them."""

    def __init__(self, raw: BinaryIO, piece: int = CHUNK) -> None:
        self.raw = raw
        self.problem: str | None = None
        self.piece = piece  # the most bytes one read() returns
        self._pieces = self._decompress()

    def _decompress(self) -> Iterator[bytes]:
        member = zlib.MAX_WBITS | 16  # gzip header and trailer
        d = zlib.decompressobj(member)
        fed = False  # has the current member received any input?
        while True:
            data = self.raw.read(1 << 20)
            if not data:
                break
            while data:
                if not fed:
                    data = data.lstrip(b"\x00")  # zero padding after the last member, as gzip allows
                    if not data:
                        break
                    fed = True
                try:
                    # Bounded output: a small file that inflates to gigabytes streams, never balloons.
                    piece = d.decompress(data, self.piece)
                    while len(piece) == self.piece and not d.unconsumed_tail and not d.eof:
                        yield piece  # all input taken, but more output may be pending inside zlib
                        piece = d.decompress(b"", self.piece)
                except zlib.error as exc:
                    self.problem = f"corrupt gzip data ({exc})"
                    return
                if piece:
                    yield piece
                if d.eof:  # end of one member; what follows may be the next one
                    data = d.unused_data
                    d, fed = zlib.decompressobj(member), False
                else:
                    data = d.unconsumed_tail
        if fed and not d.eof:
            rest = d.flush()
            if rest:
                yield rest
            self.problem = (
                "the gzip stream ends before its end marker: the file is truncated (cut short, or still "
                "being written)"
            )

    def read(self, n: int = -1) -> bytes:
        return next(self._pieces, b"")

    def close(self) -> None:
        self.raw.close()

    def __enter__(self) -> Gunzip:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# A line longer than MAX_LINE (a request logged with its prompt or a base64 image, a pasted blob) is never
# held whole by any scan path: what is kept of it is its head, the bytes around the anchors beyond the
# head, and its tail, joined by LONG_MARK (``LongLine``). So the memory a scan needs is bounded whatever
# the line's length (issue 18: a 500 MB line took 1 GB), and an anchor far inside the line still reaches
# the analyser with its context (before, only the first MAX_LINE bytes were kept, and no anchor beyond).
LONG_HEAD = 512 << 10
LONG_TAIL = 64 << 10
LONG_CONTEXT = 512  # bytes kept before and after each anchor between the head and the tail
LONG_SPAN = 8 << 10  # a stretch around anchors close together grows to this at most; then a new one begins
LONG_STRETCHES = 64  # at most this many stretches (a line made of anchors stays bounded)
LONG_MARK = b" [...] "
_ANCHOR_MAX = max(len(a) for a in ANCHORS)


def anchor_starts(data: bytes | bytearray | memoryview, start: int, end: int) -> list[int]:
    """Every offset in ``data[start:end]`` where an anchor begins (overlapping ones too), sorted."""
    found: set[int] = set()
    find = data.find if not isinstance(data, memoryview) else bytes(data).find
    for anchor in ANCHORS:
        j = find(anchor, start, end)
        while j >= 0:
            found.add(j)
            j = find(anchor, j + 1, end)
    return sorted(found)


class LongLine:
    """What is kept of a line longer than ``MAX_LINE``, from its bytes fed in order, in bounded memory.

    Kept: the first ``LONG_HEAD`` bytes, up to ``LONG_STRETCHES`` stretches of ``LONG_CONTEXT`` bytes either
    side of each anchor that begins after the head (anchors close together share a stretch of at most
    ``LONG_SPAN``), the last ``LONG_TAIL`` bytes; ``text()`` joins them with ``LONG_MARK`` where bytes were
    left out. ``anchored``: the line holds an anchor anywhere. Every path (the matcher, grep, the Python
    scan) keeps a long line through this class, so they keep the same text. ``finder(data, start, end)``
    gives the offsets where anchors begin (``anchor_starts``, or the matcher's overlapping search: the same
    offsets)."""

    __slots__ = ("anchored", "finder", "head", "prev", "searched", "size", "stretches", "tail")

    def __init__(self, finder: Any = anchor_starts) -> None:
        self.finder = finder
        self.size = 0  # bytes fed
        self.head = bytearray()
        self.tail = b""
        self.prev = b""  # the last bytes fed, so that an anchor (and its context) across two feeds is found
        self.searched = 0  # line offset from which anchor starts are still to be looked for
        self.stretches: list[list[Any]] = []  # [start, end, bytes gathered from start]
        self.anchored = False

    def feed(self, data: bytes | bytearray | memoryview) -> None:
        view = memoryview(data)
        for k in range(0, len(view), 1 << 20):  # 1 MB at a time: the same stretches whatever the pieces
            self._feed(view[k : k + (1 << 20)])

    def _feed(self, data: memoryview) -> None:
        n = len(data)
        base = self.size
        if base < LONG_HEAD:
            self.head += data[: LONG_HEAD - base]
        joined = self.prev + bytes(data)
        at = base - len(self.prev)  # line offset of joined[0]
        self.size = base + n
        self._search(joined, at, self.size - _ANCHOR_MAX + 1)
        keep = LONG_CONTEXT + _ANCHOR_MAX
        self.prev = joined[-keep:]
        self.tail = (self.tail + bytes(data[-LONG_TAIL:]))[-LONG_TAIL:]

    def _search(self, joined: bytes, at: int, upto: int) -> None:
        """Anchors beginning in ``[self.searched, upto)`` (those after ``upto`` may still be cut by the end of
        what was fed), then every open stretch filled with the bytes of ``joined``."""
        full = len(self.stretches) == LONG_STRETCHES and self.anchored
        if full and self.searched > self.stretches[-1][1] + LONG_CONTEXT:
            self.searched = max(self.searched, upto)  # nothing more can be kept: no need to look
        elif upto > self.searched:
            for j in self.finder(joined, max(0, self.searched - at), len(joined)):
                p = at + j
                if p < self.searched:
                    continue
                if p >= upto:
                    break
                self.anchored = True
                if p + LONG_CONTEXT <= LONG_HEAD:
                    continue  # inside the head, which is kept
                self._stretch(p)
            self.searched = upto
        end = at + len(joined)
        for stretch in self.stretches:
            have = stretch[0] + len(stretch[2])
            if have < stretch[1] and have < end:
                stretch[2] += joined[have - at : min(stretch[1], end) - at]

    def _stretch(self, p: int) -> None:
        start, end = max(p - LONG_CONTEXT, LONG_HEAD), p + LONG_CONTEXT
        if self.stretches:
            last = self.stretches[-1]
            if start <= last[1]:
                if end - last[0] <= LONG_SPAN:
                    last[1] = max(last[1], end)
                    return
                start = last[1]
        if len(self.stretches) < LONG_STRETCHES:
            self.stretches.append([start, end, bytearray()])

    def text(self) -> bytes:
        """The kept bytes, once the whole line was fed (the anchors cut by the end of the feeds are looked for
        now, so ``anchored`` is final only after this call)."""
        self._search(self.prev, self.size - len(self.prev), self.size)
        tail_at = self.size - len(self.tail)
        out = bytearray(self.head)
        done = len(self.head)
        for start, _end, got in self.stretches:
            piece = bytes(got[: max(0, tail_at - start)])
            if not piece:
                continue
            if start > done:
                out += LONG_MARK
            out += piece
            done = start + len(piece)
        if tail_at > done:
            out += LONG_MARK
        out += self.tail[max(0, done - tail_at) :]
        return bytes(out)


def long_line(data: bytes | bytearray | memoryview, finder: Any = anchor_starts) -> LongLine:
    """``data``, a whole line longer than ``MAX_LINE`` (no newline), kept as ``LongLine`` keeps it."""
    line = LongLine(finder)
    line.feed(data)
    return line


def following_lines(buf: bytes, after: int, limit: int) -> list[str]:
    """Up to TRACEBACK_LINES lines after offset ``after`` (the newline ending the Traceback line)."""
    stop = min(limit, after + 1 + TRACEBACK_BYTES)
    text = buf[after + 1 : stop]
    lines = text.split(b"\n")
    if stop < limit and lines:
        lines = lines[:-1]  # last piece may be cut
    return [_decode(x).rstrip("\r") for x in lines[:TRACEBACK_LINES]]


class Blocks:
    """The lines after each ``Traceback`` line, for the fast paths, gathered from a stream as it passes.

    A block is what the Python scan keeps (``following_lines``): the text of at most ``TRACEBACK_BYTES`` after
    the line's newline, split into lines, the last (possibly cut) one dropped unless the stream ends first; at
    most ``TRACEBACK_LINES``. A line whose newline is unknown (the grep path knows only where the line starts)
    is searched for it first; one longer than ``LONG`` keeps an empty block. The matcher feeds the stream it
    scans (a ``.gz`` is inflated once); the grep path feeds the bytes at each line's offset afterwards."""

    LONG = 8 << 20  # reader.MAX_CARRY

    def __init__(self) -> None:
        # [line, stream offset of its newline (-1: not found yet), the bytes after it so far]
        self.open: list[list[Any]] = []

    def want(self, line: Line, newline: int = -1) -> None:
        """``line`` (its ``offset`` set) holds a ``Traceback``; ``newline``: the stream offset of its end."""
        line.block = []
        self.open.append([line, newline, bytearray()])

    def feed(self, buf: bytes | bytearray, n: int, pos: int) -> None:
        """The stream's bytes ``[pos, pos + n)`` are ``buf[:n]`` (fed in order, from the lines' offsets)."""
        if not self.open:
            return
        still = []
        for item in self.open:
            line, newline, got = item
            if newline < 0:
                nl = buf.find(b"\n", max(0, line.offset - pos), n)
                if nl < 0:
                    if pos + n - line.offset > self.LONG:
                        continue  # no newline within reach: the block stays empty
                    still.append(item)
                    continue
                newline = item[1] = pos + nl
            start = newline + 1 + len(got)
            end = newline + 1 + TRACEBACK_BYTES
            if end > start and pos + n > start:
                got += buf[max(start, pos) - pos : min(end, pos + n) - pos]
            if pos + n > end:  # a byte beyond the wanted ones: the stream goes on past them
                self._resolve(line, got, cut_last=True)
            else:
                still.append(item)
        self.open = still

    def finish(self, size: int) -> None:
        """The stream ended at ``size`` bytes."""
        for line, newline, got in self.open:
            if 0 <= newline < size:
                self._resolve(line, got, cut_last=False)
            # else: the last line, without a newline (or one was added at the end): nothing follows it
        self.open = []

    @staticmethod
    def _resolve(line: Line, got: bytearray, *, cut_last: bool) -> None:
        if line.dropped:
            return  # the scan's bounds let it go before its block was read
        pieces = bytes(got).split(b"\n")
        if cut_last:
            pieces = pieces[:-1]
        line.block = [_decode(x).rstrip("\r") for x in pieces[:TRACEBACK_LINES]]
