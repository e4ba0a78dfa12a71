"""A command's words read without ``argparse`` when they are plain ones (issue 18).

``argtrace log LOG --format json`` paid about 18 M instructions to read its words: importing ``argparse``
(with ``gettext`` and ``locale``), building the parser of the command and of the options every command
takes, and parsing, a sixth of what the command itself costs before it reads the log (docs/log.md, session
29). :func:`parse` reads the words of a command that declares its options here (``quick_parse`` in its
module, listed in ``commands.QUICK_COMMANDS``) when they are plain: the command word first, each option
spelled in full (``--format json``, ``--format=json``, a flag), each value a choice the option allows and
not starting with ``-``, the command's positionals each given once. Anything else (``-h``, a usage error,
``--host`` before the command, ``--launch -1``, ``--``, a value argparse would reject) gives None and goes
through the real parser, which then prints what it always printed.

What it returns holds what argparse's namespace would, in the same order: the top-level options'
defaults, ``command``, then the command's options and positionals in the order the parser declares them.
tests/test_quick_argv.py derives each table below from the real parser (a changed option fails it) and
compares both readings of thousands of command lines.
"""

from __future__ import annotations

from collections.abc import Sequence

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)

# How an option takes its value (its argparse action)
FLAG = "store_true"  # no value: True when given
VALUE = "store"  # one value; the last use wins
APPEND = "append"  # one value per use, gathered in a list (a new one each run)

# One option or positional: (dest, how, option string (None: a positional), default, choices or None)
Spec = tuple[str, str, "str | None", object, "tuple[str, ...] | None"]

# The top-level parser's (``remote/options.add_host_options``): only their defaults, since a command line
# read here starts with the command word
GLOBAL_SPECS: tuple[Spec, ...] = (
    ("host", VALUE, "--host", None, None),
    ("ssh_option", APPEND, "--ssh-option", [], None),
)


def common_specs() -> tuple[Spec, ...]:
    """The options every command that prints findings takes (``cli._common_options``), in its order."""
    from argtrace.ci.controls import FAIL_ON
    from argtrace.render import FORMATS

    return (
        ("format", VALUE, "--format", "text", FORMATS),
        ("show_secrets", FLAG, "--show-secrets", False, None),
        ("fail_on", VALUE, "--fail-on", "error", FAIL_ON),
        ("show_suppressed", FLAG, "--show-suppressed", False, None),
        ("show_config", FLAG, "--show-config", False, None),
        ("baseline", VALUE, "--baseline", None, None),
        ("write_baseline", VALUE, "--write-baseline", None, None),
        ("verbose", FLAG, "--verbose", False, None),
    )


if TYPE_CHECKING:
    from argparse import Namespace
else:

    class Namespace:
        """What ``argparse.Namespace`` does for its readers: attributes, ``==`` over them, ``in``, and its
        ``repr``; without importing ``argparse``."""

        __hash__ = None  # as argparse's: it defines __eq__

        def __init__(self, **kwargs: object) -> None:
            self.__dict__.update(kwargs)

        def __eq__(self, other: object) -> bool:
            if not isinstance(other, Namespace):
                return NotImplemented
            return vars(self) == vars(other)

        def __contains__(self, key: str) -> bool:
            return key in self.__dict__

        def __repr__(self) -> str:
            return f"Namespace({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


def parse(command: str, words: Sequence[str], specs: Sequence[Spec]) -> Namespace | None:
    """The namespace argparse would give for ``command`` followed by ``words`` (the command's options and
    positionals: ``specs``, in the parser's order), or None when they are not plain (see the module)."""
    options = {spec[2]: spec for spec in specs if spec[2] is not None}
    positionals = [spec[0] for spec in specs if spec[2] is None]
    values: dict[str, object] = {}
    given: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("-"):
            given.append(word)  # argparse's positional too ("", "a=b", "x y")
            continue
        name, equals, value = word.partition("=")
        spec = options.get(name) if name.startswith("--") else None
        if spec is None:
            return None  # -h, --, a negative number, an option of another command, a typo
        dest, how, _, _, choices = spec
        if how == FLAG:
            if equals:
                return None  # "ignored explicit argument"
            values[dest] = True
            continue
        if not equals:
            if i == len(words):
                return None  # "expected one argument"
            value = words[i]
            i += 1
        if not value or value.startswith("-") or (choices is not None and value not in choices):
            return None  # "", an option-like value (argparse decides), an invalid choice
        if how == APPEND:
            appended = values.setdefault(dest, [])
            assert isinstance(appended, list)
            appended.append(value)
        else:
            values[dest] = value
    if len(given) != len(positionals):
        return None  # "the following arguments are required" / "unrecognized arguments"
    values.update(zip(positionals, given, strict=True))
    namespace = Namespace()
    for dest, _, _, default, _ in GLOBAL_SPECS:
        setattr(namespace, dest, list(default) if isinstance(default, list) else default)
    namespace.command = command
    for dest, _, _, default, _ in specs:
        if dest in values:
            setattr(namespace, dest, values[dest])
        else:
            setattr(namespace, dest, list(default) if isinstance(default, list) else default)
    return namespace
