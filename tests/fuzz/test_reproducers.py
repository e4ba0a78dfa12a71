"""Every minimised fuzz reproducer as a regression test: it must now end as ``ok`` or ``usage-error``.

A reproducer is a directory under ``tests/fuzz/reproducers/``: ``case.json`` (``argv``, ``kind``,
``secrets``, ``markers``, ``executables``, ``fifos``, optionally ``expand`` (big files as a recipe) and
``expand_argv`` (big arguments), the
``signature`` it was found with and ``owner``, the part of argtrace it points at) and the case's files as
generated (``@DIR@`` stands for the directory it runs in).
Run one: ``pytest tests/fuzz/test_reproducers.py -k yaml-deep``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fuzz.generators import Case
from tests.fuzz.harness import PASSES, run_case

ROOT = Path(__file__).parent / "reproducers"
REPRODUCERS = sorted(p.parent for p in ROOT.glob("*/case.json"))


def load(directory: Path) -> Case:
    meta = json.loads((directory / "case.json").read_text())
    files = {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name != "case.json" and p.name not in meta.get("fifos", [])
    }
    # Big inputs are stored as a recipe: head, ``repeat`` (``{i}`` is the repetition's index) ``times``, tail.
    for rel, recipe in meta.get("expand", {}).items():
        body = "".join(recipe["repeat"].replace("{i}", str(i)) for i in range(recipe["times"]))
        files[rel] = (recipe["head"] + body + recipe["tail"]).encode()
    # and big arguments the same way, by their index in argv (``expand_argv``)
    argv = list(meta["argv"])
    for index, recipe in meta.get("expand_argv", {}).items():
        argv[int(index)] = recipe["head"] + recipe["repeat"] * recipe["times"] + recipe["tail"]
    return Case(
        meta["kind"],
        directory.name,
        files,
        argv,
        meta.get("secrets", []),
        meta.get("markers", []),
        meta.get("executables", []),
        meta.get("fifos", []),
    )


@pytest.mark.fuzz
@pytest.mark.parametrize("directory", REPRODUCERS, ids=[p.name for p in REPRODUCERS])
def test_reproducer_no_longer_fails(directory: Path, fuzz_data_cache: Path) -> None:
    meta = json.loads((directory / "case.json").read_text())
    out = run_case(load(directory), timeout=30.0, sign_hangs=False, data_cache=fuzz_data_cache)
    assert out.cls in PASSES, (
        f"{directory.name} ({meta['owner']}): {out.signature}, found as {meta['signature']}"
    )
