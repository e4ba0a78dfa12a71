"""Proving a fix: apply its edits in memory and re-run the predicted layers with the same options.

``fix_verified`` is true only if the re-check no longer has the finding (same code and setting at the same
place, followed through the edit's line shifts) and has no error or warning the original check lacked. The
re-check is ``check.run_check`` itself (transport, shell, process, parser, resolution, memory), so it uses
whatever the normal resolution path caches. Observed layers (``--log``, ``--pid``, ``--url``) are not read
again: a fix of an observed mismatch is verified when the re-check predicts the intended value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from argtrace.check import COMMAND_LABEL, CheckOptions, run_check
from argtrace.fixes.apply import (
    EditError,
    apply_edits,
    apply_env,
    edit_key,
    env_edits,
    file_edits,
    line_mapper,
)
from argtrace.fixes.edits import Proposal, SourceFile, parse_at
from argtrace.model import EnvEdit, Finding, FixEdit, Report, UsageError
from argtrace.overlay import overlay

VERIFIED_SEVERITIES = ("error", "warning")
# Bounds of the re-checks of one report: characters of launch files analysed again, and re-checks (each also
# runs shellcheck). Past them a fix is not verified (fix_verified false, "not verified"), never a verdict.
RECHECK_BUDGET = 512 * 1024
MAX_RECHECKS = 32
# Layers whose findings come from what a running server or its log showed: not re-read by a re-check.
OBSERVED_LAYERS = ("log", "live")


def is_observed(finding: Finding) -> bool:
    return finding.layer in OBSERVED_LAYERS or finding.rests_on == "observed"


@dataclass
class Rechecker:
    """Re-checks edited launch files; one re-check per distinct set of edits."""

    options: CheckOptions
    sources: Mapping[str, SourceFile]
    done: dict[tuple[FixEdit | EnvEdit, ...], Report | None] = field(default_factory=dict)
    spent: int = 0  # characters of launch files re-checked so far (RECHECK_BUDGET)

    def predicted_options(self) -> CheckOptions:
        """The same options without the observed inputs (the log, the process, the server)."""
        extra = {**self.options.extra, "pid": None, "url": None}
        return replace(self.options, log=None, launched_after=None, extra=extra)

    def edited_text(self, edits: Sequence[FixEdit | EnvEdit]) -> dict[str, str] | None:
        """Each edited file's new text; None when an edit does not fit or names another file."""
        by_file: dict[str, list[FixEdit]] = {}
        for edit in file_edits(edits):
            by_file.setdefault(edit.file, []).append(edit)
        out: dict[str, str] = {}
        for label, in_file in by_file.items():
            source = self.sources.get(label)
            if source is None:
                return None
            try:
                out[label] = apply_edits(source.text, in_file)
            except EditError:
                return None
        return out

    def recheck(self, edits: Sequence[FixEdit | EnvEdit]) -> Report | None:
        key = tuple(sorted(set(edits), key=edit_key))
        if key in self.done:
            return self.done[key]
        # each re-check analyses the whole launch again: past the budget a fix stays unverified (a Markdown
        # page of 2,000 blocks had as many fixes, each a re-check of the page: hours, session 29's fuzzers)
        cost = sum(len(source.text) for source in self.sources.values())
        if self.spent + cost > RECHECK_BUDGET or len(self.done) >= MAX_RECHECKS:
            return None
        texts = self.edited_text(key)
        report: Report | None = None
        self.spent += cost if texts is not None else 0
        if texts is not None:
            options = self.predicted_options()
            changes = env_edits(key)
            if changes:  # the launch started from the changed environment (--env, the caller's)
                options = replace(options, env=apply_env(options.env, changes))
            others: dict[str, bytes] = {}
            for label, text in texts.items():
                if label == COMMAND_LABEL:
                    options = replace(options, command_string=text)
                elif label == options.script:
                    options = replace(options, script_data=encode(text))
                else:  # an env or config file the launch reads: read as edited through the overlay
                    others[label] = encode(text)
            try:
                with overlay(others):
                    report = run_check(options)
            except UsageError:
                report = None  # the edited files cannot be analysed at all: not a fix
            except Exception:  # a fix that breaks the analysis is unproven, never a crash of
                # the check that proposed it (the original report stands; ARGTRACE_DEBUG shows the error)
                import os

                if os.environ.get("ARGTRACE_DEBUG"):
                    raise
                report = None
        self.done[key] = report
        return report


def decode(data: bytes) -> str:
    """The file's text; bytes that are not UTF-8 survive the round trip (``encode``)."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def _every(findings: Sequence[Finding]) -> list[Finding]:
    """The findings with the consequences folded into them (``argtrace.causes``): a memory error that
    followed from a cut-off flag is a consequence before the fix and a finding of its own after it, and
    must count as the same error in both."""
    return [*findings, *(c for f in findings for c in f.consequences)]


def _bad(findings: Sequence[Finding]) -> Counter[tuple[str, str | None]]:
    return Counter((f.code, f.setting) for f in _every(findings) if f.severity in VERIFIED_SEVERITIES)


def still_there(finding: Finding, after: Report, mapping: Mapping[str, Mapping[int, int]]) -> bool:
    """The re-check has the same finding: same code and setting, at the place the edits moved it to."""
    where = parse_at(finding.at)
    # a process finding names its variable in the message, not as a setting, and an inherited variable's
    # finding sits at the server's start: two variables' PR002 (SGLANG_GC_LOG, SGL_ENABLE_JIT_DEEPGEMM)
    # share code, setting and place, so the message tells them apart
    by_message = finding.layer == "process" and finding.setting is None
    for other in _every(after.findings):
        if other.code != finding.code or other.setting != finding.setting:
            continue
        if by_message and other.message != finding.message:
            continue
        if where is None:
            return True
        moved = mapping.get(where[0], {}).get(where[1], where[1]) if where[0] in mapping else where[1]
        theirs = parse_at(other.at)
        if theirs is not None and theirs[0] == where[0] and theirs[1] == moved:
            return True
    return False


def verify_finding(finding: Finding, report: Report, rechecker: Rechecker) -> bool | None:
    """True: the edits remove the finding and add no error or warning; False: they do not; None: the
    finding is not one argtrace verifies (info, or no edits)."""
    if not finding.fix_edits or finding.severity not in VERIFIED_SEVERITIES:
        return None
    after = rechecker.recheck(finding.fix_edits)
    if after is None:
        return False
    if is_observed(finding):
        return _predicts_intended(finding, report, after)
    # The edits as the re-check applied them: each once (a fix may carry one edit twice, e.g. one per
    # repeat of a duplicated flag, and the second copy would overlap the first).
    edited = list(dict.fromkeys(file_edits(finding.fix_edits)))
    try:
        mapping = {
            label: line_mapper(rechecker.sources[label].text, [e for e in edited if e.file == label])
            for label in {e.file for e in edited}
        }
    except EditError:  # edits the re-check could not apply together prove nothing
        return False
    if still_there(finding, after, mapping):
        return False
    return not (_bad(after.findings) - _bad(report.findings))


def _predicts_intended(finding: Finding, report: Report, after: Report) -> bool:
    """An observed mismatch is fixed when the edited launch predicts the value the user intended."""
    from argtrace.fixes.settings import find_setting, predicted_value

    before = find_setting(report, finding.setting)
    now = find_setting(after, before.name if before is not None else None)
    if before is None or now is None or before.intended is None:
        return False
    return bool(predicted_value(now) == before.intended) and not (
        _bad(after.findings) - _bad(report.findings)
    )


def _with_verdict(finding: Finding, verified: bool | None) -> Finding:
    """``finding`` with ``fix_verified``: itself when it holds that already (most findings have no edits
    and stay None; a finding is frozen, so sharing it is safe), a copy otherwise (``dataclasses.replace``
    makes a new one field by field)."""
    return finding if finding.fix_verified is verified else replace(finding, fix_verified=verified)


def verify_findings(
    report: Report, rechecker: Rechecker, candidates: Mapping[int, Sequence[Proposal]] = {}
) -> list[Finding]:
    """The report's findings with ``fix_verified``; a finding with several candidate fixes gets the first
    one the re-check proves (or, when none is proven, the first one, unverified)."""
    out: list[Finding] = []
    for index, finding in enumerate(report.findings):
        tried = [finding]
        if index in candidates:
            tried = [replace(finding, fix=c.fix, fix_edits=c.edits) for c in candidates[index]]
        verdicts = [_with_verdict(f, verify_finding(f, report, rechecker)) for f in tried[:1]]
        for other in tried[1:]:
            if verdicts[-1].fix_verified is True:
                break
            verdicts.append(_with_verdict(other, verify_finding(other, report, rechecker)))
        proven = [f for f in verdicts if f.fix_verified is True]
        chosen = proven[0] if proven else verdicts[0]
        if any(c.fix_edits for c in chosen.consequences):
            # a folded finding's edit is proven like any other (its own code gone, nothing new); the
            # cause's edit, shared, is re-checked once (the rechecker keeps each edit set's report)
            consequences = tuple(
                _with_verdict(c, verify_finding(c, report, rechecker)) for c in chosen.consequences
            )
            chosen = replace(chosen, consequences=consequences)
        out.append(chosen)
    return out
