"""The evaluator's picture of a running bash: variables, positional parameters, functions, cwd, options.

Values are kept as latin-1 text (one character per byte, like the script text) and converted to real
strings only when a word leaves the shell layer. ``None`` means "not known statically"; the ``reason``
says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

UNKNOWN_ARRAY: dict[Any, str | None] = {}


@dataclass(frozen=True)
class Var:
    """A shell variable as the evaluator knows it: its value or array (or why it is unknown), its
    attributes, and where and how it was last assigned."""

    value: str | None = None  # scalar text; None with known=False: unknown
    array: tuple[tuple[Any, str | None], ...] | None = None  # (index, text) pairs for indexed/assoc arrays
    exported: bool = False
    readonly: bool = False
    integer: bool = False
    assoc: bool = False
    is_set: bool = True  # False for "declare x" / "export x" / "local x" without a value
    known: bool = True
    reason: str | None = None
    at: str | None = None  # where it was last assigned
    expansion: str | None = None  # how (the assignment's source text, or "environment")
    # why what is assigned to it is not what it holds, when argtrace does not follow that (`declare -l`
    # converts case; a `declare -n` name reference, and its target, change each other): every value
    # assigned from then on is unknown, with this reason
    unfollowed: str | None = None

    def with_(self, **kw: Any) -> Var:
        """A copy with ``kw`` changed (what ``dataclasses.replace`` gives, at a fifth of its cost: a 1 MB
        script makes tens of thousands of these)."""
        if not _VAR_FIELDS.issuperset(kw):
            return replace(self, **kw)  # its TypeError for a name that is not a field
        new = object.__new__(Var)
        d = new.__dict__
        d.update(self.__dict__)
        d.update(kw)
        return new

    @property
    def scalar(self) -> str | None:
        """The value as ``$name`` sees it (element 0 for arrays)."""
        if not self.known:
            return None
        if self.array is not None:
            for k, v in self.array:
                if k == 0 or (self.assoc and k == "0"):
                    return v
            return ""
        return self.value


_VAR_FIELDS = frozenset(f.name for f in fields(Var))
# made by the dataclass's own __init__: its instance dict shares the class's keys, and so do the copies
# of it (a copy of a plain dict of the defaults took 464 bytes a Var instead of 280: +6 MB of peak memory
# for a 1 MB script)
_VAR_DEFAULTS = Var().__dict__


def new_var(**kw: Any) -> Var:
    """``Var(**kw)``, built as ``with_`` builds its copies: the frozen dataclass's ``__init__`` sets each of
    its 11 fields through ``object.__setattr__``, at 2-3 times the cost (a 1 MB script assigns some 20,000
    variables and reads 3,400 from the environment, issue 18). Equal, field for field, to ``Var(**kw)``."""
    if not _VAR_FIELDS.issuperset(kw):
        return Var(**kw)  # its TypeError for a name that is not a field
    new = object.__new__(Var)
    d = new.__dict__
    d.update(_VAR_DEFAULTS)
    d.update(kw)
    return new


@dataclass
class Snapshot:
    """A copy of the evaluator's shell state (variables, positional parameters, functions, cwd, options),
    restored when a subshell ends."""

    scopes: list[dict[str, Var]]
    positional: list[str] | None
    positional_reason: str | None
    funcs: dict[str, Any]
    cwd: str | None
    cwd_reason: str | None
    options: set[str]
    extra: dict[str, Any] = field(default_factory=dict)
