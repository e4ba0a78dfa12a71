"""``kubectl exec POD -- COMMAND...`` (and OpenShift's ``oc exec``): COMMAND runs in a container of the
running pod as an argv, with that container's environment; no shell runs unless COMMAND is one.

This module owns reading such a command line (the pod, its container and namespace, the command) and
handing the command to the container reader of :mod:`.containers`.

kubectl's command line (``kubectl exec --help``; its options in ``data/kubectl_exec_options.json``,
generated from the installed kubectl by ``scripts/gen_kubectl_exec_options.py``): the command is what
follows ``--``; the older ``kubectl exec POD COMMAND`` form without it was deprecated and then refused, so
only the ``--`` form is read. Before ``--`` are kubectl's own options: ``-c``/``--container`` names the
container (else the pod's default one), ``-n``/``--namespace`` the namespace, and the pod is the first word
that is neither an option nor an option's value. The container's own environment (its image, the pod's
``env``) is not known here: the server's words are read, its environment is the container's.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from argtrace.layers.transport.context import TransportResult
from argtrace.model import Origin


@functools.cache
def _options() -> tuple[frozenset[str], frozenset[str]]:
    """kubectl's switches and its options that take a value (``data/kubectl_exec_options.json``, generated
    by ``scripts/gen_kubectl_exec_options.py`` from ``kubectl exec --help`` and ``kubectl options``)."""
    from argtrace.package_data import package_file

    data = json.loads(package_file("data/kubectl_exec_options.json").read_text(encoding="utf-8"))
    return frozenset(data["switches"]), frozenset(data["valued"])


@dataclass(frozen=True)
class KubeExec:
    """What a ``kubectl exec`` names: the pod (None: not read), its container and namespace, and the
    command's words with where they start in the argv."""

    pod: str | None
    container: str | None
    namespace: str | None
    command: tuple[str | None, ...]
    command_start: int


def parse_kube_exec(argv: Sequence[str | None]) -> KubeExec | None:
    """``kubectl [options] exec [options] POD [options] -- COMMAND...``; None without ``exec`` or ``--``."""
    words = list(argv)
    if "exec" not in words or "--" not in words:
        return None
    sub = words.index("exec")
    dash = words.index("--")
    if dash < sub:
        return None
    switches, _valued = _options()
    pod = container = namespace = None
    i = 1
    while i < dash:
        word = words[i]
        if word is None:
            return None  # an option or pod not known here: where the command starts may differ
        if i == sub:
            i += 1
            continue
        if word.startswith("-"):
            name, eq, value = word.partition("=")
            if not word.startswith("--"):
                # pflag's short options: switches run together (`-it`), a valued one takes the rest of the
                # word (`-cNAME`) or the next word
                letters = word[1:]
                while letters and f"-{letters[0]}" in switches:
                    letters = letters[1:]
                rest = letters[1:]
                name, eq, value = (
                    (f"-{letters[0]}", "=", rest[1:] if rest[:1] == "=" else rest)  # `-cNAME`, `-c=NAME`
                    if rest
                    else (f"-{letters[:1]}", "", "")
                )
                if not letters:
                    i += 1
                    continue
            if not eq and name not in switches:
                value = (words[i + 1] or "") if i + 1 < dash else ""
                i += 1
            if name in ("-c", "--container"):
                container = value
            elif name in ("-n", "--namespace"):
                namespace = value
        elif i > sub and pod is None:
            pod = word
        i += 1
    return KubeExec(pod, container, namespace, tuple(words[dash + 1 :]), dash + 1)


def follow_kube_exec(
    at: str,
    argv: list[str | None],
    result: TransportResult,
    holes: Mapping[str, tuple[str, str]] | None = None,
) -> None:
    """The server a ``kubectl exec ... -- COMMAND`` starts in the pod's container, read as a container's
    process (a ``bash -c STRING`` there runs through that shell; ``holes``: the unknown expansions of such a
    string, words.py's fill_command_holes)."""
    from argtrace.layers.transport.containers import _container_servers

    found = parse_kube_exec(argv)
    if found is None or not found.command or any(w is None for w in found.command):
        return
    program = "oc" if (argv[0] or "").rsplit("/", 1)[-1] == "oc" else "kubectl"
    where = f"pod {found.pod}" if found.pod else "the pod"
    if found.container:
        where += f", container {found.container}"
    hop: dict[str, Any] = {
        "at": at,
        "via": f"{program} exec",
        "pod": found.pod,
        "container": found.container,
        "namespace": found.namespace,
        "argv": list(found.command),
        "environment": "the container's own (its image and the pod's env) is not known here",
    }
    result.hops.append(hop)
    env: dict[str, str | None] = {"PATH": None}
    origins = {
        "PATH": Origin(at=at, expansion=f"{program} exec", known=False, reason=f"{where}'s, not known here")
    }
    command = tuple(w for w in found.command if w is not None)
    _container_servers(at, command, env, origins, f"{program} exec {where}", result, holes=holes)
