"""``argtrace check vllm.def``: an Apptainer/Singularity definition file as the launch carrier.

A definition file is not a shell script: a header (``Bootstrap: docker``, ``From: IMAGE``) and sections
(``%post``, ``%environment``, ``%runscript``, ``%startscript``...) that Apptainer uses at different times.
Read as bash, ``%post``'s build commands and exports look as if they ran before the server, and the header
and ``%files``/``%labels`` lines are commands. This module owns reading a definition file by Apptainer's
own rules (user guide,
"Definition Files"; the image's ``/.singularity.d/actions/run``, which sources ``/.singularity.d/env/*.sh``
and then runs the runscript with ``/bin/sh``):

- ``%post`` runs once, at build time; nothing it exports reaches the container at run time (TP102 when the
  runscript reads such a variable and nothing else sets it);
- at ``apptainer run IMAGE ARGS``, ``%environment`` is sourced, then ``%runscript`` runs with ``ARGS`` as
  ``"$@"`` (the words after the file on argtrace's command line); ``apptainer instance start IMAGE NAME
  ARGS`` runs ``%startscript`` the same way. Each is read here as the script it becomes, after
  ``%environment``, with the host's environment (Apptainer passes it on unless ``--cleanenv``);
- the base image of ``Bootstrap: docker``/``From:`` is the server's image (its tag may name the release).

Without ``%runscript``, ``apptainer run`` runs the base image's ENTRYPOINT with the run's arguments (the
runscript Apptainer generates from a Docker image's ENTRYPOINT and CMD, the arguments replacing CMD): read
so when argtrace knows the image's entrypoint (``vllm/vllm-openai``, ``lmsysorg/sglang``...).

Not modelled: ``%apprun``/SCIF apps, ``%arguments``/``{{ }}`` build arguments (left as written),
``--cleanenv`` and ``APPTAINERENV_*``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from argtrace.layers.transport.context import TransportResult

_SECTION = re.compile(r"^%([A-Za-z]+)\b(.*)$")
_HEADER = re.compile(r"^([A-Za-z]+)\s*:\s*(.*?)\s*$")
_EXPORT = re.compile(r"^\s*export\s+([A-Za-z_][A-Za-z0-9_]*)=")
_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=")
_RUN_SECTIONS = ("runscript", "startscript")


@dataclass
class Definition:
    """The header and sections of a definition file: section name -> (first body line, body lines)."""

    header: dict[str, str] = field(default_factory=dict)
    sections: dict[str, tuple[int, list[str]]] = field(default_factory=dict)


def is_definition(data: bytes) -> bool:
    """A definition file: its first line that is neither blank nor a comment is the ``Bootstrap:`` header
    (Apptainer requires it first), and it has a section."""
    from argtrace.layers.transport.context import opening_line

    opened = opening_line(data, "#")
    if opened is None:
        return False
    text, first = opened
    return bool(re.match(r"(?i)bootstrap\s*:", first)) and bool(re.search(r"(?m)^%[A-Za-z]+", text))


def parse_definition(text: str) -> Definition:
    out = Definition()
    current: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        m = _SECTION.match(line)
        if m:
            current = m.group(1).lower()
            out.sections[current] = (number + 1, [])
            continue
        if current is None:
            h = _HEADER.match(line.strip())
            if h:
                out.header[h.group(1).lower()] = h.group(2)
            continue
        out.sections[current][1].append(line)
    return out


def base_image(definition: Definition) -> str | None:
    """The docker image of ``Bootstrap: docker`` (``docker://`` images of ``localimage``/``oras`` aside)."""
    if definition.header.get("bootstrap", "").lower() != "docker":
        return None
    image = definition.header.get("from", "").strip()
    return image or None


def analyze_definition(
    label: str,
    data: bytes,
    *,
    env: Mapping[str, str],
    args: Sequence[str],
    follow: object | None = None,
) -> TransportResult:
    """The servers ``%runscript`` (``apptainer run``) and ``%startscript`` (``apptainer instance start``)
    start, each read after ``%environment`` with the host's environment."""
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.rules.launchers import TP102

    result = TransportResult()
    text = data.decode("utf-8", "replace")
    definition = parse_definition(text)
    image = base_image(definition)
    lines = text.splitlines()
    env_start, env_body = definition.sections.get("environment", (0, []))
    post_start, post_body = definition.sections.get("post", (0, []))
    # (section, line the hop names, first line of the script's body, body)
    runs = [
        (name, start - 1, start, body)
        for name in _RUN_SECTIONS
        if name in definition.sections
        for start, body in [definition.sections[name]]
    ]
    if "runscript" not in definition.sections and image is not None:
        runs[:0] = _image_runscript(image, lines)
    for name, header, start, body in runs:
        # the script the container runs: %environment's lines where they are in the file, then the
        # runscript's; every other line blank, so line numbers stay the definition file's
        script = [""] * len(lines)
        if env_body and env_start < start:
            script[env_start - 1 : env_start - 1 + len(env_body)] = env_body
        elif env_body:
            # %environment written after the runscript is still sourced first: its lines go at the top
            script[: len(env_body)] = env_body
        script[start - 1 : start - 1 + len(body)] = body
        source = ScriptSource(
            label=label, data=("\n".join(script) + "\n").encode("utf-8", "surrogateescape"), path=None
        )
        shell = analyze_script(
            source, list(args), dict(env), arg0="/.singularity.d/runscript", run_shellcheck=False, cwd=None
        )
        result.commands.extend(shell.commands)
        result.findings.extend(f for f in shell.findings if f.code != "SH019")
        carried = []
        if follow is not None:
            transport = follow(source, shell, args=list(args), env=env)  # type: ignore[operator]
            result.findings.extend(transport.findings)
            result.hops.extend(transport.hops)
            carried = transport.servers
        servers = [*shell.servers, *carried]
        for server in servers:
            result.servers.append(replace(server, image=image) if image and server.image is None else server)
        how = "apptainer instance start" if name == "startscript" else "apptainer run"
        what = "the image's ENTRYPOINT" if name == "entrypoint" else f"%{name}"
        script_file = "/.singularity.d/startscript" if name == "startscript" else "/.singularity.d/runscript"
        result.hops.append(
            {"at": f"{label}:{header}:1", "via": f"{how} ({what})", "argv": ["/bin/sh", script_file, *args]}
        )
        if servers:
            _post_exports(label, post_start, post_body, env_body, env, body, start, result, TP102)
    return result


def _image_runscript(image: str, lines: list[str]) -> list[tuple[str, int, int, list[str]]]:
    """The runscript Apptainer makes from the base image's ENTRYPOINT (the run's arguments after it), at the
    ``From:`` line, when argtrace knows that entrypoint; else none."""
    import shlex

    from argtrace.layers.transport.containers import image_entrypoint

    entry = image_entrypoint(image)
    at = next((i for i, line in enumerate(lines, 1) if re.match(r"(?i)\s*from\s*:", line)), None)
    if not entry or at is None:
        return []
    # the generated runscript has no line of its own: it is read on the From: line that names the image
    return [("entrypoint", at, at, [f'exec {shlex.join(entry)} "$@"'])]


def _post_exports(
    label: str,
    post_start: int,
    post_body: list[str],
    env_body: list[str],
    env: Mapping[str, str],
    body: list[str],
    start: int,
    result: TransportResult,
    rule: object,
) -> None:
    """TP102: a variable the runscript reads that only ``%post`` exports (not ``%environment``, not the
    runscript itself, not the host's environment)."""
    set_at_run = {m.group(1) for line in [*env_body, *body] if (m := _ASSIGN.match(line))} | set(env)
    for offset, line in enumerate(post_body):
        m = _EXPORT.match(line)
        if not m or m.group(1) in set_at_run:
            continue
        name = m.group(1)
        reads = re.compile(r"\$(?:\{)?" + re.escape(name) + r"\b")
        used = next((i for i, text in enumerate(body) if reads.search(text)), None)
        if used is None:
            continue
        result.findings.append(
            rule.finding(  # type: ignore[attr-defined]
                f"`{name}` is exported in %post (build time), but the runscript reads it at line "
                f"{start + used}: %post's exports end with the build, so `${name}` is unset when the "
                "server starts",
                at=f"{label}:{post_start + offset}:{line.index('export') + 1}",
            )
        )
