"""What Kubernetes adds to a container beyond its own ``env``: service links and its GPUs (issue 17).

Service links: with ``enableServiceLinks`` (PodSpec, default true) the kubelet sets, for every Service of
the pod's namespace that exists when the pod starts, ``{SVC}_SERVICE_HOST``/``{SVC}_SERVICE_PORT`` and the
Docker-link variables ``{SVC}_PORT=tcp://IP:PORT``, ``{SVC}_PORT_{PORT}_{PROTO}``, ``..._PROTO``,
``..._PORT``, ``..._ADDR`` (``SVC``: the Service name upper-cased, ``-`` as ``_``; the first port for the
plain names). Kubernetes docs, "Service" > "Discovering services" > "Environment variables"
(https://kubernetes.io/docs/concepts/services-networking/service/#environment-variables) and the PodSpec
field ``enableServiceLinks``; the container's own ``env``/``envFrom`` win over them (the kubelet's
``makeEnvironmentVariables`` adds the service variables first). Only the Services of the manifest are
known here; others of the namespace add variables too.

A Service named ``vllm`` thus sets ``VLLM_PORT=tcp://...`` in every pod of its namespace, which vLLM reads as
its internal port and refuses (``VLLM_PORT '...' appears to be a URI``, vllm/envs.py ``get_vllm_port``):
TP041.

GPUs: ``resources.limits["nvidia.com/gpu"]`` (the NVIDIA device plugin's resource; ``requests`` must equal
it for extended resources) is how many GPUs the container gets, numbered 0..N-1 inside it
(NVIDIA k8s-device-plugin sets ``NVIDIA_VISIBLE_DEVICES`` to the allocated devices).

Probes: a container's ``livenessProbe``/``readinessProbe``/``startupProbe`` ``httpGet``/``tcpSocket``
``port`` is a number or the name of one of the container's ``ports`` (Kubernetes API reference, Probe and
ContainerPort: "Number or name of the port to access on the container"); the kubelet connects to the pod's
IP at that port. ``probe_ports`` reads them for TP070 (``layers/container_ports.py``).

This module owns the service-link variables (``service_link_env``), TP041, the container GPU limit and its
probes' ports.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from argtrace.layers.transport.yamlnodes import _get, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")


def _svc_prefix(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "_", name).upper()


def _namespace(doc: Any) -> str:
    return _scalar(_get(_get(doc, "metadata"), "namespace")) or "default"


def services(docs: Sequence[Any]) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """The Services of the manifest: (namespace, name, [(port, protocol)])."""
    out = []
    for doc in docs:
        listed = (_seq(_get(doc, "items")) or []) if _scalar(_get(doc, "kind")) == "List" else [doc]
        for item in listed:
            if _scalar(_get(item, "kind")) != "Service":
                continue
            spec = _get(item, "spec")
            if _scalar(_get(spec, "clusterIP")) == "None":
                continue  # a headless Service gets no link variables (no cluster IP)
            name = _scalar(_get(_get(item, "metadata"), "name")) or ""
            ports = [
                (_scalar(_get(p, "port")) or "", (_scalar(_get(p, "protocol")) or "TCP").upper())
                for p in _seq(_get(spec, "ports")) or []
            ]
            if name and ports:
                out.append((_namespace(item), name, ports))
    return out


def service_link_env(
    docs: Sequence[Any], owner: Any, pod_spec: Any, default: bool = True
) -> dict[str, tuple[str | None, str]]:
    """The variables the kubelet sets for the manifest's Services in a pod of ``owner`` (the workload
    document): name -> (value or None when only the cluster knows it, where it comes from). ``default``:
    whether links are on when the pod spec does not set ``enableServiceLinks``."""
    if (_scalar(_get(pod_spec, "enableServiceLinks")) or ("true" if default else "false")).lower() == "false":
        return {}
    namespace = _namespace(owner)
    out: dict[str, tuple[str | None, str]] = {}
    for ns, name, ports in services(docs):
        if ns != namespace:
            continue
        svc = _svc_prefix(name)
        why = f"set by Kubernetes for Service `{name}` (service link; enableServiceLinks defaults to true)"
        first_port, first_proto = ports[0]
        out[f"{svc}_SERVICE_HOST"] = (None, f"{why}: the Service's cluster IP")
        out[f"{svc}_SERVICE_PORT"] = (first_port, why)
        out[f"{svc}_PORT"] = (None, f"{why}: {first_proto.lower()}://<cluster IP>:{first_port}")
        for port, proto in ports:
            base = f"{svc}_PORT_{port}_{proto}"
            out[base] = (None, f"{why}: {proto.lower()}://<cluster IP>:{port}")
            out[f"{base}_PROTO"] = (proto.lower(), why)
            out[f"{base}_PORT"] = (port, why)
            out[f"{base}_ADDR"] = (None, f"{why}: the Service's cluster IP")
    return out


def gpu_limit(container: Any) -> tuple[int, str] | None:
    """(GPU count, resource name) from the container's ``resources.limits`` (else ``requests``)."""
    resources = _get(container, "resources")
    for section in ("limits", "requests"):
        node = _get(resources, section)
        for res in GPU_RESOURCES:
            value = _scalar(_get(node, res))
            if value is not None and value.isdigit():
                return int(value), f"resources.{section}[{res!r}]"
    return None


def pod_findings(
    container: str, node: Any, servers: Sequence[Any], linked: dict[str, str], at: str
) -> list[Any]:
    """TP041 for a service-link variable the server's framework reads."""
    from argtrace.model import Evidence
    from argtrace.rules.wrappers import TP041

    out: list[Any] = []
    for server in servers:
        if server.framework == "vllm" and "VLLM_PORT" in linked:
            out.append(
                TP041.finding(
                    f"container {container} gets VLLM_PORT=tcp://<cluster IP>:PORT from Kubernetes "
                    f"({linked['VLLM_PORT']}): vLLM reads VLLM_PORT as its first internal port and raises "
                    "\"VLLM_PORT '...' appears to be a URI\" (vllm/envs.py get_vllm_port)",
                    at=at,
                    evidence=[Evidence("transport", at, "VLLM_PORT=tcp://<cluster IP>:PORT")],
                )
            )
    return out


def with_gpus(servers: Sequence[Any], node: Any, container: str) -> list[Any]:
    """The servers with the container's GPU count (``ServerCommand.gpus``), for the process layer to compare
    with the parallel sizes and CUDA_VISIBLE_DEVICES."""
    from dataclasses import replace

    gpus = gpu_limit(node)
    privileged = _scalar(_get(_get(node, "securityContext"), "privileged")) or ""
    if gpus is None or privileged.lower() == "true":
        # a privileged container has every device of the node, all its GPUs numbered as on the host, whatever
        # the limit asks (NVIDIA/nvidia-docker#764; NVIDIA/nvidia-container-toolkit#73): not counted here
        return list(servers)
    return [replace(s, gpus=gpus[0], gpus_from=f"container {container}'s {gpus[1]}") for s in servers]


PROBES = ("startupProbe", "readinessProbe", "livenessProbe")


def probe_ports(node: Any) -> tuple[tuple[str, int, str], ...]:
    """The ports the container's HTTP and TCP probes ask: (probe, port, as written); a name resolves to the
    container's ``ports`` entry of that name (an unknown name or a template is left out)."""
    named: dict[str, int] = {}
    for item in _seq(_get(node, "ports")) or []:
        name, number = _scalar(_get(item, "name")), _scalar(_get(item, "containerPort"))
        if name and number is not None and number.isdigit():
            named[name] = int(number)
    out: list[tuple[str, int, str]] = []
    for probe in PROBES:
        spec = _get(node, probe)
        for kind in ("httpGet", "tcpSocket"):
            port = _scalar(_get(_get(spec, kind), "port"))
            if port is None:
                continue
            if port.isdigit():
                out.append((probe, int(port), port))
            elif port in named:
                out.append((probe, named[port], f"{port} (containerPort {named[port]})"))
    return tuple(out)


def with_probe_ports(servers: Sequence[Any], node: Any) -> list[Any]:
    """The servers with their container's probe ports (``ServerCommand.probe_ports``)."""
    from dataclasses import replace

    ports = probe_ports(node)
    return [replace(s, probe_ports=ports) for s in servers] if ports else list(servers)
