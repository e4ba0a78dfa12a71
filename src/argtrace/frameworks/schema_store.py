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

Storing them (``schema_pack.pack``) is run by ``scripts/gen_schemas.py --pack``. The raise-site indexes
(``data/raise_sites/``) are stored the same way, with ``sites`` as the shared list (:data:`RAISE_SITE_KEYS`,
``schema_pack.raise_site_identity``).
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
# {"@": pool index, "~": {changed keys}, "-": [dropped keys]}; an "order" of the keys is still read (files
# packed before schema_pack stopped writing it) but never needed: no reader depends on a key order
PATCH = "@"


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
