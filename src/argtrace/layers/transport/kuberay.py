"""KubeRay's RayCluster, RayJob and RayService (``ray.io/v1``): the Ray pods they start, with the command and
the variables KubeRay gives the Ray container, and a RayJob's entrypoint.

This module owns what KubeRay makes of a Ray pod template (``ray_pods``, called from kubernetes.py for these
kinds), TP108, the words its rewrite of the Ray container's command splits again, and TP109, a RayJob
entrypoint its job submitter's shell ends early (``ray_findings``).

Followed from KubeRay's own code (ray-project/kuberay, ray-operator/controllers/ray/common/pod.go):

- the pod templates: ``spec.headGroupSpec.template`` (one head pod) and each of ``spec.workerGroupSpecs``
  (``replicas`` pods of its ``template``); a RayJob's cluster is ``spec.rayClusterSpec``, a RayService's
  ``spec.rayClusterConfig`` (its ``serveConfigV2`` is read by rayserve.py);
- ``BuildPod``: the Ray container is the first one (``utils.RayContainerIndex = 0``). Unless the pod
  template's annotation ``ray.io/overwrite-container-cmd`` is ``"true"`` or its command already says
  ``ray start``, KubeRay joins the container's ``command`` and ``args`` into one string, each word as
  ``" %s "`` with no quoting (``convertCmdToString``), and replaces them with ``/bin/bash -c --`` (``-lc``
  when the operator runs with ENABLE_LOGIN_SHELL, unknown here: not modelled) and the one argument
  ``"<joined> && ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; <ray start ...>"``. So a server command
  runs before ``ray start``, and a word with spaces (a ``bash -c`` script) is split again by bash. The
  generated ``ray start`` is written here as ``$KUBERAY_GEN_RAY_START_CMD``, the variable KubeRay sets to
  that same text (``setContainerEnvVars``), rather than rebuilt from ``rayStartParams``: no server setting
  depends on it;
- ``setContainerEnvVars``, in the Ray container only: ``RAY_CLUSTER_NAME`` (the label ``ray.io/cluster``:
  a RayCluster's name; the cluster a RayJob or RayService makes has a generated one),
  ``RAY_CLUSTER_NAMESPACE``, ``RAY_CLOUD_INSTANCE_ID`` (the pod's name), ``RAY_NODE_TYPE_NAME`` (the
  group's label), ``RAY_PORT`` (6379 unless set), ``KUBERAY_GEN_RAY_START_CMD``; in a worker also
  ``FQ_RAY_IP`` and ``RAY_IP`` (the head service's name);
- a RayJob's ``spec.entrypoint`` (a single command: from KubeRay 1.3.0 on, its submitter pastes the
  entrypoint unquoted into ``bash -c '... ray job submit ... -- <entrypoint> ;'`` (common/job.go), so a
  ``;``/``&&``/``|`` list is ended there and its later commands run in the submitter pod, TP109; before
  1.3.0 it was sent whole, kuberay#3802) runs on the head pod as a shell command (Ray's job supervisor:
  ``/bin/sh``, the Ray Jobs CLI reference's "``/bin/sh: 1: python script.py: not found``"), in the Ray
  container's environment with ``spec.runtimeEnvYAML``'s ``env_vars`` added: read as one more container of
  the head pod.
"""

from __future__ import annotations

from argtrace.layers.transport.pods import PodSpec, _int, _map, _node_seq, _text
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _load_yaml_nodes, _scalar, _seq
from argtrace.model import Evidence, Finding, Placement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KINDS = frozenset({"RayCluster", "RayJob", "RayService"})
_OVERWRITE = "ray.io/overwrite-container-cmd"
_GENERATED = "ulimit -n ${RAY_START_ULIMIT_OPEN_FILES:-65536}; $KUBERAY_GEN_RAY_START_CMD"
_HEAD_GROUP = "headgroup"  # the ray.io/group label of the head pod (utils.RayNodeHeadGroupLabelValue)


def ray_pods(doc: Any) -> list[PodSpec]:
    """The head and worker pods of a RayCluster, RayJob or RayService (a RayJob's entrypoint as one more
    container of its head pod)."""
    kind, spec = _scalar(_get(doc, "kind")) or "", _get(doc, "spec")
    name = _scalar(_get(_get(doc, "metadata"), "name")) or "?"
    cluster = _cluster(kind, spec)
    # a RayJob or RayService makes its cluster with a generated name; a RayCluster's pods carry its own
    cluster_name = name if kind == "RayCluster" else None
    out: list[PodSpec] = []
    head = _get(cluster, "headGroupSpec")
    groups = _seq(_get(cluster, "workerGroupSpecs")) or []
    # the Ray cluster's nodes: vLLM's Ray executor places its ranks over all of them (nodescope.gpus_needed)
    counts = [_int(_get(group, "replicas")) for group in groups]
    nodes = 1 + sum(c for c in counts if c is not None) if None not in counts else None
    if head is not None and (pod := _ray_pod(kind, name, head, None, cluster_name, nodes)) is not None:
        if kind == "RayJob" and (entry := _entrypoint(spec, pod)) is not None:
            # the entrypoint runs under the Ray container's processes: its environment and KubeRay's variables
            ray_name = next(iter(pod.per_container))
            per_container = {**pod.per_container, "entrypoint": pod.per_container[ray_name]}
            pod = PodSpec(pod.spec, pod.placement, per_container=per_container, extra_containers=(entry,))
        out.append(pod)
    for group in groups:
        role = _scalar(_get(group, "groupName")) or "worker"
        if (pod := _ray_pod(kind, name, group, role, cluster_name, nodes)) is not None:
            out.append(pod)
    return out


def _cluster(kind: str, spec: Any) -> Any:
    """The RayCluster spec of a RayCluster (its own), a RayJob (``rayClusterSpec``) or a RayService
    (``rayClusterConfig``)."""
    if kind == "RayCluster":
        return spec
    return _get(spec, {"RayJob": "rayClusterSpec", "RayService": "rayClusterConfig"}.get(kind, ""))


def _rewritten(template: Any) -> tuple[Any, list[Any]] | None:
    """The Ray container of a group's pod template and the words of its command and args, when KubeRay
    replaces them (BuildPod); None when it leaves them as written."""
    containers = _seq(_get(_get(template, "spec"), "containers")) or []
    if not containers:
        return None
    ray = containers[0]
    annotations = _get(_get(template, "metadata"), "annotations")
    if (_scalar(_get(annotations, _OVERWRITE)) or "").lower() == "true":
        return None
    words = [w for key in ("command", "args") for w in _seq(_get(ray, key)) or []]
    if "ray start" in "".join(f" {_scalar(w) or ''} " for w in words):
        return None
    return ray, words


def ray_findings(doc: Any, label: str) -> list[Finding]:
    """TP108: a word of a Ray container's command with a space in it, which KubeRay's rewrite splits again."""
    from argtrace.rules.rayserve import TP108

    kind = _scalar(_get(doc, "kind")) or ""
    cluster = _cluster(kind, _get(doc, "spec"))
    groups = [_get(cluster, "headGroupSpec"), *(_seq(_get(cluster, "workerGroupSpecs")) or [])]
    out = _entrypoint_findings(_get(doc, "spec"), label) if kind == "RayJob" else []
    for group in groups:
        found = _rewritten(_get(group, "template"))
        if found is None:
            continue
        ray, words = found
        texts = [_scalar(w) or "" for w in words]
        # the program word itself written as shell text (`command: ['/bin/bash -c "a && b &"']`, vLLM's
        # production-stack RayCluster) runs only because KubeRay hands it to a shell: not a word it loses;
        # an argument with a space in it is
        split = next((i for i, t in enumerate(texts) if i > 0 and len(t.split()) > 1), None)
        if split is None:
            continue
        word = texts[split]
        shell_c = (
            split >= 2
            and texts[0].rsplit("/", 1)[-1] in ("bash", "sh", "dash")
            and texts[split - 1].startswith("-")
            and "c" in texts[split - 1]
        )
        if shell_c:
            first, rest = word.split(None, 1)
            lost = (
                f"`{texts[0]} -c` runs only `{first}`, and `{rest}` become its `$0`, `$1`...: the server "
                "never gets them"
            )
        else:
            lost = f"`{word}` reaches `{texts[0]}` as {len(word.split())} words, not one"
        name = _scalar(_get(ray, "name")) or "the Ray container"
        at = _line(label, words[split])
        out.append(
            TP108.finding(
                f"KubeRay runs container {name}'s command and args joined with spaces, unquoted, as "
                f"`/bin/bash -c -- '{' '.join(texts)} && ulimit ...; ray start ...'` (its command does not "
                f'say `ray start` and its pod template has no `{_OVERWRITE}: "true"` annotation): {lost}',
                at=at,
                evidence=[Evidence("transport", at, word[:200])],
            )
        )
    return out


# commands whose running in the submitter pod instead of the cluster changes nothing the job does
_HARMLESS = frozenset({"echo", "printf", "true", ":", "sleep", "wait", "exit", "date"})


def _entrypoint_findings(spec: Any, label: str) -> list[Finding]:
    """TP109: a RayJob entrypoint that the submitter's ``bash -c`` ends at a list operator."""
    from argtrace.rules.rayserve import TP109

    entry = _get(spec, "entrypoint")
    text = (_scalar(entry) or "").strip()  # strings.TrimSpace
    cut = _list_operator(text)
    if cut is None:
        return []
    sent, rest = text[:cut].strip(), text[cut:]
    later = [c for c in _commands(rest) if c]
    if not sent or not later:
        return []
    moved = [c for c in later if c.split()[0] not in _HARMLESS]
    at = _line(label, entry)
    ran = "; ".join(f"`{c[:120]}`" for c in (moved or later))
    return [
        TP109.finding(
            f"Only `{sent[:200]}` of the RayJob's entrypoint reaches the cluster: {ran} "
            f"{'runs' if len(moved or later) == 1 else 'run'} in KubeRay's job submitter pod, without the "
            "cluster's GPUs (from KubeRay 1.3.0 on, which the manifest does not name, the submitter runs "
            f"`bash -c '... ray job submit ... -- {text[:200]} ;'`, the entrypoint pasted in unquoted)",
            at=at,
            severity="warning" if moved else "info",
            evidence=[Evidence("transport", at, text[:200])],
        )
    ]


def _list_operator(text: str) -> int | None:
    """Where bash ends the first command of ``text``: its first ``;``, ``&``, ``|`` or newline outside
    quotes, expansions and comments (a redirection's ``&``, ``2>&1`` or ``&>``, is not one); None when the
    text is one command."""
    from argtrace.layers.shell.lexer import LexError, skip_quoted

    i, n = 0, len(text)
    try:
        while i < n:
            j = skip_quoted(text, i, n, ansi=True, backtick=True)
            if j != i:
                i = j
                continue
            c = text[i]
            if c == "#" and (i == 0 or text[i - 1] in " \t"):
                end = text.find("\n", i)
                if end < 0:
                    return None
                i = end
                continue
            if c in ";|\n" or (c == "&" and text[i - 1 : i] not in (">", "<") and text[i + 1 : i + 2] != ">"):
                return i
            i += 1
    except LexError:
        return None  # an unterminated quote: bash refuses the whole submit, not this rule's case
    return None


def _commands(text: str) -> list[str]:
    """The commands of a list (``text`` from an operator on), each stripped, operators dropped."""
    out = []
    while text:
        text = text.lstrip(";&|\n \t")
        cut = _list_operator(text)
        out.append((text if cut is None else text[:cut]).strip())
        text = "" if cut is None else text[cut:]
    return out


def _ray_pod(
    kind: str, name: str, group: Any, role: str | None, cluster_name: str | None, nodes: int | None
) -> PodSpec | None:
    template = _get(group, "template")
    spec = _get(template, "spec")
    containers = _seq(_get(spec, "containers")) or []
    if not containers:
        return None
    ray = containers[0]
    if (rewritten := _rewritten(template)) is not None:
        joined = "".join(f" {_scalar(w) or ''} " for w in rewritten[1])  # convertCmdToString
        at = _get(ray, "args") or _get(ray, "command") or ray
        command = _node_seq(at, [_text(at, w) for w in ("/bin/bash", "-c", "--")])
        args = _node_seq(at, [_text(at, f"{joined} && {_GENERATED}" if joined else _GENERATED)])
        kept = [(k, v) for k, v in _items(ray) if k not in ("command", "args")]
        ray = _map(ray, [*kept, ("command", command), ("args", args)])
        rest = [(k, v) for k, v in _items(spec) if k != "containers"]
        spec = _map(
            spec, [*rest, ("containers", _node_seq(_get(spec, "containers"), [ray, *containers[1:]]))]
        )
    head = role is None
    params = _get(group, "rayStartParams")
    variables: dict[str, str | None] = {
        "RAY_CLUSTER_NAME": cluster_name,
        "RAY_CLUSTER_NAMESPACE": None,
        "RAY_CLOUD_INSTANCE_ID": None,
        "RAY_NODE_TYPE_NAME": _HEAD_GROUP if head else role,
        "KUBERAY_GEN_RAY_START_CMD": None,
    }
    if not head:
        variables.update({"FQ_RAY_IP": None, "RAY_IP": None})
    if not any(_scalar(_get(e, "name")) == "RAY_PORT" for e in _seq(_get(ray, "env")) or []):
        variables["RAY_PORT"] = _scalar(_get(params, "port")) or "6379"
    replicas = 1 if head else _int(_get(group, "replicas"))
    placement = Placement(kind, name, role="head" if head else role, replicas=replicas, nodes=nodes)
    return PodSpec(spec, placement, per_container={_scalar(_get(ray, "name")) or "": variables})


def _entrypoint(spec: Any, head: PodSpec) -> Any:
    """A RayJob's ``entrypoint`` as a container of the head pod: the Ray container's image and environment,
    the runtime environment's ``env_vars`` added, the text run by ``/bin/sh -c``."""
    entry = _get(spec, "entrypoint")
    text = _scalar(entry)
    containers = _seq(_get(head.spec, "containers")) or []
    if not text or not containers:
        return None
    ray = containers[0]
    env = list(_seq(_get(ray, "env")) or [])
    for key, value in _runtime_env_vars(spec):
        env.append(_map(value, [("name", key), ("value", value)]))
    items = [(k, v) for k, v in _items(ray) if k in ("image", "envFrom", "resources", "workingDir")]
    items += [("env", _node_seq(entry, env))] if env else []
    command = _node_seq(entry, [_text(entry, "/bin/sh"), _text(entry, "-c"), entry])
    return _map(entry, [("name", _text(entry, "entrypoint")), *items, ("command", command)])


def _runtime_env_vars(spec: Any) -> list[tuple[Any, Any]]:
    """``spec.runtimeEnvYAML``'s ``env_vars`` (a YAML text inside the manifest, read with its lines):
    (name node, value node) pairs."""
    from argtrace.model import UsageError

    node = _get(spec, "runtimeEnvYAML")
    text = _scalar(node)
    if node is None or not text:
        return []
    shift = node.start_mark.line + (1 if getattr(node, "style", None) in ("|", ">") else 0)
    try:
        nodes = _load_yaml_nodes(("\n" * shift + text).encode(), "runtimeEnvYAML").nodes
    except UsageError:
        return []
    found = _get(nodes[0] if nodes else None, "env_vars")
    return [(key, value) for key, value in _pairs(found) if _scalar(value) is not None]


def _pairs(node: Any) -> list[tuple[Any, Any]]:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    return [
        (k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)
    ]
