"""The resolution cache's key making and writing (cache.py keeps the reading): the key over everything that
decides a resolver run (:func:`key`, the module text of cache.py says what it covers), the sealing of a
payload's secrets and the writing of an entry (:func:`store`, :func:`seal`), and ``clear-cache``. A check
that resolves nothing and finds shellcheck's opinion stored runs none of it, so none of it is loaded then.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from argtrace.cache_dirs import open_private_dir, write_private
from argtrace.resolver import cache
from argtrace.resolver.cache import FORMAT, _map_strings, _sha256, _tag, _Unsealable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Files beside the model's config.json above this size (weights) are keyed by name, size and mtime, not read.
MAX_HASHED_BYTES = 16 * 1024 * 1024
# A directory named by an argv word is keyed by its top-level files only, at most this many (a model dir).
MAX_DIR_ENTRIES = 200
_RESOLVER_DIR = Path(__file__).resolve().parent
_SIZING_PY = _RESOLVER_DIR.parent / "layers" / "memory" / "framework_sizing.py"
_code_digest: str | None = None


def _file_digest(path: Path) -> str:
    h = _sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def code_digest() -> str:
    """sha256 over argtrace's code that runs inside the resolver process (computed once per process: the
    installed code does not change under a running argtrace)."""
    global _code_digest
    if _code_digest is None:
        h = _sha256()
        files = {
            "resolver/" + p.relative_to(_RESOLVER_DIR).as_posix(): p
            for p in _RESOLVER_DIR.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
        }
        files["layers/memory/framework_sizing.py"] = _SIZING_PY
        for label, path in sorted(files.items()):
            h.update(label.encode() + b"\0" + _file_digest(path).encode() + b"\0")
        _code_digest = h.hexdigest()
    return _code_digest


def _env_part(env_path: str) -> dict[str, Any]:
    """The resolver environment and its base: manifest bytes and site-packages modification times."""
    from argtrace.resolver.environments import MANIFEST

    out: dict[str, Any] = {}
    todo = [Path(env_path)]
    while todo:
        env_dir = todo.pop()
        try:
            raw = (env_dir / MANIFEST).read_bytes()
        except OSError:
            raw = b""
        sites = sorted(
            str(p) + "@" + str(p.stat().st_mtime_ns) for p in env_dir.glob("lib/python*/site-packages")
        )
        out[str(env_dir)] = {"manifest": _sha256(raw).hexdigest(), "site_packages": sites}
        try:
            base = json.loads(raw).get("base")
        except (ValueError, AttributeError):
            base = None
        if isinstance(base, str) and base and base not in out:
            todo.append(Path(base))
    return out


def _path_part(path: Path) -> Any:
    """What a file or directory named on the command line holds, as far as it can decide a resolution."""
    try:
        if path.is_file():
            st = path.stat()
            if st.st_size > MAX_HASHED_BYTES:
                return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}
            return _file_digest(path)
        if path.is_dir():
            entries: dict[str, Any] = {}
            for child in sorted(path.iterdir())[:MAX_DIR_ENTRIES]:
                if child.is_file():
                    entries[child.name] = _path_part(child)
            return entries
    except OSError as exc:
        return f"unreadable: {type(exc).__name__}"
    return None


def _named_paths(argv: Any) -> dict[str, Any]:
    """Every argv word (or ``--flag=VALUE`` value) that is an absolute path to something that exists."""
    out: dict[str, Any] = {}
    for word in argv if isinstance(argv, list) else []:
        if not isinstance(word, str):
            continue
        for candidate in (word, word.partition("=")[2]):
            if candidate.startswith("/") and len(candidate) < 4096 and candidate not in out:
                part = _path_part(Path(candidate))
                if part is not None:
                    out[candidate] = part
    return out


def key(kind: str, env_path: str, request: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The cache key of one resolver run (``kind``: ``resolution`` or ``sizing``)."""
    words = list(request.get("argv") or [])
    for variant in request.get("variants") or []:
        words += list(variant)
    material = {
        "format": FORMAT,
        "kind": kind,
        "code": code_digest(),
        "environment": _env_part(env_path),
        "request": request,
        "paths": _named_paths(words),
        "env": dict(sorted(env.items())),
    }
    blob = json.dumps(material, sort_keys=True, default=str).encode()
    entry_key = _sha256(blob).hexdigest()
    from argtrace.redact import argv_secrets, secret_values

    cache._request_secrets[entry_key] = frozenset(
        argv_secrets([w if isinstance(w, str) else None for w in words]) | secret_values(dict(env))
    )
    return entry_key


def store(entry_key: str, payload: Mapping[str, Any]) -> None:
    """Keep ``payload`` under ``entry_key``; a cache that cannot be written is only slower, never an error."""
    if not cache.enabled():
        return
    sealed = seal(payload, cache._known_secrets(entry_key, payload))
    if sealed is None:
        return  # a text holding the placeholder's mark: it could not be put back exactly
    try:
        data = json.dumps({"format": FORMAT, "key": entry_key, "payload": sealed}).encode("utf-8")
    except (TypeError, ValueError):
        return
    dir_fd = open_private_dir(str(cache.cache_root()), create=True)
    if dir_fd is None:
        return  # a directory others can change: keep nothing there
    try:
        write_private(dir_fd, f"{entry_key}.json", data)
    finally:
        os.close(dir_fd)


def seal(payload: Any, secrets: set[str]) -> Any:
    """``payload`` with every occurrence of a secret replaced by its tag, in one left-to-right pass (longest
    secret first); None when a text already holds a NUL (argv and environment values never do, so a tag
    cannot be confused with the text around it)."""
    ordered = sorted(secrets, key=lambda s: (-len(s), s))
    pattern = re.compile("|".join(re.escape(s) for s in ordered)) if ordered else None

    def change(text: str) -> str:
        if "\0" in text:
            raise _Unsealable
        return pattern.sub(lambda m: _tag(m.group()), text) if pattern is not None else text

    try:
        return _map_strings(payload, change)
    except _Unsealable:
        return None


def clear() -> tuple[Path, int]:
    """Empty the cache; (its directory, entries removed)."""
    root = cache.cache_root()
    removed = 0
    if root.is_dir():
        for entry in root.iterdir():
            if entry.is_file() and entry.suffix == ".json":
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed += 1
    return root, removed
