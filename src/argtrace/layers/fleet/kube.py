"""``fleet --kube [--context C] [-n NS] -l SELECTOR``: pods through the Kubernetes API with the official
``kubernetes`` Python client (the optional extra ``argtrace[kube]``; imported only here).

The client reads the kubeconfig (``--kubeconfig``, else ``$KUBECONFIG``, else ``~/.kube/config``) and
deserialises the answer into its ``V1PodList`` model (generated from the Kubernetes OpenAPI schema: a
body of another shape is refused here, not half read). Each pod's spec then goes through the transport
layer's manifest reader (``layers/transport/kubernetes.py``: ``command``/``args``, ``$(VAR)`` from the
container's env, ``sh -c`` scripts), so a pod is read exactly as ``argtrace check`` reads a manifest; the
pod's ``status.containerStatuses[].imageID`` adds the digest the kubelet actually pulled (a tag names a
release, the digest says which build of it).

Bounded: at most :data:`MAX_PAGES` pages of :data:`PAGE` pods, each request with the fleet's timeout, no
retries (urllib3's default would try again three times).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from argtrace.layers.fleet.analysis import Replica, Unanswered
from argtrace.model import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PAGE = 100
MAX_PAGES = 20


def _client(kubeconfig: str | None, context: str | None, timeout: float) -> tuple[Any, str | None]:
    """An API client for the context, and the namespace the context names (``None``: none)."""
    try:
        from kubernetes import client, config
    except ImportError:
        raise UsageError(
            "--kube needs the official Kubernetes client: pip install 'argtrace[kube]' (or kubernetes)"
        ) from None
    path = kubeconfig or os.environ.get("KUBECONFIG") or os.path.expanduser("~/.kube/config")
    configuration = client.Configuration()
    configuration.retries = 0
    api = config.new_client_from_config(
        config_file=path, context=context, persist_config=False, client_configuration=configuration
    )
    contexts, active = config.list_kube_config_contexts(config_file=path)
    chosen = next((c for c in contexts if c.get("name") == context), None) if context else active
    namespace = ((chosen or {}).get("context") or {}).get("namespace")
    return api, namespace


def list_pods(
    selector: str,
    *,
    namespace: str | None,
    context: str | None,
    kubeconfig: str | None,
    timeout: float,
) -> tuple[str, list[dict[str, Any]]]:
    """(namespace, the pods as the API's JSON, camelCase keys) matching ``selector``."""
    api, context_namespace = _client(kubeconfig, context, timeout)  # UsageError without the client
    from kubernetes import client

    ns = namespace or context_namespace or "default"
    core = client.CoreV1Api(api)
    pods: list[dict[str, Any]] = []
    token: str | None = None
    for _ in range(MAX_PAGES):
        page = core.list_namespaced_pod(
            ns, label_selector=selector, limit=PAGE, _continue=token, _request_timeout=timeout
        )
        pods += [api.sanitize_for_serialization(p) for p in page.items or []]
        token = page.metadata._continue if page.metadata is not None else None
        if not token:
            break
    return ns, pods


def _why(exc: BaseException) -> str:
    """One sentence for a failed API call."""
    status = getattr(exc, "status", None)
    if status is not None:
        reason = getattr(exc, "reason", None) or ""
        return f"the Kubernetes API answered {status} {reason}".rstrip()
    name = type(exc).__name__
    if name == "ValidationError":  # pydantic: the body is not a PodList of the OpenAPI schema
        first = str(exc).splitlines()
        return f"the answer is not a PodList of the Kubernetes API schema ({first[0] if first else name})"
    if name in ("MaxRetryError", "NewConnectionError", "ProtocolError"):
        return f"cannot reach the Kubernetes API ({getattr(exc, 'reason', None) or exc})"
    if "timed out" in str(exc).lower() or name in ("ReadTimeoutError", "ConnectTimeoutError"):
        return "the Kubernetes API did not answer in time"
    return f"{name}: {exc}"


def _statuses(pod: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    status = pod.get("status") or {}
    return {s.get("name", ""): s for s in (status.get("containerStatuses") or []) if isinstance(s, Mapping)}


def _field(pod: Mapping[str, Any], path: str) -> str | None:
    """The value the kubelet gives an env ``valueFrom.fieldRef`` (the Downward API,
    kubernetes.io/docs/concepts/workloads/pods/downward-api/), read from the pod itself; ``None`` for a
    field this pod does not have."""
    meta = pod.get("metadata") or {}
    for kind in ("labels", "annotations"):
        prefix = f"metadata.{kind}['"
        if path.startswith(prefix) and path.endswith("']"):
            value = (meta.get(kind) or {}).get(path[len(prefix) : -2])
            return str(value) if value is not None else None
    section, _, name = path.partition(".")
    value = {"metadata": meta, "spec": pod.get("spec") or {}, "status": pod.get("status") or {}}.get(
        section, {}
    ).get(name)
    return str(value) if isinstance(value, (str, int)) else None


def _with_downward_values(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The pod's spec with every ``fieldRef`` env value filled in from the pod (a LeaderWorkerSet's
    ``LWS_WORKER_INDEX`` from its worker-index label): a manifest leaves it to the cluster, a running pod
    has it. Secrets and config maps stay unknown."""
    spec: dict[str, Any] = dict(pod.get("spec") or {})
    containers = []
    for container in spec.get("containers") or []:
        if not isinstance(container, Mapping):
            continue
        env = []
        for item in container.get("env") or []:
            ref = ((item.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
            value = _field(pod, ref) if isinstance(ref, str) else None
            env.append({"name": item.get("name"), "value": value} if value is not None else item)
        containers.append({**container, **({"env": env} if env else {})})
    spec["containers"] = containers
    return spec


def pod_replicas(pod: Mapping[str, Any], namespace: str) -> list[Replica | Unanswered]:
    """The servers one pod runs, each a replica; a pod that is not running is a target that did not
    answer (its spec is not what runs)."""
    import yaml

    from argtrace.layers.fleet.argv import argv_settings, release_schema
    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.transport import analyze_manifest

    meta = pod.get("metadata") or {}
    name = f"pod {meta.get('namespace') or namespace}/{meta.get('name', '?')}"
    phase = (pod.get("status") or {}).get("phase")
    if phase not in (None, "Running"):
        return [Unanswered(name, "kube", f"is {phase}, not Running")]
    spec = _with_downward_values(pod)
    document = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": meta.get("name")}, "spec": spec}
    source = ScriptSource(label=name, data=yaml.safe_dump(document, sort_keys=False).encode(), path=None)
    servers = analyze_manifest(source, env={}).servers
    if not servers:
        return [Unanswered(name, "kube", "runs no SGLang or vLLM server (no container command starts one)")]
    containers = [c for c in (spec.get("containers") or []) if isinstance(c, Mapping)]
    statuses = _statuses(pod)
    out: list[Replica | Unanswered] = []
    for server in servers:
        container = next((c.get("name", "") for c in containers if c.get("image") == server.image), "")
        target = name if len(servers) == 1 else f"{name} container {container}"
        schema, named = release_schema(server.framework, None, server.image)
        settings, given = argv_settings(server, schema)
        # Places in the pod, not in the YAML argtrace wrote to read it (its line numbers mean nothing).
        at = dict.fromkeys([*settings, "argv"], f"{target} spec.containers[{container}]")
        if server.image:
            settings["image"] = server.image
            at["image"] = f"{target} spec.containers[{container}].image"
        if named:  # the release the image's tag names
            settings["release"] = named
            at["release"] = f"{target} spec.containers[{container}].image"
        image_id = statuses.get(container, {}).get("imageID")
        if image_id:
            settings["image_id"] = image_id
            at["image_id"] = f"{target} status.containerStatuses[{container}].imageID"
        out.append(
            Replica(
                target=target,
                kind="kube",
                framework=server.framework,
                settings=settings,
                at=at,
                source="argv",
                given=given | {k for k in ("image", "image_id", "release") if k in settings},
                version=named,
                image=server.image,
            )
        )
    return out


def read_kube(
    selector: str,
    *,
    namespace: str | None,
    context: str | None,
    kubeconfig: str | None,
    timeout: float,
) -> list[Replica | Unanswered]:
    where = f"--kube -l {selector}" + (f" --context {context}" if context else "")
    try:
        ns, pods = list_pods(
            selector, namespace=namespace, context=context, kubeconfig=kubeconfig, timeout=timeout
        )
    except UsageError:
        raise
    except Exception as exc:  # the client raises urllib3, pydantic and config errors of many kinds
        return [Unanswered(where, "kube", _why(exc))]
    if not pods:
        return [Unanswered(where, "kube", f"no pod in namespace {ns} matches the selector {selector!r}")]
    out: list[Replica | Unanswered] = []
    for pod in pods:
        out += pod_replicas(pod, ns)
    return out
