"""Bundled parser schemas: what each SGLang/vLLM release's argument parser accepts, generated from the wheels.

A schema file (``frameworks/data/schemas/<framework>-<version>.json``) is written by
``scripts/gen_schemas.py`` from the real parser of one release; nothing here is typed by hand.
:class:`Schema` wraps one file with the look-ups the layers need; :func:`choose_schema` picks the schema
for a server start (the requested version, else the version installed in the interpreter the server would
run, else the newest bundled one).

Stdlib only: importing this module must stay cheap.
"""

from __future__ import annotations

import functools
import json
import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.frameworks import schema_store
from argtrace.model import Finding, FrameworkSource, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parent / "data" / "schemas"
FRAMEWORKS = ("sglang", "vllm")


class SchemaError(Exception):
    """No schema can be found or read for a framework/version."""


# ------------------------------------------------------------------------------------------ versions

_VERSION = re.compile(
    r"^\s*v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+(?P<local>[A-Za-z0-9.]+))?\s*$",
    re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def is_version(text: str) -> bool:
    """True for a release version as tags and pins write it (``0.5.10.post1``, ``v0.11.0``, ``0.6.1rc2``)."""
    return bool(_VERSION.match(text)) and any(c.isdigit() for c in text) and "." in text


@functools.lru_cache(maxsize=4096)
def version_key(version: str) -> tuple[Any, ...]:
    """A sort key following PEP 440 order for the versions frameworks publish (``0.5.10.post1``,
    ``0.6.0rc1``, ``0.33.0``); an unparsable version sorts first, by its text. Cached: sorting the bundled
    releases and comparing with each of them asked for the same few dozen keys ~1,500 times a ``check``."""
    m = _VERSION.match(version)
    if not m:
        return ((-1,), (-9, 0), 0, 0, "", version)
    release = tuple(int(p) for p in m.group("release").split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    if m.group("pre"):
        pre = (_PRE_RANK[m.group("pre").lower()], int(m.group("pre_n") or 0))
    elif m.group("dev") is not None and m.group("post") is None:
        pre = (-1, 0)  # 1.0.dev1 < 1.0a1
    else:
        pre = (3, 0)  # a final release sorts after its pre-releases
    post = int(m.group("post") or 0) + 1 if m.group("post") is not None else 0
    dev = int(m.group("dev") or 0) if m.group("dev") is not None else float("inf")
    return (release, pre, post, dev, m.group("local") or "", "")


def compare_versions(a: str, b: str) -> int:
    ka, kb = version_key(a), version_key(b)
    return (ka > kb) - (ka < kb)


# ---------------------------------------------------------------------------------------------- schema


@deferred(frozen=True)
class OptionSpec:
    """One argparse action of the real parser, as the schema records it."""

    option_strings: tuple[str, ...]
    dest: str
    action: str = "store"
    nargs: Any = None
    const: Any = None
    type: str | None = None
    choices: tuple[Any, ...] | None = None
    default: Any = None
    required: bool = False
    help: str | None = None
    metavar: Any = None
    deprecated: Any = False
    group: str | None = None
    action_module: str | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @functools.cached_property
    def flag(self) -> str | None:
        """The canonical spelling: the longest ``--`` option string, else the first one (cached in the
        instance: the resolution layer asks for every option's, twice a ``check``)."""
        longs = [s for s in self.option_strings if s.startswith("--")]
        if longs:
            # Prefer a positive spelling of boolean pairs (--foo over --no-foo).
            positive = [s for s in longs if not s.startswith("--no-")] or longs
            return positive[0]
        return self.option_strings[0] if self.option_strings else None

    @property
    def is_positional(self) -> bool:
        return not self.option_strings

    @property
    def default_value(self) -> Any:
        """The default as JSON data; a default the generator could only ``repr`` is that repr string."""
        d = self.default
        if isinstance(d, dict) and "repr" in d and set(d) <= {"repr", "value"}:
            return d["value"] if "value" in d else d["repr"]
        return d

    @property
    def default_is_repr(self) -> bool:
        """True when the generator could only ``repr`` the default (an object, not JSON data)."""
        d = self.default
        return isinstance(d, dict) and set(d) == {"repr"}

    @property
    def deprecation_message(self) -> str | None:
        if isinstance(self.deprecated, str) and self.deprecated:
            return self.deprecated
        if self.deprecated:
            return "deprecated"
        return None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> OptionSpec:
        choices = data.get("choices")
        # The instance ``cls(...)`` makes with these values (OptionSpec has no __post_init__, no slots),
        # filled in one update: the frozen class's __init__ sets each of its 15 fields through
        # object.__setattr__, ~2% of a short check's instructions for a release's ~500 options (issue 18).
        # tests/test_schema_env_records.py compares the two on every bundled release.
        spec = object.__new__(cls)
        spec.__dict__.update(
            option_strings=tuple(data.get("option_strings") or ()),
            dest=str(data.get("dest")),
            action=str(data.get("action") or "store"),
            nargs=data.get("nargs"),
            const=data.get("const"),
            type=data.get("type"),
            choices=tuple(choices) if isinstance(choices, list) else None,
            default=data.get("default"),
            required=bool(data.get("required", False)),
            help=data.get("help"),
            metavar=data.get("metavar"),
            deprecated=data.get("deprecated", False),
            group=data.get("group"),
            action_module=data.get("action_module"),
            raw=data,
        )
        return spec


def _option_row(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of ``data``'s :class:`OptionSpec` (its ``__dict__``, ``data`` itself under ``"raw"``): what
    a bundled schema's data cache keeps for each option (``schema_store.load_schema_data``)."""
    return dict(vars(OptionSpec.from_dict(data)))


def _specs_of_rows(rows: list[dict[str, Any]], closures: Mapping[str, str]) -> tuple[OptionSpec, ...]:
    """The specs :meth:`Schema.options` makes of the entries whose rows these are (:func:`_option_row`),
    each row its spec's fields (the rows are the caller's to give away: ``take_option_rows``), a
    closure-typed option with its full converter name as :meth:`Schema.options` gives it (in ``type`` and
    in a copy of ``raw``)."""
    new, put = object.__new__, object.__setattr__
    out = []
    for fields in rows:
        spec = new(OptionSpec)
        put(spec, "__dict__", fields)  # the frozen class's own __setattr__ refuses every name
        if closures:
            full = closures.get(fields["dest"])
            t = fields["type"]
            if full and isinstance(t, str) and "(" not in t and full.startswith(t + "("):
                fields["type"] = full
                fields["raw"] = {**fields["raw"], "type": full}
        out.append(spec)
    return tuple(out)


@dataclass(frozen=True)
class EnvVarSpec:
    """An environment variable a framework release reads: its default and type, where it is read, and
    whether it is deprecated for another."""

    name: str
    default: Any = None
    type: str | None = None
    where: str | None = None
    deprecated: bool = False
    replacement: str | None = None


def _env_spec(item: str | Mapping[str, Any]) -> EnvVarSpec:
    """The spec of one ``env_vars`` record of a schema file: a name, or a mapping with a name."""
    if isinstance(item, str):
        return EnvVarSpec(item)
    return EnvVarSpec(
        str(item["name"]),
        item.get("default"),
        item.get("type"),
        item.get("where"),
        bool(item.get("deprecated", False)),
        item.get("replacement"),
    )


@dataclass(frozen=True)
class Schema:
    """One generated schema file: the parser of one framework release."""

    framework: str
    version: str
    data: Mapping[str, Any] = field(compare=False, hash=False, repr=False)
    path: str | None = field(default=None, compare=False)
    # "" for the release's server parser; another entry point's parser built from it (vLLM's demo
    # ``vllm.entrypoints.api_server``, frameworks/vllm_demo.py) is a different schema to every cache
    variant: str = ""

    # ---- parser behaviour
    @property
    def parser_info(self) -> Mapping[str, Any]:
        info = self.data.get("parser")
        return info if isinstance(info, Mapping) else {}

    @property
    def parser_class(self) -> str:
        return str(self.parser_info.get("class") or "ArgumentParser")

    @property
    def allow_abbrev(self) -> bool:
        return bool(self.parser_info.get("allow_abbrev", True))

    @property
    def prefix_chars(self) -> str:
        return str(self.parser_info.get("prefix_chars") or "-")

    @property
    def argv_rewrites(self) -> tuple[str, ...]:
        """Names of the argv rewrites the real parser applies before argparse (``underscore_to_dash``...)."""
        out = []
        for item in self.parser_info.get("argv_rewrites") or ():
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, Mapping):
                name = item.get("name") or item.get("kind") or item.get("id")
                if name:
                    out.append(str(name))
        return tuple(out)

    def rewrite(self, name: str) -> Mapping[str, Any] | None:
        """The schema's description of one argv rewrite (``{"name": ..., "description": ..., ...}``)."""
        for item in self.parser_info.get("argv_rewrites") or ():
            if isinstance(item, Mapping) and item.get("name") == name:
                return item
            if item == name:
                return {"name": name}
        return None

    def has_rewrite(self, *names: str) -> bool:
        have = {n.lower().replace("-", "_") for n in self.argv_rewrites}
        return any(n.lower().replace("-", "_") in have for n in names)

    @property
    def entrypoints(self) -> tuple[Any, ...]:
        return tuple(self.parser_info.get("entrypoints") or ())

    # ---- actions
    @functools.cached_property
    def options(self) -> tuple[OptionSpec, ...]:
        closures = _converter_types(self.framework, self.version)
        rows = self.data.take_option_rows() if isinstance(self.data, schema_store.PackedSchema) else None
        if rows is not None:
            return _specs_of_rows(rows, closures)
        out = []
        for o in self.data.get("options") or ():
            full = closures.get(str(o.get("dest")))
            t = o.get("type")
            if full and isinstance(t, str) and "(" not in t and full.startswith(t + "("):
                o = {**o, "type": full}  # the closure with its inner converter (gen_converter_types.py)
            out.append(OptionSpec.from_dict(o))
        return tuple(out)

    @functools.cached_property
    def positionals(self) -> tuple[OptionSpec, ...]:
        return tuple(OptionSpec.from_dict(o) for o in self.data.get("positionals") or ())

    @functools.cached_property
    def required_specs(self) -> tuple[OptionSpec, ...]:
        """The options and positionals argparse requires, in the parser's order (every parse asks; reading
        all ~500 specs each time cost a check and its fix re-checks ~3 M instructions, issue 18)."""
        return tuple(s for s in (*self.options, *self.positionals) if s.required)

    @functools.cached_property
    def _by_string(self) -> dict[str, OptionSpec]:
        out: dict[str, OptionSpec] = {}
        for opt in self.options:
            for s in opt.option_strings:
                out.setdefault(s, opt)
        return out

    @functools.cached_property
    def _by_dest(self) -> dict[str, list[OptionSpec]]:
        out: dict[str, list[OptionSpec]] = {}
        for opt in (*self.options, *self.positionals):
            out.setdefault(opt.dest, []).append(opt)
        return out

    def option(self, option_string: str) -> OptionSpec | None:
        """The option registered under this exact option string."""
        return self._by_string.get(option_string)

    def options_for_dest(self, dest: str) -> list[OptionSpec]:
        return list(self._by_dest.get(dest, ()))

    def flag_for_dest(self, dest: str) -> str | None:
        for opt in self._by_dest.get(dest, ()):
            if opt.flag:
                return opt.flag
        return None

    @property
    def option_strings(self) -> tuple[str, ...]:
        return tuple(self._by_string)

    @functools.cached_property
    def option_groups(self) -> Mapping[str, str | None]:
        """Each option's dest with its config class (the schema's group; vLLM's dataclass), read-only: one
        per schema (RS032 and RS055 ask at each check and each fix re-check, ~500 options, issue 18)."""
        return MappingProxyType({spec.dest: spec.group for spec in self.options})

    @functools.cached_property
    def dests(self) -> frozenset[str]:
        """Every dest: one set per schema, as ``_by_dest`` is (``fold_settings`` asks once per setting, a
        check and its fix re-check ~30 times: a new 500-name set each time was ~2 M instructions, issue
        18)."""
        return frozenset(self._by_dest)

    @functools.cached_property
    def json_flags(self) -> frozenset[str]:
        """Dests whose value the parser reads as JSON."""
        dests = set(self.data.get("json_flags") or ())
        for opt in self.options:
            t = (opt.type or "").lower()
            if t in {"json.loads", "json_list_type"} or t.endswith(".json_list_type"):
                dests.add(opt.dest)
        return frozenset(dests)

    # ---- environment
    @functools.cached_property
    def env_vars(self) -> tuple[EnvVarSpec, ...]:
        return tuple(
            _env_spec(item)
            for item in self.data.get("env_vars") or ()
            if isinstance(item, str) or (isinstance(item, Mapping) and item.get("name"))
        )

    @functools.cached_property
    def _env_records(self) -> Mapping[str, list[Any]]:
        """Each variable's records in the file (a name, or a mapping), by name in file order: a check asks
        for a few of a release's ~800 variables, whose specs are made when asked for, and a bundled
        release's records are unpacked by name (``schema_store.PackedSchema``, issue 18)."""
        if isinstance(self.data, schema_store.PackedSchema):
            return self.data.env_records
        return schema_store.records_by_name(self.data.get("env_vars") or ())

    @functools.cached_property
    def env_var_names(self) -> frozenset[str]:
        return frozenset(self._env_records)

    def env_var(self, name: str, *, first: bool = False) -> EnvVarSpec | None:
        """``name``'s spec as :attr:`env_vars` has it: its last record (``{v.name: v for v in env_vars}``),
        or with ``first`` its first; None when the release does not read it."""
        records = self._env_records.get(name)
        if not records:
            return None
        return _env_spec(records[0] if first else records[-1])

    @functools.cached_property
    def deprecated_env_names(self) -> frozenset[str]:
        """``{v.name for v in env_vars if v.deprecated}``."""
        return frozenset(
            name
            for name, records in self._env_records.items()
            if any(isinstance(r, Mapping) and r.get("deprecated", False) for r in records)
        )

    def config_dataclass(self, dest: str) -> Mapping[str, Any] | None:
        """For a JSON flag validated into a config dataclass: ``{"class", "fields", "extra"}`` (pydantic's
        policy for unknown keys: ``ignore`` drops them silently, ``forbid`` makes the parser exit 2)."""
        info = self._config_dataclasses.get(dest)
        return info if isinstance(info, Mapping) and isinstance(info.get("fields"), list) else None

    @functools.cached_property
    def _config_dataclasses(self) -> Mapping[str, Any]:
        """The release's converter file's ``dataclasses`` table, looked up once per schema instance: building
        the parser asks for every option's (~500 a check, issue 18)."""
        classes = _converter_data(self.framework, self.version).get("dataclasses")
        return classes if isinstance(classes, dict) else {}

    @property
    def label(self) -> str:
        if not self.variant:
            return f"{self.framework} {self.version}"
        # a module run with python -m (the demo server), or a console's subcommand (`vllm bench latency`)
        program = self.variant if " " in self.variant else f"python -m {self.variant}"
        return f"{self.framework} {self.version} ({program})"

    @functools.cached_property
    def field_names(self) -> Mapping[str, str]:
        """``{dest: field}`` where the framework's from-args code renames a parsed dest to the configuration
        field its log line and /server_info report (SGLang 0.5.10.post1: ``tensor_parallel_size`` ->
        ``tp_size``); generated by ``scripts/gen_field_names.py``. Dests not listed are their own field."""
        return _field_names(self.framework, self.version)

    def field_for_dest(self, dest: str) -> str:
        return self.field_names.get(dest, dest)


# ------------------------------------------------------------------------------------------- loading


CONVERTER_DIR = Path(__file__).resolve().parent / "data" / "converters"


FIELD_NAMES = Path(__file__).resolve().parent / "data" / "field_names.json"


@functools.cache
def _all_field_names() -> Mapping[str, Any]:
    data: Mapping[str, Any] = json.loads(FIELD_NAMES.read_text())
    return data


def _field_names(framework: str, version: str) -> Mapping[str, str]:
    releases = _all_field_names().get(framework) or {}
    names = releases.get(version)
    if names is None:  # an unbundled release analysed with a bundled schema: that schema's names
        return {}
    return dict(names)


@functools.lru_cache(maxsize=16)
def _converter_data(framework: str, version: str) -> Mapping[str, Any]:
    """``frameworks/data/converters/<fw>-<ver>.json`` (``scripts/gen_converter_types.py``), or {}."""
    path = CONVERTER_DIR / f"{framework}-{version}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _converter_types(framework: str, version: str) -> dict[str, str]:
    """dest -> the full name of a closure-typed option's converter, inner converters included
    (``optional_type.<locals>._optional_type(int)``)."""
    types = _converter_data(framework, version).get("types")
    return {str(k): str(v) for k, v in types.items()} if isinstance(types, dict) else {}


def user_schema_dir() -> Path | None:
    """Schemas ``argtrace resolver add`` generated for releases that are not bundled (the resolver cache's
    ``schemas/``); None when the cache location cannot be determined."""
    from argtrace.cache_dirs import resolver_cache_dir

    return Path(resolver_cache_dir()) / "schemas"


def _schema_files(framework: str, include_user: bool = True) -> dict[str, Path]:
    """version -> file: the bundled schemas, plus user-generated ones for releases not bundled."""
    out: dict[str, Path] = {}
    for listing in _listings(framework, include_user):
        out.update(listing)
    return out


def _listings(framework: str, include_user: bool) -> list[dict[str, Path]]:
    """The listings ``_schema_files`` merges, user copies first (a bundled release wins over a user copy).
    The directories are named as strings: a ``Path`` made and stat'ed each time was half of each call, and a
    check and its fix re-checks ask about ten times (session 36)."""
    from argtrace.cache_dirs import resolver_cache_dir

    out: list[dict[str, Path]] = []
    user = os.path.join(resolver_cache_dir(), "schemas") if include_user else None  # user_schema_dir()
    for directory in (user, str(SCHEMA_DIR)):
        if directory is None:
            continue
        try:
            stamp = os.stat(directory).st_mtime_ns
        except OSError:
            continue
        if time.time_ns() - stamp < 2_000_000_000:  # changed just now: may change again within the
            out.append(_list_schemas(directory, framework))  # timestamp's granularity, not kept
        else:
            out.append(_schema_listing(directory, framework, stamp))
    return out


def _list_schemas(directory: str, framework: str) -> dict[str, Path]:
    """The schema files of ``framework`` in ``directory`` by version; nothing if it is no directory."""
    prefix = f"{framework}-"
    out: dict[str, Path] = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return out
    for name in names:
        if name.startswith(prefix) and name.endswith(".json"):
            version = name[len(prefix) : -len(".json")]
            if version and version[0].isdigit():
                out[version] = Path(directory, name)
    return out


@functools.lru_cache(maxsize=16)
def _schema_listing(directory: str, framework: str, stamp: int) -> dict[str, Path]:
    """:func:`_list_schemas`, once per modification time of the directory (``stamp``, its
    ``st_mtime_ns``: a file added or removed changes it); a check and its fix re-checks list the bundled
    schemas about ten times (issue 18)."""
    del stamp  # part of the key only
    return _list_schemas(directory, framework)


def bundled_versions(framework: str, include_user: bool = True) -> list[str]:
    """Versions with a schema, oldest first (PEP 440 order): the bundled ones and (unless
    ``include_user`` is False) those ``argtrace resolver add`` generated into the user cache."""
    listings = _listings(framework, include_user)
    if not listings:
        return []
    if len(listings) == 1 or not listings[0]:  # no user copies (the usual): the kept listing's order, kept
        return list(_sorted_versions(tuple(listings[-1])))
    return sorted(_schema_files(framework, include_user), key=version_key)


@functools.lru_cache(maxsize=16)
def _sorted_versions(versions: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(sorted(versions, key=version_key))


@functools.lru_cache(maxsize=32)
def load_schema(framework: str, version: str) -> Schema:
    path = _schema_files(framework).get(version)
    if path is None:
        raise SchemaError(f"no bundled schema for {framework} {version}")
    try:
        # shared storage (frameworks/schema_store.py): this release's file plus its framework's shared part
        data = schema_store.load_schema_data(path, SCHEMA_DIR, _option_row)
    except (OSError, ValueError, KeyError, IndexError) as exc:
        raise SchemaError(f"cannot read schema {path.name}: {exc}") from exc
    return Schema(
        framework=str(data.get("framework") or framework),
        version=str(data.get("version") or version),
        data=data,
        path=str(path),
    )


def all_schemas(framework: str | None = None) -> list[Schema]:
    """Every bundled schema (of one framework, or of both), oldest first per framework."""
    names = [framework] if framework else list(FRAMEWORKS)
    return [load_schema(name, v) for name in names for v in bundled_versions(name)]


VALUELESS_ACTIONS = frozenset({"store_true", "store_false", "store_const", "count", "help", "version"})


def takes_no_value(framework: str, option_string: str) -> bool:
    """True when every bundled release of ``framework`` registers ``option_string`` as a flag that takes no
    value (``store_true``, ``nargs=0``...); False when any takes one or none knows the spelling.

    Answered from the generated release index (``release_index.py``, kept equal to the schemas by a test):
    loading every bundled schema for this was a third of a short ``check`` (issue 18)."""
    from argtrace.frameworks.release_index import release_index

    try:
        index = release_index(framework)
    except KeyError:  # no bundled release of that framework knows any spelling
        return False
    return index.takes_no_value(option_string)


def nearest_older(framework: str, version: str) -> str | None:
    """The newest bundled version not newer than ``version`` (None when all are newer)."""
    key = version_key(version)
    older = [v for v in bundled_versions(framework) if version_key(v) <= key]
    return older[-1] if older else None


# How many leading numbers name a release family, of which the last patch is the one bundled (issue 15):
# vLLM's minor (0.10.x -> 0.10.2), SGLang's 0.5.N (0.5.5 -> 0.5.5.post3). A release of the family differs
# from the bundled one by patches only; the nearest older release of another family by a whole minor.
_FAMILY = {"vllm": 2, "sglang": 3}


def release_family(framework: str, version: str) -> tuple[str, ...]:
    """The numbers that name ``version``'s family (``("0", "10")`` for vLLM 0.10.1+gptoss)."""
    return tuple(re.findall(r"\d+", version.split("+", 1)[0])[: _FAMILY.get(framework, 2)])


def nearest_bundled(framework: str, version: str, releases: Sequence[str] | None = None) -> str | None:
    """The release among ``releases`` (the bundled ones, oldest first, by default) whose code is nearest to
    ``version``: itself; else one of its family (the newest not newer than it, else the oldest); else the
    newest older one; else the oldest. None when there are none or ``version`` is not a version."""
    candidates = list(bundled_versions(framework) if releases is None else releases)
    if not candidates:
        return None
    if version in candidates:
        return version
    try:
        key = version_key(version)
    except Exception:
        return None
    same = [v for v in candidates if release_family(framework, v) == release_family(framework, version)]
    older = [v for v in same or candidates if version_key(v) <= key]
    if older:
        return older[-1]
    return same[0] if same else candidates[0]


# -------------------------------------------------------------------------------------------- choice


def choose_schema(
    framework: str,
    requested: str | None,
    *,
    server: ServerCommand | None = None,
    python: str | None = None,
    why: str = "requested",
) -> tuple[Schema, FrameworkSource, list[Finding]]:
    """The schema to analyse a server start with, where its version came from, and findings about it.

    Order: the ``requested`` version (bundled, else the nearest older bundled schema with a warning);
    else the version installed in the interpreter the server would run (``python``, or the server's
    interpreter resolved on its predicted PATH); else the newest bundled schema.
    """
    from argtrace.rules import process as rules

    findings: list[Finding] = []
    versions = bundled_versions(framework)
    if not versions:
        raise SchemaError(f"no bundled parser schema for {framework}")
    at = server.at if server is not None else None

    def pick(
        version: str, source: FrameworkSource, why: str
    ) -> tuple[Schema, FrameworkSource, list[Finding]]:
        if version in versions:
            return load_schema(framework, version), source, findings
        used = nearest_bundled(framework, version, versions) or versions[0]
        family = release_family(framework, used) == release_family(framework, version)
        older = version_key(used) <= version_key(version)
        kind = (
            f"{'.'.join(release_family(framework, version))}.x"
            if family
            else ("nearest older" if older else "oldest")
        )
        # Always a note: it is about argtrace's reach, not the launch. A stand-in of the release's own family
        # speaks for it (its last patch; check.settle_report_verdicts keeps its verdicts); another family's
        # stand-in caps what the parser says at a warning that names the assumption. A correct launch of a
        # release older than every bundled one (vLLM 0.5.4, mixed38) or naming 0.10.1.1 had a warning here.
        if family:
            analysing = f"analysing with {used}, the bundled release of its family ({kind})"
        else:
            analysing = f"analysing with the {kind} bundled one, {used}"
        findings.append(
            rules.PR_VERSION_NOT_BUNDLED.finding(
                f"{framework} {version} ({why}) has no bundled parser schema; {analysing}. Flags added or "
                f"removed {'after' if older and not family else 'between'} {used}"
                f"{'' if older and not family else f' and {version}'} may be misjudged.",
                at=at,
                fix=f"pass --framework-version with one of: {', '.join(versions)}",
                severity="info",
            )
        )
        return load_schema(framework, used), source, findings

    if requested:
        return pick(requested, "bundled-schema", why)

    from argtrace.frameworks import installed

    found = installed.installed_framework_version(framework, server=server, python=python)
    if found.version:
        return pick(found.version, "installed", f"installed in {found.interpreter}")
    return load_schema(framework, versions[-1]), "bundled-schema", findings


def schemas_for(framework: str, extra: Sequence[Schema] = ()) -> list[Schema]:
    """Bundled schemas of ``framework`` plus any extra ones given, deduplicated, oldest first."""
    seen: dict[tuple[str, str], Schema] = {}
    for s in (*all_schemas(framework), *extra):
        if s.framework == framework:
            seen.setdefault((s.framework, s.version), s)
    return sorted(seen.values(), key=lambda s: version_key(s.version))
