"""An alias's definition (``AliasDef``), in a module of its own: a script that defines no alias never makes
the class (dcls36: a dataclass made at import costs ~0.3 M instructions; ``builtins_state``'s ``alias`` makes
the definitions, ``core.Core.aliases`` holds them)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AliasDef:
    """An alias as ``alias NAME=VALUE`` defined it: bash replaces NAME by VALUE when it reads a command
    after the complete command that defined it (with ``shopt -s expand_aliases``)."""

    value: str | None  # latin-1; None: the forks of an unknown condition define it differently
    source: int  # id() of the Source it was defined in
    visible_from: int  # offset in that source where the next complete command starts
    value_offset: int | None  # offset of VALUE's first character in that source (a quoted literal), else None
    previous: AliasDef | None = None  # the definition it replaced (what a command read before it still sees)
