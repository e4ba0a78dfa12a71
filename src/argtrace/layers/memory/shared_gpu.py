"""Several vLLM servers of one launch on the same GPU (MM013): each one's ``--gpu-memory-utilization`` is a
fraction of the whole device, so the servers that already run hold their budgets when the next one starts.

How a later server meets the memory the earlier ones hold depends on the release (code read per release):

* vLLM 0.9.1 and later (read: 0.9.1 ``v1/worker/gpu_worker.py:136-146`` in ``init_device``; 0.33.0
  ``v1/worker/utils.py:716-772`` ``request_memory``): at start-up the worker requests ``total x
  gpu_memory_utilization`` and raises "Free memory on device ... on startup is less than desired GPU memory
  utilization" when the free memory is smaller. An earlier server sizes its KV cache to fill its own
  request, so it holds about ``utilization x total``: when the fractions of the servers that run together
  add up to more than 1, the last one cannot start.
* vLLM 0.8.0-0.9.0 with the V1 engine (read: 0.8.0 ``v1/worker/gpu_worker.py:177-181``, 0.9.0 :205-209,
  ``determine_available_memory``): no start-up check, but the memory in use on the whole device (``total -
  free``, the other servers' included) less this process's torch allocations is counted as its own
  "non-torch" memory and taken from its budget: a later server needs a larger fraction than the earlier
  ones hold together, else "No available memory for the cache blocks" (vllm#14376: 0.2 then 0.2 fails, 0.2
  then 0.3 starts; vllm#19125: 0.4 twice on one 8 GB card).

Servers share a GPU here when they are vLLM servers of one file that each use one GPU, with the same device
selection (``CUDA_VISIBLE_DEVICES`` and a container's GPU request as written, or neither); they run together
when the earlier ones are started in the background (``&``): a server started in the foreground blocks the
script until it exits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from argtrace.frameworks.schema import is_version, version_key
from argtrace.model import Evidence, Finding, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The first release whose worker refuses to start below its requested memory (request_memory), and the V1
# releases before it that charge the other processes' memory to the KV budget (both read from the wheels).
REQUEST_CHECK_FROM = "0.9.1"
CHARGED_FROM, CHARGED_TO = "0.8.0", "0.9.0"


@dataclass(frozen=True)
class GpuShare:
    """One vLLM server of the launch as this rule reads it."""

    index: int
    server: ServerCommand
    values: Mapping[str, Any]


def _one_gpu(values: Mapping[str, Any]) -> bool:
    sizes = [values.get(k) for k in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size")]
    return all(isinstance(s, int) and s == 1 for s in sizes if s is not None)


def _devices(server: ServerCommand) -> tuple[Any, ...]:
    visible = server.env.get("CUDA_VISIBLE_DEVICES")
    return (server.placement, visible.value if visible is not None else None, server.gpus_from)


def _utilization(values: Mapping[str, Any]) -> float | None:
    value = values.get("gpu_memory_utilization")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _named_release(version: str | None) -> str | None:
    return version if version is not None and is_version(version) else None


def shared_gpu_findings(shares: Sequence[GpuShare], release: str | None) -> list[Finding]:
    """MM013 for each vLLM server started while earlier servers of the launch hold the same GPU."""
    from argtrace.rules.memory import MM013

    findings: list[Finding] = []
    groups: dict[tuple[Any, ...], list[GpuShare]] = {}
    for share in shares:
        if share.server.framework == "vllm" and _one_gpu(share.values) and not share.server.repeated:
            groups.setdefault(_devices(share.server), []).append(share)
    named = _named_release(release)
    for group in groups.values():
        for position, later in enumerate(group):
            running = [s for s in group[:position] if s.server.backgrounded]
            util = _utilization(later.values)
            held = [_utilization(s.values) for s in running]
            if not running or util is None or any(h is None for h in held):
                continue
            before = sum(h for h in held if h is not None)
            finding = _finding(MM013, later, running, util, before, named)
            if finding is not None:
                findings.append(finding)
    return findings


def _finding(
    rule: Any, later: GpuShare, running: list[GpuShare], util: float, before: float, release: str | None
) -> Finding | None:
    """The verdict for one later server: an error when the named release refuses it (the fractions add up to
    more than 1 on a release with the start-up check, or it asks no more than the others hold on a release
    that charges their memory to it); with no release named, a note naming the releases where it fails;
    nothing when it starts on every release read."""
    total = before + util
    hold = "holds" if len(running) == 1 else "hold"
    starts = f"server {later.index} starts while {_names(running)} already {hold} the same GPU"
    evidence = tuple(
        Evidence("memory", s.server.at, f"--gpu-memory-utilization {_fraction(s.values)} (server {s.index})")
        for s in [*running, later]
    )
    over, charged = total > 1.0, util <= before
    why = _refusal(release, over, charged)
    fix = (
        f"Give the servers fractions that add up to at most 1 (e.g. {_split(running)}), "
        "or put them on different GPUs (CUDA_VISIBLE_DEVICES)"
    )
    if why is not None:
        message = f"{starts}: its --gpu-memory-utilization {util:g} and theirs add up to {total:g}; {why}"
        severity = "error"
    elif release is not None or not (over or charged):
        return None  # the named release starts it, or every release read does
    else:
        parts = []
        if over:
            parts.append(
                f"from vLLM {REQUEST_CHECK_FROM} on it cannot start: the fractions add up to {total:g} "
                "of the device and each worker refuses to start with less free memory than its request"
            )
        if charged:
            parts.append(
                f"on vLLM {CHARGED_FROM}-{CHARGED_TO} (V1) it finds no memory for its KV cache: those "
                f"releases take what the other servers hold ({before:g} of the device) from its {util:g}"
            )
        message = f"{starts}; {'; '.join(parts)}. Which applies depends on the release, which nothing names"
        severity = "info"
    return rule.finding(
        message,
        severity=severity,
        at=later.server.at,
        fix=fix,
        evidence=evidence,
        server=later.index,
        setting="gpu_memory_utilization",
    )


def _refusal(release: str | None, over: bool, charged: bool) -> str | None:
    """Why the named release refuses the later server, or ``None``."""
    if release is None:
        return None
    if version_key(release) >= version_key(REQUEST_CHECK_FROM) and over:
        return (
            f"vLLM {release} refuses a start with less free memory than its request (v1/worker/utils.py "
            'request_memory: "Free memory on device ... is less than desired GPU memory utilization")'
        )
    if version_key(CHARGED_FROM) <= version_key(release) <= version_key(CHARGED_TO) and charged:
        return (
            f"vLLM {release}'s V1 worker counts the memory the other servers hold as its own and takes it "
            "from its budget (v1/worker/gpu_worker.py determine_available_memory): "
            '"No available memory for the cache blocks"'
        )
    return None


def _names(running: list[GpuShare]) -> str:
    return ", ".join(f"server {s.index} ({_fraction(s.values)})" for s in running)


def _fraction(values: Mapping[str, Any]) -> str:
    util = _utilization(values)
    return f"{util:g}" if util is not None else "?"


def _split(running: list[GpuShare]) -> str:
    share = int(100 / (len(running) + 1)) / 100 - 0.01
    return f"--gpu-memory-utilization {share:.2f} for each of the {len(running) + 1}"
