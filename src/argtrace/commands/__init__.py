"""One module per argtrace command.

Each module exposes ``NAME``, ``HELP``, ``add_arguments(parser)`` and ``run(args) -> Report``. Modules must
stay cheap to import (the CLI imports all of them to build its parser): heavy imports go inside ``run``.
A module may also define ``split_argv(argv) -> (options, positionals)`` when its positionals swallow
everything after them (``check SCRIPT ARGS...``).
"""

COMMAND_MODULES = (
    *("check", "fix", "log", "mem", "why", "resolver", "ps", "live", "run", "rules"),
    *("mcp", "lint", "fleet"),
)
