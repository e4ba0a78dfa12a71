"""Cross-release knowledge: which releases of either framework know a flag, what a release that does not
know it calls the setting (from the schema diff), the nearest spelling, and the other releases a finding
quotes (a flag removed later, a choice valid elsewhere, a config key that is a field in another release).
The releases one parse's findings see (:class:`Releases`) are in ``release_view.py``: a plain check loads
that and not these lookups.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from argtrace import safe_json
from argtrace.frameworks.schema import OptionSpec, Schema, version_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.model import Setting


@dataclass(frozen=True)
class FlagHome:
    """Where a flag is known across the bundled schemas."""

    versions: tuple[str, ...]  # versions of the analysed framework that know it, oldest first
    dest: str | None  # its dest in the newest of those
    framework: str | None  # the framework whose schema knows it (the analysed one, else the other)
    other_dest: str | None = None


def _option_of(schema: Schema, flag: str) -> OptionSpec | None:
    """The option ``flag`` names in ``schema``, a hidden negative spelling included (vLLM 0.33's
    EnableDisableAction takes ``--no-enable-x`` without listing it: ``frameworks/actions.py``)."""
    spec = schema.option(flag)
    if spec is None and flag.startswith("--no-"):
        from argtrace.frameworks.actions import registered_options

        for option, _kind, strings in registered_options(schema):
            if flag in strings:
                return option
    return spec


def _known_in(schemas: Sequence[Schema], flag: str) -> list[tuple[Schema, OptionSpec]]:
    out = []
    for s in schemas:
        spec = _option_of(s, flag)
        if spec is not None:
            out.append((s, spec))
    return out


def sets(spec: OptionSpec, option_string: str) -> bool | None:
    """What writing ``option_string`` alone stores in ``spec``'s dest when it is a switch: ``True`` or
    ``False``; ``None`` for an option that takes a value. ``--no-X`` of a BooleanOptionalAction, the
    ``negative_option_strings`` of vLLM's EnableDisableAction (``--disable-log-requests`` for
    ``enable_log_requests``) and ``store_false`` store ``False``."""
    action = str(spec.raw.get("action") or "")
    if action in ("store_false", "_StoreFalseAction"):
        return False
    if action in ("store_true", "_StoreTrueAction"):
        return True
    negative = (spec.raw.get("action_attrs") or {}).get("negative_option_strings")
    if isinstance(negative, Mapping) and isinstance(negative.get("repr"), str):
        import ast  # here: a check that reads no recorded repr never imports ast (issue 18)

        try:
            names = ast.literal_eval(negative["repr"])
        except (ValueError, SyntaxError):
            names = ()
        return option_string not in names
    if action.endswith("BooleanOptionalAction"):
        return not option_string.startswith("--no-")
    return None


def _spelling(schema: Schema, dest: str, polarity: bool | None, flag: str) -> str | None:
    """The analysed release's option string for ``dest`` that stores ``polarity`` (any when ``None``): a
    flag that turned a setting off must not be replaced by the one that turns it on."""
    for spec in schema.options_for_dest(dest):
        for option in spec.option_strings:
            if option != flag and option.startswith("--") and polarity in (None, sets(spec, option)):
                return option
    return None


def _replacement(flag: str, schema: Schema, history: Sequence[Schema]) -> str | None:
    """The analysed release's spelling of a flag it does not know, from the schema diff: an option with the
    same dest (storing the same value, for a switch), a deprecated alias's ``new_flag``, or one sharing a
    dest with the flag in some release."""
    dests: dict[str, bool | None] = {}
    for s in history:
        spec = s.option(flag)
        if spec is None:
            continue
        dests[spec.dest] = sets(spec, flag)
        new = (spec.raw.get("action_attrs") or {}).get("new_flag")
        if isinstance(new, str) and schema.option(new) is not None:
            return new
        for ref in re.findall(r"(--[a-z0-9][a-z0-9-]+)", spec.help or ""):
            if (
                ref != flag
                and schema.option(ref) is not None
                and re.search(r"(?i)deprecat|renamed|alias|use\s+" + re.escape(ref), spec.help or "")
            ):
                return ref
    for dest in sorted(dests):
        cur = _spelling(schema, dest, dests[dest], flag)
        if cur:
            return cur
    # A release where the flag shares its dest with another flag that the analysed release knows.
    for s in history:
        spec = s.option(flag)
        if spec is None:
            continue
        for other in s.options_for_dest(spec.dest):
            for o in other.option_strings:
                if o != flag and o.startswith("--") and schema.option(o) is not None:
                    return o
    return None


def refused_by_every_release(
    framework: str, option_string: str, value: str, *, kept_json_string_fails: bool = False
) -> bool:
    """True when the converter of every bundled release that registers ``option_string`` refuses ``value``
    (argparse exits 2 there) and no release takes the word as an abbreviation of another option: the
    launch then fails whichever release runs, as the releases without the option refuse the flag itself.
    One converter per distinct label of the release index is run (the oldest release's: the label names the
    callables argtrace reproduces); a converter argtrace does not reproduce, a release where the option
    takes no value, or one that takes the value makes it False.

    With ``kept_json_string_fails`` (PA011) a release whose converter keeps a value that is not JSON as a
    string, for an option its schema marks JSON-valued, counts as refusing: the server decodes it after
    parsing and stops there (vLLM's ``union_dict_and_str`` keeps ``{architectures:`` as a string from 0.9 on,
    where 0.6-0.8's ``json.loads`` refused it at once: the launch fails on every release either way)."""
    import argparse

    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import VALUELESS_ACTIONS, load_schema
    from argtrace.layers.parser.build import option_converter

    index = release_index(framework)
    groups = index.converters_of(option_string)
    exact = {index.releases[i] for i in index.flags.get(option_string, ())}
    if not groups or set(index.releases_knowing_flag(option_string)) != exact:
        return False
    for _label, releases in groups:
        schema = load_schema(framework, releases[0])
        spec = _option_of(schema, option_string)
        if spec is None or spec.nargs == 0 or spec.action in VALUELESS_ACTIONS:
            return False
        conv, known, _type = option_converter(spec, schema)
        if conv is None or not known:
            return False
        try:
            converted = conv(value)
        except (argparse.ArgumentTypeError, TypeError, ValueError):
            continue
        if kept_json_string_fails and isinstance(converted, str) and spec.dest in schema.json_flags:
            try:
                safe_json.loads(converted)
            except ValueError:
                continue
        return False
    return True


def taken_by_the_other_neighbour(
    framework: str, requested: str, stand_in: str, option_string: str, value: str
) -> str | None:
    """What the bundled release on the other side of ``requested`` from ``stand_in`` (the nearest older one
    when the stand-in is newer, the nearest newer one when it is older) does with ``value``, when it may
    take it: its converter is another than the stand-in's and takes the value, or is one argtrace does not
    reproduce. The requested release then lies between two bundled releases that may disagree on the value,
    so the stand-in's refusal is not its verdict (a release between 0.7.3, whose ``nullable_kvs`` reads
    ``image=3,video=0``, and a stand-in whose ``json.loads`` refuses it). ``None`` when there is no
    such release, it lacks the option or has the stand-in's converter, or its converter refuses the value."""
    import argparse

    from argtrace.frameworks.schema import VALUELESS_ACTIONS, load_schema
    from argtrace.layers.parser.build import option_converter

    neighbour = _other_neighbour(framework, requested, stand_in)
    if neighbour is None:
        return None
    schema = load_schema(framework, neighbour)
    spec = _option_of(schema, option_string)
    ours = _option_of(load_schema(framework, stand_in), option_string)
    if spec is None or spec.nargs == 0 or spec.action in VALUELESS_ACTIONS or ours is None:
        return None
    if spec.type == ours.type:
        return None
    conv, known, label = option_converter(spec, schema)
    if conv is None or not known:
        return f"{framework} {neighbour} converts it with {label}, which argtrace does not run"
    try:
        conv(value)
    except (argparse.ArgumentTypeError, TypeError, ValueError):
        return None
    return f"{framework} {neighbour} takes the value"


def _other_neighbour(framework: str, requested: str, stand_in: str) -> str | None:
    """The bundled release on the other side of ``requested`` from ``stand_in``: the nearest older one when
    the stand-in is newer, the nearest newer one when it is older; None when there is none."""
    from argtrace.frameworks.release_index import release_index

    wanted, standing = version_key(requested), version_key(stand_in)
    bundled = sorted(release_index(framework).releases, key=version_key)
    if standing > wanted:
        older = [r for r in bundled if version_key(r) < wanted]
        return older[-1] if older else None
    newer = [r for r in bundled if version_key(r) > wanted]
    return newer[0] if newer else None


def development_build(version: str) -> bool:
    """A build of a framework's main branch between releases (PEP 440's ``.devN``: vLLM's
    ``0.26.1rc1.dev457+gc810e5ee9``, ``0.11.1rc6.dev110+gd43ad5a75``), not a release: its flags are the
    previous release's plus what main changed since, on the way to the next one."""
    return re.search(r"\.dev\d+", version) is not None


def gone_by_the_next_release(framework: str, requested: str, stand_in: str, option_string: str) -> str | None:
    """For a development build ``requested`` newer than its stand-in (the release before it): the bundled
    release after it when that one no longer registers ``option_string``, which the stand-in does. The
    flag was removed on main between the two, and whether the build was made before or after the removal
    is not known (vllm#51494: ``--max-num-partial-prefills`` refused by 0.26.1rc1.dev457, accepted by
    0.26.0, gone from 0.27.1). ``None`` otherwise."""
    from argtrace.frameworks.schema import load_schema

    if not development_build(requested) or version_key(stand_in) >= version_key(requested):
        return None
    neighbour = _other_neighbour(framework, requested, stand_in)
    if neighbour is None or _option_of(load_schema(framework, stand_in), option_string) is None:
        return None
    return neighbour if _option_of(load_schema(framework, neighbour), option_string) is None else None


def value_taken_by_the_other_neighbour(
    framework: str, requested: str, stand_in: str, option_string: str
) -> str | None:
    """For a flag the stand-in registers without a value (``--enable-chunked-prefill=False`` refused by
    0.8.5.post1's BooleanOptionalAction, PA022): the bundled release on ``requested``'s other side when it
    registers the flag with a value (0.7.3's ``StoreBoolean``, ``nargs='?'``). The requested release (0.8.2,
    vllm#15802) lies between the two, so whether it takes the value is not known."""
    from argtrace.frameworks.schema import VALUELESS_ACTIONS, load_schema

    neighbour = _other_neighbour(framework, requested, stand_in)
    if neighbour is None:
        return None
    spec = _option_of(load_schema(framework, neighbour), option_string)
    if spec is None or spec.nargs == 0 or spec.action in VALUELESS_ACTIONS:
        return None
    return f"{framework} {neighbour} registers {option_string} with a value"


def choices_change_around(framework: str, requested: str, stand_in: str, option_string: str) -> str | None:
    """The bundled release on the other side of ``requested`` from ``stand_in`` when its choices for
    ``option_string`` differ from the stand-in's: the flag's choice list (a registry of parsers, backends,
    ...) changed between the two, so which entries the requested release lists is not known, and the
    stand-in's refusal is not its verdict (vllm#35991: ``--reasoning-parser GptOss`` under 0.10.1, read from
    0.10.2, which renamed it ``openai_gptoss``; 0.9.2 lists neither). ``None`` when there is no such release,
    or it lists the same choices."""
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import load_schema

    wanted, standing = version_key(requested), version_key(stand_in)
    bundled = sorted(release_index(framework).releases, key=version_key)
    if standing > wanted:
        older = [r for r in bundled if version_key(r) < wanted]
        neighbour = older[-1] if older else None
    else:
        newer = [r for r in bundled if version_key(r) > wanted]
        neighbour = newer[0] if newer else None
    if neighbour is None:
        return None
    theirs = _option_of(load_schema(framework, neighbour), option_string)
    ours = _option_of(load_schema(framework, stand_in), option_string)
    if ours is None or ours.choices is None:
        return None
    if theirs is not None and theirs.choices is not None and set(theirs.choices) == set(ours.choices):
        return None
    return neighbour


def _nearest(flag: str, schema: Schema) -> str | None:
    """The release's flag ``flag`` most likely means: among the spellings most alike (difflib), the first
    that is plausibly the same feature (``same_feature``); ``None`` when none is, so that a word naming
    another feature is not offered as its fix (``--enable-flashinfer-pure-allreduce`` is not
    ``--enable-flashinfer-allreduce-fusion``)."""
    import difflib  # only for a flag the release does not know (start-up, issue 18)

    longs = [s for s in schema.option_strings if s.startswith("--")]
    base = flag.split("=", 1)[0]
    for match in difflib.get_close_matches(base, longs, n=5, cutoff=0.6):
        if same_feature(base, match):
            return match
    return None


def same_feature(typed: str, known: str) -> bool:
    """``known`` is plausibly what ``typed`` means, not a neighbouring feature: neither turns on what the
    other turns off (``enable``/``disable``), and it is a misspelling: at most two edits (or one per eight
    characters), or the same words in the same order with one added or dropped (``--cuda-graph-bs`` /
    ``--cuda-graph-bs-decode``). Words match when equal, when one is the other inflected (``stream``/
    ``streaming``, ``size``/``sizes``), one edit apart when both have five letters or more (``prefil``/
    ``prefill``; ``mode`` is not ``model``), or when one is the initials or the concatenation of
    neighbouring words of the other (``cp`` for ``context-parallel``, ``cudagraph`` for ``cuda-graph``).

    ``_nearest`` asks this only for a flag that no bundled release ever knew (a renamed flag is named by
    the release history: ``_replacement``, PA003), so a word substituted is another feature, not a
    spelling: a fork's ``--enable-kvstore`` is not ``--enable-response-store``, and a word that ends another
    (``kvstore``/``store``) is that word with a qualifier in front."""
    a, b = typed.lstrip("-"), known.lstrip("-")
    wa, wb = _words(a), _words(b)
    if {"enable", "disable"} & set(wa) != {"enable", "disable"} & set(wb):
        return False
    if edit_distance(a, b) <= max(2, len(a) // 8):
        return True
    if not wa or not wb:
        return False
    left_a, left_b = _unaligned(wa, wb)
    return left_a + left_b <= 1


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[-_.]", name.lower()) if w]


def _unaligned(wa: Sequence[str], wb: Sequence[str]) -> tuple[int, int]:
    """How many words of each name are left over by the best in-order alignment of the two (fewest left in
    all): a word matches a word (``_words_match``), or a run of two or three neighbouring words that it
    spells out joined or as initials."""
    best: dict[tuple[int, int], tuple[int, int]] = {(len(wa), len(wb)): (0, 0)}
    for i in range(len(wa), -1, -1):
        for j in range(len(wb), -1, -1):
            if (i, j) == (len(wa), len(wb)):
                continue
            options = []
            if i < len(wa):
                x, y = best[(i + 1, j)]
                options.append((x + 1, y))
            if j < len(wb):
                x, y = best[(i, j + 1)]
                options.append((x, y + 1))
            if i < len(wa) and j < len(wb) and _words_match(wa[i], wb[j]):
                options.append(best[(i + 1, j + 1)])
            for k in (2, 3):
                if i < len(wa) and j + k <= len(wb) and _spelled_by(wa[i], wb[j : j + k]):
                    options.append(best[(i + 1, j + k)])
                if j < len(wb) and i + k <= len(wa) and _spelled_by(wb[j], wa[i : i + k]):
                    options.append(best[(i + k, j + 1)])
            best[(i, j)] = min(options, key=lambda o: (o[0] + o[1], o))
    return best[(0, 0)]


def _spelled_by(word: str, run: Sequence[str]) -> bool:
    return word in ("".join(run), "".join(w[0] for w in run))


def _words_match(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= 3 and long.startswith(short) and long[len(short) :] in _INFLECTIONS:
        return True
    return min(len(a), len(b)) >= 5 and edit_distance(a, b) <= 1


# what English adds to a flag's word without making it another word (``stream``/``streaming``); any other
# tail is a word of its own (``mode``/``model``, ``cache``/``cachesize``)
_INFLECTIONS = frozenset({"s", "es", "ed", "d", "ing", "er", "ers", "or", "ors"})


def edit_distance(a: str, b: str, most: int | None = None) -> int:
    """Damerau-Levenshtein distance (optimal string alignment); with ``most``, ``most + 1`` as soon as
    every row exceeds it (a near-spelling search need not finish far words)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        if most is not None and min(row) > most:
            return most + 1
        prev2, prev = prev, row
    return prev[-1]


def near_spelling(word: str, flags: Collection[str], most: int = 2) -> str | None:
    """A flag among ``flags`` at most ``most`` edits (insert, delete, substitute, swap two neighbours) from
    ``word``'s option part, the closest first; ``None`` when there is none."""
    flag = word.split("=", 1)[0]
    best: tuple[int, str] | None = None
    for known in flags:
        if abs(len(known) - len(flag)) > most or not known.startswith("-"):
            continue
        d = edit_distance(flag, known, most)
        if d <= most and (best is None or (d, known) < best):
            best = (d, known)
    return best[1] if best else None


def _equivalents(schema: Schema, other: Sequence[Schema]) -> dict[str, str]:
    from argtrace.frameworks.equivalents import equivalent_flags

    return equivalent_flags(schema, other)


def config_key_refused_everywhere(framework: str, dest: str, message: str) -> bool:
    """PA018 "Unsupported config option": SGLang's ``ConfigArgumentMerger`` converts only store and
    store_true options from a ``--config`` YAML and stops at any other (frameworks/sglang.py
    ``_merge_config``). True when every bundled release that registers the key's option registers it with
    such an action: a release without the option refuses the merged ``--KEY`` as an unknown flag, so the
    launch fails whichever release runs (sglang PR#38550: ``lora-strict-loading``, a BooleanOptionalAction
    in 0.5.11-0.5.23). One schema per release that knows the flag is read, for this finding only."""
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import load_schema

    if not message.split(": ", 1)[-1].startswith("Unsupported config option "):
        return False
    flag = "--" + dest.replace("_", "-")
    versions = release_index(framework).releases_knowing_flag(flag)
    if not versions:
        return False
    for version in versions:
        spec = load_schema(framework, version).option(flag)
        if spec is None or spec.action in ("store_true", "store"):
            return False
    return True


def written_values(setting: Setting) -> list[str]:
    """The values the user wrote for a setting: one word, or each item of an option that takes several."""
    intended = setting.intended
    if isinstance(intended, str):
        return [intended]
    if isinstance(intended, list):
        return [item for item in intended if isinstance(item, str)]
    return []
