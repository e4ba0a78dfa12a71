"""A pytest plugin: the real cases' launches as their tests run them (for bench/first_screen_audit.py).

Every real-case test reaches argtrace through ``argtrace.cli.main`` (``tests/conftest.py``: ``run_cli``,
``check_launch``, ``log_report``). The plugin wraps that function for the length of each test and records,
per call of ``check``, ``log`` or ``why`` with ``--format json``: the test's node id, the directory it ran
in, its argument list, and the codes the test asserts: every ``AB123`` code written in the test function's
source or in the repr of its parameters (a ``Case``/``LogCase`` row names its findings). The audit keeps a
call as a case of class a when one of those codes is an error or warning of the report (the root cause the
test asserts), unless the test says the root cause is missed (a ``Missed`` parameter, recorded here; a
test whose name says so, read by the audit) or the batch's ``CLASSES`` table (or the row's ``after``)
classes the file other than ``a``.

    PYTHONPATH=src:. python3 -m pytest -q -p no:cacheprovider -p bench.first_screen_cases \\
        tests/test_real_cases*.py --first-screen-cases bench/results/first_screen_cases.jsonl

Each line of the output is one JSON object; several workers (``-n``) append to the same file.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
_CODE = re.compile(r"\b[A-Z]{2}\d{3}\b")
_COMMANDS = frozenset({"check", "log", "why"})

_current: dict[str, Any] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--first-screen-cases", default=None, help="append the recorded launches to this file")


def _classes(module: Any) -> dict[str, str]:
    """The file -> class-now table of a batch (``CLASSES = {name: (before, after)}``)."""
    table = getattr(module, "CLASSES", None)
    out: dict[str, str] = {}
    if isinstance(table, dict):
        for name, value in table.items():
            if isinstance(value, tuple) and value and isinstance(value[-1], str):
                out[str(name).rsplit("/", 1)[-1]] = value[-1]
    return out


def _params(item: pytest.Item) -> list[Any]:
    callspec = getattr(item, "callspec", None)
    return list(callspec.params.values()) if callspec is not None else []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    function = getattr(item, "function", None)
    try:
        source = inspect.getsource(function) if function is not None else ""
    except (OSError, TypeError):
        source = ""
    params = _params(item)
    _current.update(
        node=item.nodeid,
        codes=sorted(set(_CODE.findall(source + " " + repr(params)))),
        missed=any(type(p).__name__ == "Missed" for p in params),
        after=[str(p.after) for p in params if hasattr(p, "after")],
        classes=_classes(getattr(item, "module", None)),
    )
    yield
    _current.clear()


def _recording(main: Callable[..., int], out: Path) -> Callable[..., int]:
    def wrapper(argv: Sequence[str] | None = None) -> int:
        args = list(argv or [])
        before = sys.stdout
        status = main(args)
        if _current and args and args[0] in _COMMANDS and "--format" in args:
            at = args.index("--format")
            if at + 1 < len(args) and args[at + 1] == "json":
                row = {
                    **{k: v for k, v in _current.items() if k != "classes"},
                    "cwd": os.path.relpath(os.getcwd(), ROOT),
                    # the repository's own paths written relative to it, so the file is read on any checkout
                    "argv": [a.replace(str(ROOT) + "/", "{ROOT}/") for a in args[:at] + args[at + 2 :]],
                    "classes": {
                        name: cls
                        for name, cls in _current["classes"].items()
                        if any(name in str(a) for a in args)
                    },
                }
                with out.open("a", encoding="utf-8") as stream:
                    stream.write(json.dumps(row) + "\n")
        assert sys.stdout is before
        return status

    return wrapper


def pytest_configure(config: pytest.Config) -> None:
    target = config.getoption("--first-screen-cases")
    if not target:
        return
    import argtrace.cli

    recording = _recording(argtrace.cli.main, Path(target).resolve())
    argtrace.cli.main = recording  # type: ignore[assignment]
    config.stash[_KEY] = recording


_KEY = pytest.StashKey[Callable[..., int]]()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Modules that imported ``main`` by name (tests/conftest.py) call the recording one."""
    recording = config.stash.get(_KEY, None)
    if recording is None:
        return
    for name, module in list(sys.modules.items()):
        if name.startswith("tests") and getattr(module, "main", None) is not None:
            if getattr(module.main, "__module__", "") == "argtrace.cli":
                module.main = recording
