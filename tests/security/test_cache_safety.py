"""The on-disk caches against a hostile or careless neighbour: code in the dataclass store runs only when it
is the user's own file in a directory nobody else can change, no planted link redirects a read or a write,
and the resolution cache never keeps a secret in clear (probe of session 13, docs/redaction.md "Caches")."""

from __future__ import annotations

import json
import marshal
import os
import re
from pathlib import Path
from typing import Any

import pytest

from argtrace import dataclass_code, redact
from argtrace.cache_dirs import crc_checked, with_crc
from argtrace.resolver import cache, cache_write, data_cache

CLASS = "import dataclasses\n@dataclasses.dataclass\nclass Point:\n    x: int\n    y: int = 0\n"


def make_point(store: Path) -> Any:
    namespace: dict[str, Any] = {"__name__": "made"}
    with dataclass_code.kept(str(store)):
        exec(compile(CLASS, "<classes>", "exec", dont_inherit=True), namespace)
    return namespace["Point"]


def evil_store(real: Path, marker: Path) -> bytes:
    """``real``'s store with every method replaced by code that writes ``marker`` (behind a CRC-32 that
    matches: only where the file lies keeps it from running)."""
    body = crc_checked(real.read_bytes())
    assert body is not None
    build, codes = marshal.loads(body)
    evil = compile(f"open({str(marker)!r}, 'w').write('ran')\n", "<string>", "exec")
    return with_crc(marshal.dumps((build, dict.fromkeys(codes, evil))))


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path, bytes]:
    """A private cache directory with a genuine store, a marker path and an evil copy of the store."""
    cache_dir = tmp_path / "data"
    cache_dir.mkdir(mode=0o700)
    store = cache_dir / "dataclass-code-check.marshal"
    assert repr(make_point(store)(1)) == "Point(x=1, y=0)"
    marker = tmp_path / "MARKER"
    return store, marker, evil_store(store, marker)


def test_a_store_that_is_a_link_is_not_run(planted: tuple[Path, Path, bytes], tmp_path: Path) -> None:
    # before: open() followed the link and the target (the user's own, mode 0644) passed the owner check
    store, marker, evil = planted
    downloaded = tmp_path / "Downloads-evil.bin"
    downloaded.write_bytes(evil)
    store.unlink()
    store.symlink_to(downloaded)
    assert dataclass_code._read(str(store)) == {}
    point = make_point(store)
    assert not marker.exists()
    assert repr(point(2)) == "Point(x=2, y=0)"


def test_a_store_others_could_write_is_not_run(planted: tuple[Path, Path, bytes]) -> None:
    """The user's own directory made writable by others (umask 002) is taken back (0755 or tighter); a store
    that others could write to is not run."""
    store, marker, evil = planted
    store.write_bytes(evil)
    os.chmod(store, 0o666)
    os.chmod(store.parent, 0o777)
    assert dataclass_code._read(str(store)) == {}
    make_point(store)
    assert not marker.exists()
    assert oct(store.parent.stat().st_mode & 0o777) == "0o755"


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_store_in_another_users_directory_is_not_run(planted: tuple[Path, Path, bytes]) -> None:
    # before: only the file was checked; in another user's directory anyone with its owner's rights can
    # rename files into place
    store, marker, evil = planted
    store.write_bytes(evil)
    os.chmod(store, 0o600)
    os.chown(store.parent, 65534, 65534)
    try:
        assert dataclass_code._read(str(store)) == {}
        make_point(store)
        assert not marker.exists()
        assert store.read_bytes() == evil  # and nothing is written there either
    finally:
        os.chown(store.parent, os.getuid(), os.getgid())


def test_the_checks_apply_to_the_file_that_was_opened(
    planted: tuple[Path, Path, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A race: the store is swapped for a group-writable evil file at the last moment before it is opened."""
    store, marker, evil = planted
    real_open = os.open

    def swapping_open(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith(store.name):
            store.unlink()
            store.write_bytes(evil)
            os.chmod(store, 0o666)
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", swapping_open)
    assert dataclass_code._read(str(store)) == {}
    monkeypatch.undo()
    make_point(store)
    assert not marker.exists()


def test_saving_the_store_follows_no_planted_link(tmp_path: Path) -> None:
    # before: the temporary file STORE.PID.tmp was opened with O_CREAT|O_TRUNC and followed a planted link,
    # overwriting the file it pointed to with marshal data
    cache_dir = tmp_path / "data"
    cache_dir.mkdir(mode=0o700)
    store = cache_dir / "dataclass-code-check.marshal"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    for name in (f"{store.name}.{os.getpid()}.tmp", f".{store.name}.{os.getpid()}.tmp"):
        (cache_dir / name).symlink_to(victim)
    make_point(store)
    assert victim.read_text() == "precious\n"


def test_a_new_cache_directory_is_private(tmp_path: Path) -> None:
    store = tmp_path / "fresh" / "data" / "dataclass-code-check.marshal"
    make_point(store)
    assert oct(store.parent.stat().st_mode & 0o777) == "0o700"
    assert oct(store.stat().st_mode & 0o777) == "0o600"


def test_parsed_copies_follow_no_planted_link(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # before: Path.write_bytes followed a link planted at .NAME.PID.tmp
    root = tmp_path / "data"
    root.mkdir(mode=0o700)
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    source = tmp_path / "source.json"
    source.write_text("{}")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    key = data_cache._key("thing", [source])
    assert key is not None
    import zlib

    name = f"thing-{zlib.crc32(key.encode()):08x}.marshal"
    (root / f".{name}.{os.getpid()}.tmp").symlink_to(victim)
    assert data_cache.cached("thing", [source], lambda: {"a": 1}) == {"a": 1}
    assert victim.read_text() == "precious\n"


def test_parsed_copies_others_could_write_are_not_believed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "shared"
    root.mkdir()
    os.chmod(root, 0o777)
    monkeypatch.setenv("ARGTRACE_DATA_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_DATA_CACHE", raising=False)
    source = tmp_path / "source.json"
    source.write_text("{}")
    key = data_cache._key("thing", [source])
    assert key is not None
    import zlib

    planted = root / f"thing-{zlib.crc32(key.encode()):08x}.marshal"
    planted.write_bytes(with_crc(marshal.dumps((key, {"verdict": "planted"}))))
    os.chmod(planted, 0o666)
    assert data_cache.cached("thing", [source], lambda: {"verdict": "built"}) == {"verdict": "built"}


API_KEY = "PlantedApiKeyValue9876"
ADMIN_KEY = "PlantedAdminKey5555"
HF = "hf_PlantedTokenAbcdefghijklmnop1234"


@pytest.fixture
def resolutions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "resolutions"
    monkeypatch.setenv("ARGTRACE_RESOLUTION_CACHE", str(root))
    monkeypatch.delenv("ARGTRACE_NO_CACHE", raising=False)
    return root


def resolver_answer() -> dict[str, Any]:
    """The shape of a real SGLang 0.5.23 answer (tests/.../resolutions): the secrets echoed in a dict, in
    a repr and in the stderr tail."""
    return {
        "data": {
            "final": {"api_key": API_KEY, "admin_api_key": ADMIN_KEY, "tp_size": 2},
            "repr": f"ServerArgs(api_key='{API_KEY}', admin_api_key='{ADMIN_KEY}', tp_size=2)",
            "env": {"HF_TOKEN": HF},
        },
        "tail": f"error: --api-key {API_KEY} refused\n",
    }


def test_the_resolution_cache_keeps_no_secret_in_clear(resolutions: Path) -> None:
    # before: the answer was stored as it came (3 copies of --api-key and --admin-api-key in a real one)
    argv = ["--model-path", "m", "--api-key", API_KEY, "--admin-api-key", ADMIN_KEY]
    with redact.new_run([], environ={}):
        entry = cache_write.key("resolution", "/nonexistent-env", {"argv": argv}, {"HF_TOKEN": HF})
        cache_write.store(entry, resolver_answer())
    [stored] = resolutions.iterdir()
    text = stored.read_text()
    for secret in (API_KEY, ADMIN_KEY, HF, API_KEY[::-1]):
        assert secret not in text
    assert oct(stored.stat().st_mode & 0o777) == "0o600"
    # a later run with the same request gets the answer back whole
    with redact.new_run([], environ={}):
        again = cache_write.key("resolution", "/nonexistent-env", {"argv": argv}, {"HF_TOKEN": HF})
        assert again == entry
        assert cache.load(entry) == resolver_answer()


def test_an_entry_whose_secrets_the_run_cannot_know_is_a_miss(resolutions: Path) -> None:
    """A secret only the answer holds (a --config file's api_key) is sealed too; the next run, which does not
    know it before the answer, runs the resolver again instead of reading a wrong value."""
    answer = {"data": {"final": {"api_key": "FromAConfigFile123456"}}}
    with redact.new_run([], environ={}):
        entry = cache_write.key("resolution", "/nonexistent-env", {"argv": ["--config", "/c.yaml"]}, {})
        cache_write.store(entry, answer)
    assert "FromAConfigFile123456" not in next(resolutions.iterdir()).read_text()
    with redact.new_run([], environ={}):
        cache_write.key("resolution", "/nonexistent-env", {"argv": ["--config", "/c.yaml"]}, {})
        assert cache.load(entry) is None
    with redact.new_run(["--api-key", "FromAConfigFile123456"], environ={}):
        assert cache.load(entry) == answer  # known another way: read back whole


def test_sealing_is_exact_for_short_and_overlapping_secrets() -> None:
    secrets = {"4", "ab", "abc", 'x\\y"z'}
    payload = {"a4b": ["abc4", "ab-abc", 'x\\y"z4'], "n": 4, "none": None}
    sealed = cache_write.seal(payload, secrets)
    untagged = re.sub(r"\\u0000[0-9a-f]{16}\\u0000", "|", json.dumps(sealed))
    assert untagged == '{"a|b": ["||", "|-|", "||"], "n": 4, "none": null}'
    assert cache.unseal(sealed, secrets) == {"a4b": ["abc4", "ab-abc", 'x\\y"z4'], "n": 4, "none": None}
    assert cache_write.seal({"t": "a\x00b"}, secrets) is None  # a NUL in a text: not kept


def test_an_entry_of_the_format_that_kept_secrets_in_clear_is_deleted(resolutions: Path) -> None:
    resolutions.mkdir(mode=0o700)
    old = resolutions / ("0" * 64 + ".json")
    old.write_text(json.dumps({"format": 1, "key": "0" * 64, "payload": {"data": {"api_key": API_KEY}}}))
    os.chmod(old, 0o600)
    assert cache.load("0" * 64) is None
    assert not old.exists()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_resolution_cache_in_another_users_directory_is_not_used(resolutions: Path) -> None:
    resolutions.mkdir()
    planted = resolutions / ("1" * 64 + ".json")
    planted.write_text(json.dumps({"format": cache.FORMAT, "key": "1" * 64, "payload": {"data": {}}}))
    os.chown(resolutions, 65534, 65534)
    try:
        assert cache.load("1" * 64) is None
        cache_write.store("2" * 64, {"data": {}})
        assert not (resolutions / ("2" * 64 + ".json")).exists()
    finally:
        os.chown(resolutions, os.getuid(), os.getgid())
