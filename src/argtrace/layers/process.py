"""The process layer: the argv and environment the server process gets, and what the framework reads of it.

``ProcessInfo.env`` holds what the script (or ``--env``) set plus the caller's variables the frameworks read
(``SGLANG_*``, ``SGL_*``, ``VLLM_*``, ``CUDA_*``, ``NCCL_*``, ``HF_*``, ``TORCH_*``, ``PATH``,
``PYTHONPATH``...), never the whole caller environment. Values stay raw here; renderers redact them.
Finding messages are free text, so any value they quote goes through ``argtrace.redact``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

from argtrace.frameworks.env_aliases import PrefixAlias, env_renames, prefix_aliases
from argtrace.frameworks.schema import EnvVarSpec, Schema, schemas_for, version_key
from argtrace.model import EnvValue, Evidence, Finding, LayerResult, ProcessInfo, ServerCommand
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
# How close (difflib ratio) an unknown framework-prefixed name must be to one the release reads to be taken
# for a typo of it: SGLANG_ENABLE_SPEC_V3 / SGLANG_ENABLE_SPEC_V2 is 0.95, VLLM_ATTENTON_BACKEND /
# VLLM_ATTENTION_BACKEND 0.98; a script's own VLLM_ENABLE_CHUNKED_PROCESSING is 0.77 from its nearest
# (VLLM_ENABLE_V1_MULTIPROCESSING).
NEAR_MISS = 0.88
FRAMEWORK_PREFIXES: Mapping[str, tuple[str, ...]] = {"sglang": ("SGLANG_", "SGL_"), "vllm": ("VLLM_",)}
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
        aliased = _prefix_alias(name, schema, known)
        if aliased is not None:
            findings.extend(_aliased_finding(name, value.value, aliased, schema, at, rules))
            continue
        fix: str | None = None
        if history is None:
            history = [s for s in schemas_for(schema.framework) if s.version != schema.version]
        # a release that copies the name to one it reads (SGL_X -> SGLANG_X) reads it too
        readers = [s for s in history if name in s.env_var_names or _prefix_alias(name, s, s.env_var_names)]
        import difflib  # only for a framework-prefixed name the release does not read (start-up, issue 18)

        # A variable another release read was removed, not misspelt: only suggest a very close name then.
        near = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.92 if readers else 0.75)
        hint = f"; the nearest name it reads is {near[0]}" if near else ""
        older = [s.version for s in readers if version_key(s.version) < version_key(schema.version)]
        newer = [s.version for s in readers if version_key(s.version) > version_key(schema.version)]
        if older or newer:
            which = ", ".join(older + newer)
            msg = (
                f"{name} is read by {schema.framework} {which} but not by {schema.label}: "
                f"{'the release ignores it' if older else 'only newer releases read it'}{hint}"
            )
            # A variable only older releases read is a leftover (VLLM_USE_V1=1 on a V1-only vLLM): the
            # launch runs as intended without it. One only newer releases read asks for a feature this
            # release lacks.
            if older:
                severity = "warning" if not inherited else "info"
                moved = _moved_to_flag(name, value.value or "", server, schema)
                if moved is not None:
                    said, fix = moved
                    msg += said
                elif (kept := _asks_the_default(name, value.value, readers, schema)) is not None:
                    # the value the last release reading it took by default (VLLM_USE_V1=1 on a V1-only
                    # vLLM): the launch asked for nothing that release did not do anyway, so nothing is lost
                    msg += kept
                    severity = "info"
            else:
                severity = "error" if not inherited else "warning"
            # The same setting under the release's own spelling, from a release's rename of it (SGLang
            # 0.5.6.post2 renamed SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH to SGLANG_MOE_NVFP4_DISPATCH): the fix is
            # that name, not removing the setting (srt-slurm PR#96).
            spelled = _renamed_between(name, schema, history, known)
            if spelled is not None and fix is None:
                other, said = spelled
                msg += f"; {said}, the name {schema.label} reads"
                fix = f"use {other}"
                from argtrace.layers.renamed_env import inverted_advice, is_inverted

                if is_inverted(name, other):  # ENABLE <-> DISABLE: the same value would mean the opposite
                    msg += ", which means the opposite"
                    fix = inverted_advice(name, other, value.value, schema.label, copies=False)[1]
        else:
            msg = f"{name} looks like a {schema.framework} variable but {schema.label} never reads it{hint}"
            # Only a near-miss of a name the release reads is a likely typo; any other name with the prefix
            # is a setting of the script's own or of another tool, which the framework ignores.
            misspelt = bool(difflib.get_close_matches(name, sorted(known), n=1, cutoff=NEAR_MISS))
            if not misspelt:
                # A near-miss of a name only other releases read (VLLM_USER_V1 for VLLM_USE_V1, which vLLM
                # 0.33.0 no longer reads) is a typo all the same: no release reads what was written.
                retired = _near_retired_name(name, known, history)
                if retired is not None:
                    misspelt = True
                    other, versions = retired
                    msg += (
                        f"; no bundled {schema.framework} release reads it: a misspelling of {other} "
                        f"(read by {schema.framework} {versions})"
                    )
                    fix = f"use {other} on a release that reads it, or remove {name}"
            severity = "warning" if misspelt and not inherited else "info"
            # SGLANG_LOG_LEVEL beside SGLang's --log-level: the flag of the same name is what the launch asks
            # for, not the nearest variable (SGLANG_JIT_LOG_LEVEL is another setting); the severity stays
            moved = (
                None
                if name in server.script_reads
                else _moved_to_flag(name, value.value or "", server, schema)
            )
            if moved is not None:
                said, fix = moved
                msg = (
                    f"{name} looks like a {schema.framework} variable but {schema.label} never reads it{said}"
                )
            if not misspelt:
                if name in server.script_reads and not inherited:
                    msg = (
                        f"{name} looks like a {schema.framework} variable but {schema.label} never reads it;"
                        " the script expands it itself, so it is the script's own setting"
                    )
                    fix = f"nothing for the server; a name without the {name.split('_')[0]}_ prefix says so"
                if validates:
                    msg += (
                        f"; {schema.label} logs `Unknown vLLM environment variable detected: {name}` at "
                        "start-up and goes on"
                    )
        if schema.framework == "vllm" and near:
            # the name suggested may itself be read only under AITER's master switch (InferenceX PR#806)
            from argtrace.frameworks.vllm_aiter import master_note

            env_values = {k: v.value for k, v in server.env.items()}
            msg += master_note(schema.version, schema.label, near[0], env_values)
        if strict:
            # vLLM's validate_environ raises instead of warning for any VLLM_* name it does not know
            msg += (
                f"; with --fail-on-environ-validation {schema.label} refuses to start (ValueError: "
                f"Unknown vLLM environment variable detected: {name})"
            )
            severity = "error"
        if inherited:
            msg += " (inherited from the caller's environment)"
        findings.append(
            rules.PR_UNKNOWN_ENV.finding(
                msg,
                at=at,
                severity=severity,  # type: ignore[arg-type]
                fix=fix or (f"use {near[0]}" if near else f"remove {name}"),
                evidence=[Evidence("process", at, f"{name}={redact_value(name, value.value)}")],
            )
        )
    return findings


def _renamed_between(
    name: str, schema: Schema, history: Sequence[Schema], known: Collection[str]
) -> tuple[str, str] | None:
    """The name ``schema``'s release reads for the setting ``name`` stands for, when another release renames
    one to the other (its ``_print_deprecated_env`` calls, ``frameworks/env_aliases.py``): a newer release's
    rename of a name this release reads to ``name`` (``name`` written for a newer release), or an older
    release's rename of ``name`` to a name this release reads (a rename whose conversion this release no
    longer carries). With the clause saying which release renamed what; None when no release did."""
    deprecated = schema.deprecated_env_names
    here = version_key(schema.version)
    ordered = sorted(history, key=lambda s: version_key(s.version))
    for other in (s for s in ordered if version_key(s.version) > here):  # the first newer one
        for old, new in (env_renames(schema.framework, other.version) or {}).items():
            if new == name and old in known and old not in deprecated:
                return old, f"{schema.framework} {other.version} renamed {old} to {name}"
    for other in reversed([s for s in ordered if version_key(s.version) < here]):  # the last older one
        renamed = (env_renames(schema.framework, other.version) or {}).get(name)
        if renamed is not None and renamed in known and renamed not in deprecated:
            return renamed, f"{schema.framework} {other.version} renamed {name} to {renamed}"
    return None


def _prefix_alias(name: str, schema: Schema, by_name: Collection[str]) -> PrefixAlias | None:
    """The release's renaming of ``name``'s prefix at import (``frameworks/env_aliases.py``: SGLang's
    ``SGL_`` -> ``SGLANG_``), when the release reads the new name."""
    deprecated = schema.deprecated_env_names
    for alias in prefix_aliases(schema.framework, schema.version):
        new = alias.renamed(name)
        # a deprecated name is converted by the pass that runs before the copy (sglang PR#38219):
        # copied onto it, the value is never read
        if new is not None and new in by_name and new not in deprecated:
            return alias
    return None


def _aliased_finding(
    name: str, value: str | None, alias: PrefixAlias, schema: Schema, at: str | None, rules: Any
) -> list[Finding]:
    """``SGL_X`` on a release that copies it to ``SGLANG_X`` at import: read, under its new name, with a
    deprecation warning of the framework's own (a note; the value's type is checked as the new name's)."""
    new = alias.renamed(name) or name
    spec = schema.env_var(new, first=True)
    assert spec is not None  # _prefix_alias found ``new`` among the names the release reads
    out: list[Finding] = []
    problem = _value_problem(spec.type, value)
    if problem:
        out.append(
            rules.PR_ENV_VALUE.finding(
                f"{name}={redact_value(name, value)}: {schema.label} reads it (as {new}) as {problem}",
                at=at,
                fix=f"give {name} a value of that type",
            )
        )
    out.append(
        rules.PR_DEPRECATED_ENV.finding(
            f"{name} is deprecated in {schema.label}; it now reads {new}: at import it copies every "
            f"{alias.old}* variable to {alias.new}* ({alias.where}), so the value is used (with a warning)",
            at=at,
            severity="info",
            fix=f"use {new}",
        )
    )
    return out


def _moved_to_flag(name: str, value: str, server: ServerCommand, schema: Schema) -> tuple[str, str] | None:
    """For a variable older releases read and ``schema``'s release ignores: the flag of the same name the
    release has (``VLLM_ATTENTION_BACKEND`` -> ``--attention-backend``, ``VLLM_ALL2ALL_BACKEND`` ->
    ``--all2all-backend``), as the rest of the message and the fix; None when it has none. Removing the
    variable alone would drop what it asked for: vLLM moved such settings to flags (0.13.0-0.14.1's
    ``AttentionConfig._set_from_env_if_set`` warns "Using VLLM_ATTENTION_BACKEND environment variable is
    deprecated ... Please use --attention-config.backend"), so the value goes to the flag. The pairing rests
    on the name (a flag the generated schema lists), not on a mapping the release states: said so."""
    prefix = next((p for p in FRAMEWORK_PREFIXES.get(schema.framework, ()) if name.startswith(p)), None)
    if prefix is None or not name[len(prefix) :]:
        return None
    flag = "--" + name[len(prefix) :].lower().replace("_", "-")
    spec = schema.option(flag)
    if spec is None:
        return None
    said = f"; {schema.label} takes the setting as the flag of the same name, {flag} (assumed from the name)"
    if any(w.text == flag or (w.text or "").startswith(flag + "=") for w in server.server_args):
        return said, f"remove {name}: the launch already passes {flag}"
    if spec.nargs == 0:  # a switch: a true value turns it on, a false one is its default
        on = value.strip().lower() in ("1", "true", "yes", "y", "on")
        return said, (
            f"remove {name} and pass {flag}" if on else f"remove {name} ({flag} is off unless given)"
        )
    from argtrace.layers.attention_names import refused_note  # a backend name the flag refuses too

    refused = refused_note(schema.framework, schema.version, flag, value)
    if refused is not None:
        return said + refused, f"remove {name} and pass {flag} with a backend name {schema.label} has"
    return said, f"remove {name} and pass {flag} {redact_value(name, value)}"


def _near_retired_name(
    name: str, known: Collection[str], history: Sequence[Schema]
) -> tuple[str, str] | None:
    """The name other bundled releases read (not this one) that ``name`` is a near-miss of, with those
    releases (``0.6.6.post1-0.10.2``); None when there is none."""
    import difflib

    others = sorted({n for s in history for n in s.env_var_names} - set(known))
    close = difflib.get_close_matches(name, others, n=1, cutoff=NEAR_MISS)
    if not close:
        return None
    readers = sorted((s.version for s in history if close[0] in s.env_var_names), key=version_key)
    versions = readers[0] if len(readers) == 1 else f"{readers[0]}-{readers[-1]}"
    return close[0], versions


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


_BOOL_WORDS = frozenset({"1", "0", "true", "false", "yes", "no", "y", "n", "on", "off", ""})


def _asks_the_default(name: str, value: str | None, readers: Sequence[Schema], schema: Schema) -> str | None:
    """What to add to the message of a variable only older releases read when its value is the default of
    the last of them that reads it (its generated spec: type, default and read site): None otherwise, or
    when the value or the default is not one of a plain type compared here."""
    older = [s for s in readers if version_key(s.version) < version_key(schema.version)]
    if value is None or not older:
        return None
    last = max(older, key=lambda s: version_key(s.version))
    spec = last.env_var(name)
    if spec is None or spec.default is None:
        return None
    base = (spec.type or "").replace(" | None", "").strip()
    text = value.strip()
    if base in ("bool", "EnvBool") and isinstance(spec.default, bool):
        same = text.lower() in (("1", "true") if spec.default else ("0", "false"))
    elif base in ("int", "EnvInt") and isinstance(spec.default, int) and not isinstance(spec.default, bool):
        same = re.fullmatch(r"-?[0-9]+", text) is not None and int(text) == spec.default
    elif base in ("str", "") and isinstance(spec.default, str):
        same = text == spec.default
    else:
        return None
    if not same:
        return None
    where = f" ({spec.where})" if spec.where else ""
    return (
        f"; {redact_value(name, value)} is its default in {last.label}{where}, the last release that reads "
        "it: the launch asks for no more than that release did without it"
    )


def _value_problem(type_name: str | None, value: str | None) -> str | None:
    """Why a framework variable's value will not parse as the type its read site converts it to."""
    if value is None or not type_name:
        return None
    base = type_name.replace(" | None", "").replace("Optional[", "").rstrip("]").strip()
    text = value.strip()
    if base in ("int", "EnvInt", "EnvIntWithAlias"):
        try:
            int(text)
        except ValueError:
            return "an integer (int(...) fails on this value)"
    elif base in ("float", "EnvFloat"):
        try:
            float(text)
        except ValueError:
            return "a number (float(...) fails on this value)"
    elif base in ("bool", "EnvBool", "EnvBoolWithAlias") and text.lower() not in _BOOL_WORDS:
        return "a boolean (1/0, true/false): this value is not one"
    return None


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
                flag = _flag_before(server, i)
                spec = schema.option(flag) if flag else None
                text = redact_value(name, words[i].text)
                if flag and text == words[i].text:
                    text = redact_value(flag, words[i].text)
                # The script creating the double use (it sets the variable) is the alarm; forwarding a
                # variable the caller already had (``--api-key "$VLLM_API_KEY"``) is worth a note only.
                set_by_script = server.env[name].origin.expansion != "environment"
                how = "is exported by the script" if set_by_script else "comes from the caller's environment"
                slots = [_slot_of(exp[: hit.start()], flag) for hit in hits]
                message = (
                    f"{name} {how}, so {schema.label} reads it for its own purpose, and the script also "
                    f"expands it into {flag or 'an argument'} ({text}): one value silently feeds two settings"
                )
                severity: str | None = None if set_by_script else "info"
                if _is_address_var(name) and all(x is not None and _is_address_slot(x) for x in slots):
                    # One host has one address: the framework's "this node's IP" and a URL, host or IP field
                    # naming the same node mean the same thing, so the double use is intended (vLLM's
                    # disaggregated-prefill example puts VLLM_HOST_IP in proxy_ip and http_ip).
                    message = (
                        f"{name} {how}, so {schema.label} takes it as this node's address, and the script "
                        f"also puts it in {', '.join(dict.fromkeys(str(x) for x in slots))} of "
                        f"{flag or 'an argument'}: the same address in both, as both mean this node"
                    )
                    severity = "info"
                findings.append(
                    rules.PR_ENV_FEEDS_FLAG.finding(
                        message,
                        at=words[i].origin.at or server.at,
                        setting=spec.dest if spec is not None else None,
                        evidence=[Evidence("shell", words[i].origin.at, exp)],
                        severity=severity,  # type: ignore[arg-type]
                    )
                )
    return findings


# A framework variable whose value is a host address (not a port, key or switch): VLLM_HOST_IP,
# SGLANG_HOST_IP, MASTER_ADDR-like names.
_ADDRESS_VAR = re.compile(r"(?:^|_)(?:HOST_IP|IP|ADDR|ADDRESS|HOST)$")
# What a slot (a flag's dest or a JSON/URL key before the expansion) holds: an address when it names one.
_ADDRESS_SLOT = re.compile(r"(?:^|[_-])(?:ip|host|addr|address|url|endpoint|hostname)$|://$", re.IGNORECASE)


def _is_address_var(name: str) -> bool:
    return bool(_ADDRESS_VAR.search(name))


def _is_address_slot(slot: str) -> bool:
    return bool(_ADDRESS_SLOT.search(slot))


def _slot_of(before: str, flag: str | None) -> str | None:
    """Which part of the argument the expansion fills: the key of a JSON or ``key=value`` field it is the
    value of (``"proxy_ip":"'"$VLLM_HOST_IP"'"`` -> ``proxy_ip``), ``http://`` when it is the host of a URL,
    else the flag itself when the expansion is its whole value."""
    tail = before[-200:]
    if re.search(r"[A-Za-z][A-Za-z0-9+.-]*://$", tail):
        return "://"
    key = re.search(r"([A-Za-z_][\w.-]*)[\"']*\s*[:=]\s*[\"']*$", tail)
    if key is not None:
        return key.group(1)  # also the flag of `--host=$VLLM_HOST_IP`
    if flag is not None and re.fullmatch(r"[\"']*", tail):
        return flag.lstrip("-").replace("-", "_")
    return None


def _flag_before(server: ServerCommand, i: int) -> str | None:
    text = server.argv[i].text or ""
    if text.startswith("-") and "=" in text:
        return text.split("=", 1)[0]
    if i > server.server_args_start:
        prev = server.argv[i - 1].text or ""
        if prev.startswith("-"):
            return prev
    return None


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
