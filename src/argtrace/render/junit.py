"""``--format junit``: JUnit XML, one test case per checked file and rule (a stable contract, docs/ci.md).

What CI systems that show test reports read (GitLab's ``artifacts:reports:junit``, Jenkins, Azure). A test
case ``classname`` is the file, ``name`` the rule; its findings of severity error or warning make it a
``<failure>`` (one element, every finding of that rule in that file in its text), info findings are listed
in ``<system-out>`` of a passing case. A checked file with no finding is one passing case named
``argtrace``, so that a clean run still reports what was checked.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from argtrace.render.places import fallback_inputs, places

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Characters XML 1.0 cannot carry at all (control characters are already written visibly by the
# boundary; this is the last guard).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}


def _xml(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render_junit(data: dict[str, Any]) -> str:
    cases: dict[tuple[str, str], list[tuple[dict[str, Any], str]]] = {}
    for finding, place in zip(data.get("findings") or [], places(data), strict=True):
        file = place.uri or "argtrace"
        where = file + (f":{place.line}" if place.line is not None else "")
        where += f":{place.col}" if place.line is not None and place.col is not None else ""
        cases.setdefault((file, str(finding.get("code"))), []).append((finding, where))
    files = {file for file, _ in cases}
    from argtrace.render.places import artifact_uri

    for path in {p for p in fallback_inputs(data) if p} | set(data.get("inputs") or []):
        uri = artifact_uri(path)
        if uri not in files:
            cases[(uri, "argtrace")] = []
    failures = sum(
        1 for items in cases.values() if any(_SEVERITY_RANK.get(str(f.get("severity")), 1) for f, _ in items)
    )
    root = ET.Element("testsuites", name="argtrace", tests=str(len(cases)), failures=str(failures))
    suite = ET.SubElement(
        root, "testsuite", name="argtrace", tests=str(len(cases)), failures=str(failures), errors="0"
    )
    for (file, code), items in sorted(cases.items()):
        case = ET.SubElement(suite, "testcase", classname=_xml(file), name=_xml(code))
        failing = [(f, w) for f, w in items if _SEVERITY_RANK.get(str(f.get("severity")), 1) > 0]
        notes = [(f, w) for f, w in items if _SEVERITY_RANK.get(str(f.get("severity")), 1) == 0]
        if failing:
            first = failing[0][0]
            failure = ET.SubElement(
                case, "failure", type=_xml(code), message=_xml(str(first.get("message") or ""))
            )
            failure.text = _xml("\n".join(_line(f, w) for f, w in failing))
        if notes:
            ET.SubElement(case, "system-out").text = _xml("\n".join(_line(f, w) for f, w in notes))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _line(finding: dict[str, Any], where: str) -> str:
    text = f"{where}: {finding.get('severity')}: {finding.get('message')}"
    if finding.get("fix"):
        text += f"\n  fix: {finding['fix']}"
    return text
