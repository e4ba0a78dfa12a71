"""``argtrace check task-definition.json``: an Amazon ECS task definition as the launch carrier.

This module owns reading a task definition's ``containerDefinitions`` (the JSON ``aws ecs
register-task-definition --cli-input-json`` takes, and ``aws ecs describe-task-definition`` prints under
``taskDefinition``) into the processes their containers start, following the ECS API reference
(``ContainerDefinition``): ``entryPoint`` replaces the image's ENTRYPOINT and ``command`` its CMD, as
``docker run --entrypoint`` and the words after the image do, and neither passes through a shell (the
reference: "the Docker daemon doesn't run a shell", so ``$NAME`` and ``>`` are literal: TP013);
``environment`` is a list of ``{"name", "value"}``; ``secrets`` are fetched from Secrets Manager or SSM by
the agent (their values are not known here), and ``environmentFiles`` are S3 objects not read here, so every
name is then unknown rather than unset; ``resourceRequirements`` of type ``GPU`` is the container's GPUs.
The container argv and environment then go to :mod:`.containers` like a compose service's.
"""

from __future__ import annotations

from dataclasses import replace

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
from argtrace.layers.transport.yamlnodes import _get, _line, _scalar, _seq
from argtrace.model import Finding, Origin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def container_definitions(root: Any) -> list[Any]:
    """The container definition nodes of a task definition (also under ``describe-task-definition``'s
    ``taskDefinition`` key), or an empty list."""
    task = _get(root, "taskDefinition") or root
    return _seq(_get(task, "containerDefinitions")) or []


def is_task_definition(doc: Any) -> bool:
    """A JSON task definition: an object with a ``containerDefinitions`` list (at its top or under
    ``taskDefinition``)."""
    if not isinstance(doc, dict):
        return False
    task = doc.get("taskDefinition", doc)
    return isinstance(task, dict) and isinstance(task.get("containerDefinitions"), list)


def _words(node: Any) -> list[str] | None:
    items = _seq(node)
    if items is None:
        return None
    return [_scalar(item) or "" for item in items]


def analyze_task_definition(label: str, root: Any, container: str | None, result: TransportResult) -> None:
    """The servers of each container definition (or of the one named ``container``)."""
    from argtrace.model import UsageError

    definitions = container_definitions(root)
    if container is not None:
        definitions = [d for d in definitions if _scalar(_get(d, "name")) == container]
        if not definitions:
            raise UsageError(f"{label}: no container definition named {container!r}")
    for definition in definitions:
        name = _scalar(_get(definition, "name")) or "?"
        image = _scalar(_get(definition, "image")) or ""
        entrypoint = _words(_get(definition, "entryPoint"))
        command = _words(_get(definition, "command"))
        at = _line(label, _get(definition, "command") or _get(definition, "entryPoint") or definition)
        env: dict[str, str | None] = {}
        origins: dict[str, Origin] = {}
        for item in _seq(_get(definition, "environment")) or []:
            key = _scalar(_get(item, "name"))
            if key:
                env[key] = _scalar(_get(item, "value")) or ""
        for item in _seq(_get(definition, "secrets")) or []:
            key = _scalar(_get(item, "name"))
            if key:
                env[key] = None
                origins[key] = Origin(
                    at=_line(label, item),
                    known=False,
                    reason=f"an ECS secret from {_scalar(_get(item, 'valueFrom')) or 'valueFrom'}",
                )
        files = [_scalar(_get(f, "value")) or "?" for f in _seq(_get(definition, "environmentFiles")) or []]
        final, image_ep = container_argv(image, entrypoint, command)
        hop: dict[str, Any] = {
            "at": at,
            "via": "ecs",
            "container": name,
            "image": image,
            "entrypoint": entrypoint if entrypoint is not None else (list(image_ep) if image_ep else None),
            "command": command,
            "argv": final,
            "environment": sorted(env),
        }
        if files:
            hop["env_files"] = files  # S3 objects, not read: their names are unknown, not unset
        result.hops.append(hop)
        assumed = None
        said = len(result.findings)
        if command:
            assumed = _entrypoint_findings(at, image, entrypoint, command, result, how="`command`")
            _exec_form_findings(at, command, result, how=f"container {name}'s `command` list", final=final)
        elif entrypoint:
            how = f"container {name}'s `entryPoint` list"
            _exec_form_findings(at, entrypoint, result, how=how, final=final)
        result.findings[said:] = [_ecs_fix(f) for f in result.findings[said:]]
        before = len(result.servers)
        known, why = _image_path(env, origins, at, image)
        _container_servers(at, final, known, why, f"ECS container {name}", result)
        _tag_image(result, before, image, assumed)
        _image_started(at, image, known, result, before)
        gpus = _gpus(definition)
        if gpus is not None:
            result.servers[before:] = [
                replace(s, gpus=gpus, gpus_from=f"container {name}'s resourceRequirements (GPU)")
                for s in result.servers[before:]
            ]
        result.keep_secrets(env)


def _ecs_fix(finding: Finding) -> Finding:
    """TP013's fix in ECS's terms: no substitution exists there (the Kubernetes `$(NAME)` fix would stay
    literal too), so the command needs a shell."""
    if finding.code != "TP013":
        return finding
    return replace(
        finding,
        fix='ECS runs `command` without a shell and substitutes nothing: start it with `"entryPoint": '
        '["/bin/sh", "-c"]` and one `command` string (`"exec vllm serve ... --api-key \\"$API_KEY\\""`), '
        "so the container's shell expands the variable from `environment` or `secrets`; or drop the shell "
        "syntax.",
    )


def _gpus(definition: Any) -> int | None:
    for item in _seq(_get(definition, "resourceRequirements")) or []:
        if (_scalar(_get(item, "type")) or "").upper() == "GPU":
            value = _scalar(_get(item, "value")) or ""
            return int(value) if value.isdigit() else None
    return None
