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
"""

from __future__ import annotations

import _thread
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


@contextmanager
def kept() -> Iterator[None]:
    """``FileFinder.find_spec`` is :func:`find_spec` inside (nested uses share the outermost one's)."""
    external = sys.modules.get("_frozen_importlib_external")
    finder = getattr(external, "FileFinder", None)
    usable = finder is not None and sys.version_info[:2] in RELEASES and sys.flags.verbose < 2
    with _lock:
        _depth[0] += 1
        outer = _depth[0] == 1 and usable
        real = finder.__dict__.get("find_spec") if finder is not None else None
        if outer:
            finder.find_spec = find_spec  # type: ignore[union-attr]
    try:
        yield
    finally:
        with _lock:
            _depth[0] -= 1
            if outer:
                finder.find_spec = real  # type: ignore[union-attr]
