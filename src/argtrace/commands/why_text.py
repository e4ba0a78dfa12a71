"""The text view of ``argtrace why``: the best site first, told whole enough to act on, the rest after it.

Reads only the finished ``why`` section (``commands/why.py:explain``). The first screen answers "what
failed, why, and what do I change": the first site's one-line headline (framework, what it raises, where),
its message, condition, the settings it reads, its first reasons, the fix in full, and one line on what the
answer rests on (how much of the text the site's message matched, the confidence, the releases that have
the site), then the release it was ranked for. The other sites follow, a few lines each; the log signatures
and the follow-up commands after them; the further reasons and each release's place of each site last
("where vllm's F is:"), which on the first screen took up to 16 lines above the fix
(bench/first_screens_log_why.py).
Every line is cut or wrapped with a hanging indent to the output width (``render/screen.py:output_width``),
so that the terminal never breaks an indented line back to column 0.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Lines of each part of the first site (the fix in full unless it is longer than this).
MESSAGE_LINES = 2
CONDITION_LINES = 2
REASON_LINES = 2
FIX_LINES = 8
# Reasons shown under a site; the others follow the sites (vllm#31480's five took ten lines above the fix).
FIRST_REASONS = 2
# Literal characters below which a site's message is mostly its placeholder (the library's text it passes on).
_WRAPPER_CHARS = 20


def release_spans(chosen: Sequence[str], every: Sequence[str]) -> list[str]:
    """``chosen`` as runs of consecutive releases of ``every`` (``0.4.1-0.5.0.post1``), oldest first."""
    from argtrace.resolver.message_store import sort_releases

    wanted = set(chosen)
    out: list[list[str]] = []
    previous = False
    for version in sort_releases(every):
        if version in wanted:
            if previous:
                out[-1].append(version)
            else:
                out.append([version])
        previous = version in wanted
    return [run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in out]


def _at_spans(versions: Sequence[Mapping[str, str]], every: Sequence[str]) -> list[str]:
    """``0.4.1-0.4.3 (vllm/config.py:800)``: consecutive releases with the same site location together."""
    from argtrace.resolver.message_store import sort_releases

    position = {v: i for i, v in enumerate(sort_releases(every))}
    out: list[tuple[list[str], str]] = []
    for entry in versions:
        version, at = entry["version"], entry["at"]
        last = out[-1] if out else None
        if last is not None and last[1] == at and position.get(last[0][-1], -2) + 1 == position.get(version):
            last[0].append(version)
        elif last is None or last[0][-1] != version or last[1] != at:
            out.append(([version], at))
    return [f"{v[0] if len(v) == 1 else f'{v[0]}-{v[-1]}'} ({at})" for v, at in out]


def _passes_on(group: Mapping[str, Any]) -> bool:
    """A site that raises a library's message under its own name: few literal characters, no setting read."""
    return int(group.get("specificity") or 0) < _WRAPPER_CHARS and not group.get("settings")


# A placeholder for the exception a site caught and prints in its own message ("... with exception {e}"):
# the words after it in the text are another error's, which the site only passes on.
_CAUGHT = re.compile(r"\{(?:e|exc|err|error|exception)\}")


def _carries_caught(group: Mapping[str, Any], signatures: Sequence[Mapping[str, Any]]) -> bool:
    """The site's message prints an exception it caught (SGLang's "Decode transfer failed for request ...
    with exception {e}"), reads no setting, and the text has a log signature that is not a wrapper: what
    the caught error means, and its fix, is the signature's."""
    return (
        bool(_CAUGHT.search(str(group.get("message") or "")))
        and not group.get("settings")
        and any(not sig.get("wrapper") for sig in signatures)
    )


def _reports_failure_above(group: Mapping[str, Any], signatures: Sequence[Mapping[str, Any]]) -> bool:
    """The site's own message is one a wrapper signature matches (its cause is an earlier error), and the
    text has a signature of its own besides."""
    from argtrace.layers.log.signatures import load_catalog

    wrappers = {sig["id"] for sig in signatures if sig.get("wrapper")}
    if not wrappers or all(sig.get("wrapper") for sig in signatures):
        return False
    message = str(group.get("message") or "")
    return any(sig.id in wrappers and sig.pattern.search(message) for sig in load_catalog().signatures)


class _Lines:
    """Lines of at most ``width`` columns: a long one wraps at words under a hanging indent (two columns
    deeper than its own), in at most ``most`` lines, the last cut with an ellipsis."""

    def __init__(self, width: int | None) -> None:
        self.width = width or 0
        self.out: list[str] = []

    def add(self, text: str, most: int = 0) -> None:
        from argtrace.render.screen import wrapped

        if not self.width:  # no width: each line whole (render_why called for its text, not a screen)
            self.out.append(text)
            return
        indent = len(text) - len(text.lstrip(" "))
        body = " ".join(text.split())
        room = self.width - indent
        if len(body) <= room:
            self.out.append(text.rstrip())
            return
        if most == 1:
            self.out.append(" " * indent + wrapped(body, room, 1)[0])
            return
        first = wrapped(body, room, 2)[0]
        self.out.append(" " * indent + first)
        head, _, labelled = body.partition(": ")
        # "  fix: ..." goes on under its text; a line without a short label, two columns in
        hang = indent + len(head) + 2 if labelled and len(head) <= 12 and " " not in head else indent + 2
        rest = body[len(first) :].lstrip()
        for line in wrapped(rest, self.width - hang, most - 1 if most else 1000):
            self.out.append(" " * hang + line)

    def extend(self, lines: Sequence[str], most: int = 0) -> None:
        for line in lines:
            self.add(line, most)


def _where(group: Mapping[str, Any]) -> str:
    return str(group.get("file")) if group.get("line") is None else f"{group.get('file')}:{group['line']}"


def _headline(group: Mapping[str, Any], weak: str, width: int | None) -> list[str]:
    """``vllm: ValueError raised in F (file.py:12)``; the place by its file's name when the whole path does
    not fit, on a line of its own when the name does not either (the headline is never cut)."""
    kind = {"log": "logged", "warn": "warned", "reason": "returned"}.get(group.get("kind", "raise"), "raised")
    what = "a reason" if group.get("kind") == "reason" else group["exception"]
    head = f"{weak}{group['framework']}: {what} {kind} in {group['function']}"
    at = _where(group)
    if not width or len(head) + len(at) + 3 <= width:
        return [f"{head} ({at})"]
    name = at.rsplit("/", 1)[-1]
    if len(head) + len(name) + 3 <= width:
        return [f"{head} ({name})"]
    return [head, f"  at: {at}"]


def _sets(setting: Mapping[str, Any]) -> str | None:
    """``sets ParallelConfig.use_ubatching``: the configuration field the site reads, which this flag
    decides (frameworks/vllm_config_fields.py)."""
    return f"sets {setting['sets']}" if setting.get("sets") else None


def _reads(group: Mapping[str, Any]) -> str:
    return ", ".join(
        f"{s['name']}{'.' + '/'.join(s['fields']) if s.get('fields') else ''} "
        f"({', '.join(x for x in (s['flag'], s.get('framework'), s.get('plugin'), _sets(s)) if x)})"
        if s["flag"]
        else s["name"]
        for s in group["settings"]
    )


def _release_line(section: Mapping[str, Any]) -> str | None:
    release = section.get("release")
    if not release or not section.get("matches"):
        return None
    name = f"{release['framework']} " if release.get("framework") else ""
    said = {"text": "the pasted text", "log": "the log"}.get(release["source"], release["source"])
    near = release.get("indexed")
    ranked = "" if near in (None, release["version"]) else f" (indexed release nearest to it: {near})"
    only = release["source"] == "--framework-version" and near == release["version"]
    rank = "only its sites" if only else "its sites come first"
    return f"release: {name}{release['version']} from {said}{ranked}; {rank}"


def _rests_on(group: Mapping[str, Any], section: Mapping[str, Any]) -> str:
    """What the first site rests on: the match, its confidence, the releases that have the site."""
    every = list(group["releases"]) + list(group["absent_in"])
    spans = release_spans(group["releases"], every)
    has = (
        f"in {spans[0]}"
        if len(spans) == 1
        else f"in {spans[0].split('-')[0]} .. {spans[-1].split('-')[-1]} ({len(group['releases'])} releases)"
        if spans
        else ""
    )
    match = f"match {group['score']:.2f} ({group.get('specificity', 0)} chars), {section.get('confidence')}"
    return f"  rests on: {match}" + (f"; {has}" if has else "")


def _site(
    lines: _Lines, group: Mapping[str, Any], weak: str, first: bool, section: Mapping[str, Any]
) -> None:
    for line in _headline(group, weak, lines.width):
        lines.add(line, 1)
    lines.add(f"  message: {group['message']}", MESSAGE_LINES if first else 1)
    for cond in group["conditions"]:
        lines.add(f"  when: {cond}", CONDITION_LINES if first else 1)
    if group["settings"]:
        lines.add(f"  reads: {_reads(group)}", 2 if first else 1)
    reasons = list(group.get("because", []))
    for r in reasons[:FIRST_REASONS]:
        lines.add(_because(r), REASON_LINES if first else 1)
    if len(reasons) > FIRST_REASONS:
        lines.add(f"  ({len(reasons) - FIRST_REASONS} more reasons: below)", 1)
    lines.add(f"  fix: {group['fix']}", FIX_LINES if first else 1)
    if first:
        lines.add(_rests_on(group, section), 1)
        release = _release_line(section)
        if release:
            lines.add("  " + release, 2)
    if group.get("vendored_from"):
        lines.add(f"  a copy of {group['vendored_from']['library']}'s {group['vendored_from']['file']}", 1)
    for copy in group.get("vendored_in", []):
        lines.add(f"  copied into {copy['framework']} as {copy['file']}", 1)


def _render_signatures(signatures: Sequence[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = []
    for sig in signatures:
        step = f" (step: {sig['step']})" if sig.get("step") and sig["step"] != "unknown" else ""
        lines.append(f"log signature {sig['id']} ({sig['code']}): {sig['meaning']}{step}")
        lines.append(f"  fix: {sig['fix']}")
        for known in sig.get("by_step", []):
            lines.append(f"    if {known['step']}: {known['fix']}")
        for known in sig.get("known_in", []):
            got = known["releases"]
            span = got[0] if len(got) == 1 else f"{got[0]} .. {got[-1]}"
            lines.append(
                f"  {known['flag']}: taken by {len(got)} of {known['of']} bundled {known['framework']} "
                f"releases ({span}); the release that refused it is not one of them"
            )
    return lines


def _because(reason: Mapping[str, Any]) -> str:
    r = reason
    return f"  because: {r['message']} ({r['function']}, {r['file']}:{r['line']}; when {r['condition']})"


def _where_each_release(groups: Sequence[Mapping[str, Any]]) -> list[str]:
    """The reasons past the first ones, and each site's place in each release that has it (what the
    headline's single place stands for)."""
    lines: list[str] = []
    for g in groups:
        reasons = list(g.get("because", []))[FIRST_REASONS:]
        if reasons:
            lines.append(f"more reasons under {g['framework']}'s {g['function']}:")
            lines += [_because(r) for r in reasons]
    for g in groups:
        every = list(g["releases"]) + list(g["absent_in"])
        if not every and not g["versions"]:
            continue  # a library's own check (PyO3's, argparse's): no release of the framework holds it
        lines.append(f"where {g['framework']}'s {g['function']} is:")
        lines.append("  in: " + ", ".join(_at_spans(g["versions"], every)))
        if g["absent_in"]:
            lines.append("  not in: " + ", ".join(release_spans(g["absent_in"], every)))
    return lines


def screen_view(section: Mapping[str, Any]) -> str:
    """``render_why`` at the output's width (``render/screen.py:output_width``): the text report's view."""
    from argtrace.render.screen import output_width

    return render_why(section, output_width(sys.stdout.isatty()))


def render_why(section: Mapping[str, Any], width: int | None = None) -> str:
    """The view; ``width``: lines cut or wrapped to it (a screen), else each line whole."""
    from argtrace.commands.why_attribute import render_attribute
    from argtrace.commands.why_call import render_call
    from argtrace.commands.why_confidence import render_weak
    from argtrace.commands.why_modeltype import render_model_type
    from argtrace.commands.why_module import render_module
    from argtrace.commands.why_none import render_none
    from argtrace.commands.why_pydantic import render_validation
    from argtrace.commands.why_requires import render_dependency
    from argtrace.commands.why_shell import render_shell
    from argtrace.commands.why_traceback import render_traceback
    from argtrace.commands.why_weights import render_weights

    lines = _Lines(width)
    lib = section.get("beneath")
    if lib:
        # a library's error under a framework frame: the cause first, the wrapper's site after it
        lines.add(f"cause: {lib['says']}", 4)
        if lib.get("fix"):
            lines.add(f"  fix: {lib['fix']}", 3)
    if not section.get("matches"):
        lines.add(f"no framework raise or log site matches {section.get('query')!r}", 2)
    trace = section.get("traceback") or {}
    # an assert the text quotes, found in the assert index, goes before weak candidates matched on words
    weak_beside = bool(trace.get("assert")) and section.get("confidence") == "weak"
    if weak_beside:
        lines.extend(render_traceback(section))
    weak_signed = section.get("confidence") == "weak" and bool(section.get("signatures"))
    if weak_signed and not lib:
        # the sites are candidates matched on words; a log signature matched the text's own message (vLLM's
        # EngineDeadError, whose words no raise site holds: vllm#42362): what it means comes first
        lines.extend(_render_signatures(list(section["signatures"])))
    for k, line in enumerate(render_weak(section)):
        # who printed the text goes first and whole: a known wording carries its way out at its end (numactl's
        # refused binding, sglang#27368, was cut after three lines, before its fix)
        lines.add(line, 9 if k == 0 and section.get("origin") else 3)
    lines.extend(
        render_shell(section)
        + render_call(section)
        + render_attribute(section)
        + render_validation(section)
        + render_module(section)
        + render_dependency(section)
        + render_none(section)
        + render_weights(section)
        + render_model_type(section)
    )
    # frames without a message: where it failed; else under the sites, unless the sites only report the
    # indexed assert the traceback ends in
    if (not section.get("matches") or trace.get("first")) and not weak_beside:
        lines.extend(render_traceback(section))
    signatures = [] if weak_signed and not lib else list(section.get("signatures", []))
    top = (section.get("matches") or [None])[0]
    if top is not None and signatures and _passes_on(top):
        # the best site only passes on a library's message ("NCCL error: {error_str}", nothing it reads):
        # what the message means and how to fix it is the log signature's, so it comes first
        lines.extend(_render_signatures(signatures))
        lines.add(f"(the raise site below passes the message on: {top['message']})", 1)
        signatures = []
    elif top is not None and _carries_caught(top, signatures):
        # the best site logs an exception it caught (a request's KV transfer that failed) and reads no
        # setting: the signature of what it caught says what failed and what to check, so it comes first
        causes = [sig for sig in signatures if not sig.get("wrapper")]
        lines.extend(_render_signatures(causes))
        lines.add(f"(the site below logs the exception it caught: {top['message']})", 1)
        signatures = [sig for sig in signatures if sig.get("wrapper")]
    elif top is not None and _reports_failure_above(top, signatures):
        # the best site only reports that start-up failed ("EngineCore failed to start."), which its own
        # signature says is caused by an error above it; another line of the text has its own signature:
        # that error is the cause, so it comes first and the report of failure after it
        causes = [sig for sig in signatures if not sig.get("wrapper")]
        lines.extend(_render_signatures(causes))
        lines.add(f"(the site below reports the failure this error caused: {top['message']})", 1)
        signatures = [sig for sig in signatures if sig.get("wrapper")]
    weak = "candidate: " if section.get("confidence") == "weak" else ""
    for n, g in enumerate(section.get("matches", [])):
        _site(lines, g, weak, n == 0, section)
    lines.extend(_render_signatures(signatures))
    for more in section.get("more", []):
        lines.out.append(f"more: {more['command']}")  # a command to copy: never cut
        lines.add(f"  {more['why']}")
    lines.extend(_where_each_release(section.get("matches", [])))
    return "\n".join(lines.out)
