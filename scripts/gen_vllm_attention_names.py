#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_attention_names.json: the attention backend names each vLLM
release accepts, and what it does with a name it does not have, read from the release's wheel by AST
(layers/attention_names.py uses it):

- ``names``: the members of the release's backend enum, ``_Backend`` (vllm/platforms/interface.py, up to
  0.11.0) or ``AttentionBackendEnum`` (vllm/attention/backends/registry.py 0.11.2-0.13.0,
  vllm/v1/attention/backends/registry.py from 0.14.1), with the class's line (``enum``).
- ``env``: ``VLLM_ATTENTION_BACKEND``, where the release's vllm/envs.py reads it: ``choices`` when the
  variable is an ``env_with_choices`` over the enum's names (0.11.0-0.14.1: the ValueError of its
  ``_get_validated_env``, case-sensitive unless the call says otherwise); else ``raises`` when the selector
  (vllm/attention/selector.py) raises for an unknown name (0.6.6.post1's ``backend_name_to_enum``,
  0.10.2's ``_cached_get_attn_backend``), ``ignored`` when ``backend_name_to_enum`` returns None for one and
  nothing raises (0.7.3-0.9.2: the selector then chooses as if nothing were set). Absent where envs.py does
  not read the variable.
- ``unregistered``: members without a class path (``TORCH_SDPA = ""``, a tag used only for ViT attention;
  ``CUSTOM``): the enum takes the name, but ``AttentionBackendEnum.get_path`` raises a ValueError when the
  platform loads the backend for the model's attention (the message and its line).
- ``flag``: ``--attention-backend`` / ``--attention-config``'s ``backend``: ``AttentionConfig.
  validate_backend_before`` (vllm/config/attention.py) looks the name up upper-cased in the enum, whose
  metaclass ``__getitem__`` raises a ValueError naming the valid options; ``auto`` where the validator
  takes "auto" for automatic selection.

Each message is the f-string of the ``raise`` as a template: ``{name}`` stands for the name looked up,
``{names}`` for the list of names (``join`` says whether the release prints it joined with ", " or as a
Python list), ``{variable}`` for the variable's name. A form this reading does not know gives no entry.

  pip download vllm==0.33.0 --no-deps --only-binary=:all: -d /tmp/vw
  python scripts/gen_vllm_attention_names.py [--check] /tmp/vw/vllm-*.whl

A directory may stand for a wheel: the modules as extracted from it, with a ``WHEEL`` file naming the wheel
they came from. Only the wheels given are read; layers/attention_names.py says nothing about another release.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_attention_names.json"
GENERATOR = "scripts/gen_vllm_attention_names.py"
VARIABLE = "VLLM_ATTENTION_BACKEND"
ENUMS = {
    "vllm/platforms/interface.py": "_Backend",
    "vllm/attention/backends/registry.py": "AttentionBackendEnum",
    "vllm/v1/attention/backends/registry.py": "AttentionBackendEnum",
}
ENVS = "vllm/envs.py"
SELECTOR = "vllm/attention/selector.py"
ATTENTION_CONFIG = "vllm/config/attention.py"
MODULES = frozenset({*ENUMS, ENVS, SELECTOR, ATTENTION_CONFIG})


def _template(node: ast.JoinedStr, name_exprs: set[str], list_exprs: dict[str, bool]) -> tuple[str, bool]:
    """The f-string as a template ({name}, {names}, {variable}) and whether the list is printed joined;
    SystemExit for a placeholder this reading does not know (a new form to look at)."""
    out: list[str] = []
    joined = False
    for part in node.values:
        if isinstance(part, ast.Constant):
            out.append(str(part.value).replace("{", "{{").replace("}", "}}"))
            continue
        assert isinstance(part, ast.FormattedValue)
        expr = ast.unparse(part.value)
        if expr in name_exprs:
            out.append("{name}")
        elif expr == "env_name":
            out.append("{variable}")
        elif expr in list_exprs:
            out.append("{names}")
            joined = list_exprs[expr]
        else:
            raise SystemExit(f"unknown placeholder {expr!r} in {ast.unparse(node)}")
    return "".join(out), joined


def _enum(texts: dict[str, str]) -> tuple[list[str], str, list[str]] | None:
    """(the enum's member names, the class's line, the members with no class path: "" or None)."""
    for path, cls_name in ENUMS.items():
        if path not in texts:
            continue
        for node in ast.walk(ast.parse(texts[path])):
            if isinstance(node, ast.ClassDef) and node.name == cls_name:
                members = [
                    (t.id, stmt.value)
                    for stmt in node.body
                    if isinstance(stmt, ast.Assign)
                    for t in stmt.targets
                    if isinstance(t, ast.Name) and not t.id.startswith("_")
                ]
                empty = [
                    name
                    for name, value in members
                    if isinstance(value, ast.Constant) and value.value in ("", None)
                ]
                return [name for name, _ in members], f"{path}:{node.lineno}", empty
    return None


def _unregistered(texts: dict[str, str], enum_path: str, empty: list[str]) -> dict[str, Any] | None:
    """``AttentionBackendEnum.get_path``'s refusal of a member without a class path (TORCH_SDPA, a tag
    for ViT attention only; CUSTOM): what selecting it for the model's attention meets at model load."""
    if not empty:
        return None
    path = enum_path.split(":")[0]
    tree = ast.parse(texts[path])
    enum_class = next(
        n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "AttentionBackendEnum"
    )
    get_path = next(n for n in enum_class.body if isinstance(n, ast.FunctionDef) and n.name == "get_path")
    (site,) = _raises(get_path)
    message = _message(site)
    assert message is not None
    text, _ = _template(message, {"self.name"}, {})
    return {"names": empty, "where": f"{path}:{site.lineno}", "message": text}


def _raises(func: ast.AST) -> list[ast.Raise]:
    return [n for n in ast.walk(func) if isinstance(n, ast.Raise) and isinstance(n.exc, ast.Call)]


def _message(raise_node: ast.Raise) -> ast.JoinedStr | None:
    assert isinstance(raise_node.exc, ast.Call)
    args = raise_node.exc.args
    return args[0] if args and isinstance(args[0], ast.JoinedStr) else None


def _env(texts: dict[str, str]) -> dict[str, Any] | None:
    """How the release reads VLLM_ATTENTION_BACKEND, None where envs.py does not read it."""
    tree = ast.parse(texts[ENVS])
    value: ast.AST | None = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, val in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == VARIABLE:
                    value = val
    if value is None:
        return None
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "env_with_choices":
        sensitive = True
        for kw in value.keywords:
            if kw.arg == "case_sensitive" and isinstance(kw.value, ast.Constant):
                sensitive = bool(kw.value.value)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "env_with_choices":
                inner = next(n for n in node.body if isinstance(n, ast.FunctionDef))
                (site,) = _raises(inner)
                message = _message(site)
                assert message is not None
                text, joined = _template(message, {"value", "val"}, {"actual_choices": False})
                return {
                    "form": "choices",
                    "where": f"{ENVS}:{site.lineno}",
                    "message": text,
                    "join": joined,
                    "case_sensitive": sensitive,
                }
        raise SystemExit("env_with_choices without its definition")
    # read as a plain string: what the selector does with a name the enum lacks
    selector = ast.parse(texts[SELECTOR])
    to_enum = next(
        (
            n
            for n in ast.walk(selector)
            if isinstance(n, ast.FunctionDef) and n.name == "backend_name_to_enum"
        ),
        None,
    )
    if to_enum is None:
        raise SystemExit(f"{SELECTOR}: no backend_name_to_enum")
    sites = _raises(to_enum)
    if sites:
        message = _message(sites[0])
        assert message is not None
        lists = {"', '.join(backend_members)": True}
        text, joined = _template(message, {"backend_name"}, lists)
        return {"form": "raises", "where": f"{SELECTOR}:{sites[0].lineno}", "message": text, "join": joined}
    for node in ast.walk(selector):  # 0.10.2: the caller raises when the lookup gives None
        if isinstance(node, ast.FunctionDef) and node.name.endswith("get_attn_backend"):
            for site in _raises(node):
                message = _message(site)
                if message is not None and "backend_by_env_var" in ast.unparse(message):
                    lists = {"list(_Backend.__members__.keys())": False}
                    text, joined = _template(message, {"backend_by_env_var"}, lists)
                    return {
                        "form": "raises",
                        "where": f"{SELECTOR}:{site.lineno}",
                        "message": text,
                        "join": joined,
                    }
    returns = [n for n in ast.walk(to_enum) if isinstance(n, ast.Return)]
    if len(returns) == 1 and isinstance(returns[0].value, ast.IfExp):
        orelse = returns[0].value.orelse
        if isinstance(orelse, ast.Constant) and orelse.value is None:
            return {"form": "ignored", "where": f"{SELECTOR}:{returns[0].lineno}"}
    raise SystemExit(f"{SELECTOR}: a form of backend_name_to_enum this reading does not know")


def _flag(texts: dict[str, str], enum_path: str) -> dict[str, Any] | None:
    """The refusal of --attention-backend's / --attention-config's backend name; None before the flags."""
    if ATTENTION_CONFIG not in texts:
        return None
    validator = next(
        (
            n
            for n in ast.walk(ast.parse(texts[ATTENTION_CONFIG]))
            if isinstance(n, ast.FunctionDef) and n.name == "validate_backend_before"
        ),
        None,
    )
    if validator is None:
        return None
    source = ast.unparse(validator)
    if "AttentionBackendEnum[value.upper()]" not in source:
        raise SystemExit(f"{ATTENTION_CONFIG}: a form of validate_backend_before this reading does not know")
    path = enum_path.split(":")[0]
    meta = next(
        n
        for n in ast.walk(ast.parse(texts[path]))
        if isinstance(n, ast.ClassDef) and n.name == "_AttentionBackendEnumMeta"
    )
    (site,) = _raises(meta)
    message = _message(site)
    assert message is not None
    text, joined = _template(message, {"name"}, {"valid_backends": True})
    return {
        "where": f"{path}:{site.lineno}",
        "validator": f"{ATTENTION_CONFIG}:{validator.lineno}",
        "message": text,
        "join": joined,
        "upper": True,
        "auto": "'auto'" in source,
    }


def facts(texts: dict[str, str]) -> dict[str, Any]:
    found = _enum(texts)
    if found is None:
        raise SystemExit("no attention backend enum in the modules read")
    names, where, empty = found
    out: dict[str, Any] = {"names": names, "enum": where}
    unregistered = _unregistered(texts, where, empty)
    if unregistered is not None:
        out["unregistered"] = unregistered
    env = _env(texts)
    if env is not None:
        out["env"] = env
    flag = _flag(texts, where)
    if flag is not None:
        out["flag"] = flag
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels (or trees extracted from them)")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), MODULES.__contains__, "vllm")
        releases[release] = facts(texts)
        wheels[release] = wheel
    data = {
        "generated_by": GENERATOR,
        "source": "vllm wheels: the attention backend enum (vllm/platforms/interface.py _Backend, "
        "vllm/[v1/]attention/backends/registry.py AttentionBackendEnum), vllm/envs.py, "
        "vllm/attention/selector.py, vllm/config/attention.py",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
