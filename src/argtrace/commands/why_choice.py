"""``why`` on argparse's "argument --x: invalid choice: 'v' (choose from ...)": the option that refused the
value and the bundled releases whose own list holds it, from the generated parser schemas.

argparse raises this message itself (``ArgumentParser._check_value``), so no framework raise site carries
it and the first site was any check that names the option (vLLM's ``validate_api_server_args`` for
``--tool-call-parser``), without the releases that take the value. A value missing from the list of the
release that ran is very often one a newer (or older) release lists (zai-org/GLM-4.5#58: ``glm45`` came
after vLLM 0.10.0). A list is read where the generator recorded it: the option's ``choices``, else the
``{a,b,c}`` of its metavar (vLLM builds ``--tool-call-parser``'s from its registry of parsers). The result
is one match, ranked first, in the shape of ``why``'s other matches (``index``: ``schemas``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_INVALID_CHOICE = re.compile(
    r"(?:(?P<prog>[A-Za-z_][\w.-]*(?: serve)?): )?error: argument (?P<flags>-[-\w]+(?:/-[-\w]+)*): "
    r"invalid choice: '(?P<value>[^']*)'"
)
_BRACES = re.compile(r"\{([^{}]*)\}")


def listed_values(spec: Any) -> tuple[str, ...] | None:
    """The values an option's parser lists: its ``choices``, else the ``{a,b}`` of its metavar; None when
    the schema records neither (the option takes any value as far as argparse is concerned)."""
    if spec.choices:
        return tuple(str(c) for c in spec.choices)
    metavar = spec.metavar if isinstance(spec.metavar, str) else None
    found = _BRACES.search(metavar or "")
    if found is None:
        return None
    return tuple(v.strip() for v in found.group(1).split(",") if v.strip())


def _framework(prog: str, flags: Sequence[str]) -> str | None:
    from argtrace.frameworks.entrypoints import entrypoints_for_prog
    from argtrace.frameworks.release_index import release_index

    names = {e.framework for e in entrypoints_for_prog(prog)} if prog else set()
    if len(names) == 1:
        return next(iter(names))
    knowing = set()
    for name in ("sglang", "vllm"):
        if any(release_index(name).releases_knowing_flag(f) for f in flags):
            knowing.add(name)
    return next(iter(knowing)) if len(knowing) == 1 else None


def choice_site(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The match for argparse's "invalid choice" in ``text``; None when the text is not that message, or
    no bundled release of one framework has the option with a list of values."""
    from argtrace.frameworks.entrypoints import describe_span
    from argtrace.frameworks.schema import bundled_versions, load_schema

    m = _INVALID_CHOICE.search(text)
    if m is None:
        return None
    flags = m.group("flags").split("/")
    value = m.group("value")
    prog = m.group("prog") or ""
    fw = framework if framework in ("sglang", "vllm") else _framework(prog, flags)
    if fw is None:
        return None
    listing: list[str] = []  # releases whose list of the option holds the value
    lists: list[str] = []  # releases that list values for the option at all
    dest = flag = None
    for version in bundled_versions(fw, include_user=False):
        schema = load_schema(fw, version)
        spec = next((s for s in map(schema.option, flags) if s is not None), None)
        values = listed_values(spec) if spec is not None else None
        if spec is None or values is None:
            continue
        dest, flag = spec.dest, spec.flag
        lists.append(version)
        if value in values:
            listing.append(version)
    if not lists or dest is None:
        return None
    name = {"sglang": "SGLang", "vllm": "vLLM"}[fw]
    if listing:
        says = (
            f"'{value}' is a {flag} value of {fw} {describe_span(fw, listing)} (each release's own list): "
            f"the release that refused it is not one of them; run one that lists it, or give a value the "
            "message lists"
        )
    else:
        says = (
            f"no bundled {name} release lists '{value}' for {flag}: give one of the values the message lists"
        )
    return {
        "framework": fw,
        "function": "ArgumentParser._check_value",
        "kind": "raise",
        "exception": "SystemExit",
        "level": None,
        "message": f"{prog + ': ' if prog else ''}error: argument {m.group('flags')}: invalid choice: %s",
        "score": 1.0,
        "specificity": len(text.strip()),
        "how": "parser",
        "file": "argparse.py",  # argparse raises it itself: no framework file holds it
        "line": None,
        "condition": f"a value not in {flag}'s list",
        "conditions": [f"a value not in {flag}'s list"],
        "settings": [{"name": dest, "flag": flag, "named_in_text": True}],
        "reads": [],
        "versions": [{"version": v, "at": f"{flag}'s list"} for v in listing],
        "releases": listing,
        "absent_in": [v for v in lists if v not in listing],
        "fix": says,
        "index": "schemas",
        "program": prog or None,
    }
