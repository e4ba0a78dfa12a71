"""``why``: which framework and release a pasted text comes from, to rank that release's sites first.

A text carries its framework in its log format (vLLM's ``ERROR 05-12 10:00:00``, SGLang's ``[2025-05-12
10:00:00 TP0]``, ``framework_of_text``) and often its release in a version line (``vLLM API server version
0.6.3``, ``sglang==0.5.2``); ``--framework-version`` or ``--log`` can say it too. ``preferred_release``
turns what is known into the release whose sites alone are kept or rank first, with the nearest indexed
release (``nearest_indexed``) for one without a message index. It is a unit because it decides only the
ranking's release, never which sites match.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.log.messages import Preferred


_VLLM_LINE = (
    r"(?m)^(?:\S.*?\s)?(?:\(\w+(?: \w+=[\w.]+)*\)\s+)?(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d "
)


_SGLANG_LINE = r"(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: (?:DP|TP|PP|EP)\d+)*\]"


def framework_of_text(text: str) -> str | None:
    """The framework whose log format the text has: vLLM's ``ERROR 05-12 10:00:00`` (after a
    ``(VllmWorker rank=0 pid=1)`` tag), SGLang's ``[2025-05-12 10:00:00 TP0]``."""
    vllm = bool(re.search(_VLLM_LINE, text))
    sglang = bool(re.search(_SGLANG_LINE, text))
    return "vllm" if vllm and not sglang else "sglang" if sglang and not vllm else None


def nearest_indexed(framework: str, releases: Sequence[str], version: str) -> str | None:
    """The indexed release whose code is nearest to ``version`` (``schema.nearest_bundled``'s rule: itself,
    else one of its release family, else the newest older one, else the oldest)."""
    from argtrace.frameworks.schema import nearest_bundled

    return nearest_bundled(framework, version, releases) if releases else None


def _family(version: str) -> str:
    """A release's family: its first two numbers ("0.17" of "0.17.0", "0.9" of "0.9.2rc2.dev167")."""
    return ".".join(re.findall(r"\d+", version)[:2])


def _version_in_text(text: str, framework: str | None) -> tuple[str, str, str] | None:
    """(framework, version, the line's words) of the last version line in the pasted text: vLLM's ``vLLM
    API server version 0.6.3.post1`` / ``Initializing a V1 LLM engine (v0.11.0) with config``, SGLang's
    ``sglang==0.5.2`` / ``sglang version: 0.5.2`` (the patterns ``argtrace log`` reads a log's release
    with)."""
    from argtrace.layers.log.analyze import _SGL_VERSION, _VLLM_CONFIG, _VLLM_VERSION

    found: list[tuple[int, str, str, str]] = []
    for fw, pattern in (("vllm", _VLLM_VERSION), ("vllm", _VLLM_CONFIG), ("sglang", _SGL_VERSION)):
        if framework not in (None, fw):
            continue
        for m in pattern.finditer(text):
            got = next((g for g in m.groups() if g), None)
            if got:
                found.append((m.start(), fw, got, m.group(0).strip()))
    if not found:
        return None
    _, fw, got, words = max(found)
    return fw, got, words


def preferred_release(
    text: str,
    framework: str | None,
    version: str | None,
    args: argparse.Namespace | None,
    indexed: Mapping[str, Sequence[str]],
) -> tuple[str | None, list[Preferred], dict[str, Any] | None]:
    """What decides the ranking by release: (the release to keep only, the releases whose sites rank
    first, the JSON ``release`` entry). ``--framework-version`` of an indexed release keeps only its sites
    (as before); of a release without a message index, the nearest indexed one's sites rank first. Without
    it, a version line in the pasted text, else in ``--log``, ranks its release's sites first."""
    from argtrace.layers.log.messages import Preferred
    from argtrace.resolver.message_store import is_library

    # a library's release is not what a server log's version line names
    names = [framework] if framework else [name for name in indexed if not is_library(name)]
    if version:
        if any(version in indexed.get(fw, ()) for fw in names):
            entry = {"framework": framework, "version": version, "source": "--framework-version"}
            return version, [], entry | {"indexed": version}
        fws = [framework] if framework else [fw for fw in [framework_of_text(text)] if fw] or names
        # a release named without its framework is the framework's that has that release family: "0.17.0"
        # is vLLM's (0.17.1 indexed), not SGLang's, whose nearest (0.5.23) would rank a stray word match of
        # its own above the text's whole message (vllm#36585's transformers message)
        family = [fw for fw in fws if any(_family(v) == _family(version) for v in indexed.get(fw, ()))]
        fws = family or fws
        prefer = [
            Preferred(fw, near)
            for fw in fws
            if (near := nearest_indexed(fw, list(indexed.get(fw, ())), version))
        ]
        one = prefer[0] if len(prefer) == 1 else None
        entry = {
            "framework": one.framework if one else framework,
            "version": version,
            "source": "--framework-version",
            "indexed": one.version if one else None,
        }
        return None, prefer, entry
    found = _version_in_text(text, framework)
    source, at = "text", None
    log = getattr(args, "log", None)
    if found is None and log:
        from argtrace.layers.log.check import logged_release

        for fw in names:
            evidence = logged_release(str(log), fw)
            if evidence is not None:
                found, source, at = (fw, evidence.version, evidence.text), "log", evidence.at
                break
    if found is None:
        return None, [], None
    fw, got, _words = found
    near = nearest_indexed(fw, list(indexed.get(fw, ())), got)
    if near is None:
        return None, [], None
    entry = {"framework": fw, "version": got, "source": source, "indexed": near}
    if at:
        entry["at"] = at
    return None, [Preferred(fw, near)], entry
