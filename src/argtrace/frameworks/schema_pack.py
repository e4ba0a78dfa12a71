"""Storing the bundled schemas as :mod:`schema_store` reads them: what two or more releases of a framework
have identically in a shared file, once, and each release's own file of indexes, patches and entries (that
module's text says the format). Run by ``scripts/gen_schemas.py --pack``; a check never packs, so it never
loads this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from argtrace.frameworks.schema_store import MARK, PATCH, SHARED_KEYS, _shared, expand, shared_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias


def _canonical(entry: Any) -> str:
    return json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _identity(key: str, entry: Any) -> str | None:
    """What makes two entries of different releases "the same option/variable" (a patch base)."""
    if not isinstance(entry, dict):
        return None
    if key == "env_vars":
        return str(entry.get("name"))
    return _canonical([entry.get("option_strings"), entry.get("dest")])


def raise_site_identity(key: str, entry: Any) -> str | None:
    """Two releases' raise sites are "the same site" when file, function, exception and message agree:
    the line moving between releases is then a one-key patch."""
    if not isinstance(entry, dict):
        return None
    return _canonical([entry.get(k) for k in ("file", "function", "exception", "message")])


Identity: TypeAlias = "Callable[[str, Any], str | None]"  # (list key, entry) -> what a patch is based on


def _patch(base: dict[str, Any], entry: dict[str, Any], index: int) -> dict[str, Any]:
    patch: dict[str, Any] = {PATCH: index}
    changed = {k: v for k, v in entry.items() if k not in base or _canonical(base[k]) != _canonical(v)}
    dropped = [k for k in base if k not in entry]
    if changed:
        patch["~"] = changed
    if dropped:
        patch["-"] = dropped
    # No "order": the entry's keys come back in the base's order (sorted, as every shared entry's) with the
    # added ones after. Nothing reads an entry's key order, and storing it cost 1.0 MB over the vLLM schemas
    # and raise sites (most patches had one, a shared base's keys being sorted).
    return patch


def pack_framework(
    schemas: Iterable[dict[str, Any]], keys: tuple[str, ...] = SHARED_KEYS, identity: Identity = _identity
) -> tuple[dict[str, list[Any]], list[dict[str, Any]]]:
    """(the shared file, the per-release files) for full schemas of one framework: an entry that two or
    more releases have identically is shared; one that differs from a shared entry of the same option or
    variable (a help text edited, a line number moved) is stored as a patch of it."""
    schemas = list(schemas)
    counts: dict[str, dict[str, int]] = {k: {} for k in keys}
    for schema in schemas:
        for key in keys:
            for entry in {_canonical(e) for e in schema.get(key) or ()}:
                counts[key][entry] = counts[key].get(entry, 0) + 1
    shared: dict[str, list[Any]] = {}
    index: dict[str, dict[str, int]] = {}
    bases: dict[str, dict[str, int]] = {}  # identity -> pool index of its most shared variant
    seen: dict[str, dict[str, str]] = {k: {} for k in keys}  # identity -> its newest variant
    releases_of: dict[str, dict[str, int]] = {k: {} for k in keys}
    for schema in schemas:
        for key in keys:
            for entry in schema.get(key) or ():
                ident = identity(key, entry)
                if ident is not None:
                    seen[key][ident] = _canonical(entry)
                    releases_of[key][ident] = releases_of[key].get(ident, 0) + 1
    for key in keys:
        common_set = {c for c, n in counts[key].items() if n >= 2}
        have = {identity(key, json.loads(c)) for c in common_set}
        # an option or variable of several releases that none has identically: its newest variant becomes
        # the base the others patch
        common_set |= {
            c for ident, c in seen[key].items() if releases_of[key][ident] >= 2 and ident not in have
        }
        common = sorted(common_set)
        shared[key] = [json.loads(c) for c in common]
        index[key] = {c: i for i, c in enumerate(common)}
        best: dict[str, tuple[int, int]] = {}
        for i, c in enumerate(common):
            ident = identity(key, shared[key][i])
            if ident is not None and (ident not in best or counts[key][c] > best[ident][0]):
                best[ident] = (counts[key][c], i)
        bases[key] = {ident: i for ident, (_, i) in best.items()}
    stored = []
    for schema in schemas:
        item: dict[str, Any] = {}
        for k, v in schema.items():
            if k in keys and isinstance(v, list):
                out: list[Any] = []
                for e in v:
                    c = _canonical(e)
                    if c in index[k]:
                        out.append(index[k][c])
                        continue
                    ident = identity(k, e)
                    base = bases[k].get(ident) if ident is not None else None
                    if base is not None:
                        out.append(_patch(shared[k][base], e, base))
                    else:
                        out.append(e)
                item[k] = out
            else:
                item[k] = v
        item[MARK] = "shared"
        stored.append(item)
    return shared, stored


def _write(path: Path, data: Mapping[str, Any]) -> int:
    """One top-level key per line, one list item per line: small and diffable."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and any(isinstance(v, dict) for v in value):
            body = ",\n".join(json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in value)
            lines.append(f"{json.dumps(key)}:[\n{body}\n]")
        else:
            lines.append(f"{json.dumps(key)}:{json.dumps(value, ensure_ascii=False, separators=(',', ':'))}")
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    json.loads(text)
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def pack(
    schema_dir: Path,
    extra: Iterable[Path] = (),
    frameworks: Iterable[str] | None = None,
    keys: tuple[str, ...] = SHARED_KEYS,
    identity: Identity = _identity,
) -> dict[str, int]:
    """Re-store every schema in ``schema_dir`` plus the full schema files ``extra`` (a release in both:
    the one in ``schema_dir`` is kept) as shared parts + per-release files; returns bytes per framework.
    ``frameworks``: only those are re-stored (the others' files are left as they are)."""
    only = set(frameworks) if frameworks is not None else None
    full: dict[tuple[str, str], dict[str, Any]] = {}
    for path in sorted(schema_dir.glob("*-*.json")):
        if path.name.endswith("-shared.json"):
            continue
        if only is not None and path.name.split("-", 1)[0] not in only:
            continue
        data = expand(json.loads(path.read_text(encoding="utf-8")), schema_dir, keys)
        full[(data["framework"], data["version"])] = data
    for path in extra:
        data = json.loads(path.read_text(encoding="utf-8"))
        if only is not None and data["framework"] not in only:
            continue
        full.setdefault((data["framework"], data["version"]), data)
    _shared.cache_clear()
    sizes: dict[str, int] = {}
    for framework in sorted({fw for fw, _ in full}):
        schemas = [s for (fw, _), s in sorted(full.items()) if fw == framework]
        shared, stored = pack_framework(schemas, keys, identity)
        sizes[framework] = _write(shared_path(schema_dir, framework), shared)
        for item in stored:
            sizes[framework] += _write(schema_dir / f"{framework}-{item['version']}.json", item)
    _shared.cache_clear()
    return sizes
