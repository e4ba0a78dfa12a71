"""``why`` on vLLM's V1 oracle (0.8.5.post1-0.11.0): "<feature> is not supported by the V1 Engine. Falling
back to V0" or "VLLM_USE_V1=1 is not supported with <feature>".

Both come from ``_raise_or_fallback`` (vllm/engine/arg_utils.py), which logs or raises unconditionally: the
decision is its caller's, ``EngineArgs._is_v1_supported_oracle``, one ``if`` per feature. Its generic fix
("avoid the call path") leaves the user nowhere (vllm#20752: "Pipeline Parallelism without Ray distributed
executor ..."). The oracle's calls, with their if-tests and the settings those read, are read from each
wheel (frameworks/vllm_engine_overrides.py): the feature the text names is looked up there, and the match
gains the test and its settings.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FEATURE = re.compile(
    r"(?:VLLM_USE_V1=1 is not supported with (?P<raised>.+?)\.(?:\s|$)|"
    r"(?P<logged>\S.*?) is not supported by the V1 Engine)"
)


def _pattern(template: str) -> re.Pattern[str]:
    parts = [re.escape(p) for p in template.split("{}")]
    return re.compile(".+?".join(parts) + "$")


def add_v1_fallback_cause(groups: list[dict[str, Any]], text: str, version: str | None = None) -> None:
    """On a first match in ``_raise_or_fallback``: the oracle's test for the feature the text names."""
    from argtrace.frameworks import vllm_engine_overrides as data

    if not groups:
        return
    first = groups[0]
    if first.get("framework") != "vllm" or first.get("function") != "_raise_or_fallback":
        return
    m = _FEATURE.search(text)
    if m is None:
        return
    feature = (m.group("raised") or m.group("logged") or "").strip()
    # a log prefix before the feature (``WARNING 07-10 ... [arg_utils.py:1658] ``)
    feature = re.sub(r"^.*\]\s*", "", feature)
    found: dict[str, data.V1Fallback] = {}
    for release in data.releases():
        for entry in data.v1_fallbacks(release):
            if _pattern(entry.feature).match(feature):
                found[release] = entry
    if not found:
        _unlisted_flag(first, feature)
        return
    release = version if version in found else sorted(found, key=list(data.releases()).index)[-1]
    entry = found[release]
    from argtrace.layers.engine_overrides import _span

    releases = _span([r for r in data.releases() if r in found])
    flags = [f for f in entry.fields]
    if not flags and feature.startswith("--"):
        flags = [feature.split()[0].split("=")[0].lstrip("-").replace("-", "_")]
    cond = " and ".join(entry.when) or "unconditionally"
    shown = " and ".join("--" + f.replace("_", "-") for f in flags) or "the setting it names"
    first["fix"] = (
        f"vllm {releases} {'sends' if len(found) == 1 else 'send'} the launch back to the V0 engine for "
        f"{feature!r} (EngineArgs.{entry.function}, {entry.where} in {release}) when {cond}: change {shown} "
        "so that it no longer holds to keep the V1 engine; with VLLM_USE_V1=1 the same test raises instead"
    )
    if flags:
        first["settings"] = [
            {"name": f, "flag": "--" + f.replace("_", "-"), "framework": "vllm"} for f in flags
        ]


def _unlisted_flag(first: dict[str, Any], feature: str) -> None:
    """A feature that is a flag none of the read releases' oracles lists (vllm#16395: "--kv-transfer-config
    is not supported by the V1 Engine", logged by a release before 0.8.5.post1, whose V1 engine had no KV
    connector yet): the release that logged it is not read, but the flag is the setting, and the read
    releases' V1 engine takes it (their oracle has no test for it)."""
    from argtrace.frameworks import vllm_engine_overrides as data
    from argtrace.frameworks.schema import load_schema
    from argtrace.layers.engine_overrides import _span

    flag = feature.split()[0].split("=")[0] if feature.startswith("--") else ""
    read = [r for r in data.releases() if data.v1_fallbacks(r)]
    if not flag or not read:
        return
    taking = [r for r in read if load_schema("vllm", r).option(flag) is not None]
    if not taking:
        return
    name = flag.lstrip("-").replace("-", "_")
    first["fix"] = (
        f"the V1 engine of the release that logged this does not take {flag} and sends the launch back to "
        f"V0; the V1 oracle of vllm {_span(taking)} (EngineArgs._is_v1_supported_oracle) has no test for "
        f"{flag}: run one of those (or later), or drop {flag} to keep the V1 engine"
    )
    first["settings"] = [{"name": name, "flag": flag, "framework": "vllm"}]
