#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/dynamo_options.json: the options NVIDIA Dynamo's worker launchers
``python -m dynamo.sglang`` / ``python -m dynamo.vllm`` take for themselves, from an ai-dynamo wheel.

Both launchers parse in three steps (``dynamo/sglang/args.py`` ``parse_args``, ``dynamo/vllm/args.py``
``_parse_cli_args``): one ``argparse.ArgumentParser`` holding ``DynamoRuntimeArgGroup`` and the backend's
``DynamoSGLangArgGroup`` / ``DynamoVllmArgGroup`` takes its own options with ``parse_known_args`` (the
engine's flags are only shown in its ``--help``); ``parse_worker_router_config`` then takes the router
advertisement options (``add_worker_router_arguments``) from what is left, again with ``parse_known_args``;
the rest goes to the engine's own parser (SGLang's ``ServerArgs.add_cli_args``, vLLM's
``AsyncEngineArgs.add_cli_args``). This script runs those ``add_arguments`` calls on empty parsers in a
subprocess (the wheel's Python files on the path; the Rust runtime ``dynamo._core``/``dynamo.llm``/
``dynamo.runtime``/``dynamo.prometheus_names`` stubbed, so option lists computed from it, the tool
and reasoning parser names, come out empty and are recorded as unknown) and records each option's
strings, dest, action, nargs and choices; the first parser's ``allow_abbrev`` is read from the
launcher's ``ArgumentParser(...)`` call by AST (argparse's default is True).

  pip download --no-deps ai-dynamo==X -d /tmp/wh      # for each release read (33: 0.4.0 to 1.6.1)
  pip install --target /tmp/dyndeps msgspec        # imported by dynamo.common's configuration groups
  PYTHONPATH=/tmp/dyndeps python scripts/gen_dynamo_options.py /tmp/wh/ai_dynamo-1.6.1-py3-none-any.whl \
      --releases $(ls /tmp/wh/*.whl | grep -v 1.6.1)

``--releases`` wheels (``--older`` is the same): each release's own record under ``releases`` (which
flags its launchers take for themselves, the router pass's, which ``python -m dynamo.X`` modules it has,
and the engine releases its METADATA pins for the ``sglang``/``vllm``/``trtllm`` extras); from 1.0 on the
launchers' argument groups are run as above, before that their literal options are read by AST (below).
Under ``older``: the options the workers of those releases took for themselves and the newest does not
(``--is-prefill-worker``, ``--migration-limit``...), so that a launch written for an older Dynamo is not
read as handing them to the engine. Their launchers changed shape over the releases (one
``FlexibleArgumentParser`` with the engine's options in 0.4, a ``DYNAMO_ARGS`` table for SGLang, argument
groups from 1.0), so they are read by AST from ``dynamo/<backend>/args.py`` and ``backend_args.py``:
``add_argument("--x", ...)``, ``add_argument(g, flag_name="--x", ...)``, ``add_negatable_bool_argument``
(also ``--no-x``) and ``{"flags": ["--x"], ...}`` entries; a flag takes no value with a ``store_true``/
``store_false``/``store_const``/``version``/``BooleanOptionalAction`` action or ``nargs=0``.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "src/argtrace/frameworks/data/dynamo_options.json"

_DUMP = r"""
import argparse, importlib.abc, importlib.machinery, json, sys, types
sys.path.insert(0, sys.argv[1])
STUBBED = ("dynamo._core", "dynamo.llm", "dynamo.runtime", "dynamo.nixl_connect", "dynamo.prometheus_names")

class _Meta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Stub

class _Stub(metaclass=_Meta):
    def __init__(self, *a, **k): pass
    def __call__(self, *a, **k): return []
    def __getattr__(self, name): return _Stub()
    def __iter__(self): return iter(())

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name in STUBBED or any(name.startswith(s + ".") for s in STUBBED):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        def attr(n):
            if n.startswith("__"):
                raise AttributeError(n)
            if n.startswith("get_") and n.endswith("_names"):
                return lambda *a, **k: []
            return _Stub
        module.__getattr__ = attr
        return module
    def exec_module(self, module): pass

sys.meta_path.insert(0, _Finder())
from dynamo.common.configuration.groups.runtime_args import DynamoRuntimeArgGroup
try:  # the router advertisement pass came in 1.5
    from dynamo.common.configuration.groups.router_args import add_worker_router_arguments
except ImportError:
    add_worker_router_arguments = None
from dynamo.sglang.backend_args import DynamoSGLangArgGroup
from dynamo.vllm.backend_args import DynamoVllmArgGroup

def dump(parser):
    out = []
    for a in parser._actions:
        if not a.option_strings or isinstance(a, argparse._HelpAction):
            continue
        choices = list(a.choices) if a.choices is not None else None
        out.append({"flags": list(a.option_strings), "dest": a.dest, "action": type(a).__name__,
                    "nargs": a.nargs, "choices": [str(c) for c in choices] if choices else None})
    return out

result = {}
for name, group in (("sglang", DynamoSGLangArgGroup), ("vllm", DynamoVllmArgGroup)):
    p = argparse.ArgumentParser(add_help=False)
    DynamoRuntimeArgGroup().add_arguments(p)
    group().add_arguments(p)
    result[name] = dump(p)
router = argparse.ArgumentParser(add_help=False)
if add_worker_router_arguments is not None:
    add_worker_router_arguments(router)
result["router"] = dump(router)
print(json.dumps(result))
"""

_LAUNCHERS = {"sglang": "dynamo/sglang/args.py", "vllm": "dynamo/vllm/args.py"}


def _allow_abbrev(source: str) -> bool:
    """``allow_abbrev`` of the launcher's first ``argparse.ArgumentParser(description=...)`` call."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "ArgumentParser":
            keywords = {k.arg: k.value for k in node.keywords}
            if "description" not in keywords:
                continue
            value = keywords.get("allow_abbrev")
            return bool(value.value) if isinstance(value, ast.Constant) else True
    return True


_NO_VALUE = {"store_true", "store_false", "store_const", "count", "version", "BooleanOptionalAction"}


def _ast_flags(source: str) -> dict[str, str]:
    """flag -> "none"/"one"/"optional"/"many" for the options one launcher file declares (see above)."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            if func not in ("add_argument", "add_negatable_bool_argument"):
                continue
            kw = {k.arg: k.value for k in node.keywords}
            names = [
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("--")
            ]
            flag_name = kw.get("flag_name")
            if isinstance(flag_name, ast.Constant) and isinstance(flag_name.value, str):
                names.append(flag_name.value)
            action = kw.get("action")
            how = (
                action.value
                if isinstance(action, ast.Constant)
                else getattr(action, "attr", None) or getattr(action, "id", None)
            )
            nargs_node = kw.get("nargs")
            nargs = nargs_node.value if isinstance(nargs_node, ast.Constant) else None
            negatable = func == "add_negatable_bool_argument" or how == "BooleanOptionalAction"
            takes = "none" if negatable or how in _NO_VALUE or nargs == 0 else _TAKES.get(nargs, "one")
            for name in names:
                out[name] = takes
                if negatable:
                    out["--no-" + name[2:]] = "none"
        elif isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            entry = {k.value: v for k, v in pairs if isinstance(k, ast.Constant)}
            flags = entry.get("flags")
            if isinstance(flags, (ast.List, ast.Tuple)):
                action = entry.get("action")
                how = action.value if isinstance(action, ast.Constant) else None
                for e in flags.elts:
                    if isinstance(e, ast.Constant) and isinstance(e.value, str):
                        out[e.value] = "none" if how in _NO_VALUE else "one"
    return out


_TAKES = {"?": "optional", "*": "many", "+": "many"}


def _takes(option: dict[str, object]) -> str:
    """ "none"/"one"/"optional"/"many" for one dumped option."""
    if (
        option["action"]
        in (
            "_StoreTrueAction",
            "_StoreFalseAction",
            "_StoreConstAction",
            "_VersionAction",
            "BooleanOptionalAction",
            "_CountAction",
        )
        or option["nargs"] == 0
    ):
        return "none"
    return _TAKES.get(option["nargs"], "one")  # type: ignore[arg-type]


def _dumped(tree: str) -> dict[str, list[dict[str, object]]]:
    """backend -> the options its launcher's argparse passes take (the argument groups, 1.0 on)."""
    out = subprocess.run(
        [sys.executable, "-c", _DUMP, tree], capture_output=True, text=True, check=True, timeout=120
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


_PIN = re.compile(
    r"^Requires-Dist: ([A-Za-z0-9_.-]+)(?:\[[^]]*\])?==([^;\s]+); extra == '(sglang|vllm|trtllm)'$"
)


def _pins(z: zipfile.ZipFile) -> dict[str, str]:
    """extra -> the engine release the wheel pins for it (``sglang[all]==0.5.3.post2; extra == 'sglang'``)."""
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    engines = {"sglang": "sglang", "vllm": "vllm", "trtllm": "tensorrt-llm"}
    out = {}
    for line in z.read(meta).decode().splitlines():
        match = _PIN.match(line.strip())
        if match and match.group(1).lower() == engines[match.group(3)]:
            out[match.group(3)] = match.group(2)
    return out


def _release(wheel: Path) -> tuple[str, dict[str, object], dict[str, dict[str, str]]]:
    """One wheel: its version, its record (how it was read, the engine pins, each launcher's own flags and
    the router pass's) and backend -> flag -> takes (for the options the newest does not have)."""
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        pins = _pins(z)
        if "dynamo/common/configuration/groups/runtime_args.py" in z.namelist():
            z.extractall(tmp)
            dumped = _dumped(tmp)
            takes = {b: {f: _takes(o) for o in dumped[b] for f in o["flags"]} for b in ("sglang", "vllm")}
            router = sorted(f for o in dumped["router"] for f in o["flags"])  # type: ignore[attr-defined]
            how = "argparse"
        else:  # before 1.0: the launcher's own options are literal in its args.py
            takes = {}
            for backend in ("sglang", "vllm"):
                takes[backend] = {}
                for path in (f"dynamo/{backend}/args.py", f"dynamo/{backend}/backend_args.py"):
                    if path in z.namelist():
                        takes[backend].update(_ast_flags(z.read(path).decode()))
            router, how = [], "ast"
        # ``python -m dynamo.<backend>`` needs the package's __main__ (0.4.0 had dynamo.sglang.worker only)
        runnable = [f"dynamo.{b}" for b in ("sglang", "vllm") if f"dynamo/{b}/__main__.py" in z.namelist()]
    record: dict[str, object] = {"read_by": how, "engines": pins, "router": router, "entrypoints": runnable}
    record.update({b: sorted(takes[b]) for b in ("sglang", "vllm")})
    return version, record, takes


def _older(
    takes: dict[str, dict[str, dict[str, str]]], newest: dict[str, list[dict[str, object]]]
) -> dict[str, object]:
    """backend -> flag -> {"takes", "releases"} for the options older workers took and the newest does not."""
    out: dict[str, dict[str, dict[str, object]]] = {"sglang": {}, "vllm": {}}
    for version in sorted(takes, key=_version_key):
        for backend in out:
            known = {f for o in newest[backend] for f in o["flags"]}  # type: ignore[attr-defined]
            for flag, how in sorted(takes[version][backend].items()):
                if flag in known:
                    continue
                entry = out[backend].setdefault(flag, {"takes": how, "releases": []})
                entry["releases"].append(version)  # type: ignore[attr-defined]
    return out  # type: ignore[return-value]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.replace(".post", ".").split(".") if p.isdigit())


def main() -> int:
    wheel = Path(sys.argv[1])
    flag = "--releases" if "--releases" in sys.argv else "--older"
    older = [Path(p) for p in sys.argv[sys.argv.index(flag) + 1 :]] if flag in sys.argv else []
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        z.extractall(tmp)
        options = _dumped(tmp)
        abbrev = {name: _allow_abbrev(Path(tmp, path).read_text()) for name, path in _LAUNCHERS.items()}
    releases: dict[str, object] = {}
    takes: dict[str, dict[str, dict[str, str]]] = {}
    for other in [wheel, *older]:
        name, record, flags = _release(other)
        releases[name], takes[name] = record, flags
    data = {
        "package": f"ai-dynamo {version}",
        "generated_by": "scripts/gen_dynamo_options.py",
        "source": {
            "sglang": "dynamo/sglang/args.py parse_args: DynamoRuntimeArgGroup + DynamoSGLangArgGroup",
            "vllm": "dynamo/vllm/args.py _parse_cli_args: DynamoRuntimeArgGroup + DynamoVllmArgGroup",
            "router": "dynamo/common/configuration/groups/router_args.py parse_worker_router_config",
            "releases": "each wheel's launchers (argparse from 1.0, else the AST of "
            "dynamo/<backend>/args.py) and its METADATA's Requires-Dist pins of the sglang, vllm and trtllm "
            "extras",
        },
        "backends": {
            name: {
                "allow_abbrev": abbrev[name],
                "options": sorted(options[name], key=lambda o: o["flags"][0]),  # type: ignore[index]
            }
            for name in ("sglang", "vllm")
        },
        "router": {"allow_abbrev": True, "options": sorted(options["router"], key=lambda o: o["flags"][0])},  # type: ignore[index]
        "older": _older(takes, options),
        "releases": dict(sorted(releases.items(), key=lambda kv: _version_key(kv[0]))),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    counts = ", ".join(f"{n} {len(options[n])}" for n in ("sglang", "vllm", "router"))
    print(f"wrote {OUT}: ai-dynamo {version} options ({counts}); per release (sglang/vllm/router, pins):")
    for name, record in data["releases"].items():  # type: ignore[attr-defined]
        sizes = "/".join(str(len(record[k])) for k in ("sglang", "vllm", "router"))
        print(f"  {name} ({record['read_by']}): {sizes}; {record['engines']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
