"""Where a finding is, for the CI formats (SARIF, GitHub, gcc, JUnit, JSON lines): a file relative to the
working directory, a line and a column, and a fingerprint that stays the same across runs.

A finding's ``at`` is ``PATH:LINE[:COL]`` with the path as the user typed it, but also ``<-c>:1:5`` for
``-c`` input, a framework file relative to its site-packages, ``LOG:LINE`` or ``URL#pointer``. Only a path
that names a file here is a place a CI system can annotate; any other finding is attached to the file
that was checked (``inputs`` in the report, ``finding_inputs`` for ``argtrace lint``'s several files),
without a line.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_AT = re.compile(r"^(?P<path>.+?)(?::(?P<line>\d+)(?::(?P<col>\d+))?)?$")
# Line and column numbers inside a message move when lines are added above the finding; the fingerprint
# ignores them so that a baseline survives such an edit.
_NUMBERS_IN_PLACES = re.compile(r"(?<=\bline )\d+|(?<=:)\d+")

SEVERITY_ORDER = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True)
class Place:
    """``uri`` relative to the working directory (``/`` separators) or ``file://`` when outside it."""

    uri: str | None
    line: int | None = None
    col: int | None = None


def split_at(at: str | None) -> tuple[str, int | None, int | None] | None:
    """``PATH:LINE[:COL]`` as (path, line, col); ``None`` for a URL, ``<-c>`` or no place at all."""
    if not at or "://" in at or at.startswith("<"):
        return None
    m = _AT.match(at)
    if m is None:
        return None
    line, col = m.group("line"), m.group("col")
    return m.group("path"), int(line) if line else None, int(col) if col else None


def artifact_uri(path: str, cwd: str | None = None) -> str:
    """``path`` relative to ``cwd`` (default: the working directory) when under it, else a ``file://`` URI."""
    base = Path(cwd or os.getcwd()).resolve()
    full = Path(path) if os.path.isabs(path) else base / path
    full = Path(os.path.normpath(full))
    try:
        return full.relative_to(base).as_posix()
    except ValueError:
        return full.as_uri()


def finding_place(finding: dict[str, Any], fallback: str | None, cwd: str | None = None) -> Place:
    """Where a CI system should show this finding (see the module's doc)."""
    parts = split_at(finding.get("at"))
    if parts is not None:
        path, line, col = parts
        here = Path(cwd or os.getcwd())
        if (Path(path) if os.path.isabs(path) else here / path).is_file():
            return Place(artifact_uri(path, cwd), line, col)
    return Place(artifact_uri(fallback, cwd) if fallback else None)


def fallback_inputs(data: dict[str, Any]) -> list[str | None]:
    """The checked file each finding belongs to when its own ``at`` is not a file here."""
    findings = data.get("findings") or []
    inputs = [p for p in data.get("inputs") or [] if isinstance(p, str)]
    per_finding = data.get("finding_inputs")
    if isinstance(per_finding, list) and len(per_finding) == len(findings):
        return [inputs[i] if isinstance(i, int) and 0 <= i < len(inputs) else None for i in per_finding]
    first = inputs[0] if inputs else None
    return [first] * len(findings)


def places(data: dict[str, Any], cwd: str | None = None) -> list[Place]:
    return [
        finding_place(f, fb, cwd)
        for f, fb in zip(data.get("findings") or [], fallback_inputs(data), strict=True)
    ]


def fingerprints(data: dict[str, Any], cwd: str | None = None) -> list[str]:
    """One stable id per finding: the code, the file, the setting and the message without its line numbers,
    hashed; identical ones are numbered in report order. Computed from the redacted report (a mask is itself
    stable), so ``--show-secrets`` and a baseline written without it agree."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for finding, place in zip(data.get("findings") or [], places(data, cwd), strict=True):
        message = _NUMBERS_IN_PLACES.sub("N", str(finding.get("message") or ""))
        parts = (str(finding.get("code")), place.uri or "", str(finding.get("setting") or ""), message)
        key = "\0".join(parts)
        digest = hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]
        n = seen.get(digest, 0)
        seen[digest] = n + 1
        out.append(f"{digest}:{n}")
    return out
