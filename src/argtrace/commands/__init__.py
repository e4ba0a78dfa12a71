"""One module per argtrace command.

Each module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> Report``. Modules must
stay cheap to import (the CLI imports all of them to build its parser): heavy imports go inside ``run``.
A module may also define ``split_argv(argv) -> (options, positionals)`` when its positionals swallow
everything after them (``check SCRIPT ARGS...``), and ``quick_parse(words) -> namespace | None`` when it
reads plain words without argparse (``quick_argv.py``; listed in ``QUICK_COMMANDS``).
"""

COMMAND_MODULES = (
    *("check", "fix", "log", "mem", "why", "resolver", "ps", "live", "run", "rules"),
    *("mcp", "lint", "fleet"),
)
# Commands whose module has ``quick_parse``: ``cli`` asks it first when the command word comes first, and
# imports argparse (with gettext) only when it answers None (issue 18)
QUICK_COMMANDS = ("log",)
