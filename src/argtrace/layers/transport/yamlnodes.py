"""YAML nodes with line numbers: how compose files and Kubernetes manifests are read.

This module owns loading a YAML stream into PyYAML's composed nodes (never constructed Python objects, so
every value keeps its line) and the few accessors the manifest readers use (``_get``, ``_items``,
``_scalar``, ``_seq``, ``_line``).
"""

from __future__ import annotations

from typing import Any


def _load_yaml_nodes(data: bytes, label: str) -> list[Any]:
    import yaml

    from argtrace.model import UsageError

    try:
        return [
            n
            for n in yaml.compose_all(data.decode("utf-8", "replace"), Loader=yaml.SafeLoader)
            if n is not None
        ]
    except yaml.YAMLError as exc:
        raise UsageError(f"{label}: not valid YAML: {exc}") from exc


def _get(node: Any, key: str) -> Any:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _items(node: Any) -> list[tuple[str, Any]]:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return []
    return [(str(k.value), v) for k, v in node.value if isinstance(k, yaml.ScalarNode)]


def _line(label: str, node: Any) -> str:
    return f"{label}:{node.start_mark.line + 1}" if node is not None else label


def _scalar(node: Any) -> str | None:
    import yaml

    if isinstance(node, yaml.ScalarNode):
        if node.tag.endswith(":null"):
            return None
        return str(node.value)
    return None


def _seq(node: Any) -> list[Any] | None:
    import yaml

    return list(node.value) if isinstance(node, yaml.SequenceNode) else None
