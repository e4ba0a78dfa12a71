"""What NVIDIA Dynamo's operator makes of a multi-node worker.

This module owns the leader and worker containers the operator writes for a ``DynamoGraphDeployment``
service with ``multinode.nodeCount`` N > 1, as argv, for each of its two multinode deployers.

The operator (ai-dynamo/dynamo ``deploy/operator/internal/dynamo``) rewrites the service's main container
per role with the flags its backend adds (``backend_sglang.go``, ``backend_vllm.go``); the leader's host
name and a worker's rank come from the multinode deployer it runs:

- LeaderWorkerSet (``LWSMultinodeDeployer``): ``$(LWS_LEADER_ADDRESS)`` and ``$(LWS_WORKER_INDEX)``, which
  the kubelet expands (no shell needed);
- Grove (``grove.go`` ``GroveMultinodeDeployer``, read at ai-dynamo/dynamo
  015d780ba9c3d32c293ad67b786fe9af0d8a4d22): the leader
  ``$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-<service, lower case>-ldr-0.$(GROVE_HEADLESS_SERVICE)`` and a
  worker's rank ``$((GROVE_PCLQ_POD_INDEX + 1))``, arithmetic that needs a shell (``GetNodeRank`` returns
  needsShell), so a worker whose command is a Python interpreter is run as ``sh -c "exec CMD ARGS FLAGS"``
  (``injectFlagsIntoContainerCommand``).

Which one runs is the operator's choice (``IsGrovePathway``, ``internal/controller_common``): Grove when
Grove is enabled in the operator's configuration and the resource's ``nvidia.com/enable-grove`` annotation
is not ``false``. Only the annotation is in the file, so :func:`pathway` says LeaderWorkerSet for certain
when it is ``false`` and otherwise LeaderWorkerSet as an assumption. Both deployers give the leader rank 0
and the workers 1..N-1 with one leader address, so the launch argtrace judges (the LeaderWorkerSet one) has
the verdicts of the Grove one; the Grove argv is shown beside it (``Placement.alternative_argv``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from argtrace.layers.transport.yamlnodes import _get, _items, _scalar, _seq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_STR, _SEQ, _MAP = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


@dataclass(frozen=True)
class Deployer:
    """A multinode deployer: the leader's host name (``{service}``: the service name in lower case), a
    worker's rank, whether that rank needs a shell, and the variables its pods get from the cluster."""

    name: str
    leader_format: str
    rank: str
    rank_needs_shell: bool
    variables: tuple[str, ...]

    def leader(self, service: str) -> str:
        return self.leader_format.format(service=service.lower())


LWS = Deployer(
    "LeaderWorkerSet", "$(LWS_LEADER_ADDRESS)", "$(LWS_WORKER_INDEX)", False,
    ("LWS_LEADER_ADDRESS", "LWS_WORKER_INDEX"),
)  # fmt: skip
GROVE = Deployer(
    "Grove",
    "$(GROVE_PCSG_NAME)-$(GROVE_PCSG_INDEX)-{service}-ldr-0.$(GROVE_HEADLESS_SERVICE)",
    "$((GROVE_PCLQ_POD_INDEX + 1))",
    True,
    ("GROVE_PCSG_NAME", "GROVE_PCSG_INDEX", "GROVE_HEADLESS_SERVICE", "GROVE_PCLQ_POD_INDEX"),
)
_GROVE_OFF = "nvidia.com/enable-grove"


@dataclass(frozen=True)
class Role:
    """One role of a rewritten service: ``leader`` or ``worker``, its pods, its container (a YAML node)."""

    name: str
    copies: int
    container: Any


def pathway(annotations: dict[str, str]) -> str | None:
    """None when the file shows the LeaderWorkerSet pathway (``nvidia.com/enable-grove: "false"``), else
    why it is only assumed."""
    if annotations.get(_GROVE_OFF, "").lower() == "false":
        return None
    return (
        "the file does not show whether Dynamo's operator takes its Grove pathway (IsGrovePathway: Grove "
        f'enabled in its configuration and no {_GROVE_OFF}: "false" annotation); the LeaderWorkerSet '
        "pathway is read, and alternative_argv is what the Grove pathway runs (the same ranks and leader)"
    )


def argv(container: Any) -> tuple[str, ...]:
    """A container's command and args, as the operator writes them."""
    return tuple(_scalar(i) or "" for part in ("command", "args") for i in _seq(_get(container, part)) or [])


def resource_annotations(node: Any) -> dict[str, str]:
    pairs = _items(_get(_get(node, "metadata"), "annotations")) or _items(_get(node, "annotations"))
    return {key: _scalar(value) or "" for key, value in pairs}


def runs_module(container: Any, module: str) -> bool:
    """Whether a container's command and args run ``python -m module`` (as separate words)."""
    words = [_scalar(i) or "" for part in ("command", "args") for i in _seq(_get(container, part)) or []]
    return any(w == module and words[i - 1] == "-m" for i, w in enumerate(words) if i > 0)


def mentions(container: Any, text: str) -> bool:
    return any(
        text in (_scalar(i) or "") for part in ("command", "args") for i in _seq(_get(container, part)) or []
    )


# The operator adds the multi-node flags to the SGLang worker of a service with multinode.nodeCount N > 1
# (backend_sglang.go, getMultinodeFlags: "--dist-init-addr %s --nnodes %d --node-rank %s", the address the
# leader's host name and SglangPort 29500, the rank 0 on the leader and the deployer's on the workers).
# Where they go (injectFlagsIntoContainerCommand): a container whose command is a Python interpreter gets
# them appended to its args (under `sh -c "exec ..."` when the rank needs a shell); otherwise each arg is
# searched with ``(python[0-9.]*\s+[^|&;]*sglang[^|&;]*?)(\s|$|[|&;])`` and the flags inserted after the
# first match's command part (so right after ``python3 -m dynamo.sglang`` in an ``sh -c`` script), in the
# first arg that matches; a container that matches neither gets none.
_DYNAMO_SGLANG_PORT = "29500"
_PYTHON_COMMAND = re.compile(r"^(.*/)?(python\d*(\.\d+)*)$")
# injectFlagsIntoPythonCommand's pattern, the framework ("sglang", "vllm") in it
_IN_SHELL = r"(python[0-9.]*\s+[^|&;]*{framework}[^|&;]*?)(\s|\Z|[|&;])"


def sglang_roles(main: Any, service: str, nodes: int, deployer: Deployer) -> list[Role]:
    roles = []
    for role, rank, copies in (("leader", "0", 1), ("worker", deployer.rank, nodes - 1)):
        address = f"{deployer.leader(service)}:{_DYNAMO_SGLANG_PORT}"
        flags = ["--dist-init-addr", address, "--nnodes", str(nodes)]
        shell = role == "worker" and deployer.rank_needs_shell
        roles.append(Role(role, copies, _with_flags(main, [*flags, "--node-rank", rank], shell=shell)))
    return roles


# The operator rewrites a multi-node vLLM worker (ai-dynamo/dynamo, commit
# 003d1ee5de27986d5265b7a4bedb1e9241974034, deploy/operator/internal/dynamo/backend_vllm.go,
# updateVLLMMultinodeArgs). It reads the sizes from the container's args only, each arg split at blanks
# (getExpandedArgs), as `FLAG VALUE` (getFlagValue: the first FLAG followed by an integer, else 1; a
# `--tensor-parallel-size=2` is not seen), against the service's GPUs (containerGPUs, 0: no rewrite):
# - tp x pp above the GPUs (needsTensorParallelMultinodeLaunch): one engine over the pods. With the mp
#   backend (injectMpDistributedLaunchFlags) the leader gets `--distributed-executor-backend mp --nnodes N
#   --master-addr LEADER --master-port 29500 --node-rank 0` and each worker the same with `--node-rank RANK
#   --headless`; with Ray (injectRayDistributedLaunchFlags) the leader runs `ray start --head --port=6379 &&
#   CMD ARGS --distributed-executor-backend ray` under /bin/sh -c and the workers only `ray start
#   --address=LEADER:6379 --block` (no server). mp unless the annotation
#   nvidia.com/vllm-distributed-executor-backend says ray (shouldUseMpBackend), or the resource was created
#   by an operator older than 1.0.0 (compatibility.VLLMMultiprocessing: the webhook stamps
#   nvidia.com/dynamo-operator-origin-version at creation; absent here, the operator applying it is taken
#   to be 1.0.0 or newer).
# - else with --enable-elastic-ep in the args (hasFlag): one Ray cluster over the pods
#   (injectElasticEPRayLaunchFlags, not gated by the ElasticEPRayPoC feature on this path). The leader runs
#   `ray start --head --port=6379 --block & <wait up to 150 x 2 s for the head's port> && CMD ARGS` under
#   /bin/sh -c (each word quoted by shellQuotePOSIX; no exec and no --node-ip-address on a multi-node
#   leader); a leader with no command (the image's entrypoint) is left as written. Each worker waits for
#   the leader's /live on the Dynamo system port 9090 (up to 720 x 15 s), then `ray start
#   --address=LEADER:6379 --block`: no server. vLLM places the data parallel ranks over the Ray cluster.
# - else tp x pp x dp above the GPUs (needsDataParallelMultinodeLaunch): hybrid data parallel
#   (injectDataParallelLaunchFlags): every pod `--data-parallel-hybrid-lb [--data-parallel-size TOTAL]
#   --data-parallel-size-local GPUS/(tp x pp) --data-parallel-start-rank 0|$(( LOCAL * RANK ))
#   --data-parallel-address LEADER --data-parallel-rpc-port 13445`, TOTAL (only when the args give no
#   --data-parallel-size) LOCAL x N; the worker's arithmetic needs a shell (`sh -c "exec CMD ARGS FLAGS"`).
_VLLM_RAY_PORT = "6379"
_VLLM_MP_PORT = "29500"
_VLLM_DP_RPC_PORT = "13445"
_DYNAMO_SYSTEM_PORT = "9090"
_GO_INT = re.compile(r"[+-]?[0-9]+")
# shellQuotePOSIX's tokens that need no quoting (deploy/operator/internal/dynamo, shellSafeToken)
_POSIX_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")
_RAY_HEAD_WAIT = (
    "i=0; until python3 -c \"import socket; s=socket.create_connection(('127.0.0.1',{port}),timeout=1); "
    's.close()" 2>/dev/null; do i=$((i+1)); [ "$i" -ge 150 ] && {{ echo "ERROR: Ray head did not start '
    'within 300s" >&2; exit 1; }}; sleep 2; done'
)
_LEADER_LIVE_WAIT = (
    "i=0; until python3 -c \"import urllib.request; urllib.request.urlopen('http://{leader}:{port}/live', "
    'timeout=5)" 2>/dev/null; do i=$((i+1)); [ "$i" -ge 720 ] && {{ echo "ERROR: leader /live did not '
    "become ready within 3h\" >&2; exit 1; }}; echo 'waiting for leader dynamo.vllm /live to return 200...'; "
    "sleep 15; done"
)


def _go_flag_value(words: list[str], flag: str) -> int:
    """backend_vllm.go getFlagValue: the first ``FLAG N`` with an integer N, else 1."""
    for i, word in enumerate(words):
        if word == flag and i + 1 < len(words) and _GO_INT.fullmatch(words[i + 1]):
            return int(words[i + 1])
    return 1


def _operator_uses_mp(annotations: dict[str, str]) -> bool:
    override = annotations.get("nvidia.com/vllm-distributed-executor-backend", "").lower()
    if override in ("mp", "ray"):
        return override == "mp"
    origin = re.match(r"v?(\d+)\.", annotations.get("nvidia.com/dynamo-operator-origin-version", ""))
    return origin is None or int(origin.group(1)) >= 1


def vllm_roles(
    main: Any, service: str, nodes: int, gpus: int, notes: dict[str, str], deployer: Deployer
) -> list[Role] | None:
    """The operator's leader and worker for a multi-node vLLM worker (``notes``: the resource's and the
    service's annotations); None when it leaves the container as written."""
    import yaml

    args = [w for i in _seq(_get(main, "args")) or [] for w in (_scalar(i) or "").split()]
    world = _go_flag_value(args, "--tensor-parallel-size") * _go_flag_value(args, "--pipeline-parallel-size")
    if gpus == 0:
        return None
    leader_host = deployer.leader(service)
    command = [_scalar(i) or "" for i in _seq(_get(main, "command")) or []]
    words = list(argv(main))
    if world > gpus and _operator_uses_mp(notes):
        flags = ["--distributed-executor-backend", "mp", "--nnodes", str(nodes), "--master-addr", leader_host]
        flags += ["--master-port", _VLLM_MP_PORT]
        leader = _with_flags(main, [*flags, "--node-rank", "0"], "vllm")
        rank = [*flags, "--node-rank", deployer.rank, "--headless"]
        worker = _with_flags(main, rank, "vllm", shell=deployer.rank_needs_shell)
        return [Role("leader", 1, leader), Role("worker", nodes - 1, worker)]
    if world > gpus:
        quoted = " ".join(_go_quote(w) for w in command)
        quoted_args = " ".join(_go_quote(w) for w in words[len(command) :])
        head = f"ray start --head --port={_VLLM_RAY_PORT}"
        line = f"{head} && {quoted} {quoted_args} --distributed-executor-backend ray"
        join = f"ray start --address={leader_host}:{_VLLM_RAY_PORT} --block"
        return [
            Role("leader", 1, _rewritten(main, ["/bin/sh", "-c"], [line], yaml)),
            Role("worker", nodes - 1, _rewritten(main, ["/bin/sh", "-c"], [join], yaml)),
        ]
    if "--enable-elastic-ep" in args:
        if command:
            engine = " ".join(_posix_quote(w) for w in words).strip()
            head = f"ray start --head --port={_VLLM_RAY_PORT} --block & "
            script = head + _RAY_HEAD_WAIT.format(port=_VLLM_RAY_PORT) + f" && {engine}"
            leader = _rewritten(main, ["/bin/sh", "-c"], [script], yaml)
        else:
            leader = main  # the image's entrypoint: the operator cannot wrap it
        gate = _LEADER_LIVE_WAIT.format(leader=leader_host, port=_DYNAMO_SYSTEM_PORT)
        join = f"{gate} && ray start --address={leader_host}:{_VLLM_RAY_PORT} --block"
        worker = _rewritten(main, ["/bin/sh", "-c"], [join], yaml)
        return [Role("leader", 1, leader), Role("worker", nodes - 1, worker)]
    if world * _go_flag_value(args, "--data-parallel-size") > gpus:
        local = gpus // world
        total = [] if "--data-parallel-size" in args else ["--data-parallel-size", str(local * nodes)]
        tail = ["--data-parallel-address", leader_host, "--data-parallel-rpc-port", _VLLM_DP_RPC_PORT]
        lead = ["--data-parallel-hybrid-lb", *total, "--data-parallel-size-local", str(local)]
        leader = _with_flags(main, [*lead, "--data-parallel-start-rank", "0", *tail], "vllm")
        start = f"$(( {local} * {deployer.rank} ))"
        worker = _with_flags(main, [*lead, "--data-parallel-start-rank", start, *tail], "vllm", shell=True)
        return [Role("leader", 1, leader), Role("worker", nodes - 1, worker)]
    return None


def elastic_ep_ray_head(main: Any) -> Any | None:
    """A single-pod vLLM worker (nodeCount 1, RoleMain) that asks for elastic EP on Ray (IsElasticEPRayLaunch:
    ``--enable-elastic-ep`` and ``--data-parallel-backend ray`` or ``-dpb ray``, as ``FLAG VALUE`` or
    ``FLAG=VALUE``, anywhere in the command and args split at blanks) heads a Ray cluster of its own so that
    pods added later can join it: ``ray start --head --port=6379 --node-ip-address="$POD_IP" --block & <wait
    for the port> && exec CMD ARGS`` under /bin/sh -c, with POD_IP and VLLM_DP_MASTER_IP set to the pod's
    IP; None when it is no such worker or has no command (the image's entrypoint is left as written)."""
    import yaml

    words = [w for w in argv(main) for w in w.split()]
    ray = any(
        f"{flag}=ray" in w or (w == flag and i + 1 < len(words) and words[i + 1] == "ray")
        for i, w in enumerate(words)
        for flag in ("--data-parallel-backend", "-dpb")
    )
    command = [_scalar(i) or "" for i in _seq(_get(main, "command")) or []]
    if "--enable-elastic-ep" not in words or not ray or not command:
        return None
    engine = " ".join(_posix_quote(w) for w in argv(main)).strip()
    head = f'ray start --head --port={_VLLM_RAY_PORT} --node-ip-address="$POD_IP" --block & '
    script = head + _RAY_HEAD_WAIT.format(port=_VLLM_RAY_PORT) + f" && exec {engine}"
    return _rewritten(main, ["/bin/sh", "-c"], [script], yaml)


# what the operator sets beside the single-pod Ray head (commonconsts PodIPEnvVar, VLLMDPMasterIPEnvVar):
# a fieldRef to status.podIP, known only in the cluster
ELASTIC_EP_ENV = ("POD_IP", "VLLM_DP_MASTER_IP")


def _posix_quote(word: str) -> str:
    """shellQuotePOSIX: a word with any character outside ``[A-Za-z0-9_@%+=:,./-]`` (or none) in single
    quotes."""
    if _POSIX_SAFE.fullmatch(word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _go_quote(word: str) -> str:
    """backend_vllm.go shellQuoteForBashC: a word with a blank or shell character in double quotes."""
    if any(c in word for c in " \t\n'\"\\{}[]$`!"):
        escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
        return '"' + escaped.replace("'", "'\"'\"'") + '"'
    return word


def _rewritten(container: Any, command: list[str], args: list[str], yaml: Any) -> Any:
    """A copy of a container (YAML node) whose command and args the operator replaced (marks kept)."""
    anchor = _get(container, "args") or _get(container, "command") or container
    mark = anchor.start_mark, anchor.end_mark
    pairs = [
        (k, v)
        for k, v in container.value
        if not (isinstance(k, yaml.ScalarNode) and k.value in ("command", "args"))
    ]
    for key, words in (("command", command), ("args", args)):
        items = [yaml.ScalarNode(_STR, w, *mark) for w in words]
        pairs.append((yaml.ScalarNode(_STR, key, *mark), yaml.SequenceNode(_SEQ, items, *mark)))
    return yaml.MappingNode(_MAP, pairs, container.start_mark, container.end_mark)


def _with_flags(container: Any, words: list[str], framework: str = "sglang", shell: bool = False) -> Any:
    """A copy of a container (YAML node) with the operator's flags where it puts them (marks kept)."""
    import yaml

    old = _get(container, "args")
    items = list(_seq(old) or [])
    command = [_scalar(i) or "" for i in _seq(_get(container, "command")) or []]
    anchor = old if old is not None else (_get(container, "command") or container)
    if command and _PYTHON_COMMAND.match(command[0]) and shell:
        # a rank only a shell computes: `sh -c "exec CMD ARGS FLAGS"`, each word quoted as the operator does
        quoted = " ".join(_go_quote(w) for w in [*command, *(_scalar(i) or "" for i in items)])
        return _rewritten(container, ["sh", "-c"], [f"exec {quoted} {' '.join(words)}"], yaml)
    if command and _PYTHON_COMMAND.match(command[0]):
        items += [yaml.ScalarNode(_STR, w, anchor.end_mark, anchor.end_mark) for w in words]
    else:
        flags = " ".join(words)
        in_shell = re.compile(_IN_SHELL.format(framework=framework))
        for k, item in enumerate(items):
            text = _scalar(item) or ""
            changed = in_shell.sub(lambda m: f"{m.group(1).strip()} {flags}{m.group(2)}", text)
            if changed != text:
                items[k] = yaml.ScalarNode(_STR, changed, item.start_mark, item.end_mark, style=item.style)
                break
        else:
            return container
    args = yaml.SequenceNode(_SEQ, items, anchor.start_mark, anchor.end_mark)
    pairs = [(k, v) for k, v in container.value if not (isinstance(k, yaml.ScalarNode) and k.value == "args")]
    pairs.append((yaml.ScalarNode(_STR, "args", anchor.start_mark, anchor.end_mark), args))
    return yaml.MappingNode(_MAP, pairs, container.start_mark, container.end_mark)
