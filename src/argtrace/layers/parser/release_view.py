"""The other bundled releases as the findings about one parse see them (:class:`Releases`), apart from
the cross-release lookups of ``releases.py``: a check whose flags every newer release knows answers from
the release index here and never loads those (code35: ~45 KB of bytecode a plain check did not run).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from argtrace.frameworks.schema import Schema, version_key
from argtrace.layers.shell.deferred import Deferred

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


def _dest_guess(flag: str) -> str:
    return flag.split("=", 1)[0].lstrip("-").replace("-", "_").replace(".", "_") or flag


@functools.lru_cache(maxsize=64)
def _newer_places(framework: str, version: str) -> tuple[int, ...]:
    """The places in ``release_index(framework).releases`` of the releases newer than ``version`` (PEP 440
    order). The same for every flag of a check and of its fix re-check: ``_newer_all_know`` compared each
    bundled release's key with the schema's once per flag (91 SGLang releases, 28 flags; issue 18). The
    index is bundled data, read once per process (``release_index``)."""
    from argtrace.frameworks.release_index import release_index

    key = version_key(version)
    return tuple(i for i, v in enumerate(release_index(framework).releases) if version_key(v) > key)


@functools.lru_cache(maxsize=1024)
def _every_newer_knows(framework: str, version: str, option: str) -> bool:
    """Whether every bundled release newer than ``version`` knows ``option`` (``Releases._newer_all_know``):
    bundled data only, so one answer per option for a check and its fix re-checks (session 36)."""
    from argtrace.frameworks.release_index import release_index

    try:
        index = release_index(framework)
    except KeyError:
        return False
    knowing = set(index.flags.get(option, ()))
    return all(i in knowing for i in _newer_places(framework, version))


class Releases:
    """The other bundled releases, as the findings about one parse need them: every release of the analysed
    framework (``history``), the newer ones only (``newer``: loading every schema is slow) and the other
    framework's (``others``). Each list is loaded the first time a finding asks for it."""

    def __init__(self, schema: Schema, all_schemas: Sequence[Schema] | None) -> None:
        self.schema = schema
        self.all_schemas = all_schemas

    # -- the other releases and the lookups of an unknown flag's or key's finding: release_view_rest.py's,
    # read at their first use (a plain check whose flags every newer release knows asks none of them)
    _variants = Deferred("argtrace.layers.parser.release_view_rest")
    history = Deferred("argtrace.layers.parser.release_view_rest")
    newer = Deferred("argtrace.layers.parser.release_view_rest")
    others = Deferred("argtrace.layers.parser.release_view_rest")
    _indexed_knowing = Deferred("argtrace.layers.parser.release_view_rest")
    knowing = Deferred("argtrace.layers.parser.release_view_rest")
    knowing_elsewhere = Deferred("argtrace.layers.parser.release_view_rest")
    _load = Deferred("argtrace.layers.parser.release_view_rest")
    ambiguous_elsewhere = Deferred("argtrace.layers.parser.release_view_rest")
    choice_valid_in = Deferred("argtrace.layers.parser.release_view_rest")
    key_hints = Deferred("argtrace.layers.parser.release_view_rest")

    def _newer_all_know(self, option: str) -> bool:
        """True when every newer bundled release knows ``option``, from the release index: the common
        answer, without reading the newer schemas (hundreds of KB of JSON each; issue 18)."""
        if self.schema.variant or any(s.framework == self.schema.framework for s in self.all_schemas or ()):
            return False  # schemas given beside the bundled ones, or another entry point's: they tell
        return _every_newer_knows(self.schema.framework, self.schema.version, option)

    def removed_later(self, option: str | None) -> str | None:
        if not option or self._newer_all_know(option):
            return None
        from argtrace.layers.parser.releases import _option_of, _replacement

        gone = [s for s in self.newer if _option_of(s, option) is None]
        if not gone:
            return None
        first = gone[0]
        repl = _replacement(option, first, [self.schema, *self.newer])
        return (
            f"{option} works in {self.schema.label} but {first.label} no longer accepts it"
            + (f" (use {repl})" if repl else "")
            + "; the script breaks on upgrade"
        )
