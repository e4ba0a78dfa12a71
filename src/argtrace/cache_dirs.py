"""Where argtrace keeps what it caches for the user (resolver environments, resolutions, parsed data and
compiled code), and how those files are opened. Imports nothing but ``os`` and ``sys``: the CLI asks for
the data directory before any of its own modules (and their dataclasses) are imported
(``dataclass_code.py``).

A cache holds code that will run (``dataclass_code.py``) or answers that will be believed, so it is read and
written only in a directory that nobody else can change, the rule OpenSSH's ``StrictModes`` applies to
``~/.ssh``: the directory is opened once (:func:`open_private_dir`), its owner and mode are checked on what
was opened, and files are opened relative to that descriptor, without following a symbolic link. A
directory or a path component swapped after the check cannot redirect a read or a write, a symbolic link
planted at a store's or a temporary file's name is refused (before, a link at ``STORE.PID.tmp`` made
argtrace overwrite the file it pointed to), a file others can write to is not read, and a cache in a
directory another user owns (``/tmp``, a group's scratch space) is not used at all: it only costs the time
it would have saved."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from typing import Any


def user_cache_dir() -> str:
    """``platformdirs.user_cache_dir("argtrace")``. Every check needs it (``argtrace resolver add`` puts
    the schemas of releases not bundled under it, and they count among the releases), but importing
    platformdirs was ~1.4% of a short check's instructions (issue 18). On Linux with no
    ``XDG_CACHE_HOME`` and an absolute ``HOME`` every platformdirs release (3.x to 4.x: ``_xdg.py``
    ``xdg_dir`` falls back to ``expand_user("~/.cache")``, which is ``os.path.expanduser`` for an absolute
    ``HOME``; no Android variables) answers ``~/.cache/argtrace``, so that case is answered here; any
    other asks platformdirs (``tests/test_environments.py`` compares the two). An absolute
    ``XDG_CACHE_HOME`` is answered here too (every release joins it with the name as given); a relative one
    (4.x ignores it, 3.x used it) asks platformdirs."""
    env = os.environ
    if (
        sys.platform != "linux"
        or hasattr(sys, "getandroidapilevel")
        or {"ANDROID_DATA", "ANDROID_ROOT"} & env.keys()
    ):
        import platformdirs

        return platformdirs.user_cache_dir("argtrace")
    xdg = env.get("XDG_CACHE_HOME")
    if xdg is None:
        if env.get("HOME", "").startswith("/"):
            return os.path.join(os.path.expanduser("~/.cache"), "argtrace")
    elif xdg.startswith("/"):
        return os.path.join(xdg, "argtrace")
    import platformdirs

    return platformdirs.user_cache_dir("argtrace")


def resolver_cache_dir() -> str:
    """Where resolver environments live (``resolver/environments.py`` ``cache_dir``): ``$ARGTRACE_CACHE_DIR``
    or ``<user cache dir>/resolvers``. Here so that a check, which reads the schemas ``argtrace resolver add``
    put under it, need not import the resolver's environment code (start-up, issue 18)."""
    override = os.environ.get("ARGTRACE_CACHE_DIR")
    if override:
        return os.path.expanduser(override)
    return os.path.join(user_cache_dir(), "resolvers")


def data_cache_dir() -> str:
    """Parsed copies of argtrace's own data and the dataclasses' compiled methods (``resolver/data_cache.py``,
    ``dataclass_code.py``): ``$ARGTRACE_DATA_CACHE`` or ``<user cache dir>/data``."""
    override = os.environ.get("ARGTRACE_DATA_CACHE")
    if override:
        return os.path.expanduser(override)
    return os.path.join(user_cache_dir(), "data")


def data_cache_enabled() -> bool:
    """``ARGTRACE_NO_DATA_CACHE=1`` rebuilds and recompiles every time."""
    return os.environ.get("ARGTRACE_NO_DATA_CACHE", "") in ("", "0")


def _private(stat: os.stat_result) -> bool:
    return stat.st_uid == os.getuid() and not stat.st_mode & 0o022


def open_private_dir(path: str, create: bool = False) -> int | None:
    """A descriptor of directory ``path`` when it is the user's own and nobody else can write to it (created
    with mode 0700 when ``create`` and absent; the user's own made writable by others is made 0755 or
    tighter), else None: another user's directory is never used. The caller closes it."""
    if not hasattr(os, "getuid") or not hasattr(os, "O_NOFOLLOW"):
        return None  # no owners to check (Windows): no cache
    if create:
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        stat = os.fstat(fd)
        if stat.st_uid == os.getuid() and stat.st_mode & 0o022:
            # the user's own cache directory made under umask 002 (Debian's and Ubuntu's default for user
            # private groups): taken back rather than given up. Nobody else can have made a file owned by
            # the user in it, and links are refused file by file (read_private).
            os.fchmod(fd, stat.st_mode & 0o7755)
            stat = os.fstat(fd)
        if _private(stat):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def open_private_file(dir_fd: int, name: str) -> int | None:
    """A read-only descriptor of regular file ``name`` in ``dir_fd`` when it is the user's own and nobody
    else can write to it (never through a link), for a caller that maps it; None otherwise. The caller
    closes it."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
    except OSError:
        return None
    try:
        stat = os.fstat(fd)
        if _private(stat) and (stat.st_mode & 0o170000) == 0o100000:
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


# A file read whole (read_private) is at most this big: the largest copy a run writes is about 0.7 MB (a
# command's dataclass methods); a bigger one (a sparse file of gigabytes, a file grown by a runaway
# process) is not read into memory, only ignored as a damaged copy (session 30, tests/fuzz cache kind).
MAX_READ = 64 << 20


def read_private(dir_fd: int, name: str) -> bytes | None:
    """The bytes of regular file ``name`` in the directory ``dir_fd`` when it is the user's own and nobody
    else can write to it; None when absent, a symbolic link, shared or unreadable (a FIFO, a device or a
    file others wrote is never read: ``open_private_file``) or bigger than ``MAX_READ``."""
    fd = open_private_file(dir_fd, name)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            if os.fstat(handle.fileno()).st_size > MAX_READ:
                return None
            data = handle.read(MAX_READ + 1)
            return data if len(data) <= MAX_READ else None
    except OSError:
        return None


# The head of a copy written through with_crc(): a mark, then the CRC-32 of the rest (4 bytes, little-endian)
CRC_MARK = b"argtrace-crc32\n"


def with_crc(data: bytes) -> bytes:
    """``data`` behind a head holding its CRC-32, as the ``marshal`` stores write it: a copy cut short, with a
    flipped bit or spliced from another fails :func:`crc_checked` and is ignored, never unmarshalled. Before,
    such a copy could still unmarshal (a changed string, number or bytecode of a kept method) and be
    believed, and a damaged inner length made ``marshal`` raise what no reader caught (session 30)."""
    import zlib  # imported by every command already (data_cache, the warm client): no start-up cost

    return CRC_MARK + zlib.crc32(data).to_bytes(4, "little") + data


def crc_checked(raw: bytes | None) -> memoryview | None:
    """What :func:`with_crc` wrapped (a view, not a copy), when ``raw`` is whole and unchanged; else None
    (absent, damaged, or of a format before the head)."""
    if raw is None or not raw.startswith(CRC_MARK):
        return None
    import zlib

    head = len(CRC_MARK) + 4
    data = memoryview(raw)[head:]
    if zlib.crc32(data) != int.from_bytes(raw[len(CRC_MARK) : head], "little"):
        return None
    return data


def loads_checked(raw: bytes | None) -> object:
    """``marshal.loads`` of what :func:`with_crc` wrapped; None when ``raw`` is absent, damaged or does not
    unmarshal. Besides the ``EOFError``/``ValueError``/``TypeError`` of bad data, ``marshal`` raises
    ``MemoryError`` for a declared length it cannot allocate (a list or tuple of 2**31 items)."""
    data = crc_checked(raw)
    if data is None:
        return None
    import marshal

    try:
        return marshal.loads(data)
    except (EOFError, ValueError, TypeError, MemoryError):
        return None


def dumps_checked(value: Any) -> bytes | None:
    """``marshal.dumps`` of ``value`` behind its CRC-32 (:func:`with_crc`); None when ``value`` is not plain
    data (``marshal`` refuses it) or nests deeper than ``marshal`` writes."""
    import marshal

    try:
        return with_crc(marshal.dumps(value))
    except ValueError:
        return None


def write_private(dir_fd: int, name: str, data: bytes) -> bool:
    """Replace file ``name`` in the directory ``dir_fd`` by ``data`` (mode 0600) through a new temporary file
    that no link can redirect; False when that failed (the cache is only slower)."""
    tmp = f".{name}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        return True
    except OSError:
        try:
            os.unlink(tmp, dir_fd=dir_fd)
        except OSError:
            pass
        return False


def read_private_file(path: str) -> bytes | None:
    """:func:`read_private` of the file at ``path``, its directory opened by :func:`open_private_dir`."""
    directory, name = os.path.split(os.path.abspath(path))
    dir_fd = open_private_dir(directory)
    if dir_fd is None:
        return None  # absent, or a directory others could have written to
    try:
        return read_private(dir_fd, name)
    finally:
        os.close(dir_fd)


def write_private_file(path: str, data: bytes) -> bool:
    """:func:`write_private` of the file at ``path`` (its directory created if missing); False when the
    directory is not private or the write failed."""
    directory, name = os.path.split(os.path.abspath(path))
    dir_fd = open_private_dir(directory, create=True)
    if dir_fd is None:
        return False  # a directory others can change: never leave code or answers there
    try:
        return write_private(dir_fd, name, data)
    finally:
        os.close(dir_fd)
