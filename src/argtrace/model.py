"""The data that flows through argtrace, one direction: layers produce, the report collects, renderers read.

Every layer returns observations and findings; nothing here computes anything about bash, argparse or a
framework. The JSON contract (``schema_version`` 1) is built from these objects by ``render/json.py``.

A setting's history is an append-only list of observations in layer order; its *effective* value is derived
from that history (the deepest layer's value), never stored beside it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:  # at run time imported on first use (``__getattr__`` below)
    from typing import Any, Literal, TypeAlias

    from argtrace.model_launch import AssumedEntrypoint as AssumedEntrypoint
    from argtrace.model_launch import Assumption as Assumption
    from argtrace.model_launch import EnvEdit as EnvEdit
    from argtrace.model_launch import EnvValue as EnvValue
    from argtrace.model_launch import FixEdit as FixEdit
    from argtrace.model_launch import FromUnset as FromUnset
    from argtrace.model_launch import Origin as Origin
    from argtrace.model_launch import Placement as Placement
    from argtrace.model_launch import ProcessInfo as ProcessInfo
    from argtrace.model_launch import ServerCommand as ServerCommand
    from argtrace.model_launch import VanishedWord as VanishedWord
    from argtrace.model_launch import Word as Word

SCHEMA_VERSION = 1

Layer: TypeAlias = 'Literal["transport", "shell", "process", "parser", "resolution", "log", "live", "memory"]'
LAYERS: tuple[Layer, ...] = ("transport", "shell", "process", "parser", "resolution", "log", "live", "memory")

Severity: TypeAlias = 'Literal["error", "warning", "info"]'
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")

FrameworkName: TypeAlias = 'Literal["sglang", "vllm"]'
# How the release was decided, strongest evidence first (``frameworks/release.py``): ``bundled-schema`` is a
# release the user named (``--framework-version``); ``none`` means no evidence, see ``accepted_by``.
# ``live``: /server_info or vLLM's /version (``--url``); ``process``: the running process's import
# (``--pid``); ``run``: the intercepted start of ``argtrace run``.
FrameworkSource: TypeAlias = (
    'Literal["bundled-schema", "resolver-env", "installed", "log", "live", "image", "pip-line", "none", '
    '"process", "run"]'
)

# What a finding rests on. ``observed``: a log, /server_info, /proc, a ``run`` capture. ``framework-code``:
# the framework's own parser, resolver or sizing ran. ``static``: the files as bash, docker, compose or
# kubelet read them. ``schema``: a bundled schema of a release the user named or the evidence decided.
# ``assumed``: some step used a default argtrace chose (a GPU, a release, a missing model config).
Basis: TypeAlias = 'Literal["observed", "framework-code", "static", "schema", "assumed"]'
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
class Evidence:
    """One piece of text that supports a finding, and where it was seen."""

    layer: Layer
    at: str | None
    text: str


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

    @property
    def last_at(self) -> str | None:
        """Where the last layer that placed it saw it (the place a finding about its value points at)."""
        return next((o.at for o in reversed(self.history) if o.at), None)

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

    def described_server(self) -> ServerCommand | None:
        """The server command the report describes: the one the process layer placed, else the first."""
        here = self.process.at if self.process is not None else None
        return next((s for s in self.servers if s.at == here), self.servers[0] if self.servers else None)

    def parsed_release(self, framework: str) -> str | None:
        """The release a late check reads for a launch of ``framework`` that argparse accepts; None for
        another framework's launch, for no release known, and for a launch argparse refuses first (no code
        after argparse runs; the parser's findings say why)."""
        release = self.framework.release
        if self.framework.name != framework or not release:
            return None
        if (self.sections.get("parser") or {}).get("exit_status"):
            return None
        return release

    def written(self, name: str) -> Setting | None:
        """The setting when the launch writes it and the release knows it; None for a default or a flag the
        release does not take (whose effective value is null)."""
        setting = self.setting(name)
        if setting is None or setting.intended is None or setting.unknown_to_framework:
            return None
        return setting

    def written_value(self, name: str) -> Any:
        """The effective value of a setting the launch writes and the release knows (``written``), else
        None."""
        setting = self.written(name)
        return None if setting is None else setting.effective

    def effective_int(self, name: str) -> int | None:
        """The setting's effective value as an integer; None when it is not known, not set, a boolean or
        not an integer's text."""
        setting = self.setting(name)
        return as_int(setting.effective) if setting is not None else None


def as_int(value: Any) -> int | None:
    """``value`` as an integer; None when it is None, a boolean or not an integer's text."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(str(value))
    except ValueError:
        return None


class UsageError(Exception):
    """Bad usage or unreadable input: nothing could be analysed (exit status 2)."""


# What check builds about a launch (its server starts, the assumptions, the edits that fix it) lives in
# model_launch.py, created only when a command uses one of its classes (``argtrace log`` on a file needs
# none; each dataclass costs about 0.5 ms at import). Their address here stays.
_LAUNCH_NAMES = frozenset(
    (
        "Assumption",
        "AssumedEntrypoint",
        "EnvEdit",
        "EnvValue",
        "FixEdit",
        "Origin",
        "Placement",
        "ProcessInfo",
        "FromUnset",
        "ServerCommand",
        "VanishedWord",
        "Word",
    )
)


def __getattr__(name: str) -> object:
    if name not in _LAUNCH_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from argtrace import model_launch

    value = getattr(model_launch, name)
    globals()[name] = value
    return value
