"""The edits ``argtrace fix`` applies: chosen from the findings, as a unified diff or written in place."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from argtrace.fixes.apply import EditError, apply_edits, env_edits, file_edits, spans
from argtrace.fixes.edits import SourceFile
from argtrace.model import EnvEdit, Finding, FixEdit


@dataclass(frozen=True)
class Plan:
    """The edits to apply (one set per fixed finding, merged) and the findings left out, with why."""

    applied: tuple[Finding, ...]
    skipped: tuple[tuple[Finding, str], ...]
    edits: Mapping[str, tuple[FixEdit, ...]]
    # changes of the environment the launch starts from (printed as shell lines, never written to a file)
    environment: tuple[EnvEdit, ...] = ()


def plan(findings: Sequence[Finding], sources: Mapping[str, SourceFile], *, unverified: bool) -> Plan:
    """Verified edits (with ``unverified``, every edit), in finding order; an edit set that overlaps one
    already taken is left out (the two findings' fixes disagree about the same text)."""
    taken: dict[str, list[FixEdit]] = {}
    environment: dict[str, EnvEdit] = {}
    applied: list[Finding] = []
    skipped: list[tuple[Finding, str]] = []
    seen: set[tuple[FixEdit | EnvEdit, ...]] = set()
    for finding in findings:
        if not finding.fix_edits:
            continue
        if finding.fix_verified is not True and not unverified:
            why = "not verified" if finding.fix_verified is False else "not verified (info finding)"
            skipped.append((finding, why))
            continue
        key = tuple(finding.fix_edits)
        if key in seen:  # the same cause, fixed by the same edits (SH003 and its stray-word PA001)
            applied.append(finding)
            continue
        trial = {label: list(edits) for label, edits in taken.items()}
        for edit in file_edits(finding.fix_edits):
            trial.setdefault(edit.file, []).append(edit)
        changes = env_edits(finding.fix_edits)
        try:
            for label, edits in trial.items():
                spans(sources[label].text, _unique(edits))
            # two fixes that want the same variable to be different things disagree too
            if any(environment.get(c.env, c) != c for c in changes):
                raise EditError("the same variable changed two ways")
        except (EditError, KeyError):
            skipped.append((finding, "overlaps another fix"))
            continue
        taken = trial
        environment.update({c.env: c for c in changes})
        seen.add(key)
        applied.append(finding)
    return Plan(
        tuple(applied),
        tuple(skipped),
        {k: tuple(_unique(v)) for k, v in taken.items()},
        tuple(environment.values()),
    )


def _unique(edits: Sequence[FixEdit]) -> list[FixEdit]:
    return list(dict.fromkeys(edits))


def new_texts(fix_plan: Plan, sources: Mapping[str, SourceFile]) -> dict[str, str]:
    return {label: apply_edits(sources[label].text, edits) for label, edits in fix_plan.edits.items()}


def patch_path(label: str) -> str:
    """The file's name as ``patch -p0`` run from the current directory finds it."""
    if os.path.isabs(label):
        relative = os.path.relpath(label)
        return label if relative.startswith("..") else relative
    return os.path.normpath(label)


def unified_diff(fix_plan: Plan, sources: Mapping[str, SourceFile], context: int = 3) -> str:
    """A unified diff of every file the plan edits, for ``patch -p0`` in the current directory, with
    ``context`` unchanged lines around each change."""
    out: list[str] = []
    for label, text in new_texts(fix_plan, sources).items():
        name = patch_path(label)
        old_lines = sources[label].text.splitlines(keepends=True)
        new_lines = text.splitlines(keepends=True)
        lines = list(difflib.unified_diff(old_lines, new_lines, fromfile=name, tofile=name, n=context))
        for line in lines:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def diff_without_secrets(
    fix_plan: Plan, sources: Mapping[str, SourceFile], hidden: Callable[[str], str]
) -> str | None:
    """The diff with less context (2, 1, then no unchanged lines: ``patch -p0`` applies that too, at the
    line numbers given) when its context lines hold a secret that ``hidden`` (the output's masking) would
    mask, making the printed diff one ``patch`` cannot apply; None when a changed line holds it."""
    for context in (2, 1, 0):
        diff = unified_diff(fix_plan, sources, context=context)
        if hidden(diff) == diff:
            return diff
    return None


def write_in_place(fix_plan: Plan, sources: Mapping[str, SourceFile]) -> list[str]:
    """Write each edited file, keeping its old content as ``FILE.orig``; returns the files written."""
    from argtrace.fixes.verify import encode

    written = []
    for label, text in new_texts(fix_plan, sources).items():
        path = Path(label)
        original = path.read_bytes()
        Path(f"{path}.orig").write_bytes(original)
        mode = path.stat().st_mode
        path.write_bytes(encode(text))
        os.chmod(path, mode)  # keep the script executable
        written.append(str(path))
    return written
