"""A hybrid model served in another dtype than SGLang's Mamba conv state (RS073).

SGLang allocates the conv state of a hybrid model's Mamba or linear-attention layers in
``SGLANG_MAMBA_CONV_DTYPE``, bfloat16 when the variable is unset or names no dtype it maps, whatever the
serving dtype (``mamba2_state_dtype``: ``dtype_map.get(envs.SGLANG_MAMBA_CONV_DTYPE.get(), torch.bfloat16)``,
srt/configs/mamba_utils.py:68 in each wheel read: 0.5.9, 0.5.10.post1, 0.5.13.post1, 0.5.16, 0.5.20,
0.5.23; the variable is read from 0.5.9 on, per the release index). The layers then write the model's
activations into that buffer unconverted: the gated
delta-net backend's state tracking (``conv_states[...] = mixed_qkv_to_track``, srt/layers/attention/linear/
gdn_backend.py:406 in 0.5.10.post1, :1066 in 0.5.23) and the conv update kernel, so a server in float16 (or
float32) with the bfloat16 default stops at its first prefill: "Index put requires the source and
destination dtypes match, got BFloat16 for the destination and Half for the source" (sglang#31719,
Qwen3.6-27B) or "Expected conv_states_.scalar_type() == input_type" (sglang PR#20217, Qwen3.5-0.8B). The
reverse holds too: ``SGLANG_MAMBA_CONV_DTYPE=float32`` under bfloat16 fails alike. The report's workaround,
``SGLANG_MAMBA_CONV_DTYPE=float16`` beside ``--dtype float16``, serves.

The serving dtype is ``--dtype`` (``half``/``float16``, ``float``/``float32``, ``bfloat16``), or with
``auto`` config.json's ``torch_dtype``/``dtype`` when it is float16 or bfloat16. The model is hybrid when
config.json says so (Mamba or linear-attention layers), or assumed hybrid when the launch writes a setting
only such models read (the Mamba strategies and sizes, the linear-attention backends); else nothing is said.
"""

from __future__ import annotations

from pathlib import Path

from argtrace.model import Evidence, LayerResult, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VARIABLE = "SGLANG_MAMBA_CONV_DTYPE"
_DTYPES = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
}
# settings only a hybrid model reads (SGLang's Mamba and linear-attention flags)
HYBRID_SETTINGS = (
    "max_mamba_cache_size",
    "mamba_ssm_dtype",
    "mamba_full_memory_ratio",
    "mamba_scheduler_strategy",
    "mamba_radix_cache_strategy",
    "mamba_track_interval",
    "mamba_backend",
    "linear_attn_backend",
    "linear_attn_decode_backend",
    "linear_attn_prefill_backend",
)
SOURCE = (
    "sglang/srt/configs/mamba_utils.py:68 mamba2_state_dtype (0.5.10.post1, 0.5.23); the write: "
    "srt/layers/attention/linear/gdn_backend.py:406 (0.5.10.post1), :1066 (0.5.23); "
    "srt/layers/attention/mamba/mamba.py:586 (0.5.23, MambaMixer2)"
)


def _config(model_dir: Path | None) -> tuple[bool, str | None] | None:
    """(hybrid, its dtype) from config.json, or None when it is not read."""
    if model_dir is None:
        return None
    from argtrace import localfs
    from argtrace.layers.memory.config import load_config, read_model_spec

    path = model_dir if localfs.is_file(model_dir) else model_dir / "config.json"
    try:
        raw = load_config(path)
        spec = read_model_spec(raw)
    except Exception:  # the memory layer reports a config it cannot read (MM002)
        return None
    nested = raw.get("text_config")
    text: dict[str, Any] = nested if isinstance(nested, dict) else {}
    dtype = text.get("torch_dtype") or text.get("dtype") or raw.get("torch_dtype") or raw.get("dtype")
    hybrid = bool(spec.is_hybrid or any(k in ("linear_attention", "mamba") for k in spec.layer_types))
    return hybrid, dtype if isinstance(dtype, str) else None


def mamba_dtype(report: Report, model_dir: Path | None) -> LayerResult:
    """RS073 for an SGLang launch serving a hybrid model in another dtype than its Mamba conv state."""
    result = LayerResult()
    release = report.parsed_release("sglang")
    if release is None:
        return result
    from argtrace.frameworks.release_index import release_index

    if release not in release_index("sglang").releases_knowing_env(VARIABLE):
        return result  # a release that does not read the variable: its conv state is not judged here
    config = _config(model_dir)
    flag = next((name for name in HYBRID_SETTINGS if report.written(name) is not None), None)
    if not (config is not None and config[0]) and flag is None:
        return result
    dtype_setting = report.setting("dtype")
    written = dtype_setting.effective if dtype_setting is not None else None
    serving = _DTYPES.get(str(written)) if isinstance(written, str) else None
    from_config = False
    if (
        serving is None
        and written in (None, "auto")
        and config is not None
        and config[1] in ("float16", "bfloat16")
    ):
        serving, from_config = config[1], True
    if serving is None:
        return result  # (Report.parsed_release)
    server = report.described_server()
    word = server.env.get(VARIABLE) if server is not None else None
    value = (word.value or "").strip() if word is not None else ""
    conv = value if value in ("float32", "bfloat16", "float16") else "bfloat16"
    if conv == serving:
        return result
    from argtrace.rules.start_values import RS073

    dtype_written = report.written("dtype")
    at = None if from_config or dtype_written is None else dtype_written.last_at
    if at is None and word is not None and value:
        at = word.origin.at
    at = at or (server.at if server is not None else None)
    how = f"config.json's {serving} (--dtype auto)" if from_config else f"--dtype {written}"
    conv_how = f"{VARIABLE}={value}" if value == conv else f"{VARIABLE} unset, so its default bfloat16"
    known = config is not None and config[0]
    hint = report.setting(flag) if flag else None
    said = (hint.flag if hint is not None and hint.flag else flag) or ""
    assumed = "" if known else f" (assumed: a hybrid model, as {said} says)"
    act = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float"}
    result.findings.append(
        RS073.finding(
            f"{how} serves the model's activations in {serving}, but SGLang keeps the Mamba/linear-attention "
            f"conv state in {conv} ({conv_how}; mamba2_state_dtype, srt/configs/mamba_utils.py:68) and "
            "writes "
            'the activations into it unconverted: the first prefill stops with "Index put requires the '
            f"source and destination dtypes match, got {act[conv]} for the destination and {act[serving]} "
            "for "
            f'the source" (srt/layers/attention/linear/gdn_backend.py for linear-attention layers, '
            f"MambaMixer2 in srt/layers/attention/mamba/mamba.py for Mamba2 layers){assumed}",
            at=at,
            evidence=[
                Evidence(
                    "parser", at, f"dtype={written}" + (f" -> {serving} (config.json)" if from_config else "")
                ),
                Evidence("resolution", SOURCE, f"conv state {conv}, activations {serving}"),
            ],
            setting="dtype",
            fix=f"set {VARIABLE}={serving} in the server's environment (with --mamba-ssm-dtype {serving} for "
            f"the SSM state too, as sglang#31719's workaround), or serve in {conv}",
            severity=None if known else "warning",
            basis="framework-code" if known else "assumed",
        )
    )
    return result
