"""Kubernetes events pasted as a log (LG016): what they say about the server's pod, and where its log is.

A file of ``kubectl get events`` rows (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE: kubectl's event printer)
or of the Events table of ``kubectl describe pod`` (TYPE, REASON, AGE, FROM, MESSAGE) holds no line of the
server's: it is the cluster's account of the pod. The kubelet's reasons and messages read here are its own
(kubernetes pkg/kubelet/events/event.go: ``BackOff``, ``Unhealthy``, ``Killing``;
pkg/kubelet/prober/prober.go: ``"%s probe failed: %s"``; pkg/kubelet/kuberuntime/kuberuntime_manager.go:
``"Back-off restarting failed container %s in pod %s"``; the scheduler's ``FailedScheduling``). Only the
head of a file with no server launch is read (``no_launch``), so this costs a big log nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# `kubectl get events`: LAST SEEN (``12s``, ``3m5s``, ``<unknown>``), TYPE, REASON, OBJECT (``kind/name``),
# MESSAGE; kubectl describe's Events: TYPE, REASON, AGE (``2m (x4 over 5m)``), FROM, MESSAGE
_GET_ROW = re.compile(
    r"^\s*(?:<unknown>|<invalid>|\d+[smhd](?:\d+[smh])?)\s+(?P<type>Normal|Warning)\s+(?P<reason>\w+)\s+"
    r"(?P<kind>[\w.]+)/(?P<name>\S+)\s+(?P<message>.*)$"
)
_DESCRIBE_ROW = re.compile(
    r"^\s*(?P<type>Normal|Warning)\s+(?P<reason>\w+)\s+(?:<unknown>|<invalid>|\S+(?: \(x\d+ over \S+\))?)\s+"
    r"(?P<source>[\w-]+(?:, [\w.-]+)?)\s+(?P<message>.*)$"
)
_BACKOFF = re.compile(r"Back-off restarting failed container (?P<container>\S+)")
_PROBE = re.compile(r"(?P<probe>Readiness|Liveness|Startup) probe failed: (?P<why>.*)")
_REFUSED = re.compile(r"[Cc]onnection refused|connect: connection refused|Errno 111")
_PROBE_URL = re.compile(r"Get \"?(?P<url>https?://[^\s\"]+)")
_KILLED_BY_PROBE = re.compile(r"failed (?P<probe>liveness|startup) probe, will be restarted")

_HEAD_ROWS = 400  # rows of the head looked at: events come a screenful at a time


@dataclass
class KubeEvents:
    """What the rows say: the pods named, the restarting containers, failed probes and their targets."""

    rows: int = 0
    pods: list[str] = field(default_factory=list)
    restarting: list[str] = field(default_factory=list)
    probes: list[tuple[str, str, bool]] = field(default_factory=list)  # (probe, target, refused)
    killed_by: list[str] = field(default_factory=list)
    unscheduled: list[str] = field(default_factory=list)

    def alarming(self) -> bool:
        return bool(self.restarting or self.probes or self.killed_by or self.unscheduled)


def _add(items: list[str], value: str) -> None:
    if value not in items:
        items.append(value)


def read_events(lines: list[str]) -> KubeEvents | None:
    """The events in ``lines`` (a file's head), or None when fewer than half of its non-blank lines after a
    header are event rows (a file that only mentions a probe is not a table of events)."""
    found = KubeEvents()
    content = 0
    for line in lines[:_HEAD_ROWS]:
        text = line.rstrip()
        if not text.strip() or text.lstrip().startswith(("LAST SEEN", "Type ", "Events:", "----")):
            continue
        content += 1
        row = _GET_ROW.match(text) or _DESCRIBE_ROW.match(text)
        if row is None:
            continue
        found.rows += 1
        groups = row.groupdict()
        if groups.get("kind") == "pod":
            _add(found.pods, groups["name"])
        message = groups["message"]
        backoff = _BACKOFF.search(message)
        if backoff:
            _add(found.restarting, backoff.group("container"))
        probe = _PROBE.search(message)
        if probe:
            url = _PROBE_URL.search(probe.group("why"))
            target = url.group("url") if url else probe.group("why")[:80]
            entry = (probe.group("probe").lower(), target, bool(_REFUSED.search(probe.group("why"))))
            if entry not in found.probes:
                found.probes.append(entry)
        killed = _KILLED_BY_PROBE.search(message)
        if killed:
            _add(found.killed_by, killed.group("probe"))
        if groups["reason"] == "FailedScheduling":
            _add(found.unscheduled, message[:160])
    if found.rows == 0 or found.rows * 2 < content:
        return None
    return found


def describe(events: KubeEvents) -> str:
    """The events' meaning in sentences, the server's side of each."""
    said: list[str] = []
    if events.restarting:
        names = ", ".join(f"`{c}`" for c in events.restarting)
        said.append(
            f"the container {names} exits and Kubernetes restarts it after a back-off (CrashLoopBackOff): "
            "why it exits is in its own log of the run before, not here"
        )
    for probe, target, refused in events.probes[:3]:
        if refused:
            said.append(
                f"the {probe} probe found nothing listening at {target}: the server had not opened its port "
                "yet (still loading the model) or had died, or it listens on another port"
            )
        else:
            said.append(f"the {probe} probe failed at {target}")
    for probe in events.killed_by:
        said.append(
            f"the kubelet killed the container because its {probe} probe failed: a server still loading when "
            "the probe's allowance ran out is killed, and killed again at each restart"
        )
    for message in events.unscheduled[:1]:
        said.append(f"no node could take the pod (`{message}`)")
    return "; ".join(said)
