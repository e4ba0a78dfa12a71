#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/sglang_router.json: the router flags ``python -m
sglang_router.launch_server`` adds to SGLang's server flags, from sglang-router wheels (several releases).

``sglang_router/launch_server.py`` builds one argparse parser: ``ServerArgs.add_cli_args(parser)``, then
``RouterArgs.add_cli_args(parser, use_router_prefix=True, exclude_host_port=True)`` (every router flag
spelled ``--router-*``), then its own ``parser.add_argument(...)`` calls. This script runs that
``RouterArgs.add_cli_args`` on an empty parser in a subprocess (``router_args.py`` extracted from the
wheel, or ``launch_router.py`` before 0.2.0, where ``RouterArgs`` lived; its imports of the Rust extension,
``get_available_tool_call_parsers`` and ``PolicyType``, and of ``Router`` are stubbed), takes the
launcher's own ``add_argument`` calls by AST, and records each option's strings, action, nargs and choices.

Given several wheels, the newest release's options are ``options`` (the release analysed), and the file
also records ``releases``, ``flags`` (every flag any of them knows -> the releases that know it),
``older_options`` (the shape of each flag the newest release no longer knows, so its values are taken
with it) and ``renamed``: a flag dropped at a release that added exactly one flag spelled as it plus a
``-suffix`` (``--router-eviction-interval`` -> ``--router-eviction-interval-secs`` at 0.2.0).

  pip download sglang-router==0.1.9 sglang-router==0.2.0 ... --no-deps --only-binary=:all: -d /tmp/wh
  python scripts/gen_router_schema.py /tmp/wh/sglang_router-*.whl /tmp/wh/smg-*.whl

smg wheels (``pip download smg==1.1.0 ...``) give ``smg_launch``: ``smg launch``'s flags per release.
"""

from __future__ import annotations

import ast
import itertools
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/sglang_router.json"

_DUMP = """
import argparse, json, sys
sys.path.insert(0, sys.argv[1])
RouterArgs = __import__(sys.argv[2], fromlist=["RouterArgs"]).RouterArgs
p = argparse.ArgumentParser(add_help=False)
if sys.argv[3] == "server":
    RouterArgs.add_cli_args(p, use_router_prefix=True, exclude_host_port=True)
else:  # launch_router.parse_router_args: ArgumentParser() (with -h) + add_cli_args(use_router_prefix=False)
    p = argparse.ArgumentParser()
    RouterArgs.add_cli_args(p, use_router_prefix=False)
out = []
for a in p._actions:
    out.append({"flags": list(a.option_strings), "dest": a.dest, "action": type(a).__name__,
                "nargs": a.nargs if not isinstance(a.nargs, int) else a.nargs,
                "choices": list(a.choices) if a.choices is not None else None})
print(json.dumps(out))
"""


def _launcher_options(source: str) -> list[dict[str, object]]:
    """``parser.add_argument("--x", ...)`` calls in launch_server.py's ``main``, by AST."""
    out: list[dict[str, object]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == "main":
            for call in ast.walk(node):
                if not (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr == "add_argument"
                ):
                    continue
                flags = [
                    a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                kw = {k.arg: k.value for k in call.keywords}
                action = kw.get("action")
                name = action.value if isinstance(action, ast.Constant) else None
                nargs = kw.get("nargs")
                out.append(
                    {
                        "flags": flags,
                        "dest": flags[0].lstrip("-").replace("-", "_"),
                        "action": {"store_true": "_StoreTrueAction", "store_false": "_StoreFalseAction"}.get(
                            str(name), "_StoreAction"
                        ),
                        "nargs": nargs.value if isinstance(nargs, ast.Constant) else None,
                        "choices": None,
                    }
                )
    return out


# The Rust extension and the Router class: only names are imported at module level (the choices of one
# flag come from get_available_tool_call_parsers; PolicyType is used inside functions argparse never calls).
_RS_STUB = (
    "def get_available_tool_call_parsers():\n    return []\n\n\n"
    "def __getattr__(name):\n    return type(name, (), {})\n"
)


# RouterArgs._validate_router_args of 0.1.9-0.2.2: PD mode without service discovery needs both URL lists
_PD_NEEDS = "PD disaggregation mode requires --prefill"


def _pd_requires_urls(z: zipfile.ZipFile) -> bool:
    """The release's Python code raises ``_PD_NEEDS`` (a string constant, read by AST)."""
    for name in z.namelist():
        if name.startswith("sglang_router/") and name.endswith(".py"):
            for node in ast.walk(ast.parse(z.read(name).decode())):
                if isinstance(node, ast.Constant) and node.value == _PD_NEEDS:
                    return True
    return False


def smg_options(wheel: Path) -> tuple[str, list[dict[str, object]]]:
    """(version, ``smg launch``'s options) of one smg wheel: ``smg launch`` hands its words to
    ``smg.launch_router.parse_router_args``, the same ArgumentParser + ``RouterArgs.add_cli_args`` as
    sglang-router's launch_router (``smg/router_args.py``; its ``smg.smg_rs`` extension stubbed)."""
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        pkg = Path(tmp) / "smg"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("")
        (pkg / "router_args.py").write_bytes(z.read("smg/router_args.py"))
        (pkg / "smg_rs.py").write_text(
            _RS_STUB.replace("get_available_tool_call_parsers", "_parsers") + _SMG_STUB
        )
        dumped = subprocess.run(
            [sys.executable, "-c", _DUMP, tmp, "smg.router_args", "router"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    return version, [o for o in json.loads(dumped.stdout) if o["flags"]]


_SMG_STUB = (
    "\n\ndef get_available_tool_call_parsers():\n    return []\n\n\n"
    "def get_available_reasoning_parsers():\n    return []\n"
)


def release_options(wheel: Path) -> tuple[str, list[dict[str, object]], list[dict[str, object]]]:
    """(version, the launcher's router options, ``launch_router``'s options) of one sglang-router wheel."""
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        module = "router_args" if "sglang_router/router_args.py" in names else "launch_router"
        pkg = Path(tmp) / "sglang_router"
        pkg.mkdir()
        (pkg / "__init__.py").write_text("Router = None\n")
        (pkg / f"{module}.py").write_bytes(z.read(f"sglang_router/{module}.py"))
        (pkg / "sglang_router_rs.py").write_text(_RS_STUB)
        (Path(tmp) / "sglang_router_rs.py").write_text(_RS_STUB)  # 0.1.x imports it top-level
        dumped = {
            kind: subprocess.run(
                [sys.executable, "-c", _DUMP, tmp, f"sglang_router.{module}", kind],
                capture_output=True,
                text=True,
                check=True,
                timeout=60,
            )
            for kind in ("server", "router")
        }
        options = json.loads(dumped["server"].stdout)
        router = json.loads(dumped["router"].stdout)
        launcher = _launcher_options(z.read("sglang_router/launch_server.py").decode())
        if _pd_requires_urls(z):
            PD_REQUIRES_URLS.append(version)
    return version, [o for o in options + launcher if o["flags"]], [o for o in router if o["flags"]]


PD_REQUIRES_URLS: list[str] = []


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


def _per_release(read: list[tuple[str, list[dict[str, object]]]]) -> dict[str, object]:
    """releases, flag -> the releases that take it, each flag's shape in the newest release that has it."""
    flags: dict[str, list[str]] = {}
    shapes: dict[str, dict[str, object]] = {}
    for version, opts in read:
        for o in opts:
            for flag in o["flags"]:  # type: ignore[attr-defined]
                flags.setdefault(flag, []).append(version)
                shapes[flag] = o
    return {
        "releases": [version for version, _ in read],
        "flags": dict(sorted(flags.items())),
        "options": sorted({id(o): o for o in shapes.values()}.values(), key=lambda o: str(o["flags"][0])),  # type: ignore[index]
    }


def renamed(releases: list[str], flags: dict[str, list[str]]) -> dict[str, str]:
    """Flag dropped at a release -> the one flag that release added spelled as it plus ``-suffix``."""
    out: dict[str, str] = {}
    for before, at in itertools.pairwise(releases):
        gone = [f for f, rs in flags.items() if before in rs and at not in rs]
        added = [f for f, rs in flags.items() if at in rs and before not in rs]
        for flag in gone:
            match = [f for f in added if f.startswith(flag + "-")]
            if len(match) == 1:
                out[flag] = match[0]
    return out


def main() -> int:
    wheels = [Path(w) for w in sys.argv[1:]]
    smg = sorted(
        (smg_options(w) for w in wheels if w.name.startswith("smg-")), key=lambda r: _version_key(r[0])
    )
    read = sorted(
        (release_options(w) for w in wheels if not w.name.startswith("smg-")),
        key=lambda r: _version_key(r[0]),
    )
    per_release = [(version, opts) for version, opts, _ in read]
    releases = [version for version, _ in per_release]
    newest, options = per_release[-1]
    flags: dict[str, list[str]] = {}
    shapes: dict[str, dict[str, object]] = {}
    router_flags: dict[str, list[str]] = {}
    router_shapes: dict[str, dict[str, object]] = {}
    for version, _, opts in read:
        for o in opts:
            for flag in o["flags"]:  # type: ignore[attr-defined]
                router_flags.setdefault(flag, []).append(version)
                router_shapes[flag] = o  # the newest release that knows it
    for version, opts in per_release:
        for o in opts:
            for flag in o["flags"]:  # type: ignore[attr-defined]
                flags.setdefault(flag, []).append(version)
                shapes[flag] = o  # the newest release that knows it
    current = {f for o in options for f in o["flags"]}  # type: ignore[attr-defined]
    older: list[dict[str, object]] = []
    for flag in sorted(set(flags) - current):
        if shapes[flag] not in older:
            older.append(shapes[flag])
    data = {
        "package": f"sglang-router {newest}",
        "generated_by": "scripts/gen_router_schema.py",
        "options": sorted(options, key=lambda o: str(o["flags"][0])),  # type: ignore[index]
        "releases": releases,
        "flags": dict(sorted(flags.items())),
        "older_options": older,
        "renamed": renamed(releases, flags),
        # ``python -m sglang_router.launch_router`` (the router alone): every flag any release's parser
        # takes -> the releases that take it, and each flag's shape in the newest release that has it
        "launch_router": {
            "flags": dict(sorted(router_flags.items())),
            "options": sorted(
                {id(o): o for o in router_shapes.values()}.values(),
                key=lambda o: str(o["flags"][0]),  # type: ignore[index]
            ),
            # releases whose launch_router refuses --pd-disaggregation without --prefill and --decode
            # (unless --service-discovery): "PD disaggregation mode requires --prefill"
            "pd_requires_urls": sorted(PD_REQUIRES_URLS, key=_version_key),
        },
        # ``smg launch`` (the smg package, SGLang Model Gateway's successor): the same per-release record
        "smg_launch": _per_release(smg),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}: {len(options)} router options of sglang-router {newest}; {len(flags)} flags of")
    print(f"  {', '.join(releases)}; launch_router: {len(router_flags)} flags")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
