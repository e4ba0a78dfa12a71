"""``why`` on an ``assert COND`` quoted alone whose assert prints a message.

The assert index (``resolver/assert_lookup.find_quoted``) holds the asserts that print nothing; an assert
with a message is in the message index instead, found by its words. A report that quotes the statement and
not the message (a title: sglang#3436's "How to solve assert numerator % denominator == 0", the line Python
prints under the last frame) matched neither, and ``why`` answered nothing. The message index keeps each
assert's failing condition (``not (numerator % denominator == 0)``): the quoted condition is looked up there.
One site: its message, releases and fix (the parallel layers' divisibility helper gets what its callers pass,
:mod:`argtrace.commands.why_divisible`); several files with it: ambiguous, as for the assert index.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NOT = re.compile(r"^not \((?P<cond>.*)\)$", re.S)
_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


def _failing(condition: str) -> str:
    """The asserted condition of an indexed failing condition (``not (X)`` -> ``X``)."""
    m = _NOT.match(condition.strip())
    return m.group("cond") if m else condition


def _span(releases: list[str], framework: str) -> str:
    """``0.4.0.post2-0.5.23`` for the indexed releases that have the site (first and last, in order)."""
    from argtrace.frameworks.schema import version_key

    ordered = sorted(set(releases), key=version_key)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}-{ordered[-1]}"


def find_quoted_message(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The ``why`` traceback section (state ``quoted``) of the message-index assert whose condition the text
    quotes as ``assert COND``, or None."""
    from argtrace.resolver.assert_index import normalize
    from argtrace.resolver.assert_lookup import quoted_condition
    from argtrace.resolver.message_store import frameworks, sites

    quoted = quoted_condition(text)
    if quoted is None:
        return None
    condition = quoted[0]
    found = []
    for fw in [framework] if framework else frameworks():
        try:
            indexed = sites(fw)
        except Exception:
            continue  # no message index bundled for it
        for site in indexed:
            if site.kind != "assert" or len(site.conditions) != 1:
                continue
            if normalize(_failing(site.conditions[0])) == condition:
                found.append(site)
    if not found:
        return None
    # the file asserting it in the most releases first (SGLang's srt/ helper before the diffusion runtime's)
    spread: dict[tuple[str, str], set[str]] = {}
    for site in found:
        spread.setdefault((site.framework, site.file), set()).update(site.at)
    ranked = sorted(spread, key=lambda k: -len(spread[k]))
    fw = ranked[0][0]
    files = [f for w, f in ranked if w == fw]
    mine = [s for s in found if s.framework == fw]
    first = next(s for s in mine if s.file == files[0])
    others = [f"{_NAME.get(w, w)}'s {f}" for w, f in ranked if w != fw][:2]
    releases = _span([r for s in mine if s.file == first.file for r in s.at], fw)
    message = "".join(p if isinstance(p, str) else "{" + ",".join(p) + "}" for p in first.parts)
    from argtrace.commands.why_divisible import divisibility_fix

    fix = divisibility_fix(fw, first.file) or (
        f"`why` on the message it prints ('{message[:80]}') shows the values; the launch's settings and the "
        "model that lead to it decide them"
    )
    also = next((w for w, _ in ranked if w != fw), None)
    if also is not None and divisibility_fix(also, next(f for w, f in ranked if w == also)) is not None:
        from argtrace.commands.why_divisible import TP_FLAG

        fix += f" (in {_NAME.get(also, also)}, which has the same helper: {TP_FLAG[also]})"
    where = f"{_NAME.get(fw, fw)}'s {first.function} ({first.file}; {releases})"
    meaning = (
        f"the quoted assert is {where}: it fails with AssertionError: '{message[:120]}' when `{condition}` "
        "is false (the message index's assert; the text quotes its statement, not its message)"
    )
    if len(files) > 1 or others:
        meaning += f"; the same assert is also in {', '.join([*files[1:4], *others])}"
    return {
        "state": "quoted",
        "framework": fw,
        "file": first.file,
        "function": first.function,
        "line": None,
        "source": f"assert {condition}",
        "exception": "AssertionError",
        "deepest": True,
        "settings": [],
        "meaning": meaning,
        "fix": fix,
    }
