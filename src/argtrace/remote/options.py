"""The global ``--host`` / ``--ssh-option`` options, for ``cli.py`` (kept here so the CLI change is small).

    argtrace --host [USER@]HOST[:PORT] [--ssh-option NAME=VALUE ...] check|log|ps|live|run ...

``cli.py`` calls :func:`add_host_options` on the top-level parser, finds the command word with
:func:`command_index` (so ``--host check`` is a host called "check", not the command), and runs the
command inside ``with host_context(args):``. The connection opens on the first observation and closes
when the block ends; failures are :class:`~argtrace.model.UsageError` (exit status 2, one line).
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:  # annotations only: `log`'s plain words are read without argparse (quick_argv.py)
    import argparse

GLOBAL_OPTIONS_WITH_VALUE = ("--host", "--ssh-option")


def add_host_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("remote node")
    group.add_argument(
        "--host",
        metavar="[USER@]HOST[:PORT]",
        help="observe this node over ssh (system OpenSSH client; paths are the node's; needs python3 there)",
    )
    group.add_argument(
        "--ssh-option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="pass -o NAME=VALUE to ssh (repeatable), e.g. ProxyJump=bastion, IdentityFile=~/.ssh/gpu",
    )


def command_index(words: Sequence[str], commands: Collection[str]) -> int | None:
    """Index of the command word, skipping the values of global options (``--host check check ...``)."""
    i = 0
    while i < len(words):
        word = words[i]
        if word in GLOBAL_OPTIONS_WITH_VALUE:
            i += 2
            continue
        if word in commands:
            return i
        i += 1
    return None


@contextlib.contextmanager
def host_context(args: argparse.Namespace) -> Iterator[None]:
    """Run the command body against ``--host`` when given (else the local machine)."""
    host_text = getattr(args, "host", None)
    if host_text is None:
        yield
        return
    if not host_text.strip():
        from argtrace.model import UsageError

        # `--host "$NODE"` with NODE unset must not quietly observe this machine instead of the node.
        raise UsageError(f"--host {host_text!r}: empty host name")
    from argtrace.remote.host import use_host
    from argtrace.remote.ssh import RemoteHost, parse_target

    host = RemoteHost(parse_target(host_text), getattr(args, "ssh_option", None) or ())
    with use_host(host):
        yield
