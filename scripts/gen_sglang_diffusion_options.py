"""Record the options of SGLang's diffusion server parser, per release, into
``src/argtrace/frameworks/data/sglang_diffusion_options.json``.

``sglang serve`` (sglang/cli/serve.py) hands argv to the diffusion server when ``--model-type diffusion``
is given or the model is a diffusion model; that server builds its own parser
(``sglang.multimodal_gen.runtime.entrypoints.cli.serve.add_multimodal_gen_serve_args``: ``--config``,
``ServerArgs.add_cli_args`` of sglang/multimodal_gen, the pipeline config's options), parses with
``parse_known_args`` and then ``ServerArgs.from_cli_args`` refuses what is left ("error: unrecognized
arguments") except the dynamic per-component options (``--<component>-path``, ``--component-paths.<c>``
...), whose prefixes and suffixes are read here from the source of that module by AST.

The parser is built by importing the installed package in each resolver environment
(/root/.cache/argtrace/resolvers/sglang-<release>-py3.11). The diffusion extra's dependencies are not
installed there (torchvision, diffusers, addict, ...): the worker puts an empty stand-in module in place
of each one that is missing (found one at a time from ModuleNotFoundError, recorded in the output). The
options come from the real ``add_argument`` calls; nothing that a stand-in provides reaches the parser
except as a default value, which is not recorded. ``add_resolved_pipeline_config_cli_args`` adds a
pipeline's own extra options only when argv names the pipeline; the worker's argv is empty, so such
model-specific options (FLUX.3's ``--flux3-alpha`` in 0.5.23) are not in the table.

Run: ``python3 scripts/gen_sglang_diffusion_options.py`` (``--check`` compares with the file).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src/argtrace/frameworks/data/sglang_diffusion_options.json"
RESOLVERS = Path("/root/.cache/argtrace/resolvers")

WORKER = r"""
import abc, argparse, ast, importlib.abc, importlib.machinery, inspect, json, sys, types
STAND_IN = set(json.loads(sys.argv[1]))

class _Meta(abc.ABCMeta):
    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _stub_class(attr)
    def __or__(cls, other):
        return cls
    def __ror__(cls, other):
        return cls
    def __getitem__(cls, item):
        return cls

def _stub_class(name):
    return _Meta(name, (_StubBase,), {})

class _StubBase(metaclass=_Meta):
    def __init__(self, *a, **k):
        pass
    def __call__(self, *a, **k):
        return a[0] if len(a) == 1 and callable(a[0]) and not k else self
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _stub_class(attr)

class _StubModule(types.ModuleType):
    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return _stub_class(attr)

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] not in STAND_IN:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = _StubModule(spec.name)
        m.__path__ = []
        m.__version__ = "0.0.0"
        return m
    def exec_module(self, module):
        pass

sys.meta_path.insert(0, _Finder())
sys.argv = [sys.argv[0]]
import sglang
import sglang.cli.serve as serve_mod
src = inspect.getsource(serve_mod)
dispatch = "add_multimodal_gen_serve_args" in src and "--model-type" in src
try:
    from sglang.multimodal_gen.runtime.entrypoints.cli.serve import add_multimodal_gen_serve_args
except ModuleNotFoundError as exc:
    print(json.dumps({"missing": exc.name}))
    raise SystemExit(0)
import sglang.multimodal_gen.runtime.server_args as sa_mod
parser = argparse.ArgumentParser()
add_multimodal_gen_serve_args(parser)
options = {}
for action in parser._actions:
    if not action.option_strings or isinstance(action, argparse._HelpAction):
        continue
    entry = {"dest": action.dest, "action": type(action).__name__}
    if action.nargs is not None:
        entry["nargs"] = action.nargs if isinstance(action.nargs, (int, str)) else str(action.nargs)
    if action.choices is not None:
        try:
            entry["choices"] = sorted(str(c) for c in action.choices)
        except TypeError:
            pass
    for opt in action.option_strings:
        options[opt] = entry
sa_file = getattr(sa_mod, "__file__", None)
sa_src = open(sa_mod.ServerArgs.from_cli_args.__code__.co_filename).read()
prefixes, suffixes = set(), set()
for node in ast.walk(ast.parse(sa_src)):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        if node.value.startswith("--component") and node.value.endswith("."):
            prefixes.add(node.value)
    if isinstance(node, ast.keyword) and node.arg == "alias_suffix":
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            suffixes.add(node.value.value)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "endswith"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("-") and len(node.args[0].value) > 1):
        suffixes.add(node.args[0].value)
print(json.dumps({
    "version": sglang.__version__,
    "serve_dispatch": dispatch,
    "options": dict(sorted(options.items())),
    "dynamic_prefixes": sorted(prefixes),
    "dynamic_suffixes": sorted(suffixes),
    "read_from": sa_mod.ServerArgs.from_cli_args.__code__.co_filename.split("site-packages/")[-1],
}))
"""


def _release_of(env: Path) -> str:
    return re.sub(r"^sglang-|-py3\.\d+$", "", env.name)


def read_release(env: Path) -> dict:
    python = env / "bin/python"
    stand_in: list[str] = []
    for _ in range(40):
        proc = subprocess.run(
            [str(python), "-c", WORKER, json.dumps(stand_in)],
            capture_output=True,
            text=True,
            timeout=600,
            cwd="/tmp",
        )
        missing = re.findall(r"No module named '([^']+)'", proc.stderr)
        last = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
        data = json.loads(last) if last.startswith("{") else {}
        name = data.get("missing") or (missing[-1] if proc.returncode and missing else None)
        if name:
            stand_in.append(name.split(".")[0])
            continue
        if proc.returncode or "options" not in data:
            hint = "python-multipart" if "python-multipart" in proc.stderr else None
            if hint and "multipart" not in stand_in:
                stand_in += ["multipart", "python_multipart"]
                continue
            raise RuntimeError(f"{env.name}: {proc.stderr[-2000:]}")
        data["stand_in_modules"] = sorted(stand_in)
        return data
    raise RuntimeError(f"{env.name}: too many missing modules")


def build() -> dict:
    releases = {}
    for env in sorted(RESOLVERS.glob("sglang-*-py3.*")):
        if not (env / "bin/python").exists():
            continue
        data = read_release(env)
        releases[data.pop("version")] = data
    return {
        "_generated": "by scripts/gen_sglang_diffusion_options.py from the installed sglang packages in "
        f"{RESOLVERS}/sglang-<release>-py3.11: the parser sglang/cli/serve.py builds for the diffusion "
        "backend (add_multimodal_gen_serve_args), options with action/nargs/choices; dynamic component "
        "prefixes and suffixes read by AST from multimodal_gen's server_args (from_cli_args). Only these "
        "releases were readable here; 0.5.10.post1 already dispatches to the diffusion server (the "
        "dispatch came with https://github.com/sgl-project/sglang/pull/12484, merged 2025-11; the first "
        "release with it was not read). Options a pipeline adds when argv names "
        "it (add_resolved_pipeline_config_cli_args) are not included.",
        "releases": releases,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail when the file differs")
    args = ap.parse_args(argv)
    text = json.dumps(build(), indent=1, sort_keys=True) + "\n"
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT} is out of date", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
