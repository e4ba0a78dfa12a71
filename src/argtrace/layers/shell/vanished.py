"""Unquoted expansions that vanished right after a flag that takes a value (SH007 unset, SH026 empty).

The words come from the shell layer's evaluation (``ServerCommand.vanished``); the same reasoning serves a
server the local shell reaches through a container (``docker run IMAGE ... --port $PORT``: the local shell
expanded those words, layers/transport/containers.py). The parser's consequences (PA012, PA020) are linked
in causes.py (``lost-value``).
"""

from __future__ import annotations

import re

from argtrace.model import Evidence, Finding, ServerCommand
from argtrace.rules import shell as R

_POSITIONAL = re.compile(r"^\"?\$\{?([1-9][0-9]*)\}?\"?$")
_ALL_ARGUMENTS = re.compile(r"^\"?\$(?:[@*]|\{[@*]\}|\{[A-Za-z_][A-Za-z0-9_]*\[[@*]\]\})\"?$")


def _takes_no_value(framework: str, flag: str) -> bool:
    from argtrace.frameworks.schema import takes_no_value

    return takes_no_value(framework, flag)


def _caller_variable_fix(name: str) -> str:
    """The fix for a flag's value from a variable the caller's environment does not set here."""
    return (
        f"Set {name} where the server runs (check with `--env {name}=...`), give a default "
        f"(`${{{name}:-VALUE}}`), or stop early (`${{{name}:?{name} is not set}}`)."
    )


def vanished_after_flags(server: ServerCommand, nargs: int) -> list[Finding]:
    """SH007/SH026: the unquoted expansions of ``server`` that vanished right after a flag that takes a
    value (the flag then takes the next flag as its value, or none). Also for a server a container starts
    (``docker run IMAGE ... --port $PORT``): the words the local shell expanded are the same words."""
    out: list[Finding] = []
    argv = server.argv
    start = server.server_args_start
    plural = "s" if nargs != 1 else ""

    def txt(i: int) -> str | None:
        return argv[i].text if 0 <= i < len(argv) else None

    for v in server.vanished:
        if v.index < start:
            continue
        prev = txt(v.index - 1)
        nxt = txt(v.index) if v.index < len(argv) else None
        if prev is None or not prev.startswith("-") or "=" in prev or v.index - 1 < start:
            continue
        if _ALL_ARGUMENTS.match(v.expansion) or _takes_no_value(server.framework, prev):
            # "$@" / "${arr[@]}" expanding to no word is what they are for; a flag like --enable-metrics
            # takes no value, so nothing after it can be lost as its value.
            continue
        then = (
            f"`{prev}` takes `{nxt}` as its value"
            if nxt is not None and v.index < len(argv)
            else f"`{prev}` gets no value"
        )
        m = _POSITIONAL.match(v.expansion)
        if v.state == "unset":
            # The script's arguments are the ones argtrace was given: their absence is the invocation's. A
            # variable of the caller's environment may be set where the server runs (a node, a container):
            # its absence here is an assumption, so a warning that says so, never an error.
            caller = m is None
            if m:
                why = f"`{v.expansion}` is unset (the script got {nargs} argument{plural})"
            else:
                why = (
                    f"`{v.expansion}` is not set (in the environment argtrace was given; if the caller sets "
                    f"it, pass `--env {v.name}=...`)"
                )
            out.append(
                R.SH007.finding(
                    f"{why}, so the unquoted word vanishes: {then}",
                    at=v.at,
                    setting=None,
                    evidence=[Evidence("shell", v.at, f"{prev} {v.expansion}")],
                    severity="warning" if caller else None,
                    basis="assumed" if caller else None,
                    fix=_caller_variable_fix(v.name) if caller and v.name else None,
                )
            )
        elif v.via:
            # `rank_id=$RANK` with RANK not set here: empty only if the caller does not set RANK either
            out.append(
                R.SH026.finding(
                    f"`{v.expansion}` is empty here: the script sets it from `${v.via}`, which is not "
                    "set (in the environment argtrace was given; if the caller sets it, pass "
                    f"`--env {v.via}=...`), so the unquoted word vanishes: {then}",
                    at=v.at,
                    evidence=[Evidence("shell", v.at, f"{prev} {v.expansion}")],
                    severity="warning",
                    basis="assumed",
                    fix=_caller_variable_fix(v.via),
                )
            )
        else:
            out.append(
                R.SH026.finding(
                    f"`{v.expansion}` is empty, so the unquoted word vanishes: {then}",
                    at=v.at,
                    evidence=[Evidence("shell", v.at, f"{prev} {v.expansion}")],
                )
            )
    return out
