"""``argtrace check [OPTIONS] SCRIPT [SCRIPT_ARGS...]`` and ``argtrace check -c COMMAND [-- $0 $1 ...]``."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "check"
HELP = "predict what an SGLang/vLLM server will receive from a launch script or command, layer by layer"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.usage = (
        "argtrace check [OPTIONS] SCRIPT [SCRIPT_ARGS...]\n"
        "       argtrace check [OPTIONS] -c COMMAND [-- ARG0 ARGS...]"
    )
    parser.add_argument(
        "-c",
        dest="command_string",
        metavar="COMMAND",
        help="analyse this command line instead of a script (as bash -c)",
    )
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a variable in the starting environment (repeatable; KEY= is empty, not unset)",
    )
    parser.add_argument(
        "--clean-env",
        action="store_true",
        help="start from an empty environment (no PATH either); --env applies after it",
    )
    parser.add_argument(
        "--framework", choices=("sglang", "vllm"), help="framework (default: detected from the command)"
    )
    parser.add_argument(
        "--framework-version",
        metavar="V",
        help="framework version (default: installed, else the newest bundled)",
    )
    parser.add_argument(
        "--server",
        type=int,
        default=1,
        metavar="N",
        help="which server start to describe when the script has several (1-based; default 1)",
    )
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="the interpreter the server would run (for the installed framework version and the resolver)",
    )
    parser.add_argument(
        "--model-config",
        metavar="DIR|config.json",
        help="the model's config.json (for the resolution and memory layers)",
    )
    parser.add_argument(
        "--fetch-config",
        action="store_true",
        help="download the model's config.json (that file alone, never weights) from the Hugging Face Hub "
        "when the launch names a repo id with no copy here (HF_ENDPOINT, HF_TOKEN)",
    )
    parser.add_argument(
        "--gpu",
        metavar="NAME[xCOUNT]",
        help="GPU profile for resolution and memory, e.g. h100x8, rtx-pro-6000x4 (a bare NAME: as many "
        "as the launch needs); a GPU without a profile as nvidia-smi prints it: 'NAME, 16376 MiB, 8.9x2' "
        "(--query-gpu=name,memory.total,compute_cap --format=csv,noheader)",
    )
    parser.add_argument(
        "--log", metavar="LOG", help="the server's startup log, to compare with the intended configuration"
    )
    parser.add_argument(
        "--launched-after", metavar="TIME", help="ISO 8601 time the launch happened after (log staleness)"
    )
    parser.add_argument(
        "--all-settings", action="store_true", help="list every setting, not only the ones a layer touched"
    )
    parser.add_argument(
        "--no-shellcheck", action="store_true", help="do not run shellcheck as a second opinion"
    )
    parser.add_argument(
        "--no-resolve",
        action="store_true",
        help="skip the resolution layer even when a resolver environment exists",
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="run the resolver even when the same inputs were resolved before (resolver/cache.py)",
    )
    # transport: select one service / container of a docker compose file or Kubernetes manifest
    parser.add_argument("--service", metavar="NAME", help="compose file: analyse only this service")
    parser.add_argument(
        "--container", metavar="NAME", help="Kubernetes manifest: analyse only this container"
    )
    add_check_options(parser)  # --pid, --url and their connection options (layers/running.py reads them)
    # Filled by apply_rest from the words argparse never sees.
    parser.set_defaults(script=None, script_args=[])


def add_check_options(parser: argparse.ArgumentParser) -> None:
    """``--pid``, ``--url`` and their connection options (those of ``argtrace live``). Defined here, not
    beside :func:`argtrace.layers.running.analyze_running`: a layer never imports a command."""
    from argtrace.commands.live import add_live_options

    parser.add_argument(
        "--pid",
        metavar="N|auto",
        help="compare with this running server process (auto: the only one running); /proc environ is the "
        "start environment",
    )
    parser.add_argument("--url", metavar="URL", help="compare with what the running server reports there")
    add_live_options(parser, timeout_flag="--url-timeout")


def split_argv(words: list[str], parser: argparse.ArgumentParser) -> tuple[list[str], list[str]]:
    """Split into argtrace's own options and the rest (SCRIPT ARGS..., or $0 $1... after -c).

    Everything after the script path belongs to the script, as with ``bash SCRIPT ARGS``. With ``-c``,
    options may come before or after it; ``--`` or the first plain word starts ``$0 $1 ...``.
    """
    takes_value = {opt: action.nargs != 0 for action in parser._actions for opt in action.option_strings}
    options: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word == "--":
            return options, ["--", *words[i + 1 :]]
        if word.startswith("-") and word != "-":
            name = word.split("=", 1)[0]
            options.append(word)
            if takes_value.get(name) and "=" not in word and i + 1 < len(words):
                options.append(words[i + 1])
                i += 1
            i += 1
            continue
        return options, words[i:]
    return options, []


def apply_rest(args: argparse.Namespace, rest: list[str], parser: argparse.ArgumentParser) -> None:
    if args.command_string is not None:
        args.script_args = rest[1:] if rest[:1] == ["--"] else rest
        return
    if rest[:1] == ["--"]:
        rest = rest[1:]
    if not rest:
        parser.error("a SCRIPT (or -c COMMAND) is required")
    args.script, args.script_args = rest[0], rest[1:]
    if args.script_args[:1] == ["--"]:
        # `check launch.sh -- -m M`: bash hands `--` on as $1 (`bash launch.sh -- -m M`), and a script's
        # `getopts` stops at it, so -m M is not parsed; said because the user may have meant argtrace's `--`
        import sys

        print(
            f"{parser.prog}: note: after SCRIPT, `--` is the script's $1, as `bash SCRIPT -- ...` gives it "
            f"(`getopts` stops there); to end {parser.prog}'s options put `--` before SCRIPT "
            f"({parser.prog} [OPTIONS] -- SCRIPT [SCRIPT_ARGS...])",
            file=sys.stderr,
        )
    misplaced = misplaced_options(args.script_args, parser)
    if misplaced:
        # The words stay the script's ($1 ...), as bash gives them, because launch scripts take options of
        # their own (`launch.sh --gpu 0`); but a user who wrote `check launch.sh --format json` meant
        # argtrace's option and would otherwise read a report of a script started with `--format json`.
        import sys

        names = ", ".join(f"`{name}`" for name in misplaced)
        command = parser.prog
        what = "is the script's argument" if len(misplaced) == 1 else "are the script's arguments"
        print(
            f"{command}: note: after SCRIPT, {names} {what} ($1 ...), not {command}'s; put {command}'s "
            f"options before SCRIPT ({command} [OPTIONS] SCRIPT [SCRIPT_ARGS...])",
            file=sys.stderr,
        )


def misplaced_options(script_args: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The words among ``script_args`` that name one of ``parser``'s own options (``--format``,
    ``--format=json``), in order, each once; ``-h``/``--help`` and single-letter options are left out, since
    scripts commonly take those themselves."""
    own = {opt for action in parser._actions for opt in action.option_strings if opt.startswith("--")}
    own.discard("--help")
    found: list[str] = []
    for word in script_args:
        name = word.split("=", 1)[0]
        if name in own and name not in found:
            found.append(name)
    return found


def run(args: argparse.Namespace) -> Report:
    from argtrace.check import CheckOptions, run_check
    from argtrace.fixes.attach import attach_fixes
    from argtrace.frameworks.installed import remembered

    options = CheckOptions.from_args(args)
    # the check and its fix re-checks read the installed release from the same files once (issue 18)
    with remembered():
        if not getattr(args, "no_cache", False):
            # issue 13: each finding's edits, verified by re-checking the edited files (argtrace/fixes/); the
            # re-checks reuse the resolution cache (imported only when a resolution runs: hashlib, issue 18)
            return attach_fixes(run_check(options), options)
        from argtrace.resolver.cache import bypassed

        with bypassed():
            return attach_fixes(run_check(options), options)
