"""``argtrace check kustomization.yaml``: a Kustomize overlay, built the way ``kustomize build`` builds it.

A kustomization names its ``resources`` (manifest files, or directories holding another kustomization,
built first) and transforms them; the containers that run are those of the result, not of any one file
(GoogleCloudPlatform/kubernetes-engine-samples ``llm-serving-gemma/vllm/vllm-2b-awq``: the overlay's
``patch.yaml`` replaces the base Deployment's ``args`` and its ``MODEL_ID``). What is applied, in
kustomize's order (Kustomize reference, "kustomization.yaml" fields; kubectl's built-in kustomize):

- ``resources`` (and the older ``bases``): each file's documents, each directory's own build;
- ``configMapGenerator``: a ConfigMap per entry from ``literals`` (``KEY=VALUE``) and ``envs`` files
  (``KEY=VALUE`` lines, ``#`` comments); kustomize appends a content hash to the name *and rewrites every
  reference to it*, so the ConfigMap is read under the name the manifests use;
- ``patchesStrategicMerge``, ``patches`` (a file ``path`` or an inline ``patch``, with an optional
  ``target``) and ``patchesJson6902``: a strategic-merge patch merges maps key by key and the lists that
  have a patch merge key item by item (Kubernetes API, the ``patchStrategy:"merge"`` /
  ``patchMergeKey`` struct tags of k8s.io/api core/v1: ``containers``, ``initContainers``, ``env``,
  ``volumes`` by ``name``; ``ports`` by ``containerPort``; ``volumeMounts`` by ``mountPath``); every other
  list, ``command`` and ``args`` among them, is replaced whole; a ``null`` value deletes the key;
  ``$patch: replace`` / ``$patch: delete`` do what they say. A JSON 6902 patch (a list of ``op``/``path``)
  applies ``add``, ``replace`` and ``remove`` (RFC 6902);
- ``images``: ``newName``, ``newTag`` and ``digest`` for the containers whose image has that name;
- ``namePrefix`` / ``nameSuffix`` on Services (the names the kubelet's service-link variables are made
  from; kustomize renames the other resources too, and rewrites the references to them, which changes
  nothing a container sees).

Everything else a kustomization may hold that can change a container (``components``, ``helmCharts``,
``replacements``, ``vars``, ``generators``/``transformers`` plugins, ``secretGenerator``, a remote
resource, a JSON patch ``move``/``copy``/``test``) is not applied: TP092 names each, and what the servers
are read with is then the manifests without it.

This module owns the build (``build``: the documents and what was not applied) and telling a Kustomization
by its content (``is_kustomization``); ``manifests.py`` reads the built documents as a manifest.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from argtrace.layers.transport.yamlnodes import _get, _items, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# A kustomization's own file names (kustomize's konfig.RecognizedKustomizationFileNames).
KUSTOMIZATION_NAMES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
MAX_NESTING = 10  # directories of directories: a cycle or a very deep tree stops here
MAX_FILES = 200  # files read for one build
MAX_FILE_BYTES = 4 * 1024 * 1024

# The lists a strategic-merge patch merges item by item, and the key that pairs the items (k8s.io/api
# core/v1 types.go: `patchStrategy:"merge" patchMergeKey:"..."`); any other list is replaced.
MERGE_KEYS = {
    "containers": "name",
    "initContainers": "name",
    "ephemeralContainers": "name",
    "env": "name",
    "volumes": "name",
    "imagePullSecrets": "name",
    "ports": "containerPort",
    "volumeMounts": "mountPath",
    "volumeDevices": "devicePath",
}
_NOT_APPLIED = {
    "components": "its components",
    "helmCharts": "its Helm charts",
    "helmChartInflationGenerator": "its Helm charts",
    "replacements": "its replacements",
    "vars": "its vars",
    "generators": "its generator plugins",
    "transformers": "its transformer plugins",
    "secretGenerator": "its generated Secrets (their values are secret anyway)",
}
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_STR = "tag:yaml.org,2002:str"


@dataclass
class Built:
    """The documents ``kustomize build`` would print, and what argtrace did not apply (where, what)."""

    docs: list[Any] = field(default_factory=list)
    unread: list[tuple[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)


def is_kustomization(data: bytes) -> bool:
    """A Kustomization: its ``kind``, or its ``apiVersion`` group (a kustomization may omit both)."""
    head = data[:65536].decode("utf-8", "replace")
    return bool(
        re.search(r"(?m)^kind:[ \t]*[\"']?Kustomization[\"']?[ \t]*(#.*)?$", head)
        or re.search(r"(?m)^apiVersion:[ \t]*[\"']?kustomize\.config\.k8s\.io/", head)
    )


def build(label: str, data: bytes) -> Built:
    """The kustomization ``label`` (its text ``data``) built: resources, generators, patches, images."""
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes

    built = Built()
    documents = _load_yaml_nodes(data, label)
    root = documents.nodes[0] if documents.nodes else None
    _relabel(root, label)
    built.docs = _build(posixpath.dirname(label) or ".", label, root, built, depth=0)
    return built


def _build(directory: str, label: str, root: Any, built: Built, depth: int) -> list[Any]:
    docs: list[Any] = []
    for key in ("resources", "bases"):
        for item in _seq(_get(root, key)) or []:
            docs.extend(_resource(directory, label, item, built, depth))
    for key, what in _NOT_APPLIED.items():
        node = _get(root, key)
        if node is not None and (_seq(node) or _items(node) or _scalar(node)):
            built.unread.append((_at(label, node), what))
    for entry in _seq(_get(root, "configMapGenerator")) or []:
        generated = _config_map(directory, label, entry, built)
        if generated is not None:
            docs.append(generated)
    for item in _seq(_get(root, "patchesStrategicMerge")) or []:
        text = _scalar(item) or ""
        patch_docs = _patch_docs(directory, label, item, text, built)
        for patch in patch_docs:
            docs = _apply(docs, patch, None, label, built)
    for entry in _seq(_get(root, "patches")) or []:
        for patch in _patch_docs(directory, label, entry, None, built):
            docs = _apply(docs, patch, _get(entry, "target"), label, built)
    for entry in _seq(_get(root, "patchesJson6902")) or []:
        for patch in _patch_docs(directory, label, entry, None, built):
            docs = _apply(docs, patch, _get(entry, "target"), label, built)
    for entry in _seq(_get(root, "images")) or []:
        _set_images(docs, entry)
    prefix = _scalar(_get(root, "namePrefix")) or ""
    suffix = _scalar(_get(root, "nameSuffix")) or ""
    if prefix or suffix:
        for doc in docs:
            if _scalar(_get(doc, "kind")) == "Service":
                name_node = _get(_get(doc, "metadata"), "name")
                if name_node is not None:
                    name_node.value = f"{prefix}{name_node.value}{suffix}"
    return docs


def _at(label: str, node: Any) -> str:
    name = getattr(getattr(node, "start_mark", None), "name", "")
    where = name if isinstance(name, str) and not name.startswith("<") else label
    return f"{where}:{node.start_mark.line + 1}" if node is not None else label


def _read(path: str) -> tuple[bytes | None, str | None, bool]:
    """``(data, problem, is_directory)`` of a path on the current host (``--host``: the node's)."""
    from argtrace.remote.host import HostError, current_host

    host = current_host()
    try:
        st = host.stat(path)
        if not st.exists:
            return None, "no such file", False
        if st.is_dir:
            return None, None, True
        if st.size is not None and st.size > MAX_FILE_BYTES:
            return None, f"{st.size} bytes, too large to read", False
        return host.read_bytes(path, limit=MAX_FILE_BYTES), None, False
    except HostError as exc:
        return None, f"cannot be read: {exc}", False


def _load(path: str, built: Built, where: str) -> list[Any] | None:
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import UsageError

    if len(built.files) >= MAX_FILES:
        built.unread.append((where, f"{path}: more than {MAX_FILES} files in one build"))
        return None
    data, problem, _is_dir = _read(path)
    if data is None:
        built.unread.append((where, f"{path}: {problem}; `kustomize build` stops here"))
        return None
    built.files.append(path)
    try:
        documents = _load_yaml_nodes(data, path)
    except UsageError as exc:
        built.unread.append((where, str(exc)))
        return None
    for node in documents.nodes:
        _relabel(node, path)
    return list(documents.nodes)


def _resource(directory: str, label: str, item: Any, built: Built, depth: int) -> list[Any]:
    ref = _scalar(item) or ""
    where = _at(label, item)
    if not ref or "://" in ref or ref.startswith(("github.com/", "git@", "ssh:")) or "?ref=" in ref:
        built.unread.append((where, f"the remote resource {ref!r} (not fetched)"))
        return []
    path = posixpath.normpath(posixpath.join(directory, ref))
    _data, _problem, is_dir = _read(path)
    if not is_dir:
        return _load(path, built, where) or []
    if depth >= MAX_NESTING:
        built.unread.append((where, f"{path}: kustomizations nested deeper than {MAX_NESTING}"))
        return []
    for name in KUSTOMIZATION_NAMES:
        inner = posixpath.join(path, name)
        data, _problem, _ = _read(inner)
        if data is not None:
            nodes = _load(inner, built, where)
            if not nodes:
                return []
            return _build(path, inner, nodes[0], built, depth + 1)
    built.unread.append((where, f"{path}: a directory without a kustomization.yaml"))
    return []


def _patch_docs(directory: str, label: str, entry: Any, path: str | None, built: Built) -> list[Any]:
    """The documents of a patch entry: its file (``path``, or a ``patchesStrategicMerge`` item that names
    a file) or its inline ``patch`` text."""
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import UsageError

    if path is None:
        path = _scalar(_get(entry, "path"))
    inline = _scalar(_get(entry, "patch"))
    if path is not None and "\n" not in path:
        return _load(posixpath.normpath(posixpath.join(directory, path)), built, _at(label, entry)) or []
    text = inline if inline is not None else path
    if text is None:
        return []
    node = _get(entry, "patch") or entry
    try:
        documents = _load_yaml_nodes(text.encode(), label)
    except UsageError as exc:
        built.unread.append((_at(label, node), str(exc)))
        return []
    # the inline text's lines count from its own first line: say where it sits in the kustomization
    for doc in documents.nodes:
        _relabel(
            doc, label, shift=node.start_mark.line + (1 if getattr(node, "style", None) in ("|", ">") else 0)
        )
    return list(documents.nodes)


def _relabel(node: Any, name: str, shift: int = 0) -> None:
    """Mark every node of a document with the file it came from (``yamlnodes._line`` reads it), so a
    finding on a patched value names the patch's file and line. Iterative: the depth is bounded by the
    loader already, the breadth by the file's size."""
    import yaml

    seen: set[int] = set()
    marks: set[int] = set()  # PyYAML shares a mark between some nodes (a mapping and its first key)
    stack = [node] if node is not None else []
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue  # an alias is a shared node
        seen.add(id(current))
        for mark in (current.start_mark, current.end_mark):
            if id(mark) not in marks:
                marks.add(id(mark))
                mark.name = name
                mark.line += shift
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                stack.extend((key, value))
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


# --- generators -------------------------------------------------------------------------------------------


def _config_map(directory: str, label: str, entry: Any, built: Built) -> Any:
    import yaml

    name = _scalar(_get(entry, "name"))
    if not name:
        return None
    pairs: list[tuple[str, str, Any]] = []
    for item in _seq(_get(entry, "literals")) or []:
        key, eq, value = (_scalar(item) or "").partition("=")
        if eq:
            pairs.append((key.strip(), value, item))
    for item in _seq(_get(entry, "envs")) or _seq(_get(entry, "env")) or []:
        path = posixpath.normpath(posixpath.join(directory, _scalar(item) or ""))
        data, problem, _ = _read(path)
        if data is None:
            built.unread.append((_at(label, item), f"{path}: {problem}; `kustomize build` stops here"))
            continue
        built.files.append(path)
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            key, eq, value = text.partition("=")
            if eq:
                mark = yaml.Mark(path, 0, number - 1, 0, "", 0)
                pairs.append((key.strip(), value, yaml.ScalarNode(_STR, value, mark, mark)))
    if _seq(_get(entry, "files")):
        built.unread.append((_at(label, _get(entry, "files")), f"ConfigMap {name}'s `files` (read as keys)"))
    mark = entry.start_mark
    data_pairs = [
        (yaml.ScalarNode(_STR, k, node.start_mark, node.end_mark), _str_node(v, node)) for k, v, node in pairs
    ]
    metadata = yaml.MappingNode(_MAP, [(_str_node("name", entry), _str_node(name, entry))], mark, mark)
    return yaml.MappingNode(
        _MAP,
        [
            (_str_node("apiVersion", entry), _str_node("v1", entry)),
            (_str_node("kind", entry), _str_node("ConfigMap", entry)),
            (_str_node("metadata", entry), metadata),
            (_str_node("data", entry), yaml.MappingNode(_MAP, data_pairs, mark, mark)),
        ],
        mark,
        mark,
    )


def _str_node(text: str, at: Any) -> Any:
    import yaml

    return yaml.ScalarNode(_STR, text, at.start_mark, at.end_mark)


# --- patches ----------------------------------------------------------------------------------------------


def _selected(doc: Any, target: Any, patch: Any) -> bool:
    """Whether a patch applies to a document: its ``target`` (kind, name (a regular expression, anchored,
    as kustomize's selector reads it), namespace, group, version, labelSelector ``k=v,...``), else the
    patch's own kind and name (a strategic-merge patch names the resource it patches)."""
    kind = _scalar(_get(doc, "kind")) or ""
    meta = _get(doc, "metadata")
    name = _scalar(_get(meta, "name")) or ""
    api = _scalar(_get(doc, "apiVersion")) or ""
    group, _, version = api.rpartition("/")
    if target is None:
        p_meta = _get(patch, "metadata")
        return kind == (_scalar(_get(patch, "kind")) or "") and name == (_scalar(_get(p_meta, "name")) or "")
    checks: list[tuple[str, str]] = [
        (_scalar(_get(target, "kind")) or "", kind),
        (_scalar(_get(target, "namespace")) or "", _scalar(_get(meta, "namespace")) or ""),
        (_scalar(_get(target, "group")) or "", group),
        (_scalar(_get(target, "version")) or "", version),
    ]
    if any(want and want != have for want, have in checks):
        return False
    wanted_name = _scalar(_get(target, "name"))
    if wanted_name and re.fullmatch(wanted_name, name) is None:
        return False
    labels = dict((k, _scalar(v) or "") for k, v in _items(_get(meta, "labels")))
    for term in (_scalar(_get(target, "labelSelector")) or "").split(","):
        key, eq, value = term.partition("=")
        if eq and labels.get(key.strip()) != value.strip():
            return False
    return True


def _apply(docs: list[Any], patch: Any, target: Any, label: str, built: Built) -> list[Any]:
    import yaml

    json_patch = isinstance(patch, yaml.SequenceNode)
    if json_patch and target is None:
        built.unread.append((_at(label, patch), "a JSON patch without a `target`"))
        return docs
    out: list[Any] = []
    hit = False
    for doc in docs:
        if not _selected(doc, target, patch):
            out.append(doc)
            continue
        hit = True
        if json_patch:
            out.append(_json_patch(doc, patch, built))
            continue
        merged = _merge(doc, patch)
        if merged is not None:
            out.append(merged)
    if not hit:
        built.unread.append((_at(label, patch), "a patch that matches no resource of the build"))
    return out


def _directive(node: Any) -> str | None:
    return _scalar(_get(node, "$patch"))


def _merge(base: Any, patch: Any, field_name: str = "") -> Any:
    """A strategic-merge patch applied to a node (new nodes; the base is not changed). ``None``: deleted."""
    import yaml

    if isinstance(patch, yaml.MappingNode):
        directive = _directive(patch)
        if directive == "delete":
            return None
        kept = [
            (k, v) for k, v in patch.value if not (isinstance(k, yaml.ScalarNode) and k.value.startswith("$"))
        ]
        if directive == "replace" or not isinstance(base, yaml.MappingNode):
            return yaml.MappingNode(_MAP, kept, patch.start_mark, patch.end_mark)
        pairs = list(base.value)
        for key, value in kept:
            name = str(key.value)
            index = next((i for i, (k, _) in enumerate(pairs) if str(k.value) == name), None)
            if isinstance(value, yaml.ScalarNode) and value.tag.endswith(":null"):
                if index is not None:
                    del pairs[index]
                continue
            if index is None:
                pairs.append((key, value))
            else:
                merged = _merge(pairs[index][1], value, name)
                if merged is None:
                    del pairs[index]
                else:
                    pairs[index] = (pairs[index][0], merged)
        return yaml.MappingNode(_MAP, pairs, base.start_mark, base.end_mark)
    if (
        isinstance(patch, yaml.SequenceNode)
        and isinstance(base, yaml.SequenceNode)
        and field_name in MERGE_KEYS
    ):
        return _merge_list(base, patch, MERGE_KEYS[field_name])
    return patch


def strategic_merge(base: Any, patch: Any) -> Any:
    """A strategic-merge patch (:func:`_merge`) for other readers of patched pod templates (pods.py: an
    RBG role's leader and worker patches)."""
    return _merge(base, patch)


def _merge_list(base: Any, patch: Any, key: str) -> Any:
    import yaml

    items = list(base.value)
    for item in patch.value:
        wanted = _scalar(_get(item, key))
        index = next(
            (i for i, b in enumerate(items) if wanted is not None and _scalar(_get(b, key)) == wanted), None
        )
        if _directive(item) == "replace" and not _items(item)[1:]:
            return yaml.SequenceNode(_SEQ, [], patch.start_mark, patch.end_mark)  # `- $patch: replace`
        if index is None:
            if _directive(item) != "delete":
                items.append(_merge(None, item))
            continue
        merged = _merge(items[index], item)
        if merged is None:
            del items[index]
        else:
            items[index] = merged
    return yaml.SequenceNode(_SEQ, items, base.start_mark, base.end_mark)


def _json_patch(doc: Any, ops: Any, built: Built) -> Any:
    """RFC 6902 ``add``, ``replace`` and ``remove`` on a copy of the document; other operations are named
    as not applied."""
    result = _copy(doc)
    for op in _seq(ops) or []:
        kind = _scalar(_get(op, "op")) or ""
        path = _scalar(_get(op, "path")) or ""
        steps = [s.replace("~1", "/").replace("~0", "~") for s in path.split("/")[1:]]
        if kind not in ("add", "replace", "remove") or not steps:
            built.unread.append((_at("", op), f"the JSON patch operation {kind!r} at {path!r}"))
            continue
        parent = _walk(result, steps[:-1])
        if parent is None or not _pointer_set(parent, steps[-1], kind, _get(op, "value")):
            built.unread.append((_at("", op), f"the JSON patch path {path!r} (not in the resource)"))
    return result


def _walk(node: Any, steps: list[str]) -> Any:
    import yaml

    for step in steps:
        if isinstance(node, yaml.MappingNode):
            node = _get(node, step)
        elif isinstance(node, yaml.SequenceNode) and step.isdigit() and int(step) < len(node.value):
            node = node.value[int(step)]
        else:
            return None
    return node


def _pointer_set(parent: Any, step: str, kind: str, value: Any) -> bool:
    import yaml

    if isinstance(parent, yaml.MappingNode):
        index = next((i for i, (k, _) in enumerate(parent.value) if str(k.value) == step), None)
        if kind == "remove":
            if index is None:
                return False
            del parent.value[index]
        elif index is None:
            if kind == "replace":
                return False
            parent.value.append((_str_node(step, value), value))
        else:
            parent.value[index] = (parent.value[index][0], value)
        return True
    if isinstance(parent, yaml.SequenceNode):
        if step == "-" and kind == "add":
            parent.value.append(value)
            return True
        if not step.isdigit() or int(step) > len(parent.value) - (0 if kind == "add" else 1):
            return False
        position = int(step)
        if kind == "add":
            parent.value.insert(position, value)
        elif kind == "replace":
            parent.value[position] = value
        else:
            del parent.value[position]
        return True
    return False


def _copy(node: Any) -> Any:
    """A copy of a document's mappings and lists (scalars are shared: nothing here changes one in place,
    except a Service's name under ``namePrefix``, which is copied there)."""
    import yaml

    if isinstance(node, yaml.MappingNode):
        return yaml.MappingNode(_MAP, [(k, _copy(v)) for k, v in node.value], node.start_mark, node.end_mark)
    if isinstance(node, yaml.SequenceNode):
        return yaml.SequenceNode(_SEQ, [_copy(v) for v in node.value], node.start_mark, node.end_mark)
    return node


# --- images -----------------------------------------------------------------------------------------------


def _containers(node: Any) -> Iterator[Any]:
    """Every container mapping under a document (any depth: workloads, CronJobs, serving resources)."""
    import yaml

    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, yaml.MappingNode):
            for key, value in current.value:
                if str(key.value) in ("containers", "initContainers") and isinstance(
                    value, yaml.SequenceNode
                ):
                    yield from value.value
                stack.append(value)
        elif isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)


def _image_name(image: str) -> str:
    """An image reference without its tag or digest (a registry port's colon is part of the name)."""
    name = image.split("@", 1)[0]
    slash = name.rfind("/")
    colon = name.rfind(":")
    return name[:colon] if colon > slash else name


def _set_images(docs: list[Any], entry: Any) -> None:
    import yaml

    name = _scalar(_get(entry, "name"))
    if not name:
        return
    new_name = _scalar(_get(entry, "newName"))
    new_tag = _scalar(_get(entry, "newTag"))
    digest = _scalar(_get(entry, "digest"))

    def replace(image: str) -> str:
        tag = ""
        base = image.split("@", 1)[0]
        stem = _image_name(image)
        if len(base) > len(stem):
            tag = base[len(stem) :]
        suffix = f"@{digest}" if digest else (f":{new_tag}" if new_tag else tag)
        return f"{new_name or stem}{suffix}"

    for doc in docs:
        for container in _containers(doc):
            node = _get(container, "image")
            if isinstance(node, yaml.ScalarNode) and _image_name(node.value) == name:
                index = next(i for i, (k, _) in enumerate(container.value) if str(k.value) == "image")
                container.value[index] = (container.value[index][0], _str_node(replace(node.value), node))
