"""This module owns what a Python expression is worth before the program runs: a literal, a variable
assigned literals, or unknown with what it rests on (``ast`` only; nothing is imported or evaluated).

A name is followed when the file gives it literal values and changes it only by ``+=``/``.append``/
``.extend``/``.insert`` of literals (a list built up for ``subprocess``): its value at a call is what the
statements before the call's line made of it. A name assigned anything else (a function's result, a loop
variable, a parameter) is unknown at every use, like ``$(...)`` in a script.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Unknown:
    """A value known only when the program runs: the expression as written and why."""

    text: str
    why: str
    line: int
    # a starred list (``*args``) or a name that stands for a list: any number of words
    many: bool = False


_ENVIRON = ("os.environ", "environ")


class Values:
    """The literal values the module gives its names, read once from the whole tree."""

    def __init__(self, tree: ast.AST) -> None:
        # name -> [(line, kind, node)], in source order; kind: "set", "add" (+=, extend), "append", "other"
        self._writes: dict[str, list[tuple[int, str, ast.AST | None]]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._target(target, node.value, node.lineno)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._target(node.target, node.value, node.lineno)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                kind = "add" if isinstance(node.op, ast.Add) else "other"
                self._write(node.target.id, node.lineno, kind, node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                for name in ast.walk(node.target):
                    if isinstance(name, ast.Name):
                        self._write(name.id, getattr(node, "lineno", 0), "other", None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                    self._write(arg.arg, 0, "other", None)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        self._target(item.optional_vars, None, node.lineno)
            elif isinstance(node, ast.NamedExpr):
                self._write(node.target.id, node.lineno, "set", node.value)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                owner, method = node.func.value, node.func.attr
                if not isinstance(owner, ast.Name) or method not in (
                    "append",
                    "extend",
                    "insert",
                    "pop",
                    "remove",
                    "clear",
                    "update",
                ):
                    continue
                target_name = owner.id
                if method == "append" and len(node.args) == 1:
                    self._write(target_name, node.lineno, "append", node.args[0])
                elif method == "extend" and len(node.args) == 1:
                    self._write(target_name, node.lineno, "add", node.args[0])
                elif method == "update" and len(node.args) == 1 and not node.keywords:
                    self._write(target_name, node.lineno, "update", node.args[0])
                else:
                    self._write(target_name, node.lineno, "other", None)
        for writes in self._writes.values():
            writes.sort(key=lambda w: w[0])

    def _target(self, target: ast.AST, value: ast.AST | None, line: int) -> None:
        if isinstance(target, ast.Name):
            self._write(target.id, line, "set", value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self._write(name.id, line, "other", None)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            key = target.slice
            pair = ast.Tuple(elts=[key, value], ctx=ast.Load()) if isinstance(value, ast.expr) else None
            self._write(target.value.id, line, "item", pair)

    def _write(self, name: str, line: int, kind: str, value: ast.AST | None) -> None:
        self._writes.setdefault(name, []).append((line, kind, value))

    def name(self, name: str, line: int, depth: int = 0) -> Any:
        """The value of ``name`` at ``line``: a literal, or :class:`Unknown`."""
        writes = self._writes.get(name)
        if not writes:
            return Unknown(name, f"`{name}` is not given a value in this file", line)
        before = [w for w in writes if w[0] < line] or writes[:1]
        if any(kind == "other" for _line, kind, _v in before) or before[0][1] != "set" or depth > 8:
            return Unknown(name, f"`{name}` is set by code that runs only with the program", line)
        value: Any = None
        # the list or dict being built is copied once, at its first change, then changed in place: a copy
        # per `cmd += [...]` made 20,000 of them quadratic (8 s; the fuzzers of session 28)
        owned = False
        for write_line, kind, node in before:
            part = self.value(node, write_line, depth + 1) if node is not None else None
            if kind == "set":
                value, owned = part, False
                continue
            if not owned and isinstance(value, (list, dict)):
                value, owned = (list(value) if isinstance(value, list) else dict(value)), True
            if kind == "append" and isinstance(value, list):
                value.append(part)  # an unknown item is one unknown word
            elif kind == "add" and isinstance(value, list) and isinstance(part, Unknown):
                value.append(Unknown(part.text, part.why, part.line, many=True))
            elif isinstance(value, Unknown) or isinstance(part, Unknown):
                return value if isinstance(value, Unknown) else part
            elif kind == "add" and isinstance(value, list) and isinstance(part, (list, tuple)):
                value.extend(part)
            elif kind == "add" and isinstance(value, str) and isinstance(part, str):
                value = value + part
            elif kind == "update" and isinstance(value, dict) and isinstance(part, dict):
                value.update(part)
            elif kind == "item" and isinstance(value, dict) and isinstance(part, tuple) and len(part) == 2:
                try:
                    value[part[0]] = part[1]
                except TypeError:  # `env[[1]] = ...`: a key Python refuses (unhashable) when it runs
                    return Unknown(name, f"`{name}` is changed in a way argtrace does not follow", line)
            else:
                return Unknown(name, f"`{name}` is changed in a way argtrace does not follow", line)
        return value

    def value(self, node: ast.AST | None, line: int | None = None, depth: int = 0) -> Any:
        """A literal (str, int, float, bool, None, list, tuple, dict) or :class:`Unknown`; inside a list,
        an element may itself be :class:`Unknown`."""
        at = line if line is not None else getattr(node, "lineno", 0)
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.List, ast.Tuple)):
            items: list[Any] = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.value(element.value, at, depth)
                    if isinstance(inner, (list, tuple)):
                        items.extend(inner)
                    else:
                        text = ast.unparse(element)
                        why = inner.why if isinstance(inner, Unknown) else f"`{text}` is not a list"
                        items.append(Unknown(text, why, at, many=True))
                    continue
                items.append(self.value(element, at, depth))
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            out: dict[Any, Any] = {}
            for key, item in zip(node.keys, node.values, strict=True):
                if key is None:  # {**other}
                    inner = self.value(item, at, depth)
                    if isinstance(inner, dict):
                        out.update(inner)
                        continue
                    return Unknown(ast.unparse(node), f"`**{ast.unparse(item)}` is not known here", at)
                try:
                    out[self.value(key, at, depth)] = self.value(item, at, depth)
                except TypeError:  # `{[1]: "x"}`: a key Python refuses (unhashable) when it runs
                    return self._unknown(node, at)
            return out
        if isinstance(node, ast.Name):
            return self.name(node.id, at, depth)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(node, at, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, at, depth), self.value(node.right, at, depth)
            if isinstance(left, Unknown) or isinstance(right, Unknown):
                return self._unknown(node, at)
            if isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
                return [*left, *right]
            if isinstance(left, str) and isinstance(right, str):
                return left + right
            return self._unknown(node, at)
        if isinstance(node, ast.Call):
            return self._call(node, at, depth)
        if isinstance(node, ast.IfExp):
            # `"--enforce-eager" if FAST_BOOT else "--no-enforce-eager"` with FAST_BOOT a literal of the
            # module: the branch its truth picks; a test known only when the program runs is unknown
            test = self.value(node.test, at, depth)
            if isinstance(test, (str, int, float, bool, type(None))):
                return self.value(node.body if test else node.orelse, at, depth)
            return self._unknown(node, at)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.value(node.operand, at, depth)
            if isinstance(inner, (int, float)) and not isinstance(inner, bool):
                return -inner
        return self._unknown(node, at)

    def _call(self, node: ast.Call, at: int, depth: int) -> Any:
        func = ast.unparse(node.func)
        if func in ("str", "int", "float") and len(node.args) == 1 and not node.keywords:
            inner = self.value(node.args[0], at, depth)
            if isinstance(inner, (str, int, float)) and not isinstance(inner, bool):
                try:
                    return {"str": str, "int": int, "float": float}[func](inner)
                except ValueError:
                    return self._unknown(node, at)
            return inner if isinstance(inner, Unknown) else self._unknown(node, at)
        if func == "dict" and not node.args:
            return {k.arg: self.value(k.value, at, depth) for k in node.keywords if k.arg is not None}
        if func in ("list", "tuple") and len(node.args) == 1:
            inner = self.value(node.args[0], at, depth)
            return list(inner) if isinstance(inner, (list, tuple)) else inner
        method = node.func
        if (
            isinstance(method, ast.Attribute)
            and method.attr == "join"
            and isinstance(method.value, ast.Constant)
            and isinstance(method.value.value, str)
            and len(node.args) == 1
            and not node.keywords
        ):
            # `" ".join(cmd)` (a Modal app's `subprocess.Popen(" ".join(cmd), shell=True)`): the words joined
            # when every one is a string of the file; one known only when the program runs leaves it unknown
            items = self.value(node.args[0], at, depth)
            if isinstance(items, (list, tuple)) and all(isinstance(i, str) for i in items):
                return method.value.value.join(items)
        return self._unknown(node, at)

    def _fstring(self, node: ast.JoinedStr, at: int, depth: int) -> Any:
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
                continue
            if isinstance(part, ast.FormattedValue) and part.format_spec is None and part.conversion == -1:
                inner = self.value(part.value, at, depth)
                if isinstance(inner, (str, int, float)) and not isinstance(inner, bool):
                    parts.append(str(inner))
                    continue
            return self._unknown(node, at)
        return "".join(parts)

    def _unknown(self, node: ast.AST, at: int) -> Unknown:
        text = ast.unparse(node)
        return Unknown(text, _why(node, text), at)


def _why(node: ast.AST, text: str) -> str:
    """What an expression's value rests on, in words."""
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in _ENVIRON:
        return f"the environment variable {_key(node.slice)} of the Python program, read when it runs"
    if isinstance(node, ast.Call):
        func = ast.unparse(node.func)
        if func in ("os.getenv", "getenv", "os.environ.get", "environ.get") and node.args:
            return f"the environment variable {_key(node.args[0])} of the Python program, read when it runs"
        return f"what `{func}(...)` returns when the program runs"
    if isinstance(node, ast.JoinedStr):
        return "an f-string whose fields are known only when the program runs"
    if isinstance(node, ast.Attribute):
        return f"`{text}` is known only when the program runs"
    return f"`{text}` is known only when the program runs"


def _key(node: ast.AST) -> str:
    return str(node.value) if isinstance(node, ast.Constant) else ast.unparse(node)
