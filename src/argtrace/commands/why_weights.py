"""``why`` on Python's KeyError of a checkpoint tensor's name (``KeyError: 'layers.61.mlp.experts.w2_weight'``
): the weight loader met a tensor of the checkpoint that the model, as the server built it, has no parameter
for.

No framework prints these words: the model classes' ``load_weights`` look each checkpoint tensor up in their
own parameters (``param = params_dict[name]``) and the interpreter raises the KeyError with the name. Titles
and tails quote only that name (vllm#27138 GLM-4.5V's ``blocks.0.attn.qkv.weight``, vllm#16450 DeepSeek-R1's
``layers.61.mlp.experts.w2_weight`` under a pipeline split, vllm#18718 an AWQ checkpoint's
``activation_fn.scales``, XuanYuan#46 bitsandbytes' ``down_proj.SCB``, vllm-ascend#986's
``w2_weight_offset``), so ``why`` had nothing to match. What the name says: a dotted name with a layer index
is a tensor of the checkpoint, not a config key, when it holds "weight" or the text says weights were
loading (a module's name looked up in a layer table is not: vllm#36640); one whose last part is not a plain
``weight`` or ``bias`` (a scale, an offset, packed parts) is a quantized layer's, so the checkpoint's
quantization is not the one the model was built with. Which release maps which names is not in the text:
the fix names the ways a name has no parameter, and says it rests on the name alone.

A name without a layer index is read as well when it ends in a weight or bias (``embed_tokens.weight``,
``midlayer.self_attn.qkv_proj.weight``). Its first part then says more, by what SGLang's model classes know
(``frameworks/data/weight_prefixes.json``, scripts/gen_weight_prefixes.py, from the releases' models files):
a module of the inner model a causal-LM class holds as ``model`` (``embed_tokens``, ``layers``, ``norm``)
means the checkpoint's names lack the ``model.`` prefix: it was saved from the base model (sglang#9747:
Qwen3-Embedding under releases whose qwen3.py does not add the prefix; not ``layers``, whose missing layer
reads as well as a pipeline stage's split, so sglang#6917's ``layers.22...`` keeps the general fix); a
name only a few classes know (``midlayer``: the EAGLE3 draft classes) means the checkpoint is one of theirs
and the server built another class from its config.json (sglang#9135: an EAGLE3 draft declaring
``Qwen3ForCausalLM``). Not for vLLM's text: its inner models load their own names (vllm#16450).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a dotted name with a numeric part (a layer index), quoted after KeyError ("KeyError: 'a.0.b'", "KeyError on
# missing parameter 'a.0.b'"); at most 24 parts, each read once
_KEY = re.compile(
    r"\bKeyError\b[^'\"\n]{0,60}?['\"](?P<name>(?:[A-Za-z_]\w*+\.){0,12}+\d++(?:\.[A-Za-z_0-9]\w*+){1,12}+)['\"]"
)
# a dotted name without a layer index whose last part is a weight or bias ("embed_tokens.weight")
_KEY_UNINDEXED = re.compile(
    r"\bKeyError\b[^'\"\n]{0,60}?['\"](?P<name>(?:[A-Za-z_]\w*+\.){1,12}+(?:\w*_)?(?:weight|bias))['\"]"
)
_PLAIN = re.compile(r"(?:^|_)(?:weight|bias)$")
_TABLE = "frameworks/data/weight_prefixes.json"
# the models file a traceback's loader frame names (".../sglang/srt/models/qwen3.py")
_LOADER_FILE = re.compile(r"sglang/srt/models/(?P<file>\w+\.py)\b")
# the text says weights were being loaded: a layer-indexed name without "weight" is a tensor only then (a
# module's name looked up in a layer table is not: vllm#36640's 'language_model.model.layers.20.linear_attn')
_LOADING = re.compile(
    r"load_weights|params_dict|\bload(?:s|ing)? (?:the )?weights\b|\bmodel loading\b|\bparameter\b", re.I
)


@functools.cache
def _known() -> tuple[frozenset[str], dict[str, tuple[str, ...]]]:
    """(the inner model's module names, name -> the classes that know it), over the releases read."""
    from argtrace.package_data import bundled_json

    inner: set[str] = set()
    known: dict[str, set[str]] = {}
    for facts in (bundled_json(_TABLE).get("releases") or {}).get("sglang", {}).values():
        inner.update(facts.get("inner") or ())
        for name, where in (facts.get("known_by") or {}).items():
            known.setdefault(name, set()).update(where)
    return frozenset(inner), {name: tuple(sorted(w)) for name, w in known.items()}


def _first_part_fix(name: str, text: str) -> str | None:
    """The fix the name's first part gives by what SGLang's model classes know, or None."""
    first = name.split(".", 1)[0]
    if "vllm" in text.lower():
        return None  # the table is SGLang's classes'; vLLM's inner models load their own names (vllm#16450)
    inner, known = _known()
    if first in inner and first != "layers":
        # a layer's name ("layers.61...") reads as well as a pipeline stage's split or a draft layer: only
        # the modules around the layers say the prefix is missing
        return (
            f"{first!r} is a module of the inner model a causal-LM class holds as 'model': the checkpoint's "
            "names lack the 'model.' prefix the built class's parameters carry, so it was saved from the "
            "base model (an embedding or encoder export, such as an -Embedding checkpoint) and not from the "
            "class the server built; a release whose loader adds that prefix for this model, or the "
            "checkpoint saved with the class's own names"
        )
    classes = known.get(first)
    if not classes:
        return None
    loader = _LOADER_FILE.search(text)
    if loader is not None and any(c.split(":", 1)[0] == loader.group("file") for c in classes):
        return None  # the loader that failed is one of them: the name is its own
    names = ", ".join(f"{c.split(':', 1)[1]} ({c.split(':', 1)[0]})" for c in classes)
    built = f" (the server built {loader.group('file')}'s class)" if loader is not None else ""
    return (
        f"{first!r} is a name only {names} know: the checkpoint holds that class's tensors and the server "
        f"built another model for it{built} from the architecture its config.json names; make the "
        f'checkpoint\'s config.json "architectures" name the class whose tensors it holds'
    )


def weight_key(text: str) -> dict[str, Any] | None:
    """The checkpoint tensor a KeyError names and what its name says; None without such a KeyError."""
    m = _KEY.search(text) or _KEY_UNINDEXED.search(text)
    if m is None:
        return None
    name = m.group("name")
    if "weight" not in name.lower() and not _LOADING.search(text):
        return None
    leaf = name.rsplit(".", 1)[-1]
    found: dict[str, Any] = {
        "name": name,
        "evidence": m.group(0),
        "meaning": "Python's KeyError at the model's weight loader: the checkpoint holds the tensor "
        f"{name!r} and the model as the server built it has no parameter of that name; no framework site "
        "prints these words",
        "rests_on": "the tensor's name alone (the text does not say which release or checkpoint format)",
    }
    by_name = _first_part_fix(name, text)
    if by_name is not None:
        found["fix"] = by_name
        found["rests_on"] = (
            "the tensor's name and the modules SGLang's model classes have (weight_prefixes.json); the text "
            "does not say which release or checkpoint"
        )
    elif _PLAIN.search(leaf):
        found["fix"] = (
            "the checkpoint's tensor names do not fit the model this release builds for it: a checkpoint "
            "made for another release or library (a release whose loader maps these names), a layer the "
            "built model leaves out (a pipeline stage's split, an MTP or draft layer), or a config that does "
            "not describe this checkpoint; no other launch setting renames its tensors"
        )
    else:
        found["fix"] = (
            f"{leaf!r} is not a plain weight or bias but a quantized layer's tensor (a scale, an offset, "
            "packed parts): the checkpoint is quantized in a way the model was not built for: the "
            "quantization the server selected (--quantization, or the checkpoint's own quantization_config) "
            "is not the checkpoint's, or this release does not load that format for this model"
        )
    return found


def origin_of_weight(text: str) -> dict[str, str] | None:
    """``why``'s ``origin`` entry for such a KeyError: the interpreter at the weight loader (its wording)."""
    found = weight_key(text)
    if found is None:
        return None
    return {
        "origin": "Python's interpreter: a KeyError on a checkpoint tensor's name at the model's weight "
        "loader",
        "basis": "wording",
        "evidence": found["evidence"],
        "source": "the model classes' load_weights (params_dict[name]); vllm#27138, vllm#16450",
    }


def render_weights(section: Mapping[str, Any]) -> list[str]:
    found = section.get("weights")
    if not found:
        return []
    return [f"python: {found['meaning']}", f"  fix: {found['fix']}", f"  rests on: {found['rests_on']}"]
