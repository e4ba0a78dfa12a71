"""``argtrace check compose.yaml`` / ``pod.yaml``: reading a file ``manifests.py`` told apart as a manifest.

This module owns the ``--service``/``--container`` selection and the layer's entry point for a manifest
(:func:`analyze_manifest`), moved from ``manifests.py`` (which tells a manifest from a script, every check)
so a check of a script does not read them (unrun37).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence

from argtrace.layers.transport.context import TransportResult, _scrubbed
from argtrace.layers.transport.manifests import _has_include, manifest_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.transport.skypilot import FollowScript


def manifest_selection(
    words: Sequence[str], service: str | None = None, container: str | None = None
) -> tuple[str | None, str | None]:
    """``--service NAME`` / ``--container NAME`` given after the manifest's path (where a script's
    arguments would go): a manifest takes no other arguments."""
    from argtrace.model import UsageError

    i = 0
    while i < len(words):
        word = words[i]
        name, eq, value = word.partition("=")
        if name in ("--service", "--container"):
            if not eq:
                if i + 1 >= len(words):
                    raise UsageError(f"{name} needs a NAME")
                value = words[i + 1]
                i += 1
            if name == "--service":
                service = value
            else:
                container = value
            i += 1
            continue
        raise UsageError(
            f"{word!r}: a compose file or Kubernetes manifest takes no script arguments "
            "(only --service NAME / --container NAME)"
        )
    return service, container


def analyze_manifest(
    source: ScriptSource,
    *,
    env: Mapping[str, str],
    service: str | None = None,
    container: str | None = None,
    dotenv: Mapping[str, str] | None = None,
    given: Mapping[str, str] | None = None,
    follow: FollowScript | None = None,
    run_args: Sequence[str] | None = None,
    release: str | None = None,
) -> TransportResult:
    """The server commands of a docker compose file, Kubernetes manifest, systemd unit or SkyPilot task,
    with transport findings. ``given``: the variables passed with ``--env`` (a unit's manager environment,
    a task's ``sky launch --env``); ``env`` when not told apart. ``follow``: ``analyze_transport``, for the
    commands inside a task's scripts."""
    # imported here, not at the top: telling a script from a manifest (every ``check``) needs no YAML
    from argtrace.layers.transport.compose import _compose
    from argtrace.layers.transport.envfiles import read_dotenv
    from argtrace.layers.transport.kubernetes import _kubernetes
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import UsageError
    from argtrace.rules import transport as R

    kind = manifest_kind(source.data)
    if kind == "dockerfile":
        from argtrace.layers.transport.dockerfile import analyze_dockerfile

        image = analyze_dockerfile(
            source.label,
            source.data,
            run_args=run_args,
            run_env=given if given is not None else env,
            release=release,
        )
        return _scrubbed(image, {})
    if kind == "quadlet":
        from argtrace.layers.transport.quadlet import analyze_quadlet

        quadlet = analyze_quadlet(source, manager_env=given if given is not None else {}, release=release)
        return _scrubbed(quadlet, {})
    if kind == "workflow":
        from argtrace.layers.transport.workflow import analyze_workflow

        workflow = analyze_workflow(source, given=given if given is not None else {}, follow=follow)
        return _scrubbed(workflow, {})
    if kind == "systemd":
        from argtrace.layers.transport.systemd import analyze_unit

        unit = analyze_unit(source, manager_env=given if given is not None else {})
        return _scrubbed(unit, {})
    if kind == "supervisor":
        from argtrace.layers.transport.supervisor import analyze_supervisor

        programs = analyze_supervisor(source, supervisord_env=given if given is not None else env)
        return _scrubbed(programs, {})
    if kind == "skypilot":
        from argtrace.layers.transport.skypilot import analyze_task

        task = analyze_task(source, given=given if given is not None else {}, follow=follow)
        return _scrubbed(task, {})
    if kind == "dstack":
        from argtrace.layers.transport.dstack import analyze_run_config

        run = analyze_run_config(source, given=given if given is not None else {}, follow=follow)
        return _scrubbed(run, {})
    if kind == "rayserve":
        from argtrace.layers.transport.rayserve import analyze_serve_config

        return _scrubbed(analyze_serve_config(source.label, source.data), {})
    if kind == "kustomize":
        from argtrace.layers.transport.kustomize import build
        from argtrace.rules.deployers import TP092

        built = build(source.label, source.data)
        result = TransportResult()
        for where, what in built.unread:
            result.findings.append(
                TP092.finding(
                    f"argtrace did not apply {what} of this kustomization: the containers are read as the "
                    "build without it",
                    at=where,
                )
            )
        _kubernetes(source.label, built.docs, container, result)
        return _scrubbed(result, env)
    documents = _load_yaml_nodes(source.data, source.label)
    nodes = documents.nodes
    if not nodes and documents.skipped:
        where, why = documents.skipped[0]
        raise UsageError(f"{where}: {why}: argtrace cannot read it, and the file has no other document")
    result = TransportResult()
    for where, why in documents.skipped:
        # the other documents are analysed: say which one was not, where the limit was crossed
        result.findings.append(
            R.TP018.finding(
                f"{why} here: argtrace skipped this document and read the others, so a container it "
                "declares is not checked",
                at=where,
            )
        )
    if kind == "ecs":
        from argtrace.layers.transport.ecs import analyze_task_definition

        analyze_task_definition(source.label, nodes[0] if nodes else None, container, result)
        return _scrubbed(result, env)
    if kind == "compose":
        from argtrace.layers.transport.compose_project import base_dir, remember_project

        # a fragment of the project above it (its env files are there, not beside it): that directory's
        # `.env` and relative paths, as `docker compose -f PROJECT/compose.yml -f FILE` reads them
        project = remember_project(source.label, nodes[0] if nodes else None)
        if project is not None:
            from argtrace.rules.carriers import TP106

            result.findings.append(
                TP106.finding(
                    f"{source.label} is read as part of the compose project in {project[0]}: its env files "
                    f"are there, beside {project[1]}, not beside it, so docker compose runs it after that "
                    f"file (`docker compose -f {posixpath.join(project[0], project[1])} -f {source.label}`) "
                    "and reads .env and its relative paths from that directory",
                    at=source.label,
                    basis="assumed",
                )
            )
    if kind == "compose" and dotenv is None:
        dotenv = read_dotenv(posixpath.join(base_dir(source.label), ".env"), env)
    if kind == "compose":
        from argtrace.layers.transport.compose_dotenv import compose_file_checks

        _compose(source.label, nodes[0] if nodes else None, {**(dotenv or {}), **env}, service, result)
        compose_file_checks(source.label, nodes[0] if nodes else None, result)
        if nodes and _has_include(nodes[0]):
            from argtrace.layers.transport.compose_include import follow_includes

            def read_services(
                label: str, root: object, merged: Mapping[str, str], into: TransportResult
            ) -> None:
                _compose(label, root, merged, service, into)
                compose_file_checks(label, root, into)

            follow_includes(source.label, nodes[0], env, base_dir(source.label), read_services, result)
    elif kind == "kubernetes":
        _kubernetes(source.label, nodes, container, result)
    else:
        raise UsageError(f"{source.label}: neither a docker compose file nor a Kubernetes manifest")
    return _scrubbed(result, {**(dotenv or {}), **env})
