"""The resolution cache: a resolver subprocess's answer, kept under a key over everything that decides it.

A resolving ``check`` spends 13-15 s starting the framework in its resolver environment; the same inputs give
the same answer, so a repeated run (the sixth identical ``check``, fix verification re-runs, framework-sizing
runs) reads the stored answer instead. The key (:func:`key`) covers:

- argtrace's own code that runs in the subprocess: every file under ``argtrace/resolver/`` (``record.py``,
  the stubs, the fake GPU) and ``layers/memory/framework_sizing.py``, by content;
- the resolver environment: its manifest and its base's (they carry the wheel's sha256, the installed
  versions, the build time), and the modification times of their ``site-packages`` directories (a package
  added or removed by hand changes them);
- the request as sent (argv, recording on/off, sizing inputs), and the content of every file or directory
  an argv word names (``--config FILE``, ``--chat-template FILE``, the model directory: its ``config.json``
  bytes and the other small files beside it);
- the subprocess's whole environment (the server's predicted variables and the fake GPU profile
  ``ARGTRACE_FAKE_GPU``, i.e. ``--gpu``).

Only argtrace's own resolver environments are cached: a ``--python`` interpreter has no manifest, so nothing
tells when its packages change (it always runs). Only complete answers are stored (never a timeout or a
crash). An entry is a JSON file named by its key and holding the key again: a file that does not parse, or
holds another key or format, is ignored and overwritten by the next run. Writes go to a temporary file in the
same directory and are renamed over the entry (atomic on POSIX), so concurrent runs never see half a file.

The same store keeps shellcheck's opinions of scripts (``layers/shell/shellcheck.py``, entries named
``shellcheck-*``, keyed by the script's bytes and shellcheck's binary and configuration).

Secrets never reach the disk in clear: a resolver echoes the launch's ``--api-key`` and ``--admin-api-key``
in its answer (3 copies each in one SGLang 0.5.23 answer), so every value the run knows secret
(``redact.run_redactor``) is replaced in the stored payload by a NUL, the first 16 hex digits of its SHA-256
and a NUL (:func:`seal`), and put back on load from the same run's secrets (:func:`unseal`). The key covers
every input the secrets come from, so a run that finds an entry knows them again; one that does not (a
placeholder of a secret it does not know) treats the entry as absent. Entries are files of mode 0600 in a
directory only the user can write to (``cache_dirs.open_private_dir``); entries of format 1, which held
secrets in clear, are deleted when met.

``--no-cache`` (``check``, ``mem``) or ``ARGTRACE_NO_CACHE=1`` bypasses it; ``argtrace resolver clear-cache``
empties it. ``ARGTRACE_RESOLUTION_CACHE`` moves it (default: the user cache dir, ``resolutions/``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from argtrace.cache_dirs import open_private_dir, read_private, write_private

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 2  # 2: secrets sealed (format 1 kept them in clear)
# Files beside the model's config.json above this size (weights) are keyed by name, size and mtime, not read.
MAX_HASHED_BYTES = 16 * 1024 * 1024
# A directory named by an argv word is keyed by its top-level files only, at most this many (a model dir).
MAX_DIR_ENTRIES = 200
_RESOLVER_DIR = Path(__file__).resolve().parent
_SIZING_PY = _RESOLVER_DIR.parent / "layers" / "memory" / "framework_sizing.py"
_bypass = False
_code_digest: str | None = None
# the secrets in each keyed request's argv and environment: a stored answer is sealed with them (and with
# those its own names mark) and unsealed with them, whether or not a layer registered them for the report
_request_secrets: dict[str, frozenset[str]] = {}


def _sha256(data: bytes = b"") -> Any:
    """``hashlib.sha256``, imported here: a check that resolves nothing hashes nothing (OpenSSL's load,
    start-up, issue 18). Entries hash whole files (up to MAX_HASHED_BYTES), where OpenSSL's speed counts."""
    import hashlib

    return hashlib.sha256(data)


def cache_root() -> Path:
    override = os.environ.get("ARGTRACE_RESOLUTION_CACHE")
    if override:
        return Path(override).expanduser()
    from argtrace.cache_dirs import user_cache_dir

    return Path(user_cache_dir()) / "resolutions"


def enabled() -> bool:
    return not _bypass and os.environ.get("ARGTRACE_NO_CACHE", "") in ("", "0")


@contextlib.contextmanager
def bypassed(bypass: bool = True) -> Iterator[None]:
    """``--no-cache`` for the duration of one command (restored after: tests run commands in-process)."""
    global _bypass
    before = _bypass
    _bypass = before or bypass
    try:
        yield
    finally:
        _bypass = before


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

    _request_secrets[entry_key] = frozenset(
        argv_secrets([w if isinstance(w, str) else None for w in words]) | secret_values(dict(env))
    )
    return entry_key


def load(entry_key: str) -> dict[str, Any] | None:
    """The stored answer for ``entry_key``, or None (absent, bypassed, unreadable, not ours)."""
    if not enabled():
        return None
    dir_fd = open_private_dir(str(cache_root()))
    if dir_fd is None:
        return None  # absent, or a directory others can write to: its answers are not ours to believe
    try:
        raw = read_private(dir_fd, f"{entry_key}.json")
    finally:
        os.close(dir_fd)
    if raw is None:
        return None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):  # RecursionError: nested past the stack
        return None
    if isinstance(data, dict) and data.get("format") == 1:
        _forget(f"{entry_key}.json")  # an entry that kept the launch's secrets in clear
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("key") != entry_key:
        return None
    payload = unseal(data.get("payload"), _known_secrets(entry_key))
    return payload if isinstance(payload, dict) else None


def store(entry_key: str, payload: Mapping[str, Any]) -> None:
    """Keep ``payload`` under ``entry_key``; a cache that cannot be written is only slower, never an error."""
    if not enabled():
        return
    sealed = seal(payload, _known_secrets(entry_key, payload))
    if sealed is None:
        return  # a text holding the placeholder's mark: it could not be put back exactly
    try:
        data = json.dumps({"format": FORMAT, "key": entry_key, "payload": sealed}).encode("utf-8")
    except (TypeError, ValueError):
        return
    dir_fd = open_private_dir(str(cache_root()), create=True)
    if dir_fd is None:
        return  # a directory others can change: keep nothing there
    try:
        write_private(dir_fd, f"{entry_key}.json", data)
    finally:
        os.close(dir_fd)


def _forget(name: str) -> None:
    dir_fd = open_private_dir(str(cache_root()))
    if dir_fd is not None:
        try:
            os.unlink(name, dir_fd=dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)


def _known_secrets(entry_key: str, payload: object = None) -> set[str]:
    """The run's secrets, the request's, and (to store) those ``payload``'s own names mark: a secret only
    the answer holds (a ``--config`` file's ``api_key``) is sealed too, and such an entry is then never
    read back (its tag names a secret the next run cannot know before it has the answer): slower, never
    in clear."""
    from argtrace.redact import Redactor, is_masked, run_redactor

    found = Redactor(run_redactor().known | _request_secrets.get(entry_key, frozenset()))
    if payload is not None:
        found.learn_data(payload)
    return {s for s in found.known if not is_masked(s)}


def _tag(secret: str) -> str:
    return "\0" + _sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:16] + "\0"


def _map_strings(value: Any, change: Any) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, Mapping):
        return {_map_strings(k, change): _map_strings(v, change) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_map_strings(item, change) for item in value]
    return value


class _Unsealable(Exception):
    pass


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


_TAG = re.compile("\0([0-9a-f]{16})\0")


def unseal(payload: Any, secrets: set[str]) -> Any:
    """The payload :func:`seal` was given, from the same secrets; None when a tag names a secret not among
    ``secrets``."""
    tags: dict[str, str] | None = None

    def change(text: str) -> str:
        nonlocal tags
        if "\0" not in text:
            return text
        if tags is None:
            tags = {_tag(s)[1:-1]: s for s in secrets}
        known = tags

        def back(m: re.Match[str]) -> str:
            if m.group(1) not in known:
                raise _Unsealable
            return known[m.group(1)]

        return _TAG.sub(back, text)

    try:
        return _map_strings(payload, change)
    except _Unsealable:
        return None


def clear() -> tuple[Path, int]:
    """Empty the cache; (its directory, entries removed)."""
    root = cache_root()
    removed = 0
    if root.is_dir():
        for entry in root.iterdir():
            if entry.is_file() and entry.suffix == ".json":
                with contextlib.suppress(OSError):
                    entry.unlink()
                    removed += 1
    return root, removed
