"""The data that flows through argtrace, one direction: layers produce, the report collects, renderers read.

Every layer returns observations and findings; nothing here computes anything about bash, argparse or a
framework. The JSON contract (``schema_version`` 1) is built from these objects by ``render/json.py``.

A setting's history is an append-only list of observations in layer order; its *effective* value is derived
from that history (the deepest layer's value), never stored beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

SCHEMA_VERSION = 1

Layer = Literal["transport", "shell", "process", "parser", "resolution", "log", "live", "memory"]
LAYERS: tuple[Layer, ...] = ("transport", "shell", "process", "parser", "resolution", "log", "live", "memory")

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

FrameworkName = Literal["sglang", "vllm"]
# How the release was decided, strongest evidence first (``frameworks/release.py``): ``bundled-schema`` is a
# release the user named (``--framework-version``); ``none`` means no evidence, see ``accepted_by``.
# ``live``: /server_info or vLLM's /version (``--url``); ``process``: the running process's import
# (``--pid``); ``run``: the intercepted start of ``argtrace run``.
FrameworkSource = Literal[
    "bundled-schema",
    "resolver-env",
    "installed",
    "log",
    "live",
    "image",
    "pip-line",
    "none",
    "process",
    "run",
]

# What a finding rests on. ``observed``: a log, /server_info, /proc, a ``run`` capture. ``framework-code``:
# the framework's own parser, resolver or sizing ran. ``static``: the files as bash, docker, compose or
# kubelet read them. ``schema``: a bundled schema of a release the user named or the evidence decided.
# ``assumed``: some step used a default argtrace chose (a GPU, a release, a missing model config).
Basis = Literal["observed", "framework-code", "static", "schema", "assumed"]
BASES: tuple[Basis, ...] = ("observed", "framework-code", "static", "schema", "assumed")
# What a layer's findings rest on unless the finding says otherwise.
LAYER_BASIS: Mapping[Layer, Basis] = {
    "transport": "static",
    "shell": "static",
    "process": "static",
    "parser": "schema",
    "resolution": "framework-code",
    "log": "observed",
    "live": "observed",
    "memory": "static",
}


@dataclass(frozen=True)
class Assumption:
    """A default argtrace chose where the user gave nothing: ``what`` was taken to be ``value``;
    ``option`` is the command-line option that replaces the assumption with a fact."""

    what: Literal["release", "gpu", "model-config", "entrypoint", "script-arguments"]
    value: str
    option: str


@dataclass(frozen=True)
class Evidence:
    """One piece of text that supports a finding, and where it was seen."""

    layer: Layer
    at: str | None
    text: str


@dataclass(frozen=True)
class FixEdit:
    """One text replacement that fixes a finding: ``file`` as the user typed it (``<-c>`` for ``-c`` input),
    ``start`` and ``end`` as ``LINE:COL`` (1-based, ``end`` exclusive; columns count characters), so that an
    insertion has ``start == end`` and a deletion an empty ``replacement`` (``argtrace.fixes``)."""

    file: str
    start: str
    end: str
    replacement: str


@dataclass(frozen=True)
class EnvEdit:
    """One change of the environment the launch starts with (``check --env NAME=VALUE``, or the caller's
    environment) that fixes a finding: ``NAME`` set to ``value``, or unset when ``value`` is None. Never
    written into a file: ``argtrace fix`` prints it as ``export NAME=VALUE`` / ``unset NAME``."""

    env: str
    value: str | None


@dataclass(frozen=True)
class Finding:
    """A diagnosis with a stable code (see ``argtrace.rules``).

    ``at`` is ``PATH:LINE[:COL]`` with the path as the user typed it, ``<-c>`` for ``-c`` input, framework
    files relative to site-packages, ``LOG:LINE`` for logs and ``URL#json-pointer`` for live values.
    """

    code: str
    severity: Severity
    layer: Layer
    message: str
    at: str | None = None
    fix: str | None = None
    setting: str | None = None
    evidence: tuple[Evidence, ...] = ()
    # Layers that see several launches/servers tag their findings; ``None`` means "not applicable".
    launch: int | None = None
    server: int | None = None
    # ``None``: the layer's usual basis (``LAYER_BASIS``). ``assumptions`` are set with basis ``assumed``.
    basis: Basis | None = None
    assumptions: tuple[Assumption, ...] = ()
    # Edits of the launch files that fix this finding, and whether re-checking the edited files showed the
    # finding gone with no new error or warning (None: not verified, e.g. no edit; see argtrace.fixes).
    fix_edits: tuple[FixEdit | EnvEdit, ...] = ()
    fix_verified: bool | None = None
    # The later findings this one explains (``argtrace.causes``: a CRLF line ending and the flags it cut
    # off); they are not in ``Report.findings`` themselves. Fixing or suppressing this finding covers them.
    consequences: tuple[Finding, ...] = ()

    @property
    def rests_on(self) -> Basis:
        return self.basis or LAYER_BASIS[self.layer]


@dataclass(frozen=True)
class Observation:
    """What one layer saw of one setting.

    ``value`` is a string for transport, shell and process (the exact word), and the parsed value from
    the parser layer on. A value that cannot be known statically is ``None`` with ``known=False`` and a
    ``reason``. ``by`` names the function (or flag, option string, hook) that produced the value.
    """

    layer: Layer
    value: Any
    at: str | None = None
    known: bool = True
    reason: str | None = None
    by: str | None = None
    # Layer-specific detail kept verbatim in the JSON (e.g. ``old`` for resolution writes, ``option`` for
    # the parser's matched option string). Keys must not collide with the fields above.
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class Setting:
    """One configuration field of the server, followed through the layers.

    ``name`` is the framework's configuration field in the analysed version, the name its args log line and
    /server_info use (or, for a flag that version does not know, the dest in the newest bundled version that
    knows it); ``dest`` is the argparse dest. ``intended`` is the value the user wrote
    for the occurrence that wins, after the shell expanded it.
    """

    name: str
    flag: str | None
    intended: Any = None
    history: list[Observation] = field(default_factory=list)
    # True when the analysed framework version does not accept this setting at all: effective is null.
    unknown_to_framework: bool = False
    # The argparse dest that carries it (``tensor_parallel_size`` for the field ``tp_size`` in SGLang
    # 0.5.10.post1); None for a field only the framework's own code sets.
    dest: str | None = None

    @property
    def effective(self) -> Any:
        """The value at the deepest layer analysed; ``None`` when the framework does not know the flag."""
        if self.unknown_to_framework or not self.history:
            return None
        return self.history[-1].value

    def observe(self, observation: Observation) -> None:
        self.history.append(observation)


@dataclass(frozen=True)
class FrameworkInfo:
    """The framework release of the launch and how it was decided.

    ``version`` is ``None`` when nothing shows which release runs (``source`` ``none``); the analysis then
    uses ``analysed_with``, the newest bundled release in ``accepted_by`` (the releases whose parser accepts
    every flag and variable of the launch). ``evidence`` says where the release was read (an image tag, a
    ``pip install`` line, a log's version line).
    """

    name: FrameworkName | None
    version: str | None
    source: FrameworkSource | None
    analysed_with: str | None = None
    accepted_by: tuple[str, ...] | None = None
    evidence: str | None = None

    @property
    def release(self) -> str | None:
        """The release whose schema and code the analysis used."""
        return self.version or self.analysed_with


@dataclass(frozen=True)
class Origin:
    """Where one argv word (or env value) came from: the source location and the expansion that made it."""

    at: str | None
    expansion: str | None = None  # e.g. "$2", "${PORT:-30000}", "\"$@\"", "literal"
    known: bool = True
    reason: str | None = None


@dataclass(frozen=True)
class Word:
    """One argv word of a predicted process. ``text`` is ``None`` when it cannot be known statically."""

    text: str | None
    origin: Origin

    @property
    def known(self) -> bool:
        return self.text is not None and self.origin.known


@dataclass(frozen=True)
class VanishedWord:
    """An unquoted expansion in a server's argv that produced no word at all (``$MODEL`` unset or empty):
    ``index`` is where in ``argv`` the word would have been, ``state`` ``"unset"`` (not set here: the caller
    may set it) or ``"empty"`` (set to an empty value), ``name`` the variable (``None`` for ``$1``...)."""

    index: int
    expansion: str
    at: str
    state: str
    name: str | None


@dataclass(frozen=True)
class EnvValue:
    """One environment variable's value as the predicted process sees it (``None``: not known statically)
    and where it came from."""

    value: str | None
    origin: Origin


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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
    framework: FrameworkName
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


@dataclass
class LayerResult:
    """What one layer hands back: findings, observations per setting, and sections for the report.

    ``observations`` maps a setting name to (flag, observations in order). ``sections`` become top-level
    JSON keys (e.g. ``resolution``, ``timeline``, ``memory``): the contract is extended, never broken.
    """

    findings: list[Finding] = field(default_factory=list)
    observations: dict[str, tuple[str | None, list[Observation]]] = field(default_factory=dict)
    intended: dict[str, Any] = field(default_factory=dict)
    unknown_settings: set[str] = field(default_factory=set)
    sections: dict[str, Any] = field(default_factory=dict)


@dataclass
class Report:
    """Everything one argtrace command found. Renderers read it; they never compute."""

    command: str
    framework: FrameworkInfo = field(default_factory=lambda: FrameworkInfo(None, None, None))
    process: ProcessInfo | None = None
    servers: list[ServerCommand] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    sections: dict[str, Any] = field(default_factory=dict)
    # Free-form lines for people (e.g. "assumed GPU h100x1"); rendered in text, kept in JSON as "notes".
    notes: list[str] = field(default_factory=list)

    @property
    def exit_status(self) -> int:
        # a consequence folded into a milder cause still fails the check
        every = [*self.findings, *(c for f in self.findings for c in f.consequences)]
        return 1 if any(f.severity == "error" for f in every) else 0

    def setting(self, name: str) -> Setting | None:
        for s in self.settings:
            if s.name == name:
                return s
        return None


class UsageError(Exception):
    """Bad usage or unreadable input: nothing could be analysed (exit status 2)."""
