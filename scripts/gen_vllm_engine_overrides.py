#!/usr/bin/env python3
"""Write src/argtrace/frameworks/data/vllm_engine_overrides.json: what each bundled vLLM release does, after
parsing, to two kinds of values the user wrote, read from the release's own source.

1. ``--override-generation-config`` keys. ``ModelConfig.get_diff_sampling_param`` merges the override into
   the model's generation config, then keeps only the keys of its ``available_params`` list (vllm/config.py
   0.7.3, vllm/config/model.py 0.11.0 on): they become the default sampling parameters of every request.
   A key outside that list (``presence_penalty`` before 0.31.0, vllm#50767; ``eos_token_id`` in every
   release, vllm#45591) is dropped without a word. The list and its line are read per release.
2. Settings the engine overwrites. ``EngineArgs._override_v1_engine_args`` (0.6.6.post1-0.7.3, under
   VLLM_USE_V1=1), ``_set_default_args_v1`` (0.8.5.post1-0.10.2) and ``_set_default_args`` (0.11.0) set
   ``self.enable_chunked_prefill = True`` for the V1 engine whatever the user gave (vllm#20914, PR#21645):
   an assignment of a literal to ``self.<field>`` in those methods that no enclosing ``if`` tests
   ``self.<field>`` on (a default is written as ``if self.x is None: self.x = ...``)
   overwrites an explicit value. Each is recorded with the tests of its enclosing ``if``s (source text), so
   the caller can say what the overwrite rests on (``model_config.runner_type != "pooling"``).
3. The V1 oracle (``_is_v1_supported_oracle``, 0.8.5.post1-0.11.0): each ``_raise_or_fallback`` call, the
   feature its message names and the tests of the ``if``s around it (vllm#20752).
4. ``VLLM_USE_V1``'s default in vllm/envs.py: whether a V1-only overwrite applies when it is unset.

Nothing is typed by hand.

    python scripts/gen_vllm_engine_overrides.py [--wheels DIR | --sources DIR] [--check]

``--sources DIR`` reads unpacked releases (``DIR/<version>/vllm/...``) instead of wheels.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test

from argtrace.frameworks.schema import bundled_versions, version_key  # noqa: E402
from argtrace.resolver import environments  # noqa: E402
from generated_json import write_or_check  # noqa: E402

OUT = ROOT / "src" / "argtrace" / "frameworks" / "data" / "vllm_engine_overrides.json"
GENERATOR = "scripts/gen_vllm_engine_overrides.py"
CONFIG_FILES = ("vllm/config/model.py", "vllm/config/__init__.py", "vllm/config.py")
ARG_UTILS = "vllm/engine/arg_utils.py"
DEFAULT_METHODS = ("_set_default_args_v1", "_set_default_args", "_override_v1_engine_args")


def sampling_keys(source: str, path: str) -> dict[str, Any] | None:
    """The ``available_params`` list of ``get_diff_sampling_param`` in ``source``, with its line."""
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.FunctionDef) and node.name == "get_diff_sampling_param"):
            continue
        for sub in ast.walk(node):
            if (
                isinstance(sub, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "available_params" for t in sub.targets)
                and isinstance(sub.value, ast.List)
            ):
                keys = [
                    e.value
                    for e in sub.value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                ]
                return {"keys": keys, "where": f"{path}:{sub.lineno}"}
    return None


def _self_field(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _tests_field(tests: list[ast.expr], field: str) -> bool:
    return any(_self_field(n) == field for t in tests for n in ast.walk(t))


def overwrites(source: str, path: str) -> list[dict[str, Any]]:
    """Each ``self.<field> = <literal>`` in the default-setting methods that no enclosing ``if`` guards on
    ``self.<field>``: the engine overwrites the user's value there."""
    out: list[dict[str, Any]] = []

    def walk(body: list[ast.stmt], tests: list[ast.expr], method: str) -> None:
        for stmt in body:
            if isinstance(stmt, ast.If):
                walk(stmt.body, [*tests, stmt.test], method)
                negated = ast.UnaryOp(op=ast.Not(), operand=stmt.test)
                walk(stmt.orelse, [*tests, negated], method)
            elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Constant):
                for target in stmt.targets:
                    field = _self_field(target)
                    if field and not _tests_field(tests, field):
                        out.append(
                            {
                                "field": field,
                                "value": stmt.value.value,
                                "method": method,
                                "when": [ast.unparse(t) for t in tests],
                                "where": f"{path}:{stmt.lineno}",
                            }
                        )
            elif isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
                for part in ("body", "orelse", "finalbody"):
                    walk(list(getattr(stmt, part, []) or []), tests, method)

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name in DEFAULT_METHODS:
            walk(node.body, [], node.name)
    return out


def v1_default(source: str) -> str | None:
    """The default of ``VLLM_USE_V1`` in vllm/envs.py (``os.getenv("VLLM_USE_V1", "1")``): whether the V1
    engine runs when the variable is unset; None when the release has no such variable (V1 only)."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=False):
            if not (isinstance(key, ast.Constant) and key.value == "VLLM_USE_V1"):
                continue
            for sub in ast.walk(value):
                if (
                    isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Attribute)
                    and sub.func.attr == "getenv"
                    and len(sub.args) == 2
                    and isinstance(sub.args[1], ast.Constant)
                ):
                    return str(sub.args[1].value)
    return None


def _template(node: ast.expr, names: dict[str, ast.expr]) -> str | None:
    """A feature name as text, ``{}`` for what an f-string fills in; a local name by its last assignment."""
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            parts.append(value.value if isinstance(value, ast.Constant) else "{}")
        return "".join(str(p) for p in parts)
    return None


def v1_fallbacks(source: str, path: str) -> list[dict[str, Any]]:
    """Each ``_raise_or_fallback(feature_name=...)`` call (0.8.x's V1 oracle): the feature as the message
    prints it, the tests of the ``if``s around the call and the ``self.<field>``s they read: what sends the
    launch back to the V0 engine (or, with VLLM_USE_V1=1, raises)."""
    out: list[dict[str, Any]] = []

    def walk(body: list[ast.stmt], tests: list[ast.expr], function: str, names: dict[str, ast.expr]) -> None:
        names = dict(names)
        for stmt in body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                names[stmt.targets[0].id] = stmt.value
            if isinstance(stmt, ast.If):
                walk(stmt.body, [*tests, stmt.test], function, names)
                walk(stmt.orelse, [*tests, ast.UnaryOp(op=ast.Not(), operand=stmt.test)], function, names)
                continue
            for node in ast.walk(stmt):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "_raise_or_fallback"
                ):
                    continue
                feature = next((k.value for k in node.keywords if k.arg == "feature_name"), None)
                if feature is None and node.args:
                    feature = node.args[0]
                text = _template(feature, names) if feature is not None else None
                if text is None:
                    continue
                fields = sorted({f for t in tests for n in ast.walk(t) if (f := _self_field(n))})
                out.append(
                    {
                        "feature": text,
                        "function": function,
                        "when": [ast.unparse(t) for t in tests],
                        "fields": fields,
                        "where": f"{path}:{node.lineno}",
                    }
                )

    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name != "_raise_or_fallback":
            walk(node.body, [], node.name, {})
    # a call inside a nested function is also seen from the outer one: keep the innermost (its own tests)
    seen: dict[str, dict[str, Any]] = {}
    for entry in out:
        seen[entry["where"]] = entry
    return sorted(seen.values(), key=lambda e: int(e["where"].rsplit(":", 1)[1]))


def read_release(read: Callable[[str], str | None]) -> dict[str, Any]:
    entry: dict[str, Any] = {"overwrites": [], "sampling": None, "v1_default": None, "v1_fallbacks": []}
    envs = read("vllm/envs.py")
    if envs:
        entry["v1_default"] = v1_default(envs)
    for path in CONFIG_FILES:
        text = read(path)
        if text and "get_diff_sampling_param" in text:
            entry["sampling"] = sampling_keys(text, path)
            if entry["sampling"]:
                break
    text = read(ARG_UTILS)
    if text:
        entry["overwrites"] = overwrites(text, ARG_UTILS)
        entry["v1_fallbacks"] = v1_fallbacks(text, ARG_UTILS)
    return entry


def _from_wheel(version: str, wheels: Path | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        found = sorted(wheels.glob(f"vllm-{version}-*.whl")) if wheels else []
        wheel = found[0] if found else environments.download_wheel("vllm", version, Path(tmp))
        with zipfile.ZipFile(wheel) as zf:
            names = set(zf.namelist())

            def read(path: str) -> str | None:
                return zf.read(path).decode("utf-8", "replace") if path in names else None

            return read_release(read)


def _from_sources(version: str, sources: Path) -> dict[str, Any]:
    def read(path: str) -> str | None:
        file = sources / version / path
        return file.read_text(encoding="utf-8", errors="replace") if file.is_file() else None

    return read_release(read)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--wheels", type=Path, default=None)
    ap.add_argument("--sources", type=Path, default=None, help="unpacked releases: DIR/<version>/vllm/...")
    ap.add_argument("--check", action="store_true", help="regenerate and compare with the bundled file")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    for version in sorted(bundled_versions("vllm", include_user=False), key=version_key):
        if args.sources and (args.sources / version).is_dir():
            releases[version] = _from_sources(version, args.sources)
        else:
            releases[version] = _from_wheel(version, args.wheels)
        print(f"vllm {version}: {releases[version]}", file=sys.stderr)
    data = {"format": 1, "generated_by": GENERATOR, "releases": releases}
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
