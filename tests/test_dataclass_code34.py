"""The store's shape checks and the stand-ins of session 34 (dataclass_code, dcls34, issue 18): a kept
``__init__`` is checked against the parameter names the running ``dataclasses`` writes (3.12's were
rejected on every read), a code that cannot be made or called as a method is refused at the read, and
``_set_new_attribute``, ``_fields_in_init_order`` and ``_recursive_repr`` give what the standard ones give."""

from __future__ import annotations

import dataclasses
import functools
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code
from argtrace.cache_dirs import dumps_checked
from tests.test_dataclass_code32 import BY_KEY, build, describe

SOURCE = str(Path(dataclass_code.__file__).resolve().parents[1])  # the argtrace under test
STEPS = ("_set_new_attribute", "_fields_in_init_order", "_recursive_repr", "_tuple_str")


def test_the_parameter_names_are_those_the_running_dataclasses_writes() -> None:
    dataclass_code._parameter_names.cache_clear()
    if sys.version_info[:2] >= (3, 12):  # 3.12.1 dataclasses.py:561, 565
        assert dataclass_code._parameter_names() == ("__dataclass_type_", "__", "__dataclass_dflt_", "__")
    else:  # 3.10.13 dataclasses.py:520, 524; 3.11.7 :521, 525
        assert dataclass_code._parameter_names() == ("_type_", "", "_dflt_", "")


def test_no_init_entry_is_believed_when_dataclasses_cannot_be_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    dataclass_code._parameter_names.cache_clear()
    monkeypatch.setattr(dataclasses, "_init_param", lambda f: f"{f.name}:{f.name}", raising=False)
    try:
        assert dataclass_code._parameter_names() is None
        code = compile("def __create_fn__(_type_a): pass", "<string>", "exec").co_consts[0]
        assert (
            dataclass_code._fits_key(("__init__", 0, 0, "self", 0, 1, "a", 2, 1, "a", 2, 0), (code, 0))
            is False
        )
    finally:
        monkeypatch.undo()
        dataclass_code._parameter_names.cache_clear()


SCRIPT = r"""
import os, sys, types
from argtrace import dataclass_code
dataclass_code._import_dataclasses()
store = sys.argv[1]
text = ("from dataclasses import dataclass, field\n@dataclass(frozen=True)\nclass A:\n    a: int\n"
        "    b: str = 'x'\n    c: list = field(default_factory=list)\n")
for run in range(2):
    module = types.ModuleType("m34")
    sys.modules["m34"] = module
    with dataclass_code.kept(store) as kept:
        exec(text, module.__dict__)
    texts, named = dataclass_code._read_all(store)
    print(run, len(texts), sorted(key[0] for key in named), len(kept.named_new))
"""
INTERPRETERS = [
    path
    for version in ("3.10.13/bin/python3.10", "3.11.7/bin/python3.11", "3.12.1/bin/python3.12")
    if os.path.exists(path := f"/root/.pyenv/versions/{version}")
]


@pytest.mark.skipif(not INTERPRETERS, reason="no pyenv interpreters 3.10-3.12 on this machine")
@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_a_second_run_learns_nothing_on_each_release_that_makes_methods_by_key(
    interpreter: str, tmp_path: Path
) -> None:
    # before: 3.12's __init__ (parameters __dataclass_type_a__...) failed the shape check read after read,
    # was learnt again on every run and the store written again
    done = subprocess.run(
        [interpreter, "-S", "-c", SCRIPT, str(tmp_path / "store.marshal")],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": SOURCE},
        check=True,
    )
    kinds = "['__eq__', '__hash__', '__init__', '__repr__', '__setattr__']"
    assert done.stdout.splitlines() == [f"0 0 {kinds} 5", f"1 0 {kinds} 0"]


def _rewrite(store: Path, how: str) -> None:
    """Rewrite the store's entries ``how``, behind a CRC-32 that holds."""
    texts, named = dataclass_code._read_all(str(store))
    codes: dict[Any, Any] = dict(texts)
    for key, entry in named.items():
        first = entry[0]
        if how == "free variables":
            # the same code needing a closure cell: FunctionType(code, globals) raises TypeError
            first = first.replace(co_freevars=("__class__",))
        elif how == "positional-only" and key[0] == "__setattr__":
            # called with cls= and FrozenInstanceError=: a TypeError
            first = first.replace(co_posonlyargcount=first.co_argcount)
        codes[key] = (first, *entry[1:])
    data = dumps_checked((dataclass_code._build(), codes))
    assert data is not None
    store.write_bytes(data)


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text, kept by text")
@pytest.mark.parametrize("how", ["free variables", "positional-only"])
def test_a_code_that_cannot_be_made_or_called_as_kept_is_refused(how: str, tmp_path: Path) -> None:
    store = tmp_path / "dataclass-code-check.marshal"
    prefix = f"dcls34_{how.replace(' ', '_').replace('-', '_')}"
    build(store, prefix=prefix)
    whole = dataclass_code._read(str(store))
    _rewrite(store, how)
    kept = dataclass_code._read(str(store))
    left_out = {key[0] for key in set(whole) - set(kept)}
    assert left_out == ({"__setattr__"} if how == "positional-only" else {k[0] for k in whole})
    made = build(store, prefix=prefix)
    plain = build(None, prefix=prefix)
    assert {name: describe(cls) for name, cls in made.items()} == {
        name: describe(cls) for name, cls in plain.items()
    }


def _standard_and_kept() -> tuple[dict[str, Any], dict[str, Any]]:
    with dataclass_code.kept(None):  # no store path: nothing replaced
        pass
    standard = {name: getattr(dataclasses, name) for name in STEPS}
    return standard, dataclass_code._steps_once(dataclasses)


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text")
def test_the_stand_ins_are_installed_and_put_back(tmp_path: Path) -> None:
    standard = {name: getattr(dataclasses, name) for name in STEPS}
    with dataclass_code.kept(str(tmp_path / "store.marshal")):
        inside = {name: getattr(dataclasses, name) for name in STEPS}
    assert all(inside[name] is not standard[name] for name in STEPS)
    assert all(getattr(dataclasses, name) is standard[name] for name in STEPS)


WRAPPER_CODE = next(
    c for c in dataclasses._recursive_repr.__code__.co_consts if isinstance(c, types.CodeType)
)


def _wrapper_of(maker: Any, user_function: Any) -> dict[str, Any]:
    wrapper = maker(user_function)
    return {
        "code": wrapper.__code__ is WRAPPER_CODE,
        "globals": wrapper.__globals__ is vars(dataclasses),
        "names": (wrapper.__name__, wrapper.__qualname__, wrapper.__module__, wrapper.__doc__),
        "annotations": wrapper.__annotations__ is user_function.__annotations__,
        "dict": dict(vars(wrapper)),
        "defaults": (wrapper.__defaults__, wrapper.__kwdefaults__),
        "closure": [type(cell.cell_contents).__name__ for cell in wrapper.__closure__],
        "wrapped": wrapper.__wrapped__ is user_function,
        "builtins": getattr(wrapper, "__builtins__", None) is getattr(user_function, "__builtins__", None),
    }


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text")
def test_recursive_repr_makes_the_wrapper_functools_wraps_makes() -> None:
    standard, kept = _standard_and_kept()
    assert set(kept) == set(STEPS)

    def __repr__(self: Any) -> str:
        """Shown."""
        return f"R({self.inner!r})"

    __repr__.extra = 1  # type: ignore[attr-defined]
    assert _wrapper_of(kept["_recursive_repr"], __repr__) == _wrapper_of(
        standard["_recursive_repr"], __repr__
    )
    # recursion still shown as "...", each wrapper with its own set of running calls
    shown = []
    for maker in (standard["_recursive_repr"], kept["_recursive_repr"]):
        cls = type("R", (), {"__repr__": maker(__repr__)})
        one = cls()
        one.inner = one  # type: ignore[attr-defined]
        shown.append(repr(one))
    assert shown == ["R(...)", "R(...)"]


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text")
def test_set_new_attribute_and_init_order_answer_as_the_standard_ones() -> None:
    standard, kept = _standard_and_kept()
    answers = []
    for steps in (standard, kept):
        cls = type("Host", (), {"__qualname__": "outer.Host", "taken": 1})
        method = types.FunctionType(compile("def f(): pass", "<s>", "exec").co_consts[0], {})
        answers.append(
            (
                steps["_set_new_attribute"](cls, "taken", method),
                steps["_set_new_attribute"](cls, "__init__", method),
                method.__qualname__,
                steps["_set_new_attribute"](cls, "__match_args__", ("a",)),
                vars(cls).get("__init__") is method,
                cls.__match_args__,  # type: ignore[attr-defined]
            )
        )
    assert answers[0] == answers[1] == (True, False, "outer.Host.f", False, True, ("a",))

    @dataclasses.dataclass
    class Mixed:
        a: int
        b: int = dataclasses.field(default=1, kw_only=True)
        c: int = dataclasses.field(default=2, init=False)
        d: int = 3

    fields = list(dataclasses.fields(Mixed))
    names = [
        [[f.name for f in part] for part in steps["_fields_in_init_order"](fields)]
        for steps in (standard, kept)
    ]
    assert names[0] == names[1] == [[["a", "d"], ["b"]]][0]
    assert all(type(part) is tuple for part in kept["_fields_in_init_order"](fields))


def test_the_texts_the_stand_ins_follow_are_those_of_the_running_release() -> None:
    # what _steps_once and _classifying_once were written from: each release's own source, equal in 3.10-3.12
    import inspect

    texts = {name: inspect.getsource(getattr(dataclasses, name)) for name in (*STEPS, "_set_qualname")}
    assert "functools.wraps(user_function)" in texts["_recursive_repr"]
    assert "repr_running = set()" in texts["_recursive_repr"]
    if BY_KEY:
        assert "_set_qualname(cls, value)\n    setattr(cls, name, value)" in texts["_set_new_attribute"]
        assert 'value.__qualname__ = f"{cls.__qualname__}.{value.__name__}"' in texts["_set_qualname"]
        assert "tuple(f for f in fields if f.init and not f.kw_only)" in texts["_fields_in_init_order"]
    assert functools.update_wrapper.__module__ == "functools"


@pytest.mark.skipif(not BY_KEY, reason="3.13 writes a class's methods in one text")
def test_an_init_asked_for_another_split_of_its_fields_takes_the_standard_way(tmp_path: Path) -> None:
    # the key holds each field once (std_fields and kw_only_fields follow from its flags): a call with
    # another split must not be served the __init__ of the split the flags give
    import inspect

    globals_ = vars(sys.modules[__name__])
    with dataclass_code.kept(str(tmp_path / "store.marshal")) as kept:
        assert kept is not None

        @dataclasses.dataclass
        class Two:
            a: int
            b: int = 1

        fields = list(dataclasses.fields(Two))
        learnt = dict(kept.named_new)
        made = dataclasses._init_fn(fields, (), tuple(fields), False, False, "self", globals_, False)  # type: ignore[attr-defined]
        assert kept.named_new == learnt  # nothing learnt for it
    standard = dataclasses._init_fn(fields, (), tuple(fields), False, False, "self", globals_, False)  # type: ignore[attr-defined]
    assert (
        str(inspect.signature(made))
        == str(inspect.signature(standard))
        == "(self, *, a: 'int', b: 'int' = 1) -> None"
    )
    assert str(inspect.signature(Two)) == "(a: 'int', b: 'int' = 1) -> None"
