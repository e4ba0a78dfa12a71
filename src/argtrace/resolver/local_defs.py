"""A function's simple local definitions, for the raise-site index (``ast_index.raise_sites``): a local a
check's test reads is replaced by the expression it was assigned, as the source says. Stdlib only.

SGLang 0.5.10.post1's ``ServerArgs._handle_attention_backend_compatibility`` (srt/server_args.py:2368)::

    prefill_backend = (
        self.prefill_attention_backend
        if self.prefill_attention_backend is not None
        else self.attention_backend
    )
    if prefill_backend == "trtllm_mha" and not is_sm100_supported():
        raise ValueError("TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100). ...")

The test reads the local ``prefill_backend``; substituted, it reads ``self.prefill_attention_backend`` and
``self.attention_backend``, which the checks of RS032/RS036 (layers/start_raises.py, device_raises.py) can
evaluate. A name is followed only when the substitution is exact:

- it is bound exactly once in the function (one ``name = value`` statement with a single target; no other
  assignment, ``+=``, loop or ``with``/``except`` target, walrus, import, ``del``, parameter, ``global`` or
  ``nonlocal``), so no other value can reach the test;
- that statement dominates the test: it stands earlier in the same block or in a block enclosing the test
  (an ``if`` branch, a ``with`` or ``try`` body), never in a loop, and never in a branch the test is not in
  (a name assigned in one branch of an ``if`` and read after it stays unknown);
- its value is built from what the evaluators read: constants, attribute chains (``self.X``,
  ``server_args.X``, ``get_platform().is_sm100``), ``and``/``or``/``not``, comparisons, conditional
  expressions (``x if x is not None else y``: the ``is None`` default), tuples, lists, sets, other such
  locals, and calls without arguments (a device probe ``is_sm100_supported()``; any other call the
  evaluators leave unknown). A value with a call taking arguments, a subscript or arithmetic stays a name.

The substitution assumes what the evaluators already assume: the settings the value reads hold their parsed
values from the assignment to the test (an assignment to ``self.X`` in between is not followed).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# the expressions a followed value may be built of (see the module's docstring)
_SIMPLE = (
    ast.Constant,
    ast.Name,
    ast.Attribute,
    ast.BoolOp,
    ast.UnaryOp,
    ast.Compare,
    ast.IfExp,
    ast.Tuple,
    ast.List,
    ast.Set,
    ast.Call,
    ast.Load,
    ast.And,
    ast.Or,
    ast.Not,
    ast.cmpop,
)
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


@dataclass(frozen=True)
class Bindings:
    """How a function binds its names: ``single``, those bound exactly once, by a plain one-target
    ``name = value`` statement; ``rebound``, those bound more than once (a parameter assigned again, a loop
    target, an augmented assignment): a value that reads one may differ at the test; ``escaping``, those
    whose object a method call, a subscript or a call's argument may change (``errors = []`` then
    ``errors.append(...)``): a list or set display assigned to one is not its value at the test."""

    single: frozenset[str] = frozenset()
    rebound: frozenset[str] = frozenset()
    escaping: frozenset[str] = frozenset()

    def follows(self, name: str, value: ast.AST) -> bool:
        """Whether ``name = value`` (``value`` substituted already) is followed."""
        if name not in self.single or not simple(value):
            return False
        if name in self.escaping and any(isinstance(n, (ast.List, ast.Set)) for n in ast.walk(value)):
            return False
        return not any(isinstance(n, ast.Name) and n.id in self.rebound for n in ast.walk(value))


def bindings(func: ast.AST) -> Bindings:
    """The :class:`Bindings` of ``func``'s own names (not those of nested functions and classes)."""
    counts: dict[str, int] = {}
    plain: set[str] = set()  # bound by a plain one-target assignment
    other: set[str] = set()  # bound some other way too
    escaping: set[str] = set()

    def bind(name: str, is_plain: bool = False) -> None:
        counts[name] = counts.get(name, 0) + 1
        (plain if is_plain else other).add(name)

    args = getattr(func, "args", None)
    if isinstance(args, ast.arguments):
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
        for a in params:
            if a is not None:
                bind(a.arg)
    nodes = _own_nodes(func)
    targets = set()  # the targets of plain assignments
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            bind(node.targets[0].id, True)
            targets.add(id(node.targets[0]))
    for node in nodes:
        if isinstance(node, ast.Name) and id(node) in targets:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bind(node.id)  # a tuple target, a loop or with target, an augmented assignment, del, walrus
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                bind(name)
                bind(name)  # bound elsewhere as well: never followed, never stable
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bind(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bind((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not func:
            bind(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bind(node.name)
        if isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.value, ast.Name):
            escaping.add(node.value.id)
        elif isinstance(node, ast.Call):
            args_ = [*node.args, *(k.value for k in node.keywords)]
            escaping.update(a.id for a in args_ if isinstance(a, ast.Name))
            escaping.update(
                a.value.id for a in args_ if isinstance(a, ast.Starred) and isinstance(a.value, ast.Name)
            )
    single = frozenset(n for n in plain if counts[n] == 1 and n not in other)
    rebound = frozenset(n for n, c in counts.items() if c > 1)
    return Bindings(single, rebound, frozenset(escaping))


def _own_nodes(func: ast.AST) -> list[ast.AST]:
    """Every node of ``func``'s body and its nested statements, not the bodies of nested functions or
    classes (their locals are their own); the nested definition itself is kept (it binds its name)."""
    out: list[ast.AST] = []
    todo = list(ast.iter_child_nodes(func))
    while todo:
        node = todo.pop()
        out.append(node)
        if isinstance(node, _NESTED):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return out


def simple(value: ast.AST) -> bool:
    """Whether ``value`` is built only of what the evaluators read (a call only without arguments)."""
    for node in ast.walk(value):
        if not isinstance(node, _SIMPLE):
            return False
        if isinstance(node, ast.Call) and (node.args or node.keywords):
            return False
    return True


class _Substitute(ast.NodeTransformer):
    def __init__(self, defs: dict[str, ast.AST]) -> None:
        self.defs = defs
        self.used: list[str] = []

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node  # its parameters may shadow a local: its body is left as written

    def visit_Name(self, node: ast.Name) -> ast.AST:
        value = self.defs.get(node.id)
        if value is None or not isinstance(node.ctx, ast.Load):
            return node
        self.used.append(node.id)
        return value


def substituted(node: ast.AST, defs: dict[str, ast.AST]) -> tuple[ast.AST, list[str]]:
    """A copy of ``node`` with each local of ``defs`` replaced by its value (already substituted itself),
    and the locals replaced."""
    import copy

    sub = _Substitute(defs)
    out = sub.visit(copy.deepcopy(node))
    return out, sub.used
