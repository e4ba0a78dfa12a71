"""``argtrace fleet``: what each running replica got, and the settings the replicas disagree on."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import Report

NAME = "fleet"
HELP = "line up several running replicas (--url, --host, --kube) and report the settings they disagree on"
MAX_TARGETS = 256  # a fleet read from the command line; more is a loop gone wrong


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from argtrace.commands.live import add_live_options

    parser.add_argument(
        "--url", action="append", default=[], metavar="URL", help="a server's base URL (repeatable)"
    )
    parser.add_argument(
        "--host",
        dest="fleet_hosts",
        action="append",
        default=[],
        metavar="[USER@]HOST[:PORT]",
        help="a node whose SGLang/vLLM processes are read over ssh, as --host ps does (repeatable); "
        "ssh options: argtrace --ssh-option NAME=VALUE fleet ...",
    )
    parser.add_argument(
        "--kube",
        action="store_true",
        help="read pods through the Kubernetes API (needs the kubernetes package: argtrace[kube])",
    )
    parser.add_argument("--context", metavar="C", help="--kube: the kubeconfig context (default: current)")
    parser.add_argument(
        "-n", "--namespace", metavar="NS", help="--kube: the namespace (default: the context's, else default)"
    )
    parser.add_argument(
        "-l", "--selector", metavar="SELECTOR", help="--kube: a label selector, e.g. app=vllm"
    )
    parser.add_argument("--kubeconfig", metavar="FILE", help="--kube: the kubeconfig (default: $KUBECONFIG)")
    parser.add_argument(
        "--intent", metavar="FILE", help="also compare each replica with the settings this launch file gives"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=8,
        metavar="N",
        help="how many targets are read at once (default: 8)",
    )
    add_live_options(parser)  # --api-key, --insecure, --timeout (per request, and per host)


def run(args: argparse.Namespace) -> Report:
    from argtrace.layers.fleet.analysis import analyze_fleet, replica_dict
    from argtrace.layers.fleet.read import read_fleet
    from argtrace.model import Report, UsageError

    if not args.url and not args.fleet_hosts and not args.kube:
        raise UsageError("give at least one target: --url URL, --host HOST or --kube -l SELECTOR")
    if args.kube and not args.selector:
        raise UsageError("--kube needs a label selector: -l SELECTOR (e.g. -l app=vllm)")
    if not args.kube and (args.selector or args.context or args.namespace or args.kubeconfig):
        raise UsageError("--context, -n, -l and --kubeconfig go with --kube")
    if len(args.url) + len(args.fleet_hosts) > MAX_TARGETS:
        raise UsageError(f"at most {MAX_TARGETS} --url/--host targets")
    if not 1 <= args.jobs <= 64:
        raise UsageError(f"--jobs must be 1 to 64, got {args.jobs}")
    if not 0 < args.live_timeout <= 86400:  # NaN and inf too
        raise UsageError(
            f"--timeout must be a number of seconds above 0 and at most 86400, got {args.live_timeout:g}"
        )
    intent = read_intent(args.intent) if args.intent else None
    replicas, unanswered = read_fleet(args)
    result = analyze_fleet(replicas, unanswered, intent)
    report = Report(command="fleet")
    report.sections["replicas"] = [replica_dict(r) for r in replicas]
    report.sections["fleet"] = {
        "groups": result.groups,
        "unanswered": [{"target": u.target, "kind": u.kind, "why": u.why} for u in unanswered],
        **({"intent": {"file": intent[0], "framework": intent[1], "settings": intent[2]}} if intent else {}),
    }
    report.sections["drift"] = result.drift
    report.findings.extend(result.findings)
    n = len(replicas)
    report.notes.append(
        f"{n} replica(s) in {len(result.groups)} group(s); {len(unanswered)} target(s) did not answer"
    )
    return report


def read_intent(path: str) -> tuple[str, str, dict[str, Any]]:
    """``--intent FILE``: (label, framework, field -> value) the file gives its first server, as
    ``argtrace check`` reads it without resolving (transport, shell, process and parser layers: a script,
    a compose file or a Kubernetes manifest alike). :class:`UsageError` when it starts no server."""
    import os

    from argtrace.check import CheckOptions, run_check
    from argtrace.model import UsageError

    options = CheckOptions(
        script=path,
        script_args=(),
        command_string=None,
        env=dict(os.environ),
        resolve=False,
        run_shellcheck=False,
    )
    report = run_check(options)
    if not report.servers:
        raise UsageError(f"--intent {path}: no SGLang or vLLM server start was found in it")
    wanted: dict[str, Any] = {}
    for setting in report.settings:
        seen = [o for o in setting.history if o.layer == "parser" and o.known]
        if seen and not setting.unknown_to_framework:
            wanted[setting.name] = seen[-1].value
    return path, report.servers[0].framework, wanted
