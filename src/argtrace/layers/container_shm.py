"""The /dev/shm a ``docker run`` leaves a multi-GPU start (MM015).

Docker gives a container a 64 MiB /dev/shm unless the command sets it (``--shm-size``, ``--ipc host``, a
mount at /dev/shm: ``layers/transport/docker_cli.py`` reads which). The ranks of a start on several GPUs of
one node (``nodescope.gpus_needed``: TP x PP, x DP without DP attention, over ``--nnodes``) talk through NCCL,
whose shared-memory segments live in /dev/shm; radixark/miles_diffusion PR#13 met the
``lmsysorg/sglang:v0.5.14-cu130`` image's NCCL 2.28.9 exhausting the default. One GPU, a compose file or a
Kubernetes pod (their own settings, TP023) and Ascend's HCCL (``--device /dev/davinciN``) get no finding.
"""

from __future__ import annotations

from typing import Any

from argtrace.model import Evidence, LayerResult, Report

# the defaults of the sizes gpus_needed reads, per framework (a setting the launch does not give)
_DEFAULTS = {
    "sglang": {"tp_size": 1, "pp_size": 1, "dp_size": 1, "nnodes": 1, "enable_dp_attention": False},
    "vllm": {"tensor_parallel_size": 1, "pipeline_parallel_size": 1, "data_parallel_size": 1},
}
_OPTIONAL = ("data_parallel_size_local", "data_parallel_rank")


def container_shm(report: Report) -> LayerResult:
    """MM015: a ``docker run`` with no /dev/shm setting for a start whose ranks need NCCL."""
    from argtrace.layers.nodescope import gpus_needed

    result = LayerResult()
    framework = report.framework.name
    if framework not in _DEFAULTS or not report.servers:
        return result
    server = report.servers[0]
    if server.container_shm != "" or any("davinci" in d for d in server.devices):
        return result
    values: dict[str, Any] = dict(_DEFAULTS[framework])
    for name in (*_DEFAULTS[framework], *_OPTIONAL):
        setting = report.setting(name)
        if setting is not None and setting.effective is not None:
            values[name] = setting.effective
    needed = gpus_needed(framework, values)
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
