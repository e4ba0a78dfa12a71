"""``why`` on Python's TypeError with a ``None`` operand (``unsupported operand type(s) for *: 'NoneType' and
'int'``): a value the code computes with was never set, and a flag the text names that is unset by default.

No framework prints these words: the interpreter raises them when arithmetic or a comparison meets ``None``.
A site sharing a few words ("Unsupported type ...") came first as a weak candidate. What the text can say more
is which setting was left unset: a flag it names (``--speculative-eagle-topk``) whose option defaults to
``None`` in the bundled schemas (generated from the wheels) is a value the launch did not set, and code that
multiplies with it fails (sglang PR#34361: NEXTN or STANDALONE without ``--speculative-eagle-topk``). A flag
with a default, or no flag named, is not blamed: then only the interpreter's meaning is said; nor is a flag
the text gives a value (vllm PR#55444's ``--speculative-config '{"method":"mtp",...}'``: a field left out of
it is the unset one, not the flag). The comparison form (``'>' not supported between instances of
'NoneType' and 'int'``, CPython's ``do_richcompare``) has the same meaning.

Python's ZeroDivisionError is the same kind of text: the interpreter's, not a framework's. A flag the text
gives the value 0 (vllm#54657's ``--tensor-parallel-size 0``, vllm#54665's ``--decode-context-parallel-size
0``, which the parsers of those releases accept) is the divisor: a size of at least 1 is the fix; so is a
setting's field the text gives 0 or divides by (vllm PR#44057's ``decode_context_parallel_size=0`` and ``tp %
decode_context_parallel_size``), named by its flag when a bundled schema has one. The words
of such a flag met SGLang's "decode context parallel group is already initialized" before
(``messages._text_words`` now reads a flag as one word).

A text may say it in words instead: gpustack#3392's title "speculative_eagle_topk is None" (SGLang 0.5.5 with
speculative decoding and no ``--speculative-eagle-topk``). A setting's name said to be None whose flag has no
default in a bundled schema is the same unset value (``unset_field``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FORM = re.compile(
    r"unsupported operand type\(s\) for (?P<op>\S{1,3}): '(?P<left>\w+)' and '(?P<right>\w+)'"
    r"|'(?P<left2>\w+)' (?:and '(?P<right2>\w+)' )?(?:object is not (?:subscriptable|iterable|callable))"
    r"|'(?P<op3>[<>=!]{1,2})' not supported between instances of '(?P<left3>\w+)' and '(?P<right3>\w+)'"
)
# CPython's ZeroDivisionError: "division by zero", "integer division or modulo by zero" (its wordings differ
# by type and release), or the class named in a title
_ZERO = re.compile(
    r"\bZeroDivisionError\b|\b(?:integer |float )?(?:division|modulo)(?: or modulo)? by zero\b"
)
# a flag given the value 0 ("--tensor-parallel-size 0", "--tp=0")
_ZERO_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?:=|\s+)0(?![\w.])")
# a setting's field given 0 in keyword form ("decode_context_parallel_size=0", vllm PR#44057's
# "ParallelConfig(decode_context_parallel_size=0)"), or named as the divisor of the quoted code ("tp %
# decode_context_parallel_size", "x // self.pp_size")
_ZERO_FIELD = re.compile(
    r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\s*=\s*0(?![\w.])|(?:%|//?)\s*(?:self\.|\w+\.)?([a-z][a-z0-9]*(?:_[a-z0-9]+)+)\b"
)
# a flag followed by its value: the launch gave it, so it is not the unset one
_GIVEN = re.compile(r"(?<![\w-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)+)(?:=|\s+)(?!-)\S")
_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b")
# a setting's name said to be None ("speculative_eagle_topk is None", gpustack#3392's title)
_IS_NONE = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+) (?:is|was) None\b")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}


def _unset_flags(text: str) -> list[tuple[str, str]]:
    """(framework, flag) of each flag the text names that the newest bundled schema of a framework has with
    no default (``None``), each once."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    given = set(_GIVEN.findall(text))
    named = [flag for flag in dict.fromkeys(_FLAG.findall(text)) if flag not in given]
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
        m.group("left3"),
        m.group("right3"),
    ):
        return zero_divisor(text) or unset_field(text)
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


def _known_flags(flags: list[str]) -> list[str]:
    """The flags a bundled schema of vLLM or SGLang has (newest release), each once."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    out: list[str] = []
    for fw in _NAME:
        versions = bundled_versions(fw, include_user=False)
        if not versions:
            continue
        schema = load_schema(fw, versions[-1])
        out.extend(f for f in flags if schema.option(f) is not None and f not in out)
    return out


def zero_divisor(text: str) -> dict[str, Any] | None:
    """The interpreter's meaning of a ZeroDivisionError and, when the text gives a flag of vLLM or SGLang the
    value 0, that flag as the divisor; None without such an error."""
    m = _ZERO.search(text)
    if m is None:
        return None
    found: dict[str, Any] = {
        "evidence": m.group(0),
        "meaning": "Python's own ZeroDivisionError: the code divided by a value that was 0; no framework "
        "site prints these words",
    }
    fields = ["--" + (a or b).replace("_", "-") for a, b in _ZERO_FIELD.findall(text)]
    zero = _known_flags(list(dict.fromkeys([*_ZERO_FLAG.findall(text), *fields])))
    if zero:
        flags = ", ".join(zero)
        found["flags"] = zero
        found["meaning"] += (
            f"; the text gives {flags} the value 0 (or divides by it), which the parser accepts"
        )
        found["fix"] = f"give {flags} a value of at least 1 (the code divides by it)"
    else:
        found["fix"] = (
            "the traceback's innermost frame is where it divided: the setting or value that made the divisor "
            "0 is the cause"
        )
    return found


def unset_field(text: str) -> dict[str, Any] | None:
    """A setting the text says is None whose flag has no default in a bundled schema: the launch left it
    unset; None when the text says no such thing or the name is no such flag's."""
    m = _IS_NONE.search(text)
    if m is None:
        return None
    flag = "--" + m.group(1).replace("_", "-")
    unset = _unset_flags(flag)
    if not unset:
        return None
    where = " and ".join(dict.fromkeys(_NAME[fw] for fw, _flag in unset))
    return {
        "evidence": m.group(0),
        "meaning": f"the text says {m.group(1)} is None: {flag} is unset (None) unless given ({where}'s "
        "parser), and the code that failed needed a value",
        "flags": [flag],
        "fix": f"give {flag} a value (the launch left it unset; the features the launch enabled read it)",
    }


def origin_of_none(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for a ``None`` operand or a division by zero: the interpreter, by its
    wording."""
    m = _FORM.search(text)
    if m is None or "NoneType" not in m.group(0):
        z = _ZERO.search(text)
        if z is None:
            return None
        return {
            "origin": "Python's interpreter: a division by zero",
            "basis": "wording",
            "evidence": z.group(0),
            "source": "CPython's ZeroDivisionError (Objects/longobject.c, floatobject.c)",
        }
    return {
        "origin": "Python's interpreter: an operation on None",
        "basis": "wording",
        "evidence": m.group(0),
        "source": "CPython's TypeError message (Objects/abstract.c binop_type_error, Objects/object.c "
        "do_richcompare)",
    }


def render_none(section: Mapping[str, Any]) -> list[str]:
    found = section.get("none")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}"]
