"""``why`` on a model registry's refusal ("Model architectures ['X'] are not supported for now."): which
bundled releases register X.

The site raises unconditionally once no registered class and no fallback takes the checkpoint's
``architectures``, so its own fix was "avoid the call path that reaches it". The model class tables
(``frameworks/model_caps.py``, generated from the wheels by ``scripts/gen_model_caps.py``) record, per
release, each registered architecture and the registry's refusal site. When the first site is that refusal
(same file and function in a covered release), the architectures the text names are looked up: a release
range that registers one is the way out (install it); none registering it in any covered release means the
checkpoint names a class neither framework has: a draft or export in another format (vllm#24967's original
EAGLE checkpoint's ``EagleQwen2ForCausalLM``), or a build newer than the bundled releases or not built in full
(spark-vllm-docker#364's ``DFlash2DraftModel``, a build step skipped).

The Transformers fallback's refusal ("X has no SGlang implementation and the Transformers implementation is
not compatible with SGLang.", ``resolve_transformers_arch`` in SGLang and vLLM) is reached the same way: no
class of the release's registry takes X, and the fallback cannot either. Its fix is the same look-up
(sglang PR#6058's comment: XLMRobertaForSequenceClassification on the 0.4.7 image; the tables register it
from 0.4.7.post1).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_ARCHS = re.compile(r"Model architectures \[(?P<names>[^\]]{1,2000})\]")
# the Transformers fallback's refusal (SGLang's and vLLM's ``resolve_transformers_arch``): reached only when
# no
# class of the release's registry takes the architecture, so the releases registering it are a way out too
_NO_IMPL = re.compile(
    r"\b(?P<arch>[A-Za-z_]\w{0,200}) has no (?:SGlang|SGLang|vLLM) implementation and the Transformers"
)
_NAME = {"vllm": "vLLM", "sglang": "SGLang"}


def _refusal_of(framework: str, group: dict[str, Any]) -> bool:
    """Whether ``group`` is the registry's "unsupported" refusal in some covered release of ``framework``."""
    from argtrace.frameworks.model_caps import release, releases

    for version in releases(framework):
        table = release(framework, version)
        site = table.refusals.get("unsupported") if table else None
        # the same function raises other messages too (vllm#17630's "... failed to be inspected", raised when
        # the architecture IS registered): only the refusal's own message is about what is registered
        if site is not None and (site.file, site.function, site.message) == (
            group.get("file"),
            group.get("function"),
            group.get("message"),
        ):
            return True
    return False


def _spans(chosen: set[str], every: Sequence[str]) -> str:
    out: list[list[str]] = []
    previous = False
    for version in every:
        if version in chosen:
            if previous:
                out[-1].append(version)
            else:
                out.append([version])
        previous = version in chosen
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in out)


def _lacks(version: str | None, have: set[str], every: Sequence[str]) -> bool:
    """Whether the release named lacks the class: a covered release without it, or one the tables do not
    cover whose covered neighbours do not both have it (vllm#17630's 0.9.0 lies between 0.8.5.post1 and
    0.9.2, which both register Qwen3ForCausalLM: not known to lack it)."""
    from argtrace.resolver.message_store import sort_releases

    if not version or version in have:
        return False
    if version in every:
        return True
    order = sort_releases([*every, version])
    at = order.index(version)
    before, after = order[at - 1] if at else None, order[at + 1] if at + 1 < len(order) else None
    return not (before in have and after in have)


def add_arch_cause(groups: list[dict[str, Any]], text: str, version: str | None = None) -> None:
    """Give the registry refusal that comes first the releases that register the architectures the text
    names, as its fix."""
    from argtrace.frameworks.model_caps import history, releases

    if not groups:
        return
    first = groups[0]
    framework = str(first.get("framework") or "")
    m = _ARCHS.search(text)
    if framework not in _NAME:
        return
    if m is not None and _refusal_of(framework, first):
        archs = list(dict.fromkeys(re.findall(r"['\"]([A-Za-z_]\w*)['\"]", m.group("names"))))
    else:
        fallback = _NO_IMPL.search(text)
        if fallback is None or not str(first.get("message") or "").startswith("{arch} has no "):
            return
        archs = [fallback.group("arch")]
    every = releases(framework)
    if not archs or not every:
        return
    name = _NAME[framework]
    said = []
    for arch in archs:
        have = {v for v, _cls in history(framework, arch)}
        if have:
            named = f" ({version}, the release named, does not)" if _lacks(version, have, every) else ""
            said.append(f"{arch} is registered in {name} {_spans(have, every)}{named}")
        else:
            said.append(
                f"no bundled {name} release ({every[0]}-{every[-1]}) registers {arch}: the checkpoint's "
                "config.json names a class it does not have (a draft or export in another format, or a build "
                "newer than these releases or built without it)"
            )
    way = (
        "install a release that registers it"
        if any(history(framework, a) for a in archs)
        else "a checkpoint whose architectures the release registers (converted to its format), or a build "
        "that has the class"
    )
    first["fix"] = f"{'; '.join(said)} (the model class tables): {way}"
    first["archs"] = archs
