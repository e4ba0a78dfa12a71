"""Optional accelerator for big plain-text logs: GNU grep drops the steady-state lines first.

``grep -a -n -b -v -F`` with the few line templates a running server repeats (decode/prefill batch lines,
HTTP access lines, throughput lines) runs several times faster than any pure-Python pass over the bytes; what
it prints (every other line, with its number and byte offset) is a small fraction of the file and is read
here, line by line, with the same anchors as the Python scanner (``lines.ANCHORS``). Used only for plain
files of at least ``reader.PARALLEL_MIN`` bytes when GNU grep is on PATH; anything unexpected (no grep, a
non-GNU grep, a grep failure) falls back to the Python scan, which gives the same lines.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import IO

from argtrace.layers.log import lines as shared  # the records and anchors the reader also uses (no cycle)
from argtrace.layers.log.lines import Line, Scan

_TB = b"Traceback (most recent call last)"


@lru_cache(maxsize=1)
def gnu_grep() -> str | None:
    exe = shutil.which("grep")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if b"GNU grep" in out else None


def scan_with_grep(path: Path, label: str) -> Scan | None:
    """The scan of ``path`` through a grep prefilter, or ``None`` when grep cannot be used."""
    exe = gnu_grep()
    if exe is None or os.environ.get("ARGTRACE_NO_GREP"):
        return None
    size = path.stat().st_size
    out = Scan(path=label, size=size, gzip=False)
    with path.open("rb") as fh:
        head = fh.read(65536)
        out.binary = shared._looks_binary(head)
        out.leading_nuls = len(head) - len(head.lstrip(b"\x00"))
    cmd = [exe, "-a", "-n", "-b", "-v", "-F"]
    for marker in shared.BORING:
        cmd += ["-e", marker.decode()]
    cmd.append(str(path))
    env = dict(os.environ, LC_ALL="C")
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return None
    assert proc.stdout is not None
    last_no, last_offset = 0, -1
    pending: Line | None = None  # a traceback collecting its following lines
    ok = True
    try:
        for number, offset, text, cut, hit_beyond in _records(proc.stdout, out):
            last_no, last_offset = number, offset
            if pending is not None and pending.block is not None:
                if (
                    number == pending.number + len(pending.block) + 1
                    and len(pending.block) < shared.TRACEBACK_LINES
                ):
                    pending.block.append(shared._decode(text).rstrip("\r"))
                else:
                    pending = None
            if not hit_beyond and not any(a in text for a in shared.ANCHORS):
                continue
            if len(out.lines) >= shared.MAX_HITS:
                out.hits_dropped += 1
                continue
            line = Line(number, shared._decode(text).rstrip("\r"), truncated=cut, offset=offset)
            if _TB in text:
                line.block = []
                pending = line
            out.lines.append(line)
    except ValueError:
        ok = False
    finally:
        proc.stdout.close()
        status = proc.wait()
    if not ok or status not in (0, 1):
        return None
    # Lines after the last one grep printed are all steady-state lines: count them directly.
    with path.open("rb") as fh:
        last_end = 0
        if last_offset >= 0:
            fh.seek(last_offset)
            last_end = size
            pos = last_offset
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                nl = chunk.find(b"\n")
                if nl >= 0:
                    last_end = pos + nl + 1
                    break
                pos += len(chunk)
        fh.seek(min(last_end, size))
        tail_newlines = 0
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            tail_newlines += chunk.count(b"\n")
        fh.seek(max(0, size - 4096))
        tail = fh.read()
    out.bytes_read = size
    out.ends_with_newline = tail.endswith(b"\n") or size == 0
    out.total_lines = last_no + tail_newlines
    if not out.ends_with_newline and last_end < size:
        out.total_lines += 1
    lines = tail.rstrip(b"\n").split(b"\n")
    out.last_line = shared._decode(lines[-1][:4096]) if lines and lines[-1] else ""
    out.searched_blocks = 1
    return out


def _records(stream: IO[bytes], out: Scan) -> Iterator[tuple[int, int, bytes, bool, bool]]:
    """``(number, offset, text, truncated, anchor beyond the kept text)`` from grep's ``N:OFFSET:text``."""
    read = stream.read
    carry = b""
    long: tuple[int, int, bytes] | None = None  # a line longer than MAX_LINE: its number, offset, head
    long_hit = False
    tail = b""  # overlap so an anchor split between two reads is still found
    while True:
        data = read(1 << 20)
        if not data:
            break
        if long is not None:
            nl = data.find(b"\n")
            part = data if nl < 0 else data[:nl]
            long_hit = long_hit or any(a in tail + part for a in shared.ANCHORS)
            tail = part[-64:]
            if nl < 0:
                continue
            yield long[0], long[1], long[2], True, long_hit
            long, long_hit, tail = None, False, b""
            data = data[nl + 1 :]
        buf = carry + data if carry else data
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            number, offset, text = _parse(buf[start:nl])
            start = nl + 1
            truncated = len(text) > shared.MAX_LINE
            hit = truncated and any(a in text[shared.MAX_LINE - 64 :] for a in shared.ANCHORS)
            if truncated and number not in out.long_lines:
                out.long_lines.append(number)
            yield number, offset, text[: shared.MAX_LINE], truncated, hit
        carry = buf[start:]
        if len(carry) > shared.MAX_LINE + 64:
            number, offset, text = _parse(carry)
            if number not in out.long_lines:
                out.long_lines.append(number)
            long = (number, offset, text[: shared.MAX_LINE])
            long_hit = any(a in text[shared.MAX_LINE - 64 :] for a in shared.ANCHORS)
            tail = text[-64:]
            carry = b""
    if long is not None:
        yield long[0], long[1], long[2], True, long_hit
    elif carry:
        number, offset, text = _parse(carry)
        yield number, offset, text[: shared.MAX_LINE], len(text) > shared.MAX_LINE, False


def _parse(record: bytes) -> tuple[int, int, bytes]:
    a = record.index(b":")
    b = record.index(b":", a + 1)
    return int(record[:a]), int(record[a + 1 : b]), record[b + 1 :]
