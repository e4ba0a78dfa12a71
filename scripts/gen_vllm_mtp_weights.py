#!/usr/bin/env python3
"""Generate src/argtrace/frameworks/data/vllm_mtp_weights.json: which checkpoint tensors a vLLM release's MTP
draft loads from the target's own checkpoint, per target model type, read from the release's wheel by AST
(layers/mtp_weights.py uses it, RS087).

With ``--speculative-config '{"method": "mtp"}'`` (or the family's own method name) vLLM builds the MTP draft
from the target checkpoint: ``SpeculativeConfig.hf_config_override`` (vllm/config/speculative.py) rewrites the
target's ``model_type`` to the draft's (``qwen3_next`` -> ``qwen3_next_mtp``; ``qwen3_5``, ``qwen3_5_moe`` and
their ``_text`` forms -> ``qwen3_5_mtp``; ...), and the draft module (vllm/model_executor/models/<type>.py)
keeps only the tensors whose name starts with its prefix (``is_unused_checkpoint_weight``: ``not
name.startswith("mtp.") and ...``, besides the shared embeddings and head). A checkpoint without them (a
fine-tuned export that dropped the MTP head: ms-swift#6221, #9802) leaves the draft's parameters unloaded, and
for an unquantized checkpoint ``DefaultModelLoader.track_weights_loading`` raises "Following weights were not
initialized from checkpoint" (vllm/model_executor/model_loader/default_loader.py). Recorded per release: the
target model types whose draft module filters by such a prefix, with the draft type and the prefixes.

  pip download vllm==0.33.0 --no-deps --only-binary=:all: --python-version 3.11 \
      --platform manylinux_2_28_x86_64 -d /tmp/vw
  python scripts/gen_vllm_mtp_weights.py [--check] /tmp/vw/vllm-*.whl
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))  # generated_json, when imported from a test
from generated_json import wheel_modules, write_or_check  # noqa: E402

OUT = ROOT / "src/argtrace/frameworks/data/vllm_mtp_weights.json"
GENERATOR = "scripts/gen_vllm_mtp_weights.py"
SPECULATIVE = "vllm/config/speculative.py"
MODELS = "vllm/model_executor/models/"
REGISTRY = MODELS + "registry.py"
UTILS = MODELS + "utils.py"


def _wanted(module: str) -> bool:
    return module in (SPECULATIVE, REGISTRY, UTILS) or (
        module.startswith(MODELS) and module.endswith("_mtp.py")
    )


def _types(test: ast.expr, subject: str = ".model_type") -> list[str]:
    """The model types an ``if`` compares ``hf_config.model_type`` with (``==`` or ``in`` a literal); with
    subject ``.architectures[0]``, the architectures it compares the first architecture with."""
    if not (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and ast.unparse(test.left).endswith(subject)
    ):
        return []
    right = test.comparators[0]
    if isinstance(test.ops[0], ast.Eq) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return [right.value]
    if isinstance(test.ops[0], ast.In) and isinstance(right, (ast.Tuple, ast.Set, ast.List)):
        return [e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _registry(text: str) -> dict[str, str]:
    """architecture -> the module vLLM's model registry imports it from (``"DeepSeekMTPModel":
    ("deepseek_mtp", "DeepSeekMTP")``), from the registry's dict literals."""
    out: dict[str, str] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and isinstance(key.value, str)
                    and isinstance(value, ast.Tuple)
                    and value.elts
                    and isinstance(value.elts[0], ast.Constant)
                    and isinstance(value.elts[0].value, str)
                ):
                    out[key.value] = value.elts[0].value
    return out


def _flags(function: ast.FunctionDef) -> dict[str, list[str]]:
    """Local names set to a test of the model type (``use_v32_mtp = hf_config.model_type in (...)``): the
    types for which each is true, to read which side of ``"A" if use_v32_mtp else "B"`` a target takes."""
    out: dict[str, list[str]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            types = _types(node.value)
            if types:
                out[node.targets[0].id] = types
    return out


def _architectures(
    node: ast.AST, target: str, flags: dict[str, list[str]], known: dict[str, str]
) -> set[str]:
    """The registered architectures a branch may give the draft, for this target: every architecture string
    in it, taking only the side of a conditional whose flag the target decides."""
    if isinstance(node, ast.IfExp) and isinstance(node.test, ast.Name) and node.test.id in flags:
        side = node.body if target in flags[node.test.id] else node.orelse
        return _architectures(side, target, flags, known)
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
        return {node.value}
    found: set[str] = set()
    for child in ast.iter_child_nodes(node):
        found |= _architectures(child, target, flags, known)
    return found


def _body_architectures(
    branch: ast.If, target: str, flags: dict[str, list[str]], known: dict[str, str]
) -> set[str]:
    """The architectures a branch's body gives (not its test: ``architectures[0] == "Glm4MoeForCausalLM"``
    names the target's own)."""
    found: set[str] = set()
    for node in branch.body:
        found |= _architectures(node, target, flags, known)
    return found


def _rewrites(text: str, known: dict[str, str] | None = None) -> dict[str, tuple[str, set[str]]]:
    """target -> (draft model type, the registered architectures the override gives the draft), from
    hf_config_override's ``if`` chain: a target is a model type (``hf_config.model_type == "qwen3_next"``) or
    an architecture (``hf_config.architectures[0] == "Glm4MoeForCausalLM"``, keyed ``arch:<name>``). The
    architectures are those of the target's own branch, else of the draft type's (``if hf_config.model_type ==
    "deepseek_mtp": ...update({"architectures": [...]})``)."""
    known = known or {}
    found: dict[str, tuple[str, set[str]]] = {}
    for function in ast.walk(ast.parse(text)):
        if not (isinstance(function, ast.FunctionDef) and function.name == "hf_config_override"):
            continue
        flags = _flags(function)
        branches = [b for b in ast.walk(function) if isinstance(b, ast.If)]
        for branch in branches:
            targets = _types(branch.test) + [f"arch:{a}" for a in _types(branch.test, ".architectures[0]")]
            for node in branch.body:
                if not (
                    isinstance(node, ast.Assign)
                    and ast.unparse(node.targets[0]).endswith(".model_type")
                    and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str)
                ):
                    continue
                draft = node.value.value
                for target in targets:
                    if target == draft or target in found:
                        continue
                    archs = _body_architectures(branch, target, flags, known)
                    if not archs:
                        for other in branches:
                            if other is not branch and draft in _types(other.test):
                                archs |= _body_architectures(other, target, flags, known)
                    found[target] = (draft, archs)
    return found


def _prefixes(text: str) -> list[str]:
    """The name prefixes ``is_unused_checkpoint_weight`` keeps (``name.startswith("...")`` literals)."""
    out: list[str] = []
    for function in ast.walk(ast.parse(text)):
        if not (isinstance(function, ast.FunctionDef) and function.name == "is_unused_checkpoint_weight"):
            continue
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) == "startswith"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                out.append(node.args[0].value)
    return sorted(set(out))


def _layer_templates(text: str) -> list[str]:
    """The tensor-name prefixes ``get_spec_layer_idx_from_weight_name`` (models/utils.py) gives an MTP layer,
    ``{layer}`` for its index (``f"model.layers.{base + i}."`` -> ``model.layers.{layer}.``)."""
    out: list[str] = []
    for function in ast.walk(ast.parse(text)):
        if not (
            isinstance(function, ast.FunctionDef) and function.name == "get_spec_layer_idx_from_weight_name"
        ):
            continue
        for node in ast.walk(function):
            if isinstance(node, ast.JoinedStr) and len(node.values) >= 2:
                parts = [v.value if isinstance(v, ast.Constant) else "{layer}" for v in node.values]
                out.append("".join(parts))
    return out


def _layer_draft(text: str) -> dict[str, Any] | None:
    """For a draft that takes its layers from the target's own numbering (DeepSeek, GLM-4.5: ``model.layers.
    {num_hidden_layers + i}.*`` for i below ``num_nextn_predict_layers``): the two config fields and, when
    the module raises itself on a layer it did not load, the first sentence of that message."""
    fields: dict[str, str] = {}
    uses_names = False
    check = None
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Assign)
            and isinstance(node.targets[0], ast.Attribute)
            and node.targets[0].attr in ("mtp_start_layer_idx", "num_mtp_layers")
            and isinstance(node.value, ast.Attribute)
            and ast.unparse(node.value.value) == "config"
        ):
            fields.setdefault(node.targets[0].attr, node.value.attr)
        if isinstance(node, ast.Name) and node.id == "get_spec_layer_idx_from_weight_name":
            uses_names = True
        if (
            isinstance(node, ast.Raise)
            and node.exc is not None
            and "missing from checkpoint" in ast.unparse(node.exc)
        ):
            pieces = [n for n in ast.walk(node.exc) if isinstance(n, ast.JoinedStr)]
            if pieces:
                message = "".join(
                    v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"  # type: ignore[attr-defined]
                    for p in pieces[:1]
                    for v in p.values
                )
                check = message.split(". ")[0] + "."
    if not uses_names or set(fields) != {"mtp_start_layer_idx", "num_mtp_layers"}:
        return None
    return {"start": fields["mtp_start_layer_idx"], "count": fields["num_mtp_layers"], "check": check}


def facts(texts: dict[str, str]) -> dict[str, Any]:
    """target -> {draft, at, and prefixes (the draft keeps only prefixed tensors) or layers (it keeps the
    target's numbered MTP layers)}. A target whose override gives the draft an architecture the registry
    imports from another module than the draft type's is left out (its draft's weights are not read here)."""
    speculative = texts.get(SPECULATIVE)
    if speculative is None:
        return {}
    known = _registry(texts[REGISTRY]) if REGISTRY in texts else {}
    templates = _layer_templates(texts[UTILS]) if UTILS in texts else []
    out: dict[str, Any] = {}
    for target, (draft, archs) in sorted(_rewrites(speculative, known).items()):
        module = f"{MODELS}{draft}.py"
        if module not in texts or any(known[a] != draft for a in archs):
            continue
        prefixes = _prefixes(texts[module])
        if prefixes:
            out[target] = {"draft": draft, "prefixes": prefixes, "at": module.removeprefix("vllm/")}
            continue
        layers = _layer_draft(texts[module]) if templates else None
        if layers is not None:
            layers["names"] = templates
            out[target] = {"draft": draft, "layers": layers, "at": module.removeprefix("vllm/")}
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheels", nargs="+", help="vLLM wheels")
    ap.add_argument("--check", action="store_true", help="fail if the file differs instead of writing it")
    args = ap.parse_args(argv)
    releases: dict[str, Any] = {}
    wheels: dict[str, str] = {}
    for path in args.wheels:
        release, wheel, texts = wheel_modules(Path(path), _wanted, "vllm")
        wheels[release] = wheel
        releases[release] = facts(texts)
    data = {
        "generated_by": GENERATOR,
        "source": "vllm wheels: SpeculativeConfig.hf_config_override's model_type rewrites (vllm/config/"
        "speculative.py) and each MTP draft's is_unused_checkpoint_weight (vllm/model_executor/models/"
        "*_mtp.py)",
        "wheels": wheels,
        "releases": releases,
    }
    return write_or_check(OUT, data, GENERATOR, check=args.check)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
