"""``why`` on SGLang's "Pipeline Parallel is not compatible with this model." (sglang#19503: Kimi-K2.5 at
``--pp-size 2``).

``ModelRunner.__init__`` asserts ``self.support_pp`` when the pipeline has more than one stage, and
``support_pp`` is whether the model class's ``forward`` takes ``pp_proxy_tensors`` (a signature test): the
model decides it, no flag does, so the site's own fix ("make the condition false: change --pp-size") said
half of it. Which classes take it per release is the model table's ``pp`` flag (``frameworks/model_caps.py``,
scripts/gen_model_caps.py, which RS049 reads for a launch whose config.json is at hand); the fix names the
two ways out, no pipeline split (``--tp-size`` across the nodes) or a release whose class takes it, and an
architecture the text names is looked up.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_MESSAGE = "Pipeline Parallel is not compatible with this model"
_CLASS = re.compile(r"\b[A-Z]\w*For[A-Z]\w*\b")


def pp_fix(text: str) -> str | None:
    """The fix for the assert, by the model table's releases that record the gate; None without them."""
    from argtrace.frameworks import model_caps

    covered = [v for v in model_caps.releases("sglang") if model_caps.refuses("sglang", v, "pp")]
    table = model_caps.release("sglang", covered[-1]) if covered else None
    if table is None:
        return None
    site = table.refusals["pp"]
    known = [c for c in table.archs.values() if c.known]
    takes = sum("pp" in c.flags for c in known)
    named = ""
    for arch in dict.fromkeys(_CLASS.findall(text)):
        runs = [(v, c) for v, c in model_caps.history("sglang", arch) if v in covered and c.known]
        if runs:
            yes = [v for v, c in runs if "pp" in c.flags]
            named = (
                f"; {arch}'s takes it in {', '.join(yes)}" if yes else f"; {arch}'s does not in {runs[-1][0]}"
            )
            break
    counted = f"{takes} of {len(known)} registered architectures' classes take it{named}"
    return (
        f"support_pp is whether the model class's forward takes pp_proxy_tensors ({site.file}:{site.line} "
        f"of SGLang {table.version}): the model decides it, no flag does, and this model's class did not in "
        f"the release that ran (in {table.version}, {counted}); run it without a pipeline split (--pp-size "
        "1, spreading the model with --tp-size over the nodes), or on a release whose class for this model "
        "takes pp_proxy_tensors"
    )


def add_pp_cause(groups: list[dict[str, Any]], text: str) -> None:
    """The model's part on each matched SGLang site of the assert (its own fix names only --pp-size)."""
    for group in groups:
        if group.get("framework") == "sglang" and _MESSAGE in str(group.get("message") or ""):
            if str(group.get("function") or "").endswith("ModelRunner.__init__"):
                fix = pp_fix(text)
                if fix is not None:
                    group["fix"] = fix
