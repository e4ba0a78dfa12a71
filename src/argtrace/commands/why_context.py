"""Sites that raise the same message, ordered by what the pasted text says around it.

vLLM's KV-transfer and encoder-cache factories both raise "Unsupported connector type: {connector_name}"
(LMCache#638 pasted the KV one, and the encoder-cache site ranked first: the newest release's file sorted
first). A traceback frame naming a site's file and function already ranks it first (layers/log/messages.py);
the rest of the text counts too: a word of the text (outside the message) that is a word of one site's file,
function or settings and of none of its twins (``--kv-transfer-config``, ``kv_transfer/``; a flag, path or
code name, not prose) ranks that site first. When the text says nothing either way, a site whose settings
raise the message in every release the other sites' settings do, and in more, comes first: it explains the
text wherever the others do. Sites of one message moved between releases (disjoint releases) keep their
order (the newest release's first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_WORD = re.compile(r"[a-z][a-z0-9]*")
# a word that names code or configuration (a flag, a path, a dotted or snake_case name, a CamelCase class),
# not prose: the source line `raise ValueError(` a traceback quotes is no hint of `raise_if_...`
_LOGGED_AT = re.compile(r"[\w/.-]+\.py:\d+\]?")
_EXCEPTION = re.compile(r"(?:Error|Exception|Warning)\b")
_NAMING = re.compile(r"[\w-]*(?:[_/.]|--|[a-z][A-Z])[\w./-]*")


def _words(*texts: str) -> set[str]:
    """Lower-case word pieces of identifiers and flags (``KVConnectorFactory`` -> kv, connector, factory)."""
    out: set[str] = set()
    for text in texts:
        spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text))
        out |= set(_WORD.findall(spaced.lower()))
    return out


def _vocabulary(group: dict[str, Any]) -> set[str]:
    settings = [s.get("flag") or s.get("name") or "" for s in group.get("settings", [])]
    # the settings' flags, not the attribute chains the site reads (``self.req_to_token_pool``): a pasted
    # value's ``self.max_total_num_tokens=`` is no hint
    return _words(group.get("file") or "", group["function"], *settings)


def _setting_key(group: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(s.get("flag") or s.get("name") or "" for s in group.get("settings", [])))


def _order(twins: Sequence[dict[str, Any]], text_words: set[str], by_coverage: bool) -> list[dict[str, Any]]:
    vocab = [_vocabulary(g) for g in twins]
    shared = set.intersection(*vocab)
    hits = [len((v - shared) & text_words) for v in vocab]
    coverage: dict[tuple[str, ...], set[str]] = {}
    for g in twins:
        coverage.setdefault(_setting_key(g), set()).update(g.get("releases", []))
    # a setting whose sites raise the message in every release another's do, and in more
    dominates = {
        key: sum(1 for other in coverage.values() if other < releases) for key, releases in coverage.items()
    }
    ranked = sorted(
        range(len(twins)), key=lambda i: (-hits[i], -dominates[_setting_key(twins[i])] if by_coverage else 0)
    )
    return [twins[i] for i in ranked]


def context_first(groups: list[dict[str, Any]], text: str, by_coverage: bool) -> list[dict[str, Any]]:
    """``groups`` with each set of sites sharing one message (and match) reordered in the positions they
    hold; ``by_coverage`` False (a release was named: its sites already come first) keeps the text's words
    only."""
    by_message: dict[str, list[int]] = {}
    for i, g in enumerate(groups):
        by_message.setdefault(f"{g['message']}\0{g.get('how')}\0{g.get('specificity')}", []).append(i)
    out = list(groups)
    for positions in by_message.values():
        if len(positions) < 2:
            continue
        twins = [groups[i] for i in positions]
        # the message as printed, its placeholders' values included, is not context: what is around it is
        pieces = re.split(r"\{[^}]*\}", twins[0]["message"])
        printed = r"[^\n]*?".join(re.escape(p) for p in pieces) + (r"\S*" if pieces[-1] == "" else "")
        plain = text.replace('\\"', '"')  # a JSON body's escaped quotes (an HTTP 400's message)
        around = re.sub(printed, " ", plain) if printed.strip() else plain
        # a log prefix's `engine.py:366]` is the file that logged what was raised elsewhere: no hint
        # an exception class (``BadRequestError``) says what was raised, not where
        named = _words(*(w for w in _NAMING.findall(_LOGGED_AT.sub(" ", around)) if not _EXCEPTION.search(w)))
        for at, group in zip(positions, _order(twins, named, by_coverage), strict=True):
            out[at] = group
    return out
