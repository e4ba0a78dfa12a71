"""Every dataclass of argtrace is the same class with the method store installed (dataclass_code.kept: the
kept ``__create_fn__`` codes, ``_get_field`` and ``_is_type`` answered with each annotation's names matched
once) as without it, and an edited class is never served an old one (session 30, issue 18)."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code

ROOT = Path(__file__).resolve().parent.parent

# Imports every argtrace module (plainly, or inside kept() with the store given) and describes every
# dataclass it defines: the class's own namespace (each method's code, names, defaults, annotations and
# closure; the defaults left as class attributes, __match_args__, __doc__, __hash__, __slots__,
# __dataclass_params__), each field as dataclasses.fields() and __dataclass_fields__ give it, the
# signature, and what an instance made without arguments does (repr, ==, hash, replace, asdict, astuple,
# pickling, ordering, frozen-ness). Addresses in reprs are blanked: the processes differ.
DESCRIBE = r"""
import copy, dataclasses, hashlib, importlib, inspect, json, pathlib, pickle, re, sys, types
from argtrace import dataclass_code
dataclass_code._import_dataclasses()
import argtrace

mode, store = sys.argv[1], sys.argv[2]
# every file (pkgutil.walk_packages does not enter namespace packages: argtrace/frameworks has no __init__)
root = pathlib.Path(argtrace.__file__).parent
names = sorted(
    ".".join(("argtrace", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
    for path in root.rglob("*.py") if path.name != "__main__.py"
)
failed = {}

def load():
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as error:  # an optional dependency: the same in every mode
            failed[name] = type(error).__name__

if mode == "plain":
    load()
else:
    with dataclass_code.kept(store):
        load()

ADDRESS = re.compile(r" at 0x[0-9a-f]+|0x[0-9a-f]{6,}|\b\d+\.\d{5,}\b")  # and clock readings (factories)

def text(value):
    try:
        return ADDRESS.sub(" at 0x", repr(value))
    except Exception as error:
        return "repr failed: " + type(error).__name__

def code(co):
    # every co_ attribute (nested code objects by theirs): marshal's bytes depend on reference counts (3.10)
    parts = []
    for name in sorted(dir(co)):
        value = getattr(co, name)
        if name.startswith("co_") and not callable(value):
            if name == "co_consts":
                # a frozenset constant (3.12+'s frozen __setattr__: name in {'a', 'b'}) in a set order that
                # follows how it was made (compiled or unmarshalled), equal either way
                value = tuple(code(c) if isinstance(c, types.CodeType)
                              else ("frozenset", sorted(map(repr, c))) if isinstance(c, frozenset) else c
                              for c in value)
            parts.append((name, value))
    return hashlib.sha256(repr(parts).encode()).hexdigest()

def function(fn):
    if isinstance(fn, (staticmethod, classmethod)):
        return [type(fn).__name__, function(fn.__func__)]
    if not isinstance(fn, types.FunctionType):
        return text(fn)
    out = {
        "code": code(fn.__code__),
        "name": fn.__name__, "qualname": fn.__qualname__, "module": fn.__module__,
        "globals": fn.__module__ in sys.modules and fn.__globals__ is vars(sys.modules[fn.__module__]),
        "defaults": text(fn.__defaults__), "kwdefaults": text(fn.__kwdefaults__),
        "annotations": text(fn.__annotations__), "doc": fn.__doc__,
        "closure": [text(cell.cell_contents) for cell in fn.__closure__ or ()],
    }
    if hasattr(fn, "__wrapped__"):
        out["wrapped"] = function(fn.__wrapped__)
    return out

def field(f, cls):
    bases = [b.__dataclass_fields__.get(f.name) for b in cls.__mro__[1:] if "__dataclass_fields__" in vars(b)]
    return [f.name, text(f.type), text(f.default), text(f.default_factory), f.init, f.repr, text(f.hash),
            f.compare, text(f.kw_only), text(dict(f.metadata)), text(f._field_type),
            any(f is b for b in bases)]

def behaviour(cls):
    out = {}
    # the fields without a default given one simple value (the first kind __post_init__ accepts)
    required = [f.name for f in dataclasses.fields(cls) if f.init and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    error = None
    for fill in ((), "s", 1, None, ("a", "b")):
        try:
            one, two = cls(**{name: fill for name in required}), cls(**{name: fill for name in required})
            break
        except Exception as raised:
            error = raised
    else:
        return {"made": type(error).__name__}
    out["fill"] = text(fill)
    out["repr"] = text(one)
    out["eq"] = one == two
    try:
        out["hash"] = hash(one) == hash(two)
    except TypeError as error:
        out["hash"] = str(error)
    for name, call in (("replace", lambda: dataclasses.replace(one)),
                       ("asdict", lambda: dataclasses.asdict(one)),
                       ("astuple", lambda: dataclasses.astuple(one)),
                       ("pickle", lambda: pickle.loads(pickle.dumps(one)) == one),
                       ("copy", lambda: copy.deepcopy(one) == one),
                       ("lt", lambda: one < two), ("ge", lambda: one >= two)):
        try:
            out[name] = text(call())
        except Exception as error:
            out[name] = type(error).__name__ + ": " + ADDRESS.sub(" at 0x", str(error))
    try:
        setattr(one, dataclasses.fields(cls)[0].name if dataclasses.fields(cls) else "x", None)
        out["set"] = "set"
    except Exception as error:
        out["set"] = type(error).__name__
    return out

def describe(cls):
    own = {}
    for key, value in vars(cls).items():
        if key in ("__dict__", "__weakref__"):
            continue
        if key == "__dataclass_fields__":
            value = [field(f, cls) for f in value.values()]
        elif key == "__dataclass_params__":
            value = text(value)
        elif isinstance(value, (types.FunctionType, staticmethod, classmethod)):
            value = function(value)
        elif key == "__doc__" or key == "__match_args__":
            value = text(value)
        else:
            value = [type(value).__name__, text(value) if not isinstance(value, type) else value.__qualname__]
        own[key] = value
    try:
        signature = text(str(inspect.signature(cls)))
    except (TypeError, ValueError) as error:
        signature = type(error).__name__
    return {"own": own, "fields": [field(f, cls) for f in dataclasses.fields(cls)], "signature": signature,
            "order": list(vars(cls)), "behaviour": behaviour(cls)}

seen, classes = set(), {}

def walk(owner, prefix):
    for value in list(vars(owner).values()):
        if isinstance(value, type) and value.__module__ == prefix and id(value) not in seen:
            seen.add(id(value))
            if dataclasses.is_dataclass(value):
                classes[value.__module__ + ":" + value.__qualname__] = describe(value)
            walk(value, prefix)

for name in names:
    module = sys.modules.get(name)
    if module is not None:
        walk(module, name)
print(json.dumps({"failed": failed, "classes": classes}, sort_keys=True))
"""


def describe(mode: str, store: Path) -> dict[str, Any]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "PYTHONHASHSEED": "0",
        "ARGTRACE_WARM": "0",
        "ARGTRACE_NO_DATA_CACHE": "1",
    }
    command = [sys.executable, "-c", DESCRIBE, mode, str(store)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def test_every_dataclass_of_argtrace_is_the_same_class_with_the_store(tmp_path: Path) -> None:
    store = tmp_path / "code.marshal"
    plain = describe("plain", store)
    compiled = describe("kept", store)  # an empty store: every method compiled, then kept
    assert store.exists()
    served = describe("kept", store)  # every method from the store
    assert len(plain["classes"]) >= 280  # every module imported, nested classes too
    assert compiled["failed"] == served["failed"] == plain["failed"]
    assert sorted(compiled["classes"]) == sorted(served["classes"]) == sorted(plain["classes"])
    for name, expected in plain["classes"].items():
        assert compiled["classes"][name] == expected, name
        assert served["classes"][name] == expected, name
    made = [c["behaviour"] for c in plain["classes"].values() if "repr" in c["behaviour"]]
    assert len(made) >= 200  # the instances compared are many, of frozen classes too
    assert sum(c["set"] == "FrozenInstanceError" for c in made) >= 100


# Fields whose kind dataclasses tells from the annotation's text and the names the class's module binds:
# aliases, a module under another name, a name that shadows InitVar, and the errors a field can raise.
KINDS = """
from __future__ import annotations
import dataclasses
import typing as t
from dataclasses import InitVar, dataclass, field
from typing import ClassVar

CV = ClassVar
IV = InitVar
Number = int

@dataclass
class Kinds:
    a: CV[int] = 1
    b: t.ClassVar[int] = 2
    c: IV[int] = 3
    d: t.Any = None
    e: dataclasses.InitVar[int] = 4
    f: Number = 5
    g: "ClassVar" = 6
    h: typing.ClassVar[int] = 7
    i: [int] = 8

    def __post_init__(self, c, e):
        self.seen = (c, e)
"""

ERRORS = {
    "mutable": "@dataclass\nclass A:\n    x: list = []\n",
    "classvar factory": "@dataclass\nclass B:\n    x: ClassVar[list] = field(default_factory=list)\n",
    "initvar factory": "@dataclass\nclass C:\n    x: InitVar[list] = field(default_factory=list)\n",
    "classvar kw_only": "@dataclass\nclass D:\n    x: ClassVar[int] = field(default=1, kw_only=True)\n",
    "unannotated field": "@dataclass\nclass E:\n    x = field(default=1)\n",
    "shadowed": "InitVar = int\n@dataclass\nclass F:\n    x: InitVar = 1\n",
    "slots": "@dataclass(slots=True)\nclass G:\n    x: int\n    y: ClassVar[int] = 2\n",
    # 3.11+ refuses any default whose class is unhashable, 3.10 a list, dict or set only
    "unhashable": "class U:\n    __hash__ = None\n@dataclass\nclass H:\n    x: object = U()\n",
}


def run(text: str, store: Path | None) -> tuple[dict[str, Any], str]:
    module = type(sys)("kinds30")
    sys.modules["kinds30"] = module
    head = "from __future__ import annotations\nfrom dataclasses import InitVar, dataclass, field\n"
    head += "from typing import ClassVar\n"
    try:
        whole = head + text if "class Kinds" not in text else text
        code = compile(whole, "<kinds>", "exec", dont_inherit=True)
        if store is None:
            exec(code, module.__dict__)
        else:
            with dataclass_code.kept(str(store)):
                exec(code, module.__dict__)
    except (TypeError, ValueError) as error:
        return {}, f"{type(error).__name__}: {error}"
    finally:
        del sys.modules["kinds30"]
    made = {name: value for name, value in vars(module).items() if dataclasses.is_dataclass(value)}
    return made, ""


def kinds(cls: type) -> list[tuple[Any, ...]]:
    every = cls.__dataclass_fields__  # type: ignore[attr-defined]
    return [(f.name, f.type, repr(f._field_type), f.kw_only, repr(f.default)) for f in every.values()]


def test_field_kinds_from_aliases_and_other_module_names(tmp_path: Path) -> None:
    store = tmp_path / "code.marshal"
    plain, _ = run(KINDS, None)
    for _ in range(2):
        made, error = run(KINDS, store)
        assert error == ""
        assert kinds(made["Kinds"]) == kinds(plain["Kinds"])
    assert [(name, kind) for name, _, kind, *_ in kinds(made["Kinds"])] == [
        ("a", "_FIELD_CLASSVAR"),
        ("b", "_FIELD_CLASSVAR"),
        ("c", "_FIELD_INITVAR"),
        ("d", "_FIELD"),
        ("e", "_FIELD_INITVAR"),
        ("f", "_FIELD"),
        ("g", "_FIELD"),  # a string in a string: its text starts with a quote, no name matched
        ("h", "_FIELD"),  # `typing` is not bound in the module (imported as `t`)
        ("i", "_FIELD"),
    ]
    assert made["Kinds"](d=1).seen == (3, 4)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_the_same_errors_and_fields_as_dataclasses(name: str, tmp_path: Path) -> None:
    plain = run(ERRORS[name], None)
    made = run(ERRORS[name], tmp_path / "code.marshal")
    assert made[1] == plain[1]
    assert {n: kinds(c) for n, c in made[0].items()} == {n: kinds(c) for n, c in plain[0].items()}
    expected = {
        "mutable": "ValueError: mutable default <class 'list'> for field x is not allowed: "
        "use default_factory",
        "classvar factory": "TypeError: field x cannot have a default factory",
        "initvar factory": "TypeError: field x cannot have a default factory",
        "classvar kw_only": "TypeError: field x is a ClassVar but specifies kw_only",
        "unannotated field": "TypeError: 'x' is a field but has no type annotation",
    }
    if sys.version_info >= (3, 11):
        expected["unhashable"] = (
            "ValueError: mutable default <class 'kinds30.U'> for field x is not allowed: use default_factory"
        )
    assert made[1] == expected.get(name, "")


def test_an_edited_class_is_never_served_the_old_one(tmp_path: Path) -> None:
    """A field added, a default changed, a field turned into a ClassVar: the class imported again with the
    same store is the class dataclasses makes from the edited text."""
    store = str(tmp_path / "code.marshal")
    source = tmp_path / "edited30.py"
    versions = [
        "x: int\n    y: str = 'a'\n",
        "x: int\n    y: str = 'b'\n    z: tuple = ()\n",
        "x: int = 0\n    y: ClassVar[str] = 'c'\n",
    ]
    sys.path.insert(0, str(tmp_path))
    try:
        for body in versions:
            source.write_text(
                "from __future__ import annotations\nfrom dataclasses import dataclass\n"
                "from typing import ClassVar\n@dataclass(frozen=True)\nclass Edited:\n    " + body
            )
            described = []
            for kept in (True, False, True):
                sys.modules.pop("edited30", None)
                importlib.invalidate_caches()
                sys.dont_write_bytecode = True  # the same second twice: never a stale __pycache__
                try:
                    if kept:
                        with dataclass_code.kept(store):
                            module = importlib.import_module("edited30")
                    else:
                        module = importlib.import_module("edited30")
                finally:
                    sys.dont_write_bytecode = False
                cls = module.Edited
                described.append((kinds(cls), repr(cls(*([1] if "x: int\n" in body else [])))))
            assert described[0] == described[1] == described[2]
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("edited30", None)
    assert described[0][1] == "Edited(x=0)"


def test_the_standard_functions_are_back_after_kept(tmp_path: Path) -> None:
    names = ("_get_field", "_is_type", "_MODULE_IDENTIFIER_RE")
    before = {name: getattr(dataclasses, name) for name in names}
    with dataclass_code.kept(str(tmp_path / "code.marshal")):
        inside = {name: getattr(dataclasses, name) for name in before}
    assert all(inside[name] is not before[name] for name in before)
    assert {name: getattr(dataclasses, name) for name in before} == before
    assert not hasattr(dataclasses, "exec")


def test_a_kept_text_defines_one_function_and_other_texts_are_run_as_written() -> None:
    only = compile("def __create_fn__(a):\n def f(self): return a\n return f", "<string>", "exec")
    assert dataclass_code._defined_function(only) is only.co_consts[0]
    more = compile("def __create_fn__(a):\n pass\nX = 1", "<string>", "exec")
    assert dataclass_code._defined_function(more) is more
    other = compile("def other(a):\n pass", "<string>", "exec")
    assert dataclass_code._defined_function(other) is other
    store = dataclass_code.Store(None)
    namespace: dict[str, Any] = {}
    store.exec("def __create_fn__(a):\n pass\nX = 1", {"__builtins__": __builtins__}, namespace)
    assert sorted(namespace) == ["X", "__create_fn__"]
    without: dict[str, Any] = {}
    store.exec("def __create_fn__(a):\n def f(self): return a\n return f", without, namespace)
    assert "__builtins__" in without  # as exec adds it
    assert namespace["__create_fn__"](5)(None) == 5
