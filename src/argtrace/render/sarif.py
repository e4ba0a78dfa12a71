"""``--format sarif``: SARIF 2.1.0 (OASIS), the format code-scanning services and editors read.

A stable contract (docs/ci.md). Read from the redacted report dict (``render_report``); the rule metadata
comes from the rule catalog (``argtrace.rules``), shellcheck's own ``SC`` codes point at its wiki. Tested
against the official schema (tests/data/sarif/).

Shape, following SARIF 2.1.0 sections 3.13-3.27: one run; ``tool.driver`` with the rules the results use;
each result with ``ruleId``/``ruleIndex``, ``level``, ``message``, one physical location (the file relative
to the working directory; a region when the finding has a line), ``partialFingerprints`` and, for a finding
whose fix was verified by re-checking (``fix_verified: true``), ``fixes`` built from its ``fix_edits``.
Suppressed findings (``--show-suppressed``) are results with an ``inSource`` suppression.
"""

from __future__ import annotations

from collections.abc import Mapping

from argtrace import __version__
from argtrace.render.places import Place, fingerprints, places

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
# The project's home and its rule pages (docs/rules/CODE.md, generated from the catalog).
INFORMATION_URI = "https://github.com/argtrace/argtrace"
RULE_PAGE = INFORMATION_URI + "/blob/main/docs/rules/{code}.md"
SHELLCHECK_PAGE = "https://www.shellcheck.net/wiki/{code}"
FINGERPRINT_KEY = "argtrace/v1"

LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _rule_descriptor(code: str, severity: str) -> dict[str, Any]:
    from argtrace.rules import rule_by_code

    rule = rule_by_code(code)
    if rule is None:
        # shellcheck's findings keep their SC code; anything else unknown still gets a valid descriptor.
        is_shellcheck = code.startswith("SC") and code[2:].isdigit()
        title = f"shellcheck {code}" if is_shellcheck else code
        out: dict[str, Any] = {
            "id": code,
            "shortDescription": {"text": title},
            "fullDescription": {"text": title},
            "help": {"text": f"See {SHELLCHECK_PAGE.format(code=code)}" if is_shellcheck else title},
            "defaultConfiguration": {"level": LEVEL.get(severity, "warning")},
        }
        if is_shellcheck:
            out["helpUri"] = SHELLCHECK_PAGE.format(code=code)
        return out
    return {
        "id": rule.code,
        "name": rule.title,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": rule.fix},
        "helpUri": RULE_PAGE.format(code=rule.code),
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"layer": rule.layer, "tags": [rule.layer]},
    }


def _position(text: Any) -> tuple[int, int] | None:
    """``"LINE:COL"`` (1-based, the column of ``end`` exclusive, as SARIF's regions) as numbers."""
    if not isinstance(text, str):
        return None
    line, _, col = text.partition(":")
    if not (line.isdigit() and col.isdigit()) or int(line) < 1 or int(col) < 1:
        return None
    return int(line), int(col)


def _fixes(finding: Mapping[str, Any], fallback_uri: str | None) -> list[dict[str, Any]]:
    """SARIF ``fixes`` from the fix issue's ``fix_edits: [{file, start, end, replacement}]``, only when
    re-checking proved them (``fix_verified: true``)."""
    edits = finding.get("fix_edits")
    if finding.get("fix_verified") is not True or not isinstance(edits, list) or not edits:
        return []
    from argtrace.render.places import artifact_uri

    changes: dict[str, list[dict[str, Any]]] = {}
    for edit in edits:
        if not isinstance(edit, Mapping) or "env" in edit:
            # an environment change (``{env, value}``) is no change of an artifact: such a fix is
            # argtrace fix's shell lines only, never a SARIF fix (half of it would not fix anything)
            return []
        start, end = _position(edit.get("start")), _position(edit.get("end"))
        file = edit.get("file")
        uri = artifact_uri(file) if isinstance(file, str) and file else fallback_uri
        if start is None or end is None or uri is None or end < start:
            return []  # an edit we cannot place exactly is no machine-applicable fix
        changes.setdefault(uri, []).append(
            {
                "deletedRegion": {
                    "startLine": start[0],
                    "startColumn": start[1],
                    "endLine": end[0],
                    "endColumn": end[1],
                },
                "insertedContent": {"text": str(edit.get("replacement") or "")},
            }
        )
    return [
        {
            "description": {"text": str(finding.get("fix") or "apply the verified edit")},
            "artifactChanges": [
                {"artifactLocation": {"uri": uri}, "replacements": replacements}
                for uri, replacements in changes.items()
            ],
        }
    ]


def _location(place: Place) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {"uri": place.uri}}
    if place.line is not None and place.line >= 1:
        region: dict[str, Any] = {"startLine": place.line}
        if place.col is not None and place.col >= 1:
            region["startColumn"] = place.col
        physical["region"] = region
    return {"physicalLocation": physical}


def _message(finding: Mapping[str, Any]) -> str:
    message = str(finding.get("message") or finding.get("code"))
    fix = finding.get("fix")
    return f"{message}\nFix: {fix}" if fix else message


def to_sarif(data: dict[str, Any]) -> dict[str, Any]:
    findings = list(data.get("findings") or [])
    suppressed = _suppressed(data)
    everything = {**data, "findings": findings + [f for f, _, _ in suppressed]}
    if isinstance(data.get("finding_inputs"), list):
        everything["finding_inputs"] = [*data["finding_inputs"], *(i for _, _, i in suppressed)]
    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    results: list[dict[str, Any]] = []
    where = places(everything)
    prints = fingerprints(everything)
    for i, finding in enumerate(everything["findings"]):
        code = str(finding.get("code"))
        severity = str(finding.get("severity"))
        if code not in index:
            index[code] = len(rules)
            rules.append(_rule_descriptor(code, severity))
        result: dict[str, Any] = {
            "ruleId": code,
            "ruleIndex": index[code],
            "level": LEVEL.get(severity, "warning"),
            "message": {"text": _message(finding)},
            "partialFingerprints": {FINGERPRINT_KEY: prints[i]},
            "properties": {
                k: finding[k] for k in ("layer", "setting", "basis", "at") if finding.get(k) is not None
            },
        }
        if where[i].uri is not None:
            result["locations"] = [_location(where[i])]
        fixes = _fixes(finding, where[i].uri)
        if fixes:
            result["fixes"] = fixes
        if i >= len(findings):
            reason = suppressed[i - len(findings)][1]
            result["suppressions"] = [{"kind": "inSource", "justification": reason}]
        results.append(result)
    driver = {
        "name": "argtrace",
        "version": __version__,
        "semanticVersion": __version__,
        "informationUri": INFORMATION_URI,
        "rules": rules,
    }
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}],
    }


def _suppressed(data: Mapping[str, Any]) -> list[tuple[dict[str, Any], str, int | None]]:
    """The suppressed findings the report lists (``--show-suppressed``), with the comment that did it."""
    section = data.get("suppressed")
    if not isinstance(section, Mapping):
        return []
    out = []
    for item in section.get("findings") or []:
        if isinstance(item, Mapping) and isinstance(item.get("finding"), Mapping):
            index = item.get("input")
            out.append(
                (
                    dict(item["finding"]),
                    str(item.get("by") or "argtrace disable"),
                    index if isinstance(index, int) else None,
                )
            )
    return out


def render_sarif(data: dict[str, Any]) -> str:
    from argtrace.render.json_text import dumps_indented, safe_for_terminals

    # json.dumps(..., indent=2, ensure_ascii=False), then no raw character a terminal obeys
    return safe_for_terminals(dumps_indented(to_sarif(data))) + "\n"
