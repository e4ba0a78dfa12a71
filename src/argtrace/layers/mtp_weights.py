"""A vLLM MTP draft served from a local checkpoint that holds none of the draft's tensors (RS087).

With ``--speculative-config '{"method": "mtp"}'`` (or the family's own name, ``qwen3_next_mtp``,
``qwen3_5_mtp``) vLLM builds the draft from the target's own checkpoint: ``hf_config_override`` rewrites the
target's model type to the draft's, and the draft keeps only the tensors whose name starts with its prefix
(``mtp.`` for Qwen3-Next and Qwen3.5/3.6: ``is_unused_checkpoint_weight``, vllm 0.33.0
model_executor/models/qwen3_next_mtp.py:231, qwen3_5_mtp.py:303). A fine-tuned export that dropped the MTP
head (ms-swift#6221: a Qwen3-Next full fine-tune; ms-swift#9802: a Qwen3.6 LoRA merge) loads none of them,
and for an unquantized checkpoint ``DefaultModelLoader.track_weights_loading`` raises "Following weights were
not initialized from checkpoint" (model_loader/default_loader.py:569) while the draft is built. Which model
types map to which draft and prefix is read from the wheels by scripts/gen_vllm_mtp_weights.py
(frameworks/data/vllm_mtp_weights.json). Judged only when the checkpoint is here: its config.json and the
tensor names of its ``model.safetensors.index.json`` (or the header of a single ``model.safetensors``); a
quantized checkpoint is not judged (the strict check is off for it). Pure: reads files, never the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from argtrace.model import Evidence, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.model import Finding

_TABLE = "frameworks/data/vllm_mtp_weights.json"  # written by scripts/gen_vllm_mtp_weights.py


def _tensor_names(model_dir: Path) -> tuple[list[str], str] | None:
    """The checkpoint's tensor names and where they were read (the index, else the safetensors headers), or
    None when neither is read."""
    from argtrace import localfs, safe_json

    index = model_dir / "model.safetensors.index.json"
    if localfs.is_file(index):
        try:
            weight_map = safe_json.loads(index.read_text(encoding="utf-8")).get("weight_map")
        except (OSError, ValueError, AttributeError):
            return None
        return (list(weight_map), index.name) if isinstance(weight_map, dict) and weight_map else None
    from argtrace.layers.memory.weights import _read_safetensors_headers

    headers = _read_safetensors_headers(model_dir)
    return (list(headers), "the *.safetensors headers") if headers else None


def _expected(
    found: Mapping[str, Any], config: Mapping[str, Any]
) -> list[tuple[str, tuple[str, ...]]] | None:
    """The draft's tensor groups as (what to call it, the name prefixes any of which is a tensor of it): the
    draft's prefixes, or one group per MTP layer numbered after the target's (``model.layers.{61 + i}.`` for
    DeepSeek-V3); None when config.json does not give the layer fields as positive integers."""
    if "prefixes" in found:
        prefixes = tuple(found["prefixes"])
        return [(", ".join(f"{p}*" for p in prefixes), prefixes)]
    layers = found["layers"]
    # GLM-OCR's draft reads its text_config (glm_ocr_mtp.py: hf_config.text_config), DeepSeek's and GLM-4.5's
    # the top level: the sub-config that has both fields is the one read
    text = config.get("text_config")
    fields = text if isinstance(text, Mapping) and layers["count"] in text else config
    start, count = fields.get(layers["start"]), fields.get(layers["count"])
    if not (isinstance(start, int) and isinstance(count, int)) or isinstance(start, bool) or count <= 0:
        return None
    return [
        (
            f"layer {start + i} ({found['layers']['names'][0].format(layer=start + i)}*)",
            tuple(t.format(layer=start + i) for t in layers["names"]),
        )
        for i in range(count)
    ]


def mtp_weights(report: Report, model_dir: Path | None) -> list[Finding]:
    """RS087 for an MTP draft none of whose tensors (its prefix, or one of its numbered layers) the local
    checkpoint has."""
    release = report.parsed_release("vllm")
    method = report.written_value("speculative_config.method")
    if release is None or model_dir is None or not isinstance(method, str):
        return []
    from argtrace.package_data import release_facts

    table = release_facts(_TABLE, release)
    if not table:
        return []
    from argtrace.layers.memory.config import ConfigError, load_config

    try:
        config = load_config(model_dir)
    except ConfigError:  # the memory layer reports a config it cannot read (MM002)
        return []
    nested = config.get("text_config")
    architectures = config.get("architectures")
    first = architectures[0] if isinstance(architectures, list) and architectures else None
    keys = [
        config.get("model_type"),
        nested.get("model_type") if isinstance(nested, dict) else None,
        f"arch:{first}" if isinstance(first, str) else None,
    ]
    found: dict[str, Any] | None = next((table[k] for k in keys if isinstance(k, str) and k in table), None)
    if found is None or method not in ("mtp", found["draft"]):
        return []
    check = (found.get("layers") or {}).get("check")
    # the loader's strict check is off for a quantized checkpoint; a draft's own check (DeepSeek's) is not
    if config.get("quantization_config") and not check:
        return []
    groups = _expected(found, config)
    if groups is None:
        return []
    tensors = _tensor_names(model_dir)
    if tensors is None:
        return []
    names, source = tensors
    missing = [
        (label, prefixes) for label, prefixes in groups if not any(n.startswith(prefixes) for n in names)
    ]
    if not missing:
        return []
    from argtrace.rules.resolution import RS087

    shown = "; ".join(label for label, _ in missing)
    setting = report.written("speculative_config.method")
    at = setting.last_at if setting is not None else None
    if check:
        layer = missing[0][0].split(" ")[1]
        stops = f'"{check.replace("{layer_idx}", layer)}" ({found["at"]}: load_weights)'
    else:
        stops = (
            '"Following weights were not initialized from checkpoint", '
            + "DefaultModelLoader.track_weights_loading"
        )
    if "layers" in found:
        dropped = "a quantized or fine-tuned export often drops the MTP layer"
        fix = f"copy the base checkpoint's {shown} tensors (and their index lines) into the export"
    else:
        dropped = "a fine-tuned export often drops the MTP head"
        fix = (
            "copy the MTP tensors of the base checkpoint into the export (its mtp.* entries and their index "
            "lines)"
        )
    return [
        RS087.finding(
            f"the {found['draft']} draft loads the checkpoint's {shown} tensors, and this checkpoint has "
            f"none ({source} lists {len(names)} tensor{'s' if len(names) != 1 else ''}): vllm {release} "
            f"leaves the draft's parameters unloaded and stops while building it ({stops}); {dropped}",
            at=at,
            evidence=[
                Evidence("parser", at, f"speculative_config.method={method}"),
                Evidence(
                    "resolution",
                    str(model_dir),
                    f"{source}: no tensor name starts with "
                    + " or ".join(p for _, prefixes in missing for p in prefixes),
                ),
                Evidence(
                    "resolution",
                    f"vllm {release}: {found['at']}",
                    f"is_unused_checkpoint_weight keeps {shown}"
                    if "prefixes" in found
                    else f"load_weights keeps {', '.join(label for label, _ in groups)}",
                ),
            ],
            setting="speculative_config",
            fix=f"{fix}, or serve without --speculative-config",
        )
    ]
