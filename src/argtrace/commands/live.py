"""``argtrace live URL``: what a running SGLang or vLLM server reports about its configuration."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "live"
HELP = "read what a running SGLang/vLLM server reports (/server_info, /v1/models, /version, /metrics)"


def add_live_options(parser: argparse.ArgumentParser, *, timeout_flag: str = "--timeout") -> None:
    """The connection options, shared with ``check --url`` (which names the timeout ``--url-timeout``)."""
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help="bearer token for a server started with --api-key (never printed; "
        "check --url uses the launch's own --api-key by default)",
    )
    parser.add_argument(
        "--insecure", action="store_true", help="HTTPS: do not verify the certificate (self-signed servers)"
    )
    parser.add_argument(
        timeout_flag,
        dest="live_timeout",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="per-request timeout for the server's endpoints (default: 5)",
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("url", metavar="URL", help="the server, e.g. http://127.0.0.1:30000")
    add_live_options(parser)
    parser.add_argument(
        "--framework",
        choices=("sglang", "vllm"),
        help="the framework you expect there (a server of the other one is an error)",
    )
    parser.add_argument("--framework-version", metavar="V", help="the version you expect there")
    parser.add_argument(
        "--expect",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting you intended (dest name, e.g. max_running_requests=64); repeatable",
    )
    parser.add_argument(
        "--all-settings",
        action="store_true",
        help="include every top-level value the server reports in the JSON section",
    )


def run(args: argparse.Namespace) -> Report:
    from argtrace.check import fold_settings
    from argtrace.layers.live import analyze_live, fetch_live
    from argtrace.model import FrameworkInfo, Report, UsageError

    intended: dict[str, str] = {}
    for item in args.expect:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"--expect needs NAME=VALUE, got {item!r}")
        intended[name.strip().lstrip("-").replace("-", "_")] = value
    if not 0 < args.live_timeout <= 86400:  # NaN and inf too: a timer cannot wait for those
        raise UsageError(
            f"--timeout must be a number of seconds above 0 and at most 86400, got {args.live_timeout:g}"
        )
    snap = fetch_live(args.url, api_key=args.api_key, insecure=args.insecure, timeout=args.live_timeout)
    result = analyze_live(
        args.url,
        intended=intended,
        framework=args.framework,
        version=args.framework_version,
        api_key=args.api_key,
        insecure=args.insecure,
        timeout=args.live_timeout,
        show_secrets=args.show_secrets,
        all_settings=args.all_settings,
        snapshot=snap,
    )
    report = Report(command="live")
    if snap.framework is not None:
        report.framework = FrameworkInfo(name=snap.framework, version=snap.version, source="live")  # type: ignore[arg-type]
    report.settings = fold_settings([result])
    report.findings.extend(result.findings)
    report.sections.update(result.sections)
    from argtrace.remote.host import current_host

    if current_host().is_remote:
        report.notes.append(f"{snap.url} was read from {current_host().label}, as that node sees it")
    return report
