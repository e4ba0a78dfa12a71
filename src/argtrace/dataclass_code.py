"""The methods ``dataclasses`` generates, compiled once and kept between runs (issue 18).

When a dataclass is created, ``dataclasses`` writes the source text of its ``__init__``, ``__repr__``,
``__eq__``, ``__hash__`` and (frozen) ``__setattr__``/``__delattr__`` and compiles it with ``exec``. A
short ``check`` creates about 90 dataclasses: compiling their ~430 small functions was a quarter of its CPU
time, the same texts on every run. Python keeps the bytecode of modules (``__pycache__``), not of these.

While :func:`kept` is active, the name ``exec`` in the ``dataclasses`` module (looked up in its globals
before the builtins, in every release from 3.10 to 3.13: ``exec(txt, globals, ns)``) is :meth:`Store.exec`.
It runs the code compiled from exactly that source text on an earlier run, or compiles it as ``exec``
would (no inherited ``__future__`` flags, the interpreter's optimisation level) and keeps it; for a text
that only defines ``__create_fn__`` (all of them) it keeps that function's code and makes the function
itself (:func:`_defined_function`). The lookup is by the whole text, so a changed dataclass can only miss,
never get another class's code. ``_is_type`` and ``_get_field`` are, meanwhile, the same steps with each
annotation's names matched once (:func:`_classifying_once`). The classes are the same objects with the same
methods and fields as without the store: tests/test_dataclass_code30.py builds every dataclass of argtrace
both ways and compares them. The names are put back on exit.

The store is one ``marshal`` file per command and interpreter build in the data cache
(``cache_dirs.data_cache_dir``): each command loads only the methods of the modules it imports (a check's
are 522 texts, 0.6 MB), not every command's.
Like ``__pycache__``, it holds code that will run, so it is read and written only through
``cache_dirs.open_private_dir``: a store in a directory others can write to, a symbolic link, a file that is
not the user's own or that others can write to is ignored (and none is written there), as are a corrupt
file and one written by another interpreter build. A store the user's own account wrote is trusted as
Python trusts ``__pycache__`` (whoever can write the user's files can already change their code).
``ARGTRACE_NO_DATA_CACHE=1`` turns it off.
"""

from __future__ import annotations

import _thread
import functools
import marshal
import operator
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import CellType, CodeType, FunctionType, MemberDescriptorType, ModuleType, SimpleNamespace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# what a method is made from, kept by what its text is made of (_by_names): its __create_fn__ code(s), and
# for __init__ where each of __create_fn__'s arguments comes from (_arguments)
Named = tuple[CodeType | int, ...]

# 2: the ``__create_fn__`` function's code is kept, not the module code that defines it; 3: a method's code
# kept by what its text is made of (_by_names), in place of the text (3.10-3.12); 4: an __init__'s key holds
# each field once, its keyword-only flag in place of the std_fields and kw_only_fields parts (dcls34); 5: a
# method other than __init__ kept as the code of the method its __create_fn__ defines (dcls36)
FORMAT = 5
# entries kept when the store is written: past this, only those this run used (the rest are old texts of
# dataclasses since edited, or of commands run rarely) are kept
MAX_ENTRIES = 4000
_lock = _thread.allocate_lock()  # threading.Lock, without importing threading
_learning = _thread.allocate_lock()  # one method learnt by key at a time (Store.learning)
_active: list[Store] = []  # the store installed by the outermost kept() of this process, while it runs


class _MatchOnce:
    """Stands for ``dataclasses._MODULE_IDENTIFIER_RE`` while the store is installed: the same pattern, each
    annotation text matched once.

    ``dataclasses._is_type`` matches a string annotation (every argtrace annotation: ``from __future__
    import annotations``) against it two or three times per field, to see whether it names ``ClassVar``,
    ``InitVar`` or ``KW_ONLY`` (3.10-3.13, its only use). A match is ~4,600 instructions, ~1,750 of them in
    a check (8 M, 1.5%) for ~150 distinct texts. A match depends on the text alone and a ``re.Match`` cannot
    be changed, so the one kept for a text is what a new match would be; what the names are bound to is still
    looked up in the class's module each time."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.match = functools.lru_cache(maxsize=None)(pattern.match)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.pattern, name)


def _classifying_once(dataclasses: ModuleType, pattern: re.Pattern[str]) -> dict[str, Any]:
    """What stands for ``dataclasses._is_type`` and ``_get_field`` while the store is installed (3.10-3.13;
    their texts are one and the same in 3.11-3.13, 3.10's ``_get_field`` tests a mutable default by its
    class): the same fields and answers, with each annotation text's two names matched once.

    ``_get_field`` makes a field's ``Field`` and asks ``_is_type`` twice whether its string annotation names
    ``typing.ClassVar``, then ``dataclasses.InitVar`` (``_process_class`` asks a third time, for
    ``KW_ONLY``); each call matched the text and looked its names up again: 13.8 M instructions of a check
    for ~580 fields. Here the names are matched once per text and, for a name without a module (nearly all),
    looked up once per field for both questions; what they are bound to is still looked up in the class's
    module on every call, as there, and the predicates (``_is_classvar``, ``_is_initvar``) are the module's.
    Functions (closures), not objects with ``__call__``: calling one is cheaper."""
    matched: dict[str, tuple[str | None, str] | None] = {}
    unseen: Any = object()  # a text not matched yet
    modules = sys.modules
    field_class = dataclasses.Field
    missing = dataclasses.MISSING
    plain, classvar, initvar = dataclasses._FIELD, dataclasses._FIELD_CLASSVAR, dataclasses._FIELD_INITVAR
    unhashable_test = sys.version_info >= (3, 11)  # 3.10: isinstance(default, (list, dict, set))

    def names_of(annotation: str) -> tuple[str | None, str] | None:
        try:
            return matched[annotation]
        except KeyError:
            match = pattern.match(annotation)
            names = matched[annotation] = (match.group(1), match.group(2)) if match else None
            return names

    def _is_type(annotation: str, cls: type, a_module: Any, a_type: Any, is_type_predicate: Any) -> bool:
        # names_of, its call saved for a text seen before (_process_class asks each annotation's KW_ONLY)
        names = matched.get(annotation, unseen)
        if names is unseen:
            names = names_of(annotation)
        if names is None:
            return False
        module_name, name = names
        ns = None
        if not module_name:
            # no module name: the class's module did "from dataclasses import InitVar" (an AttributeError for
            # a class whose module is gone, as there)
            ns = modules.get(cls.__module__).__dict__
        else:
            module = modules.get(cls.__module__)
            if module and module.__dict__.get(module_name) is a_module:
                ns = modules.get(a_type.__module__).__dict__
        if not ns:
            return False
        value = ns.get(name)
        # the three predicates dataclasses passes (_is_classvar, _is_initvar, _is_kw_only) are false for None
        # (a name the module does not bind: str, int, list...), as _get_field below takes it
        return value is not None and bool(is_type_predicate(value, a_module))

    def _get_field(cls: type, a_name: str, a_type: Any, default_kw_only: bool) -> Any:
        default = getattr(cls, a_name, missing)
        if isinstance(default, field_class):
            f = default
        else:
            if isinstance(default, MemberDescriptorType):  # a field in __slots__: no default value
                default = missing
            # field(default=default), without its call: Field(default, default_factory, init, repr, hash,
            # compare, metadata, kw_only) with field()'s other defaults (3.10-3.13)
            f = field_class(default, missing, True, True, None, True, None, missing)
        f.name = a_name
        f.type = a_type
        f._field_type = plain
        typing = modules.get("typing")
        this = modules["dataclasses"]
        if isinstance(a_type, str):
            names = matched.get(a_type, unseen)
            if names is unseen:
                names = names_of(a_type)
            if names is not None and not names[0]:
                # one name without a module: both questions look it up in the class's module
                bound = modules.get(cls.__module__).__dict__
                value = bound.get(names[1])
                # both predicates are false for None (a name the module does not bind: str, int, list...)
                if bound and value is not None:
                    if typing and this._is_classvar(value, typing):
                        f._field_type = classvar
                    elif this._is_initvar(value, this):
                        f._field_type = initvar
            elif names is not None:
                if typing and _is_type(a_type, cls, typing, typing.ClassVar, this._is_classvar):
                    f._field_type = classvar
                elif _is_type(a_type, cls, this, this.InitVar, this._is_initvar):
                    f._field_type = initvar
        else:
            if typing and this._is_classvar(a_type, typing):
                f._field_type = classvar
            elif this._is_initvar(a_type, this):
                f._field_type = initvar
        kind = f._field_type
        if kind is not plain and f.default_factory is not missing:
            raise TypeError(f"field {f.name} cannot have a default factory")
        if kind is plain or kind is initvar:
            if f.kw_only is missing:
                f.kw_only = default_kw_only
        elif f.kw_only is not missing:
            raise TypeError(f"field {f.name} is a ClassVar but specifies kw_only")
        if kind is plain and (
            f.default.__class__.__hash__ is None
            if unhashable_test
            else isinstance(f.default, (list, dict, set))
        ):
            raise ValueError(
                f"mutable default {type(f.default)} for field {f.name} is not allowed: use default_factory"
            )
        return f

    return {"_is_type": _is_type, "_get_field": _get_field}


def _steps_once(dataclasses: ModuleType) -> dict[str, Any]:
    """What stands for ``dataclasses._set_new_attribute``, ``_fields_in_init_order`` and ``_recursive_repr``
    while the store is installed (3.10-3.12: the texts of the three, and of ``_set_qualname``, are one and
    the same in 3.10.13, 3.11.7 and 3.12.1): the same steps with fewer Python calls (dcls34).

    ``_set_new_attribute`` (a check's ~450 methods) with ``_set_qualname`` written in; ``_tuple_str``
    joining the names, not formatting each in a comprehension (dcls36);
    ``_fields_in_init_order`` with the tuples made from lists, not generators; ``_recursive_repr`` (~105
    ``__repr__``, ~13,000 instructions each) makes its ``wrapper`` from the very code ``dataclasses`` compiled
    for it, with the same globals, no defaults and the same two cells, then calls ``functools.update_wrapper``
    as ``functools.wraps(user_function)`` does (the name, qualified name, module, doc and annotations it sets
    hide the ones the function was made with, whose only difference is 3.10's qualified name)."""
    replaced: dict[str, Any] = {}
    module = vars(dataclasses)

    def _set_new_attribute(cls: type, name: str, value: Any) -> bool:
        if name in cls.__dict__:
            return True
        if isinstance(value, FunctionType):
            value.__qualname__ = f"{cls.__qualname__}.{value.__name__}"
        setattr(cls, name, value)
        return False

    def _fields_in_init_order(fields: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        return (
            tuple([f for f in fields if f.init and not f.kw_only]),
            tuple([f for f in fields if f.init and f.kw_only]),
        )

    replaced["_set_new_attribute"] = _set_new_attribute
    replaced["_fields_in_init_order"] = _fields_in_init_order
    names_of = operator.attrgetter("name")
    standard_tuple_str = dataclasses._tuple_str

    def _tuple_str(obj_name: str, fields: Any) -> str:
        # f'({",".join([f"{obj_name}.{f.name}" for f in fields])},)' (3.10.13 dataclasses.py:400, 3.11.7 :401,
        # 3.12.1 :437) without a frame per field; a name that is not a str (never) takes the standard way
        if not fields:
            return "()"
        head = obj_name + "."
        try:
            return "(" + head + ("," + head).join(map(names_of, fields)) + ",)"
        except TypeError:
            return str(standard_tuple_str(obj_name, fields))

    replaced["_tuple_str"] = _tuple_str
    standard = getattr(dataclasses, "_recursive_repr", None)
    inner = [
        c
        for c in getattr(getattr(standard, "__code__", None), "co_consts", ())
        if type(c) is CodeType and c.co_name == "wrapper"
    ]
    if len(inner) == 1 and inner[0].co_freevars == ("repr_running", "user_function"):
        wrapper_code = inner[0]
        update_wrapper = functools.update_wrapper

        def _recursive_repr(user_function: Any) -> Any:
            closure = (CellType(set()), CellType(user_function))
            return update_wrapper(FunctionType(wrapper_code, module, "wrapper", None, closure), user_function)

        replaced["_recursive_repr"] = _recursive_repr
    return replaced


def _by_names(dataclasses: ModuleType, store: Store) -> dict[str, Any]:
    """What stands for ``dataclasses._repr_fn``, ``_cmp_fn``, ``_frozen_get_del_attr`` and ``_hash_fn``
    while the store is installed (3.10-3.12): each makes its method(s) from the ``__create_fn__`` code kept
    for what its text is made of, without writing the text.

    In 3.10-3.12 the text of ``__repr__`` and ``__hash__`` is made of the fields' names alone, that of the
    frozen ``__setattr__`` and ``__delattr__`` of the fields' names (and the class, an argument), and that of
    ``__eq__`` and the ordering methods of the method's name, the operator and the two tuple texts it is
    given; none passes ``_create_fn`` locals but the frozen pair's ``cls`` and ``FrozenInstanceError``. So
    the key is those strings, the method's name first. Writing a text, looking it up by its whole length
    and calling ``_create_fn`` was ~20,000 instructions a method (~400 of a check's 522 methods). The first
    time a key is met the standard function runs (its texts through :meth:`Store.exec`); the code of the
    method each ``__create_fn__`` defines is kept under the key. After that the method is made as the
    ``__create_fn__`` frame makes it (``MAKE_FUNCTION``: the code, the frame's globals, no defaults nor
    annotations; for the frozen pair the cells of ``cls`` and ``FrozenInstanceError`` its free variables
    name): ``FunctionType(code, globals[, closure])``. Keeping the ``__create_fn__`` codes (before dcls36)
    read twice as many codes from the store and ran a frame per method (~1.9 M instructions of a check).
    Globals without ``__builtins__`` (a class whose module is gone) take the standard way."""
    standard = {
        name: getattr(dataclasses, name)
        for name in ("_repr_fn", "_cmp_fn", "_frozen_get_del_attr", "_hash_fn")
    }
    module = vars(dataclasses)

    def learn(key: tuple[Any, ...], count: int, name: str, *args: Any) -> Any:
        if not _plain(args[-1]):  # globals: never asked for by key (kept_for), so not learnt
            return standard[name](*args)
        trail: list[CodeType] = []
        with store.learning(trail, None):
            made = standard[name](*args)
        # every text kept as the code of the function its __create_fn__ defines, as many as the method makes
        methods = [_method_of(code) for code in trail]
        if len(trail) == count and all(method is not None for method in methods):
            store.named_new[key] = tuple(methods)  # type: ignore[arg-type]
            store.used.add(key)
            store.makers.update(id(code) for code in trail)  # their texts: not written (Store.save)
        return made

    def kept_for(key: tuple[Any, ...], globals: Any) -> Any:
        # _plain(globals), without its call
        return store.by_names(key) if type(globals) is dict and "__builtins__" in globals else None

    def _repr_fn(fields: Any, globals: Any) -> Any:
        key = ("__repr__", *[f.name for f in fields])
        codes = kept_for(key, globals)
        if codes is None:
            return learn(key, 1, "_repr_fn", fields, globals)
        return module["_recursive_repr"](FunctionType(codes[0], globals))

    def _cmp_fn(name: str, op: str, self_tuple: str, other_tuple: str, globals: Any) -> Any:
        key = (name, op, self_tuple, other_tuple)
        codes = kept_for(key, globals)
        if codes is None:
            return learn(key, 1, "_cmp_fn", name, op, self_tuple, other_tuple, globals)
        return FunctionType(codes[0], globals)

    def _frozen_get_del_attr(cls: type, fields: Any, globals: Any) -> Any:
        key = ("__setattr__", *[f.name for f in fields])
        codes = kept_for(key, globals)
        if codes is None:
            return learn(key, 2, "_frozen_get_del_attr", cls, fields, globals)
        error, made = module["FrozenInstanceError"], []
        for code in codes:  # the cells __create_fn__(cls=cls, FrozenInstanceError=error) gives each
            cells = {"cls": CellType(cls), "FrozenInstanceError": CellType(error)}
            made.append(FunctionType(code, globals, None, None, tuple([cells[n] for n in code.co_freevars])))
        return tuple(made)

    def _hash_fn(fields: Any, globals: Any) -> Any:
        key = ("__hash__", *[f.name for f in fields])
        codes = kept_for(key, globals)
        if codes is None:
            return learn(key, 1, "_hash_fn", fields, globals)
        return FunctionType(codes[0], globals)

    return {
        "_repr_fn": _repr_fn,
        "_cmp_fn": _cmp_fn,
        "_frozen_get_del_attr": _frozen_get_del_attr,
        "_hash_fn": _hash_fn,
        "_init_fn": _init_by_names(dataclasses, store, kept_for),
    }


def _init_by_names(dataclasses: ModuleType, store: Store, kept_for: Any) -> Any:
    """What stands for ``dataclasses._init_fn`` while the store is installed (3.10-3.12): ``__init__`` made
    from the ``__create_fn__`` code kept for what its text is made of, its arguments taken from the fields
    as the kept recipe says.

    The text of ``__init__`` (``_init_fn``, ``_field_init``, ``_init_param``, ``_create_fn``) is made of
    ``frozen``, ``has_post_init``, ``self_name``, ``slots`` and, for each field of ``fields``, its name and
    whether it is an InitVar, in ``__init__``, has a default, has a factory and is keyword-only: the key.
    ``std_fields`` and ``kw_only_fields`` are the fields in ``__init__`` that are not and that are
    keyword-only, in order (``_fields_in_init_order``, what ``_process_class`` passes in 3.10-3.12), so the
    flags give them; they are compared with that split (by identity), and any other pair takes the standard
    way (before dcls34 each of their fields was in the key again). The values ``__create_fn__`` is called
    with are each field's type, default or factory, or one of four constants; which is which is learnt once
    per key by making the same ``__init__`` from copies of the fields holding a new object in place of each
    (the text does not change: only whether a default or factory is given is read), and kept only when the
    recipe gives the very objects the real call got. Writing the text cost ~8,000 instructions a field
    (~580 in a check)."""
    standard = dataclasses._init_fn
    missing, initvar = dataclasses.MISSING, dataclasses._FIELD_INITVAR
    # an argument of __create_fn__ that is not a field's: by its number in the recipe (-1 to -4)
    constants = (missing, dataclasses._HAS_DEFAULT_FACTORY, object, None)

    def learn(key: tuple[Any, ...], args: tuple[Any, ...]) -> Any:
        if not _plain(args[6]):  # globals: never asked for by key (kept_for), so not learnt
            return standard(*args)
        fields = args[0]
        import copy  # before the lock: never an import while it is held

        recorded: list[dict[str, Any]] = []
        trail: list[CodeType] = []
        with store.learning(trail, recorded):
            made = standard(*args)
            copies, where = {}, {}
            for index, f in enumerate(fields):
                twin = copies[id(f)] = copy.copy(f)
                for kind, attribute in enumerate(("type", "default", "default_factory")):
                    if kind == 0 or getattr(f, attribute) is not missing:
                        mark = _Mark()
                        setattr(twin, attribute, mark)
                        where[id(mark)] = 3 * index + kind
            if all(id(f) in copies for f in (*args[1], *args[2])):
                marked = [[copies[id(f)] for f in part] for part in args[:3]]
                standard(*marked, *args[3:])
        code = trail[0] if trail else None
        # the text's parameters are the arguments' names in order: the recipe gives them by position
        if (
            len(trail) == 2
            and code is trail[1]
            and code.co_name == "__create_fn__"
            and len(recorded) == 2
            and list(recorded[0]) == list(recorded[1]) == list(code.co_varnames[: code.co_argcount])
        ):
            real, marks = recorded
            recipe: list[int] = []
            for value in marks.values():
                found = where.get(id(value)) if type(value) is _Mark else None
                if found is None:
                    found = next((-1 - i for i, known in enumerate(constants) if value is known), None)
                if found is None:
                    return made
                recipe.append(found)
            again = _arguments(recipe, fields, constants)
            if len(again) == len(real) and all(
                one is other for one, other in zip(again, real.values(), strict=True)
            ):
                store.named_new[key] = (code, *recipe)
                store.used.add(key)
        return made

    def _init_fn(
        fields: Any,
        std_fields: Any,
        kw_only_fields: Any,
        frozen: bool,
        has_post_init: bool,
        self_name: str,
        globals: Any,
        slots: bool,
    ) -> Any:
        args = (fields, std_fields, kw_only_fields, frozen, has_post_init, self_name, globals, slots)
        if list(std_fields) != [f for f in fields if f.init and not f.kw_only] or list(kw_only_fields) != [
            f for f in fields if f.init and f.kw_only
        ]:
            return standard(*args)  # not the split the key stands for: never learnt nor served
        key = [
            "__init__",
            1 if frozen else 0,
            1 if has_post_init else 0,
            self_name,
            1 if slots else 0,
            len(fields),
        ]
        for f in fields:
            key.append(f.name)
            # what the text is made of besides the name: InitVar, in __init__, a default, a factory, where
            key.append(
                (1 if f._field_type is initvar else 0)
                + (2 if f.init else 0)
                + (0 if f.default is missing else 4)
                + (0 if f.default_factory is missing else 8)
                + (16 if f.kw_only else 0)
            )
        entry = kept_for(tuple(key), globals)
        if entry is None:
            return learn(tuple(key), args)
        return FunctionType(entry[0], globals)(*_arguments(entry[1:], fields, constants))

    return _init_fn


class _Mark:
    """A field's type, default or factory while ``__init__``'s recipe is learnt: told apart by identity."""

    __slots__ = ()


def _arguments(recipe: Any, fields: Any, constants: tuple[Any, ...]) -> list[Any]:
    """``__create_fn__``'s arguments for ``__init__`` in order, by its recipe: for each, the field's number
    times three plus 0 (its type), 1 (default) or 2 (factory); or -1 minus a constant's number."""
    values = []
    for number in recipe:
        if number < 0:
            values.append(constants[-1 - number])
        else:
            f = fields[number // 3]
            kind = number % 3
            values.append(f.type if kind == 0 else f.default if kind == 1 else f.default_factory)
    return values


def _plain(globals: Any) -> bool:
    """Globals :meth:`Store.exec` makes a kept function with directly (``exec`` would add ``__builtins__``
    to others): a class's module's, not the empty dict of a class whose module is gone."""
    return type(globals) is dict and "__builtins__" in globals


def _recorder(made: FunctionType, recorded: list[dict[str, Any]]) -> Any:
    def __create_fn__(**values: Any) -> Any:
        recorded.append(values)
        return made(**values)

    return __create_fn__


def _build() -> str:
    """What must match for a compiled code object to be valid here: the interpreter's build and its
    optimisation level (``-O`` drops asserts from compiled code)."""
    return repr((FORMAT, sys.version, sys.implementation.cache_tag, marshal.version, sys.flags.optimize))


class Store:
    """The compiled methods read from the store file, and those compiled since."""

    def __init__(self, path: str | None) -> None:
        self.path = path
        self._codes: dict[str, CodeType] | None = None if path is not None else {}
        self.new: dict[str, CodeType] = {}
        self.used: set[Any] = set()  # the texts and keys (by_names) this run used
        # the ``__create_fn__`` codes of a method by what its text is made of (:func:`_by_names`): a tuple
        # of strings (and ints for ``__init__``), the method's name first; read and written with the texts
        self.named: dict[tuple[Any, ...], Named] = {}
        self.named_new: dict[tuple[Any, ...], Named] = {}
        # while a method is learnt (learning()): the codes run and the arguments __create_fn__ got, in the
        # learning thread only
        self.learner: int | None = None
        self.trail: list[CodeType] = []
        self.recorded: list[dict[str, Any]] | None = None
        # the store as read (_read_store): its CRC-32 (None: nothing read), the copies of this module its seal
        # names, and whether every entry read passed this copy's checks (or its seal named this copy)
        self.crc: bytes | None = None
        self.makers: set[int] = set()  # the __create_fn__ codes whose methods were learnt by key (_by_names)
        self.sealed: tuple[str, ...] = ()
        self.fit = False

    @property
    def codes(self) -> dict[str, CodeType]:
        """Read at the first dataclass made, not when the store is installed: a command whose modules are
        all imported already (a warm process's child, argtrace/warm/) makes none and reads nothing."""
        if self._codes is None:
            if self.path is None:
                self._codes, self.named = {}, {}
            else:
                self._codes, self.named, self.crc, self.sealed, self.fit = _read_store(self.path)
        return self._codes

    def exec(self, source: Any, globals: Any = None, locals: Any = None) -> None:
        if not isinstance(source, str):
            exec(source, globals, locals)
            return
        code = self.codes.get(source) or self.new.get(source)
        if code is None:
            code = _defined_function(compile(source, "<string>", "exec", dont_inherit=True))
            self.new[source] = code
        self.used.add(source)
        learning = self.learner is not None and self.learner == _thread.get_ident()
        if learning:
            self.trail.append(code)
        if (
            code.co_name != "<module>"
            and type(globals) is dict
            and "__builtins__" in globals
            and locals is not None
        ):
            # what the module code does: MAKE_FUNCTION (the code's name and qualified name, these globals, no
            # defaults, closure or annotations), then STORE_NAME into the namespace; ``exec`` would add
            # ``__builtins__`` to globals that lack it, so only globals that have it take this way
            made = FunctionType(code, globals)
            if learning and self.recorded is not None:  # what the method is made of: _init_fn's recipe
                locals[code.co_name] = _recorder(made, self.recorded)
            else:
                locals[code.co_name] = made
            return
        exec(_module_code(source, code), globals, locals)

    @contextmanager
    def learning(self, trail: list[CodeType], recorded: list[dict[str, Any]] | None) -> Iterator[None]:
        """The codes :meth:`exec` runs in this thread go to ``trail`` (and ``__create_fn__``'s arguments to
        ``recorded``) meanwhile; one method is learnt at a time (another thread's class waits)."""
        with _learning:
            self.learner, self.trail, self.recorded = _thread.get_ident(), trail, recorded
            try:
                yield
            finally:
                self.learner, self.trail, self.recorded = None, [], None

    def by_names(self, key: tuple[Any, ...]) -> Named | None:
        """The codes kept for a method made of ``key`` (:func:`_by_names`), reading the store if not yet."""
        if self._codes is None:
            self.codes  # noqa: B018 - reads both tables
        codes = self.named.get(key) or self.named_new.get(key)
        if codes is not None:
            self.used.add(key)
        return codes

    def save(self) -> None:
        """Write the store when this run compiled anything (atomically: concurrent runs lose at most their own
        additions), then its seal; only the seal, naming this copy too, when it checked every entry read."""
        if self.path is None:
            return
        me = _checker()
        if not (self.new or self.named_new):
            if me is not None and self.crc is not None and self.fit and me not in self.sealed:
                _write_seal(self.path, self.crc, (*self.sealed[1 - MAX_SEALS :], me))
            return
        # what this run learnt passes the checks a read makes (it does, as made: a seal says every entry did)
        codes: dict[Any, Any] = {**self.codes, **self.new}
        named = {**self.named, **{key: kept for key, kept in self.named_new.items() if _fits_key(key, kept)}}
        if len(codes) + len(named) > MAX_ENTRIES:
            codes = {text: code for text, code in codes.items() if text in self.used}
            named = {key: code for key, code in named.items() if key in self.used}
        from argtrace.cache_dirs import dumps_checked, write_private_file

        # a text kept under what it is made of is not looked up by its text again (the same interpreter build
        # takes the same way): not written
        by_names = {id(code) for kept in named.values() for code in kept} | self.makers
        new = self.new
        codes = {
            text: code
            for text, code in codes.items()
            if id(code) not in by_names and (text not in new or _fits_text(text, code))
        }
        codes.update(named)
        data = dumps_checked((_build(), codes))  # behind its CRC-32; None: marshal refused it
        if data is not None and write_private_file(self.path, data) and me is not None:
            # every entry written was read from a store this copy checked (or had sealed), or learnt and
            # checked above
            _write_seal(self.path, _crc_of(data), (me,))


def _defined_function(module: CodeType) -> CodeType:
    """The code of the one function ``module`` defines when all it does is define it (every text
    ``dataclasses`` writes, 3.10-3.13: ``def __create_fn__(...):`` and its body, nothing at the top level
    after it), else ``module`` itself.

    Unmarshalling a code object costs ~7,000 instructions; a check's store held 522 texts, each a module code,
    its ``__create_fn__`` and the method(s) inside: keeping the function's code drops a third of them, and
    making the function directly skips running a module frame per method."""
    inner = [c for c in module.co_consts if isinstance(c, CodeType)]
    if (
        len(inner) == 1
        and module.co_names == (inner[0].co_name,)
        and inner[0].co_name == getattr(inner[0], "co_qualname", "__create_fn__") == "__create_fn__"
        and not inner[0].co_freevars
        and module.co_consts[0] is inner[0]
        # nothing at the top level but the definition, as the interpreter compiles one
        and module.co_code == _plain_definition().co_code
        and module.co_consts[1:] == _plain_definition().co_consts[1:]
    ):
        return inner[0]
    return module


@functools.lru_cache(maxsize=1)
def _plain_definition() -> CodeType:
    return compile("def __create_fn__(): pass", "<string>", "exec", dont_inherit=True)


def _module_code(source: str, code: CodeType) -> CodeType:
    """The module code to ``exec``: ``code`` itself when it is one, else compiled again from ``source``."""
    return code if code.co_name == "<module>" else compile(source, "<string>", "exec", dont_inherit=True)


def _read(path: str) -> dict[Any, Any]:
    """Every entry of the store: the codes by text and the methods by key."""
    texts, named = _read_all(path)
    return {**texts, **named}


def _read_all(path: str) -> tuple[dict[str, CodeType], dict[tuple[Any, ...], Named]]:
    """The kept codes by text, and by what a method's text is made of (:func:`_by_names`)."""
    texts, named, _, _, _ = _read_store(path)
    return texts, named


# The seal (dcls36): a file beside the store holding its CRC-32 and the copies of this module (_checker) that
# checked every entry of that very store or learnt it. A store whose seal names this copy is read without the
# checks below (_fits_text, _fits_key: 5.9 M instructions of a check); any other store (no seal, a damaged
# one, of another build or CRC-32, naming only other copies: argtrace upgraded, another checkout) is checked
# entry by entry as before, and sealed after a run that found every entry fit. The seal is read as the store
# is (open_private_dir, read_private); a copy is told by its file's mtime and size, as Python tells a pyc.
SEAL_SUFFIX = ".seal"
MAX_SEALS = 4  # copies a seal names at most (the newest): checkouts sharing one data cache stop re-checking


@functools.lru_cache(maxsize=1)
def _checker() -> str | None:
    """This copy of the module: its file, the file's mtime (ns) and size; None without a file (no seal)."""
    path = globals().get("__file__")
    if not isinstance(path, str):
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return f"{os.path.abspath(path)}\n{stat.st_mtime_ns}\n{stat.st_size}"


def _crc_of(data: bytes) -> bytes:
    """The CRC-32 in the head :func:`cache_dirs.with_crc` wrote on ``data`` (4 bytes)."""
    from argtrace.cache_dirs import CRC_MARK

    return bytes(data[len(CRC_MARK) : len(CRC_MARK) + 4])


def _sealers(raw: bytes | None, crc: bytes) -> tuple[str, ...]:
    """The copies of this module a seal names for the store of CRC-32 ``crc`` (none: see the seal above)."""
    from argtrace.cache_dirs import loads_checked

    stored = loads_checked(raw)
    if not (type(stored) is tuple and len(stored) == 3 and stored[0] == _build() and stored[1] == crc):
        return ()
    sealers = stored[2]
    if type(sealers) is not tuple or not all(type(name) is str for name in sealers):
        return ()
    return sealers


def _write_seal(path: str, crc: bytes, sealers: tuple[str, ...]) -> None:
    from argtrace.cache_dirs import dumps_checked, write_private_file

    data = dumps_checked((_build(), crc, sealers))
    if data is not None:
        write_private_file(path + SEAL_SUFFIX, data)


def _read_store(
    path: str,
) -> tuple[dict[str, CodeType], dict[tuple[Any, ...], Named], bytes | None, Any, bool]:
    """The kept codes by text and by key, the store's CRC-32 (None: nothing read), the copies its seal
    names, and whether every entry fit (or the seal named this copy, and nothing was checked)."""
    from argtrace.cache_dirs import crc_checked, open_private_dir, read_private

    directory, name = os.path.split(os.path.abspath(path))
    # not a link, the user's own, in a directory nobody else can write to: the store and its seal alike
    dir_fd = open_private_dir(directory)
    if dir_fd is None:
        return {}, {}, None, (), False
    try:
        raw = read_private(dir_fd, name)
        data = crc_checked(raw)  # None: absent, cut short or damaged (its CRC-32)
        if raw is None or data is None:
            return {}, {}, None, (), False
        crc = _crc_of(raw)
        sealed = _sealers(read_private(dir_fd, name + SEAL_SUFFIX), crc)
    finally:
        os.close(dir_fd)
    try:
        stored = marshal.loads(data)
    except (EOFError, ValueError, TypeError, MemoryError):  # as cache_dirs.loads_checked
        return {}, {}, None, (), False
    if not (isinstance(stored, tuple) and len(stored) == 2):
        return {}, {}, None, (), False
    build, codes = stored
    if build != _build() or not isinstance(codes, dict):
        return {}, {}, None, (), False
    texts, named = {}, {}
    me = _checker()
    if me is not None and me in sealed:
        # every entry was checked by this very copy when it was read or learnt, and the store is unchanged
        for key, code in codes.items():
            if type(key) is str:
                texts[key] = code
            elif type(key) is tuple:
                named[key] = code
        return texts, named, crc, sealed, True
    fit = True
    for key, code in codes.items():
        if type(key) is str:
            if isinstance(code, CodeType) and _fits_text(key, code):
                texts[key] = code
                continue
        elif type(key) is tuple and key and type(code) is tuple and code and _fits_key(key, code):
            named[key] = code
            continue
        fit = False
    return texts, named, crc, sealed, fit


# An entry that passed its CRC-32 but could not have been written for its key (a store of another writer,
# or made by hand) is left out, as a damaged one is: called, it would raise inside ``dataclasses`` (a recipe
# number past the fields: IndexError; a code taking other arguments: TypeError) and end every command in an
# internal error (safe33). What a well-formed code does when run is not checked: a store only the user's
# own account can write is believed as ``__pycache__`` is (``resolver/data_cache.py``).


def _fits_text(text: str, code: CodeType) -> bool:
    """Whether ``code`` can stand for ``text``: the function it defines, taking the parameters of the
    text's ``def __create_fn__(...)`` line, or a module code that defines ``__create_fn__``."""
    if code.co_name == "<module>":
        return "__create_fn__" in code.co_names
    head = text.partition("\n")[0]
    if not _fits_maker(code) or not head.startswith("def __create_fn__("):
        return False
    params = head[len("def __create_fn__(") :].rpartition(")")[0]
    return [p.strip() for p in params.split(",") if p.strip()] == list(code.co_varnames[: code.co_argcount])


def _fits_maker(code: Any) -> bool:
    """Whether ``code`` can be made a function as :meth:`Store.exec` and :func:`_by_names` make one
    (``FunctionType(code, globals)``: a code with free variables needs a closure, a TypeError there) and
    called with its named parameters, by position or by name (none positional-only or keyword-only)."""
    return (
        type(code) is CodeType
        and code.co_name == "__create_fn__"
        and not code.co_kwonlyargcount
        and not code.co_posonlyargcount
        and not code.co_freevars
    )


_FROZEN_PARAMETERS = ("cls", "FrozenInstanceError")
# the parameters of each method kept as its own code (_by_names), by name: the comparisons' (_cmp_fn) and the
# frozen pair's (_frozen_get_del_attr) as 3.10-3.12 write them
_METHOD_PARAMETERS = {
    **dict.fromkeys(("__repr__", "__hash__"), ("self",)),
    **dict.fromkeys(("__eq__", "__lt__", "__le__", "__gt__", "__ge__"), ("self", "other")),
    **{"__setattr__": ("self", "name", "value"), "__delattr__": ("self", "name")},
}


def _method_of(code: Any) -> CodeType | None:
    """The code of the one function the ``__create_fn__`` code ``code`` defines (a ``def`` and its
    ``return``, every text of 3.10-3.12 but ``__init__``'s), when it can be made as :func:`_by_names` makes
    it; else None (not kept)."""
    if not _fits_maker(code):
        return None
    inner = [c for c in code.co_consts if type(c) is CodeType]
    if len(inner) != 1 or not _fits_method(inner[0], inner[0].co_name):
        return None
    return inner[0]


def _fits_method(code: Any, name: str) -> bool:
    """Whether ``code`` can be method ``name`` made with ``FunctionType(code, globals[, cells])`` (a cell
    for each free variable: ``cls`` and ``FrozenInstanceError`` for the frozen pair, none for the others) and
    called as Python calls that method."""
    parameters = _METHOD_PARAMETERS.get(name)
    frozen = name in ("__setattr__", "__delattr__")
    return (
        type(code) is CodeType
        and parameters is not None
        and code.co_name == name
        and code.co_varnames[: code.co_argcount] == parameters
        and not code.co_kwonlyargcount
        and not code.co_posonlyargcount
        and not code.co_flags & 0x0C  # no *args, no **kwargs
        and (set(code.co_freevars) <= set(_FROZEN_PARAMETERS) if frozen else not code.co_freevars)
    )


@functools.lru_cache(maxsize=1)
def _parameter_names() -> tuple[str, str, str, str] | None:
    """What the running ``dataclasses`` names ``__init__``'s parameter for a field's type and for its default
    or factory, around the field's name: (type prefix, type suffix, default prefix, default suffix), asked
    of its own ``_init_param`` (3.10-3.12). 3.10 and 3.11 write ``_type_NAME`` and ``_dflt_NAME``
    (3.11.7 dataclasses.py:525, 521), 3.12 ``__dataclass_type_NAME__`` and ``__dataclass_dflt_NAME__``
    (3.12.1 dataclasses.py:565, 561): names typed here for one release rejected every other release's
    ``__init__`` entries, learnt again on every run. None (no entry fits) when it cannot be asked."""

    dataclasses = _import_dataclasses()
    # a field with a default, named "@" (in no parameter name dataclasses writes)
    probe = SimpleNamespace(name="@", default=None, default_factory=dataclasses.MISSING)
    try:
        text = dataclasses._init_param(probe)
    except Exception:  # another dataclasses: no __init__ entry is believed
        return None
    if not isinstance(text, str):
        return None
    # "@:<type prefix>@<type suffix>=<default prefix>@<default suffix>"
    head, _, rest = text.partition(":")
    typed, _, defaulted = rest.partition("=")
    type_parts, default_parts = typed.split("@"), defaulted.split("@")
    if head != "@" or len(type_parts) != 2 or len(default_parts) != 2:
        return None
    if not type_parts[0] or not default_parts[0]:
        return None
    return type_parts[0], type_parts[1], default_parts[0], default_parts[1]


def _fits_key(key: tuple[Any, ...], codes: tuple[Any, ...]) -> bool:
    """Whether ``codes`` can be a method made of ``key`` (:func:`_by_names`): ``__init__``'s code and one
    number per parameter, each naming a constant or a type, default or factory its field has (the key's
    flags, ``_init_by_names``); any other method's code, the frozen pair's two, each as :func:`_fits_method`
    says (the method's name and parameters; free variables only ``cls`` and ``FrozenInstanceError``).

    Checked for every entry of a store read without this copy's seal (a check's ~440): the parameter each
    field number may name is listed once per key, not formatted per parameter (dcls34: 7.4 M -> ~2.5 M
    instructions)."""
    code = codes[0]
    method = key[0]
    if method == "__init__":
        if not _fits_maker(code):
            return False
        count = key[5] if len(key) > 5 else None
        recipe = codes[1:]
        if type(count) is not int or len(key) < 6 + 2 * count or len(recipe) != code.co_argcount:
            return False
        parameter_names = _parameter_names()
        if parameter_names is None:
            return False
        type_prefix, type_suffix, default_prefix, default_suffix = parameter_names
        # the parameter dataclasses names after field i: for its type (number 3i), for its default (3i + 1,
        # when its flags say it has one) or for its factory (3i + 2)
        named: dict[int, str] = {}
        number = 0
        for name, flag in zip(key[6 : 6 + 2 * count : 2], key[7 : 6 + 2 * count : 2], strict=False):
            if type(flag) is not int or type(name) is not str:
                return False
            named[number] = type_prefix + name + type_suffix
            if flag & 4:
                named[number + 1] = default_prefix + name + default_suffix
            if flag & 8:
                named[number + 2] = default_prefix + name + default_suffix
            number += 3
        for number, parameter in zip(recipe, code.co_varnames, strict=False):
            if type(number) is not int:
                return False
            if number >= 0:
                if named.get(number) != parameter:
                    return False
            # a constant's (-1 to -4), which is named after no field
            elif number < -4 or parameter.startswith((type_prefix, default_prefix)):
                return False
        return True
    if method == "__setattr__":
        pair = len(codes) == 2
        return pair and _fits_method(codes[0], "__setattr__") and _fits_method(codes[1], "__delattr__")
    return len(codes) == 1 and _fits_method(codes[0], method)


def store_path(command: str = "argtrace") -> str | None:
    from argtrace.cache_dirs import data_cache_dir, data_cache_enabled

    if not data_cache_enabled() or not hasattr(os, "getuid"):
        return None
    name = f"dataclass-code-{command}-{sys.implementation.cache_tag}.marshal"
    return os.path.join(data_cache_dir(), name)


class _InspectOnFirstUse(ModuleType):
    """Stands for ``inspect`` in ``dataclasses`` until an attribute is asked for, then imports it.

    ``dataclasses`` imports ``inspect`` at the top (3.10-3.13) but on 3.10 and 3.11 uses it only to write
    a docstring for a class that has none (``inspect.signature``), and every argtrace dataclass has one.
    ``inspect`` brings ``ast``, ``dis``, ``tokenize`` and ``token``: 36 M instructions, 6% of a short
    check. Any use still gets the real module: the first attribute read imports it and puts it in
    ``dataclasses``' globals in place of this one (3.12+'s ``inspect.get_annotations`` does so at the
    first dataclass, costing what it did before)."""

    def __getattr__(self, name: str) -> Any:
        import importlib

        if sys.modules.get("inspect") is self:
            del sys.modules["inspect"]
        real = importlib.import_module("inspect")
        owner = sys.modules.get("dataclasses")
        if owner is not None and getattr(owner, "inspect", None) is self:
            owner.inspect = real  # type: ignore[attr-defined]
        return getattr(real, name)


def _import_dataclasses() -> ModuleType:
    """``dataclasses``, imported with ``inspect`` deferred to its first use when neither is loaded yet."""
    if "dataclasses" in sys.modules or "inspect" in sys.modules:
        import dataclasses

        return dataclasses
    stand_in = _InspectOnFirstUse("inspect")
    sys.modules["inspect"] = stand_in
    try:
        import dataclasses
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
    return dataclasses


@contextmanager
def kept(path: str | None = None, command: str = "argtrace") -> Iterator[Store | None]:
    """Dataclasses created inside use (and add to) the store at ``path`` (default: ``command``'s store,
    :func:`store_path`).
    Nested or concurrent uses share the outermost one's store; it is written when that one ends."""
    dataclasses = _import_dataclasses()
    identifier: Any = None
    standard: dict[str, Any] = {}
    with _lock:
        outer = not _active
        if outer:
            chosen = path if path is not None else store_path(command)
            if chosen is None:
                outer = False
            else:
                store = Store(chosen)
                _active.append(store)
                dataclasses.exec = store.exec  # type: ignore[attr-defined]
                identifier = getattr(dataclasses, "_MODULE_IDENTIFIER_RE", None)
                if isinstance(identifier, re.Pattern):
                    dataclasses._MODULE_IDENTIFIER_RE = _MatchOnce(identifier)  # type: ignore[attr-defined]
                    if (3, 10) <= sys.version_info[:2] <= (3, 13):
                        replaced = _classifying_once(dataclasses, identifier)
                        if sys.version_info[:2] <= (3, 12):  # 3.13 writes every method in one text
                            replaced.update(_by_names(dataclasses, store))
                            replaced.update(_steps_once(dataclasses))
                        standard = {name: getattr(dataclasses, name) for name in replaced}
                        vars(dataclasses).update(replaced)
    if not outer:
        yield _active[0] if _active else None
        return
    try:
        yield store
    finally:
        with _lock:
            _active.clear()
            del dataclasses.exec
            if isinstance(identifier, re.Pattern):
                dataclasses._MODULE_IDENTIFIER_RE = identifier  # type: ignore[attr-defined]
            vars(dataclasses).update(standard)
        store.save()
