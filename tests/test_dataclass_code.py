"""The dataclasses' compiled methods kept between runs (dataclass_code.py): a class created from the store
is the class ``dataclasses`` creates without it (same code, same annotations, same behaviour), a second
process compiles nothing, and a store that is corrupt, of another build or writable by others is ignored."""

from __future__ import annotations

import dataclasses
import inspect
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code
from argtrace.cache_dirs import with_crc

# Written without `from __future__ import annotations`: the generated __init__ then carries the types
# themselves, which a compile that inherited this test module's future flags would turn into strings.
CLASSES = """
import dataclasses
from dataclasses import InitVar, dataclass, field
from typing import ClassVar

@dataclass(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple = ()

@dataclass(order=True)
class Task:
    priority: int
    name: str = field(compare=False, default="")
    items: list = field(default_factory=list)
    limit: ClassVar[int] = 3
    scale: InitVar[int] = 1

    def __post_init__(self, scale):
        self.priority *= scale

@dataclass(frozen=True, slots=True, kw_only=True)
class Slotted:
    a: int
    b: str = "b"
"""


def create(store_path: str | None) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "made"}
    code = compile(CLASSES, "<classes>", "exec", dont_inherit=True)  # without this module's future flags
    if store_path is None:
        exec(code, namespace)
    else:
        with dataclass_code.kept(store_path):
            exec(code, namespace)
    return namespace


METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__lt__")


def methods(cls: type) -> dict[str, Any]:
    out = {}
    for name in METHODS:
        fn = cls.__dict__.get(name)
        if fn is not None and hasattr(fn, "__code__"):
            # InitVar[int] is a new object per class, equal only to itself: compared by its repr
            annotations = {k: repr(v) for k, v in fn.__annotations__.items()}
            out[name] = (fn.__code__, fn.__qualname__, annotations, repr(fn.__defaults__), fn.__kwdefaults__)
    return out


def test_classes_from_the_store_are_the_classes_dataclasses_makes(tmp_path: Path) -> None:
    store = str(tmp_path / "code.marshal")
    plain = create(None)
    first = create(store)  # compiles and keeps
    second = create(store)  # from the store
    assert os.path.exists(store)
    for name in ("Point", "Task", "Slotted"):
        expected = methods(plain[name])
        assert expected  # the comparison below compares something
        assert methods(first[name]) == expected
        assert methods(second[name]) == expected
        assert str(inspect.signature(second[name])) == str(inspect.signature(plain[name]))
    assert second["Point"].__init__.__annotations__ == {"x": int, "y": int, "tags": tuple, "return": None}
    point = second["Point"](1, 2)
    assert repr(point) == "Point(x=1, y=2, tags=())"
    assert point == second["Point"](1, 2) and hash(point) == hash(second["Point"](1, 2))
    with pytest.raises(dataclasses.FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    task = second["Task"](2, "t", scale=5)
    assert (task.priority, task.items, second["Task"](1) < task) == (10, [], True)
    assert repr(second["Slotted"](a=1)) == "Slotted(a=1, b='b')"
    assert not hasattr(dataclasses, "exec")  # the name is gone once kept() ends


RUN: dict[str, Any] = {"capture_output": True, "text": True, "check": True}


def test_a_second_process_compiles_nothing(tmp_path: Path) -> None:
    store = str(tmp_path / "code.marshal")
    script = (
        "import sys\nfrom argtrace import dataclass_code\nfrom tests.test_dataclass_code import CLASSES\n"
        "with dataclass_code.kept(sys.argv[1]) as store:\n    exec(CLASSES, {'__name__': 'made'})\n"
        "print(len(store.new) + len(store.named_new), len(store.used))\n"
    )
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), str(root)])}
    runs = [subprocess.run([sys.executable, "-c", script, store], env=env, **RUN) for _ in range(2)]
    compiled = [tuple(map(int, run.stdout.split())) for run in runs]
    assert compiled[0][0] == compiled[0][1] >= 15  # every method compiled (or learnt by key) on the first run
    # and none on the second, which uses every entry kept: the texts a method made by key no longer needs
    # are not written (dataclass_code._by_names)
    assert compiled[1] == (0, len(dataclass_code._read(store))) and compiled[1][1] >= 15


def test_a_corrupt_foreign_or_others_writable_store_is_ignored(tmp_path: Path) -> None:
    store = tmp_path / "code.marshal"
    create(str(store))
    codes = dataclass_code._read(str(store))
    assert len(codes) >= 15

    os.chmod(store, 0o666)  # others could have written code into it
    assert dataclass_code._read(str(store)) == {}
    os.chmod(store, 0o600)
    assert dataclass_code._read(str(store)) == codes

    store.write_bytes(marshal.dumps(("cpython-2.7 another build", codes)))
    assert dataclass_code._read(str(store)) == {}
    store.write_bytes(b"\x01not marshal")
    assert dataclass_code._read(str(store)) == {}
    # and the classes are still made (compiled again)
    made = create(str(store))
    assert repr(made["Point"](1)) == "Point(x=1, y=0, tags=())"
    assert dataclass_code._read(str(store)) == codes


def test_a_full_store_keeps_what_this_run_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "code.marshal"
    old = {f"def f{i}(): pass": compile(f"def f{i}(): pass", "<string>", "exec") for i in range(30)}
    store.write_bytes(with_crc(marshal.dumps((dataclass_code._build(), old))))
    os.chmod(store, 0o600)
    monkeypatch.setattr(dataclass_code, "MAX_ENTRIES", 20)
    create(str(store))
    kept = dataclass_code._read(str(store))
    assert not set(kept) & set(old)
    assert len(kept) >= 15


def test_nested_uses_share_the_outer_store(tmp_path: Path) -> None:
    with dataclass_code.kept(str(tmp_path / "a")) as outer:
        with dataclass_code.kept(str(tmp_path / "b")) as inner:
            assert inner is outer
        assert dataclasses.exec == outer.exec  # type: ignore[attr-defined, union-attr]
    assert not hasattr(dataclasses, "exec")
    assert not (tmp_path / "b").exists()


def test_each_command_has_its_own_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(tmp_path))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    tag = sys.implementation.cache_tag
    assert dataclass_code.store_path("check") == str(tmp_path / f"dataclass-code-check-{tag}.marshal")
    with dataclass_code.kept(command="log") as store:
        assert store is not None and store.path == str(tmp_path / f"dataclass-code-log-{tag}.marshal")


def test_the_cache_switch_turns_it_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARGTRACE_NO_DATA_CACHE", "1")
    with dataclass_code.kept() as store:
        assert store is None
        assert not hasattr(dataclasses, "exec")


INSPECT_DEFERRED = """
import sys
from argtrace import dataclass_code
dataclasses = dataclass_code._import_dataclasses()
print("after import:", "inspect" in sys.modules, type(dataclasses.inspect).__name__)

@dataclasses.dataclass
class Documented:
    '''Has its own docstring.'''
    a: int

print("documented:", "inspect" in sys.modules, Documented.__doc__)

@dataclasses.dataclass
class Bare:
    a: int
    b: str = "x"

print("bare:", "inspect" in sys.modules, Bare.__doc__, type(dataclasses.inspect).__name__)
import inspect
print("same module:", inspect is dataclasses.inspect, inspect.signature(Bare))
"""


def test_inspect_is_imported_only_when_dataclasses_uses_it() -> None:
    # dataclasses (3.10/3.11) reads `inspect` only to write a missing docstring: until then the stand-in
    # keeps ast/dis/tokenize out of a check; the first use gets the real module, with the same result
    out = subprocess.run(
        [sys.executable, "-S", "-c", INSPECT_DEFERRED],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(dataclass_code.__file__).parent.parent)},
    ).stdout.splitlines()
    if sys.version_info >= (3, 12):  # dataclasses calls inspect.get_annotations for every class
        pytest.skip("3.12+ reads inspect at the first dataclass")
    assert out == [
        "after import: False _InspectOnFirstUse",
        "documented: False Has its own docstring.",
        "bare: True Bare(a: int, b: str = 'x') module",
        "same module: True (a: int, b: str = 'x') -> None",
    ]


def test_every_dataclass_of_argtrace_has_a_docstring() -> None:
    # one without makes dataclasses import inspect (ast, dis, tokenize) to write one: 16 M instructions of
    # a short check (issue 18)
    import ast

    src = Path(dataclass_code.__file__).parent
    bare = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None:
                if any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                    bare.append(f"{path.relative_to(src)}:{node.lineno} {node.name}")
    assert bare == []


# The same kinds of fields with string annotations (`from __future__ import annotations`, as every argtrace
# module): dataclasses then tells ClassVar, InitVar and KW_ONLY apart by matching the annotation's text
# (`_is_type`), which kept() answers from one match per text (`_MatchOnce`).
STRING_ANNOTATED = """
from __future__ import annotations
import dataclasses
import typing
from dataclasses import KW_ONLY, InitVar, dataclass, field
from typing import ClassVar

@dataclass
class Mixed:
    a: int
    b: ClassVar[int] = 1
    c: typing.ClassVar[str] = "c"
    d: InitVar[int] = 2
    e: dataclasses.InitVar[str] = "e"
    f: str | None = None
    _: KW_ONLY
    g: int = 3
    h: typing.Any = field(default_factory=list)

    def __post_init__(self, d, e):
        self.seen = (d, e)

@dataclass
class Again:
    x:   ClassVar[int] = 1
    y: int = 0
    z: dataclasses.KW_ONLY
    w: InitVar[int] = 0
"""


def create_text(text: str, store_path: str | None) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "made_strings"}
    sys.modules["made_strings"] = module = type(sys)("made_strings")  # _is_type reads the class's module
    module.__dict__.update(namespace)
    namespace = module.__dict__
    try:
        if store_path is None:
            exec(text, namespace)
        else:
            with dataclass_code.kept(store_path):
                exec(text, namespace)
    finally:
        del sys.modules["made_strings"]
    return namespace


def describe_fields(cls: type) -> list[tuple[Any, ...]]:
    every = cls.__dataclass_fields__  # type: ignore[attr-defined]
    return [(f.name, f.type, repr(f._field_type), f.kw_only, f.init, repr(f.default)) for f in every.values()]


def test_string_annotated_classvar_initvar_and_kw_only_are_recognised(tmp_path: Path) -> None:
    store = str(tmp_path / "code.marshal")
    plain = create_text(STRING_ANNOTATED, None)
    for made in (create_text(STRING_ANNOTATED, store), create_text(STRING_ANNOTATED, store)):
        for name in ("Mixed", "Again"):
            assert describe_fields(made[name]) == describe_fields(plain[name])
            assert methods(made[name]) == methods(plain[name])
            assert made[name].__match_args__ == plain[name].__match_args__
    mixed = made["Mixed"]
    assert [f.name for f in dataclasses.fields(mixed)] == ["a", "f", "g", "h"]
    assert [(n, t) for n, t, kind, kw, *_ in describe_fields(mixed) if kind != "_FIELD"] == [
        ("b", "ClassVar[int]"),
        ("c", "typing.ClassVar[str]"),
        ("d", "InitVar[int]"),
        ("e", "dataclasses.InitVar[str]"),
    ]
    assert str(inspect.signature(mixed)) == (
        "(a: 'int', d: 'InitVar[int]' = 2, e: 'dataclasses.InitVar[str]' = 'e', f: 'str | None' = None, "
        "*, g: 'int' = 3, h: 'typing.Any' = <factory>) -> None"
    )
    assert mixed(1, 5, g=4).seen == (5, "e")
    assert [f.name for f in dataclasses.fields(made["Again"])] == ["y"]
    assert dataclasses._MODULE_IDENTIFIER_RE is plain_pattern()  # type: ignore[attr-defined]


def plain_pattern() -> Any:
    import re

    pattern = dataclasses._MODULE_IDENTIFIER_RE  # type: ignore[attr-defined]
    assert isinstance(pattern, re.Pattern)  # kept() put the compiled pattern back
    return pattern


def test_each_annotation_text_is_matched_once(tmp_path: Path) -> None:
    plain = plain_pattern()
    with dataclass_code.kept(str(tmp_path / "code.marshal")):
        memo = dataclasses._MODULE_IDENTIFIER_RE  # type: ignore[attr-defined]
        assert isinstance(memo, dataclass_code._MatchOnce)
        first = memo.match("typing.ClassVar[int]")
        assert memo.match("typing.ClassVar[int]") is first
        assert first.groups() == ("typing", "ClassVar")
        assert memo.match("  str").groups() == (None, "str")
        assert memo.match("[int]") is None
        assert memo.pattern is plain and memo.flags == plain.flags
    assert plain_pattern() is plain
