"""The configuration file (``.argtrace.toml``, ``[tool.argtrace]``) found upward, the command line winning,
disabled rules, severity overrides, per-path overrides and ``--show-config``."""

from __future__ import annotations

import shutil
from pathlib import Path

from argtrace.ci.config import find_config
from tests.conftest import REPO, run_cli

FAST = ("--no-resolve", "--no-shellcheck")
CONFIG = """# argtrace settings
release = "0.5.23"
disable = ["PR011"]
severity = { SH004 = "warning" }

[[per-path]]
paths = ["legacy/*.sh"]
disable = ["SH004"]
"""


def _tree(root: Path) -> None:
    (root / "legacy").mkdir()
    shutil.copy(REPO / "examples" / "launch_mtp.sh", root / "launch_mtp.sh")
    shutil.copy(REPO / "examples" / "launch_mtp.sh", root / "legacy" / "old.sh")


def _codes(root: Path, *argv: str, cwd: Path | None = None) -> tuple[int, list[tuple[str, str, str]], dict]:
    result = run_cli(["lint", "--format", "json", *FAST, *argv], cwd=cwd or root)
    assert result.stderr == ""
    data = result.json
    return result.status, [(f["code"], f["severity"], f["at"]) for f in data["findings"]], data


def test_argtrace_toml_applies_upward_and_per_path(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / ".argtrace.toml").write_text(CONFIG)
    status, found, data = _codes(tmp_path, "--show-config")
    assert status == 1  # PA003: 0.5.23 (from the file) does not know --mamba-scheduler-strategy
    assert found == [
        ("SH030", "info", "launch_mtp.sh:19:12"),
        ("SH004", "warning", "launch_mtp.sh:27:5"),
        ("PR001", "warning", "launch_mtp.sh:13:8"),
        ("PA003", "error", "launch_mtp.sh:27:5"),
        ("SH030", "info", "legacy/old.sh:19:12"),
        ("PR001", "warning", "legacy/old.sh:13:8"),
        ("PA003", "error", "legacy/old.sh:27:5"),
    ]
    path = str(tmp_path / ".argtrace.toml")
    assert data["config"] == {
        "file": path,
        "applied": [
            {"setting": "release", "value": "'0.5.23'", "from": f"{path}:2"},
            {"setting": "disable", "value": "['PR011']", "from": f"{path}:3"},
            {"setting": "severity", "value": "{'SH004': 'warning'}", "from": f"{path}:4"},
            {"setting": "per-path ['legacy/*.sh']", "value": "'legacy/old.sh'", "from": f"{path}:7"},
        ],
    }
    assert f"config: release = '0.5.23' (from {path}:2)" in data["notes"]
    # From a subdirectory, the same file is found upward.
    _, below, _ = _codes(tmp_path, "old.sh", cwd=tmp_path / "legacy")
    assert [c for c, _, _ in below] == ["SH030", "PR001", "PA003"]


def test_command_line_wins(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / ".argtrace.toml").write_text(CONFIG)
    status, found, data = _codes(tmp_path, "--framework-version", "0.5.19", "launch_mtp.sh")
    assert [c for c, _, _ in found] == ["SH030", "SH004", "PA005"]
    assert status == 0  # SH004 is a warning by the file's severity override
    assert data["config"]["applied"][0] == {
        "setting": "release (the command line's value wins)",
        "value": "'0.5.19'",
        "from": "command line",
    }


def test_pyproject_tool_argtrace(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.argtrace]\ndisable = ["SH004", "PA005"]\n'
    )
    result = run_cli(["check", "--format", "json", *FAST, "--show-config", "launch_mtp.sh"], cwd=tmp_path)
    assert [f["code"] for f in result.json["findings"]] == ["SH026", "PR011", "PR006"]
    assert result.json["config"]["applied"] == [
        {"setting": "disable", "value": "['PA005', 'SH004']", "from": f"{tmp_path / 'pyproject.toml'}:5"}
    ]


def test_bad_config_is_a_usage_error(tmp_path: Path) -> None:
    _tree(tmp_path)
    (tmp_path / ".argtrace.toml").write_text('relase = "0.5.23"\n')
    result = run_cli(["lint", *FAST], cwd=tmp_path)
    assert (result.status, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"argtrace lint: {tmp_path / '.argtrace.toml'}: unknown argtrace setting(s): relase\n"
    )


def test_a_pyproject_without_argtrace_is_not_parsed(tmp_path: Path) -> None:
    # not even read as TOML: this one is invalid, and the search goes on to the parent directory's file
    (tmp_path / "pyproject.toml").write_text('[tool.ruff]\nline-length = "unterminated\n')
    inner = tmp_path / "project"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    assert find_config(inner) is None
    (tmp_path / "pyproject.toml").write_text("[tool.argtrace]\ndisable = ['PA005']\n")
    found = find_config(inner)
    assert found is not None and found.table == {"disable": ["PA005"]}
