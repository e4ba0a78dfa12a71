"""The GPUs a container is given against the server's parallel sizes and its CUDA_VISIBLE_DEVICES (issue 17).

This module owns TP042/TP043; the count comes from the transport layer (``ServerCommand.gpus``), the GPUs
the server needs from ``process.needed_gpus``.

How the container runtime exposes GPUs: the NVIDIA Container Toolkit makes the devices named by
``NVIDIA_VISIBLE_DEVICES`` (``docker run --gpus N|all|device=...``, compose device reservations and the
Kubernetes device plugin's ``nvidia.com/gpu`` limit all end up there) the only GPUs inside the container,
where CUDA numbers them 0..N-1 whatever their host indices (NVIDIA Container Toolkit docs, "Specialized
Configurations with Docker" > "GPU Enumeration"; Kubernetes docs, "Schedule GPUs"). ``CUDA_VISIBLE_DEVICES``
inside the container then selects among those N, by the container's numbering; CUDA stops at the first
ordinal that does not exist (CUDA C Programming Guide, "CUDA Environment Variables").

TP042: the parallel sizes need more GPUs than the container has. TP043: ``CUDA_VISIBLE_DEVICES`` names an
ordinal the container does not have (host indices copied into a container).
"""

from __future__ import annotations

import re

from argtrace.model import Evidence, Finding, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.frameworks.schema import Schema


def container_gpu_findings(
    server: ServerCommand, schema: Schema, found: tuple[int, dict[str, int], list[str], int] | str
) -> list[Finding]:
    """``found``: what ``process.needed_gpus`` says one node of the server uses, or why it is not known."""
    from argtrace.rules.wrappers import TP042, TP043

    if server.gpus is None:
        return []
    have = server.gpus
    where = server.gpus_from or "the container"
    if have == 0 and _docker_count_zero(where):
        return [_count_zero(server, where)]
    out: list[Finding] = []
    cvd = server.env.get("CUDA_VISIBLE_DEVICES")
    usable = have
    if cvd is not None and cvd.value is not None:
        ordinals: list[int] = []
        for item in (x.strip() for x in cvd.value.split(",")):
            if not re.fullmatch(r"\d+", item):
                break  # a UUID or MIG name: not an ordinal, not compared here
            ordinals.append(int(item))
        missing = [o for o in ordinals if o >= have]
        if missing:
            first = ordinals.index(missing[0])
            usable = first  # CUDA enumerates up to the first ordinal that does not exist
            out.append(
                TP043.finding(
                    f"CUDA_VISIBLE_DEVICES={cvd.value} names GPU {missing[0]}, but {where} gives the "
                    f"container {have} GPU(s), numbered 0..{have - 1} inside it: CUDA stops at "
                    f"{missing[0]}, so the server sees {first}",
                    at=cvd.origin.at or server.at,
                    evidence=[Evidence("process", server.at, f"{where}: {have}")],
                )
            )
    if isinstance(found, str):
        return out
    needed, sizes, _dests, offset = found
    # a vLLM server spanning nodes (Ray; LeaderWorkerSet's LWS_GROUP_SIZE pods) uses needed/nodes GPUs here
    group = server.env.get("LWS_GROUP_SIZE")
    nodes = int(group.value) if group is not None and group.value and group.value.isdigit() else 1
    if schema.framework == "vllm" and nodes > 1:
        needed = -(-needed // nodes)
    elif schema.framework == "vllm" and "ray" in (w.text for w in server.server_args):
        return out  # --distributed-executor-backend ray: the nodes of the Ray cluster are not known here
    placement = server.placement
    if placement is not None and placement.kind == "InferenceService" and (placement.nodes or 1) > 1:
        return out  # KServe's Ray head: the Ray cluster's GPUs are judged by transport/serving.py
    if needed + offset > usable and not out:
        product = " x ".join(f"{k} {v}" for k, v in sizes.items())
        out.append(
            TP042.finding(
                f"the server needs {needed} GPU(s) ({product}) but {where} gives the container {have}",
                at=server.at,
                evidence=[Evidence("transport", server.at, f"{where}: {have}")],
            )
        )
    return out


def _docker_count_zero(where: str) -> bool:
    """``docker run --gpus 0`` (or ``count=0``): a GPU count of zero, not GPU 0."""
    m = re.fullmatch(r"docker run --gpus[= ]?['\"]?(?:count=)?0['\"]?", where.strip())
    return m is not None


def _count_zero(server: ServerCommand, where: str) -> Finding:
    """``--gpus 0`` asks for zero GPUs. What the container then has depends on the Docker Engine: from
    27.3.0 the daemon sets NVIDIA_VISIBLE_DEVICES=void for a count of 0 (moby PR#48482, backported as
    #48483: "Explicitly disable nvidia device injection for --gpus=0"), so the container has no GPU; before
    it, the daemon set nothing for 0 (daemon/nvidia_linux.go, setNvidiaGPUs: only Count > 0 and < 0 set
    the variable) and the image's own NVIDIA_VISIBLE_DEVICES applied, ``all`` in CUDA base images
    (NVIDIA/nvidia-docker#1506). Which engine runs is not in the launch: a warning resting on it."""
    from argtrace.rules.wrappers import TP042

    return TP042.finding(
        f"{where} asks for a count of 0 GPUs, not for GPU 0: Docker Engine 27.3.0 and later give the "
        "container no GPU (NVIDIA_VISIBLE_DEVICES=void, moby PR#48482) and the server cannot start on one; "
        "older engines leave the image's NVIDIA_VISIBLE_DEVICES in force, all GPUs in CUDA images "
        "(assumed: the Docker Engine release is not in the launch)",
        at=server.at,
        evidence=[Evidence("transport", server.at, f"{where}: a count of 0")],
        fix="write --gpus device=0 for GPU 0 (or --gpus 1 for one GPU)",
        severity="warning",
        basis="assumed",
    )
