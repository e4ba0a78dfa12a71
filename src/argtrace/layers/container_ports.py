"""The ports a container's Kubernetes probes ask against the port its server listens on (TP070).

The probes come from the transport layer (``ServerCommand.probe_ports``, ``transport/k8s_pod.py``: a number,
or a named ``containerPort`` resolved); the server's port is the parser's value of ``port`` (given, or the
release's default: vLLM 8000, SGLang 30000), read once every server of the file is parsed. The kubelet
probes the pod's IP at that port (Kubernetes API reference, Probe), so a probe on another port never
succeeds.
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.model import Evidence, Finding, LayerResult, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.frameworks.schema import Schema

# what a failing probe of each kind does (Kubernetes docs, "Configure Liveness, Readiness and Startup Probes")
EFFECT = {
    "livenessProbe": "the kubelet restarts the container again and again",
    "readinessProbe": "the pod never becomes Ready and its Service sends it no requests",
    "startupProbe": "the kubelet restarts the container again and again, and the pod never becomes Ready",
}


def probe_port_findings(parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]]) -> list[Finding]:
    """TP070 for each server whose container probes a port the server does not listen on."""
    from argtrace.rules.wrappers import TP070

    out: list[Finding] = []
    for _, server, schema, result in parsed:
        if not server.probe_ports or (result.sections.get("parser") or {}).get("exit_status"):
            continue  # (a launch argparse refuses listens nowhere: the parser's findings say why)
        port, how = _listening_port(schema, result)
        if port is None:
            continue
        label = f"{server.framework} {schema.version}"
        wrong: dict[tuple[int, str], list[str]] = {}
        for probe, number, written in server.probe_ports:
            if number != port:
                wrong.setdefault((number, written), []).append(probe)
        for (number, written), probes in wrong.items():
            which = " and ".join(probes)
            effects = "; ".join(EFFECT[p] for p in probes)
            out.append(
                TP070.finding(
                    f"the container's {which} ask{'s' if len(probes) == 1 else ''} port {written}, but "
                    f"{label} listens on {port} ({how}): the probe{'s' if len(probes) > 1 else ''} never "
                    f"succeed{'s' if len(probes) == 1 else ''}, so {effects}",
                    at=server.at,
                    setting="port",
                    evidence=[Evidence("transport", server.at, f"{which} port {written}")],
                    fix=f"give the server --port {number} (or point the probes at port {port})",
                )
            )
    return out


def _listening_port(schema: Schema, result: LayerResult) -> tuple[int | None, str]:
    """The parser's value of ``port`` and where it comes from; None when the parser could not read it."""
    from argtrace.layers.parser import all_defaults

    seen = [o for o in (result.observations.get("port") or (None, []))[1] if o.layer == "parser"]
    if seen:
        value, how = (seen[-1].value if seen[-1].known else None), "--port"
    else:
        value, how = all_defaults(schema).get("port"), "--port's default"
    if not isinstance(value, int) or isinstance(value, bool):
        return None, how
    return value, how
