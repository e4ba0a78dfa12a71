"""Parsing: tree-sitter-bash for the structure, ``bash -n`` (which only parses, never runs) for "
"syntax errors."""

from __future__ import annotations

import os
import re
import time
from functools import lru_cache

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.localfs import which

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from typing import Any, BinaryIO


@lru_cache(maxsize=1)
def _parser() -> Any:
    tree_sitter = _tree_sitter()
    return tree_sitter.Parser(tree_sitter.Language(_bash_grammar()))


def _tree_sitter() -> Any:
    """py-tree-sitter's classes (``Parser``, ``Language``, ``Range``, ``Point``): its compiled ``_binding``.
    The package's ``__init__`` adds a ``typing.Protocol`` class argtrace never uses, and with it imports
    ``typing`` (which no module of a plain check imports otherwise: tests/test_startup_typing.py)."""
    binding = _binding("tree_sitter")
    if binding is None:
        import tree_sitter

        return tree_sitter
    return binding


def _bash_grammar() -> Any:
    """The Bash grammar of tree-sitter-bash: ``tree_sitter_bash._binding.language()``.

    The package's ``__init__`` imports ``importlib.resources`` (with ``tempfile``, ``random`` and more:
    about 3 ms at every start-up, issue 18) for a query file argtrace never reads, so the compiled
    ``_binding`` module is loaded from the package's directory without running it."""
    binding = _binding("tree_sitter_bash")
    if binding is None:
        import tree_sitter_bash

        return tree_sitter_bash.language()
    return binding.language()


def _binding(package_name: str) -> Any:
    """``PACKAGE._binding``, the package's compiled module, loaded from the package's directory without
    running the package's ``__init__``; None for anything unexpected (another layout of the package), where
    the caller falls back to the package's own import."""
    import importlib.machinery
    import importlib.util
    import sys

    name = f"{package_name}._binding"
    binding = sys.modules.get(name)
    if binding is None:
        try:
            package = importlib.util.find_spec(package_name)
            places = package.submodule_search_locations if package is not None else None
            spec = importlib.machinery.PathFinder.find_spec(name, list(places or ()))
            if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
                raise ImportError(name)
            binding = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(binding)
            sys.modules[name] = binding
        except (ImportError, AttributeError, ValueError):
            return None
    return binding


# tree-sitter-bash's error recovery re-reads an erroneous statement from its start for each token it adds:
# quadratic in the statement's size (a 40 KB line of unquoted `!(a)` groups took 10 s a parse, and a script
# with errors is parsed up to four times). Its work is counted, deterministically, as the bytes the parser
# reads through a callback: a clean script is read 1-2 times over, those shapes about n/4 times over for n
# bytes. Past READ_FACTOR bytes per byte of text plus READ_BASE (about 0.3 s of parsing), the parser is
# given the end of the text, which stops it at once, and the line it asked for most (the long line) is read
# as blank, same length (every offset holds), up to MAX_BLANKED lines: SH056 names them (session 30).
READ_FACTOR = 64
READ_BASE = 16 << 20
_CHUNK = 16 << 10
MAX_BLANKED = 8


class _OverBudget(Exception):
    """A view's parse went past the read budget: the view is not used."""


def _bounded(data: bytes) -> tuple[Any, int | None]:
    """The tree of ``data``, and None; or, past the read budget, the tree of what was read and the row the
    parser asked for most (0-based)."""
    budget = READ_FACTOR * len(data) + READ_BASE
    served = 0
    rows: dict[int, int] = {}

    def read(byte: int, point: tuple[int, int]) -> bytes:
        nonlocal served
        if served > budget:
            return b""  # the end of the text: the parser stops
        chunk = data[byte : byte + _CHUNK]
        served += len(chunk)
        rows[point[0]] = rows.get(point[0], 0) + 1
        return chunk

    tree = _parser().parse(read)
    if served <= budget:
        return tree, None
    return tree, max(rows, key=lambda row: rows[row])


def _view_parse(text: str) -> Any:
    tree, hot = _bounded(text.encode("latin-1"))
    if hot is not None:
        raise _OverBudget
    return tree


def _blank_row(text: str, row: int) -> str:
    start = 0
    for _ in range(row):
        start = text.index("\n", start) + 1
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    return text[:start] + " " * (end - start) + text[end:]


def parse_tree(text: str, blanked: list[tuple[int, int]] | None = None) -> Any:
    """Parse latin-1 script text (placeholders already substituted) into a tree-sitter tree.

    A line whose here-documents are followed by more of the line (``cat <<EOF | kubectl apply -f -``) is
    parsed from a same-length view in which their bodies are blank (``heredoc_lines``). A line whose
    reading would take the parser minutes is read as blank (``READ_FACTOR``); ``blanked`` gets each such
    line's number and length (the last one's number negated when the parser still stopped early after
    ``MAX_BLANKED`` of them: what follows its stop is not read)."""
    tree, hot = _bounded(text.encode("latin-1"))
    for _ in range(MAX_BLANKED):
        lines = text.split("\n", hot + 1) if hot is not None else []
        line = lines[hot] if hot is not None and hot < len(lines) else ""
        if hot is None or not line.strip():
            break  # read whole; or the parser asked most for the end of the text (a `case` of thousands
            # of items it cannot read): no line to blank
        if blanked is not None:
            blanked.append((hot + 1, len(line)))
        text = _blank_row(text, hot)
        tree, hot = _bounded(text.encode("latin-1"))
    if hot is not None:
        if blanked is not None:
            blanked.append((-(hot + 1), 0))
        return tree  # still past the budget: what was read stands, no view is tried
    view = text
    try:
        if "<<" in text:
            from argtrace.layers.shell.heredoc_lines import masked_text

            first = tree
            masked = masked_text(text, lambda: first)
            if masked is not None:
                tree = _view_parse(masked)
                view = masked
        if tree.root_node.has_error:
            bracketed = _bracket_view(view, tree)
            if bracketed is not None:
                tree = _view_parse(bracketed)
                view = bracketed
        if tree.root_node.has_error:
            patterned = _pattern_view(view, tree)
            if patterned is not None:
                tree = _view_parse(patterned)
    except _OverBudget:
        pass  # a view the parser cannot read within the budget: the tree before it stands
    return tree


def _pattern_view(view: str, tree: Any) -> str | None:
    """``view`` with the case patterns and conditional groups tree-sitter misread written as words
    (``pattern_views``)."""
    if "case" not in view and "[[" not in view and "extglob" not in view:
        return None
    from argtrace.layers.shell.pattern_views import pattern_masked

    first = [tree]

    def parse(text: str) -> Any:
        return first.pop() if first else _view_parse(text)

    return pattern_masked(view, parse)


def _bracket_view(view: str, tree: Any) -> str | None:
    """``view`` with the ``[`` commands tree-sitter misread written as plain words (``test_brackets``)."""
    from argtrace.layers.shell.test_brackets import bracket_masked

    first = [tree]

    def parse(text: str) -> Any:
        return first.pop() if first else _view_parse(text)

    return bracket_masked(view, parse)


@deferred(frozen=True)
class SyntaxProblem:
    """A syntax error ``bash -n`` reports for the script, with its line."""

    line: int | None
    message: str  # bash's own message, without the "file: line N:" prefix


_SETS_EXTGLOB = re.compile(rb"\bshopt\s+(?:-[a-z]+\s+)*-s\b[^\n;&|]*\bextglob\b")
_BASH_LINE = re.compile(r"^(?:.*?): line (\d+): (.*)$")


def bash_syntax_errors(data: bytes, label: str, timeout: float = 20.0) -> list[SyntaxProblem] | None:
    """Run ``bash -n`` on the script text; None when bash is not available.

    Under ``argtrace --host`` the node's bash parses it (``Host.run_bash_n``): its version decides."""
    return start_bash_syntax_check(data, label, timeout).result()


class PendingSyntax:
    """``bash -n`` started on one script (:func:`start_bash_syntax_check`); :meth:`result` waits for it."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes] | _Spawned | None,
        deadline: float,
        done: tuple[int, bytes] | None,
    ) -> None:
        self._proc = proc
        self._deadline = deadline
        self._done = done  # (returncode, stderr) known already (the --host node's answer), or None

    def result(self) -> list[SyntaxProblem] | None:
        """The problems bash reports (``[]``: none), or None when bash is not available or timed out."""
        if isinstance(self._proc, _Spawned):
            spawned, self._proc = self._proc, None
            self._done = spawned.wait(self._deadline)
        if self._done is None:
            import subprocess

            proc = self._proc
            if proc is None:
                return None
            try:
                _out, stderr = proc.communicate(timeout=max(0.0, self._deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                self._proc = None
                return None
            self._done = (proc.returncode, stderr)
        return _problems(*self._done)


def start_bash_syntax_check(data: bytes, label: str, timeout: float = 20.0) -> PendingSyntax:
    """Start ``bash -n`` on ``data`` now, to run beside the evaluation; the answer comes from ``.result()``.

    bash reads the script from a regular (unnamed temporary) file on its standard input: from a pipe it
    reads one byte per system call (it must not read past a command it could run), a million calls and
    0.17 s of CPU for a 1 MB script against 0.01 s from a file (issue 18). The messages still name
    ``/dev/stdin``, as before."""
    deadline = time.monotonic() + timeout
    remote = _remote_bash_n(data)
    if remote is not None:
        if remote[0] is None:
            return PendingSyntax(None, deadline, None)
        return PendingSyntax(None, deadline, (remote[0], remote[1]))
    bash = which("bash") or ("/bin/bash" if os.path.exists("/bin/bash") else None)
    if bash is None:
        return PendingSyntax(None, deadline, None)
    # `bash -n` runs no command, so a `shopt -s extglob` in the script does not apply to the
    # `@(a|b)` patterns after it, which then are syntax errors to `-n` only: parse with it on
    # the pattern starts with a word boundary, tried at every byte: the word first (a 1 MB script without it
    # took some 100 M instructions, issue 18)
    extglob = ["-O", "extglob"] if b"extglob" in data and _SETS_EXTGLOB.search(data) else []
    argv = [bash, *extglob, "-n", "/dev/stdin"]
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    try:
        with _unnamed_file(data) as script:
            spawned = _Spawned.start(argv, script.fileno(), env)
            if spawned is not None:
                return PendingSyntax(spawned, deadline, None)
            import subprocess

            proc = subprocess.Popen(
                argv, stdin=script, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
            )
    except OSError:
        return PendingSyntax(None, deadline, None)
    return PendingSyntax(proc, deadline, None)


class _Spawned:
    """``bash -n`` started by ``os.posix_spawn``: what ``subprocess.Popen`` did for it (the script on its
    standard input, no output, its messages through a pipe, the environment given) without importing
    ``subprocess``, whose own imports (``signal``'s enums, ``locale``, ``selectors``) were 14 M instructions
    of a check's start-up (session 32). The child gets descriptors 0-2 only, as ``Popen``'s ``close_fds``
    makes sure: those this process opened are close-on-exec (PEP 446), and each inheritable one it was
    started with (a caller's pipe) is closed in the child, found in ``/proc/self/fd``."""

    def __init__(self, pid: int, stderr: int) -> None:
        self.pid = pid
        self.stderr = stderr

    @classmethod
    def start(cls, argv: list[str], stdin: int, env: dict[str, str]) -> _Spawned | None:
        """The started child; None where ``posix_spawn`` is missing, or a descriptor is one of 0-2 (a
        process started without them: ``Popen`` sorts that out), for ``Popen`` to start it instead."""
        spawn = getattr(os, "posix_spawn", None)
        inherited = _inheritable_fds()
        if spawn is None or stdin < 3 or inherited is None:
            return None
        read, write = os.pipe()
        if min(read, write) < 3:
            os.close(read)
            os.close(write)
            return None
        try:
            actions = [
                (os.POSIX_SPAWN_DUP2, stdin, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, write, 2),
                *((os.POSIX_SPAWN_CLOSE, fd) for fd in inherited if fd not in (stdin, read, write)),
            ]
            import _signal  # (built in: what ``signal`` wraps in enums)

            # the signals Python ignores at start, back to their default as Popen's restore_signals does
            default = [getattr(_signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(_signal, name)]
            pid = spawn(argv[0], argv, env, file_actions=actions, setsigdef=default)
        except BaseException:
            os.close(read)
            raise
        finally:
            os.close(write)
        return cls(pid, read)

    def wait(self, deadline: float) -> tuple[int, bytes] | None:
        """(exit code, its messages), or None when it did not end by ``deadline`` (then it is killed)."""
        import select

        chunks: list[bytes] = []
        poller = select.poll()  # (select.select refuses a descriptor past FD_SETSIZE)
        poller.register(self.stderr, select.POLLIN)
        try:
            while True:
                left = deadline - time.monotonic()  # Popen.communicate gives up as soon as it is past
                if left <= 0 or not poller.poll(left * 1000):
                    os.kill(self.pid, 9)  # SIGKILL (9 on every POSIX system), as Popen.kill()
                    os.waitpid(self.pid, 0)
                    return None
                chunk = os.read(self.stderr, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
        finally:
            os.close(self.stderr)
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status), b"".join(chunks)


def _inheritable_fds() -> list[int] | None:
    """This process's open descriptors past 2 that a child would inherit; None where ``/proc/self/fd`` is
    not there to list them (then ``Popen`` starts the child, closing them itself)."""
    try:
        listed = os.listdir("/proc/self/fd")
    except OSError:
        return None
    out: list[int] = []
    for name in listed:
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                out.append(fd)
        except OSError:  # the listing's own descriptor, closed since
            continue
    return out


def _unnamed_file(data: bytes) -> BinaryIO:
    """A regular file holding ``data``, open at its start, with no name: a memory file where Linux has
    them (``tempfile`` alone costs 2 ms of start-up: it imports ``random``), else a temporary file."""
    if hasattr(os, "memfd_create"):
        try:
            fd = os.memfd_create("argtrace-script", os.MFD_CLOEXEC)
        except OSError:
            pass
        else:
            script = os.fdopen(fd, "w+b")
            script.write(data)
            script.seek(0)
            return script
    import tempfile

    script = tempfile.TemporaryFile()
    script.write(data)
    script.seek(0)
    return script


def _problems(returncode: int, stderr: bytes) -> list[SyntaxProblem]:
    problems: list[SyntaxProblem] = []
    for raw in stderr.decode("utf-8", "replace").splitlines():
        m = _BASH_LINE.match(raw)
        if m:
            problems.append(SyntaxProblem(int(m.group(1)), m.group(2)))
        elif raw.strip():
            problems.append(SyntaxProblem(None, raw.split(": ", 1)[-1]))
    if returncode != 0 and not problems:
        # killed by a signal (-N here, 128+N through a remote shell): commands nested some 3,000 deep
        # (``$(`` in bash 5.2) overflow bash's recursive parser, which dies of SIGSEGV without a word; that is
        # no syntax error, but bash reading the script to run it parses it the same way first (safe33)
        signal = -returncode if returncode < 0 else returncode - 128 if returncode in (134, 135, 139) else 0
        problems.append(
            SyntaxProblem(
                None,
                f"bash -n was killed by signal {signal} while parsing it (bash's own parser crashed, as on "
                "commands nested thousands deep; bash parses the script the same way before running it)"
                if signal
                else "bash -n reported a syntax error",
            )
        )
    return problems if returncode != 0 or problems else []


def _remote_bash_n(data: bytes) -> tuple[int | None, bytes] | None:
    """``(returncode, stderr)`` of ``bash -n`` on the ``--host`` node (``returncode`` None: no bash or it
    timed out there); ``None`` when the script is checked on this machine."""
    from argtrace.remote.host import HostError, current_host

    host = current_host()
    if not host.is_remote:
        return None
    from argtrace.remote.ssh import TransportError  # only a remote host has a transport to fail

    try:
        check = host.run_bash_n(data)
    except TransportError:
        raise
    except HostError:
        return (None, b"")
    if check.bash is None or check.returncode is None:
        return (None, b"")
    return (check.returncode, check.stderr.encode("utf-8"))


def tree_errors(tree: Any, limit: int = 20) -> list[tuple[int, int]]:
    """(line, col) of ERROR / MISSING nodes, 1-based."""
    out: list[tuple[int, int]] = []
    if not tree.root_node.has_error:
        return out
    stack = [tree.root_node]
    while stack and len(out) < limit:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            out.append((n.start_point[0] + 1, n.start_point[1] + 1))
            continue
        if n.has_error:
            stack.extend(reversed(n.children))
    return out


_RANGE_DATA: list[tuple[int, str, bytes]] = []


def _range_data(text: str) -> bytes:
    """What tree-sitter reads when it parses a range of ``text``: its latin-1 bytes with the same
    same-length views ``parse_tree`` uses (here-document bodies blank, misread ``[`` commands and case
    patterns as words), remembered for the last text (re-parsing ranges of one big script)."""
    if _RANGE_DATA and _RANGE_DATA[0][1] is text:
        return _RANGE_DATA[0][2]
    data = text.encode("latin-1")
    if "<<" in text:
        from argtrace.layers.shell.heredoc_lines import masked_text

        masked = masked_text(text, lambda: _parser().parse(data))
        if masked is not None:
            data = masked.encode("latin-1")
    if "[" in text or "case" in text or "extglob" in text:
        tree = _parser().parse(data)
        if tree.root_node.has_error:
            bracketed = _bracket_view(data.decode("latin-1"), tree)
            if bracketed is not None:
                data = bracketed.encode("latin-1")
                tree = _parser().parse(data)
        if tree.root_node.has_error:
            patterned = _pattern_view(data.decode("latin-1"), tree)
            if patterned is not None:
                data = patterned.encode("latin-1")
    _RANGE_DATA[:] = [(id(text), text, data)]
    return data


def parse_range(text: str, start: int, end: int) -> Any:
    """Parse only ``text[start:end]`` (latin-1, placeholders substituted) with offsets of the whole text.

    Used where tree-sitter's first reading of a region disagrees with bash (a span that bash ends earlier)."""
    tree_sitter = _tree_sitter()
    data = _range_data(text)
    srow = text.count("\n", 0, start)
    scol = start - (text.rfind("\n", 0, start) + 1)
    erow = srow + text.count("\n", start, end)
    ecol = end - (text.rfind("\n", 0, end) + 1)
    rng = tree_sitter.Range(tree_sitter.Point(srow, scol), tree_sitter.Point(erow, ecol), start, end)
    parser = tree_sitter.Parser(_parser().language, included_ranges=[rng])
    return parser.parse(data)
