"""``argtrace why "ERROR TEXT"``: where a framework raises this error, under which condition, which settings
that condition reads, in which bundled versions it exists, and how to avoid it.

Matches the bundled raise-site indexes (generated from the frameworks' AST by scripts/gen_schemas.py):
f-string placeholders are wildcards, and a truncated or prefixed message still matches.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from argtrace.model import Report

NAME = "why"
HELP = "explain a framework error message: the raise site, its condition, the settings it reads, the fix"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("error_text", metavar="ERROR_TEXT", help="the error message (or a part of it)")
    parser.add_argument("--framework", choices=("sglang", "vllm"), help="only this framework")
    parser.add_argument("--framework-version", metavar="V", help="only this bundled version")


def _flag(framework: str, version: str, field: str) -> str | None:
    try:
        from argtrace.frameworks.schema import load_schema

        return load_schema(framework, version).flag_for_dest(field)
    except Exception:
        return None


def _dest(framework: str, version: str, flag: str) -> str | None:
    try:
        from argtrace.frameworks.schema import load_schema

        option = load_schema(framework, version).option(flag)
    except Exception:
        return None
    return option.dest if option is not None else None


def explain(text: str, framework: str | None = None, version: str | None = None) -> dict[str, Any]:
    """The ``why`` section: matches grouped by raise site across versions."""
    from argtrace.layers.resolution import FIX_HINTS
    from argtrace.resolver.raise_index import bundled, match_error

    matches = match_error(text, framework, version)
    groups: dict[tuple[str, str, str], dict[str, Any]] = {}
    for m in matches:
        key = (m["framework"], m["function"], m.get("message") or "")
        group = groups.get(key)
        if group is None:
            func = str(m["function"]).rsplit(".", 1)[-1]
            group = groups[key] = {
                "framework": m["framework"],
                "function": m["function"],
                "exception": m["exception"],
                "message": m.get("message"),
                "score": m["score"],
                "condition": m["conditions"][-1] if m.get("conditions") else None,
                "conditions": m.get("conditions") or [],
                "settings": [],
                "versions": [],
                "fix": FIX_HINTS.get(func),
            }
            for field in m.get("fields") or []:
                group["settings"].append({"name": field, "flag": _flag(m["framework"], m["version"], field)})
            for flag in dict.fromkeys(re.findall(r"--[a-z][a-z0-9-]+", m.get("message") or "")):
                dest = _dest(m["framework"], m["version"], flag)
                if dest and all(s["name"] != dest for s in group["settings"]):
                    group["settings"].insert(0, {"name": dest, "flag": flag, "named_in_message": True})
            for word in dict.fromkeys(
                re.findall(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b", m.get("message") or "")
            ):
                flag = _flag(m["framework"], m["version"], word)
                if flag and all(s["name"] != word for s in group["settings"]):
                    group["settings"].insert(0, {"name": word, "flag": flag, "named_in_message": True})
        group["versions"].append({"version": m["version"], "at": f"{m['file']}:{m['line']}"})
        group["score"] = max(group["score"], m["score"])
    out = sorted(groups.values(), key=lambda g: -g["score"])
    for group in out:
        have = {v["version"] for v in group["versions"]}
        group["absent_in"] = [v for fw, v in bundled() if fw == group["framework"] and v not in have]
        if group["fix"] is None:
            flags = [s["flag"] or s["name"] for s in group["settings"]]
            cond = group["condition"]
            group["fix"] = (
                f"make the condition false ({cond})" + (f": change {', '.join(flags)}" if flags else "")
                if cond
                else "change the settings the message names"
            )
    return {"query": text, "matches": out}


def render_why(section: Mapping[str, Any]) -> str:
    lines: list[str] = []
    if not section.get("matches"):
        return f"no bundled raise site matches {section.get('query')!r}"
    for g in section["matches"]:
        lines.append(f"{g['framework']}: {g['exception']} in {g['function']} (match {g['score']:.2f})")
        lines.append(f"  message: {g['message']}")
        for cond in g["conditions"]:
            lines.append(f"  when: {cond}")
        if g["settings"]:
            reads = ", ".join(f"{s['name']} ({s['flag']})" if s["flag"] else s["name"] for s in g["settings"])
            lines.append(f"  reads: {reads}")
        lines.append("  in: " + ", ".join(f"{v['version']} ({v['at']})" for v in g["versions"]))
        if g["absent_in"]:
            lines.append("  not raised by: " + ", ".join(g["absent_in"]))
        lines.append(f"  fix: {g['fix']}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> Report:
    from argtrace.model import Report, UsageError
    from argtrace.render.text import SECTION_RENDERERS

    text = " ".join(str(args.error_text).split())
    if not text:
        raise UsageError("why: give the error text")
    SECTION_RENDERERS.setdefault("why", render_why)
    report = Report(command="why")
    section = explain(text, args.framework, args.framework_version)
    report.sections["why"] = section
    if not section["matches"]:
        report.notes.append("no bundled raise site matches; try a shorter, literal part of the message")
    return report
