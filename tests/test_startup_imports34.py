"""The import system's own cost (imports34): modules found in one listing per directory and read from
valid bytecode in fewer steps (import_finder.ListedFinder, ListedLoader), with the standard machinery's
answers; and what a plain check no longer imports (threading, pathlib's ntpath and fnmatch)."""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace import import_finder

SRC = str(Path(__file__).resolve().parent.parent / "src")
EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")
PathFinder = importlib.machinery.PathFinder
EXTERNAL = sys.modules["_frozen_importlib_external"]
SO = importlib.machinery.EXTENSION_SUFFIXES[0]


def described(spec: Any) -> Any:
    if spec is None:
        return None
    loader = type(spec.loader).__name__.replace("ListedLoader", "SourceFileLoader")
    return (
        spec.name,
        spec.origin,
        loader,
        getattr(spec.loader, "path", None),
        spec.submodule_search_locations and list(spec.submodule_search_locations),
        spec.has_location,
        spec.cached,
    )


def _tree(root: Path) -> None:
    """Every shape FileFinder tells apart, in one directory."""
    (root / "plain.py").write_text("")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "nsdir").mkdir()  # no __init__: a namespace portion
    (root / "both").mkdir()  # a directory without __init__ beside a module of the same name
    (root / "both.py").write_text("")
    (root / "ext.py").write_text("")
    (root / f"ext{SO}").write_bytes(b"")  # an extension module wins over the source
    (root / "onlypyc.pyc").write_bytes(b"")
    (root / "bare").write_text("")  # a file without a suffix beside its module
    (root / "bare.py").write_text("")
    (root / "extpkg").mkdir()
    (root / "extpkg" / f"__init__{SO}").write_bytes(b"")
    (root / "extpkg" / "__init__.py").write_text("")


SHAPES = ("plain", "pkg", "nsdir", "both", "ext", "onlypyc", "bare", "extpkg", "missing")
CERTAIN = {"plain", "pkg", "both", "bare", "missing"}  # answered by the listing alone


def test_a_package_directory_gets_the_path_finders_answers(tmp_path: Path) -> None:
    _tree(tmp_path)
    finder = import_finder.ListedFinder(EXTERNAL)
    for name in SHAPES:
        full = f"somepkg.{name}"
        mine = finder.find_spec(full, [str(tmp_path)])
        if name in CERTAIN:
            real = PathFinder.find_spec(full, [str(tmp_path)])
            assert (name, described(mine)) == (name, described(real))
        else:
            assert (name, mine) == (name, None)  # not certain from the listing: the standard finder answers
    assert finder.find_spec("somepkg.plain", [str(tmp_path), "/elsewhere"]) is None  # an extended __path__


def test_the_standard_librarys_argtraces_and_top_level_modules_get_the_same_specs() -> None:
    import json

    import argtrace
    import argtrace.layers

    finder = import_finder.ListedFinder(EXTERNAL)
    # importlib.invalidate_caches() (another test's) drops sys.path_importer_cache's None entries (a missing
    # python3XX.zip); until a standard lookup puts them back the finder is unsure of every top-level name and
    # leaves it to PathFinder, as it should. One standard lookup here, as the first import of a run makes.
    assert PathFinder.find_spec("no_such_module_anywhere") is None
    answered, compared = 0, 0
    names = sorted({m.name for m in pkgutil.iter_modules()} | {"no_such_module_anywhere", "_json"})
    asked = [(n, None) for n in names]
    for package in (argtrace, argtrace.layers, json, importlib):
        asked += [
            (f"{package.__name__}.{m.name}", package.__path__) for m in pkgutil.iter_modules(package.__path__)
        ]
    for name, path in asked:
        mine = finder.find_spec(name, path)
        compared += 1
        if mine is not None:
            answered += 1
            assert described(mine) == described(PathFinder.find_spec(name, path))
    assert compared > 300 and answered > compared * 0.9


def _write(path: Path, text: str, mtime: int) -> None:
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def _import_fresh(name: str) -> Any:
    for key in [k for k in sys.modules if k == name or k.startswith("pkg34.")]:
        del sys.modules[key]
    with import_finder.kept():
        return importlib.import_module(name)


def test_a_changed_source_never_runs_its_stale_bytecode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.syspath_prepend(str(tmp_path))
    package = tmp_path / "pkg34"
    package.mkdir()
    _write(package / "__init__.py", "", 1_700_000_000)
    module = package / "mod.py"
    _write(module, "X = 1\n", 1_700_000_000)
    first = _import_fresh("pkg34.mod")
    assert (first.X, type(first.__loader__).__name__) == (1, "ListedLoader")
    cached = Path(first.__cached__)
    assert cached.is_file() and cached == package / "__pycache__" / f"mod.{sys.implementation.cache_tag}.pyc"
    assert _import_fresh("pkg34.mod").X == 1  # read from the bytecode written above
    _write(module, "X = 2\n", 1_700_000_000)  # same size, same mtime: what CPython also cannot see
    _write(module, "X = 3\n", 1_700_000_100)  # same size, a new mtime
    assert _import_fresh("pkg34.mod").X == 3
    _write(module, "X = 44\n", 1_700_000_100)  # same mtime, a new size
    assert _import_fresh("pkg34.mod").X == 44
    cached.write_bytes(b"garbage")  # a bad magic number: compiled again from the source
    assert _import_fresh("pkg34.mod").X == 44
    assert cached.read_bytes()[:4] == importlib.util.MAGIC_NUMBER
    for key in [k for k in sys.modules if k.startswith("pkg34")]:
        del sys.modules[key]


def test_kept_puts_the_listed_finder_before_path_finder_and_takes_it_out() -> None:
    before = list(sys.meta_path)
    with import_finder.kept():
        listed = [f for f in sys.meta_path if isinstance(f, import_finder.ListedFinder)]
        assert len(listed) == 1
        assert sys.meta_path.index(listed[0]) + 1 == sys.meta_path.index(PathFinder)
        with import_finder.kept():
            assert [f for f in sys.meta_path if isinstance(f, import_finder.ListedFinder)] == listed
        importlib.invalidate_caches()  # the listings are made again
        assert listed[0].listings == {}
    assert sys.meta_path == before


def test_shellcheck_runs_in_a_thread_whose_end_result_waits_for(monkeypatch: pytest.MonkeyPatch) -> None:
    import _thread

    from argtrace.layers.shell import shellcheck as sc

    gate = _thread.allocate_lock()
    gate.acquire()

    def answer(data: bytes, timeout: float) -> sc.Outcome:
        with gate:  # held by the test until the pending run was started
            return [], f"{len(data)} {timeout}"

    monkeypatch.setattr(sc, "cached_shellcheck", answer)
    pending = sc.start_shellcheck(b"echo\n", 2.0)
    gate.release()
    assert pending.result() == ([], "5 2.0")
    assert pending.result() == ([], "5 2.0")  # asked again: the same answer

    def fails(data: bytes, timeout: float) -> sc.Outcome:
        raise RuntimeError("boom")

    seen: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: seen.append(str(u.exc_value)))
    monkeypatch.setattr(sc, "cached_shellcheck", fails)
    assert sc.start_shellcheck(b"x").result() == (None, "shellcheck did not run")
    assert seen == ["boom"]


def test_pathlib_without_ntpath_and_fnmatch_answers_as_before() -> None:
    code = (
        "import sys\n"
        "from argtrace.deferred_stdlib import import_pathlib\n"
        "pathlib = import_pathlib()\n"
        "print(sorted({'ntpath', 'fnmatch'} & set(sys.modules)))\n"
        "w = pathlib.PureWindowsPath('C:/Users/a b/x.PY')\n"
        "posix = pathlib.PurePosixPath('/a/b.py')\n"
        "print(w.parts, w.drive, w.match('*.py'), w.as_posix(), posix.match('b.*'))\n"
        "import ntpath, fnmatch\n"
        "print(type(ntpath).__name__, type(fnmatch).__name__, fnmatch.fnmatch('ab', 'a*'))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC)
    done = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True, env=env
    )
    deferred = "[]" if sys.version_info < (3, 13) else done.stdout.splitlines()[0]
    assert done.stdout.splitlines() == [
        deferred,
        "('C:\\\\', 'Users', 'a b', 'x.PY') C: True C:/Users/a b/x.PY True",
        "module module True",
    ]


def test_pth_files_and_distributions_are_read_from_one_listing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argtrace.frameworks import site_packages as sp
    from argtrace.remote.host import current_host

    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "extra").mkdir()
    (site / "a.pth").write_text("extra\nimport os\n")
    (site / "demo-1.0.dist-info").mkdir()
    os.utime(site, (1_700_000_000, 1_700_000_000))  # not changed in the last two seconds: kept
    monkeypatch.setattr(sp, "_DIST_INDEX", {})
    files = sp.HostFiles(current_host())
    listed: list[str] = []
    real = sp.HostFiles.listdir
    monkeypatch.setattr(sp.HostFiles, "listdir", lambda self, p: listed.append(p) or real(self, p))
    assert sp._pth_paths(files, str(site)) == [str(site / "extra")]
    assert [name for name, _ in sp._dist_dirs(files, str(site), "demo")] == ["demo-1.0.dist-info"]
    assert listed == [str(site)]


# What a plain check of the example no longer imports (imports34): threading (shellcheck's thread is
# _thread's, and its answer is cached), pathlib's ntpath and fnmatch (deferred_stdlib.py), the routers'
# readers (the test of a command's words is router_words.py), the leftover words' findings (only for
# words the parser left) and the config.json rules of a vLLM launch (layers/startup_rules.py)
DEFERRED = {
    "threading",
    "ntpath",
    "fnmatch",
    "argtrace.frameworks.router_launch",
    "argtrace.layers.parser.leftovers",
    "argtrace.layers.model_rules",
}


def test_a_plain_check_reads_argtraces_modules_through_the_listing_and_imports_none_of_the_deferred(
    tmp_path: Path,
) -> None:
    # the second check of the example: shellcheck's opinion comes from the cache (the first one stores it)
    code = (
        "import contextlib, io, sys, site\n"
        "sys.path.extend(site.getsitepackages())\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', '--format', 'json', '--no-resolve', {EXAMPLE!r}, '0', '30000'])\n"
        "print(type(sys.modules['argtrace.check'].__loader__).__name__)\n"
        f"print(' '.join(sorted(set({sorted(DEFERRED)!r}) & (set(sys.modules) - before))))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_CACHE_DIR=str(tmp_path / "cache"), ARGTRACE_WARM="0")
    env["ARGTRACE_DATA_CACHE"] = str(tmp_path / "data")
    run = [sys.executable, "-S", "-c", code]
    subprocess.run(run, capture_output=True, text=True, check=True, env=env)
    done = subprocess.run(run, capture_output=True, text=True, check=True, env=env)
    assert done.stdout.splitlines() == ["ListedLoader", ""]


def test_a_removed_working_directory_leaves_the_answer_to_path_finder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    monkeypatch.chdir(gone)
    gone.rmdir()
    monkeypatch.setattr(sys, "path", ["", *sys.path])
    finder = import_finder.ListedFinder(EXTERNAL)
    assert finder.find_spec("json", None) is None
    assert PathFinder.find_spec("json", None) is not None  # the standard path skips the entry
