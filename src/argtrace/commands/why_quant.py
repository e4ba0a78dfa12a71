"""``why`` on a quantization method's own check: the setting is ``--quantization``, which picks the method.

A raise in a framework's ``layers/quantization/`` module (SGLang's ``ModelOptFp8Config.from_config``: "only
supports static FP8 quantization ... For FP4 quantization, use ModelOptFp4Config") reads the model's
quantization config, not a server argument, so the message index names no setting for it. The class that
raised is the one the launch's ``--quantization`` (or, without it, the checkpoint) selected: that flag is the
setting to change. When the text names another method's config class and a value of the option's list
normalises to its name (``ModelOptFp4Config`` -> ``modelopt_fp4``, the lists from the generated schemas), the
fix gives that value; the pairing rests on the names and says so (sglang#14285's maintainer: "Try
--quantization modelopt_fp4").
"""

from __future__ import annotations

import re
from typing import Any

_QUANT_MODULE = re.compile(r"/layers/quantization/")
_CONFIG_CLASS = re.compile(r"\b([A-Z][A-Za-z0-9]*?)Config\b")
# a local the scheme checks compute from the device (``capability_tuple``, ``capability``)
_CAPABILITY = re.compile(r"\bcapability(?:_tuple)?\b")


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def add_quantization_setting(groups: list[dict[str, Any]], text: str) -> None:
    """Name ``--quantization`` on the first match when it is a quantization method's check that names no
    setting, with the value another config class the text names corresponds to."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    if not groups:
        return
    first = groups[0]
    framework = first.get("framework")
    if first.get("settings") or not _QUANT_MODULE.search(str(first.get("file") or "")):
        return
    if framework not in ("sglang", "vllm"):
        return
    conditions = [str(c) for c in first.get("conditions") or ()]
    if any(_CAPABILITY.search(c) for c in conditions):
        # the scheme check compares the GPU's compute capability (``capability_tuple =
        # current_platform.get_device_capability()``, ``supported = capability >= min_capability``): what the
        # checkpoint's scheme needs against what the GPU has; no choice of --quantization makes this GPU run
        # the checkpoint's scheme (vllm#14040: "Min capability: 80. Current capability: 75.")
        read = "; ".join(conditions)
        first["fix"] = (
            f"the GPU's compute capability decides it (the site's conditions read it: {read}): the "
            "checkpoint's quantization scheme needs a newer GPU than this one, and no launch setting changes "
            "that: a GPU of the capability the message names, or a checkpoint quantized with a scheme this "
            "GPU supports"
        )
        return
    spec = load_schema(framework, bundled_versions(framework, include_user=False)[-1]).option(
        "--quantization"
    )
    if spec is None:
        return
    first["settings"] = [{"name": spec.dest, "flag": "--quantization", "method_check": True}]
    raising = str(first.get("function") or "").split(".", 1)[0]
    values = {_key(str(c)): str(c) for c in spec.choices or ()}
    named = [c for c in dict.fromkeys(_CONFIG_CLASS.findall(text)) if f"{c}Config" != raising]
    use = next((values[_key(c)] for c in named if _key(c) in values), None)
    said = (
        "the method that raised is the one --quantization (or the checkpoint's quantization config) selected"
    )
    if use is not None:
        said += (
            f"; the text points to {next(c for c in named if _key(c) in values)}Config, which "
            f"--quantization {use} selects (assumed from the class name): change --quantization to {use}"
        )
    else:
        said += ": change --quantization"
    first["fix"] = f"{first['fix']}; {said}" if first.get("fix") else said
