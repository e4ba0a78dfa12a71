"""``argtrace check Dockerfile [ARGS...]``: the image a Dockerfile builds, as the launch carrier.

This module owns turning the final stage of a Dockerfile into the container process ``docker run IMAGE
[ARGS]`` starts, following Docker's Dockerfile reference (https://docs.docker.com/reference/dockerfile/):

* stages: ``FROM IMAGE [AS NAME]``; a stage ``FROM`` an earlier stage inherits its ``ENV``, ``ENTRYPOINT``,
  ``CMD``, ``SHELL`` and ``WORKDIR``; the image ``docker build`` makes is the last stage's. A stage ``FROM``
  an external image inherits that image's entrypoint, known for the official SGLang/vLLM images
  (``data/image_entrypoints.json``) and otherwise not; its ``ENV`` is not known (``PATH`` unknown);
* ``ARG``: a name declared before the first ``FROM`` is usable in ``FROM`` only, unless a stage declares it
  again; an ``ARG`` without a default is what ``--build-arg`` gives (unknown here); "ARG variables are not
  persisted into the built image as ENV variables are": the container never sees them (TP086 when a
  shell-form command reads one);
* ``ENV``: the values the container starts with; "Environment variables defined using the ENV instruction
  always override an ARG instruction of the same name"; one instruction's values all see the variables as
  they were before it;
* "Understand how CMD and ENTRYPOINT interact": an exec-form ``ENTRYPOINT`` gets ``CMD`` (or the words after
  the image in ``docker run``) appended; a shell-form ``ENTRYPOINT`` runs ``/bin/sh -c TEXT`` and ignores
  ``CMD`` and the run's words (TP085); a shell-form ``CMD`` is ``/bin/sh -c TEXT`` (the ``SHELL`` in force);
  an ``ENTRYPOINT`` resets a ``CMD`` inherited from the base; the words after the Dockerfile given to
  ``argtrace check`` are the ``docker run IMAGE ARGS`` words, which replace ``CMD``;
* the exec form runs no shell: "``ENTRYPOINT [ "echo", "$HOME" ]`` will not do variable substitution on
  ``$HOME``" (TP013); the shell form's variables are expanded by the container's shell at run time, from
  the image's ``ENV`` and the run's ``-e`` (``--env NAME=VALUE`` here).

The shell form goes to the shell layer with the container's environment, its line numbers those of the
Dockerfile; an exec form's words go to framework detection as they are.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from argtrace.layers.transport import dockerfile_syntax as D
from argtrace.layers.transport.command_names import _SHELLS, _basename
from argtrace.layers.transport.context import TransportResult, opening_line
from argtrace.layers.transport.words import _show, _show_argv
from argtrace.model import EnvValue, Evidence, Origin, ServerCommand, Word

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DEFAULT_SHELL = ("/bin/sh", "-c")
_FIRST = re.compile(r"(?im)^[ \t]*(FROM|ARG)[ \t]+\S")
# a word of a server start in a RUN line: only those lines go through the shell layer
_SERVER_HINT = re.compile(r"\b(?:serve|launch_server|api_server|sglang|vllm)\b")
_READS_ARGS = re.compile(r"\$(?:[@*1-9]|\{[@*1-9])")
_REFERENCE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_][A-Za-z0-9_]*))")


def is_dockerfile(data: bytes) -> bool:
    """A Dockerfile: the first line that is neither blank nor a comment (parser directives are comments)
    is a ``FROM`` or ``ARG`` instruction, and a ``FROM`` follows. No shell script starts that way."""
    opened = opening_line(data, comments="#")
    if opened is None:
        return False
    text, first = opened
    return bool(_FIRST.match(first)) and re.search(r"(?im)^[ \t]*FROM[ \t]+\S", text) is not None


@dataclass
class _Form:
    """An ``ENTRYPOINT`` or ``CMD``: exec form (its words) or shell form (its text, run by ``shell``)."""

    keyword: str
    exec_form: tuple[str, ...] | None
    text: str
    line: int | None  # None: inherited from the base image
    shell: tuple[str, ...] = _DEFAULT_SHELL

    def argv(self) -> list[str]:
        return list(self.exec_form) if self.exec_form is not None else [*self.shell, self.text]


@dataclass
class _Stage:
    """One build stage (``FROM ... AS name``): its base, the image at the root of its chain, and the
    ``ENV``/``ARG`` values, lines and reasons it holds so far (a later stage starts from its base's)."""

    name: str | None
    base: str
    line: int
    image: str  # the external image at the root of the FROM chain
    env: dict[str, str | None] = field(default_factory=dict)
    env_at: dict[str, int] = field(default_factory=dict)
    env_reason: dict[str, str] = field(default_factory=dict)
    args: dict[str, str | None] = field(default_factory=dict)
    arg_at: dict[str, int] = field(default_factory=dict)
    entrypoint: _Form | None = None
    cmd: _Form | None = None
    cmd_set: bool = False
    shell: tuple[str, ...] = _DEFAULT_SHELL
    workdir: str | None = None
    base_entrypoint: bool = False  # the entrypoint is the external image's
    base_known: bool = True  # whether the external base image's entrypoint is known (the table's images)
    runs: list[D.Instruction] = field(default_factory=list)  # RUN lines that may start a server

    def scope(self) -> Mapping[str, str | None]:
        """The variables an instruction's replacement sees: the stage's ARGs, then its ENV; any other name
        may be the base image's ENV (not read here): unknown, not unset."""
        return _OpenScope({**self.args, **self.env})


class _OpenScope(dict[str, "str | None"]):
    """Every name is in it; one not set by the Dockerfile has an unknown value (the base image's ENV)."""

    def __contains__(self, name: object) -> bool:
        return True

    def __missing__(self, name: str) -> str | None:
        return None

    def get(self, name: str, default: str | None = None) -> str | None:  # type: ignore[override]
        return dict.get(self, name)


def build_stages(text: str, label: str) -> tuple[list[_Stage], str, dict[str, tuple[str | None, int]]]:
    """The stages of a Dockerfile as ``docker build`` makes them, its escape character, and the ``ARG`` s
    declared before the first ``FROM``."""
    from argtrace.layers.transport.containers import image_entrypoint

    instructions, escape = D.read_dockerfile(text)
    stages: list[_Stage] = []
    global_args: dict[str, tuple[str | None, int]] = {}
    stage: _Stage | None = None
    for ins in instructions:
        if ins.keyword == "FROM":
            words = [w for w in ins.rest.split() if not w.startswith("--")]
            scope = {k: v for k, (v, _line) in global_args.items()}
            base = D.expand(words[0], scope, escape)[0].text if words else ""
            name = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
            parent = next((s for s in reversed(stages) if s.name and s.name.lower() == base.lower()), None)
            if parent is not None:
                stage = _Stage(
                    name,
                    base,
                    ins.line,
                    parent.image,
                    dict(parent.env),
                    dict(parent.env_at),
                    dict(parent.env_reason),
                    entrypoint=parent.entrypoint,
                    cmd=parent.cmd,
                    shell=parent.shell,
                    workdir=parent.workdir,
                    base_entrypoint=parent.base_entrypoint,
                )
            else:
                from argtrace.layers.transport.images import image_entry

                stage = _Stage(name, base, ins.line, base)
                ep = image_entrypoint(base)
                entry = image_entry(base)
                # NVIDIA's entrypoint ends in `exec "$@"`: the command runs as if it had none
                if ep and not (entry is not None and entry.exec_wrapper):
                    stage.entrypoint = _Form("ENTRYPOINT", tuple(ep), "", None)
                    stage.base_entrypoint = True
                stage.base_known = ep is not None
            stages.append(stage)
            continue
        if ins.keyword == "ARG":
            for name, raw in D.name_values(ins.rest, escape):
                if stage is None:
                    value = None if raw is None else D.expand(raw, _values(global_args), escape)[0].text
                    global_args[name] = (value or None, ins.line)
                    continue
                if raw is None:
                    value = global_args[name][0] if name in global_args else None
                else:
                    expanded = D.expand(raw, stage.scope(), escape)[0]
                    value = None if expanded.unknown else expanded.text
                if value == "":
                    # `ARG NAME=` declares a value the build is meant to pass (`--build-arg NAME=...`),
                    # which is not seen here: unknown, not the empty default
                    value = None
                stage.args[name] = value
                stage.arg_at[name] = ins.line
            continue
        if stage is None:
            continue
        if ins.keyword == "RUN" and _SERVER_HINT.search(ins.rest):
            stage.runs.append(ins)
            continue
        if ins.keyword == "ENV":
            before = stage.scope()  # ENV wins over ARG; all values see the env before the line
            for name, raw in D.name_values(ins.rest, escape):
                expanded = D.expand(raw or "", before, escape)[0]
                stage.env[name] = None if expanded.unknown else expanded.text
                stage.env_at[name] = ins.line
                if expanded.unknown:
                    shown = ", ".join(sorted(set(expanded.unknown)))
                    stage.env_reason[name] = (
                        f"made from {shown}: a `--build-arg` or the base image's ENV, not known here"
                    )
                else:
                    stage.env_reason.pop(name, None)
        elif ins.keyword == "CMD":
            stage.cmd = _Form("CMD", ins.exec_form, ins.rest, ins.line, stage.shell)
            stage.cmd_set = True
        elif ins.keyword == "ENTRYPOINT":
            stage.entrypoint = _Form("ENTRYPOINT", ins.exec_form, ins.rest, ins.line, stage.shell)
            stage.base_entrypoint = False
            if not stage.cmd_set:
                stage.cmd = None  # "setting ENTRYPOINT will reset CMD to an empty value"
        elif ins.keyword == "SHELL" and ins.exec_form:
            stage.shell = ins.exec_form
        elif ins.keyword == "WORKDIR":
            path = D.expand(ins.rest, stage.scope(), escape)[0].text
            stage.workdir = posixpath.join(stage.workdir or "/", path)
    return stages, escape, global_args


def _values(args: Mapping[str, tuple[str | None, int]]) -> dict[str, str | None]:
    return {k: v for k, (v, _line) in args.items()}


def analyze_dockerfile(
    label: str,
    data: bytes,
    *,
    run_args: Sequence[str] | None,
    run_env: Mapping[str, str],
    release: str | None = None,
) -> TransportResult:
    """The server start of ``docker run IMAGE [RUN_ARGS]`` for the image the Dockerfile builds.
    ``run_args``: the words after the image (None: none given, the image's ``CMD`` runs); ``run_env``: the
    run's ``-e`` variables (``--env``)."""
    from argtrace.rules import launchfiles as R

    result = TransportResult()
    stages, _escape, global_args = build_stages(data.decode("utf-8", "replace"), label)
    if not stages:
        return result
    stage = stages[-1]
    ep, cmd = stage.entrypoint, stage.cmd
    hop: dict[str, Any] = {
        "at": label,
        "via": "Dockerfile",
        "stage": stage.name or len(stages) - 1,
        "from": stage.image,
        "entrypoint": ep.argv() if ep is not None else None,
        "cmd": cmd.argv() if cmd is not None else None,
        "environment": sorted(stage.env),
    }
    result.hops.append(hop)
    for built in stages:
        _servers_at_build(label, built, result)
    # the command after the entrypoint: the run's words replace CMD
    if run_args is not None:
        extra: list[str] = list(run_args)
        # the run's words have no line of their own: they are appended where the entrypoint is written
        extra_at = f"{label}:{ep.line}" if ep is not None and ep.line is not None else f"{label}:{stage.line}"
        extra_how = "the words after the image in `docker run`"
    elif cmd is not None:
        extra = cmd.argv()
        extra_at, extra_how = f"{label}:{cmd.line}", "CMD"
    else:
        extra, extra_at, extra_how = [], label, ""
    if ep is None:
        argv, at, parts = extra, extra_at, [(extra_how, extra_at, len(extra))]
    elif ep.exec_form is not None:
        ep_at = f"{label}:{ep.line}" if ep.line is not None else f"{label}:{stage.line}"
        argv = [*ep.exec_form, *extra]
        at = extra_at if extra and cmd is not None and run_args is None else ep_at
        ep_how = "ENTRYPOINT" if ep.line is not None else f"{stage.image}'s ENTRYPOINT"
        parts = [(ep_how, ep_at, len(ep.exec_form)), (extra_how, extra_at, len(extra))]
    else:
        at = f"{label}:{ep.line}"
        argv = [*ep.shell, ep.text, *extra]
        parts = [("ENTRYPOINT", at, len(argv) - len(extra)), (extra_how, extra_at, len(extra))]
        if extra and not _READS_ARGS.search(ep.text):
            lost = "the words after the image in `docker run`" if run_args is not None else "CMD"
            result.findings.append(
                R.TP085.finding(
                    f"the shell-form ENTRYPOINT runs `{_show_argv(ep.shell)} {_show(ep.text)}`, which "
                    f"ignores {lost}: `{_show_argv(extra[:6])}{' ...' if len(extra) > 6 else ''}` become $0, "
                    "$1, ... of that script and never reach the server",
                    at=extra_at,
                    evidence=[Evidence("transport", at, f"ENTRYPOINT {ep.text}")],
                )
            )
    hop["argv"] = argv
    if not argv:
        hop["note"] = (
            "the image has neither ENTRYPOINT nor CMD here: the base image's CMD (not known here) runs"
        )
        return result
    env, origins = _container_env(label, stage, run_env)
    if ep is not None and stage.base_entrypoint and run_args is None and cmd is not None:
        from argtrace.layers.transport.containers import _entrypoint_findings

        _entrypoint_findings(
            extra_at, stage.image, None, extra, result, how="the Dockerfile's CMD", release=release
        )
    if ep is not None and ep.exec_form and not stage.base_entrypoint and extra:
        _launcher_appended(label, ep, extra, extra_at, extra_how, result)
    for form in (ep, cmd if run_args is None else None):
        if form is not None and form.exec_form is not None and form.line is not None:
            _exec_form_references(label, form, stage, argv, result)
    before = len(result.servers)
    shell_c = len(argv) >= 3 and _basename(argv[0]) in _SHELLS and argv[1] in ("-c", "-lc", "-ec", "-xc")
    if shell_c:
        # the line the script text was written on: the entrypoint's when it holds the text, else CMD's
        script_line: int | None = None
        if ep is not None and (ep.exec_form is None or len(ep.exec_form) >= 3):
            script_line = ep.line
        elif run_args is None and cmd is not None:
            script_line = cmd.line
        _shell_form(label, script_line, argv, env, origins, stage, global_args, result)
    else:
        server = _server(label, at, argv, parts, env, origins, stage)
        if server is not None:
            result.servers.append(server)
    for n in range(before, len(result.servers)):
        server = replace(result.servers[n], image=stage.image)
        if ep is not None and not extra and run_args is None:
            # no CMD: the image takes its server arguments from `docker run IMAGE ARGS`
            hop["note"] = (
                "the image has no CMD: the server's arguments are the words after the image in `docker "
                "run`; give them after the Dockerfile (`argtrace check Dockerfile ARGS...`)"
            )
        result.servers[n] = server
    result.keep_secrets(env)
    return result


def _servers_at_build(label: str, stage: _Stage, result: TransportResult) -> None:
    """TP088: a ``RUN`` line that starts a server runs while ``docker build`` makes the image ("The RUN
    instruction will execute any commands to create a new layer on top of the current image", Dockerfile
    reference), never when a container starts."""
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.rules import launchfiles as R

    for ins in stage.runs:
        text = _show_argv(ins.exec_form) if ins.exec_form is not None else ins.rest
        if text.startswith("--"):  # RUN --mount=... --network=...: BuildKit's own options first
            text = re.sub(r"^(?:--\S+\s+)+", "", text)
        source = ScriptSource(
            label=label, data=("\n" * (ins.line - 1) + text).encode("utf-8", "replace"), path=None
        )
        shell = analyze_script(source, [], {}, arg0="/bin/sh", run_shellcheck=False, cwd=stage.workdir or "/")
        for server in shell.servers:
            shown = _show_argv([w.text or "?" for w in server.argv][:6])
            result.findings.append(
                R.TP088.finding(
                    f"`RUN {shown}{' ...' if len(server.argv) > 6 else ''}` starts the server while `docker "
                    "build` makes the image, not when a container starts: the build waits on it (or fails "
                    "where the builder has no GPU), and the container runs the image's ENTRYPOINT/CMD "
                    "instead",
                    at=f"{label}:{ins.line}",
                    fix=(
                        'Start the server with `CMD` (exec form: `CMD ["vllm", "serve", ...]`) or '
                        "`ENTRYPOINT`; keep `RUN` for what installs or downloads."
                    ),
                )
            )


def _launcher_appended(
    label: str, ep: _Form, extra: list[str], at: str, how: str, result: TransportResult
) -> None:
    """TP010: the Dockerfile's own exec-form ENTRYPOINT starts the server, and CMD or the run's words name a
    launcher (or a shell) again: they are appended to it, not run in its place (opea GenAIComps#336's
    `docker run IMAGE /bin/bash -c "..."` after `ENTRYPOINT ["python3", "-m", "vllm.entrypoints..."]`)."""
    from argtrace.frameworks.detect import detect_server
    from argtrace.rules import transport as R

    entry = list(ep.exec_form or ())
    if detect_server(entry) is None:
        return
    first = _basename(extra[0])
    repeats = extra[: len(entry)] == entry or extra[0] == entry[-1]
    launcher = first in ("vllm", "sglang", "python", "python3", *_SHELLS) or extra[0].startswith("python")
    if not (repeats or launcher):
        return
    final = [*entry, *extra]
    shown = _show_argv(final[:8]) + (" ..." if len(final) > 8 else "")
    result.findings.append(
        R.TP010.finding(
            f"the image already has the entrypoint `{_show_argv(entry)}` (ENTRYPOINT at {label}:{ep.line}); "
            f"{how} {'are' if how.startswith('the words') else 'is'} appended to it, so the container runs "
            f"`{shown}`",
            at=at,
            evidence=[Evidence("transport", at, _show_argv(extra))],
            fix=(
                "Give only the server's arguments after the image, or replace the entrypoint: `docker run "
                "--entrypoint /bin/bash IMAGE -c ...`."
            ),
        )
    )


def _container_env(
    label: str, stage: _Stage, run_env: Mapping[str, str]
) -> tuple[dict[str, str | None], dict[str, Origin]]:
    env: dict[str, str | None] = {}
    origins: dict[str, Origin] = {}
    if "PATH" not in stage.env:
        env["PATH"] = None
        origins["PATH"] = Origin(
            at=label,
            expansion=f"image {stage.image}",
            known=False,
            reason=f"set by {stage.image}'s ENV, not read here",
        )
    for name, value in stage.env.items():
        env[name] = value
        origins[name] = Origin(
            at=f"{label}:{stage.env_at[name]}",
            expansion="ENV",
            known=value is not None,
            reason=stage.env_reason.get(name),
        )
    for name, value in run_env.items():
        env[name] = value
        origins[name] = Origin(at=None, expansion="docker run -e (--env)")
    return env, origins


def _server(
    label: str,
    at: str,
    argv: list[str],
    parts: list[tuple[str, str, int]],
    env: Mapping[str, str | None],
    origins: Mapping[str, Origin],
    stage: _Stage,
) -> ServerCommand | None:
    from argtrace.layers.transport.containers import _server_from_argv

    server = _server_from_argv(at, argv, env, "Dockerfile", origins)
    if server is None:
        return None
    words: list[Word] = []
    for how, where, count in parts:
        for _ in range(count):
            i = len(words)
            if i < len(server.argv):
                words.append(Word(server.argv[i].text, Origin(at=where, expansion=how)))
    words.extend(server.argv[len(words) :])
    return replace(server, argv=tuple(words), cwd=stage.workdir or "/")


def _shell_form(
    label: str,
    line: int | None,
    argv: list[str],
    env: Mapping[str, str | None],
    origins: Mapping[str, Origin],
    stage: _Stage,
    global_args: Mapping[str, tuple[str | None, int]],
    result: TransportResult,
) -> None:
    """``/bin/sh -c TEXT [WORDS]``: TEXT through the shell layer with the container's environment, its
    lines the Dockerfile's (the text starts on ``line``); WORDS are ``$0 $1 ...``."""
    from argtrace.layers.shell import ScriptSource, analyze_script
    from argtrace.rules import launchfiles as R

    script = argv[2]
    at = f"{label}:{line}" if line is not None else label
    # ARG values exist during the build only: a name the image sets with ARG and never ENV is unset when
    # the container's shell runs (Dockerfile reference, ARG: "not persisted into the built image")
    arg_only = {**{k: v for k, (v, _l) in global_args.items()}, **stage.args}
    flagged: set[str] = set()
    for m in _REFERENCE.finditer(script):
        name = m.group(1) or m.group(2)
        if name in arg_only and name not in env and name not in flagged:
            flagged.add(name)
            line_of = stage.arg_at.get(name) or global_args.get(name, (None, 0))[1]
            value = arg_only[name]
            result.findings.append(
                R.TP086.finding(
                    f"`{m.group(0)}`: {name} is set only by `ARG {name}` ({label}:{line_of}), which exists "
                    "while the image is built, not in the container: the shell that runs this command at "
                    "start finds it unset"
                    + (f", and the value `{value}` never reaches the server" if value else ""),
                    at=at,
                    fix=f"Add `ENV {name}=${{{name}}}` after `ARG {name}` so the container keeps the value.",
                )
            )
    known = {k: v for k, v in env.items() if v is not None}
    unknown: dict[str, str] = {}
    for k, v in env.items():
        if v is None:
            reason = origins[k].reason if k in origins else None
            unknown[k] = reason or "set in the image, not known here"
    source = ScriptSource(
        label=label, data=("\n" * ((line or 1) - 1) + script).encode("utf-8", "surrogateescape"), path=None
    )
    shell = analyze_script(
        source,
        list(argv[4:]),
        known,
        arg0=argv[3] if len(argv) > 3 else argv[0],
        run_shellcheck=False,
        cwd=stage.workdir or "/",
        unknown_env=unknown,
    )
    said = tuple(f"`${n}`" for n in flagged) + tuple(f"`${{{n}" for n in flagged)
    result.findings.extend(
        f
        for f in shell.findings
        if f.code != "SH019" and not (f.code in ("SH007", "SH026") and f.message.startswith(said))
    )
    result.commands.extend(shell.commands)
    for server in shell.servers:
        kept = {
            k: replace(v, origin=origins[k])
            for k, v in server.env.items()
            if k in origins and v.origin.expansion == "environment" and v.value == env.get(k)
        }
        missing = {k: EnvValue(None, origins[k]) for k, v in env.items() if v is None and k not in server.env}
        result.servers.append(replace(server, env={**server.env, **kept, **missing}))


def _exec_form_references(
    label: str, form: _Form, stage: _Stage, argv: Sequence[str], result: TransportResult
) -> None:
    """TP013: a ``$NAME`` in an exec-form ``ENTRYPOINT``/``CMD`` reaches the program as those characters."""
    from argtrace.rules import transport as R

    if argv and _basename(argv[0]) in _SHELLS and "-c" in argv[1:3]:
        return  # `["sh", "-c", "... $MODEL"]`: the shell expands it, as meant
    for word in form.exec_form or ():
        m = _REFERENCE.search(word)
        if m is None:
            continue
        name = m.group(1) or m.group(2)
        set_by = (
            f"; the image's `ENV {name}` ({label}:{stage.env_at[name]}) never takes its place"
            if name in stage.env_at
            else ""
        )
        words = list(form.exec_form or ())
        script = " ".join(w if w == word else _show(w) for w in words)
        listed = '["/bin/sh", "-c", "exec ' + script.replace('"', '\\"') + '"]'
        result.findings.append(
            R.TP013.finding(
                f"{form.keyword} is in exec form (a JSON array): Docker runs it without a shell, so "
                f"{_show(word)} reaches the program as the characters `{m.group(0)}`{set_by}",
                at=f"{label}:{form.line}",
                evidence=[Evidence("transport", f"{label}:{form.line}", f"{form.keyword} {form.text}")],
                fix=(
                    f"Let a shell expand it: the shell form (`{form.keyword} exec {script}`), or "
                    f'`{form.keyword} {listed}` (Dockerfile reference, "Shell and exec form").'
                ),
            )
        )
        return
