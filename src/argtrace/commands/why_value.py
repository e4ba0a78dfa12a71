"""``why`` on a parser's "Value V cannot be converted to ...": what the quoted value itself shows about the
layers between the user's words and the server.

vLLM's ``parse_type`` reports the value it was given (``argument --speculative-config: Value {...} cannot be
converted to <function loads>``). When that value still holds shell quoting, no change of the JSON helps:
a backslash before every quote, brace or comma (``\\{\\"method\\":...\\}``) means a layer escaped the words
once more than the shell that ran the server removes (eugr/spark-vllm-docker#111: the launcher's new
quoting of the words it forwards); quotes around the whole value (``'{...}'``) mean they were part of the
word, quoted twice. The message index gives the site (the wrapper that reports the error); this module
reads the value and adds the cause to that site's fix.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CANNOT_CONVERT = re.compile(r"Value (?P<value>.+?) cannot be converted to ")
# a backslash before a character JSON needs as it is: the shell that parsed the words did not remove it
_ESCAPED = re.compile(r"\\[\"'{}\[\],:]")


def quoting_left_in(text: str) -> str | None:
    """What the refused value in ``text`` says about its quoting, or None when it shows none."""
    m = _CANNOT_CONVERT.search(text)
    if m is None:
        return None
    value = m.group("value").strip()
    escaped = sorted(set(_ESCAPED.findall(value)))
    if escaped:
        shown = " ".join(escaped)
        return (
            f"the value reached the parser with backslashes still in it ({shown}): a layer between the shell "
            "and the server (a wrapper that re-quotes the words it forwards, `bash -c`, `ssh`, a container "
            "runtime) escaped them once more than was removed; give the server the JSON as one word with no "
            "backslashes (single-quoted where a shell reads it), or fix the layer's quoting"
        )
    if len(value) > 1 and value[0] == value[-1] and value[0] in "'\"" and value[1:2] in "{[":
        return (
            f"the value still holds the {value[0]} quotes around it: they were part of the word (quoted "
            "twice, or put inside a variable or printf format); drop the inner quotes"
        )
    return None


def add_quoting_cause(groups: list[dict[str, Any]], text: str) -> None:
    """Append the value's quoting to the fix of the first site that reads a setting (the wrapper that
    reported the refused value)."""
    said = quoting_left_in(text)
    if said is None or not groups:
        return
    first = groups[0]
    first["fix"] = f"{first['fix']}; {said}" if first.get("fix") else said
    first["quoting"] = said


_HOLE = re.compile(r"\{([^{}]*)\}")


def _empty_holes(template: str, text: str) -> list[str]:
    """The placeholders of ``template`` that ``text`` fills with nothing (``Unknown quantization method: .``):
    the template's literal pieces around them meet with no character between."""
    pieces = _HOLE.split(template)  # literal, expr, literal, expr, ...
    flat = " ".join(text.split())
    empty = []
    for i in range(1, len(pieces), 2):
        before = " ".join(pieces[i - 1].split())
        after = " ".join(pieces[i + 1].split()) if i + 1 < len(pieces) else ""
        if len(before) < 8 or not after:
            continue  # too few words around it to tell an empty value from a cut text
        if f"{before} {after}" in flat or f"{before}{after}" in flat:
            empty.append(pieces[i])
    return empty


def add_empty_value_cause(groups: list[dict[str, Any]], text: str) -> None:
    """A check that refused an empty value of a setting (NVIDIA Model-Optimizer#261's "Unknown quantization
    method: . Must be one of [...]"): a launch rarely writes a flag with nothing after it, so the value came
    from where the framework fills the setting when the flag is absent (the model's files, a default), and
    changing the flag's value on the command line is not the finding. Said on the first site when one of its
    settings is the placeholder the text leaves empty."""
    if not groups or not groups[0].get("settings"):
        return
    first = groups[0]
    holes = _empty_holes(str(first.get("message") or ""), text)
    named = [
        s for s in first["settings"] if any(re.search(rf"\b{re.escape(s['name'])}\b", hole) for hole in holes)
    ]
    if not named:
        return
    flag = named[0].get("flag") or named[0]["name"]
    said = (
        f"the refused value is empty: a command line rarely gives {flag} nothing, so when the launch did "
        f"not pass {flag} the value came from where {first['framework']} fills it otherwise (the model's "
        "files or a default): check that source (for a checkpoint, its config.json and the files its export "
        "wrote)"
    )
    first["fix"] = f"{first['fix']}; {said}" if first.get("fix") else said
    first["empty_value"] = flag
