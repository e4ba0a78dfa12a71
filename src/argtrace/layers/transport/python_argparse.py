"""This module owns a Python program's own command line as its ``argparse`` parser reads the words a script
gives it:
``python3 serve.py --model m --tp 2`` running a program that does ``args = parser.parse_args()`` and then
``subprocess.Popen([..., "--tp", str(args.tp)])``.

The parser is Python's own ``argparse.ArgumentParser``, built from the program's literal
``ArgumentParser(...)``/``add_argument(...)``/``set_defaults(...)`` calls and run on the words; the program
itself is never run. So ``args.tp`` is what argparse gives for those words: a default, a ``type=int``
conversion, ``store_true``, an abbreviation (``--mod`` for ``--model``), ``nargs``, as Python's documented
rules decide, without a copy of them here.

Not followed (each of the namespace's values stays unknown, as before): a parser handed to other code
(``EngineArgs.add_cli_args(parser)`` adds options not in this file), one built with ``parents=``, subcommands,
another parser class (vLLM's ``FlexibleArgumentParser``), an ``add_argument`` whose arguments are not
literals or that runs under a test known only when the program runs, a ``type=`` that is not ``int``,
``float`` or ``str``, and any word the script leaves unknown. A default the file does not give as a literal
(``default=os.getenv("MODEL")``) is unknown unless the words set the option. Words argparse refuses (an
unknown option, a bad ``choices`` value) end the program with its usage message before any server starts:
every value is then unknown, with argparse's own message as the reason.
"""

from __future__ import annotations

import argparse
import ast

from argtrace.layers.transport.python_values import Unknown

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from argtrace.layers.transport.python_values import Values


class ProgramArguments:
    """The namespaces ``parse_args()`` gives a program run with ``argv`` (its ``sys.argv[1:]``), as
    :class:`Values` asks for them (``args.tp``), each parsed once."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.argv = list(argv)
        self._parsed: dict[tuple[str, int], dict[str, Any] | Unknown | None] = {}

    def attribute(self, values: Values, node: ast.Attribute, name: str, line: int) -> Any:
        """``name.attr`` at ``line``: a literal, or :class:`Unknown`."""
        found = values.only_expression(name, line)
        if found is None:
            parsed: dict[str, Any] | Unknown | None = None
        else:
            key = (name, found[0])
            if key not in self._parsed:
                self._parsed[key] = namespace(values, name, found, line, self.argv)
            parsed = self._parsed[key]
        if isinstance(parsed, Unknown):
            return Unknown(ast.unparse(node), parsed.why, line)
        if isinstance(parsed, dict) and node.attr in parsed:
            return parsed[node.attr]
        text = ast.unparse(node)
        return Unknown(text, f"`{text}` is known only when the program runs", line)


_PARSER_CLASSES = frozenset({"argparse.ArgumentParser", "ArgumentParser"})
_GROUPS = frozenset({"add_argument_group", "add_mutually_exclusive_group"})
# methods that leave the options as they are
_READERS = frozenset(
    {"parse_args", "print_help", "print_usage", "format_help", "format_usage", "error", "exit"}
)
# keywords that only change what the parser prints
_PRINTED = frozenset({"help", "metavar", "description", "epilog", "usage", "formatter_class", "prog"})
_TYPES = {"int": int, "float": float, "str": str}
# bounds on what is handed to argparse (a planted file must not make it hang or fill memory: argparse builds
# a pattern `nargs` long, and matches options against words pairwise)
_MAX_OPTIONS = 500
_MAX_WORDS = 1000
_MAX_NARGS = 64
_ACTIONS = frozenset(
    {"store", "store_const", "store_true", "store_false", "append", "append_const", "count", "extend"}
)


class _Refused(Exception):
    """argparse's error (usage) or exit: what ends the program before it starts anything."""


class _Parser(argparse.ArgumentParser):
    """Python's parser, with its messages and exits raised instead of printed (nothing is written to the
    user's terminal from here)."""

    def error(self, message: str) -> Any:
        raise _Refused(message)

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise _Refused(message or f"the program exits with status {status} (its help or version)")

    def _print_message(self, message: str, file: Any = None) -> None:
        return None


def namespace(
    values: Values, name: str, found: tuple[int, ast.AST], line: int, argv: Sequence[str]
) -> dict[str, Any] | Unknown | None:
    """The attributes of ``name``, set once at ``found`` (``Values.only_expression``'s line and expression),
    when the program sets it from ``P.parse_args()`` (or a function of
    the file that returns that) and the file builds ``P`` wholly from literals: dest -> value, an attribute
    left unknown as :class:`Unknown`; :class:`Unknown` when argparse refuses ``argv``; None when the parser
    is not followed (the module docstring says which)."""
    at, call = found
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and not call.args and not call.keywords:
        returned = values.returned(call.func.id)  # `args = parse_args()`, a function of the file
        if returned is None or returned.value is None:
            return None
        at, call = returned.lineno, returned.value
    parser_name = _parse_args_owner(call)
    if parser_name is None:
        return None
    parser = _built(values, parser_name, at)
    if parser is None:
        return None
    if len(argv) > _MAX_WORDS:
        return None
    try:
        parsed = parser.parse_args(list(argv))
    except _Refused as refused:
        return Unknown(name, f"the program's argparse refuses its words and exits: {refused}", line)
    return dict(vars(parsed))


def _parse_args_owner(call: ast.AST) -> str | None:
    """``P`` of ``P.parse_args()`` (no words given: the program's own ``sys.argv[1:]``)."""
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "parse_args"
        and isinstance(call.func.value, ast.Name)
        and not call.keywords
        and (not call.args or ast.unparse(call.args[0]) == "sys.argv[1:]")
        and len(call.args) <= 1
    ):
        return call.func.value.id
    return None


def _built(values: Values, parser_name: str, line: int) -> _Parser | None:
    """``parser_name``'s parser built as the file builds it, or None when it cannot be wholly."""
    found = values.only_expression(parser_name, line)
    if found is None:
        return None
    _at, made = found
    if not isinstance(made, ast.Call) or ast.unparse(made.func) not in _PARSER_CLASSES or made.args:
        return None
    options = _keywords(values, made, line, skip=_PRINTED)
    if options is None or "parents" in options or "argument_default" in options:
        return None
    tree = values.tree
    owners = {parser_name}
    for node in ast.walk(tree):  # the groups: `g = parser.add_argument_group(...)` adds to the parser
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Attribute)
                and value.func.attr in _GROUPS
                and isinstance(value.func.value, ast.Name)
                and value.func.value.id == parser_name
            ):
                owners.add(node.targets[0].id)
    calls: list[tuple[int, int, str, ast.Call]] = []
    owner_calls: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in owners
        ):
            owner_calls.add(id(node.func.value))
            method = node.func.attr
            if method in ("add_argument", "set_defaults"):
                if values.decided(node, node.lineno, 0) is not True:
                    return None  # an option added under a test known only when the program runs
                calls.append((node.lineno, node.col_offset, method, node))
            elif method not in _READERS and method not in _GROUPS:
                return None  # add_subparsers, register, ...: not followed
    for node in ast.walk(tree):  # the parser handed to other code, which may add options of its own
        if (
            isinstance(node, ast.Name)
            and node.id in owners
            and isinstance(node.ctx, ast.Load)
            and id(node) not in owner_calls
        ):
            return None
    if len(calls) > _MAX_OPTIONS:
        return None
    try:
        parser = _Parser(**options)
        for _line, _col, method, call in sorted(calls, key=lambda c: (c[0], c[1])):
            kwargs = _keywords(values, call, call.lineno, skip=frozenset({"help", "metavar"}))
            if kwargs is None:
                return None
            if method == "set_defaults":
                if call.args:
                    return None
                parser.set_defaults(**kwargs)
                continue
            names = [values.value(arg, call.lineno) for arg in call.args]
            if not all(isinstance(n, str) for n in names) or not _typed(kwargs, call):
                return None
            parser.add_argument(*names, **kwargs)
    except (argparse.ArgumentError, TypeError, ValueError):
        return None  # a parser Python itself refuses to build: the program fails before it parses
    return parser


def _keywords(values: Values, call: ast.Call, line: int, *, skip: frozenset[str]) -> dict[str, Any] | None:
    """A call's keywords as literals (those in ``skip`` left out), or None when one is not a literal; an
    unknown ``default`` is kept as its :class:`Unknown` (argparse hands it back when the words do not set
    the option)."""
    out: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            return None  # **options
        if keyword.arg in skip or keyword.arg == "type":
            continue
        if keyword.arg == "action":
            action = ast.unparse(keyword.value)
            if action == "argparse.BooleanOptionalAction":
                out["action"] = argparse.BooleanOptionalAction
                continue
        value = values.value(keyword.value, line)
        if isinstance(value, Unknown) and keyword.arg == "default":
            out["default"] = value
            continue
        if _holds_unknown(value):
            return None
        out[keyword.arg] = value
    return out


def _typed(kwargs: dict[str, Any], call: ast.Call) -> bool:
    """Put the call's ``type=`` into ``kwargs`` when it is one argparse is given by name here (``int``,
    ``float``, ``str``); False for any other (a function of the program's)."""
    action = kwargs.get("action")
    if isinstance(action, str) and action not in _ACTIONS:
        return False
    nargs = kwargs.get("nargs")
    if isinstance(nargs, int) and not 0 <= nargs <= _MAX_NARGS:
        return False
    for keyword in call.keywords:
        if keyword.arg == "type":
            converter = _TYPES.get(ast.unparse(keyword.value))
            if converter is None:
                return False
            kwargs["type"] = converter
    return True


def _holds_unknown(value: Any) -> bool:
    if isinstance(value, Unknown):
        return True
    if isinstance(value, (list, tuple)):
        return any(_holds_unknown(item) for item in value)
    if isinstance(value, dict):
        return any(_holds_unknown(item) for item in value.values())
    return False
