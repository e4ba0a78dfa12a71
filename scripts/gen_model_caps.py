#!/usr/bin/env python3
"""Each release's model classes and what they can do, read from the framework's wheel, for ``argtrace check``.

    python scripts/gen_model_caps.py                                  # every release with a bundled schema
    python scripts/gen_model_caps.py vllm==0.33.0 sglang==0.5.23      # some releases (merged into the store)
    python scripts/gen_model_caps.py --wheel-dir /tmp/w vllm==0.10.2  # wheels in another directory
    python scripts/gen_model_caps.py --download /tmp/w vllm==0.10.2   # pip download them there first
    python scripts/gen_model_caps.py --check --wheel-dir /tmp/w       # re-read the stored releases found

The wheel (a zip) is read directly: each ``.py`` file of the model packages is parsed with ``ast``; the
framework is never imported or unpacked. What is read:

- vLLM: the registry (``model_executor/models/registry.py``, ``models/__init__.py`` before 0.6.3) maps an
  architecture name (config.json's ``architectures``) to (module, class) in its ``_*_MODELS`` dicts. Each
  class's capabilities are the class-level flags vLLM's interface checks read (``supports_lora``,
  ``supports_pp``, ``supports_multimodal``, ``is_hybrid``, ``supports_v0_only``, ...), which the interface
  classes (``SupportsLoRA``, ``SupportsPP``, ... in ``interfaces.py``, themselves in the indexed package)
  set to ``True``: they are looked up through the class's MRO (C3, as Python does) over every module of
  ``vllm/model_executor/models`` and ``vllm/models``. A base outside those packages but inside vLLM marks
  the class "not known" (no rule may use it); a base outside vLLM (``nn.Module``, transformers) sets none.
  Also per release: whether an architecture missing from the registry may still run through the
  Transformers backend (``_try_resolve_transformers`` or a ``Transformers*`` registry entry), the
  architecture suffixes vLLM converts (``_SUFFIX_TO_DEFAULTS``), and the architectures it names as removed
  (``_PREVIOUSLY_SUPPORTED_MODELS``).
- SGLang: ``srt/models/*.py`` modules (top level only: ``import_model_classes`` iterates them with
  ``pkgutil.iter_modules``) register ``EntryClass`` (a class or a list), keyed by the class's ``__name__``.
  SGLang checks no per-class LoRA interface (its LoRA manager wraps whichever layers match,
  ``srt/lora/lora_manager.py``); its one per-class check is ModelRunner's pipeline-parallel gate, which
  asserts that the model's ``forward`` takes ``pp_proxy_tensors`` (``inspect.signature``) when
  ``--pp-size`` > 1: the ``pp`` flag is that parameter of the ``forward`` the class's MRO finds first.
  The architectures and the Transformers fallback (``resolve_transformers_arch`` in
  ``srt/model_loader/utils.py``) are stored too. A release read before this (no ``pp`` refusal site
  stored) has no ``pp`` flags: no rule reads them there.
- The refusals each rule cites (file, line, function, message) are taken from the ``why`` message index
  (``frameworks/data/messages/<fw>.json.gz``, generated from the same wheels) and checked against the
  wheel's own line: a site whose line does not hold its words is not stored.

Output: ``src/argtrace/frameworks/data/model_caps/<framework>.json.gz`` (releases with their wheel and
sha256; per architecture, runs of consecutive releases with the same class and flags). ``--check`` reads
every stored release again whose wheel (same sha256) is in the wheel directories, and fails on a
difference; releases without a wheel at hand are counted and skipped.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.frameworks.model_caps import CAPS_DIR, FLAGS, FORMAT  # noqa: E402
from argtrace.frameworks.schema import version_key  # noqa: E402

GENERATOR = "scripts/gen_model_caps.py"
FRAMEWORKS = ("vllm", "sglang")
SCHEMA_DIR = ROOT / "src" / "argtrace" / "frameworks" / "data" / "schemas"
MESSAGE_DIR = ROOT / "src" / "argtrace" / "frameworks" / "data" / "messages"
# where the resolver keeps downloaded wheels (resolver/environments.py); others by --wheel-dir
DEFAULT_WHEEL_DIRS = (Path.home() / ".cache/argtrace/resolvers/wheels",)
UNKNOWN = "unknown"  # the flag bit that says a base class could not be read: no rule uses the others

# The refusal each rule cites, found in the message index by (function suffix, literal words of its message);
# SGLang's registry message is also its diffusion registry's: the file decides.
SITE_FILES = {"sglang": "sglang/srt/"}
SITES: Mapping[str, Mapping[str, tuple[tuple[str, str], ...]]] = {
    "vllm": {
        "unsupported": (("_raise_for_unsupported", " are not supported for now"),),
        "previously": (("_raise_for_unsupported", " was supported in vLLM until v"),),
        # the default engine's: V1's model runner (default from 0.8: envs.py VLLM_USE_V1 "1"), else V0's
        # loader (up to 0.6.3, before the model runner's assert) and model runner (``refusal_sites``)
        "lora": (
            ("LoRAModelRunnerMixin.load_lora_model", " does not support LoRA yet."),
            ("_get_model_initialization_kwargs", " does not support LoRA, but LoRA is enabled"),
            ("GPUModelRunnerBase.load_model", " does not support LoRA yet."),
        ),
        "pp": (
            ("ModelConfig.verify_with_parallel_config", "Pipeline parallelism is not supported for this"),
        ),
        "mm": (
            ("ModelConfig._init_multimodal_config", "limit_mm_per_prompt` is only supported for multimodal"),
        ),
    },
    "sglang": {
        "unsupported": (("_ModelRegistry._raise_for_unsupported", " are not supported for now"),),
        "pp": (("ModelRunner.__init__", "Pipeline Parallel is not compatible with this model"),),
    },
}
# Class attributes the interface checks read (vllm/model_executor/models/interfaces.py), by flag name.
FLAG_ATTRS = {
    "lora": "supports_lora",
    "pp": "supports_pp",
    "multimodal": "supports_multimodal",
    "hybrid": "is_hybrid",
    "v0_only": "supports_v0_only",
    "attention_free": "is_attention_free",
    "transcription": "supports_transcription",
}
_WHEEL_NAME = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[^-]+)-.*\.whl$")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------- reading a wheel
@dataclass
class ClassDef:
    module: str
    name: str
    bases: list[str]  # as written (dotted), resolved through the module's imports later
    flags: dict[str, bool] = field(default_factory=dict)  # class-level bool constants of FLAG_ATTRS
    # the parameter names of the ``forward`` the class defines itself (None: it defines none); SGLang's
    # ModelRunner reads them with inspect.signature for its pipeline-parallel gate
    forward: list[str] | None = None


@dataclass
class Module:
    name: str
    imports: dict[str, str] = field(default_factory=dict)  # local name -> dotted origin
    classes: dict[str, ClassDef] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # ``X = Y`` at module level
    # names bound only under an ``if``/``try`` at module level (a platform's class): every binding, as
    # ("import", origin), ("alias", expression) or ("class", key of ``classes``)
    alternatives: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    tree: ast.Module | None = None


def _module_name(path: str) -> str:
    name = path[:-3].replace("/", ".")
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def _absolute(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The dotted module a relative ``from .x import y`` names."""
    if level == 0:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, target] if target else base)


def _class_def(module: str, node: ast.ClassDef) -> ClassDef:
    cls = ClassDef(module, node.name, [ast.unparse(b) for b in node.bases])
    for stmt in node.body:
        target, value = None, None
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        if (
            isinstance(target, ast.Name)
            and target.id in FLAG_ATTRS.values()
            and isinstance(value, ast.Constant)
            and isinstance(value.value, bool)
        ):
            cls.flags[target.id] = value.value
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == "forward":
            a = stmt.args
            named = [*a.posonlyargs, *a.args, *a.kwonlyargs]
            cls.forward = [x.arg for x in named] + [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return cls


def parse_module(name: str, source: str, is_package: bool) -> Module:
    tree = ast.parse(source)
    mod = Module(name, tree=tree)

    def bind(local: str, kind: str, value: str, conditional: bool) -> None:
        if conditional:
            mod.alternatives.setdefault(local, []).append((kind, value))
        elif kind == "import":
            mod.imports[local] = value
        elif kind == "alias":
            mod.aliases[local] = value

    def visit(body: list[ast.stmt], conditional: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                for a in node.names:
                    bind(
                        a.asname or a.name.split(".")[0],
                        "import",
                        a.name if a.asname else a.name.split(".")[0],
                        conditional,
                    )
            elif isinstance(node, ast.ImportFrom):
                origin = _absolute(name, is_package, node.level, node.module)
                for a in node.names:
                    bind(a.asname or a.name, "import", f"{origin}.{a.name}", conditional)
            elif isinstance(node, ast.ClassDef):
                key = node.name if not conditional else f"{node.name}@{node.lineno}"
                mod.classes[key] = _class_def(name, node)
                if conditional:
                    mod.alternatives.setdefault(node.name, []).append(("class", key))
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, (ast.Name, ast.Attribute))
            ):
                bind(node.targets[0].id, "alias", ast.unparse(node.value), conditional)
            elif isinstance(node, ast.If):
                visit(node.body, True)
                visit(node.orelse, True)
            elif isinstance(node, ast.Try):
                visit(node.body, True)
                for handler in node.handlers:
                    visit(handler.body, True)
                visit(node.orelse, True)
                visit(node.finalbody, True)

    visit(tree.body, False)
    return mod


Resolved = tuple[str, str] | str | None  # (module, class), "external", or None (the framework's, not indexed)


class ClassIndex:
    """Every class of the model packages of one wheel, with the MRO lookups the flags need."""

    def __init__(self, framework: str, modules: Mapping[str, Module]):
        self.framework = framework
        self.modules = modules
        self._mro: dict[tuple[str, str], list[tuple[str, str]] | None] = {}

    def resolve_all(self, module: str, name: str, depth: int = 0) -> list[Resolved]:
        """Every (module, class) a name in ``module`` may refer to (several when it is bound under an
        ``if``: one per platform); ``"external"`` for a name from outside the framework, ``None`` for one
        of the framework's that is not in the indexed packages."""
        if depth > 20:
            return [None]
        head, _, rest = name.partition(".")
        mod = self.modules.get(module)
        if mod is None:
            return [None]
        if not rest and head in mod.classes:
            return [(module, head)]
        if not rest and head in mod.aliases:
            return self.resolve_all(module, mod.aliases[head], depth + 1)
        origin = mod.imports.get(head)
        if origin is None and head in mod.alternatives:
            out: list[Resolved] = []
            for kind, value in mod.alternatives[head]:
                if kind == "class":
                    out.append((module, value))
                elif kind == "alias":
                    out.extend(self.resolve_all(module, value + (f".{rest}" if rest else ""), depth + 1))
                else:
                    out.extend(self._origin(value, rest, depth))
            return out
        if origin is None:
            return ["external" if head in ("object", "Protocol", "Generic", "ABC") else None]
        return self._origin(origin, rest, depth)

    def _origin(self, origin: str, rest: str, depth: int) -> list[Resolved]:
        dotted = f"{origin}.{rest}" if rest else origin
        if not dotted.startswith(self.framework + "."):
            return ["external"]
        target_mod, _, target_name = dotted.rpartition(".")
        if target_mod in self.modules:
            return self.resolve_all(target_mod, target_name, depth + 1)
        return [None]

    def resolve(self, module: str, name: str) -> Resolved:
        """The one class a name refers to (None when there are several, or none indexed)."""
        found = self.resolve_all(module, name)
        return found[0] if len(found) == 1 else None

    def one_of(self, found: list[Resolved]) -> tuple[str, str] | str | None:
        """Of alternatives, one whose flags every other one shares (they all read alike), else None."""
        keys = [f for f in found if isinstance(f, tuple)]
        if any(f is None for f in found) or not keys:
            return "external" if found and all(f == "external" for f in found) else None
        flags = [self.flags(k) for k in keys]
        if any(f is None for f in flags) or len({tuple(f or ()) for f in flags}) != 1:
            return None
        return keys[0]

    def mro(self, key: tuple[str, str]) -> list[tuple[str, str]] | None:
        """C3 linearisation of a class over the indexed classes; None when a framework base is not indexed.
        External bases (torch, transformers, typing) are left out: they set none of the flags."""
        if key in self._mro:
            return self._mro[key]
        self._mro[key] = None  # a cycle reads as not known
        cls = self.modules[key[0]].classes[key[1]]
        parents: list[list[tuple[str, str]]] = []
        direct: list[tuple[str, str]] = []
        for base in cls.bases:
            written = base.split("[", 1)[0]
            found = self.one_of(self.resolve_all(key[0], written))
            if found == "external":
                continue
            if not isinstance(found, tuple):
                return None
            sub = self.mro(found)
            if sub is None:
                return None
            parents.append(sub)
            direct.append(found)
        out = [key, *_c3([*parents, direct])]
        self._mro[key] = out
        return out

    def flags(self, key: tuple[str, str]) -> list[str] | None:
        """The flags True at the first class of the MRO defining them; None when the MRO is not known."""
        order = self.mro(key)
        if order is None:
            return None
        out = []
        for flag, attr in FLAG_ATTRS.items():
            for k in order:
                value = self.modules[k[0]].classes[k[1]].flags.get(attr)
                if value is not None:
                    if value:
                        out.append(flag)
                    break
        return out

    def forward_params(self, key: tuple[str, str]) -> list[str] | None:
        """The parameters of the ``forward`` the class's MRO finds first ([] when no indexed class defines
        one: ``nn.Module``'s takes none of SGLang's); None when the MRO is not known."""
        order = self.mro(key)
        if order is None:
            return None
        for k in order:
            forward = self.modules[k[0]].classes[k[1]].forward
            if forward is not None:
                return forward
        return []


def _c3(seqs: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    seqs = [list(s) for s in seqs if s]
    out: list[tuple[str, str]] = []
    while seqs:
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:  # inconsistent: Python would refuse the class; keep a depth-first order
            head = seqs[0][0]
        out.append(head)
        seqs = [[c for c in s if c != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return out


# parsed modules by (path, sha256 of the source): consecutive releases share most model files unchanged, and
# parsing is most of a release's time; a Module is never changed after parsing, so sharing it is safe
_PARSED: dict[tuple[str, str], Module] = {}


def read_modules(zf: zipfile.ZipFile, prefixes: Iterable[str]) -> dict[str, Module]:
    out = {}
    for path in zf.namelist():
        if path.endswith(".py") and any(path.startswith(p) for p in prefixes):
            raw = zf.read(path)
            key = (path, hashlib.sha256(raw).hexdigest())
            if key not in _PARSED:
                try:
                    _PARSED[key] = parse_module(
                        _module_name(path), raw.decode("utf-8"), path.endswith("__init__.py")
                    )
                except (SyntaxError, UnicodeDecodeError, ValueError):
                    continue
            out[_module_name(path)] = _PARSED[key]
    return out


def _literal_dicts(tree: ast.Module) -> dict[str, ast.Dict]:
    out = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and isinstance(value, ast.Dict):
            out[target.id] = value
    return out


def _flatten(name: str, dicts: Mapping[str, ast.Dict], seen: set[str] | None = None) -> dict[str, ast.expr]:
    seen = seen or set()
    if name in seen or name not in dicts:
        return {}
    seen.add(name)
    out: dict[str, ast.expr] = {}
    for k, v in zip(dicts[name].keys, dicts[name].values, strict=True):
        if k is None and isinstance(v, ast.Name):
            out.update(_flatten(v.id, dicts, seen))
        elif isinstance(k, ast.Constant) and isinstance(k.value, str):
            out[k.value] = v
    return out


def vllm_registry(modules: Mapping[str, Module]) -> tuple[dict[str, tuple[str, str]], Module]:
    """Architecture -> (module, class) of the release's registry."""
    for name in ("vllm.model_executor.models.registry", "vllm.model_executor.models"):
        mod = modules.get(name)
        if mod is None or mod.tree is None:
            continue
        dicts = _literal_dicts(mod.tree)
        top = "_VLLM_MODELS" if "_VLLM_MODELS" in dicts else "_MODELS"
        entries = _flatten(top, dicts)
        out = {}
        for arch, value in entries.items():
            if isinstance(value, ast.Tuple) and len(value.elts) >= 2:
                first, second = value.elts[0], value.elts[1]
                if isinstance(first, ast.Constant) and isinstance(second, ast.Constant):
                    module = str(first.value)
                    if not module.startswith("vllm."):
                        module = f"vllm.model_executor.models.{module}"
                    out[arch] = (module, str(second.value))
        if out:
            return out, mod
    raise SystemExit("no vLLM model registry found in the wheel")


def sglang_registry(modules: Mapping[str, Module], index: ClassIndex) -> dict[str, tuple[str, str]]:
    """Architecture (the entry class's ``__name__``) -> (module, class), over ``srt/models``' top level."""
    out: dict[str, tuple[str, str]] = {}
    for name, mod in sorted(modules.items()):
        if name.rpartition(".")[0] != "sglang.srt.models" or mod.tree is None:
            continue
        for node in mod.tree.body:
            if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == ["EntryClass"]:
                items = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else [node.value]
                for item in items:
                    found = index.resolve(name, ast.unparse(item))
                    if isinstance(found, tuple):
                        out.setdefault(found[1].split("@")[0], found)
    return out


def _string_list(tree: ast.Module, name: str) -> list[str]:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if [ast.unparse(t) for t in targets] == [name] and isinstance(node.value, (ast.List, ast.Tuple)):
                return [
                    str(e.elts[0].value)
                    for e in node.value.elts
                    if isinstance(e, ast.Tuple) and e.elts and isinstance(e.elts[0], ast.Constant)
                ]
    return []


def read_release(framework: str, wheel: Path) -> dict[str, Any]:
    """What one wheel says: its architectures with class and flags, and the release-wide facts."""
    with zipfile.ZipFile(wheel) as zf:
        if framework == "vllm":
            modules = read_modules(zf, ("vllm/model_executor/models/", "vllm/models/"))
            index = ClassIndex("vllm", modules)
            registry, reg_mod = vllm_registry(modules)
            source = zf.read(_path_of(reg_mod.name, zf)).decode("utf-8")
            # the Transformers backend: registry entries named Transformers* (0.7: ``_normalize_archs``
            # appends one after the given architectures; 0.10.2 on: ``_try_resolve_transformers``)
            fallback = "_try_resolve_transformers" in source or any(
                a.startswith("Transformers") for a in registry
            )
            suffixes: list[str] = []
            for path in ("vllm/config/model.py", "vllm/config.py", "vllm/config/__init__.py"):
                if path in zf.namelist():
                    suffixes = suffixes or _string_list(ast.parse(zf.read(path)), "_SUFFIX_TO_DEFAULTS")
            previously = {}
            assert reg_mod.tree is not None
            dicts = _literal_dicts(reg_mod.tree)
            for k, v in zip(
                *(lambda d: (d.keys, d.values))(dicts.get("_PREVIOUSLY_SUPPORTED_MODELS", ast.Dict([], []))),
                strict=True,
            ):
                if isinstance(k, ast.Constant) and isinstance(v, ast.Constant):
                    previously[str(k.value)] = str(v.value)
        else:
            modules = read_modules(zf, ("sglang/srt/models/",))
            index = ClassIndex("sglang", modules)
            registry = sglang_registry(modules, index)
            utils = "sglang/srt/model_loader/utils.py"
            fallback = utils in zf.namelist() and "def resolve_transformers_arch" in zf.read(utils).decode()
            suffixes, previously = [], {}
    archs = {}
    for arch, (module, cls) in sorted(registry.items()):
        short = module.removeprefix(f"{framework}.model_executor.models.").removeprefix("sglang.srt.models.")
        impl = f"{short}:{cls}"
        if framework == "sglang":
            # ModelRunner's gate: pp_size > 1 asserts "pp_proxy_tensors" in the forward's signature
            # (0.5.23 model_executor/model_runner.py:508-516); the only per-class check SGLang makes
            params = index.forward_params((module, cls)) if module in modules else None
            sg_flags = [UNKNOWN] if params is None else (["pp"] if "pp_proxy_tensors" in params else [])
            archs[arch] = [impl, sg_flags]
            continue
        found = index.one_of(index.resolve_all(module, cls)) if module in modules else None
        flags = index.flags(found) if isinstance(found, tuple) else None
        archs[arch] = [impl, flags if flags is not None else [UNKNOWN]]
    return {"archs": archs, "transformers_fallback": fallback, "suffixes": suffixes, "previously": previously}


def _path_of(module: str, zf: zipfile.ZipFile) -> str:
    path = module.replace(".", "/") + ".py"
    return path if path in zf.namelist() else module.replace(".", "/") + "/__init__.py"


# ---------------------------------------------------------------------------- the refusals each rule cites
def message_sites(framework: str) -> list[dict[str, Any]]:
    path = MESSAGE_DIR / f"{framework}.json.gz"
    return list(json.loads(gzip.decompress(path.read_bytes()))["sites"]) if path.exists() else []


def _template(parts: list[Any]) -> str:
    return "".join(p if isinstance(p, str) else "{" + str(p[0]) + "}" for p in parts)


def refusal_sites(framework: str, version: str, wheel: Path, sites: list[dict[str, Any]]) -> dict[str, Any]:
    """Per rule, the release's site (file, line, function, message) whose line in the wheel holds it."""
    out: dict[str, Any] = {}
    with zipfile.ZipFile(wheel) as zf:
        v1_default = framework == "vllm" and _v1_default(zf)
        for kind, wanted in SITES[framework].items():
            if kind == "lora" and not v1_default:
                wanted = (*wanted[1:], wanted[0])  # V0 is what runs by default
            for function, words in wanted:
                site = next(
                    (
                        s
                        for s in sites
                        if str(s.get("fn", "")).endswith(function)
                        and str(s.get("f", "")).startswith(SITE_FILES.get(framework, ""))
                        and words in _template(s["p"])
                        and version in s.get("at", {})
                    ),
                    None,
                )
                if site is None:
                    site = _site_in_wheel(zf, function, words, sites, version)
                if site is None:
                    continue
                line = int(site["at"][version][0])
                lines = zf.read(site["f"]).decode("utf-8").splitlines()
                near = "\n".join(lines[line - 1 : line + 6])  # the raise and its message's first lines
                first = re.sub(r"\{[^}]*\}", "", _template(site["p"])).strip().split("  ")[0][:24]
                if not any(piece and piece in near for piece in (first, words.strip()[:24])):
                    log(f"{framework} {version}: {site['f']}:{line} does not hold {words!r}; not stored")
                    continue
                out[kind] = [
                    site["f"],
                    line,
                    site["fn"],
                    _template(site["p"]),
                    site.get("x") or site.get("k"),
                ]
                break
    return out


def _v1_default(zf: zipfile.ZipFile) -> bool:
    """Whether the release runs the V1 engine unless told otherwise (vllm/envs.py's VLLM_USE_V1 default)."""
    if "vllm/envs.py" not in zf.namelist():
        return False
    found = re.search(r'getenv\(\s*"VLLM_USE_V1"\s*,\s*"(\d)"', zf.read("vllm/envs.py").decode("utf-8"))
    if found is None:  # the switch is gone with V0 (0.11 on): V1 is all there is, if the wheel has it
        return any(name.startswith("vllm/v1/") for name in zf.namelist())
    return found.group(1) == "1"


def _site_in_wheel(
    zf: zipfile.ZipFile, function: str, words: str, sites: list[dict[str, Any]], version: str
) -> dict[str, Any] | None:
    """A release the message index does not hold (vLLM 0.10.0): the same function's raise or assert, in
    the file another release's site names, found by its words in this wheel (its statement's line)."""
    known = [s for s in sites if str(s.get("fn", "")).endswith(function) and words in _template(s["p"])]
    for site in known:
        if site["f"] not in zf.namelist():
            continue
        tree = ast.parse(zf.read(site["f"]))
        fn_name = site["fn"].rpartition(".")[2]
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == fn_name:
                for stmt in ast.walk(node):
                    if isinstance(stmt, (ast.Raise, ast.Assert)) and words.strip() in ast.unparse(stmt):
                        return {**site, "at": {version: [stmt.lineno]}}
    return None


# --------------------------------------------------------------------------------------------- the store
def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_store(framework: str) -> dict[str, Any]:
    path = CAPS_DIR / f"{framework}.json.gz"
    if path.exists():
        data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
        if data.get("format") == FORMAT:
            return data
    return {
        "format": FORMAT,
        "framework": framework,
        "generated_by": GENERATOR,
        "flags": list(FLAGS),
        "releases": {},
        "archs": {},
    }


def expand(store: Mapping[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """release -> arch -> [impl, flags] from the stored runs."""
    releases = list(store["releases"])
    out: dict[str, dict[str, list[Any]]] = {r: {} for r in releases}
    for arch, runs in store["archs"].items():
        for first, last, impl, bits in runs:
            for i in range(first, last + 1):
                out[releases[i]][arch] = [impl, [f for j, f in enumerate(store["flags"]) if bits >> j & 1]]
    return out


def build(framework: str, per_release: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The store: releases in order, and per architecture runs ``[first, last, impl, bits]`` of consecutive
    releases with the same class and flags."""
    order = sorted(per_release, key=version_key)
    archs: dict[str, list[list[Any]]] = {}
    for i, version in enumerate(order):
        for arch, (impl, flags) in per_release[version]["archs"].items():
            bits = sum(1 << FLAGS.index(f) for f in flags)
            runs = archs.setdefault(arch, [])
            if runs and runs[-1][1] == i - 1 and runs[-1][2:] == [impl, bits]:
                runs[-1][1] = i
            else:
                runs.append([i, i, impl, bits])
    releases = {v: {k: per_release[v][k] for k in sorted(per_release[v]) if k != "archs"} for v in order}
    return {
        "format": FORMAT,
        "framework": framework,
        "generated_by": GENERATOR,
        "flags": list(FLAGS),
        "releases": releases,
        "archs": dict(sorted(archs.items())),
    }


def release_entry(framework: str, version: str, wheel: Path, sites: list[dict[str, Any]]) -> dict[str, Any]:
    read = read_release(framework, wheel)
    return {
        "wheel": wheel.name,
        "sha256": sha256(wheel),
        "transformers_fallback": read["transformers_fallback"],
        "suffixes": read["suffixes"],
        "previously": read["previously"],
        "refusals": refusal_sites(framework, version, wheel, sites),
        "archs": read["archs"],
    }


def write_store(framework: str, data: Mapping[str, Any]) -> Path:
    CAPS_DIR.mkdir(parents=True, exist_ok=True)
    path = CAPS_DIR / f"{framework}.json.gz"
    text = json.dumps(data, sort_keys=False, separators=(",", ":")).encode()
    path.write_bytes(gzip.compress(text, mtime=0))
    return path


# ----------------------------------------------------------------------------------------------- the driver
def schema_releases() -> list[tuple[str, str]]:
    out = []
    for path in sorted(SCHEMA_DIR.glob("*.json")):
        fw, _, version = path.stem.partition("-")
        if fw in FRAMEWORKS and version != "shared":
            out.append((fw, version))
    return out


def find_wheel(framework: str, version: str, dirs: Iterable[Path]) -> Path | None:
    for folder in dirs:
        for path in sorted(folder.glob(f"{framework}-{version}-*.whl")):
            return path
    return None


def download(framework: str, version: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "-q",
        "--no-deps",
        "--only-binary",
        ":all:",
        "-d",
        str(dest),
    ]
    subprocess.run([*cmd, f"{framework}=={version}"], check=True, timeout=1800)
    found = find_wheel(framework, version, [dest])
    if found is None:
        raise SystemExit(f"pip downloaded no wheel for {framework}=={version}")
    return found


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("targets", nargs="*", help="FRAMEWORK==VERSION (default: every bundled schema's release)")
    ap.add_argument("--wheel-dir", action="append", type=Path, default=[])
    ap.add_argument("--download", type=Path, help="pip download missing wheels into this directory")
    ap.add_argument(
        "--check", action="store_true", help="re-read every stored release whose wheel is at hand"
    )
    args = ap.parse_args(argv)
    dirs = [*args.wheel_dir, *DEFAULT_WHEEL_DIRS]
    if args.check:
        return check(dirs)
    targets = [tuple(t.split("==", 1)) for t in args.targets] or schema_releases()
    for framework in FRAMEWORKS:
        wanted = [v for fw, v in targets if fw == framework]
        if not wanted:
            continue
        store = load_store(framework)
        per_release: dict[str, dict[str, Any]] = {
            v: {**store["releases"][v], "archs": a} for v, a in expand(store).items()
        }
        sites = message_sites(framework)
        for version in wanted:
            wheel = find_wheel(framework, version, dirs)
            if wheel is None and args.download is not None:
                wheel = download(framework, version, args.download)
            if wheel is None:
                log(f"{framework} {version}: no wheel in {', '.join(map(str, dirs))}; skipped")
                continue
            per_release[version] = release_entry(framework, version, wheel, sites)
            log(f"{framework} {version}: {len(per_release[version]['archs'])} architectures")
        path = write_store(framework, build(framework, per_release))
        log(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes, {len(per_release)} releases)")
    return 0


def check(dirs: list[Path]) -> int:
    """Read every stored release again whose wheel (same sha256) is at hand; fail on any difference."""
    failed = skipped = checked = 0
    for framework in FRAMEWORKS:
        store = load_store(framework)
        stored = expand(store)
        sites = message_sites(framework)
        for version, meta in store["releases"].items():
            wheel = find_wheel(framework, version, dirs)
            if wheel is None or sha256(wheel) != meta["sha256"]:
                skipped += 1
                continue
            fresh = release_entry(framework, version, wheel, sites)
            checked += 1
            same = fresh["archs"] == stored[version] and all(fresh[k] == meta.get(k) for k in meta)
            if not same:
                failed += 1
                log(
                    f"{framework} {version}: differs from the stored table "
                    f"(run {GENERATOR} {framework}=={version})"
                )
    log(f"{checked} releases checked, {failed} differ, {skipped} without their wheel at hand (skipped)")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
