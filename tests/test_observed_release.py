"""The release from what actually ran decides the analysis: ``check --url`` (SGLang ``/server_info``, vLLM
``/version``), a ``.gz`` ``--log``'s version line, and an ``argtrace run`` capture.

The servers are real HTTP servers on 127.0.0.1 serving recorded payloads (tests/live/fixtures/); the run
test starts the real launch with the probe against a fake framework package (tests/observed/fake_server.py).
Before, the release came from the static evidence only and what ran was compared afterwards (LV011,
PR107), so a launch checked against a running 0.5.10.post1 server was analysed as the newest bundled
release that accepts it.
"""

from __future__ import annotations

import gzip
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.live.fixture_server import serve_fixture
from tests.observed.fake_server import fake_site

SGLANG = "python3 -m sglang.launch_server --model-path /models/m --tp-size 2"


@pytest.fixture(autouse=True)
def first_run_machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # no resolver environment and no Hugging Face cache: nothing resolves, the decision is the evidence's
    monkeypatch.setenv("ARGTRACE_CACHE_DIR", str(tmp_path / "argtrace-cache"))
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))


def check(*argv: str, cwd: Path | None = None) -> dict[str, Any]:
    result = run_cli(["check", "--format", "json", "--no-shellcheck", *argv], cwd=cwd)
    assert result.stdout.startswith("{"), result.stderr
    return result.json


def codes(report: dict[str, Any]) -> list[str]:
    return [f["code"] for f in report["findings"]]


def setting(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["settings"] if s["name"] == name)


def test_server_info_decides_the_sglang_release() -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        report = check("--url", server.url, "-c", SGLANG)
        paths = [path for path, _ in server.requests]
    assert report["framework"] == {
        "name": "sglang",
        "version": "0.5.10.post1",
        "source": "live",
        "evidence": f"/server_info reports version 0.5.10.post1 at {server.url}/server_info#/version",
    }
    # analysed as 0.5.10.post1: --tp-size is its tensor_parallel_size dest, named by the field tp_size
    tp = setting(report, "tp_size")
    assert (tp["dest"], tp["intended"]) == ("tensor_parallel_size", "2")
    assert "LV011" not in codes(report) and "PR011" not in codes(report)
    # the answer that decided the release is the one the live layer compared: asked once
    assert [p for p in paths if p.startswith("/server_info")] == ["/server_info?config_format=json"]


def test_version_decides_the_vllm_release() -> None:
    with serve_fixture("vllm-0.33.0") as server:
        report = check("--url", server.url, "-c", "vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2")
    assert (report["framework"]["version"], report["framework"]["source"]) == ("0.33.0", "live")
    assert (
        report["framework"]["evidence"] == f"/version reports version 0.33.0 at {server.url}/version#/version"
    )
    assert "LV011" not in codes(report)


def test_a_named_release_the_server_contradicts_is_a_warning() -> None:
    with serve_fixture("sglang-0.5.10.post1") as server:
        report = check("--framework-version", "0.5.23", "--url", server.url, "-c", SGLANG)
    assert (report["framework"]["version"], report["framework"]["source"]) == ("0.5.23", "bundled-schema")
    conflict = [f for f in report["findings"] if f["code"] == "PR010"]
    assert [(f["severity"], f["message"]) for f in conflict] == [
        (
            "warning",
            "--framework-version 0.5.23 was given, but /server_info reports version 0.5.10.post1 at "
            f"{server.url}/server_info#/version shows sglang 0.5.10.post1: the analysis follows 0.5.23",
        )
    ]


def test_a_server_of_the_other_framework_decides_nothing() -> None:
    with serve_fixture("vllm-0.33.0") as server:
        report = check("--url", server.url, "-c", SGLANG)
    assert report["framework"]["source"] == "none"
    assert "LV002" in codes(report)


@pytest.mark.parametrize("members", [1, 2])
def test_a_gzip_log_gives_its_version_line(tmp_path: Path, members: int) -> None:
    log = tmp_path / "server.log.gz"
    first = b"[2026-11-30 05:00:00] INFO sglang version: 0.5.15.post1\n"
    args = (
        b"[2026-11-30 05:00:01] server_args=ServerArgs(model_path='/models/m', tp_size=2, pp_size=1, "
        b"dp_size=1, port=30000)\n"
    )
    data = gzip.compress(first + args)
    if members == 2:  # `cat a.gz b.gz`: the second member's launch is the latest
        data += gzip.compress(b"[2026-11-30 06:00:00] INFO sglang version: 0.5.19\n" + args)
    log.write_bytes(data)
    report = check("--log", str(log), "-c", SGLANG)
    version = "0.5.15.post1" if members == 1 else "0.5.19"
    line = 1 if members == 1 else 3
    assert report["framework"] == {
        "name": "sglang",
        "version": version,
        "source": "log",
        "evidence": f"the log's `sglang version: {version}` at {log}:{line}",
    }


def _venv_with(tmp_path: Path, dist: str) -> Path:
    """A venv whose site-packages claims ``dist`` (only its .dist-info): what the static layers read."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    (site / f"{dist}.dist-info").mkdir(parents=True)
    return venv


def test_a_run_capture_decides_the_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The venv's metadata says 0.5.23; the real run imports the fake package, 0.5.10.post1, from a
    # PYTHONPATH the script reads at run time (statically unknown, so the static layers see the venv only).
    venv = _venv_with(tmp_path, "sglang-0.5.23")
    fake_site(tmp_path / "site")
    (tmp_path / "pythonpath.txt").write_text(str(tmp_path / "site"))
    (tmp_path / "marker").mkdir()
    monkeypatch.setenv("ARGTRACE_TEST_MARKER_DIR", str(tmp_path / "marker"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    script = tmp_path / "launch.sh"
    script.write_text(
        f'#!/bin/bash\nexport PATH="{venv}/bin:$PATH"\n'
        # the probe's own directory stays on PYTHONPATH: it is how the start is intercepted
        'export PYTHONPATH="$(cat pythonpath.txt):$PYTHONPATH"\n'
        f"{SGLANG}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    static = check(str(script), cwd=tmp_path)
    assert (static["framework"]["version"], static["framework"]["source"]) == ("0.5.23", "installed")
    result = run_cli(
        ["run", "--format", "json", "--no-shellcheck", "--timeout", "60", str(script)], cwd=tmp_path
    )
    assert result.stdout.startswith("{"), result.stderr
    report = result.json
    assert report["capture"]["servers"][0]["framework_version"] == "0.5.10.post1"
    assert report["framework"] == {
        "name": "sglang",
        "version": "0.5.10.post1",
        "source": "run",
        "evidence": f"the real run imports sglang 0.5.10.post1 at {script}#capture1",
    }
    assert setting(report, "tp_size")["dest"] == "tensor_parallel_size"
    assert "PR107" not in codes(report)


def test_the_running_process_decides_the_release(tmp_path: Path) -> None:
    from tests.observed.fake_server import start_fake_server, stop

    site = fake_site(tmp_path / "site", version="0.5.19")
    proc = start_fake_server(
        site, ["--model-path", "/models/m", "--tp-size", "2"], port_file=tmp_path / "port"
    )
    try:
        report = check("--pid", str(proc.pid), "-c", SGLANG)
    finally:
        stop(proc)
    assert report["framework"] == {
        "name": "sglang",
        "version": "0.5.19",
        "source": "process",
        "evidence": f"the running process imports sglang 0.5.19 at pid:{proc.pid}",
    }
    assert "PR107" not in codes(report)
