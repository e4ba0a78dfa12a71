"""How the bundled raise-site indexes are stored: what releases share, once (issue 15). Stdlib only.

A raise site rarely changes between releases except for its line number. Per framework,
``raise_sites/<fw>-shared.json`` holds every site entry (without its ``line``) that two or more bundled
releases have, and each release's ``raise_sites/<fw>-<ver>.json`` keeps its own top-level keys with
``sites`` as a list whose items are ``[pool index, line]`` (a shared site) or the full entry (a site of that
release only). A file marked ``"stored": "shared"`` is such a file; one without the mark is a full index
(what older checkouts bundled), and is read as it is.

Loading one release reads its own file and its framework's shared part (once per process), never another
release's file; :func:`expand` gives back exactly the dict ``scripts/gen_schemas.py`` wrote (``pack``
checks each entry's round trip and keeps an entry whole when it would not come back identical).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

MARK = "stored"
SHARED_SUFFIX = "-shared.json"


def shared_path(directory: Path, framework: str) -> Path:
    return directory / f"{framework}{SHARED_SUFFIX}"


@functools.lru_cache(maxsize=4)
def _pool(path: str) -> tuple[dict[str, Any], ...]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(data.get("sites") or ())


def _with_line(base: Mapping[str, Any], line: Any) -> dict[str, Any]:
    """The pool entry with its ``line`` put back where the generator writes it: right after ``file``."""
    out: dict[str, Any] = {}
    for key, value in base.items():
        out[key] = value
        if key == "file":
            out["line"] = line
    if "line" not in out:
        out["line"] = line
    return out


def expand(data: dict[str, Any], directory: Path) -> dict[str, Any]:
    """The full index dict of a stored file (unchanged when it is not marked as shared storage)."""
    if data.get(MARK) != "shared":
        return data
    pool = _pool(str(shared_path(directory, str(data["framework"]))))
    out = {k: v for k, v in data.items() if k != MARK}
    out["sites"] = [
        _with_line(pool[item[0]], item[1]) if isinstance(item, list) else item
        for item in data.get("sites") or ()
    ]
    return out


def _canonical(entry: Any) -> str:
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":"))


def _lineless(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k != "line"}


def pack_framework(indexes: Iterable[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the shared file, the per-release files) for the full indexes of one framework."""
    indexes = list(indexes)
    releases_of: dict[str, set[str]] = {}
    for index in indexes:
        for entry in index.get("sites") or ():
            if _with_line(_lineless(entry), entry.get("line")) == entry:  # key order survives the trip
                releases_of.setdefault(_canonical(_lineless(entry)), set()).add(str(index["version"]))
    common = sorted(c for c, releases in releases_of.items() if len(releases) >= 2)
    position = {c: i for i, c in enumerate(common)}
    stored = []
    for index in indexes:
        item: dict[str, Any] = {k: v for k, v in index.items() if k != "sites"}
        sites: list[Any] = []
        for entry in index.get("sites") or ():
            at = position.get(_canonical(_lineless(entry)))
            sites.append([at, entry["line"]] if at is not None else entry)
        item["sites"] = sites
        item[MARK] = "shared"
        stored.append(item)
    shared = {"format": 1, "sites": [json.loads(c) for c in common]}
    return shared, stored


def _write(path: Path, data: Mapping[str, Any]) -> int:
    """One top-level key per line, one list item per line: small and diffable."""
    lines = []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, (dict, list)) for v in value):
            body = ",\n".join(json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in value)
            lines.append(f"{json.dumps(key)}:[\n{body}\n]")
        else:
            lines.append(f"{json.dumps(key)}:{json.dumps(value, ensure_ascii=False, separators=(',', ':'))}")
    text = "{\n" + ",\n".join(lines) + "\n}\n"
    json.loads(text)
    path.write_text(text, encoding="utf-8")
    return len(text.encode())


def pack(directory: Path, framework: str, extra: Iterable[Path] = ()) -> int:
    """Re-store every index of ``framework`` in ``directory`` plus the full index files ``extra`` (a release
    in both: the one in ``extra`` wins, it is newer) as a shared part + per-release files; returns the
    bytes written."""
    full: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.glob(f"{framework}-*.json")):
        if path.name.endswith(SHARED_SUFFIX):
            continue
        data = expand(json.loads(path.read_text(encoding="utf-8")), directory)
        full[str(data["version"])] = data
    for path in extra:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("framework") == framework:
            full[str(data["version"])] = data
    _pool.cache_clear()
    shared, stored = pack_framework(full[v] for v in sorted(full))
    size = _write(shared_path(directory, framework), shared)
    for item in stored:
        size += _write(directory / f"{framework}-{item['version']}.json", item)
    _pool.cache_clear()
    return size
