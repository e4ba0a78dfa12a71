"""``why`` on a check inside SGLang's Transformers fallback model: what makes a launch run it.

SGLang serves a model with its own implementation when the ``architectures`` of its config.json are in the
release's registry; otherwise, or with ``--model-impl transformers``, ``get_model_architecture``
(``srt/model_loader/utils.py``, 0.5.10.post1: ``elif not is_native_supported or model_config.model_impl ==
ModelImpl.TRANSFORMERS: architectures = resolve_transformers_arch(...)``) swaps in the generic
``TransformersForCausalLM`` of ``srt/models/transformers.py``. A check there (sglang#8256: "embedding is not
supported yet", raised in 0.4.7.post1-0.5.9 when ``forward`` gets ``get_embedding``) reads no server
argument, so its generic fix ("make the condition false") leaves the user nowhere. ``get_embedding`` is
what the model runner passes for a model that does not generate (``ModelRunner``: ``if not
self.is_generation: kwargs["get_embedding"] = True``, model_runner.py:2359 in 0.5.10.post1), which
``--is-embedding`` or an embedding/reward architecture makes it. The match gains those settings (the
releases' schemas say which of the site's releases have ``--model-impl``) and the way out: an architecture
the release implements, or a release that implements it.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_FALLBACK = re.compile(r"sglang/srt/models/transformers\.py$")


def _releases_with(flag: str, releases: list[str]) -> list[str]:
    from argtrace.frameworks.release_index import release_index

    knowing = set(release_index("sglang").releases_knowing_flag(flag))
    return [r for r in releases if r in knowing]


def add_transformers_fallback(groups: list[dict[str, Any]]) -> None:
    """On the first match when it is a check of SGLang's Transformers fallback model that names no setting:
    the settings that lead there and the way out."""
    if not groups:
        return
    first = groups[0]
    if first.get("settings") or first.get("framework") != "sglang":
        return
    if not _FALLBACK.search(str(first.get("file") or "")):
        return
    from argtrace.frameworks.entrypoints import describe_span

    releases = [str(r) for r in first.get("releases") or ()]
    settings: list[dict[str, Any]] = []
    said = [
        "this check is in SGLang's Transformers fallback (TransformersForCausalLM), which serves a model "
        "whose config.json architectures the release does not implement"
    ]
    impl = _releases_with("--model-impl", releases)
    if impl:
        settings.append({"name": "model_impl", "flag": "--model-impl", "framework": "sglang"})
        said[0] += f", or any model with --model-impl transformers (sglang {describe_span('sglang', impl)})"
    conditions = " ".join(str(c) for c in first.get("conditions") or [first.get("condition") or ""])
    if "get_embedding" in conditions:
        settings.append({"name": "is_embedding", "flag": "--is-embedding", "framework": "sglang"})
        said.append(
            "get_embedding is what the model runner passes to a model that does not generate "
            "(--is-embedding, or an embedding or reward architecture), which this fallback does not serve in "
            "these releases"
        )
    said.append(
        "serve the model with an architecture the release implements (argtrace check --model-config DIR "
        "says whether it registers the model's, RS047), or use a release that implements it"
        + (", and drop --model-impl transformers" if impl else "")
    )
    first["settings"] = settings
    fix = "; ".join(said)
    first["fix"] = f"{first['fix']}; {fix}" if first.get("fix") else fix
