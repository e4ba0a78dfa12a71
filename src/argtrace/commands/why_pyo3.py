"""``why`` on PyO3's refusal of a Python value for a parameter of a Rust extension's function:
"argument 'NAME': 'TYPE' object cannot be converted to 'WANTED'".

PyO3 (the Rust-Python binding sglang-router's ``sglang_router_rs`` is built with) converts each Python
argument of a ``#[pyfunction]``/``#[new]`` to its Rust type; when that fails it raises TypeError with
``argument '{name}': {error}`` (pyo3 ``impl_/extract_argument.rs``, ``argument_extraction_error``) around the
conversion's own message, "'{type}' object cannot be converted to '{target}'" (``DowncastError``), or
"'{type}' object cannot be interpreted as an integer" (CPython's ``__index__`` refusal). No SGLang or vLLM
Python site raises it, so without this the first site was any framework function sharing the words
"argument" and "converted" (sglang#2796's router started without --worker-urls matched vLLM's
``parse_type``, weakly).

The parameter is the launcher's argument of the same name: sglang-router's ``launch_router`` builds
``Router(worker_urls=args.worker_urls, ...)`` from its parser's dests, so NAME is the dest of a router flag
(read from the generated router parser, ``frameworks/data/sglang_router.json``). A ``NoneType`` is the
value argparse gives a flag that was not on the command line and has no default.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PYO3 = re.compile(
    r"argument '(?P<name>[A-Za-z_]\w*)': '(?P<got>[\w.]+)' object "
    r"(?:cannot be converted to '(?P<want>[\w.]+)'|cannot be interpreted as an? (?P<int>integer))"
)
SOURCE = "https://github.com/sgl-project/sglang/issues/2796"


def _router_flag(dest: str) -> tuple[str, str] | None:
    """(flag, the releases read whose launch_router has it) for a router parser dest."""
    from argtrace.frameworks.router_launch import _product

    data = _product("sglang-router")
    for option in data["options"]:
        if option.get("dest") == dest and option.get("flags"):
            flag = str(option["flags"][0])
            known = [str(r) for r in data["flags"].get(flag, [])]
            span = f"{known[0]}-{known[-1]}" if len(known) > 1 else (known[0] if known else "")
            return flag, span
    return None


def pyo3_argument(text: str) -> dict[str, Any] | None:
    """The match for PyO3's argument conversion error in ``text``, ranked first in the shape of ``why``'s
    other matches (``library``: the binding's own check); None when the text is not that message."""
    m = _PYO3.search(text)
    if m is None:
        return None
    name, got = m.group("name"), m.group("got")
    want = m.group("want") or "int"
    found = _router_flag(name)
    settings: list[dict[str, Any]] = []
    says = [
        f"a Rust extension (built with PyO3) refused the value passed for its parameter {name!r}: a {got} "
        f"where it converts to {want}"
    ]
    if found is not None:
        flag, span = found
        settings.append({"name": name, "flag": flag, "value": None, "named_in_text": True})
        says.append(
            f"{name} is the dest of sglang-router's {flag} (launch_router in {span}), which the launcher "
            "passes to the Rust router as it parsed it"
        )
        if got == "NoneType":
            says.append(
                f"None is what argparse gives when {flag} is not on the command line: give {flag}, or run "
                "a router release whose launcher passes a value when it is absent"
            )
        else:
            says.append(f"give {flag} a value of the form the router takes")
    elif got == "NoneType":
        says.append(
            f"None is what argparse gives a flag that is not on the command line: give the option whose "
            f"dest is {name}"
        )
    condition = f"{name} is a {got}, not a {want}"
    return {
        "framework": "sglang" if found is not None else None,
        "function": "pyo3 extract_argument",
        "kind": "raise",
        "exception": "TypeError",
        "level": None,
        "message": "argument '{name}': '{type}' object cannot be converted to '{target}'",
        "score": 1.0,
        "specificity": len(m.group(0)),
        "how": "library",
        "file": "pyo3/src/impl_/extract_argument.rs",
        "line": None,
        "condition": condition,
        "conditions": [condition],
        "settings": settings,
        "reads": [],
        "versions": [],
        "releases": [],
        "absent_in": [],
        "fix": "; ".join(says),
        "library": True,
        "source": SOURCE,
    }
