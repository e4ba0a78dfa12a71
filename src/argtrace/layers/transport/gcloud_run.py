"""``gcloud run deploy SERVICE --image IMAGE --command ... --args ...`` in a script: the Cloud Run service it
makes, read as the container that service runs.

Cloud Run's Admin API (v1) is Knative Serving's: ``gcloud run deploy`` writes a ``serving.knative.dev/v1``
Service whose ``spec.template.spec.containers[0]`` holds what the flags say (the gcloud reference, ``gcloud
run deploy``): ``--image``; ``--command`` ("Entrypoint for the container image", replacing the image's
ENTRYPOINT) and ``--args`` ("Comma-separated arguments passed to the command run by the container image";
without ``--command`` they follow the image's ENTRYPOINT); ``--set-env-vars``/``--update-env-vars``
(``KEY=VALUE,...``); ``--set-secrets``/``--update-secrets`` (``KEY=SECRET:VERSION``: the variable is set,
its value is the secret's, not known here); ``--port`` ("Container port to receive requests at. Also sets
the $PORT environment variable", default 8080, Cloud Run's container contract). So this module writes that
Service and reads it as ``argtrace check service.yaml`` would (``kubernetes.py``, with Knative's injected
variables from ``pods.py``): Cloud Run expands ``$(NAME)`` in ``command``/``args`` from the container's
environment and leaves anything else, ``$NAME`` included, as written (Cloud Run Admin API, Container
``args``: "Variable references $(VAR_NAME) are expanded using the container's environment. If a variable
cannot be resolved, the reference in the input string will be unchanged.").

The list and dictionary flags split as gcloud splits them (``gcloud topic escaping``): items at each comma,
unless the value starts with ``^DELIM^``, which makes DELIM the separator (``--args="^;^-c;vllm serve ..."``
is ``['-c', 'vllm serve ...']``); a dictionary item is cut at its first ``=``. The words are the ones the
local shell gave gcloud (the shell layer's expansion): ``\\$KEY`` in the script reaches Cloud Run as
``$KEY``.

Not read: ``--source`` (the image is built from a directory: its entrypoint is unknown, like any image not
in the table), ``--env-vars-file`` (named, its variables unknown), ``--container`` (several containers:
the flags after it configure another one; the whole command is then left unread), ``--clear-*`` flags
of an update, and the settings an earlier deploy left on an existing service (a deploy that names no
``--args`` keeps nothing of a previous one here).

This module owns parsing the command (``parse_run_deploy``, ``gcloud_list``), the Service it writes
(``service_yaml``) and following it (``follow_run_deploy``, TP093).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from argtrace.layers.transport.context import TransportResult

# `gcloud run deploy` flags that take a value (the command's reference page, as of 2026): the words after
# them are not the SERVICE positional. A flag not listed, written `--flag value`, is taken to take a value
# when the service name is already known (deploy takes one positional).
_VALUED = frozenset(
    {
        "--image",
        "--command",
        "--args",
        "--port",
        "--set-env-vars",
        "--update-env-vars",
        "--remove-env-vars",
        "--env-vars-file",
        "--set-secrets",
        "--update-secrets",
        "--remove-secrets",
        "--region",
        "--project",
        "--platform",
        "--service-account",
        "--cpu",
        "--memory",
        "--gpu",
        "--gpu-type",
        "--max-instances",
        "--min-instances",
        "--max",
        "--min",
        "--concurrency",
        "--timeout",
        "--add-volume",
        "--add-volume-mount",
        "--remove-volume",
        "--remove-volume-mount",
        "--network",
        "--subnet",
        "--vpc-egress",
        "--vpc-connector",
        "--labels",
        "--update-labels",
        "--remove-labels",
        "--startup-probe",
        "--liveness-probe",
        "--source",
        "--container",
        "--execution-environment",
        "--ingress",
        "--tag",
        "--revision-suffix",
        "--description",
        "--set-cloudsql-instances",
        "--add-cloudsql-instances",
        "--update-annotations",
        "--base-image",
        "--scaling",
        "--depends-on",
        "--key",
        "--binary-authorization",
        "--breakglass",
        "--account",
        "--configuration",
        "--format",
        "--verbosity",
        "--impersonate-service-account",
        "--billing-project",
        "--trace-token",
        "--function",
        "--memory-limit",
        "--cpu-limit",
        "--invoker-iam-check",
        "--service-min-instances",
        "--mesh",
        "--network-tags",
        "--custom-audiences",
        "--timeout-seconds",
        "--session-affinity",
        "--sandbox",
    }
)
_DEPLOY_PATHS = (("run", "deploy"), ("run", "services", "update"))


@dataclass
class RunDeploy:
    """What one ``gcloud run deploy`` sets in its service's container."""

    service: str | None = None
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    port: str | None = None
    env: list[tuple[str, str | None]] = field(default_factory=list)
    not_read: list[str] = field(default_factory=list)
    unknown_words: int = 0


def gcloud_list(value: str) -> list[str]:
    """A gcloud list-flag value split into items (``gcloud topic escaping``): at commas, or at DELIM when
    the value starts with ``^DELIM^``; an empty value is an empty list."""
    delimiter = ","
    if value.startswith("^") and value.count("^") >= 2:
        end = value.index("^", 1)
        if end > 1:
            delimiter, value = value[1:end], value[end + 1 :]
    return value.split(delimiter) if value else []


def _deploy_words(argv: Sequence[str | None]) -> list[str | None] | None:
    """The words after ``run deploy`` (also ``gcloud beta|alpha run deploy``), else ``None``."""
    words = list(argv[1:])
    while words and words[0] in ("beta", "alpha", "--quiet", "-q"):
        words.pop(0)
    for path in _DEPLOY_PATHS:
        if tuple(words[: len(path)]) == path:
            return words[len(path) :]
    return None


def parse_run_deploy(argv: Sequence[str | None]) -> RunDeploy | None:
    """The container ``gcloud run deploy`` sets up, or ``None`` when ``argv`` is another gcloud command."""
    words = _deploy_words(argv)
    if words is None:
        return None
    out = RunDeploy()
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word is None:
            out.unknown_words += 1  # a word the shell layer could not know: which flag it is, is unknown too
            continue
        if not word.startswith("--"):
            if out.service is None:
                out.service = word
            continue
        name, eq, value = word.partition("=")
        value_word: str | None = value if eq else None
        if not eq and (
            name in _VALUED or (out.service is not None and i < len(words) and _is_value(words[i]))
        ):
            value_word = words[i] if i < len(words) else None
            i += 1
        if value_word is None and name in _VALUED:
            out.not_read.append(f"{name} (its value is not known here)")
            continue
        _set(out, name, value_word)
    return out


def _is_value(word: str | None) -> bool:
    return word is not None and not word.startswith("-")


def _set(out: RunDeploy, name: str, value: str | None) -> None:
    if value is None:
        return
    if name == "--image":
        out.image = value
    elif name == "--command":
        out.command = gcloud_list(value)
    elif name == "--args":
        out.args = gcloud_list(value)
    elif name == "--port":
        out.port = value
    elif name in ("--set-env-vars", "--update-env-vars"):
        for item in gcloud_list(value):
            key, _, val = item.partition("=")
            out.env.append((key, val))
    elif name in ("--set-secrets", "--update-secrets"):
        for item in gcloud_list(value):
            key, _, _ref = item.partition("=")
            if not key.startswith("/"):  # a path is a mounted file, not a variable
                out.env.append((key, None))
    elif name == "--source":
        out.not_read.append("--source (the image is built from that directory: its entrypoint is unknown)")
    elif name == "--env-vars-file":
        out.not_read.append(f"--env-vars-file {value} (its variables are not read)")
    elif name == "--container":
        out.not_read.append(f"--container {value} (a service of several containers)")


def service_yaml(deploy: RunDeploy) -> str:
    """The Knative Service ``gcloud run deploy`` writes for ``deploy``, as YAML text (JSON strings, valid
    YAML: every value quoted exactly)."""
    import json

    # gcloud names no container; it is named after the service here, only to label what argtrace says
    container: dict[str, object] = {"name": deploy.service or "service", "image": deploy.image or ""}
    if deploy.command is not None:
        container["command"] = deploy.command
    if deploy.args is not None:
        container["args"] = deploy.args
    if deploy.port is not None and deploy.port != "default":
        container["ports"] = [{"containerPort": int(deploy.port)} if deploy.port.isdigit() else deploy.port]
    env = [
        {"name": k, "value": v} if v is not None else {"name": k, "valueFrom": {"secretKeyRef": {}}}
        for k, v in deploy.env
    ]
    if env:
        container["env"] = env
    service = {
        "apiVersion": "serving.knative.dev/v1",
        "kind": "Service",
        "metadata": {
            "name": deploy.service or "service",
            "annotations": {"run.googleapis.com/launch-stage": "GA"},
        },
        "spec": {"template": {"spec": {"containers": [container]}}},
    }
    return json.dumps(service, ensure_ascii=False) + "\n"


def follow_run_deploy(at: str, argv: Sequence[str | None], result: TransportResult) -> None:
    """The servers of a ``gcloud run deploy`` the script runs: its service's container, read as a manifest
    placed at the command (``at``: ``FILE:LINE:COL``)."""
    from argtrace.layers.transport.kubernetes import _kubernetes
    from argtrace.layers.transport.kustomize import _relabel
    from argtrace.layers.transport.yamlnodes import _load_yaml_nodes

    deploy = parse_run_deploy(argv)
    if deploy is None:
        return
    hop: dict[str, object] = {
        "at": at,
        "via": "gcloud run deploy",
        "service": deploy.service,
        "image": deploy.image,
    }
    if deploy.not_read:
        hop["not_read"] = list(deploy.not_read)
    result.hops.append(hop)
    unreadable = [
        item
        for item in deploy.not_read
        if item.startswith(("--container", "--source", "--command", "--args"))
    ]
    if deploy.unknown_words and (deploy.command is None or deploy.args is None):
        many = deploy.unknown_words > 1
        unreadable.append(
            f"{deploy.unknown_words} of its words {'are' if many else 'is'} not known here (a value the "
            "script does not set, or `$(...)`), and the container's --command or --args may be among them"
        )
    if not deploy.image and not any(item.startswith("--source") for item in unreadable):
        unreadable.append("--image (not given, or its value is not known here)")
    if unreadable:
        from argtrace.rules.deployers import TP093

        result.findings.append(
            TP093.finding(
                f"`gcloud run deploy {deploy.service or ''}`: the container it makes is not read: "
                + "; ".join(unreadable),
                at=at,
            )
        )
        return
    file, _, rest = at.partition(":")
    line = int(rest.split(":", 1)[0]) if rest.split(":", 1)[0].isdigit() else 1
    documents = _load_yaml_nodes(service_yaml(deploy).encode(), file)
    for node in documents.nodes:
        _relabel(node, file, shift=line - 1)
    _kubernetes(file, documents.nodes, None, result)
