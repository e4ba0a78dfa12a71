"""Kubernetes: the containers of a Pod, Deployment, StatefulSet, Job, CronJob, LeaderWorkerSet or List.

This module owns finding the pod specs of each kind, a container's ``command`` (which replaces the image's
entrypoint) and ``args`` (which replace its CMD), ``$(VAR)`` expansion from earlier ``env`` entries with a
``value`` (TP012 for a name that is not defined: it stays literal), TP011 for a flag and its value in one
item, and handing the container's argv and environment to :mod:`.containers`; PA040 for a rank flag that
reads a variable from the pod-index label of pods that have none (a Deployment's).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, replace

from argtrace.layers.transport.containers import (
    _container_servers,
    _entrypoint_findings,
    _exec_form_findings,
    _image_path,
    _image_started,
    _tag_image,
    container_argv,
)
from argtrace.layers.transport.context import TransportResult
from argtrace.layers.transport.docker_cli import docker_options_in_items
from argtrace.layers.transport.llmisvc import preset_command, preset_findings
from argtrace.layers.transport.pods import PodSpec, container_gpus, pod_specs
from argtrace.layers.transport.serving import (
    kserve_multinode_findings,
    kserve_runtime_pods,
    model_args,
    serving_findings,
)
from argtrace.layers.transport.words import (
    _show,
    empty_value_item,
    folded_continuation,
    one_word_flag,
    one_word_program,
)
from argtrace.layers.transport.yamlnodes import _get, _line, _scalar, _seq
from argtrace.model import Evidence, Finding, Origin, ServerCommand, Word
from argtrace.model_launch import AssumedEntrypoint

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A `${NAME}` in a container's `image` is no image reference Kubernetes can pull: the file is a template that
# `envsubst` (or the like) fills before `kubectl apply` sees it, so a `${NAME}` of its exec-form `args` is one
# of the template's holes, not the characters the process gets (TP013 is not said there)
_TEMPLATE_HOLE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")
# `sh -c`, `bash -lc`, `bash -ec`...: the words before a script item of a container that runs a shell
_SHELL_C = re.compile(r"^-[a-zA-Z]*c[a-zA-Z]*$")


def _shell_substitution(before: Sequence[str], ref: str) -> bool:
    """Whether an unresolved ``$(ref)`` is left for a shell's command substitution: the item is the script
    (or a later word) of a container that runs ``sh -c``, and the name is a command's, not a variable's
    (any lower-case letter: ``$(date)``, ``$(hostname)``). Kubernetes leaves the reference literal (its
    documented rule), so the shell gets ``$(date)`` and runs ``date`` (POSIX, "Command Substitution"): what
    the author wrote it for. An upper-case ``$(MODEL)`` there stays TP012: a variable the pod lacks, which
    the shell would run as a command."""
    from argtrace.layers.transport.command_names import _SHELLS, _basename

    if not before or _basename(before[0]) not in _SHELLS or not any(_SHELL_C.match(w) for w in before[1:]):
        return False
    return ref != ref.upper()


_K8S_REF = re.compile(r"\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


def k8s_expand(text: str, env: Mapping[str, str | None]) -> tuple[str, list[str]]:
    """Kubernetes ``$(VAR)`` expansion: from earlier env entries; unresolvable references stay literal;
    ``$$`` is a literal ``$``. Returns the text and the unresolved names.

    The documented rule (Container API, ``command``/``args``, kubernetes.io/docs/reference/kubernetes-api/
    workload-resources/pod-v1/#entrypoint): "Variable references $(VAR_NAME) are expanded using the
    container's environment. If a variable cannot be resolved, the reference in the input string will be
    unchanged." So nothing vanishes here, unlike a shell's ``$MODEL`` or compose's ``${MODEL}``: the
    process gets the text ``$(MODEL)`` (TP012; causes.py folds what the parser says of that text)."""
    missing: list[str] = []

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1)
        value = env.get(name)
        if value is None:
            missing.append(name)
            return m.group(0)
        return value

    return _K8S_REF.sub(sub, text), missing


def _kubernetes(label: str, docs: Sequence[Any], container: str | None, result: TransportResult) -> None:
    from argtrace.layers.transport.configmaps import (
        config_map_key,
        config_maps,
        env_from,
        maybe_from_env_from,
    )
    from argtrace.layers.transport.k8s_pod import (
        pod_findings,
        service_link_env,
        with_gpus,
        with_probe_ports,
    )
    from argtrace.model import UsageError
    from argtrace.redact import is_secret_name
    from argtrace.rules import transport as R

    maps = config_maps(docs, label)  # the ConfigMaps this file declares (envFrom, configMapKeyRef)
    containers: list[tuple[str, Any, PodSpec, dict[str, tuple[str | None, str]], Any]] = []
    listed = [
        item
        for doc in docs
        for item in ((_seq(_get(doc, "items")) or []) if _scalar(_get(doc, "kind")) == "List" else [doc])
    ]
    # an InferenceService on a ServingRuntime of the same stream runs the runtime's containers (serving.py)
    on_runtime, used_runtimes = kserve_runtime_pods(listed)
    result.findings.extend(kserve_multinode_findings(listed, label))
    for item in listed:
        if id(item) in used_runtimes:
            continue
        if _scalar(_get(item, "kind")) == "RayService":
            # KubeRay: the vLLM servers are started by Ray Serve inside the Ray pods, from serveConfigV2
            from argtrace.layers.transport.rayserve import serve_config_v2

            serve_config_v2(label, item, result)
        ray = None
        if _scalar(_get(item, "kind")) in ("RayCluster", "RayJob", "RayService"):
            from argtrace.layers.transport.kuberay import ray_findings, ray_pods  # KubeRay's pods, commands

            result.findings.extend(ray_findings(item, label))
            ray = ray_pods(item)
        result.findings.extend(serving_findings(item, label))
        if id(item) not in on_runtime and (isvc_args := model_args(item, label)) is not None:
            # the runtime these args are appended to is the cluster's: its program is not known here
            isvc, model_items = isvc_args
            model_where = f"InferenceService {isvc}'s `model.args`"
            docker_options_in_items("kubernetes", model_where, model_items, result)
        for pod in on_runtime.get(id(item)) or (pod_specs(item, label) if ray is None else ray):
            # the kubelet's service-link variables
            links = service_link_env(docs, item, pod.spec, default=pod.service_links)
            containers += [(n, c, pod, links, item) for n, c in _containers(pod.spec, pod.extra_containers)]
    if container is not None:
        containers = [entry for entry in containers if entry[0] == container]
        if not containers:
            raise UsageError(f"{label}: no container named {container!r}")
    for name, node, pod, links, owner in containers:
        image = _scalar(_get(node, "image")) or ""
        # an LLMInferenceService's `main` container with no command runs KServe's preset (llmisvc.py)
        preset = preset_command(owner, pod.placement.role, node)
        # set by the cluster (None: known by name only); service links first, the container's env wins
        env: dict[str, str | None] = {k: v for k, (v, _why) in links.items()} | dict(pod.injected)
        env.update(pod.per_container.get(name, {}))
        # envFrom before env (the kubelet's order): a ConfigMap of this file gives its keys' values
        sourced = env_from(maps, owner, node)
        env.update(sourced.values)
        result.secrets.update(v for k, v in sourced.values.items() if v and is_secret_name(k))
        absent: dict[str, str] = {}  # variables from a fieldRef to a label these pods lack
        for item in _seq(_get(node, "env")) or []:
            key = _scalar(_get(item, "name")) or ""
            raw = _scalar(_get(item, "value"))
            if raw is None and (keyed := config_map_key(maps, owner, item)) is not None:
                env[key] = keyed[0]  # configMapKeyRef to a ConfigMap of this file
                if keyed[0] and is_secret_name(key):
                    result.secrets.add(keyed[0])
                continue
            if raw is None:
                # valueFrom: a secret or field, known only in the cluster, except a StatefulSet pod's
                # identity fields (its ordinal, its name: pods.py)
                path = _scalar(_get(_get(_get(item, "valueFrom"), "fieldRef"), "fieldPath"))
                env[key] = pod.fields.get(path.replace('"', "'")) if path else None
                if path and env[key] == "" and path.replace('"', "'") in pod.fields:
                    absent[key] = path
                continue
            value, missing = k8s_expand(raw, env)
            env[key] = value
        resolvable = {k: v for k, v in env.items() if v is not None}
        # an envFrom source the file does not declare (or a Secret) may set any name: left to the cluster
        has_env_from = bool(sourced.unresolved)
        # ...so a name a `sh -c` script of the container reads may be set there: unknown, not unset
        maybe_set = maybe_from_env_from(node, env, sourced.unresolved)
        env.update(dict.fromkeys(maybe_set))
        words: dict[str, list[str] | None] = {}
        script_at: dict[str, str] = {}  # an item's text -> where its first line stands (a `sh -c` script's)
        for field_name in ("command", "args"):
            field_node = _get(node, field_name)
            items = _seq(field_node)
            if items is None:
                words[field_name] = None
                continue
            out: list[str] = []
            placed: list[tuple[str, str]] = []
            for item in items:
                text = _scalar(item)
                if text is None:
                    continue
                value, missing = k8s_expand(text, resolvable)
                item_at = _line(label, item)
                placed.append((value, item_at))
                if (first := _first_line(label, item, value)) is not None:
                    script_at.setdefault(value, first)
                before_item = [*(words.get("command") or []), *out] if field_name == "args" else out
                for ref in dict.fromkeys(missing):
                    if ref in env or has_env_from:
                        # valueFrom (a Secret, a field) or envFrom: expanded in the cluster
                        continue
                    if _shell_substitution(before_item, ref):
                        continue
                    why = "is not defined in the container's env"
                    result.findings.append(
                        R.TP012.finding(
                            f"$({ref}) in container {name}'s `{field_name}` {why}: Kubernetes leaves it "
                            f"literal and "
                            f"the process receives {_show(value)}",
                            at=item_at,
                            evidence=[Evidence("transport", item_at, text)],
                        )
                    )
                if (folded := folded_continuation(f"`{field_name}` item", item, value, item_at)) is not None:
                    result.findings.append(folded)
                elif preset is None and (
                    split := one_word_flag(f"`{field_name}` item", value, text, item_at)
                ):
                    result.findings.append(split)
                elif (empty := empty_value_item(f"`{field_name}` item", value, text, item_at)) is not None:
                    result.findings.append(empty)
                elif (
                    field_name == "command"
                    and not out
                    and (whole := one_word_program("`command` item", value, text, item_at))
                ):
                    result.findings.append(whole)
                out.append(value)
            docker_options_in_items("kubernetes", f"container {name}'s `{field_name}`", placed, result)
            words[field_name] = out
        command, args = words["command"], words["args"]
        written_args = args  # the hop shows the container's args as written, also when the preset takes them
        if preset is not None:
            # bash's eval parses the args again as shell words: what one item holds is split there
            command, args, image = list(preset.command(args or [], env)), None, preset.image
        # $(NAME) of a variable the cluster sets (valueFrom, envFrom, an operator's injection): the kubelet
        # expands it when the container starts, to a value not known here
        cluster_set = {k for k, v in env.items() if v is None}

        def cluster_ref(ref: str, cluster_set: set[str] = cluster_set, any_name: bool = has_env_from) -> bool:
            return ref in cluster_set or any_name

        at = _line(label, _get(node, "args") or _get(node, "command") or node)
        final, _image_ep = container_argv(image, command, args)
        result.hops.append(
            {
                "at": at,
                "via": "kubernetes",
                "container": name,
                "image": image,
                "command": command,
                "args": written_args,
                "argv": final,
            }
        )
        if sourced.read or sourced.unresolved:
            result.hops[-1]["env_from"] = {"read": sourced.read, "not_in_file": sourced.unresolved}
        assumed = None
        if preset is not None:
            assumed = AssumedEntrypoint(at, image, preset.shown)
            result.hops[-1]["command_from"] = {"config": preset.config, "source": preset.source}
            result.findings.extend(preset_findings(preset, name, at))
        elif command is None and args:
            assumed = _entrypoint_findings(at, image, None, args, result, how="`args:`")
        if not _TEMPLATE_HOLE.search(image):
            _exec_form_findings(
                at,
                [_without_cluster_refs(w, cluster_ref) for w in (*(command or []), *(args or []))],
                result,
                how=f"container {name}'s command",
                final=final,
            )
        linked = {k: w for k, (v, w) in links.items() if env.get(k, v) == v and k not in _own_names(node)}
        origins = {
            k: Origin(at=at, expansion="kubernetes service link", known=env[k] is not None, reason=w)
            for k, w in linked.items()
        }
        origins.update(
            {
                k: Origin(at=at, expansion="kubernetes envFrom", known=False, reason=w)
                for k, w in maybe_set.items()
            }
        )
        origins.update(
            {
                k: Origin(at=w, expansion="kubernetes envFrom", known=True)
                for k, w in sourced.origins.items()
                if k in env
            }
        )
        container_env = _image_path(env, origins, at, image)
        before = len(result.servers)
        where = f"kubernetes pod {pod.placement.pod} container {name}" if pod.placement.pod else None
        _container_servers(
            at,
            final,
            *container_env,
            where or f"kubernetes container {name}",
            result,
            # a pod of a StatefulSet keeps its own label: its servers differ by pod, not by line
            script_at=script_at if where is None else None,
        )
        _tag_image(result, before, image, assumed)
        _image_started(at, image, container_env[0], result, before)
        gpus, gpus_at = container_gpus(node, label)
        placement = replace(pod.placement, gpus=gpus, gpus_at=gpus_at) if gpus is not None else pod.placement
        result.hops[-1]["placement"] = {k: v for k, v in asdict(placement).items() if v is not None}
        result.servers[before:] = [
            replace(_cluster_expanded(s, cluster_ref), placement=placement) for s in result.servers[before:]
        ]
        result.servers[before:] = with_gpus(result.servers[before:], node, name)
        result.servers[before:] = with_probe_ports(result.servers[before:], node)
        result.findings.extend(pod_findings(name, node, result.servers[before:], linked, at))
        if absent and len(result.servers) > before:
            result.findings.extend(_absent_label_ranks(node, name, pod, absent, label))


# The rank flags of SGLang and vLLM; a rank that reads a variable of a label the pod lacks gets no number.
_RANK_FLAGS = {
    "--node-rank": "node_rank",
    "--node_rank": "node_rank",
    "--data-parallel-rank": "data_parallel_rank",
    "--data-parallel-start-rank": "data_parallel_start_rank",
}


def _absent_label_ranks(
    node: Any, name: str, pod: PodSpec, absent: dict[str, str], label: str
) -> list[Finding]:
    """PA040: a rank flag whose value reads a variable set from a label the workload's pods do not have
    (only StatefulSet pods get the pod-index and pod-name labels: Kubernetes docs, StatefulSets)."""
    from argtrace.rules.multinode import PA_NO_POD_INDEX

    findings = []
    for part in ("command", "args"):
        items = _seq(_get(node, part)) or []
        text = " ".join(_scalar(i) or "" for i in items)
        for var, path in absent.items():
            ref = rf"\$(?:\(|\{{)?{re.escape(var)}\b"
            for m in re.finditer(rf"({'|'.join(_RANK_FLAGS)})(?:=|\s+)[\"']?{ref}", text):
                flag = m.group(1)
                item = next((i for i in items if var in (_scalar(i) or "")), node)
                at = _line(label, item)
                kind, workload = pod.placement.kind, pod.placement.name
                findings.append(
                    PA_NO_POD_INDEX.finding(
                        f"container {name} of {kind} {workload} gives {flag} ${var}, a fieldRef to {path}: "
                        f"only StatefulSet pods have that label, so in a {kind}'s pods ${var} is the empty "
                        "string and no pod gets a rank",
                        at=at,
                        setting=_RANK_FLAGS[flag],
                        evidence=[Evidence("transport", at, f"{var} <- fieldRef {path}")],
                    )
                )
    return findings


def _own_names(node: Any) -> set[str]:
    """The names the container's own ``env`` list sets (they win over service links)."""
    return {_scalar(_get(item, "name")) or "" for item in _seq(_get(node, "env")) or []}


def _without_cluster_refs(word: str, cluster_ref: Callable[[str], bool]) -> str:
    """``word`` with the ``$(NAME)`` references the kubelet expands removed (they are not shell syntax)."""
    return _K8S_REF.sub(lambda m: "" if m.group(1) and cluster_ref(m.group(1)) else m.group(0), word)


def _cluster_expanded(server: ServerCommand, cluster_ref: Callable[[str], bool]) -> ServerCommand:
    """The server's argv words that hold a ``$(NAME)`` the kubelet expands from a variable the cluster sets:
    their text is not known here (the parser then says what it cannot check), never the literal text."""
    words = []
    changed = False
    for word in server.argv:
        refs = [m.group(1) for m in _K8S_REF.finditer(word.text or "") if m.group(1)]
        if word.text is not None and refs and any(cluster_ref(r) for r in refs):
            names = ", ".join(f"$({r})" for r in dict.fromkeys(refs) if cluster_ref(r))
            origin = Origin(
                at=word.origin.at,
                expansion=word.text,
                known=False,
                reason=f"{names} is expanded by the kubelet when the container starts, from a variable the "
                "cluster sets",
            )
            words.append(Word(None, origin))
            changed = True
        else:
            words.append(word)
    return replace(server, argv=tuple(words)) if changed else server


def _containers(spec: Any, extra: Sequence[Any] = ()) -> list[tuple[str, Any]]:
    # an init container with `restartPolicy: Always` is a sidecar: it keeps running beside the app
    # containers for the pod's life, started before them (Kubernetes docs, "Sidecar Containers", 1.29+);
    # GKE's JobSet of offline inference runs its vLLM server so. Other init containers run to completion
    # first. Only a sidecar that names its program (`command`) is read: a routing proxy's bare `args` say
    # nothing of a server, and its image's entrypoint is not known here.
    sidecars = [
        node
        for node in _seq(_get(spec, "initContainers")) or []
        if _scalar(_get(node, "restartPolicy")) == "Always" and _get(node, "command") is not None
    ]
    out = []
    for node in [*extra, *sidecars, *(_seq(_get(spec, "containers")) or [])]:
        out.append((_scalar(_get(node, "name")) or ("main" if node in extra else ""), node))
    return out


def _first_line(label: str, item: Any, value: str) -> str | None:
    """``FILE:LINE:INDENT`` where an item's text stands in the file, when its characters are the file's own:
    a one-line scalar written without escapes, or a literal block (``|``) without here-documents (its
    lines are moved right by the block's indentation, which a here-document's terminator would not
    survive). None otherwise: a folded block, a string over several lines, an escape or a `$(NAME)` the
    kubelet expands; the script then keeps a label of its own rather than pointing at the wrong column."""
    mark = getattr(item, "start_mark", None)
    buffer = getattr(mark, "buffer", None)
    if mark is None or not isinstance(buffer, str):
        return None
    file = _line(label, item).rpartition(":")[0]
    style = getattr(item, "style", None)
    if style == "|":
        if "<<" in value:
            return None
        lines = buffer[mark.pointer :].split("\n")[1:]
        content = value.rstrip("\n").split("\n")
        first = next((ln for ln in lines if ln.strip()), "")
        indent = len(first) - len(first.lstrip(" "))
        if lines[: len(content)] != [(" " * indent + c) if c else c for c in content] and [
            ln.rstrip() for ln in lines[: len(content)]
        ] != [(" " * indent + c).rstrip() for c in content]:
            return None
        return f"{file}:{mark.line + 2}:{indent}"
    quote = 1 if style in ("'", '"') else 0
    start = mark.pointer + quote
    if "\n" in value or buffer[start : start + len(value)] != value:
        return None
    return f"{file}:{mark.line + 1}:{mark.column + quote}"
