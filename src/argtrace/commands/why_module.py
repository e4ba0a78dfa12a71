"""``why`` on Python's ModuleNotFoundError for a module of SGLang or vLLM themselves (``No module named
'vllm.entrypoints.openai.engine'``): which bundled releases have that module.

Python raises these words when an import names a module the installed packages lack; no framework site
prints them (vLLM's ``import_from_path`` "No module named {module_name}" shares only Python's words, and came
first as a weak candidate). When the module is one of the frameworks' own, the message index says which
releases have it: every indexed site records its file per release (``scripts/gen_messages.py`` reads the
wheels), so a module holding a site in vLLM 0.15.1-0.28.0 and in no later release was moved or removed in
0.29.0 (NeMo RL PR#4080: vLLM 0.29 moved ``ErrorResponse`` out of ``vllm.entrypoints.openai.engine``, and code
importing the old module failed). Code that imports it was written for the releases that have it. A module
without an indexed site is not seen (the index knows modules only through their sites), so nothing is said of
it: the origin, Python's import system, stays what ``why`` says.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FORM = re.compile(r"No module named '(?P<module>(?P<fw>sglang|vllm)(?:\.\w+)+)'")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}
# Python's own words in its message: a site printing only these (and placeholders) says nothing of its own
PYTHON_WORDS = frozenset({"no", "module", "named"})


def _spans(chosen: set[str], every: Sequence[str]) -> list[str]:
    """``chosen`` as runs of consecutive releases of ``every`` (oldest first), ``0.15.1-0.28.0``."""
    out: list[list[str]] = []
    previous = False
    for version in every:
        if version in chosen:
            if previous:
                out[-1].append(version)
            else:
                out.append([version])
        previous = version in chosen
    return [run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in out]


def _releases_with(framework: str, module: str) -> tuple[list[str], set[str]]:
    """Every indexed release of ``framework`` (oldest first) and those with a site in ``module``'s file or
    package."""
    from argtrace.resolver.message_store import load_store, sort_releases

    store = load_store(framework) or {}
    every = sort_releases(store.get("releases", {}))
    path = module.replace(".", "/")
    have: set[str] = set()
    for site in store.get("sites", []):
        f = str(site.get("f") or "")
        if f == f"{path}.py" or f.startswith(f"{path}/"):
            have.update(site.get("at") or {})
    return every, have


def module_error(text: str, version: str | None = None) -> dict[str, Any] | None:
    """The module, its framework and the releases that have it, with what that means and the fix; None when
    the text names no module of SGLang or vLLM that Python did not find, or one no indexed site is in."""
    m = _FORM.search(text)
    if m is None:
        return None
    module, fw = m.group("module"), m.group("fw")
    name = _NAME[fw]
    every, have = _releases_with(fw, module)
    found: dict[str, Any] = {"module": module, "framework": fw, "releases": [v for v in every if v in have]}
    if not have:
        # no indexed site in it (``vllm._C``, a compiled extension; a module without raise or log sites): the
        # index cannot say which releases have it, so nothing is said beyond Python's words (why_confidence)
        return None
    spans = ", ".join(_spans(have, every))
    named = f"; {version}, the release named, is not one of them" if version and version not in have else ""
    if version and version in have:
        found["meaning"] = (
            f"{module} is a module of {name} {spans} (the releases with indexed sites in it), {version} "
            "included: the installed package is incomplete, or another copy of it comes first on the path"
        )
        found["fix"] = (
            f"reinstall {name} {version}, and check which copy Python imports (python -c 'import {fw}')"
        )
        return found
    later = [v for v in every if every.index(v) > max(every.index(h) for h in have)]
    gone = f" and in none after it ({later[0]}-{later[-1]})" if later else ""
    found["meaning"] = (
        f"{module} is a module of {name} {spans} (the releases with indexed sites in it){gone}{named}: the "
        "code importing it was written for those releases"
    )
    found["fix"] = (
        f"install a {name} release that has {module} ({spans}), or change the code importing it to the "
        f"installed release's modules (the traceback's frame above the import names that code)"
    )
    return found


def module_origin(found: Mapping[str, Any], origin: dict[str, Any] | None) -> dict[str, Any] | None:
    """``origin`` told with what the releases say: a module other releases have is not a broken install."""
    if origin is None or not found.get("releases") or "included:" in found["meaning"]:
        return origin
    lacks = "Python's import system: the code imports a module the installed release lacks"
    return {**origin, "origin": lacks}


def keep_own_sites(groups: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The sites that print words of their own: one printing only Python's "No module named" and a
    placeholder (vLLM's ``import_from_path``) raised it only if the text says so, which Python's message
    does not."""
    kept = []
    for g in groups:
        literal = re.sub(r"\{[^{}]*\}", " ", str(g.get("message") or ""))
        words = {w.lower() for w in re.findall(r"[A-Za-z]+", literal)}
        if words - PYTHON_WORDS:
            kept.append(g)
    return kept


def render_module(section: Mapping[str, Any]) -> list[str]:
    found = section.get("module")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]
