"""Start-up, session 28 (issue 18): what a check reads of the entry-point index, and the release spans PR011
describes, computed once per input instead of once per question."""

from __future__ import annotations

import json

from argtrace.frameworks import entrypoints
from argtrace.frameworks.release import describe_releases
from argtrace.package_data import package_file


def _reset() -> None:
    entrypoints._packed.cache_clear()
    entrypoints._entry.cache_clear()
    entrypoints.entrypoint.cache_clear()


def test_an_entry_point_is_unpacked_when_first_asked_for_and_equals_the_index_file() -> None:
    raw = json.loads(package_file("frameworks/data/entrypoint_index.json").read_text(encoding="utf-8"))
    _reset()
    try:
        ep = entrypoints.entrypoint("sglang.launch_server")
        # one entry point asked for: one unpacked, the other six still packed
        assert entrypoints._entry.cache_info().currsize == 1
        assert ep is not None and ep.command == raw["entrypoints"]["sglang.launch_server"]["command"]
        assert entrypoints.entrypoint("no such entry point") is None
        assert entrypoints._entry("no such entry point") is None
        # every entry, unpacked, is the file's object, in the file's order
        assert list(entrypoints._packed()) == list(raw["entrypoints"])
        for name, entry in raw["entrypoints"].items():
            assert entrypoints._entry(name) == entry
        assert [e.name for e in entrypoints.entrypoints_of("sglang")] == [
            name for name, entry in raw["entrypoints"].items() if entry["framework"] == "sglang"
        ]
        assert [e.name for e in entrypoints.entrypoints_for_prog("api_server.py")] == [
            name for name, entry in raw["entrypoints"].items() if "api_server.py" in entry.get("progs", ())
        ]
    finally:
        _reset()


def test_release_spans_follow_each_bundled_list_they_are_given() -> None:
    # the places of a bundled list are kept per list: a second list (another framework, another order)
    # must not be read with the first one's places
    first = ["0.1", "0.2", "0.3", "0.4"]
    second = ["0.4", "0.3", "0.2", "0.1"]
    assert describe_releases(["0.1", "0.2", "0.3"], first) == "0.1-0.3"
    assert describe_releases(["0.1", "0.2", "0.3"], second) == "0.1, 0.2, 0.3"
    assert describe_releases(["0.3", "0.2", "0.1"], second) == "0.3-0.1"
    assert describe_releases(["0.1", "0.2", "0.3"], first) == "0.1-0.3"
    assert describe_releases(["0.1", "0.3", "0.4"], first) == "0.1, 0.3, 0.4"
    assert describe_releases([], first) == "none of the bundled releases"
    assert describe_releases(["9.9", "0.1", "0.2"], first) == "9.9, 0.1, 0.2"


def test_the_releases_reading_a_variable_are_answered_once_per_name_and_equal_a_fresh_answer() -> None:
    from argtrace.frameworks.release_index import release_index

    index = release_index("sglang")
    for name in ("SGL_ENABLE_JIT_DEEPGEMM", "SGLANG_ENABLE_JIT_DEEPGEMM", "SGLANG_NO_SUCH_VARIABLE", "SGL_X"):
        first = index.releases_knowing_env(name)
        assert first == index._releases_reading(name)
        assert index.releases_knowing_env(name) is first  # kept: the same answer object
    assert index.releases_knowing_env("SGLANG_NO_SUCH_VARIABLE") == ()
