"""The indented JSON writer (render/json_text.py) writes exactly what ``json.dumps(value, indent=2,
ensure_ascii=False)`` writes, and leaves to ``json`` what only ``json`` handles (its errors included)."""

from __future__ import annotations

import enum
import json
import math
from pathlib import Path
from typing import Any

import pytest

from argtrace.render.json_text import dumps_indented

ROOT = Path(__file__).resolve().parent.parent


def expected(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


class Level(enum.IntEnum):
    HIGH = 2


class Text(str):
    pass


EDGES: list[Any] = [
    None,
    True,
    False,
    0,
    -17,
    10**30,
    1.5,
    -0.0,
    1e300,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "plain",
    'quote " backslash \\ tab \t newline \n nul \x00 del \x7f',
    "non-ASCII é ü 中文 \U0001f600 \ud800",
    Text("a str subclass"),
    Level.HIGH,
    [],
    {},
    (),
    [[]],
    [{}],
    {"a": []},
    {"a": {}},
    (1, (2, (3,))),
    [1, "two", 3.0, None, True, False, [4, {"five": 5}]],
    {"k": {"nested": {"deeper": [1, {"x": [None]}]}}, "z": "last"},
    {7: "int key", 2.5: "float key", True: "bool key", None: "none key", "s": "str key"},
    {False: 0, math.inf: 1, -math.inf: 2, Level.HIGH: 3},
    {"é": "ключ"},
]


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_the_same_text_as_json_dumps(value: Any) -> None:
    assert dumps_indented(value) == expected(value)


def test_the_bundled_json_files_are_written_identically() -> None:
    files = sorted((ROOT / "src" / "argtrace" / "data").rglob("*.json"))
    assert len(files) >= 10
    for path in files:
        value = json.loads(path.read_text())
        assert dumps_indented(value) == expected(value), path


def test_what_only_json_handles_raises_its_own_errors() -> None:
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        dumps_indented({"a": [1, {2}]})
    with pytest.raises(TypeError, match="keys must be str, int, float, bool or None, not tuple"):
        dumps_indented({(1, 2): "tuple key"})
    looped: list[Any] = [1]
    looped.append(looped)
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps_indented({"loop": looped})
    shared = [1, 2]
    assert dumps_indented([shared, shared]) == expected([shared, shared])  # not a cycle
