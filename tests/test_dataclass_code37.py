"""A dataclass processed at its first use (argtrace/deferred_dataclass.py, store37, issue 18): the same class
as ``dataclasses.dataclass`` makes at import, whatever the first use is."""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import pickle
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from argtrace import deferred_dataclass

ROOT = Path(__file__).resolve().parent.parent

SOURCE = '''
from __future__ import annotations
from dataclasses import field, KW_ONLY
from typing import ClassVar
DECORATOR

@deferred(frozen=True)
class Frozen:
    """Frozen."""
    a: int
    b: str = "b"
    c: tuple = field(default=(1,), repr=False)
    LIMIT: ClassVar[int] = 3

@deferred
class Plain:
    """Plain."""
    a: int
    items: list = field(default_factory=list)
    _: KW_ONLY
    k: int = 0

@deferred(order=True)
class Ordered:
    """Ordered."""
    a: int = 0
    def __repr__(self) -> str:
        return "mine"

@deferred
class Child(Plain):
    """A dataclass subclass of a marked class."""
    z: int = 1

class Sub(Ordered):
    pass

@deferred(slots=True)
class Slotted:
    """slots=True makes another class: processed at once."""
    a: int = 0

@deferred
class Undocumented:
    a: int = 0
'''


def load(tmp_path: Path, name: str, deferred: bool) -> types.ModuleType:
    decorator = (
        "from argtrace.deferred_dataclass import dataclass as deferred"
        if deferred
        else "from dataclasses import dataclass as deferred"
    )
    (tmp_path / f"{name}.py").write_text(SOURCE.replace("DECORATOR", decorator))
    sys.path.insert(0, str(tmp_path))
    try:
        # kept in sys.modules: processing (at import or later) reads the module's namespace there
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def shape(value: Any) -> Any:
    """What a namespace entry is, comparable across the two modules."""
    if isinstance(value, types.FunctionType):
        code = value.__code__
        return (
            "function",
            value.__qualname__,
            code.co_code,
            code.co_names,
            code.co_varnames,
            value.__defaults__,
        )
    if isinstance(value, dict) and all(isinstance(f, dataclasses.Field) for f in value.values()):
        return [
            (f.name, f.type, repr(f.default), f.default_factory, f.init, f.repr, f.kw_only)
            for f in value.values()
        ]
    if isinstance(value, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        return type(value).__name__
    return repr(value)


def namespace(cls: type) -> list[tuple[str, Any]]:
    return [
        (name, shape(value)) for name, value in vars(cls).items() if name not in ("__dict__", "__weakref__")
    ]


def test_marked_classes_wait_and_slotted_or_undocumented_ones_do_not(tmp_path: Path) -> None:
    module = load(tmp_path, "dc37_wait", deferred=True)
    waiting = [name for name in deferred_dataclass.pending() if name.startswith("dc37_wait:")]
    assert waiting == ["dc37_wait:Frozen", "dc37_wait:Plain", "dc37_wait:Ordered", "dc37_wait:Child"]
    assert type(vars(module.Frozen)["__init__"]).__name__ == "_Waiting"
    # Child's processing asks for Plain's fields first
    assert [f.name for f in dataclasses.fields(module.Child)] == ["a", "items", "k", "z"]
    assert [name for name in deferred_dataclass.pending() if name.startswith("dc37_wait:")] == [
        "dc37_wait:Frozen",
        "dc37_wait:Ordered",
    ]
    assert type(vars(module.Slotted)["__dataclass_fields__"]) is dict
    assert module.Slotted.__slots__ == ("a",)
    assert type(vars(module.Undocumented)["__dataclass_fields__"]) is dict
    assert module.Undocumented.__doc__ == "Undocumented(a: 'int' = 0)"


@pytest.mark.parametrize(
    "first_use",
    ["fields", "call", "class attribute", "pickle", "hash", "subclass instance", "process_all"],
)
def test_each_first_use_gives_the_class_dataclasses_makes(tmp_path: Path, first_use: str) -> None:
    plain = load(tmp_path, f"dc37_plain_{first_use.replace(' ', '_')}", deferred=False)
    module = load(tmp_path, f"dc37_lazy_{first_use.replace(' ', '_')}", deferred=True)
    if first_use == "fields":
        assert [f.name for f in dataclasses.fields(module.Frozen)] == ["a", "b", "c"]
    elif first_use == "call":
        assert repr(module.Frozen(1)) == "Frozen(a=1, b='b')"
    elif first_use == "class attribute":
        assert module.Frozen.c == (1,)  # the Field's default, as processing leaves it
    elif first_use == "pickle":
        # an instance made without __init__ (as unpickling makes one): its methods process the class
        bare = module.Frozen.__new__(module.Frozen)
        object.__setattr__(bare, "a", 2)
        object.__setattr__(bare, "b", "x")
        object.__setattr__(bare, "c", (1,))
        assert bare == module.Frozen(2, "x")
        with pytest.raises(dataclasses.FrozenInstanceError):
            bare.a = 3
    elif first_use == "hash":
        bare = module.Ordered.__new__(module.Ordered)
        with pytest.raises(TypeError, match=r"^unhashable type: 'Ordered'$"):
            hash(bare)
    elif first_use == "subclass instance":
        assert module.Sub(2) < module.Sub(3)
    else:
        deferred_dataclass.process_all()
    deferred_dataclass.process_all()
    for name in ("Frozen", "Plain", "Ordered", "Child", "Slotted", "Undocumented"):
        lazy, made = getattr(module, name), getattr(plain, name)
        assert [(key, value) for key, value in namespace(lazy) if key != "__module__"] == [
            (key, value) for key, value in namespace(made) if key != "__module__"
        ], name
    assert not hasattr(module.Plain, "items")  # a default factory's Field removed, as processing does
    assert module.Ordered.__hash__ is None
    assert repr(module.Ordered(1)) == "mine"
    assert module.Child(1, k=2) == module.Child(a=1, items=[], k=2, z=1)
    assert dataclasses.asdict(module.Child(1)) == {"a": 1, "items": [], "k": 0, "z": 1}
    assert dataclasses.replace(module.Frozen(1), b="c") == module.Frozen(1, "c")
    assert module.Frozen.__match_args__ == ("a", "b", "c")


def test_argtrace_instances_unpickled_in_a_fresh_process_behave_as_made(tmp_path: Path) -> None:
    from argtrace.model_launch import EnvEdit

    path = tmp_path / "edit.pickle"
    path.write_bytes(pickle.dumps([EnvEdit("CUDA_VISIBLE_DEVICES", "0"), EnvEdit("X", None)]))
    script = (
        "import pickle, sys\n"
        "from argtrace import deferred_dataclass\n"
        "from argtrace.model_launch import EnvEdit\n"
        "edits = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "before = 'argtrace.model_launch:EnvEdit' in deferred_dataclass.pending()\n"
        "same = hash(edits[0]) == hash(EnvEdit('CUDA_VISIBLE_DEVICES', '0'))\n"
        "after = 'argtrace.model_launch:EnvEdit' in deferred_dataclass.pending()\n"
        "print(before, repr(edits[0]), edits[1] == EnvEdit('X', None), same, after)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "ARGTRACE_WARM": "0"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout == "True EnvEdit(env='CUDA_VISIBLE_DEVICES', value='0') True True False\n"


# The dataclasses the example's check never makes (session 37: found by counting each dataclass's instances in
# that check): it ends with every one of them still waiting.
MARKED = (
    "argtrace.ci.config_file:Config",
    "argtrace.model_launch:EnvEdit",
    "argtrace.model_launch:FromUnset",
    "argtrace.model_launch:VanishedWord",
    "argtrace.model_launch:CommandIO",
    "argtrace.model_launch:EnvValue",
    "argtrace.model_launch:Placement",
    "argtrace.model_launch:AssumedEntrypoint",
    "argtrace.frameworks.schema:OptionSpec",
    "argtrace.frameworks.site_packages:Distribution",
    "argtrace.frameworks.wrappers:EnvRunner",
    "argtrace.layers.shell.core:Vanished",
    "argtrace.layers.shell.wordparts:CmdSub",
    "argtrace.layers.shell.wordparts:Arith",
    "argtrace.layers.shell.wordparts:Tilde",
    "argtrace.layers.shell.wordparts:ProcSub",
    "argtrace.layers.shell.wordparts:DQStart",
    "argtrace.layers.shell.wordparts:DQEnd",
    "argtrace.layers.shell.syntax:SyntaxProblem",
    "argtrace.frameworks.unfollowed:Unfollowed",
    "argtrace.frameworks.argv:DottedPart",
    "argtrace.layers.parser.values:Invalid",
    "argtrace.layers.parser.values:_ReprDefault",
    "argtrace.frameworks.release:ReleaseEvidence",
    "argtrace.frameworks.model_refs:LoaderForms",
)


def test_the_example_check_leaves_the_marked_classes_unprocessed(tmp_path: Path) -> None:
    script = (
        "import atexit, json, sys\n"
        "from argtrace import deferred_dataclass\n"
        "atexit.register(lambda: print(json.dumps(sorted(deferred_dataclass.pending())), file=sys.stderr))\n"
        "from argtrace.cli import main\n"
        "sys.argv = ['argtrace', 'check', '--format', 'json', '--no-resolve', sys.argv[1], '0', '30000']\n"
        "main()\n"
    )
    import site

    env = {
        **os.environ,
        # as the start-up measure runs it (docs/status.md, "Start-up, session 37 (store37)"): with
        # site-packages, under -S
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), *site.getsitepackages()]),
        "ARGTRACE_WARM": "0",
        "ARGTRACE_CACHE_DIR": str(tmp_path / "cache"),
        "ARGTRACE_DATA_CACHE": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg"),
    }
    for _ in range(2):  # the second with the caches the first wrote, as a user's next check
        done = subprocess.run(
            [sys.executable, "-S", "-c", script, str(ROOT / "examples/launch_mtp.sh")],
            env=env,
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
    assert json.loads(done.stderr.strip().splitlines()[-1]) == sorted(MARKED)


def test_the_fleet_readers_start_after_every_class_is_processed() -> None:
    from argtrace.layers.fleet import parallel

    source = Path(parallel.__file__).read_text()
    assert source.index("deferred_dataclass.process_all()") < source.index("threading.Thread(")
