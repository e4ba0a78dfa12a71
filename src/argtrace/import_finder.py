"""Looking for a module file without building the names of the files that are not there (issue 18).

For every directory it searches, ``importlib``'s ``FileFinder.find_spec`` tries each suffix a module can
have (three extension-module suffixes, ``.py``, ``.pyc``): it first joins the directory and the file name
(``_path_join``, a Python function), logs the name for ``python -vv``, and only then looks the name up in
its cached listing of the directory. A module is found after three to five such tries, and a directory
that does not hold it (``PYTHONPATH`` entries before the standard library) costs all five: a ``check``
imports ~200 modules, and their look-ups were ~4% of its instructions.

While :func:`kept` is active, ``FileFinder.find_spec`` is :func:`find_spec`: the same function (CPython
3.10-3.13 have the same text, ``Lib/importlib/_bootstrap_external.py``) with the listing looked up before
the name is joined, so a name is only built when the listing holds the file. The answer, the files it tests
and the specs it returns are the same; only ``-vv``'s "trying" lines for names that are not there would be
missing, so under ``-vv`` (and on any other release) nothing is changed. The real method is put back on exit.

While :func:`kept` is active, :class:`ListedFinder` also stands just before ``PathFinder`` in
``sys.meta_path`` (imports34) and answers a package's modules (``argtrace.check``, ``json.decoder``) from one
listing of the package's directory, and a top-level module (``json``, ``_json``) from the listings of
``sys.path``'s entries in order, each made once per :func:`kept`, instead of the standard path's ``stat``
calls per module and directory (the directory's mtime, the file, the source again) and its Python
functions (``spec_from_file_location``, ``cache_from_source`` twice). It answers only when the listings make
the standard answer certain (exactly one of the names any loader would try: ``NAME.py``,
``NAME/__init__.py`` or one extension module) and returns ``None`` otherwise, so the standard finders
answer. Its loader is a ``SourceFileLoader`` whose ``get_code`` reads the cached bytecode after one
``stat`` of the source, with CPython's own checks (magic number, flags, the source's mtime and size: a
changed source never runs stale bytecode); in any other case (no or stale bytecode, hash-based bytecode) it
is the standard ``get_code``, which compiles and writes the bytecode as usual. As ``FileFinder``'s listing
within its directory's mtime granularity, a listing does not see a file created after it was made
(``importlib.invalidate_caches()`` empties them); the listings end with :func:`kept`.
"""

from __future__ import annotations

import _imp
import _io
import _thread
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# the releases whose FileFinder.find_spec find_spec was copied from (the same text in each)
RELEASES = ((3, 10), (3, 11), (3, 12), (3, 13))
_lock = _thread.allocate_lock()  # threading.Lock, without importing threading
_depth = [0]


def find_spec(self: Any, fullname: str, target: Any = None) -> Any:
    """``FileFinder.find_spec`` (3.10-3.13), the suffix loop testing the cached listing first."""
    external = sys.modules["_frozen_importlib_external"]
    bootstrap = sys.modules["_frozen_importlib"]
    _path_join, _path_isfile = external._path_join, external._path_isfile
    is_namespace = False
    tail_module = fullname.rpartition(".")[2]
    try:
        mtime = external._path_stat(self.path or external._os.getcwd()).st_mtime
    except OSError:
        mtime = -1
    if mtime != self._path_mtime:
        self._fill_cache()
        self._path_mtime = mtime
    # tail_module keeps the original casing, for __file__ and friends
    if external._relax_case():
        cache = self._relaxed_path_cache
        cache_module = tail_module.lower()
    else:
        cache = self._path_cache
        cache_module = tail_module
    # Check if the module is the name of a directory (and thus a package).
    if cache_module in cache:
        base_path = _path_join(self.path, tail_module)
        for suffix, loader_class in self._loaders:
            init_filename = "__init__" + suffix
            full_path = _path_join(base_path, init_filename)
            if _path_isfile(full_path):
                return self._get_spec(loader_class, fullname, full_path, [base_path], target)
        else:
            # If a namespace package, return the path if we don't
            #  find a module in the next section.
            is_namespace = external._path_isdir(base_path)
    # Check for a file w/ a proper suffix exists (the listing first: the only change).
    for suffix, loader_class in self._loaders:
        if cache_module + suffix in cache:
            full_path = _path_join(self.path, tail_module + suffix)
            if _path_isfile(full_path):
                return self._get_spec(loader_class, fullname, full_path, None, target)
    if is_namespace:
        bootstrap._verbose_message("possible namespace for {}", base_path)
        spec = bootstrap.ModuleSpec(fullname, None)
        spec.submodule_search_locations = [base_path]
        return spec
    return None


class ListedFinder:
    """Modules found in one listing of each directory (the module's docstring)."""

    def __init__(self, external: Any) -> None:
        self.external = external
        self.listings: dict[str, frozenset[str] | None] = {}
        # the names FileFinder tries, in its order: extension modules, source, bytecode
        self.suffixes = tuple(
            suffix for _, group in external._get_supported_file_loaders() for suffix in group
        )
        self.cache_tail = "." + sys.implementation.cache_tag + external.BYTECODE_SUFFIXES[0]
        self.extensions = tuple(external.EXTENSION_SUFFIXES)
        self.bootstrap = sys.modules["_frozen_importlib"]

    def listing(self, directory: str) -> frozenset[str] | None:
        try:
            return self.listings[directory]
        except KeyError:
            pass
        try:
            names: frozenset[str] | None = frozenset(os.listdir(directory))
        except OSError:
            names = None
        self.listings[directory] = names
        return names

    def invalidate_caches(self) -> None:
        self.listings.clear()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if path is None:  # a top-level module: the first sys.path entry that holds it
            for entry in sys.path:
                if entry == "":
                    try:
                        entry = os.getcwd()
                    except OSError:
                        return None  # a removed working directory: PathFinder's own answer
                finder = sys.path_importer_cache.get(entry, _UNSURE) if type(entry) is str else _UNSURE
                if finder is None:
                    continue  # PathFinder skips an entry no hook accepted (a missing python3XX.zip)
                if type(finder) is not self.external.FileFinder:
                    return None  # not looked at yet, or another hook's finder: the standard path
                spec = self.spec_in(fullname, finder.path)
                if spec is not None:
                    return None if spec is _UNSURE else spec
            return None
        if type(path) is not list or len(path) != 1 or type(path[0]) is not str:
            return None  # a namespace package's parts, or a __path__ someone extended: the standard path
        spec = self.spec_in(fullname, path[0])
        return None if spec is _UNSURE else spec

    def spec_in(self, fullname: str, directory: str) -> Any:
        """What ``FileFinder(directory).find_spec(fullname)`` returns when the listings make it certain (a
        spec, or ``None``: not there); ``_UNSURE`` otherwise."""
        if not directory.startswith("/"):
            return _UNSURE
        directory = directory.rstrip("/")
        names = self.listing(directory)
        if names is None:
            return _UNSURE
        tail = fullname.rpartition(".")[2]
        portion = False  # a directory without __init__: a namespace portion unless a module is here
        if tail in names:
            inner = self.listing(directory + "/" + tail)
            if inner is not None:
                found = [s for s in self.suffixes if "__init__" + s in inner]
                if found == [".py"]:
                    package = directory + "/" + tail
                    return self.source_spec(fullname, package + "/__init__.py", "__init__", package)
                if found:
                    return _UNSURE  # an extension or bytecode-only package
                portion = True
        found = [s for s in self.suffixes if tail + s in names]
        if not found:
            return _UNSURE if portion else None
        if found == [".py"]:
            return self.source_spec(fullname, directory + "/" + tail + ".py", tail, None)
        if len(found) == 1 and found[0] in self.extensions:
            origin = directory + "/" + tail + found[0]
            spec = self.bootstrap.ModuleSpec(
                fullname, self.external.ExtensionFileLoader(fullname, origin), origin=origin
            )
            spec.has_location = True
            return spec
        return _UNSURE

    def source_spec(self, fullname: str, origin: str, stem: str, package: str | None) -> Any:
        loader = ListedLoader(fullname, origin)
        spec = self.bootstrap.ModuleSpec(fullname, loader, origin=origin)
        spec.has_location = True
        spec.cached = loader.cached = origin[: -len(stem) - 3] + "__pycache__/" + stem + self.cache_tail
        if package is not None:
            spec.submodule_search_locations = [package]
        return spec


_UNSURE: Any = object()
_SourceFileLoader: Any = sys.modules["_frozen_importlib_external"].SourceFileLoader
_MAGIC: bytes = sys.modules["_frozen_importlib_external"].MAGIC_NUMBER
_CODE = type(find_spec.__code__)  # types.CodeType, without importing types


class ListedLoader(_SourceFileLoader):
    """``SourceFileLoader`` reading valid cached bytecode in fewer steps (the module's docstring)."""

    cached = ""

    def get_code(self, fullname: str) -> Any:
        source = self.path
        try:
            st = os.stat(source)
            with _io.open_code(self.cached) as file:
                data = file.read()
        except OSError:
            return super().get_code(fullname)
        # _bootstrap_external._classify_pyc and _validate_timestamp_pyc: a timestamp pyc of this source
        if (
            data[:4] != _MAGIC
            or data[4:8] != b"\0\0\0\0"
            or int.from_bytes(data[8:12], "little") != int(st.st_mtime) & 0xFFFFFFFF
            or int.from_bytes(data[12:16], "little") != st.st_size & 0xFFFFFFFF
        ):
            return super().get_code(fullname)
        code = marshal.loads(memoryview(data)[16:])
        if type(code) is not _CODE:
            return super().get_code(fullname)
        _imp._fix_co_filename(code, source)  # type: ignore[attr-defined]
        return code


def _listed_usable(external: Any) -> bool:
    """The standard machinery is the one :class:`ListedFinder` copies (default hooks, flags, no prefix)."""
    hooks = sys.path_hooks
    return (
        sys.implementation.cache_tag is not None
        and sys.pycache_prefix is None
        and sys.flags.optimize == 0
        and sys.flags.verbose == 0
        and not external._relax_case()
        and os.sep == "/"
        and len(hooks) == 2
        and getattr(hooks[1], "__qualname__", "") == "FileFinder.path_hook.<locals>.path_hook_for_FileFinder"
        and external.PathFinder in sys.meta_path
    )


@contextmanager
def kept() -> Iterator[None]:
    """``FileFinder.find_spec`` is :func:`find_spec` and :class:`ListedFinder` answers what it can inside
    (nested uses share the outermost one's)."""
    external = sys.modules.get("_frozen_importlib_external")
    finder = getattr(external, "FileFinder", None)
    usable = finder is not None and sys.version_info[:2] in RELEASES and sys.flags.verbose < 2
    listed = None
    with _lock:
        _depth[0] += 1
        outer = _depth[0] == 1 and usable
        real = finder.__dict__.get("find_spec") if finder is not None else None
        if outer:
            finder.find_spec = find_spec  # type: ignore[union-attr]
            if _listed_usable(external):
                listed = ListedFinder(external)
                sys.meta_path.insert(sys.meta_path.index(external.PathFinder), listed)  # type: ignore[union-attr]
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            if outer:
                finder.find_spec = real  # type: ignore[union-attr]
                if listed is not None and listed in sys.meta_path:
                    sys.meta_path.remove(listed)
