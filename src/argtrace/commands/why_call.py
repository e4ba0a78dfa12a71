"""Python's own TypeError at a call (``Worker.__init__() got an unexpected keyword argument 'x'``): the
callee and the argument it refused, and the sites that may explain it.

No framework writes these words: the interpreter raises them when a call does not fit the callee's
signature. On real reports (vllm#11986, vllm#16339) the caller and the callee came from two releases that
do not fit (a worker class of one build, the engine of another; vLLM and an older llguidance). A site ranked
on the interpreter's words alone (SGLang's ``rank_consensus() got unexpected keyword argument(s)``) is not
where it failed: only a site of the callee the text names is kept. The forms were recorded from CPython
3.11 (tests/test_why_shell.py calls functions to check each form still parses).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# A callee starts only where a run of name characters starts, and its run is read once (possessive): a
# pasted 117 KB run of letters took re.search over 120 s before (every start, every backtrack; probe of s13).
_CALLEE = r"(?<![\w.])(?P<callee>[A-Za-z_][\w.]*+)\(\)"
CALL_FORMS = (
    ("unexpected keyword", _CALLEE + r" got an unexpected keyword argument '(?P<arg>\w+)'"),
    (
        "missing argument",
        _CALLEE + r" missing \d+ required (?:positional|keyword-only) arguments?: '(?P<arg>\w+)'",
    ),
    (
        "too many positional",
        _CALLEE + r" takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given",
    ),
    (
        "positional-only as keyword",
        _CALLEE + r" got some positional-only arguments passed as keyword arguments: '(?P<arg>\w+)'",
    ),
    ("multiple values", _CALLEE + r" got multiple values for argument '(?P<arg>\w+)'"),
)


def call_error(text: str) -> dict[str, Any] | None:
    """The callee, the argument and the kind of Python's call TypeError the text holds; None without one."""
    for kind, pattern in CALL_FORMS:
        m = re.search(pattern, text)
        if m is None:
            continue
        callee, arg = m.group("callee"), m.groupdict().get("arg")
        said = f"argument {arg!r}" if arg else "its positional arguments"
        return {
            "kind": kind,
            "callee": callee,
            "argument": arg,
            "evidence": m.group(0),
            "meaning": f"Python's own TypeError at a call to {callee}: the caller passed {said} in a way the "
            f"installed {callee} does not take ({kind}); no flag is checked here",
            "fix": f"the caller and {callee} come from releases that do not fit: install the releases of the "
            "two packages that go together (the caller's release names the one it needs), or the build "
            "whose own code makes the call",
        }
    return None


def origin_of_call(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for Python's call TypeError: the interpreter, by its wording."""
    found = call_error(text)
    if found is None:
        return None
    return {
        "origin": f"Python's interpreter: a call to {found['callee']} that does not fit its signature",
        "basis": "wording",
        "evidence": found["evidence"],
        "source": "recorded from CPython 3.11 (tests/test_why_shell.py calls functions to check the forms)",
    }


def _names(callee: str) -> set[str]:
    """``Worker.__init__`` also names the class ``Worker``; ``validate_grammar`` names itself."""
    parts = callee.split(".")
    out = {callee, ".".join(parts[-2:])}
    if parts[-1] == "__init__" and len(parts) > 1:
        out.add(parts[-2])
    return out


def keep_callee_sites(groups: list[dict[str, Any]], callee: str) -> list[dict[str, Any]]:
    """The sites of the callee the text names (its function, or its class's ``__init__``); a site
    sharing only the interpreter's words is not where it failed."""
    names = _names(callee)
    return [
        g for g in groups if g["function"] in names or any(g["function"].endswith("." + n) for n in names)
    ]


def render_call(section: Mapping[str, Any]) -> list[str]:
    found = section.get("call")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]
