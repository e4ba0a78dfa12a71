"""The resolution cache: a resolver subprocess's answer, kept under a key over everything that decides it.

A resolving ``check`` spends 13-15 s starting the framework in its resolver environment; the same inputs give
the same answer, so a repeated run (the sixth identical ``check``, fix verification re-runs, framework-sizing
runs) reads the stored answer instead. The key (``cache_write.key``) covers:

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
and a NUL (``cache_write.seal``), and put back on load from the same run's secrets (:func:`unseal`). The
key covers every input the secrets come from, so a run that finds an entry knows them again; one that does
not (a placeholder of a secret it does not know) treats the entry as absent. Entries are files of mode 0600
in a directory only the user can write to (``cache_dirs.open_private_dir``); entries of format 1, which
held secrets in clear, are deleted when met.

``--no-cache`` (``check``, ``mem``) or ``ARGTRACE_NO_CACHE=1`` bypasses it; ``argtrace resolver clear-cache``
empties it. ``ARGTRACE_RESOLUTION_CACHE`` moves it (default: the user cache dir, ``resolutions/``).

This module reads an entry; the key making and the writing are ``cache_write.py``'s, loaded by the runs
that key or store one (a check that finds shellcheck's opinion stored loads neither).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path

from argtrace.cache_dirs import open_private_dir, read_private

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = 2  # 2: secrets sealed (format 1 kept them in clear)
_bypass = False
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
