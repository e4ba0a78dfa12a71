"""The JSON contract (``schema_version`` 1): built from the data model, extended by later layers through
``Report.sections``; existing keys never change meaning."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from enum import Enum
from pathlib import PurePath

from argtrace import __version__
from argtrace.model import SCHEMA_VERSION, Finding, Observation, Report, Setting

TYPE_CHECKING = False
if TYPE_CHECKING:  # a launch's classes (model_launch.py): a report without a launch never creates them
    from typing import Any

    from argtrace.model import EnvEdit, FixEdit, ServerCommand


def jsonable(value: Any) -> Any:
    """Plain JSON values for anything a layer may put in a report (tuples, paths, enums, dataclasses)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted(value, key=repr) if isinstance(value, (set, frozenset)) else value
        return [jsonable(v) for v in items]
    if isinstance(value, Enum):
        return jsonable(value.value)
    if isinstance(value, PurePath):
        return str(value)
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    return repr(value)


def observation_dict(obs: Observation) -> dict[str, Any]:
    out: dict[str, Any] = {"layer": obs.layer, "value": jsonable(obs.value), "at": obs.at}
    if not obs.known:
        out["known"] = False
        out["reason"] = obs.reason
    if obs.by is not None:
        out["by"] = obs.by
    for key, value in obs.detail.items():
        out.setdefault(key, jsonable(value))
    return out


def setting_dict(setting: Setting) -> dict[str, Any]:
    return {
        "name": setting.name,
        "dest": setting.dest,
        "flag": setting.flag,
        "intended": jsonable(setting.intended),
        "effective": jsonable(setting.effective),
        "history": [observation_dict(o) for o in setting.history],
    }


def edit_dict(edit: FixEdit | EnvEdit) -> dict[str, Any]:
    """A file edit as ``{file, start, end, replacement}``; an environment change as ``{env, value}``
    (``value`` null: unset the variable)."""
    from argtrace.model import EnvEdit

    if isinstance(edit, EnvEdit):
        return {"env": edit.env, "value": edit.value}
    return {"file": edit.file, "start": edit.start, "end": edit.end, "replacement": edit.replacement}


def finding_dict(finding: Finding) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": finding.code,
        "severity": finding.severity,
        "layer": finding.layer,
        "setting": finding.setting,
        "message": finding.message,
        "at": finding.at,
        "fix": finding.fix,
        "evidence": [{"layer": e.layer, "at": e.at, "text": e.text} for e in finding.evidence],
        # issue 13: the edits that fix it and whether a re-check proved them (null: not verified); an
        # environment change, ``{"env", "value"}``, for a variable the launch inherits
        "fix_edits": [edit_dict(e) for e in finding.fix_edits],
        "fix_verified": finding.fix_verified,
    }
    out["basis"] = finding.rests_on
    if finding.assumptions:
        out["assumed"] = [{"what": a.what, "value": a.value, "option": a.option} for a in finding.assumptions]
    if finding.launch is not None:
        out["launch"] = finding.launch
    if finding.server is not None:
        out["server"] = finding.server
    if finding.consequences:
        out["consequences"] = [
            {"code": c.code, "at": c.at, "message": c.message, "severity": c.severity, "layer": c.layer}
            for c in finding.consequences
        ]
    return out


def findings_list(findings: list[Finding], *, verbose: bool = False) -> list[dict[str, Any]]:
    """The causes; with ``verbose`` each consequence follows as a finding of its own, ``cause`` naming the
    index of the finding (in this list) that explains it."""
    out: list[dict[str, Any]] = []
    for finding in findings:
        index = len(out)
        out.append(finding_dict(finding))
        if verbose:
            out.extend({**finding_dict(c), "cause": index} for c in finding.consequences)
    return out


def server_dict(server: ServerCommand) -> dict[str, Any]:
    return {
        "at": server.at,
        "framework": server.framework,
        "entrypoint": server.entrypoint,
        "argv": list(server.argv_text),
        "words": [
            {
                "text": w.text,
                "at": w.origin.at,
                "expansion": w.origin.expansion,
                **({} if w.known else {"known": False, "reason": w.origin.reason}),
            }
            for w in server.argv
        ],
        "server_args_start": server.server_args_start,
        "interpreter": server.interpreter,
        "cwd": server.cwd,
        "backgrounded": server.backgrounded,
        "repeated": server.repeated,
        **({"loop": server.loop} if server.loop is not None else {}),
        **({"placement": _placement(server)} if server.placement is not None else {}),
        **({"runner": server.runner} if server.runner is not None else {}),
    }


def _placement(server: ServerCommand) -> dict[str, Any]:
    """The manifest resource and pod that start the server (``ServerCommand.placement``), set fields only."""
    from dataclasses import asdict

    return {k: v for k, v in asdict(server.placement).items() if v is not None} if server.placement else {}


def framework_dict(report: Report) -> dict[str, Any]:
    framework = report.framework
    out: dict[str, Any] = {"name": framework.name, "version": framework.version, "source": framework.source}
    if framework.analysed_with is not None:
        out["analysed_with"] = framework.analysed_with
    if framework.accepted_by is not None:
        out["accepted_by"] = list(framework.accepted_by)
    if framework.evidence is not None:
        out["evidence"] = framework.evidence
    return out


def to_dict(report: Report, *, verbose: bool = False) -> dict[str, Any]:
    process = None
    if report.process is not None:
        process = {
            "argv": list(report.process.argv),
            "env": dict(report.process.env),
            "at": report.process.at,
        }
        if report.process.interpreter is not None:
            process["interpreter"] = report.process.interpreter
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "argtrace_version": __version__,
        "command": report.command,
        "framework": framework_dict(report),
        "process": process,
        "servers": [server_dict(s) for s in report.servers],
        "settings": [setting_dict(s) for s in report.settings],
        "findings": findings_list(report.findings, verbose=verbose),
        "notes": list(report.notes),
    }
    for key, value in report.sections.items():
        data.setdefault(key, jsonable(value))
    return data


def dumps(data: Mapping[str, Any]) -> str:
    from argtrace.render.json_text import dumps_indented, safe_for_terminals

    # json.dumps(data, indent=2, ensure_ascii=False), quicker; then no raw character a terminal obeys
    return safe_for_terminals(dumps_indented(data)) + "\n"
