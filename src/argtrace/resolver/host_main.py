"""A resolver host: one interpreter of a resolver environment that has imported the framework once, then forks
one fresh child per run of a script (issue 18). Runs *inside* the environment, by path, stdlib only::

    python host_main.py SCRIPT PREP_JSON JOBS_FD REPLIES_FD IDLE_SECONDS

Each script the resolution and memory layers run in an environment (``resolver/record.py``,
``layers/memory/framework_sizing.py``, ``vllm_probe.py``) spends 80-90% of its 9-10 s importing SGLang or
vLLM and torch. ``SCRIPT`` names the import step it takes first, ``host_imports(*PREP)``: the host loads the
script as a module and calls it, in the same interpreter start a fresh run has (this environment variables,
the stubs' ``sitecustomize``, the script's directory first on ``sys.path``). Then, per job, a forked child
puts the job's standard streams, working directory and arguments in place and runs ``SCRIPT`` as
``__main__``, exactly as ``python SCRIPT ARGS`` would from that point: its own import statements find the
modules already imported, and nothing a job does reaches the host or the next job (each is a fork of the
state before any job ran).

What decides a fresh run's imports is the environment at its start, so a host serves only runs whose whole
environment equals its own (``resolver/hosts.py`` keys hosts on it); the working directory of a fresh run
is a new temporary directory every time, and no framework module reads it at import. The one exception is
the fake GPU (``ARGTRACE_FAKE_GPU``, the check's ``--gpu``): its answers are read when asked
(``stubs/_argtrace_stubs.py``), and the host notes which of its fields the import step read (its reply
``reads``; None when the stubs are absent or the import ran the fake ``nvidia-smi``). A job may then carry
another profile (``gpu``) that agrees on every one of those fields and on the structural ones: its child
switches to it before the script runs, so what the import computed from the GPU is what a fresh start
with that profile computes, and everything after reads the run's own profile.

Protocol (one JSON object per line): the host writes ``{"ready": true, "reads"}`` (or ``{"ready": false,
"error"}``) on ``REPLIES_FD`` once imported; then for each job line ``{"args", "cwd", "stdout", "stderr"}``
(and ``"gpu"``, a profile to switch to) read from ``JOBS_FD`` it writes ``{"pid"}`` when the child started
(``{"refused"}`` when it cannot switch to that profile: no child) and ``{"exit"}`` (the status as
``subprocess`` reports it: negative for a signal) when it ended. End of ``JOBS_FD`` (argtrace closed it, or
exited) ends the host, and so does ``IDLE_SECONDS`` without a job (a long-lived argtrace, such as the MCP
server, does not keep an imported framework in memory for nothing).
"""

from __future__ import annotations

import importlib.util
import json
import os
import select
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _reply(fd: int, message: dict[str, Any]) -> None:
    os.write(fd, (json.dumps(message) + "\n").encode())


def _prepare(script: str, prep: list[str]) -> None:
    """The script's own first step, ``host_imports(*prep)``, with its directory first on ``sys.path`` as in a
    fresh ``python SCRIPT`` (the host's own directory is not: a fresh run never sees it)."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [os.path.dirname(os.path.abspath(script))] + [p for p in sys.path[1:] if p != here]
    spec = importlib.util.spec_from_file_location("_argtrace_host_script", script)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {script}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    module.host_imports(*prep)


def _record_gpu_reads() -> str | None:
    """Start noting the fake GPU's fields the import step reads (and the fake nvidia-smi's runs, in a file);
    the file's path, or None when no fake GPU is installed here."""
    stubs = sys.modules.get("_argtrace_stubs")
    if stubs is None or stubs._STATE["profile"] is None:
        return None
    stubs.record_reads()
    log = os.path.abspath("nvidia-smi.runs")  # the host's own working directory
    os.environ["ARGTRACE_FAKE_GPU_SMI_LOG"] = log
    return log


def _gpu_reads(log: str | None) -> list[str] | None:
    """The fields noted during the import step (and stop noting), or None: no fake GPU, or the import ran
    nvidia-smi (whose answer it may keep, and which is not traced field by field)."""
    if log is None:
        return None
    os.environ.pop("ARGTRACE_FAKE_GPU_SMI_LOG", None)  # the jobs' environment is the host's start's
    reads: list[str] = sys.modules["_argtrace_stubs"].recorded_reads()
    return None if os.path.exists(log) else reads


def _can_switch(raw: str) -> bool:
    """Whether a child may answer for the profile ``raw`` (the stubs are here and the structural fields
    agree)."""
    stubs = sys.modules.get("_argtrace_stubs")
    if stubs is None or stubs._STATE["profile"] is None:
        return False
    new = stubs.profile(raw)
    old = stubs._STATE["profile"]
    return new is not None and all(new.get(k) == old.get(k) for k in stubs.STRUCTURAL)


def _die_with_parent() -> None:
    """Linux's ``PR_SET_PDEATHSIG``: killed when the process that started this one ends (argtrace killed
    while a run is under way must not leave the host, or the run, behind). Elsewhere, a no-op: the host then
    ends when its job pipe closes, after the run."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _run_job(script: str, job: dict[str, Any], jobs_fd: int, replies_fd: int) -> None:
    """In the forked child: the job's streams, directory and arguments, then ``SCRIPT`` as ``__main__``."""
    import runpy

    os.setpgrp()  # its own group: a timeout kills the job and whatever it started
    _die_with_parent()
    os.close(jobs_fd)
    os.close(replies_fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    for fd, path in ((1, job["stdout"]), (2, job["stderr"])):
        target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    if job.get("gpu") is not None:  # checked by the host before the fork (_can_switch)
        sys.modules["_argtrace_stubs"].switch_profile(job["gpu"])
    os.chdir(job["cwd"])
    sys.argv = [script, *job["args"]]
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(code & 0xFF)


def main(argv: list[str]) -> int:
    script, prep, jobs_fd, replies_fd = argv[0], json.loads(argv[1]), int(argv[2]), int(argv[3])
    idle = float(argv[4])
    _die_with_parent()
    smi_log = _record_gpu_reads()
    try:
        _prepare(script, list(prep))
    except BaseException as exc:
        _reply(replies_fd, {"ready": False, "error": "".join(traceback.format_exception(exc))[-4000:]})
        return 1
    _reply(replies_fd, {"ready": True, "reads": _gpu_reads(smi_log)})
    jobs = os.fdopen(jobs_fd, "rb", buffering=0)
    buffer = b""
    while True:
        ready, _, _ = select.select([jobs_fd], [], [], idle)
        if not ready:
            return 0  # idle: argtrace starts another host if it needs one
        chunk = jobs.read(65536)
        if not chunk:
            return 0
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            job = json.loads(line)
            if job.get("gpu") is not None and not _can_switch(job["gpu"]):
                _reply(replies_fd, {"refused": "this host cannot answer for that GPU profile"})
                continue
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            pid = os.fork()
            if pid == 0:
                _run_job(script, job, jobs_fd, replies_fd)
            _reply(replies_fd, {"pid": pid})
            _, status = os.waitpid(pid, 0)
            _reply(replies_fd, {"exit": os.waitstatus_to_exitcode(status)})


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
