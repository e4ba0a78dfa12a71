"""``argtrace check compose.yaml`` / ``pod.yaml``: a manifest instead of a script.

This module owns telling a compose file or Kubernetes manifest apart from a script or a framework's own
``--config`` YAML by its content (:func:`manifest_kind`), the ``--service``/``--container`` selection
given where a script's arguments would go, and :func:`~.manifest_read.analyze_manifest`, the layer's entry
point for a manifest (compose: :mod:`.compose`; Kubernetes: :mod:`.kubernetes`), in ``manifest_read.py``:
read when the file is a manifest, not by a check of a script.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    pass


def manifest_kind(data: bytes) -> str | None:
    """``"compose"``, ``"kubernetes"``, ``"systemd"`` (a service unit), ``"skypilot"`` (a task YAML),
    ``"rayserve"`` (a Ray Serve LLM serve config), ``"supervisor"`` (a Supervisor configuration),
    ``"dockerfile"``, ``"quadlet"`` (a Podman ``.container``
    file), ``"workflow"`` (a GitHub Actions workflow or composite action), ``"dstack"`` (a dstack run
    configuration), ``"kustomize"`` (a Kustomization: the manifests it builds are read) or ``None`` (a
    script, or a
    framework's own ``--config`` YAML)."""
    head = data[:65536]
    if head.startswith(b"#!") or b"\x00" in head:
        return None
    if head.lstrip()[:1] == b"{":
        return _json_kind(data)
    text = head.decode("utf-8", "replace")
    if re.search(r"(?im)^[ \t]*FROM[ \t]+\S", text):
        from argtrace.layers.transport.dockerfile import is_dockerfile

        if is_dockerfile(head):
            return "dockerfile"
    if "[Container]" in text:
        from argtrace.layers.transport.quadlet import is_quadlet

        if is_quadlet(head):
            return "quadlet"
    if re.search(r"(?m)^jobs\s*:", text) or re.search(r"(?m)^runs\s*:", text):
        from argtrace.layers.transport.workflow import is_workflow

        if is_workflow(head):
            return "workflow"
    if _is_compose(text) and not _script_writing_yaml(data, text, _is_compose):
        return "compose"
    if re.search(r"(?m)^(kind|apiVersion):\s*[\"']?(Kustomization|kustomize\.config\.k8s\.io/)", text):
        from argtrace.layers.transport.kustomize import is_kustomization

        if is_kustomization(head):
            return "kustomize"
    if _is_kubernetes(text) and not _script_writing_yaml(data, text, _is_kubernetes):
        return "kubernetes"
    if "[program:" in text:
        from argtrace.layers.transport.supervisor import is_supervisor_conf

        if is_supervisor_conf(head):
            return "supervisor"
    if b"[Service]" in head:
        from argtrace.layers.transport.systemd import is_unit

        if is_unit(head):
            return "systemd"
    if re.search(r"(?m)^(run|setup)\s*:", text):
        from argtrace.layers.transport.skypilot import is_task

        if is_task(head):
            return "skypilot"
    if re.search(r"(?m)^type\s*:", text):
        from argtrace.layers.transport.dstack import is_run_config

        if is_run_config(head):
            return "dstack"
    if re.search(r"(?m)^(applications|model_loading_config)\s*:", text):
        from argtrace.layers.transport.rayserve import is_serve_config

        if is_serve_config(head):
            return "rayserve"
    return None


def _is_compose(text: str) -> bool:
    if re.search(r"(?m)^services:\s*(#.*)?$", text) is not None:
        return True
    from argtrace.layers.transport.compose_include import is_including_compose

    return "include:" in text and is_including_compose(text)  # a project of `include:`d compose files


def _has_include(root: object) -> bool:
    from argtrace.layers.transport.yamlnodes import _get

    return _get(root, "include") is not None


def _is_kubernetes(text: str) -> bool:
    return (
        re.search(r"(?m)^apiVersion:\s*\S", text) is not None
        and re.search(r"(?m)^kind:\s*\S", text) is not None
    )


# A shell heredoc's opener (`cat <<EOF >> pod.yaml`, `<<-'END'`): not a here-string (`<<<`), not YAML's merge
# key (`<<: *defaults`)
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")


def _outside_heredocs(text: str) -> str:
    """``text`` without the bodies of its shell heredocs (each up to its terminator line, bash's rule: the
    word alone on a line, leading tabs stripped after ``<<-``)."""
    lines = text.split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        kept.append(lines[i])
        opener = _HEREDOC.search(lines[i])
        i += 1
        if opener is None or lines[i - 1].lstrip().startswith("#"):
            continue
        word, tabs = opener[3], opener[1] == "-"
        while i < len(lines) and (lines[i].lstrip("\t") if tabs else lines[i]) != word:
            i += 1
        i += 1  # the terminator
    return "\n".join(kept)


def _script_writing_yaml(data: bytes, text: str, marks: Callable[[str], bool]) -> bool:
    """A shell script that writes a manifest through a heredoc (``cat <<EOF > pod.yaml``, then ``kubectl apply
    -f pod.yaml``): the manifest's keys are only in heredoc bodies, and the file is not YAML. Read as a
    manifest, it was refused as "not valid YAML" (aws-cdk-stacks' install-vllm-meta-llama.sh)."""
    if "<<" not in text or marks(_outside_heredocs(text)):
        return False
    import yaml

    try:
        for _ in yaml.safe_load_all(data):
            pass
    except yaml.YAMLError:
        return True
    return False


def _json_kind(data: bytes) -> str | None:
    """A JSON document is YAML (the YAML loader reads it, with its line numbers): a Kubernetes object
    (``kubectl get deployment vllm -o json``, a ``List`` of them) or a compose file (the Compose
    specification allows JSON), told by its top-level keys."""
    from argtrace import safe_json

    try:
        doc = safe_json.loads(data)
    except ValueError:
        return None
    if not isinstance(doc, dict):
        return None
    if isinstance(doc.get("apiVersion"), str) and isinstance(doc.get("kind"), str):
        return "kubernetes"
    if isinstance(doc.get("services"), dict):
        return "compose"
    from argtrace.layers.transport.ecs import is_task_definition

    return "ecs" if is_task_definition(doc) else None


def json_not_a_launch(label: str, data: bytes) -> str | None:
    """Why a JSON document that is neither a Kubernetes object nor a compose file is no launch argtrace
    reads, or ``None`` (not JSON). Read as a shell script its braces and quoted keys only give bash syntax
    errors about commands that never run."""
    head = data[:65536]
    if head.lstrip()[:1] not in (b"{", b"[") or head.startswith(b"#!") or manifest_kind(data) is not None:
        return None
    import json

    from argtrace import safe_json

    try:
        safe_json.loads(data)  # JSON, but of no kind manifest_kind knows
    except json.JSONDecodeError as exc:
        if exc.msg != "nested too deeply":
            return None
        return f"{label}: JSON nested deeper than Python's decoder reads, so argtrace cannot read it"
    except ValueError:
        return None
    what = (
        "neither a Kubernetes object (`apiVersion` and `kind`), a compose file (`services`) nor an ECS task "
        "definition (`containerDefinitions`)"
    )
    return (
        f"{label}: JSON, {what}, so there is no launch here to check. Check the container's command line "
        "(`argtrace check -c 'docker run IMAGE ARGS...'`), or the manifest or compose file that starts it; "
        "a framework's own JSON value (`--speculative-config`, `--hf-overrides`) is checked with the command "
        "that passes it."
    )


def yaml_not_a_launch(label: str, data: bytes) -> str | None:
    """Why a ``.yaml``/``.yml`` file that is neither a compose file nor a Kubernetes manifest is no launch
    argtrace can read (a Helm values file, a framework's own ``--config``), or ``None``. Read as a shell
    script its ``- item`` and ``key:`` lines only give shell findings about commands that never run
    (production-stack#276's values file: SH004 "line 5 starts with `-`")."""
    if not label.lower().endswith((".yaml", ".yml")) or manifest_kind(data) is not None:
        return None
    head = data[:65536]
    if head.startswith(b"#!") or b"\x00" in head:
        return None
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes
    from argtrace.model import UsageError

    try:
        nodes = _load_yaml_nodes(data, label).nodes
    except UsageError:
        return None  # not YAML either: read as the script it may be
    if not nodes or getattr(nodes[0], "id", "") != "mapping":
        return None
    keys = {getattr(k, "value", None) for k, _ in nodes[0].value}
    if keys & {"services", "apiVersion", "kind"}:
        # a compose file or manifest in a form manifest_kind does not see (`services: []`)
        return None
    return (
        f"{label}: YAML, but neither a docker compose file (top-level `services:`) nor a Kubernetes "
        "manifest (`apiVersion:` and `kind:`), so there is no launch here to check. Helm values are turned "
        "into manifests by their chart: check what it renders (`helm template RELEASE CHART -f "
        f"{label} > rendered.yaml`, then `argtrace check rendered.yaml`); a framework's own --config YAML "
        "is checked with the command that names it."
    )


# HCL's block headers: `resource "TYPE" "NAME" {` (Terraform), `job "NAME" {` (Nomad), `variable "x" {`
_HCL_BLOCK = re.compile(
    r"(?m)^[ \t]*(resource|data|module|provider|variable|locals|terraform|output|job|group|task)"
    r'([ \t]+"[^"\n]*")*[ \t]*\{[ \t]*(#.*)?$'
)


def hcl_not_a_launch(label: str, data: bytes) -> str | None:
    """Why a Terraform or Nomad HCL file (``.tf``, ``.hcl``, ``.nomad``) is not read, or ``None``. Read as
    a shell script, its `key = value` lines and braces only give syntax errors about commands that never
    run (aws-ia/ecs-blueprints `vllm-gpu/main.tf`: SH001 "bash cannot parse ... line 4")."""
    name = label.lower()
    if not name.endswith((".tf", ".hcl", ".nomad")) or data[:2] == b"#!":
        return None
    head = data[:65536].decode("utf-8", "replace")
    if not _HCL_BLOCK.search(head):
        return None
    return (
        f"{label}: HCL (Terraform or Nomad), which argtrace does not read: the command, arguments and "
        "environment it gives a container (an ECS `container_definitions`, a Nomad task's `config`) are not "
        "followed, and reading it as a shell script would only report HCL's syntax. Check the launch the "
        "file carries in a form argtrace reads: the container's command line (`argtrace check -c "
        "'docker run IMAGE ARGS...'`), or a Kubernetes manifest or compose file of it."
    )


# Windows shells' scripts: read as bash, `set NAME=value` and `$env:NAME=` only give shell findings about
# commands bash would run differently
_WINDOWS_SCRIPTS = {
    ".ps1": "a PowerShell script",
    ".psm1": "a PowerShell module",
    ".bat": "a Windows batch file",
    ".cmd": "a Windows batch file",
}


# a line only cmd.exe's language has: `@echo off`, `rem ...`, `:: ...`, `set NAME=value`
_BATCH_LINE = re.compile(r"(?im)^[ \t]*(@echo\b|rem\b|::|set[ \t]+\w+=)")


def windows_script_not_a_launch(label: str, data: bytes) -> str | None:
    """Why a PowerShell or cmd.exe script is not read, or ``None``."""
    suffix = posixpath.splitext(label.lower())[1]
    what = _WINDOWS_SCRIPTS.get(suffix)
    if what is None or data[:2] == b"#!":
        return None
    if suffix == ".cmd" and not _BATCH_LINE.search(data[:65536].decode("utf-8", "replace")):
        return None  # `.cmd` also names a saved command line (this project's own test corpus has them)
    return (
        f"{label}: {what}, which argtrace does not read: it follows bash, and PowerShell's and cmd.exe's "
        "rules for variables, quoting and environment differ. Check the server command it runs as a bash "
        "command line (`argtrace check -c 'vllm serve ...'`), with `--env NAME=value` for the variables it "
        "sets."
    )
