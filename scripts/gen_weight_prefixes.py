#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/weight_prefixes.json: for each SGLang and vLLM release read, the
top-level modules of every model class that loads a checkpoint, from the release's own source (``ast``,
never imported).

A model class's ``load_weights`` looks each checkpoint tensor up in its own parameters (``param =
params_dict[name]``); a tensor whose name starts with a module the class does not have dies there with
Python's bare ``KeyError: 'midlayer.self_attn.qkv_proj.weight'`` (sglang#9135: an EAGLE3 draft whose
config.json declares ``Qwen3ForCausalLM``, so ``models/qwen3.py`` built a whole Qwen3 for it) or ``KeyError:
'embed_tokens.weight'`` (sglang#9747: a Qwen3-Embedding checkpoint saved from the base model, without the
``model.`` prefix of ``Qwen3ForCausalLM``'s parameters). Which class has which first module is what turns
the name into a cause: per release, per models file, per class defining ``load_weights``, the attributes
its ``__init__`` assigns a constructed module to (``self.model = Qwen3Model(...)``, ``self.midlayer =
LlamaDecoderLayer(...)``; a call other than a plain value's: ``self.x = int(...)`` is not one). Nothing is
typed by hand.

    python scripts/gen_weight_prefixes.py [--wheels DIR] [--check]

The wheels are the resolver environments' (``~/.cache/argtrace/resolvers/wheels`` by default): every
``sglang-*.whl`` and ``vllm-*.whl`` there is read; ``--check`` regenerates from the releases the bundled file
holds and compares.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "weight_prefixes.json"
MODELS = {"sglang": "sglang/srt/models/"}
# calls that build a value, not a module: an attribute assigned one of these holds no parameters
_VALUES = {"int", "float", "str", "bool", "getattr", "len", "set", "dict", "list", "tuple", "get_pp_group"}


def _called(value: ast.expr) -> str | None:
    """The callee's last name of a call (``Qwen3Model``, ``nn.ModuleList``), or None for anything else."""
    if not isinstance(value, ast.Call):
        return None
    func = value.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _targets(node: ast.Assign) -> list[str]:
    """The ``self`` attributes an assignment sets: ``self.x = ...`` and the first of ``self.layers,
    self.start_layer, self.end_layer = make_layers(...)``."""
    if len(node.targets) != 1:
        return []
    target = node.targets[0]
    if isinstance(target, ast.Tuple) and target.elts:
        target = target.elts[0]
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
        return [] if target.attr.startswith("_") else [target.attr]
    return []


def _modules(init: ast.FunctionDef) -> dict[str, str]:
    """The attributes ``__init__`` assigns a constructed module to (a call other than a plain value's:
    ``self.x = int(...)`` is not one), each with its callee's last name; first assignment only (either branch
    of an ``if``: a pipeline stage's ``PPMissingLayer`` is the same attribute)."""
    found: dict[str, str] = {}
    for node in ast.walk(init):
        if isinstance(node, ast.Assign):
            callee = _called(node.value)
            for attr in _targets(node):
                if callee and callee not in _VALUES and attr not in found:
                    found[attr] = callee
    return found


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def _method(cls: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == name), None)


def _own_modules(cls: ast.ClassDef, every: dict[str, ast.ClassDef], depth: int = 0) -> dict[str, str]:
    """A class's modules, its bases' (within the release's models files) first: ``Qwen3Model(Qwen2Model)``
    calls ``super().__init__`` and assigns none itself."""
    found: dict[str, str] = {}
    if depth < 4:
        for base in cls.bases:
            name = (
                base.id
                if isinstance(base, ast.Name)
                else base.attr
                if isinstance(base, ast.Attribute)
                else ""
            )
            if name in every and every[name] is not cls:
                found.update(_own_modules(every[name], every, depth + 1))
    init = _method(cls, "__init__")
    if init is not None:
        found.update(_modules(init))
    return found


_NAME = re.compile(r"^([A-Za-z_][A-Za-z_0-9]*)\.?$")


def read_release(framework: str, wheel: Path) -> tuple[str, dict[str, Any]]:
    """(release, facts) over the classes named ``*For*`` that define ``load_weights``: ``inner``, the modules
    of the inner model (the class a top-level ``model`` module is) that five or more classes have and none has
    at the top level as often (a checkpoint name starting with one lacks the ``model.`` prefix); ``known_by``,
    each name a class knows (a top-level module, a module of its inner model, or a name its loader's own
    string constants translate: ``"midlayer": "layers.0"``) with the classes (``file:Class``) that know it,
    kept when at most four do (a name only a few classes know says which class the checkpoint is for)."""
    prefix = MODELS[framework]
    release, _, texts = wheel_modules(wheel, lambda m: m.startswith(prefix) and m.endswith(".py"), framework)
    # a byte-order mark opens a few files
    trees = {path[len(prefix) :]: ast.parse(text.lstrip("\ufeff")) for path, text in sorted(texts.items())}
    every: dict[str, ast.ClassDef] = {}
    for tree in trees.values():
        for name, cls in _classes(tree).items():
            every.setdefault(name, cls)
    top: dict[str, int] = {}
    inner: dict[str, int] = {}
    known: dict[str, set[str]] = {}
    for path, tree in trees.items():
        local = _classes(tree)
        for cls in local.values():
            loader = _method(cls, "load_weights")
            if "For" not in cls.name or loader is None:
                continue
            where = f"{path}:{cls.name}"
            modules = _own_modules(cls, {**every, **local})
            model = local.get(modules.get("model", "")) or every.get(modules.get("model", ""))
            inside = _own_modules(model, {**every, **local}) if model is not None else {}
            for attr in modules:
                top[attr] = top.get(attr, 0) + 1
            for attr in inside:
                inner[attr] = inner.get(attr, 0) + 1
            names = set(modules) | set(inside)
            for node in ast.walk(loader):  # the names its loader translates ("midlayer": "layers.0")
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    m = _NAME.match(node.value)
                    if m and len(m.group(1)) > 3:
                        names.add(m.group(1))
            for name in names:
                known.setdefault(name, set()).add(where)
    return release, {
        "inner": sorted(a for a, n in inner.items() if n >= 5 and n > top.get(a, 0)),
        "known_by": {
            name: sorted(w) for name, w in sorted(known.items()) if len(w) <= 4 and not name.startswith("_")
        },
    }


def build(wheels: list[Path]) -> dict[str, Any]:
    releases: dict[str, dict[str, Any]] = {"sglang": {}}
    for wheel in sorted(wheels):
        framework = wheel.name.split("-", 1)[0]
        if framework in MODELS:
            release, facts = read_release(framework, wheel)
            releases[framework][release] = {"wheel": wheel.name, **facts}
    return {
        "about": "per release, over the model classes defining load_weights: inner, the first name parts of "
        "a checkpoint tensor that lacks the model. prefix; known_by, names at most four classes know (a "
        "module, an inner model's module, a name their loader translates), with those classes (file:Class)",
        "generated_by": "scripts/gen_weight_prefixes.py",
        "releases": releases,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", type=Path, default=Path.home() / ".cache/argtrace/resolvers/wheels")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    wheels = [p for p in args.wheels.glob("*.whl") if p.name.split("-", 1)[0] in MODELS]
    if args.check and OUT.is_file():
        held = json.loads(OUT.read_text())["releases"]
        named = {r["wheel"] for fw in held.values() for r in fw.values()}
        wheels = [p for p in wheels if p.name in named]
    return write_or_check(OUT, build(wheels), "scripts/gen_weight_prefixes.py", check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
