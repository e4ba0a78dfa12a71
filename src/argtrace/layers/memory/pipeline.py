"""Pipeline parallelism: which decoder layers (and which embeddings) each PP stage holds.

Each stage of a ``--pp-size N`` launch holds only its own layers' weights and only their KV cache / Mamba
state, plus the input embedding on the first stage and the LM head on the last. The layer split is each
framework's own ``get_pp_indices``, and the two frameworks split an uneven count differently:

* SGLang (``sglang/srt/distributed/utils.py:99`` in 0.5.10.post1, ``:110`` in 0.5.23): the *last*
  ``remainder`` stages get one layer more; ``SGLANG_PP_LAYER_PARTITION=a,b,...`` overrides the split
  (0.5.23 ignores it for a PP group of one).
* vLLM (``vllm/distributed/utils.py:198`` in 0.33.0): the remainder goes to every stage but the last,
  starting from the one before it (``partitions[-i] += 1`` for i in 2..remainder+1);
  ``VLLM_PP_LAYER_PARTITION`` overrides it.

``partition`` runs the release's own function when its source is on this machine (the resolver environment
of that release, else its wheel in the resolver cache): the function is read from the file by AST and
called with the launch's environment, nothing else of the framework imported (its module imports torch).
Without it the rule above is applied and the partition says that it rests on the documented rule.
"""

from __future__ import annotations

import ast
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from argtrace.layers.memory.config import ModelSpec
from argtrace.layers.memory.weights import (
    ParamCount,
    WeightEstimate,
    _is_draft_tensor,
    _read_safetensors_headers,
    bytes_of,
    decoder_layer,
    vision_params,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Where each framework keeps get_pp_indices (relative to site-packages / inside the wheel).
SOURCE_FILE = {"sglang": "sglang/srt/distributed/utils.py", "vllm": "vllm/distributed/utils.py"}
OVERRIDE_VARIABLE = {"sglang": "SGLANG_PP_LAYER_PARTITION", "vllm": "VLLM_PP_LAYER_PARTITION"}
DOCUMENTED_RULE = {
    "sglang": "SGLang's get_pp_indices rule (sglang/srt/distributed/utils.py: the last `remainder` stages "
    "get one layer more)",
    "vllm": "vLLM's get_pp_indices rule (vllm/distributed/utils.py: the remainder goes to the stages before "
    "the last)",
}


@dataclass(frozen=True)
class Stage:
    """One pipeline-parallel stage: its rank and the decoder layers it holds."""

    rank: int
    start: int  # first decoder layer of the stage
    end: int  # one past its last layer
    first: bool
    last: bool

    @property
    def label(self) -> str:
        return f"stage {self.rank} (layers {self.start}-{self.end - 1})"


@dataclass(frozen=True)
class Partition:
    """How ``--pp-size`` splits the decoder layers into stages, what decided the split, and the framework's
    error for a bad override."""

    stages: tuple[Stage, ...]
    # "framework-code": the release's own get_pp_indices ran; "documented rule": argtrace's copy of the rule
    basis: str
    source: str
    override: str | None = None  # the *_PP_LAYER_PARTITION value that decided the split
    error: str | None = None  # the framework's own ValueError for a bad override (nothing else is sized)


class _Environ:
    """What ``get_pp_indices`` reads of ``os`` / vLLM's ``envs``: the launch's environment only."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self._env = dict(env)
        self.environ = self._env
        self.VLLM_PP_LAYER_PARTITION = self._env.get("VLLM_PP_LAYER_PARTITION")

    def getenv(self, name: str, default: str | None = None) -> str | None:
        return self._env.get(name, default)


class _QuietLogger:
    """vLLM's function logs an uneven split at INFO; argtrace reports the split itself."""

    def info(self, *args: object, **kwargs: object) -> None:
        return None

    debug = warning = info


def _source_text(framework: str, version: str | None) -> tuple[str, str] | None:
    """(source text, where it was read) of the release's ``distributed/utils.py``, or None."""
    if not version or framework not in SOURCE_FILE:
        return None
    from argtrace.resolver.environments import cache_dir, find_environment, site_packages

    relative = SOURCE_FILE[framework]
    env = find_environment(framework, version)
    if env is not None and getattr(env, "path", None):
        for site in sorted(Path(env.path).glob("lib/python3*/site-packages")) or [
            site_packages(Path(env.path))
        ]:
            file = site / relative
            if file.is_file():
                return file.read_text(encoding="utf-8"), "in its resolver environment"
    wheels = cache_dir() / "wheels"
    for wheel in sorted(wheels.glob(f"{framework}-{version}-*.whl")) if wheels.is_dir() else []:
        try:
            with zipfile.ZipFile(wheel) as archive:
                return archive.read(relative).decode("utf-8"), f"in {wheel.name}"
        except (OSError, KeyError, zipfile.BadZipFile):
            continue
    return None


def _framework_function(
    text: str, env: Mapping[str, str]
) -> tuple[Callable[[int, int, int], tuple[int, int]], int]:
    """The release's own ``get_pp_indices`` compiled alone, with ``os``/``envs`` answering from ``env``."""
    tree = ast.parse(text)
    node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_pp_indices")
    module = ast.Module(body=[node], type_ignores=[])
    import typing  # the function's own annotations name typing.Optional

    environ = _Environ(env)
    namespace: dict[str, object] = {
        "os": environ,
        "envs": environ,
        "logger": _QuietLogger(),
        "Tuple": tuple,
        "Optional": typing.Optional,
        "List": list,
    }
    exec(compile(module, "get_pp_indices", "exec"), namespace)
    function = namespace["get_pp_indices"]
    assert callable(function)
    return function, node.lineno


def documented_indices(
    framework: str, num_layers: int, rank: int, pp: int, override: str | None
) -> tuple[int, int]:
    """argtrace's copy of the rule (module docstring), for releases whose source is not on this machine."""
    if override is not None and not (framework == "sglang" and pp == 1):
        try:
            parts = [int(p) for p in override.split(",")]
        except ValueError as err:
            raise ValueError(f"Invalid partition string: {override}") from err
        if len(parts) != pp:
            raise ValueError(f"len(partitions)={len(parts)} does not match pp_size={pp}.")
        if sum(parts) != num_layers:
            raise ValueError(f"sum(partitions)={sum(parts)} does not match num_hidden_layers={num_layers}.")
    else:
        base, remainder = divmod(num_layers, pp)
        parts = [base] * pp
        if framework == "vllm":
            for i in range(2, remainder + 2):
                parts[-i] += 1
        else:
            for i in range(pp - remainder, pp):
                parts[i] += 1
    start = sum(parts[:rank])
    return start, start + parts[rank]


def partition(
    framework: str, version: str | None, num_layers: int, pp: int, env: Mapping[str, str] | None = None
) -> Partition:
    env = env or {}
    variable = OVERRIDE_VARIABLE.get(framework, "")
    override = env.get(variable)
    found = _source_text(framework, version)
    why_not = f"the source of {framework} {version or '(no release)'} is not on this machine"
    if found is not None:
        try:
            function, line = _framework_function(found[0], env)
            own = _split(function, num_layers, pp)
        except ValueError as exc:  # the framework's own refusal of an override: that is the answer
            return Partition(
                (), "framework-code", _own_source(framework, version, found[1]), override, str(exc)
            )
        except Exception as exc:
            why_not = (
                f"{framework} {version}'s own get_pp_indices cannot run alone ({type(exc).__name__}: {exc})"
            )
        else:
            source = f"{_own_source(framework, version, found[1], line)}"
            return Partition(own, "framework-code", source, override)
    source = f"{DOCUMENTED_RULE.get(framework, DOCUMENTED_RULE['sglang'])}; {why_not}"

    def documented(n: int, rank: int, size: int) -> tuple[int, int]:
        return documented_indices(framework, n, rank, size, override)

    try:
        return Partition(_split(documented, num_layers, pp), "documented rule", source, override)
    except ValueError as exc:
        return Partition((), "documented rule", source, override, str(exc))


def _own_source(framework: str, version: str | None, where: str, line: int | None = None) -> str:
    at = f"{SOURCE_FILE[framework]}:{line}" if line else SOURCE_FILE[framework]
    return f"{framework} {version}'s own get_pp_indices ({at}, {where})"


def _split(
    indices: Callable[[int, int, int], tuple[int, int]], num_layers: int, pp: int
) -> tuple[Stage, ...]:
    stages = []
    for rank in range(pp):
        start, end = indices(num_layers, rank, pp)
        stages.append(Stage(rank, int(start), int(end), rank == 0, rank == pp - 1))
    return tuple(stages)


def stage_spec(spec: ModelSpec, stage: Stage) -> ModelSpec:
    """The model as one stage sees it for its caches: only its own layers' kinds (KV and Mamba layers are
    counted from ``layer_types``)."""
    return replace(
        spec, layer_types=list(spec.layer_types[stage.start : stage.end]), num_layers=stage.end - stage.start
    )


def _sglang_lm_head_on_every_stage(spec: ModelSpec) -> bool:
    """SGLang's ``LlamaForCausalLM`` builds an untied ``ParallelLMHead`` on every PP rank (llama.py:476-484
    in 0.5.10.post1, :570-580 in 0.5.23; not gated by ``is_last_rank``); its other model files (qwen2.py:447,
    qwen3.py:475, deepseek_v2.py:2146, nemotron_h.py:686) build it on the last rank only."""
    return spec.architecture == "LlamaForCausalLM" and not spec.tie_word_embeddings


def stage_extras(framework: str, spec: ModelSpec, stage: Stage, pp: int) -> tuple[bool, bool]:
    """(holds the input embedding, holds an LM head of its own) for one stage.

    Embedding: the first stage (SGLang llama.py:338, nemotron_h.py:583; vLLM llama.py:377). LM head: the
    last stage; with PP > 1 a tied head is its own copy there (SGLang nemotron_h.py:687-715 receives the
    embedding from the first rank; vLLM llama.py:377-379 builds the embedding on the last rank as well).
    SGLang's Llama: an untied head on every stage, a tied one only as the first stage's embedding."""
    if pp <= 1:
        return True, not spec.tie_word_embeddings
    if framework == "sglang" and spec.architecture == "LlamaForCausalLM":
        return stage.first, not spec.tie_word_embeddings
    return stage.first, stage.last


def _stage_count(framework: str, spec: ModelSpec, stage: Stage, pp: int) -> ParamCount:
    count = ParamCount()
    embed, head = stage_extras(framework, spec, stage, pp)
    table = spec.vocab_size * spec.hidden_size
    count.plain += table * (int(embed) + int(head))
    if stage.last:
        count.replicated += spec.hidden_size  # final norm
    if stage.first:
        count.plain += vision_params(spec)  # a vision tower runs before the first decoder layer
    for i in range(stage.start, stage.end):
        count.add(decoder_layer(spec, i, spec.layer_types[i]))
    return count


def _header_stage_bytes(
    headers: Mapping[str, int], framework: str, spec: ModelSpec, stage: Stage, pp: int
) -> int:
    import re

    embed, head = stage_extras(framework, spec, stage, pp)
    layer = re.compile(r"(?:^|\.)layers\.(\d+)\.")
    total = 0
    table = 0
    for name, size in headers.items():
        if _is_draft_tensor(name):
            continue
        match = layer.search(name)
        if match and "visual" not in name and "vision" not in name:
            if stage.start <= int(match.group(1)) < stage.end:
                total += size
        elif "embed_tokens" in name or (name.endswith("embeddings.weight") and "vision" not in name):
            table = size
            total += size if embed else 0
        elif name.startswith("lm_head"):
            total += size if head else 0
        elif "visual" in name or "vision" in name:
            total += size if stage.first else 0
        else:
            total += size if stage.last else 0  # the final norm
    if head and spec.tie_word_embeddings and not any(n.startswith("lm_head") for n in headers):
        total += table  # a tied head's own copy on the last stage
    return total


def stage_weights(
    spec: ModelSpec,
    tp: int,
    whole: WeightEstimate,
    stage: Stage,
    pp: int,
    framework: str,
    model_dir: Path | None,
) -> WeightEstimate:
    """One stage's weights on one TP rank: from the checkpoint's tensor names when its headers are here,
    else counted from the config (a ``safetensors-index`` total is split in the counted proportion)."""
    counted = bytes_of(_stage_count(framework, spec, stage, pp), spec, tp)
    out = replace(whole, bytes_per_rank=counted, detail={**whole.detail, "counted_bytes_per_rank": counted})
    if whole.source == "safetensors-headers" and model_dir is not None:
        headers = _read_safetensors_headers(model_dir)
        if headers:
            out = replace(
                out, bytes_per_rank=_header_stage_bytes(headers, framework, spec, stage, pp) // max(tp, 1)
            )
    elif whole.source == "safetensors-index":
        every = ParamCount()
        full = Stage(0, 0, len(spec.layer_types), True, True)
        every.add(_stage_count(framework, spec, full, 1))
        share = counted / max(bytes_of(every, spec, tp), 1)
        out = replace(out, bytes_per_rank=int(whole.bytes_per_rank * share))
    return out


def sglang_mamba_budget_layers(version: str | None, spec: ModelSpec, part: Partition) -> int:
    """The Mamba layers SGLang charges per slot when it budgets the Mamba pool under PP.

    0.5.10.post1 and 0.5.15.post1 (``model_runner_kv_cache_mixin.py`` ``handle_max_mamba_cache``, 0.5.10.post1
    :179-238) charge ``mamba2_cache_params.mamba_cache_per_req``, which counts every Mamba layer of the model
    (``configs/mamba_utils.py:116-125``) although each rank allocates only its own; 0.5.19 and later
    (``mem_cache/kv_cache_configurator.py`` ``_handle_max_mamba_cache``, 0.5.23 :3233-3262) charge the largest
    stage's share. Releases between (0.5.12.post1, 0.5.13.post1; 0.5.20-0.5.22) follow their neighbours."""
    state = spec.state_layer_ids
    if _version(version) < (0, 5, 19):
        return len(state)
    return max((sum(1 for i in state if s.start <= i < s.end) for s in part.stages), default=len(state))


def _version(version: str | None) -> tuple[int, ...]:
    out: list[int] = []
    for piece in (version or "0.5.10").split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        out.append(int(digits or 0))
    return tuple(out)


def worst_stage(plans: Sequence[Any], key: Callable[[Any], tuple[Any, ...]] | None = None) -> int:
    """Index of the stage that gives out first: one that does not fit (the one short by the most), else the
    one with the smallest ``key`` (default: the smallest margin)."""

    def order(i: int) -> tuple[Any, ...]:
        p = plans[i]
        if p.verdict == "oom":
            return (0, p.margin_bytes)
        return (1, *(key(p) if key else (p.margin_bytes,)))

    return min(range(len(plans)), key=order)


def section_of(
    part: Partition,
    pp: int,
    stages: Sequence[Mapping[str, Any]],
    worst: int,
    synced: str,
    reported: str = "worst",
) -> dict[str, Any]:
    """``memory.pipeline`` in the JSON contract. ``reported``: ``worst`` (the stage that gives out first) or
    ``log`` (stage 0, whose rank printed the log's figures)."""
    return {
        "pp_size": pp,
        "partition": [[s.start, s.end] for s in part.stages],
        "partition_source": part.source,
        "partition_basis": part.basis,
        "override": part.override,
        "worst_stage": worst,
        "reported": reported,
        "stages": list(stages),
        "synced": synced,
    }


def stage_line(part: Partition, worst: int, pp: int, reported: str = "worst") -> str:
    """How findings name the stage they are about (and what the split rests on)."""
    stage = part.stages[worst]
    which = "the stage that runs out first" if reported == "worst" else "the stage whose rank printed the log"
    rests = (
        "the framework's own get_pp_indices"
        if part.basis == "framework-code"
        else "the documented rule (the release's source is not on this machine)"
    )
    return f"pipeline {stage.label} of {pp}, {which}; split by {rests}"
