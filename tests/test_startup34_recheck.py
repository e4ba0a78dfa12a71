"""Start-up, session 34 (recheck34, issue 18): what the fix verification's re-check asked again is answered
once where its inputs are the same, and read afresh where they differ. Within one command
(``installed.remembered``) the server interpreter's PATH lookup is read from the files once per name, PATH
and directory; a line's start in a launch file is found by ``str.find`` (the same offsets as a step per
character); the process layer's PR003 scan and PR012's ``--device`` scan skip a word that cannot hold what
they look for, with the same findings."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argtrace import localfs, overlay
from argtrace.fixes.apply import _line_starts, apply_edits, line_mapper
from argtrace.frameworks import installed
from argtrace.model import FixEdit
from tests.conftest import run_cli

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "launch_mtp.sh"


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Each file ``installed.which`` looks at on this machine."""
    seen: list[str] = []
    real = localfs.is_file

    def counted(path: Any) -> bool:
        seen.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(localfs, "is_file", counted)
    yield seen


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_within_a_command_a_path_lookup_reads_the_files_once(reads: list[str], tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    found = _executable(second / "python3")
    path = f"{first}:{second}"
    with installed.remembered():
        assert installed.which("python3", path) == str(found)
        assert len(reads) == 2  # a/python3, then b/python3
        assert installed.which("python3", path) == str(found)
        assert len(reads) == 2  # the same name, PATH and directory: from memory
        # another PATH, another name, another directory: each read from the files
        assert installed.which("python3", str(first)) is None
        assert installed.which("python3.11", path) is None
        assert installed.which("python3", path, cwd=str(tmp_path)) == str(found)
        assert len(reads) == 2 + 1 + 2 + 2
    # outside a command nothing is kept: a file that appears is found
    _executable(first / "python3")
    assert installed.which("python3", path) == str(first / "python3")


def test_a_changed_path_gives_a_fresh_answer_within_a_command(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _executable(second / "python3")
    with installed.remembered():
        assert installed.which("python3", str(first)) is None
        assert installed.which("python3", f"{first}:{second}") == str(second / "python3")
        # an empty PATH entry and a relative name are looked up in the directory, part of the key
        assert installed.which("python3", "", cwd=str(second)) == str(second / "python3")
        assert installed.which("python3", "", cwd=str(first)) is None
        assert installed.which("./python3", None, cwd=str(second)) == str(second / "python3")
        assert installed.which("./python3", None, cwd=str(first)) is None


def test_a_lookup_while_an_edited_file_is_read_is_not_remembered(reads: list[str], tmp_path: Path) -> None:
    _executable(tmp_path / "python3")
    with installed.remembered():
        with overlay.overlay({str(tmp_path / "cfg.yaml"): b"x: 1\n"}):
            installed.which("python3", str(tmp_path))
            installed.which("python3", str(tmp_path))
        assert len(reads) == 2
        installed.which("python3", str(tmp_path))
        installed.which("python3", str(tmp_path))
        assert len(reads) == 3


def test_the_example_check_and_its_recheck_look_the_interpreter_up_once(reads: list[str]) -> None:
    result = run_cli(["check", "--format", "json", "--no-resolve", str(EXAMPLE), "0", "30000"])
    findings = json.loads(result.stdout)["findings"]
    assert [f["code"] for f in findings if f.get("fix_verified") is True] == ["SH004"]  # a re-check ran
    directories = [d for d in os.environ.get("PATH", "").split(os.pathsep)]
    # python3 on PATH: each directory up to the one holding it, once for the check and its re-check
    looked = [p for p in reads if os.path.basename(p) == "python3"]
    assert len(looked) == len(set(looked)) <= len(directories)


def test_within_a_command_argtraces_own_path_lookup_reads_the_files_once(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``localfs.which`` (``bash -n``'s bash, shellcheck) on argtrace's own PATH: once per name, PATH and
    working directory within a command; a changed PATH or directory gives a fresh answer."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    looked: list[str] = []
    real = os.path.exists

    def counted(path: Any) -> bool:
        looked.append(os.fspath(path))
        return real(path)

    monkeypatch.setattr(os.path, "exists", counted)
    monkeypatch.setenv("PATH", f"{first}:{second}")
    _executable(second / "tool")
    with installed.remembered():
        assert localfs.which("tool") == str(second / "tool")
        assert localfs.which("tool") == str(second / "tool")
        assert looked == [str(first / "tool"), str(second / "tool")]
        _executable(first / "tool")  # taken not to change within the command...
        assert localfs.which("tool") == str(second / "tool")
        monkeypatch.setenv("PATH", f"{second}:{first}")  # ...but another PATH is looked up
        assert localfs.which("tool") == str(second / "tool")
        monkeypatch.setenv("PATH", f":{first}")  # an empty entry: the working directory
        monkeypatch.chdir(second)
        assert localfs.which("tool") == "tool"
        monkeypatch.chdir(tmp_path)
        assert localfs.which("tool") == str(first / "tool")
        assert localfs.which("other") is None
        assert len(looked) == 2 + 1 + 1 + 2 + 2
    monkeypatch.setenv("PATH", f"{first}:{second}")
    assert localfs.which("tool") == str(first / "tool")  # outside a command: read afresh


def _line_starts_by_character(text: str) -> list[int]:
    """The definition ``_line_starts`` had: a step per character."""
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


@pytest.mark.parametrize(
    "text",
    [
        "",
        "x",
        "\n",
        "\n\n",
        "a\nb",
        "a\nb\n",
        "a\r\nb\r\n",
        "é\nü\n\n€",
        "\\\n  --flag \\\n",
        EXAMPLE.read_text(),
    ],
)
def test_line_starts_are_the_offsets_after_each_newline(text: str) -> None:
    assert _line_starts(text) == _line_starts_by_character(text)


def test_an_edit_and_its_line_mapping_from_the_line_starts() -> None:
    text = EXAMPLE.read_text()
    # the shipped example's fix: the comment that cut the command moved above it
    edits = [
        FixEdit(file="x", start="15:1", end="15:1", replacement="# moved\n"),
        FixEdit(file="x", start="26:1", end="27:1", replacement=""),
    ]
    edited = apply_edits(text, edits)
    assert edited.splitlines()[14] == "# moved"
    assert "# MTP on a hybrid" not in edited
    mapping = line_mapper(text, edits)
    assert mapping[14] == 14 and mapping[15] == 16 and mapping[25] == 26 and mapping[27] == 27
    assert 26 not in mapping


SCRIPT = """#!/bin/bash
export SGLANG_HOST_IP=10.0.0.1
export SGLANG_ENABLE_SPEC_V2=1
export CUDA_VISIBLE_DEVICES=0
python3 -m sglang.launch_server --model-path /m --host "$SGLANG_HOST_IP" \\
  --api-key "x${SGLANG_ENABLE_SPEC_V2}y" --served-model-name '$SGLANG_ENABLE_SPEC_V2' --device=npu
"""


def test_pr003_and_the_device_platform_still_read_the_words_that_hold_them(tmp_path: Path) -> None:
    """The same findings as before the words were skipped (the base a735a926 gives them, paths aside)."""
    script = tmp_path / "launch.sh"
    script.write_text(SCRIPT)
    result = run_cli(["check", "--format", "json", "--no-resolve", str(script)])
    findings = json.loads(result.stdout)["findings"]
    pr003 = [(f["at"], f["severity"]) for f in findings if f["code"] == "PR003"]
    # the host word (an address: info) and the --api-key word; the single-quoted word expands nothing
    assert pr003 == [(f"{script}:5:56", "info"), (f"{script}:6:13", "warning")]
    (pr012,) = [f for f in findings if f["code"] == "PR012"]
    assert pr012["at"] == f"{script}:4:8"
    assert "this server runs on Ascend NPU accelerators (--device npu)" in pr012["message"]


@pytest.mark.parametrize(
    ("framework", "version"),
    [
        ("sglang", "0.5.19"),
        ("sglang", "0.4.0.post2"),
        ("sglang", "0.5.23"),
        ("sglang", "0.5.19.post9"),
        ("vllm", "0.33.0"),
        ("vllm", "0.8.5"),
    ],
)
def test_the_newer_releases_are_those_after_the_schemas_version(framework: str, version: str) -> None:
    """``_newer_places`` (kept per framework and version) is the per-flag comparison it replaced, and
    ``removed_later``'s shortcut answers as before for flags every newer release knows and flags one lacks."""
    from argtrace.frameworks.release_index import release_index
    from argtrace.frameworks.schema import version_key
    from argtrace.layers.parser.release_view import _newer_places

    index = release_index(framework)
    key = version_key(version)
    expected = tuple(i for i, v in enumerate(index.releases) if version_key(v) > key)
    assert _newer_places(framework, version) == expected
    assert _newer_places(framework, version) is _newer_places(framework, version)
    for flag in sorted(index.flags)[:: max(1, len(index.flags) // 40)]:
        knowing = set(index.flags[flag])
        old = all(i in knowing for i, v in enumerate(index.releases) if version_key(v) > key)
        assert all(i in knowing for i in _newer_places(framework, version)) is old
