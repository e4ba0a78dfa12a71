"""``argtrace ps``: the SGLang and vLLM server processes running on this machine, with their workers."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "ps"
HELP = (
    "list running SGLang/vLLM servers: pid, start time, argv, environment (redacted), interpreter, ports, "
    "version"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--framework", choices=("sglang", "vllm"), help="only servers of this framework")
    parser.add_argument(
        "--pid", type=int, metavar="N", help="only this process (a worker's pid shows its server)"
    )
    parser.add_argument(
        "--all-env",
        action="store_true",
        help="show the whole start environment (default: framework, CUDA, NCCL, HF and Python variables)",
    )


def run(args: argparse.Namespace) -> Report:
    from argtrace.layers.observed import find_servers, process_section, resolve_pid
    from argtrace.model import Report
    from argtrace.remote.host import current_host

    # find_servers/resolve_pid read the node's /proc under `argtrace --host` (transport.processes)
    host = current_host()
    where = f" on {host.label}" if host.is_remote else ""
    servers = [resolve_pid(args.pid)] if args.pid is not None else find_servers(args.framework)
    report = Report(command="ps")
    sections = [process_section(s, show_secrets=args.show_secrets, all_env=args.all_env) for s in servers]
    report.sections["processes"] = sections
    if not servers:
        report.notes.append(
            f"no SGLang or vLLM server process is running{where}"
            if args.pid is None
            else f"pid {args.pid} is not an SGLang or vLLM server{where}"
        )
    for item in sections:
        ports = ", ".join(item["listening"]) or "no listening socket"
        version = f" {item['framework_version']}" if item["framework_version"] else ""
        head = f"pid {item['pid']}  {item['framework'] or '?'}{version}  started {item['started']}  {ports}"
        report.notes.append(head)
        report.notes.append("    " + " ".join(w if w is not None else "<unknown>" for w in item["argv"]))
        if item["interpreter"]:
            py = f" (Python {item['python_version']})" if item["python_version"] else ""
            report.notes.append(f"    interpreter {item['interpreter']}{py}, cwd {item['cwd']}")
        for child in item["children"]:
            report.notes.append(f"    └─ pid {child['pid']}  {child['role']}  {child['title']}")
        if item["env"]:
            shown = " ".join(f"{k}={v}" for k, v in sorted(item["env"].items()) if k not in ("PATH",))
            if shown:
                report.notes.append(f"    env (at start): {shown}")
    return report
