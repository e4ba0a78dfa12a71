#!/usr/bin/env python3
"""Generate the bundled parser schemas and raise-site indexes from the real framework wheels.

    python scripts/gen_schemas.py                      # every bundled version
    python scripts/gen_schemas.py sglang==0.5.23       # one
    python scripts/gen_schemas.py --check              # regenerate into a temp dir and diff

For each version: build (or reuse) its resolver environment (``argtrace.resolver.environments``), run
``argtrace/resolver/dump_parser.py`` inside that environment's interpreter with the import stubs and a fake
H100 (the framework's real parser, dumped as JSON), then read environment-variable names, JSON-parsed fields
and raise sites from the installed source by AST (``argtrace.resolver.ast_index``). Writes
``src/argtrace/frameworks/data/schemas/<fw>-<ver>.json`` and ``.../raise_sites/<fw>-<ver>.json``.
Nothing in those files is typed by hand.
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

from argtrace.resolver import ast_index, environments, schema_gen  # noqa: E402

DATA = ROOT / "src" / "argtrace" / "frameworks" / "data"
BUNDLED = (
    ("sglang", "0.5.10.post1"),
    ("sglang", "0.5.15.post1"),
    ("sglang", "0.5.19"),
    ("sglang", "0.5.23"),
    ("vllm", "0.33.0"),
    ("vllm", "0.11.0"),
)
GENERATOR = schema_gen.GENERATOR
FORMAT = schema_gen.FORMAT
# Releases bundled without an environment of their own (issue 15): SGLang, the last post-release of each
# 0.4.N and 0.5.N; vLLM, the last patch of each minor from 0.6 (from `pip index versions`, 2026-12-01).
RELEASES = {
    "sglang": (
        "0.4.0.post2 0.4.1.post7 0.4.2.post4 0.4.3.post4 0.4.4.post4 0.4.5.post3 0.4.6.post5 0.4.7.post1 "
        "0.4.8.post1 0.4.9.post6 0.4.10.post2 0.5.1.post3 0.5.2 0.5.3.post3 0.5.4.post3 0.5.5.post3 "
        "0.5.6.post2 0.5.7 0.5.8.post1 0.5.9 0.5.10.post1 0.5.11 0.5.12.post1 0.5.13.post1 0.5.14 "
        "0.5.15.post1 0.5.16 0.5.17 0.5.18 0.5.19 0.5.20 0.5.21 0.5.22 0.5.23"
    ).split(),
    "vllm": (
        "0.6.6.post1 0.7.3 0.8.5.post1 0.9.2 0.10.2 0.11.2 0.12.0 0.13.0 0.14.1 0.15.1 0.16.0 0.17.1 0.18.1 "
        "0.19.1 0.20.2 0.21.0 0.22.1 0.23.0 0.24.0 0.25.1 0.26.0 0.27.1 0.28.0 0.29.0 0.30.0 0.31.0 0.32.0 "
        "0.33.0"
    ).split(),
}
# The environments an overlay borrows its dependencies from, tried in order.
OVERLAY_DEPS = {"sglang": ("0.5.23", "0.5.10.post1"), "vllm": ("0.33.0",)}


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def schema_for(framework: str, version: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A CI-built release: its own resolver environment (built or reused), schema and raise sites."""
    started = time.monotonic()
    manifest = environments.build_environment(framework, version, progress=log)
    built = time.monotonic()
    schema = schema_gen.schema_in_env(manifest)
    raise_index = raise_index_for(framework, version, manifest, schema["source"])
    log(
        f"{framework}=={version}: {len(schema['options'])} options, {len(schema['env_vars'])} env vars, "
        f"{len(schema['json_flags'])} json flags, {len(raise_index['sites'])} raise sites "
        f"(env {built - started:.0f} s, dump+ast {time.monotonic() - built:.0f} s)"
    )
    return schema, raise_index


def overlay_schema_for(framework: str, version: str, unpacked_root: Path) -> dict[str, Any]:
    """A release without its own environment: its unpacked wheel over each dependency environment of
    ``OVERLAY_DEPS`` in turn until one imports its parser (schema_gen.schema_overlay); when none does, the
    parser is read from the source by AST (ast_parser) and the schema says ``"source": "ast"``."""
    started = time.monotonic()
    unpacked = schema_gen.fetch_unpacked(framework, version, unpacked_root, log)
    errors = []
    for deps_version in OVERLAY_DEPS[framework]:
        deps = environments.find_environment(framework, deps_version)
        if deps is None:
            continue
        try:
            schema = schema_gen.schema_overlay(framework, version, unpacked, deps)
        except schema_gen.GenerationError as exc:
            errors.append(str(exc))
            continue
        log(
            f"{framework}=={version}: overlay over {deps_version}: {len(schema['options'])} options, "
            f"{len(schema['env_vars'])} env vars, stubbed {schema['generated_with']['stubbed_modules']} "
            f"({time.monotonic() - started:.0f} s)"
        )
        return schema
    from argtrace.resolver import ast_parser

    log(f"{framework}=={version}: overlay failed, AST:\n" + "\n".join(e[-600:] for e in errors))
    schema = ast_parser.schema_by_ast(framework, version, unpacked, errors)
    strings = {s for o in schema["options"] for s in o["option_strings"]}
    missing = [f for f in AST_CORE_FLAGS if f not in strings]
    if missing:  # e.g. 0.5.16-0.5.18 derive most flags from Annotated dataclass metadata, not calls
        raise schema_gen.GenerationError(
            f"AST found {len(schema['options'])} options but not {', '.join(missing)}: not bundled"
        )
    return schema


# An AST schema is bundled only when it has these (else it would reject valid flags).
AST_CORE_FLAGS = ("--model-path", "--port", "--tp-size", "--mem-fraction-static")


def raise_index_for(
    framework: str, version: str, manifest: environments.Manifest, source: str
) -> dict[str, Any]:
    return raise_index_at(framework, version, environments.site_packages(Path(manifest.path)), source)


def raise_index_at(framework: str, version: str, site: Path, source: str) -> dict[str, Any]:
    """The raise sites of the release whose files are under ``site`` (site-packages, or an unpacked wheel:
    the same AST read either way)."""
    modules = ast_index.resolution_modules(framework, site)
    return {
        "format": FORMAT,
        "framework": framework,
        "version": version,
        "generated_by": GENERATOR,
        "source": source,
        "modules": [ast_index.rel(p, site) for p in modules],
        "sites": ast_index.raise_sites(modules, site),
    }


def write_json(path: Path, data: dict[str, Any]) -> int:
    """Compact but diffable: one top-level key per line, one list element per line."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and isinstance(value[0], dict):
            body = ",\n".join("  " + json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in value)
            lines.append(f"{json.dumps(key)}:[\n{body}\n ]{comma}")
        else:
            lines.append(
                f"{json.dumps(key)}:{json.dumps(value, ensure_ascii=False, separators=(',', ':'))}{comma}"
            )
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("specs", nargs="*", help="framework==version (default: every bundled version)")
    ap.add_argument("--out", type=Path, default=DATA, help="data directory (default: the package's)")
    ap.add_argument(
        "--raise-sites-only",
        action="store_true",
        help="only re-extract the raise-site indexes (AST of existing environments; no dumper run)",
    )
    ap.add_argument(
        "--overlay",
        action="store_true",
        help="the releases of RELEASES without an own environment (or the specs given): overlay dumps "
        "into --staging, one full schema file each (then --pack stores them)",
    )
    ap.add_argument(
        "--framework",
        choices=("sglang", "vllm"),
        help="with --pack: re-store only this framework's files (the other's are left as they are)",
    )
    ap.add_argument("--staging", type=Path, default=Path(tempfile.gettempdir()) / "argtrace-schemas")
    ap.add_argument("--unpacked", type=Path, default=Path(tempfile.gettempdir()) / "argtrace-wheels")
    ap.add_argument(
        "--pack",
        action="store_true",
        help="store every bundled schema plus the staged ones as shared parts + per-release files "
        "(frameworks/schema_store.py)",
    )
    args = ap.parse_args(argv)
    if args.overlay:
        own = set(BUNDLED)
        targets = [environments.parse_spec(s) for s in args.specs] or [
            (fw, v) for fw, versions in RELEASES.items() for v in versions if (fw, v) not in own
        ]
        args.unpacked.mkdir(parents=True, exist_ok=True)
        for framework, version in targets:
            dest = args.staging / f"{framework}-{version}.json"
            if dest.exists():
                continue
            try:
                schema = overlay_schema_for(framework, version, args.unpacked)
            except Exception as exc:  # keep going: one release's failure is reported, not fatal
                log(f"{framework}=={version}: FAILED {type(exc).__name__}: {str(exc)[-800:]}")
                continue
            write_json(dest, schema)
        return 0
    if args.pack:
        from argtrace.frameworks import schema_pack, schema_store

        staged = sorted(args.staging.glob("*.json")) if args.staging.is_dir() else []
        only = [args.framework] if args.framework else None
        sizes = schema_pack.pack(args.out / "schemas", staged, frameworks=only)
        log(f"packed schemas: {sizes}")
        # the raise-site indexes the same way: what several releases share, once
        sites = schema_pack.pack(
            args.out / "raise_sites",
            frameworks=only,
            keys=schema_store.RAISE_SITE_KEYS,
            identity=schema_pack.raise_site_identity,
        )
        log(f"packed raise sites: {sites}")
        return 0
    targets = [environments.parse_spec(s) for s in args.specs] or list(BUNDLED)
    total = 0
    if args.raise_sites_only:
        own = set(BUNDLED)
        for framework, version in targets:
            # the schema's own file keeps "source" whether stored full or shared (schema_store.py)
            schema = json.loads((args.out / "schemas" / f"{framework}-{version}.json").read_text())
            # a release with its own environment reads it where it is built; one without (or whose
            # environment is not built on this machine) its unpacked wheel, as --overlay reads it: the
            # same AST read of the same files either way
            manifest = (
                environments.find_environment(framework, version) if (framework, version) in own else None
            )
            if manifest is not None:
                index = raise_index_for(framework, version, manifest, schema["source"])
            else:
                args.unpacked.mkdir(parents=True, exist_ok=True)
                unpacked = schema_gen.fetch_unpacked(framework, version, args.unpacked, log)
                index = raise_index_at(framework, version, unpacked, schema["source"])
            total += write_json(args.out / "raise_sites" / f"{framework}-{version}.json", index)
            log(f"{framework}=={version}: {len(index['sites'])} raise sites")
        log(f"wrote {total / 1e6:.2f} MB (full files: run --pack to store them shared)")
        return 0
    for framework, version in targets:
        schema, raise_index = schema_for(framework, version)
        total += write_json(args.out / "schemas" / f"{framework}-{version}.json", schema)
        total += write_json(args.out / "raise_sites" / f"{framework}-{version}.json", raise_index)
    log(f"wrote {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
