"""The release from what actually ran, as evidence that decides the analysis (``frameworks/release.py``).

``check --url URL``: the version SGLang's ``/server_info`` (or ``/get_server_info``) or vLLM's ``/version``
reports (source ``live``). ``check --pid N|auto``: the framework version the running process imports
(source ``process``). ``run``: the version the intercepted server start imported (source ``run``, handed
in by ``commands/run.py`` as ``extra["observed_release"]`` when it analyses the launch again after the
capture). Each is observed, so it outranks the installed package, an image tag and a pip line; a
``--framework-version`` that contradicts it is a conflict (PR010), as for any evidence.

The live snapshot fetched here is kept in ``extra["live_snapshot"]`` (when ``extra`` is a dict, as
``CheckOptions.from_args`` makes it) so that the live layer compares the same answer instead of asking the
server twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from argtrace.frameworks.release import ReleaseEvidence
from argtrace.model import ServerCommand, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from argtrace.layers.live import LiveSnapshot
else:
    Protocol = object  # the classes below are only annotations: no typing at run time


class _Options(Protocol):
    @property
    def extra(self) -> Mapping[str, object]: ...


def observed_release_evidence(
    framework: str, server: ServerCommand, options: _Options
) -> list[ReleaseEvidence]:
    """Evidence of the running release from ``--url``, ``--pid`` and a ``run`` capture, strongest first."""
    extra = options.extra
    found: list[ReleaseEvidence] = []
    given = extra.get("observed_release")
    if isinstance(given, ReleaseEvidence):
        found.append(given)
    url = extra.get("url")
    if isinstance(url, str) and url:
        snap = live_snapshot(url, server, extra)
        if snap.framework == framework and snap.version:
            path = snap.server_info_path or "/version"
            at = f"{snap.url}{path}#/version"
            found.append(ReleaseEvidence(snap.version, "live", at, f"{path} reports version {snap.version}"))
    pid = extra.get("pid")
    if pid is not None and pid != "":
        version, at = _process_release(str(pid), framework)
        if version is not None:
            found.append(
                ReleaseEvidence(version, "process", at, f"the running process imports {framework} {version}")
            )
    return found


def live_snapshot(url: str, server: ServerCommand, extra: Mapping[str, object]) -> LiveSnapshot:
    """What the server at ``url`` answers, fetched once per check (kept in ``extra``)."""
    from argtrace.layers.live import LiveSnapshot, fetch_live, launch_api_key

    kept = extra.get("live_snapshot")
    if isinstance(kept, LiveSnapshot):
        return kept
    api_key = extra.get("api_key")
    timeout = extra.get("url_timeout")
    snap = fetch_live(
        url,
        api_key=api_key if isinstance(api_key, str) else launch_api_key(server.argv_text),
        insecure=bool(extra.get("insecure")),
        timeout=float(timeout) if isinstance(timeout, (int, float)) else 5.0,
    )
    if isinstance(extra, dict):
        extra["live_snapshot"] = snap
    return snap


def _process_release(pid: str, framework: str) -> tuple[str | None, str]:
    """(the version the process imports, ``pid:N``); None when it cannot be read. A pid that does not
    exist or ``auto`` that finds no single server is left to the observed layer, which says so (exit 2)."""
    from argtrace.layers.observed import resolve_pid

    try:
        observed = resolve_pid(pid, framework)
    except UsageError:
        return None, f"pid:{pid}"
    if observed.framework not in (None, framework):
        return None, f"pid:{observed.pid}"
    return observed.framework_version, f"pid:{observed.pid}"


def captured_release(
    framework: str | None, captures: Sequence[Mapping[str, Any]], where: str, chosen: int = 1
) -> ReleaseEvidence | None:
    """The release the ``chosen`` (1-based) intercepted server start of a ``run`` imported."""
    if not framework or not 1 <= chosen <= len(captures):
        return None
    capture = captures[chosen - 1]
    version = capture.get("framework_version")
    if capture.get("framework") not in (None, framework) or not isinstance(version, str) or not version:
        return None
    at = f"{where}#capture{chosen}"
    return ReleaseEvidence(version, "run", at, f"the real run imports {framework} {version}")
