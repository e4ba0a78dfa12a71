"""SGLang's diffusion server parser (``sglang serve`` for a diffusion model, sglang/multimodal_gen) read
from an unpacked wheel by AST, without importing it: the package needs the diffusion extra (diffusers,
torchvision, ...) whose releases do not install beside each other here, and an import with stand-ins
failed on version mismatches.

The reading follows the calls the real code makes: it starts at
``sglang.multimodal_gen.runtime.entrypoints.cli.serve.add_multimodal_gen_serve_args`` with one parser
object, walks each function's statements in order, records every ``<parser or group>.add_argument(...)``
and steps into every call that is handed the parser (``ServerArgs.add_cli_args(parser)``,
``PipelineConfig.add_cli_args(parser)`` -> ``VAEConfig.add_cli_args(parser, prefix=...)``, inherited
methods through the class's bases, functions imported inside the function). Strings are evaluated with
the bound arguments (f-strings over ``prefix``, ``str.replace``), ``if`` tests with known values choose
their branch, and ``choices`` are evaluated through module constants, imports and ``Enum`` classes
(``Backend.choices()`` runs its one ``return`` over the enum's members). What cannot be evaluated is
reported in ``DiffusionParser.unknown`` instead of being guessed. ``add_resolved_pipeline_config_cli_args``
is not followed: it adds a pipeline's own options only when argv names the pipeline (see
scripts/gen_sglang_diffusion_options.py).

The per-entry shape is the one argparse's actions give (``dest``, the action class name, ``nargs``,
sorted ``choices`` as text), so the output compares one to one with a parser built by importing.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SERVE_MODULE = "sglang.multimodal_gen.runtime.entrypoints.cli.serve"
SERVE_FUNCTION = "add_multimodal_gen_serve_args"
# adds options only when argv names a pipeline; the table is the parser of an argv that names none
NOT_FOLLOWED = ("add_resolved_pipeline_config_cli_args",)

# argparse's registry names -> the action classes argparse instantiates, with their fixed nargs
_ACTIONS: dict[str, tuple[str, Any]] = {
    "store": ("_StoreAction", None),
    "store_const": ("_StoreConstAction", 0),
    "store_true": ("_StoreTrueAction", 0),
    "store_false": ("_StoreFalseAction", 0),
    "append": ("_AppendAction", None),
    "append_const": ("_AppendConstAction", 0),
    "count": ("_CountAction", 0),
    "extend": ("_ExtendAction", None),
    "help": ("_HelpAction", 0),
    "version": ("_VersionAction", 0),
}


class Unknown(Exception):
    """A value the static reading cannot know."""


class _Parser:
    """The parser object (or one of its groups) as it flows through the code."""


PARSER = _Parser()
_NO_VALUE = object()


@dataclass(frozen=True)
class _Class:
    """A class definition and the module it is in."""

    module: str
    node: ast.ClassDef


@dataclass(frozen=True)
class _Function:
    """A function definition, its module and the class it is a method of."""

    module: str
    node: ast.FunctionDef
    owner: _Class | None = None


@dataclass(frozen=True)
class _Module:
    """A module, by its dotted name."""

    name: str


@dataclass(frozen=True)
class _Member:
    """A name a class body assigns, and the value node."""

    owner: _Class
    name: str
    value: Any


@dataclass(frozen=True)
class _Import:
    """``from source import name`` not yet followed."""

    source: str
    name: str
    depth: int = 0


@dataclass(frozen=True)
class _Assigned:
    """A module-level ``name = <node>`` not yet evaluated."""

    module: str
    node: ast.expr


@dataclass(frozen=True)
class _Bound:
    """``obj.method`` not yet called (``parser.add_argument`` bound to a name, a str method)."""

    target: Any
    attr: str


@dataclass
class DiffusionParser:
    """What the reading found: ``options`` as ``{option string: entry}``, the file of the ``ServerArgs``
    class that ``from_cli_args`` lives in, and what could not be evaluated (``unknown``)."""

    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    server_args_file: str | None = None
    unknown: list[str] = field(default_factory=list)
    duplicates: list[str] = field(default_factory=list)


class SourceTree:
    """The parsed modules of an unpacked wheel, by dotted name."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._modules: dict[str, ast.Module | None] = {}

    def path(self, name: str) -> Path | None:
        base = self.root.joinpath(*name.split("."))
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    def module(self, name: str) -> ast.Module | None:
        if name not in self._modules:
            path = self.path(name)
            self._modules[name] = ast.parse(path.read_text(encoding="utf-8")) if path else None
        return self._modules[name]

    def lookup(self, module: str, name: str, depth: int = 0) -> Any:
        """The module-level binding ``name`` of ``module``: a class, function, constant or module
        (followed through ``from X import name`` and package ``__init__`` re-exports)."""
        tree = self.module(module)
        if tree is None or depth > 12:
            if self.path(f"{module}.{name}"):
                return _Module(f"{module}.{name}")
            raise Unknown(f"{module}.{name}")
        found: Any = None
        for stmt in tree.body:
            found = self._binding(stmt, module, name, depth, found)
        if found is None:
            if self.path(f"{module}.{name}"):
                return _Module(f"{module}.{name}")
            raise Unknown(f"{module}.{name}")
        return found

    def _binding(self, stmt: ast.stmt, module: str, name: str, depth: int, found: Any) -> Any:
        if isinstance(stmt, ast.ClassDef) and stmt.name == name:
            return _Class(module, stmt)
        if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
            return _Function(module, stmt)
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if (alias.asname or alias.name) == name:
                    source = resolve_from(module, stmt, self.path(module))
                    return _Import(source, alias.name, depth)
        if isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in stmt.targets
        ):
            return _Assigned(module, stmt.value)
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
            return _Assigned(module, stmt.value) if stmt.value is not None else found
        if isinstance(stmt, (ast.If, ast.Try)):
            for inner in [*stmt.body, *getattr(stmt, "orelse", []), *getattr(stmt, "finalbody", [])]:
                found = self._binding(inner, module, name, depth, found)
        return found


def resolve_from(module: str, stmt: ast.ImportFrom, path: Path | None) -> str:
    if not stmt.level:
        return stmt.module or ""
    package = module if path is not None and path.name == "__init__.py" else module.rsplit(".", 1)[0]
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - (stmt.level - 1)])
    return f"{base}.{stmt.module}" if stmt.module else base


class Reader:
    """One release's walk (see the module doc)."""

    def __init__(self, root: Path) -> None:
        self.tree = SourceTree(root)
        self.out = DiffusionParser()
        self._depth = 0

    # values ---------------------------------------------------------------------------------------
    def resolve(self, binding: Any) -> Any:
        while isinstance(binding, (_Import, _Assigned)):
            if isinstance(binding, _Import):
                binding = self.tree.lookup(binding.source, binding.name, binding.depth + 1)
            else:
                binding = self.value(binding.node, {}, binding.module)
        return binding

    def name(self, ident: str, env: dict[str, Any], module: str) -> Any:
        if ident in env:
            return env[ident]
        builtins = {"list": list, "tuple": tuple, "sorted": sorted, "set": set, "frozenset": frozenset}
        if ident in builtins:
            return builtins[ident]
        if ident in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[ident]
        return self.resolve(self.tree.lookup(module, ident))

    def value(self, node: ast.AST | None, env: dict[str, Any], module: str) -> Any:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.name(node.id, env, module)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for part in node.values:
                if isinstance(part, ast.FormattedValue):
                    if part.format_spec is not None or part.conversion not in (-1, 115):
                        raise Unknown(ast.unparse(part))
                    parts.append(str(self.value(part.value, env, module)))
                else:
                    parts.append(str(self.value(part, env, module)))
            return "".join(parts)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    items.extend(self.iterate(self.value(e.value, env, module)))
                else:
                    items.append(self.value(e, env, module))
            return tuple(items) if isinstance(node, ast.Tuple) else items
        if isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            return {self.value(k, env, module): self.value(v, env, module) for k, v in pairs}
        if isinstance(node, ast.Attribute):
            return self.attribute(self.value(node.value, env, module), node.attr)
        if isinstance(node, ast.Call):
            return self.call_value(node, env, module)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return self.comprehension(node, env, module)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.value(node.left, env, module) + self.value(node.right, env, module)
        if isinstance(node, ast.BoolOp):
            values = [self.value(v, env, module) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.value(node.operand, env, module)
        if isinstance(node, ast.IfExp):
            test = self.value(node.test, env, module)
            return self.value(node.body if test else node.orelse, env, module)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left = self.value(node.left, env, module)
            right = self.value(node.comparators[0], env, module)
            op = node.ops[0]
            table = {
                ast.Eq: lambda a, b: a == b,
                ast.NotEq: lambda a, b: a != b,
                ast.In: lambda a, b: a in b,
                ast.NotIn: lambda a, b: a not in b,
                ast.Is: lambda a, b: a is b,
                ast.IsNot: lambda a, b: a is not b,
            }
            for kind, fn in table.items():
                if isinstance(op, kind):
                    return fn(left, right)
        if isinstance(node, ast.Subscript):
            return self.value(node.value, env, module)[self.value(node.slice, env, module)]
        raise Unknown(ast.unparse(node))

    def members(self, cls: _Class) -> list[_Member]:
        out = []
        for stmt in cls.node.body:
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
            ):
                ident = stmt.targets[0].id
                if not ident.startswith("_"):
                    try:
                        value = self.value(stmt.value, {}, cls.module)
                    except Unknown:
                        value = _NO_VALUE  # enum.auto(): the member's name is known, its value is not
                    out.append(_Member(cls, ident, value))
        return out

    def is_enum(self, cls: _Class) -> bool:
        return any(ast.unparse(b).split(".")[-1].endswith("Enum") for b in cls.node.bases)

    def attribute(self, obj: Any, attr: str) -> Any:
        if isinstance(obj, _Member) and attr == "name":
            return obj.name
        if isinstance(obj, _Member) and attr == "value" and obj.value is not _NO_VALUE:
            return obj.value
        if isinstance(obj, _Module):
            return self.resolve(self.tree.lookup(obj.name, attr))
        if isinstance(obj, _Class):
            found = self.method(obj, attr)
            if found is not None:
                return found
            if self.is_enum(obj):
                for member in self.members(obj):
                    if member.name == attr:
                        return member
            raise Unknown(f"{obj.node.name}.{attr}")
        if obj is PARSER or isinstance(obj, (str, dict, list)):
            return _Bound(obj, attr)
        raise Unknown(f"{obj!r}.{attr}")

    def bases(self, cls: _Class) -> list[_Class]:
        out = []
        for base in cls.node.bases:
            try:
                found = self.value(base, {}, cls.module)
            except Unknown:
                continue
            if isinstance(found, _Class):
                out.append(found)
        return out

    def method(self, cls: _Class, name: str, seen: int = 0) -> _Function | None:
        for stmt in cls.node.body:
            if isinstance(stmt, ast.FunctionDef) and stmt.name == name:
                return _Function(cls.module, stmt, cls)
        if seen > 10:
            return None
        for base in self.bases(cls):
            found = self.method(base, name, seen + 1)
            if found is not None:
                return found
        return None

    def iterate(self, obj: Any) -> list[Any]:
        if isinstance(obj, _Class) and self.is_enum(obj):
            return list(self.members(obj))
        if isinstance(obj, dict):
            return list(obj)
        if isinstance(obj, (list, tuple, set, frozenset, str)):
            return list(obj)
        raise Unknown(f"iterating {obj!r}")

    def comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, env: dict[str, Any], module: str
    ) -> Any:
        gen = node.generators[0]
        target = gen.target
        if len(node.generators) != 1 or not isinstance(target, ast.Name):
            raise Unknown(ast.unparse(node))
        out = []
        for item in self.iterate(self.value(gen.iter, env, module)):
            local = {**env, target.id: item}
            if all(self.value(cond, local, module) for cond in gen.ifs):
                out.append(self.value(node.elt, local, module))
        return out

    def call_value(self, node: ast.Call, env: dict[str, Any], module: str) -> Any:
        fn = self.value(node.func, env, module)
        args = [self.value(a, env, module) for a in node.args]
        kwargs = {k.arg: self.value(k.value, env, module) for k in node.keywords if k.arg}
        if fn in (list, tuple, sorted, set, frozenset):
            return fn(self.iterate(args[0]) if args else [])
        if (
            isinstance(fn, _Bound)
            and isinstance(fn.target, (str, dict))
            and fn.attr
            in (
                "replace",
                "strip",
                "lower",
                "upper",
                "keys",
                "values",
                "startswith",
                "endswith",
                "join",
                "split",
            )
        ):
            return getattr(fn.target, fn.attr)(*args, **kwargs)
        if isinstance(fn, _Function):
            body = [
                s for s in fn.node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
            ]
            if len(body) == 1 and isinstance(body[0], ast.Return):
                local = self.bind(fn, args, kwargs)
                return self.value(body[0].value, local, fn.module)
        raise Unknown(ast.unparse(node))

    # the walk -------------------------------------------------------------------------------------
    def bind(self, fn: _Function, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        params = fn.node.args
        names = [a.arg for a in [*params.posonlyargs, *params.args]]
        decorators = {ast.unparse(d) for d in fn.node.decorator_list}
        env: dict[str, Any] = {}
        if fn.owner is not None and "staticmethod" not in decorators and names:
            env[names[0]] = fn.owner  # cls (or self: the class stands in, its attributes are read the same)
            names = names[1:]
        defaults = params.defaults
        for i, param in enumerate(names):
            d = i - (len(names) - len(defaults))
            if d >= 0:
                try:
                    env[param] = self.value(defaults[d], {}, fn.module)
                except Unknown:
                    pass
        for kwonly, default in zip(params.kwonlyargs, params.kw_defaults, strict=True):
            if default is not None:
                try:
                    env[kwonly.arg] = self.value(default, {}, fn.module)
                except Unknown:
                    pass
        env.update(zip(names, args, strict=False))
        env.update(kwargs)
        return env

    def run(self) -> DiffusionParser:
        fn = self.resolve(self.tree.lookup(SERVE_MODULE, SERVE_FUNCTION))
        if not isinstance(fn, _Function):
            raise Unknown(f"{SERVE_MODULE}.{SERVE_FUNCTION}")
        server_args = self.resolve(self.tree.lookup(SERVE_MODULE, "ServerArgs"))
        if isinstance(server_args, _Class):
            path = self.tree.path(server_args.module)
            self.out.server_args_file = str(path.relative_to(self.tree.root)) if path else None
        self.walk(fn, [PARSER], {})
        return self.out

    def walk(self, fn: _Function, args: list[Any], kwargs: dict[str, Any]) -> None:
        self._depth += 1
        if self._depth > 30:
            raise Unknown("call depth")
        try:
            self.block(fn.node.body, self.bind(fn, args, kwargs), fn.module)
        finally:
            self._depth -= 1

    def block(self, body: list[ast.stmt], env: dict[str, Any], module: str) -> None:
        for stmt in body:
            self.statement(stmt, env, module)

    def statement(self, stmt: ast.stmt, env: dict[str, Any], module: str) -> None:
        if isinstance(stmt, ast.ImportFrom):
            source = resolve_from(module, stmt, self.tree.path(module))
            for alias in stmt.names:
                env[alias.asname or alias.name] = _Import(source, alias.name)
            for key in [k for k, v in env.items() if isinstance(v, _Import)]:
                try:
                    env[key] = self.resolve(env[key])
                except Unknown:
                    del env[key]
            return
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            self.call(stmt.value, env, module)
            return
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            result: Any = None
            known = True
            if isinstance(stmt.value, ast.Call):
                result = self.call(stmt.value, env, module)
            else:
                try:
                    result = self.value(stmt.value, env, module)
                except Unknown:
                    known = False
            for target in targets:
                if isinstance(target, ast.Name):
                    if known and result is not None:
                        env[target.id] = result
                    else:
                        env.pop(target.id, None)
            return
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Call):
            self.call(stmt.value, env, module)
            return
        if isinstance(stmt, ast.If):
            try:
                test = self.value(stmt.test, env, module)
            except Unknown:
                self.out.unknown.append(f"{module}:{stmt.lineno}: if {ast.unparse(stmt.test)}")
                return
            self.block(stmt.body if test else stmt.orelse, env, module)
            return
        if isinstance(stmt, ast.For):
            try:
                items = self.iterate(self.value(stmt.iter, env, module))
            except Unknown:
                self.out.unknown.append(f"{module}:{stmt.lineno}: for {ast.unparse(stmt.iter)}")
                return
            for item in items:
                if isinstance(stmt.target, ast.Name):
                    env[stmt.target.id] = item
                    self.block(stmt.body, env, module)
            return
        if isinstance(stmt, ast.Try):
            self.block([*stmt.body, *stmt.orelse, *stmt.finalbody], env, module)
            return
        if isinstance(stmt, ast.With):
            self.block(stmt.body, env, module)

    def call(self, node: ast.Call, env: dict[str, Any], module: str) -> Any:
        """A call statement: ``add_argument`` on the parser is recorded, a call handed the parser is
        followed; a group of the parser is the parser. Returns what the call returns as far as known."""
        func = node.func
        if isinstance(func, ast.Attribute):
            try:
                receiver = self.value(func.value, env, module)
            except Unknown:
                receiver = None
            if receiver is PARSER:
                if func.attr == "add_argument":
                    self.add_argument(node, env, module)
                    return None
                if func.attr in ("add_argument_group", "add_mutually_exclusive_group"):
                    return PARSER
                return None
        elif isinstance(func, ast.Name) and isinstance(env.get(func.id), _Bound):
            bound = env[func.id]
            if bound.target is PARSER and bound.attr == "add_argument":
                self.add_argument(node, env, module)
                return None
        try:
            args = [self.value(a, env, module) for a in node.args]
        except Unknown:
            args = None
        if (args is not None and PARSER in args) or any(
            isinstance(k.value, ast.Name) and env.get(k.value.id) is PARSER for k in node.keywords
        ):
            name = ast.unparse(func)
            if name.split(".")[-1] in NOT_FOLLOWED:
                return None
            try:
                fn = self.value(func, env, module)
                kwargs = {k.arg: self.value(k.value, env, module) for k in node.keywords if k.arg}
            except Unknown as exc:
                self.out.unknown.append(f"{module}:{node.lineno}: call {name} ({exc})")
                return None
            if not isinstance(fn, _Function):
                self.out.unknown.append(f"{module}:{node.lineno}: call {name} (not a function)")
                return None
            self.walk(fn, args or [], kwargs)
            returns = [n for n in ast.walk(fn.node) if isinstance(n, ast.Return) and n.value is not None]
            return PARSER if returns else None
        if isinstance(func, ast.Attribute) and func.attr == "add_argument":
            self.out.unknown.append(f"{module}:{node.lineno}: add_argument on {ast.unparse(func.value)}")
        try:
            return self.value(node, env, module)
        except Unknown:
            return None

    def add_argument(self, node: ast.Call, env: dict[str, Any], module: str) -> None:
        where = f"{module}:{node.lineno}"
        try:
            strings = [self.value(a, env, module) for a in node.args]
        except Unknown as exc:
            self.out.unknown.append(f"{where}: option name {exc}")
            return
        if not strings or not all(isinstance(s, str) and s.startswith("-") for s in strings):
            return  # a positional: the diffusion parser has none, and the table holds options only
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        longs = [s for s in strings if s.startswith("--")]
        try:
            dest = self.value(kw["dest"], env, module) if "dest" in kw else None
        except Unknown as exc:
            self.out.unknown.append(f"{where}: dest {exc}")
            dest = None
        if dest is None:
            dest = (longs[0][2:] if longs else strings[0][1:]).replace("-", "_")
        action, nargs = self.action(kw.get("action"), env, module, where)
        entry: dict[str, Any] = {"dest": dest, "action": action}
        if "nargs" in kw:
            try:
                nargs = self.value(kw["nargs"], env, module)
            except Unknown as exc:
                self.out.unknown.append(f"{where}: nargs {exc}")
        if nargs is not None:
            entry["nargs"] = nargs
        if "choices" in kw:
            try:
                choices = self.value(kw["choices"], env, module)
                if choices is not None:
                    entry["choices"] = sorted(str(c) for c in self.iterate(choices))
            except Unknown as exc:
                self.out.unknown.append(f"{where}: choices {exc}")
        for opt in strings:
            if opt in self.out.options:
                self.out.duplicates.append(f"{where}: {opt}")
            self.out.options[opt] = entry

    def action(self, node: ast.AST | None, env: dict[str, Any], module: str, where: str) -> tuple[str, Any]:
        if node is None:
            return _ACTIONS["store"]
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in _ACTIONS:
                return _ACTIONS[node.value]
            raise Unknown(f"{where}: action {node.value!r}")
        text = ast.unparse(node)
        if text.split(".")[-1] == "BooleanOptionalAction":
            return "BooleanOptionalAction", 0
        try:
            cls = self.value(node, env, module)
        except Unknown:
            self.out.unknown.append(f"{where}: action {text}")
            return text.split(".")[-1], None
        if not isinstance(cls, _Class):
            self.out.unknown.append(f"{where}: action {text}")
            return text.split(".")[-1], None
        return cls.node.name, self.action_nargs(cls)

    def action_nargs(self, cls: _Class) -> Any:
        """The nargs an Action subclass passes to ``super().__init__`` (StoreBoolean: "?")."""
        init = self.method(cls, "__init__")
        if init is None:
            return None
        for call in ast.walk(init.node):
            if isinstance(call, ast.Call) and ast.unparse(call.func).endswith("__init__"):
                for k in call.keywords:
                    if k.arg == "nargs":
                        try:
                            return self.value(k.value, {}, init.module)
                        except Unknown:
                            return None
        return None


def read_diffusion_parser(root: Path) -> DiffusionParser:
    """The diffusion server's parser of the release unpacked at ``root`` (the directory holding
    ``sglang/``)."""
    return Reader(root).run()
