#!/usr/bin/env python3
"""Generate src/argtrace/data/plugin_flags.json: the command-line flags vLLM plugins add to ``vllm serve``,
per plugin release, read from each release's real wheel on PyPI.

vllm-omni is the one plugin that adds flags (its ``--omni`` and the options of its own serve parser). How it
does it, read from its wheels: ``vllm_omni/entrypoints/cli/main.py`` is a console script that takes over when
``--omni`` is in ``sys.argv`` and parses the launch with its own ``serve`` parser (vLLM's ``make_arg_parser``
plus the options ``vllm_omni/entrypoints/cli/serve.py`` adds); without ``--omni`` it calls vLLM's own main.
Releases 0.14.0-0.18.0 install that console script as ``vllm`` (replacing vLLM's, so installing vLLM after
vllm-omni puts vLLM's back: vllm-project/vllm#34545, vllm-project/vllm-omni#1364), later ones only as
``vllm-omni``. From 0.20.0 ``vllm_omni/version.py`` warns when vLLM's major.minor differs from vllm-omni's
(``warn_if_misaligned_vllm_version``).

For each release this script records, from the wheel (``pip download --no-deps``): the console scripts
(``entry_points.txt``), the word that switches the plugin's parser on (``"--omni" not in sys.argv`` in
``main.py``), every option string of a literal ``add_argument`` call in ``serve.py`` with whether it takes
a value (``action=store_true``/``store_false``/``store_const``/``count``/``BooleanOptionalAction``: none),
and whether ``version.py`` has the major.minor check. Flags added by code this reader does not follow (a
loop, another module) are not in the table.

  python scripts/gen_plugin_flags.py [--wheels DIR] [--check]

``--wheels DIR`` reads wheels already downloaded there (the file names pip gives them); without it the
releases ``pip index versions vllm-omni`` lists are downloaded to a temporary directory.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from argtrace.resolver.environments import EnvironmentError_, download_wheel, find_wheel

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/data/plugin_flags.json"

PLUGINS = {
    "vllm-omni": {
        "framework": "vllm",
        "module": "vllm_omni",
        "main": "vllm_omni/entrypoints/cli/main.py",
        "serve": "vllm_omni/entrypoints/cli/serve.py",
        "version": "vllm_omni/version.py",
        "url": "https://pypi.org/project/vllm-omni/",
    }
}

_NO_VALUE = {"store_true", "store_false", "store_const", "count", "help", "version"}


def _versions(package: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", package],
        capture_output=True,
        text=True,
        timeout=300,
    ).stdout
    m = re.search(r"Available versions: (.+)", out)
    if not m:
        raise SystemExit(f"pip index versions {package}: no versions in {out!r}")
    return [v.strip() for v in m.group(1).split(",")]


def _download(package: str, version: str, into: Path) -> Path:
    try:
        return download_wheel(package, version, into)
    except EnvironmentError_ as exc:
        raise SystemExit(str(exc)) from None


def _wheel(package: str, version: str, directory: Path) -> Path:
    found = find_wheel(directory, package, version)
    if found is None:
        raise SystemExit(f"no wheel of {package} {version} in {directory}")
    return found


def _flags(source: str) -> dict[str, str]:
    """Option strings of the literal ``add_argument`` calls: flag -> ``none`` or ``required``."""
    flags: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr != "add_argument":
            continue
        names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        names = [n for n in names if n.startswith("-")]
        if not names:
            continue
        kind = "required"
        for kw in node.keywords:
            if kw.arg == "action":
                action = kw.value
                text = action.value if isinstance(action, ast.Constant) else ast.unparse(action)
                if str(text) in _NO_VALUE or str(text).endswith("BooleanOptionalAction"):
                    kind = "none"
            if kw.arg == "nargs" and isinstance(kw.value, ast.Constant) and kw.value.value in ("?", "*"):
                kind = "optional"
        for n in names:
            flags[n] = kind
    return flags


def _release(package: str, wheel: Path) -> dict[str, object]:
    spec = PLUGINS[package]
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        dist = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        entry = z.read(dist).decode()
        scripts = (
            entry.split("[console_scripts]", 1)[1].split("\n[", 1)[0] if "[console_scripts]" in entry else ""
        )
        consoles = {m.group(1): m.group(2) for m in re.finditer(r"(?m)^\s*(\S+)\s*=\s*(\S+)\s*$", scripts)}
        main = z.read(spec["main"]).decode()
        trigger = re.search(r"""["'](--[\w-]+)["']\s+not\s+in\s+sys\.argv""", main)
        serve = z.read(spec["serve"]).decode()
        version = z.read(spec["version"]).decode() if spec["version"] in names else ""
    data = wheel.read_bytes()
    return {
        "wheel": wheel.name,
        "sha256": hashlib.sha256(data).hexdigest(),
        "console_scripts": consoles,
        "trigger": trigger.group(1) if trigger else None,
        "flags": _flags(serve),
        "checks_vllm_major_minor": "warn_if_misaligned_vllm_version" in version,
    }


def generate(wheels: Path | None) -> dict[str, object]:
    plugins: dict[str, object] = {}
    for package, spec in PLUGINS.items():
        releases: dict[str, object] = {}
        with tempfile.TemporaryDirectory() as tmp:
            versions = (
                _versions(package)
                if wheels is None
                else sorted({p.name.split("-")[1] for p in wheels.glob(f"{package.replace('-', '_')}-*.whl")})
            )
            for version in sorted(versions, key=lambda v: tuple(int(x) for x in re.findall(r"\d+", v))):
                wheel = _wheel(package, version, wheels) if wheels else _download(package, version, Path(tmp))
                releases[version] = _release(package, wheel)
        plugins[package] = {
            "framework": spec["framework"],
            "module": spec["module"],
            "url": spec["url"],
            "read_from": f"{spec['main']}, {spec['serve']}, {spec['version']}, entry_points.txt",
            "releases": releases,
        }
    return {"generated_by": "scripts/gen_plugin_flags.py", "plugins": plugins}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, help="a directory of downloaded wheels (else pip downloads them)")
    ap.add_argument("--check", action="store_true", help="fail when the file differs from a fresh reading")
    args = ap.parse_args()
    text = json.dumps(generate(args.wheels), indent=1, sort_keys=True) + "\n"
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} is stale: run scripts/gen_plugin_flags.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
