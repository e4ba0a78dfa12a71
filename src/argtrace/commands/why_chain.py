"""``why`` on the ``else`` of a chain of comparisons (``if arch == 'LlamaForCausalLM': ... elif arch ==
'InternLM2ForCausalLM': ... else: raise ValueError(f"Unsupported architecture: {arch}")``): which releases
accept the value the text names.

Such a site raises for every value its branches do not name, and its own fix was "make the condition false
(not (arch == 'GptOssForCausalLM'))", one branch of many. When the text names a value one of the chain's
branches compares with, that release's check accepts it: the site that raised is the same check in a release
without the branch (sglang PR#7823: SGLang 0.4.7.post1-0.4.8.post1's InternVL config knew only Llama and
InternLM2 backbones, "Unsupported architecture: Qwen2ForCausalLM"; later releases compare with it). The
releases come from the message index: the sites of the same function and message, each with its conditions
(generated from the wheels by ``scripts/gen_messages.py``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_COMPARED = re.compile(r"==\s*'([^'\s]{3,200})'")
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}


def _chain_values(conditions: Sequence[str]) -> list[str]:
    """The literals an ``else`` chain's conditions compare with, when every condition is a branch not taken
    (``not (x == 'A')``); empty otherwise."""
    if not conditions or not all(c.startswith("not (") for c in conditions):
        return []
    values = [v for c in conditions for v in _COMPARED.findall(c)]
    return list(dict.fromkeys(values)) if len(values) == len(conditions) else []


def _spans(chosen: set[str], every: Sequence[str]) -> str:
    out: list[list[str]] = []
    previous = False
    for version in every:
        if version in chosen:
            out[-1].append(version) if previous else out.append([version])
        previous = version in chosen
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in out)


def add_chain_cause(
    groups: list[dict[str, Any]], matches: Sequence[Any], text: str, version: str | None
) -> None:
    """Give the first site, when it is a chain's ``else`` and the text names a value one of its branches
    compares with, the releases whose check accepts that value and those whose check lacks the branch."""
    from argtrace.resolver.message_store import sort_releases

    if not groups or groups[0].get("kind") != "raise":
        return
    first = groups[0]
    framework = str(first.get("framework") or "")
    values = _chain_values(list(first.get("conditions") or ()))
    named = [v for v in values if re.search(rf"(?<![\w.]){re.escape(v)}(?![\w])", text)]
    if framework not in _NAME or not named:
        return
    value = named[0]
    same = [
        m.site
        for m in matches
        if m.site.framework == framework
        and m.site.function == first["function"]
        and m.site.template == first["message"]
    ]
    accepting = {v for s in same if value in _chain_values(s.conditions) for v in s.at}
    lacking = {
        v
        for s in same
        if _chain_values(s.conditions) and value not in _chain_values(s.conditions)
        for v in s.at
    }
    if not lacking:
        return
    every = sort_releases(accepting | lacking)
    name = _NAME[framework]
    ran = f" ({version}, the release named, has no such branch)" if version in lacking else ""
    first["fix"] = (
        f"{value} is a value this check accepts in {name} {_spans(accepting, every)} (a branch compares with "
        "it); "
        f"the check that raised it lacks that branch, as in {_spans(lacking, every)}{ran}: install a release "
        f"that accepts {value}"
    )
    first["accepts"] = {"value": value, "in": sort_releases(accepting), "not_in": sort_releases(lacking)}
