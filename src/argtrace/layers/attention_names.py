"""An attention backend name the vLLM release does not have (PA070).

A launch names vLLM's attention backend with ``VLLM_ATTENTION_BACKEND`` (the releases whose vllm/envs.py
reads it: 0.6.6.post1-0.14.1) or ``--attention-backend`` / ``--attention-config``'s ``backend`` (0.13.0 on).
Each release looks the name up in its backend enum and refuses one it lacks at start-up with its own
message: the variable through ``env_with_choices`` (vllm 0.11.0-0.14.1 envs.py: "Invalid value 'X' for
VLLM_ATTENTION_BACKEND. Valid options: [...]"), the selector (0.6.6.post1, 0.10.2), the flags through
``AttentionConfig.validate_backend_before`` and the enum's ``__getitem__`` ("Unknown attention backend:
'X'. Valid options are: ...", vllm 0.33.0 v1/attention/backends/registry.py:28). Releases 0.7.3-0.9.2
drop an unknown name instead (``backend_name_to_enum`` returns None, selector.py:29) and choose as if it
were not set. Names are removed over time (XFORMERS from 0.12.0, FLASHINFER_VLLM_V1 from 0.11.0), so a
launch written for one release stops on a newer one. TORCH_SDPA stays in the enum from 0.11.2 as a tag
without a class (ViT attention only), which CUDA's selector cannot load for the model's attention.

The names and messages of each release are read from its wheel by scripts/gen_vllm_attention_names.py into
frameworks/data/vllm_attention_names.json; a release it does not hold gives nothing. Pure: takes the report,
returns findings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from argtrace.model import Evidence, Finding, LayerResult, Report
from argtrace.package_data import release_facts as package_release_facts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VARIABLE = "VLLM_ATTENTION_BACKEND"
_TABLE = "frameworks/data/vllm_attention_names.json"  # written by scripts/gen_vllm_attention_names.py


def release_facts(release: str) -> Mapping[str, Any] | None:
    """What scripts/gen_vllm_attention_names.py read from ``release``'s wheel, or None (not read)."""
    return package_release_facts(_TABLE, release)


def _render(site: Mapping[str, Any], name: str, names: Sequence[str], *, full: bool) -> str:
    """The release's message for ``name``; the list of names as it prints them, or ``…`` for it."""
    shown = (", ".join(names) if site.get("join") else repr(list(names))) if full else "…"
    return str(site.get("message") or "").format(name=name, names=shown, variable=VARIABLE)


def flag_accepts(facts: Mapping[str, Any], value: str) -> bool:
    """Whether the flags' validator takes ``value``: "auto" where it has it, else the name upper-cased."""
    site = facts.get("flag")
    if not isinstance(site, Mapping):
        return True
    if site.get("auto") and value.lower() == "auto":
        return True
    return (value.upper() if site.get("upper") else value) in (facts.get("names") or ())


def _env_accepts(site: Mapping[str, Any], names: Sequence[str], value: str) -> bool:
    if site.get("case_sensitive") is False:
        return value.lower() in {n.lower() for n in names}
    return value in names


def refused_note(framework: str, release: str, flag: str, value: str) -> str | None:
    """For PR001's advice to move ``VLLM_ATTENTION_BACKEND`` to ``--attention-backend``: the release's
    refusal of the value under the flag, None when the flag takes it (or nothing is known)."""
    if framework != "vllm" or flag != "--attention-backend" or not value:
        return None
    facts = release_facts(release)
    if not facts:
        return None
    if flag_accepts(facts, value):
        empty = facts.get("unregistered")
        if not isinstance(empty, Mapping) or value.upper() not in (empty.get("names") or ()):
            return None
        return (
            f"; but vllm {release} has {value.upper()} only as a tag without a backend class, which a CUDA "
            f"GPU cannot load under the flag either ({empty.get('where')}: "
            f'"{str(empty.get("message") or "").format(name=value.upper())}")'
        )
    site = facts["flag"]
    return (
        f"; but vllm {release} has no attention backend {value} and refuses it under the flag too "
        f'({site.get("where")}: "{_render(site, value.upper(), (), full=False)}")'
    )


def _named(report: Report, facts: Mapping[str, Any]) -> list[tuple[str, str | None, str, str]]:
    """(name, where it is written, how it is written, which refusal applies: flag or env)."""
    out: list[tuple[str, str | None, str, str]] = []
    for setting_name, flag in (
        ("attention_backend", "--attention-backend"),
        ("attention_config.backend", "--attention-config's backend"),
    ):
        setting = report.written(setting_name)
        if setting is not None and isinstance(setting.effective, str) and setting.effective:
            out.append((setting.effective, setting.last_at, f"{flag} {setting.effective}", "flag"))
    server = report.described_server()
    word = server.env.get(VARIABLE) if server is not None else None
    if word is not None and word.value and isinstance(facts.get("env"), Mapping):
        origin = word.origin
        if not (
            origin.expansion in ("environment", "bash") or (origin.at is None and origin.expansion is None)
        ):
            here = report.process.at if report.process is not None else None
            out.append((word.value, origin.at or here, f"{VARIABLE}={word.value}", "env"))
    return out


def _elsewhere(name: str, release: str) -> str:
    """The other bundled releases whose enum has ``name`` (``0.6.6.post1-0.12.0``), or ""."""
    from argtrace.frameworks.schema import version_key
    from argtrace.package_data import releases_table

    having = sorted(
        (v for v, f in releases_table(_TABLE).items() if v != release and name in (f.get("names") or ())),
        key=version_key,
    )
    if not having:
        return ""
    span = having[0] if len(having) == 1 else f"{having[0]}-{having[-1]}"
    return f"; {name} is a backend of vllm {span}"


def _unregistered(
    report: Report, release: str, facts: Mapping[str, Any], name: str, written: str, at: str | None
) -> Finding | None:
    """PA070 (a warning) for a name the enum has without a class (TORCH_SDPA: a tag for ViT attention only;
    CUSTOM): CUDA's selector loads the class of the backend named (``get_attn_backend_cls``, vllm 0.33.0
    platforms/cuda.py:432) and ``AttentionBackendEnum.get_path`` refuses one without a path. Another platform
    may choose its own backend instead (the CPU one logs "Cannot use ... backend on CPU"), so it rests on a
    CUDA GPU; a plugin may register a class for it."""
    empty = facts.get("unregistered")
    if not isinstance(empty, Mapping) or name not in (empty.get("names") or ()):
        return None
    from argtrace.rules.parser import PA_ATTENTION_NAME

    message = str(empty.get("message") or "").format(name=name)
    return PA_ATTENTION_NAME.finding(
        f"{written}: vllm {release} has {name} only as a tag without a backend class (its value is empty): "
        f'on a CUDA GPU the model\'s attention cannot load it and the start-up stops: "{message}" '
        f"({empty.get('where')}), unless a plugin registers a class for it",
        at=at,
        # a warning when the release is named; on an assumed release the name may be a fork's or another
        # release's (a correct launch gets no warning from what argtrace assumed)
        severity="warning" if report.framework.version is not None else "info",
        basis="assumed",
        evidence=[Evidence("parser", at, message)],
        fix="remove the setting so that vLLM chooses a backend for the GPU, or name one with a class",
    )


def attention_names(report: Report) -> LayerResult:
    """PA070 for an attention backend name the release refuses (or, 0.7.3-0.9.2, drops)."""
    result = LayerResult()
    release = report.parsed_release("vllm")
    if release is None:
        return result  # (Report.parsed_release)
    server = report.described_server()
    if not (
        report.written("attention_backend")
        or report.written("attention_config.backend")
        or (server is not None and VARIABLE in server.env)
    ):
        return result  # nothing names a backend: the table is not read (start-up, issue 18)
    facts = release_facts(release)
    if not facts:
        return result
    names: list[str] = list(facts.get("names") or ())
    for value, at, written, how in _named(report, facts):
        site = facts.get(how)
        if not isinstance(site, Mapping):
            continue
        looked_up = value.upper() if how == "flag" and site.get("upper") else value
        if (how == "flag" and flag_accepts(facts, value)) or (
            how == "env" and _env_accepts(site, names, value)
        ):
            finding = _unregistered(report, release, facts, looked_up, written, at)
            if finding is not None:
                result.findings.append(finding)
            continue
        import difflib

        # a name the written one extends (FLASHINFER for FLASHINFER_VLLM_V1), else the closest spelling
        stem = sorted((n for n in names if looked_up.upper().startswith(n + "_")), key=len)
        near = stem[-1:] or difflib.get_close_matches(looked_up.upper(), names, n=1, cutoff=0.6)
        named = report.framework.version is not None
        assumed = "" if named else f" (assumed: nothing names the release; analysed with vllm {release})"
        history = _elsewhere(looked_up, release)
        if site.get("form") == "ignored":
            message = (
                f"{written} is lost: vllm {release} has no attention backend of that name; "
                f"backend_name_to_enum ({site.get('where')}) returns None for it and the selector chooses as "
                f"if it were not set{history}{assumed}"
            )
            severity = "warning" if named else "info"
        else:
            how_read = (
                f", through AttentionConfig.validate_backend_before, {site.get('validator')}"
                if how == "flag"
                else ""
            )
            message = (
                f"{written}: vllm {release} has no attention backend of that name and refuses the launch at "
                f'start-up: "{_render(site, looked_up, names, full=False)}" ({site.get("where")}{how_read})'
                f"{history}{assumed}"
            )
            # on an assumed release the name may be another release's or a fork's (vLLM builds for V100, a
            # gpt-oss image): information resting on that assumption, never an alarm on a correct launch
            severity = "error" if named else "info"
        fix = f"name a backend vllm {release} has" + (f" ({near[0]} is the nearest)" if near else "")
        fix += ", or remove the setting so that vLLM chooses one for the GPU"
        from argtrace.rules.parser import PA_ATTENTION_NAME

        result.findings.append(
            PA_ATTENTION_NAME.finding(
                message,
                at=at,
                severity=severity,  # type: ignore[arg-type]
                basis=None if named else "assumed",
                evidence=[Evidence("parser", at, _render(site, looked_up, names, full=True))]
                if site.get("form") != "ignored"
                else [Evidence("parser", at, f"{release} backends: {', '.join(names)}")],
                fix=fix,
            )
        )
    return result
