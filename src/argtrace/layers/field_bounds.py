"""A flag's value outside the bound the vLLM release's configuration class declares for it (RS070).

vLLM's configuration classes are pydantic dataclasses: ``ParallelConfig.pipeline_parallel_size`` is
``Field(default=1, ge=1)`` in 0.33.0, so ``--pipeline-parallel-size 0`` stops the start with pydantic's
ValidationError when ``EngineArgs.create_engine_config`` builds the object (releases without the bound took
the 0 and failed later: vllm#54667, "zero pipeline/prefill context parallel size selects no executor
backend"). The bounds, and which flags reach them as written, are read from each release's source
(``frameworks/vllm_field_bounds.py``). The resolver shows the same by running the code (RS001): nothing is
said when it ran.
"""

from __future__ import annotations

from argtrace.model import Finding, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _shown(limit: float) -> str:
    return str(int(limit)) if float(limit).is_integer() else str(limit)


def values_out_of_bounds(report: Report) -> list[Finding]:
    """RS070: settings whose value breaks the bound of the configuration field they set."""
    from argtrace.frameworks.vllm_field_bounds import WORDS, field_bounds, releases
    from argtrace.rules import start_values as rules

    if report.framework.name != "vllm":
        return []
    if (report.sections.get("resolution") or {}).get("status") not in (None, "skipped"):
        return []  # the resolver ran the release's code: RS001 reports pydantic's refusal
    version = report.framework.version or report.framework.analysed_with
    read = field_bounds(version) if version else None
    reference = read if read is not None else (field_bounds(releases()[-1]) if releases() else None)
    if reference is None:
        return []
    out: list[Finding] = []
    for setting in report.settings:
        bounds = reference.get(setting.dest or "")
        value = _number(setting.effective)
        if bounds is None or value is None or setting.unknown_to_framework:
            continue
        broken = bounds.broken(value)
        if broken is None:
            continue
        name, limit = broken
        flag = setting.flag or setting.name
        at = setting.last_at
        shown = _shown(value)
        bound = f"Field({name}={_shown(limit)}), {bounds.at}"
        fix = f"give {flag} a value {WORDS[name]} {_shown(limit)}"
        if read is not None:
            out.append(
                rules.RS070.finding(
                    f"{flag} {shown}: vllm {version} stops at start-up: {bounds.field} is declared {bound}, "
                    f'so pydantic refuses {shown} ("Input should be {WORDS[name]} {_shown(limit)}") when '
                    "EngineArgs.create_engine_config builds the configuration",
                    at=at,
                    setting=setting.name,
                    fix=fix,
                )
            )
        else:
            out.append(
                rules.RS070.finding(
                    f"{flag} {shown}: vllm {releases()[-1]} refuses it ({bounds.field} is declared {bound}); "
                    f"vllm {version}'s source was not read, so whether it does too is assumed",
                    at=at,
                    setting=setting.name,
                    fix=fix,
                    severity="info",
                )
            )
    return out
