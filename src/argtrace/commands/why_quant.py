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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_QUANT_MODULE = re.compile(r"/layers/quantization/")
_CONFIG_CLASS = re.compile(r"\b([A-Z][A-Za-z0-9]*?)Config\b")
# a local the scheme checks compute from the device (``capability_tuple``, ``capability``)
_CAPABILITY = re.compile(r"\bcapability(?:_tuple)?\b")
# a method's check on the dtype its weights are created in, alone: ``not (params_dtype == torch.float16)``
_PARAMS_DTYPE = re.compile(r"(not \()?params_dtype\s*(==|!=)\s*torch\.(\w+)\)?")
# a size vLLM computes per tensor-parallel shard (``intermediate_size_per_partition``, ``output_size_...``)
_PER_PARTITION = re.compile(r"\b(\w+)_per_partition\b")


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
    if _params_dtype(first, conditions, framework):
        return
    if framework == "vllm" and _per_partition(first, conditions):
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


def _per_partition(first: dict[str, Any], conditions: list[str]) -> bool:
    """A method's check on a size vLLM computes per tensor-parallel shard: the shard is the layer's size
    divided by the parallel size, so the launch's parallel layout decides it, not --quantization (vime
    PR#186: "The output_size of gate's and up's weight = 96 is not divisible by weight quantization block_n =
    128", 768 split over TP 8). A mixture-of-experts layer divides its experts' intermediate size by the MoE
    layer's tensor-parallel size, TP x DP without --enable-expert-parallel and 1 with it
    (FusedMoEConfig.__post_init__, vllm 0.33.0 model_executor/layers/fused_moe/config.py:1353, with
    FusedMoEParallelConfig.make's tp_size=1 under expert parallelism); a dense layer by
    --tensor-parallel-size. Sets the first match's fix and settings; False when no condition reads such a
    size."""
    found = next((m.group(0) for c in conditions if (m := _PER_PARTITION.search(c))), None)
    if found is None:
        return False
    where = f"{first.get('function') or ''} {first.get('file') or ''}"
    moe = bool(re.search(r"(?i)moe|expert", where))
    if moe:
        first["settings"] = [
            {"name": "tensor_parallel_size", "flag": "--tensor-parallel-size"},
            {"name": "enable_expert_parallel", "flag": "--enable-expert-parallel"},
        ]
        first["fix"] = (
            f"{found} is each expert's size divided by the MoE layer's tensor-parallel size (FusedMoEConfig."
            "__post_init__), which is --tensor-parallel-size x --data-parallel-size without "
            "--enable-expert-parallel and 1 with it: add --enable-expert-parallel (each expert stays whole "
            "on its rank), or a smaller --tensor-parallel-size that leaves a multiple of the size the "
            "message names"
        )
    else:
        first["settings"] = [{"name": "tensor_parallel_size", "flag": "--tensor-parallel-size"}]
        first["fix"] = (
            f"{found} is the layer's size divided by --tensor-parallel-size: a tensor-parallel size that "
            "leaves a multiple of the size the message names"
        )
    return True


def _params_dtype(first: dict[str, Any], conditions: list[str], framework: str) -> bool:
    """A method's check on ``params_dtype``, the dtype ``create_weights`` makes the layer's weights in: the
    model's dtype, which ``--dtype`` sets (``auto``: the checkpoint's). Both frameworks build the model under
    ``set_default_torch_dtype(model_config.dtype)`` and a layer given no dtype takes
    ``torch.get_default_dtype()`` (vLLM 0.33.0 model_loader/base_loader.py:73, layers/linear.py:285,
    layers/fused_moe/layer.py:349; SGLang 0.5.23 model_loader/loader.py:838, layers/linear.py:265,
    layers/moe/fused_moe_triton/layer.py:374), so the knob is --dtype, not --quantization (vllm#17579: a W8A16
    MoE checkpoint in bfloat16, "float16 is required for MoE compressed models. Set dtype=torch.float16").
    Only a condition that is that comparison alone is read; sets the first match's fix and settings."""
    from argtrace.frameworks.schema import bundled_versions, load_schema

    found = next((m for c in conditions if (m := _PARAMS_DTYPE.fullmatch(c.strip()))), None)
    if found is None:
        return False
    negated, op, dtype = found.groups()
    # the condition is the one that raises: ``not (x == d)`` and ``x != d`` raise unless the dtype is d
    needed = (op == "==") == bool(negated)
    spec = load_schema(framework, bundled_versions(framework, include_user=False)[-1]).option("--dtype")
    choices = [str(c) for c in (spec.choices if spec is not None else None) or ()]
    why = (
        "params_dtype is the model's dtype (the layers are built under set_default_torch_dtype("
        "model_config.dtype)), which --dtype sets (auto: the checkpoint's torch_dtype)"
    )
    if needed and (not choices or dtype in choices):
        first["fix"] = f"{why}: pass --dtype {dtype}"
    elif needed:
        first["fix"] = f"{why}: pass the --dtype that makes it torch.{dtype}"
    else:
        first["fix"] = f"{why}: pass a --dtype other than {dtype}"
    first["settings"] = [{"name": "dtype", "flag": "--dtype"}]
    return True
