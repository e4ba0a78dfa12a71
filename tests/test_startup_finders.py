"""Start-up shortcuts that must answer exactly as the standard library (issue 18): ``FileFinder.find_spec``
testing the directory listing before joining names (import_finder.py) and ``gettext.find`` answering a
repeated question from its first answer (gettext_once.py)."""

from __future__ import annotations

import gettext
import importlib.machinery
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from argtrace import gettext_once, import_finder

FileFinder = importlib.machinery.FileFinder
LOADERS = sys.modules["_frozen_importlib_external"]._get_supported_file_loaders()
REAL_FIND_SPEC = FileFinder.find_spec
NAMES = (
    "json",  # a package
    "json.decoder",
    "decoder",  # a module of a package directory
    "argparse",
    "_json",  # an extension module (lib-dynload)
    "argtrace",
    "cli",
    "parser",  # argtrace.layers.parser: a package
    "shell",
    "build",
    "no_such_module_anywhere",
    "nspkg",  # a directory without __init__: a namespace package
    "ModFile",
    "modfile",
)


def described(spec: Any) -> Any:
    if spec is None:
        return None
    return (
        spec.name,
        spec.origin,
        type(spec.loader).__name__,
        getattr(spec.loader, "path", None),
        spec.submodule_search_locations and list(spec.submodule_search_locations),
        spec.has_location,
        spec.cached,
    )


def directories(tmp_path: Path) -> list[str]:
    (tmp_path / "nspkg").mkdir()
    (tmp_path / "ModFile.py").write_text("")
    import json

    import argtrace
    import argtrace.layers

    here = [p for p in sys.path if p and os.path.isdir(p)]
    return [*here, *json.__path__, *argtrace.__path__, *argtrace.layers.__path__, str(tmp_path)]


def test_the_same_specs_as_importlib(tmp_path: Path) -> None:
    compared = 0
    for directory in directories(tmp_path):
        finder = FileFinder(directory, *LOADERS)  # type: ignore[attr-defined]
        for name in NAMES:
            assert described(import_finder.find_spec(finder, name)) == described(REAL_FIND_SPEC(finder, name))
            compared += REAL_FIND_SPEC(finder, name) is not None
    assert compared >= 10  # found ones were compared, not only misses


def test_kept_installs_and_puts_back() -> None:
    with import_finder.kept():
        assert FileFinder.find_spec is import_finder.find_spec
        with import_finder.kept():
            assert FileFinder.find_spec is import_finder.find_spec
        assert FileFinder.find_spec is import_finder.find_spec
        import email.mime.text  # noqa: F401  (found through it)
    assert FileFinder.find_spec is REAL_FIND_SPEC


LANGUAGES = (None, "", "C", "de_DE.UTF-8", "fr:de", "pt_BR")


def test_gettext_find_answers_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    catalogue = tmp_path / "de" / "LC_MESSAGES"
    catalogue.mkdir(parents=True)
    (catalogue / "demo.mo").write_bytes(b"")
    real = gettext.find
    with gettext_once.kept():
        kept = gettext.find
        assert isinstance(kept, gettext_once.Find)
        for value in LANGUAGES:
            for variable in gettext_once.LANGUAGE_VARIABLES:
                monkeypatch.delenv(variable, raising=False)
            if value is not None:
                monkeypatch.setenv("LANGUAGE", value)
            for domain, directory in (("demo", str(tmp_path)), ("argparse", None), ("messages", None)):
                for every in (False, True):
                    first, second = kept(domain, directory, None, every), kept(domain, directory, None, every)
                    assert first == second == real(domain, directory, None, every)
                    if every:
                        assert first is not second  # a new list each time: the caller may change it
            assert kept("demo", str(tmp_path), ["de"]) == real("demo", str(tmp_path), ["de"])
        monkeypatch.setenv("LANGUAGE", "de")
        assert gettext.find("demo", str(tmp_path)) == str(catalogue / "demo.mo")
    assert gettext.find is real
