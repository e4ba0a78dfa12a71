"""Reading a framework version never runs anything a launch script controls (issue 24).

Every interpreter a script can name is planted here as a program that writes a marker file when run: a
``./bin/python3`` shell script, a ``python3`` on a ``PATH`` the script exported, the program a console
script's ``#!`` line names, a pyenv shim (with ``PYENV_VERSION``/``PYTHONPATH`` from the script and a
``sitecustomize.py`` on that path), a running server's own interpreter (``check --pid``, ``ps``), and the
same over ``--host``. After each ``check`` the marker must not exist. The legitimate layouts (a venv, a
system prefix, a conda-like prefix, Debian's dist-packages, pyenv versions) must still give the exact
version, read from the files alone.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from argtrace.frameworks import installed, site_packages
from argtrace.frameworks.schema import bundled_versions
from tests.conftest import run_cli
from tests.observed.fake_server import fake_site, stop
from tests.parser.helpers import server

PY = f"{sys.version_info[0]}.{sys.version_info[1]}"
NEWEST_SGLANG = bundled_versions("sglang")[-1]
# Nothing shows the release when the interpreter's version cannot be read (issue 11): unknown, analysed as
# the newest bundled release that accepts the launch.
UNKNOWN_RELEASE = {
    "name": "sglang",
    "version": None,
    "source": "none",
    "analysed_with": NEWEST_SGLANG,
    "accepted_by": bundled_versions("sglang"),
}


def installed_release(doc: dict[str, Any]) -> tuple[str, str]:
    """The version and source of a release read from the interpreter's files, whose evidence names it."""
    framework = doc["framework"]
    assert framework["evidence"].startswith("installed in ") and framework["evidence"].endswith("python3")
    return framework["version"], framework["source"]


FAKE_ELF = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 56  # an ELF header: looked at, never run


def marker_program(path: Path, marker: Path) -> Path:
    """A program that records that it ran, then behaves like the real interpreter."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho ran >> "{marker}"\nexec "{sys.executable}" "$@"\n')
    path.chmod(0o755)
    return path


def dist_info(site: Path, name: str, version: str, *, dir_name: str | None = None) -> Path:
    """A ``.dist-info`` as pip records it (packaging's "Recording installed projects")."""
    dist = site / (dir_name or f"{name.replace('-', '_')}-{version}.dist-info")
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nBody: x\n")
    return dist


def real_venv(root: Path) -> Path:
    """A real ``python -m venv --without-pip`` (bin/python3 is a symlink to the base interpreter)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    return root


def venv_site(venv: Path) -> Path:
    return venv / "lib" / f"python{PY}" / "site-packages"


def fake_prefix(root: Path, version: str = "3.11", *, name: str = "python3.11") -> Path:
    """An installation prefix (system or conda-like): an ELF-headed bin/pythonX.Y, lib/pythonX.Y/os.py."""
    (root / "bin").mkdir(parents=True, exist_ok=True)
    binary = root / "bin" / name
    binary.write_bytes(FAKE_ELF)
    binary.chmod(0o755)
    if name != "python3":
        (root / "bin" / "python3").symlink_to(name)
    (root / "lib" / f"python{version}").mkdir(parents=True, exist_ok=True)
    (root / "lib" / f"python{version}" / "os.py").write_text("# landmark\n")
    return root


def evil_site(root: Path, marker: Path) -> Path:
    """A PYTHONPATH directory whose ``sitecustomize.py`` writes ``marker`` in any interpreter that starts."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "sitecustomize.py").write_text(f"open({str(marker)!r}, 'a').write('ran\\n')\n")
    return root


def check_json(script: Path, *extra: str, cwd: Path | None = None) -> dict[str, object]:
    result = run_cli(["check", "--format", "json", "--no-shellcheck", *extra, str(script)], cwd=cwd)
    assert result.status in (0, 1), result.stderr
    assert "Traceback" not in result.stderr
    doc: dict[str, object] = result.json
    return doc


def launch(path: Path, body: str) -> Path:
    path.write_text("#!/bin/bash\n" + body)
    return path


# ---------------------------------------------------------------------------------- never execute


def test_a_shell_script_called_python3_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    venv = tmp_path / "app"
    marker_program(venv / "bin" / "python3", marker)
    # It even looks like a venv with the framework installed: the wrapper may start anything else.
    (venv / "pyvenv.cfg").write_text(f"home = /usr/bin\nversion = {PY}.0\n")
    script = launch(tmp_path / "launch.sh", "./app/bin/python3 -m sglang.launch_server --model-path /m\n")
    doc = check_json(script, cwd=tmp_path)
    assert not marker.exists()
    assert doc["framework"] == UNKNOWN_RELEASE
    # with the framework's record beside it, still unknown: the record says nothing of what it starts
    dist_info(venv_site(venv), "sglang", "0.5.10.post1")
    doc = check_json(script, cwd=tmp_path)
    assert not marker.exists()
    assert doc["framework"] == UNKNOWN_RELEASE
    srv = server(["--model-path", "/m"], env={"PATH": "/usr/bin:/bin"}, cwd=str(tmp_path))
    found = installed.installed_framework_version("sglang", server=srv, python=str(venv / "bin" / "python3"))
    assert (found.version, found.interpreter, found.how) == (None, str(venv / "bin" / "python3"), None)
    assert found.reason == (
        f"{venv / 'bin' / 'python3'} is a script, not an interpreter binary: what it starts is known only "
        "by running it, and argtrace does not run what a launch names"
    )
    assert not marker.exists()


def test_a_python3_on_a_path_the_script_exported_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    marker_program(tmp_path / "evil" / "python3", marker)
    script = launch(
        tmp_path / "launch.sh",
        f"export PATH={tmp_path / 'evil'}:$PATH\npython3 -m sglang.launch_server --model-path /m\n",
    )
    doc = check_json(script, cwd=tmp_path)
    assert not marker.exists()
    assert doc["framework"] == UNKNOWN_RELEASE


def test_a_console_scripts_shebang_program_is_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    evil = marker_program(tmp_path / "evil" / "python3", marker)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(f"#!{evil}\nfrom vllm.entrypoints.cli.main import main\nmain()\n")
    (bin_dir / "vllm").chmod(0o755)
    # and the `env` form, which finds python3 on the script's PATH
    (bin_dir / "sglang").write_text("#!/usr/bin/env python3\nfrom sglang.cli import main\nmain()\n")
    (bin_dir / "sglang").chmod(0o755)
    script = launch(
        tmp_path / "launch.sh",
        f"export PATH={bin_dir}:{tmp_path / 'evil'}:$PATH\nvllm serve /m\nsglang serve --model-path /m\n",
    )
    result = run_cli(["check", "--format", "json", "--no-shellcheck", str(script)], cwd=tmp_path)
    assert "Traceback" not in result.stderr
    assert not marker.exists()
    assert installed.shebang_interpreter(str(bin_dir / "vllm")) == str(evil)
    srv = server(["/m"], entrypoint="vllm serve", env={"PATH": f"{bin_dir}:{tmp_path / 'evil'}"})
    found = installed.installed_framework_version("vllm", server=srv)
    assert (found.version, found.interpreter) == (None, str(evil))
    assert found.reason is not None and found.reason.startswith(f"{evil} is a script, not an interpreter")
    assert not marker.exists()


def _pyenv(root: Path, marker: Path) -> Path:
    """A pyenv root as pyenv lays it out: a shim (pyenv's own template), ``libexec/pyenv`` (here a
    marker-writing program) and two versions (real venvs, so their python3 is a real interpreter)."""
    (root / "shims").mkdir(parents=True)
    marker_program(root / "libexec" / "pyenv", marker)
    shim = root / "shims" / "python3"
    shim.write_text(
        '#!/usr/bin/env bash\nset -e\n[ -n "$PYENV_DEBUG" ] && set -x\n\nprogram="${0##*/}"\n\n'
        f'export PYENV_ROOT="{root}"\n'
        f'exec "{root}/libexec/pyenv" exec "$program" "$@"\n'
    )
    shim.chmod(0o755)
    for version, sglang in (("3.11.7", "0.5.10.post1"), ("3.11.9", "0.5.19")):
        dist_info(venv_site(real_venv(root / "versions" / version)), "sglang", sglang)
    return shim


def test_a_pyenv_shim_is_read_by_pyenvs_rules_never_run(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    shim = _pyenv(tmp_path / "pyenv", marker)
    site = evil_site(tmp_path / "hooks", marker)
    script = launch(
        tmp_path / "launch.sh",
        f"export PATH={shim.parent}:$PATH PYENV_VERSION=3.11.9 PYTHONPATH={site}\n"
        "python3 -m sglang.launch_server --model-path /m\n",
    )
    doc = check_json(script, cwd=tmp_path)
    assert not marker.exists()
    assert installed_release(doc) == ("0.5.19", "installed")
    # without PYENV_VERSION: the .python-version of the working directory (or a parent), then $root/version
    work = tmp_path / "project" / "sub"
    work.mkdir(parents=True)
    (tmp_path / "project" / ".python-version").write_text("# pinned\n3.11.7\n")
    env = {"PATH": f"{shim.parent}:/usr/bin"}
    found = site_packages.installed_version(str(shim), "sglang", env, str(work))
    assert (found.version, found.interpreter) == (
        "0.5.10.post1",
        str(tmp_path / "pyenv/versions/3.11.7/bin/python3"),
    )
    (tmp_path / "pyenv" / "version").write_text("3.11.9\n")
    found = site_packages.installed_version(str(shim), "sglang", env, str(tmp_path))
    assert found.version == "0.5.19"
    # a prefix that two installed versions match: pyenv would pick one by its own sorting, so unknown
    found = site_packages.installed_version(
        str(shim), "sglang", {**env, "PYENV_VERSION": "3.11"}, str(tmp_path)
    )
    assert (found.version, found.reason) == (
        None,
        f"pyenv version '3.11' (PYENV_VERSION) matches 3.11.7, 3.11.9 under {tmp_path / 'pyenv'}/versions: "
        "which one pyenv picks is not read from files",
    )
    found = site_packages.installed_version(
        str(shim), "sglang", {**env, "PYENV_VERSION": "3.9.1"}, str(tmp_path)
    )
    assert found.reason == (
        f"the pyenv shim {shim} runs `python3` of version 3.9.1 (PYENV_VERSION), which is not installed "
        f"under {tmp_path / 'pyenv'}/versions"
    )
    assert not marker.exists()


def test_pyenv_system_is_the_next_python3_on_path_and_a_shim_loop_ends(tmp_path: Path) -> None:
    marker = tmp_path / "MARKER"
    shim = _pyenv(tmp_path / "pyenv", marker)
    venv = real_venv(tmp_path / "venv")
    dist_info(venv_site(venv), "sglang", "0.5.23")
    env = {"PYENV_VERSION": "system", "PATH": f"{shim.parent}:{venv / 'bin'}"}
    found = site_packages.installed_version(str(shim), "sglang", env, str(tmp_path))
    assert (found.version, found.interpreter) == ("0.5.23", str(venv / "bin" / "python3"))
    # the shims directory again under another name: `system` finds the shim itself, round and round
    (tmp_path / "alias").symlink_to(shim.parent)
    env = {"PYENV_VERSION": "system", "PATH": f"{shim.parent}:{tmp_path / 'alias'}"}
    found = site_packages.installed_version(str(shim), "sglang", env, str(tmp_path))
    # shims/python3 -> (system, no shims/) alias/python3 -> (system, no alias/) shims/python3: stop
    assert (found.version, found.reason) == (
        None,
        f"the pyenv shim {shim} leads to another shim again ({tmp_path / 'alias' / 'python3'})",
    )
    assert not marker.exists()


def test_resolution_never_runs_the_scripts_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from argtrace.layers import resolution
    from argtrace.resolver import environments

    marker = tmp_path / "MARKER"
    evil = marker_program(tmp_path / "venv" / "bin" / "python3", marker)
    # no resolver environment at all: before, the script's own interpreter ran the recorder
    monkeypatch.setattr(environments, "find_environment", lambda framework, version: None)
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text('{"architectures": ["LlamaForCausalLM"], "model_type": "llama"}')
    script = launch(tmp_path / "launch.sh", f"{evil} -m sglang.launch_server --model-path /m\n")
    doc = check_json(script, "--model-config", str(model), cwd=tmp_path)
    assert not marker.exists()
    assert doc["resolution"]["status"] == "skipped"  # type: ignore[index]
    assert resolution.find_target("sglang", "0.0.1", None, str(evil)) is None


@pytest.fixture
def hooked_server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path, Path]]:
    """A real server process started from a venv's python3, its PYTHONPATH carrying the fake framework and
    a ``sitecustomize.py`` that writes the marker in every *later* interpreter started with it (the server
    itself and its own workers are let through)."""
    marker = tmp_path / "MARKER"
    started = tmp_path / "STARTED_PID"
    site = fake_site(tmp_path / "site")
    (site / "sitecustomize.py").write_text(
        "import os\n"
        f"started, marker = {str(started)!r}, {str(marker)!r}\n"
        f"if os.getppid() == {os.getpid()} and not os.path.exists(started):\n"
        "    open(started, 'w').write(str(os.getpid()))\n"
        "else:\n"
        "    try:\n        server = int(open(started).read())\n"
        "    except (OSError, ValueError):\n        server = -1\n"
        "    if os.getppid() != server:\n        open(marker, 'a').write('ran\\n')\n"
    )
    venv = real_venv(tmp_path / "venv")
    # The framework's record is reached only through a .pth path line of the venv (as an editable or a
    # vendored install is): a reader that gives up on files would have to ask the interpreter.
    record = tmp_path / "vendored"
    record.mkdir()
    (site / "sglang-0.5.10.post1.dist-info").rename(record / "sglang-0.5.10.post1.dist-info")
    (venv_site(venv) / "vendored.pth").write_text(f"{record}\n")
    proc = subprocess.Popen(
        [
            str(venv / "bin" / "python3"),
            "-m",
            "sglang.launch_server",
            "--model-path",
            "/m",
            "--port",
            "30000",
        ],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(site)},
        cwd=tmp_path,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield proc, marker, venv
    finally:
        stop(proc)


def _wait_for_worker(proc: subprocess.Popen[bytes]) -> None:
    import time

    import psutil

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not psutil.Process(proc.pid).children():
        time.sleep(0.05)


def test_check_pid_and_ps_read_the_running_servers_version_without_running_its_python(
    hooked_server: tuple[subprocess.Popen[bytes], Path, Path],
) -> None:
    proc, marker, venv = hooked_server
    _wait_for_worker(proc)
    assert not marker.exists()  # the server and its worker started without tripping it
    command = f"{venv / 'bin' / 'python3'} -m sglang.launch_server --model-path /m --port 30000"
    result = run_cli(["check", "--format", "json", "--no-shellcheck", "--pid", str(proc.pid), "-c", command])
    assert result.status in (0, 1), result.stderr
    ps = run_cli(["ps", "--format", "json", "--pid", str(proc.pid)])
    assert not marker.exists()
    observed = result.json["observed_process"]
    assert (observed["pid"], observed["framework_version"]) == (proc.pid, "0.5.10.post1")
    assert [(p["pid"], p["framework_version"]) for p in ps.json["processes"]] == [(proc.pid, "0.5.10.post1")]


# ---------------------------------------------------------------------------------- over --host


def test_remote_check_never_runs_the_nodes_interpreter_or_sh(sshd: object, tmp_path: Path) -> None:
    """Over ``--host`` the node's files are read by the collector; before, the node ran the interpreter
    (with the script's PYTHONPATH) and ``sh -c 'command -v'`` on the script's PATH."""
    from tests.transport.sshd import SshServer

    assert isinstance(sshd, SshServer)
    marker = tmp_path / "MARKER"
    evil = tmp_path / "evil"
    marker_program(evil / "sh", marker)
    venv = real_venv(tmp_path / "venv")
    dist_info(venv_site(venv), "sglang", "0.5.10.post1")
    site = evil_site(tmp_path / "hooks", marker)
    script = launch(
        tmp_path / "launch.sh",
        f"export PATH={evil}:{venv / 'bin'}:/usr/bin:/bin PYTHONPATH={site}\n"
        "python3 -m sglang.launch_server --model-path /m\n",
    )
    result = run_cli([*sshd.cli_prefix(), "check", "--format", "json", "--no-shellcheck", str(script)])
    assert result.status in (0, 1), result.stderr
    assert not marker.exists()
    assert installed_release(result.json) == ("0.5.10.post1", "installed")
    hop = next(h for h in result.json["transport"]["hops"] if h["via"].startswith("--host "))
    assert (hop["resolved"], hop["framework_version"]) == (str(venv / "bin" / "python3"), "0.5.10.post1")
    assert "TP015" not in result.codes()
    assert not marker.exists()


def test_remote_ps_and_check_pid_never_run_the_servers_python(
    sshd: object, hooked_server: tuple[subprocess.Popen[bytes], Path, Path]
) -> None:
    from tests.transport.sshd import SshServer

    assert isinstance(sshd, SshServer)
    proc, marker, venv = hooked_server
    _wait_for_worker(proc)
    ps = run_cli([*sshd.cli_prefix(), "ps", "--format", "json", "--pid", str(proc.pid)])
    assert ps.status == 0, ps.stderr
    assert not marker.exists()
    assert [(p["pid"], p["framework_version"]) for p in ps.json["processes"]] == [(proc.pid, "0.5.10.post1")]
    command = f"{venv / 'bin' / 'python3'} -m sglang.launch_server --model-path /m --port 30000"
    argv = ["check", "--format", "json", "--no-shellcheck", "--pid", str(proc.pid), "-c", command]
    result = run_cli([*sshd.cli_prefix(), *argv])
    assert result.status in (0, 1), result.stderr
    assert result.json["observed_process"]["framework_version"] == "0.5.10.post1"
    assert not marker.exists()


# ------------------------------------------------------------------------- legitimate layouts


def test_a_real_venv(tmp_path: Path) -> None:
    venv = real_venv(tmp_path / "venv")
    dist_info(venv_site(venv), "sglang", "0.5.10.post1")
    found = site_packages.installed_version(str(venv / "bin" / "python3"), "sglang", {}, str(tmp_path))
    assert (found.version, found.interpreter) == ("0.5.10.post1", str(venv / "bin" / "python3"))
    assert found.layout is not None
    assert (found.layout.venv, found.layout.prefix, found.layout.python_version) == (True, str(venv), PY)
    assert found.distribution == site_packages.Distribution(
        "sglang", "0.5.10.post1", str(venv_site(venv) / "sglang-0.5.10.post1.dist-info"), "dist-info"
    )
    # a symlink elsewhere to the venv's python3 is not the venv (PEP 405 looks beside the path as
    # typed; CPython then starts from the base interpreter): the venv's sglang is not seen through it
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "python3").symlink_to(venv / "bin" / "python3")
    through = site_packages.installed_version(str(tmp_path / "elsewhere" / "python3"), "sglang", {}, "/")
    assert through.layout is not None and not through.layout.venv
    assert str(venv_site(venv)) not in through.layout.sites


def test_a_venv_sees_the_base_site_packages_only_when_pyvenv_cfg_says_so(tmp_path: Path) -> None:
    base = fake_prefix(tmp_path / "base")
    dist_info(base / "lib" / "python3.11" / "site-packages", "vllm", "0.33.0")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python3").symlink_to(base / "bin" / "python3.11")
    (venv / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    cfg = venv / "pyvenv.cfg"
    cfg.write_text(f"home = {base / 'bin'}\ninclude-system-site-packages = false\nversion = 3.11.4\n")
    python = str(venv / "bin" / "python3")
    found = site_packages.installed_version(python, "vllm", {}, str(tmp_path))
    assert (found.version, found.reason) == (
        None,
        f"no vllm .dist-info or .egg-info in the 1 directories {python} imports from",
    )
    cfg.write_text(
        f"home = {base / 'bin'}\ninclude-system-site-packages = true\nversion_info = 3.11.4.final.0\n"
    )
    found = site_packages.installed_version(python, "vllm", {}, str(tmp_path))
    assert found.version == "0.33.0"
    assert found.layout is not None and found.layout.base_prefix == str(base)
    # the venv's own copy wins over the base's
    dist_info(venv / "lib" / "python3.11" / "site-packages", "vllm", "0.32.1")
    assert site_packages.installed_version(python, "vllm", {}, str(tmp_path)).version == "0.32.1"


def test_a_conda_like_prefix_and_a_system_prefix(tmp_path: Path) -> None:
    conda = fake_prefix(tmp_path / "miniconda3" / "envs" / "serve", "3.12", name="python3.12")
    (conda / "conda-meta").mkdir()
    dist_info(conda / "lib" / "python3.12" / "site-packages", "sglang", "0.5.15.post1")
    found = site_packages.installed_version(str(conda / "bin" / "python3"), "sglang", {}, str(tmp_path))
    assert (found.version, found.layout and found.layout.prefix) == ("0.5.15.post1", str(conda))
    # a binary whose name carries no version and two lib/pythonX.Y landmarks: unknown, not a guess
    odd = fake_prefix(tmp_path / "odd", "3.10", name="python3")
    fake_prefix(odd, "3.12", name="python3")
    found = site_packages.installed_version(str(odd / "bin" / "python3"), "sglang", {}, str(tmp_path))
    assert found.reason == (
        f"the Python version of {odd / 'bin' / 'python3'} is not in its name, pyvenv.cfg or a single "
        f"lib/pythonX.Y under {odd}"
    )


def test_debian_dist_packages_in_import_order(tmp_path: Path) -> None:
    usr = fake_prefix(tmp_path / "usr")
    dist_info(usr / "lib" / "python3" / "dist-packages", "vllm", "0.33.0")
    python = str(usr / "bin" / "python3")
    assert site_packages.installed_version(python, "vllm", {}, str(tmp_path)).version == "0.33.0"
    # pip install as root on Debian goes to /usr/local/lib/python3.X/dist-packages, which comes first
    dist_info(usr / "local" / "lib" / "python3.11" / "dist-packages", "vllm", "0.34.0")
    found = site_packages.installed_version(python, "vllm", {}, str(tmp_path))
    assert found.layout is not None
    assert found.layout.sites == (
        str(usr / "local/lib/python3.11/dist-packages"),
        str(usr / "lib/python3/dist-packages"),
    )
    assert found.version == "0.34.0"


def test_pythonpath_user_site_and_interpreter_options(tmp_path: Path) -> None:
    usr = fake_prefix(tmp_path / "usr")
    dist_info(usr / "lib" / "python3.11" / "site-packages", "sglang", "0.5.10.post1")
    home = tmp_path / "home"
    dist_info(home / ".local" / "lib" / "python3.11" / "site-packages", "sglang", "0.5.15.post1")
    extra = tmp_path / "work" / "mods"
    dist_info(extra, "sglang", "0.5.19")
    python = str(usr / "bin" / "python3")

    def version(env: dict[str, str], *options: str) -> str | None:
        flags = site_packages.interpreter_flags([*options, "-m", "sglang.launch_server"])
        return site_packages.installed_version(
            python, "sglang", env, str(tmp_path / "work"), flags=flags
        ).version

    assert version({}) == "0.5.10.post1"
    assert version({"HOME": str(home)}) == "0.5.15.post1"  # the user site comes before the system's
    assert version({"HOME": str(home), "PYTHONNOUSERSITE": "1"}) == "0.5.10.post1"
    assert version({"HOME": str(home)}, "-s") == "0.5.10.post1"
    assert version({"HOME": str(home), "PYTHONPATH": "mods"}) == "0.5.19"  # relative to the cwd, first
    assert version({"HOME": str(home), "PYTHONPATH": "mods"}, "-E") == "0.5.15.post1"
    assert version({"HOME": str(home), "PYTHONPATH": "mods"}, "-I") == "0.5.10.post1"
    assert version({}, "-S") is None  # no site-packages at all


def test_egg_info_editable_installs_pth_paths_and_normalised_names(tmp_path: Path) -> None:
    venv = real_venv(tmp_path / "venv")
    site = venv_site(venv)
    python = str(venv / "bin" / "python3")
    # setup.py develop: a .pth path line to the source tree, whose NAME.egg-info has PKG-INFO
    src = tmp_path / "src" / "sglang" / "python"
    (src / "sglang.egg-info").mkdir(parents=True)
    (src / "sglang.egg-info" / "PKG-INFO").write_text(
        "Metadata-Version: 1.2\nName: sglang\nVersion: 0.5.20.dev0\n"
    )
    (site / "easy-install.pth").write_text(f"import sys; sys.__plen = len(sys.path)\n{src}\n# comment\n")
    found = site_packages.installed_version(python, "sglang", {}, str(tmp_path))
    assert (found.version, found.distribution and found.distribution.kind) == ("0.5.20.dev0", "egg-info")
    # a PEP 660 editable install: its .dist-info records the project directory in direct_url.json
    dist = dist_info(site, "vllm", "0.33.1.dev5+g1234")
    (dist / "direct_url.json").write_text('{"url": "file:///work/vllm", "dir_info": {"editable": true}}')
    (site / "__editable__.vllm-0.33.1.dev5+g1234.pth").write_text("import __editable___vllm_finder\n")
    found = site_packages.installed_version(python, "vLLM", {}, str(tmp_path))
    assert found.distribution == site_packages.Distribution(
        "vllm", "0.33.1.dev5+g1234", str(dist), "dist-info", editable="/work/vllm"
    )
    # a single-file egg-info, and names that differ only by case and -_. (PEP 503)
    (site / "Compressed_Tensors-0.17.0-py3.11.egg-info").write_text(
        "Name: compressed.tensors\nVersion: 0.17.0\n"
    )
    found = site_packages.installed_version(python, "compressed-tensors", {}, str(tmp_path))
    assert (found.version, found.distribution and found.distribution.kind) == ("0.17.0", "egg-info")


def test_pips_long_shebang_header_is_read(tmp_path: Path) -> None:
    venv = real_venv(tmp_path / ("v" * 120))
    dist_info(venv_site(venv), "vllm", "0.33.0")
    script = venv / "bin" / "vllm"
    script.write_text(
        f"#!/bin/sh\n'''exec' \"{venv / 'bin' / 'python3'}\" \"$0\" \"$@\"\n' '''\nfrom vllm import main\n"
    )
    script.chmod(0o755)
    srv = server(["/m"], entrypoint="vllm serve", env={"PATH": str(venv / "bin")})
    assert installed.server_interpreter(srv) == str(venv / "bin" / "python3")
    found = installed.installed_framework_version("vllm", server=srv)
    assert (found.version, found.how) == ("0.33.0", "dist-info")


def test_the_launchs_interpreter_and_loader_variables_never_reach_the_resolver() -> None:
    from argtrace.resolver.environments import launch_env_for_resolver

    launch_env = {
        "PYTHONPATH": "/evil",
        "PYTHONHOME": "/evil",
        "PYTHONSTARTUP": "/evil/start.py",
        "PYTHONWARNINGS": "ignore::evil.Category",
        "LD_PRELOAD": "/evil/hook.so",
        "LD_LIBRARY_PATH": "/evil/lib",
        "BASH_ENV": "/evil/rc",
        "PATH": "/evil/bin",
        "SGLANG_ENABLE_SPEC_V2": "1",
        "CUDA_VISIBLE_DEVICES": "0",
        "HF_HOME": "/data/hf",
    }
    env = launch_env_for_resolver(launch_env)
    assert env == {
        "SGLANG_ENABLE_SPEC_V2": "1",
        "CUDA_VISIBLE_DEVICES": "0",
        "HF_HOME": "/data/hf",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/root"),
    }


@pytest.mark.frameworks
def test_a_package_on_the_launchs_pythonpath_never_runs_in_the_resolver(tmp_path: Path) -> None:
    from argtrace.resolver.environments import find_environment

    if find_environment("sglang", "0.5.10.post1") is None:
        pytest.skip("no sglang 0.5.10.post1 resolver environment")
    marker = tmp_path / "MARKER"
    evil = tmp_path / "evil"
    # It would shadow the resolver environment's own packages (PYTHONPATH comes before site-packages).
    for name in ("sglang", "torch", "transformers"):
        (evil / name).mkdir(parents=True)
        (evil / name / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write({name!r})\n")
    model = Path(__file__).resolve().parent.parent / "data" / "models" / "qwen3.6-27b"
    script = launch(
        tmp_path / "launch.sh",
        f"export PYTHONPATH={evil} LD_PRELOAD={evil}/hook.so\n"
        f"python3 -m sglang.launch_server --model-path {model} --tp-size 1\n",
    )
    doc = check_json(script, "--framework-version", "0.5.10.post1", "--gpu", "h100", cwd=tmp_path)
    assert not marker.exists()
    resolution = doc["resolution"]
    assert isinstance(resolution, dict) and resolution["status"] in ("ok", "raised"), resolution
