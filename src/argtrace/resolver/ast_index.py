"""Facts read from an installed framework's source by AST (stdlib only; run by ``scripts/gen_schemas.py``
over a resolver environment's site-packages). Nothing here imports the framework.

- :func:`sglang_env_vars` / :func:`vllm_env_vars`: the environment variables a version reads, from its own
  registry (SGLang ``srt/environ.py`` ``Envs``; vLLM ``envs.py``) plus ``get_bool_env_var("X")``-style
  reads across the package.
- :func:`env_prefix_aliases`: a prefix a release renames at import (SGLang's ``SGL_`` -> ``SGLANG_``);
  :func:`env_renames`: its one-to-one renames, each argument placed by the function's parameter names.
- :func:`json_loaded_fields`: configuration fields whose string value the framework parses with
  ``json.loads(self.<field>)``.
- :func:`raise_sites`: every ``raise X(...)`` / ``assert cond, msg`` of the argument-resolution modules with
  its message template (f-string placeholders as ``{expr}``), a regex, the enclosing conditions, and the
  fields they read. This index is bundled (for ``argtrace why``); the source is not.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from argtrace.resolver import local_defs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ENV_READ_FUNCS = {
    "getenv",
    "get_bool_env_var",
    "get_int_env_var",
    "get_float_env_var",
    "get_str_env_var",
    "env_bool",
    "get_env_bool",
    "get_env_int",
    "_get_bool_env",
    "environ_get",
    "maybe_convert_int",
}
ENV_NAME = re.compile(r"^[A-Z][A-Z0-9_]{2,}$")
FIELD_ROOTS = {"self", "args", "server_args", "engine_args", "raw_args"}


def rel(path: Path, site: Path) -> str:
    try:
        return path.relative_to(site).as_posix()
    except ValueError:
        return path.as_posix()


def parse_file(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return None


def python_files(root: Path) -> Iterator[Path]:
    for path in sorted(root.rglob("*.py")):
        if "/tests/" in path.as_posix() or "/test/" in path.as_posix():
            continue
        yield path


def literal(node: ast.AST | None) -> Any:
    """A JSON-able literal value, or ``{"expr": source}`` when the default is computed."""
    if node is None:
        return None
    try:
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return {"expr": ast.unparse(node)}
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    if isinstance(value, (bytes, complex)):
        return {"expr": ast.unparse(node)}
    return value


# ------------------------------------------------------------------------------------------- env vars


def env_reads(pkg_dir: Path, site: Path) -> dict[str, dict[str, Any]]:
    """Every literal environment-variable name read anywhere in a package: ``os.getenv("X")``,
    ``os.environ.get("X")``, ``os.environ["X"]``, ``"X" in os.environ``, ``get_bool_env_var("X")``..."""
    found: dict[str, dict[str, Any]] = {}
    needles = ("environ", *ENV_READ_FUNCS)
    for path in python_files(pkg_dir):
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if not any(n in text for n in needles):  # no read can be in a file that names none of them
            continue
        for name, lineno, how, default in _env_events(text, str(path)):
            if not ENV_NAME.match(name):
                continue
            entry = found.get(name)
            if entry is None:
                found[name] = {"where": f"{rel(path, site)}:{lineno}", "reads": 1, "how": how}
                if default is not None:
                    found[name]["default"] = default
            else:
                entry["reads"] += 1
    return found


def _env_events(text: str, filename: str) -> list[tuple[str, int, str, Any]]:
    """One file's literal environment reads as (name, line, how, default), in ``ast.walk`` order."""
    key = _digest(text)
    cached = _ENV_EVENTS.get(key)
    if cached is not None:
        return cached
    events: list[tuple[str, int, str, Any]] = []
    _ENV_EVENTS[key] = events
    try:
        tree = ast.parse(text, filename=filename)
    except (SyntaxError, ValueError):
        return events
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            is_environ_get = (
                isinstance(func, ast.Attribute)
                and func.attr in ("get", "pop", "setdefault")
                and isinstance(func.value, ast.Attribute)
                and func.value.attr == "environ"
            )
            if fname in ENV_READ_FUNCS or is_environ_get:
                default = literal(node.args[1]) if len(node.args) > 1 else None
                events.append((node.args[0].value, node.lineno, ast.unparse(func), default))
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "environ"
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
            and isinstance(node.ctx, ast.Load)
        ):
            events.append((node.slice.value, node.lineno, "os.environ[...]", None))
        elif (
            isinstance(node, ast.Compare)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and any(isinstance(o, (ast.In, ast.NotIn)) for o in node.ops)
            and any(isinstance(c, ast.Attribute) and c.attr == "environ" for c in node.comparators)
        ):
            events.append((node.left.value, node.lineno, "in os.environ", None))
    return events


ENV_CLASS_TYPES = {
    "EnvBool": "bool",
    "EnvInt": "int",
    "EnvFloat": "float",
    "EnvStr": "str",
    "EnvTuple": "tuple",
}


def sglang_env_vars(site: Path) -> list[dict[str, Any]]:
    """SGLang: the ``Envs`` registry of ``srt/environ.py`` plus literal reads across the package."""
    environ = site / "sglang" / "srt" / "environ.py"
    out: dict[str, dict[str, Any]] = {}
    tree = parse_file(environ)
    deprecated: dict[str, str] = {}
    if tree is not None:
        # ``_print_deprecated_env(new_name, old_name)`` up to 0.5.10, ``(old_name, new_name=None)`` from
        # 0.5.11: the parameters' names say which argument is the old name (as gen_env_prefix_aliases reads)
        params = [
            [a.arg for a in d.args.args]
            for d in ast.walk(tree)
            if isinstance(d, ast.FunctionDef) and d.name == "_print_deprecated_env"
        ]
        old_at = 0 if params and params[0][:1] == ["old_name"] else 1
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == "Envs":
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], ast.Name)
                        and isinstance(stmt.value, ast.Call)
                    ):
                        func = stmt.value.func
                        cls = func.id if isinstance(func, ast.Name) else ast.unparse(func)
                        name = stmt.targets[0].id
                        default = literal(stmt.value.args[0]) if stmt.value.args else None
                        out[name] = {
                            "name": name,
                            "default": default,
                            "type": ENV_CLASS_TYPES.get(cls, cls),
                            "where": f"{rel(environ, site)}:{stmt.lineno}",
                            "source": "Envs",
                        }
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "_print_deprecated_env"
                and len(node.args) >= 2
                and all(isinstance(a, ast.Constant) for a in node.args[:2])
            ):
                old = node.args[old_at].value  # type: ignore[attr-defined]
                new = node.args[1 - old_at].value  # type: ignore[attr-defined]
                deprecated[str(old)] = str(new)
    for old, new in deprecated.items():
        entry = out.setdefault(
            old,
            {
                "name": old,
                "default": None,
                "type": "str",
                "where": f"{rel(environ, site)}",
                "source": "deprecated",
            },
        )
        entry["deprecated"] = True
        entry["replacement"] = new
    _merge_reads(out, env_reads(site / "sglang", site))
    return sorted(out.values(), key=lambda e: e["name"])


def _constant_strings(node: ast.AST) -> list[str]:
    args = getattr(node, "args", ())
    return [a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)]


def env_prefix_aliases(pkg_dir: Path, site: Path) -> list[dict[str, Any]]:
    """Prefixes a release renames at import, copying every variable of the old prefix to the new one:
    SGLang's ``_convert_SGL_to_SGLANG`` (``sglang/srt/environ.py``, 0.5.6.post2: ``for key, value in
    os.environ.items(): if key.startswith("SGL_"): new_key = key.replace("SGL_", "SGLANG_", 1); ...
    os.environ[new_key] = value``), so ``SGL_X`` is read as ``SGLANG_X``. A loop over ``os.environ`` that
    tests ``startswith(OLD)``, computes ``.replace(OLD, NEW, ...)`` and assigns an ``os.environ[...]``
    item. ``too_late``: the old names of the one-to-one renames that run before the loop."""
    out: list[dict[str, Any]] = []
    for path in python_files(pkg_dir):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "os.environ" not in text or "startswith(" not in text:
            continue  # cheap filter: the pattern needs both
        tree = parse_file(path)
        if tree is None:
            continue
        # ``_print_deprecated_env(new_name, old_name)`` up to 0.5.1x, ``(old_name, new_name=None)`` later:
        # the parameters' names say which argument is the old name
        params = [
            [a.arg for a in d.args.args]
            for d in ast.walk(tree)
            if isinstance(d, ast.FunctionDef) and d.name == "_print_deprecated_env"
        ]
        old_first = 0 if params and params[0][:1] == ["old_name"] else 1
        for loop in ast.walk(tree):
            if not isinstance(loop, ast.For) or "os.environ" not in ast.unparse(loop.iter):
                continue
            tested: set[str] = set()
            renamed: list[tuple[str, str]] = []
            copies = False
            for node in ast.walk(loop):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                    consts = _constant_strings(node)
                    if node.func.attr == "startswith" and consts:
                        tested.add(consts[0])
                    elif node.func.attr == "replace" and len(consts) >= 2:
                        renamed.append((consts[0], consts[1]))
                if isinstance(node, ast.Assign):
                    copies = copies or any(
                        isinstance(t, ast.Subscript) and ast.unparse(t.value) == "os.environ"
                        for t in node.targets
                    )
            # the one-to-one renames that ran before the copy (``_print_deprecated_env(new, old)`` above the
            # loop): a name copied onto such an old name comes too late to be converted (sglang PR#38219:
            # SGL_DISABLE_X becomes SGLANG_DISABLE_X after SGLANG_DISABLE_X -> SGLANG_ENABLE_X ran)
            before = sorted(
                {
                    _constant_strings(c)[old_first]
                    for c in ast.walk(tree)
                    if isinstance(c, ast.Call)
                    and isinstance(c.func, ast.Name)
                    and c.func.id == "_print_deprecated_env"
                    and len(_constant_strings(c)) >= 2
                    and c.lineno < loop.lineno
                }
            )
            for old, new in renamed:
                if copies and old in tested and old != new:
                    where = f"{rel(path, site)}:{loop.lineno}"
                    out.append({"old": old, "new": new, "where": where, "too_late": before})
    return out


def env_renames(environ: Path) -> dict[str, str] | None:
    """SGLang's one-to-one renames of variables, ``{old: new}``, from ``_print_deprecated_env`` calls in
    ``environ`` (``sglang/srt/environ.py``), each argument placed by the function's own parameter names:
    ``(new_name, old_name)`` up to 0.5.10.post1, ``(old_name, new_name=None)`` from 0.5.11 (a call with the
    old name alone renames nothing). ``sglang_env_vars`` reads the arguments in the first order only. None
    when the file has no such function (another mechanism, or none: 0.5.2 and earlier, 0.5.18 and later)."""
    tree = parse_file(environ)
    if tree is None:
        return None
    params = [
        [a.arg for a in d.args.args]
        for d in ast.walk(tree)
        if isinstance(d, ast.FunctionDef) and d.name == "_print_deprecated_env"
    ]
    if not params or set(params[0][:2]) != {"old_name", "new_name"}:
        return None
    old_at = params[0].index("old_name")
    out: dict[str, str] = {}
    for c in ast.walk(tree):
        if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "_print_deprecated_env":
            args = _constant_strings(c)
            if len(args) >= 2:
                out[args[old_at]] = args[1 - old_at]
    return dict(sorted(out.items()))


def vllm_env_vars(site: Path) -> list[dict[str, Any]]:
    """vLLM: ``envs.py`` (its ``TYPE_CHECKING`` annotations for type/default and the
    ``environment_variables`` table for where each is read) plus literal reads across the package."""
    envs = site / "vllm" / "envs.py"
    out: dict[str, dict[str, Any]] = {}
    tree = parse_file(envs)
    if tree is not None:
        for node in tree.body:
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
                for stmt in node.body:
                    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                        name = stmt.target.id
                        out[name] = {
                            "name": name,
                            "default": literal(stmt.value),
                            "type": ast.unparse(stmt.annotation),
                            "where": f"{rel(envs, site)}:{stmt.lineno}",
                            "source": "envs.py",
                        }
        for walked in ast.walk(tree):
            node = walked  # type: ignore[assignment]
            target = None
            if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                target = node.target.id
            elif (
                isinstance(node, ast.Assign)
                and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
            ):
                target = node.targets[0].id
            value = getattr(node, "value", None)
            if target == "environment_variables" and isinstance(value, ast.Dict):
                for key in value.keys:
                    if isinstance(key, ast.Constant) and isinstance(key.value, str):
                        entry = out.setdefault(
                            key.value,
                            {"name": key.value, "default": None, "type": "str", "source": "envs.py"},
                        )
                        entry["where"] = f"{rel(envs, site)}:{key.lineno}"
                        entry["registered"] = True
    _merge_reads(out, env_reads(site / "vllm", site))
    return sorted(out.values(), key=lambda e: e["name"])


def _merge_reads(out: dict[str, dict[str, Any]], reads: dict[str, dict[str, Any]]) -> None:
    for name, info in reads.items():
        if name in out:
            out[name].setdefault("read_at", info["where"])
            continue
        out[name] = {
            "name": name,
            "default": info.get("default"),
            "type": "bool"
            if "bool" in info["how"]
            else "int"
            if "int" in info["how"]
            else "float"
            if "float" in info["how"]
            else "str",
            "where": info["where"],
            "source": "read",
        }


# ------------------------------------------------------------------------------------------ json fields


def _is_field_root(node: ast.AST) -> bool:
    """``ast.unparse(node) in FIELD_ROOTS or ast.unparse(node).endswith("args")``, without unparsing: only
    a name or an attribute chain's text can end in ``args`` (a call, subscript or string ends in ``)``,
    ``]`` or a quote)."""
    if isinstance(node, ast.Name):
        return node.id in FIELD_ROOTS or node.id.endswith("args")
    return isinstance(node, ast.Attribute) and node.attr.endswith("args")


# Per-file scan results by content digest: consecutive releases share most files, and the generator scans
# dozens of releases in one process (scripts/gen_schemas.py --overlay).
_JSON_EVENTS: dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]] = {}
_ENV_EVENTS: dict[str, list[tuple[str, int, str, Any]]] = {}


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8", "replace")).hexdigest()


def _json_events(text: str, filename: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """One file's ``json.loads(...)`` arguments, as (``attribute``|``name``, name) in source order, and
    its keyword passes of a field (``k=server_args.f`` -> (k, f))."""
    key = _digest(text)
    cached = _JSON_EVENTS.get(key)
    if cached is not None:
        return cached
    loads: list[tuple[str, str]] = []
    keywords: list[tuple[str, str]] = []
    try:
        tree = ast.parse(text, filename=filename)
    except (SyntaxError, ValueError):
        _JSON_EVENTS[key] = (loads, keywords)
        return loads, keywords
    has_loads = "loads" in text  # a json.loads call needs the word; skip the checks elsewhere
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg and isinstance(kw.value, ast.Attribute) and _is_field_root(kw.value.value):
                keywords.append((kw.arg, kw.value.attr))
        func = node.func
        if not (  # json.loads / orjson.loads, without unparsing every call (it dominated the run time)
            has_loads
            and node.args
            and isinstance(func, ast.Attribute)
            and func.attr == "loads"
            and isinstance(func.value, ast.Name)
            and func.value.id in ("json", "orjson")
        ):
            continue
        arg = node.args[0]
        if isinstance(arg, ast.Attribute):
            chain = ast.unparse(arg.value)
            if chain in FIELD_ROOTS or chain.endswith("args") or chain.startswith("self."):
                loads.append(("attribute", arg.attr))
        elif isinstance(arg, ast.Name) and arg.id != "config":
            loads.append(("name", arg.id))
    _JSON_EVENTS[key] = (loads, keywords)
    return loads, keywords


def json_loaded_fields(paths: Iterable[Path]) -> dict[str, str]:
    """Fields parsed with ``json.loads(self.<field>)``, ``json.loads(server_args.<field>)``,
    ``json.loads(self.server_args.<field>)`` and the like, plus names passed bare (``json.loads(x)``):
    the caller intersects them with the parser's dests. Maps name -> how it was seen (``attribute``,
    ``name``, ``keyword``); the last two are weaker evidence."""
    out: dict[str, str] = {}
    passed: dict[str, set[str]] = {}  # keyword name -> fields passed as it: f(k=server_args.field)
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        loads, keywords = _json_events(text, str(path))
        for kw_arg, attr in keywords:
            passed.setdefault(kw_arg, set()).add(attr)
        for kind, name in loads:
            if kind == "attribute":
                out[name] = "attribute"
            else:
                out.setdefault(name, "name")  # a parameter named like the field
    for name in list(out):  # one hop: f(model_override_args=server_args.json_model_override_args)
        for field in passed.get(name, set()):
            out.setdefault(field, "keyword")
    return out


# ----------------------------------------------------------------------------------------- raise sites


def message_parts(node: ast.AST | None) -> list[tuple[str, str]]:
    """The message expression as [("lit", text) | ("expr", source)] parts."""
    if node is None:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [("lit", node.value)]
    if isinstance(node, ast.JoinedStr):
        parts: list[tuple[str, str]] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(("lit", str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                parts.append(("expr", ast.unparse(value.value)))
        return parts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return message_parts(node.left) + message_parts(node.right)
    if (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Mod)
        and isinstance(node.left, ast.Constant)
        and isinstance(node.left.value, str)
    ):
        args = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
        pieces = re.split(r"(%[-#0 +]*\d*(?:\.\d+)?[sdrfig])", node.left.value)
        out: list[tuple[str, str]] = []
        i = 0
        for piece in pieces:
            if re.fullmatch(r"%[-#0 +]*\d*(?:\.\d+)?[sdrfig]", piece):
                out.append(("expr", ast.unparse(args[i]) if i < len(args) else "?"))
                i += 1
            elif piece:
                out.append(("lit", piece))
        return out
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        out = []
        for piece in re.split(r"(\{[^{}]*\})", node.func.value.value):
            if piece.startswith("{") and piece.endswith("}"):
                out.append(("expr", piece[1:-1] or "?"))
            elif piece:
                out.append(("lit", piece))
        return out
    return [("expr", ast.unparse(node))]


def _merge(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for kind, text in parts:
        if out and kind == "lit" and out[-1][0] == "lit":
            out[-1] = ("lit", out[-1][1] + text)
        else:
            out.append((kind, text))
    return out


def template_of(parts: list[tuple[str, str]]) -> str:
    return "".join(text if kind == "lit" else "{" + text + "}" for kind, text in parts)


def regex_of(parts: list[tuple[str, str]]) -> str:
    pieces = []
    for kind, text in parts:
        if kind == "lit":
            pieces.append(re.escape(text))
        elif not pieces or pieces[-1] != "(.*?)":
            pieces.append("(.*?)")
    return "".join(pieces)


def fields_read(nodes: Iterable[ast.AST | None]) -> list[str]:
    """``self.<f>`` / ``args.<f>`` / ``server_args.<f>`` names read, with one level of nesting kept
    (``model_config.max_model_len``)."""
    out: set[str] = set()
    for root in nodes:
        if root is None:
            continue
        called = {id(n.func) for n in ast.walk(root) if isinstance(n, ast.Call)}
        for node in ast.walk(root):
            if id(node) in called:
                continue
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in FIELD_ROOTS
            ):
                out.add(node.attr)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name)
                and node.value.value.id in FIELD_ROOTS
            ):
                out.discard(node.value.attr)
                out.add(f"{node.value.attr}.{node.attr}")
    # a nested read also counts as a read of its parent only when the parent is read on its own elsewhere
    return sorted(out)


def _is_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return _is_text(node.left)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _is_text(node.func.value)
    )


class BranchVisitor(ast.NodeVisitor):
    """A walk that knows the ``if`` branches it stands in (``conds``: (test, negated), outermost first) and
    enters each class and function through :meth:`_scoped` (here and in ``message_index.py``)."""

    conds: list[tuple[Any, bool]]

    def _scoped(self, node: ast.AST, name: str, is_class: bool) -> None:
        raise NotImplementedError

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, node.name, True)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scoped(node, node.name, False)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._scoped(node, node.name, False)

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        self.conds.append((node.test, False))
        for stmt in node.body:
            self.visit(stmt)
        self.conds[-1] = (node.test, True)
        for stmt in node.orelse:
            self.visit(stmt)
        self.conds.pop()


class _RaiseVisitor(BranchVisitor):
    def __init__(self, path: Path, site: Path) -> None:
        self.file = rel(path, site)
        self.scope: list[str] = []
        self.classes: list[str] = []
        self.conds: list[tuple[ast.expr, bool]] = []  # (test, negated)
        self.sites: list[dict[str, Any]] = []
        # local names assigned a message in this function (``msg = f"..."; raise ValueError(msg)``)
        self.assigns: dict[str, ast.expr] = {}
        # the function's locals a test may be substituted with (resolver/local_defs.py): the names bound
        # once, and those whose one assignment dominates the statement visited, with their values
        self.bound = local_defs.Bindings()
        self.defs: dict[str, ast.AST] = {}

    def visit_Assign(self, node: ast.Assign) -> None:
        value = node.value
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and _is_text(value):
            self.assigns[node.targets[0].id] = value
        self.generic_visit(node)
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id in self.bound.single:
            followed = local_defs.substituted(value, self.defs)[0]
            if self.bound.follows(target.id, followed):
                self.defs[target.id] = followed

    def _block(self, stmts: Sequence[ast.AST]) -> None:
        """A block whose assignments do not dominate what follows it (a branch, a loop, a handler)."""
        saved = dict(self.defs)
        for stmt in stmts:
            self.visit(stmt)
        self.defs = saved

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        self.conds.append((node.test, False))
        self._block(node.body)
        self.conds[-1] = (node.test, True)
        self._block(node.orelse)
        self.conds.pop()

    def _loop(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        # nothing assigned in a loop is followed: the name was added to no dominating block
        saved, self.bound = self.bound, local_defs.Bindings(rebound=self.bound.rebound)
        for field in ("target", "iter", "test"):
            if getattr(node, field, None) is not None:
                self.visit(getattr(node, field))
        self._block(node.body)
        self._block(node.orelse)
        self.bound = saved

    visit_For = visit_AsyncFor = visit_While = _loop

    def _try(self, node: ast.AST) -> None:
        """``try`` and Python 3.11's ``try``/``except*`` (the same fields): later statements of the body see
        its assignments; a handler, the ``else`` and the ``finally`` part do not (the body may stop early)."""
        self._block(getattr(node, "body", ()))
        for handler in getattr(node, "handlers", ()):
            self._block([handler])
        self._block(getattr(node, "orelse", ()))
        self._block(getattr(node, "finalbody", ()))

    visit_Try = visit_TryStar = _try

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.visit(item)
        self._block(node.body)

    visit_AsyncWith = visit_With

    def visit_Match(self, node: ast.Match) -> None:
        self.visit(node.subject)
        for case in node.cases:
            self._block([case])

    def _inlined_nodes(self, msg: ast.AST | None) -> list[ast.AST]:
        return [
            self.assigns[text] for kind, text in message_parts(msg) if kind == "expr" and text in self.assigns
        ]

    def _inline(self, parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """Replace ``{msg}`` by the text a local ``msg = ...`` built (one level)."""
        out: list[tuple[str, str]] = []
        for kind, text in parts:
            if kind == "expr" and text in self.assigns:
                out.extend(message_parts(self.assigns[text]))
            else:
                out.append((kind, text))
        return out

    def _scoped(self, node: ast.AST, name: str, is_class: bool) -> None:
        self.scope.append(name)
        if is_class:
            self.classes.append(name)
        saved, saved_assigns = self.conds, self.assigns
        saved_locals = (self.bound, self.defs)
        self.conds = []
        self.assigns = {}
        self.bound = local_defs.Bindings() if is_class else local_defs.bindings(node)
        self.defs = {}
        self.generic_visit(node)
        self.conds, self.assigns = saved, saved_assigns
        self.bound, self.defs = saved_locals
        self.scope.pop()
        if is_class:
            self.classes.pop()

    def _conditions(self) -> list[str]:
        return [f"not ({ast.unparse(t)})" if neg else ast.unparse(t) for t, neg in self.conds]

    def _record(
        self,
        node: ast.stmt,
        exc: str,
        msg: ast.AST | None,
        extra: dict[str, Any],
        cond_nodes: list[ast.AST | None],
    ) -> None:
        parts = _merge(self._inline(message_parts(msg)))
        conditions = self._conditions() + ([extra["condition"]] if "condition" in extra else [])
        tests: list[ast.AST] = [*(t for t, _ in self.conds), *(n for n in cond_nodes if n is not None)]
        # the tests with their locals substituted (local_defs.py); the condition of an assert is its
        # negated test, as in ``conditions``
        resolved = [local_defs.substituted(t, self.defs) for t in tests] if self.defs else []
        used = [name for _, names in resolved for name in names]
        site = {
            "file": self.file,
            "line": node.lineno,
            "function": ".".join(self.scope) or "<module>",
            "class": self.classes[-1] if self.classes else None,
            "exception": exc,
            "message": template_of(parts) if parts else None,
            "regex": regex_of(parts) if parts else None,
            # every enclosing condition, outermost first (``not (...)`` for an else branch, and for an
            # assert its negated test): the innermost one is the raise's own ``if``
            "conditions": conditions,
            "fields": fields_read(
                [
                    *(t for t, _ in self.conds),
                    *cond_nodes,
                    msg,
                    *self._inlined_nodes(msg),
                    *(node for node, _ in resolved if used),
                ]
            ),
        }
        if used:
            texts = [ast.unparse(node) for node, _ in resolved]
            negated = [neg for _, neg in self.conds] + [True] * (len(texts) - len(self.conds))
            # ``conditions`` as the source says them; ``resolved`` what they test, locals substituted
            site["resolved"] = [f"not ({t})" if neg else t for t, neg in zip(texts, negated, strict=True)]
            site["locals"] = sorted(set(used))
        site.update({k: v for k, v in extra.items() if k != "condition"})
        self.sites.append(site)

    def visit_Raise(self, node: ast.Raise) -> None:
        if node.exc is None:
            return
        exc = node.exc
        msg: ast.AST | None = None
        if isinstance(exc, ast.Call):
            name = ast.unparse(exc.func)
            msg = exc.args[0] if exc.args else None
        else:
            name = ast.unparse(exc)
        if name in ("e", "exc", "err", "error"):
            return  # re-raise of a caught exception
        self._record(node, name, msg, {}, [])
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        self._record(
            node,
            "AssertionError",
            node.msg,
            {"condition": f"not ({ast.unparse(node.test)})", "assert": ast.unparse(node.test)},
            [node.test],
        )
        self.generic_visit(node)


def raise_sites(paths: Iterable[Path], site: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for path in paths:
        tree = parse_file(path)
        if tree is None:
            continue
        visitor = _RaiseVisitor(path, site)
        visitor.visit(tree)
        out.extend(visitor.sites)
    return out


def resolution_modules(framework: str, site: Path) -> list[Path]:
    """The argument-resolution modules whose raise sites are indexed."""
    if framework == "sglang":
        srt = site / "sglang" / "srt"
        paths = [srt / "server_args.py"]
        paths += sorted((srt / "arg_groups").rglob("*.py")) if (srt / "arg_groups").is_dir() else []
        return [p for p in paths if p.exists()]
    vllm = site / "vllm"
    paths = [vllm / "engine" / "arg_utils.py"]
    paths += sorted((vllm / "config").rglob("*.py")) if (vllm / "config").is_dir() else []
    paths.append(vllm / "config.py")  # vLLM <= 0.9: one module, not the package
    return [p for p in paths if p.exists()]
