"""Environment changes that fix a finding whose cause is a variable the launch inherits (issue 13's
"environment changes for ``--env``").

A framework variable given with ``check --env NAME=VALUE``, or read from the caller's environment, is written
in no file argtrace could edit: the fix is a change of the environment the launch starts from, an
``EnvEdit`` (``{"env": NAME, "value": NEW | null}`` in ``fix_edits``; null unsets it). ``verify.py`` re-runs
the check with the changed environment; ``argtrace fix`` prints the changes as ``export``/``unset`` lines.

Only a variable the script did not set itself is changed this way (one the script assigns gets the file
edit of ``edits.py``), and only when the finding names it and the starting environment holds it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence

from argtrace.fixes.edits import _INVERTED_FIX, Proposal, renames_alike
from argtrace.model import EnvEdit, EnvValue, Finding, Report

_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_USE = re.compile(r"use ([A-Z_][A-Z0-9_]*)")


def _inherited(value: EnvValue) -> bool:
    """The shell layer marks a variable the script inherited (and never set) with the expansion
    ``environment``; a variable with no place and no expansion came from nowhere in the script either."""
    origin = value.origin
    return origin.expansion == "environment" or (origin.at is None and origin.expansion is None)


def _named(finding: Finding) -> str | None:
    """The variable the finding is about: the message opens with it (``NAME=VALUE ...``, ``NAME is ...``)."""
    match = _NAME.match(finding.message)
    return match.group(0) if match else None


def inherited_value(finding: Finding, report: Report, env: Mapping[str, str]) -> tuple[str, str] | None:
    """(name, value) of the variable the finding is about, when the launch inherits it from ``env`` (the
    environment it starts with: the caller's plus ``--env``) and the script never sets it."""
    name = _named(finding)
    if name is None or name not in env:
        return None
    for server in report.servers:
        value = server.env.get(name)
        if value is None:
            continue
        if not _inherited(value) or value.value != env[name]:
            return None  # the script (or a container's env file) sets it: a file edit's case, not ours
        return name, env[name]
    return None


def _where(name: str) -> str:
    return f"{name} comes from the environment the launch starts with (--env or the caller's), no file"


def _rename(finding: Finding, name: str, value: str) -> Proposal | None:
    """PR001/PR002: ``use NEW``: the value moves to the name the release reads (only a pure rename)."""
    text = (finding.fix or "").strip()
    if text == f"remove {name}":
        return Proposal((EnvEdit(name, None),), f"Unset {name} (`unset {name}`): {_where(name)}.")
    inverted = _INVERTED_FIX.fullmatch(text)
    if inverted is not None and inverted.group(3) == name and inverted.group(4) == value:
        # PR002 of a rename of the opposite sense (layers/renamed_env.py): the new name, the opposite value
        new, opposite = inverted.group(1), inverted.group(2)
        export = f"export {new}={shlex.quote(opposite)}"
        return Proposal(
            (EnvEdit(name, None), EnvEdit(new, opposite)),
            f"Replace {name}={value} by {new}={opposite}, which means the same (`unset {name}; {export}`): "
            f"{_where(name)}.",
        )
    match = _USE.fullmatch(text)
    if (
        match is None
        or match.group(1) == name
        or not renames_alike(finding.code, name, match.group(1), finding.message)
    ):
        return None
    new = match.group(1)
    export = f"export {new}={shlex.quote(value)}"
    return Proposal(
        (EnvEdit(name, None), EnvEdit(new, value)),
        f"Rename {name} to {new} where the launch is started (`unset {name}; {export}`): {_where(name)}.",
    )


def _visible_devices(finding: Finding, name: str, value: str) -> Proposal | None:
    """PR006: an empty CUDA_VISIBLE_DEVICES is unset (every GPU visible); a repeated or invalid entry is
    dropped, keeping the others in their order. Whether that leaves enough GPUs is the re-check's (PR004)."""
    if name != "CUDA_VISIBLE_DEVICES":
        return None
    text = value.strip()
    if not text:
        return Proposal(
            (EnvEdit(name, None),),
            f"Unset {name} (`unset {name}`): set but empty it hides every GPU; {_where(name)}.",
        )
    kept: list[str] = []
    for item in (x.strip() for x in text.split(",")):
        if item and not re.fullmatch(r"-\d+", item) and item not in kept:
            kept.append(item)
    new = ",".join(kept)
    if not kept or new == text:
        return None
    return Proposal(
        (EnvEdit(name, new),),
        f"Set {name}={new} (`export {name}={shlex.quote(new)}`): each GPU once, no invalid entry; "
        f"{_where(name)}.",
    )


def _typed_value(finding: Finding, name: str, value: str) -> Proposal | None:
    """PR009: a value wrapped in quotes (``--env 'X="1"'`` hands the quotes on) loses them; any other value
    of the wrong type has no edit (argtrace cannot know the number meant)."""
    text = value.strip()
    if len(text) < 3 or text[0] not in "'\"" or text[-1] != text[0]:
        return None
    inner = text[1:-1]
    return Proposal(
        (EnvEdit(name, inner),),
        f"Give {name} the value {inner} without the quote characters (`export {name}={shlex.quote(inner)}`): "
        f"{_where(name)}.",
    )


def _internal_port(finding: Finding, name: str, value: str) -> Proposal | None:
    """RS020: VLLM_PORT is vLLM's internal port: unset it (the API port is ``--port``)."""
    if name != "VLLM_PORT":
        return None
    return Proposal(
        (EnvEdit(name, None),),
        f"Unset {name} (`unset {name}`) and give the API port with --port: {_where(name)}.",
    )


ENV_PRODUCERS: Mapping[str, Callable[[Finding, str, str], Proposal | None]] = {
    "PR001": _rename,
    "PR002": _rename,
    "PR006": _visible_devices,
    "PR009": _typed_value,
    "RS020": _internal_port,
}
ENV_NOTES: Mapping[str, str] = {
    "PR001": "for a variable the launch inherits (`--env`, the caller's): unsets it, or moves its value to "
    "the name the release reads (a pure rename only)",
    "PR002": "for a variable the launch inherits: moves its value to the new name",
    "PR006": "for an inherited CUDA_VISIBLE_DEVICES: unsets an empty one, drops repeated and invalid entries",
    "PR009": "for an inherited variable whose value is wrapped in quotes: the value without them",
    "RS020": "for an inherited VLLM_PORT: unsets it",
}


def env_proposal(finding: Finding, report: Report, env: Mapping[str, str]) -> Proposal | None:
    """The environment change that fixes ``finding``, or None."""
    producer = ENV_PRODUCERS.get(finding.code)
    if producer is None:
        return None
    found = inherited_value(finding, report, env)
    if found is None:
        return None
    return producer(finding, *found)


def with_env_proposals(findings: Sequence[Finding], report: Report, env: Mapping[str, str]) -> list[Finding]:
    """The findings, those caused by an inherited variable with its change (a finding that already has a
    file edit keeps it)."""
    from dataclasses import replace

    out = []
    for finding in findings:
        proposal = None if finding.fix_edits else env_proposal(finding, report, env)
        if proposal is not None:
            finding = replace(finding, fix=proposal.fix, fix_edits=proposal.edits)
        out.append(finding)
    return out
