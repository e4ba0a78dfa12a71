"""Warm start (argtrace/warm/, issue 18): real launchers (``bin/argtrace``), a real detached warm process
on a Unix socket, real forked children. Each served command must print, exit and read exactly as the
command run in the launcher does; what is never served, and when a warm process refuses, too."""

from __future__ import annotations

import ast
import marshal
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import CodeType

import pytest

from argtrace.warm import client, server

REPO = Path(__file__).resolve().parent.parent
LAUNCHER = REPO / "bin" / "argtrace"
EXAMPLE = REPO / "examples" / "launch_mtp.sh"
WAIT_SECONDS = 60.0  # how long a test waits for a warm process to start or exit before it fails

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="warm start is Linux only")


@pytest.fixture
def runtime_dir() -> Iterator[Path]:
    """A private XDG_RUNTIME_DIR (short: a socket path must fit 107 bytes); its warm processes are sent
    SIGTERM at the end."""
    path = Path(tempfile.mkdtemp(prefix="aw", dir="/tmp"))
    try:
        yield path
    finally:
        for pid in _servers(path):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        _wait_for(lambda: not _servers(path), "the warm processes to exit")
        shutil.rmtree(path, ignore_errors=True)


def _env(runtime: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ARGTRACE_WARM", "CI", "COLUMNS")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(XDG_RUNTIME_DIR=str(runtime), ARGTRACE_WARM_STATS=str(runtime / "stats"), **extra)
    return env


def _launch(
    args: list[str], env: Mapping[str, str], cwd: Path = REPO, stdin: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    with open(stdin or os.devnull, "rb") as source:
        return subprocess.run(
            [sys.executable, str(LAUNCHER), *args],
            env=dict(env),
            cwd=cwd,
            stdin=source,
            capture_output=True,
            timeout=300,
        )


def _served(runtime: Path) -> int:
    """How many commands a warm process ran (the launcher appends the child's CPU time per command)."""
    stats = runtime / "stats"
    return len(stats.read_text().splitlines()) if stats.exists() else 0


def _servers(runtime: Path) -> list[int]:
    """Warm processes whose environment names this runtime directory."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"argtrace.warm.server" in cmdline and f"XDG_RUNTIME_DIR={runtime}".encode() in environ:
            found.append(int(entry.name))
    return found


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _wait_for(condition: object, what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {WAIT_SECONDS:.0f} s for {what}")
        time.sleep(0.05)


def _socket_of(runtime: Path) -> Path:
    return next((runtime / "argtrace").glob("warm-*.sock"))


def _warm_up(runtime: Path, env: Mapping[str, str]) -> subprocess.CompletedProcess[bytes]:
    """The first command: run in the launcher, which then starts the warm process; wait for its socket."""
    first = _launch(["check", "--format", "json", str(EXAMPLE), "0", "30000"], env)
    _wait_for(
        lambda: (runtime / "argtrace").is_dir() and list((runtime / "argtrace").glob("*.sock")), "a socket"
    )
    _wait_for(lambda: _servers(runtime), "the warm process")
    assert _served(runtime) == 0
    return first


def test_a_served_check_prints_and_exits_as_the_launchers_own(runtime_dir: Path) -> None:
    env = _env(runtime_dir)
    first = _warm_up(runtime_dir, env)
    second = _launch(["check", "--format", "json", str(EXAMPLE), "0", "30000"], env)
    assert _served(runtime_dir) == 1
    assert (second.returncode, second.stdout, second.stderr) == (first.returncode, first.stdout, first.stderr)
    assert first.returncode == 1 and b'"code": "SH' in first.stdout
    # the text report too, and a usage error's status and message
    cold = _launch(["check", str(EXAMPLE), "0", "30000"], {**env, "ARGTRACE_WARM": "0"})
    warm = _launch(["check", str(EXAMPLE), "0", "30000"], env)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    cold = _launch(["check", "--format", "nope", str(EXAMPLE)], {**env, "ARGTRACE_WARM": "0"})
    warm = _launch(["check", "--format", "nope", str(EXAMPLE)], env)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert warm.returncode == 2 and b"invalid choice: 'nope'" in warm.stderr
    assert _served(runtime_dir) == 3


def test_the_callers_environment_directory_and_stdin_reach_the_command(runtime_dir: Path) -> None:
    env = _env(runtime_dir)
    _warm_up(runtime_dir, env)
    work = runtime_dir / "work"
    work.mkdir()
    script = '#!/bin/bash\npython3 -m sglang.launch_server --model-path "$MODEL" --tp "$TP" --port 30000\n'
    (work / "serve.sh").write_text(script)
    for model, tp in (("Qwen/Qwen3-8B", "1"), ("meta-llama/Llama-3.1-8B-Instruct", "3")):
        caller = {**env, "MODEL": model, "TP": tp}
        args = ["check", "--format", "json", "--no-resolve", "serve.sh"]
        cold = _launch(args, {**caller, "ARGTRACE_WARM": "0"}, cwd=work)
        warm = _launch(args, caller, cwd=work)
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        assert model.encode() in warm.stdout
        # the launcher's stdin is the child's (a script read as /dev/stdin), CRLF line ends kept as bash
        # would read them (the streams translate no newline)
        crlf = work / "serve.crlf"
        crlf.write_bytes(script.replace("\n", "\r\n").encode())
        piped = ["check", "--format", "json", "--no-resolve", "/dev/stdin"]
        cold = _launch(piped, {**caller, "ARGTRACE_WARM": "0"}, cwd=work, stdin=crlf)
        warm = _launch(piped, caller, cwd=work, stdin=crlf)
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        assert b'"code": "SH002"' in warm.stdout
    assert _served(runtime_dir) == 4


def _cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def _busy_child(server_pid: int) -> int:
    """The forked child once it is well into its command (a fifth of a CPU second), past its set-up."""
    _wait_for(lambda: _children(server_pid), "the forked child")
    (child,) = _children(server_pid)
    _wait_for(lambda: _cpu_ticks(child) >= os.sysconf("SC_CLK_TCK") // 5, "the child to be busy")
    return child


def test_ctrl_c_reaches_the_child_and_a_killed_launcher_ends_it(runtime_dir: Path) -> None:
    env = _env(runtime_dir)
    _warm_up(runtime_dir, env)
    (server_pid,) = _servers(runtime_dir)
    # a script that takes seconds to read: 150,000 assignments, then the server start
    big = runtime_dir / "big.sh"
    lines = [f"V{i}=$(( {i} + 1 ))" for i in range(150_000)]
    big.write_text("\n".join(["#!/bin/bash", *lines, "python3 -m sglang.launch_server --model-path m", ""]))
    args = [sys.executable, str(LAUNCHER), "check", "--no-resolve", str(big)]
    launcher = subprocess.Popen(args, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    child = _busy_child(server_pid)
    launcher.send_signal(signal.SIGINT)
    assert launcher.wait(timeout=WAIT_SECONDS) == 130  # what cli.main returns on KeyboardInterrupt
    _wait_for(lambda: not _children(server_pid), f"child {child} to end")
    assert launcher.stderr is not None
    assert launcher.stderr.read() == b""
    launcher.stderr.close()
    # the launcher killed outright: the warm process ends the child it was running for it
    launcher = subprocess.Popen(args, env=env, cwd=REPO, stdout=subprocess.DEVNULL)
    _busy_child(server_pid)
    launcher.kill()
    launcher.wait(timeout=WAIT_SECONDS)
    _wait_for(lambda: not _children(server_pid), "the warm process to end the orphaned child")
    assert _servers(runtime_dir) == [server_pid]
    assert _served(runtime_dir) == 1  # the interrupted command's status came back; the killed one's never


def test_a_changed_argtrace_is_never_served_by_the_old_code(runtime_dir: Path) -> None:
    copy = runtime_dir / "src"
    shutil.copytree(
        REPO / "src" / "argtrace", copy / "argtrace", ignore=shutil.ignore_patterns("__pycache__")
    )
    env = _env(runtime_dir, PYTHONPATH=str(copy))
    _warm_up(runtime_dir, env)
    socket_path = _socket_of(runtime_dir)
    marker = copy / "argtrace" / "layers" / "shell" / "lexer.py"
    marker.write_text(marker.read_text() + "\n# edited after the warm process imported it\n")
    edited = _launch(["check", "--format", "json", str(EXAMPLE), "0", "30000"], env)
    assert edited.returncode == 1 and b'"findings"' in edited.stdout
    assert _served(runtime_dir) == 0  # refused: the launcher ran the edited code itself
    _wait_for(lambda: not socket_path.exists(), "the stale warm process to remove its socket")
    _wait_for(lambda: not _servers(runtime_dir), "the stale warm process to exit")


def test_an_idle_warm_process_exits(runtime_dir: Path) -> None:
    env = _env(runtime_dir, ARGTRACE_WARM_IDLE="5")
    _launch(["rules", "SH001"], env)
    # it listens once it has imported what the command did, for 5 idle seconds, then removes its socket
    _wait_for(lambda: list(runtime_dir.glob("argtrace/*.sock")), "a socket")
    socket_path = _socket_of(runtime_dir)
    _wait_for(lambda: not socket_path.exists(), "the idle warm process to remove its socket")
    _wait_for(lambda: not _servers(runtime_dir), "the idle warm process to exit")
    assert [p.name.endswith(".sock.lock") for p in (runtime_dir / "argtrace").iterdir()] == [True]


def test_what_is_never_served(runtime_dir: Path) -> None:
    env = _env(runtime_dir)
    assert client.servable(["argtrace", "check", "x.sh"], env)
    assert client.servable(["argtrace", "why", "text"], env)
    for argv in (
        ["argtrace", "--host", "node1", "check", "x.sh"],  # ssh may prompt on a terminal a child lacks
        ["argtrace", "run", "x.sh"],  # executes the script
        ["argtrace", "mcp"],
        ["argtrace", "live", "http://localhost:30000"],
        ["argtrace", "--version"],
        ["argtrace"],
    ):
        assert not client.servable(argv, env), argv
    assert not client.servable(["argtrace", "check", "x.sh"], {**env, "ARGTRACE_WARM": "0"})
    # under CI no warm process is started (one command per job)
    assert not client.start_server(["argtrace", "check", "x.sh"], {**env, "CI": "true"})
    assert not (runtime_dir / "argtrace").exists() or not list((runtime_dir / "argtrace").iterdir())


def test_a_socket_directory_others_can_enter_is_not_used(runtime_dir: Path) -> None:
    env = {"XDG_RUNTIME_DIR": str(runtime_dir)}
    assert client.socket_dir(env) == str(runtime_dir / "argtrace")
    assert (runtime_dir / "argtrace").stat().st_mode & 0o777 == 0o700
    os.chmod(runtime_dir / "argtrace", 0o755)
    assert client.socket_dir(env) is None
    os.rmdir(runtime_dir / "argtrace")
    os.symlink(runtime_dir, runtime_dir / "argtrace")  # a link is refused even to a directory of ours
    assert client.socket_dir(env) is None
    assert client.request(["argtrace", "check", "x.sh"], env) == client.NOT_SERVABLE


def test_identity_separates_interpreter_settings() -> None:
    space = client.namespace()
    assert space is not None and space.startswith("mnt:[")
    base = {"PATH": "/usr/bin", "LANG": "C.UTF-8"}
    same = client.identity({**base, "HOME": "/elsewhere", "HF_TOKEN": "x"}, space)
    assert same == client.identity(base, space)  # variables read per command do not split processes
    for changed in ({"PYTHONHASHSEED": "0"}, {"LANG": "C"}, {"LC_ALL": "C"}, {"PYTHONUTF8": "1"}):
        other = client.identity({**base, **changed}, space)
        assert other != same
        assert client.socket_path("/d", other) != client.socket_path("/d", same)
    assert client.identity(base, "mnt:[1] 2:3") != client.identity(base, space)


def test_a_request_holding_code_is_refused() -> None:
    code = compile("print('never run')", "<x>", "exec")
    assert isinstance(code, CodeType)
    with pytest.raises(ValueError, match="other than plain values"):
        server._marshal_builtins(marshal.dumps({"protocol": 1, "argv": ["argtrace", code]}))
    with pytest.raises(ValueError, match="not a dict"):
        server._marshal_builtins(marshal.dumps(["argtrace"]))
    request = {"protocol": 1, "argv": ["argtrace", "check"], "env": {"A": "b"}, "umask": 18}
    assert server._marshal_builtins(marshal.dumps(request)) == request


def test_no_module_reads_the_environment_at_import() -> None:
    """A warm process imports argtrace under its own environment and serves commands of others: a value
    read from ``os.environ`` at import (a module constant, a default argument) would be the first caller's.
    Modules that run in other interpreters (the probe, the resolver's recorder and stubs) are exempt."""
    exempt = (
        "probe/",
        "resolver/stubs/",
        "resolver/record.py",
        "resolver/dump_",
        "resolver/startup_steps.py",
    )
    found = []
    src = REPO / "src" / "argtrace"
    for path in sorted(src.rglob("*.py")):
        relative = path.relative_to(src).as_posix()
        if relative.startswith(exempt):
            continue
        tree = ast.parse(path.read_text(), str(path))
        for node in _evaluated_at_import(tree):
            if _reads_environment(node):
                found.append(f"{relative}:{node.lineno}: {ast.unparse(node)[:80]}")
    assert found == []


def _reads_environment(node: ast.AST) -> bool:
    """``os.environ``/``environ``/``getenv``/``environ.get`` in an expression, not inside a lambda."""
    if isinstance(node, ast.Lambda):
        return False
    if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv", "environb"):
        return True
    if isinstance(node, ast.Name) and node.id in ("environ", "getenv"):
        return True
    return any(_reads_environment(child) for child in ast.iter_child_nodes(node))


def _evaluated_at_import(tree: ast.AST) -> Iterator[ast.expr]:
    """Expressions Python evaluates when the module is imported: module and class bodies, decorators and
    default arguments; not function bodies."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from node.decorator_list
            yield from (d for d in (*node.args.defaults, *node.args.kw_defaults) if d is not None)
        elif isinstance(node, ast.ClassDef):
            yield from _evaluated_at_import(node)  # its decorators, bases and body
        elif isinstance(node, ast.expr):
            yield node
        else:
            yield from _evaluated_at_import(node)
