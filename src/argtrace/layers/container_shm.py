"""The /dev/shm a ``docker run`` leaves a multi-GPU start (MM015).

Docker gives a container a 64 MiB /dev/shm unless the command sets it (``--shm-size``, ``--ipc host``, a
mount at /dev/shm: ``layers/transport/docker_cli.py`` reads which). The ranks of one tensor x pipeline
parallel group on one node (over SGLang's ``--nnodes``; DP replicas without DP attention each have their
own group) talk through NCCL, whose shared-memory segments live in /dev/shm; radixark/miles_diffusion PR#13
met the ``lmsysorg/sglang:v0.5.14-cu130`` image's NCCL 2.28.9 exhausting the default. One GPU, a compose
file or a Kubernetes pod (their own settings, TP023) and Ascend's HCCL (``--device /dev/davinciN``) get no
finding.
"""

from __future__ import annotations

from argtrace.model import Evidence, LayerResult, Report

# the names of the sizes of one NCCL group (tensor x pipeline parallel) per framework; DP replicas without
# DP attention each have their own group, so they add none of its ranks
_SIZES = {
    "sglang": ("tp_size", "pp_size"),
    "vllm": ("tensor_parallel_size", "pipeline_parallel_size"),
}


def container_shm(report: Report) -> LayerResult:
    """MM015: a ``docker run`` with no /dev/shm setting for a start whose ranks need NCCL."""
    result = LayerResult()
    framework = report.framework.name
    if framework not in _SIZES or not report.servers:
        return result
    server = report.servers[0]
    if server.container_shm != "" or any("davinci" in d for d in server.devices):
        return result
    needed = _ranks_on_the_node(report, framework)
    if needed is None or needed[0] < 2:
        return result
    ranks, how = needed
    from argtrace.rules.memory import MM015

    image = f" of {server.image}" if server.image else ""
    result.findings.append(
        MM015.finding(
            f"the `docker run`{image} sets no /dev/shm (no --shm-size, --ipc host or mount there), so the "
            f"container keeps Docker's 64 MiB: the {ranks} ranks of this start on the node ({how}) talk "
            "through NCCL, whose shared-memory segments live in /dev/shm and fail to be created once they "
            "outgrow it",
            at=server.at,
            evidence=[Evidence("transport", server.at, f"docker run{image}, no --shm-size or --ipc host")],
        )
    )
    return result


def _ranks_on_the_node(report: Report, framework: str) -> tuple[int, str] | None:
    """The ranks of one tensor x pipeline parallel group on this node (SGLang's over ``--nnodes``), with how
    they follow from the sizes; None when a size is not a number."""
    from argtrace.layers.nodescope import as_int

    sizes = []
    for name in _SIZES[framework]:
        setting = report.setting(name)
        value = as_int(setting.effective) if setting is not None and setting.effective is not None else 1
        if value is None:
            return None
        sizes.append((name, value))
    ranks = sizes[0][1] * sizes[1][1]
    how = " x ".join(f"{name} {value}" for name, value in sizes)
    nnodes = report.setting("nnodes") if framework == "sglang" else None
    nodes = as_int(nnodes.effective) if nnodes is not None and nnodes.effective is not None else 1
    if nodes is not None and nodes > 1:
        ranks, how = ranks // nodes, f"{how} over nnodes {nodes}"
    return ranks, how
