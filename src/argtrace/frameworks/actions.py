"""What the frameworks' argparse actions do, and which option strings their parsers register.

A schema names each option's action class; :func:`action_kind` says which argparse behaviour that class has
(argparse's own, SGLang's and vLLM's custom actions by name, else the generator's probe), and
:func:`registered_options` lists the option strings the parser registers, hidden ones included (vLLM's
``EnableDisableAction`` registers ``--no-X`` for the ``--X`` it was declared with, without listing it).
The parser layer builds its argparse parser from these; the vLLM adapter asks whether a ``--no-KEY``
from a config file is registered. Both read the same answer here, so the adapter never calls back into
the parser layer.
"""

from __future__ import annotations

import functools

from argtrace.frameworks.schema import OptionSpec, Schema

_STANDARD = {
    "store",
    "store_const",
    "store_true",
    "store_false",
    "append",
    "append_const",
    "extend",
    "count",
    "BooleanOptionalAction",
}


def action_kind(spec: OptionSpec) -> str:
    """What the real action does, by its class: argparse's own, the frameworks' custom actions by name
    (their code is read once, see the module docstring of frameworks/sglang.py), else the generator's
    probe (``probe.stored``) and ``behaves_like``."""
    action = spec.action
    if action in _STANDARD or action in ("help", "version"):
        return action
    known = {
        "LoRAPathAction": "lora",  # SGLang: list of paths, JSON-looking items decoded
        "EnableDisableAction": "BooleanOptionalAction",  # vLLM: --enable-x / --disable-x / --no-enable-x
        "DeprecatedAction": "noop",  # SGLang: warns (or errors with error_message), stores nothing
        "DeprecatedStoreTrueAction": "store_const",  # SGLang: warns, stores True
        "DeprecatedAliasStoreAction": "store",  # SGLang: warns, stores the value under the new dest
        "DeprecatedLogConfigFileAction": "store",  # vLLM: warns, stores the value
    }
    if action in known:
        return known[action]
    if action == "DeprecatedStoreConstAction":  # SGLang: stores const_value, with or without a value
        return "store_const" if spec.nargs in (0, None) and not spec.choices else "store_fixed"
    like = spec.raw.get("behaves_like")
    probe = spec.raw.get("probe") or {}
    if like == "BooleanOptionalAction":
        return "BooleanOptionalAction"
    if spec.nargs == 0:
        if probe and "stored" not in probe:
            return "noop"
        return "store_const"
    return "store"


@functools.lru_cache(maxsize=16)
def registered_options(schema: Schema) -> tuple[tuple[OptionSpec, str, tuple[str, ...]], ...]:
    """Every option and positional the parser registers, in order: (spec, action kind, its option strings).
    An option whose strings an earlier one already took is left out, as argparse would refuse it."""
    out: list[tuple[OptionSpec, str, tuple[str, ...]]] = []
    registered: set[str] = set()
    for spec in (*schema.options, *schema.positionals):
        kind = action_kind(spec)
        strings = [s for s in spec.option_strings if s not in registered]
        if spec.option_strings and not strings:
            continue
        if kind == "BooleanOptionalAction" and spec.action != "BooleanOptionalAction":
            # EnableDisableAction registers --no-X for the --X it was declared with but hides it from
            # action.option_strings; the dump records the real set (vLLM 0.33: --no-enable-x, never
            # --no-disable-x for a flag declared as --enable-x), else every --X is assumed to have one.
            recorded = _recorded_negatives(spec)
            extras = (
                [s for s in recorded if s not in spec.option_strings]
                if recorded is not None
                else ["--no-" + s[2:] for s in strings if s.startswith("--") and not s.startswith("--no-")]
            )
            for extra in extras:
                if extra not in registered and extra not in strings and schema.option(extra) is None:
                    strings.append(extra)
        registered.update(strings)
        out.append((spec, kind, tuple(strings)))
    return tuple(out)


def _recorded_negatives(spec: OptionSpec) -> list[str] | None:
    """The negative option strings the schema generator read off the real action, sorted (None: not
    recorded). Stored as a list or as the repr of a set."""
    import re

    recorded = (spec.raw.get("action_attrs") or {}).get("negative_option_strings")
    if isinstance(recorded, list):
        return sorted(str(s) for s in recorded)
    if isinstance(recorded, dict) and isinstance(recorded.get("repr"), str):
        return sorted(re.findall(r"'(-[^']+)'", recorded["repr"]))
    return None


@functools.lru_cache(maxsize=16)
def registered_option_strings(schema: Schema) -> frozenset[str]:
    """Every option string the parser registers (hidden ``--no-X`` strings of EnableDisableAction too)."""
    return frozenset(s for _spec, _kind, strings in registered_options(schema) for s in strings)
