"""Serving resources whose server command is assembled by their controller, not written in one container.

This module owns two things the plain pod-spec reading (``pods.py``) cannot do alone:

- **KServe InferenceService on a ServingRuntime.** An ``InferenceService`` whose ``spec.predictor.model``
  names no containers runs the containers of a ``ServingRuntime``/``ClusterServingRuntime``: the one named
  by ``model.runtime``, else one whose ``supportedModelFormats`` has the model's ``modelFormat.name`` with
  ``autoSelect: true``. The controller appends the model's ``args`` to the runtime container's, adds its
  ``env`` and takes its ``resources`` (KServe docs, "Serving Runtimes": "the args ... specified in the
  InferenceService ... are merged with those of the runtime"), and replaces ``{{.Name}}`` with the
  InferenceService's name. When both are in one stream (``helm template`` output, a file holding both),
  the merged container is read as the predictor's pod, and the runtime is not read again on its own.
- **Parallel sizes the controller turns into flags**, checked against the GPUs a pod requests (PA036):
  KServe ``LLMInferenceService`` (``spec.parallelism``: its built-in LLMInferenceServiceConfig templates
  pass ``--tensor-parallel-size`` from ``tensor`` and, with a ``worker`` (data parallel across pods,
  one LeaderWorkerSet), ``--data-parallel-size-local`` from ``dataLocal``: each pod needs tensor x
  dataLocal GPUs) and NVIDIA Dynamo ``DynamoGraphDeployment`` services with ``multinode.nodeCount`` (the
  worker's ``--tp-size``/``--tensor-parallel-size`` x pipeline size spread over the nodes, against the
  service's ``resources.limits.gpu``) for workers argtrace does not parse as servers (TensorRT-LLM's
  ``dynamo.trtllm``): ``python3 -m dynamo.sglang``/``dynamo.vllm`` are parsed as SGLang/vLLM servers
  (``frameworks/dynamo.py``) and their GPUs judged by the multi-node layer.
"""

from __future__ import annotations

from collections.abc import Sequence

from argtrace.layers.transport.pods import PodSpec, container_gpus, runs_module
from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq
from argtrace.model import Finding, Placement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_RUNTIMES = ("ServingRuntime", "ClusterServingRuntime")


def _kind(doc: Any) -> str:
    return _scalar(_get(doc, "kind")) or ""


def _name(doc: Any) -> str:
    return _scalar(_get(_get(doc, "metadata"), "name")) or "?"


def _runtime_for(model: Any, runtimes: Sequence[Any]) -> Any:
    wanted = _scalar(_get(model, "runtime"))
    if wanted is not None:
        return next((r for r in runtimes if _name(r) == wanted), None)
    fmt = _scalar(_get(_get(model, "modelFormat"), "name"))
    for runtime in runtimes:
        for entry in _seq(_get(_get(runtime, "spec"), "supportedModelFormats")) or []:
            auto = _scalar(_get(entry, "autoSelect"))
            if fmt and (_scalar(_get(entry, "name")) or "").lower() == fmt.lower() and auto == "true":
                return runtime
    return None


def _named(isvc: str, node: Any) -> Any:
    """A copy of a scalar with ``{{.Name}}`` replaced by the InferenceService's name (line kept)."""
    import yaml

    text = _scalar(node)
    if text is None or "{{.Name}}" not in text:
        return node
    return yaml.ScalarNode(_STR, text.replace("{{.Name}}", isvc), node.start_mark, node.end_mark)


def _merged_container(runtime_container: Any, model: Any, isvc: str) -> Any:
    import yaml

    replaced: dict[str, Any] = {}
    runtime_args = [_named(isvc, n) for n in _seq(_get(runtime_container, "args")) or []]
    model_args = _seq(_get(model, "args")) or []
    if runtime_args or model_args:
        first = (model_args or runtime_args)[0]
        merged = [*runtime_args, *model_args]
        replaced["args"] = yaml.SequenceNode(_SEQ, merged, first.start_mark, first.end_mark)
    model_env = _seq(_get(model, "env")) or []
    if model_env:
        env = [*(_seq(_get(runtime_container, "env")) or []), *model_env]
        replaced["env"] = yaml.SequenceNode(_SEQ, env, model_env[0].start_mark, model_env[0].end_mark)
    if _get(model, "resources") is not None:
        replaced["resources"] = _get(model, "resources")
    pairs = []
    for key, value in runtime_container.value:
        name = key.value if isinstance(key, yaml.ScalarNode) else None
        pairs.append((key, replaced.pop(name) if name in replaced else value))
    for name, value in replaced.items():
        pairs.append((yaml.ScalarNode(_STR, name, value.start_mark, value.end_mark), value))
    return yaml.MappingNode(_MAP, pairs, runtime_container.start_mark, runtime_container.end_mark)


def kserve_runtime_pods(docs: Sequence[Any]) -> tuple[dict[int, list[PodSpec]], set[int]]:
    """The predictor pods of the InferenceServices that run on a ServingRuntime of the same stream (by
    ``id`` of the InferenceService document), and the ``id`` of every runtime so used."""
    import yaml

    runtimes = [d for d in docs if _kind(d) in _RUNTIMES]
    pods: dict[int, list[PodSpec]] = {}
    used: set[int] = set()
    for doc in docs:
        predictor = _get(_get(doc, "spec"), "predictor")
        model = _get(predictor, "model")
        if _kind(doc) != "InferenceService" or model is None or _get(predictor, "containers") is not None:
            continue
        runtime = _runtime_for(model, runtimes)
        containers = _seq(_get(_get(runtime, "spec"), "containers")) or []
        if not containers:
            continue
        used.add(id(runtime))
        first, rest = _merged_container(containers[0], model, _name(doc)), containers[1:]
        seq = yaml.SequenceNode(_SEQ, [first, *rest], first.start_mark, first.end_mark)
        key = yaml.ScalarNode(_STR, "containers")
        spec = yaml.MappingNode(_MAP, [(key, seq)], first.start_mark, first.end_mark)
        placement = Placement("InferenceService", _name(doc), role=f"predictor (runtime {_name(runtime)})")
        replicas = _scalar(_get(predictor, "minReplicas"))
        if replicas is not None and replicas.isdigit():
            placement = Placement(placement.kind, placement.name, placement.role, replicas=int(replicas))
        # a multi-node InferenceService: the controller sets the parallel sizes in the container (below),
        # and the head's vLLM spans the Ray cluster of the head and worker pods
        sizes = kserve_multinode_sizes(doc, runtime) or {}
        nodes = _ray_nodes(predictor, runtime, sizes)
        if nodes is not None:
            placement = Placement(
                placement.kind, placement.name, placement.role, placement.replicas, nodes=nodes
            )
        pods[id(doc)] = [PodSpec(spec, placement, dict(sizes))]
    return pods, used


def _ray_nodes(predictor: Any, runtime: Any, sizes: dict[str, str]) -> int | None:
    """The pods of a multi-node InferenceService's Ray cluster (``computeRayNodeAndGPUs``), ``None`` when it
    is not multi-node, runs the mp executor or a GPU request is not a number."""
    mp = _scalar(_get(_get(_get(runtime, "spec"), "annotations"), _KSERVE_EXECUTOR)) == "mp"
    if not sizes or mp:
        return None
    head, worker = _gpu_request(_get(predictor, "model")), _worker_gpus(predictor, runtime)
    if head is None or worker is None:
        return None
    total = int(sizes["TENSOR_PARALLEL_SIZE"]) * int(sizes["PIPELINE_PARALLEL_SIZE"])
    return _ray_layout(total, head, worker)[0]


def _flag(words: Sequence[str], *names: str) -> int | None:
    """The integer value of the last of ``names`` among ``words`` (``--tp 8`` or ``--tp=8``)."""
    value: int | None = None
    for i, word in enumerate(words):
        name, eq, text = word.partition("=")
        if name in names:
            text = text if eq else (words[i + 1] if i + 1 < len(words) else "")
            value = int(text) if text.isdigit() else None
    return value


def model_args(doc: Any, label: str) -> tuple[str, list[tuple[str, str]]] | None:
    """An InferenceService's ``predictor.model.args`` as (value, where) items, with its name: read on their
    own when the ServingRuntime they are appended to is not in the file (it lives in the cluster)."""
    model = _get(_get(_get(doc, "spec"), "predictor"), "model")
    items = _seq(_get(model, "args"))
    if _kind(doc) != "InferenceService" or items is None:
        return None
    placed = [(text, _line(label, item)) for item in items if (text := _scalar(item)) is not None]
    return _name(doc), placed


def serving_findings(doc: Any, label: str) -> list[Finding]:
    """PA036 for the parallel sizes a serving resource's controller turns into flags."""
    kind = _kind(doc)
    if kind == "LLMInferenceService":
        return _llmisvc_gpus(doc, label)
    if kind == "DynamoGraphDeployment":
        return _dynamo_gpus(doc, label)
    return []


def _gpu_finding(need: int, how: str, have: int, where: str, setting: str, at: str) -> Finding:
    from argtrace.rules import multinode as rules

    if have < need:
        return rules.PA_GPUS_PER_NODE.finding(
            f"each pod needs {need} GPU(s) ({how}) but gets {have}: {where}", at=at, setting=setting
        )
    return rules.PA_GPUS_PER_NODE.finding(
        f"each pod needs {need} GPU(s) ({how}) but gets {have}: {where}; {have - need} stay idle",
        at=at,
        setting=setting,
        severity="warning",
    )


def _llmisvc_gpus(doc: Any, label: str) -> list[Finding]:
    spec = _get(doc, "spec")
    parallelism = _get(spec, "parallelism")
    if parallelism is None:
        return []

    def size(key: str) -> int | None:
        text = _scalar(_get(parallelism, key))
        return int(text) if text is not None and text.isdigit() else None

    tensor = size("tensor") or 1
    need, how = tensor, f"parallelism.tensor {tensor}"
    if _get(spec, "worker") is not None:  # data parallel over the pods of one LeaderWorkerSet
        local = size("dataLocal") or 1
        need, how = tensor * local, f"parallelism.tensor {tensor} x parallelism.dataLocal {local}"
    findings = []
    for role in ("template", "worker"):
        pod = _get(spec, role)
        if pod is None:
            continue
        for container in _seq(_get(pod, "containers")) or []:
            have, at = container_gpus(container, label)
            if have is not None and at is not None and have != need:
                name = _scalar(_get(container, "name")) or "?"
                what = f"spec.{role} container {name}'s nvidia.com/gpu limit ({at})"
                findings.append(_gpu_finding(need, how, have, what, "tensor_parallel_size", at))
    return findings


def _dynamo_gpus(doc: Any, label: str) -> list[Finding]:
    findings = []
    for service, node in _items(_get(_get(doc, "spec"), "services")):
        gpu_node = _get(_get(_get(node, "resources"), "limits"), "gpu")
        gpus = _scalar(gpu_node)
        count = _scalar(_get(_get(node, "multinode"), "nodeCount")) or "1"
        main = _get(_get(node, "extraPodSpec"), "mainContainer")
        if gpus is None or not gpus.isdigit() or not count.isdigit() or main is None:
            continue
        if any(runs_module(main, m) for m in ("dynamo.sglang", "dynamo.vllm")):
            continue  # parsed as an SGLang or vLLM server: the multi-node layer judges its GPUs (PA036)
        words = [
            w for part in ("command", "args") for w in (_scalar(i) for i in _seq(_get(main, part)) or []) if w
        ]
        tp = _flag(words, "--tp-size", "--tp", "--tensor-parallel-size", "-tp")
        pp = _flag(words, "--pp-size", "--pp", "--pipeline-parallel-size", "-pp") or 1
        nodes = int(count)
        if tp is None or (tp * pp) % nodes:
            continue
        how = f"tp {tp} x pp {pp} over multinode.nodeCount {nodes}" if nodes > 1 else f"tp {tp} x pp {pp}"
        at = _line(label, gpu_node)
        if int(gpus) != tp * pp // nodes:
            where = f"service {service}'s resources.limits.gpu ({at})"
            findings.append(_gpu_finding(tp * pp // nodes, how, int(gpus), where, "tp_size", at))
    return findings


# KServe's multi-node InferenceService (``spec.predictor.workerSpec``), after the controller
# (kserve/kserve pkg/controller/v1beta1/inferenceservice/components/predictor.go ``multiNodeProcess``,
# ``computeRayNodeAndGPUs``, ``computeMpNodeAndGPUs``; raw/deployment_reconciler.go): the sizes are the
# InferenceService's ``workerSpec.tensorParallelSize``/``pipelineParallelSize``, else its runtime's, else 1;
# the controller sets them in the kserve-container and the worker container as TENSOR_PARALLEL_SIZE and
# PIPELINE_PARALLEL_SIZE (the webhook refuses an InferenceService that sets them in ``env`` itself), and
# sizes the pods: with the runtime's ``multinode/executor-backend: mp`` annotation pipelineParallelSize
# nodes of tensorParallelSize GPUs, else (Ray) tp x pp GPUs over a head and ceil(tp x pp / worker GPUs)
# - 1 workers, refusing a head whose own GPU request leaves too few.
_KSERVE_GPU_TYPES = ("nvidia.com/gpu", "amd.com/gpu", "intel.com/gpu", "habana.ai/gaudi")
_KSERVE_EXECUTOR = "multinode/executor-backend"
# KServe's messages (pkg/apis/serving/v1beta1/component.go, predictor.go), the name quoted as Go's %q does
_KSERVE_ENV_REFUSED = (
    'the InferenceService "%s" is invalid: setting %s in environment variables is not allowed'
)
_KSERVE_INSUFFICIENT = (
    "the total required number of GPUs(%d) is less than the number of GPUs assigned to the head node(%d) + "
    "worker node(%d)"
)


def _worker_containers(predictor: Any, runtime: Any) -> tuple[Any, Any]:
    """The worker pod's container as ``multiNodeProcess`` merges it: the runtime's ``workerSpec`` container
    named ``worker-container`` (constants.WorkerContainerName), patched by the InferenceService's
    ``workerSpec.containers[0]`` (``MergeServingRuntimeAndInferenceServiceSpecs``: its fields win)."""
    own = (_seq(_get(_get(predictor, "workerSpec"), "containers")) or [None])[0]
    listed = _seq(_get(_get(_get(runtime, "spec"), "workerSpec"), "containers")) or []
    base = next((c for c in listed if _scalar(_get(c, "name")) == "worker-container"), None)
    return own, base


def _worker_gpus(predictor: Any, runtime: Any) -> int | None:
    """The GPUs a worker pod requests (``computeRayNodeAndGPUs`` reads the merged container): the
    InferenceService's worker container's resource if it names one, else the runtime's."""
    own, base = _worker_containers(predictor, runtime)
    for container in (own, base):
        resources = _get(container, "resources")
        if any(_get(_get(resources, part), key) is not None for part in ("requests", "limits") for key in
               _KSERVE_GPU_TYPES):  # fmt: skip
            return _gpu_request(container)
    return 0


def _head_image(model: Any, runtime: Any) -> tuple[str, str] | None:
    """The head pod's image and where it comes from: the model's ``image``, else the runtime's first
    container's, with the tag replaced by the model's ``runtimeVersion`` (``UpdateImageTag``, which the
    controller applies to the head's container only)."""
    import re

    containers = _seq(_get(_get(runtime, "spec"), "containers")) or []
    image, where = _scalar(_get(model, "image")), "the model's image"
    if image is None and containers:
        image, where = _scalar(_get(containers[0], "image")), f"runtime {_name(runtime)}"
    if image is None:
        return None
    version = _scalar(_get(model, "runtimeVersion"))
    if version is not None:
        tagged = re.search(r":[\w.\-_]*$", image)
        image = image[: tagged.start()] + ":" + version if tagged else f"{image}:{version}"
        where += f" with the model's runtimeVersion {version}"
    return image, where


def _worker_image(doc: Any, runtime: Any, label: str) -> list[Finding]:
    """PA030 when the worker pods of a multi-node InferenceService run another image than its head: one
    Ray cluster (and one vLLM engine) from two releases."""
    from argtrace.rules import multinode as rules

    predictor = _get(_get(doc, "spec"), "predictor")
    head = _head_image(_get(predictor, "model"), runtime) if runtime is not None else None
    own, base = _worker_containers(predictor, runtime)
    image, where = _scalar(_get(own, "image")), "the InferenceService's workerSpec"
    if image is None and base is not None:
        image, where = _scalar(_get(base, "image")), f"runtime {_name(runtime)}'s workerSpec"
    if head is None or image is None or image == head[0]:
        return []
    return [
        rules.PA_NODES_DISAGREE.finding(
            f"the worker pods of InferenceService {_name(doc)} run {image} ({where}) but its head runs "
            f"{head[0]} ({head[1]}): one Ray cluster and one vLLM engine from two images; unless both carry "
            "the same Ray and vLLM releases, `ray start` on a worker stops at Ray's version check and vLLM's "
            "workers run another release than the head",
            at=_line(label, own if _get(own, "image") is not None else _get(predictor, "workerSpec")),
            setting="image",
            fix="run the head and the workers from the same image tag (set it in one place: the runtime)",
            basis="static",  # two image names read from the file, whichever release either holds
        )
    ]


def _gpu_request(container: Any) -> int | None:
    """A container's GPU request as KServe reads it (``GetGPUResourceQtyByType(..., "Request")``); the API
    server copies a limit of an extended resource into the request when only the limit is given."""
    resources = _get(container, "resources")
    for part in ("requests", "limits"):
        for key in _KSERVE_GPU_TYPES:
            text = _scalar(_get(_get(resources, part), key))
            if text is not None:
                return int(text) if text.isdigit() else None
    return 0


def _size(node: Any, key: str) -> int | None:
    text = _scalar(_get(node, key))
    return int(text) if text is not None and text.lstrip("-").isdigit() else None


def kserve_multinode_sizes(isvc: Any, runtime: Any) -> dict[str, str] | None:
    """The variables KServe's controller sets in a multi-node InferenceService's containers
    (``TENSOR_PARALLEL_SIZE``, ``PIPELINE_PARALLEL_SIZE``), or ``None`` when it is not multi-node or a size
    comes from a runtime not in the stream."""
    worker = _get(_get(_get(isvc, "spec"), "predictor"), "workerSpec")
    if worker is None:
        return None
    runtime_worker = _get(_get(runtime, "spec"), "workerSpec")
    out = {}
    for key, env in (
        ("tensorParallelSize", "TENSOR_PARALLEL_SIZE"),
        ("pipelineParallelSize", "PIPELINE_PARALLEL_SIZE"),
    ):
        value = _size(worker, key)
        if value is None and runtime is not None:
            value = _size(runtime_worker, key) or 1  # the controller's default
        if value is None:
            return None
        out[env] = str(value)
    return out


def _ray_layout(total: int, head: int, worker: int) -> tuple[int, int, int, bool]:
    """``computeRayNodeAndGPUs``: (nodes, head GPUs, worker GPUs, whether KServe accepts the layout)."""

    def nodes_for(gpus: int, per: int) -> int:
        return 1 if per == 0 else -(-gpus // per)

    if worker > 0:
        nodes = nodes_for(total, worker)
        if head > 0:
            if nodes_for(total, head) == 1:
                nodes = 1
        else:
            head = total - worker * (nodes - 1)
        if nodes == 1:
            worker, head = 0, total
    elif head > 0:
        nodes, worker = 1, 1
        if total - head > 0:
            nodes = (total - head) + 1
    else:
        return total, 1, 1, True
    return nodes, head, worker, total <= head + worker * (nodes - 1)


def kserve_multinode_findings(docs: Sequence[Any], label: str) -> list[Finding]:
    """What KServe's controller and webhook refuse in a multi-node InferenceService (sizes set in ``env``,
    a Ray head whose GPUs leave too few, PA036), and model ``args`` that override the tensor or pipeline
    parallel size the controller sized the pods for (PA036)."""
    from argtrace.rules import multinode as rules

    runtimes = [d for d in docs if _kind(d) in _RUNTIMES]
    findings: list[Finding] = []
    for doc in docs:
        predictor = _get(_get(doc, "spec"), "predictor")
        worker = _get(predictor, "workerSpec")
        if _kind(doc) != "InferenceService" or worker is None:
            continue
        model = _get(predictor, "model")
        name = _name(doc)
        for item in _seq(_get(model, "env")) or []:
            env = _scalar(_get(item, "name"))
            if env in ("TENSOR_PARALLEL_SIZE", "PIPELINE_PARALLEL_SIZE"):
                field = "tensorParallelSize" if env.startswith("T") else "pipelineParallelSize"
                findings.append(
                    rules.PA_GPUS_PER_NODE.finding(
                        f"KServe refuses the InferenceService: {_KSERVE_ENV_REFUSED % (name, env)} (set "
                        f"workerSpec.{field} instead)",
                        at=_line(label, item),
                        setting=env.lower(),
                    )
                )
        runtime = _runtime_for(model, runtimes) if model is not None else None
        sizes = kserve_multinode_sizes(doc, runtime)
        if sizes is None:
            continue
        tp, pp = int(sizes["TENSOR_PARALLEL_SIZE"]), int(sizes["PIPELINE_PARALLEL_SIZE"])
        assumed = runtime is None
        mp = (
            runtime is not None
            and _scalar(_get(_get(_get(runtime, "spec"), "annotations"), _KSERVE_EXECUTOR)) == "mp"
        )
        total = tp * pp
        findings.extend(_worker_image(doc, runtime, label))
        head = _gpu_request(model) or 0
        worker_gpus = _worker_gpus(predictor, runtime)
        if head is None or worker_gpus is None:
            continue
        at = _line(label, worker)
        if not mp:
            nodes, head, worker_gpus, accepted = _ray_layout(total, head, worker_gpus)
            if not accepted:
                refused = _KSERVE_INSUFFICIENT % (total, head, worker_gpus * (nodes - 1))
                finding = rules.PA_GPUS_PER_NODE.finding(
                    f"KServe refuses the layout of InferenceService {name}: {refused} (tensorParallelSize "
                    f"{tp} x pipelineParallelSize {pp} over a Ray head that requests {head} GPU(s) and "
                    f"{nodes - 1} worker(s) of {worker_gpus})",
                    at=at,
                    setting="tensor_parallel_size",
                )
                findings.append(_assumed_runtime(finding) if assumed else finding)
                continue
        findings.extend(_kserve_args_override(name, model, runtime, tp, pp, label))
    return findings


_ASSUMED_RUNTIME = (
    "the runtime is not in the file: assumed to be KServe's kserve-huggingfaceserver-multinode, which runs "
    "`python -m huggingfaceserver ... --tensor-parallel-size=${TENSOR_PARALLEL_SIZE} "
    "--pipeline-parallel-size=${PIPELINE_PARALLEL_SIZE} $0 $@` with the model's args after those flags"
)


def _assumed_runtime(finding: Finding) -> Finding:
    from dataclasses import replace

    message = f"{finding.message} (assumed: {_ASSUMED_RUNTIME})"
    return replace(finding, severity="info", basis="assumed", message=message)


def _kserve_args_override(name: str, model: Any, runtime: Any, tp: int, pp: int, label: str) -> list[Finding]:
    """The model's ``args`` come after the runtime's ``--tensor-parallel-size=${TENSOR_PARALLEL_SIZE}``:
    vLLM's parser keeps the last, so a size there replaces the one KServe sized the pods for."""
    from argtrace.rules import multinode as rules

    if runtime is not None:
        text = " ".join(
            _scalar(i) or ""
            for c in (_seq(_get(_get(runtime, "spec"), "containers")) or [])[:1]
            for part in ("command", "args")
            for i in _seq(_get(c, part)) or []
        )
        if "TENSOR_PARALLEL_SIZE" not in text:
            return []  # the runtime does not pass the controller's sizes: the model's args are the only ones
    args = _seq(_get(model, "args")) or []
    words = [_scalar(i) or "" for i in args]
    words = [w.replace("_", "-") if w.startswith("--") else w for w in words]  # vLLM turns _ into -
    new_tp = _flag(words, "--tensor-parallel-size", "-tp")
    new_pp = _flag(words, "--pipeline-parallel-size", "-pp")
    if new_tp is None and new_pp is None:
        return []
    need_tp, need_pp = new_tp or tp, new_pp or pp
    if need_tp * need_pp == tp * pp and (need_tp, need_pp) == (tp, pp):
        return []
    have, need = tp * pp, need_tp * need_pp
    where = next(
        (_line(label, a) for a, w in zip(args, words, strict=True) if w.partition("=")[0] in _OVERRIDES),
        label,
    )
    said = f"tensor_parallel_size {need_tp} x pipeline_parallel_size {need_pp}"
    sized = f"workerSpec tensorParallelSize {tp} x pipelineParallelSize {pp}"
    if need > have:
        message = (
            f"the model's args of InferenceService {name} set {said} after the runtime's flags (the last "
            f"wins): vLLM needs {need} GPU(s) but KServe sized the Ray cluster for {sized} = {have}"
        )
        finding = rules.PA_GPUS_PER_NODE.finding(message, at=where, setting="tensor_parallel_size")
    else:
        message = (
            f"the model's args of InferenceService {name} set {said} after the runtime's flags (the last "
            f"wins): vLLM uses {need} GPU(s) of the {have} KServe sized the pods for ({sized}); "
            f"{have - need} stay idle"
        )
        finding = rules.PA_GPUS_PER_NODE.finding(
            message, at=where, setting="tensor_parallel_size", severity="warning"
        )
    return [_assumed_runtime(finding) if runtime is None else finding]


_OVERRIDES = ("--tensor-parallel-size", "-tp", "--pipeline-parallel-size", "-pp")
