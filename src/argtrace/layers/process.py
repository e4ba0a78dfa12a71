"""The process layer: the argv and environment the server process gets, and what the framework reads of it.

``ProcessInfo.env`` holds what the script (or ``--env``) set plus the caller's variables the frameworks read
(``SGLANG_*``, ``SGL_*``, ``VLLM_*``, ``CUDA_*``, ``NCCL_*``, ``HF_*``, ``TORCH_*``, ``PATH``,
``PYTHONPATH``...), never the whole caller environment. Values stay raw here; renderers redact them.
Finding messages are free text, so any value they quote goes through ``argtrace.redact``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from argtrace.frameworks.env_aliases import env_renames
from argtrace.frameworks.schema import EnvVarSpec, Schema
from argtrace.layers.process_names import FRAMEWORK_PREFIXES, _value_problem
from argtrace.model import EnvValue, Finding, LayerResult, ProcessInfo, ServerCommand
from argtrace.redact import redact_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Caller variables worth showing: the frameworks, CUDA/NCCL/torch, Hugging Face, Python's own.
READ_PREFIXES = (
    "SGLANG_",
    "SGL_",
    "VLLM_",
    "CUDA_",
    "NCCL_",
    "HF_",
    "HUGGING_FACE_",
    "TORCH_",
    "TORCHINDUCTOR_",
    "TRITON_",
    "FLASHINFER_",
    "NVIDIA_",
    "OMP_",
    "MKL_",
    "TOKENIZERS_",
    "TRANSFORMERS_",
    "PYTORCH_",
    "RAY_",
    "UCX_",
    "GLOO_",
    "MASTER_",
)
# Caller variables the interpreter, the loader or torch.distributed read. The caller's own session
# (VIRTUAL_ENV, CONDA_PREFIX, XDG_*, SHELL) is shown only when the release's code reads the name
# (``schema.env_var_names``, generated from the framework's code): an activated venv is not the server's.
READ_NAMES = frozenset(
    {
        "PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "LD_LIBRARY_PATH",
        "WORLD_SIZE",
        "RANK",
        "LOCAL_RANK",
        "TMPDIR",
    }
)
# Parallel-size flags whose product is the GPUs one server uses on one node (dests vary by release:
# SGLang 0.5.10 stores --tp-size as tensor_parallel_size, 0.5.23 as tp_size).
PARALLEL_FLAGS: Mapping[str, tuple[str, ...]] = {
    "sglang": ("--tp-size", "--pp-size", "--dp-size"),
    "vllm": ("--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size"),
}


def _inherited(value: EnvValue) -> bool:
    """True for a variable the script inherited from its caller (the shell layer marks it "environment")."""
    origin = value.origin
    return origin.expansion in ("environment", "bash") or (origin.at is None and origin.expansion is None)


def _shown(name: str, value: EnvValue, read_by_framework: frozenset[str]) -> bool:
    if not _inherited(value):
        return True
    return name in READ_NAMES or name in read_by_framework or name.startswith(READ_PREFIXES)


def describe_process(
    server: ServerCommand, schema: Schema, release_source: str | None = None
) -> tuple[ProcessInfo, LayerResult]:
    """The predicted process of one server start, and process-layer findings. ``release_source`` is how
    the release was decided (``framework.source``): once something decided it, an interpreter not found
    here no longer leaves the release unknown, and PR007 does not say so."""
    from argtrace.frameworks.installed import server_interpreter

    read = schema.env_var_names
    env = {name: v.value for name, v in sorted(server.env.items()) if _shown(name, v, read)}
    interpreter = server.interpreter
    process = ProcessInfo(argv=tuple(server.argv_text), env=env, at=server.at, interpreter=interpreter)
    result = LayerResult()
    findings = result.findings
    findings.extend(_env_names(server, schema))
    findings.extend(_env_feeds_flag(server, schema))
    from argtrace.layers.device_env import device_variable_findings

    findings.extend(device_variable_findings(server, schema))  # PR012
    gpu_findings, gpu_section = _visible_devices(server, schema)
    findings.extend(gpu_findings)
    if server.gpus is not None:  # the container's GPUs (TP042, TP043)
        from argtrace.layers.container_gpus import container_gpu_findings

        findings.extend(container_gpu_findings(server, schema, needed_gpus(server, schema)))
    if gpu_section:
        result.sections["gpus"] = gpu_section
    path = server.env.get("PATH")
    found = server_interpreter(server)
    if found is None and server.runner is not None and release_source in (None, "none"):
        # only the release is at stake there: once evidence decided it, the finding would be wrong advice
        from argtrace.rules import process as rules

        word = server.interpreter or server.entrypoint.split()[0]
        if server.interpreter is None and " " not in server.entrypoint:  # a module, not a console script
            word = "python -m " + server.entrypoint
        findings.append(
            rules.PR_NO_INTERPRETER.finding(
                f"`{word}` runs in the environment `{server.runner}` selects, not the one PATH finds here; "
                "the framework release installed there is unknown (not read)",
                at=server.at,
            )
        )
    elif (
        found is None
        and server.runner is None
        and (server.interpreter or " " in server.entrypoint)  # a console script and its subcommand
    ):
        from argtrace.remote.host import current_host

        host = current_host()  # argtrace --host: server_interpreter looked on the node
        here = f"on {host.label}" if host.is_remote else "on this machine"
        first = server.argv[0].text if server.argv else None
        # a console script called by its path (`/opt/venv/bin/vllm serve`) needs no PATH lookup
        word = server.interpreter or (first if first and "/" in first else server.entrypoint.split()[0])
        if path is not None and path.value is None and not path.origin.known:
            msg = (
                f"`{word}` is looked up on a PATH not known here ({path.origin.reason or 'unknown'}); the "
                "framework version it runs could not be read"
            )
            severity = "info"
        elif path is None or path.value is None:
            msg = (
                f"the server process gets no PATH, so `{word}` cannot be looked up (bash would say "
                '"command not found" unless it is a path)'
            )
            severity = "warning" if "/" not in word else "info"
        elif "/" in word:
            msg = f"`{word}` does not exist {here}; the framework version installed for it could not be read"
            severity = "info"
        else:
            msg = (
                f"`{word}` is not found on the PATH the server would get {here}; the framework "
                "version installed there could not be read"
            )
            severity = "info"
        from argtrace.rules import process as rules

        fix: str | None = None  # the rule's: pass --python PATH or --framework-version V
        decided = release_source not in (None, "none")  # --framework-version, a log, --url, an image tag...
        if decided and severity == "warning":
            # the command itself is not found (no PATH at all): still a finding, but not about the release
            fix = f"give the server a PATH that holds `{word}`, or call it by its full path"
        if not decided or fix is not None:  # else only the release was at stake, and it is decided
            findings.append(rules.PR_NO_INTERPRETER.finding(msg, at=server.at, severity=severity, fix=fix))  # type: ignore[arg-type]
    result.sections["process_env"] = {
        "framework_vars": sorted(n for n in server.env if _framework_prefixed(n, schema.framework)),
    }
    return process, result


def _framework_prefixed(name: str, framework: str) -> bool:
    return name.startswith(FRAMEWORK_PREFIXES.get(framework, ()))


def _env_names(server: ServerCommand, schema: Schema) -> list[Finding]:
    from argtrace.rules import process as rules

    findings: list[Finding] = []
    known = schema.env_var_names
    if not known:
        return findings
    history: list[Schema] | None = None  # loaded only for a name this release does not read
    renames = env_renames(schema.framework, schema.version)
    # vLLM releases with --fail-on-environ-validation check every VLLM_* name of the process at start-up
    # (``Platform.validate_environ``, vllm/platforms/interface.py in 0.33.0): a warning, or a ValueError
    # with that flag on.
    validates = schema.framework == "vllm" and schema.option("--fail-on-environ-validation") is not None
    strict = validates and _last_bool_flag(server, "--fail-on-environ-validation") is True
    for name, value in sorted(server.env.items()):
        if not _framework_prefixed(name, schema.framework) or name != name.strip():
            continue  # a name with a blank around it is the carrier's mistake (TP033), not a typo
        if value.origin.expansion == "kubernetes service link" and name not in known:
            continue  # set by the kubelet for a Service, not by the user: TP041 says when one is read
        inherited = _inherited(value)
        at = value.origin.at if not inherited else server.at
        spec = schema.env_var(name)
        if renames is not None:
            # the release's own one-to-one renames as its code places the arguments (generated,
            # frameworks/env_aliases.py): the schemas read 0.5.11-0.5.17's (old_name, new_name) calls the
            # other way round, calling SGLANG_LOG_GC deprecated for SGLANG_GC_LOG
            if name in renames:
                spec = replace(spec or EnvVarSpec(name), deprecated=True, replacement=renames[name])
            elif spec is not None and spec.deprecated:
                spec = replace(spec, deprecated=False, replacement=None)
        if spec is not None:
            problem = _value_problem(spec.type, value.value)
            if problem:
                findings.append(
                    rules.PR_ENV_VALUE.finding(
                        f"{name}={redact_value(name, value.value)}: {schema.label} reads it as {problem}",
                        at=at,
                        fix=f"give {name} a value of that type",
                    )
                )
            if spec.deprecated:
                new = spec.replacement
                message = f"{name} is deprecated in {schema.label}" + (f"; it now reads {new}" if new else "")
                advice = f"use {new}" if new else None
                from argtrace.layers.renamed_env import inverted_advice, is_inverted  # (only here)

                if new and is_inverted(name, new):
                    # The same value under the new name means the opposite (layers/renamed_env.py).
                    message, advice = inverted_advice(
                        name, new, value.value, schema.label, copies=schema.framework == "sglang"
                    )
                findings.append(rules.PR_DEPRECATED_ENV.finding(message, at=at, fix=advice))
            continue
        # a name this release does not read (layers/process_unread.py: read for such a name only)
        from argtrace.layers.process_unread import unread_name

        history = unread_name(
            findings, name, value, inherited, at, server, schema, known, history, validates, strict, rules
        )
    return findings


def _last_bool_flag(server: ServerCommand, flag: str) -> bool | None:
    """Whether the last of ``flag`` / its ``--no-`` form among the server's arguments turns it on."""
    negative = "--no-" + flag[2:]
    found: bool | None = None
    for word in server.server_args:
        if word.text == flag:
            found = True
        elif word.text == negative:
            found = False
    return found


def _env_feeds_flag(server: ServerCommand, schema: Schema) -> list[Finding]:
    from argtrace.rules import process as rules

    findings: list[Finding] = []
    read = schema.env_var_names | {"CUDA_VISIBLE_DEVICES"}
    exported = {n for n in server.env if n in read}
    if not exported:
        return findings
    words = server.argv
    for i in range(server.server_args_start, len(words)):
        exp = words[i].origin.expansion or ""
        if "$" not in exp:
            continue  # a hit is `$NAME` or `${NAME`: an expansion without `$` has none (most: `literal`)
        for name in exported:
            if name not in exp:
                continue  # the pattern below holds the name itself
            hits = list(re.finditer(r"\$\{?" + re.escape(name) + r"(?![A-Za-z0-9_])", exp))
            if hits:
                # the same value in two settings (layers/process_unread.py: read for such an argument only)
                from argtrace.layers.process_unread import double_use

                findings.append(double_use(server, schema, words, i, name, exp, hits, rules))
    return findings


def _parallel_sizes(server: ServerCommand, schema: Schema) -> dict[str, Any]:
    from argtrace.layers.parser import parse_prepared

    try:
        _, outcome = parse_prepared(server, schema)
    except Exception:  # the parser layer reports parse problems; here only the sizes matter
        return {}
    return outcome.namespace


def needed_gpus(server: ServerCommand, schema: Schema) -> tuple[int, dict[str, int], list[str], int] | str:
    """The GPUs one node of this server uses (the product of its parallel sizes, over --nnodes), the sizes,
    their dests and SGLang's --base-gpu-id; or why it cannot be known."""
    ns = _parallel_sizes(server, schema)

    def get(flag: str) -> Any:
        spec = schema.option(flag)
        return ns.get(spec.dest) if spec is not None else None

    dests: list[str] = []
    sizes: dict[str, int] = {}
    for flag in PARALLEL_FLAGS.get(schema.framework, ()):
        spec = schema.option(flag)
        if spec is None:
            continue
        dests.append(spec.dest)
        v = ns.get(spec.dest)
        if v is not None and not isinstance(v, (int, str)):
            # a size that cannot be known statically: no GPU count to compare with
            return f"{spec.dest} cannot be known"
        sizes[spec.dest] = v if isinstance(v, int) and v > 0 else 1
    dp_dest = (
        schema.option(PARALLEL_FLAGS[schema.framework][-1]) if schema.framework in PARALLEL_FLAGS else None
    )
    local = get("--data-parallel-size-local") if schema.framework == "vllm" else None
    if dp_dest is not None and isinstance(local, int) and local > 0:
        sizes[dp_dest.dest] = local
    if dp_dest is not None and schema.framework == "vllm" and get("--data-parallel-rank") is not None:
        sizes[dp_dest.dest] = 1  # external load balancing: one DP rank per process (create_engine_config)
    if dp_dest is not None and schema.framework == "sglang" and get("--enable-dp-attention"):
        sizes[dp_dest.dest] = 1  # DP attention splits the TP group; it adds no GPUs
    needed = 1
    for v in sizes.values():
        needed *= v
    nodes = get("--nnodes") if schema.framework == "sglang" else None
    if isinstance(nodes, int) and nodes > 1:
        needed = max(1, needed // nodes)
    base = get("--base-gpu-id") if schema.framework == "sglang" else None
    offset = base if isinstance(base, int) and base > 0 else 0
    return needed, sizes, dests, offset


def _visible_devices(server: ServerCommand, schema: Schema) -> tuple[list[Finding], dict[str, Any]]:
    from argtrace.rules import process as rules

    value = server.env.get("CUDA_VISIBLE_DEVICES")
    if value is None:
        return [], {}
    at = value.origin.at if not _inherited(value) else server.at
    if value.value is None:
        return [], {"visible": None, "reason": value.origin.reason}
    text = value.value.strip()
    findings: list[Finding] = []
    items = [x.strip() for x in text.split(",")] if text else []
    visible: list[str] = []
    for item in items:
        if not item or re.fullmatch(r"-\d+", item):
            break  # CUDA stops enumerating at the first invalid entry
        if item in visible:
            findings.append(
                rules.PR_BAD_VISIBLE_DEVICES.finding(
                    f"CUDA_VISIBLE_DEVICES={text} repeats {item}: CUDA fails to initialise with a "
                    "duplicate device",
                    at=at,
                    setting=None,
                )
            )
            break
        visible.append(item)
    if not text:
        findings.append(
            rules.PR_BAD_VISIBLE_DEVICES.finding(
                "CUDA_VISIBLE_DEVICES is set but empty: the server sees no GPU at all", at=at
            )
        )
    elif len(visible) < len(items) and not findings:
        findings.append(
            rules.PR_BAD_VISIBLE_DEVICES.finding(
                f"CUDA_VISIBLE_DEVICES={text}: CUDA stops at the first invalid entry, so only "
                f"{len(visible)} GPU(s) "
                "are visible",
                at=at,
            )
        )
    found = needed_gpus(server, schema)
    if isinstance(found, str):
        return findings, {"visible": visible, "needed": None, "reason": found}
    needed, sizes, dests, offset = found
    section = {"visible": visible, "needed": needed, "sizes": sizes, "base_gpu_id": offset or None}
    product = " x ".join(f"{k} {v}" for k, v in sizes.items())
    if text and visible and needed + offset > len(visible):
        extra = f" starting at --base-gpu-id {offset}" if offset else ""
        findings.append(
            rules.PR_TOO_FEW_GPUS.finding(
                f"the server needs {needed} GPU(s) ({product}){extra} but CUDA_VISIBLE_DEVICES={text} "
                "makes only "
                f"{len(visible)} visible",
                at=at,
                setting=dests[0] if dests else None,
            )
        )
    elif text and len(visible) > needed + offset:
        findings.append(
            rules.PR_EXTRA_GPUS.finding(
                f"CUDA_VISIBLE_DEVICES={text} makes {len(visible)} GPUs visible; this server uses {needed} "
                f"({product})",
                at=at,
                setting=dests[0] if dests else None,
            )
        )
    return findings, section
