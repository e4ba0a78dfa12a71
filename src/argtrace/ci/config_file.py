"""A configuration file that was found (``config.py``'s text says its keys): its settings and lines
(:class:`Config`), its TOML read (from ``config_cache.py``'s copy when it has one) and the rules it
disables or re-grades; read only when a file is found upward.
"""

from __future__ import annotations

import re
from dataclasses import field, replace
from pathlib import Path

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.model import SEVERITIES, Report, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# config key -> (argparse dest, is a path relative to the file)
OPTIONS = {
    "framework": ("framework", False),
    "release": ("framework_version", False),
    "framework-version": ("framework_version", False),
    "gpu": ("gpu", False),
    "model-config": ("model_config", True),
    "python": ("python", False),
}
KNOWN = {*OPTIONS, "disable", "severity", "per-path"}


@deferred
class Config:
    """One configuration file that was found: its table of settings, its lines (to name the line a setting
    sits on) and the settings applied from it."""

    path: Path
    table: dict[str, Any]
    lines: list[str]
    header: int  # the 0-based line where the table starts (its section header, or 0)
    applied: list[tuple[str, Any, str]] = field(default_factory=list)  # (what, value, FILE:LINE)

    def where(self, key: str, after: int | None = None) -> str:
        start = self.header if after is None else after
        pattern = re.compile(rf"^\s*['\"]?{re.escape(key)}['\"]?\s*=")
        for i in range(start, len(self.lines)):
            if pattern.match(self.lines[i]):
                return f"{self.path}:{i + 1}"
        return str(self.path)


def _load(path: Path, pyproject: bool) -> Config | None:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    if pyproject and "argtrace" not in text:
        # no [tool.argtrace] table can be there (a key spelled with escapes aside): not worth parsing, and
        # importing tomllib is some 3 ms (-X importtime) of a short check run beside a pyproject.toml
        return None
    data = _parsed(path, text)
    lines = text.splitlines()
    if pyproject:
        table = data.get("tool", {}).get("argtrace")
        if not isinstance(table, dict):
            return None
        header = next((i for i, line in enumerate(lines) if line.strip() == "[tool.argtrace]"), 0)
    else:
        table, header = data, 0
    unknown = sorted(set(table) - KNOWN)
    if unknown:
        raise UsageError(f"{path}: unknown argtrace setting(s): {', '.join(unknown)}")
    return Config(path, table, lines, header)


def _parsed(path: Path, text: str) -> dict[str, Any]:
    """The TOML document ``text`` as ``tomllib`` reads it, from the copy kept for exactly this text when
    there is one (``ci/config_cache.py``): importing ``tomllib`` and parsing the project's pyproject.toml
    was 2% of a short check run in a project that configures argtrace (issue 18)."""
    from argtrace.ci import config_cache

    kept = config_cache.lookup(path, text)
    if kept is not None:
        return kept
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        # tomllib reads nested arrays and inline tables recursively: `x = [[[...]]]` 50,000 deep in a
        # pyproject.toml made every command run in that directory die with an internal error (probe, s13)
        raise UsageError(f"{path}: not readable TOML (values nested too deep)") from None
    config_cache.keep(path, text, data)
    return data


def _rules(table: dict[str, Any], config: Config, after: int | None) -> tuple[set[str], dict[str, str]]:
    disable = table.get("disable", [])
    severity = table.get("severity", {})
    if not isinstance(disable, list) or not all(isinstance(c, str) for c in disable):
        raise UsageError(f"{config.where('disable', after)}: disable must be a list of codes")
    if not isinstance(severity, dict) or not all(v in SEVERITIES for v in severity.values()):
        raise UsageError(f"{config.where('severity', after)}: severity values are error, warning or info")
    return {c.upper() for c in disable}, {str(k).upper(): str(v) for k, v in severity.items()}


def apply_file_rules(report: Report, config: Config) -> None:
    """Disabled rules and severity overrides, global then per path (a later entry wins)."""
    from argtrace.render.places import split_at

    disable, severity = _rules(config.table, config, None)
    if disable:
        config.applied.append(("disable", sorted(disable), config.where("disable")))
    if severity:
        config.applied.append(("severity", severity, config.where("severity")))
    per_path = config.table.get("per-path", [])
    if not isinstance(per_path, list):
        raise UsageError(f"{config.where('per-path')}: per-path must be an array of tables ([[per-path]])")
    headers = [i for i, line in enumerate(config.lines) if "per-path]]" in line]
    entries = []
    for n, entry in enumerate(per_path):
        after = headers[n] if n < len(headers) else None
        globs = entry.get("paths") if isinstance(entry, dict) else None
        if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
            raise UsageError(f"{config.where('paths', after)}: per-path needs paths = [GLOB, ...]")
        entries.append((globs, *_rules(entry, config, after), after))
    base = config.path.parent.resolve()
    inputs = [p for p in report.sections.get("inputs") or [] if isinstance(p, str)]
    owners = report.sections.get("finding_inputs")
    kept, kept_owners = [], []
    for i, finding in enumerate(report.findings):
        owner = owners[i] if isinstance(owners, list) and i < len(owners) else None
        parts = split_at(finding.at)
        fallback = inputs[owner] if isinstance(owner, int) else (inputs[0] if inputs else None)
        file = parts[0] if parts else fallback
        off, sev = set(disable), dict(severity)
        if file is not None:
            try:
                rel = Path(file).resolve().relative_to(base).as_posix()
            except (ValueError, OSError):
                rel = None
            import fnmatch  # here: pathlib's is deferred to its first use (deferred_stdlib.py)

            for globs, dis, sevs, after in entries:
                if rel is not None and any(fnmatch.fnmatch(rel, g) for g in globs):
                    off |= dis
                    sev.update(sevs)
                    config.applied.append((f"per-path {globs}", rel, config.where("paths", after)))
        if finding.code.upper() in off:
            continue
        new = sev.get(finding.code.upper())
        kept.append(replace(finding, severity=new) if new else finding)  # type: ignore[arg-type]
        kept_owners.append(owner)
    report.findings = kept
    if isinstance(owners, list):
        report.sections["finding_inputs"] = kept_owners
