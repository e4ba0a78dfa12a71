"""The ``argtrace`` command line: builds the parser from the command modules and renders their reports.

Start-up must stay fast (``--version``/``--help`` within 1.5x ``python -c pass``, bench/check_startup.py):
only ``argparse`` and the tiny command modules are imported here; each command imports what it needs
inside ``run``; ``--version`` answers before any parser exists, and only the chosen command's subparser
gets its arguments (the others are names and help lines).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Collection, Sequence
from types import ModuleType

from argtrace import __version__
from argtrace.commands import COMMAND_MODULES, QUICK_COMMANDS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # imported where used: `--version` needs none of them (argparse included)
    import argparse

    from argtrace.model import Report
    from argtrace.render.boundary import RedactingStream

EXIT_USAGE = 2


def _load_commands(names: Sequence[str] = COMMAND_MODULES) -> dict[str, ModuleType]:
    modules: dict[str, ModuleType] = {}
    for name in names:
        try:
            module = importlib.import_module(f"argtrace.commands.{name}")
        except ModuleNotFoundError as exc:
            # A command still being built in this checkout is simply absent from the CLI.
            if exc.name == f"argtrace.commands.{name}":
                continue
            raise
        modules[module.NAME] = module
    return modules


def _lone_command(words: Sequence[str], names: Collection[str]) -> str | None:
    """The command word when nothing but ``--host H``-style options come before it: its module and its
    subparser alone are all the parse needs. The other commands would show in no output (the usage line
    says COMMAND, the word is a valid choice) but cost an import and an ``ArgumentParser`` each, whose
    fixed texts argparse looks up through gettext (issue 18). Anything else there (``-h``, a typo) may
    print the top-level help or usage, which list every command: None."""
    from argtrace.remote.options import GLOBAL_OPTIONS_WITH_VALUE
    from argtrace.remote.options import command_index as command_index_of

    index = command_index_of(words, names)
    if index is None:
        return None
    before = words[:index]
    if all(before[i] in GLOBAL_OPTIONS_WITH_VALUE for i in range(0, len(before), 2)):
        return words[index]
    return None


def _common_options() -> argparse.ArgumentParser:
    import argparse

    from argtrace.help_format import HelpFormatter

    common = argparse.ArgumentParser(add_help=False, formatter_class=HelpFormatter)
    from argtrace.render import FORMATS

    common.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="output format (default: text; json, json-lines, sarif, junit: stable contracts, docs/ci.md)",
    )
    common.add_argument(
        "--show-secrets",
        action="store_true",
        help="print tokens, API keys and passwords as they are (default: <redacted:HASH8>)",
    )
    from argtrace.ci.controls import add_control_options

    add_control_options(common)  # --fail-on, --show-suppressed (argtrace/ci/controls.py)
    common.add_argument(
        "--verbose",
        action="store_true",
        help="list every finding that follows from another as a finding of its own (with `cause`: the "
        "index of the finding it follows from)",
    )
    return common


def build_parser(commands: dict[str, ModuleType], only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser; with ``only``, only that command's subparser gets its arguments (the one the
    words name: building the others is most of the start-up of a short command)."""
    import argparse

    from argtrace.help_format import HelpFormatter
    from argtrace.remote.options import add_host_options

    parser = argparse.ArgumentParser(
        prog="argtrace",
        description="What did the LLM inference server actually see? "
        "Follows every SGLang/vLLM setting from the launch script to the running server.",
        allow_abbrev=False,
        formatter_class=HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"argtrace {__version__}")
    # transport: global --host/--ssh-option (argtrace/remote/options.py)
    add_host_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = _common_options()
    for name, module in commands.items():
        command_parser = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            parents=[common],
            allow_abbrev=False,
            formatter_class=HelpFormatter,
        )
        if only is None or name == only:
            module.add_arguments(command_parser)
    return parser


def _parse(argv: list[str], commands: dict[str, ModuleType]) -> argparse.Namespace:
    from argtrace.remote.options import command_index as command_index_of

    command_index = command_index_of(argv, commands)
    if command_index is None:
        # no command word: top-level help or a usage error, which name the commands but none of their options
        return build_parser(commands, only="").parse_args(argv)
    chosen = argv[command_index]
    alone = _lone_command(argv, commands) == chosen
    parser = build_parser({chosen: commands[chosen]} if alone else commands, only=chosen)
    module = commands[chosen]
    splitter = getattr(module, "split_argv", None)
    if splitter is None:
        return parser.parse_args(argv)
    # Commands like ``check SCRIPT ARGS...`` own every word after their positional: argparse must not
    # see the script's arguments (``--port`` there belongs to the script, not to argtrace).
    subparser = _subparser(parser, argv[command_index])
    options, rest = splitter(argv[command_index + 1 :], subparser)
    args = parser.parse_args(argv[: command_index + 1] + options)
    module.apply_rest(args, rest, subparser)
    return args


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices[name]
    raise KeyError(name)


def _unchanged(text: str) -> str:
    return text


def render(report: Report, fmt: str, show_secrets: bool, verbose: bool = False) -> str:
    from argtrace.render import render_report

    return render_report(report, fmt=fmt, show_secrets=show_secrets, verbose=verbose)


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["--version"]:  # what argparse's version action prints, without building a parser
        sys.stdout.write(f"argtrace {__version__}\n")
        sys.stdout.flush()
        return 0
    if words in (["--help"], ["-h"]):  # the real parser's text, generated ahead (argtrace/static_help.py)
        from argtrace.static_help import top_level_help

        text = top_level_help()
        if text is not None:
            sys.stdout.write(text)
            sys.stdout.flush()
            return 0
    import gc

    # Start-up creates some 45,000 objects that live as long as the process (modules, classes, the
    # dataclasses' generated methods); the collector's default young-generation threshold (700) scans them
    # for cycles ~65 times in a short ``check``: 5% of its CPU (issue 18). Garbage cycles are still
    # collected, every 100,000 allocations; the previous thresholds are restored for in-process callers.
    thresholds = gc.get_threshold()
    gc.set_threshold(100_000, *thresholds[1:])
    from argtrace import import_finder

    # the modules imported from here on are looked for without building file names that are not there
    # (import_finder.py: ~4% of a short check)
    with import_finder.kept():
        return _main_kept(words, argv, thresholds)


def _main_kept(words: list[str], argv: Sequence[str] | None, thresholds: tuple[int, ...]) -> int:
    import contextlib
    import gc

    from argtrace import dataclass_code, gettext_once, regex_code
    from argtrace.deferred_stdlib import import_pathlib

    import_pathlib()  # without urllib.parse and ipaddress, which only Path.as_uri needs (1.4% of a check)

    command = next((w for w in words if w in COMMAND_MODULES), "argtrace")
    # a command that may read its words without argparse (QUICK_COMMANDS) enters gettext_once.kept() only
    # around the parser, if it needs one (_main): importing gettext would cost what the quick reading saves
    gettext_kept = (
        contextlib.nullcontext() if words[:1] and words[0] in QUICK_COMMANDS else gettext_once.kept()
    )
    try:
        # the dataclasses of the modules the command imports get their methods' compiled code from the store
        # kept between runs (dataclass_code.py): compiling it was a quarter of a short check's CPU time; the
        # regular expressions get their compiled programs the same way (regex_code.py), another 5%; and
        # argparse's messages look for their catalogue once (gettext_once.py)
        with dataclass_code.kept(command=command), regex_code.kept(command=command), gettext_kept:
            return _run_main(words)
    finally:
        if argv is None:
            # The console script (and ``python -m argtrace``): the interpreter exits right after, and its
            # shutdown would run full collections over every object left (~6% of a short check's
            # instructions). Frozen objects are skipped by them; atexit handlers (temporary directories'
            # clean-up) still run, and every file argtrace writes is closed by then.
            gc.freeze()
        else:
            gc.set_threshold(*thresholds)


def _run_main(words: list[str]) -> int:
    from argtrace.redact import new_run
    from argtrace.render.boundary import RedactingStream

    # The one boundary for everything but the report (which render_report redacts): usage errors, messages,
    # progress lines and exceptions' text on stderr are masked with the run's known secrets.
    with new_run(words) as redactor:
        real_stderr = sys.stderr
        stream = RedactingStream(real_stderr, redactor.text)
        sys.stderr = stream
        try:
            return _main(words, stream)
        except Exception:
            # ARGTRACE_DEBUG=1 (or a failure before the command runs): the traceback the interpreter would
            # print after main() returns would bypass the boundary, so it is printed here, masked.
            if stream.scrub is _unchanged:  # --show-secrets
                raise
            import traceback

            stream.write(traceback.format_exc())
            return 1  # what an uncaught exception exits with
        finally:
            stream.flush()
            sys.stderr = real_stderr


def _quick_args(words: list[str]) -> tuple[dict[str, ModuleType], argparse.Namespace] | None:
    """The command's module and namespace when the command word comes first and its module reads the rest
    without argparse (``quick_parse``, argtrace/quick_argv.py), else None."""
    if not (words[:1] and words[0] in QUICK_COMMANDS):
        return None
    commands = _load_commands(words[:1])
    quick = getattr(commands.get(words[0]), "quick_parse", None)
    args = quick(words[1:]) if quick is not None else None
    return None if args is None else (commands, args)


def _main(words: list[str], stream: RedactingStream) -> int:
    quick = _quick_args(words)
    if quick is not None:
        commands, args = quick
    else:
        from argtrace import gettext_once

        lone = _lone_command(words, COMMAND_MODULES)  # a module's name is its command's NAME
        commands = (_load_commands((lone,)) if lone is not None else {}) or _load_commands()
        try:
            with gettext_once.kept():  # within _main_kept's own (a no-op) unless it skipped it
                args = _parse(words, commands)
        except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
            return int(exc.code or 0)
    if getattr(args, "show_secrets", False):
        stream.scrub = _unchanged  # the opt-out covers stderr too; control characters stay escaped
    if not getattr(args, "command", None):
        build_parser(commands, only="").print_help(sys.stderr)
        return EXIT_USAGE
    module = commands[args.command]
    from argtrace.model import UsageError
    from argtrace.remote.options import host_context

    try:
        with host_context(args):  # transport: --host runs the command against a node over ssh
            from argtrace.usage import check_common_options

            check_common_options(args, remote=bool(getattr(args, "host", None)))
            from argtrace.ci.config import apply_config

            config = apply_config(
                args
            )  # .argtrace.toml / [tool.argtrace]: options the command line left unset
            report = module.run(args)
            if not isinstance(report, int):
                from argtrace.ci.controls import apply_controls

                # suppression comments, configured rules, --baseline, --fail-on (docs/ci.md)
                status = apply_controls(report, args, config)
    except UsageError as exc:
        print(f"argtrace {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # never a traceback for the user, unless asked for
        if os.environ.get("ARGTRACE_DEBUG"):
            raise
        print(
            f"argtrace {args.command}: internal error: {type(exc).__name__}: {exc}\n"
            "(set ARGTRACE_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if isinstance(report, int):
        return report
    sys.stdout.write(render(report, args.format, args.show_secrets, getattr(args, "verbose", False)))
    sys.stdout.flush()
    return status


if __name__ == "__main__":
    raise SystemExit(main())
