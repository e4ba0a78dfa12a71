#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_config_fields.json: for each vLLM release read, the configuration
fields that no command-line flag of the same name sets, and the flags that decide them, read from the
release's own source (``ast``, never imported).

vLLM refuses or complains about fields of its configuration objects (``ParallelConfig.world_size``,
``CacheConfig.cache_dtype``, ``ParallelConfig.use_ubatching``); a message or a condition that reads one
names no flag, and the flag is what the user changes. Two ways lead from a flag to such a field:

- ``passed``: ``EngineArgs`` builds the object with the field from an attribute of another name
  (``CacheConfig(cache_dtype=self.kv_cache_dtype)``: ``--kv-cache-dtype``), directly or through a local
  variable of the same method (vllm/engine/arg_utils.py);
- ``derived``: the configuration class computes it from other fields, in ``__post_init__`` or another
  method (``self.world_size = self.pipeline_parallel_size * self.tensor_parallel_size``), as a property
  (``use_ubatching``: ``return self.enable_dbo or self.ubatch_size > 1``), or VllmConfig sets a field of
  one of its parts (``self.compilation_config.cudagraph_capture_sizes = ...``).

A field's flags are those of the fields it is made from, followed through up to four steps; a field whose
class one option takes whole (``--compilation-config``: CompilationConfig) is that option. Only fields
that end at a flag are kept, with where the field is set (file:line). ``attrs`` maps VllmConfig's
attributes to their classes (``cache_config``: CacheConfig), so a read ``self.cache_config.cache_dtype`` is
found. Nothing is typed by hand.

    python scripts/gen_vllm_config_fields.py [--wheels DIR] [--releases V ...] [--check]

Without ``--releases`` every bundled release is read (each wheel downloaded); ``--check`` regenerates the
releases the bundled file holds and compares.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import Schema, bundled_versions, load_schema, version_key  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_config_fields.json"
GENERATOR = "scripts/gen_vllm_config_fields.py"
ARG_UTILS = "vllm/engine/arg_utils.py"
DEPTH = 4  # steps from a field to the flags it is made from
# vLLM's help of an option that takes a whole configuration class links the class's API page
CLASS_LINK = re.compile(r"#vllm\.config\.([A-Za-z_]\w*)")


def _config_files(names: set[str]) -> list[str]:
    """vllm/config.py (up to 0.10) or the modules of the vllm/config package."""
    return sorted(n for n in names if n == "vllm/config.py" or re.fullmatch(r"vllm/config/\w+\.py", n))


def _annotation_class(node: ast.AST | None) -> str | None:
    """``CacheConfig``, ``CacheConfig | None``, ``Optional[CacheConfig]``, ``"CacheConfig"``: the class."""
    if node is None:
        return None
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else sub.value if isinstance(sub, ast.Constant) else None
        if isinstance(name, str) and name.endswith("Config"):
            return name
    return None


def _chain(node: ast.AST) -> list[str] | None:
    """``self.a.b`` -> ["self", "a", "b"]; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _reads(expr: ast.AST) -> set[tuple[str, ...]]:
    """The ``self.x`` / ``self.a.x`` chains and bare names an expression reads (a chain's longest form)."""
    out: set[tuple[str, ...]] = set()
    inner: set[int] = set()
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and id(node) not in inner:
            chain = _chain(node)
            if chain:
                out.add(tuple(chain))
                sub = node.value
                while isinstance(sub, ast.Attribute):
                    inner.add(id(sub))
                    sub = sub.value
                inner.add(id(sub))  # the chain's root name is part of it
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and id(node) not in inner:
            out.add((node.id,))
    return out


def _locals(fn: ast.FunctionDef) -> dict[str, set[tuple[str, ...]]]:
    """What each local name of a method is assigned from (every assignment's reads, merged)."""
    out: dict[str, set[tuple[str, ...]]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out.setdefault(node.targets[0].id, set()).update(_reads(node.value))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            out.setdefault(node.target.id, set()).update(_reads(node.value))
    return out


def _expand(reads: set[tuple[str, ...]], local: dict[str, set[tuple[str, ...]]]) -> set[tuple[str, ...]]:
    """Local names replaced by what they were assigned from (one step)."""
    out: set[tuple[str, ...]] = set()
    for read in reads:
        if len(read) == 1 and read[0] in local:
            out.update(r for r in local[read[0]] if not (len(r) == 1 and r[0] in local))
        else:
            out.add(read)
    return out


def read_classes(sources: dict[str, str]) -> dict[str, Any]:
    """The configuration classes of the config modules: their fields, what each field assigned or property
    is made from (``made``: field -> [(reads, file:line)]), and VllmConfig's attribute classes."""
    classes: dict[str, dict[str, Any]] = {}
    attrs: dict[str, str] = {}
    for path, text in sources.items():
        for node in ast.parse(text).body:
            if not (isinstance(node, ast.ClassDef) and node.name.endswith("Config")):
                continue
            info = classes.setdefault(node.name, {"fields": set(), "made": {}})
            for item in node.body:
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    info["fields"].add(item.target.id)
                    if node.name == "VllmConfig" and (cls := _annotation_class(item.annotation)):
                        attrs[item.target.id] = cls
            for fn in (i for i in node.body if isinstance(i, ast.FunctionDef)):
                local = _locals(fn)
                prop = any(
                    _chain(d) in (["property"], ["functools", "cached_property"]) for d in fn.decorator_list
                )
                prop = prop or any(
                    isinstance(d, ast.Name) and d.id == "cached_property" for d in fn.decorator_list
                )
                # a field the method sets unconditionally is made by that assignment; its adjustments under
                # a branch (``if backend == "external_launcher": self.world_size *= dp``) are the branch's
                plain = {
                    tuple(c)
                    for st in fn.body
                    if isinstance(st, (ast.Assign, ast.AnnAssign))
                    for t in (st.targets if isinstance(st, ast.Assign) else [st.target])
                    if (c := _chain(t))
                }
                top = {id(st) for st in fn.body}
                for sub in ast.walk(fn):
                    if prop and isinstance(sub, ast.Return) and sub.value is not None:
                        made = _expand(_reads(sub.value), local)
                        info["made"].setdefault(fn.name, []).append((made, f"{path}:{sub.lineno}"))
                    if not isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                        continue
                    targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                    for target in targets:
                        chain = _chain(target)
                        if not chain or chain[0] != "self" or len(chain) not in (2, 3) or sub.value is None:
                            continue
                        if tuple(chain) in plain and id(sub) not in top:
                            continue
                        reads = _expand(_reads(sub.value), local)
                        if isinstance(sub, ast.AugAssign):
                            reads.add(tuple(chain))
                        # ``self.x = ...``: the class's own field; ``self.cache_config.x = ...``
                        # (VllmConfig) sets a part's field: kept under "@made" as "cache_config.x"
                        bucket = (
                            info
                            if len(chain) == 2
                            else classes.setdefault("@made", {"fields": set(), "made": {}})
                        )
                        name = chain[-1] if len(chain) == 2 else f"{chain[1]}.{chain[-1]}"
                        bucket["made"].setdefault(name, []).append((reads, f"{path}:{sub.lineno}"))
    return {"classes": classes, "attrs": attrs}


def read_passed(text: str) -> dict[tuple[str, str], set[str]]:
    """``XConfig(field=<expr>)`` calls in EngineArgs' methods: (class, field) -> the EngineArgs attributes
    the expression reads (through the method's local variables, one step)."""
    out: dict[tuple[str, str], set[str]] = {}
    for cls in ast.parse(text).body:
        if not (isinstance(cls, ast.ClassDef) and cls.name == "EngineArgs"):
            continue
        for fn in (i for i in cls.body if isinstance(i, ast.FunctionDef)):
            local = _locals(fn)
            for call in ast.walk(fn):
                if not isinstance(call, ast.Call):
                    continue
                name = _chain(call.func)
                if not name or not name[-1].endswith("Config"):
                    continue
                for kw in call.keywords:
                    if kw.arg is None:
                        continue
                    reads = _expand(_reads(kw.value), local)
                    attrs = {r[1] for r in reads if len(r) >= 2 and r[0] == "self"}
                    if attrs:
                        out.setdefault((name[-1], kw.arg), set()).update(attrs)
    return out


def whole_options(schema: Schema) -> dict[str, str]:
    """class -> the option that takes it whole (its help links the class's API page)."""
    out: dict[str, str] = {}
    for option in schema.options:
        m = CLASS_LINK.search(option.help or "")
        if m and option.flag and m.group(1) not in out and "config" in option.dest:
            out[m.group(1)] = option.flag
    return out


def resolve(read: dict[str, Any], passed: dict[tuple[str, str], set[str]], schema: Schema) -> dict[str, Any]:
    """``{"Class.field": {"flags": [...], "how": ..., "at": ...}}`` for the fields no same-named flag sets."""
    classes, attrs = read["classes"], read["attrs"]
    whole = whole_options(schema)
    made_other = classes.get("@made", {"made": {}})["made"]

    def owner_of(chain: tuple[str, ...], owner: str) -> tuple[str, str] | None:
        if len(chain) == 2 and chain[0] == "self":
            return owner, chain[1]
        if len(chain) == 3 and chain[0] == "self" and chain[1] in attrs:
            return attrs[chain[1]], chain[2]
        if len(chain) == 2 and chain[0] in attrs:
            return attrs[chain[0]], chain[1]
        return None

    def flags(cls: str, field: str, depth: int, seen: frozenset[tuple[str, str]]) -> list[str]:
        if (cls, field) in seen or depth > DEPTH:
            return []
        seen = seen | {(cls, field)}
        out: list[str] = []
        for attr in sorted(passed.get((cls, field), ())):
            flag = schema.flag_for_dest(attr)
            if flag:
                out.append(flag)
        if out:
            return out
        if field in classes.get(cls, {"fields": set()})["fields"]:
            flag = schema.flag_for_dest(field)
            if flag:
                return [flag]
            if cls in whole:
                return [whole[cls]]
        made = list(classes.get(cls, {"made": {}})["made"].get(field, ()))
        made += [
            m for name, ms in made_other.items() if name == f"{_attr_of(attrs, cls)}.{field}" for m in ms
        ]
        for reads, _at in made:
            for chain in sorted(reads):
                found = owner_of(chain, cls)
                if found and found != (cls, field):
                    for flag in flags(*found, depth + 1, seen):
                        if flag not in out:
                            out.append(flag)
        return out

    result: dict[str, Any] = {}
    for cls, info in sorted(classes.items()):
        if cls.startswith("@"):
            continue
        names = set(info["made"]) | {f for c, f in passed if c == cls}
        names |= {n.split(".", 1)[1] for n in made_other if n.split(".", 1)[0] == _attr_of(attrs, cls)}
        for field in sorted(names):
            if schema.flag_for_dest(field):
                continue  # a flag of the same name: the schema's own lookup names it
            found = flags(cls, field, 0, frozenset())
            if not found or len(found) > 6:
                continue  # nothing set by a flag, or everything (a whole object's hash)
            how = "passed" if (cls, field) in passed else "derived"
            ats = [at for _r, at in info["made"].get(field, ())]
            ats += [
                at for n, ms in made_other.items() if n == f"{_attr_of(attrs, cls)}.{field}" for _r, at in ms
            ]
            result[f"{cls}.{field}"] = {"flags": found, "how": how, "at": ats[0] if ats else ARG_UTILS}
    return result


def _attr_of(attrs: dict[str, str], cls: str) -> str:
    return next((a for a, c in attrs.items() if c == cls), "")


def read_release(version: str, wheels: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        found = sorted(wheels.glob(f"vllm-{version}-*.whl")) if wheels else []
        wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())
            sources = {p: zf.read(p).decode("utf-8", "replace") for p in _config_files(names)}
            arg_utils = zf.read(ARG_UTILS).decode("utf-8", "replace")
    read = read_classes(sources)
    fields = resolve(read, read_passed(arg_utils), load_schema("vllm", version))
    return {"attrs": dict(sorted(read["attrs"].items())), "fields": fields}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--releases", nargs="*", default=None)
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    if args.releases:
        versions = args.releases
    elif args.check and OUT.is_file():
        versions = list(json.loads(OUT.read_text())["releases"])
    else:
        versions = bundled_versions("vllm", include_user=False)
    releases: dict[str, Any] = {}
    for version in sorted(versions, key=version_key):
        releases[version] = read_release(version, args.wheels)
        print(f"vllm {version}: {len(releases[version]['fields'])} fields", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
