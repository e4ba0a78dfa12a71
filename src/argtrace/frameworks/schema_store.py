"""How the bundled schemas are stored: what releases share, once.

Per framework, ``schemas/<fw>-shared.json`` holds every option and environment-variable entry that two or
more bundled releases have *identically* (``{"options": [...], "env_vars": [...]}``), and each release's
``schemas/<fw>-<ver>.json`` holds its own top-level keys with ``options`` / ``positionals`` / ``env_vars``
as lists whose items are either an integer (the index of an entry of the shared file) or the entry itself.
A file marked ``"stored": "shared"`` is such a file; one without the mark is a full schema (what
``resolver add`` writes to the user cache, and what older checkouts bundled).

Loading one release reads the shared file of its framework (once per process) and its own file; it never
reads another release's file. :func:`expand` gives back exactly the dict the generator wrote (a test checks
the six releases bundled before this storage against their original files' digests).

``pack`` is run by ``scripts/gen_schemas.py --pack``. The raise-site indexes (``data/raise_sites/``) are
stored the same way, with ``sites`` as the shared list (:data:`RAISE_SITE_KEYS`, :func:`raise_site_identity`).
"""

from __future__ import annotations

import functools
import json
import marshal
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeAlias

SHARED_KEYS = ("options", "positionals", "env_vars")
RAISE_SITE_KEYS = ("sites",)
MARK = "stored"
PATCH = "@"  # {"@": pool index, "~": {changed keys}, "-": [dropped keys], "order": [keys, when it differs]}


def shared_path(schema_dir: Path, framework: str) -> Path:
    return schema_dir / f"{framework}-shared.json"


@functools.lru_cache(maxsize=8)
def _shared(path: str) -> Mapping[str, list[Any]]:
    data: Mapping[str, list[Any]] = json.loads(Path(path).read_text(encoding="utf-8"))
    return data


def expand(data: dict[str, Any], schema_dir: Path, keys: tuple[str, ...] = SHARED_KEYS) -> dict[str, Any]:
    """The full schema dict of a stored file (unchanged when it is not marked as shared storage)."""
    if data.get(MARK) != "shared":
        return data
    shared = _shared(str(shared_path(schema_dir, str(data["framework"]))))
    out = {k: v for k, v in data.items() if k != MARK}
    for key in keys:
        items = data.get(key)
        if isinstance(items, list):
            pool = shared.get(key) or []
            # a copy of each shared entry: callers may add keys to what they load (never into the pool)
            out[key] = [_entry(pool, i) for i in items]
    return out


def load_expanded(path: Path, schema_dir: Path, keys: tuple[str, ...] = SHARED_KEYS) -> dict[str, Any]:
    """The full dict of the stored file ``path`` (a release's schema or raise-site index in ``schema_dir``),
    from the data cache when the file, its framework's shared file and this module are unchanged since it
    was expanded (``resolver/data_cache.py``): parsing and expanding them was a sixth of a short check.
    Raises ``OSError``/``ValueError``/``KeyError``/``IndexError`` as :func:`expand` of the JSON does."""
    from argtrace.resolver.data_cache import cached

    framework = path.name.rpartition("-")[0]
    shared = shared_path(schema_dir, framework)
    sources = [path, Path(__file__)] + ([shared] if framework and shared.is_file() else [])

    value = cached(f"{schema_dir.name}-{path.stem}", sources, lambda: _expanded_file(path, schema_dir, keys))
    if not isinstance(value, dict):  # what build() returns; anything else was not built here
        raise ValueError(f"{path.name}: not a JSON object")
    return value


def _expanded_file(path: Path, schema_dir: Path, keys: tuple[str, ...]) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: not a JSON object")
    return expand(data, schema_dir, keys)


def records_by_name(items: Iterable[Any]) -> dict[str, list[Any]]:
    """A schema's ``env_vars`` records (a name, or a mapping with one) by variable name, in file order."""
    out: dict[str, list[Any]] = {}
    for item in items:
        if isinstance(item, str):
            out.setdefault(item, []).append(item)
        elif isinstance(item, Mapping) and item.get("name"):
            out.setdefault(str(item["name"]), []).append(item)
    return out


class PackedSchema(Mapping[str, "Any"]):
    """A release's schema dict (what :func:`load_expanded` gives) whose ``env_vars`` stay in the data
    cache's parts until read (``resolver/data_parts.py``): the whole list for ``["env_vars"]``, each
    variable's records for :attr:`env_records` (a bucket of ~8 variables at a time). A check asks for a few
    of a release's ~800 variables, and unpacking them all was a third of the schema's load (issue 18).

    With an ``option_row`` (:func:`load_schema_data`), ``options`` is kept as each option's row (its entry
    under ``"raw"``, the one object both give): :meth:`take_option_rows`, and ``["options"]`` the entries."""

    def __init__(self, plain: dict[str, Any], parts: Mapping[str, Any]) -> None:
        from argtrace.resolver.data_parts import Buckets

        # "env_vars" (and "options" when kept as rows) holds None (its place in the key order) until read
        self._plain = plain
        self._parts = parts
        self.env_records: Mapping[str, list[Any]] = Buckets(parts, "by_name")  # == records_by_name(env_vars)
        self._rows_taken = False

    def take_option_rows(self) -> list[dict[str, Any]] | None:
        """What ``option_row`` made of each ``options`` entry, in order, given to the first caller to own
        (``Schema.options`` makes them its specs' fields); None when not kept as rows or already taken.
        ``["options"]`` is read first: the entries as they were, whatever the taker changes in a row."""
        if ROWS not in self._parts or self._rows_taken:
            return None
        self["options"]  # the entries, before a row is the taker's
        self._rows_taken = True
        rows: list[dict[str, Any]] = self._parts[ROWS]
        return rows

    def __getitem__(self, key: str) -> Any:
        if self._plain.get(key) is None and key in self._plain:
            if key == "env_vars":
                self._plain[key] = self._parts["env"]
            elif key == "options" and ROWS in self._parts:
                self._plain[key] = [row["raw"] for row in self._parts[ROWS]]
        return self._plain[key]

    def __contains__(self, key: object) -> bool:
        return key in self._plain

    def __iter__(self) -> Iterator[str]:
        return iter(self._plain)

    def __len__(self) -> int:
        return len(self._plain)


ROWS = "option_rows"  # the part of a packed schema holding its options as rows (load_schema_data)
OptionRow: TypeAlias = "Callable[[dict[str, Any]], dict[str, Any]]"


def load_schema_data(path: Path, schema_dir: Path, option_row: OptionRow | None = None) -> Mapping[str, Any]:
    """:func:`load_expanded` of a release's schema, as a :class:`PackedSchema` when it lists its variables
    (the data cache keeps it in parts, keyed as :func:`load_expanded`'s copy is).

    ``option_row``: what each ``options`` entry is kept as besides itself (``frameworks/schema.py``: the
    fields of its ``OptionSpec``, the entry under ``"raw"``), made once when the copy is built; its module
    is one of the copy's sources. Converting ~500 entries into specs on every check was ~7 M instructions."""
    from argtrace.resolver.data_parts import bucketed, cached_parts

    framework = path.name.rpartition("-")[0]
    shared = shared_path(schema_dir, framework)
    sources = [path, Path(__file__)] + ([shared] if framework and shared.is_file() else [])
    if option_row is not None:
        import sys

        sources.append(Path(str(sys.modules[option_row.__module__].__file__)))

    def build() -> dict[str, Any]:
        data = _pooled(_expanded_file(path, schema_dir, SHARED_KEYS), {})
        env = data.get("env_vars")
        if not isinstance(env, list):
            return {"plain": data}
        # the records by name hold copies of the list's entries, as when each is read from its own part
        by_name = records_by_name(marshal.loads(marshal.dumps(env)))
        value = {"plain": {**data, "env_vars": None}, "env": env, **bucketed("by_name", by_name)}
        options = data.get("options")
        if option_row is not None and isinstance(options, list) and all(isinstance(o, dict) for o in options):
            # the entries live in their rows (one part, one object each), not a second time in "plain"
            value["plain"]["options"] = None
            value[ROWS] = [option_row(o) for o in options]
        return value

    name = f"{schema_dir.name}-{path.stem}-packed" + ("-rows" if option_row is not None else "")
    value = cached_parts(name, sources, build)
    plain = value.get("plain")
    if not isinstance(plain, dict):
        raise ValueError(f"{path.name}: not a JSON object")  # what build() returns; anything else is not
    if "env" not in value:
        return plain
    return PackedSchema(plain, value)


def _pooled(value: Any, pool: dict[str, str]) -> Any:
    """``value`` rebuilt with one object for each equal string (the same lists, dicts and tuples, in the
    same order): ``marshal`` writes a string met again as a reference to the first, which is read back
    without making a new string (a release's ~500 options repeat ``"store"``, ``"argparse"``, their group
    names... as separate objects after ``json.loads``)."""
    kind = type(value)
    if kind is str:
        return pool.setdefault(value, value)
    if kind is list:
        return [_pooled(v, pool) for v in value]
    if kind is dict:
        return {_pooled(k, pool): _pooled(v, pool) for k, v in value.items()}
    if kind is tuple:
        return tuple(_pooled(v, pool) for v in value)
    return value


def _entry(pool: list[Any], item: Any) -> Any:
    """One stored list item as the full entry: a pool index, a patch of a pool entry, or the entry."""
    if isinstance(item, int):
        entry = pool[item]
        return dict(entry) if isinstance(entry, dict) else entry  # a shallow copy: the pool is shared
    if isinstance(item, dict) and PATCH in item:
        base = dict(pool[item[PATCH]])
        for k in item.get("-", ()):
            base.pop(k, None)
        full: dict[str, Any] = {}
        changed = item.get("~", {})
        for k in item.get("order") or [*base, *(k for k in changed if k not in base)]:
            full[k] = changed[k] if k in changed else base[k]
        return full
    return item


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
    rebuilt_order = [k for k in base if k in entry] + [k for k in changed if k not in base]
    if rebuilt_order != list(entry):
        patch["order"] = list(entry)
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
