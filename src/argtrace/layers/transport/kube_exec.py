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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from argtrace.layers.transport.context import TransportResult
from argtrace.model import Origin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.holes import Holed


@functools.cache
def _options() -> tuple[frozenset[str], frozenset[str]]:
    """kubectl's switches and its options that take a value (``data/kubectl_exec_options.json``, generated
    by ``scripts/gen_kubectl_exec_options.py`` from ``kubectl exec --help`` and ``kubectl options``)."""
    from argtrace.package_data import bundled_json

    data = bundled_json("data/kubectl_exec_options.json")
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
    unknown_before = False
    i = 1
    while i < dash:
        word = words[i]
        if word is None:
            # a word not known here (`$POD`): the pod (or an option's value) is not known, but the command
            # is still what follows the script's own `--`, where pflag stops reading options
            unknown_before = True
            i += 1
            continue
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
            given: str | None = value
            if not eq and name not in switches:
                given = words[i + 1] if i + 1 < dash else ""  # None: a value not known here
                i += 1
            if name in ("-c", "--container"):
                container = given
            elif name in ("-n", "--namespace"):
                namespace = given
        elif i > sub and pod is None and not unknown_before:
            pod = word
        i += 1
    return KubeExec(pod, container, namespace, tuple(words[dash + 1 :]), dash + 1)


def follow_kube_exec(
    at: str, argv: list[str | None], result: TransportResult, holed: Mapping[int, Holed] | None = None
) -> None:
    """The server a ``kubectl exec ... -- COMMAND`` starts in the pod's container, read as a container's
    process (a ``bash -c STRING`` there runs through that shell). ``holed``: the words of ``argv`` known but
    for some quoted expansions, by index (a ``bash -c "... --host $ip"`` string the container's shell reads
    with those values not known)."""
    from argtrace.layers.transport.containers import _container_servers, _shown, running_environment

    found = parse_kube_exec(argv)
    if found is None or not found.command:
        return
    start = found.command_start
    marks = {k - start: h for k, h in (holed or {}).items() if k >= start}
    if any(w is None and k not in marks for k, w in enumerate(found.command)):
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
        "argv": _shown([w or "" for w in found.command], marks),
        "environment": "the container's own (its image and the pod's env) is not known here",
    }
    result.hops.append(hop)
    env: dict[str, str | None] = {"PATH": None}
    origins = {
        "PATH": Origin(at=at, expansion=f"{program} exec", known=False, reason=f"{where}'s, not known here")
    }
    command = tuple(w or "" for w in found.command)
    running_environment(command, env, origins, at, where)
    _container_servers(at, command, env, origins, f"{program} exec {where}", result, holed=marks)
