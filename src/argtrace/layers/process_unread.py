"""What the process layer reads only for a variable the release does not read (a renamed, aliased, retired,
misspelt or moved-to-a-flag name: PR001/PR002/PR003) and for a variable the script also expands into a
server argument (PR013): moved from layers/process.py, which imports it at those two places, so a launch
whose variables are all the release's own and not expanded into its arguments does not read it."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from argtrace.frameworks.env_aliases import PrefixAlias, env_renames, prefix_aliases
from argtrace.frameworks.schema import Schema, schemas_for, version_key
from argtrace.layers.process_names import FRAMEWORK_PREFIXES, NEAR_MISS, _value_problem
from argtrace.model import EnvValue, Evidence, Finding, ServerCommand
from argtrace.redact import redact_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def unread_name(
    findings: list[Finding],
    name: str,
    value: EnvValue,
    inherited: bool,
    at: str | None,
    server: ServerCommand,
    schema: Schema,
    known: Collection[str],
    history: list[Schema] | None,
    validates: bool,
    strict: bool,
    rules: Any,
) -> list[Schema] | None:
    """``_env_names``'s findings for ``name``, a framework-prefixed variable ``schema``'s release does not
    read, added to ``findings``; returns the other releases' schemas (``history``, loaded here the first
    time) for the next such name."""
    aliased = _prefix_alias(name, schema, known)
    if aliased is not None:
        findings.extend(_aliased_finding(name, value.value, aliased, schema, at, rules))
        return history
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
            None if name in server.script_reads else _moved_to_flag(name, value.value or "", server, schema)
        )
        if moved is not None:
            said, fix = moved
            msg = f"{name} looks like a {schema.framework} variable but {schema.label} never reads it{said}"
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
            severity=severity,
            fix=fix or (f"use {near[0]}" if near else f"remove {name}"),
            evidence=[Evidence("process", at, f"{name}={redact_value(name, value.value)}")],
        )
    )
    return history


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


def double_use(
    server: ServerCommand,
    schema: Schema,
    words: Sequence[Any],
    i: int,
    name: str,
    exp: str,
    hits: list[re.Match[str]],
    rules: Any,
) -> Finding:
    """``_env_feeds_flag``'s finding for ``name``, read by the release and expanded into argument ``i``."""
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
    return rules.PR_ENV_FEEDS_FLAG.finding(
        message,
        at=words[i].origin.at or server.at,
        setting=spec.dest if spec is not None else None,
        evidence=[Evidence("shell", words[i].origin.at, exp)],
        severity=severity,
    )


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
