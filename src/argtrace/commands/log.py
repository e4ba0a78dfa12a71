"""``argtrace log LOG``: what an SGLang/vLLM server's log says it saw, where start-up stopped, and why."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: plain words are read without argparse (quick_parse)
    import argparse
    from typing import Any

    from argtrace.model import Report
    from argtrace.quick_argv import Spec

NAME = "log"
HELP = (
    "read an SGLang/vLLM server log: launches, configuration it logged, start-up timeline, errors explained"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", metavar="LOG", help="the server's log file (plain or .gz)")
    parser.add_argument(
        "--launch",
        default=None,
        metavar="N|all",
        help="which launch of an append-mode log to analyse "
        "(1-based, negative from the end; default: the last)",
    )
    parser.add_argument(
        "--launched-after",
        metavar="TIME",
        help="ISO 8601 time the launch you care about happened after: older launches are reported as stale",
    )
    parser.add_argument("--framework", choices=("sglang", "vllm"), help="framework (default: detected)")
    parser.add_argument(
        "--expect",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting (dest name) and the value you intended; "
        "compared with what the log shows (repeatable)",
    )
    parser.add_argument(
        "--setting",
        metavar="TEXT",
        help="list the logged settings whose name contains TEXT (e.g. mamba_scheduler)",
    )
    parser.add_argument("--all-settings", action="store_true", help="list every setting the log shows")


# add_arguments' options for argtrace/quick_argv.py, in their order (tests/test_quick_argv.py derives them
# from the parser): (dest, action, option string or None for a positional, default, choices)
QUICK_SPECS: tuple[Spec, ...] = (
    ("log", "store", None, None, None),
    ("launch", "store", "--launch", None, None),
    ("launched_after", "store", "--launched-after", None, None),
    ("framework", "store", "--framework", None, ("sglang", "vllm")),
    ("expect", "append", "--expect", [], None),
    ("setting", "store", "--setting", None, None),
    ("all_settings", "store_true", "--all-settings", False, None),
)


def quick_parse(words: list[str]) -> argparse.Namespace | None:
    """The namespace of ``log`` + ``words`` when they are plain, without argparse (argtrace/quick_argv.py)."""
    from argtrace.quick_argv import common_specs, parse

    return parse(NAME, words, (*common_specs(), *QUICK_SPECS))


def _expectations(items: list[str]) -> dict[str, Any]:
    from argtrace.model import UsageError

    out: dict[str, Any] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"--expect takes NAME=VALUE, not {item!r}")
        name, value = item.split("=", 1)
        name = name.strip().lstrip("-").replace("-", "_")
        if not name:
            raise UsageError(f"--expect takes NAME=VALUE, not {item!r}")
        out[name] = value
    return out


def run(args: argparse.Namespace) -> Report:
    from argtrace.layers.log.layer import analyze_log, parse_time
    from argtrace.model import FrameworkInfo, Report, Setting, UsageError
    from argtrace.remote.host import current_host

    host = current_host()  # the node under `argtrace --host`: the path is the node's
    path = args.log
    host.regular_file(path, what="log file")  # a FIFO or /dev/zero is refused, never opened
    launched_after = None
    if args.launched_after:
        try:
            launched_after = parse_time(args.launched_after)
        except ValueError:
            raise UsageError(
                f"--launched-after {args.launched_after!r}: not an ISO 8601 time (e.g. 2026-11-30T08:00:00)"
            ) from None
    intended = _expectations(args.expect)
    if getattr(args, "format", "text") == "text":
        from argtrace.layers.log.text import register

        register()
    launch: int | str | None = args.launch
    result = analyze_log(
        path,
        args.log,
        intended=intended or None,
        framework=args.framework,
        launched_after=launched_after,
        launch=launch,
        show_secrets=bool(getattr(args, "show_secrets", False)),
    )
    log_section = result.sections.get("log", {})
    report = Report(command="log")
    fw = log_section.get("framework")
    report.framework = FrameworkInfo(
        name=fw if fw in ("sglang", "vllm") else None,
        version=log_section.get("version"),
        source="log" if fw else None,
    )
    # one finding per cause, as check folds them (argtrace/causes.py): LG001 "died before it logged its
    # configuration" quotes the exception LG011/LG007 reports, and is what follows from it (same-raise)
    from argtrace.causes import fold_causes

    report.findings = list(result.findings)
    report.findings = fold_causes(report)
    report.sections.update(result.sections)
    wanted = {f.setting for f in result.findings if f.setting} | set(intended)
    for name, (flag, observations) in result.observations.items():
        keep = (
            args.all_settings
            or name in wanted
            or (args.setting is not None and args.setting.replace("-", "_") in name)
        )
        if not keep:
            continue
        report.settings.append(
            Setting(name=name, flag=flag, intended=intended.get(name), history=list(observations))
        )
    for name, value in intended.items():
        if report.setting(name) is None:
            report.settings.append(Setting(name=name, flag="--" + name.replace("_", "-"), intended=value))
    if args.setting is not None and not any(
        args.setting.replace("-", "_") in s.name for s in report.settings
    ):
        chosen = log_section.get("selected") or []
        report.notes.append(
            f"no setting containing {args.setting!r} in launch {chosen[-1] if chosen else '-'} of {args.log}"
            + (" (it never logged its configuration)" if not log_section.get("args") else "")
        )
    launches = log_section.get("launches") or []
    if len(launches) > 1:
        report.notes.append(
            f"{args.log} holds {len(launches)} launches; showing {log_section.get('selected')} (--launch "
            "N|all)"
        )
    return report
