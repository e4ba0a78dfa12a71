"""This module owns a keyword of ``sglang.Engine``/``ServerArgs`` or vLLM's
``LLM``/``EngineArgs``/``AsyncEngineArgs`` as the command line's words: both frameworks' classes are
dataclasses whose fields are ``--field-name`` flags (SGLang ``ServerArgs.add_cli_args``, vLLM
``EngineArgs.add_cli_args``).

The flag of a field is the bundled schema's (the release named with ``--framework-version`` when bundled,
else the newest): the option whose dest is the field, dests renamed as ``from_cli_args`` renames them
(``field_names.json``: SGLang's ``--tensor-parallel-size`` has the dest ``tensor_parallel_size`` and the
field ``tp_size``). Which keywords the classes take is read from their code in the resolver environments
(``data/python_launch.json``, ``scripts/gen_python_launch.py``), and from the bundled schemas for the
releases without one.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_CLASS_NAME = {"Engine": "ServerArgs", "Runtime": "ServerArgs", "LLM": "EngineArgs"}


@dataclass
class KeywordWords:
    """The words of one keyword (values may be ``python_values.Unknown``), or why the class refuses it, or
    that it is no server flag (``LLM``'s own parameter, a field without a flag)."""

    words: list[Any] = field(default_factory=list)
    refused: str | None = None
    fix: str | None = None
    not_flag: bool = False
    # a refusal that holds for the release read but not for an older one that had the field, when the user
    # named no release: a warning that says so
    severity: str = "error"
    # a bare ``str`` for a field whose annotation is a sequence taking no ``str`` (PA053): the class keeps
    # it as given, and the release's code that iterates the field sees its characters
    string_for_sequence: bool = False
    value: str = ""
    # the string is not one of the flag's choices either (PA009 then lists them)
    not_a_choice: bool = False
    # the list the command line's words would make of the string (split at whitespace, typed as the flag)
    as_list: str = ""


@functools.cache
def _table() -> Mapping[str, Any]:
    from argtrace.package_data import bundled_json

    data: Mapping[str, Any] = bundled_json("data/python_launch.json")
    return data


def _release_key(version: str) -> tuple[int, ...]:
    import re

    return tuple(int(p) for p in re.findall(r"\d+", version))


def _classes(framework: str, release: str | None) -> tuple[str, Mapping[str, Any]]:
    """The release whose classes were read that stands for ``release``: itself, else the newest."""
    found: Mapping[str, Any] = _table()[framework]
    if release is not None and release in found:
        return release, found[release]
    newest = max(found, key=_release_key)
    return newest, found[newest]


@functools.cache
def _schema(framework: str, release: str | None) -> Any:
    from argtrace.frameworks.schema import bundled_versions, load_schema

    versions = bundled_versions(framework, include_user=False)
    if not versions:
        return None
    return load_schema(framework, release if release in versions else versions[-1])


@functools.cache
def _field_dests(framework: str, version: str) -> dict[str, str]:
    """field -> dest in one bundled release (the inverse of ``from_cli_args``'s renames)."""
    from argtrace.frameworks.schema import _field_names

    return {field_name: dest for dest, field_name in _field_names(framework, version).items()}


@functools.cache
def _known_anywhere(framework: str) -> frozenset[str]:
    """The fields some bundled release's command line has (its dests, renamed)."""
    from argtrace.frameworks.schema import _field_names, bundled_versions, load_schema

    out: set[str] = set()
    for version in bundled_versions(framework, include_user=False):
        renames = _field_names(framework, version)
        out.update(renames.get(o.dest, o.dest) for o in load_schema(framework, version).options)
    return frozenset(out)


def keyword_words(
    framework: str, cls: str, key: str, value: Any, release: str | None, *, named: bool = False
) -> KeywordWords:
    """The ``--flag value`` words for ``cls(key=value)``; ``named``: the release was given by the user."""
    from argtrace.layers.transport.python_values import Unknown

    read_release, classes = _classes(framework, release)
    class_name = _CLASS_NAME.get(cls, cls)
    fields = set(classes.get(class_name) or ())
    # the class's own parameters that are not fields: LLM's chat_template, spec_model...; Runtime's
    # launch_timeout (runtime_endpoint.py: ServerArgs(*args, log_level=log_level, **kwargs))
    own = set(classes.get(cls) or ()) - fields if cls in ("LLM", "Runtime") else set()
    if key in own:
        return KeywordWords(not_flag=True)
    schema = _schema(framework, release)
    version = schema.version if schema is not None else read_release
    dest = _field_dests(framework, version).get(key, key)
    specs = schema.options_for_dest(dest) if schema is not None else []
    spec = next((s for s in specs if any(o.startswith("--") for o in s.option_strings)), None)
    name = {"sglang": "SGLang", "vllm": "vLLM"}[framework]
    exact = release is None or release == read_release  # the class of the release read is the one analysed
    if key not in fields and exact:
        # Python's own check: a dataclass's __init__ takes its fields, whatever the command line keeps
        # (a deprecated alias such as --disable-piecewise-cuda-graph is no keyword, sglang#36478)
        elsewhere = key in _known_anywhere(framework) and not (spec is not None and not spec.deprecated)
        alias = spec is not None and bool(spec.deprecated)
        if "-" in key or not elsewhere or named or alias:
            return KeywordWords(
                severity="warning" if elsewhere and not named and "-" not in key else "error",
                refused=f"{class_name} of {name} {read_release} has no field {key}"
                + (
                    f" (nor has any bundled release's command line, {_span(framework)})"
                    if not elsewhere
                    else f" ({_alias_note(key) if alias else ''}"
                    "an older bundled release has the field: the program was written for that release; "
                    f"pass --framework-version with the release that runs)"
                )
                + f", so Python raises `TypeError: {class_name}.__init__() got an unexpected keyword "
                f"argument '{key}'` before anything starts",
                fix=(
                    f"Write {key.replace('-', '_')}: a keyword is the field's own name, with underscores"
                    if "-" in key
                    else f"Remove {key}, or write the field it was meant to be (the keyword is the flag "
                    "without `--`, dashes as underscores)"
                    if not elsewhere
                    else f"Install the {name} release the program was written for, or remove {key}"
                ),
            )
        # some bundled release has it: the flag goes to the parser, which finds the releases that take it
    elif key not in fields and spec is None and key not in _known_anywhere(framework):
        return KeywordWords(
            refused=f"no bundled {name} release has a field {key}, so Python raises `TypeError: "
            f"{class_name}.__init__() got an unexpected keyword argument '{key}'` before anything starts",
            fix=f"Remove {key}, or write the field it was meant to be",
        )
    if spec is None and key in fields:
        return KeywordWords(not_flag=True)  # a field with no flag in this release: not a command-line setting
    long = [o for o in (spec.option_strings if spec is not None else ()) if o.startswith("--")]
    flag = long[0] if long else "--" + key.replace("_", "-")
    if value is None:
        return KeywordWords()  # the field's default, as with no keyword
    if isinstance(value, Unknown):
        return KeywordWords(words=[flag, value])
    switch = spec is not None and (
        spec.action in ("store_true", "BooleanOptionalAction")
        or spec.raw.get("behaves_like") in ("BooleanOptionalAction", "store_true")
    )
    if isinstance(value, bool) and (switch or spec is None):
        if value:
            return KeywordWords(words=[flag])
        negative = _negative(flag, spec, long)
        return KeywordWords(words=[negative] if negative else [])
    if isinstance(value, (list, tuple)) and spec is not None and spec.nargs:
        return KeywordWords(words=[flag, *(_text(v) for v in value)])
    if isinstance(value, str) and key in (classes.get("sequences") or {}).get(class_name, ()):
        choices = (spec.choices if spec is not None else None) or ()
        # the parser reads the words a list would give: what the class makes of the string is PA053's
        return KeywordWords(
            words=[flag, *(value.split() or [value])],
            string_for_sequence=True,
            value=value,
            not_a_choice=bool(choices) and value not in choices,
            as_list=_as_list(value, spec.type if spec is not None else None),
        )
    return KeywordWords(words=[flag, _text(value)])


def _as_list(value: str, kind: Any) -> str:
    """``'1 2 4'`` as the list the command line's words make (``[1, 2, 4]`` for an int flag)."""
    items: list[Any] = value.split() or [value]
    convert = {"int": int, "float": float}.get(str(kind or ""))
    if convert is not None:
        try:
            items = [convert(item) for item in items]
        except ValueError:
            pass
    return "[" + ", ".join(repr(item) for item in items) + "]"


def class_of(cls: str) -> str:
    """The class whose fields a call's keywords are (``Engine``: ``ServerArgs``, ``LLM``: ``EngineArgs``)."""
    return _CLASS_NAME.get(cls, cls)


def _alias_note(key: str) -> str:
    return f"its command line keeps --{key.replace('_', '-')} as a deprecated alias; "


def _span(framework: str) -> str:
    from argtrace.frameworks.schema import bundled_versions

    versions = bundled_versions(framework, include_user=False)
    return f"{versions[0]}-{versions[-1]}" if versions else "none bundled"


def _text(value: Any) -> Any:
    from argtrace.layers.transport.python_values import Unknown

    if isinstance(value, (Unknown, str)):
        return value
    if isinstance(value, (dict, list, tuple)):
        try:
            return json.dumps(value)
        except TypeError:
            return Unknown(repr(value)[:80], "a value with parts known only when the program runs", 0)
    return str(value)


def _negative(flag: str, spec: Any, names: list[str]) -> str | None:
    """A switch's ``False``: ``--no-FLAG`` where the release takes it, else None (the default)."""
    if spec is None or spec.action == "store_true":
        return None
    plain = "--no-" + flag[2:]
    negatives = str((spec.raw.get("action_attrs") or {}).get("negative_option_strings") or "")
    if plain in names or plain in negatives or spec.action == "BooleanOptionalAction":
        return plain
    return None
