"""This module owns what a Python expression is worth before the program runs: a literal, a variable
assigned literals, or unknown with what it rests on (``ast`` only; nothing is imported or evaluated).

A name is followed when the file gives it literal values and changes it only by ``+=``/``.append``/
``.extend``/``.insert`` of literals (a list built up for ``subprocess``): its value at a call is what the
statements before the call's line made of it. A name assigned anything else (a function's result, a loop
variable, a parameter) is unknown at every use, like ``$(...)`` in a script. A change under an ``if``
counts as the file's literals decide the test; a test known only when the program runs leaves the words
a list gains there unknown (any number of them), and any other change there makes the name unknown.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    class ProgramArguments(Protocol):
        """What :class:`Values` asks of a program's command line (python_argparse.ProgramArguments,
        which depends on this module)."""

        def attribute(self, values: Values, node: ast.Attribute, name: str, line: int) -> Any: ...


@dataclass(frozen=True)
class Unknown:
    """A value known only when the program runs: the expression as written and why."""

    text: str
    why: str
    line: int
    # a starred list (``*args``) or a name that stands for a list: any number of words
    many: bool = False


_ENVIRON = ("os.environ", "environ")
_MAIN = re.compile(r"""__name__ == (['"])__main__\1|(['"])__main__\2 == __name__""")


class Values:
    """The literal values the module gives its names, read once from the whole tree."""

    def __init__(self, tree: ast.AST, arguments: ProgramArguments | None = None) -> None:
        self.tree = tree
        # the program's own command line when the script that runs it gives every word: `args.tp` of
        # `args = parser.parse_args()` as its argparse reads them (python_argparse.py); None: not known here
        self.arguments = arguments
        # name -> [(line, kind, node)], in source order; kind: "set", "add" (+=, extend), "append", "other"
        self._writes: dict[str, list[tuple[int, str, ast.AST | None]]] = {}
        # a statement under an `if` -> the tests that decide whether it runs, each with the branch it is in
        # (`if USE_DUMMY_WEIGHTS: cmd.extend([...])` adds the words only when the test holds)
        self._guards: dict[int, tuple[tuple[ast.expr, bool], ...]] = {}
        self._guard(tree, ())
        # the loop variables of a comprehension being evaluated, innermost last
        self._bound: list[dict[str, Any]] = []
        # a function of the file by its name (None: the name is defined more than once)
        self._functions: dict[str, ast.FunctionDef | None] = {}
        called_bare = _called_bare(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._target(target, node.value, node.lineno)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._target(node.target, node.value, node.lineno)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                # `CONFIG |= {...}` merges a dict as `.update` does
                kind = (
                    "add"
                    if isinstance(node.op, ast.Add)
                    else "update"
                    if isinstance(node.op, ast.BitOr)
                    else "other"
                )
                self._write(node.target.id, node.lineno, kind, node.value)
            elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
                for name in ast.walk(node.target):
                    if isinstance(name, ast.Name):
                        self._write(name.id, getattr(node, "lineno", 0), "other", None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                if isinstance(node, ast.FunctionDef):
                    self._functions[node.name] = None if node.name in self._functions else node
                defaults = _defaults(node) if getattr(node, "name", None) in called_bare else {}
                for arg in [*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs]:
                    given = defaults.get(arg.arg)
                    self._write(arg.arg, 0, "set" if given is not None else "other", given)
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

    def _guard(self, node: ast.AST, tests: tuple[tuple[ast.expr, bool], ...]) -> None:
        """Record, for each statement under an ``if``, the tests that decide whether it runs (a function's
        body starts afresh: its own ``if``\\s are read when it is the call's)."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                self._guard(child, ())
            elif isinstance(child, ast.If):
                for branch, holds in ((child.body, True), (child.orelse, False)):
                    for statement in branch:
                        inner = (*tests, (child.test, holds))
                        for sub in ast.walk(statement):  # a nested `if` below overwrites with its own
                            self._guards[id(sub)] = inner
                        self._guard(statement, inner)
            else:
                self._guard(child, tests)

    def _target(self, target: ast.AST, value: ast.AST | None, line: int) -> None:
        if isinstance(target, ast.Name):
            self._write(target.id, line, "set", value)
        elif (
            isinstance(target, (ast.Tuple, ast.List))
            and isinstance(value, (ast.Tuple, ast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, ast.Starred) for e in [*target.elts, *value.elts])
        ):
            # `GPU_TYPE, N_GPUS = "H100!", 2`: each name its own value
            for element, part in zip(target.elts, value.elts, strict=True):
                self._target(element, part, line)
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
            decided = self.decided(node, write_line, depth)
            if decided is False:
                continue  # a branch the file's literals rule out
            if decided is not True:
                # a test known only when the program runs: a list may gain the words, any number of them
                if kind in ("add", "append") and isinstance(value, list) and node is not None:
                    value = [*value, Unknown(ast.unparse(node), decided, write_line, many=True)]
                    continue
                return Unknown(name, f"`{name}` is changed where {decided[0].lower()}{decided[1:]}", line)
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

    def only_expression(self, name: str, line: int) -> tuple[int, ast.AST] | None:
        """The one expression ``name`` is set to before ``line`` and its line, when nothing else writes it
        and no ``if`` of the program decides it: what a command string built from a field known only when
        the program runs (``cmd = f"... {model} ..."``) was written as. None otherwise."""
        writes = [w for w in self._writes.get(name, ()) if w[0] < line]
        if len(writes) != 1 or writes[0][1] != "set":
            return None
        written_line, _kind, node = writes[0]
        if node is None or self.decided(node, written_line, 0) is not True:
            return None
        return written_line, node

    def decided(self, node: ast.AST | None, line: int, depth: int) -> bool | str:
        """Whether the ``if`` tests around a write let it run: True, False, or why it is known only when
        the program runs."""
        for test, holds in self._guards.get(id(node), ()) if node is not None else ():
            if _MAIN.fullmatch(ast.unparse(test)):
                continue  # the program run as a script, as its launch runs it
            truth = self.value(test, line, depth + 1)
            if isinstance(truth, Unknown) or (
                isinstance(truth, (list, tuple, dict)) and any(isinstance(item, Unknown) for item in truth)
            ):
                return f"the test `{ast.unparse(test)}` is known only when the program runs"
            if bool(truth) != holds:
                return False
        return True

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
            for scope in reversed(self._bound):
                if node.id in scope:
                    return scope[node.id]
            return self.name(node.id, at, depth)
        if isinstance(node, ast.ListComp):
            return self._listcomp(node, at, depth)
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
            if _number(left) and _number(right):
                return left + right
            return self._unknown(node, at)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Mult, ast.FloorDiv)):
            # `TARGET_INPUTS * 2`, `10 * MINUTES`: arithmetic of the file's numbers
            left, right = self.value(node.left, at, depth), self.value(node.right, at, depth)
            if _number(left) and _number(right):
                if isinstance(node.op, ast.Sub):
                    return left - right
                if isinstance(node.op, ast.Mult):
                    return left * right
                if right != 0:
                    return left // right
            return self._unknown(node, at)
        if isinstance(node, ast.Call):
            return self._call(node, at, depth)
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and self.arguments is not None
        ):
            return self.arguments.attribute(self, node, node.value.id, at)
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
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self.value(node.operand, at, depth)
            if isinstance(inner, (str, int, float, bool, type(None))):
                return not inner
        if (
            isinstance(node, ast.Compare)
            and len(node.ops) == 1
            and isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.Is, ast.IsNot))
        ):
            # `if MODE == "dummy":` with MODE a literal of the file; `if max_model_len is not None:` with a
            # parameter's default (`is` of None or a bool: the one object of its value)
            left, right = self.value(node.left, at, depth), self.value(node.comparators[0], at, depth)
            plain = (str, int, float, bool, type(None))
            if isinstance(node.ops[0], (ast.Is, ast.IsNot)):
                known = not isinstance(left, Unknown) and not isinstance(right, Unknown)
                if known and (
                    left is None or right is None or (isinstance(left, bool) and isinstance(right, bool))
                ):
                    return (left is right) == isinstance(node.ops[0], ast.Is)
            elif isinstance(left, plain) and isinstance(right, plain):
                return (left == right) == isinstance(node.ops[0], ast.Eq)
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
        if func in ("json.dumps", "dumps") and len(node.args) == 1 and not node.keywords:
            # `json.dumps(SPECULATIVE_CONFIG)` of a dict the file gives: the text the program passes
            inner = self.value(node.args[0], at, depth)
            if _plain(inner):
                return json.dumps(inner)
            return self._unknown(node, at)
        if isinstance(node.func, ast.Name) and not node.args and not node.keywords and depth < 8:
            returned = self.returned(node.func.id)
            if returned is not None:
                # `cmd = _server_command()` of a function without parameters whose one `return` gives the
                # list: that value, as the function's statements before the return make it
                return self.value(returned.value, returned.lineno, depth + 1)
        if func == "dict" and not node.args:
            return {k.arg: self.value(k.value, at, depth) for k in node.keywords if k.arg is not None}
        if func == "shlex.split" and len(node.args) == 1 and not node.keywords:
            # `subprocess.run(shlex.split(cmd))` of a command string the file gives: its words as a POSIX
            # shell cuts them (shlex's default, posix=True); a string known only at run time stays unknown
            inner = self.value(node.args[0], at, depth)
            if isinstance(inner, str):
                try:
                    return shlex.split(inner)
                except ValueError:  # an unclosed quote: shlex refuses it, as the program would
                    return self._unknown(node, at)
            return inner if isinstance(inner, Unknown) else self._unknown(node, at)
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

    def _listcomp(self, node: ast.ListComp, at: int, depth: int) -> Any:
        """``[item for k, v in CONFIG.items() for item in (f"--{k}", str(v))]`` (Modal's examples spread a
        dict of settings into the command): each loop over a list, tuple or dict the file gives, its
        variables bound in turn; a loop over anything else, or a test known only when the program runs,
        leaves the list unknown."""
        out: list[Any] = []

        def walk(index: int) -> bool:
            if index == len(node.generators):
                out.append(self.value(node.elt, at, depth))
                return len(out) <= 4096
            loop = node.generators[index]
            items = None if loop.is_async else self._iterable(loop.iter, at, depth)
            if items is None:
                return False
            for item in items:
                scope = _bind(loop.target, item)
                if scope is None:
                    return False
                self._bound.append(scope)
                try:
                    tests = [self.value(test, at, depth) for test in loop.ifs]
                    if any(not isinstance(t, (str, int, float, bool, type(None))) for t in tests):
                        return False
                    if all(tests) and not walk(index + 1):
                        return False
                finally:
                    self._bound.pop()
            return True

        return out if walk(0) else self._unknown(node, at)

    def _iterable(self, node: ast.expr, at: int, depth: int) -> list[Any] | None:
        """What a comprehension loops over, when the file gives it: a list, a tuple, a dict (its keys) or
        a dict's ``.items()``/``.keys()``/``.values()``."""
        method = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            method, node = node.func.attr, node.func.value
            if method not in ("items", "keys", "values"):
                return None
        value = self.value(node, at, depth)
        if isinstance(value, dict):
            if method == "items":
                return list(value.items())
            return list(value.values()) if method == "values" else list(value)
        if method is None and isinstance(value, (list, tuple)):
            return list(value)
        return None

    def returned(self, name: str) -> ast.Return | None:
        """The one ``return VALUE`` of the file's function ``name`` that takes no parameters; None for
        another function (parameters, several returns, a generator, defined twice)."""
        fn = self._functions.get(name)
        if fn is None:
            return None
        arguments = fn.args
        if (
            arguments.args
            or arguments.posonlyargs
            or arguments.kwonlyargs
            or arguments.vararg
            or arguments.kwarg
        ):
            return None
        returns: list[ast.Return] = []
        stack: list[ast.AST] = list(fn.body)
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return None
            if isinstance(node, ast.Return):
                returns.append(node)
            stack.extend(ast.iter_child_nodes(node))
        if len(returns) != 1 or returns[0].value is None:
            return None
        return returns[0]

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


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plain(value: Any) -> bool:
    """A value with nothing unknown in it (what ``json.dumps`` can write as the program would)."""
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return isinstance(value, (str, int, float, bool, type(None)))


def _bind(target: ast.AST, item: Any) -> dict[str, Any] | None:
    """A loop target's names bound to one item (``k, v`` to a pair); None for a shape not followed."""
    if isinstance(target, ast.Name):
        return {target.id: item}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(item, (list, tuple)):
        if len(target.elts) != len(item):
            return None
        scope: dict[str, Any] = {}
        for element, part in zip(target.elts, item, strict=True):
            inner = _bind(element, part)
            if inner is None:
                return None
            scope.update(inner)
        return scope
    return None


def _key(node: ast.AST) -> str:
    return str(node.value) if isinstance(node, ast.Constant) else ast.unparse(node)


def _called_bare(tree: ast.AST) -> set[str]:
    """The module's functions every use of whose name is a call without arguments (`launch_vllm_server()`
    under `if __name__ == "__main__":`): their parameters hold their defaults when the body runs. A name
    defined twice, passed on (`Thread(target=f)`) or called with any argument is not one of them."""
    defined: dict[str, int] = {}
    bare: dict[str, int] = {}
    uses: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            defined[node.name] = defined.get(node.name, 0) + 1
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            uses[node.id] = uses.get(node.id, 0) + 1
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and not node.args
            and not node.keywords
        ):
            bare[node.func.id] = bare.get(node.func.id, 0) + 1
    return {
        name for name, count in defined.items() if count == 1 and bare.get(name, 0) == uses.get(name, 0) > 0
    }


def _defaults(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> dict[str, ast.expr]:
    """A function's parameters that have a default, with it (none when it takes ``*args``/``**kwargs``)."""
    args = node.args
    if args.vararg is not None or args.kwarg is not None:
        return {}
    positional = [*args.posonlyargs, *args.args]
    out = {
        a.arg: d
        for a, d in zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True)
    }
    out.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None})
    return out
