"""The model's ``config.json`` against the launch, where no resolver ran the framework's own model-config
code: RS024 (attention heads that the tensor-parallel size does not divide; vLLM's start-up check, SGLang's
attention asserts) and RS025 (a maximum model length beyond the model's, vLLM only).

Truth over prediction. With a resolver environment the framework's ``create_engine_config`` reads the
config.json itself (``resolver/startup_steps.py``) and its own refusal is the finding (RS001); these rules
then say nothing. Without one, a rule applies one ``raise`` of the framework's model-config code: the site
must be in the bundled raise-site index of the release (``frameworks/data/raise_sites``, generated from the
wheel by ``scripts/gen_schemas.py``) or, when the release is not known, in every bundled release's; the
finding quotes that site's own message template with the numbers filled in, names its ``file:line`` and says
what it rests on (the config.json read, the release). Where config.json leaves the framework's derived value
open (a RoPE scaling factor, another length key, a sub-config other than ``text_config``), nothing is said:
argtrace does not guess what the framework would derive.

SGLang's context length is not covered statically: its refusal is in ``srt/configs/model_config.py`` (not in
the raise-site index), and whether it refuses or only warns changed across releases
(``SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN`` defaulted to true in 0.4.8-0.4.10); the resolver's
``model_config`` step runs SGLang's own ``ModelConfig`` instead. Its head checks are in the model files,
which no resolver step runs (they build the model on the GPU): RS024 for SGLang applies the attention
class's own asserts, read per release and architecture from the wheels by scripts/gen_sglang_head_asserts.py
(frameworks/data/sglang_head_asserts.json), to config.json's heads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

from argtrace import localfs
from argtrace.model import Evidence, Finding, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# (function of the raise, a literal piece of its message): how each rule finds its site in a release's index
HEADS_SITE = ("ModelConfig.verify_with_parallel_config", "must be divisible by tensor parallel size")
MAX_LEN_SITE = ("_get_and_verify_max_len", "is greater than the derived max_model_len")
# Every key vLLM's derivation of the model's length reads in some bundled release (possible_keys in
# vllm/config.py 0.6.6.post1-0.9.2, vllm/config/model.py and model_arch_config since): RS025 applies only when
# max_position_embeddings is the one present, so the derived length is that value in every release.
LENGTH_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
# RoPE types whose factor no bundled vLLM release applies to the length (0.6.6.post1 vllm/config.py
# _get_and_verify_max_len: ("su", "longrope", "llama3"); 0.33.0 vllm/config/model.py:2613 adds the YaRN types,
# which older releases scale from original_max_position_embeddings): with any other type and a factor other
# than 1, or YaRN, the derived length is not max_position_embeddings in every release: nothing is said.
UNSCALED_ROPE = ("su", "longrope", "llama3")


def model_rules(report: Report, model_dir: Path | None, rules: Any) -> list[Finding]:
    """RS024/RS025 for a vLLM launch whose config.json is readable and whose model config vLLM's own code
    did not check (no resolver, or it stopped before ``create_engine_config``); RS024 for an SGLang one."""
    if model_dir is not None and report.framework.name == "sglang":
        return _sglang_heads(report, model_dir, rules)
    if report.framework.name != "vllm" or model_dir is None or _framework_checked(report):
        return []
    from argtrace.layers.memory.config import ConfigError, load_config

    path = model_dir if localfs.is_file(model_dir) else model_dir / "config.json"
    try:
        raw = load_config(path)
    except ConfigError:
        return []  # the memory layer reports an unreadable config (MM002)
    text = _text_config(raw)
    if text is None:
        return []
    out: list[Finding] = []
    out.extend(_heads(report, path, text, rules))
    out.extend(_max_len(report, path, raw, text, rules))
    return out


def _framework_checked(report: Report) -> bool:
    """True when the resolver ran vLLM's ``create_engine_config`` on this config.json (its verdict stands)."""
    steps = (report.sections.get("resolution") or {}).get("steps") or []
    return any(
        isinstance(s, Mapping)
        and s.get("name") == "create_engine_config"
        and s.get("status") in ("ran", "raised")
        for s in steps
    )


def _text_config(raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """What vLLM reads as ``hf_text_config``: ``text_config`` when the checkpoint has one, else the top level;
    None when another sub-config holds attention heads (InternVL's ``llm_config``, ...): which one a release
    takes is then not certain."""
    text = raw.get("text_config")
    if isinstance(text, Mapping):
        return text
    if any(isinstance(v, Mapping) and "num_attention_heads" in v for v in raw.values()):
        return None
    return raw


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _effective(report: Report, name: str) -> Any:
    setting = report.setting(name)
    return setting.effective if setting is not None else None


def _site(version: str, wanted: tuple[str, str]) -> Mapping[str, Any] | None:
    from argtrace.resolver.raise_index import load_index

    index = load_index("vllm", version)
    for site in (index or {}).get("sites") or []:
        if site.get("function") == wanted[0] and wanted[1] in str(site.get("message") or ""):
            return dict(site)
    return None


def _release_site(report: Report, wanted: tuple[str, str]) -> tuple[Mapping[str, Any], str] | None:
    """The raise site and the words for the release it rests on: the launch's release when its index is
    bundled and has the site; when the release is unknown or not bundled, the newest release's site if every
    bundled release has it (whichever runs raises there); else None."""
    from argtrace.frameworks.schema import version_key
    from argtrace.resolver.raise_index import bundled, load_index

    version = report.framework.version
    if version and report.framework.source not in (None, "none") and load_index("vllm", version) is not None:
        site = _site(version, wanted)
        return (site, f"vllm {version}") if site is not None else None
    releases = sorted((v for fw, v in bundled() if fw == "vllm"), key=version_key)
    if not releases or any(_site(v, wanted) is None for v in releases):
        return None
    site = _site(releases[-1], wanted)
    if site is None:
        return None
    return site, f"every bundled vllm release ({releases[0]} .. {releases[-1]}, so whichever runs)"


def _render(template: str, values: Mapping[str, Any]) -> str:
    """The site's message template with the placeholders argtrace knows filled in."""
    return re.sub(r"\{([^{}]*)\}", lambda m: str(values.get(m.group(1), m.group(0))), template)


def _heads(report: Report, path: Path, text: Mapping[str, Any], rules: Any) -> list[Finding]:
    """RS024: ``ModelConfig.verify_with_parallel_config`` raises when the total attention heads (the text
    config's ``num_attention_heads``) are not a multiple of ``tensor_parallel_size``."""
    tp = _int(_effective(report, "tensor_parallel_size"))
    heads = _int(text.get("num_attention_heads"))
    if tp is None or heads is None or tp <= 1 or heads <= 0 or heads % tp == 0:
        return []
    found = _release_site(report, HEADS_SITE)
    if found is None:
        return []
    site, release = found
    message = _render(
        str(site.get("message") or ""), {"total_num_attention_heads": heads, "tensor_parallel_size": tp}
    )
    fits = [d for d in range(2, min(heads, 64) + 1) if heads % d == 0]
    fix = (
        f"use a --tensor-parallel-size that divides {heads} ({', '.join(map(str, fits[:6]))}), and "
        "--pipeline-parallel-size for the other GPUs"
        if fits
        else f"{heads} attention heads cannot be split: use --pipeline-parallel-size instead"
    )
    return [
        rules.RS024.finding(
            f"tensor_parallel_size {tp} does not divide the model's {heads} attention heads "
            f"({path}: num_attention_heads): {release} refuses the launch in {site.get('function')} "
            f'({site.get("file")}:{site.get("line")}): "{message}"',
            setting="tensor_parallel_size",
            fix=fix,
            evidence=[Evidence("resolution", str(path), json.dumps({"num_attention_heads": heads}))],
        )
    ]


def _rope_factor(text: Mapping[str, Any]) -> bool:
    """True when a RoPE setting may scale the derived length (a factor of a type vLLM applies, or a shape
    argtrace does not read)."""
    for key in ("rope_scaling", "rope_parameters"):
        rope = text.get(key)
        if rope is None:
            continue
        if not isinstance(rope, Mapping):
            return True
        kind = rope.get("rope_type", rope.get("type", "default"))
        if "yarn" in str(kind) or (kind not in UNSCALED_ROPE and rope.get("factor") not in (None, 1, 1.0)):
            return True
        if any(isinstance(v, Mapping) for v in rope.values()):  # per layer type: not read
            return True
    return False


def _max_len(
    report: Report, path: Path, raw: Mapping[str, Any], text: Mapping[str, Any], rules: Any
) -> list[Finding]:
    """RS025: ``_get_and_verify_max_len`` raises when ``--max-model-len`` exceeds the length vLLM derives
    from config.json and ``VLLM_ALLOW_LONG_MAX_MODEL_LEN`` is not set (with it: a warning). Applied only where
    that length is ``max_position_embeddings`` in every release: no other length key, no
    ``model_max_length`` (it may allow more), no RoPE factor, not Gemma 3 (vLLM skips its factor), no
    sentence-transformers ``max_seq_length`` beside it (it replaces the length)."""
    wanted = _int(_effective(report, "max_model_len"))
    positions = _int(text.get("max_position_embeddings"))
    if wanted is None or positions is None or wanted <= positions or positions <= 0:
        return []
    if any(key in text for key in LENGTH_KEYS[1:]) or _rope_factor(text):
        return []
    if "gemma3" in str(raw.get("model_type") or "") or "gemma3" in str(text.get("model_type") or ""):
        return []
    if localfs.is_file(path.parent / "sentence_bert_config.json"):
        return []
    env = dict(report.process.env) if report.process is not None else {}
    if (env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN") or "").strip().lower() in ("1", "true"):
        return []
    found = _release_site(report, MAX_LEN_SITE)
    if found is None:
        return []
    site, release = found
    message = _render(
        str(site.get("message") or ""),
        {
            "max_model_len": wanted,
            "max_len_key": "max_position_embeddings",
            "derived_max_model_len": positions,
            "model_max_length": None,
        },
    )
    first = message.split(". ")[0].rstrip(".") + "."
    return [
        rules.RS025.finding(
            f"max_model_len {wanted} exceeds the model's max_position_embeddings {positions} ({path}): "
            f"{release} refuses the launch in {site.get('function')} "
            f'({site.get("file")}:{site.get("line")}): "{first}"',
            setting="max_model_len",
            fix=f"--max-model-len {positions} or less (VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets vLLM exceed it: "
            "outputs beyond the trained length are unreliable)",
            evidence=[Evidence("resolution", str(path), json.dumps({"max_position_embeddings": positions}))],
        )
    ]


_SGLANG_HEADS = "frameworks/data/sglang_head_asserts.json"  # written by scripts/gen_sglang_head_asserts.py


def _sglang_heads(report: Report, model_dir: Path, rules: Any) -> list[Finding]:
    """RS024 for SGLang: the attention class of the architecture's model file asserts, while the scheduler
    builds the model, that the TP size divides ``num_attention_heads`` and then that it splits
    ``num_key_value_heads`` evenly or replicates them (a multiple of them). Judged on the release's table
    only, with the class config.json names (no ``--model-impl`` or override that may change it or the
    heads), and, for an attention TP size, without DP attention or attention context parallelism (which
    divide it)."""
    release = report.parsed_release("sglang")
    tp = _int(_effective(report, "tp_size"))
    if release is None or tp is None or tp <= 1:
        return []
    from argtrace.package_data import release_facts

    table = release_facts(_SGLANG_HEADS, release)
    if not table:
        return []
    if _effective(report, "model_impl") not in (None, "auto", "sglang") or _effective(
        report, "json_model_override_args"
    ):
        return []
    from argtrace.layers.memory.config import ConfigError, load_config

    path = model_dir if localfs.is_file(model_dir) else model_dir / "config.json"
    try:
        raw = load_config(path)
    except ConfigError:
        return []  # the memory layer reports an unreadable config (MM002)
    text = _text_config(raw)
    architectures = raw.get("architectures")
    if text is None or not isinstance(architectures, list) or not architectures:
        return []
    module = table["architectures"].get(architectures[0])
    if module is None:
        return []
    cls, line, statement, size, kv_lines = table["sites"][module]
    if size == "attention" and (
        _effective(report, "enable_dp_attention") or (_int(_effective(report, "attn_cp_size")) or 1) > 1
    ):
        return []
    heads = _int(text.get("num_attention_heads"))
    kv = _int(text.get("num_key_value_heads"))
    if heads is None or heads <= 0:
        return []
    where = f"sglang {release}'s {cls} asserts it while the scheduler builds the model"
    if heads % tp:
        said = (
            f"tp_size {tp} does not divide the model's {heads} attention heads ({path}: num_attention_heads)"
        )
        site, values = f"{module}:{line}: {statement}", {"num_attention_heads": heads}
        fits = [d for d in range(2, min(heads, 64) + 1) if heads % d == 0]
    elif kv_lines and kv is not None and kv > 0 and (kv % tp if kv >= tp else tp % kv):
        if kv >= tp:
            said = f"tp_size {tp} does not divide the model's {kv} KV heads"
            site = f"{module}:{kv_lines[0]}: assert self.total_num_kv_heads % tp_size == 0"
        else:
            said = f"tp_size {tp} is not a multiple of the model's {kv} KV heads (each rank takes a copy)"
            site = f"{module}:{kv_lines[1]}: assert tp_size % self.total_num_kv_heads == 0"
        said += f" ({path}: num_key_value_heads)"
        values = {"num_key_value_heads": kv}
        fits = [
            d for d in range(2, min(heads, 64) + 1) if heads % d == 0 and (kv % d if kv >= d else d % kv) == 0
        ]
    else:
        return []
    fix = (
        f"use a --tp-size that fits ({', '.join(map(str, fits[:6]))}), and --pp-size for the other GPUs"
        if fits
        else "the heads cannot be split: use --pp-size instead of --tp-size"
    )
    return [
        rules.RS024.finding(
            f"{said}: {where} ({site}), and the launch stops with an AssertionError",
            setting="tp_size",
            fix=fix,
            evidence=[Evidence("resolution", str(path), json.dumps(values))],
            basis="framework-code",  # the release's own model code: on an assumed release, a warning
        )
    ]
