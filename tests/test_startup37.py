"""Start-up, session 37 (unrun37): code a plain check loaded and never ran, moved where it is read on first
use (pure moves: the same code runs, read later). A plain check of the example imports none of the modules
below; what each holds is read by the launches that reach it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from argtrace.frameworks.schema import bundled_versions, load_schema, version_key
from argtrace.layers.parser.release_view import Releases

SRC = str(Path(__file__).resolve().parent.parent / "src")
EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh")

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
    # the example copied where no .argtrace.toml or pyproject.toml is found upward, checked twice (the
    # first run stores shellcheck's opinion)
    example = tmp_path / "launch_mtp.sh"
    example.write_bytes(Path(EXAMPLE).read_bytes())
    code = (
        "import contextlib, io, sys, site\n"
        "sys.path.extend(site.getsitepackages())\n"
        "before = set(sys.modules)\n"
        "from argtrace.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['check', '--format', 'json', '--no-resolve', {str(example)!r}, '0', '30000'])\n"
        f"print(' '.join(sorted(set({sorted(DEFERRED)!r}) & (set(sys.modules) - before))))\n"
    )
    env = dict(os.environ, PYTHONPATH=SRC, ARGTRACE_CACHE_DIR=str(tmp_path / "cache"), ARGTRACE_WARM="0")
    env["ARGTRACE_DATA_CACHE"] = str(tmp_path / "data")
    run_ = [sys.executable, "-S", "-c", code]
    first = subprocess.run(run_, capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    done = subprocess.run(run_, capture_output=True, text=True, check=True, env=env, cwd=tmp_path)
    assert first.stdout.splitlines() == [""]
    assert done.stdout.splitlines() == [""]


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
