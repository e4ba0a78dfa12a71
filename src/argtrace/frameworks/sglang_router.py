"""``python -m sglang_router.launch_server``: SGLang's server flags and the router's, in one argparse parser.

sglang-router's launcher (``sglang_router/launch_server.py``) adds ``ServerArgs.add_cli_args`` and
``RouterArgs.add_cli_args(use_router_prefix=True, exclude_host_port=True)`` to one parser, starts
``--dp-size`` server processes from the server flags and a router in front of them. The router's options
are not typed here: ``frameworks/data/sglang_router.json`` is generated from the sglang-router wheel by
``scripts/gen_router_schema.py`` (now 0.3.2). :func:`split_router` takes the router's options (and their
values, as argparse consumes them) out of the words, so the SGLang parser and resolver get the server's.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

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
def router_schema() -> tuple[str, dict[str, RouterOption]]:
    """(package label, flag -> option) of the bundled sglang-router release."""
    raw = json.loads(resources.files("argtrace.frameworks").joinpath("data/sglang_router.json").read_text())
    out: dict[str, RouterOption] = {}
    for o in raw["options"]:
        nargs = o.get("nargs")
        takes = (
            "none"
            if nargs == 0 or "StoreTrue" in o["action"] or "StoreFalse" in o["action"]
            else ("many" if nargs in ("*", "+") else "one")
        )
        choices = tuple(str(c) for c in o["choices"]) if o.get("choices") else None
        for flag in o["flags"]:
            out[flag] = RouterOption(flag, o["dest"], takes, choices)
    return str(raw["package"]), out


@dataclass
class RouterSplit:
    """A ``sglang_router.launch_server`` argv split between the SGLang server's parser and the router's,
    with what argparse would refuse."""

    server: list[int]  # indices of the words the SGLang server parser gets
    router: list[tuple[str, list[str]]]  # (flag, values) for the router
    problems: list[str]  # what argparse would refuse (a value not among the choices, a missing value)


def split_router(words: Sequence[str | None]) -> RouterSplit:
    _label, options = router_schema()
    out = RouterSplit([], [], [])
    i = 0
    while i < len(words):
        w = words[i]
        name, eq, inline = (w or "").partition("=")
        opt = options.get(name) if w is not None and w.startswith("--") else None
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
