"""A required positional whose word vanished (PA029): ``vllm serve $MODEL --port 8000`` with MODEL unset or
empty reaches the parser without the model, and ``sglang serve $MODEL`` without its first positional word.

Shared by the parser layer (vLLM's required ``model_tag``, any required positional of a schema) and SGLang's
``sglang serve`` launcher (its first positional word, read before argparse). What the shell saw is the
server command's ``vanished`` words; whether a positional is missing is the parser's (or the launcher's)
finding, so a vanished ``$EXTRA_ARGS`` among flags with nothing missing says nothing. A variable not set
*here* may be set where the server runs: the finding is then a warning resting on that assumption and the
parser's own findings for the positional are notes; one the script sets to an empty value is evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from argtrace.model import Evidence, Finding, ServerCommand, VanishedWord

_ALL_ARGUMENTS = re.compile(r"^\"?\$(?:[@*]|\{[@*]\}|\{[A-Za-z_]\w*\[[@*]\]\})\"?$")
_SCRIPT_ARGUMENT = re.compile(r"^\"?\$\{?[1-9][0-9]*\}?\"?$")


def lost_positional(
    server: ServerCommand, takes_value: Callable[[str], bool], first_only: bool = False
) -> VanishedWord | None:
    """The server's first expansion that vanished where a positional word would stand: among the
    framework's words, not right after a flag that takes a value (that word was the flag's: SH007/SH026),
    and not ``"$@"`` (an empty list of words is what it is for). ``first_only``: only the first word counts
    (``sglang serve`` looks at nothing else)."""
    argv, start = server.argv, server.server_args_start
    for v in server.vanished:
        if v.index < start or _ALL_ARGUMENTS.match(v.expansion) or (first_only and v.index != start):
            continue
        prev = argv[v.index - 1].text if start < v.index <= len(argv) else None
        if prev is not None and prev.startswith("-") and "=" not in prev and takes_value(prev):
            continue
        return v
    return None


def unset_here(lost: VanishedWord) -> bool:
    return lost.state == "unset"


def lost_fix(lost: VanishedWord) -> str:
    """The fix of PA029 and of the findings it explains: it names the variable, never a flag to remove."""
    if _SCRIPT_ARGUMENT.match(lost.expansion):
        return (
            "pass the script's arguments after it (`argtrace check SCRIPT MODEL ...`), or write the model "
            f"in place of `{lost.expansion}`"
        )
    name = lost.name or lost.expansion
    if unset_here(lost):
        return (
            f"set {name} where the server runs (check with `--env {name}=...`), or write the model in place "
            f"of `{lost.expansion}`; `${{{name}:?{name} is not set}}` stops with that message instead"
        )
    return (
        f"give {name} a value (it is empty), or write the model in place of `{lost.expansion}`"
    )


def as_consequence(lost: VanishedWord) -> dict[str, Any]:
    """The keyword arguments of a finding PA029 explains (PA001, PA020, PA023): its fix, and a note resting
    on the same assumption when the variable is only not set here."""
    if unset_here(lost):
        return {"fix": lost_fix(lost), "severity": "info", "basis": "assumed"}
    return {"fix": lost_fix(lost)}


def vanished_positional(lost: VanishedWord, where: str, setting: str, gets: str, stops: str) -> Finding:
    """PA029: ``where`` says what needs the word ("vllm 0.6.6.post1 needs its positional model_tag"),
    ``gets`` what takes it ("model_tag"), ``stops`` what happens without it."""
    from argtrace.rules import parser as rules

    name = lost.name or lost.expansion
    if _SCRIPT_ARGUMENT.match(lost.expansion) and unset_here(lost):
        why = f"`{lost.expansion}` is unset (argtrace was given no such script argument)"
        then = f"if the caller passes it, {gets} gets it; if not, {stops}"
    elif unset_here(lost):
        why = f"`{lost.expansion}` is not set in the environment argtrace was given"
        then = f"if the server's environment sets {name}, {gets} gets its value; if not, {stops}"
    else:
        why = f"`{lost.expansion}` is empty"
        then = stops
    return rules.PA_VANISHED_POSITIONAL.finding(
        f"{why}, so the unquoted word vanishes where {where}: {then}",
        at=lost.at,
        setting=setting,
        fix=lost_fix(lost),
        evidence=[Evidence("shell", lost.at, lost.expansion)],
        severity="warning" if unset_here(lost) else None,
        basis="assumed" if unset_here(lost) else None,
    )
