#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/release_index/FRAMEWORK.json (one file per framework) from the bundled
schemas (``--check``: stale?).

Run after scripts/gen_schemas.py adds or changes a release. The index is read by
``argtrace.frameworks.release_index`` (which never loads a schema); building it loads every one, so that
code lives here, not in the package (the package's schema module reads the index: no import circle)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from argtrace.frameworks.actions import registered_options
from argtrace.frameworks.release_index import INDEX_DIR, index_path
from argtrace.frameworks.schema import (
    FRAMEWORKS,
    VALUELESS_ACTIONS,
    OptionSpec,
    Schema,
    bundled_versions,
    load_schema,
)
from argtrace.layers.parser.build import option_converter
from argtrace.layers.parser.json_values import _json_valued

NO_VALUE = "(takes no value)"


def converter(schema: Schema, spec: OptionSpec) -> str:
    """Which converter the parser layer gives the option's values (``layers/parser/build.py``'s choice):
    the type's name with its recorded inner converter, and for a vLLM closure named without one the
    converter inferred from its help text and default (the help and default count only through this)."""
    conv, known, type_name = option_converter(schema=schema, spec=spec)
    if not known or conv is None:
        return f"{type_name} (unknown)" if not known else "none"
    cells = [c.cell_contents for c in getattr(conv, "__closure__", None) or () if callable(c.cell_contents)]
    names = [getattr(f, "__qualname__", repr(f)) for f in (conv, *cells)]
    return f"{type_name}: {' '.join(names)}"


def registration(schema: Schema, spec: OptionSpec, kind: str) -> str:
    """How one release registers an option, as far as parsing a launch and the parser's findings go, as
    comparable text: the action's class and behaviour, nargs, const, the value converter, choices,
    required, deprecated, whether the value is JSON, and for a JSON flag validated into a config dataclass
    (PA026) that class's fields. Not the help text or the default: a release that only rewords a flag's
    help or changes its default parses it the same way (except where vLLM's converter is inferred from
    them, which ``converter`` covers)."""
    return repr(
        (
            spec.action,
            kind,
            repr(spec.nargs),
            repr(spec.const),
            converter(schema, spec),
            repr(spec.choices),
            spec.required,
            repr(spec.deprecated),
            _json_valued(spec, schema),
            repr(schema.config_dataclass(spec.dest)),
        )
    )


def build_index() -> dict[str, Any]:
    """The index's content, derived from the bundled schemas (``scripts/gen_release_index.py`` writes it).
    Every option string the parser registers is indexed, hidden ones included (vLLM's EnableDisableAction
    ``--no-enable-x``: ``frameworks/actions.registered_options``)."""
    out: dict[str, Any] = {}
    for framework in FRAMEWORKS:
        releases = bundled_versions(framework, include_user=False)
        schemas = [load_schema(framework, v) for v in releases]
        flags: dict[str, list[int]] = {}
        env: dict[str, list[int]] = {}
        no_value: dict[str, list[int]] = {}
        shapes: dict[str, set[str]] = {}
        labels: dict[str, int] = {}  # a converter label -> its position in converter_names
        # option string -> its converter's label, per release knowing it
        converters: dict[str, list[int]] = {}
        # option string -> its choices' label per release knowing it (-1: none checked), for options of one
        # value whose converter hands argparse the word itself (choices compared with the word as typed)
        choice_labels: dict[str, int] = {}
        choices: dict[str, list[int]] = {}
        # option string -> the releases whose action refuses it outright: the generator's probe saw it raise
        # (``removed``: SGLang 0.5.1-0.5.3's DeprecatedAction raises ValueError(help)) or it errors with a
        # message (``action_attrs.error_message``)
        refused: dict[str, list[int]] = {}
        for i, schema in enumerate(schemas):
            for spec, kind, strings in registered_options(schema):
                shape = registration(schema, spec, kind)
                valueless = spec.action in VALUELESS_ACTIONS or spec.nargs == 0
                for option in strings:
                    if i in flags.get(option, ()):
                        continue
                    flags.setdefault(option, []).append(i)
                    if valueless:
                        no_value.setdefault(option, []).append(i)
                    shapes.setdefault(option, set()).add(shape)
                    label = NO_VALUE if valueless else converter(schema, spec)
                    converters.setdefault(option, []).append(labels.setdefault(label, len(labels)))
                    if spec.raw.get("removed") or (spec.raw.get("action_attrs") or {}).get("error_message"):
                        refused.setdefault(option, []).append(i)
                    words = _word_choices(spec, label, valueless)
                    key = json.dumps(words) if words is not None else None
                    choices.setdefault(option, []).append(
                        choice_labels.setdefault(key, len(choice_labels)) if key is not None else -1
                    )
            for name in schema.env_var_names:
                env.setdefault(name, []).append(i)
        out[framework] = {
            "releases": releases,
            "allow_abbrev": [s.allow_abbrev for s in schemas],
            "flags": dict(sorted(flags.items())),
            "env": dict(sorted(env.items())),
            "no_value": dict(sorted(no_value.items())),
            "same_everywhere": sorted(
                f for f, known in flags.items() if len(known) == len(schemas) and len(shapes[f]) == 1
            ),
            "converter_names": list(labels),
            # per option string, its converter in each release that knows it (in ``flags`` order) as runs
            # of [label, releases]; options that take no value in any release are left out
            "converters": {
                f: _runs(converters[f]) for f in sorted(flags) if set(converters[f]) != {labels.get(NO_VALUE)}
            },
            # the choice lists, and per option string with choices in some release, runs of (list position,
            # how many releases; -1: no choices) over the releases knowing it
            "choice_sets": [json.loads(k) for k in choice_labels],
            "choices": {f: _runs(choices[f]) for f in sorted(flags) if set(choices[f]) != {-1}},
            "refused": dict(sorted(refused.items())),
        }
    return out


# Converters that hand argparse the typed word unchanged, so that a choice check compares the word itself
EXACT_CONVERTERS = ("str: str", "none")


def _word_choices(spec: OptionSpec, label: str, valueless: bool) -> list[str] | None:
    """The choices argparse checks one typed word against, or None: no choices, no value, several values
    (nargs '+'/'*'/N: each item is checked, the release index keeps single words), or a converter that may
    change the word first (``str.lower``, a nullable wrapper: argtrace's ``choice?``)."""
    if valueless or not spec.choices or spec.nargs not in (None, "?"):
        return None
    if label not in EXACT_CONVERTERS or not all(isinstance(c, str) for c in spec.choices):
        return None
    return sorted(spec.choices)


def _runs(labels: list[int]) -> list[list[int]]:
    """``[3, 3, 5]`` -> ``[[3, 2], [5, 1]]``: most options keep one converter for many releases."""
    out: list[list[int]] = []
    for label in labels:
        if out and out[-1][0] == label:
            out[-1][1] += 1
        else:
            out.append([label, 1])
    return out


def render() -> dict[Path, str]:
    """Each framework's index file and its text."""
    return {
        index_path(framework): json.dumps(entry, separators=(",", ":"), sort_keys=True) + "\n"
        for framework, entry in build_index().items()
    }


def main() -> int:
    files = render()
    stray = sorted(set(INDEX_DIR.glob("*.json")) - set(files)) if INDEX_DIR.is_dir() else []
    if "--check" in sys.argv[1:]:
        status = 0
        for path, text in files.items():
            if not path.is_file() or path.read_text() != text:
                print(f"{path} is stale: run python scripts/gen_release_index.py", file=sys.stderr)
                status = 1
        for path in stray:
            print(f"{path} is no framework's index: run python scripts/gen_release_index.py", file=sys.stderr)
            status = 1
        return status
    INDEX_DIR.mkdir(exist_ok=True)
    for path in stray:
        path.unlink()
    for path, text in files.items():
        path.write_text(text)
        print(f"wrote {path} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
