"""What ``argtrace mcp`` offers a coding agent, without the MCP SDK: the tools' inputs turned into argtrace
command lines, and a report turned into the short text an agent reads first.

Each tool runs argtrace itself in a child process (``python -m argtrace ... --format json``). A child
keeps the protocol's stdout clean (nothing a command prints can corrupt the JSON-RPC stream), gives every
call a deadline that kills the whole process group, and keeps the output boundary the CLI already has: the
JSON comes back redacted, and no tool can ask for ``--show-secrets``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
EXIT_USAGE = 2
# The longest a tool waits for one argtrace command: a first resolution of a framework takes 10-40 s, a
# framework-sizing run up to a minute; ten minutes means the command is stuck.
DEFAULT_TIMEOUT_S = 600.0


class ToolInputError(ValueError):
    """The tool's arguments cannot make an argtrace command (shown to the agent as a tool error)."""


@dataclass(frozen=True)
class Invocation:
    """One argtrace command line (without the interpreter) and whether its stdout is JSON."""

    words: tuple[str, ...]
    json_output: bool = True

    def argv(self, python: str | None = None) -> list[str]:
        return [python or sys.executable, "-m", "argtrace", *self.words]


def _host_words(host: str | None) -> list[str]:
    # --host is a global option of the CLI: it goes before the command name.
    return ["--host", host] if host else []


def _option(name: str, value: str | None) -> list[str]:
    return [name, value] if value else []


def _env_words(env: Mapping[str, str] | None) -> list[str]:
    words: list[str] = []
    for key, value in (env or {}).items():
        if not key or "=" in key:
            raise ToolInputError(f"env: {key!r} is not a variable name")
        words += ["--env", f"{key}={value}"]
    return words


def launch_words(
    *,
    command: str | None,
    script: str | None,
    args: Sequence[str],
    framework: str | None,
    framework_version: str | None,
    gpu: str | None,
    model_config: str | None,
    log: str | None,
    url: str | None,
    env: Mapping[str, str] | None,
) -> list[str]:
    """The options and operands shared by ``check`` and ``fix``: exactly one of a command line or a script."""
    if bool(command) == bool(script):
        raise ToolInputError("give exactly one of `command` (a command line, as `-c`) or `script` (a path)")
    words = [
        *_option("--framework", framework),
        *_option("--framework-version", framework_version),
        *_option("--gpu", gpu),
        *_option("--model-config", model_config),
        *_env_words(env),
    ]
    words += _option("--log", log) + _option("--url", url)
    if command:
        # Everything after -c COMMAND belongs to the command ($0, $1...), as with bash -c.
        return [*words, "-c", command, *(["--", *args] if args else [])]
    assert script is not None
    return [*words, script, *args]


def check_invocation(host: str | None = None, **launch: Any) -> Invocation:
    return Invocation((*_host_words(host), "check", "--format", "json", *launch_words(**launch)))


def fix_invocation(host: str | None = None, write: bool = False, **launch: Any) -> Invocation:
    words = [*_host_words(host), "fix", *(["--write"] if write else []), *launch_words(**launch)]
    return Invocation(tuple(words), json_output=False)


def why_invocation(
    message: str, framework: str | None = None, framework_version: str | None = None
) -> Invocation:
    if not message.strip():
        raise ToolInputError("message: paste the error text the server printed")
    words = ["why", "--format", "json", *_option("--framework", framework)]
    words += _option("--framework-version", framework_version)
    # "--" so that a message starting with "-" is the operand, not an option.
    return Invocation((*words, "--", message))


def log_invocation(path: str, host: str | None = None, launch: str | None = None) -> Invocation:
    if not path:
        raise ToolInputError("path: the server's log file")
    words = [*_host_words(host), "log", "--format", "json", *_option("--launch", launch), "--", path]
    return Invocation(tuple(words))


def mem_invocation(
    model_config: str,
    gpu: str | None = None,
    framework: str | None = None,
    framework_version: str | None = None,
    flags: Sequence[str] = (),
) -> Invocation:
    if not model_config:
        raise ToolInputError("model_config: the model's config.json or its directory")
    words = ["mem", "--format", "json", "--model-config", model_config, *_option("--gpu", gpu)]
    words += _option("--framework", framework) + _option("--framework-version", framework_version)
    return Invocation((*words, *(["--", *flags] if flags else [])))


def fleet_invocation(
    urls: Sequence[str] = (),
    hosts: Sequence[str] = (),
    kube_selector: str | None = None,
    context: str | None = None,
    namespace: str | None = None,
    intent: str | None = None,
) -> Invocation:
    """``argtrace fleet``: several running replicas lined up (docs/fleet.md)."""
    if not urls and not hosts and not kube_selector:
        raise ToolInputError("urls, hosts or kube_selector: at least one target")
    if (context or namespace) and not kube_selector:
        raise ToolInputError("context and namespace go with kube_selector")
    words = ["fleet", "--format", "json"]
    for url in urls:
        words += ["--url", url]
    for host in hosts:
        words += [f"--host={host}"]  # "=": a host text starting with "-" is refused as a host, not an option
    if kube_selector:
        words += ["--kube", "-l", kube_selector, *_option("--context", context), *_option("-n", namespace)]
    return Invocation((*words, *_option("--intent", intent)))


def rules_invocation(code: str | None = None) -> Invocation:
    return Invocation(("rules", "--format", "json", *([code] if code else [])))


def rule_page_invocation(code: str) -> Invocation:
    return Invocation(("rules", code), json_output=False)


def _place(finding: Mapping[str, Any]) -> str:
    at = finding.get("at")
    return f" {at}" if at else ""


def _headline(finding: Mapping[str, Any]) -> str:
    severity = str(finding.get("severity")).upper()
    return f"{severity} {finding.get('code')}{_place(finding)}: {finding.get('message')}"


def _ordered_findings(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    findings = [f for f in report.get("findings") or [] if isinstance(f, Mapping)]
    return sorted(findings, key=lambda f: SEVERITY_ORDER.get(str(f.get("severity")), 3))


def summarize_check(report: Mapping[str, Any]) -> str:
    """The causes first, each with its fix: what an agent needs to decide its next edit."""
    lines: list[str] = []
    framework = report.get("framework") or {}
    if isinstance(framework, Mapping) and framework.get("name"):
        version = framework.get("version") or f"unknown (analysed as {framework.get('analysed_with')})"
        lines.append(f"framework: {framework['name']} {version} (from {framework.get('source')})")
    findings = _ordered_findings(report)
    serious = [f for f in findings if f.get("severity") in ("error", "warning")]
    for finding in serious:
        lines.append(_headline(finding))
        if finding.get("fix"):
            verified = finding.get("fix_verified")
            mark = " (verified by re-checking)" if verified is True else ""
            lines.append(f"  fix{mark}: {finding['fix']}")
    infos = len(findings) - len(serious)
    if not serious:
        lines.append("no errors or warnings")
    if infos:
        lines.append(f"{infos} info finding(s) in the structured content")
    return "\n".join(lines)


def summarize_findings(report: Mapping[str, Any], what: str) -> str:
    """For ``log`` and ``mem``: the findings in severity order, or that there are none."""
    findings = _ordered_findings(report)
    if not findings:
        return f"{what}: no findings"
    lines = [f"{what}: {len(findings)} finding(s)"]
    for finding in findings:
        lines.append(_headline(finding))
        if finding.get("fix") and finding.get("severity") != "info":
            lines.append(f"  fix: {finding['fix']}")
    return "\n".join(lines)


def summarize_why(report: Mapping[str, Any]) -> str:
    """The best raise sites (at most three): where, in which releases, and how to avoid it."""
    section = report.get("why") or {}
    matches = section.get("matches") if isinstance(section, Mapping) else None
    if not matches:
        notes = [str(n) for n in report.get("notes") or []]
        return "; ".join(notes) or "no raise site matches this message"
    lines = []
    for match in matches[:3]:
        if not isinstance(match, Mapping):
            continue
        versions = [v for v in match.get("versions") or [] if isinstance(v, Mapping)]
        where = ", ".join(f"{v.get('version')} {v.get('at')}" for v in versions)
        lines.append(f"{match.get('framework')} {match.get('function')} ({where}): {match.get('message')}")
        if match.get("condition"):
            lines.append(f"  when: {match['condition']}")
        if match.get("fix"):
            lines.append(f"  fix: {match['fix']}")
    if len(matches) > 3:
        lines.append(f"{len(matches) - 3} weaker match(es) in the structured content")
    return "\n".join(lines)
