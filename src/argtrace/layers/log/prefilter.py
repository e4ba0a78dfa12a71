"""The fast path for big logs: GNU grep finds the anchor lines at C speed, Python parses only those.

``grep -a -n -b -E 'ANCHOR|...'`` (the anchors of ``lines.ANCHORS``, escaped) prints only the lines
the analyser can use, with their numbers and byte offsets: a small fraction of any log, whatever lines a
server repeats (no list of one release's uninteresting lines decides what is searched). While grep runs,
this process reads the same bytes once for what grep does not say: the line count, the last line, lines
longer than ``reader.MAX_CARRY``, the head (binary? leading NULs?). A ``.gz`` log is decompressed here, once,
and fed to grep's stdin. Lines after a ``Traceback`` hit are read back afterwards (a seek, or for ``.gz`` a
second decompression only when there is a traceback). The result is what the Python scan gives
(tests/log/test_robustness.py compares them on every fixture); anything unexpected (no grep, a non-GNU
grep, a grep failure) returns None and the caller scans in Python.

GNU grep holds a whole line to print it (a 500 MB line took 1 GB, issue 18), so both greps run with their
address space capped at ``GREP_MEMORY``: a line too long for that makes grep fail ("memory exhausted"), and
the log is scanned in Python, which streams such a line (``lines.LongLine``). What is kept of a hit line
longer than ``MAX_LINE`` is what ``LongLine`` keeps, read from grep's output as it streams.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from argtrace.layers.log import lines as shared  # the records and anchors the reader also uses (no cycle)
from argtrace.layers.log.lines import Line, Scan

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import IO

_TB = b"Traceback (most recent call last)"
_CHUNK = shared.CHUNK  # bytes counted at a time
_LONG = 8 << 20  # reader.MAX_CARRY: a line longer than this is listed as a long line, kept or not

# The address space each grep may use: 16 MB runs the anchors' expression on ordinary lines, and grep's
# buffer doubles to hold a long line, so lines up to about 8 MB pass; the two greps and this process stay
# under 100 MB together (issue 18's bound).
GREP_MEMORY = 24 << 20


def _cap_memory() -> None:  # in the child, before exec
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (GREP_MEMORY, GREP_MEMORY))
    except (ImportError, ValueError, OSError):
        pass


@lru_cache(maxsize=1)
def gnu_grep() -> str | None:
    # subprocess, threading and shutil (with bz2 and lzma) are imported where grep runs: the log command
    # imports this module (to ship it with the reader) on paths that never run grep (issue 18: its start-up).
    # On a node it travels alone, so it cannot use argtrace.localfs.which.
    import shutil
    import subprocess

    exe = shutil.which("grep")
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, timeout=5, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if b"GNU grep" in out else None


_ERE_SPECIAL = frozenset(".[]()*+?{}|^$\\")


def ere_alternatives(words: tuple[bytes, ...]) -> str:
    """``words`` as one POSIX extended regular expression matching any of them literally."""
    return "|".join("".join("\\" + c if c in _ERE_SPECIAL else c for c in w.decode()) for w in words)


class _Counter:
    """What the scan needs beyond the hits, from one pass over the bytes (all of it ``bytes`` methods)."""

    def __init__(self) -> None:
        self.newlines = 0
        self.count = shared.Newlines()  # bytes.count or a memchr loop, whichever is cheaper for these lines
        self.size = 0
        self.head = b""
        self.nuls, self.in_nuls = 0, True  # the run of NUL bytes the stream starts with, however long
        self.tail = b""  # the last 4096 bytes
        self.line_start = 0  # stream offset where the current line starts
        self.long_lines: list[int] = []

    def feed(self, data: bytes | bytearray, n: int) -> None:
        if not self.head:
            self.head = bytes(data[: min(n, 65536)])
        if self.in_nuls:
            kept = shared.after_nuls(data, n)
            self.nuls, self.in_nuls = self.nuls + n - kept, kept == 0
        first = data.find(b"\n", 0, n)
        if first < 0:
            self.size += n
            return
        if self.size + first - self.line_start > _LONG:
            self.long_lines.append(self.newlines + 1)
        self.newlines += self.count(data, 0, n)
        self.line_start = self.size + data.rfind(b"\n", 0, n) + 1
        self.size += n

    def finish(self) -> None:
        if self.size - self.line_start > _LONG:
            self.long_lines.append(self.newlines + 1)


def scan_with_grep(path: Path, label: str, *, gz: bool = False) -> Scan | None:
    """The scan of ``path`` (``gz``: gzip-compressed) with grep finding the anchor lines, or ``None`` when
    grep cannot be used (the caller then scans in Python)."""
    import subprocess
    import threading

    exe = gnu_grep()
    if exe is None or os.environ.get("ARGTRACE_NO_GREP"):
        return None
    out = Scan(path=label, size=path.stat().st_size, gzip=gz)
    # One extended regular expression, the anchors as escaped alternatives: the same lines as ``-F -e A -e
    # B ...`` at 1.5-2x its speed (GNU grep 3.8 on 100 MB of real-format lines: 0.16-0.20 s CPU, against
    # 0.29-0.32 s for the fixed-string list).
    cmd = [exe, "-a", "-n", "-b", "-E", "-e", ere_alternatives(shared.ANCHORS)]
    if not gz:
        cmd += ["--", str(path)]
    # A second grep drops the steady-state lines that contain an anchor (vLLM's periodic stats line says
    # "GPU KV cache usage"), so they never reach Python; it reads only the first grep's few lines.
    drop = [exe, "-a", "-v", "-F"]
    for marker in shared.BORING:
        drop += ["-e", marker.decode()]
    env = dict(os.environ, LC_ALL="C")
    try:
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.PIPE if gz else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            preexec_fn=_cap_memory,
        )
    except OSError:
        return None
    assert proc.stdout is not None
    try:
        sieve = subprocess.Popen(
            drop,
            stdin=proc.stdout,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            preexec_fn=_cap_memory,
        )
    except OSError:
        proc.kill()
        proc.wait()
        return None
    proc.stdout.close()  # the sieve holds it now (grep gets SIGPIPE if the sieve dies)
    assert sieve.stdout is not None
    failed: list[BaseException] = []
    # grep's output is read beside the counting pass (and, for .gz, beside the writes to its stdin).
    reader = threading.Thread(target=_collect, args=(sieve.stdout, out, failed), daemon=True)
    reader.start()
    count = _Counter()
    problem: str | None = None
    try:
        if gz:
            problem = _feed_gzip(path, proc, count)
        else:
            buf = bytearray(_CHUNK)
            with path.open("rb") as fh:
                while True:
                    n = fh.readinto(buf)
                    if not n:
                        break
                    count.feed(buf, n)
                    count.tail = (count.tail + buf[max(0, n - 4096) : n])[-4096:]
    except OSError:
        proc.kill()
        failed.append(OSError("read failed"))
    finally:
        if gz and proc.stdin is not None and not proc.stdin.closed:
            proc.stdin.close()
        reader.join()
        sieve.stdout.close()
        status = proc.wait()
        sieved = sieve.wait()
    if failed or status not in (0, 1) or sieved not in (0, 1):
        return None
    count.finish()
    out.gzip_problem = problem
    out.bytes_read = count.size
    out.binary = shared._looks_binary(count.head)
    out.leading_nuls = count.nuls
    out.ends_with_newline = count.tail.endswith(b"\n") or count.size == 0
    out.total_lines = count.newlines + (0 if out.ends_with_newline else 1)
    tail_lines = count.tail.rstrip(b"\n").split(b"\n")
    out.last_line = shared._decode(tail_lines[-1][:4096]) if tail_lines and tail_lines[-1] else ""
    out.settle()
    # the kept lines longer than MAX_LINE (``settle`` lists them, dropped or not) and every line longer than
    # _LONG, as the other paths list them
    out.long_lines = sorted(set(out.long_lines) | set(count.long_lines))
    out.searched_blocks = 1
    _traceback_blocks(path, out, gz)
    return out


def _feed_gzip(path: Path, proc: subprocess.Popen[bytes], count: _Counter) -> str | None:
    """Decompress ``path`` once into grep's stdin, counting as it goes; the stream's problem, if any."""

    assert proc.stdin is not None
    with shared.Gunzip(path.open("rb")) as gz:
        try:
            for piece in iter(lambda: gz.read(), b""):
                count.feed(piece, len(piece))
                count.tail = (count.tail + piece[-4096:])[-4096:]
                proc.stdin.write(piece)
        except BrokenPipeError:
            raise OSError("grep stopped reading") from None
        finally:
            try:
                proc.stdin.close()
            except BrokenPipeError:
                pass
    return gz.problem


def _collect(stream: IO[bytes], out: Scan, failed: list[BaseException]) -> None:
    """grep's ``N:OFFSET:text`` records into ``out.lines`` (steady-state lines dropped, as the Python scan
    drops them; within the scan's bounds, ``lines.Kept``)."""
    try:
        for number, offset, text, cut, _hit in _records(stream):
            if any(marker in text for marker in shared.BORING):
                continue  # a steady-state line that happens to contain an anchor
            line = Line(number, shared._decode(text).rstrip("\r"), truncated=cut, offset=offset)
            if _TB in text:
                line.block = []  # filled in by _traceback_blocks
            out.keep(line)
    except Exception as exc:  # handed to the caller, which falls back to the Python scan
        failed.append(exc)
        while stream.read(1 << 20):  # drain, so grep is never left blocked on a full pipe
            pass


def _traceback_blocks(path: Path, out: Scan, gz: bool) -> None:
    """The lines following each ``Traceback`` hit (``lines.Blocks``), read from the log at the hit's offset:
    a seek for a plain file, one more decompression for a ``.gz``."""
    wanted = [line for line in out.lines if line.block is not None and line.offset is not None]
    if not wanted:
        return
    if gz:
        blocks = shared.Blocks()
        for line in wanted:
            blocks.want(line)
        pos = 0
        with shared.Gunzip(path.open("rb")) as stream:
            for piece in iter(lambda: stream.read(), b""):
                blocks.feed(piece, len(piece), pos)
                pos += len(piece)
                if not blocks.open:
                    break
        blocks.finish(pos)
        return
    with path.open("rb") as fh:
        for line in wanted:
            assert line.offset is not None
            one = shared.Blocks()
            one.want(line)
            pos = line.offset
            fh.seek(pos)
            while one.open:
                data = fh.read(1 << 20)
                if not data:
                    one.finish(pos)
                    break
                one.feed(data, len(data), pos)
                pos += len(data)


def _records(stream: IO[bytes]) -> Iterator[tuple[int, int, bytes, bool, bool]]:
    """``(number, offset, text, truncated, True)`` from grep's ``N:OFFSET:text``; the text of a line longer
    than ``MAX_LINE`` is what ``lines.LongLine`` keeps of it, fed from grep's output as it streams."""
    read = stream.read
    carry = b""
    long: tuple[int, int, shared.LongLine] | None = None  # a line longer than MAX_LINE: number, offset
    while True:
        data = read(1 << 20)
        if not data:
            break
        if long is not None:
            nl = data.find(b"\n")
            long[2].feed(data if nl < 0 else data[:nl])
            if nl < 0:
                continue
            yield long[0], long[1], long[2].text(), True, True
            long = None
            data = data[nl + 1 :]
        buf = carry + data if carry else data
        start = 0
        while True:
            nl = buf.find(b"\n", start)
            if nl < 0:
                break
            number, offset, text = _parse(buf[start:nl])
            start = nl + 1
            if len(text) > shared.MAX_LINE:
                yield number, offset, shared.long_line(text).text(), True, True
            else:
                yield number, offset, text, False, True
        carry = buf[start:]
        if len(carry) > shared.MAX_LINE + 64:
            number, offset, text = _parse(carry)
            long = (number, offset, shared.LongLine())
            long[2].feed(text)
            carry = b""
    if long is not None:
        yield long[0], long[1], long[2].text(), True, True
    elif carry:
        number, offset, text = _parse(carry)
        if len(text) > shared.MAX_LINE:
            yield number, offset, shared.long_line(text).text(), True, True
        else:
            yield number, offset, text, False, True


def _parse(record: bytes) -> tuple[int, int, bytes]:
    a = record.index(b":")
    b = record.index(b":", a + 1)
    return int(record[:a]), int(record[a + 1 : b]), record[b + 1 :]
