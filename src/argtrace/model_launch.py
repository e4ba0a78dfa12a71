"""What argtrace builds about a launch: the server starts it predicts or observes (the argv words and where
each came from, the environment, where a manifest places the server, the process it gets: ``ServerCommand``,
``ProcessInfo``), the defaults it assumed (``Assumption``) and the edits that fix a finding (``FixEdit``,
``EnvEdit``).

Part of the report's data model (``model.py`` re-exports every name here: ``from argtrace.model import
ServerCommand`` stays the way to import them). A module of its own because commands that read no launch
(``argtrace log`` on a file) need none of it, and each dataclass costs about 0.5 ms to create at import
(issue 18): ``model.py`` imports this module on the first use of one of its names. It imports nothing from
``model.py`` (the framework's name is spelled out below), so the two never import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from argtrace.deferred_dataclass import dataclass as deferred

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal


@dataclass(frozen=True)
class Assumption:
    """A default argtrace chose where the user gave nothing: ``what`` was taken to be ``value``;
    ``option`` is the command-line option that replaces the assumption with a fact."""

    what: Literal[
        "release", "gpu", "model-config", "entrypoint", "script-arguments", "node-environment", "environment"
    ]
    value: str
    option: str


@dataclass(frozen=True)
class FixEdit:
    """One text replacement that fixes a finding: ``file`` as the user typed it (``<-c>`` for ``-c`` input),
    ``start`` and ``end`` as ``LINE:COL`` (1-based, ``end`` exclusive; columns count characters), so that an
    insertion has ``start == end`` and a deletion an empty ``replacement`` (``argtrace.fixes``)."""

    file: str
    start: str
    end: str
    replacement: str


@deferred(frozen=True)
class EnvEdit:
    """One change of the environment the launch starts with (``check --env NAME=VALUE``, or the caller's
    environment) that fixes a finding: ``NAME`` set to ``value``, or unset when ``value`` is None. Never
    written into a file: ``argtrace fix`` prints it as ``export NAME=VALUE`` / ``unset NAME``."""

    env: str
    value: str | None


@dataclass(frozen=True)
class Origin:
    """Where one argv word (or env value) came from: the source location and the expansion that made it."""

    at: str | None
    expansion: str | None = None  # e.g. "$2", "${PORT:-30000}", "\"$@\"", "literal"
    known: bool = True
    reason: str | None = None


@deferred(frozen=True)
class FromUnset:
    """A server word made in part from variables not set in the environment argtrace was given: its
    location, those variables, and, when it is a flag's value, the flag's location and the value's text
    (the parser places a refused value at its flag and quotes it: ``Value {...} cannot be converted``)."""

    at: str
    names: tuple[str, ...]
    flag_at: str | None = None
    value: str | None = None


@dataclass(frozen=True)
class Word:
    """One argv word of a predicted process. ``text`` is ``None`` when it cannot be known statically."""

    text: str | None
    origin: Origin

    @property
    def known(self) -> bool:
        return self.text is not None and self.origin.known


@deferred(frozen=True)
class VanishedWord:
    """An unquoted expansion in a server's argv that produced no word at all (``$MODEL`` unset or empty):
    ``index`` is where in ``argv`` the word would have been, ``state`` ``"unset"`` (not set here: the caller
    may set it) or ``"empty"`` (set to an empty value), ``name`` the variable (``None`` for ``$1``...)."""

    index: int
    expansion: str
    at: str
    state: str
    name: str | None
    # an empty variable the script copied from one not set here (`rank_id=$RANK`): that one's name; its
    # emptiness then rests on the same assumption as an unset variable's (the caller may set it)
    via: str | None = None


@deferred(frozen=True)
class CommandIO:
    """What a simple command reads from the script itself and where its output goes: a here-document or
    here-string on its stdin as the script's shell expands it (``cat <<EOF > vllm.yaml``, ``kubectl apply -f
    - <<EOF``), and the file its stdout is redirected to. A script that writes a launch file and hands it to
    the program that runs it is followed through these (``layers/transport/handoff.py``)."""

    stdin: str | None  # the text on stdin (None: a here-document whose expansion is not known statically)
    stdin_line: int | None  # the script line the here-document's body starts on (None: a here-string)
    stdout: str | None = None  # the file fd 1 is redirected to (`>`, `>>`, `>|`, `&>`), as expanded
    append: bool = False  # `>>`: the text goes after what the file held
    # stdin is a pipe: the command before it as written (``cat <<EOF``, ``helm template ...``); ``stdin`` is
    # then what it writes when the script itself says it (cat/echo/printf/envsubst), else None
    piped_from: str | None = None
    # what ``cat``/``envsubst`` with stdout in a file writes there, when its input is known statically
    output: str | None = None


@deferred(frozen=True)
class EnvValue:
    """One environment variable's value as the predicted process sees it (``None``: not known statically)
    and where it came from."""

    value: str | None
    origin: Origin


@deferred(frozen=True)
class Placement:
    """Where a manifest places a server (``layers/transport/pods.py``): the resource that starts its pods,
    the role inside it, how many copies of the pod it starts and which one this is, and the GPUs one pod
    gets. ``None`` where the manifest does not say."""

    kind: str  # "StatefulSet", "Deployment", "LeaderWorkerSet", "DynamoGraphDeployment", ...
    name: str
    role: str | None = None  # "leader", "worker", a Dynamo service name, "decode", "predictor" ...
    replicas: int | None = None  # pods started from this one pod spec
    ordinal: int | None = None  # a StatefulSet pod's ordinal, when its argv depends on it
    pod: str | None = None  # the pod's name when it is known (a StatefulSet's NAME-ORDINAL)
    gpus: int | None = None  # GPUs one pod requests (resources.limits nvidia.com/gpu, a Dynamo gpu limit)
    gpus_at: str | None = None
    # pods one copy of a multi-node server spans (a Dynamo service's multinode.nodeCount, an LWS size)
    nodes: int | None = None
    # the operator pathway that wrote the pod (Dynamo: "LeaderWorkerSet"), why that is assumed when the file
    # does not show it, and the argv the other pathway (Grove) writes for the pod then
    deployer: str | None = None
    deployer_assumed: str | None = None
    alternative_argv: tuple[str, ...] | None = None
    # the server whose pods this role's are, when a manifest gives one multi-node server's roles their own
    # pod specs (OME's engine leader and worker: both the "engine", one LeaderWorkerSet group)
    group: str | None = None


@deferred(frozen=True)
class AssumedEntrypoint:
    """An image entrypoint the transport layer assumed from other builds of the image (TP044): findings at
    ``at`` (the container's command) rest on it (``verdicts.py``)."""

    at: str
    image: str
    entrypoint: str  # as shown in TP044: ``vllm serve``


@dataclass(frozen=True)
class ServerCommand:
    """A server start found in a script or command: its predicted argv and environment.

    ``argv`` is the whole command as the process sees it (``python3 -m sglang.launch_server ...``);
    ``server_args_start`` is the index of the first word handed to the framework's argument parser.
    """

    at: str | None
    framework: Literal["sglang", "vllm"]  # model.FrameworkName
    argv: tuple[Word, ...]
    env: Mapping[str, EnvValue]
    server_args_start: int
    entrypoint: (
        str  # "sglang.launch_server", "sglang serve", "vllm serve", "vllm.entrypoints.openai.api_server"
    )
    interpreter: str | None = None  # "python3", "/opt/venv/bin/python", or None for console scripts
    cwd: str | None = None
    backgrounded: bool = False
    # The container image the server runs in (docker run, compose, Kubernetes), as written.
    image: str | None = None
    # "FILE:LINE" of the loop that runs this start again and again (``while true; do ...; done``, a ``for``
    # over an unknown list, or identical starts in several iterations); None: it runs once
    loop: str | None = None
    # Names of the variables the script itself expands anywhere (``$NAME``, ``${NAME...}``), so a rule can
    # tell the script's own setting from one meant for the framework; empty when not from a script.
    script_reads: frozenset[str] = frozenset()
    # The manifest resource and pod that start it (Kubernetes, serving resources); None for scripts.
    placement: Placement | None = None
    # "uv run", "conda run -n NAME"...: the command runs in that tool's Python environment, so the
    # interpreter (and the framework release) are that environment's, not what PATH finds
    runner: str | None = None
    # The GPUs the container is given (Kubernetes ``nvidia.com/gpu`` limit, ``docker run --gpus``, compose
    # device reservations), numbered 0..gpus-1 inside it; None: not a container, or not said
    gpus: int | None = None
    gpus_from: str | None = None  # where that count was read ("container vllm's resources.limits[...]")
    # The device files its container is given (``docker run --device /dev/davinci4``): they name the
    # accelerator vendor (layers/device_env.py); empty: not a container, or none given
    devices: tuple[str, ...] = ()
    # ``docker run``: how the command sets the container's /dev/shm (``--shm-size 16g``, ``--ipc host``, a
    # mount there), "" when it does not (Docker's 64 MiB default stays); None: not a ``docker run``
    container_shm: str | None = None
    # The ports its container's Kubernetes probes ask (kind "livenessProbe"..., port number, what the
    # manifest wrote: ``8080`` or ``http (containerPort 8080)``); empty: not a pod, or no HTTP/TCP probe
    probe_ports: tuple[tuple[str, int, str], ...] = ()
    # The condition the start depends on (``the condition `[ "$SLURM_LOCALID" = 0 ]` (FILE:LINE)``, SH020);
    # None: it runs whenever the script gets there
    conditional: str | None = None
    # The image entrypoint its container was assumed to have (TP044); None: known, given or not a container
    assumed_entrypoint: AssumedEntrypoint | None = None
    # Unquoted expansions of the command that vanished (SH007/SH026 after a flag; PA029 where the parser
    # needed a positional); empty when not from a script
    vanished: tuple[VanishedWord, ...] = ()
    # Where its words and environment values are made from the script's arguments when argtrace was given
    # none (`argtrace check launch.sh` for a script that reads $1): findings there rest on that (verdicts.py)
    from_missing_arguments: frozenset[str] = frozenset()
    # Where its words are made in part from variables that are not set in the environment argtrace was
    # given (the caller, a node or a container may set them), with those variables: what the parser makes
    # of such a word rests on their being unset (verdicts.py). A word that is the variable alone and
    # vanished or came out empty is the shell layer's SH007/SH026, whose consequences causes.py links.
    from_unset_variables: tuple[FromUnset, ...] = ()
    # The files the script wrote from here-documents before this start (``cat > config.yaml <<EOF``), as
    # (path joined to the directory the writer ran in, text; None: not known statically), written.py of
    # layers/shell
    script_files: tuple[tuple[str, str | None], ...] = ()

    @property
    def repeated(self) -> bool:
        return self.loop is not None

    @property
    def argv_text(self) -> list[str | None]:
        return [w.text for w in self.argv]

    @property
    def server_args(self) -> tuple[Word, ...]:
        return self.argv[self.server_args_start :]


@dataclass(frozen=True)
class ProcessInfo:
    """The process the server would get (``check``) or got (``run``, ``ps``): argv and redacted env."""

    argv: tuple[str | None, ...]
    env: Mapping[str, str | None]
    at: str | None
    interpreter: str | None = None
