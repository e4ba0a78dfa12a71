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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.resolver import ast_index, environments  # noqa: E402
from argtrace.resolver.fake_gpu import fake_gpu_env  # noqa: E402

DATA = ROOT / "src" / "argtrace" / "frameworks" / "data"
BUNDLED = (
    ("sglang", "0.5.10.post1"),
    ("sglang", "0.5.15.post1"),
    ("sglang", "0.5.19"),
    ("sglang", "0.5.23"),
    ("vllm", "0.33.0"),
    ("vllm", "0.11.0"),
)
GENERATOR = "scripts/gen_schemas.py"
FORMAT = 1
DUMPER = ROOT / "src" / "argtrace" / "resolver" / "dump_parser.py"
SCHEMA_GPU = "h100"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def dump(manifest: environments.Manifest, framework: str) -> dict[str, Any]:
    env = environments.runtime_env(manifest, {"ARGTRACE_FAKE_GPU": fake_gpu_env(SCHEMA_GPU)})
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "dump.json"
        proc = subprocess.run(
            [str(environments.env_python(Path(manifest.path))), str(DUMPER), framework, "--out", str(out)],
            env=env,
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if proc.returncode != 0 or not out.exists():
            raise SystemExit(
                f"dumper failed ({proc.returncode}) for {framework}=={manifest.version}:\n"
                + "\n".join(proc.stderr.splitlines()[-40:])
            )
        return json.loads(out.read_text())


def schema_for(framework: str, version: str) -> tuple[dict[str, Any], dict[str, Any]]:
    started = time.monotonic()
    manifest = environments.build_environment(framework, version, progress=log)
    built = time.monotonic()
    dumped = dump(manifest, framework)
    if dumped.get("version") != version:
        raise SystemExit(f"environment holds {framework} {dumped.get('version')}, expected {version}")
    site = environments.site_packages(Path(manifest.path))
    pkg = site / framework
    env_vars = (ast_index.sglang_env_vars if framework == "sglang" else ast_index.vllm_env_vars)(site)
    json_reasons: dict[str, str] = {}
    for opt in dumped["options"]:
        reason = opt.get("json")
        if reason and reason.startswith("type "):
            json_reasons[opt["dest"]] = reason
    by_dest = {o["dest"]: o for o in dumped["options"]}
    for field, how in sorted(ast_index.json_loaded_fields(ast_index.python_files(pkg)).items()):
        opt = by_dest.get(field)
        if opt is None:
            continue
        looks_json = (
            "json" in (opt.get("help") or "").lower()
            or opt.get("default") in ("{}", "[]")
            or isinstance(opt.get("default"), dict)
        )
        if how == "attribute" or looks_json:
            json_reasons.setdefault(field, f"json.loads of the field in the framework's code ({how})")
    for opt in dumped["options"]:
        if opt["dest"] in json_reasons:
            opt["json"] = json_reasons[opt["dest"]]
        else:
            opt.pop("json", None)
    schema: dict[str, Any] = {
        "format": FORMAT,
        "framework": framework,
        "version": version,
        "generated_by": GENERATOR,
        "source": f"{framework}=={version} wheel from PyPI "
        f"({manifest.wheel}, sha256 {manifest.wheel_sha256})",
        "wheel": manifest.wheel,
        "wheel_sha256": manifest.wheel_sha256,
        "generated_with": {
            "python": dumped.get("python"),
            "torch": environments.TORCH_VERSION + " (CPU)",
            "fake_gpu": SCHEMA_GPU,
            "transformers": manifest.packages.get("transformers"),
        },
        "parser": dumped["parser"],
        "options": dumped["options"],
        "positionals": dumped["positionals"],
        "env_vars": env_vars,
        "json_flags": sorted(json_reasons),
    }
    raise_index = raise_index_for(framework, version, manifest, schema["source"])
    sites = raise_index["sites"]
    log(
        f"{framework}=={version}: {len(schema['options'])} options, {len(env_vars)} env vars, "
        f"{len(schema['json_flags'])} json flags, {len(sites)} raise sites "
        f"(env {built - started:.0f} s, dump+ast {time.monotonic() - built:.0f} s)"
    )
    return schema, raise_index


def raise_index_for(
    framework: str, version: str, manifest: environments.Manifest, source: str
) -> dict[str, Any]:
    site = environments.site_packages(Path(manifest.path))
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
    args = ap.parse_args(argv)
    targets = [environments.parse_spec(s) for s in args.specs] or list(BUNDLED)
    total = 0
    if args.raise_sites_only:
        for framework, version in targets:
            manifest = environments.build_environment(framework, version, progress=log)
            schema = json.loads((args.out / "schemas" / f"{framework}-{version}.json").read_text())
            total += write_json(
                args.out / "raise_sites" / f"{framework}-{version}.json",
                raise_index_for(framework, version, manifest, schema["source"]),
            )
        log(f"wrote {total / 1e6:.2f} MB")
        return 0
    for framework, version in targets:
        schema, raise_index = schema_for(framework, version)
        total += write_json(args.out / "schemas" / f"{framework}-{version}.json", schema)
        total += write_json(args.out / "raise_sites" / f"{framework}-{version}.json", raise_index)
    log(f"wrote {total / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
