"""What the transport layer carries while it follows one script, and what it returns.

This module owns :class:`TransportResult` (servers reached through ssh, uploads and containers, the
layer's findings, the report's ``transport`` section, and each flag's value as written before the journey
changed it), the per-script :class:`_Context` (arguments, environment, files uploaded so far, nesting
depth, and the dispatcher the carriers call back into for a nested script: :class:`Follow`), the value
the local shell gives a parameter (``_local_value``), the masking of secret values wherever the
journey copied them (``_scrubbed``), and the first line by which a carrier's file is told from a script
(``opening_line``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from argtrace.model import Finding, LayerResult, Observation, ServerCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from argtrace.layers.shell import ScriptSource, ShellResult
else:
    Protocol = object  # the classes below are only annotations: no typing at run time


def opening_line(data: bytes, comments: str = "#;") -> tuple[str, str] | None:
    """The first 64 KiB of a file as text and its first line that is neither blank nor a comment (a line
    starting with one of ``comments``), stripped; None for a script (``#!``), binary data or no such line.
    Unit files, quadlets, Supervisor configurations and Dockerfiles are told from a script by that line, so
    a script that writes one through a here-document stays a script."""
    head = data[:65536]
    if head.startswith(b"#!") or b"\x00" in head:
        return None
    text = head.decode("utf-8", "replace")
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and stripped[0] not in comments:
            return text, stripped
    return None


@dataclass
class TransportResult:
    """Servers reached through ssh/docker/manifests, findings of layer ``transport``, and the report "
    "section."""

    servers: list[ServerCommand] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    hops: list[dict[str, Any]] = field(default_factory=list)
    uploads: list[dict[str, Any]] = field(default_factory=list)
    # values of secret-named variables read from env files: masked wherever the journey copied them
    secrets: set[str] = field(default_factory=set)
    # the simple commands a carrier runs on the server's node with it, in order (a SkyPilot task's `setup:`
    # then `run:`), as (at, argv, condition): a `pip install vllm==X` there is evidence of the release
    commands: list[tuple[str, list[str | None], str | None]] = field(default_factory=list)

    # id(server) -> ({flag: (value as written before the journey, value that arrived or None, at)}, how)
    written: dict[int, tuple[dict[str, tuple[str, str | None, str | None]], str]] = field(
        default_factory=dict
    )

    def keep_secrets(self, env: Mapping[str, str | None]) -> None:
        """Remember the values of ``env``'s secret-named variables (``redact.is_secret_name``), to be
        masked wherever the journey copied them."""
        from argtrace.redact import is_secret_name

        self.secrets.update(v for k, v in env.items() if v and is_secret_name(k))

    @property
    def section(self) -> dict[str, Any]:
        """The ``transport`` top-level JSON key."""
        return {"hops": self.hops, "uploads": self.uploads}

    def layer_result(self, server: ServerCommand, schema: Any) -> LayerResult:
        """Observations of layer ``transport`` for one server: each flag's value as the user wrote it before
        ssh, an upload or a local expansion changed it (``schema`` maps flags to setting names)."""
        out = LayerResult()
        entry = self.written.get(id(server))
        if entry is None:
            return out
        flags, via = entry
        for flag, (written, arrived, at) in flags.items():
            spec = schema.option(flag) if schema is not None else None
            dest = getattr(spec, "dest", None)
            if not dest:
                continue
            observation = Observation(
                "transport",
                arrived,
                at=at,
                known=arrived is not None,
                reason=None
                if arrived is not None
                else f"written as {written}; no value arrived after {flag}",
                by=via,
                detail={"written": written},
            )
            out.observations[dest] = (flag, [observation])
        return out


class Follow(Protocol):
    """The dispatcher that follows every command of a script (``_follow``), as the carriers call it."""

    def __call__(
        self,
        source: ScriptSource,
        shell: ShellResult,
        ctx: _Context,
        result: TransportResult,
        *,
        local_shell: bool,
        ssh_host: str | None = None,
    ) -> None: ...


@dataclass
class _Context:
    """What is known while following one script: its args/env and files uploaded so far."""

    args: list[str]
    env: dict[str, str]
    arg0: str
    # the dispatcher, for the command an ssh hop or an uploaded script runs on the node: carried here so
    # that the ssh and upload code calls back into it without importing it (no import circle)
    follow: Follow
    uploads: dict[tuple[str, str], tuple[bytes | None, str]] = field(default_factory=dict)
    # (host, path) -> (here-document body as written, at of its first line), for uploads that expanded
    written_uploads: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    depth: int = 0
    # the release the user named (``--framework-version``): picks the image entrypoint of a tag that names
    # none (``latest``), whose builds changed their entrypoint across releases
    release: str | None = None
    # (script label, line) of each `export`/`declare -x` the shell layer ran: an `export NAME=` written
    # elsewhere (inside a quoted string typed into a tmux session) is no export of the script (TP014)
    export_lines: set[tuple[str, int]] = field(default_factory=set)


def _scrubbed(result: TransportResult, env: Mapping[str, str]) -> TransportResult:
    """Mask the values of secret-named variables (``HF_TOKEN``, ``*_API_KEY``) wherever the journey copied
    them: a locally expanded remote command, an upload's content, a message. The report's own redaction
    only knows the variables the server process gets."""
    from dataclasses import replace

    from argtrace.redact import is_secret_name, remember, scrub

    secrets = {v for k, v in env.items() if v and is_secret_name(k)} | set(result.secrets)
    remember(*secrets)  # the report boundary masks them in every output, short ones as whole words

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return scrub(value, secrets)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    result.hops = walk(result.hops)
    result.uploads = walk(result.uploads)
    result.findings = [
        replace(
            f,
            message=scrub(f.message, secrets),
            evidence=tuple(replace(e, text=scrub(e.text, secrets)) for e in f.evidence),
        )
        for f in result.findings
    ]
    return result


def _local_value(name: str, ctx: _Context) -> str | None:
    if name.isdigit():
        n = int(name)
        if n == 0:
            return ctx.arg0
        return ctx.args[n - 1] if n <= len(ctx.args) else None
    if name in ("@", "*"):
        return " ".join(ctx.args) if ctx.args else ""
    if name == "#":
        return str(len(ctx.args))
    return ctx.env.get(name)
