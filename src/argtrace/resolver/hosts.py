"""Runs of a script in a resolver environment, served by a host that imported the framework once (issue 18).

The resolution and memory layers run small scripts in argtrace's resolver environments (``record.py``,
``framework_sizing.py``, ``vllm_probe.py``); each fresh run spends 80-90% of its 9-10 s importing the
framework and torch. :func:`run` answers the way ``subprocess.run`` does for ``python SCRIPT ARGS``, but hands
the run to a *host* (``host_main.py``): an interpreter of the same environment that has taken the script's
own import step once (``host_imports``) and forks one fresh child per run. A check that resolves and then
re-resolves (sizing variants, a fix's verification) or a test suite that resolves many launches pays the
import once per host instead of once per run.

When a host may serve a run, and when a fresh process runs instead:

- Same interpreter, same script and import step, and **the same environment, every variable**: what a fresh
  run imports depends on its environment (SGLang's ``environ.py`` reads every ``SGL_*`` name at import; torch
  and its C libraries read theirs), so nothing short of equality is the same start.
- The host is idle (a run never waits for another; a busy host means a fresh process).
- Only argtrace's own environments are hosted (``ARGTRACE_RESOLVER_HOSTS=0`` turns hosts off); a ``--python``
  interpreter (the user's server's own) always runs fresh.
- A host that failed to import, died or stopped answering is dropped, and the run is a fresh process. A run
  that timed out on a host is run again fresh (a hang after a fork is not proven to be the run's own; a
  real hang then costs its timeout twice), and that host is not used again.

A host can be started ahead of its first run (:func:`prestart`): the check starts the memory layer's sizing
host when the resolution layer's run begins, so the two imports overlap. The run that later asks for that
key waits for its import instead of starting another; a host started ahead for inputs no run has only costs
its import. A host started ahead never stops another (it is skipped when the pool is full).

At most :data:`LIMIT` hosts live per argtrace process (the least recently used is stopped first: each holds
an imported framework, about 0.5 GB); all of them stop when argtrace exits (their job pipe closes, and they
die with it), and each ends by itself after :data:`IDLE_S` without a run.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST_MAIN = Path(__file__).resolve().parent / "host_main.py"
LIMIT = 4
START_TIMEOUT_S = 300.0
IDLE_S = 600.0  # a host without a job for this long ends (host_main.py)
# what a host serves: interpreter, script, its import step (JSON) and the whole environment, sorted
HostKey = tuple[str, str, str, tuple[tuple[str, str], ...]]


def enabled() -> bool:
    return os.environ.get("ARGTRACE_RESOLVER_HOSTS", "1") != "0"


@dataclass
class Host:
    """A live host: its process, the two pipes, and what it serves."""

    key: HostKey
    proc: subprocess.Popen[bytes]
    jobs: int  # argtrace writes job lines here
    replies: int  # and reads the host's answers here
    workdir: tempfile.TemporaryDirectory[str]
    busy: bool = False
    used: float = field(default_factory=time.monotonic)
    buffer: bytes = b""
    runs: int = 0
    ready: bool = False  # its import step answered ready (a host started ahead may still be importing)
    ahead: bool = False  # started by ``prestart``, before any run asked for it

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        for fd in (self.jobs, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.workdir.cleanup()

    def read_reply(self, deadline: float | None) -> dict[str, Any] | None:
        """The host's next answer, or None at the deadline or when the host is gone."""
        while b"\n" not in self.buffer:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.replies], [], [], wait)
            if not ready:
                return None
            chunk = os.read(self.replies, 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        answer: dict[str, Any] = json.loads(line)
        return answer


class HostPool:
    """The hosts of one argtrace process (see the module docstring)."""

    def __init__(self, limit: int = LIMIT, idle: float = IDLE_S) -> None:
        self.limit = limit
        self.idle = idle
        self.hosts: list[Host] = []
        self.failed: set[HostKey] = set()
        self.lock = threading.Lock()
        self.pid = os.getpid()
        self.started = 0  # hosts started and imported
        self.served = 0  # runs a host answered
        self.fresh = 0  # runs in a fresh process (no host could serve them)
        self.ahead = 0  # hosts started ahead of their first run (``prestart``)
        self.ahead_served = 0  # first runs that a host started ahead answered

    def run(
        self,
        python: str,
        script: str,
        args: Sequence[str],
        *,
        prep: Sequence[str],
        env: Mapping[str, str],
        cwd: str,
        timeout: float | None,
    ) -> subprocess.CompletedProcess[str]:
        """``subprocess.run([python, script, *args], ...)`` with text output captured, served by a host when
        one may serve it (raises ``subprocess.TimeoutExpired`` as that does)."""
        host = self._checkout(host_key(python, script, prep, env), env, timeout)
        if host is None:
            self.fresh += 1
            return _fresh(python, script, args, env=env, cwd=cwd, timeout=timeout)
        try:
            answer = self._run_on(host, script, args, cwd, timeout)
        except subprocess.TimeoutExpired:
            # a fork's hang is not proven to be the run's own (a library's threads do not survive a fork):
            # the host is not used again, and a fresh process answers, with its own time limit
            with self.lock:
                self.failed.add(host.key)
            self._drop(host)
            self.fresh += 1
            return _fresh(python, script, args, env=env, cwd=cwd, timeout=timeout)
        finally:
            host.busy = False
        if answer is None:  # the host died or broke its protocol: a fresh run answers instead
            self._drop(host)
            self.fresh += 1
            return _fresh(python, script, args, env=env, cwd=cwd, timeout=timeout)
        self.served += 1
        if host.ahead and host.runs == 1:
            self.ahead_served += 1
        return answer

    def prestart(self, python: str, script: str, prep: Sequence[str], env: Mapping[str, str]) -> bool:
        """Start the host a run of ``python SCRIPT`` with ``prep`` and ``env`` would ask for, without waiting
        for its import: a later ``run`` with the same key waits for it instead of starting its own (the
        memory layer's sizing host imports while the resolution layer's run works). Nothing happens when such
        a host exists, when it failed before, or when the pool is full (a host started ahead never stops
        another). True when a host was started."""
        key = host_key(python, script, prep, env)
        with self.lock:
            if key in self.failed or any(host.key == key for host in self.hosts):
                return False
            if len(self.hosts) >= self.limit:
                return False
            started = _spawn(key, env, self.idle)
            if started is None:
                return False
            started.ahead = True
            self.ahead += 1
            self.hosts.append(started)
        return True

    def close(self) -> None:
        with self.lock:
            hosts, self.hosts = self.hosts, []
        for host in hosts:
            host.stop()

    # ---------------------------------------------------------------------------------------------------

    def _checkout(
        self,
        key: HostKey,
        env: Mapping[str, str],
        timeout: float | None,
    ) -> Host | None:
        """An idle host for ``key``, imported and marked busy, or None (a fresh run answers): a new one is
        started when none exists. Its import is waited for outside the lock."""
        with self.lock:
            if key in self.failed:
                return None
            for dead in [h for h in self.hosts if not h.busy and not h.alive()]:
                self.hosts.remove(dead)
                dead.stop()
            host = next((h for h in self.hosts if h.key == key), None)
            if host is not None and host.busy:
                return None  # its host is busy (another thread): no waiting, a fresh run
            if host is None:
                while len(self.hosts) >= self.limit:
                    idle = [h for h in self.hosts if not h.busy]
                    if not idle:
                        return None
                    oldest = min(idle, key=lambda h: h.used)
                    self.hosts.remove(oldest)
                    oldest.stop()
                host = _spawn(key, env, self.idle)
                if host is None:
                    self.failed.add(key)
                    return None
                self.hosts.append(host)
            host.busy = True
            host.used = time.monotonic()
        if host.ready:
            return host
        try:
            imported = _await_ready(host, timeout)
        except subprocess.TimeoutExpired:
            with self.lock:
                self.failed.add(key)  # its import alone outlasts a run's time: the run timed out
            self._drop(host)
            raise
        if not imported:
            with self.lock:
                self.failed.add(key)
            self._drop(host)
            return None
        with self.lock:
            self.started += 1
        return host

    def _drop(self, host: Host) -> None:
        with self.lock:
            if host in self.hosts:
                self.hosts.remove(host)
        host.stop()

    def _run_on(
        self, host: Host, script: str, args: Sequence[str], cwd: str, timeout: float | None
    ) -> subprocess.CompletedProcess[str] | None:
        out_path = Path(host.workdir.name) / f"run{host.runs}.out"
        err_path = Path(host.workdir.name) / f"run{host.runs}.err"
        host.runs += 1
        job = {"args": list(args), "cwd": cwd, "stdout": str(out_path), "stderr": str(err_path)}
        try:
            os.write(host.jobs, (json.dumps(job) + "\n").encode())
        except OSError:
            return None
        started = host.read_reply(time.monotonic() + 60)
        if not started or "pid" not in started:
            return None
        pid = int(started["pid"])
        deadline = None if timeout is None else time.monotonic() + timeout
        ended = host.read_reply(deadline)
        timed_out = ended is None and host.alive()
        if timed_out:
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            ended = host.read_reply(time.monotonic() + 30)
        stdout, stderr = _read(out_path), _read(err_path)
        for path in (out_path, err_path):
            path.unlink(missing_ok=True)
        command = [host.key[0], script, *args]
        if timed_out:  # its output as subprocess.run gives it on a timeout: bytes, even with text=True
            raise subprocess.TimeoutExpired(
                command, timeout or 0.0, output=stdout.encode(), stderr=stderr.encode()
            )
        if not ended or "exit" not in ended:
            return None
        return subprocess.CompletedProcess(command, int(ended["exit"]), stdout, stderr)


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return ""


def _fresh(
    python: str, script: str, args: Sequence[str], *, env: Mapping[str, str], cwd: str, timeout: float | None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [python, str(script), *args],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def host_key(
    python: str, script: str | os.PathLike[str], prep: Sequence[str], env: Mapping[str, str]
) -> HostKey:
    return (python, str(script), json.dumps(list(prep)), tuple(sorted(env.items())))


def _spawn(key: HostKey, env: Mapping[str, str], idle: float = IDLE_S) -> Host | None:
    """A new host process for ``key``, importing (not waited for), or None when it could not start."""
    python, script, prep, _ = key
    jobs_read, jobs_write = os.pipe()
    replies_read, replies_write = os.pipe()
    workdir = tempfile.TemporaryDirectory(prefix="argtrace-host-")
    log = open(Path(workdir.name) / "host.log", "wb")  # the host's own output: its import warnings
    try:
        proc = subprocess.Popen(
            [python, str(HOST_MAIN), script, prep, str(jobs_read), str(replies_write), str(idle)],
            env=dict(env),
            cwd=workdir.name,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            pass_fds=(jobs_read, replies_write),
        )
    except OSError:
        for fd in (jobs_read, jobs_write, replies_read, replies_write):
            os.close(fd)
        workdir.cleanup()
        return None
    finally:
        log.close()
    os.close(jobs_read)
    os.close(replies_write)
    return Host(key=key, proc=proc, jobs=jobs_write, replies=replies_read, workdir=workdir)


def _await_ready(host: Host, timeout: float | None) -> bool:
    """Wait for ``host``'s import: True when it is ready, False when it failed or died. A fresh run imports
    within its own time limit, so an import that outlasts ``timeout`` (from now: a host started ahead has
    had a head start, never a penalty) raises ``subprocess.TimeoutExpired`` as that run would."""
    ready = host.read_reply(time.monotonic() + (START_TIMEOUT_S if timeout is None else timeout))
    if ready is None and host.alive():
        said = _read(Path(host.workdir.name) / "host.log")
        raise subprocess.TimeoutExpired(
            [host.key[0], host.key[1]], timeout or START_TIMEOUT_S, output=b"", stderr=said.encode()
        )
    host.ready = bool(ready and ready.get("ready"))
    return host.ready


_pool: HostPool | None = None


def default_pool() -> HostPool:
    """This process's pool (a forked process, such as a warm command's child, gets its own)."""
    global _pool
    if _pool is None or _pool.pid != os.getpid():
        _pool = HostPool()
        atexit.register(_pool.close)
    return _pool


def prestart(
    python: str, script: str | os.PathLike[str], prep: Sequence[str], env: Mapping[str, str]
) -> bool:
    """``HostPool.prestart`` on this process's pool, when hosts are on (``ARGTRACE_HOSTS_AHEAD=0`` keeps every
    host to the moment its first run asks for it: one framework imported at a time)."""
    if not enabled() or os.environ.get("ARGTRACE_HOSTS_AHEAD", "1") == "0":
        return False
    return default_pool().prestart(python, str(script), prep, env)


def run(
    python: str,
    script: str | os.PathLike[str],
    args: Sequence[str],
    *,
    prep: Sequence[str] | None,
    env: Mapping[str, str],
    cwd: str,
    timeout: float | None,
) -> subprocess.CompletedProcess[str]:
    """Run ``python SCRIPT ARGS`` as ``subprocess.run`` would (text output captured, stdin empty), on a host
    of this process's pool when ``prep`` (the script's import step) is given and hosts are on."""
    if prep is None or not enabled():
        return _fresh(python, str(script), args, env=env, cwd=cwd, timeout=timeout)
    return default_pool().run(python, str(script), args, prep=prep, env=env, cwd=cwd, timeout=timeout)
