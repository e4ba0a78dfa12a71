"""RS079: a ``--tool-call-parser`` or ``--reasoning-parser`` name the vLLM release registers no parser for.

Neither flag has argparse choices (``--reasoning-parser`` from 0.11.2): the serve command's
``validate_api_server_args`` checks the words against the parser registries before the engine starts and
raises ``KeyError: 'invalid tool call parser: NAME (chose from { ... })'`` (with
``--enable-auto-tool-choice``) or ``'invalid reasoning parser: ...'``. Which names each release registers,
and where it refuses the others, is read from its wheel (frameworks/vllm_parsers.py). A name the launch's
own ``--tool-parser-plugin`` / ``--reasoning-parser-plugin`` file may register is not judged; a platform
plugin may register one too, which the launch does not show: a warning, never an error. The two parsers are
one check of one function (and usually one cause: a release older than the model), so they are one finding.
"""

from __future__ import annotations

import difflib
from dataclasses import replace

from argtrace.model import Finding, Report, Severity

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# kind -> (the name setting, its flag, the plugin setting that may register more names)
SETTINGS = {
    "tool": ("tool_call_parser", "--tool-call-parser", "tool_parser_plugin"),
    "reasoning": ("reasoning_parser", "--reasoning-parser", "reasoning_parser_plugin"),
}
# the Python calls that build vLLM's engine without the serve command (its parser-name check is not theirs)
ENGINE_CALLS = frozenset({"LLM", "EngineArgs", "AsyncEngineArgs"})
# how many registered names a fix offers (the nearest by spelling)
NEAREST = 3


def _effective(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.effective if setting is not None else None


def engine_call(report: Report) -> bool:
    """The server is a Python call of vLLM's engine (``LLM(...)``, ``EngineArgs(...)``), written as the flags
    it amounts to (layers/transport/python_launch.py): no serve command validates its parser names."""
    server = report.servers[0] if report.servers else None
    calls = (report.sections.get("python") or {}).get("calls") or []
    return server is not None and any(
        c.get("at") == server.at and str(c.get("call") or "").rsplit(".", 1)[-1] in ENGINE_CALLS
        for c in calls
    )


def engine_call_choices(report: Report, findings: list[Finding]) -> list[Finding]:
    """A refused choice (PA009) of a Python call of vLLM's engine (``LLM(device="cuda:7")``) is a note:
    argparse's choices are the serve command's, and the call hands the keyword to EngineArgs as given, so
    whether the release takes it is its config classes' (0.8.1's DeviceConfig took ``cuda:7``, vllm#15783;
    tests/test_real_cases_mem30.py). check.settle_report_verdicts calls it on the settled verdicts."""
    refused = any(f.code == "PA009" and f.severity != "info" for f in findings)
    if not refused or report.framework.name != "vllm" or not engine_call(report):
        return findings
    note = (
        "; but the launch is a Python call of the engine, which runs no argparse: the value reaches "
        "EngineArgs as given, and whether this release takes it is for its config classes"
    )
    return [
        replace(f, severity="info", message=f.message + note)
        if f.code == "PA009" and f.severity != "info"
        else f
        for f in findings
    ]


def _release(report: Report) -> tuple[str | None, str | None]:
    """(the release named or analysed, the bundled release whose record stands in for an unbundled one)."""
    named = report.framework.version
    if named is None:
        return report.framework.analysed_with, report.framework.analysed_with
    from argtrace.frameworks.schema import choose_schema

    schema = choose_schema("vllm", named)[0]
    return named, (schema.version if schema is not None else None)


def _refused(report: Report, kind: str, read: str) -> tuple[str, Any] | None:
    """(the name, the release's record) when the launch gives a ``kind`` parser name ``read`` refuses."""
    from argtrace.frameworks.vllm_parsers import parser_registry

    setting, _, plugin = SETTINGS[kind]
    name = _effective(report, setting)
    if not isinstance(name, str) or not name or name.lower() == "none":
        return None
    registry = parser_registry(read, kind)
    if registry is None or registry.takes(name):
        return None
    # the plugin file is imported before the check (``len(plugin) > 3`` in init_parser_plugin): it may
    # register the name, which nothing here reads
    given = _effective(report, plugin)
    if isinstance(given, str) and len(given) > 3:
        return None
    if any(_effective(report, switch) is not True for switch in registry.needs):
        return None  # the name is never checked (a tool-call parser is not loaded either: RS038)
    return name, registry


def parsers_not_registered(report: Report) -> list[Finding]:
    """RS079 for the described vLLM server: one finding naming each parser the release refuses."""
    from argtrace.frameworks.entrypoints import describe_span
    from argtrace.frameworks.schema import version_key
    from argtrace.frameworks.vllm_parsers import KIND_NAMES, releases_registering
    from argtrace.rules import start_values as rules

    version, read = _release(report)
    if version is None or read is None or engine_call(report):
        return []
    refused = {k: r for k in SETTINGS if (r := _refused(report, k, read)) is not None}
    if not refused:
        return []
    stand_in = "" if read == version else f" (read from {read}, the bundled release of its family)"
    offers: list[str] = []
    registering: set[str] | None = None  # the read releases that register every refused name
    for kind, (name, registry) in refused.items():
        others = releases_registering(name, kind)
        registering = set(others) if registering is None else registering & set(others)
        near = difflib.get_close_matches(name, registry.registered, n=NEAREST, cutoff=0.5)
        offers.append(
            f"{SETTINGS[kind][1]} "
            + (" or ".join(near) if near else f"one of its {len(registry.registered)}")
        )
    kinds = list(refused)
    first, (name, registry) = kinds[0], refused[kinds[0]]
    what = KIND_NAMES[first]
    guard = "".join(f", with --{switch.replace('_', '-')}" for switch in registry.needs)
    message = (
        f"{SETTINGS[first][1]} {name}: vllm {version}{stand_in} registers no {what} of that name, so the "
        f"serve command's check raises KeyError 'invalid {what.replace('-', ' ')}: {name} (chose from "
        f"{{ ... }})' before the engine starts ({registry.refusal_at}{guard}) unless a plugin registers it"
    )
    for kind in kinds[1:]:
        other, at = refused[kind][0], refused[kind][1].refusal_at
        message += (
            f"; {SETTINGS[kind][1]} {other} is refused the same way (no {KIND_NAMES[kind]} {other}, "
            f"'invalid {KIND_NAMES[kind]}' at {at})"
        )
    names = " and ".join(f"{SETTINGS[k][1]} {refused[k][0]}" for k in kinds)
    fix = f"give names vllm {version} registers ({', '.join(offers)})"
    if registering:
        span = describe_span("vllm", sorted(registering, key=version_key))
        message += f"; vllm {span} register {'them' if len(kinds) > 1 else name}"
        fix = f"run a release that registers {names} (vllm {span}), or {fix}"
    setting = report.setting(SETTINGS[first][0])
    # nothing names the release and another release registers every name: the launch may run one of those,
    # so the analysed release's refusal is a note
    severity: Severity | None = "info" if report.framework.version is None and registering else None
    return [
        rules.RS079.finding(
            message,
            at=setting.last_at if setting is not None else None,
            setting=SETTINGS[first][0],
            fix=fix,
            severity=severity,
        )
    ]
