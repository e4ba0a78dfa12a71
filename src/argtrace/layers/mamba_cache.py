"""The Mamba cache mode a vLLM launch writes, against what the release does with it (RS075, RS076).

vLLM keeps the recurrent (Mamba, GDN) state of a hybrid model's requests per ``--mamba-cache-mode``
(``align``, ``all``; vLLM 0.16.0-0.32.0 pass the flag on to ``CacheConfig``). ``MambaModelConfig.
verify_and_update_config`` reads it only with prefix caching: without it the mode is set to ``none``, with one
warning line, while the API server's "non-default args" line still shows the mode written
(syv-ai/qwen38-27b-rtx3090#25, vLLM 0.28.0: arms meant to keep ``align`` with the prefix cache off ran in mode
none) -> RS075, the value is lost. With prefix caching the same method asserts what the mode needs: chunked
prefill (``"Chunked prefill is required for mamba cache mode 'align'."``, every release), no speculative
decoding (0.16.0 only) -> RS076, the start fails on a hybrid model, the only kind that reads the mode.

Each release's code is read by scripts/gen_vllm_mamba_cache.py into frameworks/data/vllm_mamba_cache.json; a
release it does not hold (no wheel read) gives nothing. Only settings the launch writes are judged: a default
prefix caching or chunked prefill depends on the model class (``is_prefix_caching_supported``), which a
plain check does not read. Pure: takes the report, returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace.model import Evidence, LayerResult, Report
from argtrace.package_data import release_facts as package_release_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# what each requirement of the prefix-caching branch needs, in a launch's words: (the setting, the value it
# must not be written with, the flag that writes it, the fix)
_NEEDS = {
    "chunked_prefill": (
        "enable_chunked_prefill",
        False,
        "--no-enable-chunked-prefill",
        "remove --no-enable-chunked-prefill (vLLM turns chunked prefill on by default), or disable prefix "
        "caching",
    ),
    "no_speculative": (
        "speculative_config",
        None,
        "--speculative-config",
        "remove --speculative-config, or use another Mamba cache mode",
    ),
}


_TABLE = "frameworks/data/vllm_mamba_cache.json"  # written by scripts/gen_vllm_mamba_cache.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_vllm_mamba_cache.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def mamba_cache(report: Report) -> LayerResult:
    """RS075 for a Mamba cache mode the release drops without prefix caching, RS076 for one whose prefix
    caching branch asserts a setting the launch turns off."""
    result = LayerResult()
    release = report.parsed_release("vllm")
    if release is None:
        return result  # (Report.parsed_release)
    facts = release_facts(release)
    if not facts or not facts.get("reaches_cache"):
        return result  # not read, or the flag no longer reaches the cache (PA016: deprecated, no effect)
    mode = report.written("mamba_cache_mode")
    if mode is None or not isinstance(mode.effective, str) or mode.effective == "none":
        return result
    value, at = mode.effective, mode.last_at
    caching = report.written("enable_prefix_caching")
    from argtrace.rules.start_values import RS075, RS076

    off = facts.get("off_without_prefix_caching")
    if caching is not None and caching.effective is False:
        if isinstance(off, Mapping):
            result.findings.append(
                RS075.finding(
                    f"--mamba-cache-mode {value} is lost: prefix caching is disabled (--no-enable-prefix-"
                    f"caching), and vllm {release} then sets the Mamba cache mode to 'none' "
                    f"(MambaModelConfig.verify_and_update_config, {off.get('where')}: "
                    f'"{off.get("warning")}"); '
                    f"the server's \"non-default args\" line still shows mamba_cache_mode '{value}'",
                    at=at,
                    evidence=[
                        Evidence("parser", at, f"mamba_cache_mode={value}"),
                        Evidence("parser", caching.last_at, "enable_prefix_caching=False"),
                    ],
                    setting="mamba_cache_mode",
                    fix=f"enable prefix caching (--enable-prefix-caching): vllm {release} keeps a Mamba "
                    "cache mode only with it; or remove --mamba-cache-mode",
                )
            )
        return result
    if caching is None or caching.effective is not True:
        return result  # prefix caching by default: it depends on the model class, not read here
    for need in facts.get("prefix_caching_requires") or ():
        if not isinstance(need, Mapping) or need.get("mode") not in ("any", value):
            continue
        known = _NEEDS.get(str(need.get("needs")))
        if known is None:
            continue
        name, refused, flag, fix = known
        other = report.written(name)
        if other is None or (refused is False and other.effective is not False):
            continue
        result.findings.append(
            RS076.finding(
                f"--mamba-cache-mode {value} with --enable-prefix-caching and {flag} stops the start on a "
                f"hybrid (Mamba) model, the only kind that reads the mode: vllm {release} asserts "
                f'"{need.get("message")}" (MambaModelConfig.verify_and_update_config, {need.get("where")})',
                at=other.last_at or at,
                evidence=[
                    Evidence("parser", at, f"mamba_cache_mode={value}, enable_prefix_caching=True"),
                    Evidence("parser", other.last_at, f"{name}={other.effective!r}"),
                ],
                setting=name,
                fix=fix,
            )
        )
    return result
