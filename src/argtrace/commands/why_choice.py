"""``why`` on argparse's "PROG: error: argument --FLAG: invalid choice: 'VALUE' (choose from ...)": which
flag refused the value, in which bundled releases the value is (or is not) one of its choices, the choice
spelled like it, and the other flags that take the value, read from the generated schemas' choices.

argparse raises this message itself, so no framework site has it: before, the first site was any function
sharing a few words with it (sglang PR#10835's ``--mm-attention-backend triton`` matched a PLE offload
check, weakly) and only the log signature said "use one of the choices". The text names the flag, the value
and the choices the refusing parser offered; each bundled release's schema has the flag's choices, so the
releases whose choices are the printed ones are the ones that could have refused it. The result is one
match, ranked first, in the shape of ``why``'s other matches (``index``: ``entrypoints``, as argparse's
"unrecognized arguments" in ``why_unrecognized``).
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The program name starts only where a run of name characters starts and is read once (possessive): a
# pasted 110 KB run of letters took over 25 s before (every start, every backtrack; probe of session 13).
_INVALID = re.compile(
    r"(?:(?<![\w.-])(?P<prog>[A-Za-z_][\w.-]*+(?: serve)?): )?"
    r"error: argument (?P<flags>-[\w-]+(?:/-[\w-]+)*): "
    r"invalid choice: (?P<value>'[^']*'|\S+)(?: \(choose from (?P<choices>[^)\n]*)\)?)?"
)


def _spans(framework: str, releases: list[str]) -> str:
    from argtrace.frameworks.entrypoints import describe_span

    return describe_span(framework, releases)


_BRACES = re.compile(r"\{([^{}]*)\}")


def listed_values(option: Any) -> tuple[str, ...] | None:
    """The values an option's parser lists: its ``choices``, else the ``{a,b}`` of its metavar (vLLM builds
    ``--tool-call-parser``'s from its registry of parsers, zai-org/GLM-4.5#58); None when the schema records
    neither (argparse takes any value)."""
    if option.choices:
        return tuple(str(c) for c in option.choices)
    metavar = option.metavar if isinstance(option.metavar, str) else None
    found = _BRACES.search(metavar or "")
    if found is None:
        return None
    return tuple(v.strip() for v in found.group(1).split(",") if v.strip())


def _choices_by_release(framework: str, flag: str) -> dict[str, tuple[str, ...]]:
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import load_schema

    out: dict[str, tuple[str, ...]] = {}
    for version in release_index(framework).releases_knowing_flag(flag):
        schema = load_schema(framework, version)
        option = schema.option(flag)
        listed = listed_values(option) if option is not None else None
        if listed:
            out[version] = listed
    return out


def _other_flags_taking(framework: str, version: str, flag: str, value: str) -> list[str]:
    from argtrace.frameworks.schema import load_schema

    schema = load_schema(framework, version)
    return sorted(
        {
            o.option_strings[0]
            for o in schema.options
            if o.choices and value in [str(c) for c in o.choices] and flag not in o.option_strings
        }
    )


def _printed_choices(listed: str) -> tuple[str, ...]:
    """The choices argparse printed: quoted (``'hermes', 'mistral'``: repr of each, Python up to 3.12.7) or
    bare (``deepseek_r1, granite, qwen3``: CPython 3.12.8 and 3.13.1 on print ``str`` of each, argparse
    ``_check_value``; zai-org/GLM-4.5#4)."""
    quoted = tuple(re.findall(r"'([^']*)'", listed))
    if quoted:
        return quoted
    return tuple(w for w in (x.strip() for x in listed.split(",")) if re.fullmatch(r"[\w.+-]+", w))


def invalid_choice_site(text: str, framework: str | None = None) -> dict[str, Any] | None:
    """The match for argparse's "invalid choice" in ``text``; None when the text is not that message or no
    bundled release of a framework has the flag with choices."""
    from argtrace.frameworks.entrypoints import entrypoints_for_prog
    from argtrace.frameworks.release_index import release_index

    m = _INVALID.search(text)
    if m is None:
        return None
    options = m.group("flags").split("/")
    flag = next((o for o in options if o.startswith("--")), options[0])
    value = m.group("value").strip("'")
    printed = _printed_choices(m.group("choices") or "")
    prog = m.group("prog") or ""
    names = {e.framework for e in entrypoints_for_prog(prog)} if prog else set()
    wanted = [framework] if framework in ("sglang", "vllm") else sorted(names) or ["sglang", "vllm"]
    known = {}
    for fw in wanted:
        try:
            if release_index(fw).releases_knowing_flag(flag):
                known[fw] = _choices_by_release(fw, flag)
        except KeyError:
            continue
    known = {fw: by for fw, by in known.items() if by}
    if len(known) != 1:
        return None
    fw, by_release = next(iter(known.items()))
    releases = list(by_release)
    taking = [v for v, choices in by_release.items() if value in choices]
    refusing = [v for v, choices in by_release.items() if printed and set(choices) == set(printed)]
    newest = releases[-1]
    newest_choices = by_release[newest]
    # spelled like it: the value starts it, is one of its words, or it is the value's first word
    # ('dummy_dtensor', a vLLM-side name, for SGLang's 'dummy': verl PR#1068)
    alike = [
        c
        for c in newest_choices
        if value and (c.startswith(value) or value in c.split("_") or value.startswith(c + "_"))
    ]
    says = []
    if taking:
        says.append(
            f"{value!r} is a choice of {flag} in {fw} {_spans(fw, taking)}: the release that refused it is "
            "not one of them; use one of those releases, or a choice the running release lists"
        )
    else:
        says.append(
            f"{value!r} is not a choice of {flag} in any bundled {fw} release ({_spans(fw, releases)})"
        )
    if refusing:
        says.append(f"the choices printed are those of {fw} {_spans(fw, refusing)}")
    if alike and not taking:
        says.append(f"the choice spelled like it: {', '.join(alike)}")
    others = _other_flags_taking(fw, newest, flag, value)
    if others and not taking:
        more = f" and {len(others) - 3} more" if len(others) > 3 else ""
        says.append(
            f"{value!r} is a choice of {', '.join(others[:3])}{more} (other settings) in {fw} {newest}"
        )
    says.append(f"{flag}'s choices in {fw} {newest}: {', '.join(newest_choices)}")
    from argtrace.frameworks.schema import load_schema

    built = str(load_schema(fw, newest).parser_info.get("built_by") or "")
    file, _, line = built.rpartition(":") if ":" in built else (built, "", "")
    dest = flag.lstrip("-").replace("-", "_")
    condition = f"{value!r} not in the choices of {flag}"
    return {
        "framework": fw,
        "function": "ArgumentParser._check_value",
        "kind": "raise",
        "exception": "SystemExit",
        "level": None,
        "message": f"{prog + ': ' if prog else ''}error: argument {m.group('flags')}: invalid choice: %s "
        "(choose from %s)",
        "score": 1.0,
        "specificity": len(m.group(0)),
        "how": "parser",
        "file": file,
        "line": int(line) if line.isdigit() else None,
        "condition": condition,
        "conditions": [condition],
        "settings": [{"name": dest, "flag": flag, "value": value, "named_in_text": True}],
        "reads": [],
        "versions": [{"version": v, "at": built} for v in (refusing or releases)[-1:] if built],
        "releases": refusing or releases,
        "absent_in": [],
        "fix": "; ".join(says),
        "index": "entrypoints",
        "program": prog or None,
        "entrypoints": [],
    }
