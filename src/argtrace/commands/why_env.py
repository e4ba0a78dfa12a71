"""``why`` on vLLM's "Unknown vLLM environment variable detected: NAME": which releases read the variable.

``envs.validate_environ`` (``Platform.validate_environ`` in later releases) logs it for every ``VLLM_*``
variable its release does not list, and the value is then ignored; the site's test (``not hard_fail``) says
only that the message is a warning and not an error. The release index (``frameworks/release_index.py``,
generated from the releases' ``envs.py``) says which releases read the name: a variable an older release
read and this one dropped (``VLLM_ATTENTION_BACKEND``, read up to 0.14.1: vllm PR#50346 measured the
warning on 0.26.0; ``VLLM_SLEEP_WHEN_IDLE`` on 0.27.1, gpustack/runner PR#251), or one no release reads (a
misspelling, or another program's variable with vLLM's prefix). When the release has a flag of the same name
(``--attention-backend``), the setting moved there, as the process layer's PR001 says of a launch.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_UNKNOWN = re.compile(r"Unknown vLLM environment variable detected: (VLLM_[A-Z0-9_]+)")
_PREFIX = "VLLM_"


def add_unknown_env_cause(groups: list[dict[str, Any]], text: str, version: str | None) -> None:
    """Name the releases that read the variable, and the flag of the same name, on the first match when it
    is the release's unknown-variable warning."""
    if not groups or not str(groups[0].get("function") or "").endswith("validate_environ"):
        return
    said = _UNKNOWN.search(text)
    if said is None:
        return
    from argtrace.frameworks.entrypoints import describe_span
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import load_schema, nearest_bundled

    name = said.group(1)
    index = release_index("vllm")
    if not index.releases:
        return
    readers = index.releases_knowing_env(name)
    named = nearest_bundled("vllm", version, index.releases) if version else None
    if named in readers:  # the text's release reads it: the warning is another release's, not this one's
        return
    ref = named or index.releases[-1]
    basis = "" if ref == version else f" (standing in for {version})" if named else " (the newest bundled)"
    if readers:
        cause = (
            f"{name} is read by vllm {describe_span('vllm', readers)} only; the release that logged this "
            "does not read it, so its value is ignored"
        )
    else:
        cause = (
            f"no vllm release argtrace knows reads {name} (a misspelling, or another program's variable "
            "with vLLM's prefix): its value is ignored"
        )
    flag = "--" + name[len(_PREFIX) :].lower().replace("_", "-")
    if load_schema("vllm", ref).option(flag) is not None:
        fix = (
            f"; remove it and pass {flag}, the flag of the same name in vllm {ref}{basis} (assumed from "
            "the name)"
        )
    else:
        fix = "; remove it" + ("" if readers else ", or set the name the release reads")
    groups[0]["fix"] = cause + fix
