"""``why`` on the parallel layers' divisibility check: ``ensure_divisibility``'s "{} is not divisible by {}".

SGLang and vLLM shard a model's layers over the tensor-parallel ranks with Megatron's helpers of their
``distributed/utils.py``: ``divide(numerator, denominator)`` asserts ``numerator % denominator == 0`` through
``ensure_divisibility``. The assert reads only its parameters, so the message index's site named no setting
and its fix was "make the condition false". What the numbers are, its callers decide: a dimension of the
model (heads, KV heads, intermediate or vocabulary size, Mamba groups) over the parallel size that shards it.
sglang#3436 deploys DeepSeek-R1-Distill-Qwen-1.5B (12 attention heads, 2 KV heads) at ``--tp 24`` and every
scheduler dies on it; its title quotes the statement, "assert numerator % denominator == 0".

The callers, per release read, come from ``frameworks/data/divide_callers.json``
(scripts/gen_divide_callers.py: the calls of the helpers under each package root that has its own
``distributed/utils.py``, their denominators as written, counted, and the first call of each): the fix names
the parallel size the callers pass and the flag that sets it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TABLE = "frameworks/data/divide_callers.json"
_HELPERS = ("ensure_divisibility", "divide")
# the tensor-parallel size's flag per framework (the denominators the callers pass are its shards)
TP_FLAG = {"sglang": "--tp-size", "vllm": "--tensor-parallel-size"}
_NAME = {"sglang": "SGLang", "vllm": "vLLM"}


@functools.cache
def _frameworks() -> dict[str, Any]:
    from argtrace.package_data import bundled_json

    table: dict[str, Any] = bundled_json(_TABLE).get("frameworks") or {}
    return table


def _root_of(file: str) -> str | None:
    return file[: -len("/distributed/utils.py")] if file.endswith("/distributed/utils.py") else None


def is_divisibility_site(framework: str | None, file: str | None, function: str | None) -> bool:
    """Whether a site is the helpers' assert (``<root>/distributed/utils.py``, ``ensure_divisibility``)."""
    return (
        framework in TP_FLAG
        and _root_of(str(file or "")) is not None
        and str(function or "").split(".")[-1] in _HELPERS
    )


def _newest(releases: Mapping[str, Any]) -> str:
    from argtrace.frameworks.schema import version_key

    return max(releases, key=version_key)


def divisibility_fix(framework: str, file: str) -> str | None:
    """The fix of the helpers' assert at ``file``: what the callers under its package root pass, in the
    newest release read that has that root; None when no release read has it."""
    root = _root_of(file)
    releases = {
        v: facts["roots"][root]
        for v, facts in (_frameworks().get(framework) or {}).items()
        if root is not None and root in (facts.get("roots") or {})
    }
    if not releases:
        return None
    release = _newest(releases)
    facts = releases[release]
    counts: dict[str, int] = facts["denominators"]
    top = sorted(counts, key=lambda d: (-counts[d], d))[:4]
    shown = ", ".join(f"{d} ({counts[d]})" for d in top)
    examples = "; ".join(
        f"`divide({e['numerator']}, {e['denominator']})` ({e['file']}:{e['line']})"
        for e in facts["examples"][:3]
    )
    flag = TP_FLAG[framework]
    # SGLang's DP attention shards attention over tp/dp ranks (``self.attn_tp_size`` among the callers)
    part = "; with --enable-dp-attention, its attention part" if framework == "sglang" else ""
    return (
        f"its two numbers are what its callers pass: a dimension of the model over the parallel size that "
        f"shards it ({_NAME[framework]} {release}: {facts['calls']} calls under {root}, passing {shown}; "
        f"e.g. {examples}): the tensor-parallel size ({flag}{part}) must divide "
        f"each dimension the model shards (its attention and KV head counts among them, in its config.json): "
        f"a {flag} that divides them (the message's first number is the dimension, the second the size)"
    )


def add_divisibility_cause(groups: list[dict[str, Any]]) -> None:
    """The callers' fix on each matched site of the helpers' assert (its own says "make the condition
    false")."""
    for group in groups:
        if is_divisibility_site(group.get("framework"), group.get("file"), group.get("function")):
            fix = divisibility_fix(str(group["framework"]), str(group["file"]))
            if fix is not None:
                group["fix"] = fix
