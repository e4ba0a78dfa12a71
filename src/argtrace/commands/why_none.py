"""``why`` on Python's TypeError with a ``None`` operand (``unsupported operand type(s) for *: 'NoneType' and
'int'``): a value the code computes with was never set, and a flag the text names that is unset by default.

No framework prints these words: the interpreter raises them when arithmetic or a comparison meets ``None``.
A site sharing a few words ("Unsupported type ...") came first as a weak candidate. What the text can say more
is which setting was left unset: a flag it names (``--speculative-eagle-topk``) whose option defaults to
``None`` in the bundled schemas (generated from the wheels) is a value the launch did not set, and code that
multiplies with it fails (sglang PR#34361: NEXTN or STANDALONE without ``--speculative-eagle-topk``). A flag
with a default, or no flag named, is not blamed: then only the interpreter's meaning is said.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_FORM = re.compile(
    r"unsupported operand type\(s\) for (?P<op>\S{1,3}): '(?P<left>\w+)' and '(?P<right>\w+)'"
    r"|'(?P<left2>\w+)' (?:and '(?P<right2>\w+)' )?(?:object is not (?:subscriptable|iterable|callable))"
)
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}


def _unset_flags(text: str) -> list[tuple[str, str]]:
    """(framework, flag) of each flag the text names that the newest bundled schema of a framework has with
    no default (``None``), each once."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    named = list(dict.fromkeys(_FLAG.findall(text)))
    out = []
    for fw in _NAME:
        versions = bundled_versions(fw, include_user=False)
        if not named or not versions:
            continue
        schema = load_schema(fw, versions[-1])
        for flag in named:
            spec = schema.option(flag)
            if spec is not None and spec.default is None and spec.action == "store" and not spec.required:
                out.append((fw, flag))
    return out


def none_operand(text: str) -> dict[str, Any] | None:
    """The interpreter's meaning of a ``None`` operand and, when the text names flags unset by default, those
    flags as the likely unset value; None without such a TypeError."""
    m = _FORM.search(text)
    if m is None or "NoneType" not in (
        m.group("left"),
        m.group("right"),
        m.group("left2"),
        m.group("right2"),
    ):
        return None
    found: dict[str, Any] = {
        "evidence": m.group(0),
        "meaning": "Python's own TypeError: a value the code computes with was None (never set on this "
        "path); no framework site prints these words",
    }
    unset = _unset_flags(text)
    if unset:
        flags = ", ".join(dict.fromkeys(flag for _fw, flag in unset))
        where = " and ".join(dict.fromkeys(_NAME[fw] for fw, _flag in unset))
        found["flags"] = [flag for _fw, flag in unset]
        found["meaning"] += f"; the text names {flags}, unset (None) unless given ({where}'s parser)"
        found["fix"] = f"give {flags} a value (the launch left it unset, and the code computes with it)"
    else:
        found["fix"] = (
            "the traceback's innermost frame is where the None was used: the step or setting that should "
            "have set it is the cause"
        )
    return found


def origin_of_none(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for a ``None`` operand: the interpreter, by its wording."""
    m = _FORM.search(text)
    if m is None or "NoneType" not in m.group(0):
        return None
    return {
        "origin": "Python's interpreter: an operation on None",
        "basis": "wording",
        "evidence": m.group(0),
        "source": "CPython's TypeError message (Objects/abstract.c, binop_type_error)",
    }


def render_none(section: Mapping[str, Any]) -> list[str]:
    found = section.get("none")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]
