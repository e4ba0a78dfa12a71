#!/usr/bin/env python3
"""Generate src/argtrace/data/vllm_demo_server.json: which bundled vLLM releases ship the demo server
``python -m vllm.entrypoints.api_server``, and its real parser in each that does.

For every bundled vLLM release: its wheel from PyPI (``pip download --no-deps``, python files unpacked, the
wheel deleted) tells whether ``vllm/entrypoints/api_server.py`` exists. Where it does, the demo's parser is
built by the release's own code (``scripts/dump_vllm_demo_parser.py``: the module's ``__main__`` block run
up to ``parse_args``, over the vLLM 0.33.0 resolver environment with the overlay's placeholders, as
``scripts/gen_schemas.py`` does for the bundled schemas) and compared with that release's bundled
``vllm serve`` schema: an option the two parsers have identically is stored by its first option string
(``shared``), any other in full (``own``). Nothing in the file is typed by hand.

    python scripts/gen_vllm_demo_server.py            # every bundled release
    python scripts/gen_vllm_demo_server.py --check    # regenerate and compare
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.schema import bundled_versions, load_schema  # noqa: E402
from argtrace.resolver import environments, schema_gen  # noqa: E402
from argtrace.resolver.fake_gpu import fake_gpu_env  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "data" / "vllm_demo_server.json"
DUMPER = ROOT / "scripts" / "dump_vllm_demo_parser.py"
MODULE_FILE = "vllm/entrypoints/api_server.py"
DEPS = "0.33.0"  # the resolver environment the releases are overlaid on (gen_schemas.OVERLAY_DEPS)


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _key(entry: dict[str, Any]) -> str:
    strings = entry.get("option_strings") or []
    return str(strings[0]) if strings else str(entry.get("dest"))


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    # "where" names a source line: the demo's dump reads it from the same file, so it is compared too
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def overlay_dump(
    version: str, unpacked: Path, deps: environments.Manifest, dumper: Path, what: str
) -> dict[str, Any]:
    """``dumper``'s output, run by the resolver environment ``deps`` with release ``version``'s unpacked wheel
    first on its path (the overlay: that release's code on 0.33.0's dependencies)."""
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    base["PYTHONPATH"] = str(unpacked)
    env = environments.runtime_env_for(base, {"ARGTRACE_FAKE_GPU": fake_gpu_env(schema_gen.SCHEMA_GPU)})
    dumped = schema_gen._run_dumper(
        environments.env_python(Path(deps.path)), dumper, "vllm", env, f"vllm=={version} {what}"
    )
    if dumped.get("version") != version:
        raise schema_gen.GenerationError(f"overlay imported vllm {dumped.get('version')}, expected {version}")
    return dumped


def overlay_note(dumped: dict[str, Any]) -> dict[str, Any]:
    """How an overlay dump was made (the entry's ``generated_with``)."""
    return {
        "method": "overlay",
        "dependencies_from": f"vllm=={DEPS} resolver environment",
        "python": dumped.get("python"),
        "stubbed_modules": dumped.get("stubbed_modules", []),
    }


def release_entry(version: str, root: Path, deps: environments.Manifest) -> dict[str, Any]:
    started = time.monotonic()
    unpacked = schema_gen.fetch_unpacked("vllm", version, root, log)
    note = json.loads((unpacked / schema_gen.WHEEL_NOTE).read_text())
    source = f"vllm=={version} wheel from PyPI ({note['wheel']}, sha256 {note['wheel_sha256']})"
    if not (unpacked / MODULE_FILE).is_file():
        log(f"vllm=={version}: no {MODULE_FILE}")
        return {"ships": False, "source": source}
    dumped = overlay_dump(version, unpacked, deps, DUMPER, "demo server")
    generated_with = overlay_note(dumped)
    if dumped.get("crash"):
        log(f"vllm=={version}: the demo's __main__ block fails: {dumped['crash']['exception']}")
        return {
            "ships": True,
            "source": source,
            "generated_with": generated_with,
            "parser": dumped["parser"],
            "crash": dumped["crash"],
        }
    serve = load_schema("vllm", version).data
    by_key = {_key(o): o for o in [*serve["options"], *serve["positionals"]]}
    shared: list[str] = []
    own: list[dict[str, Any]] = []
    for entry in [*dumped["options"], *dumped["positionals"]]:
        other = by_key.get(_key(entry))
        if other is not None and _same(entry, other):
            shared.append(_key(entry))
        else:
            own.append(entry)
    log(
        f"vllm=={version}: demo parser {len(shared) + len(own)} arguments, {len(shared)} as in `vllm serve`, "
        f"{len(own)} its own ({time.monotonic() - started:.0f} s)"
    )
    return {
        "ships": True,
        "source": source,
        "generated_with": generated_with,
        "parser": dumped["parser"],
        "shared": shared,
        "own": own,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("versions", nargs="*", help="only these releases (the others kept from the file)")
    a = ap.parse_args()
    deps = environments.find_environment("vllm", DEPS)
    if deps is None:
        log(f"no vllm=={DEPS} resolver environment: build it first (scripts/gen_schemas.py)")
        return 2
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    releases: dict[str, Any] = dict(old.get("releases", {})) if a.versions else {}
    with tempfile.TemporaryDirectory(prefix="argtrace-demo-") as tmp:
        for version in a.versions or bundled_versions("vllm", include_user=False):
            releases[version] = release_entry(version, Path(tmp), deps)
            _rmtree(Path(tmp) / f"vllm-{version}")  # an unpacked release is ~60 MB
    data = {
        "generated_by": "scripts/gen_vllm_demo_server.py",
        "module": "vllm.entrypoints.api_server",
        "releases": dict(sorted(releases.items(), key=lambda kv: environments_version_key(kv[0]))),
    }
    text = json.dumps(data, indent=1, sort_keys=False) + "\n"
    if a.check:
        same = OUT.exists() and OUT.read_text() == text
        print("equal" if same else f"{OUT} differs")
        return 0 if same else 1
    OUT.write_text(text)
    ships = [v for v, r in data["releases"].items() if r["ships"]]
    print(f"wrote {OUT}: ships in {', '.join(ships)}; not in {len(data['releases']) - len(ships)} releases")
    return 0


def _rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def environments_version_key(version: str) -> tuple[Any, ...]:
    from argtrace.frameworks.schema import version_key

    return version_key(version)


if __name__ == "__main__":
    sys.exit(main())
