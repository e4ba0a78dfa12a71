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

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from argtrace.model import LayerResult, Report, ServerCommand, UsageError

if TYPE_CHECKING:
    from argtrace.frameworks.release import ReleaseEvidence


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
    )
    if launched_after is not None and label != "--launched-after":
        report.notes.append(
            f"--log: launches of {options.log} that started before {label} "
            f"({launched_after.isoformat(sep=' ', timespec='seconds')}) are reported as stale "
            "(pass --launched-after to choose the time)"
        )
    return [result]


# A version line is printed at start-up; reading the first and last few MB finds the latest launch's in a
# log of any size without scanning it all (the log layer itself reads the whole file later).
_VERSION_SCAN_BYTES = 4 * 1024 * 1024


def logged_release(path: str, framework: str) -> ReleaseEvidence | None:
    """The release the log's latest launch printed (``sglang==0.5.10.post1``, ``vLLM API server version
    0.11.0``), as evidence for ``frameworks/release.py``; None when no version line is found or the file is
    not a readable regular file. Read through the host, so under ``--host`` it is the node's log; a gzip
    log (``.gz`` or gzip magic) is decompressed from its start (the first few MB of text: a rotated log's
    version line is near its start, and its end cannot be reached without decompressing it all)."""
    import base64
    import re

    from argtrace.frameworks.release import ReleaseEvidence
    from argtrace.layers.log.analyze import _SGL_VERSION, _VLLM_CONFIG, _VLLM_VERSION
    from argtrace.remote.host import HostError, current_host
    from argtrace.remote.ssh import TransportError

    host = current_host()

    def read(offset: int, limit: int) -> bytes:
        return base64.b64decode(host.call("read", path=path, offset=offset, limit=limit)["data"])

    try:
        st = host.stat(path)
        if not st.exists or not st.is_file:
            return None  # never opened: a FIFO would block, a device never ends
        size = st.size or 0
        head = read(0, _VERSION_SCAN_BYTES)
        tail = b""
        gzipped = head[:2] == b"\x1f\x8b"
        if gzipped:
            head = _gunzip_head(head, _VERSION_SCAN_BYTES)
        elif size > 2 * _VERSION_SCAN_BYTES:
            tail = read(size - _VERSION_SCAN_BYTES, _VERSION_SCAN_BYTES)
        elif size > _VERSION_SCAN_BYTES:
            tail = read(_VERSION_SCAN_BYTES, _VERSION_SCAN_BYTES)
    except (HostError, TransportError, OSError):
        return None
    patterns: list[re.Pattern[str]] = (
        [_SGL_VERSION] if framework == "sglang" else [_VLLM_VERSION, _VLLM_CONFIG]
    )
    best: tuple[int, str, str] | None = None
    text = (head + b"\n" + tail).decode("utf-8", "replace")
    for pattern in patterns:
        for match in pattern.finditer(text):
            version = next((g for g in match.groups() if g), None)
            if version and (best is None or match.start() > best[0]):
                best = (match.start(), version, match.group(0).strip())
    if best is None:
        return None
    line = text.count("\n", 0, best[0]) + 1 if best[0] < len(head) else None
    label = host.describe(path) if host.is_remote else path
    at = f"{label}:{line}" if line is not None else label
    return ReleaseEvidence(best[1], "log", at, f"the log's `{best[2]}`")


def _gunzip_head(data: bytes, limit: int) -> bytes:
    """Up to ``limit`` bytes of the text a gzip stream's first ``len(data)`` bytes hold: concatenated
    members are followed, and a stream cut short (a partial copy) gives what it could decompress."""
    import zlib

    out = bytearray()
    rest = data
    while rest[:2] == b"\x1f\x8b" and len(out) < limit:
        inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out += inflate.decompress(rest, limit - len(out))
        except zlib.error:
            break
        if not inflate.eof:
            break
        rest = inflate.unused_data
    return bytes(out[:limit])
