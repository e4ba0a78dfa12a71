"""A dataclass whose class processing waits until the class is first used (issue 18, store37).

``dataclasses.dataclass`` processes a class when its module is imported: its fields, then ``__init__``,
``__repr__``, ``__eq__``, ``__hash__`` and the rest, ~0.1-0.4 M instructions a class even with the method
store (``dataclass_code``). About 25 of the ~89 dataclasses a check's imports define get no instance in the
shipped example's check (``EnvEdit``, ``OptionSpec``, ``Unfollowed``...): :func:`dataclass` marks such a
class instead, and the first use processes it with ``dataclasses.dataclass`` and the very same arguments, so
it ends the same class object with the same methods and fields as if processed at import.

Marking puts a stand-in (:class:`_Waiting`) in the class's own namespace under every name processing reads
back or sets: ``__dataclass_fields__`` and ``__dataclass_params__`` (``fields()``, ``is_dataclass()``,
``asdict()``, a dataclass subclass's processing), the methods it would write (``__init__``: every call
making an instance; ``__repr__``, ``__eq__``, ``__hash__``, the ordering and the frozen pair: an instance
made without ``__init__``, as pickle and ``copy`` make one), ``__match_args__``, and each field whose class
attribute is a ``Field`` (``field(...)``: processing leaves the default there, or nothing). Reading any of
them from the class, a subclass or an instance (the interpreter's slots read them so: ``hash()``, ``==``,
``repr()``, a frozen instance's ``setattr``) processes the class first and answers from the processed
class. ``__new__`` is left alone: a ``__new__`` put in a class's namespace and deleted leaves the type's
slot calling ``object.__new__`` with the arguments (CPython's ``update_one_slot``), which then refuses them.
What the namespace held under those names is put back before processing (in place: it keeps its order),
except the two tables, which processing overwrites and never reads first: they stay until it ends, so
another thread asking ``fields()`` meanwhile waits for the lock. A thread could still meet a method name
between its stand-in's removal and processing's ``setattr``: argtrace's threads that run checks (the fleet
readers, ``layers/fleet/parallel.py``) start after :func:`process_all`; the others read pipes.
Before its first use ``vars(cls)`` shows the stand-ins; nothing in argtrace reads a dataclass's namespace.

Only a class processing would leave the same object is marked: no ``slots=True`` or ``weakref_slot``
(those make a new class), a docstring of its own (else ``dataclasses`` writes one from the signature).
mypy sees ``dataclasses.dataclass`` itself (re-exported under ``TYPE_CHECKING``).
A warm server processes every marked class before it forks (:func:`process_all`)."""

from __future__ import annotations

import _thread
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    # mypy sees dataclasses.dataclass itself (an explicit re-export): the same fields, methods and checks
    from dataclasses import dataclass as dataclass
    from typing import Any

_lock = _thread.RLock()  # one class processed at a time; processing a class processes its bases first
_ABSENT: Any = object()  # a name the class's namespace did not hold
# what each marked class waits with: dataclass()'s arguments, then what its namespace held under each name
# put back before processing, and under each name kept until processing ends
_pending: dict[type, tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = {}
_LATE = ("__dataclass_params__", "__dataclass_fields__")  # in the order processing sets them
_ACCEPTED = frozenset(("init", "repr", "eq", "order", "unsafe_hash", "frozen", "match_args", "kw_only"))


class _Waiting:
    """Stands for ``name`` in a marked class's namespace: read, it processes the class, then reads again."""

    __slots__ = ("cls", "name")

    def __init__(self, cls: type, name: str) -> None:
        self.cls = cls
        self.name = name

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        try:
            process(self.cls)
        except AttributeError as error:  # raised here, it would read as "no such attribute"
            raise RuntimeError(f"processing dataclass {self.cls.__qualname__} failed") from error
        if instance is not None:
            return getattr(instance, self.name)
        return getattr(owner if owner is not None else self.cls, self.name)


if not TYPE_CHECKING:

    def dataclass(cls: Any = None, /, **params: Any) -> Any:
        """``dataclasses.dataclass(cls, **params)``, done when the class is first used (see the module)."""

        def wrap(cls: type) -> type:
            return mark(cls, params)

        return wrap if cls is None else wrap(cls)


def mark(cls: type, params: dict[str, Any]) -> type:
    """Mark ``cls`` to be processed with ``params`` at its first use; processed now when that could make
    another class or another docstring, or when it could not be marked."""
    import dataclasses

    own = cls.__dict__
    if not set(params) <= _ACCEPTED or not own.get("__doc__") or any(name in own for name in _LATE):
        return dataclasses.dataclass(cls, **params)
    names = ["__hash__"]
    if params.get("init", True):
        names.append("__init__")
    if params.get("repr", True):
        names.append("__repr__")
    if params.get("eq", True):
        names.append("__eq__")
    if params.get("order", False):
        names += ["__lt__", "__le__", "__gt__", "__ge__"]
    if params.get("frozen", False):
        names += ["__setattr__", "__delattr__"]
    if params.get("match_args", True):
        names.append("__match_args__")
    field_class = dataclasses.Field
    names += [name for name in own.get("__annotations__", {}) if isinstance(own.get(name), field_class)]
    early = {name: own.get(name, _ABSENT) for name in names}
    late = dict.fromkeys(_LATE, _ABSENT)
    with _lock:
        _pending[cls] = (params, early, late)
        for name in (*_LATE, *early):
            setattr(cls, name, _Waiting(cls, name))
    return cls


def process(cls: type) -> None:
    """Process ``cls`` as ``dataclasses.dataclass`` would have at import, if it is still marked."""
    with _lock:
        waiting = _pending.pop(cls, None)
        if waiting is None:
            return
        params, early, late = waiting
        _put_back(cls, early)
        try:
            sys.modules["dataclasses"].dataclass(cls, **params)
        finally:
            # processing set both tables (over the stand-ins, in their place); __new__ it never sets
            _put_back(
                cls, {name: value for name, value in late.items() if type(cls.__dict__.get(name)) is _Waiting}
            )


def _put_back(cls: type, saved: dict[str, Any]) -> None:
    for name, value in saved.items():
        if value is _ABSENT:
            delattr(cls, name)
        else:
            setattr(cls, name, value)


def process_all() -> None:
    """Process every marked class: before threads that may make them start (no thread then meets a class
    half processed), and in a warm server before it forks (its children share the result)."""
    with _lock:
        while _pending:
            process(next(iter(_pending)))


def pending() -> tuple[str, ...]:
    """The marked classes not processed yet, as ``module:qualified name``, in the order marked."""
    with _lock:
        return tuple(f"{cls.__module__}:{cls.__qualname__}" for cls in _pending)
