"""``argtrace --host NODE ps``: the node's SGLang/vLLM servers, as ``layers/observed.py`` describes them.

The observed layer for a node: ``remote/host.py`` brings its ``/proc`` snapshots, this module reads them.

``layers/observed.py`` reads local processes with psutil. On a node the collector reads ``/proc`` instead
(:meth:`Host.processes`) and this module turns its snapshots into the same ``ObservedProcess`` objects:
server detection, worker titles, the process tree, listening sockets, and the framework version read from
the node's files (``frameworks/site_packages.py`` through the host: the node's interpreter is never run).
"""

from __future__ import annotations

import os
import re

from argtrace.frameworks.site_packages import process_version
from argtrace.model import UsageError
from argtrace.remote.host import Host
from argtrace.remote.results import ProcessSnapshot

_MATCH = ["sglang", "vllm", "VLLM", "::"]
_PY_VERSION = re.compile(r"python(\d+\.\d+)$")


def find_servers_on(host: Host, framework: str | None = None) -> list[object]:
    """Top-level server processes on ``host``, each with its workers (``ObservedProcess`` objects)."""
    from argtrace.layers.observed_process import detect_observed

    snapshots = host.processes(match=_MATCH)
    by_pid = {s.pid: s for s in snapshots}
    candidates: dict[int, ProcessSnapshot] = {}
    for snap in snapshots:
        argv = [a for a in snap.argv if a != ""]
        found = detect_observed(argv) if argv else None
        if found is not None and (framework is None or found[0] == framework):
            candidates[snap.pid] = snap
    tops = [pid for pid in sorted(candidates) if not _has_ancestor_in(pid, candidates, by_pid)]
    return [_observed(host, by_pid[pid], by_pid, with_children=True) for pid in tops]


def resolve_pid_on(host: Host, pid: int) -> object:
    """``--pid N`` on the node: the process, or the server a worker belongs to."""
    snapshots = host.processes(match=_MATCH)
    by_pid = {s.pid: s for s in snapshots}
    if pid not in by_pid:
        raise UsageError(f"--pid {pid}: no such process on {host.label}")
    observed = _observed(host, by_pid[pid], by_pid, with_children=True)
    if getattr(observed, "role", None) != "server" and getattr(observed, "framework", None) is not None:
        parent = by_pid[pid].ppid
        seen: set[int] = set()
        while parent and parent in by_pid and parent not in seen:
            seen.add(parent)
            candidate = _observed(host, by_pid[parent], by_pid, with_children=True)
            if getattr(candidate, "role", None) == "server":
                return candidate
            parent = by_pid[parent].ppid
    return observed


def _has_ancestor_in(
    pid: int, candidates: dict[int, ProcessSnapshot], by_pid: dict[int, ProcessSnapshot]
) -> bool:
    seen: set[int] = set()
    parent = by_pid[pid].ppid
    while parent and parent not in seen:
        if parent in candidates:
            return True
        seen.add(parent)
        parent = by_pid[parent].ppid if parent in by_pid else None
    return False


def _children(pid: int, by_pid: dict[int, ProcessSnapshot]) -> list[ProcessSnapshot]:
    out: list[ProcessSnapshot] = []
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        kids = sorted((s for s in by_pid.values() if s.ppid == current), key=lambda s: s.pid)
        out += kids
        frontier += [k.pid for k in kids]
    return out


def _observed(
    host: Host, snap: ProcessSnapshot, by_pid: dict[int, ProcessSnapshot], *, with_children: bool
) -> object:
    from argtrace.layers.observed_process import ObservedProcess, classify_title, detect_observed

    argv = tuple(a for a in snap.argv if a != "")
    observed = ObservedProcess(
        pid=snap.pid,
        ppid=snap.ppid,
        started=snap.start_time,
        argv=argv,
        exe=snap.exe,
        cwd=snap.cwd,
        env=dict(snap.env) if snap.env is not None else None,
        env_error=None
        if snap.env is not None
        else (
            "permission denied reading /proc/PID/environ"
            if snap.detailed
            else "not read (the process is not an SGLang or vLLM process)"
        ),
        username=snap.user,
        listening=tuple(snap.listening),
    )
    fw, role = classify_title(list(argv))
    if fw is not None:
        observed.framework, observed.role, observed.title = fw, role or "worker", argv[0].strip()
    else:
        found = detect_observed(list(argv))
        if found is not None:
            observed.framework, observed.entrypoint, observed.server_args_start = found
            observed.role = "server"
    if observed.role == "server" and with_children and observed.framework is not None:
        observed.framework_version = process_version(
            observed.framework, exe=observed.exe, argv=argv, env=observed.env, cwd=observed.cwd, host=host
        ).version
        m = _PY_VERSION.search(os.path.basename(observed.exe or ""))
        observed.python_version = m.group(1) if m else None
    if with_children:
        ports = set(observed.listening)
        for child in _children(snap.pid, by_pid):
            item = _observed(host, child, by_pid, with_children=False)
            if isinstance(item, ObservedProcess):
                if item.role == "server":
                    item.role = "worker"
                ports.update(item.listening)
                observed.children.append(item)
        observed.listening = tuple(sorted(ports))
    return observed
