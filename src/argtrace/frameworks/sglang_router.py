"""``python -m sglang_router.launch_server``: SGLang's server flags and the router's, in one argparse parser.

sglang-router's launcher (``sglang_router/launch_server.py``) adds ``ServerArgs.add_cli_args`` and
``RouterArgs.add_cli_args(use_router_prefix=True, exclude_host_port=True)`` to one parser, starts
``--dp-size`` server processes from the server flags and a router in front of them. The router's options
are not typed here: ``frameworks/data/sglang_router.json`` is generated from the sglang-router wheel by
``scripts/gen_router_schema.py`` (0.3.2 analysed; 0.1.4-0.3.2 read for the flags each release knows).
:func:`split_router` takes the router's options (and their values, as argparse consumes them) out of the
words, so the SGLang parser and resolver get the server's; a ``--router-*`` flag only an older router
release knows is taken out too, with what :func:`older_router_flag` says of it, rather than handed to
SGLang's parser as a server flag it never was. :func:`installed_router` reads the router package installed
for a launch's interpreter from its dist-info (files only, never run); :func:`installed_refusals` names the
``--router-*`` flags that release does not take.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ENTRYPOINT = "sglang_router.launch_server"


@dataclass(frozen=True)
class RouterOption:
    """One option of the SGLang router's own parser (``sglang_router.launch_server``): its flag,
    destination, how many values it takes and its choices."""

    flag: str
    dest: str
    takes: str  # "none" (store_true/false), "one", "many" (nargs * or +)
    choices: tuple[str, ...] | None


@lru_cache(maxsize=1)
def _raw() -> dict[str, Any]:
    data: dict[str, Any] = bundled_json("frameworks/data/sglang_router.json")
    return data


def _options(raw: list[dict[str, Any]]) -> dict[str, RouterOption]:
    out: dict[str, RouterOption] = {}
    for o in raw:
        nargs = o.get("nargs")
        takes = (
            "none"
            if nargs == 0 or "StoreTrue" in o["action"] or "StoreFalse" in o["action"]
            else ("many" if nargs in ("*", "+") else "one")
        )
        choices = tuple(str(c) for c in o["choices"]) if o.get("choices") else None
        for flag in o["flags"]:
            out[flag] = RouterOption(flag, o["dest"], takes, choices)
    return out


@lru_cache(maxsize=1)
def router_schema() -> tuple[str, dict[str, RouterOption]]:
    """(package label, flag -> option) of the bundled sglang-router release analysed (the newest)."""
    raw = _raw()
    return str(raw["package"]), _options(raw["options"])


@lru_cache(maxsize=1)
def _older_options() -> dict[str, RouterOption]:
    """Flags older bundled router releases know and the analysed one does not -> their shape there."""
    return _options(_raw().get("older_options") or [])


def _span(known: list[str], releases: list[str]) -> str:
    """``0.1.9``, ``0.2.0-0.2.4``: runs of the bundled router releases that know a flag."""
    runs: list[list[str]] = []
    for i, release in enumerate(releases):
        if release not in known:
            continue
        if runs and releases.index(runs[-1][-1]) == i - 1:
            runs[-1].append(release)
        else:
            runs.append([release])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def older_router_flag(flag: str) -> tuple[str, str]:
    """(message, fix) for a flag an older bundled sglang-router release knows and the analysed one does not.

    The router release that runs is not known (no version of it is read from the launch): the newest
    bundled one is assumed, and the message says so.
    """
    raw = _raw()
    releases = [str(r) for r in raw.get("releases") or []]
    known = [str(r) for r in (raw.get("flags") or {}).get(flag, [])]
    label = str(raw["package"])
    message = (
        f"{flag} was accepted by sglang-router {_span(known, releases)} but {label} (the newest bundled "
        "router release; the one installed is not known) does not know it: its launcher refuses to start "
        '("unrecognized arguments", exit 2)'
    )
    new = (raw.get("renamed") or {}).get(flag)
    if new is None:
        return message, f"remove the flag, or run sglang-router {known[-1]}" if known else "remove the flag"
    at = next(r for r in releases if r in (raw.get("flags") or {}).get(new, []))
    return f"{message}; sglang-router {at} renamed it {new}", f"use {new}"


@dataclass
class RouterSplit:
    """A ``sglang_router.launch_server`` argv split between the SGLang server's parser and the router's,
    with what argparse would refuse."""

    server: list[int]  # indices of the words the SGLang server parser gets
    router: list[tuple[str, list[str]]]  # (flag, values) for the router
    problems: list[str]  # what argparse would refuse (a value not among the choices, a missing value)
    older: list[tuple[str, list[str]]]  # flags only an older router release knows, with their values


def split_router(words: Sequence[str | None]) -> RouterSplit:
    _label, options = router_schema()
    older = _older_options()
    out = RouterSplit([], [], [], [])
    i = 0
    while i < len(words):
        w = words[i]
        name, eq, inline = (w or "").partition("=")
        opt = options.get(name) if w is not None and w.startswith("--") else None
        if opt is None and w is not None and name in older:
            # its values go with it (as the older launcher took them): one finding, not one per word
            old = older[name]
            i += 1
            taken = [inline] if eq else []
            if not eq and old.takes != "none":
                while i < len(words) and not (words[i] or "").startswith("-"):
                    taken.append(words[i] or "")
                    i += 1
                    if old.takes == "one":
                        break
            out.older.append((name, taken))
            continue
        if opt is None:
            out.server.append(i)
            i += 1
            continue
        values: list[str] = []
        if opt.takes == "none":
            if eq:
                out.problems.append(f"{name}: ignored explicit argument {inline!r}")
            i += 1
        elif eq:
            values, i = [inline], i + 1
        elif opt.takes == "one":
            if i + 1 >= len(words) or (words[i + 1] or "").startswith("-"):
                out.problems.append(f"{name}: expected one argument")
                i += 1
            else:
                values, i = [words[i + 1] or ""], i + 2
        else:  # nargs * / +: the words up to the next option
            i += 1
            while i < len(words) and not (words[i] or "").startswith("-"):
                values.append(words[i] or "")
                i += 1
        for v in values:
            if opt.choices is not None and v not in opt.choices:
                out.problems.append(f"{name}: invalid choice: {v!r} (choose from {', '.join(opt.choices)})")
        out.router.append((name, values))
    return out


def installed_refusals(argv: Sequence[str | None], flags: Sequence[str]) -> list[tuple[str, str]]:
    """(message, fix) for each router flag of ``flags`` that the sglang-router release installed for the
    launch's interpreter (its dist-info, read from files: ``frameworks/router_launch.py``) does not take,
    when that release is one read; empty when none is read."""
    import os

    found = installed_router(argv, os.environ)
    raw = _raw()
    releases = [str(r) for r in raw.get("releases") or []]
    if found is None or found[0] not in releases:
        return []
    version, where = found
    known: dict[str, list[str]] = raw.get("flags") or {}
    out = []
    for flag in flags:
        taken = [str(r) for r in known.get(flag, [])]
        if taken and version not in taken:
            newer = [r for r in taken if releases.index(r) > releases.index(version)]
            out.append(
                (
                    f"{flag} is taken by sglang-router {_span(taken, releases)} but not by sglang-router "
                    f"{version} (installed, {where}): its launcher refuses it "
                    '("unrecognized arguments", exit 2)',
                    f"upgrade sglang-router to {newer[0]} or later, or remove the flag"
                    if newer
                    else "remove the flag",
                )
            )
    return out


def installed_router(
    argv: Sequence[str | None], env: Mapping[str, str], product: str = "sglang-router"
) -> tuple[str, str] | None:
    """(version, dist-info path) of the router package for the interpreter ``argv`` starts (a console
    script's ``#!`` interpreter for ``smg``), read from its files."""
    from argtrace.frameworks import site_packages
    from argtrace.frameworks.installed import which

    word = argv[0] if argv else None
    if not word:
        return None
    interpreter = which(word, env.get("PATH"))
    if interpreter is not None and not (word.rsplit("/", 1)[-1]).startswith("python"):
        from argtrace.frameworks.installed import shebang_interpreter

        interpreter = shebang_interpreter(interpreter)  # a console script: the interpreter of its #! line
    if interpreter is None:
        return None
    found = site_packages.installed_version(interpreter, product, env)
    if found.distribution is None or found.version is None:
        return None
    return found.version, found.distribution.path
