"""The bundled raise-site indexes (``frameworks/data/raise_sites/<fw>-<ver>.json``) and matching an error
text against them (``argtrace why``). Stdlib only.

A release's file may be stored as the schemas are (``frameworks/schema_store.py``): its ``sites`` as indexes
into ``<fw>-shared.json`` or patches of its entries; :func:`load_index` gives back the full index."""

from __future__ import annotations

import functools
import re
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RAISE_DIR = Path(__file__).resolve().parent.parent / "frameworks" / "data" / "raise_sites"
_WORD = re.compile(r"[A-Za-z0-9_.\-]+")
MIN_LITERAL = 12  # characters of literal text a message template needs to be matched at all


@functools.cache
def load_index(framework: str, version: str) -> dict[str, Any] | None:
    from argtrace.frameworks.schema_store import RAISE_SITE_KEYS, load_expanded

    path = RAISE_DIR / f"{framework}-{version}.json"
    try:
        return load_expanded(path, RAISE_DIR, RAISE_SITE_KEYS)
    except (OSError, ValueError, KeyError, IndexError):
        return None


def bundled() -> list[tuple[str, str]]:
    out = []
    for path in sorted(RAISE_DIR.glob("*.json")):
        framework, _, version = path.stem.partition("-")
        if version == "shared":  # the shared part of the stored files, not a release
            continue
        out.append((framework, version))
    return out


def literal_words(template: str) -> list[str]:
    """The words of a message template outside its ``{expr}`` placeholders (``None`` between pieces)."""
    words: list[str] = []
    for piece in re.split(r"\{[^{}]*\}", template):
        words.extend(_WORD.findall(piece))
    return words


def score(text: str, site: dict[str, Any]) -> float:
    """1.0 when the site's regex matches the text; else the share of the text's words found, in order, among
    the template's literal words (a truncated or prefixed message still matches); 0 when too few."""
    template = site.get("message") or ""
    if len(" ".join(literal_words(template))) < MIN_LITERAL:
        return 0.0  # "{msg}", "{reason}": the text is built elsewhere, nothing to match on
    regex = site.get("regex")
    if regex:
        try:
            if re.search(regex, text):
                return 1.0
        except re.error:
            pass
    tmpl = literal_words(template)
    words = _WORD.findall(text)
    if len(words) < 3 or not tmpl:
        return 0.0
    # in-order coverage: greedy walk through the template's words
    j = 0
    hits = 0
    for word in words:
        k = j
        while k < len(tmpl) and tmpl[k] != word:
            k += 1
        if k < len(tmpl):
            hits += 1
            j = k + 1
    coverage = hits / len(words)
    return coverage * 0.95 if coverage >= 0.75 else 0.0


def match_error(
    text: str, framework: str | None = None, version: str | None = None, threshold: float = 0.75
) -> list[dict[str, Any]]:
    """Every bundled raise site (optionally of one framework/version) whose message matches ``text``, best
    first, each with ``framework``, ``version`` and ``score`` added."""
    text = " ".join(text.split())
    out = []
    for fw, ver in bundled():
        if (framework and fw != framework) or (version and ver != version):
            continue
        index = load_index(fw, ver) or {}
        for site in index.get("sites", []):
            s = score(text, site)
            if s >= threshold:
                out.append({**site, "framework": fw, "version": ver, "score": round(s, 3)})
    out.sort(key=lambda s: (-s["score"], s["framework"], s["version"]))
    return out
