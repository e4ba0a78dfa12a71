"""Record the options of SGLang's diffusion server parser, per release, into
``src/argtrace/frameworks/data/sglang_diffusion_options.json``.

``sglang serve`` (sglang/cli/serve.py) hands argv to the diffusion server for a diffusion model (0.5.10+:
also when ``--model-type diffusion`` is given); that server builds its own parser
(``sglang.multimodal_gen.runtime.entrypoints.cli.serve.add_multimodal_gen_serve_args``: ``--config``,
``ServerArgs.add_cli_args`` of sglang/multimodal_gen, the pipeline config's options) and parses with
``parse_known_args``. From 0.5.10 ``ServerArgs.from_cli_args`` refuses what is left ("error: unrecognized
arguments") except the dynamic per-component options (``--<component>-path``, ``--component-paths.<c>``
...), whose prefixes and suffixes are read here from that module by AST; before 0.5.10 it ignores what is
left (``refuses_unknown`` false).

Every SGLang release of ``gen_schemas.RELEASES`` that ships sglang/multimodal_gen (the first is 0.5.5:
0.5.4.post3 has none; 0.5.5 itself is read too) is read from its wheel (``pip download --no-deps``,
unpacked by ``schema_gen.fetch_unpacked``) by AST, without importing it
(``argtrace.resolver.ast_diffusion``): importing needs the diffusion extra, which does not install here.
``add_resolved_pipeline_config_cli_args`` adds a pipeline's own options only when argv names the
pipeline; the table is the parser of an argv that names none, so such model-specific options (FLUX.3's
``--flux3-alpha`` in 0.5.23) are not in it.

``--crosscheck`` builds the parser by importing the installed package in each resolver environment
(/root/.cache/argtrace/resolvers/sglang-<release>-py3.11, 0.5.10.post1 and 0.5.23; missing diffusion
dependencies get empty stand-in modules) and compares its options, prefixes and suffixes with the AST
reading of the same release: they must be identical.

The file stores each option once with the releases (spans of ``release_order``) whose entry is that one;
``frameworks/sglang_diffusion.py`` rebuilds a release's table from it.

Run: ``python3 scripts/gen_sglang_diffusion_options.py`` (``--check`` compares with the file).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))

from argtrace.resolver import ast_diffusion, schema_gen  # noqa: E402
from gen_schemas import RELEASES  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/sglang_diffusion_options.json"
RESOLVERS = Path("/root/.cache/argtrace/resolvers")
# 0.5.5 is the first release with sglang/multimodal_gen; RELEASES holds its last post-release only
EXTRA = ("0.5.5",)

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


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def dynamic_options(source: str) -> tuple[list[str], list[str]]:
    """The prefixes and suffixes of the per-component options ``from_cli_args`` takes from the words
    left over (the constants of the module that defines it)."""
    prefixes, suffixes = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value.startswith("--component") and node.value.endswith("."):
                prefixes.add(node.value)
        if isinstance(node, ast.keyword) and node.arg == "alias_suffix":
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                suffixes.add(node.value.value)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "endswith"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and node.args[0].value.startswith("-")
            and len(node.args[0].value) > 1
        ):
            suffixes.add(node.args[0].value)
    return sorted(prefixes), sorted(suffixes)


def refuses_unknown(source: str) -> bool:
    """Whether ``ServerArgs.from_cli_args`` stops on words its parser left over."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name == "ServerArgs":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "from_cli_args":
                    return "unrecognized arguments" in ast.unparse(item)
    return False


def read_wheel(version: str, unpacked_root: Path) -> dict[str, Any] | None:
    """One release read from its wheel by AST; None when it has no sglang/multimodal_gen."""
    unpacked = schema_gen.fetch_unpacked("sglang", version, unpacked_root, log)
    if not (unpacked / "sglang" / "multimodal_gen").is_dir():
        return None
    parser = ast_diffusion.read_diffusion_parser(unpacked)
    if parser.unknown or parser.duplicates or parser.server_args_file is None:
        raise RuntimeError(f"{version}: not read statically: {parser.unknown} {parser.duplicates}")
    note = json.loads((unpacked / schema_gen.WHEEL_NOTE).read_text())
    server_args = (unpacked / parser.server_args_file).read_text(encoding="utf-8")
    serve = (unpacked / "sglang" / "cli" / "serve.py").read_text(encoding="utf-8")
    prefixes, suffixes = dynamic_options(server_args)
    return {
        "serve_dispatch": ast_diffusion.SERVE_FUNCTION in serve,
        "model_type_override": "--model-type" in serve,
        "refuses_unknown": refuses_unknown(server_args),
        "options": dict(sorted(parser.options.items())),
        "dynamic_prefixes": prefixes,
        "dynamic_suffixes": suffixes,
        "read_from": parser.server_args_file,
        "wheel": note["wheel"],
        "wheel_sha256": note["wheel_sha256"],
    }


def pack(releases: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Each option once per distinct entry, with the spans of ``release_order`` that have it."""
    from argtrace.frameworks.schema import version_key

    order = sorted(releases, key=version_key)
    options: dict[str, list[list[Any]]] = {}
    for flag in sorted({f for r in releases.values() for f in r["options"]}):
        variants: list[list[Any]] = []
        for i, version in enumerate(order):
            entry = releases[version]["options"].get(flag)
            if entry is None:
                continue
            found = next((v for v in variants if v[0] == entry), None)
            if found is None:
                variants.append([entry, [[i, 1]]])
            elif found[1][-1][0] + found[1][-1][1] == i:
                found[1][-1][1] += 1
            else:
                found[1].append([i, 1])
        options[flag] = variants
    meta = {
        v: {k: x for k, x in releases[v].items() if k != "options"}
        | {"option_count": len(releases[v]["options"])}
        for v in order
    }
    return {"release_order": order, "releases": meta, "options": options}


def build(unpacked_root: Path) -> dict[str, Any]:
    releases: dict[str, dict[str, Any]] = {}
    for version in [*EXTRA, *(v for v in RELEASES["sglang"] if v.startswith("0.5."))]:
        data = read_wheel(version, unpacked_root)
        if data is None:
            continue
        releases[version] = data
        log(f"sglang=={version}: {len(data['options'])} options (AST)")
    packed = pack(releases)
    return {
        "_generated": "by scripts/gen_sglang_diffusion_options.py from each SGLang release's wheel on PyPI "
        "(pip download --no-deps), read by AST without importing (argtrace/resolver/ast_diffusion.py): the "
        "parser sglang/cli/serve.py builds for the diffusion backend (add_multimodal_gen_serve_args), "
        "options with dest/action/nargs/choices; dynamic component prefixes and suffixes and whether "
        "from_cli_args refuses left-over words, read from multimodal_gen's server_args. Cross-checked "
        "against the parser built by importing 0.5.10.post1 and 0.5.23 (--crosscheck): identical. Options "
        "a pipeline adds when argv names it (add_resolved_pipeline_config_cli_args) are not included. "
        "`options`: flag -> [entry, [[first index into release_order, count], ...]] per distinct entry.",
        "format": 2,
        **packed,
    }


def crosscheck(unpacked_root: Path) -> int:
    """The import-based read of each resolver environment against the AST read of the same release."""
    failures = 0
    for env in sorted(RESOLVERS.glob("sglang-*-py3.*")):
        if not (env / "bin/python").exists():
            continue
        imported = read_release(env)
        version = imported["version"]
        static = read_wheel(version, unpacked_root)
        assert static is not None
        for key in ("options", "dynamic_prefixes", "dynamic_suffixes", "serve_dispatch", "read_from"):
            if imported[key] != static[key]:
                failures += 1
                log(f"{version}: {key} differs")
                if key == "options":
                    a, b = imported[key], static[key]
                    log(f"  only imported: {sorted(set(a) - set(b))}; only AST: {sorted(set(b) - set(a))}")
                    log(f"  entries differing: {sorted(k for k in set(a) & set(b) if a[k] != b[k])}")
        log(f"{version}: imported {len(imported['options'])} options, AST {len(static['options'])}")
    log("crosscheck: identical" if not failures else f"crosscheck: {failures} differences")
    return 1 if failures else 0


def write(data: dict[str, Any]) -> str:
    """One option per line: diffable, and about a third of an indented dump."""
    lines = ["{"]
    items = list(data.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, dict) and key in ("options", "releases"):
            body = ",\n".join(
                f" {json.dumps(k)}:{json.dumps(v, sort_keys=True, separators=(',', ':'))}"
                for k, v in value.items()
            )
            lines.append(f"{json.dumps(key)}:{{\n{body}\n}}{comma}")
        else:
            lines.append(f"{json.dumps(key)}:{json.dumps(value, separators=(',', ':'))}{comma}")
    lines.append("}")
    text = "\n".join(lines) + "\n"
    json.loads(text)
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail when the file differs")
    ap.add_argument(
        "--crosscheck",
        action="store_true",
        help="compare the AST reading with the parser built by importing (the resolver environments)",
    )
    ap.add_argument("--unpacked", type=Path, default=Path(tempfile.gettempdir()) / "argtrace-wheels")
    args = ap.parse_args(argv)
    args.unpacked.mkdir(parents=True, exist_ok=True)
    if args.crosscheck:
        return crosscheck(args.unpacked)
    text = write(build(args.unpacked))
    if args.check:
        if OUT.read_text() != text:
            print(f"{OUT} is out of date", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
