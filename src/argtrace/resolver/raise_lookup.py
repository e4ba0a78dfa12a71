"""The message a ``raise`` statement prints, for a traceback cut right after it (for ``why`` and ``log``).

A copy of a log often stops inside a traceback: the frames are there, the exception line is not. When the
copy's last frame shows its statement (Python 3.11+ prints it under the frame) and that statement is
``raise SomeError(``, the frame's file and function name the raise site in the message index (generated from
the frameworks' wheels, :mod:`argtrace.resolver.message_store`), and the site holds the words the exception
would have printed. sglang#26265's scheduler traceback stops at ``raise RuntimeError(error_m`` in
``mem_cache/common.py``, ``alloc_paged_token_slots_extend``: the index's only ``RuntimeError`` raised there is
"Prefill out of memory. Try to lower your batch size. ...". Only an unambiguous site is given: one message
(template) among the function's raises of that class, in that file; a statement that is not a ``raise``, a
function with two different messages, or a file the index lacks gives None.

An ``assert`` with a message written over several lines puts its condition's line under the frame
(``self.page_size == 1``, Ascend/sglang#522's paste of MambaRadixCache's "Page size must be 1 for
MambaRadixCache v1, got ..."): :func:`asserted_at` gives the one indexed assert of that function whose
condition holds the line, with its message and conditions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from argtrace.resolver.message_store import sites

# ``raise RuntimeError(`` / ``raise torch.OutOfMemoryError(`` / ``raise ValueError("...`` (cut anywhere after
# the parenthesis)
_RAISE = re.compile(r"^raise\s+(?P<cls>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*)\s*\(")
_PACKAGE = re.compile(r"(?:^|/)(?P<rel>(?P<fw>vllm|sglang)/[\w./-]+\.py)$")


@dataclass(frozen=True)
class RaisedAt:
    """The raise site a cut traceback's last statement is: its exception class and message template."""

    framework: str
    file: str  # package-relative (``sglang/srt/mem_cache/common.py``)
    function: str
    exception: str
    message: str  # the template, ``{expr}`` where the code formats a value in
    releases: tuple[str, ...]  # the indexed releases that have it there
    conditions: tuple[str, ...] = ()  # an assert's: the index's conditions under which it fails


def package_file(path: str) -> tuple[str, str] | None:
    """``(framework, package-relative file)`` of a frame's path inside SGLang or vLLM (its last ``sglang/``
    or ``vllm/``: a checkout's ``sglang/python/sglang/srt/x.py``, a report's ``.../sglang/srt/x.py``)."""
    path = path.replace("\\", "/")
    cut = max(path.rfind("/vllm/"), path.rfind("/sglang/"))
    rel = path[cut + 1 :] if cut >= 0 else path
    m = _PACKAGE.search(rel)
    return (m.group("fw"), m.group("rel")) if m else None


def raised_at(path: str, function: str, statement: str | None) -> RaisedAt | None:
    """The one indexed message the ``raise`` statement ``statement`` of ``function`` in ``path`` prints."""
    if not statement:
        return None
    m = _RAISE.match(statement.strip())
    place = package_file(path)
    if m is None or place is None:
        return None
    framework, rel = place
    cls = m.group("cls").split(".")[-1]
    name = function.split(".")[-1]
    try:
        found = [
            s
            for s in sites(framework)
            if s.kind == "raise"
            and s.file == rel
            and s.function.split(".")[-1] == name
            and s.what.split(".")[-1] == cls
        ]
    except Exception:
        return None  # no message index bundled: the frame says what it says
    templates = {s.template for s in found}
    if len(templates) != 1:
        return None
    releases = tuple(dict.fromkeys(r for s in found for r in s.at))
    return RaisedAt(framework, rel, name, cls, templates.pop(), releases)


def asserted_at(path: str, function: str, statement: str | None) -> RaisedAt | None:
    """The one indexed ``assert`` (with a message) of ``function`` in ``path`` whose failing condition holds
    the statement line a cut traceback shows (a multi-line assert's condition line); None when the line is a
    ``raise``, too short to say, or in no or several asserts' conditions."""
    line = " ".join((statement or "").split()).rstrip(",(")
    if len(line) < 6 or _RAISE.match(line) or line.startswith(("raise ", "return ", "def ")):
        return None
    line = line.removeprefix("assert ").strip("() ")
    place = package_file(path)
    if place is None or not line:
        return None
    framework, rel = place
    name = function.split(".")[-1]
    try:
        found = [
            s
            for s in sites(framework)
            if s.kind == "assert"
            and s.file == rel
            and s.function.split(".")[-1] == name
            and any(line in " ".join(c.split()) for c in s.conditions)
        ]
    except Exception:
        return None
    templates = {s.template for s in found}
    if len(templates) != 1:
        return None
    releases = tuple(dict.fromkeys(r for s in found for r in s.at))
    conditions = tuple(dict.fromkeys(c for s in found for c in s.conditions))
    return RaisedAt(framework, rel, name, "AssertionError", templates.pop(), releases, conditions)
