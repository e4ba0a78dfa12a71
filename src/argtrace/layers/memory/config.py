"""Read a Hugging Face ``config.json`` into the few numbers memory planning needs.

Multimodal checkpoints (``Qwen3_5ForConditionalGeneration``) keep the language model under ``text_config``;
its keys win over the top level, the way SGLang's ``ModelConfig.hf_text_config`` reads them. Nothing here
guesses a value silently: a field that is needed and absent is listed in ``ModelSpec.missing`` and the
caller turns it into a finding.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from argtrace import localfs

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, TypeAlias

# Real config.json files are a few kB (a multimodal one with its processor settings, tens of kB).
MAX_CONFIG_BYTES = 16 * 1024 * 1024

Family: TypeAlias = 'Literal["dense", "moe", "mla", "hybrid_gdn", "nemotron_h"]'

# Architectures whose layout this module knows; anything else is read as a plain decoder (with a warning).
KNOWN_ARCHITECTURES: dict[str, Family] = {
    "LlamaForCausalLM": "dense",
    "MistralForCausalLM": "dense",
    "Qwen2ForCausalLM": "dense",
    "Qwen3ForCausalLM": "dense",
    "Qwen2MoeForCausalLM": "moe",
    "Qwen3MoeForCausalLM": "moe",
    "MixtralForCausalLM": "moe",
    # vLLM 0.33.0 model_executor/models/llama4.py (registry: mllama4.Llama4ForConditionalGeneration)
    "Llama4ForConditionalGeneration": "moe",
    "Llama4ForCausalLM": "moe",
    "DeepseekV2ForCausalLM": "mla",
    "DeepseekV3ForCausalLM": "mla",
    "Qwen3NextForCausalLM": "hybrid_gdn",
    "Qwen3_5ForConditionalGeneration": "hybrid_gdn",
    "Qwen3_5MoeForConditionalGeneration": "hybrid_gdn",
    "Qwen3_5ForCausalLM": "hybrid_gdn",
    "Qwen3_5MoeForCausalLM": "hybrid_gdn",
    "NemotronHForCausalLM": "nemotron_h",
    # Vision-language checkpoints whose language model is one of the above (vLLM 0.33.0: qwen2_5_vl.py builds
    # a Qwen2ForCausalLM, :1444-1447; qwen3_vl.py a Qwen3 model; qwen3_vl_moe.py's Qwen3MoeLLMModel is a
    # Qwen3MoeModel, :47-93); the ViT is counted by weights.vision_params
    "Qwen2_5_VLForConditionalGeneration": "dense",
    # vLLM 0.33.0 qwen2_vl.py:1422-1426 builds a Qwen2ForCausalLM; its ViT's width is vision_config.embed_dim
    # and its merger's output vision_config.hidden_size (:549-556)
    "Qwen2VLForConditionalGeneration": "dense",
    "Qwen3VLForConditionalGeneration": "dense",
    "Qwen3VLMoeForConditionalGeneration": "moe",
}

_DTYPE_BYTES = {
    "float32": 4,
    "float": 4,
    "fp32": 4,
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
    "float8_e4m3fn": 1,
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
}


class ConfigError(Exception):
    """The config cannot be read at all (missing file, not JSON, not an object)."""


@dataclass(frozen=True)
class Quantization:
    """Weight quantization as declared by ``quantization_config`` (or ``none``)."""

    method: str  # none, fp8, awq, gptq, nvfp4, mxfp4, compressed-tensors, bitsandbytes, ...
    bits: float  # bits per quantized weight element (before scales)
    group_size: int | None  # elements per scale (None: per-channel/per-block handled by block)
    block: tuple[int, int] | None = None  # fp8 block quantization
    excluded: tuple[str, ...] = ()  # module name patterns left unquantized
    # A quant_method argtrace does not count: its weights are counted at the model's dtype (16 bits), an
    # upper bound, so what rests on them is an estimate (MM012), never an error.
    assumed: bool = False


@dataclass
class ModelSpec:
    """The model's shape as its config file gives it: architecture, dtype, layers, heads and the sizes
    memory sizing needs."""

    architecture: str
    family: Family
    known_architecture: bool
    dtype_bytes: int
    hidden_size: int = 0
    num_layers: int = 0
    vocab_size: int = 0
    num_attention_heads: int = 0
    num_kv_heads: int = 0
    head_dim: int = 0
    v_head_dim: int = 0
    intermediate_size: int = 0
    tie_word_embeddings: bool = False
    context_length: int = 0
    # MoE
    num_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int = 0
    shared_expert_intermediate_size: int = 0
    first_k_dense: int = 0
    moe_layer_freq: int = 1
    # MLA (DeepSeek)
    kv_lora_rank: int = 0
    q_lora_rank: int = 0
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    # layer kinds: index -> "full_attention" | "linear_attention" | "mamba" | "mlp" | "moe"
    layer_types: list[str] = field(default_factory=list)
    # Gated DeltaNet (Qwen3-Next / Qwen3.5) and Mamba2 (Nemotron-H) state geometry
    linear_num_key_heads: int = 0
    linear_key_head_dim: int = 0
    linear_num_value_heads: int = 0
    linear_value_head_dim: int = 0
    conv_kernel: int = 0
    mamba_num_heads: int = 0
    mamba_head_dim: int = 0
    mamba_n_groups: int = 0
    ssm_state_size: int = 0
    mamba_ssm_dtype: str | None = None
    attn_output_gate: bool = False
    # Draft / MTP
    mtp_layers: int = 0
    # Sliding-window attention layers (``layer_types`` "sliding_attention", GPT-OSS, Gemma 3) and the
    # window; vLLM gives them their own KV cache groups. SGLang's SWA pool is not modelled.
    sliding_window: int = 0
    sliding_layer_ids: tuple[int, ...] = ()
    # Vision tower (multimodal checkpoints)
    vision: Mapping[str, Any] | None = None
    quantization: Quantization = field(default_factory=lambda: Quantization("none", 16, None))
    missing: list[str] = field(default_factory=list)
    # Absent fields filled from the configuration class's defaults (``_fill_class_defaults``), as shown.
    defaulted: list[str] = field(default_factory=list)
    # Values no model has ("num_hidden_layers = 100000000000 (expected 1 to 10000)"): the config is not
    # sized at all, rather than sized into an OverflowError or a MemoryError.
    invalid: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def is_hybrid(self) -> bool:
        return self.family in ("hybrid_gdn", "nemotron_h")

    @property
    def is_mla(self) -> bool:
        return self.family == "mla"

    @property
    def full_attention_layer_ids(self) -> list[int]:
        if not self.is_hybrid:
            return list(range(self.num_layers))
        return [i for i, t in enumerate(self.layer_types) if t == "full_attention"]

    @property
    def state_layer_ids(self) -> list[int]:
        return [i for i, t in enumerate(self.layer_types) if t in ("linear_attention", "mamba")]


def load_config(path: Path) -> dict[str, Any]:
    """The JSON object of ``path`` (a ``config.json`` or the directory holding it).

    Checked before it is opened: a FIFO would block the read forever, ``/dev/zero`` never ends, and a
    path component too long for the file system raises where a missing file would not."""
    target = path / "config.json" if localfs.is_dir(path) else path
    problem = localfs.path_problem(target)
    if problem is not None:
        raise ConfigError(f"{target}: {problem}")
    try:
        size = target.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise ConfigError(f"{target}: {size} bytes is too large for a config.json")
        text = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{target}: cannot read ({exc})") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{target}: not valid JSON (line {exc.lineno}: {exc.msg})") from exc
    except RecursionError:  # thousands of nested brackets: no checkpoint's config looks like that
        raise ConfigError(f"{target}: not valid JSON (nested too deeply)") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{target}: expected a JSON object, got {type(data).__name__}")
    return data


def _int(cfg: Mapping[str, Any], *keys: str, default: int | None = None) -> int | None:
    for key in keys:
        value = cfg.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
    return default


def _dtype_bytes(name: object) -> int:
    if isinstance(name, str):
        return _DTYPE_BYTES.get(name.lower().removeprefix("torch."), 2)
    return 2


def served_dtype_bytes(spec: ModelSpec, settings: Mapping[str, Any]) -> int:
    """Bytes per element of the weights the server builds: ``--dtype`` when the launch names one, else the
    config's dtype with float32 cast down to 16 bits. Both frameworks do so under ``--dtype auto``: SGLang
    0.5.23 ``srt/configs/model_config.py:881`` (the text config's dtype) and ``:2303-2319`` (float32 ->
    bfloat16 for Gemma, float16 otherwise; an explicit dtype wins at ``:2322-2325``; 0.5.10.post1 ``:216``,
    ``:1223-1240``, ``:1245``); vLLM 0.33.0 ``config/model.py:2440-2442`` (float32 -> the platform's
    preferred 16-bit dtype) and ``:2496-2499`` (an explicit dtype). A
    config whose text part says float32 (Gemma 3's) is thus served at 16 bits, never 32."""
    given = settings.get("dtype")
    if isinstance(given, Mapping):  # a resolved vLLM value: {"repr": "torch.float32"}
        given = given.get("repr")
    if isinstance(given, str) and given.lower() != "auto":
        named = _DTYPE_BYTES.get(given.lower().removeprefix("torch."))
        if named is not None:
            return named
    return 2 if spec.dtype_bytes == 4 else spec.dtype_bytes


def _quantization(raw: Mapping[str, Any]) -> Quantization:
    qc = raw.get("quantization_config")
    if not isinstance(qc, Mapping):
        return Quantization("none", 16, None)
    method = str(qc.get("quant_method") or qc.get("quant_algo") or "unknown").lower()
    excluded = tuple(
        str(x)
        for x in (qc.get("ignored_layers") or qc.get("modules_to_not_convert") or qc.get("ignore") or [])
    )
    if method == "fp8":
        block = qc.get("weight_block_size")
        blk = None
        if isinstance(block, list) and len(block) == 2:
            try:
                blk = (int(block[0]), int(block[1]))
            except (TypeError, ValueError, OverflowError):  # "128", null, 1e400: no block size
                blk = None
        return Quantization("fp8", 8, None, blk, excluded)
    if method in ("awq", "gptq", "awq_marlin", "gptq_marlin"):
        bits = _int(qc, "bits", "w_bit", default=4) or 4
        group = _int(qc, "group_size", "q_group_size", default=128)
        return Quantization(
            method.split("_")[0], bits, group if group and group > 0 else None, None, excluded
        )
    if method in ("modelopt", "modelopt_fp4", "nvfp4") or "fp4" in str(qc.get("quant_algo", "")).lower():
        algo = str(qc.get("quant_algo", "")).lower()
        if "fp8" in algo and "fp4" not in algo:
            return Quantization("fp8", 8, None, None, excluded)
        return Quantization("nvfp4", 4, 16, None, excluded)
    if method == "mxfp4":
        return Quantization("mxfp4", 4, 32, None, excluded)
    if method == "compressed-tensors":
        groups = qc.get("config_groups")
        bits = 8
        ct_group: int | None = None
        if isinstance(groups, Mapping):
            for g in groups.values():
                w = g.get("weights") if isinstance(g, Mapping) else None
                if isinstance(w, Mapping):
                    bits = _int(w, "num_bits", default=8) or 8
                    ct_group = _int(w, "group_size")
                    break
        return Quantization("compressed-tensors", bits, ct_group, None, excluded)
    if method == "bitsandbytes":
        return Quantization("bitsandbytes", 4 if qc.get("load_in_4bit") else 8, 64, None, excluded)
    if method in ("auto-round", "auto_round", "inc"):
        return _auto_round(qc, method, excluded)
    return Quantization(method, 16, None, None, excluded, assumed=True)


def _auto_round(qc: Mapping[str, Any], method: str, excluded: tuple[str, ...]) -> Quantization:
    """Intel AutoRound checkpoints (``quant_method: auto-round``). vLLM 0.33.0 reads them as ``inc``
    (``quantization/inc/inc.py:364`` overrides the method; ``INCConfig.from_config`` :274 reads ``bits``,
    ``group_size``, ``sym``, ``data_type`` and ``packing_format``); SGLang 0.5.10.post1 registers
    ``"auto-round": AutoRoundConfig`` (``srt/layers/quantization/__init__.py:77``). Integer weights are
    packed as GPTQ or AWQ (``packing_format`` ``auto_round:auto_gptq``, the default, or ``auto_round:
    auto_awq``): per group an fp16 scale and a packed zero point, counted as GPTQ. The fp8 block format
    (``data_type`` fp8, 8 bits, a [128, 128] ``group_size``) is fp8 with blocks; another data type (MXFP) is
    not counted."""
    data_type = str(qc.get("data_type") or "int").lower()
    bits = _int(qc, "bits", default=4) or 4
    group = qc.get("group_size")
    if data_type in ("fp", "fp8") and bits == 8:
        blk = None
        if isinstance(group, list) and len(group) == 2 and all(isinstance(x, int) for x in group):
            blk = (int(group[0]), int(group[1]))
        return Quantization("fp8", 8, None, blk, excluded)
    if data_type != "int":
        return Quantization(method, 16, None, None, excluded, assumed=True)
    size = _int(qc, "group_size", default=128)
    return Quantization("gptq", bits, size if size and size > 0 else None, None, excluded)


# config.json fields argtrace reads under another name too: a class default fills a field only when none of
# its spellings is there.
_SPELLINGS: dict[str, tuple[str, ...]] = {
    "hidden_size": ("hidden_size", "d_model", "n_embd"),
    "num_attention_heads": ("num_attention_heads", "n_head"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads"),
    "intermediate_size": ("intermediate_size", "ffn_dim"),
    "max_position_embeddings": ("max_position_embeddings", "max_sequence_length", "seq_length"),
}


@functools.cache
def class_defaults() -> tuple[str, dict[str, dict[str, Any]]]:
    """``data/config_defaults.json`` (scripts/gen_config_defaults.py): the defaults transformers'
    configuration classes give absent fields, per model_type, and the release they were read from."""
    path = Path(__file__).resolve().parents[2] / "data" / "config_defaults.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "", {}
    defaults = data.get("defaults") if isinstance(data, dict) else None
    return str(data.get("source", "")), defaults if isinstance(defaults, dict) else {}


def _fill_class_defaults(raw: Mapping[str, Any], cfg: dict[str, Any], spec: ModelSpec) -> None:
    """A checkpoint's config.json leaves out what equals its configuration class's default
    (``PreTrainedConfig.to_diff_dict``), and transformers, vLLM and SGLang fill it back from the class when
    they load the file: Gemma 3's ``text_config`` has no ``vocab_size`` (262208) nor ``tie_word_embeddings``
    (True). Fill the same values, the text config's class first, and record each in ``spec.defaulted``."""
    source, defaults = class_defaults()
    text = raw.get("text_config")
    types = [text.get("model_type") if isinstance(text, Mapping) else None, raw.get("model_type")]
    for model_type in types:
        values = defaults.get(str(model_type)) if model_type else None
        if not isinstance(values, dict):
            continue
        for name, value in values.items():
            if any(key in cfg for key in _SPELLINGS.get(name, (name,))):
                continue
            cfg[name] = value
            spec.defaulted.append(f"{name} {json.dumps(value)} ({model_type}'s default, {source})")
    if spec.defaulted:
        spec.notes.append(
            "config.json leaves out what its configuration class fills in when the framework loads it: "
            + "; ".join(spec.defaulted)
        )


def _llama4_layout(cfg: Mapping[str, Any], spec: ModelSpec) -> None:
    """Llama 4 as vLLM 0.33.0 builds it (``model_executor/models/llama4.py``): every MoE layer's routed
    experts and its one shared expert (``Llama4MoE``, :100-113, ``n_shared_experts = 1``) take
    ``intermediate_size``; a layer is MoE when ``(layer_idx + 1) % interleave_moe_layer_step == 0``
    (:340-343), the other layers are a dense MLP of ``intermediate_size_mlp`` (:352). Until 2026-12-03 the
    architecture was unknown: sized without the shared expert (MM003)."""
    moe_inter = _int(cfg, "intermediate_size", default=0) or 0
    spec.moe_intermediate_size = moe_inter
    spec.shared_expert_intermediate_size = moe_inter
    spec.moe_layer_freq = _int(cfg, "interleave_moe_layer_step", default=1) or 1
    spec.intermediate_size = _int(cfg, "intermediate_size_mlp", default=moe_inter) or moe_inter


def _text_architecture(text: object) -> str | None:
    """The architecture a multimodal checkpoint's text config names (``"architectures": [...]``)."""
    archs = text.get("architectures") if isinstance(text, Mapping) else None
    return str(archs[0]) if isinstance(archs, list) and archs else None


def read_model_spec(raw: Mapping[str, Any]) -> ModelSpec:
    """Flatten ``raw`` (``text_config`` merged over the top level) into a ``ModelSpec``."""
    if "text_config" not in raw and isinstance(raw.get("llm_config"), Mapping):
        # InternVL-style checkpoints keep the language model under llm_config, which vLLM reads as
        # text_config (0.33.0 transformers_utils/config.py:195-197 _CONFIG_ATTRS_MAPPING); InternVLChatModel
        # builds its language model from it (model_executor/models/internvl.py:617-621)
        raw = {**raw, "text_config": raw["llm_config"]}
    text = raw.get("text_config")
    cfg: dict[str, Any] = dict(raw)
    if isinstance(text, Mapping):
        cfg.update(text)
    archs = raw.get("architectures")
    arch = str(archs[0]) if isinstance(archs, list) and archs else str(raw.get("model_type") or "unknown")
    family = KNOWN_ARCHITECTURES.get(arch)
    text_arch = _text_architecture(text)
    if family is None and text_arch in KNOWN_ARCHITECTURES:
        # a wrapper vLLM builds its language model from the text config's architecture (internvl.py:617-621,
        # init_vllm_registered_model with hf_config=config.text_config): sized as that one, the vision tower
        # counted apart (weights.vision_params)
        family = KNOWN_ARCHITECTURES[text_arch]
    known = family is not None
    if family is None:
        if cfg.get("kv_lora_rank"):
            family = "mla"
        elif cfg.get("layer_types") and any(t == "linear_attention" for t in cfg.get("layer_types") or []):
            family = "hybrid_gdn"
        elif cfg.get("hybrid_override_pattern") or cfg.get("layers_block_type"):
            family = "nemotron_h"
        elif cfg.get("num_experts") or cfg.get("n_routed_experts") or cfg.get("num_local_experts"):
            family = "moe"
        else:
            family = "dense"
    dtype = cfg.get("torch_dtype") or cfg.get("dtype") or raw.get("torch_dtype") or "bfloat16"
    spec = ModelSpec(
        architecture=arch, family=family, known_architecture=known, dtype_bytes=_dtype_bytes(dtype)
    )
    spec.quantization = _quantization(raw if "quantization_config" in raw else cfg)
    _fill_class_defaults(raw, cfg, spec)

    def need(name: str, *keys: str, default: int | None = None) -> int:
        value = _int(cfg, *keys, default=default)
        if value is None:
            spec.missing.append(name)
            return 0
        high = _LIMITS.get(name, MAX_DIMENSION)
        if not 1 <= value <= high:  # checked before anything is sized or a per-layer list is built
            spec.invalid.append(f"{name} = {_shown(value)} (expected 1 to {high})")
            return 0
        return value

    spec.hidden_size = need("hidden_size", "hidden_size", "d_model", "n_embd")
    spec.vocab_size = need("vocab_size", "vocab_size")
    spec.num_attention_heads = need("num_attention_heads", "num_attention_heads", "n_head")
    spec.num_kv_heads = (
        _int(cfg, "num_key_value_heads", "num_kv_heads", default=spec.num_attention_heads) or 0
    )
    default_hd = spec.hidden_size // spec.num_attention_heads if spec.num_attention_heads else None
    spec.head_dim = _int(cfg, "head_dim", default=default_hd) or 0
    spec.v_head_dim = _int(cfg, "v_head_dim", default=spec.head_dim) or 0
    spec.intermediate_size = _int(cfg, "intermediate_size", "ffn_dim", default=0) or 0
    spec.tie_word_embeddings = bool(cfg.get("tie_word_embeddings", False))
    spec.context_length = (
        _int(cfg, "max_position_embeddings", "max_sequence_length", "seq_length", default=0) or 0
    )
    spec.attn_output_gate = bool(cfg.get("attn_output_gate", False))
    spec.mtp_layers = _int(cfg, "num_nextn_predict_layers", "mtp_num_hidden_layers", default=0) or 0
    vision = raw.get("vision_config")
    spec.vision = vision if isinstance(vision, Mapping) else None

    if family == "nemotron_h":
        pattern = cfg.get("hybrid_override_pattern")
        blocks = cfg.get("layers_block_type")
        kinds = {"M": "mamba", "*": "full_attention", "-": "mlp", "E": "moe"}
        words = {"mamba": "mamba", "attention": "full_attention", "mlp": "mlp", "moe": "moe"}
        if isinstance(blocks, list) and blocks:
            spec.layer_types = [words.get(str(b), str(b)) for b in blocks]
        elif isinstance(pattern, str) and pattern:
            spec.layer_types = [kinds.get(c, c) for c in pattern]
        else:
            spec.missing.append("hybrid_override_pattern")
        spec.num_layers = len(spec.layer_types)
        spec.mamba_num_heads = need("mamba_num_heads", "mamba_num_heads")
        spec.mamba_head_dim = need("mamba_head_dim", "mamba_head_dim")
        spec.mamba_n_groups = need("n_groups", "n_groups", "mamba_n_groups")
        spec.ssm_state_size = need("ssm_state_size", "ssm_state_size")
        spec.conv_kernel = need("conv_kernel", "conv_kernel", "mamba_d_conv")
        spec.num_experts = _int(cfg, "n_routed_experts", default=0) or 0
        spec.num_experts_per_tok = _int(cfg, "num_experts_per_tok", default=0) or 0
        spec.moe_intermediate_size = _int(cfg, "moe_intermediate_size", default=0) or 0
        shared = _int(cfg, "n_shared_experts", default=0) or 0
        spec.shared_expert_intermediate_size = shared * (
            _int(cfg, "moe_shared_expert_intermediate_size", default=0) or 0
        )
    else:
        spec.num_layers = need("num_hidden_layers", "num_hidden_layers", "n_layer", "num_layers")

    if family == "hybrid_gdn":
        types = cfg.get("layer_types")
        interval = _int(cfg, "full_attention_interval")
        # SGLang 0.5.10.post1 configs/qwen3_next.py layers_block_type: (i + 1) % full_attention_interval == 0
        # is full attention; HF's layer_types says the same for released checkpoints. Prefer the interval
        # (what SGLang reads) and note a disagreement.
        from_interval = (
            [
                "full_attention" if (i + 1) % interval == 0 else "linear_attention"
                for i in range(spec.num_layers)
            ]
            if interval
            else None
        )
        from_types = [str(t) for t in types] if isinstance(types, list) and types else None
        if from_interval is not None:
            spec.layer_types = from_interval
            if from_types is not None and from_types != from_interval:
                spec.notes.append(
                    "layer_types disagrees with full_attention_interval; SGLang 0.5.10.post1 follows "
                    "full_attention_interval (configs/qwen3_next.py layers_block_type)"
                )
        elif from_types is not None:
            spec.layer_types = from_types
        else:
            spec.missing.append("layer_types or full_attention_interval")
        spec.linear_num_key_heads = need("linear_num_key_heads", "linear_num_key_heads")
        spec.linear_key_head_dim = need("linear_key_head_dim", "linear_key_head_dim")
        spec.linear_num_value_heads = need("linear_num_value_heads", "linear_num_value_heads")
        spec.linear_value_head_dim = need("linear_value_head_dim", "linear_value_head_dim")
        spec.conv_kernel = need("linear_conv_kernel_dim", "linear_conv_kernel_dim")
        spec.num_experts = _int(cfg, "num_experts", default=0) or 0
        spec.num_experts_per_tok = _int(cfg, "num_experts_per_tok", default=0) or 0
        spec.moe_intermediate_size = _int(cfg, "moe_intermediate_size", default=0) or 0
        spec.shared_expert_intermediate_size = _int(cfg, "shared_expert_intermediate_size", default=0) or 0
    elif family in ("dense", "moe", "mla"):
        spec.layer_types = ["full_attention"] * spec.num_layers
        types = cfg.get("layer_types")
        window = _int(cfg, "sliding_window", default=0) or 0
        if isinstance(types, list) and len(types) == spec.num_layers and window > 0:
            spec.sliding_layer_ids = tuple(i for i, t in enumerate(types) if t == "sliding_attention")
            spec.sliding_window = window if spec.sliding_layer_ids else 0

    if family == "mla":
        spec.kv_lora_rank = need("kv_lora_rank", "kv_lora_rank")
        spec.qk_rope_head_dim = need("qk_rope_head_dim", "qk_rope_head_dim")
        spec.qk_nope_head_dim = need("qk_nope_head_dim", "qk_nope_head_dim")
        spec.q_lora_rank = _int(cfg, "q_lora_rank", default=0) or 0
        spec.v_head_dim = need("v_head_dim", "v_head_dim")
        spec.num_experts = _int(cfg, "n_routed_experts", default=0) or 0
        spec.num_experts_per_tok = _int(cfg, "num_experts_per_tok", default=0) or 0
        spec.moe_intermediate_size = _int(cfg, "moe_intermediate_size", default=0) or 0
        shared = _int(cfg, "n_shared_experts", default=0) or 0
        spec.shared_expert_intermediate_size = shared * spec.moe_intermediate_size
        spec.first_k_dense = _int(cfg, "first_k_dense_replace", default=0) or 0
        spec.moe_layer_freq = _int(cfg, "moe_layer_freq", default=1) or 1
    elif family == "moe":
        spec.num_experts = _int(cfg, "num_experts", "num_local_experts", "n_routed_experts", default=0) or 0
        spec.num_experts_per_tok = _int(cfg, "num_experts_per_tok", default=0) or 0
        spec.moe_intermediate_size = (
            _int(cfg, "moe_intermediate_size", default=spec.intermediate_size) or spec.intermediate_size
        )
        spec.shared_expert_intermediate_size = _int(cfg, "shared_expert_intermediate_size", default=0) or 0
        spec.moe_layer_freq = _int(cfg, "decoder_sparse_step", default=1) or 1
        if arch.startswith("Llama4"):
            _llama4_layout(cfg, spec)

    ssm = cfg.get("mamba_ssm_dtype")
    spec.mamba_ssm_dtype = str(ssm) if isinstance(ssm, str) else None
    if family in ("dense", "moe") and not spec.intermediate_size and not spec.moe_intermediate_size:
        spec.missing.append("intermediate_size")
    _check_ranges(spec)
    return spec


# Bounds far above any released checkpoint (the largest have about 130 layers, a 262k vocabulary, a hidden
# size of 16k, 10M tokens of context, 512 experts), so only a broken or hostile config.json is refused.
MAX_DIMENSION = 1 << 24
_LIMITS = {
    "num_hidden_layers": 10_000,
    "num_layers": 10_000,
    "mtp_layers": 10_000,
    "first_k_dense": 10_000,
    "context_length": 1 << 34,
    "dtype_bytes": 8,
}


def _shown(value: int) -> str:
    """A number for a message: ``1e+300`` rather than its 301 digits."""
    return str(value) if abs(value) < 10**15 else f"{float(value):.3g}"


def _check_ranges(spec: ModelSpec) -> None:
    """Every size read with a default (``_int(...) or 0``) must be 0 or a plausible positive number."""
    import dataclasses

    for f in dataclasses.fields(spec):
        value = getattr(spec, f.name)
        if isinstance(value, bool) or not isinstance(value, int):
            continue
        high = _LIMITS.get(f.name, MAX_DIMENSION)
        if not 0 <= value <= high:
            spec.invalid.append(f"{f.name} = {_shown(value)} (expected 0 to {high})")
    q = spec.quantization
    if not 0 < q.bits <= 32:
        spec.invalid.append(f"quantization_config bits = {q.bits:g} (expected 1 to 32)")
    if q.group_size is not None and not 0 < q.group_size <= MAX_DIMENSION:
        spec.invalid.append(
            f"quantization_config group_size = {_shown(q.group_size)} (expected 1 to {MAX_DIMENSION})"
        )
    if q.block is not None and not all(0 < b <= MAX_DIMENSION for b in q.block):
        spec.invalid.append(f"quantization_config weight_block_size = {list(q.block)}")
