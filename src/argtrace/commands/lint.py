"""``argtrace lint [OPTIONS] [PATH...]``: every launch file under the paths, one report, one exit status."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "lint"
HELP = (
    "check every launch file under the paths (scripts that start a server, SLURM batch scripts, compose, "
    "Kubernetes and rendered Helm manifests) without script arguments: one report, one exit status"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="files (always checked) and directories (default: .)"
    )
    parser.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="check N files at a time")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a variable in every file's starting environment (repeatable)",
    )
    parser.add_argument("--clean-env", action="store_true", help="start from an empty environment")
    parser.add_argument("--framework", choices=("sglang", "vllm"), help="framework (default: detected)")
    parser.add_argument("--framework-version", metavar="V", help="framework version for every file")
    parser.add_argument("--python", metavar="PATH", help="the interpreter the servers would run")
    parser.add_argument("--model-config", metavar="DIR|config.json", help="the model's config.json")
    parser.add_argument("--gpu", metavar="NAME[xCOUNT]", help="GPU profile, e.g. h100x8")
    parser.add_argument("--no-shellcheck", action="store_true", help="do not run shellcheck")
    parser.add_argument("--no-resolve", action="store_true", help="skip the resolution layer")


def run(args: argparse.Namespace) -> Report:
    import os

    from argtrace.check_options import CheckOptions, starting_environment
    from argtrace.ci.lint import ARGS_UNKNOWN, check_files, find_launch_files, merge
    from argtrace.model import UsageError

    if args.jobs < 1:
        raise UsageError(f"--jobs needs a positive number, got {args.jobs}")
    files = find_launch_files(args.paths)
    options = CheckOptions(
        script=None,
        script_args=(),
        command_string=None,
        env=starting_environment(os.environ, args.env, clean=args.clean_env),
        framework=args.framework,
        framework_version=args.framework_version,
        python=args.python,
        model_config=args.model_config,
        gpu=args.gpu,
        run_shellcheck=not args.no_shellcheck,
        resolve=not args.no_resolve,
        args_unknown=ARGS_UNKNOWN,
    )
    return merge(check_files(files, options, args.jobs))
