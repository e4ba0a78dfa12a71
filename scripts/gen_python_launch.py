#!/usr/bin/env python3
"""Generate ``src/argtrace/data/python_launch.json``: the keyword arguments the frameworks' Python entry
points take, read from their real classes in each resolver environment that exists (``argtrace resolver add
sglang==V`` / ``vllm==V``).

- SGLang: ``sglang.Engine(**kwargs)`` (and the frontend language's ``sglang.Runtime(log_level,
  launch_timeout, **kwargs)``, ``sglang/lang/backend/runtime_endpoint.py``) builds
  ``ServerArgs(**kwargs)`` (``sglang/srt/entrypoints/engine.py``,
  ``Engine.__init__``), and ``ServerArgs`` is a dataclass whose fields become ``--field-name`` flags
  (``ServerArgs.add_cli_args``): its field names (``dataclasses.fields``, or a ``msgspec.Struct``'s
  ``__struct_fields__``).
- vLLM: ``EngineArgs``/``AsyncEngineArgs`` are dataclasses whose fields become flags
  (``EngineArgs.add_cli_args``): their field names; ``LLM.__init__``'s named parameters (it hands them and
  its ``**kwargs`` to ``EngineArgs``, ``vllm/entrypoints/llm.py``).

Each class's fields whose annotation is a sequence that takes no ``str`` (``list[str]``,
``Optional[List[int]]``; not ``Union[str, List[str]]``) are listed under ``sequences``: the class keeps a
keyword's value as given (a dataclass, a ``msgspec.Struct``: no conversion), so a bare string there is one
string where the release's code iterates items (PA053).

The keyword -> flag mapping itself is not written here: argtrace reads it from the bundled schemas (the
parser's dests, renamed as ``from_cli_args`` renames them, ``field_names.json``).

Usage: ``python scripts/gen_python_launch.py [--check]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "data" / "python_launch.json"
GENERATOR = "scripts/gen_python_launch.py"


# the fields whose annotation is a sequence taking no str (PA053): read with typing from the class itself
SEQUENCES = r"""
import collections.abc, typing
_SEQ = (list, set, frozenset, tuple, collections.abc.Sequence, collections.abc.Set, collections.abc.Iterable)
def _sequence_only(tp):
    origin = typing.get_origin(tp)
    if origin is typing.Union or str(origin) == "types.UnionType":
        members = [a for a in typing.get_args(tp) if a is not type(None)]
        if not members or any(m is str for m in members):
            return False
        return all(_sequence_only(m) for m in members)
    return origin in _SEQ or tp in (list, set, tuple, frozenset)
def _hints(cls):
    try:
        return typing.get_type_hints(cls)
    except NameError:  # a forward reference the module imports only for type checkers: field by field
        import sys
        hints = {}
        for klass in reversed(cls.__mro__):
            scope = vars(sys.modules.get(klass.__module__)) if klass.__module__ in sys.modules else {}
            for name, annotation in vars(klass).get("__annotations__", {}).items():
                try:
                    hints[name] = eval(annotation, scope) if isinstance(annotation, str) else annotation
                except Exception:
                    hints.pop(name, None)  # unknown here: not listed
        return hints
def sequences(cls, names):
    hints = _hints(cls)
    return sorted(n for n in names if n in hints and _sequence_only(hints[n]))
"""

PROBES = {
    "sglang": r"""
import dataclasses, inspect, json
from sglang.srt.server_args import ServerArgs
from sglang.srt.entrypoints.engine import Engine
if dataclasses.is_dataclass(ServerArgs):
    fields = [f.name for f in dataclasses.fields(ServerArgs)]
else:
    fields = list(ServerArgs.__struct_fields__)
params = [p.name for p in inspect.signature(Engine.__init__).parameters.values()
          if p.kind is not p.VAR_KEYWORD and p.name != "self"]
try:  # the frontend language's Runtime(log_level, launch_timeout, *args, **kwargs) -> ServerArgs(**kwargs)
    from sglang.lang.backend.runtime_endpoint import Runtime
    runtime = [p.name for p in inspect.signature(Runtime.__init__).parameters.values()
               if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL) and p.name != "self"]
except ImportError:
    runtime = None
out = {"ServerArgs": sorted(f for f in fields if not f.startswith("_")), "Engine": params}
out["sequences"] = {"ServerArgs": sequences(ServerArgs, out["ServerArgs"])}
if runtime is not None:
    out["Runtime"] = runtime
print(json.dumps(out))
""",
    "vllm": r"""
import dataclasses, inspect, json
from vllm.engine.arg_utils import AsyncEngineArgs, EngineArgs
from vllm.entrypoints.llm import LLM
params = [p.name for p in inspect.signature(LLM.__init__).parameters.values()
          if p.kind is not p.VAR_KEYWORD and p.name != "self"]
engine = sorted(f.name for f in dataclasses.fields(EngineArgs) if not f.name.startswith("_"))
async_engine = sorted(f.name for f in dataclasses.fields(AsyncEngineArgs) if not f.name.startswith("_"))
print(json.dumps({
    "EngineArgs": engine,
    "AsyncEngineArgs": async_engine,
    "LLM": params,
    "sequences": {
        "EngineArgs": sequences(EngineArgs, engine),
        "AsyncEngineArgs": sequences(AsyncEngineArgs, async_engine),
    },
}))
""",
}


def probe(framework: str) -> dict[str, object]:
    from argtrace.frameworks.schema import bundled_versions
    from argtrace.resolver import environments
    from argtrace.resolver.fake_gpu import fake_gpu_env

    out: dict[str, object] = {}
    for version in bundled_versions(framework, include_user=False):
        manifest = environments.find_environment(framework, version)
        if manifest is None:
            continue
        proc = subprocess.run(
            [str(environments.env_python(Path(manifest.path))), "-c", SEQUENCES + PROBES[framework]],
            capture_output=True,
            text=True,
            timeout=600,
            env=environments.runtime_env(manifest, {"ARGTRACE_FAKE_GPU": fake_gpu_env("h100")}),
        )
        if proc.returncode != 0:
            raise SystemExit(f"probe failed for {framework}=={version}:\n{proc.stderr[-3000:]}")
        out[version] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def generate() -> dict[str, object]:
    return {
        "generated_by": GENERATOR,
        "format": 1,
        "sources": {
            "sglang": "sglang/srt/server_args.py ServerArgs, "
            "sglang/srt/entrypoints/engine.py Engine.__init__",
            "vllm": "vllm/engine/arg_utils.py EngineArgs/AsyncEngineArgs, "
            "vllm/entrypoints/llm.py LLM.__init__",
        },
        "sglang": probe("sglang"),
        "vllm": probe("vllm"),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--check", action="store_true", help="fail when the file differs")
    options = parser.parse_args()
    return write_or_check(OUT, generate(), GENERATOR, check=options.check)


if __name__ == "__main__":
    raise SystemExit(main())
