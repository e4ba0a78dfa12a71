"""``sudo`` and ``env`` in front of a server, against the real programs (issue 17).

Each case runs a one-line script with real bash, through the real ``sudo`` (Debian 12's, ``apt-get install
sudo``; see scripts/ci_apt) or coreutils ``env``, with a recorder (tests/shell/recorder.py) standing in for
``python3``; argtrace's predicted argv and environment must equal what the recorder received. sudo needs
root here (root runs sudo without a password; CI runs as root): those cases are skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from argtrace.frameworks.detect import detect_server
from argtrace.layers.shell import ScriptSource, analyze_script
from argtrace.layers.shell.wrapenv import parse_sudo, split_env_s, sudo_defaults
from tests.shell.recorder import make_recorders, read_records

HAVE_SUDO = shutil.which("sudo") is not None and os.geteuid() == 0
needs_sudo = pytest.mark.skipif(not HAVE_SUDO, reason="needs the real sudo, run as root (CI)")
CALLER = {
    "HOME": "/home/alice",
    "LANG": "C.UTF-8",
    "LC_ALL": "/not/a/locale",  # env_check drops a value with '/'
    "TZ": "Europe/Berlin",  # env_check keeps a zone name
    "CUDA_VISIBLE_DEVICES": "0,1",
    "A": "a",
    "B": "b",
    "PYTHONPATH": "/opt/extra",  # env_delete: dropped by -E, kept by --preserve-env=PYTHONPATH
    "LD_PRELOAD": "/opt/hook.so",
}
# The invoking user's name and ids are the only values argtrace does not predict (who runs the script)
UNPREDICTED = {"SUDO_USER", "SUDO_UID", "SUDO_GID"}


def _run(line: str, tmp_path: Path) -> tuple[dict[str, object], dict[str, object]]:
    bin_dir, rec_dir = tmp_path / "bin", tmp_path / "rec"
    make_recorders(bin_dir, rec_dir)
    script = line.replace("PY", str(bin_dir / "python3")) + "\n"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", **CALLER}
    (tmp_path / "t.sh").write_text(script)
    subprocess.run(["/bin/bash", "t.sh"], env=env, cwd=tmp_path, capture_output=True, timeout=30, check=True)
    (rec,) = read_records(rec_dir)
    result = analyze_script(
        ScriptSource("t.sh", script.encode(), tmp_path / "t.sh"),
        [],
        env,
        arg0="t.sh",
        run_shellcheck=False,
        cwd=str(tmp_path),
    )
    (server,) = result.servers
    texts = [w.text for w in server.argv]
    det = detect_server([t or "" for t in texts])
    assert det is not None
    ci = det.command_index
    predicted = {k: v.value for k, v in server.env.items() if k != "_"}
    unknown = {k for k, v in predicted.items() if v is None}
    recorded = {k: v for k, v in rec.env.items() if k != "_"}
    got = {"argv": texts[ci + 1 :], "env": {k: v for k, v in predicted.items() if v is not None}}
    want = {"argv": rec.argv, "env": {k: v for k, v in recorded.items() if k not in unknown}}
    assert unknown <= set(recorded), (unknown, recorded)
    return got, want | {"unknown": sorted(unknown)}


SUDO_CASES = [
    "export CUDA_VISIBLE_DEVICES A B; sudo PY -m sglang.launch_server --port 1",
    "sudo -E PY -m sglang.launch_server --port 2",
    "sudo --preserve-env=A,B,PYTHONPATH PY -m sglang.launch_server",
    "sudo A=1 CUDA_VISIBLE_DEVICES=3 PY -m sglang.launch_server",
    "sudo PATH=/opt/bin:/usr/bin PY -m sglang.launch_server",
    "env CUDA_VISIBLE_DEVICES=5 sudo -E PY -m sglang.launch_server",
    "sudo env -u A CUDA_VISIBLE_DEVICES=7 PY -m sglang.launch_server",
    "sudo -Eu root PY -m sglang.launch_server",
    "sudo -s PY -m sglang.launch_server --port 3",
    "export SHELL=/bin/sh; sudo -s PY -m sglang.launch_server",  # $SHELL runs (dash here: PWD, no SHLVL)
    "export SHELL=/bin/bash; sudo -E -s PY -m sglang.launch_server",
]


@needs_sudo
@pytest.mark.parametrize("line", SUDO_CASES)
def test_sudo_prediction_equals_real_sudo(line: str, tmp_path: Path) -> None:
    got, want = _run(line, tmp_path)
    assert want.pop("unknown") == sorted(UNPREDICTED)
    assert got == want


ENV_CASES = [
    "env -i A=1 PY -m sglang.launch_server --port 1",
    "env -u A PY -m sglang.launch_server",
    "env -S 'A=1 PY -m sglang.launch_server' --port 2",
    "env -S 'A=\"x y\" B=${HOME}/c PY -m sglang.launch_server --model-path /m\\_1' --port 3",
    "env -i -S 'CUDA_VISIBLE_DEVICES=2 PY -m sglang.launch_server'",
    "env -u CUDA_VISIBLE_DEVICES -- PY -m sglang.launch_server",
    # getopt_long clusters (-iu NAME), `-` after `--` is -i (coreutils env.c), and an option that only
    # prints does not stop the command (--list-signal-handling)
    "env -iu A B=2 PY -m sglang.launch_server",
    "env -- - C=3 PY -m sglang.launch_server",
    "env --list-signal-handling -uA PY -m sglang.launch_server",
]


@pytest.mark.parametrize("line", ENV_CASES)
def test_env_prediction_equals_real_env(line: str, tmp_path: Path) -> None:
    got, want = _run(line, tmp_path)
    assert want.pop("unknown") == []
    assert got == want


def test_sudo_reset_drops_exported_cuda_visible_devices(tmp_path: Path) -> None:
    """The issue's case, exact: the exported CUDA_VISIBLE_DEVICES does not reach a server started by sudo
    (without -E); the environment rests on Debian's default sudoers, and says so."""
    script = "export CUDA_VISIBLE_DEVICES=0\nsudo python3 -m sglang.launch_server --model-path /m\n"
    result = analyze_script(ScriptSource("t.sh", script.encode(), None), [], {"PATH": "/v/bin:/usr/bin"})
    env = result.servers[0].env
    assert "CUDA_VISIBLE_DEVICES" not in env
    assert env["PATH"].value == "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    assert env["PATH"].origin.expansion == "sudo"
    assert env["SUDO_USER"].origin.reason == (
        "the user who runs sudo: not known statically; "
        f"{sudo_defaults().package} with the default /etc/sudoers of {sudo_defaults().system}; "
        "the machine's sudoers may differ"
    )
    kept = analyze_script(
        ScriptSource("t.sh", script.replace("sudo ", "sudo -E ").encode(), None),
        [],
        {"PATH": "/v/bin:/usr/bin"},
    )
    assert kept.servers[0].env["CUDA_VISIBLE_DEVICES"].value == "0"


@needs_sudo
def test_sudo_python3_is_looked_up_on_secure_path(tmp_path: Path) -> None:
    """``sudo python3`` with a venv first on PATH runs the python on secure_path: the interpreter argtrace
    reads the framework version from is the one real sudo runs (SUDO_COMMAND names it)."""
    from argtrace.frameworks.installed import server_interpreter

    venv = tmp_path / "venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python3").symlink_to(
        shutil.which("python3", path="/usr/local/bin:/usr/bin") or "/usr/bin/python3"
    )
    env = {"PATH": f"{venv}:/usr/local/bin:/usr/bin:/bin"}
    real = subprocess.run(
        ["sudo", "python3", "-c", "import os; print(os.environ['SUDO_COMMAND'].split()[0])"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    script = "sudo python3 -m sglang.launch_server --model-path /m\n"
    result = analyze_script(ScriptSource("t.sh", script.encode(), None), [], env)
    found = result.servers[0]
    assert found.env["SUDO_COMMAND"].value == f"{real} -m sglang.launch_server --model-path /m"
    assert server_interpreter(found) == real
    assert not real.startswith(str(venv))


@needs_sudo
def test_recorded_defaults_are_this_sudo(tmp_path: Path) -> None:
    """data/sudo_defaults.json is what this machine's sudo prints (regenerate with the script below)."""
    out = tmp_path / "defaults.json"
    script = Path(__file__).resolve().parents[2] / "scripts" / "gen_sudo_defaults.py"
    subprocess.run([sys.executable, str(script), str(out)], check=True, capture_output=True)
    here = json.loads(out.read_text())
    d = sudo_defaults()
    assert (here["env_reset"], here["secure_path"]) == (d.env_reset, d.secure_path)
    assert (tuple(here["env_keep"]), tuple(here["env_check"]), tuple(here["env_delete"])) == (
        d.env_keep,
        d.env_check,
        d.env_delete,
    )


def test_parse_sudo_options() -> None:
    c = parse_sudo(["-Eu", "bob", "--preserve-env=A,B", "-s", "X=1", "python3"], 0)
    assert (c.user, c.keep_all, c.preserve, c.shell, c.login, c.command) == (
        "bob",
        True,
        ("A", "B"),
        True,
        False,
        4,
    )
    c = parse_sudo(["--user=carol", "-i", "--", "python3"], 0)
    assert (c.user, c.login, c.command) == ("carol", True, 3)
    c = parse_sudo(["--preserve-env", "-u#1000", "python3"], 0)
    assert (c.user, c.keep_all, c.command) == ("#1000", True, 2)


def test_split_env_s() -> None:
    env = {"HOME": "/h"}.get
    assert split_env_s("A=1 python3 -m x", env) == ["A=1", "python3", "-m", "x"]
    assert split_env_s("'a b' \"c ${HOME}\" d\\_e f\\tg # comment", env) == ["a b", "c /h", "d", "e", "f\tg"]
    assert split_env_s("a\\cb c", env) == ["a"]
    assert split_env_s("$HOME", env) is None  # env: only ${VARNAME}
    assert split_env_s("${NOPE}", env) is None  # not known here
    assert split_env_s("'open", env) is None


def test_process_layer_env_under_sudo() -> None:
    """The process layer's predicted environment (``check --format json``): an exported
    CUDA_VISIBLE_DEVICES does not reach ``sudo python3 -m sglang.launch_server``; with -E it does; PATH is
    secure_path either way and ``python3`` is the one found there."""
    from argtrace.layers.shell.wrapenv import resolve_on
    from tests.conftest import run_cli

    d = sudo_defaults()
    py = resolve_on("python3", d.secure_path or "", os.path.isfile)
    script = "export CUDA_VISIBLE_DEVICES=0 VLLM_X=1\nsudo {} python3 -m sglang.launch_server --model-path /m"
    reset = run_cli(["check", "--clean-env", "--format", "json", "--no-shellcheck", "-c", script.format("")])
    kept = run_cli(["check", "--clean-env", "--format", "json", "--no-shellcheck", "-c", script.format("-E")])
    command = f"{py} -m sglang.launch_server --model-path /m" if py else None
    sudo_set = {"LOGNAME": "root", "USER": "root", "SUDO_COMMAND": command, "TERM": "unknown"}
    sudo_set |= {"PATH": d.secure_path, "SHELL": "/bin/bash", "SUDO_GID": None, "SUDO_UID": None}
    assert reset.json["process"]["env"] == sudo_set | {
        "SUDO_USER": None,
        "HOME": "/root",
        "MAIL": "/var/mail/root",
    }
    assert kept.json["process"]["env"] == sudo_set | {
        "SUDO_USER": None,
        "CUDA_VISIBLE_DEVICES": "0",
        "VLLM_X": "1",
    }


@needs_sudo
def test_sudo_u_other_user_equals_real_sudo() -> None:
    """``sudo -u nobody``: HOME, SHELL, MAIL, LOGNAME and USER are the target's (its passwd entry), as real
    sudo sets them. The recorder runs as nobody, so its directories are world-accessible (not tmp_path)."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="argtrace-sudo-u-"))
    try:
        base.chmod(0o755)
        for line in (
            "sudo -u nobody PY -m sglang.launch_server",
            "sudo -E -u nobody PY -m sglang.launch_server",
        ):
            case = base / ("e" if "-E" in line else "r")
            case.mkdir()
            case.chmod(0o755)
            (case / "rec").mkdir()
            (case / "rec").chmod(0o777)
            got, want = _run(line, case)
            assert want.pop("unknown") == sorted(UNPREDICTED)
            assert got == want
            assert got["env"]["USER"] == "nobody"  # type: ignore[index]
    finally:
        shutil.rmtree(base, ignore_errors=True)
