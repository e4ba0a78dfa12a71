#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/release_index.json from the bundled schemas (``--check``: stale?).

Run after scripts/gen_schemas.py adds or changes a release. The index is read by
``argtrace.frameworks.release_index`` (which never loads a schema); building it loads every one, so that
code lives here, not in the package (the package's schema module reads the index: no import circle)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from argtrace.frameworks.release_index import INDEX_PATH
from argtrace.frameworks.schema import (
    FRAMEWORKS,
    VALUELESS_ACTIONS,
    OptionSpec,
    Schema,
    bundled_versions,
    load_schema,
)


def registration(schema: Schema, spec: OptionSpec) -> str:
    """How one release registers an option, as comparable text: the argparse action's shape and, for a
    JSON flag validated into a config dataclass (PA026), that class's fields."""
    return repr(
        (
            spec.action,
            repr(spec.nargs),
            repr(spec.const),
            spec.type,
            repr(spec.choices),
            repr(spec.default),
            spec.required,
            repr(spec.deprecated),
            repr(schema.config_dataclass(spec.dest)),
        )
    )


def build_index() -> dict[str, Any]:
    """The index's content, derived from the bundled schemas (``scripts/gen_release_index.py`` writes it)."""
    out: dict[str, Any] = {}
    for framework in FRAMEWORKS:
        releases = bundled_versions(framework, include_user=False)
        schemas = [load_schema(framework, v) for v in releases]
        flags: dict[str, list[int]] = {}
        env: dict[str, list[int]] = {}
        no_value: dict[str, list[int]] = {}
        shapes: dict[str, set[str]] = {}
        for i, schema in enumerate(schemas):
            for option in schema.option_strings:
                flags.setdefault(option, []).append(i)
                spec = schema.option(option)
                if spec is not None and (spec.action in VALUELESS_ACTIONS or spec.nargs == 0):
                    no_value.setdefault(option, []).append(i)
                if spec is not None:
                    shapes.setdefault(option, set()).add(registration(schema, spec))
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
        }
    return out


def render() -> str:
    return json.dumps(build_index(), separators=(",", ":"), sort_keys=True) + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv[1:]:
        if not INDEX_PATH.is_file() or INDEX_PATH.read_text() != text:
            print(f"{INDEX_PATH} is stale: run python scripts/gen_release_index.py", file=sys.stderr)
            return 1
        return 0
    INDEX_PATH.write_text(text)
    print(f"wrote {INDEX_PATH} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
