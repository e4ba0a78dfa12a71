"""The store's seal (dataclass_code, dcls36, issue 18): a store whose seal names this copy of the module is
read without the per-entry checks; any other store (changed after its seal, sealed by another copy, its seal
damaged, of another build, a link or writable by others) is checked entry by entry, as before the seal."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code
from argtrace.cache_dirs import crc_checked, dumps_checked, loads_checked, with_crc
from tests.test_dataclass_code32 import build, describe


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The entries a read checks (its ``_fits_key`` and ``_fits_text`` calls), by key."""
    seen: list[Any] = []
    fits_key, fits_text = dataclass_code._fits_key, dataclass_code._fits_text

    def counted_key(key: Any, codes: Any) -> bool:
        seen.append(key)
        return fits_key(key, codes)

    def counted_text(text: Any, code: Any) -> bool:
        seen.append(text)
        return fits_text(text, code)

    monkeypatch.setattr(dataclass_code, "_fits_key", counted_key)
    monkeypatch.setattr(dataclass_code, "_fits_text", counted_text)
    return seen


def _seal_of(store: Path) -> Any:
    return loads_checked((store.parent / (store.name + ".seal")).read_bytes())


def _store(tmp_path: Path, prefix: str, checks: list[Any]) -> tuple[Path, dict[Any, Any]]:
    """A store learnt from every variant (one ``kept`` per variant: each learnt entry checked when written,
    and the store sealed by this copy), and its entries."""
    store = tmp_path / "dataclass-code-check.marshal"
    build(store, prefix=prefix)
    assert checks  # what each run learnt
    checks.clear()
    texts, named, _, sealed, fit = dataclass_code._read_store(str(store))
    assert sealed == (dataclass_code._checker(),) and fit is True
    return store, {**texts, **named}


def test_a_store_sealed_by_this_copy_is_read_whole_without_the_checks(
    checks: list[Any], tmp_path: Path
) -> None:
    store, entries = _store(tmp_path, "dcls36_sealed", checks)
    assert len(entries) >= 30 and checks == []  # sealed when written: nothing checked
    build_id, crc, sealed = _seal_of(store)
    assert (build_id, crc, sealed) == (
        dataclass_code._build(),
        store.read_bytes()[15:19],
        (dataclass_code._checker(),),
    )
    (store.parent / "dataclass-code-check.marshal.seal").unlink()
    assert dataclass_code._read(str(store)) == entries  # the same entries, each checked
    assert len(checks) == len(entries)
    made = build(store, prefix="dcls36_sealed")  # nothing learnt: the seal is written again, not the store
    assert _seal_of(store)[2] == (dataclass_code._checker(),)
    checks.clear()
    assert dataclass_code._read(str(store)) == entries and checks == []
    plain = build(None, prefix="dcls36_sealed")
    assert {name: describe(cls) for name, cls in made.items()} == {
        name: describe(cls) for name, cls in plain.items()
    }


def test_a_store_changed_after_its_seal_is_checked_entry_by_entry(checks: list[Any], tmp_path: Path) -> None:
    store, entries = _store(tmp_path, "dcls36_changed", checks)
    body = crc_checked(store.read_bytes())
    assert body is not None
    import marshal

    build_id, codes = marshal.loads(body)
    one = compile("pass", "<s>", "exec")
    codes[("__repr__", "odd")] = (one,)  # a module code for a method: refused
    store.write_bytes(with_crc(marshal.dumps((build_id, codes))))  # the seal left as it was
    assert dataclass_code._read(str(store)) == entries
    assert len(checks) == len(entries) + 1


def test_a_store_sealed_by_another_copy_is_checked_then_sealed_by_this_one_too(
    checks: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    me = dataclass_code._checker()
    with monkeypatch.context() as other:  # argtrace upgraded since, or another checkout of it
        other.setattr(dataclass_code, "_checker", lambda: "/elsewhere/dataclass_code.py\n1\n2")
        store, entries = _store(tmp_path, "dcls36_other", checks)
    written = store.read_bytes()
    assert _seal_of(store)[2] == ("/elsewhere/dataclass_code.py\n1\n2",)
    assert dataclass_code._read(str(store)) == entries and len(checks) == len(entries)
    build(store, prefix="dcls36_other")
    assert store.read_bytes() == written  # nothing learnt: only the seal is written
    assert _seal_of(store)[2] == ("/elsewhere/dataclass_code.py\n1\n2", me)
    checks.clear()
    assert dataclass_code._read(str(store)) == entries and checks == []
    # a seal names the four newest copies at most
    for number in range(5):
        with monkeypatch.context() as newer:
            newer.setattr(dataclass_code, "_checker", lambda number=number: f"/copy{number}\n1\n2")
            build(store, prefix="dcls36_other")
    assert _seal_of(store)[2] == ("/copy1\n1\n2", "/copy2\n1\n2", "/copy3\n1\n2", "/copy4\n1\n2")


def _link(seal: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.seal"
    elsewhere.write_bytes(seal.read_bytes())
    seal.unlink()
    seal.symlink_to(elsewhere)


SEALS = {
    "damaged": lambda seal, tmp: seal.write_bytes(seal.read_bytes()[:-1] + b"\x00"),
    "of another build": lambda seal, tmp: seal.write_bytes(
        dumps_checked(("another build", loads_checked(seal.read_bytes())[1], (dataclass_code._checker(),)))
    ),
    "of another store": lambda seal, tmp: seal.write_bytes(
        dumps_checked((dataclass_code._build(), b"\x00\x00\x00\x00", (dataclass_code._checker(),)))
    ),
    "naming no text": lambda seal, tmp: seal.write_bytes(
        dumps_checked((dataclass_code._build(), loads_checked(seal.read_bytes())[1], (1,)))
    ),
    "a link": _link,
    "writable by others": lambda seal, tmp: os.chmod(seal, 0o666),
}


@pytest.mark.parametrize("how", SEALS)
def test_a_seal_that_cannot_be_believed_leaves_every_entry_checked(
    how: str, checks: list[Any], tmp_path: Path
) -> None:
    store, entries = _store(tmp_path, f"dcls36_seal_{list(SEALS).index(how)}", checks)
    SEALS[how](store.parent / (store.name + ".seal"), tmp_path)
    assert dataclass_code._read(str(store)) == entries
    assert len(checks) == len(entries)


def test_what_a_run_learns_is_checked_before_it_is_written_and_sealed(
    checks: list[Any], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = tmp_path / "dataclass-code-check.marshal"
    monkeypatch.setattr(
        dataclass_code, "_fits_key", lambda key, codes: checks.append(key) or key[0] != "__eq__"
    )
    build(store, prefix="dcls36_learnt")
    written = dataclass_code._read(str(store))
    assert checks and written and not [key for key in written if key[0] == "__eq__"]


@pytest.mark.parametrize("names", [[], ["a"], ["a", "b"], ["self", "__dataclass_self__", "x_1"], ["é", "b"]])
def test_the_tuple_text_of_the_fields_is_the_standard_one(names: list[str]) -> None:
    import dataclasses

    with dataclass_code.kept(None):  # no store path: nothing replaced
        pass
    standard = dataclasses._tuple_str  # type: ignore[attr-defined]
    kept = dataclass_code._steps_once(dataclasses)["_tuple_str"]
    fields = [dataclasses.field() for _ in names]
    for f, name in zip(fields, names, strict=True):
        f.name = name  # type: ignore[attr-defined]
    for obj_name in ("self", "other"):
        assert kept(obj_name, fields) == standard(obj_name, fields)
    expected = "(" + "".join(f"self.{n}," for n in names) + ")" if names else "()"
    assert kept("self", fields) == expected
