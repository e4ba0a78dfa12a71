"""A forked child of the warm process: become the launcher's command, run it, exit as the interpreter would.

Everything a process takes from whoever started it is put back from the request: the standard streams
(the launcher's own descriptors, passed over the socket, with its encodings and buffering), the whole
environment, the working directory, the umask and ``sys.argv``; the server's signal handlers go back to
Python's defaults. What a child cannot take over is said in docs/warm.md (resource limits and cgroup are
the warm process's; there is no controlling terminal, which is why ``--host`` is never served).
"""

from __future__ import annotations

import io
import marshal
import os
import signal
import sys
from collections.abc import Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

# What a child may report (the pipe's buffer: it writes before it exits, and nobody reads until then).
MAX_REPORT_BYTES = 60_000


def run(request: dict[str, Any], fds: Sequence[int], learned: int, closing: Sequence[int]) -> NoReturn:
    """Never returns: the child ends with ``os._exit`` after the command and the interpreter's own exit
    steps (threads joined, ``atexit`` handlers, streams flushed)."""
    status = 1
    try:
        before = set(sys.modules)
        _become(request, fds, closing)
        status = _run_command()
        _report_imports(learned, before)
    except BaseException:  # the command's own errors are handled in _run_command; this is the set-up's
        try:
            import traceback

            traceback.print_exc()
        except BaseException:
            pass
    finally:
        os._exit(status)


def _become(request: dict[str, Any], fds: Sequence[int], closing: Sequence[int]) -> None:
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for fd in closing:
        try:
            os.close(fd)
        except OSError:
            pass
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        if fd > 2:
            os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    import time

    time.tzset()  # local times follow the caller's TZ, which the C library read once, in the warm process
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    sys.argv[:] = request["argv"]
    _streams(request["streams"])


def _streams(settings: Sequence[Sequence[Any]]) -> None:
    """``sys.stdin``/``stdout``/``stderr`` over descriptors 0-2 as the interpreter makes them at start-up
    (``create_stdio``: no newline translation, ``closefd`` false), with the launcher's encoding, errors,
    line buffering and write-through (``-u``)."""
    streams = []
    for fd, (encoding, errors, line_buffering, write_through) in enumerate(settings):
        raw = io.FileIO(fd, "rb" if fd == 0 else "wb", closefd=False)
        buffer: Any = raw
        if fd == 0:
            buffer = io.BufferedReader(raw)
        elif not write_through:
            buffer = io.BufferedWriter(raw)
        streams.append(
            io.TextIOWrapper(
                buffer,
                encoding=encoding,
                errors=errors,
                newline="\n",
                line_buffering=line_buffering,
                write_through=write_through,
            )
        )
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams  # type: ignore[misc]


def _run_command() -> int:
    """What ``bin/argtrace`` does with ``main()``'s result, and what the interpreter does at exit."""
    from argtrace.cli import main

    try:
        status = _exit_status(main())
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    threading = sys.modules.get("threading")
    if threading is not None:
        threading._shutdown()  # joins non-daemon threads, as at exit
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or 120  # the interpreter's status when flushing stdout fails at exit
    return status


def _exit_status(code: object) -> int:
    """``sys.exit(code)``'s status: None 0, an int itself, anything else printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except (OSError, ValueError):
        pass
    return 1


def _report_imports(fd: int, before: set[str]) -> None:
    """Tell the warm process which modules this command imported that it had not, so that it imports them
    for the next command: argtrace's own and the standard library's and packages' it imports inside
    functions (``subprocess``, ``json``, tree-sitter's grammar). Only modules found on an absolute entry of
    the module path other than this directory: one found in the command's working directory is not the
    warm process's to import. And which parsed copies of argtrace's data it read (a release's schema, its
    raise sites: resolver/data_cache.py), for the warm process to read ahead."""
    from argtrace.warm.client import importable_modules

    names = importable_modules(before)
    data_cache = sys.modules.get("argtrace.resolver.data_cache")
    copies = data_cache.paths_read() if data_cache is not None else []
    try:
        os.write(fd, marshal.dumps({"modules": names, "data": copies})[:MAX_REPORT_BYTES])
    except OSError:
        pass
