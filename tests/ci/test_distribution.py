"""Distribution: the wheel carries every data file and works from a clean virtual environment; the
pre-commit hook runs ``argtrace lint`` on staged launch files with the real ``pre-commit``.

Both install argtrace and its dependencies from the package index into fresh environments (about a
minute each with a warm pip cache), so they are ``slow``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.ci.test_formats import EXPECTED, validate_sarif
from tests.conftest import REPO

pytestmark = pytest.mark.slow

EXAMPLE = REPO / "examples" / "launch_mtp.sh"


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 540) -> str:
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}: {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def _package_data() -> set[str]:
    """Every file of the package that is not Python source: schemas, release indexes, resolver stubs."""
    root = REPO / "src"
    return {
        p.relative_to(root).as_posix()
        for p in (root / "argtrace").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".py", ".pyc")
    }


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Built from a copy: an in-tree build would leave build/ and *.egg-info in the checkout.
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(REPO / "bin", source / "bin")  # the `argtrace` launcher (pyproject's script-files)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work / "dist"), str(source)], work
    )
    (built,) = (work / "dist").glob("argtrace-*.whl")
    return built


def test_wheel_carries_every_data_file(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    # the launcher, whose `#!python` line the installer rewrites, and no entry point writing a second one
    assert "argtrace-0.1.0.data/scripts/argtrace" in names
    assert not any(n.endswith("entry_points.txt") for n in names)
    data = _package_data()
    assert len(data) >= 20  # schemas, converters, raise sites, release index, signatures, stubs
    assert sorted(data - names) == []
    assert "argtrace/py.typed" in names


def test_clean_venv_install_runs(wheel: Path, tmp_path: Path) -> None:
    # Nothing of this checkout may leak in: no PYTHONPATH (pip would take a source tree's metadata for an
    # installed argtrace and skip the wheel), no active virtual environment.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)]
    _run(pip, tmp_path, env)
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(EXAMPLE, work / "launch_mtp.sh")
    argtrace = str(venv / "bin" / "argtrace")
    assert _run([argtrace, "--version"], work, env).strip() == "argtrace 0.1.0"
    where = _run([str(python), "-c", "import argtrace; print(argtrace.__file__)"], work, env)
    assert where.startswith(str(venv))  # the installed copy, not this checkout
    done = subprocess.run(
        [argtrace, "check", "--format", "sarif", "--no-resolve", "--no-shellcheck", "launch_mtp.sh"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (1, "")
    log = json.loads(done.stdout)
    validate_sarif(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == [code for code, *_ in EXPECTED]
    lint = subprocess.run(
        [argtrace, "lint", "--format", "gcc", "--no-resolve", "--no-shellcheck"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert lint.returncode == 1
    assert "launch_mtp.sh:27:5: error: line 27 starts with `--mamba-scheduler-strategy`" in lint.stdout


def _git(repo: Path, *argv: str) -> None:
    _run(["git", "-c", "user.email=ci@example.invalid", "-c", "user.name=ci", *argv], repo)


def test_pre_commit_hook_with_the_real_pre_commit(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    if shutil.which("git") is None:
        pytest.skip("needs git")
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    shutil.copy(EXAMPLE, project / "launch_mtp.sh")
    # YAML that is no launch file (a GitHub Actions workflow is one since the sixth carriers batch)
    (project / "ci.yml").write_text("title: notes\nitems: [a, b]\n")
    _git(project, "add", "launch_mtp.sh", "ci.yml")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("VIRTUAL_ENV", None)
    # The hook must run the argtrace pre-commit installed, not this checkout's source on PYTHONPATH.
    paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and Path(p) != REPO / "src"]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    # try-repo runs the hook from this checkout (a shadow commit of its working tree) on the staged files.
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "argtrace"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    out = done.stdout
    assert done.returncode == 1, out + done.stderr
    assert "argtrace....." in out and "Failed" in out
    assert "SH004 [shell] launch_mtp.sh:27:5" in out
    assert "ci.yml: skipped: not a shell script, compose file or manifest" in out
    # Fixed (the comment out of the continuation, the arguments given defaults): the hook passes.
    fixed = EXAMPLE.read_text().replace(
        "    # MTP on a hybrid Mamba model needs the extra buffer (it doubles the Mamba state cache)\n", ""
    )
    fixed = fixed.replace("GPU=$1", "GPU=${1:-0}").replace("PORT=$2", "PORT=${2:-30000}")
    (project / "launch_mtp.sh").write_text(fixed)
    _git(project, "add", "launch_mtp.sh")
    again = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "argtrace"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Passed" in again.stdout
