#!/usr/bin/env python3
"""Generate src/argtrace/data/vllm_bench.json: which bundled vLLM releases have ``vllm bench latency`` and
``vllm bench throughput``, and each one's real parser where they do.

Both build the engine from the same engine arguments as ``vllm serve`` (``EngineArgs.add_cli_args`` /
``AsyncEngineArgs.add_cli_args`` after the benchmark's own flags, ``vllm/benchmarks/<name>.py``
``add_cli_args``), so their engine flags are a launch argtrace reads (frameworks/vllm_bench.py). For every
bundled vLLM release: its wheel from PyPI (``pip download --no-deps``, python files unpacked, the wheel
deleted) tells whether ``vllm/benchmarks/latency.py`` exists. Where it does, each parser is built by the
release's own code (``scripts/dump_vllm_bench_parser.py``, over the vLLM 0.33.0 resolver environment with
the overlay's placeholders, as ``scripts/gen_vllm_demo_server.py`` does for the demo server) and compared
with that release's bundled ``vllm serve`` schema: an option the two parsers have identically is stored by
its first option string (``shared``), any other in full (``own``). ``vllm bench serve`` is a client of a
running server and is not read. Nothing in the file is typed by hand.

    python scripts/gen_vllm_bench.py            # every bundled release
    python scripts/gen_vllm_bench.py 0.33.0     # one release (the others kept from the file)
    python scripts/gen_vllm_bench.py --check    # regenerate and compare
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import bundled_versions, load_schema  # noqa: E402
from argtrace.resolver import environments, schema_gen  # noqa: E402
from gen_vllm_demo_server import (  # noqa: E402  (its sibling: the same overlay, the same helpers)
    _key,
    _rmtree,
    environments_version_key,
    log,
    overlay_dump,
    overlay_note,
)

OUT = ROOT / "src" / "argtrace" / "data" / "vllm_bench.json"
DUMPER = ROOT / "scripts" / "dump_vllm_bench_parser.py"
MODULE_FILE = "vllm/benchmarks/latency.py"
DEPS = "0.33.0"  # the resolver environment the releases are overlaid on (gen_schemas.OVERLAY_DEPS)


def _normalized(entry: dict[str, Any]) -> dict[str, Any]:
    """``entry`` with a set's repr in ``action_attrs`` (vLLM's EnableDisableAction keeps its negative option
    strings in a set: the dump's order depends on the run's hash seed) written in sorted order."""
    attrs = entry.get("action_attrs")
    if not isinstance(attrs, dict):
        return entry
    fixed = dict(attrs)
    for key, value in attrs.items():
        text = value.get("repr") if isinstance(value, dict) else None
        if isinstance(text, str) and text.startswith("{") and text.endswith("}"):
            import ast

            try:
                items = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                continue
            if isinstance(items, set) and all(isinstance(i, str) for i in items):
                fixed[key] = {"repr": "{" + ", ".join(repr(i) for i in sorted(items)) + "}"}
    return {**entry, "action_attrs": fixed}


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # "where" names a source line: the bench dump reads it from the same file, so it is compared too
    return json.dumps(_normalized(a), sort_keys=True) == json.dumps(_normalized(b), sort_keys=True)


def compact(parser: dict[str, Any], serve: dict[str, Any]) -> dict[str, Any]:
    """A subcommand's dumped parser as stored: the option strings it shares identically with the release's
    `vllm serve` schema (``shared``), its other arguments in full (``own``, set reprs sorted)."""
    by_key = {_key(o): o for o in [*serve["options"], *serve["positionals"]]}
    shared: list[str] = []
    own: list[dict[str, Any]] = []
    for argument in parser["arguments"]:
        other = by_key.get(_key(argument))
        if other is not None and _same(argument, other):
            shared.append(_key(argument))
        else:
            own.append(_normalized(argument))
    return {"parser": parser["parser"], "shared": shared, "own": own}


def release_entry(version: str, root: Path, deps: environments.Manifest) -> dict[str, Any]:
    started = time.monotonic()
    unpacked = schema_gen.fetch_unpacked("vllm", version, root, log)
    note = json.loads((unpacked / schema_gen.WHEEL_NOTE).read_text())
    source = f"vllm=={version} wheel from PyPI ({note['wheel']}, sha256 {note['wheel_sha256']})"
    if not (unpacked / MODULE_FILE).is_file():
        log(f"vllm=={version}: no {MODULE_FILE}")
        return {"ships": False, "source": source}
    dumped = overlay_dump(version, unpacked, deps, DUMPER, "bench")
    generated_with = overlay_note(dumped)
    serve = load_schema("vllm", version).data
    entry: dict[str, Any] = {"ships": True, "source": source, "generated_with": generated_with}
    for name, parser in sorted(dumped["bench"].items()):
        arguments = [*parser["options"], *parser["positionals"]]
        entry[name] = compact({"parser": parser["parser"], "arguments": arguments}, serve)
        same = len(entry[name]["shared"])
        log(f"vllm=={version}: bench {name} {len(arguments)} arguments, {same} as in `vllm serve`")
    log(f"vllm=={version}: {time.monotonic() - started:.0f} s")
    return entry


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--recompact", action="store_true", help="re-store the file's entries (no dump)")
    ap.add_argument("versions", nargs="*", help="only these releases (the others kept from the file)")
    a = ap.parse_args()
    if a.recompact:
        return _recompact()
    deps = environments.find_environment("vllm", DEPS)
    if deps is None:
        log(f"no vllm=={DEPS} resolver environment: build it first (scripts/gen_schemas.py)")
        return 2
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    releases: dict[str, Any] = dict(old.get("releases", {})) if a.versions else {}
    with tempfile.TemporaryDirectory(prefix="argtrace-bench-") as tmp:
        for version in a.versions or bundled_versions("vllm", include_user=False):
            releases[version] = release_entry(version, Path(tmp), deps)
            _rmtree(Path(tmp) / f"vllm-{version}")  # an unpacked release is ~60 MB
    data = {
        "generated_by": "scripts/gen_vllm_bench.py",
        "module": "vllm.benchmarks",
        "releases": dict(sorted(releases.items(), key=lambda kv: environments_version_key(kv[0]))),
    }
    text = json.dumps(data, indent=1, sort_keys=False) + "\n"
    if a.check:
        same = OUT.exists() and OUT.read_text() == text
        print("equal" if same else f"{OUT} differs")
        return 0 if same else 1
    OUT.write_text(text)
    ships = [v for v, r in data["releases"].items() if r["ships"]]
    print(
        f"wrote {OUT}: vllm bench in {', '.join(ships)}; not in {len(data['releases']) - len(ships)} releases"
    )
    return 0


def _recompact() -> int:
    """Store the file's entries again by ``compact`` (what an older run stored in full, kept whole)."""
    data = json.loads(OUT.read_text())
    for version, entry in data["releases"].items():
        serve = load_schema("vllm", version).data
        by_key = {_key(o): o for o in [*serve["options"], *serve["positionals"]]}
        for name in ("latency", "throughput"):
            sub = entry.get(name)
            if not isinstance(sub, dict):
                continue
            arguments = [by_key[k] for k in sub["shared"]] + sub["own"]
            entry[name] = compact({"parser": sub["parser"], "arguments": arguments}, serve)
    OUT.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
