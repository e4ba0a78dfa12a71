"""Which distributions an interpreter would import, read from its files: the interpreter is never run.

A launch script names its interpreter (``./bin/python3``, a ``python3`` on a ``PATH`` it exported, a console
script's ``#!`` line, a pyenv shim). Running that file to ask ``importlib.metadata`` would run whatever the
script controls (a shell script posing as ``python3``, a ``sitecustomize.py`` on the script's
``PYTHONPATH``), so the answer is read from disk instead, following the rules the interpreter itself
follows at start-up:

- **Prefix** (PEP 405, "Specification"): a ``pyvenv.cfg`` next to the executable or one directory up (the
  executable path *not* dereferenced) makes that directory a virtual environment; its ``home`` key names
  the directory of the base interpreter, ``include-system-site-packages`` says whether the base's
  site-packages are seen too, ``version`` (``version_info`` as uv writes it) gives ``X.Y``. Without one,
  the prefix is found as CPython's ``getpath`` does: from the executable with symlinks resolved, walking up
  to the first directory holding the landmark ``lib/pythonX.Y/os.py`` (conda and system prefixes alike).
  ``PYTHONHOME`` from the launch's environment, when set, is the prefix.
- **Site directories** (``site.getsitepackages``): ``PREFIX/lib/pythonX.Y/site-packages`` (``lib64`` too,
  for a ``platlibdir`` of ``lib64``), Debian's ``PREFIX/local/lib/pythonX.Y/dist-packages``,
  ``PREFIX/lib/python3/dist-packages`` and ``PREFIX/lib/pythonX.Y/dist-packages``; the user site
  ``$PYTHONUSERBASE|~/.local/lib/pythonX.Y/site-packages`` unless ``PYTHONNOUSERSITE``, ``-s``/``-I``, or a
  venv without system site-packages; ``PYTHONPATH`` first (ignored under ``-E``/``-I``); path lines of
  ``*.pth`` files (``site.addpackage``; ``import`` lines are code and are not followed); the working
  directory for ``python -m`` (``sys.path[0]``, unless ``-P``/``-I``/``PYTHONSAFEPATH``).
- **Distributions** (packaging.python.org, "Recording installed projects"): a ``NAME-VERSION.dist-info``
  directory whose ``METADATA`` carries ``Name:`` and ``Version:`` headers, or a legacy ``*.egg-info``
  directory (``PKG-INFO``) or file; names compared after PEP 503 normalisation; the first one in path
  order wins, as ``importlib.metadata.version`` does. An editable install is recognised by its
  ``direct_url.json`` (``dir_info.editable``, PEP 610).
- **pyenv shims** (pyenv's README, "Choosing the Python version"): the version is ``PYENV_VERSION`` (from
  the launch's environment: data, never executed), else the first ``.python-version`` file from the
  working directory (``PYENV_DIR``) up to ``/``, else ``$(pyenv root)/version``, else ``system``; several
  versions (``:``-separated, or one per line) are tried in order for the command, as ``pyenv which`` does.
  A version prefix matching more than one installed version is ambiguous: unknown.

Anything else (a shell script called ``python3``, a binary whose prefix has no landmark) is unknown, with
the reason. All reading goes through the current :class:`~argtrace.remote.host.Host`, so under
``argtrace --host`` the node's files are read by the collector there, and nothing on the node runs either.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from argtrace.deferred_dataclass import dataclass as deferred
from argtrace.remote.host import Host, HostError, current_host

_PY_NAME = re.compile(r"^python(?P<version>\d+\.\d+)(?P<abi>t?)$")
_LIB_DIR = re.compile(r"^python(?P<version>\d+\.\d+)(?P<abi>t?)$")
# NAME-VERSION.dist-info, NAME-VERSION-pyX.Y.egg-info, NAME.egg-info (a source tree, `setup.py develop`)
_DIST_DIR = re.compile(
    r"^(?P<name>[A-Za-z0-9_.\-]+?)(?:-(?P<version>[0-9][^-]*?))?(?:-py\d[\d.]*)?"
    r"\.(?P<kind>dist-info|egg-info)$"
)
# Magic numbers of the executable formats an interpreter binary comes in (ELF, the Mach-O variants).
_BINARY_MAGIC = (
    b"\x7fELF",
    b"\xcf\xfa\xed\xfe",
    b"\xce\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
    b"\xfe\xed\xfa\xcf",
)
_SHIM_EXEC = re.compile(rb'exec\s+"?[^"\n]*pyenv"?\s+exec\s+"?\$program"?')
_SHIM_ROOT = re.compile(rb'^export PYENV_ROOT="([^"\n]+)"', re.M)
_MAX_PTH_FILES = 64
_READ_LIMIT = 1 << 20


# the separators PEP 503 folds (compiled once: ``re.sub`` looks its pattern up in ``re``'s cache per call)
_SEPARATORS = re.compile(r"[-_.]+")
# what a name _DIST_DIR matches ends with (its ``$`` also matches before a final newline): a test on the
# end skips the pattern's lazy scan of the other entries of a site directory, its modules (issue 18)
_DIST_ENDS = (".dist-info", ".egg-info", ".dist-info\n", ".egg-info\n")


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares it: runs of ``-_.`` become ``-``, lowercase."""
    return _SEPARATORS.sub("-", name).lower()


@deferred(frozen=True)
class Distribution:
    """One installed distribution, as recorded on disk."""

    name: str  # as its metadata spells it
    version: str
    path: str  # the .dist-info / .egg-info directory (or egg-info file)
    kind: str  # "dist-info" or "egg-info"
    editable: str | None = None  # the project directory of an editable install (direct_url.json)


@dataclass(frozen=True)
class Layout:
    """Where an interpreter imports distributions from, read from its files."""

    interpreter: str  # the interpreter looked at (a pyenv shim's target, when it was a shim)
    prefix: str | None = None
    base_prefix: str | None = None
    python_version: str | None = None  # "3.11"
    venv: bool = False
    sites: tuple[str, ...] = ()  # in import order
    reason: str | None = None  # why the layout is unknown (then ``sites`` is empty)


@dataclass(frozen=True)
class Lookup:
    """The answer to "which version of NAME would this interpreter import?"."""

    version: str | None
    interpreter: str | None
    distribution: Distribution | None = None
    layout: Layout | None = None
    reason: str | None = None  # why the version is unknown
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Flags:
    """Interpreter options that change ``sys.path`` (``python -E -s -I -S -P``), from the server's argv."""

    ignore_env: bool = False  # -E / -I: PYTHON* variables are ignored
    no_user_site: bool = False  # -s / -I
    no_site: bool = False  # -S: no site-packages at all
    safe_path: bool = False  # -P / -I: no script directory or cwd in front
    module: bool = False  # -m: the working directory is sys.path[0]


def interpreter_flags(words: Sequence[str]) -> Flags:
    """The options of ``python [OPTIONS] (-m MOD | -c CMD | FILE)``: ``words`` are those after the
    interpreter, read up to the first word that is not an option."""
    seen: set[str] = set()
    module = False
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.startswith("-") or word in ("-", "--") or word.startswith("--"):
            break
        letters = word[1:]
        end = False
        for j, ch in enumerate(letters):
            if ch in "cm":  # -c CMD / -m MOD: the options end here
                module, end = ch == "m", True
                break
            if ch in "WX":  # -W ARG / -X ARG: the value is the rest of the word, else the next word
                i += 0 if letters[j + 1 :] else 1
                break
            seen.add(ch)
        if end:
            break
    return Flags(
        ignore_env=bool(seen & {"E", "I"}),
        no_user_site=bool(seen & {"s", "I"}),
        no_site="S" in seen,
        safe_path=bool(seen & {"P", "I"}),
        module=module,
    )


class HostFiles:
    """The host's files, with every failure read as "not there" (a lookup never raises for a file)."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._stat: dict[str, tuple[bool, bool, bool]] = {}

    def _kind(self, path: str) -> tuple[bool, bool, bool]:
        if path not in self._stat:
            try:
                st = self.host.stat(path)
                self._stat[path] = (st.is_file, st.is_dir, bool((st.mode or 0) & 0o111))
            except HostError:
                self._stat[path] = (False, False, False)
        return self._stat[path]

    def is_file(self, path: str) -> bool:
        return self._kind(path)[0]

    def is_dir(self, path: str) -> bool:
        return self._kind(path)[1]

    def is_executable_file(self, path: str) -> bool:
        kind = self._kind(path)
        return kind[0] and kind[2]

    def read(self, path: str, limit: int = _READ_LIMIT) -> bytes | None:
        """The file's first ``limit`` bytes; None unless it is a regular file (a FIFO a launch names as
        ``pyvenv.cfg`` or METADATA would block the read forever, a device never ends)."""
        if not self.is_file(path):
            return None
        try:
            return self.host.read_bytes(path, limit=limit)
        except HostError:
            return None

    def text(self, path: str, limit: int = _READ_LIMIT) -> str | None:
        data = self.read(path, limit)
        return None if data is None else data.decode("utf-8", "replace")

    def listdir(self, path: str) -> list[str]:
        try:
            return sorted(self.host.listdir(path))
        except HostError:
            return []

    def realpath(self, path: str) -> str:
        try:
            return self.host.realpath(path)
        except HostError:
            return path


def _join(*parts: str) -> str:
    return posixpath.normpath(posixpath.join(*parts))


def which_on(files: HostFiles, name: str, path: str | None, cwd: str) -> str | None:
    """``name`` resolved as a shell resolves a command (a word with a slash is a path), by looking only."""
    if "/" in name:
        candidate = name if name.startswith("/") else _join(cwd, name)
        return candidate if files.is_executable_file(candidate) else None
    for directory in (path or "").split(":"):
        candidate = _join(directory if directory else cwd, name)
        if files.is_executable_file(candidate):
            return candidate
    return None


def read_pyvenv_cfg(text: str) -> dict[str, str]:
    """``key = value`` lines of a ``pyvenv.cfg`` (PEP 405), keys lowercased; other lines are ignored."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            out[key.strip().lower()] = value.strip()
    return out


def _major_minor(text: str | None) -> str | None:
    m = re.match(r"^\s*(\d+)\.(\d+)", text or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def _lib_versions(files: HostFiles, prefix: str) -> list[str]:
    """``X.Y`` (with ``t`` for a free-threaded build) of each ``PREFIX/lib/pythonX.Y`` holding ``os.py``."""
    out = []
    for entry in files.listdir(_join(prefix, "lib")):
        m = _LIB_DIR.match(entry)
        if m and files.is_file(_join(prefix, "lib", entry, "os.py")):
            out.append(m.group("version") + m.group("abi"))
    return out


def _landmark_prefix(files: HostFiles, start_dir: str, version: str | None) -> tuple[str | None, list[str]]:
    """The first directory from ``start_dir`` up whose ``lib/pythonX.Y/os.py`` exists (CPython's getpath
    landmark), and the ``X.Y`` versions found there."""
    here = start_dir
    while True:
        found = _lib_versions(files, here)
        if version is not None:
            found = [v for v in found if v.rstrip("t") == version.rstrip("t")]
        if found:
            return here, found
        parent = posixpath.dirname(here)
        if parent == here:
            return None, []
        here = parent


def _is_binary(files: HostFiles, path: str) -> bool:
    head = files.read(path, limit=4)
    return head is not None and head[:4] in _BINARY_MAGIC


def _prefix_sites(files: HostFiles, prefix: str, version: str) -> list[str]:
    """``site.getsitepackages()`` for one prefix, with the layouts of Fedora (``lib64``) and Debian."""
    candidates = [
        _join(prefix, "lib", f"python{version}", "site-packages"),
        _join(prefix, "lib64", f"python{version}", "site-packages"),
        _join(prefix, "local", "lib", f"python{version}", "dist-packages"),
        _join(prefix, "lib", "python3", "dist-packages"),
        _join(prefix, "lib", f"python{version}", "dist-packages"),
    ]
    return [c for c in candidates if files.is_dir(c)]


def interpreter_layout(
    interpreter: str,
    env: Mapping[str, str],
    cwd: str,
    *,
    flags: Flags | None = None,
    home: str | None = None,
    host: Host | None = None,
) -> Layout:
    """Where ``interpreter`` (a path on the current host) imports from, read from files only.

    ``env`` is the environment the server process would get (data: only ``PYTHON*`` variables and
    ``HOME`` are read, nothing is executed); ``cwd`` its working directory; ``flags`` its interpreter
    options. A pyenv shim is followed to the interpreter it would run, by pyenv's rules."""
    files = HostFiles(host or current_host())
    return _layout(files, interpreter, env, cwd, flags or Flags(), home)


def _layout(
    files: HostFiles,
    interpreter: str,
    env: Mapping[str, str],
    cwd: str,
    flags: Flags,
    home: str | None,
    shims: int = 0,
) -> Layout:
    head = files.read(interpreter, limit=4096)
    if head is None:
        return Layout(interpreter, reason=f"{interpreter} cannot be read")
    if head.startswith(b"#!") and _SHIM_EXEC.search(head):
        target, why = pyenv_shim_target(files, interpreter, head, env, cwd)
        if target is not None and shims >= 2:  # a shim leading to a shim leading to a shim: a loop
            target, why = None, f"the pyenv shim {interpreter} leads to another shim again ({target})"
        if target is None:
            return Layout(interpreter, reason=why)
        return _layout(files, target, env, cwd, flags, home, shims + 1)
    real = files.realpath(interpreter)
    if not _is_binary(files, real):
        return Layout(
            interpreter,
            reason=f"{interpreter} is a script, not an interpreter binary: what it starts is known only by "
            "running it, and argtrace does not run what a launch names",
        )
    use_env = not flags.ignore_env
    python_home = env.get("PYTHONHOME") if use_env else None
    venv_dir: str | None = None
    cfg: dict[str, str] = {}
    if not python_home:
        # PEP 405: next to the executable or one up, the executable's own path (not dereferenced).
        for directory in (posixpath.dirname(interpreter), posixpath.dirname(posixpath.dirname(interpreter))):
            text = files.text(_join(directory, "pyvenv.cfg"), limit=65536)
            if text is not None:
                venv_dir, cfg = directory, read_pyvenv_cfg(text)
                break
    m = _PY_NAME.match(posixpath.basename(real)) or _PY_NAME.match(posixpath.basename(interpreter))
    version = _major_minor(cfg.get("version") or cfg.get("version_info")) or (
        m.group("version") + m.group("abi") if m else None
    )
    if python_home:
        base: str | None = python_home.split(":")[0]
        found = _lib_versions(files, base or "/")
    elif venv_dir is not None and cfg.get("home"):
        base, found = _landmark_prefix(files, files.realpath(cfg["home"]), version)
    else:
        base, found = _landmark_prefix(files, posixpath.dirname(real), version)
    if version is None and venv_dir is not None:
        # A venv's own lib/pythonX.Y (it has no os.py landmark) names the version when it is alone.
        own = {
            m.group("version") + m.group("abi")
            for m in map(_LIB_DIR.match, files.listdir(_join(venv_dir, "lib")))
            if m
        }
        found = sorted(own) if len(own) == 1 else found
    if version is None:
        if len(set(found)) != 1:
            where = base or posixpath.dirname(real)
            return Layout(
                interpreter,
                reason=f"the Python version of {interpreter} is not in its name, pyvenv.cfg or a single "
                f"lib/pythonX.Y under {where}",
            )
        version = found[0]
    if base is None and venv_dir is None:
        return Layout(
            interpreter,
            python_version=version,
            reason=f"no lib/python{version}/os.py above {real}: its installation prefix is unknown",
        )
    include_system = venv_dir is None or cfg.get("include-system-site-packages", "false").lower() == "true"
    sites: list[str] = []
    if use_env:
        for entry in env.get("PYTHONPATH", "").split(":"):
            if entry:
                sites.append(_join(cwd, entry))
    if flags.module and not flags.safe_path and not (use_env and env.get("PYTHONSAFEPATH")):
        sites.insert(0, cwd)
    if not flags.no_site:
        site_dirs: list[str] = []
        if venv_dir is not None:
            site_dirs += _prefix_sites(files, venv_dir, version)
        user_ok = include_system and not flags.no_user_site and not (use_env and env.get("PYTHONNOUSERSITE"))
        user_base = (env.get("PYTHONUSERBASE") if use_env else None) or (
            _join(env.get("HOME") or home or "/", ".local")
        )
        if user_ok:
            user_site = _join(user_base, "lib", f"python{version}", "site-packages")
            if files.is_dir(user_site):
                site_dirs.append(user_site)
        if include_system and base is not None:
            site_dirs += _prefix_sites(files, base, version)
        for site in site_dirs:
            sites.append(site)
            sites += _pth_paths(files, site)
    return Layout(
        interpreter,
        prefix=venv_dir or base,
        base_prefix=base,
        python_version=version,
        venv=venv_dir is not None,
        sites=_distinct(files, sites),
    )


def _distinct(files: HostFiles, sites: Sequence[str]) -> tuple[str, ...]:
    """``sites`` without repeats, a directory reached twice (a venv's ``lib64 -> lib``) kept once."""
    seen: set[str] = set()
    out = []
    for site in sites:
        real = files.realpath(site)
        if real not in seen:
            seen.add(real)
            out.append(site)
    return tuple(out)


def _pth_paths(files: HostFiles, site: str) -> list[str]:
    """Directories that ``*.pth`` files in ``site`` add (``site.addpackage``): each line that is not a
    comment and not an ``import`` line, relative to ``site``, when it exists. Import lines are code: not
    followed (an editable install's finder hook; its ``.dist-info`` sits in ``site`` anyway)."""
    out: list[str] = []
    kept = _kept_listing(files, site)  # the listing _dist_dirs reads next (one listing, not two)
    listing = files.listdir(site) if kept is None else kept[1]
    names = [n for n in listing if n.endswith(".pth") and not n.startswith(".")]
    for name in names[:_MAX_PTH_FILES]:
        text = files.text(_join(site, name), limit=65536) or ""
        for line in text.splitlines():
            line = line.rstrip()
            if not line or line.startswith("#") or line.startswith(("import ", "import\t")):
                continue
            directory = _join(site, line)
            if files.is_dir(directory):
                out.append(directory)
    return out


def _headers(text: str) -> dict[str, str]:
    """The first ``Name:``/``Version:`` headers of a core-metadata file (RFC 822 style, up to the body)."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("name", "version") and key.strip().lower() not in out:
            out[key.strip().lower()] = value.strip()
    return out


def find_distribution(layout: Layout, name: str, *, host: Host | None = None) -> Distribution | None:
    """The distribution ``name`` that the first site directory holding it records, or None."""
    return _find(HostFiles(host or current_host()), layout.sites, name)


def _dist_dirs(files: HostFiles, site: str, wanted: str) -> tuple[tuple[str, re.Match[str]], ...]:
    """A site directory's ``.dist-info``/``.egg-info`` entries whose normalised name is ``wanted``, in listing
    order.

    On this machine the listing, and each name's entries found in it, are kept for the directory's
    modification time (an install or uninstall adds or removes an entry, which changes it): the original
    check and each fix re-check look the same framework up in the same site-packages, hundreds of entries
    each (issue 18). Only the names asked for are matched: the pattern's lazy scan of every entry was 4 M
    instructions of a short check (164 distributions), for the one name it looks up."""
    kept = _kept_listing(files, site)
    if kept is not None:
        found = kept[2].get(wanted)
        if found is None:
            found = kept[2][wanted] = _named_dist_dirs(kept[1], wanted)
        return found
    return _named_dist_dirs(files.listdir(site), wanted)


def _kept_listing(
    files: HostFiles, site: str
) -> tuple[int, list[str], dict[str, tuple[tuple[str, re.Match[str]], ...]]] | None:
    """(mtime, sorted listing, names found) of a site directory of this machine, kept for its modification
    time (:func:`_dist_dirs`); ``None`` on a remote host or for a directory changed in the last two seconds
    (it may change again within its timestamp's granularity: not kept, as git treats a "racily clean" index
    entry)."""
    if files.host.is_remote:
        return None
    try:
        stamp = os.stat(site).st_mtime_ns
    except OSError:
        return None
    if time.time_ns() - stamp <= 2_000_000_000:
        return None
    kept = _DIST_INDEX.get(site)
    if kept is None or kept[0] != stamp:
        if len(_DIST_INDEX) >= 64:
            _DIST_INDEX.clear()
        kept = _DIST_INDEX[site] = (stamp, files.listdir(site), {})
    return kept


def _named_dist_dirs(entries: Sequence[str], wanted: str) -> tuple[tuple[str, re.Match[str]], ...]:
    """The entries ``_DIST_DIR`` matches whose normalised name is ``wanted``. A name is ``[A-Za-z0-9_.-]``
    (ASCII), so the normalised name starts with the entry's first character lowercased, or with ``-`` for
    any of ``-_.``: a cheap test of that first character leaves out the other names before the pattern."""
    first = wanted[:1]
    heads = "-_." if first == "-" else first
    if not heads:
        return ()  # a normalised name is never empty
    found: list[tuple[str, re.Match[str]]] = []
    for entry in entries:
        head = entry[:1].lower()
        if not head or head not in heads or not entry.endswith(_DIST_ENDS):
            continue
        m = _DIST_DIR.match(entry)
        if m and normalise(m.group("name")) == wanted:
            found.append((entry, m))
    return tuple(found)


# site directory -> (its st_mtime_ns, its listing, each name asked for -> its dist directories): local
# directories only
_DIST_INDEX: dict[str, tuple[int, list[str], dict[str, tuple[tuple[str, re.Match[str]], ...]]]] = {}


def _find(files: HostFiles, sites: Sequence[str], name: str) -> Distribution | None:
    wanted = normalise(name)
    for site in sites:
        for entry, m in _dist_dirs(files, site, wanted):
            path = _join(site, entry)
            kind = m.group("kind")
            if kind == "dist-info":
                meta = files.text(_join(path, "METADATA"), limit=262144)
            elif files.is_dir(path):
                meta = files.text(_join(path, "PKG-INFO"), limit=262144)
            else:
                meta = files.text(path, limit=262144)  # a single-file .egg-info is PKG-INFO itself
            headers = _headers(meta or "")
            if headers.get("name") and normalise(headers["name"]) != wanted:
                continue
            version = headers.get("version") or m.group("version")
            if not version:
                continue
            return Distribution(
                name=headers.get("name") or m.group("name"),
                version=version,
                path=path,
                kind=kind,
                editable=_editable(files, path) if kind == "dist-info" else None,
            )
    return None


def _editable(files: HostFiles, dist_info: str) -> str | None:
    """The project directory of an editable install (PEP 610 ``direct_url.json``), else None."""
    text = files.text(_join(dist_info, "direct_url.json"), limit=65536)
    if not text:
        return None
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):  # 64 KiB of `[` (argtrace.safe_json is above this module's seam)
        return None
    if not isinstance(doc, dict) or not (doc.get("dir_info") or {}).get("editable"):
        return None
    url = str(doc.get("url") or "")
    return url[len("file://") :] if url.startswith("file://") else url or None


# ------------------------------------------------------------------------------------------ pyenv


def _pyenv_versions(text: str) -> list[str]:
    """Versions in a pyenv version file (``pyenv-version-file-read``): the first word of each line, blank
    and ``#`` lines skipped, and words with ``/`` or ``..`` refused (pyenv refuses them too)."""
    out = []
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if "/" in words[0] or words[0] == "..":
            continue
        out.append(words[0])
    return out


def pyenv_shim_target(
    files: HostFiles, shim: str, head: bytes, env: Mapping[str, str], cwd: str
) -> tuple[str | None, str]:
    """(the interpreter a pyenv shim would exec, "") or (None, why not), read from pyenv's files."""
    program = posixpath.basename(shim)
    shims_dir = posixpath.dirname(shim)
    m = _SHIM_ROOT.search(head)
    root = (
        m.group(1).decode("utf-8", "replace")
        if m
        else (env.get("PYENV_ROOT") or posixpath.dirname(shims_dir))
    )
    versions: list[str] = []
    origin = ""
    if env.get("PYENV_VERSION"):
        versions = [v for v in env["PYENV_VERSION"].split(":") if v]
        origin = "PYENV_VERSION"
    else:
        here = _join(cwd, env["PYENV_DIR"]) if env.get("PYENV_DIR") else cwd
        while True:
            candidate = _join(here, ".python-version")
            text = files.text(candidate, limit=65536) if files.is_file(candidate) else None
            if text is not None:
                versions, origin = _pyenv_versions(text), candidate
                break
            parent = posixpath.dirname(here)
            if parent == here:
                break
            here = parent
        if not origin:
            text = files.text(_join(root, "version"), limit=65536)
            versions, origin = (_pyenv_versions(text), _join(root, "version")) if text else (["system"], "")
    if not versions:
        versions, origin = ["system"], origin or "pyenv's default"
    installed = files.listdir(_join(root, "versions"))
    for version in versions:
        if version == "system":
            path = ":".join(
                d for d in env.get("PATH", "").split(":") if d and _join(cwd, d) != _join(shims_dir)
            )
            found = which_on(files, program, path, cwd)
            if found is not None:
                return found, ""
            continue
        name = (
            version[len("python-") :]
            if version.startswith("python-") and version not in installed
            else version
        )
        if name not in installed:
            matches = [v for v in installed if v.startswith(name + ".") or v.startswith(name + "-")]
            if len(matches) > 1:
                return None, (
                    f"pyenv version {version!r} ({origin or 'default'}) matches {', '.join(matches)} under "
                    f"{root}/versions: which one pyenv picks is not read from files"
                )
            if not matches:
                continue
            name = matches[0]
        candidate = _join(root, "versions", name, "bin", program)
        if files.is_executable_file(candidate):
            return candidate, ""
    return None, (
        f"the pyenv shim {shim} runs `{program}` of version {':'.join(versions)} ({origin or 'default'}), "
        f"which is not installed under {root}/versions"
    )


# --------------------------------------------------------------------------------------- lookups


def installed_version(
    interpreter: str,
    name: str,
    env: Mapping[str, str],
    cwd: str | None = None,
    *,
    flags: Flags | None = None,
    host: Host | None = None,
) -> Lookup:
    """The version of distribution ``name`` that ``interpreter`` would import, read from files only."""
    host = host or current_host()
    files = HostFiles(host)
    here = cwd or _host_cwd(host)
    layout = _layout(files, interpreter, env, here, flags or Flags(), _host_home(host))
    if layout.reason is not None:
        return Lookup(None, layout.interpreter, layout=layout, reason=layout.reason)
    dist = _find(files, layout.sites, name)
    if dist is None:
        return Lookup(
            None,
            layout.interpreter,
            layout=layout,
            reason=f"no {name} .dist-info or .egg-info in the {len(layout.sites)} directories "
            f"{layout.interpreter} imports from",
        )
    return Lookup(dist.version, layout.interpreter, distribution=dist, layout=layout)


def _host_cwd(host: Host) -> str:
    if not host.is_remote:
        return os.getcwd()
    try:
        return host.info().cwd or "/"
    except HostError:
        return "/"


def _host_home(host: Host) -> str | None:
    if not host.is_remote:
        return os.environ.get("HOME")
    try:
        return host.info().home
    except HostError:
        return None


def process_version(
    name: str,
    *,
    exe: str | None,
    argv: Sequence[str],
    env: Mapping[str, str] | None,
    cwd: str | None,
    host: Host | None = None,
) -> Lookup:
    """The version of ``name`` a running process imports (``ps``, ``check --pid``), from its files only.

    ``exe`` is ``/proc/PID/exe`` (already dereferenced, so it cannot show a venv); the interpreter path
    that decides ``pyvenv.cfg`` is the one CPython itself starts from, ``argv[0]`` (a path, else found on
    the process's ``PATH``), taken only when it leads to that same binary. The process's environment
    and options are read as data; nothing is run."""
    host = host or current_host()
    files = HostFiles(host)
    environ = dict(env or {})
    here = cwd or "/"
    interpreter = exe
    if argv:
        first = argv[0]
        candidate = (
            (first if first.startswith("/") else _join(here, first))
            if "/" in first
            else which_on(files, first, environ.get("PATH"), here)
        )
        if candidate and (exe is None or files.realpath(candidate) == files.realpath(exe)):
            interpreter = candidate
    if not interpreter or "python" not in posixpath.basename(files.realpath(interpreter)):
        return Lookup(None, interpreter, reason="the process's executable is not a Python interpreter")
    flags = interpreter_flags(list(argv[1:]))
    layout = _layout(files, interpreter, environ, here, flags, _host_home(host))
    if layout.reason is not None:
        return Lookup(None, layout.interpreter, layout=layout, reason=layout.reason)
    dist = _find(files, layout.sites, name)
    if dist is None:
        return Lookup(
            None, layout.interpreter, layout=layout, reason=f"no {name} record in its site-packages"
        )
    return Lookup(dist.version, layout.interpreter, distribution=dist, layout=layout)


def files_of(host: Host) -> HostFiles:
    """The host's files as the lookups read them (every failure is "not there")."""
    return HostFiles(host)
