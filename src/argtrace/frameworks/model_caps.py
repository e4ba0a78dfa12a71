"""Which model architectures a framework release registers, and what each class can do (LoRA, pipeline
parallelism, multimodal inputs, ...), from ``data/model_caps/<framework>.json.gz``.

The table is generated from the releases' wheels by ``scripts/gen_model_caps.py`` (never typed by hand): per
release the wheel and its sha256, whether an architecture missing from the registry may still run through
the Transformers backend, the suffixes vLLM converts (``ForSequenceClassification`` ...), the architectures
it names as removed, and the refusals the rules cite (file, line, function, message); per architecture, runs
of consecutive releases with the same class and flags. It is read only when a launch's config.json names
its ``architectures`` (``layers/model_caps.py``): a plain ``check`` never loads it.
"""

from __future__ import annotations

import functools
import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CAPS_DIR = Path(__file__).resolve().parent / "data" / "model_caps"
FORMAT = 1
# The flag bits of the store, in order (``unknown``: a base class of the model was not readable, so no rule
# may rest on the other bits).
FLAGS = ("lora", "pp", "multimodal", "hybrid", "v0_only", "attention_free", "transcription", "unknown")


@dataclass(frozen=True)
class Site:
    """A refusal in the release's code: where it is and what it prints."""

    file: str
    line: int
    function: str
    message: str
    exception: str


@dataclass(frozen=True)
class ModelClass:
    """One registered architecture of one release: the module and class that implement it, and its flags."""

    arch: str
    impl: str  # ``module:Class`` (module relative to the model package)
    flags: frozenset[str]

    @property
    def known(self) -> bool:
        return "unknown" not in self.flags


@dataclass(frozen=True)
class Release:
    """The model table of one release."""

    framework: str
    version: str
    archs: Mapping[str, ModelClass]
    transformers_fallback: bool
    suffixes: tuple[str, ...]
    previously: Mapping[str, str]
    refusals: Mapping[str, Site]
    wheel: str

    def model(self, arch: str) -> ModelClass | None:
        return self.archs.get(arch)

    def convertible(self, arch: str) -> bool:
        """True when vLLM's ``_normalize_arch`` turns ``arch`` into a registered one by its suffix (an
        ``XForSequenceClassification`` whose ``XForCausalLM`` is registered, converted for pooling)."""
        for suffix in self.suffixes:
            if arch.endswith(suffix):
                stem = arch[: -len(suffix)]
                if any(f"{stem}{other}" in self.archs for other in self.suffixes):
                    return True
        return False


@functools.lru_cache(maxsize=4)
def _store(framework: str) -> Mapping[str, Any] | None:
    path = CAPS_DIR / f"{framework}.json.gz"
    try:
        data = json.loads(gzip.decompress(path.read_bytes()))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == FORMAT else None


def releases(framework: str) -> tuple[str, ...]:
    """The releases the table covers, oldest first."""
    store = _store(framework)
    return tuple(store["releases"]) if store else ()


@functools.lru_cache(maxsize=16)
def release(framework: str, version: str) -> Release | None:
    """The table of one covered release; None when the release is not covered."""
    store = _store(framework)
    if store is None or version not in store["releases"]:
        return None
    order = list(store["releases"])
    i = order.index(version)
    flags = store["flags"]
    archs = {}
    for arch, runs in store["archs"].items():
        for first, last, impl, bits in runs:
            if first <= i <= last:
                archs[arch] = ModelClass(
                    arch, impl, frozenset(f for j, f in enumerate(flags) if bits >> j & 1)
                )
                break
    meta = store["releases"][version]
    refusals = {
        k: Site(v[0], int(v[1]), v[2], v[3], str(v[4])) for k, v in (meta.get("refusals") or {}).items()
    }
    return Release(
        framework=framework,
        version=version,
        archs=archs,
        transformers_fallback=bool(meta.get("transformers_fallback")),
        suffixes=tuple(meta.get("suffixes") or ()),
        previously=dict(meta.get("previously") or {}),
        refusals=refusals,
        wheel=str(meta.get("wheel") or ""),
    )


def architectures(framework: str) -> tuple[str, ...]:
    """Every architecture some covered release registers."""
    store = _store(framework)
    return tuple(store["archs"]) if store else ()


def history(framework: str, arch: str) -> list[tuple[str, ModelClass]]:
    """Every covered release that registers ``arch``, oldest first, with its class there (read from the
    architecture's runs only: no release's whole table is built)."""
    store = _store(framework)
    if store is None:
        return []
    order = list(store["releases"])
    flags = store["flags"]
    out: list[tuple[str, ModelClass]] = []
    for first, last, impl, bits in store["archs"].get(arch) or []:
        cls = ModelClass(arch, impl, frozenset(f for j, f in enumerate(flags) if bits >> j & 1))
        out.extend((order[i], cls) for i in range(first, last + 1))
    return out


def refuses(framework: str, version: str, kind: str) -> bool:
    """Whether the release has the refusal of ``kind`` (``lora``, ``pp``, ...) the table records."""
    store = _store(framework)
    meta = (store or {}).get("releases", {}).get(version) or {}
    return kind in (meta.get("refusals") or {})


def first_registering(framework: str, arch: str) -> str | None:
    """The oldest covered release that registers ``arch`` (None when none does)."""
    store = _store(framework)
    runs = (store or {}).get("archs", {}).get(arch)
    if not store or not runs:
        return None
    return str(list(store["releases"])[runs[0][0]])
