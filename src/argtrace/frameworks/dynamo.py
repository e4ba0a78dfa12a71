"""NVIDIA Dynamo's worker launchers, ``python -m dynamo.sglang`` and ``python -m dynamo.vllm``: the engine's
flags and Dynamo's own in one argv.

Each launcher parses its argv in three steps (ai-dynamo 1.6.1, ``dynamo/sglang/args.py`` ``parse_args``
and ``dynamo/vllm/args.py`` ``_parse_cli_args``): a parser holding Dynamo's runtime and backend options
takes its own with ``parse_known_args`` (SGLang's launcher builds it with argparse's default
``allow_abbrev=True``, so an unambiguous prefix of a Dynamo option is that option; vLLM's with
``allow_abbrev=False``); ``parse_worker_router_config`` takes the router advertisement options from the
rest, again with ``parse_known_args``; what is left goes to the engine's own parser (SGLang's
``ServerArgs.add_cli_args``; vLLM's ``AsyncEngineArgs.add_cli_args``, which has neither ``vllm serve``'s
positional model nor its frontend options). Dynamo's options are not typed here:
``frameworks/data/dynamo_options.json`` is generated from the ai-dynamo wheel by
``scripts/gen_dynamo_options.py``. :func:`split_dynamo` takes them (with their values, as argparse
consumes them) out of the words, so the framework's parser and resolver get the engine's.

The Dynamo release a container runs is read from its image (:func:`dynamo_release`: NVIDIA's runtime images
``nvcr.io/nvidia/ai-dynamo/{vllm,sglang,tensorrtllm}-runtime:X.Y.Z`` are tagged with the Dynamo release).
The table records, for each release read (33 wheels, 0.4.0-1.6.1), which options its launchers take for
themselves and the engine releases its wheel pins. A release read splits the words as its launcher does
(an option 1.6.1 takes and it does not goes to the engine's parser; one only older releases take is
Dynamo's when it takes it) and names the engine release (:func:`engine_release`). A release not read is
judged by the nearest read release of its family (:func:`judged_release`), as an assumption: where that one
and 1.6.1 differ, the word stays Dynamo's with an assumed PA001 (info). With no release named, 1.6.1 splits
and an option only older releases take stays Dynamo's with an assumed PA001.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache

from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.frameworks.argv import ArgToken, PreparedArgv

ENTRYPOINTS = {"dynamo.sglang": "sglang", "dynamo.vllm": "vllm"}


@dataclass(frozen=True)
class DynamoOption:
    """One option of a Dynamo worker launcher's own parser: its flag, destination, how many values it takes
    and its choices."""

    flag: str
    dest: str
    takes: str  # "none" (booleans, --version), "one", "optional" (nargs ?), "many" (nargs *)
    choices: tuple[str, ...] | None


@dataclass(frozen=True)
class _Parser:
    """A Dynamo launcher's own argument parser, as the generated table records it: its options and whether
    it accepts abbreviations."""

    allow_abbrev: bool
    options: dict[str, DynamoOption]


def _options(raw: dict[str, object]) -> _Parser:
    out: dict[str, DynamoOption] = {}
    for o in raw["options"]:  # type: ignore[attr-defined]
        nargs = o.get("nargs")
        takes = {0: "none", "?": "optional", "*": "many", "+": "many"}.get(nargs, "one")
        choices = tuple(str(c) for c in o["choices"]) if o.get("choices") else None
        for flag in o["flags"]:
            out[flag] = DynamoOption(flag, o["dest"], takes, choices)
    return _Parser(bool(raw.get("allow_abbrev", True)), out)


@lru_cache(maxsize=1)
def _raw() -> dict[str, object]:
    data: dict[str, object] = bundled_json("frameworks/data/dynamo_options.json")
    return data


@lru_cache(maxsize=1)
def _releases() -> dict[str, dict[str, object]]:
    """ai-dynamo release -> its record: each launcher's own flags, the router pass's, the engines it pins."""
    return dict(_raw().get("releases") or {})  # type: ignore[call-overload]


@lru_cache(maxsize=1)
def _table() -> tuple[str, dict[str, _Parser], _Parser, dict[str, dict[str, tuple[str, tuple[str, ...]]]]]:
    raw: dict[str, Any] = _raw()
    backends = {name: _options(data) for name, data in raw["backends"].items()}
    older = {
        name: {flag: (str(o["takes"]), tuple(o["releases"])) for flag, o in flags.items()}
        for name, flags in (raw.get("older") or {}).items()
    }
    return str(raw["package"]), backends, _options(raw["router"]), older


def package() -> str:
    """The ai-dynamo release the table was generated from ("ai-dynamo 1.6.1")."""
    return _table()[0]


def releases_read() -> frozenset[str]:
    """The ai-dynamo releases whose wheels the table was generated from."""
    return frozenset({package().split()[-1], *_releases()})


def releases_taking(flag: str) -> dict[str, tuple[str, ...]]:
    """For each Dynamo worker launcher (``dynamo.sglang``, ``dynamo.vllm``), the releases read whose own
    parser takes ``flag`` exactly (the newest read release's table, and the older-only options')."""
    newest, backends, _router, older = _table()
    out: dict[str, tuple[str, ...]] = {}
    for backend, parser in backends.items():
        taking = set(older.get(backend, {}).get(flag, ("", ()))[1])
        if flag in parser.options:
            taking.add(newest.split()[-1])
        records = _releases()
        taking |= {r for r, rec in records.items() if flag in (rec.get(backend) or ())}  # type: ignore[operator]
        if taking:
            out[f"dynamo.{backend}"] = tuple(sorted(taking, key=_key))
    return out


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.split(r"[.]|post", version) if p.isdigit())


def judged_release(release: str | None, entrypoint: str) -> tuple[str | None, bool]:
    """The release read whose ``entrypoint`` launcher judges the words of ``release``, and whether that is
    an assumption: ``release`` itself when read; else the nearest read release of its family (same
    major.minor: the newest older one, else the oldest newer one), else the nearest read release at all."""
    if release is None:
        return None, False
    records = _releases()
    runs = [r for r in records if entrypoint in (records[r].get("entrypoints") or ())]  # type: ignore[operator]
    read = sorted(runs or releases_read(), key=_key)
    if release in read:
        return release, False
    key = _key(release)
    family = [r for r in read if _key(r)[:2] == key[:2]] or read
    older = [r for r in family if _key(r) < key]
    return (older[-1] if older else min(family, key=_key)), True


def _span(releases: Sequence[str]) -> str:
    """Releases as runs over the releases read ("0.4.1-1.3.1, 1.5.1")."""
    read = sorted(releases_read(), key=_key)
    runs: list[list[str]] = []
    for r in sorted(releases, key=_key):
        if runs and read.index(r) == read.index(runs[-1][-1]) + 1:
            runs[-1].append(r)
        else:
            runs.append([r])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


# NVIDIA's Dynamo runtime images, tagged with the Dynamo release (Dynamo's docs and examples:
# nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0); a mirror keeping the ai-dynamo/NAME-runtime path is read alike
_RUNTIME_IMAGE = re.compile(
    r"(?:^|/)ai-dynamo/(vllm|sglang|tensorrtllm|trtllm)-runtime:v?(\d+\.\d+\.\d+(?:\.post\d+)?)(?:$|[-+_])"
)


def dynamo_release(image: str | None) -> str | None:
    """The Dynamo release an image's tag names (``nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1`` -> 0.6.1)."""
    match = _RUNTIME_IMAGE.search((image or "").partition("@")[0])
    return match.group(2) if match else None


def engine_release(framework: str, image: str | None) -> tuple[str, str] | None:
    """The ``framework`` release in a Dynamo runtime image whose tag names a release read: the one that
    release's wheel pins for the image's engine (ai-dynamo 0.6.0: ``sglang[all]==0.5.3.post2; extra ==
    'sglang'``), with the evidence as the report shows it. A release not read pins nothing known here."""
    match = _RUNTIME_IMAGE.search((image or "").partition("@")[0])
    if match is None or match.group(1) != framework or match.group(2) not in _releases():
        return None
    engines = _releases()[match.group(2)].get("engines") or {}
    pin = engines.get(framework) if isinstance(engines, dict) else None
    if not pin:
        return None
    return str(pin), f"image {image} (ai-dynamo {match.group(2)}, whose wheel pins {framework}=={pin})"


@dataclass
class DynamoSplit:
    """A Dynamo worker's argv split as its launcher splits it: the words the engine's parser gets, Dynamo's
    own options, what argparse refuses, and which Dynamo release judged them."""

    engine: list[int] = field(default_factory=list)  # indices of the words the engine's parser gets
    dynamo: list[tuple[str, list[str]]] = field(default_factory=list)  # (option as written, values)
    # what argparse refuses, with the setting: the launcher exits with status 2
    problems: list[tuple[str, str | None]] = field(default_factory=list)
    # options only older Dynamo workers take (the releases read that have them): read as Dynamo's, since
    # the Dynamo release is not known; the newest hands them to the engine's parser, which refuses them
    older: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    # the Dynamo release the image names (None: not named), and whether the table records its options
    release: str | None = None
    release_read: bool = False
    # the release read that judges the words (the named one, or the nearest read to it: ``assumed``)
    judged_by: str | None = None
    assumed: bool = False
    # options the newest launcher takes and ``judged_by`` (assumed) does not: read as Dynamo's all the same
    unsure: list[str] = field(default_factory=list)
    taken: list[str] = field(default_factory=list)  # the options taken, as declared (not as abbreviated)


def _only(parser: _Parser, flags: set[str]) -> _Parser:
    """``parser`` with only the options one release's launcher declares."""
    return _Parser(parser.allow_abbrev, {f: o for f, o in parser.options.items() if o.flag in flags})


def _match(word: str, parser: _Parser) -> tuple[DynamoOption | None, str | None, str | None]:
    """argparse's ``_parse_optional`` for one ``--word``: the option, the value after ``=``, and an
    ambiguity (several options this prefix could be)."""
    name, eq, inline = word.partition("=")
    if word in parser.options:
        return parser.options[word], None, None
    if eq and name in parser.options:
        return parser.options[name], inline, None
    if not parser.allow_abbrev:
        return None, None, None
    hits = sorted({o.flag for flag, o in parser.options.items() if flag.startswith(name)})
    if len(hits) > 1:
        return None, None, ", ".join(hits)
    if hits:
        return parser.options[hits[0]], (inline if eq else None), None
    return None, None, None


def _take(words: Sequence[str | None], indices: list[int], parser: _Parser, out: DynamoSplit) -> list[int]:
    """One ``parse_known_args`` pass over ``words[indices]``: Dynamo's options go to ``out.dynamo``, the
    indices of the rest are returned."""
    rest: list[int] = []
    k = 0
    while k < len(indices):
        w = words[indices[k]]
        if w is None or not w.startswith("--") or w == "--":
            rest.append(indices[k])
            k += 1
            continue
        opt, inline, ambiguous = _match(w, parser)
        if ambiguous:
            out.problems.append((f"ambiguous option: {w} could match {ambiguous}", None))
            k += 1
            continue
        if opt is None:
            rest.append(indices[k])
            k += 1
            continue
        values: list[str] = []
        k += 1
        nxt = words[indices[k]] if k < len(indices) else ""
        if opt.takes == "none":
            if inline is not None:
                out.problems.append((f"argument {opt.flag}: ignored explicit argument {inline!r}", opt.dest))
        elif inline is not None:
            values = [inline]
        elif opt.takes in ("one", "optional"):
            if nxt is not None and (k >= len(indices) or nxt.startswith("-")):
                if opt.takes == "one":
                    out.problems.append((f"argument {opt.flag}: expected one argument", opt.dest))
            else:
                values, k = [nxt or ""], k + 1
        else:
            while k < len(indices) and not (words[indices[k]] or "").startswith("-"):
                values.append(words[indices[k]] or "")
                k += 1
        for v in values:
            if opt.choices is not None and v not in opt.choices:
                choices = ", ".join(repr(c) for c in opt.choices)
                out.problems.append(
                    (f"argument {opt.flag}: invalid choice: {v!r} (choose from {choices})", opt.dest)
                )
        out.dynamo.append((w.partition("=")[0], values))
        out.taken.append(opt.flag)
    return rest


def split_dynamo(entrypoint: str, words: Sequence[str | None], image: str | None = None) -> DynamoSplit:
    """The words of ``python -m dynamo.sglang|dynamo.vllm ARGS`` split as the launcher splits them: that of
    the release ``image`` names when it was read, else the newest's (the nearest read release to the named
    one only says where it would differ, ``unsure``)."""
    _label, backends, router, older = _table()
    backend = ENTRYPOINTS[entrypoint]
    release = dynamo_release(image)
    judge, assumed = judged_release(release, entrypoint)
    out = DynamoSplit(
        release=release, release_read=judge is not None and not assumed, judged_by=judge, assumed=assumed
    )
    own, advertised = backends[backend], router
    record = _releases().get(judge or "")
    if record is not None and not assumed:
        own = _only(own, set(record[backend]))  # type: ignore[call-overload]
        advertised = _only(router, set(record["router"]))  # type: ignore[call-overload]
    rest = _take(words, list(range(len(words))), own, out)
    rest = _take(words, rest, advertised, out)
    if record is not None and assumed:
        mine = {*record[backend], *record["router"]}  # type: ignore[misc]
        out.unsure = [flag for flag in dict.fromkeys(out.taken) if flag not in mine]
    gone = older.get(backend, {})
    k = 0
    while k < len(rest):
        word = words[rest[k]] or ""
        flag = word.partition("=")[0]
        if flag not in gone:
            out.engine.append(rest[k])
            k += 1
            continue
        takes, releases = gone[flag]
        if judge is not None and judge not in releases and not assumed:
            out.engine.append(rest[k])  # not an option of this release: its launcher hands it on
            k += 1
            continue
        start = k
        k += 1
        if (
            takes != "none"
            and "=" not in word
            and k < len(rest)
            and not (words[rest[k]] or "-").startswith("-")
        ):
            k += 1  # its value
        if judge is not None and judge in releases:
            inline = [word.partition("=")[2]] if "=" in word else []
            values = [words[i] or "" for i in rest[start + 1 : k]] or inline
            out.dynamo.append((flag, values))
        else:
            out.older.append((flag, releases))
    return out


def without_dynamo_options(
    tokens: list[ArgToken], out: PreparedArgv, entrypoint: str, at: str | None, image: str | None = None
) -> list[ArgToken]:
    """The tokens the engine's parser gets; Dynamo's options named in ``out.notes``, and what its parsers
    refuse as findings (the launcher exits with status 2 before the engine parses anything)."""
    from argtrace.rules import parser as rules

    split = split_dynamo(entrypoint, [t.text for t in tokens], image)
    newest = package()
    nearest = (
        f"ai-dynamo {split.judged_by}, the nearest release read to {split.release} (the image's tag)"
        if split.assumed
        else None
    )
    for flag, releases in split.older:
        why = (
            f"{nearest} does not take it either, but {split.release} itself was not read"
            if nearest
            else "nothing shows the Dynamo release"
        )
        message = (
            f"{flag} is a {entrypoint} option of ai-dynamo {_span(releases)} (the older releases read) "
            f"but not of {newest}, which hands it to the engine's parser: that refuses it (\"unrecognized "
            f"arguments\", exit 2); read as Dynamo's, since {why}"
        )
        setting = flag.lstrip("-").replace("-", "_")
        finding = rules.PA_UNRECOGNIZED.finding(message, at=at, setting=setting, severity="info")
        out.findings.append(replace(finding, basis="assumed"))
    for flag in split.unsure:
        message = (
            f"{flag} is a {entrypoint} option of {newest} but not of {nearest}: if {split.release} lacks it "
            "too, its launcher hands it to the engine's parser, which refuses it unless the engine has such "
            "a flag; read as Dynamo's"
        )
        setting = flag.lstrip("-").replace("-", "_")
        finding = rules.PA_UNRECOGNIZED.finding(message, at=at, setting=setting, severity="info")
        out.findings.append(replace(finding, basis="assumed"))
    if split.dynamo:
        names = ", ".join(flag for flag, _values in split.dynamo)
        if split.release_read:
            label = f"ai-dynamo {split.release}, named by the image's tag"
        elif nearest:
            label = f"{nearest}, assumed"
        else:
            label = newest
        out.notes.append(f"{entrypoint} options ({label}), not engine flags: {names}")
    for problem, dest in split.problems:
        rule = (
            rules.PA_INVALID_CHOICE
            if "invalid choice" in problem
            else rules.PA_AMBIGUOUS
            if problem.startswith("ambiguous")
            else rules.PA_MISSING_VALUE
        )
        # the options' shapes and choices are the newest's (the older releases' flags only were read)
        message = f"{problem}: {entrypoint}'s launcher ({newest}) exits with status 2"
        out.findings.append(rule.finding(message, at=at, setting=dest))
        if out.fatal is None:
            out.fatal = (2, f"error: {problem}")
    return [tokens[i] for i in split.engine]
