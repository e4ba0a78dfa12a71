#!/usr/bin/env python3
"""Index every message a framework release can print, from its wheel, for ``argtrace why``.

    python scripts/gen_messages.py sglang==0.5.23                 # the wheel in the resolver cache
    python scripts/gen_messages.py vllm==0.11.0 --wheel-dir /tmp/w  # or in another directory
    python scripts/gen_messages.py vllm==0.11.0 --download /tmp/w   # pip download it there first
    python scripts/gen_messages.py /path/to/vllm-0.11.0-cp38-abi3-manylinux1_x86_64.whl
    python scripts/gen_messages.py vllm==0.15.1 --unpacked /tmp/argtrace-wheels  # an unpacked wheel
    python scripts/gen_messages.py --drop sglang==0.5.19          # forget a release
    python scripts/gen_messages.py huggingface_hub==2.4.0 --download /tmp/w  # a library a launch goes through
    python scripts/gen_messages.py /tmp/w/flash_attn_4-4.0.0b36-py3-none-any.whl  # its package: flash_attn
    python scripts/gen_messages.py --check --wheel-dir /tmp/w     # re-index every release whose wheel is here
    python scripts/gen_messages.py --asserts vllm==0.33.0         # the asserts without words, same wheels

The wheel (a zip) is read directly: each ``.py`` file of the package is parsed with ``ast`` (never
imported, never unpacked, no source copied) by ``argtrace.resolver.message_index``. The release's sites
are merged into ``src/argtrace/frameworks/data/messages/<framework>.json.gz``: one file per framework, a
site shared by several releases stored once with its line in each (``at``), so a new release costs only
what it changed. Nothing in those files is typed by hand. ``--unpacked DIR`` reads a release from the
directory ``scripts/gen_schemas.py --overlay`` unpacked its wheel into (``DIR/<fw>-<ver>``, with the wheel's
name and sha256 in ``argtrace-wheel.json``): the same ``.py`` files, the same sites, no second download.

Libraries a launch goes through (``LIBRARIES``: huggingface_hub) are indexed the same way, but only the
modules whose messages name the value of a server setting (a repo id, a revision: what ``--model-path`` /
``--model`` was given); their store says ``"library": true`` and, for huggingface_hub, carries the repo-id
rule of its newest indexed release (``REPO_ID_REGEX`` of ``utils/_validators.py``, read by AST) for
``argtrace check``. ``--check`` indexes again every release of the stores whose wheel (same sha256) is
in the wheel directories and fails when a stored site differs: releases without a wheel at hand are skipped
and counted, so it runs offline on whatever is cached.

``--asserts`` does the same for the asserts the message index leaves out (a bare ``assert cond``, or one whose
message has too few literal characters to match: ``argtrace.resolver.assert_index``), into
``src/argtrace/frameworks/data/asserts/<framework>.json.gz`` (SGLang and vLLM only): what ``why`` and ``log``
match a bare ``AssertionError``'s last frame, the statement under it, or a quoted condition against.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from argtrace.resolver import assert_index, message_index  # noqa: E402
from argtrace.resolver.assert_store import ASSERT_DIR  # noqa: E402
from argtrace.resolver.message_store import (  # noqa: E402
    FORMAT,
    LIBRARY_MODULES,
    MESSAGE_DIR,
    site_key,
    sort_releases,
)

GENERATOR = "scripts/gen_messages.py"
FRAMEWORKS = ("sglang", "vllm")
LIBRARIES = LIBRARY_MODULES
PACKAGES = (*FRAMEWORKS, *LIBRARIES)
_WHEEL_NAME = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[^-]+)-.*\.whl$")


@dataclass(frozen=True)
class Kind:
    """What a run indexes: the message sites (the default) or the asserts without words (``--asserts``)."""

    out: Path
    generated_by: str
    index: Callable[[str, Path], list[dict[str, Any]]]
    key: Callable[[dict[str, Any]], tuple[Any, ...]]
    order: Callable[[dict[str, Any]], tuple[str, ...]]
    max_reads: int


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def default_wheel_dirs() -> list[Path]:
    from argtrace.resolver.environments import cache_dir

    return [cache_dir() / "wheels"]


def find_wheel(framework: str, version: str, dirs: list[Path]) -> Path | None:
    for folder in dirs:
        for path in sorted(folder.glob(f"{framework}-{version}-*.whl")):
            return path
    return None


def download(framework: str, version: str, dest: Path) -> Path:
    from argtrace.resolver.environments import EnvironmentError_, download_wheel

    try:
        return download_wheel(framework, version, dest)
    except EnvironmentError_ as exc:
        raise SystemExit(str(exc)) from None


UNPACKED_NOTE = "argtrace-wheel.json"  # schema_gen.WHEEL_NOTE (not imported: it pulls in the resolver)


def find_unpacked(framework: str, version: str, dirs: list[Path]) -> Path | None:
    for folder in dirs:
        if (folder / f"{framework}-{version}" / UNPACKED_NOTE).is_file():
            return folder / f"{framework}-{version}"
    return None


def resolve_target(
    target: str, dirs: list[Path], download_dir: Path | None, unpacked: list[Path] | None = None
) -> tuple[str, str, Path]:
    """(framework, version, wheel) for ``FRAMEWORK==VERSION`` or a wheel path; the "wheel" is a directory
    when the release is found unpacked in ``unpacked`` (and not as a wheel in ``dirs``)."""
    if "==" in target:
        framework, _, version = target.partition("==")
        if framework not in PACKAGES:
            raise SystemExit(f"{target}: the package is one of {', '.join(PACKAGES)}")
        wheel = find_wheel(framework, version, dirs) or find_unpacked(framework, version, unpacked or [])
        if wheel is None and download_dir is not None:
            wheel = download(framework, version, download_dir)
        if wheel is None:
            raise SystemExit(
                f"no {framework}-{version}-*.whl in {', '.join(map(str, dirs))}"
                " (give --wheel-dir or --download)"
            )
        return framework, version, wheel
    wheel = Path(target)
    m = _WHEEL_NAME.match(wheel.name)
    name = m.group("name").lower() if m and wheel.is_file() else ""
    if m and wheel.is_file() and name not in PACKAGES:
        name = library_inside(wheel) or name
    if not m or name not in PACKAGES:
        raise SystemExit(f"{target}: neither PACKAGE==VERSION nor a wheel of {', '.join(PACKAGES)}")
    return name, m.group("version"), wheel


def library_inside(wheel: Path) -> str | None:
    """The indexed library whose modules a wheel of another distribution name holds (flash-attn-4's wheel
    is the ``flash_attn`` package: ``flash_attn/cute/interface.py``)."""
    import zipfile

    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    for library, modules in LIBRARIES.items():
        if any(module.split("::", 1)[0] in names for module in modules):
            return library
    return None


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def index_release(package: str, wheel: Path) -> list[dict[str, Any]]:
    """The sites of a wheel (or of a directory it was unpacked into); of a library, only its ``LIBRARIES``
    modules."""
    if wheel.is_dir():
        sites = message_index.index_unpacked(wheel, package)
    else:
        sites = message_index.index_wheel(str(wheel), package)
    modules = LIBRARIES.get(package)
    if modules is None:
        return sites
    return [s for s in sites if s["f"] in modules or f"{s['f']}::{s['fn']}" in modules]


def index_asserts(package: str, wheel: Path) -> list[dict[str, Any]]:
    """The asserts without words of a wheel (or of a directory it was unpacked into)."""
    if package not in FRAMEWORKS:
        raise SystemExit(f"--asserts indexes {', '.join(FRAMEWORKS)}, not {package}")
    if wheel.is_dir():
        return assert_index.index_unpacked(wheel, package)
    return assert_index.index_wheel(wheel, package)


MESSAGES = Kind(
    MESSAGE_DIR,
    GENERATOR,
    lambda package, wheel: index_release(package, wheel),
    site_key,
    lambda s: (s["f"], s["fn"], json.dumps(s["p"])),
    message_index.MAX_READS,
)
ASSERTS = Kind(
    ASSERT_DIR,
    f"{GENERATOR} --asserts",
    index_asserts,
    assert_index.site_key,
    lambda s: (s["f"], s["fn"], s["c"], json.dumps(s.get("w") or [])),
    assert_index.MAX_READS,
)


def repo_id_rule(wheel: Path, version: str) -> dict[str, Any] | None:
    """huggingface_hub's ``REPO_ID_REGEX`` (pattern and ``re`` flags, read by AST from
    ``utils/_validators.py``) and whether ``validate_repo_id`` matches or fullmatches it."""
    import ast
    import zipfile

    name = "huggingface_hub/utils/_validators.py"
    with zipfile.ZipFile(wheel) as zf:
        source = zf.read(name).decode("utf-8")
    tree = ast.parse(source)
    rule: dict[str, Any] = {"release": version, "file": name}
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Assign)
            and [ast.unparse(t) for t in node.targets] == ["REPO_ID_REGEX"]
            and isinstance(node.value, ast.Call)
            and node.value.args
            and isinstance(node.value.args[0], ast.Constant)
        ):
            rule["pattern"] = node.value.args[0].value
            rule["line"] = node.lineno
            flags = [kw.value for kw in node.value.keywords if kw.arg == "flags"] + node.value.args[1:]
            rule["flags"] = sorted(
                {n.attr for f in flags for n in ast.walk(f) if isinstance(n, ast.Attribute)}
            )
        if isinstance(node, ast.FunctionDef) and node.name == "validate_repo_id":
            rule["validator_line"] = node.lineno
            calls = [
                n.func.attr
                for n in ast.walk(node)
                if isinstance(n, ast.Call)
                and isinstance(n.func, ast.Attribute)
                and ast.unparse(n.func.value) == "REPO_ID_REGEX"
            ]
            rule["match"] = calls[0] if calls else None
    return rule if "pattern" in rule and rule.get("match") in ("match", "fullmatch") else None


def load_store(framework: str, out_dir: Path, kind: Kind = MESSAGES) -> dict[str, Any]:
    path = out_dir / f"{framework}.json.gz"
    if path.exists():
        data: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
        if data.get("format") == FORMAT:
            return data
        log(f"{path}: format {data.get('format')} is not {FORMAT}; starting over")
    store = {
        "format": FORMAT,
        "framework": framework,
        "generated_by": kind.generated_by,
        "releases": {},
        "sites": [],
    }
    if framework in LIBRARIES:
        store["library"] = True
        store["modules"] = list(LIBRARIES[framework])
    return store


def drop_release(store: dict[str, Any], version: str) -> None:
    store["releases"].pop(version, None)
    kept = []
    for site in store["sites"]:
        site["at"].pop(version, None)
        if site["at"]:
            kept.append(site)
    store["sites"] = kept


def merge_release(
    store: dict[str, Any], version: str, sites: list[dict[str, Any]], kind: Kind = MESSAGES
) -> None:
    drop_release(store, version)
    by_key = {kind.key(s): s for s in store["sites"]}
    for site in sites:
        key = kind.key(site)
        entry = by_key.get(key)
        if entry is None:
            entry = by_key[key] = {k: v for k, v in site.items() if k != "l"} | {"at": {}}
            store["sites"].append(entry)
        else:
            entry["r"] = sorted(set(entry["r"]) | set(site["r"]))[: kind.max_reads]
        entry["at"].setdefault(version, []).append(site["l"])
    order = sort_releases([*store["releases"], version])
    for entry in store["sites"]:
        entry["at"] = {v: entry["at"][v] for v in order if v in entry["at"]}
    store["sites"].sort(key=kind.order)


def merge_store(store: dict[str, Any], other: dict[str, Any], kind: Kind = MESSAGES) -> None:
    """Add every release of ``other`` (a store file of the same framework written by another run, e.g. in
    parallel) to ``store``, exactly as if its wheels had been indexed into it."""
    per_release: dict[str, list[dict[str, Any]]] = {v: [] for v in other["releases"]}
    for entry in other["sites"]:
        base = {k: v for k, v in entry.items() if k != "at"}
        for version, lines in entry["at"].items():
            per_release[version].extend(base | {"l": line} for line in lines)
    for version, sites in per_release.items():
        merge_release(store, version, sites, kind)
        store["releases"][version] = other["releases"][version]


def refilter(store: dict[str, Any]) -> int:
    """Drop the sites of files the generator no longer reads (``message_index.is_test_file``), and recount
    each release. A file's sites depend on that file alone, so this gives what indexing every stored
    release again would, without its wheel. Returns the number of distinct sites dropped."""
    kept = [s for s in store["sites"] if not message_index.is_test_file(s["f"])]
    dropped = len(store["sites"]) - len(kept)
    store["sites"] = kept
    counts = {v: 0 for v in store["releases"]}
    for site in kept:
        for version, lines in site["at"].items():
            counts[version] = counts.get(version, 0) + len(lines)
    for version, release in store["releases"].items():
        release["sites"] = counts.get(version, 0)
    return dropped


def write_store(store: dict[str, Any], out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{store['framework']}.json.gz"
    store["releases"] = {v: store["releases"][v] for v in sort_releases(list(store["releases"]))}
    text = json.dumps(store, separators=(",", ":"), ensure_ascii=False, sort_keys=False)
    # mtime=0: the same input gives the same bytes; written beside and renamed, so a run stopped while it
    # writes leaves the previous whole file
    part = path.with_name(path.name + ".part")
    part.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    part.replace(path)
    return path


def stored_sites(store: dict[str, Any], version: str, kind: Kind = MESSAGES) -> list[tuple[Any, ...]]:
    """One release's sites as the store keeps them (its key and its lines), for a comparison."""
    out = []
    for entry in store["sites"]:
        for line in entry["at"].get(version, []):
            out.append((kind.key(entry), line))
    return sorted(out)


def check_stores(out_dir: Path, dirs: list[Path], kind: Kind = MESSAGES) -> int:
    """Index again each stored release whose wheel (same name and sha256) is in ``dirs``, and compare.
    Releases whose wheel is not at hand are skipped (counted): the check needs no network."""
    differ = checked = skipped = 0
    for path in sorted(out_dir.glob("*.json.gz")):
        store = json.loads(gzip.decompress(path.read_bytes()))
        package = store["framework"]
        for version, release in store["releases"].items():
            wheel = next((f / release["wheel"] for f in dirs if (f / release["wheel"]).is_file()), None)
            if wheel is None or sha256(wheel) != release["sha256"]:
                skipped += 1
                continue
            checked += 1
            fresh = kind.index(package, wheel)
            got = sorted((kind.key(s), s["l"]) for s in fresh)
            if got != stored_sites(store, version, kind) or len(fresh) != release["sites"]:
                differ += 1
                log(f"{package} {version}: {len(fresh)} sites from {wheel.name} differ from {path.name}")
        rule = store.get("repo_id")
        if rule is not None:
            newest = store["releases"][rule["release"]]
            wheel = next((f / newest["wheel"] for f in dirs if (f / newest["wheel"]).is_file()), None)
            if wheel is not None and repo_id_rule(wheel, rule["release"]) != rule:
                differ += 1
                log(f"{package} {rule['release']}: the repo-id rule differs from {path.name}")
    log(f"checked {checked} releases, {skipped} without their wheel at hand, {differ} differ")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("targets", nargs="*", metavar="FRAMEWORK==VERSION|WHEEL")
    parser.add_argument(
        "--wheel-dir", action="append", type=Path, default=[], help="where to look for wheels"
    )
    parser.add_argument("--download", type=Path, metavar="DIR", help="pip download a missing wheel into DIR")
    parser.add_argument(
        "--unpacked",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="where gen_schemas.py --overlay unpacked wheels (DIR/<fw>-<ver>/argtrace-wheel.json)",
    )
    parser.add_argument(
        "--merge",
        action="append",
        type=Path,
        default=[],
        metavar="STORE",
        help="add the releases of another <framework>.json.gz (written by a parallel run with --out)",
    )
    parser.add_argument("--drop", action="append", default=[], metavar="FRAMEWORK==VERSION")
    parser.add_argument(
        "--out", type=Path, default=None, help=f"default: {MESSAGE_DIR} ({ASSERT_DIR} with --asserts)"
    )
    parser.add_argument(
        "--asserts",
        action="store_true",
        help="index the asserts without words (bare, or printing values only) instead of the messages",
    )
    parser.add_argument(
        "--refilter",
        action="append",
        default=[],
        metavar="FRAMEWORK",
        help="drop the stored sites of files the generator now skips (test modules) and recount releases",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="index again every stored release whose wheel is in the wheel directories; exit 1 on a "
        "difference",
    )
    args = parser.parse_args(argv)
    kind = ASSERTS if args.asserts else MESSAGES
    args.out = args.out or kind.out
    dirs = [*args.wheel_dir, *default_wheel_dirs()]
    if args.check:
        return check_stores(args.out, dirs, kind)
    if not args.targets and not args.drop and not args.merge and not args.refilter:
        parser.error("give FRAMEWORK==VERSION or a wheel path")
    stores: dict[str, dict[str, Any]] = {}
    for framework in args.refilter:
        store = stores.setdefault(framework, load_store(framework, args.out, kind))
        log(f"{framework}: dropped {refilter(store)} distinct sites of test modules")
    for item in args.drop:
        framework, _, version = item.partition("==")
        store = stores.setdefault(framework, load_store(framework, args.out, kind))
        drop_release(store, version)
    for other_path in args.merge:
        other = json.loads(gzip.decompress(other_path.read_bytes()))
        store = stores.setdefault(other["framework"], load_store(other["framework"], args.out, kind))
        merge_store(store, other, kind)
        log(f"merged {', '.join(other['releases'])} from {other_path}")
    for target in args.targets:
        framework, version, wheel = resolve_target(target, dirs, args.download, args.unpacked)
        started = time.monotonic()
        sites = kind.index(framework, wheel)
        if wheel.is_dir():
            note = json.loads((wheel / UNPACKED_NOTE).read_text(encoding="utf-8"))
            name, digest = str(note["wheel"]), str(note["wheel_sha256"])
        else:
            name, digest = wheel.name, sha256(wheel)
        store = stores.setdefault(framework, load_store(framework, args.out, kind))
        merge_release(store, version, sites, kind)
        store["releases"][version] = {"wheel": name, "sha256": digest, "sites": len(sites)}
        if framework == "huggingface_hub" and not wheel.is_dir():
            rule = repo_id_rule(wheel, version)
            newest = sort_releases(store["releases"])[-1]
            if rule is not None and version == newest:
                store["repo_id"] = rule
        took = time.monotonic() - started
        log(f"{framework} {version}: {len(sites)} sites from {wheel.name} in {took:.0f} s")
        if kind is ASSERTS:  # a long run over many releases keeps what it has done on disk
            write_store(store, args.out)
    for store in stores.values():
        path = write_store(store, args.out)
        log(f"wrote {path} ({path.stat().st_size / 1024:.0f} KiB, {len(store['sites'])} distinct sites)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
