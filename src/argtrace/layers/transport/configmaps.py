"""Kubernetes ConfigMaps of the same manifest as a container's environment (``envFrom``/``configMapKeyRef``).

This module owns reading the ConfigMaps a manifest declares and the variables a container takes from them,
in the kubelet's order (``makeEnvironmentVariables``, kubernetes ``pkg/kubelet/kubelet_pods.go``; the
documented rules of the Container API, kubernetes.io/docs/reference/kubernetes-api/workload-resources/
pod-v1/#environment-variables):

* ``envFrom``: "List of sources to populate environment variables in the container ... When a key exists
  in multiple sources, the value associated with the last source will take precedence. Values defined by
  an Env with a duplicate key will take precedence"; ``prefix`` is "An optional identifier to prepend to
  each key in the ConfigMap";
* ``env[].valueFrom.configMapKeyRef``: the value of one key;
* then ``command``/``args`` ``$(VAR)`` references "are expanded using the container's environment", the
  variables from ``envFrom`` included.

A ConfigMap is read only when a document of the same file declares it (same name and namespace); a source
the file does not declare (or a ``secretRef``) is the cluster's: its names and values stay unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from argtrace.layers.transport.yamlnodes import _get, _items, _line, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SHELL_REF = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class FromConfigMaps:
    """What a container's ``envFrom`` gives it from the file's ConfigMaps."""

    values: dict[str, str] = field(default_factory=dict)
    origins: dict[str, str] = field(default_factory=dict)  # name -> the ConfigMap key's FILE:LINE
    unresolved: list[str] = field(default_factory=list)  # sources not declared in the file, as written
    read: list[dict[str, str]] = field(default_factory=list)  # for the hop: configMap, at


# (namespace, name) -> ({key: (value, FILE:LINE)}, the ConfigMap document's FILE:LINE)
ConfigMaps = dict[tuple[str, str], tuple[dict[str, tuple[str, str]], str]]


def _namespace(doc: Any) -> str:
    return _scalar(_get(_get(doc, "metadata"), "namespace")) or "default"


def config_maps(
    docs: Sequence[Any], label: str
) -> dict[tuple[str, str], tuple[dict[str, tuple[str, str]], str]]:
    """The manifest's ConfigMaps: (namespace, name) -> ({key: (value, FILE:LINE)}, the document's FILE:LINE).
    ``data`` values are strings; ``binaryData`` is not an environment value."""
    out: ConfigMaps = {}
    for doc in docs:
        listed = (_seq(_get(doc, "items")) or []) if _scalar(_get(doc, "kind")) == "List" else [doc]
        for item in listed:
            if _scalar(_get(item, "kind")) != "ConfigMap":
                continue
            name = _scalar(_get(_get(item, "metadata"), "name"))
            if not name:
                continue
            data = {k: (_scalar(v) or "", _line(label, v)) for k, v in _items(_get(item, "data"))}
            out[(_namespace(item), name)] = (data, _line(label, item))
    return out


def env_from(maps: ConfigMaps, owner: Any, container: Any) -> FromConfigMaps:
    """The variables of the container's ``envFrom`` sources that the file declares, later sources winning."""
    out = FromConfigMaps()
    namespace = _namespace(owner)
    for source in _seq(_get(container, "envFrom")) or []:
        ref = _get(source, "configMapRef")
        name = _scalar(_get(ref, "name")) if ref is not None else None
        found = maps.get((namespace, name)) if name else None
        if found is None:
            kind = (
                "configMapRef" if ref is not None else "secretRef" if _get(source, "secretRef") else "source"
            )
            shown = _scalar(_get(ref if ref is not None else _get(source, "secretRef"), "name")) or "?"
            out.unresolved.append(f"{kind} {shown}")
            continue
        prefix = _scalar(_get(source, "prefix")) or ""
        data, at = found
        out.read.append({"configMap": name or "", "at": at})
        for key, (value, key_at) in data.items():
            out.values[prefix + key] = value
            out.origins[prefix + key] = key_at
    return out


def config_map_key(maps: ConfigMaps, owner: Any, env_item: Any) -> tuple[str, str] | None:
    """``valueFrom.configMapKeyRef`` of one ``env`` entry: (value, FILE:LINE of the key) when the file's
    ConfigMap has that key, else None (the cluster's)."""
    ref = _get(_get(env_item, "valueFrom"), "configMapKeyRef")
    if ref is None:
        return None
    name, key = _scalar(_get(ref, "name")), _scalar(_get(ref, "key"))
    found = maps.get((_namespace(owner), name or "")) if name else None
    if found is None or key is None or key not in found[0]:
        return None
    return found[0][key]


def maybe_from_env_from(
    container: Any, env: Mapping[str, str | None], unresolved: Sequence[str]
) -> dict[str, str]:
    """The names a shell script in the container's ``command``/``args`` reads (``$NAME``, ``${NAME}``) that
    its ``env`` does not set, when an ``envFrom`` source the file does not declare may set them: name ->
    why its value is unknown (not "unset": the kubelet may give it)."""
    if not unresolved:
        return {}
    why = f"may be set by envFrom {', '.join(unresolved)} (not in this file): its keys are the cluster's"
    out: dict[str, str] = {}
    for field_name in ("command", "args"):
        for item in _seq(_get(container, field_name)) or []:
            for m in _SHELL_REF.finditer(_scalar(item) or ""):
                if m.group(1) not in env:
                    out[m.group(1)] = why
    return out
