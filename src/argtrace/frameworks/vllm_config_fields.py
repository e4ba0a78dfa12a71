"""The flags that decide a vLLM configuration field no flag of its own name sets.

vLLM refuses or complains about fields of its configuration objects: ``ParallelConfig.world_size`` (the
parallel sizes multiplied), ``ParallelConfig.use_ubatching`` (``--enable-dbo``), ``CacheConfig.cache_dtype``
(``--kv-cache-dtype``), ``SchedulerConfig.chunked_prefill_enabled`` (``--enable-chunked-prefill``). A
message or a condition that reads one names no flag; the user changes the flags it is made from. The table
(``data/vllm_config_fields.json``) is generated from the releases' own source by
``scripts/gen_vllm_config_fields.py``: the fields ``EngineArgs`` passes from an attribute of another name,
those a configuration class computes from other fields, and VllmConfig's attributes (``cache_config``:
CacheConfig) that tell a read's class.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from argtrace.package_data import bundled_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass(frozen=True)
class DerivedField:
    """A configuration field and the flags that decide it in the release read."""

    field: str  # "ParallelConfig.world_size"
    flags: tuple[str, ...]
    how: str  # "passed" (EngineArgs gives it under another name) or "derived" (computed from other fields)
    at: str  # where the field is set: file:line
    release: str  # the release of the table read


@functools.cache
def _table() -> dict[str, Any]:
    try:
        data: dict[str, Any] = bundled_json("frameworks/data/vllm_config_fields.json")
    except (OSError, ValueError):
        return {}
    releases: dict[str, Any] = data.get("releases") or {}
    return releases


def _release(version: str | None) -> str | None:
    """The table's release for ``version``: the newest at or below it, else the oldest (a site indexed only
    in a release older than any read); the newest for None."""
    from argtrace.frameworks.schema import version_key

    releases = sorted(_table(), key=version_key)
    if not releases:
        return None
    if version is None:
        return releases[-1]
    try:
        below = [r for r in releases if version_key(r) <= version_key(version)]
    except Exception:
        return releases[-1]
    return below[-1] if below else releases[0]


def derived_field(version: str | None, read: str, function: str = "") -> DerivedField | None:
    """The field a read names and the flags that decide it, or None. The read's class is the attribute it
    is read through (``self.parallel_config.use_ubatching``, ``parallel_config.world_size``: VllmConfig's
    ``parallel_config`` is a ParallelConfig) or, for ``self.x``, the configuration class whose method
    reads it (``CacheConfig.__post_init__``); a read of another object (a worker's ``self.world_size``) is
    not guessed."""
    release = _release(version)
    if release is None:
        return None
    entry = _table()[release]
    attrs: dict[str, str] = entry.get("attrs") or {}
    chain = read.split(".")
    if len(chain) < 2:
        return None
    owner: str | None = None
    if chain[-2] in attrs:
        owner = attrs[chain[-2]]
    elif len(chain) == 2 and chain[0] == "self" and "." in function:
        cls = function.rsplit(".", 1)[0].rsplit(".", 1)[-1]
        owner = cls if cls.endswith("Config") else None
    if owner is None:
        return None
    found = (entry.get("fields") or {}).get(f"{owner}.{chain[-1]}")
    if not found:
        return None
    return DerivedField(
        field=f"{owner}.{chain[-1]}",
        flags=tuple(found["flags"]),
        how=str(found["how"]),
        at=str(found["at"]),
        release=release,
    )


def config_attribute(version: str | None, owner: str) -> str | None:
    """The VllmConfig attribute that holds a configuration class (``CompilationConfig`` ->
    ``compilation_config``) in the release read, or None: a write to ``CompilationConfig.cudagraph_mode``
    is a write to the key ``cudagraph_mode`` of the flag ``--compilation-config``."""
    release = _release(version)
    if release is None:
        return None
    attrs: dict[str, str] = _table()[release].get("attrs") or {}
    named = [attr for attr, cls in attrs.items() if cls == owner]
    return named[0] if len(named) == 1 else None
