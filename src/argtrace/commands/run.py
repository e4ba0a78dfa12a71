"""``argtrace run [OPTIONS] SCRIPT [SCRIPT_ARGS...]``: run the launch for real, intercept the server start."""

from __future__ import annotations

import argparse

from argtrace.commands import check as _check

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "run"
HELP = (
    "execute a launch script with the server start intercepted (argv, env, interpreter, version) "
    "and compare it with the static prediction"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _check.add_arguments(parser)
    parser.usage = (
        "argtrace run [OPTIONS] SCRIPT [SCRIPT_ARGS...] | argtrace run [OPTIONS] -c COMMAND [-- ARG0 ARGS...]"
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="give up waiting for the server start after this long (default: 60)",
    )
    parser.add_argument(
        "--no-stubs",
        action="store_true",
        help="run kill, pkill, killall, rm, ssh, scp, curl, wget, sleep and nvidia-smi for real",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the probe directory (captures, stub log, output)"
    )


split_argv = _check.split_argv
apply_rest = _check.apply_rest


def run(args: argparse.Namespace) -> Report:
    import sys

    from argtrace.check import CheckOptions, read_script, run_check
    from argtrace.model import UsageError
    from argtrace.probe import STUB_NAMES
    from argtrace.probe.runner import RunOptions, from_a_shell_on_the_node, run_launch
    from argtrace.remote.host import current_host

    # With --host the launch runs on the node (collector.run_probe over the ssh connection): the script, its
    # arguments, the files it reads and the environment it starts with are the node's.
    host = current_host()
    if args.timeout <= 0:
        raise UsageError("--timeout must be positive")
    options = CheckOptions.from_args(args)
    report = run_check(options)
    if args.command_string is not None:
        text = args.command_string
    else:
        data, _ = read_script(args.script)
        text = data.decode("utf-8", "replace")
    if args.no_stubs:
        where = f" on {host.label}" if host.is_remote else ""
        print(
            f"argtrace run --no-stubs: {', '.join(STUB_NAMES)} will run for real{where} if the script calls "
            "them",
            file=sys.stderr,
        )
    if options.server != 1:
        report.sections.setdefault("server", options.server)
    env = dict(options.env)
    if host.is_remote and not any(item.split("=", 1)[0] == "SHLVL" for item in args.env):
        env = from_a_shell_on_the_node(env)

    def as_the_release_that_ran(predicted: Report, captures: list[dict[str, object]]) -> Report:
        # The release the intercepted start imported decides the analysis (source "run"), as --url or a
        # log's version line would: analyse again when it is not the release the prediction used.
        from dataclasses import replace

        from argtrace.layers.observed_release import captured_release

        where = args.script or "<-c>"
        evidence = captured_release(predicted.framework.name, captures, where, options.server)
        if evidence is None or (
            evidence.version == predicted.framework.version and predicted.framework.source != "none"
        ):
            return predicted
        if options.framework_version is not None and evidence.version == options.framework_version:
            return predicted
        again = run_check(replace(options, extra={**options.extra, "observed_release": evidence}))
        if options.server != 1:
            again.sections.setdefault("server", options.server)
        return again

    report = run_launch(
        report,
        script=args.script,
        command_string=args.command_string,
        script_args=list(args.script_args),
        env=env,
        options=RunOptions(
            timeout=args.timeout, stubs=not args.no_stubs, keep=args.keep, show_secrets=args.show_secrets
        ),
        python=args.python,
        script_text=text,
        reanalyse=as_the_release_that_ran,
    )
    if env.get("SHLVL") != options.env.get("SHLVL"):
        report.notes.append(
            f"the launch ran as typed in a shell on {host.label} (SHLVL=1: bash does not source ~/.bashrc); "
            f"`--env SHLVL=0` runs it as `ssh {host.label} bash SCRIPT` does, after the node's ~/.bashrc"
        )
    return report
