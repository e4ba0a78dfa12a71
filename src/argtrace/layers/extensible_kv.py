"""``--enable-extensible-kv-cache`` beside a setting the vLLM release refuses it with (PA069).

vLLM 0.34.0's extensible KV cache sizes the cache from the memory the start-up measures, on by default on
CUDA and ROCm. ``VllmConfig._resolve_extensible_kv_cache`` (called from ``__post_init__``) turns it off
without a word when a setting rules it out (``--kv-cache-memory-bytes`` or ``--num-gpu-blocks-override`` fix
the cache's size, elastic EP reuses the profiled size), but refuses the flag written on with such a setting:
"enable_extensible_kv_cache: it sizes the KV cache from measured memory, which kv_cache_memory_bytes
overrides." (ValueError: the engine does not start).

The settings, reasons and words of each release are read from its wheel by scripts/gen_vllm_extensible_kv.py
into frameworks/data/vllm_extensible_kv.json; a release it does not hold, or without the method, gives
nothing. Pure: takes the report, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, LayerResult, Report
from argtrace.package_data import release_facts as package_release_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE = "frameworks/data/vllm_extensible_kv.json"  # written by scripts/gen_vllm_extensible_kv.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_vllm_extensible_kv.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def _flag(report: Report, name: str) -> str:
    setting = report.setting(name)
    return setting.flag if setting is not None and setting.flag else "--" + name.replace("_", "-")


def _blocks(report: Report, blocker: Mapping[str, Any]) -> bool:
    """Whether the launch writes the blocker's setting so that the release's test holds."""
    value = report.written_value(str(blocker.get("setting")))
    if blocker.get("when") == "given":
        return value is not None
    return value is True


def extensible_kv(report: Report) -> LayerResult:
    """PA069 for the extensible KV cache written on beside a setting the release refuses it with."""
    result = LayerResult()
    release = report.parsed_release("vllm")
    if release is None:
        return result  # (Report.parsed_release)
    facts = release_facts(release)
    if not facts or not facts.get("flag"):
        return result
    flag = str(facts["flag"])
    if report.written_value(flag) is not True:
        return result  # off, or not written: the release turns the cache off by itself (no refusal)
    refusal = facts.get("refusal") or {}
    for blocker in facts.get("blockers") or ():
        if not isinstance(blocker, Mapping) or not _blocks(report, blocker):
            continue
        setting = str(blocker["setting"])
        words = str(refusal.get("message", "")).replace("{unsupported}", str(blocker.get("reason")))
        named = report.framework.version is not None
        assumed = "" if named else f" (assumed: nothing names the release; analysed with vllm {release})"
        written = report.written(flag)
        at = written.last_at if written is not None else None
        other = report.written(setting)
        from argtrace.rules.parser import PA_EXTENSIBLE_KV_REFUSED

        result.findings.append(
            PA_EXTENSIBLE_KV_REFUSED.finding(
                f"vllm {release} refuses {_flag(report, flag)} with {_flag(report, setting)} at start-up: "
                f'"{words}" (VllmConfig._resolve_extensible_kv_cache, {refusal.get("where")}; the test at '
                f"{blocker.get('where')}){assumed}",
                at=at,
                evidence=[
                    Evidence(
                        "parser",
                        other.last_at if other is not None else at,
                        f"{flag}=True, {setting}={report.written_value(setting)}",
                    )
                ],
                setting=flag,
                severity="error" if named else "warning",
                fix=f"remove {_flag(report, flag)} (vllm {release} turns the extensible KV cache off by "
                f"itself when {_flag(report, setting)} is set), or remove {_flag(report, setting)}",
            )
        )
        break  # the release raises on its first reason; one finding
    return result
