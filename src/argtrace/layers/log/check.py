"""``check --log LOG``: the log layer inside ``check``, compared with the intent the earlier layers found.

Wiring (one call in ``check.py``, after the parser/resolution layers and before ``fold_settings``)::

    from argtrace.layers.log.check import analyze_check_log
    results += analyze_check_log(server, options, report, results)

``options`` needs ``log`` (path as typed), ``launched_after`` (ISO 8601 text or None), ``script`` (path or
None) and ``extra`` (``show_secrets``, optional ``log_launch`` and ``pid``). Without ``--launched-after``
the script's modification time is used when the script is a local file: a log older than the script
describes a launch of an earlier version of it. The log's values come after the parser's (and
resolution's) in each setting's history; its findings carry ``layer: "log"`` and ``launch: N``; sections
``log`` and ``timeline`` are added.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence

from argtrace.layers.log.dates import datetime
from argtrace.model import LayerResult, Report, ServerCommand, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from argtrace.frameworks.release import ReleaseEvidence
else:
    Protocol = object  # the classes below are only annotations: no typing at run time


class _Options(Protocol):
    @property
    def script(self) -> str | None: ...
    @property
    def log(self) -> str | None: ...
    @property
    def launched_after(self) -> str | None: ...
    @property
    def extra(self) -> Mapping[str, object]: ...


def intended_from(results: Sequence[LayerResult]) -> dict[str, Any]:
    """Intended values by dest name from the earlier layers.

    Names the analysed framework version does not know are kept: the log may come from a version that does
    (an old script on a new release), and it is independent evidence of what the server saw.
    """
    intended: dict[str, Any] = {}
    for result in results:
        intended.update(result.intended)
    return intended


def _schema_defaults(report: Report, intended: Mapping[str, Any]) -> dict[str, Any]:
    """The parser's default of each intended setting, from the schema the parser layer used: vLLM's
    "non-default args" dump leaves out a value equal to it, so its absence there is no evidence."""
    from argtrace.frameworks.schema import choose_schema

    name, release = report.framework.name, report.framework.release
    if name is None or release is None:
        return {}
    schema = choose_schema(name, release)[0]
    out: dict[str, Any] = {}
    for dest in intended:
        specs = schema.options_for_dest(dest)
        if specs and not specs[0].default_is_repr:
            out[dest] = specs[0].default_value
    return out


def earlier_values(results: Sequence[LayerResult]) -> dict[str, tuple[str, Any]]:
    """Per setting, the deepest earlier layer that saw a known value, and that value."""
    out: dict[str, tuple[str, Any]] = {}
    for result in results:
        for name, (_flag, observations) in result.observations.items():
            for obs in observations:
                if obs.known:
                    out[name] = (obs.layer, obs.value)
    return out


def analyze_check_log(
    server: ServerCommand, options: _Options, report: Report, results: Sequence[LayerResult]
) -> list[LayerResult]:
    if not options.log:
        return []
    from argtrace.layers.log.layer import analyze_log, parse_time
    from argtrace.remote.host import current_host

    host = current_host()  # the node under `argtrace --host`: --log and the script are the node's files
    try:
        host.regular_file(options.log, what="log file")  # never opened unless a regular file
    except UsageError as exc:
        raise UsageError(f"--log {exc}") from None
    launched_after: datetime | None = None
    label = "--launched-after"
    if options.launched_after:
        try:
            launched_after = parse_time(options.launched_after)
        except ValueError:
            raise UsageError(
                f"--launched-after {options.launched_after!r}: not an ISO 8601 time "
                "(e.g. 2026-11-30T08:00:00)"
            ) from None
    elif options.script and (script_st := host.stat(options.script)).is_file and script_st.mtime is not None:
        launched_after = datetime.fromtimestamp(script_st.mtime)
        label = f"the last change to {options.script}"
    earlier = earlier_values(results)
    intended = intended_from(results)
    defaults = _schema_defaults(report, intended)
    launch = options.extra.get("log_launch")
    pid_text = str(options.extra.get("pid") or "")
    result = analyze_log(
        options.log,
        options.log,
        intended=intended,
        framework=report.framework.name or server.framework,
        launched_after=launched_after,
        launch=launch if isinstance(launch, (int, str)) else None,
        show_secrets=bool(options.extra.get("show_secrets")),
        launched_after_label=label,
        pid=int(pid_text) if pid_text.isdigit() else None,
        earlier=earlier,
        only=set(earlier) | set(intended),
        defaults=defaults,
    )
    if launched_after is not None and label != "--launched-after":
        report.notes.append(
            f"--log: launches of {options.log} that started before {label} "
            f"({launched_after.isoformat(sep=' ', timespec='seconds')}) are reported as stale "
            "(pass --launched-after to choose the time)"
        )
    return [result]


# The version line is looked for in the whole log, streamed in chunks of this size through the host (plain
# or gzip): memory stays bounded by a chunk and one line, whatever the log's size or where the line is.
_VERSION_CHUNK_BYTES = 512 * 1024
# A line longer than this is cut before it is matched (vLLM's config line is a few KB).
_VERSION_LINE_BYTES = 256 * 1024
# What every match of the version patterns (log/analyze.py _SGL_VERSION; _VLLM_VERSION, _VLLM_CONFIG)
# contains: blocks and lines without it are not matched. (vLLM, SGLang)
# (bytes.find on the lower-cased block: a case-insensitive regex is several times slower.)
_VERSION_ANCHORS: tuple[tuple[bytes, ...], tuple[bytes, ...]] = (
    (b"version ", b"llm engine (v"),
    (b"sglang==", b"sglang version"),
)


def _holds(lower: bytes, anchors: Sequence[bytes]) -> bool:
    return any(a in lower for a in anchors)


def logged_release(path: str, framework: str) -> ReleaseEvidence | None:
    """The release the log's latest launch printed (``sglang==0.5.10.post1``, ``vLLM API server version
    0.11.0``), as evidence for ``frameworks/release.py``; None when no version line is found or the file is
    not a readable regular file. Read through the host, so under ``--host`` it is the node's log. The whole
    log is streamed (a gzip log, ``.gz`` or gzip magic, decompressed as it is read, concatenated members
    followed): the version line is found wherever it is, and the last one (the latest launch's) wins."""
    import base64
    import re

    from argtrace.frameworks.release import ReleaseEvidence
    from argtrace.layers.log.analyze import _SGL_VERSION, _VLLM_CONFIG, _VLLM_VERSION
    from argtrace.remote.host import HostError, current_host
    from argtrace.remote.ssh import TransportError

    host = current_host()
    patterns: list[re.Pattern[str]] = (
        [_SGL_VERSION] if framework == "sglang" else [_VLLM_VERSION, _VLLM_CONFIG]
    )

    def chunks() -> Iterator[bytes]:
        offset = 0
        while True:
            data = base64.b64decode(
                host.call("read", path=path, offset=offset, limit=_VERSION_CHUNK_BYTES)["data"]
            )
            if not data:
                return
            offset += len(data)
            yield data

    best: tuple[int, str, str] | None = None  # (line number, version, the line's match)
    try:
        st = host.stat(path)
        if not st.exists or not st.is_file:
            return None  # never opened: a FIFO would block, a device never ends
        stream = chunks()
        first = next(stream, b"")
        source = itertools.chain([first], stream)
        text_chunks = _gunzip_stream(source) if first[:2] == b"\x1f\x8b" else source
        anchors = _VERSION_ANCHORS[framework == "sglang"]
        for number, line in _lines(text_chunks, anchors):
            if not _holds(line.lower().encode(), anchors):
                continue  # the cheap test first: most lines hold none of the patterns' words
            for pattern in patterns:
                for match in pattern.finditer(line):
                    version = next((g for g in match.groups() if g), None)
                    if version:
                        best = (number, version, match.group(0).strip())
    except (HostError, TransportError, OSError):
        return None
    if best is None:
        return None
    label = host.describe(path) if host.is_remote else path
    return ReleaseEvidence(best[1], "log", f"{label}:{best[0]}", f"the log's `{best[2]}`")


def _lines(chunks: Iterable[bytes], anchors: Sequence[bytes] = ()) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of the lines of a byte stream; a line over ``_VERSION_LINE_BYTES`` is cut
    there (its rest is skipped), so no line is held whole however long it is. With ``anchors`` (lower case),
    a block of lines none of which holds one is only counted (C-speed), not split and decoded."""
    number = 0
    carry = b""
    skipping = False
    for chunk in chunks:
        data = carry + chunk
        cut = data.rfind(b"\n")
        complete, carry = (data[:cut], data[cut + 1 :]) if cut >= 0 else (b"", data)
        if cut >= 0:
            if anchors and not _holds(complete.lower(), anchors):
                number += complete.count(b"\n") + 1
                skipping = False
            else:
                for part in complete.split(b"\n"):
                    number += 1
                    if skipping:
                        skipping = False
                        continue
                    yield number, part[:_VERSION_LINE_BYTES].decode("utf-8", "replace")
        if len(carry) > _VERSION_LINE_BYTES:
            if not skipping:
                yield number + 1, carry[:_VERSION_LINE_BYTES].decode("utf-8", "replace")
            carry, skipping = b"", True
    if carry and not skipping:
        yield number + 1, carry.decode("utf-8", "replace")


def _gunzip_stream(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """The text of a gzip stream, decompressed chunk by chunk (each output piece at most a chunk):
    concatenated members are followed, and a stream cut short (a partial copy), corrupt, or followed by
    bytes that are no gzip member gives what it could decompress."""
    import zlib

    inflate: Any = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = b""  # bytes after a member's end, until it is known whether another member starts there
    for chunk in chunks:
        data = chunk
        while data:
            if inflate is None:
                pending += data
                if len(pending) < 2:
                    break
                if pending[:2] != b"\x1f\x8b":
                    return
                inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
                data, pending = pending, b""
            try:
                out = inflate.decompress(data, _VERSION_CHUNK_BYTES)
                if out:
                    yield out
                while inflate.unconsumed_tail:  # the output was capped: drain it in bounded pieces
                    out = inflate.decompress(inflate.unconsumed_tail, _VERSION_CHUNK_BYTES)
                    if out:
                        yield out
            except zlib.error:
                return
            if inflate.eof:
                data, inflate = inflate.unused_data, None
            else:
                data = b""
