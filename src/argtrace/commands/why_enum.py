"""``why`` on Python's enum refusal "'VALUE' is not a valid NAME" when NAME is the enum a server option's
value becomes (SGLang's ``LoadFormat``: ``--load-format``).

Python's ``Enum`` raises this itself (``EnumMeta.__call__``), so no framework site has the text, and a
value that reaches the enum without argparse's choices check (an ``Engine(load_format=...)`` keyword, a
wrapper's config: verl PR#1068's ``'dummy_dtensor' is not a valid LoadFormat``) got no match. The enum's
name in snake case is the option's dest in the bundled schemas (``LoadFormat``: ``load_format``); when one
framework has that option with choices, the answer is ``why``'s "invalid choice" one for that flag (the
releases whose choices take the value, the choice spelled like it, the choices), said of the enum.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NOT_VALID = re.compile(r"'(?P<value>[^'\n]{0,200})' is not a valid (?P<enum>[A-Z][A-Za-z0-9]{1,60})\b")


def _snake(name: str) -> str:
    """``LoadFormat`` -> ``load_format``; ``KVCacheDtype`` -> ``kv_cache_dtype``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name).lower()


def enum_value_site(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The match for "'VALUE' is not a valid NAME" in ``text`` when NAME's snake case is an option with
    choices; None otherwise."""
    from argtrace.commands.why_choice import invalid_choice_site
    from argtrace.frameworks.release_index import release_index

    m = _NOT_VALID.search(text)
    if m is None:
        return None
    value, enum = m.group("value"), m.group("enum")
    flag = "--" + _snake(enum).replace("_", "-")
    wanted = [framework] if framework in ("sglang", "vllm") else ["sglang", "vllm"]
    sites: dict[str, dict[str, Any]] = {}
    for fw in wanted:
        try:
            if not release_index(fw).releases_knowing_flag(flag):
                continue
        except KeyError:
            continue
        site = invalid_choice_site(f"error: argument {flag}: invalid choice: '{value}'", fw)
        if site is not None:
            sites[fw] = site
    if not sites:
        return None
    # both frameworks may have the option (--load-format): the one whose choices take the value, else the
    # one with a choice spelled like it, else the first; the other is named, not judged
    ranked = sorted(
        sites,
        key=lambda fw: ("is a choice of" not in sites[fw]["fix"], "spelled like it" not in sites[fw]["fix"]),
    )
    site = sites[ranked[0]]
    also = (
        f"; {', '.join(ranked[1:])} also has {flag}: the framework the traceback names decides"
        if ranked[1:]
        else ""
    )
    condition = f"{value!r} is not a member of {enum}"
    site.update(
        function=f"{enum}.__call__",
        exception="ValueError",
        message=f"%r is not a valid {enum}",
        specificity=len(m.group(0)),
        how="enum",
        line=None,  # the schema's line is where the parser is built, not where the enum refused
        versions=[],
        condition=condition,
        conditions=[condition],
        fix=f"{enum} is the enum {flag}'s value becomes, so this value reached it without the parser's "
        f"choices check (a keyword or a config passed in code); {site['fix']}{also}",
    )
    return site
