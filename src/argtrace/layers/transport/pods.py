"""The pod specs of a Kubernetes document: which pods each resource starts, and what the cluster tells them.

This module owns finding the pod specs (the ``containers:`` lists) of every kind argtrace reads, with the
resource's placement of them (``model.Placement``: kind, name, role, replicas, ordinal, GPUs) and the
variables and downward-API fields the cluster sets in their containers beyond their own ``env``:

- workloads: Pod, Job (an Indexed Job's pods read once per completion index, like StatefulSet ordinals),
  JobSet (each replicated job's Job template), CronJob, Deployment, ReplicaSet, DaemonSet, StatefulSet,
  LeaderWorkerSet, and the LWS project's DisaggregatedSet (each role a LeaderWorkerSet);
- serving resources that embed pod specs (their rendered ``helm template`` output is read the same way):
  KServe ``InferenceService`` (``spec.predictor``, its ``workerSpec``), ``ServingRuntime`` /
  ``ClusterServingRuntime`` (``spec``, ``spec.workerSpec``), ``LLMInferenceService`` and the
  ``LLMInferenceServiceConfig`` preset of the same shape (``spec.template``, ``spec.worker``,
  ``spec.prefill.template``/``worker``); NVIDIA Dynamo ``DynamoGraphDeployment``
  (each ``spec.services.NAME.extraPodSpec`` with its ``mainContainer``; a multi-node SGLang or vLLM
  worker as the leader and worker pods Dynamo's operator makes of it, with the flags it adds); llm-d's
  ``ModelService`` CR (``spec.decode``, ``spec.prefill``). llm-d's Helm chart renders Deployments and
  LeaderWorkerSets, read as workloads; the groups that name a pod template per role, sgl-project/rbg's
  ``RoleBasedGroup`` and AIBrix's ``StormService`` (``spec.roles[]``, each role's template); sgl-project/ome's
  runtimes and InferenceService (``ome.io``: the engine's and decoder's ``runner``, leader and workers);
  InftyAI/llmaz's inference ``Service`` (its ``workloadTemplate``, a LeaderWorkerSet's). KubeRay's RayCluster,
  RayJob and RayService pods, with the command KubeRay writes, are kuberay.py's.

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

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from argtrace.layers.transport.dynamo_operator import runs_module as runs_module
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq
from argtrace.model import Placement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    # the variables the platform sets in one container only (Knative's PORT: its serving container)
    per_container: dict[str, dict[str, str | None]] = field(default_factory=dict)
    # whether the kubelet's service-link variables are on when the pod spec does not say (Kubernetes: yes;
    # Knative defaults `enableServiceLinks` to false, config-defaults `enable-service-links`)
    service_links: bool = True


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


def _job_set(name: str, spec: Any) -> list[PodSpec]:
    """A JobSet's pods (jobset.x-k8s.io, the Kubernetes SIG's JobSet API): each of ``spec.replicatedJobs``
    runs ``replicas`` Jobs (default 1) of its ``template``, each Job ``parallelism`` pods (default 1) of the
    Job's pod template; read once per replicated job, its pods counted as replicas. JobSet makes its Jobs
    Indexed: JOB_COMPLETION_INDEX is set in every container, each pod its own (not known here)."""
    out = []
    for item in _seq(_get(spec, "replicatedJobs")) or []:
        job = _get(_get(item, "template"), "spec")
        jobs = _int(_get(item, "replicas")) if _get(item, "replicas") is not None else 1
        pods = _int(_get(job, "parallelism")) if _get(job, "parallelism") is not None else 1
        replicas = jobs * pods if jobs is not None and pods is not None else None
        role = _scalar(_get(item, "name")) or "job"
        placement = Placement("JobSet", name, role=role, replicas=replicas)
        out.append(PodSpec(_get(_get(job, "template"), "spec"), placement, {"JOB_COMPLETION_INDEX": None}))
    return out


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
    container (Dynamo's CRD reference). A multi-node SGLang or vLLM worker is read as the leader and worker
    pods the operator makes of it (``dynamo_operator.py``), on its LeaderWorkerSet pathway, with what the
    Grove pathway would run beside it when the file does not rule Grove out."""

    from argtrace.layers.transport import dynamo_operator as op

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
        framework = backend if backend in ("sglang", "vllm") else None
        if backend is None and main is not None:
            framework = next((f for f in ("sglang", "vllm") if op.mentions(main, f"dynamo.{f}")), None)
        roles: dict[str, list[op.Role] | None] = {}
        if main is not None and nodes > 1 and framework is not None:
            notes = {**op.resource_annotations(doc), **op.resource_annotations(node)}
            for deployer in (op.LWS, op.GROVE):
                if framework == "sglang":
                    roles[deployer.name] = op.sglang_roles(main, service, nodes, deployer)
                else:
                    gpus = placement.gpus or 0
                    roles[deployer.name] = op.vllm_roles(main, service, nodes, gpus, notes, deployer)
        lws, grove = roles.get(op.LWS.name), roles.get(op.GROVE.name)
        single = main is not None and nodes == 1 and framework == "vllm"
        head = op.elastic_ep_ray_head(main) if single else None
        if head is not None:
            cluster_ip: dict[str, str | None] = dict.fromkeys(op.ELASTIC_EP_ENV)
            yield PodSpec(extra, placement, {**injected, **cluster_ip}, extra_containers=(head,))
            continue
        if lws is None or grove is None:
            yield PodSpec(extra, placement, injected, extra_containers=(main,) if main is not None else ())
            continue
        assumed = op.pathway({**op.resource_annotations(doc), **op.resource_annotations(node)})
        cluster: dict[str, str | None] = dict.fromkeys(op.LWS.variables)
        for role, other in zip(lws, grove, strict=True):
            pod = replace(
                placement,
                replicas=role.copies,
                pod=f"{placement.name}/{service} {role.name}",
                deployer=op.LWS.name,
                deployer_assumed=assumed,
                alternative_argv=op.argv(other.container) if assumed else None,
            )
            yield PodSpec(extra, pod, {**injected, **cluster}, extra_containers=(role.container,))


def _app_template(spec: Any, name: str) -> list[PodSpec]:
    """A Flux ``HelmRelease`` of bjw-s's app-template chart (``spec.chart.spec.chart`` or ``spec.chartRef``
    named ``app-template``): each ``values.controllers.NAME`` is a workload whose pod runs
    ``containers.NAME``, written in the chart's own shape, which its templates render into a container
    (bjw-s-labs/helm-charts, ``charts/library/common/templates/lib/container/_spec.tpl``): ``image`` a
    mapping of ``repository`` and ``tag`` (``REPO:TAG``), ``command``/``args`` a list or one string, ``env``
    a mapping of ``NAME: VALUE`` (or ``NAME: {value: ...}``, ``{valueFrom: ...}``) or the Kubernetes list.
    Read as that rendered pod, one per controller (``replicas``, default 1). Another chart's values are not
    a pod spec: nothing is read."""
    chart = _scalar(_get(_get(_get(spec, "chart"), "spec"), "chart")) or _scalar(
        _get(_get(spec, "chartRef"), "name")
    )
    if chart is None or "app-template" not in chart:
        return []
    out = []
    for controller, node in _items(_get(_get(spec, "values"), "controllers")):
        containers = [_rendered(cname, c) for cname, c in _items(_get(node, "containers"))]
        if not containers:
            continue
        replicas = _int(_get(node, "replicas")) or 1
        pod = _map(node, [("containers", _node_seq(node, containers))])
        out.append(PodSpec(pod, Placement("HelmRelease", f"{name}/{controller}", replicas=replicas)))
    return out


def _rendered(name: str, container: Any) -> Any:
    """An app-template container as the chart renders it: the Kubernetes container's own keys."""
    import yaml

    items: list[tuple[str, Any]] = [("name", _text(container, name))]
    image = _get(container, "image")
    if isinstance(image, yaml.MappingNode):
        repo, tag = _scalar(_get(image, "repository")), _scalar(_get(image, "tag"))
        if repo is not None:
            items.append(("image", _text(image, f"{repo}:{tag}" if tag else repo)))
    for key in ("command", "args"):
        value = _get(container, key)
        if isinstance(value, yaml.ScalarNode):  # one string: the chart makes it a list of one
            value = _node_seq(value, [value])
        if value is not None:
            items.append((key, value))
    env = _get(container, "env")
    if isinstance(env, yaml.MappingNode):
        entries = []
        for key, value in _items(env):
            if isinstance(value, yaml.MappingNode):  # {value: ...} or {valueFrom: ...}
                entries.append(_map(value, [("name", _text(value, key)), *_items(value)]))
            else:
                entries.append(_map(value, [("name", _text(value, key)), ("value", value)]))
        env = _node_seq(env, entries)
    kept = ("envFrom", "resources", "ports", "workingDir")
    for key, value in (("env", env), *((k, _get(container, k)) for k in kept)):
        if value is not None:
            items.append((key, value))
    return _map(container, items)


def _text(at: Any, value: str) -> Any:
    import yaml

    return yaml.ScalarNode("tag:yaml.org,2002:str", value, at.start_mark, at.end_mark)


def _map(at: Any, items: list[tuple[str, Any]]) -> Any:
    import yaml

    pairs = [(_text(at, k), v) for k, v in items]
    return yaml.MappingNode("tag:yaml.org,2002:map", pairs, at.start_mark, at.end_mark)


def _node_seq(at: Any, nodes: list[Any]) -> Any:
    import yaml

    return yaml.SequenceNode("tag:yaml.org,2002:seq", nodes, at.start_mark, at.end_mark)


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
    if kind == "Service" and (_scalar(_get(doc, "apiVersion")) or "").startswith("serving.knative.dev/"):
        return [_knative_service(doc, spec, name)]
    if kind == "Service" and (_scalar(_get(doc, "apiVersion")) or "").startswith("inference.llmaz.io/"):
        # InftyAI/llmaz's inference Service: `spec.workloadTemplate` is a LeaderWorkerSet's
        # leaderWorkerTemplate, which its controller runs as one (api/inference/v1alpha1 ServiceSpec)
        return _leader_worker_set(
            kind, name, _map(spec, [("leaderWorkerTemplate", _get(spec, "workloadTemplate"))])
        )
    if (_scalar(_get(doc, "apiVersion")) or "").startswith("ome.io/"):
        return _ome(kind, name, spec)
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
        return _leader_worker_set(kind, name, spec)
    if kind == "JobSet":
        return _job_set(name, spec)
    if kind == "DisaggregatedSet":
        # the LWS project's DisaggregatedSet (disaggregatedset.x-k8s.io): each of ``spec.roles`` (prefill,
        # decode...) is a LeaderWorkerSet spec of its own, run as its own group
        out = []
        for item in _seq(_get(spec, "roles")) or []:
            role = _scalar(_get(item, "name")) or "role"
            out += _leader_worker_set("LeaderWorkerSet", f"{name}/{role}", _get(item, "spec"))
        return out
    if kind == "DynamoGraphDeployment":
        return list(_dynamo(doc, spec, label))
    if kind in ("RoleBasedGroup", "StormService"):
        return _role_templates(kind, name, spec)
    if kind == "InferenceService":
        predictor = _get(spec, "predictor")
        return _roles(kind, name, ((predictor, "predictor"), (_get(predictor, "workerSpec"), "worker")))
    if kind in ("ServingRuntime", "ClusterServingRuntime"):
        return _roles(kind, name, ((spec, "runtime"), (_get(spec, "workerSpec"), "worker")))
    if kind in ("LLMInferenceService", "LLMInferenceServiceConfig"):
        # a LLMInferenceServiceConfig is the preset the controller merges a resource over: the same spec
        # (kserve/kserve's docs/samples/llmisvc presets write their own `vllm serve` command there)
        prefill = _get(spec, "prefill")
        parts: tuple[tuple[Any, str], ...] = ((_get(spec, "template"), "decode"),)
        parts += ((_get(spec, "worker"), "worker"),)
        parts += ((_get(prefill, "template"), "prefill"), (_get(prefill, "worker"), "prefill-worker"))
        return _roles(kind, name, parts, replicas=_int(_get(spec, "replicas")))
    if kind == "HelmRelease":
        return _app_template(spec, name)
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


def _ome(kind: str, name: str, spec: Any) -> list[PodSpec]:
    """sgl-project/ome's ``ClusterServingRuntime``, ``ServingRuntime`` and ``InferenceService``
    (``ome.io/v1beta1``): the engine and the decoder (prefill/decode disaggregation), each a pod spec whose
    main container is its ``runner``, or a leader and ``worker.size`` workers, each with its own runner, run
    as a LeaderWorkerSet (the router runs no server and is left out). The operator sets MODEL_PATH in the
    runner (the base model's storage path, known only in the cluster) and, when no accelerator class
    decides it, PARALLELISM_SIZE: the runner's GPUs times the pods of the group (ome
    pkg/controller/v1beta1/inferenceservice/components/base.go UpdateEnvVariables, engine.go and decoder.go
    setParallelismEnvVarFor*, constants.ModelPathEnvVarKey and ParallelismSizeEnvVarKey)."""
    accelerators = _get(spec, "acceleratorRequirements") is not None
    out = []
    for keys, role in ((("engineConfig", "engine"), "engine"), (("decoderConfig", "decoder"), "decoder")):
        part = _get(spec, keys[0]) if kind != "InferenceService" else _get(spec, keys[1])
        if part is None:
            continue
        leader, worker = _get(part, "leader"), _get(part, "worker")
        size = (_int(_get(worker, "size")) if _get(worker, "size") is not None else 1) if worker else 0
        pods: tuple[tuple[Any, str, str | None], ...] = (
            (leader if leader is not None else part, f"{role}-leader" if worker else role, "0"),
        )
        if worker is not None and size:
            pods += ((worker, f"{role}-worker", None),)
        for node, pod_role, index in pods:
            runner = _get(node, "runner") or _get(part, "runner")
            if runner is None:
                continue
            gpus = container_gpus(runner, "")[0]
            injected: dict[str, str | None] = {"MODEL_PATH": None, "PARALLELISM_SIZE": None}
            if gpus and size is not None and not accelerators:
                injected["PARALLELISM_SIZE"] = str(gpus * (1 + size))
            nodes = 1 + size if size is not None else None
            if worker is not None:
                injected |= dict.fromkeys(_LWS_INJECTED)
                injected["LWS_GROUP_SIZE"] = str(nodes) if nodes is not None else None
                injected["LWS_WORKER_INDEX"] = index
            copies = 1 if index == "0" else size
            placement = Placement(
                kind,
                name,
                role=pod_role,
                replicas=copies,
                nodes=nodes if worker else None,
                group=role if worker else None,
            )
            out.append(PodSpec(node, placement, injected, extra_containers=(runner,)))
    if not out and kind in ("ServingRuntime", "ClusterServingRuntime"):
        # OME's runtimes of the first shape: KServe's, `spec.containers` (MODEL_PATH set there as well)
        model_path: dict[str, str | None] = {"MODEL_PATH": None}
        return [replace(p, injected=model_path) for p in _roles(kind, name, ((spec, "runtime"),))]
    return out


def _role_templates(kind: str, name: str, spec: Any) -> list[PodSpec]:
    """The roles of a group that names a pod template per role: sgl-project/rbg's RoleBasedGroup
    (``workloads.x-k8s.io``: ``spec.roles[]``, the template under ``template`` in v1alpha1 and under
    ``standalonePattern`` or ``leaderWorkerPattern`` in v1alpha2) and AIBrix's StormService
    (``orchestration.aibrix.ai``: ``spec.template.spec.roles[].template``). Each role's pod template is
    read once, with the role's ``replicas``; a leader/worker role whose leader or workers are patches of
    it is read as its LeaderWorkerSet's pods (:func:`_patched_group`)."""
    if kind == "StormService":
        spec = _get(_get(spec, "template"), "spec")
    out = []
    for item in _seq(_get(spec, "roles")) or []:
        role = _scalar(_get(item, "name")) or "role"
        template = _get(item, "template")
        for pattern in ("standalonePattern", "leaderWorkerPattern"):
            if template is None:
                template = _get(_get(item, pattern), "template")
        group = _patched_group(kind, f"{name}/{role}", item, template)
        if group is not None:
            out += group
            continue
        pod = _get(template, "spec")
        if pod is None or _get(pod, "containers") is None:
            continue
        out.append(PodSpec(pod, Placement(kind, name, role=role, replicas=_int(_get(item, "replicas")))))
    return out


def _patched_group(kind: str, name: str, role: Any, template: Any) -> list[PodSpec] | None:
    """An RBG role run as a LeaderWorkerSet whose leader or workers are the role's template with a patch
    applied: v1alpha1's ``leaderWorkerSet`` (``size``, ``patchLeaderTemplate``, ``patchWorkerTemplate``) or
    v1alpha2's ``leaderWorkerPattern`` (``leaderTemplatePatch``, ``workerTemplatePatch``). sgl-project/rbg's
    LeaderWorkerSet reconciler builds each with ``patchPodTemplate(role.Template, ...PatchLeaderTemplate)``,
    a strategic-merge patch (containers paired by name), so SGLang's RBG PD page puts each server's
    ``command`` in the patches and only the image in the template. The leader and the ``size - 1`` workers
    get the LWS variables, as a LeaderWorkerSet's pods do. None: no such patch (the template is the pod)."""
    from argtrace.layers.transport.kustomize import strategic_merge

    lws, keys = _get(role, "leaderWorkerSet"), ("patchLeaderTemplate", "patchWorkerTemplate")
    if lws is None:
        lws, keys = _get(role, "leaderWorkerPattern"), ("leaderTemplatePatch", "workerTemplatePatch")
    patches = [_get(lws, key) for key in keys]
    if lws is None or not any(_items(p) for p in patches):
        return None
    size = _int(_get(lws, "size")) if _get(lws, "size") is not None else 1
    out = []
    for patch, part, values in zip(
        patches, ("leader", "worker"), ("leaderTemplate", "workerTemplate"), strict=True
    ):
        copies = 1 if part == "leader" else (size - 1 if size else None)
        if copies == 0:
            continue  # a group of one: the leader alone
        pod = _get(strategic_merge(template, patch) if _items(patch) else template, "spec")
        if pod is None or _get(pod, "containers") is None:
            continue
        placement = Placement(kind, name, role=part, replicas=copies, nodes=size)
        out.append(PodSpec(pod, placement, _lws_values(lws, values)))
    return out


def _knative_service(doc: Any, spec: Any, name: str) -> PodSpec:
    """A Knative Service's revision pod (Cloud Run's services are Knative Services): its containers get
    K_SERVICE, K_CONFIGURATION and K_REVISION, and the serving container (the one with `ports`, or the only
    one) PORT, its `containerPort` or 8080 (knative/serving pkg/reconciler/revision/resources: `env_var.go`
    getKnativeEnvVar, `deploy.go` makeServingContainer/getUserPort, v1.DefaultUserPort; Cloud Run's
    container contract lists the same four). The user may not set them (`reservedEnvVars`). The revision's
    name is the template's `metadata.name` when given, else made by Knative (unknown here)."""
    template = _get(spec, "template")
    pod = _get(template, "spec")
    revision = _scalar(_get(_get(template, "metadata"), "name"))
    injected: dict[str, str | None] = {"K_SERVICE": name, "K_CONFIGURATION": name, "K_REVISION": revision}
    containers = _seq(_get(pod, "containers")) or []
    serving = [c for c in containers if _seq(_get(c, "ports"))] or containers[:1]
    per_container: dict[str, dict[str, str | None]] = {}
    if len(serving) == 1:
        ports = _seq(_get(serving[0], "ports")) or []
        port = _scalar(_get(ports[0], "containerPort")) if ports else None
        per_container[_scalar(_get(serving[0], "name")) or ""] = {"PORT": port or "8080"}
    return PodSpec(
        pod, Placement("Service", name), injected, per_container=per_container, service_links=False
    )


def _leader_worker_set(kind: str, name: str, spec: Any) -> list[PodSpec]:
    """A LeaderWorkerSet spec's pods: the leader (index 0) and the ``size - 1`` workers. Without a
    ``leaderTemplate`` the leader pod is made from the ``workerTemplate`` (LWS API, ``LeaderTemplate``: "If
    not specified, the workerTemplate will be used for the leader pod"), with the leader's values."""
    lws = _get(spec, "leaderWorkerTemplate")
    size = _int(_get(lws, "size")) if _get(lws, "size") is not None else 1
    out = []
    leader = "leaderTemplate" if _get(lws, "leaderTemplate") else "workerTemplate"
    for template, role, values in (
        (leader, "leader", "leaderTemplate"),
        ("workerTemplate", "worker", "workerTemplate"),
    ):
        if not _get(lws, template):
            continue
        copies = 1 if role == "leader" else (size - 1 if size else None)
        if copies == 0:
            continue  # a group of one: the leader alone
        placement = Placement(kind, name, role=role, replicas=copies, nodes=size)
        out.append(PodSpec(_get(_get(lws, template), "spec"), placement, _lws_values(lws, values)))
    return out


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
