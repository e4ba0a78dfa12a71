"""``argtrace check``: run the layers in order and collect what they observed into one report.

Each layer is a module with one entry point that takes what the earlier layers produced and returns a
``LayerResult``; this module only sequences them and folds the results into settings. It decides nothing
about bash, argparse or a framework itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from argtrace import localfs, servers_together
from argtrace.check_options import CheckOptions
from argtrace.check_release import _analysed_schema, decide_server_release
from argtrace.layers.separated import PredictedCommands
from argtrace.model import (
    Assumption,
    Finding,
    FrameworkSource,
    LayerResult,
    Observation,
    Report,
    ServerCommand,
    Setting,
    UsageError,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from argtrace.frameworks.schema import Schema
    from argtrace.layers.shell import ScriptSource
    from argtrace.layers.slurm import Allocation
    from argtrace.layers.transport import TransportResult
    from argtrace.layers.transport.python_launch import PythonLaunch

# Refuse to read more than this: a launch script is kilobytes; 64 MiB is surely not one.
MAX_SCRIPT_BYTES = 64 * 1024 * 1024
COMMAND_LABEL = "<-c>"


def _start_directory() -> str | None:
    """Where the script starts: here, or with ``--host`` the ssh session's directory on the node."""
    from argtrace.remote.host import current_host

    host = current_host()
    return host.info().cwd if host.is_remote else None


def read_script(path_text: str) -> tuple[bytes, Path | None]:
    """The script's bytes, read on the current host (``--host``: the node's file; no local Path then)."""
    from argtrace.remote.host import current_host

    host = current_host()
    data = host.read_input(path_text, what="launch script", max_bytes=MAX_SCRIPT_BYTES)
    from argtrace.redact import remember_source

    remember_source(data.decode("utf-8", "replace"))  # a secret wrapped over its lines: each piece is masked
    return data, (None if host.is_remote else Path(path_text))


def read_script_path(path_text: str) -> Path | None:
    """The local Path of a script whose text is given in memory (None with ``--host``, as ``read_script``)."""
    from argtrace.remote.host import current_host

    return None if current_host().is_remote else Path(path_text)


def as_fields(result: LayerResult, schema: Schema) -> LayerResult:
    """``result`` with its settings named by the framework's configuration fields, as the server's args log
    line and /server_info name them (``tp_size``, not SGLang 0.5.10.post1's dest ``tensor_parallel_size``):
    observations, intended values, unknown settings and findings alike, so every later reader (resolution's
    writes, the log's values, memory sizing, rules) meets one name per setting."""
    renames = schema.field_names
    names = {*result.observations, *result.intended, *result.unknown_settings}
    names |= {f.setting for f in result.findings if f.setting}
    if not names & set(renames):
        return result
    return replace(
        result,
        observations={renames.get(k, k): v for k, v in result.observations.items()},
        intended={renames.get(k, k): v for k, v in result.intended.items()},
        unknown_settings={renames.get(k, k) for k in result.unknown_settings},
        findings=[
            replace(f, setting=renames[f.setting]) if f.setting is not None and f.setting in renames else f
            for f in result.findings
        ],
    )


def fold_settings(results: Sequence[LayerResult], schema: Schema | None = None) -> list[Setting]:
    """One setting per name, its history the layers' observations in layer order; ``dest`` is the argparse
    dest that carries it in ``schema`` (None for a field only the framework's own code sets)."""
    dests = {field: dest for dest, field in schema.field_names.items()} if schema is not None else {}
    settings: dict[str, Setting] = {}
    for result in results:
        for name, (flag, observations) in result.observations.items():
            setting = settings.get(name)
            if setting is None:
                dest = dests.get(name, name)
                known = schema is None or dest in schema.dests
                setting = settings[name] = Setting(name=name, flag=flag, dest=dest if known else None)
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
        if (len(data) - len(data.rstrip(b"\\"))) % 2:
            # a command copied from a page whose last line still ends with `\`: typed or pasted at a
            # prompt, the Enter after it continues the line to an empty one, which ends the command (bash -c
            # on the bare text would pass a literal `\`); shellcheck reads it the same way then (SC1073)
            data += b"\n"
        # As with bash -c: the first word after the command is $0, the rest $1...
        arg0 = options.script_args[0] if options.script_args else "argtrace"
        args = options.script_args[1:]
    else:
        script = options.script
        assert script is not None
        if options.script_data is not None:  # lint's and fix's re-checks: the text is already read
            data, real_path = options.script_data, read_script_path(script)
            from argtrace.redact import remember_source

            remember_source(data.decode("utf-8", "replace"))
        else:
            data, real_path = read_script(script)
        label = script
        path = real_path
        arg0, args = script, options.script_args
    from argtrace.layers.shell import ScriptSource, analyze_script

    source = ScriptSource(label=label, data=data, path=path)
    report = Report(command="check")
    # transport: a docker compose file or Kubernetes manifest instead of a script (layers/transport.py)
    from argtrace.layers.transport import (
        analyze_transport,
        hcl_not_a_launch,
        json_not_a_launch,
        manifest_kind,
        windows_script_not_a_launch,
        yaml_not_a_launch,
    )

    # a Python program or notebook: its calls that start a server, written as the shell commands they
    # amount to on their own lines, are what the shell layer reads (layers/transport/python_launch.py)
    python = _python_launch(source, options)
    if python is not None:
        source = ScriptSource(label=label, data=python.script, path=path)
    if options.command_string is None and python is None:
        from argtrace.layers.transport.runners import read_runner_file, runner_kind, runner_refusal

        if refused := runner_refusal(source.label, source.data):
            raise UsageError(refused)
        if (runner := runner_kind(source.label, source.data)) is not None:
            # honcho's processes, an Apptainer runscript: the scripts the runner starts (layers/transport)
            ran = read_runner_file(
                runner, source.label, source.data, env=options.env, args=args, follow=analyze_transport
            )
            report.findings.extend(ran.findings)
            report.sections["transport"] = ran.section
            return _check_servers(report, ran.servers, source.label, options, commands=ran.commands)
    from argtrace.layers.shell.file_kinds import is_makefile, is_markdown  # the readers only for such a file

    # a file named as a Makefile (`Makefile`, `*.mk`) is one: its `run:`/`setup:`/`services:` targets are
    # not a SkyPilot task's or a compose file's keys (they were read as YAML and refused: "not valid YAML")
    named_makefile = is_makefile(source.label, source.data)
    named_markdown = False
    if options.command_string is None and python is None and not named_makefile:
        # a Markdown page (README.md) is text around code blocks: its shell blocks that start a server are
        # the script, its prose is not (read as bash, a heading's `(` was SH001 and a prose flag SH004)
        if named_markdown := is_markdown(source.label, source.data):
            from argtrace.layers.shell.markdown import server_blocks_script, server_yaml_blocks

            blocks = server_blocks_script(source.data)
            stream = None if blocks.strip() else server_yaml_blocks(source.data)
            if stream is not None and manifest_kind(stream) is not None:
                # no shell block starts a server but a yaml block does (a dstack example page): the manifest
                source, named_markdown = ScriptSource(label=label, data=stream, path=path), False
            else:
                source = ScriptSource(label=label, data=blocks, path=path, page=source.data)
    sniff = options.command_string is None and python is None and not named_makefile and not named_markdown
    kind = manifest_kind(source.data) if sniff else None
    if kind is not None:
        # (manifest_read.py: read for a manifest only)
        from argtrace.layers.transport.manifest_read import analyze_manifest, manifest_selection

        named_service, named_container = options.extra.get("service"), options.extra.get("container")
        service = named_service if isinstance(named_service, str) else None
        container = named_container if isinstance(named_container, str) else None
        run_args: list[str] | None = None
        if kind == "dockerfile":
            # the words after a Dockerfile are those after the image in `docker run IMAGE ARGS`
            run_args = list(options.script_args) or None
        else:
            service, container = manifest_selection(options.script_args, service, container)
        given = options.extra.get("env_given")
        manifest = analyze_manifest(
            source,
            env=options.env,
            service=service,
            container=container,
            given=given if isinstance(given, Mapping) else None,
            follow=analyze_transport,
            run_args=run_args,
            release=options.framework_version,
        )
        report.findings.extend(manifest.findings)
        report.sections["transport"] = manifest.section
        return _check_servers(report, manifest.servers, source.label, options, commands=manifest.commands)
    if (
        python is None
        and options.command_string is None
        and (not_launch := yaml_not_a_launch(source.label, source.data))
    ):
        raise UsageError(not_launch)
    if options.command_string is None and python is None:
        for not_a_launch in (hcl_not_a_launch, json_not_a_launch, windows_script_not_a_launch):
            if not_launch := not_a_launch(source.label, source.data):
                raise UsageError(not_launch)
    make_unknown: dict[str, str] = {}
    make_env: dict[str, str] = {}
    if named_markdown:
        from argtrace.layers.shell.markdown import placeholders

        # the page's `$MODEL_PATH` is the reader's to set: unknown, not unset (layers/shell/markdown.py)
        make_unknown = {k: v for k, v in placeholders(source.data).items() if k not in options.env}
    if options.command_string is None and python is None:
        if named_makefile:
            from argtrace.layers.shell.makefile import recipes_script

            # make expands its own variables and runs the recipes with /bin/sh (layers/shell/makefile.py)
            made = recipes_script(source.data, options.env, args)
            source = ScriptSource(label=label, data=made.data, path=path)
            make_unknown, make_env = made.included, made.exported
            args = []  # the words after a Makefile are make's goals, not $1...: no recipe reads them
    # SLURM: a batch script runs with the variables SLURM sets for it (layers/slurm.py); a script without the
    # text #SBATCH has no directive line, and the SLURM layer is not imported for it
    env, unknown_env = {**make_env, **options.env}, make_unknown or None
    allocation = None
    if python is not None:
        unknown_env = {**python.unknown, **(unknown_env or {})}
    elif options.command_string is None and b"#SBATCH" in source.data:
        from argtrace.layers.slurm import batch_directives

        allocation = batch_directives(source.data, source.label)
    if allocation is not None:
        from argtrace.layers.slurm import batch_environment

        known, unknown = batch_environment(allocation)
        env = {**known, **options.env}
        unknown_env = {**{k: v for k, v in unknown.items() if k not in env}, **make_unknown}
        report.sections["slurm"] = allocation.section()
    shell = analyze_script(
        source,
        args,
        env,
        arg0=arg0,
        # shellcheck reads bash; the commands of a Python launch are argtrace's writing of its calls
        run_shellcheck=options.run_shellcheck and python is None,
        cwd=_start_directory(),
        unknown_env=unknown_env,
        args_unknown=options.args_unknown,
    )
    # transport: servers started through ssh/docker, uploads, and what the journey did to the words
    transport = analyze_transport(
        source, shell, args=args, env=env, arg0=arg0, release=options.framework_version
    )
    # SH011 (a background start whose PID is not kept) is the shell's: Popen returns the process to Python
    # SH018 (a word not known statically) is said in Python's terms by TP094, with the same reason
    dropped = {"SH011", "SH018"} if python is not None else set()
    # a container's `sglang --model-path M` (TP104) says what started instead of a server, as SH019 would
    no_server = bool(transport.servers) or any(f.code == "TP104" for f in transport.findings)
    report.findings.extend(
        f for f in shell.findings if not (f.code == "SH019" and no_server) and f.code not in dropped
    )
    report.findings.extend(transport.findings)
    if transport.hops or transport.uploads:
        report.sections["transport"] = transport.section
    if python is not None:
        report.findings.extend(python.findings)
        report.sections.update(python.section)
    servers = [*shell.servers, *transport.servers]
    if python is not None and python.image is not None:
        from dataclasses import replace

        # a Modal app's servers run in the image it is built from (`modal.Image.from_registry(REF)`)
        servers = [s if s.image is not None else replace(s, image=python.image) for s in servers]
    return _check_servers(
        report,
        servers,
        source.label,
        options,
        transport,
        shell.commands,
        allocation,
        shell.command_paths,
    )


def _python_launch(source: ScriptSource, options: CheckOptions) -> PythonLaunch | None:
    """The server starts of a Python program or notebook, or None for a script, manifest or ``-c``."""
    if options.command_string is not None:
        return None
    # what is_python_launch decides from the name or the `#!` line alone, before importing it (and `ast`):
    # start-up of every other check (issue 18)
    shebang = source.data.split(b"\n", 1)[0] if source.data.startswith(b"#!") else None
    if source.label.lower().endswith((".sh", ".bash", ".cmd")) or (shebang and b"python" not in shebang):
        return None
    from argtrace.layers.transport.python_source import is_python_launch

    if not is_python_launch(source.label, source.data):
        return None
    from argtrace.layers.transport.python_launch import read_python_launch

    return read_python_launch(source.label, source.data, release=options.framework_version)


def _check_servers(
    report: Report,
    servers: list[ServerCommand],
    label: str,
    options: CheckOptions,
    transport: TransportResult | None = None,
    commands: PredictedCommands = (),
    allocation: Allocation | None = None,
    paths: Sequence[str | None] = (),
) -> Report:
    report.servers = list(servers)
    if not servers:
        report.notes.append(f"no SGLang or vLLM server start was found in {label}")
        report.findings.extend(servers_together.pd_findings_of([], commands, paths))  # a router alone
    else:
        _check_chosen_server(report, servers, options, transport, commands, allocation, paths)
    # one finding per cause: what follows from another finding is folded into it (argtrace/causes.py)
    from argtrace.causes import fold_causes

    report.findings = fold_causes(report)
    return report


def _check_chosen_server(
    report: Report,
    servers: list[ServerCommand],
    options: CheckOptions,
    transport: TransportResult | None,
    commands: PredictedCommands,
    allocation: Allocation | None = None,
    paths: Sequence[str | None] = (),
) -> None:
    if not 1 <= options.server <= len(servers):
        raise UsageError(f"--server {options.server}: the script starts {len(servers)} server(s)")
    server = servers[options.server - 1]
    if options.fetch_config and not options.model_config:
        from argtrace.layers.hf_hub import fetch_for_launch

        fetched = fetch_for_launch(
            server, options.framework or server.framework, use_cache=options.resolve_cache
        )
        if fetched is not None:
            report.notes.append(fetched.note)
            if fetched.directory is not None:
                report.sections["model_config"] = fetched.section()
                options = replace(options, model_config=str(fetched.directory))
    chosen: dict[int, tuple[Schema, LayerResult]] = {}
    results = analyze_server(server, options, report, transport, commands, chosen=chosen)
    report.settings = fold_settings(results, _analysed_schema(report))
    for result in results:
        report.findings.extend(result.findings)
        report.sections.update(result.sections)
    parsed = _parse_every_server(servers, options, chosen)
    report.findings.extend(_other_servers_findings(parsed, options))
    findings, matrix = servers_together.multinode_findings_of(parsed, allocation)
    report.findings.extend(findings + servers_together.interface_findings_of(parsed))
    report.findings.extend(servers_together.dp_mode_findings_of(parsed))
    report.findings.extend(servers_together.shared_gpu_findings_of(parsed, report.framework.version))
    report.findings.extend(servers_together.pd_findings_of(parsed, commands, paths))
    if len(parsed) > 1:  # RS080 for a decode server beside the one described
        named = report.framework.version is not None
        report.findings.extend(servers_together.draft_input_findings_of(parsed, options.server, named=named))
    if any(server.probe_ports for _, server, _, _ in parsed):
        from argtrace.layers.container_ports import probe_port_findings  # TP070: a pod's probes

        report.findings.extend(probe_port_findings(parsed))
    if matrix is not None:
        report.sections["multinode"] = matrix  # the matrix of the launch's nodes (render/matrix.py)
    for late in late_layers(report, options):
        report.findings.extend(late.findings)
        report.sections.update(late.sections)
    report.findings = settle_report_verdicts(report, options)


def settle_report_verdicts(report: Report, options: CheckOptions) -> list[Finding]:
    """The report's findings with what they rest on: assumptions of this run marked, errors capped."""
    findings = _settled_findings(report, options)
    if report.framework.name == "vllm" and any(f.code == "PA009" and f.severity != "info" for f in findings):
        from argtrace.layers.parser_names import engine_call_choices  # difflib: not for a plain check

        return engine_call_choices(report, findings)
    return findings


def _settled_findings(report: Report, options: CheckOptions) -> list[Finding]:
    from argtrace.verdicts import VALUE_OF, gpu_assumption, release_assumption, settle

    release = None
    substitute = False
    if report.framework.source == "none" and report.framework.name and report.framework.analysed_with:
        release = release_assumption(report.framework.name, report.framework.analysed_with)
    elif report.framework.source is not None and report.framework.name:
        # a release (named or read from the evidence) that has no bundled schema: the analysis substitutes
        # one (PR008), and what the parser says of a flag then rests on that substitute
        schema = _analysed_schema(report)
        if schema is not None and schema.version != report.framework.version:
            from argtrace.frameworks.schema import release_family

            release = release_assumption(report.framework.name, schema.version)
            # A stand-in of the release's own family (0.10.2 for 0.10.0) speaks for it: its verdicts are
            # warnings. One from another family (0.6.6.post1 for 0.4.3) does not: flags changed meaning
            # between them (--use-v2-block-manager: required for speculative decoding in 0.4, "no effect"
            # in 0.6.6), so what rests on it is a note, as on an unknown release.
            requested = report.framework.version or ""
            substitute = release_family(report.framework.name, requested) == release_family(
                report.framework.name, schema.version
            )
    gpu = None
    if options.gpu is None:
        resolution_gpu = (report.sections.get("resolution") or {}).get("gpu") or {}
        memory_gpu = (report.sections.get("memory") or {}).get("gpu") or {}
        spec = resolution_gpu.get("spec") if resolution_gpu.get("assumed") else memory_gpu.get("name")
        if spec:
            gpu = gpu_assumption(str(spec))
    entrypoints = _assumed_entrypoints(report.servers)
    from_missing_arguments = {at for server in report.servers for at in server.from_missing_arguments}
    # the flag before such a word: the parser's refusal of its value is said at the flag (`argument
    # --kv-transfer-config: invalid JSON` with `"dp_size": '"$3"'` empty)
    from_missing_arguments |= {
        f"{server.argv[i - 1].origin.at}{VALUE_OF}"
        for server in report.servers
        for i in range(server.server_args_start + 1, len(server.argv))
        if server.argv[i].origin.at in server.from_missing_arguments
        and (server.argv[i - 1].text or "").startswith("-")
        and "=" not in (server.argv[i - 1].text or "")
    }
    from_unset_variables = [made for server in report.servers for made in server.from_unset_variables]
    nothing_assumed = not (entrypoints or from_missing_arguments or from_unset_variables)
    if release is None and gpu is None and nothing_assumed:
        return report.findings
    settled = settle(
        report.findings,
        release=release,
        gpu=gpu,
        holds_on_every_release=_holds_on_every_release(report, options.server),
        known_nowhere=_known_nowhere(report),
        substitute=substitute,
        entrypoints=entrypoints,
        builds_differ=_release_builds_differ(report.servers, report.framework.analysed_with),
        from_missing_arguments=from_missing_arguments,
        from_unset_variables=from_unset_variables,
    )
    return _between_disagreeing_releases(report, settled) if substitute else settled


def _between_disagreeing_releases(report: Report, findings: list[Finding]) -> list[Finding]:
    """A value refusal (PA010/PA011) read from a stand-in of the requested release's family is a note when
    the bundled release on the requested release's other side takes the value: which of the two converters
    the requested release has is not known (vllm#17250). Likewise a refused choice (PA009) when that release
    lists other choices for the flag: its registry changed between the two (vllm#35991); and a value given to
    a flag the stand-in registers without one (PA022) when that release registers it with one (vllm#15802:
    ``--enable-chunked-prefill=False`` on 0.8.2, between 0.7.3 and 0.8.5.post1). A flag the next bundled
    release dropped (PA024, a note) is a warning for a development build after the stand-in: main may have
    dropped it before the build was made (vllm#51494)."""
    from dataclasses import replace

    from argtrace.layers.parser.releases import (
        choices_change_around,
        gone_by_the_next_release,
        taken_by_the_other_neighbour,
        value_taken_by_the_other_neighbour,
    )

    schema, name, requested = _analysed_schema(report), report.framework.name, report.framework.version
    if schema is None or not name or not requested:
        return findings
    out = []
    for finding in findings:
        setting = report.setting(finding.setting) if finding.setting else None
        taken = None
        if finding.code in ("PA010", "PA011") and finding.severity != "info":
            if setting is not None and setting.flag and isinstance(setting.intended, str):
                taken = taken_by_the_other_neighbour(
                    name, requested, schema.version, setting.flag, setting.intended
                )
        elif finding.code == "PA022" and finding.severity != "info" and finding.setting:
            # argparse stopped at the word, so no setting records it: the flag is the schema's for the dest
            flag = setting.flag if setting is not None else schema.flag_for_dest(finding.setting)
            taken = (
                value_taken_by_the_other_neighbour(name, requested, schema.version, flag) if flag else None
            )
        elif finding.code == "PA009" and finding.severity != "info" and setting is not None and setting.flag:
            other = choices_change_around(name, requested, schema.version, setting.flag)
            taken = f"{name} {other} lists other choices for {setting.flag}" if other else None
        elif finding.code == "PA024":
            # a development build after the stand-in: the flag the next release dropped may be gone already
            option = finding.message.split(" ", 1)[0]
            gone = gone_by_the_next_release(name, requested, schema.version, option)
            if gone is not None:
                message = (
                    f"{option} works in {name} {schema.version} but not in {gone}, and {name} {requested} is "
                    f"a development build between the two: if it was built after the flag's removal, the "
                    f'server refuses to start ("unrecognized arguments", exit 2)'
                )
                use = re.search(r"\(use ([^)]+)\)", finding.message)
                fix = f"use {use.group(1)}" if use else f"remove {option}, which {gone} does not register"
                out.append(replace(finding, severity="warning", message=message, fix=fix))
                continue
        if taken is None:
            out.append(finding)
            continue
        note = f"; {taken}, and {requested} lies between it and {schema.version}: which it follows is unknown"
        out.append(replace(finding, severity="info", message=finding.message + note))
    return out


def _assumed_entrypoints(servers: Sequence[ServerCommand]) -> dict[str, Assumption]:
    """The image entrypoints the transport layer assumed (TP044), by the location of the command the image
    runs, as its servers carry them."""
    from argtrace.verdicts import entrypoint_assumption

    out: dict[str, Assumption] = {}
    for server in servers:
        assumed = server.assumed_entrypoint
        if assumed is not None and assumed.at:
            out[assumed.at] = entrypoint_assumption(assumed.image, assumed.entrypoint)
    return out


def _weights_over_the_card(report: Report) -> bool:
    """Whether the memory layer's out-of-memory verdict is the weights of one GPU's shard exceeding the whole
    card (its total bytes, not a budget): the checkpoint's bytes do not depend on the release, so no release
    loads them (vllm#16712: Llama 4 Scout in bf16 at TP 2 on two 94 GB H100 NVL). A count resting on an
    unknown quantization (MM012) is an upper bound and does not qualify."""
    memory = report.sections.get("memory") or {}
    gpu = memory.get("gpu") or {}
    weights, total = memory.get("weights_bytes"), gpu.get("total_bytes")
    if memory.get("verdict") != "oom" or memory.get("oom_stage") != "weights":
        return False
    if any(f.code == "MM012" for f in report.findings):
        return False
    return isinstance(weights, int) and isinstance(total, int) and weights > total


def _release_builds_differ(servers: Sequence[ServerCommand], analysed: str | None = None) -> set[str]:
    """The locations whose assumed entrypoint (TP044: other known builds of the image have another one) is
    for a tag that names a release (``v0.6.6.post1``, not ``latest``): which build that release is, is not
    known. For a tag that names none (``latest``: the newest build, the one assumed), also those where the
    launch's own flags and variables chose an older release to analyse (PR011: ``VLLM_USE_V1`` is known up
    to 0.11.0) whose builds have another entrypoint: ``latest`` was that build when such a launch ran
    (vllm#14376: ``vllm/vllm-openai:latest --model X`` of March 2025, when its entrypoint was
    ``python3 -m vllm.entrypoints.openai.api_server``)."""
    out: set[str] = set()
    for server in servers:
        assumed = server.assumed_entrypoint
        if assumed is None or not assumed.at:
            continue
        from argtrace.frameworks.release import release_from_image
        from argtrace.layers.transport.images import image_entry

        if any(release_from_image(fw, assumed.image) for fw in ("sglang", "vllm")):
            out.add(assumed.at)
            continue
        entry = image_entry(assumed.image, analysed) if analysed else None
        if entry is not None and " ".join(entry.entrypoint) != assumed.entrypoint:
            out.add(assumed.at)
    return out


# Parser findings about a word argparse refuses as an option (unknown, another framework's flag, an
# underscore or single-dash spelling): their messages open with the word as typed
# (layers/parser/leftovers.py).
_WORD_REJECTED = frozenset({"PA001", "PA002", "PA014", "PA015"})


def _rejected_word(report: Report, finding: Finding) -> str | None:
    """The word a parser finding says argparse refuses as an option (its message opens with it as typed),
    when no bundled release of the framework takes it as one; else ``None``."""
    from argtrace.frameworks.release_index import release_index

    if finding.code not in _WORD_REJECTED or report.framework.name is None:
        return None
    word = finding.message.split(" ", 1)[0].rstrip(":;,")
    if not word.startswith("-") or release_index(report.framework.name).releases_knowing_flag(word):
        return None
    return word


def _known_nowhere(report: Report) -> Callable[[Finding], bool]:
    """True for a parser finding about a word no bundled release accepts as an option."""
    return lambda finding: finding.layer == "parser" and _rejected_word(report, finding) is not None


def _holds_on_every_release(report: Report, primary: int = 1) -> Callable[[Finding], bool]:
    """True for a parser finding about an option registered the same way in every bundled release (its
    verdict does not depend on which one runs); findings of the framework's own code always depend."""
    from argtrace.frameworks.entrypoints import refused_everywhere
    from argtrace.frameworks.release_index import registered_alike, release_index

    def holds(finding: Finding) -> bool:
        if finding.code == "MM001" and _weights_over_the_card(report):
            return True
        if finding.code == "MM015":  # the container's /dev/shm against NCCL: no release's code decides it
            return True
        if finding.layer not in ("parser", "process"):
            return False
        if finding.code == "PA007" and finding.severity != "info":
            # a prefix only some bundled releases make ambiguous (flags.py): the one that runs decides
            return False
        index = (finding.server or primary) - 1
        if finding.code == "PA001" and 0 <= index < len(report.servers):
            # an entry point no bundled release of which takes the word, and gone from the newest release
            # (vLLM's demo server): it fails whichever runs (frameworks/entrypoints.py)
            typed = finding.message.split(" ", 1)[0].rstrip(":;,")
            if refused_everywhere(report.servers[index].entrypoint, typed):
                return True
        word = _rejected_word(report, finding)
        if word is not None and report.framework.name is not None:
            from argtrace.layers.parser.releases import near_spelling  # (loaded for such findings only)

            # No bundled release takes the word. A misspelling (within two edits: `--tensor-paralel-size`),
            # another framework's flag (PA002) or a known flag's `_` or single-dash spelling (PA014, PA015)
            # fails whichever release runs; a word like no known flag may be a newer release's (a warning).
            if finding.code != "PA001" or near_spelling(word, release_index(report.framework.name).flags):
                return True
        if finding.code == "PA018" and finding.setting and report.framework.name is not None:
            from argtrace.layers.parser.releases import config_key_refused_everywhere

            return config_key_refused_everywhere(report.framework.name, finding.setting, finding.message)
        if finding.setting is None:
            return finding.code not in ("PA003",)
        setting = report.setting(finding.setting)
        flag = setting.flag if setting is not None else None
        if not flag or report.framework.name is None:
            return False
        if finding.code in ("PA010", "PA011") and setting is not None:
            from argtrace.layers.parser.releases import refused_by_every_release, written_values

            # a value every release's converter refuses fails whichever runs (the release index's converters:
            # an option of several values, nargs '+'/'*', runs one on each item, argparse stops at a refusal)
            framework = report.framework.name
            kept = finding.code == "PA011"  # a kept string that is not JSON fails when the server decodes it
            if any(
                refused_by_every_release(framework, flag, value, kept_json_string_fails=kept)
                for value in written_values(setting)
            ):
                return True
        # The same action shape (and config dataclass, PA026) in every release, from the index (issue 18).
        return registered_alike(report.framework.name, flag)

    return holds


def model_config_path(options: CheckOptions, report: Report) -> Path | None:
    """``--model-config``, else the model directory when it exists here with a config.json, else the Hugging
    Face cache's snapshot of the model's repo id (``HF_HOME``/``HF_HUB_CACHE``, as the resolution layer)."""
    from argtrace.remote.host import current_host

    if current_host().is_remote:  # argtrace --host: a local copy of the node's config.json (transport.models)
        from argtrace.remote.models import node_model_dir

        model = report.setting("model_path") or report.setting("model")
        value = model.effective if model is not None and isinstance(model.effective, str) else None
        return node_model_dir(current_host(), options.model_config, value)
    if options.model_config:
        return Path(options.model_config)
    setting = report.setting("model_path") or report.setting("model") or report.setting("model_tag")
    named = report.setting("hf_config_path") if report.framework.name == "vllm" else None
    if named is not None and isinstance(named.effective, str) and named.effective:
        # vLLM reads config.json from --hf-config-path when given (vllm/config/model.py:680-681, 0.33.0:
        # get_config(self.hf_config_path or self.model, ...)): the model's own config is not the one it
        # sizes, so only the named one is read (vllm#16128: a bf16 base's config over an AWQ checkpoint)
        setting = named
    if setting is not None and isinstance(setting.effective, str):
        candidate = Path(setting.effective)
        if localfs.is_file(candidate / "config.json"):  # any text: never raises
            return candidate
        from argtrace.layers.hf_cache import hf_snapshot  # a repo id in the Hugging Face cache (offline)

        return hf_snapshot(setting.effective)
    return None


def late_layers(report: Report, options: CheckOptions) -> list[LayerResult]:
    """Layers that read the settings' effective values rather than add to their history: memory."""
    results: list[LayerResult] = []
    model_config = model_config_path(options, report)
    if model_config is not None and report.framework.name is not None:
        from contextlib import nullcontext

        from argtrace.layers.memory import analyze_memory, settings_from_report
        from argtrace.progress import stage

        settings, env = settings_from_report(report)
        sizing_argv = _framework_sizing_argv(report, options)
        label = f"sizing the memory with {report.framework.name} {report.framework.version}'s own code"
        # the formulas take milliseconds; the framework's own sizing runs it (20-30 s): only that shows
        with stage(label) if sizing_argv is not None else nullcontext():
            results.append(
                analyze_memory(
                    model_config,
                    options.gpu,
                    settings,
                    report.framework.name,
                    report.framework.version,
                    env=env,
                    framework_argv=sizing_argv,
                    framework_suggestions=False,  # only for a launch that does not fit: each costs a run
                    optional=True,  # a config.json the sizing cannot read fully is a note here
                )
            )
    # start-up settings that bite (RS020-RS023): they read the memory section, so they come after it
    from argtrace.layers.startup_rules import startup_rules

    memory = next((r.sections["memory"] for r in results if "memory" in r.sections), None)
    results.append(startup_rules(report, model_config, memory))
    from argtrace.layers.mamba_dtype import mamba_dtype  # RS073: activations unlike the Mamba conv state

    results.append(mamba_dtype(report, model_config))
    from argtrace.layers.rerank_template import rerank_template  # RS077: a Qwen3-VL reranker, no template

    results.append(rerank_template(report))
    from argtrace.layers.eplb_draft_capture import eplb_draft_capture  # RS078: metrics in the capture

    results.append(eplb_draft_capture(report))
    if report.framework.name == "sglang" and report.setting("disaggregation_mode") is not None:
        from argtrace.layers.disagg_spec import disagg_spec  # RS080: no draft input on the decode side

        results.append(disagg_spec(report))
    from argtrace.layers.start_values import start_values  # RS030-RS031: values start-up refuses

    results.append(start_values(report, options.gpu))
    from argtrace.layers.start_raises import start_raises  # RS032: the release's argument checks refuse

    results.append(start_raises(report))
    from argtrace.layers.start_overrides import start_overrides  # RS055: its warnings override two flags

    results.append(start_overrides(report))
    from argtrace.layers.device_raises import device_raises  # RS036: the checks refuse a flag on the GPU

    results.append(device_raises(report, options.gpu))
    # the next three return at once without what each test here asks for (first thing in each): their
    # modules are imported only for a launch that has it (start-up, issue 18)
    if report.framework.name == "sglang" and report.setting("hicache_size") is not None:
        from argtrace.layers.hicache_host import hicache_host  # MM014: a fixed HiCache host pool per rank

        results.append(hicache_host(report))
    if report.servers and report.servers[0].container_shm == "":
        from argtrace.layers.container_shm import container_shm  # MM015: docker run's 64 MiB /dev/shm

        results.append(container_shm(report))
    algorithm = report.setting("speculative_algorithm") if report.framework.name == "sglang" else None
    if algorithm is not None and str(algorithm.effective).upper() == "NGRAM":
        from argtrace.layers.ngram_trie import ngram_trie  # RS066: an NGRAM trie no larger than its depth

        results.append(ngram_trie(report))
    from argtrace.layers.rank_placement import rank_placement, router_replicas_over_nodes

    results.append(rank_placement(report))  # RS071: ranks no node of --nnodes starts
    results.append(router_replicas_over_nodes(report, options.server))  # RS067: one node's DP replicas
    if report.framework.name == "sglang":
        from argtrace.layers.mamba_slots import mamba_slots  # RS074: a Mamba pool capping running requests

        results.append(mamba_slots(report))
    if report.framework.name == "vllm":  # each of these returns at once for another framework (start-up)
        from argtrace.layers.moe_all2all import moe_all2all  # RS068/RS072: an all-to-all backend not used

        results.append(moe_all2all(report))
        from argtrace.layers.attention_names import attention_names  # PA070: a backend name not had

        results.append(attention_names(report))
        # RS075/RS076: a Mamba cache mode dropped, refused
        from argtrace.layers.mamba_cache import mamba_cache

        results.append(mamba_cache(report))
        from argtrace.layers.spec_draft_tp import spec_draft_tp  # PA057: a draft TP size no drafter reads

        results.append(spec_draft_tp(report))
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


# Release sources that say what ran (or that nothing shows it): resolution running does not replace them
# (a --log's version line is what ran as much as /server_info is).
_OBSERVED_OR_NONE = ("none", "live", "process", "run", "log")


def analyze_server(
    server: ServerCommand,
    options: CheckOptions,
    report: Report,
    transport: TransportResult | None = None,
    commands: PredictedCommands = (),
    chosen: dict[int, tuple[Schema, LayerResult]] | None = None,
) -> list[LayerResult]:
    """The process and parser layers (and later ones) for one server start.

    ``commands`` are the script's predicted simple commands: flags cut off from the server command by a
    shell hazard are followed as settings that never arrived (layers/separated.py). ``chosen`` receives
    ``{id(server): (schema, parser result)}`` so that ``_parse_every_server`` need not decide the release and
    run argparse a second time for this server (issue 18).
    """
    from argtrace.layers.parser import parse_server_args
    from argtrace.layers.process import describe_process
    from argtrace.layers.separated import merged_parser_view, separated_flags

    framework = options.framework or server.framework
    schema, report.framework, schema_findings = decide_server_release(framework, server, options, commands)
    report.findings.extend(schema_findings)
    process, process_result = describe_process(server, schema, report.framework.source)
    report.process = process
    parser_result = parse_server_args(server, schema)
    if chosen is not None:
        chosen[id(server)] = (schema, as_fields(parser_result, schema))
    separated = separated_flags(server, commands, schema, parser_result)
    # transport: each flag's value as written before ssh / an upload changed it (history's first entry)
    before = [transport.layer_result(server, schema)] if transport is not None else []
    parsed = merged_parser_view(parser_result, separated)
    after = [resolution_layer(server, schema, parsed, options, report)] if options.resolve else []
    for result in after:
        resolution = result.sections.get("resolution") or {}
        if resolution.get("status") in ("ok", "raised"):
            # The framework's own code ran; the source still says what decided the release (an image tag
            # is not relabelled resolver-env: that is how the release was checked, not why it was chosen).
            from argtrace.frameworks.release import source_after_resolution

            interpreter = str(resolution.get("interpreter", ""))
            source: FrameworkSource | None = source_after_resolution(
                report.framework.source, interpreter, kept=_OBSERVED_OR_NONE
            )
            report.framework = replace(report.framework, source=source)
    results = [as_fields(r, schema) for r in (*before, process_result, parser_result, separated, *after)]
    if options.log:
        # The log's values come after the parser's and resolution's in each setting's history.
        from argtrace.layers.log.check import analyze_check_log

        results += analyze_check_log(server, options, report, results)
    if options.all_settings:
        results.append(as_fields(untouched_settings(schema, results), schema))
    if options.extra.get("pid") or options.extra.get("url"):
        # What the running process got and what the server reports come last: they are observed truth.
        from argtrace.layers.running import analyze_running

        results += analyze_running(server, options, report, results)
    return results


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
    server: ServerCommand,
    schema: Schema,
    parser_result: LayerResult,
    options: CheckOptions,
    report: Report,
) -> LayerResult:
    """The framework's own post-parse resolution, run under the recorder (layers/resolution.py)."""
    from argtrace.layers.resolution import resolve_server
    from argtrace.resolver.environments import find_environment

    # an unbundled release the user built an environment for resolves with its own code, even though the
    # parser layer used the nearest older bundled schema
    version = schema.version
    if options.framework_version and find_environment(schema.framework, options.framework_version):
        version = options.framework_version
    from argtrace.progress import stage

    with stage(f"resolving with {schema.framework} {version}'s own code"):
        return resolve_server(
            server,
            schema.framework,
            version,
            parser_result=parser_result,
            flag_for_dest={d: f for d in schema.dests if (f := schema.flag_for_dest(d))},
            python=options.python,
            gpu=options.gpu,
            model_config=options.model_config,
            before_run=lambda: _sizing_host_ahead(report, options, parser_result),
        )


def _sizing_host_ahead(report: Report, options: CheckOptions, parser_result: LayerResult) -> None:
    """While the resolution layer's run works, start the host the memory layer's framework sizing will ask
    for (``late_layers``: same release, GPU and server environment), so SGLang's import for the sizing
    overlaps the resolution's instead of following it (issue 18: a first check on 0.5.23 imported twice in
    a row). Only where the sizing will run: its release and GPU (``_framework_sizing_argv``) and one
    pipeline stage (``pp_size`` above 1 is sized by the formulas)."""
    if report.process is None or _framework_sizing_argv(report, options) is None or options.gpu is None:
        return
    from argtrace.layers.resolution import parsed_values

    if (parsed_values(parser_result).get("pp_size") or 1) != 1:
        return
    from argtrace.gpus import parse_gpu_spec
    from argtrace.layers.memory.framework_sizing import prestart_sizing_host

    env = {k: v for k, v in report.process.env.items() if v is not None}  # as settings_from_report
    prestart_sizing_host(str(report.framework.version), parse_gpu_spec(options.gpu).spec, env)


def _parse_every_server(
    servers: Sequence[ServerCommand],
    options: CheckOptions,
    known: Mapping[int, tuple[Schema, LayerResult]] | None = None,
) -> list[tuple[int, ServerCommand, Schema, LayerResult]]:
    """Every server start through its release's parser (argparse on a few hundred words: milliseconds).
    ``known``: the servers ``analyze_server`` already parsed (by ``id``), with the release the report
    analyses them with; deciding and parsing them again doubled both for the usual one-server script."""
    from argtrace.layers.parser import parse_server_args

    parsed = []
    for index, server in enumerate(servers, start=1):
        done = (known or {}).get(id(server))
        if done is not None:
            parsed.append((index, server, *done))
            continue
        schema, _, _ = decide_server_release(options.framework or server.framework, server, options)
        parsed.append((index, server, schema, as_fields(parse_server_args(server, schema), schema)))
    return parsed


def _other_servers_findings(
    parsed: Sequence[tuple[int, ServerCommand, Schema, LayerResult]], options: CheckOptions
) -> list[Finding]:
    """Findings cover every server the script starts, not only the one described."""
    return [
        replace(f, server=index)
        for index, _, _, result in parsed
        if index != options.server
        for f in result.findings
    ]
