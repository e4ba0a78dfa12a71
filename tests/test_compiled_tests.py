"""A raise site's tests compiled to tuples (``start_raises.compile_test``, kept between runs so that a
check evaluates them without the ``_ast`` node classes, issue 18) give the verdict the parsed expression
gives: the evaluator over ``ast`` nodes the project had before (kept here as the reference) against
``start_raises.refuses`` on every condition of the SGLang overrides and of two releases' raise sites, each
under several values of the settings it reads."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from typing import Any

import pytest

from argtrace.layers import start_raises
from argtrace.package_data import package_file
from argtrace.resolver.raise_index import load_index


class _Unknown(Exception):
    pass


_OPS: dict[type[ast.cmpop], Any] = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Is: lambda a, b: a is b,
    ast.IsNot: lambda a, b: a is not b,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def _reference(
    node: ast.AST, framework: str, fields: frozenset[str], values: Mapping[str, Any], read: list[str]
) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return tuple(_reference(e, framework, fields, values, read) for e in node.elts)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        known = (framework == "sglang" and node.value.id in start_raises.SGLANG_BASES) or (
            framework == "vllm" and node.value.id == "self" and node.attr in fields
        )
        if not known or node.attr not in values:
            raise _Unknown
        read.append(node.attr)
        return values[node.attr]
    if isinstance(node, ast.BoolOp):
        out: Any = isinstance(node.op, ast.And)
        for value in node.values:
            out = _reference(value, framework, fields, values, read)
            if bool(out) != isinstance(node.op, ast.And):
                return out
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _reference(node.operand, framework, fields, values, read)
    if isinstance(node, ast.Compare):
        left = _reference(node.left, framework, fields, values, read)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _reference(right_node, framework, fields, values, read)
            if not _OPS[type(op)](left, right):
                return False
            left = right
        return True
    raise _Unknown


def _reference_refuses(
    conditions: list[str], framework: str, fields: frozenset[str], values: Mapping[str, Any]
) -> Any:
    read: list[str] = []
    try:
        for condition in conditions:
            if not _reference(ast.parse(condition, mode="eval").body, framework, fields, values, read):
                return False, tuple(dict.fromkeys(read))
    except (_Unknown, SyntaxError, TypeError, ValueError, RecursionError):
        return None
    return (True, tuple(dict.fromkeys(read))) if read else None


def _attributes(conditions: list[str]) -> list[str]:
    names: list[str] = []
    for condition in conditions:
        try:
            tree = ast.parse(condition, mode="eval")
        except (SyntaxError, ValueError):
            continue
        names.extend(n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute))
    return sorted(set(names))


VALUES = (True, False, None, 0, 1, 8, "x", "auto", ("a", 1))


def _sites() -> list[tuple[str, list[str]]]:
    overrides = json.loads(package_file("frameworks/data/sglang_overrides.json").read_text(encoding="utf-8"))
    out = [("sglang", [str(c) for c in s["conditions"]]) for s in overrides["sites"]]
    for framework, release in (("sglang", "0.5.19"), ("vllm", "0.11.0")):
        index = load_index(framework, release) or {}
        out.extend(
            (framework, [str(c) for c in s["conditions"]]) for s in index["sites"] if s.get("conditions")
        )
    return out


def test_compiled_tests_give_the_parsed_expressions_verdicts() -> None:
    sites = _sites()
    assert len(sites) > 500
    compared = 0
    verdicts: set[Any] = set()
    for framework, conditions in sites:
        names = _attributes(conditions)
        for fields in (frozenset(names), frozenset()):
            for index in range(len(VALUES)):
                # every setting the same value, then each one a different value in turn
                values = {n: VALUES[(index + i * (index % 3)) % len(VALUES)] for i, n in enumerate(names)}
                site = {"conditions": conditions, "fields": sorted(fields), "class": "EngineArgs"}
                expected = _reference_refuses(conditions, framework, fields, values)
                assert start_raises.refuses(site, framework, values, {}) == expected, (conditions, values)
                tests = tuple(start_raises.compile_test(c) for c in conditions)
                assert start_raises.refuses(site, framework, values, {}, tests) == expected
                compared += 1
                verdicts.add(None if expected is None else expected[0])
    assert compared > 10_000
    assert verdicts == {True, False, None}


@pytest.mark.parametrize(
    ("text", "test"),
    [
        ("self.a and not cfg.b", ("and", (("a", "self", "a"), ("not", ("a", "cfg", "b"))))),
        ("self.x in ('a', 1)", ("cmp", ("a", "self", "x"), (("In", ("s", (("c", "a"), ("c", 1)))),))),
        ("1 < self.n <= 4", ("cmp", ("c", 1), (("Lt", ("a", "self", "n")), ("LtE", ("c", 4))))),
        ("f(self.x)", ("?",)),
        ("self.x ==", ("!",)),
    ],
)
def test_compile_test_forms(text: str, test: tuple[Any, ...]) -> None:
    assert start_raises.compile_test(text) == test
