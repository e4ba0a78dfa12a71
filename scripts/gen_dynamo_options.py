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

  pip download --no-deps ai-dynamo==1.6.1 -d /tmp/wh
  pip install --target /tmp/dyndeps msgspec        # imported by dynamo.common's configuration groups
  PYTHONPATH=/tmp/dyndeps python scripts/gen_dynamo_options.py /tmp/wh/ai_dynamo-1.6.1-py3-none-any.whl \
      --older /tmp/wh/ai_dynamo-0.4.1-*.whl /tmp/wh/ai_dynamo-0.6.1-*.whl \
      /tmp/wh/ai_dynamo-0.8.1.post3-*.whl /tmp/wh/ai_dynamo-1.0.2-*.whl /tmp/wh/ai_dynamo-1.3.1-*.whl

``--older`` wheels: the options the workers of those releases took for themselves and the newest does not
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
from dynamo.common.configuration.groups.router_args import add_worker_router_arguments
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


def _older(wheels: list[Path], newest: dict[str, list[dict[str, object]]]) -> dict[str, object]:
    """backend -> flag -> {"takes", "releases"} for the options older workers took and the newest does not."""
    out: dict[str, dict[str, dict[str, object]]] = {"sglang": {}, "vllm": {}}
    for wheel in sorted(wheels, key=lambda w: _version_key(w.name.split("-")[1])):
        version = wheel.name.split("-")[1]
        with zipfile.ZipFile(wheel) as z:
            for backend in out:
                known = {f for o in newest[backend] for f in o["flags"]}  # type: ignore[attr-defined]
                flags: dict[str, str] = {}
                for path in (f"dynamo/{backend}/args.py", f"dynamo/{backend}/backend_args.py"):
                    if path in z.namelist():
                        flags.update(_ast_flags(z.read(path).decode()))
                for flag, takes in sorted(flags.items()):
                    if flag in known:
                        continue
                    entry = out[backend].setdefault(flag, {"takes": takes, "releases": []})
                    entry["releases"].append(version)  # type: ignore[attr-defined]
    return out  # type: ignore[return-value]


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.replace(".post", ".").split(".") if p.isdigit())


def main() -> int:
    wheel = Path(sys.argv[1])
    older = [Path(p) for p in sys.argv[sys.argv.index("--older") + 1 :]] if "--older" in sys.argv else []
    version = wheel.name.split("-")[1]
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        z.extractall(tmp)
        dumped = subprocess.run(
            [sys.executable, "-c", _DUMP, tmp], capture_output=True, text=True, check=True, timeout=120
        )
        abbrev = {name: _allow_abbrev(Path(tmp, path).read_text()) for name, path in _LAUNCHERS.items()}
    options = json.loads(dumped.stdout)
    data = {
        "package": f"ai-dynamo {version}",
        "generated_by": "scripts/gen_dynamo_options.py",
        "source": {
            "sglang": "dynamo/sglang/args.py parse_args: DynamoRuntimeArgGroup + DynamoSGLangArgGroup",
            "vllm": "dynamo/vllm/args.py _parse_cli_args: DynamoRuntimeArgGroup + DynamoVllmArgGroup",
            "router": "dynamo/common/configuration/groups/router_args.py parse_worker_router_config",
        },
        "backends": {
            name: {
                "allow_abbrev": abbrev[name],
                "options": sorted(options[name], key=lambda o: o["flags"][0]),
            }
            for name in ("sglang", "vllm")
        },
        "router": {"allow_abbrev": True, "options": sorted(options["router"], key=lambda o: o["flags"][0])},
        "older": _older(older, options),
    }
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    counts = ", ".join(f"{n} {len(options[n])}" for n in ("sglang", "vllm", "router"))
    gone = sum(len(v) for v in data["older"].values())  # type: ignore[attr-defined]
    print(
        f"wrote {OUT}: ai-dynamo {version} options ({counts}); {gone} of {len(older)} older release(s) only"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
