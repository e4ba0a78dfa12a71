"""Start-up, session 37 (unrun37): code a plain check loaded and never ran, moved where it is read on first
use (pure moves: the same code runs, read later). A plain check of the example imports none of the modules
below; what each holds is read by the launches that reach it."""

from __future__ import annotations

from pathlib import Path

from argtrace.frameworks.schema import bundled_versions, load_schema, version_key
from argtrace.layers.parser.release_view import Releases
from tests.plain_check import imported_by_plain_checks

# What the example's check no longer imports: SGLang's argv rewrites (sglang-router's flags, `sglang serve`,
# `--config`'s merge) and its type= converters, the process layer's findings for a variable the release
# does not read or that the script also expands into an argument, the cross-release lookups of `Releases`,
# start_values.py's vLLM-only checks, a manifest's reading and a `--config` file's
DEFERRED = {
    "argtrace.frameworks.sglang_rewrites",
    "argtrace.frameworks.sglang_converters",
    "argtrace.layers.process_unread",
    "argtrace.layers.parser.release_view_rest",
    "argtrace.layers.start_values_vllm",
    "argtrace.layers.transport.manifest_read",
    "argtrace.frameworks.config_files",
}


def test_a_plain_check_imports_none_of_the_moved_code(tmp_path: Path) -> None:
    assert imported_by_plain_checks(tmp_path, DEFERRED) == [[], []]


def test_a_deferred_cached_property_is_the_modules_and_cached_per_instance() -> None:
    from argtrace.layers.parser import release_view_rest

    oldest = min(bundled_versions("sglang"), key=version_key)
    releases = Releases(load_schema("sglang", oldest), None)
    newer = releases.newer
    assert Releases.__dict__["newer"] is release_view_rest.newer  # from then on the class's own
    assert releases.newer is newer and releases.__dict__["newer"] is newer
    assert Releases(releases.schema, None).newer is not newer  # one list per instance, as before
    assert [s.version for s in newer] == [s.version for s in release_view_rest.newer_of(releases)]


def test_the_moved_names_are_importable_where_their_callers_look() -> None:
    from argtrace.frameworks import argv, config_files, sglang, sglang_converters
    from argtrace.layers import process, process_names, process_unread
    from argtrace.layers.transport import analyze_manifest, manifest_read, manifest_selection

    assert sglang.converter("sglang.srt.utils.human_readable_int") is sglang_converters.human_readable_int
    assert sglang.converter("json.loads") is None
    assert process.FRAMEWORK_PREFIXES is process_names.FRAMEWORK_PREFIXES
    assert process_unread.NEAR_MISS == 0.88
    assert analyze_manifest is manifest_read.analyze_manifest
    assert manifest_selection(["--service", "a", "--container=b"]) == ("a", "b")
    assert not hasattr(argv, "config_file") and callable(config_files.config_file)
