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

from argtrace.model import Evidence, Finding, ServerCommand, VanishedWord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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


def caller_unset(lost: VanishedWord) -> bool:
    """A variable of the caller's environment that is not set here (not a script argument, not one the
    script empties): the server's environment may set it, so what follows from its absence is assumed."""
    return unset_here(lost) and lost.name is not None and not _SCRIPT_ARGUMENT.match(lost.expansion)


def after_flag(server: ServerCommand, flag_index: int) -> VanishedWord | None:
    """The expansion that vanished right after the server's word ``flag_index`` (``--port $PORT``)."""
    return next((v for v in server.vanished if v.index == flag_index + 1), None)


def among_words(server: ServerCommand, takes_value: Callable[[str], bool]) -> list[VanishedWord]:
    """Every expansion of the caller's environment that vanished among the framework's words and not as a
    flag's value (``$OPTS``, ``$EXTRA_ARGS``): words the server's environment may fill."""
    argv, start = server.argv, server.server_args_start
    out = []
    for v in server.vanished:
        if v.index < start or _ALL_ARGUMENTS.match(v.expansion) or not caller_unset(v):
            continue
        prev = argv[v.index - 1].text if start < v.index <= len(argv) else None
        if prev is not None and prev.startswith("-") and "=" not in prev and takes_value(prev):
            continue
        out.append(v)
    return out


def unset_value_note(lost: VanishedWord) -> dict[str, Any]:
    """The keyword arguments of a parser finding about a flag whose value was ``lost`` (SH007's
    consequence): a note resting on the assumption when the caller's variable is only not set here."""
    if not caller_unset(lost):
        return {}
    name = lost.name or lost.expansion
    return {
        "severity": "info",
        "basis": "assumed",
        "fix": f"set {name} where the server runs (check with `--env {name}=...`), or give it a default "
        f"(`${{{name}:-VALUE}}`)",
    }


def carried_by(lost: list[VanishedWord], name: str, stops: str) -> tuple[str, str]:
    """PA020's message (after "NAME is required by RELEASE and ") and fix when a required ``name`` is
    missing and ``lost`` (caller variables not set
    here, ``$OPTS``) vanished among the words: the server's environment may set them with it."""
    shown = ", ".join(f"`{v.expansion}`" for v in lost)
    names = [v.name or v.expansion for v in lost]
    verb = "is" if len(lost) == 1 else "are"
    which = names[0] if len(names) == 1 else "one of them"
    vanish = "the unquoted word vanishes" if len(lost) == 1 else "the unquoted words vanish"
    message = (
        f"is not among the words argtrace sees: {shown} {verb} not set in the environment argtrace "
        f"was given, so {vanish}; if the server's environment sets {which} with {name}, "
        f"the parser gets it; if not, {stops}"
    )
    fix = (
        f"set {names[0]} where the server runs (check with `--env {names[0]}='{name} ...'`), or add "
        f"{name} VALUE"
    )
    return message, fix


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
    return f"give {name} a value (it is empty), or write the model in place of `{lost.expansion}`"


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
