"""``check --pid N|auto`` and ``check --url URL``: the running server, compared with the prediction.

``check`` never attaches to a process or queries a server unasked: these layers run only when ``--pid`` or
``--url`` is given. Wiring (three calls in ``commands/check.py`` and ``check.py``)::

    add_check_options(parser)                                  # commands/check.py (the options)
    CheckOptions(..., extra={..., **check_extra(args)})         # CheckOptions.from_args
    results += analyze_running(server, options, report, results)  # check._check_servers, before fold_settings

The results fold like any layer's: the observed process values and the live values come after the parser's
in each setting's history (they are what the server really got / reports), findings and sections
(``observed_process``, ``live``) are added as usual.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from argtrace.model import LayerResult, Report, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol
else:
    Protocol = object  # the classes below are only annotations: no typing at run time


class _Options(Protocol):
    @property
    def script(self) -> str | None: ...
    @property
    def python(self) -> str | None: ...
    @property
    def extra(self) -> Mapping[str, object]: ...


def check_extra(args: argparse.Namespace) -> dict[str, object]:
    """What ``CheckOptions.extra`` must carry for :func:`analyze_running`; :class:`UsageError` (exit 2,
    before any analysis) for a ``--pid``, ``--url`` or ``--url-timeout`` that cannot be used."""
    from argtrace.model import UsageError

    pid = getattr(args, "pid", None)
    if isinstance(pid, str) and pid.strip().lower() != "auto":
        from argtrace.layers.observed import parse_pid

        parse_pid(pid)
    url = getattr(args, "url", None)
    if isinstance(url, str):
        from argtrace.layers.live import normalise_url

        if not url.strip():
            raise UsageError("--url: empty URL")
        try:
            normalise_url(url)
        except UsageError as exc:
            raise UsageError(f"--url {exc}") from None
    timeout = getattr(args, "live_timeout", 5.0)
    if isinstance(timeout, float) and not 0 < timeout <= 86400:  # NaN and inf too
        raise UsageError(
            f"--url-timeout must be a number of seconds above 0 and at most 86400, got {timeout:g}"
        )
    return {
        "pid": getattr(args, "pid", None),
        "url": getattr(args, "url", None),
        "api_key": getattr(args, "api_key", None),
        "insecure": bool(getattr(args, "insecure", False)),
        "url_timeout": getattr(args, "live_timeout", 5.0),
        "show_secrets": bool(getattr(args, "show_secrets", False)),
    }


def intended_values(results: Sequence[LayerResult]) -> dict[str, Any]:
    """The intended value of every setting the earlier layers know (names the framework does not know
    are left out: there is nothing to compare them with)."""
    intended: dict[str, Any] = {}
    unknown: set[str] = set()
    for result in results:
        intended.update(result.intended)
        unknown |= result.unknown_settings
    return {k: v for k, v in intended.items() if k not in unknown}


def analyze_running(
    server: ServerCommand, options: _Options, report: Report, results: Sequence[LayerResult]
) -> list[LayerResult]:
    extra = options.extra
    show_secrets = bool(extra.get("show_secrets"))
    out: list[LayerResult] = []
    pid = extra.get("pid")
    if pid is not None and pid != "":
        from argtrace.frameworks.installed import server_interpreter
        from argtrace.layers.observed import analyze_pid

        out.append(
            analyze_pid(
                pid if isinstance(pid, (int, str)) else str(pid),
                server,
                assumed_version=report.framework.version,
                script=options.script,
                predicted_interpreter=server_interpreter(server, options.python),
                show_secrets=show_secrets,
            )
        )
        report.notes.append(
            "--pid: the environment compared is the process's start environment (/proc/PID/environ); "
            "changes it made to itself later are not visible"
        )
    url = extra.get("url")
    if isinstance(url, str) and url:
        from argtrace.layers.live import LiveSnapshot, analyze_live

        timeout = extra.get("url_timeout")
        api_key = extra.get("api_key")
        kept = extra.get("live_snapshot")  # fetched when the release was decided from it
        out.append(
            analyze_live(
                url,
                intended=intended_values(results),
                framework=report.framework.name or server.framework,
                version=report.framework.version,
                api_key=api_key if isinstance(api_key, str) else None,
                launch_argv=server.argv_text,
                insecure=bool(extra.get("insecure")),
                timeout=float(timeout) if isinstance(timeout, (int, float)) else 5.0,
                show_secrets=show_secrets,
                snapshot=kept if isinstance(kept, LiveSnapshot) else None,
            )
        )
    return out
