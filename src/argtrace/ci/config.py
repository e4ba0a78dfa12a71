"""The configuration file: ``.argtrace.toml`` (top-level keys) or ``[tool.argtrace]`` in ``pyproject.toml``,
the first found upward from the checked file (``lint``: from the first path; other commands: from here).

    framework = "sglang"          # --framework
    release = "0.5.23"            # --framework-version
    gpu = "h100x8"                # --gpu
    model-config = "models/qwen"  # --model-config (relative to the file's directory)
    disable = ["PR011"]           # never reported
    severity = { SH009 = "warning" }

    [[per-path]]                  # [[tool.argtrace.per-path]] in pyproject.toml
    paths = ["legacy/*.sh"]       # globs relative to the file's directory
    disable = ["SH004"]
    severity = { PA005 = "error" }

The command line wins: a value is taken from the file only where the option was not given.
``--show-config`` lists what applied, each with the file and line it came from.
"""

from __future__ import annotations

import os
from pathlib import Path

from argtrace.model import Report, UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:  # annotations only: `log`'s plain words are read without argparse (quick_argv.py)
    import argparse

    from argtrace.ci.config_file import Config  # (config_file.py: read when a file is found)


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a directory name too long to stat: no configuration can be there
        return False


def find_config(start: Path) -> Config | None:
    here = start.resolve()
    for directory in (here, *here.parents):
        own = directory / ".argtrace.toml"
        if _is_file(own):
            from argtrace.ci.config_file import _load

            return _load(own, pyproject=False)
        pyproject = directory / "pyproject.toml"
        if _is_file(pyproject):
            from argtrace.ci.config_file import _load

            found = _load(pyproject, pyproject=True)
            if found is not None:
                return found
    return None


def _start(args: argparse.Namespace) -> Path:
    script = getattr(args, "script", None)
    paths = getattr(args, "paths", None)
    first = script if isinstance(script, str) and script else (paths[0] if paths else None)
    if first:
        p = Path(first)
        try:
            return p if p.is_dir() else p.parent
        except OSError:  # a name too long, a loop of links: the command reports it when it opens the path
            return p.parent
    return Path.cwd()


def apply_config(args: argparse.Namespace) -> Config | None:
    """Fill the options the command line left unset from the configuration file; returns it."""
    if getattr(args, "command", None) not in ("check", "lint", "mem", "log", "live", "run"):
        return None
    config = find_config(_start(args))
    if config is None:
        return None
    from argtrace.ci.config_file import OPTIONS

    for key, (dest, is_path) in OPTIONS.items():
        if key not in config.table or not hasattr(args, dest):
            continue
        value = config.table[key]
        if not isinstance(value, str):
            raise UsageError(f"{config.where(key)}: {key} must be a string")
        if getattr(args, dest) is not None:
            config.applied.append(
                (f"{key} (the command line's value wins)", getattr(args, dest), "command line")
            )
            continue
        if is_path and not os.path.isabs(value):
            value = str(config.path.parent / value)
        setattr(args, dest, value)
        config.applied.append((key, value, config.where(key)))
    return config


def apply_rules(report: Report, config: Config | None) -> None:
    """Disabled rules and severity overrides of the file found (``config_file.apply_file_rules``)."""
    if config is None:
        return
    from argtrace.ci.config_file import apply_file_rules

    apply_file_rules(report, config)


def describe(config: Config | None, report: Report, show: bool) -> None:
    """The ``config`` section (always, when a file was found) and, with ``--show-config``, one note per
    setting that applied, with where it came from."""
    if config is None:
        if show:
            report.notes.append("config: no .argtrace.toml or [tool.argtrace] found upward")
        return
    seen: list[tuple[str, str, str]] = []
    for what, value, where in config.applied:
        item = (what, repr(value), where)
        if item not in seen:
            seen.append(item)
    report.sections["config"] = {
        "file": str(config.path),
        "applied": [{"setting": w, "value": v, "from": f} for w, v, f in seen],
    }
    if show:
        report.notes.append(f"config: {config.path}")
        report.notes.extend(f"config: {w} = {v} (from {f})" for w, v, f in seen)
