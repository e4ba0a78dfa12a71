"""Which bundled releases know a flag or an environment variable, without loading every schema.

``data/release_index/FRAMEWORK.json`` (one file per framework: a check reads only its framework's) is
generated from the bundled schemas by ``scripts/gen_release_index.py`` (a test keeps it equal to them): the
releases in order, whether each allows abbreviated options, and for every option string and variable name
the releases (by position) that know it. It answers
"which releases accept every flag and variable of this launch" for a launch whose release is unknown, and
"does this flag take a value" (``no_value``: the releases registering it as a flag without one) without
reading every schema (1.2 MB of JSON for SGLang: most of a short ``check``'s start-up, issue 18); and
which converter each release gives an option's value (``converters_of``), so that a value every one of
them refuses is known to fail whichever release runs.
"""

from __future__ import annotations

import bisect
import functools
import json
import marshal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from argtrace.frameworks.env_aliases import prefix_aliases

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INDEX_DIR = Path(__file__).resolve().parent / "data" / "release_index"


def index_path(framework: str) -> Path:
    """The generated index file of one framework (``scripts/gen_release_index.py`` writes it)."""
    return INDEX_DIR / f"{framework}.json"


@dataclass(frozen=True)
class ReleaseIndex:
    """Every bundled release of one framework at a glance: which releases know each flag and environment
    variable, which flags take no value, and each option's value converter, without reading the releases'
    schemas."""

    framework: str
    releases: tuple[str, ...]
    allow_abbrev: tuple[bool, ...]
    flags: Mapping[str, tuple[int, ...]]
    env: Mapping[str, tuple[int, ...]]
    # option string -> the releases (by position) where it takes no value (store_true, count, nargs=0...)
    no_value: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    # option strings every release registers the same way (``registration``): verdicts need not know which
    same_everywhere: frozenset[str] = frozenset()
    # the value converters' labels (``scripts/gen_release_index.converter``), and per option string that
    # takes a value somewhere, runs of (label position, how many releases) over the releases knowing it
    converter_names: tuple[str, ...] = ()
    # ``converters`` as ``marshal`` data, unpacked when first read (``converters_of``; most checks never
    # ask, and unpacking it was a tenth of the index's load, issue 18)
    packed_converters: bytes = marshal.dumps({})
    # the choice lists argparse checks a typed word against (each a ``frozenset`` as ``marshal`` data,
    # unpacked when a flag's runs name it: a check's few flags name a few of ~280), and per option string
    # runs of (list position, how many releases; -1 none) over the releases knowing it
    # (``scripts/gen_release_index._word_choices``)
    packed_choice_sets: tuple[bytes, ...] = ()
    choices: Mapping[str, tuple[tuple[int, int], ...]] = field(default_factory=dict)
    # option string -> the releases (by position) whose action refuses it outright although they register it
    # (a probe saw it raise, or it errors with a message: ``scripts/gen_release_index.py``)
    refused: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def releases_knowing_flag(self, word: str) -> tuple[str, ...]:
        """Releases whose parser takes ``word`` (``--x`` or ``--x=v``) as an option: exactly, or as the
        unique abbreviation of one where that release allows abbreviations (argparse's rule). Answered
        once per option string (the index never changes; a check and its fix re-checks ask for the same
        flags, issue 18)."""
        flag = word.split("=", 1)[0]
        known = self._knowing_flag.get(flag)
        if known is None:
            known = self._knowing_flag[flag] = self._releases_knowing(flag)
        return known

    @functools.cached_property
    def converters(self) -> Mapping[str, tuple[tuple[int, int], ...]]:
        """Per option string that takes a value somewhere, runs of (converter label position, how many
        releases) over the releases knowing it."""
        converters: Mapping[str, tuple[tuple[int, int], ...]] = marshal.loads(self.packed_converters)
        return converters

    def choice_set(self, label: int) -> frozenset[str]:
        """The choice list at position ``label`` (unpacked once)."""
        known = self._choice_sets.get(label)
        if known is None:
            known = self._choice_sets[label] = marshal.loads(self.packed_choice_sets[label])
        return known

    @functools.cached_property
    def _choice_sets(self) -> dict[int, frozenset[str]]:  # a cache in the instance's __dict__
        return {}

    @functools.cached_property
    def _knowing_flag(self) -> dict[str, tuple[str, ...]]:  # a cache in the instance's __dict__
        return {}

    def _releases_knowing(self, flag: str) -> tuple[str, ...]:
        exact = set(self.flags.get(flag, ()))
        prefixed: list[tuple[int, ...]] | None = None  # what knows each option string ``flag`` begins
        out = []
        for i, release in enumerate(self.releases):
            if i in exact:
                out.append(release)
            elif self.allow_abbrev[i] and flag.startswith("--") and len(flag) > 2:
                if prefixed is None:
                    prefixed = self._known_with_prefix(flag)
                if sum(i in known for known in prefixed) == 1:
                    out.append(release)
        return tuple(out)

    def _known_with_prefix(self, prefix: str) -> list[tuple[int, ...]]:
        """The releases knowing each option string that starts with ``prefix`` (found by bisection in
        the sorted option strings: scanning them all once per release was most of a short ``check``)."""
        names = self._sorted_flags
        start = bisect.bisect_left(names, prefix)
        out = []
        for name in names[start:]:
            if not name.startswith(prefix):
                break
            out.append(self.flags[name])
        return out

    @functools.cached_property
    def _sorted_flags(self) -> list[str]:  # a cache in the instance's __dict__, not a field
        return sorted(self.flags)

    def takes_no_value(self, option_string: str) -> bool:
        """True when every release knowing this exact option string registers it without a value."""
        known = self.flags.get(option_string, ())
        return bool(known) and set(known) <= set(self.no_value.get(option_string, ()))

    def converters_of(self, option_string: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """Each converter the releases registering ``option_string`` exactly give its value, with those
        releases, oldest first: ``(("json.loads: loads", ("0.8.5.post1", "0.9.2")), ...)``."""
        known = self.flags.get(option_string, ())
        out: dict[str, list[str]] = {}
        at = 0
        for label, count in self.converters.get(option_string, ()):
            out.setdefault(self.converter_names[label], []).extend(
                self.releases[i] for i in known[at : at + count]
            )
            at += count
        return tuple((label, tuple(releases)) for label, releases in out.items())

    def refusing_value(self, option_string: str, value: str) -> tuple[str, ...]:
        """The releases registering ``option_string`` exactly whose choices do not list ``value``: argparse
        exits 2 there ("invalid choice"). Only options of one value whose converter keeps the word.
        Answered once per pair: the releases accepting a launch ask of each of its values, PR011's message
        again, and so do the fix re-checks."""
        known = self._refusing.get((option_string, value))
        if known is None:
            known = self._refusing[(option_string, value)] = self._refusing_value(option_string, value)
        return known

    @functools.cached_property
    def _refusing(self) -> dict[tuple[str, str], tuple[str, ...]]:  # a cache in the instance's __dict__
        return {}

    def _refusing_value(self, option_string: str, value: str) -> tuple[str, ...]:
        known = self.flags.get(option_string, ())
        out: list[str] = []
        at = 0
        for label, count in self.choices.get(option_string, ()):
            if label >= 0 and value not in self.choice_set(label):
                out.extend(self.releases[i] for i in known[at : at + count])
            at += count
        return tuple(out)

    def releases_refusing_flag(self, word: str) -> set[str]:
        """The releases that register ``word``'s option exactly but whose action refuses it."""
        return {self.releases[i] for i in self.refused.get(word.split("=", 1)[0], ())}

    def releases_knowing_env(self, name: str) -> tuple[str, ...]:
        """The releases that read ``name``: by that name, or under the name a release copies it to at
        import (``frameworks/env_aliases.py``: SGLang 0.5.3.post3+ read ``SGL_X`` as ``SGLANG_X``).
        Answered once per name, as flags are: a check asks twice per variable (the releases accepting the
        launch, then PR011's message), and its fix re-checks ask again (issue 18)."""
        known = self._knowing_env.get(name)
        if known is None:
            known = self._knowing_env[name] = self._releases_reading(name)
        return known

    @functools.cached_property
    def _knowing_env(self) -> dict[str, tuple[str, ...]]:  # a cache in the instance's __dict__
        return {}

    def _releases_reading(self, name: str) -> tuple[str, ...]:
        known = set(self.env.get(name, ()))
        for i, release in enumerate(self.releases):
            for alias in prefix_aliases(self.framework, release):
                new = alias.renamed(name)
                if new is not None and i in self.env.get(new, ()):
                    known.add(i)
        return tuple(self.releases[i] for i in sorted(known))

    def accepting(
        self, flags: Iterable[str], env_names: Iterable[str], values: Iterable[tuple[str, str]] = ()
    ) -> tuple[str, ...]:
        """The releases that know every flag and variable that some release knows (a name no release
        knows is a typo whichever runs, so it decides nothing), narrowed to those whose choices take each
        ``(flag, value)`` (sglang PR#24384: ``--moe-runner-backend marlin``, refused up to 0.5.11) and take a
        value for it at all (a release registering the flag as a switch leaves the value over). A value
        narrows only while some release is left: a script mixing eras (a fork's flags, another release's
        value) keeps the releases its flags name."""
        accepted = set(self.releases)
        for flag in flags:
            knowing = self.releases_knowing_flag(flag)
            if knowing:
                accepted &= set(knowing)
        for name in env_names:
            knowing = self.releases_knowing_env(name)
            if knowing:
                accepted &= set(knowing)
        for flag in flags:  # a release whose action refuses the flag does not accept it either
            narrowed = accepted - self.releases_refusing_flag(flag)
            if narrowed:
                accepted = narrowed
        for flag, value in values:
            narrowed = accepted - set(self.refusing_value(flag, value))
            if narrowed:
                accepted = narrowed
        for flag, _ in values:  # where the flag is a switch, its value is left over: argparse exits 2
            narrowed = accepted - set(self.taking_no_value(flag))
            if narrowed:
                accepted = narrowed
        return tuple(r for r in self.releases if r in accepted)

    def taking_no_value(self, option_string: str) -> tuple[str, ...]:
        """The releases registering ``option_string`` exactly as a switch (store_true, nargs=0...): a
        value written after it is left over there (SGLang 0.5.8.post1-0.5.13.post1's deprecated
        ``--hybrid-kvcache-ratio``, a float before). Answered once per option string, as
        :meth:`refusing_value` is."""
        known = self._switching.get(option_string)
        if known is None:
            known = self._switching[option_string] = tuple(
                self.releases[i] for i in self.no_value.get(option_string, ())
            )
        return known

    @functools.cached_property
    def _switching(self) -> dict[str, tuple[str, ...]]:  # a cache in the instance's __dict__
        return {}


def _raw(framework: str) -> Mapping[str, Any]:
    """One framework's index file; ``KeyError`` for a framework with no bundled release (as the one file
    holding every framework answered)."""
    try:
        text = index_path(framework).read_text()
    except FileNotFoundError:
        raise KeyError(framework) from None
    data: Mapping[str, Any] = json.loads(text)
    return data


# the mappings kept in buckets (resolver/data_parts.py): a check looks up a few of their ~2,300 keys
_BUCKETED = ("flags", "env", "no_value", "choices")


@functools.cache
def release_index(framework: str) -> ReleaseIndex:
    from argtrace.resolver.data_parts import Buckets, bucketed, cached_parts

    path = index_path(framework)
    if not path.is_file():
        raise KeyError(framework)  # no bundled release of that framework

    def fields() -> dict[str, Any]:
        entry = _raw(framework)
        return {
            "releases": tuple(entry["releases"]),
            "allow_abbrev": tuple(entry["allow_abbrev"]),
            "flags": {k: tuple(v) for k, v in entry["flags"].items()},
            "env": {k: tuple(v) for k, v in entry["env"].items()},
            "no_value": {k: tuple(v) for k, v in entry["no_value"].items()},
            "same_everywhere": frozenset(entry["same_everywhere"]),
            "converter_names": tuple(entry["converter_names"]),
            "packed_converters": marshal.dumps(
                {k: tuple((label, count) for label, count in v) for k, v in entry["converters"].items()}
            ),
            "packed_choice_sets": tuple(marshal.dumps(frozenset(c)) for c in entry.get("choice_sets", ())),
            "choices": {
                k: tuple((label, count) for label, count in v) for k, v in entry.get("choices", {}).items()
            },
            "refused": {k: tuple(v) for k, v in entry.get("refused", {}).items()},
        }

    def parts() -> dict[str, Any]:
        built = fields()
        out: dict[str, Any] = {"head": {k: v for k, v in built.items() if k not in _BUCKETED}}
        for name in _BUCKETED:
            out.update(bucketed(name, built[name]))
        return out

    # kept between runs (resolver/data_parts.py): parsing the file and building its tuples was ~4 ms a check,
    # and unpacking every flag's and variable's releases from a whole copy ~7 M instructions
    kept = cached_parts(f"release-index-{framework}", [path, Path(__file__)], parts)
    mappings: dict[str, Any] = {name: Buckets(kept, name) for name in _BUCKETED}
    return ReleaseIndex(framework=framework, **kept["head"], **mappings)


def registered_alike(framework: str, option_string: str) -> bool:
    """True when every bundled release of ``framework`` registers ``option_string`` the same way (one
    ``registration``): a parser finding about it holds whichever release runs (``check.py``)."""
    try:
        return option_string in release_index(framework).same_everywhere
    except KeyError:
        return False
