"""Every message a framework release can print, read from its wheel by AST (stdlib only; run by
``scripts/gen_messages.py``). Nothing here imports the framework, and no source text is kept beyond the
message templates, the conditions and the names they read.

A *site* is one ``raise X(msg)``, ``assert cond, msg``, ``logger.warning/error/critical/exception(msg, ...)``
(and their ``_once`` variants) or ``warnings.warn(msg)`` whose message has literal text: a constant, an
f-string, a ``%``-format (also logging's lazy ``("... %s", x)`` form), a ``.format`` call, a ``+``
concatenation, or a local variable built from those (``msg = "..."; msg += f"..."; raise E(msg)``; an
``+=`` under a deeper ``if`` than the assignment becomes an optional part). Each site keeps:

- ``p``: the message as parts, a literal string, ``["expr"]`` for a placeholder, ``{"o": [parts]}`` for an
  optional piece;
- ``c``: the enclosing conditions, outermost first (``not (...)`` for an ``else`` branch and for an
  assert's test; ``except X`` inside a handler); the last one is the site's own;
- ``k``: ``raise``, ``assert``, ``log``, ``warn``, or ``reason``: a text the code hands back for another
  site to print rather than printing it, ``return False, "FA2 is only supported ..."`` (the
  ``(ok, reason)`` idiom) or ``invalid_reasons.append("head_size not supported")`` (a list whose name
  says it holds reasons or unsupported features); vLLM prints those inside its own message
  (``... due to {reason}``, ``Reason: {invalid_reasons}``), so the text a user pastes holds both;
- ``r``: the attribute chains the conditions and the message read (``server_args.mem_fraction_static``,
  ``self.cache_config.block_size``, ``envs.VLLM_X``; ``env:NAME`` for ``os.environ``/``get_*_env_var``
  reads), traced through the function's local assignments, and ``self.X`` through what the class's methods
  assign to ``self.X``.
"""

from __future__ import annotations

import ast
import re
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath

from argtrace.resolver.ast_index import ENV_NAME, ENV_READ_FUNCS, BranchVisitor

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

Part: TypeAlias = "str | list[str] | dict[str, Any]"  # literal | [placeholder source] | {"o": [parts]}

LOG_METHODS = frozenset(
    {"warning", "warn", "error", "critical", "fatal", "exception", "warning_once", "error_once"}
)
LEVEL = {"warn": "warning", "warning_once": "warning", "error_once": "error", "fatal": "critical"}
# The frameworks' environment-reading helpers, as the schema index knows them; maybe_convert_int converts
# a value it is given rather than reading a variable by name, so a message's reads leave it out.
ENV_FUNCS = frozenset(ENV_READ_FUNCS - {"maybe_convert_int"})
MIN_LITERAL = 8  # alphanumeric characters of literal text a message needs to be worth indexing
MAX_READS = 16
MAX_ALTERNATIVES = 6
_PERCENT = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[sdrfigeExXcou%]")
_HELPER = re.compile(r"(?:^|_)(?:raise|error|warn|fail|abort)(?:_|$)|^(?:raise|warn|fail|abort)", re.I)
_BRACE = re.compile(r"(\{\{|\}\}|\{[^{}]*\})")
# invalid_reasons, failure_reasons, reasons, unsupported, unsupported_features: lists of reasons
_REASONS = re.compile(r"(?:reasons?|unsupported(?:_\w+)?)$", re.I)


# ------------------------------------------------------------------------------------------- messages


def _lit(parts: list[Part], text: str) -> None:
    if not text:
        return
    if parts and isinstance(parts[-1], str):
        parts[-1] += text
    else:
        parts.append(text)


def _extend(parts: list[Part], more: Iterable[Part]) -> list[Part]:
    for part in more:
        if isinstance(part, str):
            _lit(parts, part)
        else:
            parts.append(part)
    return parts


def _percent(fmt: str, args: list[ast.expr]) -> list[Part]:
    out: list[Part] = []
    i = 0
    pos = 0
    for m in _PERCENT.finditer(fmt):
        _lit(out, fmt[pos : m.start()])
        pos = m.end()
        if m.group() == "%%":
            _lit(out, "%")
            continue
        out.append([ast.unparse(args[i]) if i < len(args) else "?"])
        i += 1
    _lit(out, fmt[pos:])
    return out


def _format(fmt: str) -> list[Part]:
    out: list[Part] = []
    for piece in _BRACE.split(fmt):
        if piece in ("{{", "}}"):
            _lit(out, piece[0])
        elif piece.startswith("{") and piece.endswith("}"):
            out.append([piece[1:-1] or "?"])
        else:
            _lit(out, piece)
    return out


def _str_const(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def is_text(node: ast.AST | None) -> bool:
    """Whether an expression builds a message with literal text (what a ``msg = ...`` must be)."""
    if node is None:
        return False
    if _str_const(node) is not None or isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return is_text(node.left) or (isinstance(node.op, ast.Add) and is_text(node.right))
    if isinstance(node, ast.IfExp):
        return is_text(node.body) or is_text(node.orelse)
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _str_const(node.func.value) is not None
    )


def message_parts(node: ast.AST | None, lazy_args: list[ast.expr] | None = None) -> list[Part]:
    """The message an expression builds; ``lazy_args`` are logging's ``%`` arguments."""
    if node is None:
        return []
    const = _str_const(node)
    if const is not None:
        return _percent(const, lazy_args) if lazy_args else [const]
    if isinstance(node, ast.JoinedStr):
        parts: list[Part] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                _lit(parts, str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append([ast.unparse(value.value)])
        return parts
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _extend(message_parts(node.left), message_parts(node.right))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _str_const(node.left) is not None:
        right = node.right
        args = list(right.elts) if isinstance(right, ast.Tuple) else [right]
        return _percent(str(_str_const(node.left)), args)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "format"
        and _str_const(node.func.value) is not None
    ):
        return _format(str(_str_const(node.func.value)))
    if isinstance(node, ast.IfExp):  # "A" if c else "B": the first; _assign keeps both
        return message_parts(node.body if is_text(node.body) else node.orelse, lazy_args)
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("str", "repr") and node.args:
        return [[ast.unparse(node.args[0])]]
    return [[ast.unparse(node)]]


def _literals_of(parts: Iterable[Part]) -> list[str]:
    return [p for p in parts if isinstance(p, str)]


def literal_chars(parts: Iterable[Part]) -> int:
    """Alphanumeric characters of literal text (optional pieces included)."""
    n = 0
    for part in parts:
        if isinstance(part, str):
            n += sum(ch.isalnum() for ch in part)
        elif isinstance(part, dict):
            n += literal_chars(part["o"])
    return n


# ------------------------------------------------------------------------------------------ reads


def _chain(node: ast.AST) -> str | None:
    """``a.b.c`` for an attribute chain rooted at a name, else None."""
    names: list[str] = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and names:
        names.append(node.id)
        return ".".join(reversed(names))
    return None


def _env_name(node: ast.Call) -> str | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    first = _str_const(node.args[0]) if node.args else None
    if first is None or not ENV_NAME.match(first):
        return None
    if name in ENV_FUNCS:
        return first
    if (
        name in ("get", "pop")
        and isinstance(func, ast.Attribute)
        and _chain(func.value)
        in (
            "os.environ",
            "environ",
        )
    ):
        return first
    return None


def direct_reads(node: ast.AST | None) -> tuple[set[str], set[str]]:
    """(attribute chains, plain names) an expression reads; a method call's own chain is not a read, and
    ``envs.SGLANG_X.get()`` / ``os.environ["X"]`` / ``get_bool_env_var("X")`` read ``env:X``."""
    chains: set[str] = set()
    names: set[str] = set()
    if node is None:
        return chains, names
    skip: set[int] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            env = _env_name(sub)
            if env:
                chains.add(f"env:{env}")
                skip.update(id(n) for n in ast.walk(sub.func))
                continue
            if isinstance(sub.func, ast.Attribute):
                owner = _chain(sub.func.value)
                if owner and sub.func.attr in ("get", "value") and owner.split(".")[-1].isupper():
                    chains.add(f"env:{owner.split('.')[-1]}")  # SGLang's Envs: envs.SGLANG_X.get()
                    skip.update(id(n) for n in ast.walk(sub.func))
                    continue
                skip.add(id(sub.func))  # self.method(...) is a call, not a setting
        elif isinstance(sub, ast.Subscript) and _chain(sub.value) in ("os.environ", "environ"):
            key = _str_const(sub.slice)
            if key and ENV_NAME.match(key):
                chains.add(f"env:{key}")
                skip.update(id(n) for n in ast.walk(sub.value))
    for sub in ast.walk(node):
        if id(sub) in skip:
            if isinstance(sub, ast.Attribute):
                skip.update(id(n) for n in ast.walk(sub.value) if not isinstance(n, ast.Attribute))
            continue
        if isinstance(sub, ast.Attribute):
            chain = _chain(sub)
            if chain:
                chains.add(chain)
                # the inner pieces of the same chain are not reads of their own
                skip.update(id(n) for n in ast.walk(sub.value))
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            names.add(sub.id)
    # keep only the longest chains: "self.a.b" hides "self.a"
    chains = {c for c in chains if not any(o != c and o.startswith(c + ".") for o in chains)}
    return chains, names


MODULE_ROOTS = frozenset(
    {"os", "sys", "torch", "math", "np", "numpy", "re", "json", "logging", "time", "dist", "triton", "typing"}
)


def _settingish(chain: str) -> bool:
    if chain.startswith("env:"):
        return True
    root = chain.split(".", 1)[0]
    return root not in MODULE_ROOTS and not root[:1].isupper()


# ------------------------------------------------------------------------------------------ visitor


class _Scope:
    """One function's (or the module's) state while its body is walked."""

    def __init__(self) -> None:
        self.locals: dict[str, set[str]] = {}  # name -> chains its assigned values read (transitive)
        self.aliases: dict[str, str] = {}  # sa = self.server_args: "sa" -> "self.server_args"
        # name -> alternatives: (parts, the conditions when it was assigned)
        self.messages: dict[str, list[tuple[list[Part], tuple[str, ...]]]] = {}


class _Visitor(BranchVisitor):
    def __init__(self, file: str) -> None:
        self.file = file
        self.scope_names: list[str] = []
        self.classes: list[str] = []
        self.conds: list[tuple[ast.AST | str, bool]] = []
        self.scope = _Scope()
        self.sites: list[dict[str, Any]] = []
        self.class_attrs: list[dict[str, set[str]]] = []  # per enclosing class: self.X -> chains

    # ---- scopes
    def _scoped(self, node: ast.AST, name: str, is_class: bool) -> None:
        saved = (self.conds, self.scope)
        self.scope_names.append(name)
        self.conds = []
        self.scope = _Scope()
        if is_class:
            self.classes.append(name)
            self.class_attrs.append({})
            first = len(self.sites)
        self.generic_visit(node)
        if is_class:
            attrs = self.class_attrs.pop()
            self.classes.pop()
            for site in self.sites[first:]:
                site["r"] = _resolve_self(site["r"], attrs)
        self.scope_names.pop()
        self.conds, self.scope = saved

    def visit_Lambda(self, node: ast.Lambda) -> None:
        return

    # ---- conditions (``if``: BranchVisitor)
    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.conds.append((f"except {ast.unparse(node.type)}" if node.type else "except", False))
        for stmt in node.body:
            self.visit(stmt)
        self.conds.pop()

    def _cond_texts(self) -> tuple[str, ...]:
        out = []
        for test, negated in self.conds:
            if isinstance(test, str):
                out.append(test)
            else:
                text = ast.unparse(test)
                out.append(f"not ({text})" if negated else text)
        return tuple(out)

    # ---- reads
    def _reads(self, nodes: Iterable[ast.AST | None]) -> set[str]:
        out: set[str] = set()
        for node in nodes:
            chains, names = direct_reads(node)
            for chain in chains:
                root, dot, rest = chain.partition(".")
                out.add(self.scope.aliases[root] + dot + rest if root in self.scope.aliases else chain)
            for name in names:
                out |= self.scope.locals.get(name, set())
        return out

    def _assign(self, targets: list[ast.expr], value: ast.AST, augment: bool) -> None:
        reads = self._reads([value])
        for target in targets:
            for sub in ast.walk(target):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    old = self.scope.locals.get(sub.id, set()) if augment else set()
                    self.scope.locals[sub.id] = old | reads
                elif (
                    isinstance(sub, ast.Attribute)
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "self"
                    and self.class_attrs
                    and reads
                ):
                    self.class_attrs[-1].setdefault(sub.attr, set()).update(reads)
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            name = targets[0].id
            alias = _chain(value) if isinstance(value, ast.Attribute) else None
            if alias and not augment:
                root, dot, rest = alias.partition(".")
                self.scope.aliases[name] = self.scope.aliases.get(root, root) + dot + rest
            else:
                self.scope.aliases.pop(name, None)
            conds = self._cond_texts()
            if augment and name in self.scope.messages:
                more = message_parts(value)
                for parts, at in self.scope.messages[name]:
                    if len(conds) > len(at):
                        parts.append({"o": _extend([], more)})  # appended only under a deeper condition
                    else:
                        _extend(parts, more)
            elif not augment and is_text(value):
                alts = [a for a in self.scope.messages.get(name, []) if a[1] != conds]
                if isinstance(value, ast.IfExp):  # one alternative per branch, with its test
                    test = ast.unparse(value.test)
                    for branch, cond in ((value.body, test), (value.orelse, f"not ({test})")):
                        if is_text(branch):
                            alts.append((message_parts(branch), (*conds, cond)))
                else:
                    alts.append((message_parts(value), conds))
                self.scope.messages[name] = alts[-MAX_ALTERNATIVES:]
            elif not augment:
                self.scope.messages.pop(name, None)

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        self._assign(node.targets, node.value, False)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self._assign([node.target], node.value, False)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.generic_visit(node)
        self._assign([node.target], node.value, isinstance(node.op, ast.Add))

    def visit_For(self, node: ast.For) -> None:
        self.visit(node.iter)
        self._assign([node.target], node.iter, False)
        for stmt in [*node.body, *node.orelse]:
            self.visit(stmt)

    def visit_With(self, node: ast.With) -> None:
        for item in node.items:
            self.visit(item.context_expr)
            if item.optional_vars is not None:
                self._assign([item.optional_vars], item.context_expr, False)
        for stmt in node.body:
            self.visit(stmt)

    # ---- sites
    def _message_alternatives(
        self, msg: ast.AST | None, lazy: list[ast.expr] | None
    ) -> list[tuple[list[Part], tuple[str, ...]]]:
        if isinstance(msg, ast.Name) and msg.id in self.scope.messages:
            return [(list(p), at) for p, at in self.scope.messages[msg.id]]
        # "{msg}" inside an f-string, `prefix + details`: inline each local's text, one result per
        # combination of their alternatives
        combos: list[tuple[list[Part], tuple[str, ...]]] = [([], ())]
        for part in message_parts(msg, lazy):
            if isinstance(part, list) and part[0] in self.scope.messages:
                combos = [
                    (_extend(list(done), more), at + tuple(c for c in more_at if c not in at))
                    for done, at in combos
                    for more, more_at in self.scope.messages[part[0]]
                ][:MAX_ALTERNATIVES]
            else:
                combos = [(_extend(list(done), [part]), at) for done, at in combos]
        return combos

    def _record(
        self,
        node: ast.AST,
        kind: str,
        what: str,
        msg: ast.AST | None,
        lazy: list[ast.expr] | None = None,
        own_condition: str | None = None,
        cond_node: ast.AST | None = None,
    ) -> None:
        base = self._cond_texts()
        for parts, at in self._message_alternatives(msg, lazy):
            if literal_chars(parts) < MIN_LITERAL:
                continue
            conds = list(base) + [c for c in at if c not in base]
            if own_condition:
                conds.append(own_condition)
            test_nodes = [t for t, _ in self.conds if not isinstance(t, str)]
            reads = self._reads([*test_nodes, cond_node, msg, *(lazy or [])])
            site: dict[str, Any] = {
                "f": self.file,
                "l": getattr(node, "lineno", 0),
                "fn": ".".join(self.scope_names) or "<module>",
                "k": kind,
                "x": what,
                "p": parts,
                "c": conds,
                "r": sorted(r for r in reads if _settingish(r))[:MAX_READS],
            }
            self.sites.append(site)

    def visit_Raise(self, node: ast.Raise) -> None:
        self.generic_visit(node)
        exc = node.exc
        if exc is None:
            return
        msg: ast.AST | None = None
        if isinstance(exc, ast.Call):
            name = ast.unparse(exc.func)
            if exc.args:
                msg = exc.args[0]
            else:
                msg = next((k.value for k in exc.keywords if k.arg in ("detail", "message", "msg")), None)
        else:
            name = ast.unparse(exc)
        if msg is not None:
            self._record(node, "raise", name, msg)

    def visit_Assert(self, node: ast.Assert) -> None:
        self.generic_visit(node)
        if node.msg is not None:
            test = ast.unparse(node.test)
            msg = _exception_message(node.msg)
            self._record(node, "assert", "AssertionError", msg, None, f"not ({test})", node.test)

    def visit_Return(self, node: ast.Return) -> None:
        # ``return False, "FA2 is only supported ..."``: the (ok, reason) idiom; the caller prints it
        self.generic_visit(node)
        value = node.value
        if (
            isinstance(value, ast.Tuple)
            and len(value.elts) == 2
            and isinstance(value.elts[0], ast.Constant)
            and value.elts[0].value is False
            and is_text(value.elts[1])
        ):
            self._record(node, "reason", "reason", value.elts[1])

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Name) and node.args:
            self._helper(node, func.id)
            return
        if not isinstance(func, ast.Attribute) or not node.args:
            return
        owner = _chain(func.value) or (func.value.id if isinstance(func.value, ast.Name) else "")
        if func.attr == "append" and _REASONS.search(owner) and is_text(node.args[0]):
            self._record(node, "reason", "reason", node.args[0])
        elif func.attr in LOG_METHODS and "log" in owner.lower():
            level = LEVEL.get(func.attr, func.attr)
            lazy = list(node.args[1:]) if len(node.args) > 1 else None
            self._record(node, "log", level, node.args[0], lazy)
        elif func.attr == "warn" and owner == "warnings":
            category = ast.unparse(node.args[1]) if len(node.args) > 1 else "UserWarning"
            self._record(node, "warn", category, node.args[0])
        else:
            self._helper(node, func.attr)

    def _helper(self, node: ast.Call, name: str) -> None:
        """``raise_error_or_warn(self, strict, counter, msg)``-style helpers: a function whose name says it
        raises or warns, given a message with literal text (or a local built from one)."""
        if not _HELPER.search(name) or name in LOG_METHODS:
            return
        args = [*node.args, *(k.value for k in node.keywords)]
        named = [a for a in args if isinstance(a, ast.Name) and a.id in self.scope.messages]
        # a message has words; "count_memory_leak_warnings" is a counter's name, not a message
        texts = [a for a in args if is_text(a) and " " in "".join(_literals_of(message_parts(a)))]
        for arg in (named or texts)[:1]:
            others = [a for a in node.args if a is not arg]
            self._record(node, "raise", name, arg, None, None, ast.Tuple(elts=others, ctx=ast.Load()))


def _exception_message(node: ast.expr) -> ast.expr:
    """``assert cond, RuntimeError("...")`` prints the exception's text as the assertion's message
    (vLLM 0.5-0.6's ``Torch SDPA backend is only used for the CPU device.``): its first argument."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and re.fullmatch(r"[A-Z]\w*(?:Error|Exception|Warning)", node.func.id)
        and node.args
        and is_text(node.args[0])
    ):
        return node.args[0]
    return node


def _resolve_self(reads: list[str], attrs: dict[str, set[str]]) -> list[str]:
    """``self.X`` read by a site -> also what the class assigned to ``self.X`` (one level)."""
    out = set(reads)
    for read in reads:
        parts = read.split(".")
        if len(parts) == 2 and parts[0] == "self" and parts[1] in attrs:
            out |= {r for r in attrs[parts[1]] if _settingish(r) and r != read}
    return sorted(out)[:MAX_READS]


# ---------------------------------------------------------------------------------------------- wheel


def sites_of_source(source: bytes | str, file: str) -> list[dict[str, Any]]:
    try:
        tree = ast.parse(source, filename=file)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    visitor = _Visitor(file)
    try:
        visitor.visit(tree)
    except RecursionError:
        return visitor.sites
    return visitor.sites


def is_test_file(name: str) -> bool:
    """A test module of the package (under ``tests/``, ``test_*.py``, ``*_test.py``, ``conftest.py``): what
    it raises is a test's assertion, never what a server printed. vLLM ships
    ``third_party/fmha_sm100/cute/test_q8_indexer.py`` beside the kernels, whose "{x} is smaller than {y}"
    full-matched a pasted SchedulerConfig error before the real site (verl PR 7626)."""
    path = PurePosixPath(name)
    if {"tests", "test"} & set(path.parts[:-1]):
        return True
    stem = path.name
    return stem.startswith("test_") or stem.endswith("_test.py") or stem == "conftest.py"


def wheel_python_files(wheel: zipfile.ZipFile, package: str) -> Iterator[str]:
    for name in sorted(wheel.namelist()):
        path = PurePosixPath(name)
        if path.suffix != ".py" or not path.parts or path.parts[0] != package:
            continue
        if is_test_file(name):
            continue
        yield name


def index_wheel(path: str, package: str) -> list[dict[str, Any]]:
    """Every message site of ``package`` in the wheel at ``path``, in file and line order."""
    out: list[dict[str, Any]] = []
    with zipfile.ZipFile(path) as wheel:
        for name in wheel_python_files(wheel, package):
            out.extend(sites_of_source(wheel.read(name), name))
    return out


def index_unpacked(root: str | Path, package: str) -> list[dict[str, Any]]:
    """The same as :func:`index_wheel` for a wheel already unpacked under ``root`` (what
    ``schema_gen.unpack_wheel`` keeps: every ``.py`` file), so a release whose schema was generated from
    its unpacked wheel needs no second 300 MB download. Files are visited in the wheel's order (sorted
    posix names) and named as in the wheel, so both give the same sites."""
    base = Path(root)
    names = sorted(p.relative_to(base).as_posix() for p in (base / package).rglob("*.py") if p.is_file())
    out: list[dict[str, Any]] = []
    for name in names:
        if is_test_file(name):
            continue
        out.extend(sites_of_source((base / name).read_bytes(), name))
    return out
