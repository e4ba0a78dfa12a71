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
- Except the fake GPU's profile (``ARGTRACE_FAKE_GPU``, the ``--gpu`` of the check): the stubs answer every
  GPU question from it when asked, and a host notes which of its fields its import step read (``reads``,
  from ``host_main.py``). A host serves another profile when it agrees on those fields and on the
  STRUCTURAL ones (which decide, when the stubs install, which modules exist and torch's version
  attributes); its child switches to the run's profile first. So a host is shared by every ``--gpu`` whose
  answers the import did not ask for: measured per release, SGLang 0.5.10.post1's argument and sizing
  imports read none (every GPU of one structure shares a host), SGLang 0.5.23's read the device name
  (``srt/platforms/__init__.py:46`` ``_is_sail_available``, kept in the ``current_platform`` singleton: one
  host per GPU model, shared across GPU counts), vLLM 0.33.0's read the GPU count
  (``vllm/platforms/__init__.py:72`` ``cuda_platform_plugin``, kept in its ``current_platform``: one
  host per count, shared across GPU models). Until its import has answered, a host serves only its own
  profile.
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HOST_MAIN = Path(__file__).resolve().parent / "host_main.py"
LIMIT = 4
START_TIMEOUT_S = 300.0
IDLE_S = 600.0  # a host without a job for this long ends (host_main.py)
# what a host serves: interpreter, script, its import step (JSON) and the whole environment, sorted, but for
# the fake GPU's profile, of which only the STRUCTURAL fields are in the key (``GPU_KEY``)
HostKey = tuple[str, str, str, tuple[tuple[str, str], ...]]
GPU_VARIABLE = "ARGTRACE_FAKE_GPU"
GPU_KEY = "ARGTRACE_FAKE_GPU structure"
# the profile's fields that decide what the stubs install (stubs/_argtrace_stubs.py ``STRUCTURAL``)
STRUCTURAL = ("vendor", "flashinfer", "cuda", "hip")


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
    gpu: str | None = None  # the fake GPU profile it imported with (``ARGTRACE_FAKE_GPU``)
    reads: tuple[str, ...] | None = None  # the profile's fields its import read; None: unknown, only its own

    def serves(self, key: HostKey, gpu: str | None) -> bool:
        """Whether this host answers a run of ``key`` on the profile ``gpu`` as a fresh process would."""
        if self.key != key:
            return False
        if gpu == self.gpu:
            return True
        if not self.ready or self.reads is None or gpu is None or self.gpu is None:
            return False
        mine, theirs = _profile(self.gpu), _profile(gpu)
        return (
            mine is not None and theirs is not None and all(mine.get(f) == theirs.get(f) for f in self.reads)
        )

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
        self.failed: set[tuple[HostKey, str | None]] = set()
        self.lock = threading.Lock()
        self.pid = os.getpid()
        self.started = 0  # hosts started and imported
        self.served = 0  # runs a host answered
        self.fresh = 0  # runs in a fresh process (no host could serve them)
        self.ahead = 0  # hosts started ahead of their first run (``prestart``)
        self.ahead_served = 0  # first runs that a host started ahead answered
        self.spawned: list[tuple[str, str | None]] = []  # (script, fake GPU profile) of every host started

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
        key, gpu = host_key(python, script, prep, env), env.get(GPU_VARIABLE)
        host = self._checkout(key, gpu, env, timeout)
        if host is None:
            self.fresh += 1
            return _fresh(python, script, args, env=env, cwd=cwd, timeout=timeout)
        try:
            answer = self._run_on(host, script, args, cwd, timeout, gpu)
        except subprocess.TimeoutExpired:
            # a fork's hang is not proven to be the run's own (a library's threads do not survive a fork):
            # the host is not used again, and a fresh process answers, with its own time limit
            with self.lock:
                self.failed.add((host.key, host.gpu))
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
        key, gpu = host_key(python, script, prep, env), env.get(GPU_VARIABLE)
        with self.lock:
            if (key, gpu) in self.failed or any(host.serves(key, gpu) for host in self.hosts):
                return False
            if len(self.hosts) >= self.limit:
                return False
            started = _spawn(key, gpu, env, self.idle)
            if started is None:
                return False
            self.spawned.append((script, gpu))
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
        gpu: str | None,
        env: Mapping[str, str],
        timeout: float | None,
    ) -> Host | None:
        """An idle host that serves ``key`` on ``gpu``, imported and marked busy, or None (a fresh run
        answers): a new one is started when none exists. Its import is waited for outside the lock."""
        with self.lock:
            if (key, gpu) in self.failed:
                return None
            for dead in [h for h in self.hosts if not h.busy and not h.alive()]:
                self.hosts.remove(dead)
                dead.stop()
            serving = [h for h in self.hosts if h.serves(key, gpu)]
            host = next((h for h in serving if not h.busy), None)
            if host is None and serving:
                return None  # its host is busy (another thread): no waiting, a fresh run
            if host is None:
                while len(self.hosts) >= self.limit:
                    idle = [h for h in self.hosts if not h.busy]
                    if not idle:
                        return None
                    oldest = min(idle, key=lambda h: h.used)
                    self.hosts.remove(oldest)
                    oldest.stop()
                host = _spawn(key, gpu, env, self.idle)
                if host is None:
                    self.failed.add((key, gpu))
                    return None
                self.spawned.append((script_of(key), gpu))
                self.hosts.append(host)
            host.busy = True
            host.used = time.monotonic()
        if host.ready:
            return host
        try:
            imported = _await_ready(host, timeout)
        except subprocess.TimeoutExpired:
            with self.lock:
                self.failed.add((key, host.gpu))  # its import alone outlasts a run's time: the run timed out
            self._drop(host)
            raise
        if not imported:
            with self.lock:
                self.failed.add((key, host.gpu))
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
        self, host: Host, script: str, args: Sequence[str], cwd: str, timeout: float | None, gpu: str | None
    ) -> subprocess.CompletedProcess[str] | None:
        out_path = Path(host.workdir.name) / f"run{host.runs}.out"
        err_path = Path(host.workdir.name) / f"run{host.runs}.err"
        host.runs += 1
        job: dict[str, Any] = {
            "args": list(args),
            "cwd": cwd,
            "stdout": str(out_path),
            "stderr": str(err_path),
        }
        if gpu != host.gpu:
            job["gpu"] = gpu  # its child switches to the run's profile (``Host.serves`` allowed it)
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
    """What a host must share with a run (see the module docstring): the environment's fake GPU profile
    stands there by its structural fields only (``Host.serves`` compares the fields the import read)."""
    items = {name: value for name, value in env.items() if name != GPU_VARIABLE}
    if GPU_VARIABLE in env:
        profile = _profile(env[GPU_VARIABLE])
        # a profile that does not parse stays whole in the key: only an equal one shares its host
        items[GPU_KEY] = (
            env[GPU_VARIABLE]
            if profile is None
            else json.dumps({f: profile.get(f) for f in STRUCTURAL}, sort_keys=True)
        )
    return (python, str(script), json.dumps(list(prep)), tuple(sorted(items.items())))


def script_of(key: HostKey) -> str:
    return key[1]


def _profile(raw: str) -> dict[str, Any] | None:
    """The fake GPU profile ``raw`` holds (argtrace's own JSON, ``resolver/fake_gpu.py``), or None."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _spawn(key: HostKey, gpu: str | None, env: Mapping[str, str], idle: float = IDLE_S) -> Host | None:
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
    return Host(key=key, proc=proc, jobs=jobs_write, replies=replies_read, workdir=workdir, gpu=gpu)


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
    reads = ready.get("reads") if ready else None
    if isinstance(reads, list) and all(isinstance(f, str) for f in reads):
        host.reads = tuple(reads)
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
