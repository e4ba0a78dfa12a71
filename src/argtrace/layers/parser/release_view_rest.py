"""The members of :class:`~argtrace.layers.parser.release_view.Releases` read on first use (each a
``Deferred`` in the class, layers/shell/deferred.py, replaced by its function or cached property here at its
first look-up): the other releases' schemas and the lookups of an unknown flag's or config key's finding.
A plain check whose flags every newer release knows reads none of them (unrun37)."""

from __future__ import annotations

import functools
from collections.abc import Sequence

from argtrace.frameworks.schema import OptionSpec, Schema, schemas_for, version_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.parser.release_view import Releases


# -- the other releases, loaded only when a finding needs them (schema files are large)
def variants_of(self: Releases) -> list[Schema] | None:
    """Another entry point's parser in every bundled release that has it (vLLM's demo server), oldest
    first; None for the framework's own server parser."""
    if not self.schema.variant:
        return None
    if self.schema.variant.startswith("vllm bench "):
        from argtrace.frameworks.vllm_bench import bench_schemas

        return bench_schemas(self.schema.variant)
    from argtrace.frameworks.vllm_demo import demo_schemas

    return demo_schemas()


_variants = functools.cached_property(variants_of)


def history_of(self: Releases) -> list[Schema]:
    """Every known release of the analysed framework, oldest first (the analysed one included)."""
    name = self.schema.framework
    given = [s for s in self.all_schemas or () if s.framework == name]
    schemas = self._variants if self._variants is not None else schemas_for(name, given)
    if not any(s.version == self.schema.version for s in schemas):
        schemas = sorted([*schemas, self.schema], key=lambda s: version_key(s.version))
    return schemas


history = functools.cached_property(history_of)


def newer_of(self: Releases) -> list[Schema]:
    """Releases newer than the analysed one (without loading the older ones)."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    key = version_key(self.schema.version)
    if self._variants is not None:
        return [s for s in self._variants if version_key(s.version) > key]
    given = {s.version: s for s in self.all_schemas or () if s.framework == self.schema.framework}
    names = sorted({*bundled_versions(self.schema.framework), *given}, key=version_key)
    return [given.get(v) or load_schema(self.schema.framework, v) for v in names if version_key(v) > key]


newer = functools.cached_property(newer_of)


def others_of(self: Releases) -> list[Schema]:
    name = "vllm" if self.schema.framework == "sglang" else "sglang"
    given = [s for s in self.all_schemas or () if s.framework == name]
    return schemas_for(name, given)


others = functools.cached_property(others_of)


# -- the releases an unknown flag's finding names, from the flag -> releases index (issue 15)
def _indexed_knowing(self: Releases, framework: str, flag: str) -> list[str] | None:
    """Versions of ``framework`` (oldest first) whose parser registers exactly ``flag``, from the
    release index plus any user-generated schema the index does not cover; None when only loading the
    schemas can tell (schemas were given beside the bundled ones)."""
    if any(s.framework == framework for s in self.all_schemas or ()):
        return None
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import bundled_versions, load_schema

    try:
        index = release_index(framework)
        indexed = set(index.releases)
        knowing = {index.releases[i] for i in index.flags.get(flag, ())}
    except KeyError:  # no bundled release of that framework
        indexed, knowing = set(), set()
    for version in bundled_versions(framework):  # `resolver add` releases: not in the bundled index
        if version not in indexed and load_schema(framework, version).option(flag) is not None:
            knowing.add(version)
    return sorted(knowing, key=version_key)


def knowing(self: Releases, flag: str) -> list[tuple[Schema, OptionSpec]]:
    """The release of the analysed framework that an unknown ``flag``'s finding names, with its spec:
    the oldest newer release that knows it, else the newest older one (``[]``: none knows it); both,
    oldest first, when it was dropped before the analysed release and brought back after it.

    Read from the release index, so one schema is loaded instead of every release (with 30+ releases
    bundled, ``history`` is megabytes of JSON). With schemas given beside the bundled ones, every
    knowing release, as before."""
    name = self.schema.framework
    versions = None if self.schema.variant else self._indexed_knowing(name, flag)
    from argtrace.layers.parser.releases import _known_in

    if versions is None:
        return _known_in(self.history, flag)
    versions = [v for v in versions if v != self.schema.version]
    key = version_key(self.schema.version)
    newer = [v for v in versions if version_key(v) > key]
    older = [v for v in versions if version_key(v) < key]
    cited = older[-1:] + newer[:1] if newer and older else newer[:1] or older[-1:]
    return _known_in([self._load(name, v) for v in cited], flag)


def knowing_elsewhere(self: Releases, flag: str) -> list[tuple[Schema, OptionSpec]]:
    """The newest release of the other framework that knows ``flag`` (from the index: one schema)."""
    if self.schema.variant:
        return []  # another entry point of the framework: the other framework's flags are not its
    from argtrace.layers.parser.releases import _known_in

    name = "vllm" if self.schema.framework == "sglang" else "sglang"
    versions = self._indexed_knowing(name, flag)
    if versions is None:
        return _known_in(self.others, flag)
    return _known_in([self._load(name, versions[-1])], flag) if versions else []


def _load(self: Releases, framework: str, version: str) -> Schema:
    from argtrace.frameworks.schema import load_schema

    if framework == self.schema.framework and version == self.schema.version:
        return self.schema
    return load_schema(framework, version)


def ambiguous_elsewhere(self: Releases, typed: str) -> str | None:
    for s in reversed(self.history):
        if s.version == self.schema.version:
            continue
        if s.option(typed) is None and len([o for o in s.option_strings if o.startswith(typed)]) > 1:
            return s.label
    return None


def choice_valid_in(self: Releases, spec: OptionSpec, value: Any) -> str | None:
    vals = value if isinstance(value, list) else [value]
    hits = []
    for s in self.history:
        if s.version == self.schema.version:
            continue
        other = s.option(spec.flag or "") if spec.flag else None
        if other is not None and other.choices is not None and all(v in other.choices for v in vals):
            hits.append(s.version)
    return ", ".join(hits) if hits else None


def key_hints(self: Releases, dest: str, unknown: Sequence[str], fields: set[str]) -> str:
    """For unknown config keys: the nearest field of this release, or the releases that have it."""
    import difflib

    hints = []
    for key in unknown:
        near = difflib.get_close_matches(key, sorted(fields), n=1)
        elsewhere = [
            s.version
            for s in self.history
            if s.version != self.schema.version
            and key in ((s.config_dataclass(dest) or {}).get("fields") or ())
        ]
        if elsewhere:
            hints.append(f"{key!r} is a field in {self.schema.framework} {', '.join(elsewhere)}")
        elif near:
            hints.append(f"{key!r}: did you mean {near[0]!r}?")
    return "; ".join(hints)
