"""Methods made by key (dataclass_code._by_names, session 32, issue 18): classes that differ in one thing a
method's text is made of each get their own method, learnt and served from the store, and equal to the
class ``dataclasses`` makes without it; a store entry of another shape is ignored."""

from __future__ import annotations

import dataclasses
import marshal
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code
from argtrace.cache_dirs import crc_checked, with_crc

HEAD = "from __future__ import annotations\nfrom dataclasses import InitVar, dataclass, field\n"
POST = "\n    def __post_init__(self, *args):\n        self.seen = args\n"
BY_KEY = (3, 10) <= sys.version_info[:2] <= (3, 12)  # 3.13 writes a class's methods in one text
ADDRESS = re.compile(r" at 0x[0-9a-f]+")  # the processes' objects differ
SET_B = "\n    def __post_init__(self):\n        self.b = 3\n"

# Each class has fields named a and b (self, once) and differs from another in one thing only: whether a
# field has a default, a factory, is in __init__, is an InitVar, keyword-only, compared, shown, hashed;
# frozen, slots, order, unsafe_hash, eq, a __post_init__. Made in one store, a key that missed any of
# these would serve one class another's method.
VARIANTS = {
    "plain": ("@dataclass", "a: int\n    b: int = 1", ""),
    "factory": ("@dataclass", "a: int\n    b: list = field(default_factory=list)", ""),
    "no init default": ("@dataclass", "a: int\n    b: int = field(default=1, init=False)", ""),
    "no init factory": ("@dataclass", "a: int\n    b: list = field(default_factory=list, init=False)", ""),
    "no init bare": ("@dataclass", "a: int\n    b: int = field(init=False)", SET_B),
    "initvar": ("@dataclass", "a: int\n    b: InitVar[int] = 1", POST),
    "initvar bare": ("@dataclass", "a: int = 0\n    b: InitVar[int] = 2", ""),
    "post init": ("@dataclass", "a: int\n    b: int = 1", POST),
    "frozen": ("@dataclass(frozen=True)", "a: int\n    b: int = 1", ""),
    "frozen no eq": ("@dataclass(frozen=True, eq=False)", "a: int\n    b: int = 1", ""),
    "slots": ("@dataclass(slots=True)", "a: int\n    b: int = field(default=1, init=False)", ""),
    "slots frozen": (
        "@dataclass(slots=True, frozen=True)",
        "a: int\n    b: int = field(default=1, init=False)",
        "",
    ),
    "kw only": ("@dataclass", "a: int\n    b: int = field(default=1, kw_only=True)", ""),
    "kw only all": ("@dataclass(kw_only=True)", "a: int\n    b: int = 1", ""),
    "kw only bare": ("@dataclass", "b: int = field(kw_only=True)\n    a: int = 1", ""),
    "order": ("@dataclass(order=True)", "a: int\n    b: int = 1", ""),
    "not compared": ("@dataclass(order=True)", "a: int\n    b: int = field(default=1, compare=False)", ""),
    "not shown": ("@dataclass", "a: int\n    b: int = field(default=1, repr=False)", ""),
    "unsafe hash": ("@dataclass(unsafe_hash=True)", "a: int\n    b: int = 1", ""),
    "not hashed": ("@dataclass(frozen=True)", "a: int\n    b: int = field(default=1, hash=False)", ""),
    "self": ("@dataclass", "self: int\n    b: int = 1", ""),
    "reordered": ("@dataclass", "b: int\n    a: int = 1", ""),
    "shared default": ("@dataclass", "a: object = None\n    b: object = None", ""),
    "typed": ("@dataclass", "a: str\n    b: str = 'x'", ""),
}


def build(store: Path | None, prefix: str = "variant32") -> dict[str, type]:
    """Every variant, each in a module of its own (registered: its class's methods take its globals)."""
    made = {}
    for number, (name, (decorator, body, extra)) in enumerate(VARIANTS.items()):
        module_name = f"{prefix}_{number}"
        module = types.ModuleType(module_name)
        sys.modules[module_name] = module
        text = HEAD + f"{decorator}\nclass C:\n    {body}\n{extra}"
        code = compile(text, f"<{name}>", "exec", dont_inherit=True)
        try:
            if store is None:
                exec(code, module.__dict__)
            else:
                with dataclass_code.kept(str(store)):
                    exec(code, module.__dict__)
        finally:
            del sys.modules[module_name]
        made[name] = module.C
    return made


def code_of(co: types.CodeType) -> tuple[Any, ...]:
    consts = tuple(code_of(c) if isinstance(c, types.CodeType) else c for c in co.co_consts)
    return (
        co.co_code,
        consts,
        co.co_names,
        co.co_varnames,
        co.co_freevars,
        co.co_cellvars,
        getattr(co, "co_qualname", None),
    )


def function(fn: Any) -> Any:
    if not isinstance(fn, types.FunctionType):
        return repr(fn) if not isinstance(fn, tuple) else fn
    return {
        "code": code_of(fn.__code__),
        "name": (fn.__name__, fn.__qualname__, fn.__module__),
        "defaults": repr(fn.__defaults__),
        "kwdefaults": repr(fn.__kwdefaults__),
        "annotations": repr(fn.__annotations__),
        "closure": [ADDRESS.sub("", repr(cell.cell_contents)) for cell in fn.__closure__ or ()],
        "wrapped": function(fn.__wrapped__) if hasattr(fn, "__wrapped__") else None,
    }


def describe(cls: type) -> dict[str, Any]:
    own = {key: function(value) for key, value in vars(cls).items() if key not in ("__dict__", "__weakref__")}
    own.pop("__dataclass_fields__")
    fields = [
        (f.name, f.type, repr(f.default), f.init, f.kw_only, f._field_type) for f in dataclasses.fields(cls)
    ]
    required = [f.name for f in dataclasses.fields(cls) if f.init and f.default is dataclasses.MISSING]
    one = cls(**dict.fromkeys(required, 5))
    try:
        shown = repr(one)
    except AttributeError as error:  # a field not in __init__ and without a default is not set
        shown = str(error)
    seen = [shown, one == cls(**dict.fromkeys(required, 5)), getattr(one, "seen", None)]
    try:
        seen.append(hash(one) == hash(cls(**dict.fromkeys(required, 5))))
    except TypeError as error:
        seen.append(str(error))
    try:
        seen.append(one < cls(**dict.fromkeys(required, 6)))
    except TypeError as error:
        seen.append(str(error).replace(cls.__module__, ""))
    try:
        one.a = 7
        seen.append(one.a)
    except dataclasses.FrozenInstanceError as error:
        seen.append(str(error))
    return {"own": own, "fields": repr(fields), "seen": seen, "order": list(vars(cls))}


def test_each_variant_has_its_own_methods_learnt_and_served(tmp_path: Path) -> None:
    store = tmp_path / "code.marshal"
    plain = {name: describe(cls) for name, cls in build(None).items()}
    learnt = {name: describe(cls) for name, cls in build(store).items()}
    kept = dataclass_code._read(str(store))
    served = {name: describe(cls) for name, cls in build(store).items()}
    for name, expected in plain.items():
        assert learnt[name] == expected, name
        assert served[name] == expected, name
    keys = [key for key in kept if isinstance(key, tuple)]
    texts = [key for key in kept if isinstance(key, str)]
    assert plain["order"]["seen"][4] is True
    assert plain["frozen"]["seen"][-1] == "cannot assign to field 'a'"
    assert plain["initvar"]["seen"][2] == (1,)
    if not BY_KEY:
        assert keys == []
        return
    # every method of these classes is made by key: no text kept; each __init__ told apart
    assert texts == []
    # each __init__ text of its own key (the classes with one and the same text may share one)
    texts_of_init = {repr(described["own"]["__init__"]["code"]) for described in plain.values()}
    assert len(texts_of_init) == 14
    assert sum(key[0] == "__init__" for key in keys) == 17
    assert {key[0] for key in keys} == {
        "__init__",
        "__repr__",
        "__eq__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__setattr__",
        "__hash__",
    }


def test_a_second_run_learns_nothing_and_uses_every_entry(tmp_path: Path) -> None:
    store = tmp_path / "code.marshal"
    build(store)
    with dataclass_code.kept(str(store)) as kept:
        assert kept is not None
        for number, (decorator, body, extra) in enumerate(VARIANTS.values()):
            module = types.ModuleType(f"again32_{number}")
            sys.modules[module.__name__] = module
            try:
                exec(
                    compile(HEAD + f"{decorator}\nclass C:\n    {body}\n{extra}", "<v>", "exec"),
                    module.__dict__,
                )
            finally:
                del sys.modules[module.__name__]
        assert kept.new == {} and kept.named_new == {}
        assert kept.used == set(dataclass_code._read(str(store)))


def test_a_class_whose_module_is_gone_takes_the_standard_way(tmp_path: Path) -> None:
    # cls.__module__ not in sys.modules: dataclasses gives the methods an empty dict as globals (exec adds
    # __builtins__ to it at the first text): the first method is made from its text, never learnt by key.
    # Annotations not strings: dataclasses looks a string's names up in the class's module
    store = tmp_path / "code.marshal"
    text = "from dataclasses import dataclass\n@dataclass(frozen=True)\n"
    text += "class Gone:\n    a: int\n    b: int = 1\n"
    for _ in range(2):
        namespace: dict[str, Any] = {"__name__": "gone32"}
        with dataclass_code.kept(str(store)):
            exec(compile(text, "<gone>", "exec", dont_inherit=True), namespace)
        assert repr(namespace["Gone"](1)) == "Gone(a=1, b=1)"
    kept = dataclass_code._read(str(store))
    if not BY_KEY:
        return
    assert [key for key in kept if isinstance(key, str)] == [next(k for k in kept if isinstance(k, str))]
    assert "def __init__(" in next(k for k in kept if isinstance(k, str))
    assert sorted(key[0] for key in kept if isinstance(key, tuple)) == [
        "__eq__",
        "__hash__",
        "__repr__",
        "__setattr__",
    ]


@pytest.mark.parametrize(
    "entry",
    [
        ("not code",),
        (),
        [compile("pass", "<s>", "exec")],
        (compile("pass", "<s>", "exec"), "a string"),
        (compile("pass", "<s>", "exec"), 1.5),
    ],
)
def test_an_entry_of_another_shape_is_ignored(entry: Any, tmp_path: Path) -> None:
    store = tmp_path / "code.marshal"
    build(store)
    body = crc_checked(store.read_bytes())
    assert body is not None
    build_id, codes = marshal.loads(body)
    good = dict(codes)
    codes[("__repr__", "odd")] = entry
    one = compile("pass", "<s>", "exec")
    codes[("__init__", 0, "odd")] = (one, one)  # an __init__'s recipe is ints
    codes[("__init__", 1, "odd")] = (one, "x")
    store.write_bytes(with_crc(marshal.dumps((build_id, codes))))
    store.chmod(0o600)
    assert dataclass_code._read(str(store)) == good


def test_classes_made_in_four_threads_at_once_each_get_their_own_methods(tmp_path: Path) -> None:
    # one method learnt at a time (Store.learning), the codes of another thread's class never in its trail
    import threading

    prefixes = [f"thread32_{i}" for i in range(4)]  # each thread's classes in modules of their own
    plain = {
        prefix: {name: describe(cls) for name, cls in build(None, prefix).items()} for prefix in prefixes
    }
    for _ in range(2):  # learnt, then served
        made: dict[str, dict[str, type]] = {}

        def make(prefix: str, into: dict[str, dict[str, type]] = made) -> None:
            into[prefix] = build(None, prefix)

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # the threads take turns as often as the interpreter lets them
        try:
            with dataclass_code.kept(str(tmp_path / "code.marshal")):
                threads = [threading.Thread(target=make, args=(prefix,)) for prefix in prefixes]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
        finally:
            sys.setswitchinterval(interval)
        assert sorted(made) == prefixes
        for prefix, classes in made.items():
            assert {name: describe(cls) for name, cls in classes.items()} == plain[prefix]
