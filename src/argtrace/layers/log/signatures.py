"""The error-signature catalog (``argtrace/data/error_signatures.json``): loading and matching.

One entry per known failure, learned from a public report: a stable ``id``, the rule ``code`` its findings
carry, a regex, its meaning, the settings involved, the fix and the source. ``when_stage`` restricts an
entry to the start-up stage the process was in (the same "CUDA out of memory" means different things while
loading weights and while capturing CUDA graphs); ``implies`` states what the error proves about a value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

CATALOG_FILE = "error_signatures.json"


@dataclass(frozen=True)
class Signature:
    """One catalog entry (``error_signatures.json``)."""

    id: str
    code: str
    framework: str  # "sglang", "vllm" or "any"
    regex: str  # compiled on first use (``pattern``): most entries never see a line of a given log
    meaning: str
    settings: tuple[str, ...]
    fix: str
    source: str
    stage: str | None = None
    when_stage: str | None = None
    implies: dict[str, dict[str, Any]] = field(default_factory=dict)
    severity: str | None = None
    wrapper: bool = False
    # raised only by code that runs in the started server (a worker's CUDA kernel): a file holding it is past
    # the configuration line, whatever step it shows
    after_args: bool = False
    # literal text every match starts with (``required_prefix``): a line without it is skipped uncompiled
    needle: str = ""
    # a regex the error's traceback frames must hold (``frames``) or must not (``not_frames``): the same
    # exception line means another thing raised elsewhere (EADDRINUSE in vLLM's own free-port search is
    # not the HTTP port taken)
    frames: str | None = None
    not_frames: str | None = None
    # an entry with no ``needle`` whose every alternative has a literal start (``alternative_needles``): a
    # line holding none of them is skipped uncompiled (31 entries were searched on every error line)
    needles: tuple[str, ...] = ()

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return re.compile(self.regex)


@dataclass(frozen=True)
class Catalog:
    """The loaded catalog, entries in matching order (specific first)."""

    version: int
    signatures: tuple[Signature, ...]


# Signature's fields in their order: a kept copy of the catalog is one tuple of their values per entry
_FIELDS = tuple(Signature.__dataclass_fields__)


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """The bundled catalog, compiled once, from the copy kept between runs when there is one.

    Parsing the JSON, working out each entry's ``needle`` and creating its ``Signature`` was 8 M
    instructions of every ``log`` run (issue 18), the same answer each time: ``resolver/data_cache.py``
    keeps it as ``marshal`` data, keyed by this module and the JSON file (a changed entry, or a changed
    ``required_prefix``, builds it again). The entries are made as the frozen dataclass's ``__init__``
    makes them (each field set in the instance's ``__dict__`` in order, no ``__post_init__``) without
    calling it: half the cost of a copy's load (tests/log/test_signatures.py compares them)."""
    from argtrace.resolver.data_cache import cached

    here = Path(__file__)
    source = here.resolve().parents[2] / "data" / CATALOG_FILE
    version, rows = cached("error-signatures", (source, here), lambda: _catalog_rows(source))
    new = object.__new__
    signatures = []
    for row in rows:
        sig = new(Signature)
        sig.__dict__.update(zip(_FIELDS, row, strict=True))
        signatures.append(sig)
    return Catalog(version=version, signatures=tuple(signatures))


def _catalog_rows(source: Path) -> tuple[int, tuple[tuple[Any, ...], ...]]:
    """The catalog parsed from ``source`` as plain data: its version and each entry's field values."""
    catalog = parse_catalog(json.loads(source.read_text(encoding="utf-8")))
    return catalog.version, tuple(tuple(sig.__dict__[name] for name in _FIELDS) for sig in catalog.signatures)


def parse_catalog(data: dict[str, Any]) -> Catalog:
    sigs = []
    seen: set[str] = set()
    for entry in data["signatures"]:
        if entry["id"] in seen:
            raise ValueError(f"duplicate signature id {entry['id']!r}")
        seen.add(entry["id"])
        sigs.append(
            Signature(
                id=entry["id"],
                code=entry["code"],
                framework=entry.get("framework", "any"),
                regex=entry["pattern"],
                needle=required_prefix(entry["pattern"]),
                meaning=entry["meaning"],
                settings=tuple(entry.get("settings", ())),
                fix=entry["fix"],
                source=entry["source"],
                stage=entry.get("stage"),
                when_stage=entry.get("when_stage"),
                implies=dict(entry.get("implies", {})),
                severity=entry.get("severity"),
                wrapper=bool(entry.get("wrapper", False)),
                after_args=bool(entry.get("after_args", False)),
                frames=entry.get("frames"),
                not_frames=entry.get("not_frames"),
                needles=alternative_needles(entry["pattern"]),
            )
        )
    return Catalog(version=int(data.get("version", 1)), signatures=tuple(sigs))


# The leading literal of an expression: plain characters and escaped ones that are not alphanumeric (``\d``,
# ``\b``, ``\1`` are no literal; ``[^\W_]`` is ``str.isalnum``, sre's own test of a word character less "_").
_LITERALS = re.compile(r"(?:[^.^$*+?{}\[\]()|\\]|\\(?![^\W_])(?s:.))*")
_ESCAPE = re.compile(r"\\(.)", re.S)


def required_prefix(regex: str) -> str:
    """The literal text every match of ``regex`` starts with ("" when none is certain): its leading plain
    characters (escaped punctuation included), less one made optional or repeatable by a quantifier after it;
    nothing when the expression has a top-level ``|`` or starts with a group, a class or a flag such as
    ``(?i)``. Parsing the expression with ``re`` to find it would cost half of compiling it; so did walking it
    one character at a time in Python (2.7 ms of each ``log`` run for the 82 entries, issue 18): the literal
    run is one match of ``_LITERALS``, and only an expression holding a ``|`` is walked."""
    if "|" in regex and _top_level_alternation(regex):
        return ""
    start = 1 if regex.startswith("^") else 0
    end = _LITERALS.match(regex, start).end()  # type: ignore[union-attr]  # it matches the empty string
    run = regex[start:end]
    after = regex[end : end + 1]
    if after and after in "*?{" and run:  # the last character may be absent
        run = run[:-2] if len(run) >= 2 and run[-2] == "\\" and not _odd_escape(run[:-2]) else run[:-1]
    return _ESCAPE.sub(r"\1", run) if "\\" in run else run


def _odd_escape(text: str) -> bool:
    """Does ``text`` end inside an escape (an odd run of backslashes)?"""
    return (len(text) - len(text.rstrip("\\"))) % 2 == 1


# What the walk below looks at: an escape (a lone "\\" at the end too), a class's brackets, a group's, "|"
_SYNTAX = re.compile(r"\\(?s:.)?|[\[\]()|]")


def _structure(regex: str) -> Iterator[tuple[int, str, int]]:
    """(index, character, group depth after it) of each ``(``, ``)`` and ``|`` of ``regex`` outside every
    class, unescaped: only its syntax characters are visited."""
    depth, in_class, skip_to = 0, False, 0
    for m in _SYNTAX.finditer(regex):
        at, c = m.start(), m.group()
        if at < skip_to or c[0] == "\\":
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            at += 2 if regex[at + 1 : at + 2] == "^" else 1
            skip_to = at + 1 if regex[at : at + 1] == "]" else at  # a "]" first in a class is a literal
        else:
            depth += 1 if c == "(" else -1 if c == ")" else 0
            yield at, c, depth


def _top_level_alternation(regex: str) -> bool:
    """Does ``regex`` hold a ``|`` outside every group and class?"""
    return any(c == "|" and depth == 0 for _at, c, depth in _structure(regex))


def alternative_needles(regex: str) -> tuple[str, ...]:
    """The literal start of each of ``regex``'s top-level alternatives (``required_prefix``), a leading
    ``(?:A|B)`` group read as its own alternatives: every match holds one of them; () when one alternative
    has none (a class, a flag such as ``(?i)``, an optional group), and when ``regex`` has a ``needle``."""
    if required_prefix(regex):
        return ()
    found = _needles(regex)
    return tuple(dict.fromkeys(found)) if found else ()


def _needles(regex: str) -> list[str] | None:
    needles: list[str] = []
    for alternative in _top_level_split(regex):
        prefix = required_prefix(alternative)
        if prefix:
            needles.append(prefix)
            continue
        if not alternative.startswith("(?:"):
            return None
        end = _group_end(alternative)
        if end is None or alternative[end + 1 : end + 2] in ("*", "?", "{"):
            return None  # unclosed, or the group may be absent from a match
        inner = _needles(alternative[3:end])
        if not inner:
            return None
        needles += inner
    return needles


def _top_level_split(regex: str) -> list[str]:
    """``regex`` cut at each ``|`` outside every group and class."""
    parts, last = [], 0
    for at, c, depth in _structure(regex):
        if c == "|" and depth == 0:
            parts.append(regex[last:at])
            last = at + 1
    parts.append(regex[last:])
    return parts


def _group_end(regex: str) -> int | None:
    """The index of the ``)`` closing the group ``regex`` starts with, None when it is not closed."""
    return next((at for at, c, depth in _structure(regex) if c == ")" and depth == 0), None)


# The stage of an error in an excerpt that shows no start-up step before it (analyze.stage_after).
UNKNOWN = "unknown"
# The stages a line's place does not show: no step before it, or no args line yet and nothing of a started
# server ("validation", launch.stage_after's default); there a framework's own words naming the step of an
# error they share with a catch-all entry say more (vllm#19445's sampler warm-up, pasted with torch's
# OutOfMemoryError below it, was "the GPU ran out of memory (during argument validation)").
UNSHOWN = (UNKNOWN, "validation")
# Stages that place a line without naming its step: no step shown, or SGLang's scheduler constructor whose
# frames name none of its steps (stages.frames_stage); a catch-all entry is held there as for "unknown".
UNNAMED = (UNKNOWN, "scheduler_init")


def match_line(
    text: str,
    *,
    framework: str | None,
    stage: str | None,
    catalog: Catalog | None = None,
    frames: str = "",
) -> tuple[Signature, dict[str, str]] | None:
    """The first catalog entry matching ``text`` (entries are ordered specific-first).

    An entry kept for the stage the process was in (``when_stage``, a stage inferred from where the line sits)
    gives way to a later entry whose own message names another stage (``stage``): vLLM's "CUDA out of memory
    occurred when warming up sampler" is the sampler warm-up whatever step the excerpt seems to stop at.
    """
    cat = catalog or load_catalog()
    first: tuple[Signature, dict[str, str]] | None = None
    for sig in cat.signatures:
        if framework and sig.framework not in ("any", framework):
            continue
        if sig.when_stage is not None and sig.when_stage != stage:
            continue
        if sig.frames is not None and not re.search(sig.frames, frames):
            continue
        if sig.not_frames is not None and re.search(sig.not_frames, frames):
            continue
        if first is not None and (sig.stage is None or sig.stage == stage or sig.when_stage is not None):
            continue
        if (
            first is not None
            and stage not in UNNAMED
            and first[0].when_stage is None
            and sig.framework == "any"
        ):
            # held at "validation": only a framework's own words name the step better than the line's place
            # (torch's NCCL watchdog line stays the watchdog's, not the generic NCCL entry's: simplerl#25)
            continue
        if sig.needle and sig.needle not in text:
            continue
        if sig.needles and not any(needle in text for needle in sig.needles):
            continue
        m = sig.pattern.search(text)
        if m:
            hit = sig, {k: v for k, v in m.groupdict().items() if v is not None}
            if first is not None or (
                sig.when_stage is None and (sig.stage is not None or stage not in (*UNSHOWN, *UNNAMED))
            ):
                return hit
            # kept for the stage (when_stage), or, when the file does not show the stage, a catch-all entry
            # ("cuda-oom"): a later entry whose own message names its stage (the sampler warm-up) still wins
            first = hit
    return first


def catch_all(sig: Signature) -> bool:
    """An entry for any framework's line that names no step of its own (``cuda-oom``): what a framework's own
    message naming its step says of the same line is more."""
    return sig.framework == "any" and sig.stage is None and sig.when_stage is None


# What a cut line must still hold to be read as the start of a signature's message: fewer characters name
# too many messages ("Exception: W").
MIN_CUT_CHARS = 16
_CLASS_HEAD = re.compile(r"^(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception): ")


def match_cut(text: str, *, framework: str | None, catalog: Catalog | None = None) -> Signature | None:
    """The catalog entry whose message starts with ``text`` (past an exception class): a copy that ends in
    the middle of the line (vllm#39774's last line ``Exception: WorkerProc initializat``) still holds the
    message's first words. Only the literal start every match has (``needle``); one entry, or none."""
    cat = catalog or load_catalog()
    body = _CLASS_HEAD.sub("", text.strip(), count=1)
    if len(body) < MIN_CUT_CHARS:
        return None
    found = [
        sig
        for sig in cat.signatures
        if (not framework or sig.framework in ("any", framework))
        and len(sig.needle) > len(body)
        and sig.needle.startswith(body)
    ]
    return found[0] if len(found) == 1 else None


def catalog_markdown(catalog: Catalog | None = None) -> str:
    """``docs/log_signatures.md``: the catalog as a table (``python -m argtrace.layers.log.signatures``)."""
    cat = catalog or load_catalog()
    lines = [
        "# Error signatures of the log layer",
        "",
        f"Generated from `src/argtrace/data/error_signatures.json` (catalog version {cat.version}) by "
        "`python -m argtrace.layers.log.signatures`; do not edit by hand.",
        "",
        "Each entry is matched against log lines (after their timestamp/rank/process prefixes). `when stage` "
        "restricts an entry to the start-up stage the process was in, from the timeline and the traceback "
        "frames. A finding carries the entry's rule code and starts with `[id]`.",
        "",
        "| id | code | framework | when stage | meaning | settings | fix | learned from |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    for sig in cat.signatures:
        lines.append(
            "| "
            + " | ".join(
                [
                    f"`{sig.id}`",
                    sig.code,
                    sig.framework,
                    sig.when_stage or sig.stage or "",
                    cell(sig.meaning),
                    ", ".join(f"`{s}`" for s in sig.settings),
                    cell(sig.fix),
                    cell(sig.source),
                ]
            )
            + " |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[4] / "docs" / "log_signatures.md"
    out.write_text(catalog_markdown())
    print(f"wrote {out}")
