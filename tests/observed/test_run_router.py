"""``argtrace run`` intercepts ``python -m sglang_router.launch_server`` (SGLang servers behind the router)
and vLLM's demo ``python -m vllm.entrypoints.api_server`` like the other server starts (issue 17): the
probe (``probe/sitecustomize.py``) records the argv and stops the process before the module runs."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.observed.fake_server import fake_site

_MARK = (
    "import os, sys\n"
    "with open(os.path.join(os.environ['ARGTRACE_TEST_MARKER_DIR'], 'STARTED'), 'w') as fh:\n"
    "    fh.write(' '.join(sys.argv))\n"
)


def _module(site: Path, rel: str) -> None:
    path = site / rel
    for parent in reversed(path.relative_to(site).parents):
        if str(parent) != ".":
            (site / parent).mkdir(parents=True, exist_ok=True)
            (site / parent / "__init__.py").touch()
    path.write_text(_MARK)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    fake_site(root, "sglang", "0.5.10.post1")
    fake_site(root, "vllm", "0.11.0")
    _module(root, "sglang_router/launch_server.py")
    _module(root, "vllm/entrypoints/api_server.py")
    (tmp_path / "marker").mkdir()
    monkeypatch.setenv("ARGTRACE_TEST_MARKER_DIR", str(tmp_path / "marker"))
    monkeypatch.setenv("PYTHONPATH", str(root))
    return root


@pytest.mark.parametrize(
    ("command", "framework", "version", "args"),
    [
        (
            "python3 -m sglang_router.launch_server",
            "sglang",
            "0.5.10.post1",
            ["--model-path", "/m", "--dp-size", "2", "--router-policy", "cache_aware"],
        ),
        ("python3 -m vllm.entrypoints.api_server", "vllm", "0.11.0", ["--model", "/m", "--port", "8001"]),
    ],
)
def test_run_intercepts_router_and_demo_server(
    site: Path, tmp_path: Path, command: str, framework: str, version: str, args: list[str]
) -> None:
    script = tmp_path / "launch.sh"
    script.write_text(f"#!/bin/bash\n{command} {' '.join(args)}\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    result = run_cli(["run", "--format", "json", str(script)], cwd=tmp_path)
    assert result.status in (0, 1), result.stderr
    capture = result.json["capture"]
    assert len(capture["servers"]) == 1, capture
    server = capture["servers"][0]
    assert server["argv"][1:3] == ["-m", command.split()[-1]]
    assert server["argv"][3:] == args
    assert server["framework_version"] == version
    assert server["heavy_modules_loaded"] == []
    # the probe ended the process before the module's code ran
    assert not (tmp_path / "marker" / "STARTED").exists()
    assert result.json["framework"]["name"] == framework
