"""Every ``assert`` a framework release has that the message index does not hold, read from its wheel by AST
(stdlib only; run by ``scripts/gen_messages.py --asserts``). Nothing here imports the framework.

The message index keeps the sites that print words (``assert cond, "... is not supported"``); a bare
``assert cond`` prints none: Python raises ``AssertionError`` with an empty message, and what a report
quotes is the traceback's last frame (``File ".../chatglm.py", line 53, in __init__``), the statement under
it, or the condition alone in an issue title (``AssertionError: assert self.being_chunked_req is None``).
An assert whose message has fewer literal characters than the message index needs
(``assert res.status_code == 200, f"{res=}, {res.text=}"``) prints values only and is kept here too.

A site keeps:

- ``f``, ``fn``: the package-relative file and the function (``Class.method``) the assert is in;
- ``c``: its condition, as ``ast.unparse`` writes it (so a paste's spacing and line breaks do not matter:
  :func:`normalize` gives a pasted condition the same form);
- ``w``: the enclosing conditions, outermost first (``not (...)`` for an ``else``), at most ``MAX_WHEN``;
- ``m``: the message expression of a messaged assert (``f'{res=}, {res.text=}'``), absent for a bare one;
- ``a``: for each plain name the condition reads that the function assigned, the assigned expression
  (``tp_size``: ``get_tensor_model_parallel_world_size()``), so a reader sees where an operand comes from;
- ``r``: the attribute chains the condition and the enclosing conditions read, traced through the
  function's local assignments and ``self.X`` through what the class assigns to it (as the message index
  does: ``tp_size = server_args.tp_size`` makes ``assert x % tp_size == 0`` read ``server_args.tp_size``).

The store (``frameworks/data/asserts/<framework>.json.gz``) keeps each site once with its line in each
release (``at``), as the message store does.
"""

from __future__ import annotations

import ast
import hashlib
import zipfile
from pathlib import Path

from argtrace.resolver.message_index import (
    MIN_LITERAL,
    _exception_message,
    _settingish,
    _Visitor,
    is_test_file,
    literal_chars,
    wheel_python_files,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_WHEN = 3  # enclosing conditions kept per site: the innermost ones say when the assert runs
MAX_TEXT = 160  # characters of a condition or message expression kept (a longer one is cut with "...")
MAX_READS = 12
MAX_SOURCE = 80  # characters of a local's assigned expression kept
MAX_NAMES = 4  # locals of a condition whose assigned expression is kept


def normalize(condition: str) -> str | None:
    """A pasted condition in the form the index stores it (``ast.unparse``): ``self.tp_size%2==0`` and
    ``(self.tp_size % 2\\n == 0)`` both give ``self.tp_size % 2 == 0``; None when it is not an expression."""
    text = condition.strip().rstrip(",;")
    if not text:
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return _cut(ast.unparse(tree.body))


def _cut(text: str, most: int = MAX_TEXT) -> str:
    return text if len(text) <= most else text[: most - 3] + "..."


class _AssertVisitor(_Visitor):
    """The message index's visitor (its scopes, conditions and reads), recording wordless asserts only."""

    def __init__(self, file: str) -> None:
        super().__init__(file)
        # per scope (held by identity, so no two scopes share an entry): a local's last assigned expression
        self.sources: dict[object, dict[str, str]] = {}

    def _assign(self, targets: list[ast.expr], value: ast.AST, augment: bool) -> None:
        super()._assign(targets, value, augment)
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            own = self.sources.setdefault(self.scope, {})
            if augment:
                own.pop(targets[0].id, None)
            else:
                own[targets[0].id] = _cut(ast.unparse(value), MAX_SOURCE)

    def visit_Raise(self, node: ast.Raise) -> None:
        self.generic_visit(node)

    def visit_Return(self, node: ast.Return) -> None:
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)

    def visit_Assert(self, node: ast.Assert) -> None:
        self.generic_visit(node)
        msg = _exception_message(node.msg) if node.msg is not None else None
        if msg is not None and any(
            literal_chars(parts) >= MIN_LITERAL for parts, _ in self._message_alternatives(msg, None)
        ):
            return  # the message index holds it: its words are what a report quotes
        when = [_cut(c) for c in self._cond_texts()][-MAX_WHEN:]
        test_nodes = [t for t, _ in self.conds if not isinstance(t, str)]
        reads = self._reads([*test_nodes, node.test])
        site: dict[str, Any] = {
            "f": self.file,
            "l": node.lineno,
            "fn": ".".join(self.scope_names) or "<module>",
            "c": _cut(ast.unparse(node.test)),
            "w": when,
            "r": sorted(r for r in reads if _settingish(r))[:MAX_READS],
        }
        if msg is not None:
            site["m"] = _cut(ast.unparse(msg))
        own = self.sources.get(self.scope, {})
        names = [n.id for n in ast.walk(node.test) if isinstance(n, ast.Name) and n.id in own]
        assigned = {name: own[name] for name in dict.fromkeys(names)}
        if assigned:
            site["a"] = dict(list(assigned.items())[:MAX_NAMES])
        self.sites.append(site)


def asserts_of_source(source: bytes | str, file: str) -> list[dict[str, Any]]:
    if (b"assert" not in source) if isinstance(source, bytes) else ("assert" not in source):
        return []
    try:
        tree = ast.parse(source, filename=file)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    # only the module's statements that hold an assert are walked: a function's reads are its own, a class's
    # ``self.X`` reads need the whole class; the rest (most of a release) costs the walk nothing
    tree.body = [stmt for stmt in tree.body if any(isinstance(n, ast.Assert) for n in ast.walk(stmt))]
    visitor = _AssertVisitor(file)
    try:
        visitor.visit(tree)
    except RecursionError:
        pass
    for site in visitor.sites:
        site["r"] = site["r"][:MAX_READS]
    return visitor.sites


# A file's sites depend on its name and bytes alone; most files of a release are the previous release's, so a
# run over many releases parses each distinct file once.
_SEEN: dict[tuple[str, str], list[dict[str, Any]]] = {}


def _cached(source: bytes, name: str) -> list[dict[str, Any]]:
    key = (name, hashlib.sha1(source).hexdigest())
    if key not in _SEEN:
        _SEEN[key] = asserts_of_source(source, name)
    return [dict(site) for site in _SEEN[key]]


def index_wheel(path: str | Path, package: str) -> list[dict[str, Any]]:
    """Every assert without words of ``package`` in the wheel at ``path``, in file and line order."""
    out: list[dict[str, Any]] = []
    with zipfile.ZipFile(path) as wheel:
        for name in wheel_python_files(wheel, package):
            out.extend(_cached(wheel.read(name), name))
    return out


def index_unpacked(root: str | Path, package: str) -> list[dict[str, Any]]:
    """:func:`index_wheel` for a wheel unpacked under ``root`` (files in the wheel's order and names)."""
    base = Path(root)
    names = sorted(p.relative_to(base).as_posix() for p in (base / package).rglob("*.py") if p.is_file())
    out: list[dict[str, Any]] = []
    for name in names:
        if not is_test_file(name):
            out.extend(_cached((base / name).read_bytes(), name))
    return out


def site_key(site: dict[str, Any]) -> tuple[str, str, str, tuple[str, ...], str]:
    """What makes two releases' asserts the same site (their lines may differ)."""
    return (site["f"], site["fn"], site["c"], tuple(site.get("w") or ()), str(site.get("m") or ""))
