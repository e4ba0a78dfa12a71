"""Start-up, session 31 (issue 18): what a check and its fix re-check asked again of one release's schema
and parser is made once. A schema's dests and option groups are one table per schema, equal to building
them; a parse given the parser's ``fresh_namespace`` gets what argparse gives with a new namespace (values,
their order and identity, leftovers, events), and the defaults are read again when an action is added."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from argtrace.frameworks.schema import load_schema
from argtrace.layers import start_raises
from argtrace.layers.parser.build import build_parser
from argtrace.layers.parser.recording import _Parser, _Tok

RELEASES = [("sglang", "0.5.19"), ("sglang", "0.4.6.post5"), ("vllm", "0.33.0")]
ARGVS = {
    "sglang": [
        [],
        ["--model-path", "m", "--tp-size", "2", "--port", "30000", "--mem-fraction-static", "0.8"],
        ["--model-path", "m", "--attention-backend", "nope", "--no-such-flag", "1", "--trust-remote-code"],
        ["--model-path", "m", "--tp-size", "two", "--json-model-override-args", '{"a": 1}'],
    ],
    "vllm": [
        [],
        ["m", "--tensor-parallel-size", "2", "--port", "8000", "--gpu-memory-utilization", "0.9"],
        ["m", "--dtype", "nope", "--no-such-flag", "1", "--enforce-eager"],
        ["m", "--max-model-len", "eight", "--hf-overrides", '{"a": 1}'],
    ],
}


@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_dests_and_option_groups_once_per_schema(framework: str, version: str) -> None:
    schema = load_schema(framework, version)
    assert schema.dests == frozenset(spec.dest for spec in (*schema.options, *schema.positionals))
    assert schema.dests is schema.dests
    groups = schema.option_groups
    assert dict(groups) == {spec.dest: spec.group for spec in schema.options}
    assert list(groups) == list(dict.fromkeys(spec.dest for spec in schema.options))
    assert groups is schema.option_groups
    assert start_raises._options(framework, version) is groups
    with pytest.raises(TypeError):
        groups["x"] = None  # type: ignore[index]


def test_options_of_an_unknown_release() -> None:
    assert start_raises._options("sglang", "0.0.0") == {}


def _parsed(parser: _Parser, argv: list[str], namespace: argparse.Namespace | None) -> dict[str, Any]:
    parser.reset()
    words = [_Tok(w, i) for i, w in enumerate(argv)]
    ns, rest = parser.parse_known_args(words, namespace)
    return {
        "names": list(vars(ns)),
        "values": [(k, repr(v), type(v).__name__) for k, v in vars(ns).items()],
        # which values are the very default object (argparse converts a string default only then)
        "defaults": [
            k for k, v in vars(ns).items() if any(a.dest == k and a.default is v for a in parser._actions)
        ],
        "rest": [(str(r), getattr(r, "idx", None)) for r in rest],
        "events": [
            (
                e.spec.dest,
                e.kind,
                e.option,
                e.option_tok,
                e.value_toks,
                e.raw,
                repr(e.value),
                e.stored,
                e.errors,
            )
            for e in parser.events
        ],
    }


@pytest.mark.parametrize(("framework", "version"), RELEASES)
def test_fresh_namespace_parses_as_a_new_one(framework: str, version: str) -> None:
    parser = build_parser(load_schema(framework, version)).parser
    for argv in ARGVS[framework]:
        plain = _parsed(parser, argv, None)
        assert _parsed(parser, argv, parser.fresh_namespace()) == plain
        # twice: the kept defaults are not changed by a parse
        assert _parsed(parser, argv, parser.fresh_namespace()) == plain
    assert parser.fresh_namespace() is not parser.fresh_namespace()


def test_fresh_namespace_defaults_in_argparse_order() -> None:
    parser = _Parser(add_help=False)
    parser.add_argument("--a", default="first")
    parser.add_argument("--b", dest="a", default="second")  # the first action of a dest wins
    parser.add_argument("--c", default=argparse.SUPPRESS)
    parser.add_argument("--d", dest="c", default=4)  # a SUPPRESS default leaves the dest to the next
    parser.set_defaults(e=5)
    assert list(vars(parser.fresh_namespace()).items()) == [("a", "first"), ("c", 4), ("e", 5)]
    assert vars(parser.fresh_namespace()) == vars(parser.parse_known_args([])[0])
    parser.add_argument("--f", default=6)  # an action added since: the defaults are read again
    assert vars(parser.fresh_namespace()) == {"a": "first", "c": 4, "e": 5, "f": 6}
    parser.set_defaults(a="later", g=7)  # set_defaults changes actions' defaults: read again too
    assert list(vars(parser.fresh_namespace()).items()) == [
        ("a", "later"),
        ("c", 4),
        ("f", 6),
        ("e", 5),
        ("g", 7),
    ]
    assert list(vars(parser.fresh_namespace()).items()) == list(vars(parser.parse_known_args([])[0]).items())
