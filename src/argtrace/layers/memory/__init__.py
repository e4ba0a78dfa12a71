"""The memory layer: will a launch fit in GPU memory, and which settings make it fit.

Entry points:

- ``analyze_memory(model_config, gpu, settings, framework, version, *, env=None, framework_argv=None)`` ->
  ``LayerResult`` with
  ``sections["memory"]`` (see docs/memory.md) and findings of layer ``memory`` (MM001...).
- ``settings_from_report(report)``: the effective values and environment ``check`` already computed, in the
  shape ``analyze_memory`` takes.

Heavy work is imported lazily so ``import argtrace.layers.memory`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import LayerResult, Report


def analyze_memory(
    model_config: Path,
    gpu: str | None,
    settings: Mapping[str, Any],
    framework: str,
    version: str | None,
    *,
    env: Mapping[str, str] | None = None,
    framework_argv: Sequence[str] | None = None,
    framework_suggestions: bool = True,
    optional: bool = False,
) -> LayerResult:
    from argtrace.layers.memory.analyze import analyze_memory as _analyze

    return _analyze(
        Path(model_config),
        gpu,
        settings,
        framework,
        version,
        env=env,
        framework_argv=framework_argv,
        framework_suggestions=framework_suggestions,
        optional=optional,
    )


def settings_from_report(report: Report) -> tuple[dict[str, Any], dict[str, str]]:
    """(effective settings by dest name, the server process's environment) from a ``check`` report."""
    settings = {s.name: s.effective for s in report.settings if s.effective is not None}
    env: dict[str, str] = {}
    if report.process is not None:
        env = {k: v for k, v in report.process.env.items() if v is not None}
    return settings, env
