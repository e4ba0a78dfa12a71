"""The pod specs of a Kubernetes document: which pods each resource starts, and what the cluster tells them.

This module owns finding the pod specs (the ``containers:`` lists) of every kind argtrace reads, with the
resource's placement of them (``model.Placement``: kind, name, role, replicas, ordinal, GPUs) and the
variables and downward-API fields the cluster sets in their containers beyond their own ``env``:

- workloads: Pod, Job (an Indexed Job's pods read once per completion index, like StatefulSet ordinals),
  CronJob, Deployment, ReplicaSet, DaemonSet, StatefulSet, LeaderWorkerSet;
- serving resources that embed pod specs (their rendered ``helm template`` output is read the same way):
  KServe ``InferenceService`` (``spec.predictor``, its ``workerSpec``), ``ServingRuntime`` /
  ``ClusterServingRuntime`` (``spec``, ``spec.workerSpec``), ``LLMInferenceService`` (``spec.template``,
  ``spec.worker``, ``spec.prefill.template``/``worker``); NVIDIA Dynamo ``DynamoGraphDeployment``
  (each ``spec.services.NAME.extraPodSpec`` with its ``mainContainer``; a multi-node SGLang or vLLM
  worker as the leader and worker pods Dynamo's operator makes of it, with the flags it adds); llm-d's
  ``ModelService`` CR (``spec.decode``, ``spec.prefill``). llm-d's Helm chart renders Deployments and
  LeaderWorkerSets, read as workloads.

StatefulSet pods have stable identities (Kubernetes docs, "StatefulSets", Pod Identity): pod ``NAME-i``
for ordinals ``i`` from ``spec.ordinals.start`` (default 0) to ``start + replicas - 1``, hostname the pod
name, and the label ``apps.kubernetes.io/pod-index: i`` (Kubernetes 1.28+) and
``statefulset.kubernetes.io/pod-name``. A pod spec that reads its identity (a downward-API ``fieldRef`` to
one of them or to ``metadata.name``, or ``HOSTNAME`` in its command) gives each replica another argv: then
it is read once per ordinal, each with its own values, so the replicas are compared like nodes. A pod spec
that does not gives every replica the same argv (as a Deployment always does: its pods have random names
and no ordinal), read once with ``replicas`` set.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq
from argtrace.model import Placement

# Read once per ordinal up to this many replicas; a bigger StatefulSet is read once, its ordinals unknown.
MAX_ORDINALS = 64
# The downward-API field paths that name a StatefulSet pod's identity.
POD_INDEX = "metadata.labels['apps.kubernetes.io/pod-index']"
POD_NAME_LABEL = "metadata.labels['statefulset.kubernetes.io/pod-name']"
_IDENTITY_FIELDS = (POD_INDEX, POD_NAME_LABEL, "metadata.name")
_POD_NAME_KEY = "statefulset.kubernetes.io/pod-name"

# The LeaderWorkerSet controller sets these in every container of the leader and worker pods (its API
# docs, "Environment variables"; constants LwsLeaderAddress, LwsGroupSize, LwsWorkerIndex in
# kubernetes-sigs/lws pkg/utils/controller): the kubelet then expands $(LWS_...) references to them.
# Their values follow from the manifest where LWS defines them so (kubernetes-sigs/lws README, "Unique pod
# identity: each pod in the group has a unique index from 0 to n-1", the leader being index 0 and the
# workers the worker StatefulSet's ordinals 1..size-1): LWS_GROUP_SIZE is `leaderWorkerTemplate.size`
# (default 1), LWS_WORKER_INDEX is 0 in the leader template and each worker's own in the worker template;
# LWS_LEADER_ADDRESS is the leader pod's DNS name, known only in the cluster.
_LWS_INJECTED = ("LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX")


@dataclass(frozen=True)
class PodSpec:
    """One pod spec to read: its node, the variables the cluster sets in its containers (name -> value,
    ``None`` when only the cluster knows it), the downward-API fields known for this pod (fieldPath ->
    value), extra containers outside ``containers:`` (Dynamo's ``mainContainer``) and its placement."""

    spec: Any
    placement: Placement
    injected: dict[str, str | None] = field(default_factory=dict)
    fields: dict[str, str] = field(default_factory=dict)
    extra_containers: tuple[Any, ...] = ()


def _int(node: Any) -> int | None:
    text = _scalar(node)
    return int(text) if text is not None and text.isdigit() else None


def _name(doc: Any) -> str:
    return _scalar(_get(_get(doc, "metadata"), "name")) or "?"


def _lws_values(lws: Any, template: str) -> dict[str, str | None]:
    size = _scalar(_get(lws, "size"))
    values: dict[str, str | None] = dict.fromkeys(_LWS_INJECTED)
    if size is None or size.isdigit():  # a templated size ("{{ .Values.size }}") stays unknown
        values["LWS_GROUP_SIZE"] = size or "1"
    if template == "leaderTemplate":
        values["LWS_WORKER_INDEX"] = "0"
    return values


def container_gpus(container: Any, label: str) -> tuple[int | None, str | None]:
    """The GPUs a container requests: ``resources.limits`` (or ``requests``) ``nvidia.com/gpu`` (or
    ``amd.com/gpu``), with where; ``(None, None)`` when it requests none or a value that is not a number."""
    resources = _get(container, "resources")
    for part in ("limits", "requests"):
        for key in ("nvidia.com/gpu", "amd.com/gpu"):
            node = _get(_get(resources, part), key)
            if node is not None:
                count = _int(node)
                return (count, _line(label, node)) if count is not None else (None, None)
    return None, None


def _reads_identity(spec: Any, extra: tuple[Any, ...] = ()) -> bool:
    """Whether a pod spec's containers read the pod's identity (so each StatefulSet replica differs)."""
    for container in [*(_seq(_get(spec, "containers")) or []), *extra]:
        for item in _seq(_get(container, "env")) or []:
            path = _scalar(_get(_get(_get(item, "valueFrom"), "fieldRef"), "fieldPath"))
            if path is not None and path.replace('"', "'") in _IDENTITY_FIELDS:
                return True
        for name in ("command", "args"):
            if any("HOSTNAME" in (_scalar(i) or "") for i in _seq(_get(container, name)) or []):
                return True
    return False


def _statefulset(doc: Any, spec: Any) -> Iterator[PodSpec]:
    name = _name(doc)
    pod_spec = _get(_get(spec, "template"), "spec")
    replicas = _int(_get(spec, "replicas"))
    if _get(spec, "replicas") is None:
        replicas = 1  # the API's default
    start = _int(_get(_get(spec, "ordinals"), "start")) or 0
    if replicas is not None and 1 < replicas <= MAX_ORDINALS and _reads_identity(pod_spec):
        for ordinal in range(start, start + replicas):
            pod = f"{name}-{ordinal}"
            fields = {POD_INDEX: str(ordinal), POD_NAME_LABEL: pod, "metadata.name": pod}
            placement = Placement("StatefulSet", name, replicas=replicas, ordinal=ordinal, pod=pod)
            # the container's hostname is the pod's name; bash sets HOSTNAME from it in any case
            yield PodSpec(pod_spec, placement, {"HOSTNAME": pod}, fields)
        return
    yield PodSpec(pod_spec, Placement("StatefulSet", name, replicas=replicas))


# An Indexed Job's pods get their completion index 0..completions-1 (Kubernetes docs, "Jobs", Completion
# mode): as the annotation and (1.28+) label batch.kubernetes.io/job-completion-index, in the hostname
# $(job-name)-$(index), and in the env var JOB_COMPLETION_INDEX of every container.
_JOB_INDEX_KEY = "batch.kubernetes.io/job-completion-index"
_JOB_INDEX_FIELDS = (f"metadata.annotations['{_JOB_INDEX_KEY}']", f"metadata.labels['{_JOB_INDEX_KEY}']")


def _indexed_job(doc: Any, spec: Any) -> Iterator[PodSpec]:
    name = _name(doc)
    pod_spec = _get(_get(spec, "template"), "spec")
    completions = _int(_get(spec, "completions"))
    reads = _reads_identity(pod_spec) or _reads_text(pod_spec, "JOB_COMPLETION_INDEX")
    if completions is not None and 1 < completions <= MAX_ORDINALS and reads:
        for index in range(completions):
            pod = f"{name}-{index}"
            placement = Placement("Job", name, replicas=completions, ordinal=index, pod=pod)
            injected: dict[str, str | None] = {"JOB_COMPLETION_INDEX": str(index), "HOSTNAME": pod}
            yield PodSpec(pod_spec, placement, injected, dict.fromkeys(_JOB_INDEX_FIELDS, str(index)))
        return
    injected = {"JOB_COMPLETION_INDEX": None}  # set in every container, each pod its own
    yield PodSpec(pod_spec, Placement("Job", name, replicas=completions), injected)


def _reads_text(spec: Any, word: str) -> bool:
    """Whether a container's command, args or env values of ``spec`` mention ``word``."""
    for container in _seq(_get(spec, "containers")) or []:
        items = [*(_seq(_get(container, "command")) or []), *(_seq(_get(container, "args")) or [])]
        items += [_get(e, "value") for e in _seq(_get(container, "env")) or []]
        if any(word in (_scalar(i) or "") for i in items):
            return True
    return False


def _dynamo(doc: Any, spec: Any, label: str) -> Iterator[PodSpec]:
    """DynamoGraphDeployment (nvidia.com/v1alpha1): one pod spec per service, ``extraPodSpec`` with its
    ``mainContainer``; ``replicas``, ``multinode.nodeCount`` (the pods one replica spans) and the service's
    ``resources.limits.gpu`` (GPUs per pod). ``spec.envs`` and the service's ``envs`` reach every
    container (Dynamo's CRD reference)."""
    name = _name(doc)
    shared = _env_values(_get(spec, "envs"))
    for service, node in _items(_get(spec, "services")):
        extra = _get(node, "extraPodSpec")
        main = _get(extra, "mainContainer")
        gpu_node = _get(_get(_get(node, "resources"), "limits"), "gpu")
        placement = Placement(
            "DynamoGraphDeployment",
            name,
            role=service,
            replicas=_int(_get(node, "replicas")),
            gpus=_int(gpu_node),
            gpus_at=_line(label, gpu_node) if gpu_node is not None else None,
            nodes=_int(_get(_get(node, "multinode"), "nodeCount")),
        )
        injected = {**shared, **_env_values(_get(node, "envs"))}
        nodes = placement.nodes or 1
        backend = _scalar(_get(spec, "backendFramework"))
        sglang = backend == "sglang" or (
            backend is None and main is not None and _mentions(main, "dynamo.sglang")
        )
        if main is not None and nodes > 1 and sglang:
            yield from _dynamo_sglang_nodes(extra, main, placement, injected, service, nodes)
            continue
        vllm = backend == "vllm" or (backend is None and main is not None and _mentions(main, "dynamo.vllm"))
        if main is not None and nodes > 1 and vllm:
            annotations = {**_annotations(doc), **_annotations(node)}
            pods = _dynamo_vllm_nodes(extra, main, placement, injected, service, nodes, annotations)
            rewritten = list(pods)
            if rewritten:
                yield from rewritten
                continue
        yield PodSpec(extra, placement, injected, extra_containers=(main,) if main is not None else ())


def runs_module(container: Any, module: str) -> bool:
    """Whether a container's command and args run ``python -m module`` (as separate words)."""
    words = [_scalar(i) or "" for part in ("command", "args") for i in _seq(_get(container, part)) or []]
    return any(w == module and words[i - 1] == "-m" for i, w in enumerate(words) if i > 0)


def _mentions(container: Any, text: str) -> bool:
    return any(
        text in (_scalar(i) or "") for part in ("command", "args") for i in _seq(_get(container, part)) or []
    )


# Dynamo's operator adds the multi-node flags to the SGLang worker of a service with multinode.nodeCount
# N > 1 (ai-dynamo/dynamo deploy/operator/internal/dynamo/backend_sglang.go, getMultinodeFlags:
# "--dist-init-addr %s --nnodes %d --node-rank %s", the address the leader's host name and SglangPort
# 29500, the rank 0 on the leader and each worker pod's own on the workers). The leader's host name and a
# worker's rank come from the multinode deployer (LeaderWorkerSet: $(LWS_LEADER_ADDRESS) and
# $(LWS_WORKER_INDEX), written so here; Grove: its own variables, with the same values): known only in the
# cluster. Where they go (injectFlagsIntoContainerCommand): a container whose command is a Python
# interpreter gets them appended to its args; otherwise each arg is searched with
# ``(python[0-9.]*\s+[^|&;]*sglang[^|&;]*?)(\s|$|[|&;])`` and the flags inserted after the first match's
# command part (so right after ``python3 -m dynamo.sglang`` in an ``sh -c`` script), in the first arg that
# matches; a container that matches neither gets none.
_DYNAMO_SGLANG_PORT = "29500"
_PYTHON_COMMAND = re.compile(r"^(.*/)?(python\d*(\.\d+)*)$")
# injectFlagsIntoPythonCommand's pattern, the framework ("sglang", "vllm") in it
_IN_SHELL = r"(python[0-9.]*\s+[^|&;]*{framework}[^|&;]*?)(\s|\Z|[|&;])"


def _dynamo_sglang_nodes(
    extra: Any, main: Any, placement: Placement, injected: dict[str, str | None], service: str, nodes: int
) -> Iterator[PodSpec]:
    from dataclasses import replace

    for role, rank, copies in (("leader", "0", 1), ("worker", "$(LWS_WORKER_INDEX)", nodes - 1)):
        flags = ["--dist-init-addr", f"$(LWS_LEADER_ADDRESS):{_DYNAMO_SGLANG_PORT}", "--nnodes", str(nodes)]
        container = _with_flags(main, [*flags, "--node-rank", rank])
        pod = replace(placement, replicas=copies, pod=f"{placement.name}/{service} {role}")
        cluster: dict[str, str | None] = {"LWS_LEADER_ADDRESS": None, "LWS_WORKER_INDEX": None}
        yield PodSpec(extra, pod, {**injected, **cluster}, extra_containers=(container,))


# Dynamo's operator rewrites a multi-node vLLM worker (ai-dynamo/dynamo, commit
# 003d1ee5de27986d5265b7a4bedb1e9241974034, deploy/operator/internal/dynamo/backend_vllm.go,
# updateVLLMMultinodeArgs). It reads the sizes from the container's args only, each arg split at blanks
# (getExpandedArgs), as `FLAG VALUE` (getFlagValue: the first FLAG followed by an integer, else 1; a
# `--tensor-parallel-size=2` is not seen), against the service's GPUs (containerGPUs, 0: no rewrite):
# - tp x pp above the GPUs (needsTensorParallelMultinodeLaunch): one engine over the pods. With the mp
#   backend (injectMpDistributedLaunchFlags) the leader gets `--distributed-executor-backend mp --nnodes N
#   --master-addr LEADER --master-port 29500 --node-rank 0` and each worker the same with `--node-rank RANK
#   --headless`; with Ray (injectRayDistributedLaunchFlags) the leader runs `ray start --head --port=6379 &&
#   CMD ARGS --distributed-executor-backend ray` under /bin/sh -c and the workers only `ray start
#   --address=LEADER:6379 --block` (no server). mp unless the annotation
#   nvidia.com/vllm-distributed-executor-backend says ray (shouldUseMpBackend), or the resource was created
#   by an operator older than 1.0.0 (compatibility.VLLMMultiprocessing: the webhook stamps
#   nvidia.com/dynamo-operator-origin-version at creation; absent here, the operator applying it is taken
#   to be 1.0.0 or newer).
# - else with --enable-elastic-ep: a Ray cluster for elastic EP (not read here: the worker kept as written);
# - else tp x pp x dp above the GPUs (needsDataParallelMultinodeLaunch): hybrid data parallel
#   (injectDataParallelLaunchFlags): every pod `--data-parallel-hybrid-lb [--data-parallel-size TOTAL]
#   --data-parallel-size-local GPUS/(tp x pp) --data-parallel-start-rank 0|$(( LOCAL * RANK ))
#   --data-parallel-address LEADER --data-parallel-rpc-port 13445`, TOTAL (only when the args give no
#   --data-parallel-size) LOCAL x N; the worker's arithmetic needs a shell (`sh -c "exec CMD ARGS FLAGS"`).
# LEADER and RANK come from the multinode deployer, written as LWS's $(LWS_LEADER_ADDRESS) and
# $(LWS_WORKER_INDEX) (known only in the cluster), as for SGLang.
_VLLM_RAY_PORT = "6379"
_VLLM_MP_PORT = "29500"
_VLLM_DP_RPC_PORT = "13445"
_LEADER = "$(LWS_LEADER_ADDRESS)"
_RANK = "$(LWS_WORKER_INDEX)"
_GO_INT = re.compile(r"[+-]?[0-9]+")


def _annotations(node: Any) -> dict[str, str]:
    pairs = _items(_get(_get(node, "metadata"), "annotations")) or _items(_get(node, "annotations"))
    return {key: _scalar(value) or "" for key, value in pairs}


def _go_flag_value(words: list[str], flag: str) -> int:
    """backend_vllm.go getFlagValue: the first ``FLAG N`` with an integer N, else 1."""
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words) and _GO_INT.fullmatch(words[i + 1]):
            return int(words[i + 1])
    return 1


def _operator_uses_mp(annotations: dict[str, str]) -> bool:
    override = annotations.get("nvidia.com/vllm-distributed-executor-backend", "").lower()
    if override in ("mp", "ray"):
        return override == "mp"
    origin = re.match(r"v?(\d+)\.", annotations.get("nvidia.com/dynamo-operator-origin-version", ""))
    return origin is None or int(origin.group(1)) >= 1


def _dynamo_vllm_nodes(
    extra: Any,
    main: Any,
    placement: Placement,
    injected: dict[str, str | None],
    service: str,
    nodes: int,
    annotations: dict[str, str],
) -> Iterator[PodSpec]:
    from dataclasses import replace

    import yaml

    args = [w for i in _seq(_get(main, "args")) or [] for w in (_scalar(i) or "").split()]
    gpus = placement.gpus or 0
    world = _go_flag_value(args, "--tensor-parallel-size") * _go_flag_value(args, "--pipeline-parallel-size")
    if gpus == 0:
        return
    cluster: dict[str, str | None] = {"LWS_LEADER_ADDRESS": None, "LWS_WORKER_INDEX": None}
    roles: list[tuple[str, int, Any]] = []
    if world > gpus and _operator_uses_mp(annotations):
        flags = ["--distributed-executor-backend", "mp", "--nnodes", str(nodes), "--master-addr", _LEADER]
        flags += ["--master-port", _VLLM_MP_PORT]
        roles.append(("leader", 1, _with_flags(main, [*flags, "--node-rank", "0"], "vllm")))
        worker = _with_flags(main, [*flags, "--node-rank", _RANK, "--headless"], "vllm")
        roles.append(("worker", nodes - 1, worker))
    elif world > gpus:
        words = [_scalar(i) or "" for part in ("command", "args") for i in _seq(_get(main, part)) or []]
        command = [_scalar(i) or "" for i in _seq(_get(main, "command")) or []]
        quoted = " ".join(_go_quote(w) for w in command)
        quoted_args = " ".join(_go_quote(w) for w in words[len(command) :])
        head = f"ray start --head --port={_VLLM_RAY_PORT}"
        line = f"{head} && {quoted} {quoted_args} --distributed-executor-backend ray"
        roles.append(("leader", 1, _rewritten(main, ["/bin/sh", "-c"], [line], yaml)))
        join = f"ray start --address={_LEADER}:{_VLLM_RAY_PORT} --block"
        roles.append(("worker", nodes - 1, _rewritten(main, ["/bin/sh", "-c"], [join], yaml)))
    elif "--enable-elastic-ep" in args:
        return
    elif world * _go_flag_value(args, "--data-parallel-size") > gpus:
        local = gpus // world
        total = [] if "--data-parallel-size" in args else ["--data-parallel-size", str(local * nodes)]
        tail = ["--data-parallel-address", _LEADER, "--data-parallel-rpc-port", _VLLM_DP_RPC_PORT]
        lead = ["--data-parallel-hybrid-lb", *total, "--data-parallel-size-local", str(local)]
        leader = _with_flags(main, [*lead, "--data-parallel-start-rank", "0", *tail], "vllm")
        roles.append(("leader", 1, leader))
        start = f"$(( {local} * {_RANK} ))"
        worker = _with_flags(main, [*lead, "--data-parallel-start-rank", start, *tail], "vllm", shell=True)
        roles.append(("worker", nodes - 1, worker))
    else:
        return
    for role, copies, container in roles:
        pod = replace(placement, replicas=copies, pod=f"{placement.name}/{service} {role}")
        yield PodSpec(extra, pod, {**injected, **cluster}, extra_containers=(container,))


def _go_quote(word: str) -> str:
    """backend_vllm.go shellQuoteForBashC: a word with a blank or shell character in double quotes."""
    if any(c in word for c in " \t\n'\"\\{}[]$`!"):
        escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
        return '"' + escaped.replace("'", "'\"'\"'") + '"'
    return word


def _rewritten(container: Any, command: list[str], args: list[str], yaml: Any) -> Any:
    """A copy of a container (YAML node) whose command and args the operator replaced (marks kept)."""
    str_tag, seq_tag, map_tag = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
    anchor = _get(container, "args") or _get(container, "command") or container
    mark = anchor.start_mark, anchor.end_mark
    pairs = [
        (k, v)
        for k, v in container.value
        if not (isinstance(k, yaml.ScalarNode) and k.value in ("command", "args"))
    ]
    for key, words in (("command", command), ("args", args)):
        items = [yaml.ScalarNode(str_tag, w, *mark) for w in words]
        pairs.append((yaml.ScalarNode(str_tag, key, *mark), yaml.SequenceNode(seq_tag, items, *mark)))
    return yaml.MappingNode(map_tag, pairs, container.start_mark, container.end_mark)


def _with_flags(container: Any, words: list[str], framework: str = "sglang", shell: bool = False) -> Any:
    """A copy of a container (YAML node) with the operator's flags where it puts them (marks kept)."""
    import yaml

    str_tag, seq_tag, map_tag = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
    old = _get(container, "args")
    items = list(_seq(old) or [])
    command = [_scalar(i) or "" for i in _seq(_get(container, "command")) or []]
    anchor = old if old is not None else (_get(container, "command") or container)
    if command and _PYTHON_COMMAND.match(command[0]) and shell:
        # a rank only a shell computes: `sh -c "exec CMD ARGS FLAGS"`, each word quoted as the operator does
        quoted = " ".join(_go_quote(w) for w in [*command, *(_scalar(i) or "" for i in items)])
        return _rewritten(container, ["sh", "-c"], [f"exec {quoted} {' '.join(words)}"], yaml)
    if command and _PYTHON_COMMAND.match(command[0]):
        items += [yaml.ScalarNode(str_tag, w, anchor.end_mark, anchor.end_mark) for w in words]
    else:
        flags = " ".join(words)
        in_shell = re.compile(_IN_SHELL.format(framework=framework))
        for k, item in enumerate(items):
            text = _scalar(item) or ""
            changed = in_shell.sub(lambda m: f"{m.group(1).strip()} {flags}{m.group(2)}", text)
            if changed != text:
                items[k] = yaml.ScalarNode(str_tag, changed, item.start_mark, item.end_mark, style=item.style)
                break
        else:
            return container
    args = yaml.SequenceNode(seq_tag, items, anchor.start_mark, anchor.end_mark)
    pairs = [(k, v) for k, v in container.value if not (isinstance(k, yaml.ScalarNode) and k.value == "args")]
    pairs.append((yaml.ScalarNode(str_tag, "args", anchor.start_mark, anchor.end_mark), args))
    return yaml.MappingNode(map_tag, pairs, container.start_mark, container.end_mark)


def _env_values(node: Any) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for item in _seq(node) or []:
        key = _scalar(_get(item, "name"))
        if key:
            out[key] = _scalar(_get(item, "value"))
    return out


def pod_specs(doc: Any, label: str) -> list[PodSpec]:
    """The pod specs of one document (a List's items are documents of their own), in manifest order."""
    kind = _scalar(_get(doc, "kind")) or ""
    spec = _get(doc, "spec")
    name = _name(doc)
    if kind == "Pod":
        return [PodSpec(spec, Placement(kind, name))]
    if kind == "CronJob":
        template = _get(_get(_get(spec, "jobTemplate"), "spec"), "template")
        return [PodSpec(_get(template, "spec"), Placement(kind, name))]
    if kind == "StatefulSet":
        return list(_statefulset(doc, spec))
    if kind == "Job" and _scalar(_get(spec, "completionMode")) == "Indexed":
        return list(_indexed_job(doc, spec))
    if kind == "LeaderWorkerSet":
        lws = _get(spec, "leaderWorkerTemplate")
        size = _int(_get(lws, "size")) if _get(lws, "size") is not None else 1
        out = []
        for template, role in (("leaderTemplate", "leader"), ("workerTemplate", "worker")):
            if _get(lws, template):
                copies = 1 if role == "leader" else (size - 1 if size else None)
                placement = Placement(kind, name, role=role, replicas=copies, nodes=size)
                out.append(PodSpec(_get(_get(lws, template), "spec"), placement, _lws_values(lws, template)))
        return out
    if kind == "DynamoGraphDeployment":
        return list(_dynamo(doc, spec, label))
    if kind == "InferenceService":
        predictor = _get(spec, "predictor")
        return _roles(kind, name, ((predictor, "predictor"), (_get(predictor, "workerSpec"), "worker")))
    if kind in ("ServingRuntime", "ClusterServingRuntime"):
        return _roles(kind, name, ((spec, "runtime"), (_get(spec, "workerSpec"), "worker")))
    if kind == "LLMInferenceService":
        prefill = _get(spec, "prefill")
        parts: tuple[tuple[Any, str], ...] = ((_get(spec, "template"), "decode"),)
        parts += ((_get(spec, "worker"), "worker"),)
        parts += ((_get(prefill, "template"), "prefill"), (_get(prefill, "worker"), "prefill-worker"))
        return _roles(kind, name, parts, replicas=_int(_get(spec, "replicas")))
    if kind == "ModelService":
        parts = ((_get(spec, "decode"), "decode"), (_get(spec, "prefill"), "prefill"))
        return _roles(kind, name, parts, per_role_replicas=True)
    template = _get(spec, "template")
    if template is None:
        return []
    replicas = _int(_get(spec, "replicas")) if kind in ("Deployment", "ReplicaSet") else None
    if kind in ("Deployment", "ReplicaSet") and _get(spec, "replicas") is None:
        replicas = 1
    # only StatefulSet pods get the pod-index and pod-name labels from their controller: a fieldRef to a
    # label the pod does not have gives the empty string (the kubelet reads the pod's labels map: a missing
    # key is ""), unless the template sets it itself
    labels = _get(_get(template, "metadata"), "labels")
    missing = {
        path: _scalar(_get(labels, key)) or ""
        for path, key in ((POD_INDEX, "apps.kubernetes.io/pod-index"), (POD_NAME_LABEL, _POD_NAME_KEY))
    }
    return [PodSpec(_get(template, "spec"), Placement(kind, name, replicas=replicas), fields=missing)]


def _roles(
    kind: str,
    name: str,
    parts: tuple[tuple[Any, str], ...],
    replicas: int | None = None,
    per_role_replicas: bool = False,
) -> list[PodSpec]:
    """The pod specs a serving resource embeds under role names, those that hold ``containers``."""
    out = []
    for node, role in parts:
        if node is None or _get(node, "containers") is None:
            continue
        copies = _int(_get(node, "replicas")) if per_role_replicas else replicas
        out.append(PodSpec(node, Placement(kind, name, role=role, replicas=copies)))
    return out
