#!/usr/bin/env python3
"""Generate the inner converters of closure-typed options (vLLM's ``optional_type(int)`` and friends).

The bundled schemas name an option's ``type`` by its qualified name; for a closure such as
``vllm.engine.arg_utils.optional_type.<locals>._optional_type`` that hides what it converts to. This script
runs the real parser inside each framework's resolver environment, reads the closures' cells and
defaults, and writes ``src/argtrace/frameworks/data/converters/<framework>-<version>.json``:

    {"format": 1, "framework": "vllm", "version": "0.33.0", "generated_by": ..., "types": {
        "seed": "vllm.engine.arg_utils.optional_type.<locals>._optional_type(int)", ...}}

It also records, for JSON flags validated into a config dataclass (``--compilation-config``...), that
class's field names, pydantic's ``extra`` policy (``ignore``: unknown keys are dropped silently;
``forbid``: the parser exits 2) and what the real converter does with a JSON value that is not an object
(``non_object``: per sample value, the refusal argparse prints, or null when it is taken; vLLM 0.33.0
refuses ``--compilation-config 3``). ``argtrace.frameworks.schema`` merges it into the schema; nothing is
typed by hand. Usage: ``python scripts/gen_converter_types.py [vllm==0.33.0 ...]`` (default: every
bundled vLLM schema whose environment exists).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import bundled_versions  # noqa: E402
from argtrace.resolver import environments  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "converters"
GENERATOR = "scripts/gen_converter_types.py"

# Runs inside the environment: stdlib + the framework only.
PROBE = r'''
import json, sys
try:
    from vllm.utils.argparse_utils import FlexibleArgumentParser
except ImportError:
    from vllm.utils import FlexibleArgumentParser
try:
    from vllm.entrypoints.common.cli_args import make_arg_parser
except ImportError:
    from vllm.entrypoints.openai.cli_args import make_arg_parser

def name(fn, depth=0):
    if fn is None:
        return None
    if fn in (int, float, str, bool):
        return fn.__name__
    if fn is json.loads:
        return "json.loads"
    module = getattr(fn, "__module__", None) or type(fn).__module__
    qual = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    base = f"{module}.{qual}"
    if depth > 3:
        return base
    inner = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if callable(value):
            inner.append(name(value, depth + 1))
    for value in getattr(fn, "__defaults__", None) or ():
        if isinstance(value, type) or callable(value):
            inner.append(name(value, depth + 1))
    return f"{base}({', '.join(i for i in inner if i)})" if inner else base

import dataclasses

def dataclass_of(fn, depth=0):
    """The config dataclass a parse_dataclass closure validates into (its default argument)."""
    if fn is None or depth > 3:
        return None
    for value in getattr(fn, "__defaults__", None) or ():
        if isinstance(value, type) and dataclasses.is_dataclass(value):
            return value
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            value = cell.cell_contents
        except ValueError:
            continue
        if callable(value):
            found = dataclass_of(value, depth + 1)
            if found is not None:
                return found
    return None

parser = make_arg_parser(FlexibleArgumentParser(prog="vllm serve"))
out = {}
classes = {}
for action in parser._actions:
    t = action.type
    if t is not None and getattr(t, "__closure__", None):
        out[action.dest] = name(t)
    cls = dataclass_of(t) if t is not None else None
    if cls is not None:
        config = getattr(cls, "__pydantic_config__", None) or {}
        # what the real converter does with a JSON value that is not an object (sample of each kind):
        # the refusal text argparse would print, or None when the converter takes it
        non_object = {}
        for sample in ("3", "1.5", "true", "null", "[]", '"x"'):
            try:
                t(sample)
                non_object[sample] = None
            except Exception as e:
                non_object[sample] = str(e) or type(e).__name__
        classes[action.dest] = {
            "class": f"{cls.__module__}.{cls.__qualname__}",
            "fields": sorted(f.name for f in dataclasses.fields(cls)),
            "extra": config.get("extra") or "ignore",
            "non_object": non_object,
        }
print(json.dumps({"types": out, "dataclasses": classes}, sort_keys=True))
'''


def generate(framework: str, version: str) -> dict[str, object]:
    manifest = environments.find_environment(framework, version)
    if manifest is None:
        raise SystemExit(f"no resolver environment for {framework}=={version}")
    extra = {}
    try:
        from argtrace.resolver.fake_gpu import fake_gpu_env

        extra["ARGTRACE_FAKE_GPU"] = fake_gpu_env("h100")
    except Exception:
        pass
    proc = subprocess.run(
        [str(environments.env_python(Path(manifest.path))), "-c", PROBE],
        capture_output=True,
        text=True,
        timeout=600,
        env=environments.runtime_env(manifest, extra),
    )
    if proc.returncode != 0:
        raise SystemExit(f"probe failed for {framework}=={version}:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    specs = [environments.parse_spec(a) for a in argv] or [("vllm", v) for v in bundled_versions("vllm")]
    OUT.mkdir(parents=True, exist_ok=True)
    for framework, version in specs:
        if framework != "vllm":
            print(f"skip {framework}=={version}: no closure-typed options", file=sys.stderr)
            continue
        if environments.find_environment(framework, version) is None:
            print(f"skip {framework}=={version}: no resolver environment", file=sys.stderr)
            continue
        found = generate(framework, version)
        types = found["types"]
        data = {
            "format": 1,
            "framework": framework,
            "version": version,
            "generated_by": GENERATOR,
            "types": types,
            # JSON flags validated into a config dataclass: its fields, and what pydantic does with others
            "dataclasses": found["dataclasses"],
        }
        path = OUT / f"{framework}-{version}.json"
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(
            f"wrote {path.relative_to(ROOT)}: {len(types)} closure-typed options, "  # type: ignore[arg-type]
            f"{len(found['dataclasses'])} config dataclasses",  # type: ignore[arg-type]
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
