"""``argtrace check``: run the layers in order and collect what they observed into one report.

Each layer is a module with one entry point that takes what the earlier layers produced and returns a
``LayerResult``; this module only sequences them and folds the results into settings. It decides nothing
about bash, argparse or a framework itself.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from argtrace import localfs
from argtrace.layers.separated import PredictedCommands
from argtrace.model import (
    Finding,
    FrameworkInfo,
    FrameworkName,
    FrameworkSource,
    LayerResult,
    Observation,
    Report,
    ServerCommand,
    Setting,
    UsageError,
)

if TYPE_CHECKING:
    from argtrace.frameworks.schema import Schema
    from argtrace.layers.transport import TransportResult

# Refuse to read more than this: a launch script is kilobytes; 64 MiB is surely not one.
MAX_SCRIPT_BYTES = 64 * 1024 * 1024
COMMAND_LABEL = "<-c>"


@dataclass(frozen=True)
class CheckOptions:
    script: str | None
    script_args: tuple[str, ...]
    command_string: str | None
    env: Mapping[str, str]
    framework: str | None = None
    framework_version: str | None = None
    server: int = 1
    python: str | None = None
    model_config: str | None = None
    gpu: str | None = None
    log: str | None = None
    launched_after: str | None = None
    all_settings: bool = False
    run_shellcheck: bool = True
    resolve: bool = True
    extra: Mapping[str, object] = field(default_factory=dict)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> CheckOptions:
        from argtrace.layers.running import check_extra

        if args.python and "/" in args.python:  # a bare name is looked up on PATH, like the shell does
            _refuse_special_interpreter(args.python)
        return cls(
            script=args.script,
            script_args=tuple(args.script_args),
            command_string=args.command_string,
            env=starting_environment(_caller_environment(), args.env, clean=args.clean_env),
            framework=args.framework,
            framework_version=args.framework_version,
            server=args.server,
            python=args.python,
            model_config=args.model_config,
            gpu=args.gpu,
            log=args.log,
            launched_after=args.launched_after,
            all_settings=args.all_settings,
            run_shellcheck=not args.no_shellcheck,
            resolve=not args.no_resolve,
            extra={
                "service": getattr(args, "service", None),
                "container": getattr(args, "container", None),
                **check_extra(args),
            },
        )


def _refuse_special_interpreter(python: str) -> None:
    """``--python`` naming a FIFO, socket or device: a usage error. Reading its first bytes (is it an ELF
    binary or a script?) would block on a FIFO forever."""
    from argtrace.transport.host import current_host

    host = current_host()
    st = host.stat(python)
    if st.exists and not st.is_file and not st.is_dir:
        raise UsageError(
            f"--python {host.describe(python)}: is a {st.special or 'special file'}, not an interpreter"
        )


def _start_directory() -> str | None:
    """Where the script starts: here, or with ``--host`` the ssh session's directory on the node."""
    from argtrace.transport.host import current_host

    host = current_host()
    return host.info().cwd if host.is_remote else None


def _caller_environment() -> Mapping[str, str]:
    """This process's environment, or with ``--host`` the node's (a non-interactive ssh session's)."""
    from argtrace.transport.host import current_host

    host = current_host()
    return host.environ() if host.is_remote else os.environ


def starting_environment(
    caller: Mapping[str, str], assignments: Sequence[str], *, clean: bool
) -> dict[str, str]:
    """The environment the script starts with: the caller's (or nothing), then each ``--env KEY=VALUE``."""
    env = {} if clean else dict(caller)
    for item in assignments:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--env needs KEY=VALUE (KEY= for an empty value), got {item!r}")
        if not key.replace("_", "a").isalnum() or key[0].isdigit():
            raise UsageError(f"--env: {key!r} is not a valid environment variable name")
        env[key] = value
    return env


def read_script(path_text: str) -> tuple[bytes, Path | None]:
    """The script's bytes, read on the current host (``--host``: the node's file; no local Path then)."""
    from argtrace.transport.host import current_host

    host = current_host()
    data = host.read_input(path_text, what="launch script", max_bytes=MAX_SCRIPT_BYTES)
    return data, (None if host.is_remote else Path(path_text))


def fold_settings(results: Sequence[LayerResult]) -> list[Setting]:
    """One setting per name, its history the layers' observations in layer order."""
    settings: dict[str, Setting] = {}
    for result in results:
        for name, (flag, observations) in result.observations.items():
            setting = settings.get(name)
            if setting is None:
                setting = settings[name] = Setting(name=name, flag=flag)
            elif setting.flag is None:
                setting.flag = flag
            setting.history.extend(observations)
        for name, value in result.intended.items():
            if name in settings:
                settings[name].intended = value
        for name in result.unknown_settings:
            if name in settings:
                settings[name].unknown_to_framework = True
    return list(settings.values())


def run_check(options: CheckOptions) -> Report:
    # Bad input is reported before anything heavier than reading a file happens.
    args: Sequence[str]
    if options.command_string is not None:
        label, data, path = COMMAND_LABEL, options.command_string.encode(), None
        # As with bash -c: the first word after the command is $0, the rest $1...
        arg0 = options.script_args[0] if options.script_args else "argtrace"
        args = options.script_args[1:]
    else:
        script = options.script
        assert script is not None
        (data, real_path), label = read_script(script), script
        path = real_path
        arg0, args = script, options.script_args
    from argtrace.layers.shell import ScriptSource, analyze_script

    source = ScriptSource(label=label, data=data, path=path)
    report = Report(command="check")
    # transport: a docker compose file or Kubernetes manifest instead of a script (layers/transport.py)
    from argtrace.layers.transport import (
        analyze_manifest,
        analyze_transport,
        manifest_kind,
        manifest_selection,
    )

    if options.command_string is None and manifest_kind(source.data) is not None:
        service, container = options.extra.get("service"), options.extra.get("container")
        service, container = manifest_selection(
            options.script_args,
            service if isinstance(service, str) else None,
            container if isinstance(container, str) else None,
        )
        manifest = analyze_manifest(source, env=options.env, service=service, container=container)
        report.findings.extend(manifest.findings)
        report.sections["transport"] = manifest.section
        return _check_servers(report, manifest.servers, source.label, options)
    shell = analyze_script(
        source, args, options.env, arg0=arg0, run_shellcheck=options.run_shellcheck, cwd=_start_directory()
    )
    # transport: servers started through ssh/docker, uploads, and what the journey did to the words
    transport = analyze_transport(source, shell, args=args, env=options.env, arg0=arg0)
    report.findings.extend(f for f in shell.findings if not (f.code == "SH019" and transport.servers))
    report.findings.extend(transport.findings)
    if transport.hops or transport.uploads:
        report.sections["transport"] = transport.section
    return _check_servers(
        report, [*shell.servers, *transport.servers], source.label, options, transport, shell.commands
    )


def _check_servers(
    report: Report,
    servers: list[ServerCommand],
    label: str,
    options: CheckOptions,
    transport: TransportResult | None = None,
    commands: PredictedCommands = (),
) -> Report:
    report.servers = list(servers)
    if not servers:
        report.notes.append(f"no SGLang or vLLM server start was found in {label}")
        return report
    if not 1 <= options.server <= len(servers):
        raise UsageError(f"--server {options.server}: the script starts {len(servers)} server(s)")
    server = servers[options.server - 1]
    results = analyze_server(server, options, report, transport, commands)
    report.settings = fold_settings(results)
    for result in results:
        report.findings.extend(result.findings)
        report.sections.update(result.sections)
    report.findings.extend(_other_servers_findings(servers, options))
    for late in late_layers(report, options):
        report.findings.extend(late.findings)
        report.sections.update(late.sections)
    return report


def model_config_path(options: CheckOptions, report: Report) -> Path | None:
    """``--model-config``, else the ``--model-path`` directory when it exists here with a config.json."""
    from argtrace.transport.host import current_host

    if current_host().is_remote:  # argtrace --host: a local copy of the node's config.json (transport.models)
        from argtrace.transport.models import node_model_dir

        model = report.setting("model_path") or report.setting("model")
        value = model.effective if model is not None and isinstance(model.effective, str) else None
        return node_model_dir(current_host(), options.model_config, value)
    if options.model_config:
        return Path(options.model_config)
    setting = report.setting("model_path") or report.setting("model")
    if setting is not None and isinstance(setting.effective, str):
        candidate = Path(setting.effective)
        if localfs.is_file(candidate / "config.json"):  # any text: never raises
            return candidate
    return None


def late_layers(report: Report, options: CheckOptions) -> list[LayerResult]:
    """Layers that read the settings' effective values rather than add to their history: memory."""
    results: list[LayerResult] = []
    model_config = model_config_path(options, report)
    if model_config is not None and report.framework.name is not None:
        from argtrace.layers.memory import analyze_memory, settings_from_report

        settings, env = settings_from_report(report)
        results.append(
            analyze_memory(
                model_config,
                options.gpu,
                settings,
                report.framework.name,
                report.framework.version,
                env=env,
                framework_argv=_framework_sizing_argv(report, options),
                framework_suggestions=False,  # only for a launch that does not fit: each costs a run
            )
        )
    return results


def _framework_sizing_argv(report: Report, options: CheckOptions) -> list[str] | None:
    """The server's flags when SGLang's own pool sizing should run: the release is not the one argtrace's
    formulas follow (0.5.15+ sizes the Mamba cache differently), its resolver environment exists, and
    ``--gpu`` names the GPU (without it the memory section is about an assumed H100). It costs runs in that
    environment (20-30 s with the suggestions), so only then."""
    from argtrace.layers.memory.sglang import VERSION as FORMULAS_VERSION
    from argtrace.resolver.environments import find_environment

    version = report.framework.version
    if not options.resolve or not options.gpu or report.framework.name != "sglang":
        return None
    if not version or version == FORMULAS_VERSION:
        return None
    if find_environment("sglang", version) is None:
        return None
    server = report.servers[options.server - 1]
    words = [w.text for w in server.server_args]
    return None if any(w is None for w in words) else [w for w in words if w is not None]


def analyze_server(
    server: ServerCommand,
    options: CheckOptions,
    report: Report,
    transport: TransportResult | None = None,
    commands: PredictedCommands = (),
) -> list[LayerResult]:
    """The process and parser layers (and later ones) for one server start.

    ``commands`` are the script's predicted simple commands: flags cut off from the server command by a
    shell hazard are followed as settings that never arrived (layers/separated.py).
    """
    from argtrace.frameworks.schema import choose_schema
    from argtrace.layers.parser import parse_server_args
    from argtrace.layers.process import describe_process
    from argtrace.layers.separated import merged_parser_view, separated_flags

    framework = options.framework or server.framework
    schema, version_source, schema_findings = choose_schema(
        framework, options.framework_version, server=server, python=options.python
    )
    report.framework = FrameworkInfo(
        name=cast(FrameworkName, schema.framework), version=schema.version, source=version_source
    )
    report.findings.extend(schema_findings)
    process, process_result = describe_process(server, schema)
    report.process = process
    parser_result = parse_server_args(server, schema)
    separated = separated_flags(server, commands, schema, parser_result)
    if version_source == "bundled-schema" and options.framework_version is None:
        for layer in (parser_result, separated):
            layer.findings[:] = _removed_flags_under_an_assumed_version(layer.findings, schema)
    # transport: each flag's value as written before ssh / an upload changed it (history's first entry)
    before = [transport.layer_result(server, schema)] if transport is not None else []
    parsed = merged_parser_view(parser_result, separated)
    after = [resolution_layer(server, schema, parsed, options)] if options.resolve else []
    for result in after:
        resolution = result.sections.get("resolution") or {}
        if resolution.get("status") in ("ok", "raised"):
            # The framework's own code ran: the effective values come from it, not from a schema.
            source: FrameworkSource = (
                "resolver-env"
                if str(resolution.get("interpreter", "")).startswith("resolver-env")
                else "installed"
            )
            report.framework = replace(report.framework, source=source)
    results = [*before, process_result, parser_result, separated, *after]
    if options.log:
        # The log's values come after the parser's and resolution's in each setting's history.
        from argtrace.layers.log.check import analyze_check_log

        results += analyze_check_log(server, options, report, results)
    if options.all_settings:
        results.append(untouched_settings(schema, results))
    if options.extra.get("pid") or options.extra.get("url"):
        # What the running process got and what the server reports come last: they are observed truth.
        from argtrace.layers.running import analyze_running

        results += analyze_running(server, options, report, results)
    return results


def _removed_flags_under_an_assumed_version(findings: Sequence[Finding], schema: Schema) -> list[Finding]:
    """PA003 (a flag an older release accepted) is certain only for a known version. With none installed
    for the server's interpreter here and none requested, the newest bundled schema is an assumption, and
    the launch may well run an older release that accepts the flag: a warning that says so."""
    note = (
        f" (assumed {schema.label}: no {schema.framework} was found for the server's interpreter here; pass "
        "--framework-version to check the release the node runs)"
    )
    return [
        replace(f, severity="warning", message=f.message + note) if f.code == "PA003" else f for f in findings
    ]


def untouched_settings(schema: Schema, results: Sequence[LayerResult]) -> LayerResult:
    """``--all-settings``: every field no layer touched, with the parser's default as its value.

    Fields the resolver changed are already settings (it records every write); the rest keep the
    default the parser gives them, which is what the server runs with.
    """
    from argtrace.layers.parser import all_defaults

    seen = {name for result in results for name in result.observations}
    untouched = LayerResult()
    for dest, default in all_defaults(schema).items():
        if dest not in seen:
            observation = Observation("parser", default, by="default", detail={"default": True})
            untouched.observations[dest] = (schema.flag_for_dest(dest), [observation])
    return untouched


def resolution_layer(
    server: ServerCommand, schema: Schema, parser_result: LayerResult, options: CheckOptions
) -> LayerResult:
    """The framework's own post-parse resolution, run under the recorder (layers/resolution.py)."""
    from argtrace.layers.resolution import resolve_server
    from argtrace.resolver.environments import find_environment

    # an unbundled release the user built an environment for resolves with its own code, even though the
    # parser layer used the nearest older bundled schema
    version = schema.version
    if options.framework_version and find_environment(schema.framework, options.framework_version):
        version = options.framework_version
    return resolve_server(
        server,
        schema.framework,
        version,
        parser_result=parser_result,
        flag_for_dest={d: f for d in schema.dests if (f := schema.flag_for_dest(d))},
        python=options.python,
        gpu=options.gpu,
        model_config=options.model_config,
    )


def _other_servers_findings(servers: Sequence[ServerCommand], options: CheckOptions) -> list[Finding]:
    """Findings cover every server the script starts, not only the one described."""
    from argtrace.frameworks.schema import choose_schema
    from argtrace.layers.parser import parse_server_args

    findings: list[Finding] = []
    for index, server in enumerate(servers, start=1):
        if index == options.server:
            continue
        schema, _, _ = choose_schema(
            options.framework or server.framework,
            options.framework_version,
            server=server,
            python=options.python,
        )
        findings.extend(replace(f, server=index) for f in parse_server_args(server, schema).findings)
    return findings
