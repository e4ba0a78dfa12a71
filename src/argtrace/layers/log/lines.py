"""What a log scan keeps: the anchor strings, the steady-state line templates, the ``Line``/``Scan`` records.

Shared by the streaming reader (``reader.py``) and its GNU grep prefilter (``prefilter.py``), so that the
reader can use the prefilter without the prefilter importing the reader back (one direction:
``reader`` -> ``prefilter`` -> ``lines``). Standard library only: it is sent to a node with the reader.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_LINE = 1 << 20  # longest line text kept for analysis (args dumps are ~20 kB)
TRACEBACK_LINES = 160  # lines kept after "Traceback (most recent call last):"
MAX_HITS = 200_000  # hard cap on kept lines (a log made only of errors stays bounded)

# Every line the analyser can use contains one of these (see analyze.py for what each line means).
ANCHORS: tuple[bytes, ...] = (
    b"server_args",
    b"non-default args",
    b"with config:",
    b"API server version",
    b"rror",  # ValueError, RuntimeError, OutOfMemoryError, "error:", NCCL error, ...
    b"Traceback (most recent call last)",
    b"illed",  # Killed / killed
    b" end.",  # Load weight end. / Memory pool end. / Capture cuda graph end.
    b"weight begin",
    b"llocated",  # KV Cache is allocated / Mamba Cache is allocated
    b"max_total_num_tokens",
    b"startup complete",
    b"fired up",
    b"Uvicorn running",
    b"took ",  # vLLM: Model loading took / Graph capturing finished in .., took
    b"KV cache",  # vLLM: Available KV cache memory / GPU KV cache size
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
)
# Lines printed over and over once a server runs; a block made only of these holds nothing to analyse.
BORING: tuple[bytes, ...] = (
    b" batch. #",  # SGLang "] Decode batch. #running-req" and "] Prefill batch. #new-seq"
    b'HTTP/1.1" ',
    b"Avg prompt throughput",  # vLLM periodic stats
)


@dataclass
class Line:
    number: int  # 1-based
    text: str
    truncated: bool = False
    # For a "Traceback (most recent call last)" line: the lines that follow it.
    block: list[str] | None = None
    offset: int | None = None  # byte offset of the line in the (decompressed) stream


@dataclass
class Scan:
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
    last_line: str = ""
    skipped_blocks: int = 0
    searched_blocks: int = 0
    # NUL bytes at the start: the file was truncated while a process kept writing at its old offset.
    leading_nuls: int = 0
    # A .gz log that does not decompress to its end (cut short, or corrupt): why; the part before was read.
    gzip_problem: str | None = None


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace").replace("\x00", "\\x00")


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
