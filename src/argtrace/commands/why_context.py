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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WORD = re.compile(r"[a-z][a-z0-9]*")
# a word that names code or configuration (a flag, a path, a dotted or snake_case name, a CamelCase class),
# not prose: the source line `raise ValueError(` a traceback quotes is no hint of `raise_if_...`
# Each may begin only where a run of its characters begins (the lookbehind): a start inside the run finds
# nothing a start at its beginning does not, and without it a 50,000-character word was scanned once from
# every position, minutes of a pasted line of zeros (probe of session 15).
_LOGGED_AT = re.compile(r"(?<![\w/.-])[\w/.-]+\.py:\d+\]?")
_EXCEPTION = re.compile(r"(?:Error|Exception|Warning)\b")
_NAMING = re.compile(r"(?<![\w-])[\w-]*(?:[_/.]|--|[a-z][A-Z])[\w./-]*")


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


def without_printed(text: str, pieces: list[str]) -> str:
    """``text`` with every printed copy of a message replaced by a blank: its literal ``pieces`` in order, the
    placeholders' values between them on one line (and, after a message ending in a placeholder, the rest of
    that word).

    The same as ``re.sub`` of the pieces joined by ``[^\\n]*?``, found by plain searches: that pattern
    backtracked over every start and every split of a long line (probe of session 15: a pasted line of
    50,000 zeros under a message with several ``{}`` took over a minute). Here a piece not found on its
    line ends the search on that line: a later start on it cannot find it either."""
    first, rest = pieces[0], pieces[1:]
    out: list[str] = []
    done = pos = 0
    while pos <= len(text):
        start = text.find(first, pos)
        if start < 0:
            break
        at = start + len(first)
        for piece in rest:
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
            found = text.find(piece, at, line_end + len(piece))
            if found < 0:
                at = -1
                break
            at = found + len(piece)
        if at < 0:  # not on this line: go on after it
            line_end = text.find("\n", start + len(first))
            if line_end < 0:
                break
            pos = line_end + 1
            continue
        if rest and pieces[-1] == "":
            while at < len(text) and not text[at].isspace():
                at += 1
        out.append(text[done:start])
        out.append(" ")
        done = pos = max(at, start + 1)
    out.append(text[done:])
    return "".join(out)


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
        plain = text.replace('\\"', '"')  # a JSON body's escaped quotes (an HTTP 400's message)
        around = without_printed(plain, pieces) if "".join(pieces).strip() else plain
        # a log prefix's `engine.py:366]` is the file that logged what was raised elsewhere: no hint
        # an exception class (``BadRequestError``) says what was raised, not where
        named = _words(*(w for w in _NAMING.findall(_LOGGED_AT.sub(" ", around)) if not _EXCEPTION.search(w)))
        for at, group in zip(positions, _order(twins, named, by_coverage), strict=True):
            out[at] = group
    return lead_first(out, text)


_CLASS_PREFIX = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning):\s*")
_HOLE = re.compile(r"\{[^{}]*\}")
_NEAR = 8  # how far down the list a site that prints the text's opening words is looked for


def _opening(text: str, head: str) -> str | None:
    """The words the text's exception message prints before ``head`` on its line, after its class
    (``AttributeError: MoE Model X ...`` before ``Model``), or None."""
    for line in text.splitlines():
        at = line.find(head)
        if at <= 0:
            continue
        classes = list(_CLASS_PREFIX.finditer(line[:at]))
        if not classes:
            continue
        lead = line[classes[-1].end() : at].strip()
        if lead and re.fullmatch(r"[A-Za-z][\w-]*(?: [A-Za-z][\w-]*){0,2}", lead):
            return lead
    return None


def lead_first(groups: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
    """``groups`` with a site that prints the words the text's message opens with put before a first site
    that does not print them. vllm#25653's title "AttributeError: MoE Model GptOssForCausalLM does not support
    BitsAndBytes quantization yet." holds the whole of vLLM 0.5-0.6's "Model {name} does not support
    BitsAndBytes quantization yet." (a full match) after "MoE", which only the MoE loader's "MoE Model {name}
    does not support ..." prints (a partial match: the title drops its last sentence); the one that prints
    the words the message opens with raised it."""
    if len(groups) < 2 or groups[0].get("kind") in ("log", "warn"):
        return groups
    pieces = _HOLE.split(str(groups[0].get("message") or ""))
    head = pieces[0].strip()
    if len(pieces) < 2 or not re.match(r"[A-Za-z]", head):
        return groups  # opens with a placeholder: any words may come first
    lead = _opening(text, head)
    if lead is None:
        return groups
    for i, g in enumerate(groups[1:_NEAR], start=1):
        own = _HOLE.split(str(g.get("message") or ""))[0].strip()
        if own.startswith(f"{lead} ") and head in own and g.get("kind") not in ("log", "warn"):
            return [g, *groups[:i], *groups[i + 1 :]]
    return groups


def of_the_texts_framework(groups: list[dict[str, Any]], framework: str | None) -> list[dict[str, Any]]:
    """Only the sites of the framework whose log format the text has (``why_release.framework_of_text``:
    vLLM's ``INFO 09-25 10:53:35 [file.py:12]``, SGLang's ``[2025-09-25 10:53:35 TP0]``) and of the libraries
    it loads: another framework's process printed none of those lines. Qwen3-VL#1493 pasted vLLM worker lines
    ending in transformers' "`torch_dtype` is deprecated!", and SGLang's deprecated-argument warning came
    first on a 22-character partial match."""
    from argtrace.resolver.message_store import is_library

    if framework is None:
        return groups
    return [g for g in groups if g["framework"] == framework or is_library(g["framework"])]
