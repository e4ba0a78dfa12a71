"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=F,line=L,col=C,title=CODE::message`` (``warning``, and ``notice`` for info). For people
reading a pull request, not a stable contract. Values are escaped as the Actions toolkit does
(``%``, CR, LF everywhere; ``:`` and ``,`` too in properties), so a message cannot end the command early
or start another one.
"""

from __future__ import annotations

from argtrace.render.places import places

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(data: dict[str, Any]) -> str:
    lines = []
    for finding, place in zip(data.get("findings") or [], places(data), strict=True):
        props = []
        if place.uri is not None and "://" not in place.uri:
            props.append(f"file={_property(place.uri)}")
            if place.line is not None:
                props.append(f"line={place.line}")
                if place.col is not None:
                    props.append(f"col={place.col}")
        props.append(f"title={_property(str(finding.get('code')))}")
        message = str(finding.get("message") or "")
        if finding.get("fix"):
            message += f"\nFix: {finding['fix']}"
        command = COMMAND.get(str(finding.get("severity")), "warning")
        lines.append(f"::{command} {','.join(props)}::{_data(message)}")
    return "".join(line + "\n" for line in lines)
