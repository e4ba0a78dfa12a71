"""``why`` on an attention backend's own check: the setting is the one that picks the backend.

A raise in an attention backend (vLLM's ``attention/backends/`` modules: "Sinks are only supported in
FlashAttention 3"; SGLang's ``layers/attention/``: "The 'fa3' backend is not supported on Blackwell GPUs")
or in vLLM's backend selector (``Platform.get_attn_backend_cls``: "Selected backend FLASHINFER is not valid
for this configuration. Reason: ['sink setting not supported']") reads the model's shapes and the GPU, not a
server argument, so the message index names no setting for it. The backend that raised was the one the
launch's flag picked, or the one chosen for this GPU and model when none was given: that flag is the setting
to change (another backend, or none so that the selector chooses). Which flag: SGLang's ``--attention-
backend``, its vision encoder's ``--mm-attention-backend`` (``layers/attention/vision.py``), vLLM's
``--attention-backend`` in the releases whose parser has it and ``VLLM_ATTENTION_BACKEND`` before (the
releases from the generated schemas; vllm#40153, vllm#22331: the fix the threads settled on was the
backend). A check that already names a setting keeps it, and a module-level helper that probes the GPU for
every backend (``get_flash_attn_version``) is not a backend's own check.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_BACKEND_MODULE = re.compile(r"/attention/backends/|/layers/attention/")
_SELECTOR = re.compile(r"\bget_attn_backend_cls$")
_VISION = re.compile(r"/layers/attention/vision")


@functools.cache
def _first_release_with(framework: str, flag: str) -> tuple[str, str] | None:
    """The dest of ``flag`` and the oldest bundled release whose parser has it."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    for version in bundled_versions(framework, include_user=False):
        spec = load_schema(framework, version).option(flag)
        if spec is not None:
            return spec.dest, version
    return None


def add_backend_setting(groups: list[dict[str, Any]], text: str) -> None:
    """Name the flag that picks the attention backend on the first match when it is a backend's own check
    (or vLLM's selector refusing a backend) that names no setting."""
    if not groups:
        return
    first = groups[0]
    framework = first.get("framework")
    path = str(first.get("file") or "")
    function = str(first.get("function") or "")
    if first.get("settings") or framework not in ("sglang", "vllm"):
        return
    # a backend class's own check (``FlashAttentionImpl.__init__``), not a module's helper that probes the
    # GPU for every backend (``get_flash_attn_version``: "no launch setting changes that" stays its verdict)
    in_backend = bool(_BACKEND_MODULE.search(path)) and "." in function
    if not (in_backend or (framework == "vllm" and _SELECTOR.search(function))):
        return
    flag = "--mm-attention-backend" if _VISION.search(path) else "--attention-backend"
    known = _first_release_with(framework, flag)
    if known is None:
        return
    dest, since = known
    first["settings"] = [{"name": dest, "flag": flag, "backend_check": True}]
    picked = (
        f"{flag} ({framework} {since} on; VLLM_ATTENTION_BACKEND before)" if framework == "vllm" else flag
    )
    said = (
        f"the backend that raised is the one {picked} picked, or the one chosen for this GPU and model when "
        f"none was given: choose another backend with {flag}, or drop a forced one so that the selector "
        "chooses"
    )
    first["fix"] = f"{first['fix']}; {said}" if first.get("fix") else said
