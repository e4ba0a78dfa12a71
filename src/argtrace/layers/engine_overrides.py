"""Values a vLLM release's engine drops or replaces after the parser took them (RS059, RS060), from each
release's own source (frameworks/vllm_engine_overrides.py):

- RS059: a ``--override-generation-config`` key ``ModelConfig.get_diff_sampling_param`` does not keep never
  becomes a default sampling parameter (vllm#50767: ``presence_penalty`` before 0.31.0).
- RS061: settings the V1 oracle of 0.8.5.post1-0.11.0 sends back to the V0 engine (``_raise_or_fallback``;
  with ``VLLM_USE_V1=1`` it raises), its tests evaluated on the launch's settings and the fields' defaults
  (the oracle runs first in ``create_engine_config``): ``--pipeline-parallel-size 2`` without the Ray
  executor on 0.8.5.post1, vllm#20752.
- RS060: an explicit value ``EngineArgs`` sets back (``enable_chunked_prefill = True`` for the V1 engine in
  0.6.6.post1-0.11.0: ``--no-enable-chunked-prefill`` is lost, vllm#20914, PR#21645).

With a named release the verdict is that release's; with none, the analysed release's when it drops or
replaces the value, else a note naming the releases that do (of those whose parser takes the launch).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from argtrace.frameworks import vllm_engine_overrides as data
from argtrace.model import Finding, Report

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _release(report: Report) -> str | None:
    """The release whose source the verdict reads: the named one when it was read, else the analysed one."""
    named = report.framework.version
    if named and named in data.releases():
        return named
    if named and report.framework.name:  # unbundled: the schema standing in for it (PR008)
        from argtrace.frameworks.schema import choose_schema

        schema = choose_schema(report.framework.name, named)[0]
        return schema.version if schema is not None else None
    return report.framework.analysed_with


def _candidates(report: Report) -> list[str]:
    """The releases the launch may run when none is named: those whose parser takes it (all read ones when
    that is not known)."""
    accepted = report.framework.accepted_by
    read = data.releases()
    return [v for v in read if accepted is None or v in accepted]


def _span(versions: Sequence[str]) -> str:
    """``0.7.3-0.30.0`` for a run of consecutive read releases, runs joined by commas."""
    read = list(data.releases())
    runs: list[list[str]] = []
    for version in versions:
        if runs and read.index(version) == read.index(runs[-1][-1]) + 1:
            runs[-1].append(version)
        else:
            runs.append([version])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def _given_at(report: Report, name: str) -> str | None:
    setting = report.setting(name)
    if setting is None:
        return None
    return setting.last_at


def engine_override_findings(report: Report) -> list[Finding]:
    if report.framework.name != "vllm":
        return []
    return [*dropped_generation_keys(report), *overwritten_settings(report), *v1_fallbacks_taken(report)]


def _dropped(version: str, keys: Sequence[str]) -> list[str]:
    kept = data.sampling_keys(version)
    if kept is None:
        return []
    return [k for k in keys if k not in kept.keys]


def dropped_generation_keys(report: Report) -> list[Finding]:
    """RS059: keys of ``--override-generation-config`` the release's ``get_diff_sampling_param`` drops."""
    from argtrace.rules import start_values as rules

    setting = report.setting("override_generation_config")
    value = setting.effective if setting is not None else None
    if not isinstance(value, Mapping) or not value:
        return []
    version = _release(report)
    if version is None or data.sampling_keys(version) is None:
        return []
    keys = [str(k) for k in value]
    at = _given_at(report, "override_generation_config")
    kept = data.sampling_keys(version)
    assert kept is not None
    dropped = _dropped(version, keys)
    if dropped:
        shown = ", ".join(repr(k) for k in dropped)
        later = [v for v in data.releases() if not _dropped(v, dropped) and _newer(v, version)]
        near = {k: m[0] for k in dropped if (m := difflib.get_close_matches(k, kept.keys, 1, 0.75))}
        them = "them" if len(dropped) > 1 else "it"
        if near:
            # `max_tokens` for the generation config's `max_new_tokens`: a name the list spells otherwise
            fix = "; ".join(f"write {m} (the generation config's name), not {k}" for k, m in near.items())
        else:
            fix = f"set {', '.join(dropped)} per request instead (the server does not default {them})"
        if later and not near:
            fix += f", or run vLLM {later[0]} or later, which keeps {them}"
        return [
            rules.RS059.finding(
                f"--override-generation-config: vllm {version} keeps only "
                f"{', '.join(kept.keys)} of the generation config as default sampling parameters "
                f"(ModelConfig.get_diff_sampling_param, {kept.where}): {shown} "
                f"{'are' if len(dropped) > 1 else 'is'} dropped without a word, and requests that do not set "
                f"{'them' if len(dropped) > 1 else 'it'} get vLLM's own default",
                at=at,
                setting="override_generation_config",
                fix=fix,
            )
        ]
    if report.framework.version is not None:
        return []
    dropping = [v for v in _candidates(report) if _dropped(v, keys)]
    if not dropping:
        return []
    lost = sorted({k for v in dropping for k in _dropped(v, keys)}, key=keys.index)
    last = data.sampling_keys(dropping[-1])
    return [
        rules.RS059.finding(
            f"--override-generation-config: vllm {_span(dropping)} drop {', '.join(repr(k) for k in lost)} "
            f"(get_diff_sampling_param keeps only its own list of sampling keys, "
            f"{last.where if last else ''} in {dropping[-1]}); "
            f"vllm {version} keeps {'them' if len(lost) > 1 else 'it'}, and nothing shows which release runs",
            at=at,
            setting="override_generation_config",
            fix="pass --framework-version with the release that runs",
            severity="info",
        )
    ]


def _newer(a: str, b: str) -> bool:
    from argtrace.frameworks.schema import version_key

    return version_key(a) > version_key(b)


def _applies(overwrite: data.Overwrite, version: str, env: Mapping[str, str]) -> bool:
    """The overwrite runs on this launch: a V1-only one when the launch runs the V1 engine."""
    if not overwrite.v1_only:
        return True
    default = data.v1_default(version)
    if default is None:
        return True
    return env.get("VLLM_USE_V1", default).strip() not in ("0", "", "false", "False")


def _lost(report: Report, overwrite: data.Overwrite) -> bool:
    setting = report.setting(overwrite.field)
    if setting is None or setting.effective is None or _given_at(report, overwrite.field) is None:
        return False
    value: Any = setting.effective
    if isinstance(overwrite.value, bool) and isinstance(value, str):
        # 0.6.6.post1-0.7.3's StoreBoolean action keeps the word (`--enable-chunked-prefill False`)
        value = {"true": True, "false": False}.get(value.strip().lower(), value)
    return bool(value != overwrite.value)


def overwritten_settings(report: Report) -> list[Finding]:
    """RS060: a setting the launch gives that the release's ``EngineArgs`` sets back after parsing."""
    from argtrace.rules import start_values as rules

    version = _release(report)
    if version is None:
        return []
    env = {
        k: v for k, v in (report.process.env if report.process is not None else {}).items() if v is not None
    }
    out: list[Finding] = []
    seen: set[str] = set()
    for overwrite in data.overwrites(version):
        if overwrite.field in seen or not _lost(report, overwrite) or not _applies(overwrite, version, env):
            continue
        seen.add(overwrite.field)
        setting = report.setting(overwrite.field)
        assert setting is not None
        when = f" when {' and '.join(overwrite.when)}" if overwrite.when else ""
        engine = " for the V1 engine" if overwrite.v1_only else ""
        later = [v for v in data.releases() if _newer(v, version) and overwrite.field not in _fields(v)]
        fix = f"drop the flag (vllm {version} ignores it)"
        if later:
            fix = f"run vLLM {later[0]} or later, which keeps the value given; or drop the flag"
        if overwrite.v1_only and data.v1_default(version) == "1":
            fix += "; VLLM_USE_V1=0 (the V0 engine) keeps it on this release"
        out.append(
            rules.RS060.finding(
                f"{_written(setting, overwrite.field)} is lost: vllm {version} sets "
                f"{overwrite.field} back to {overwrite.value!r}{engine} (EngineArgs.{overwrite.method}, "
                f"{overwrite.where}){when}",
                at=_given_at(report, overwrite.field),
                setting=overwrite.field,
                fix=fix,
                severity="warning" if overwrite.when else "error",
            )
        )
    if out or report.framework.version is not None:
        return out
    # nothing names the release, and the analysed one keeps the value: the releases that do not
    for field in sorted({o.field for v in _candidates(report) for o in data.overwrites(v)}):
        replacing = [
            v
            for v in _candidates(report)
            if any(o.field == field and _lost(report, o) and _applies(o, v, env) for o in data.overwrites(v))
        ]
        if not replacing:
            continue
        setting = report.setting(field)
        assert setting is not None
        last = next(o for o in data.overwrites(replacing[-1]) if o.field == field)
        engine = " for the V1 engine" if last.v1_only else ""
        out.append(
            rules.RS060.finding(
                f"{_written(setting, field)}: vllm {_span(replacing)} set {field} back to "
                f"{last.value!r}{engine} (EngineArgs.{last.method}, {last.where} in {replacing[-1]}); "
                f"vllm {version} keeps it, and nothing shows which release runs",
                at=_given_at(report, field),
                setting=field,
                fix="pass --framework-version with the release that runs",
                severity="info",
            )
        )
    return out


def _written(setting: Any, field: str) -> str:
    """The setting as the launch wrote it: ``--no-enable-chunked-prefill`` alone, else flag and value."""
    flag = setting.flag or field
    return str(flag) if str(flag).startswith("--no-") else f"{flag} {setting.effective!r}"


def _fields(version: str) -> set[str]:
    return {o.field for o in data.overwrites(version)}


def _taken(
    report: Report, version: str, given: Mapping[str, Any]
) -> list[tuple[data.V1Fallback, tuple[str, ...]]]:
    """The release's V1-oracle fallbacks whose tests hold on the launch (settings given, else the fields'
    defaults: the oracle reads EngineArgs before anything rewrites them)."""
    from argtrace.frameworks.schema import SchemaError, load_schema
    from argtrace.layers.start_raises import refuses

    entries = [e for e in data.v1_fallbacks(version) if e.fields]
    if not entries:
        return []
    try:
        schema = load_schema("vllm", version)
    except (SchemaError, OSError, ValueError):
        return []
    defaults = {spec.dest: spec.default_value for spec in schema.options if not spec.default_is_repr}
    out = []
    for entry in entries:
        values = {
            f: given[f] if f in given else defaults.get(f)
            for f in entry.fields
            if f in given or f in defaults
        }
        if not any(f in given for f in entry.fields):
            continue  # nothing the launch wrote: the release's defaults never fall back
        site = {"conditions": entry.when, "fields": entry.fields, "class": "EngineArgs"}
        verdict = refuses(site, "vllm", values, {})
        if verdict is not None and verdict[0]:
            out.append((entry, verdict[1]))
    return out


def _flags(fields: Sequence[str]) -> str:
    return " and ".join("--" + f.replace("_", "-") for f in fields)


def v1_fallbacks_taken(report: Report) -> list[Finding]:
    """RS061: the launch's settings send it back to the V0 engine on the release (or, with VLLM_USE_V1=1,
    make it raise)."""
    from argtrace.layers.start_raises import _given
    from argtrace.rules import start_values as rules

    version = _release(report)
    if version is None:
        return []
    env = {
        k: v for k, v in (report.process.env if report.process is not None else {}).items() if v is not None
    }
    chosen = env.get("VLLM_USE_V1", "").strip()
    if chosen == "0":
        return []  # the V0 engine is asked for: nothing falls back
    given = _given(report)
    out: list[Finding] = []
    for entry, read in _taken(report, version, given):
        at = _given_at(report, next((f for f in read if f in given), read[0]))
        cond = " and ".join(entry.when)
        if chosen == "1":
            message = (
                f"VLLM_USE_V1=1 with {entry.feature}: vllm {version}'s V1 oracle raises "
                f'"VLLM_USE_V1=1 is not supported with {entry.feature}" (EngineArgs.{entry.function}, '
                f"{entry.where}) because {cond}"
            )
            severity: Any = "error"
        else:
            message = (
                f"{entry.feature}: vllm {version} does not run the V1 engine for this launch but falls back "
                f"to V0 (EngineArgs.{entry.function}, {entry.where}) because {cond}"
            )
            severity = "info"  # V0 serves the launch: what changes is the engine, which it did not name
        out.append(
            rules.RS061.finding(
                message,
                at=at,
                setting=read[0],
                fix=f"change {_flags(read)} so that {cond} no longer holds (the V1 engine then runs), or "
                "set VLLM_USE_V1=0 to run V0 on purpose",
                severity=severity,
            )
        )
    if out or report.framework.version is not None:
        return out
    falling = [v for v in _candidates(report) if _taken(report, v, given)]
    if falling:
        entry = _taken(report, falling[-1], given)[0][0]
        out.append(
            rules.RS061.finding(
                f"{entry.feature}: vllm {_span(falling)} {'falls' if len(falling) == 1 else 'fall'} back to "
                "the V0 engine for this launch "
                f"(EngineArgs.{entry.function}, {entry.where} in {falling[-1]}); vllm {version} runs it on "
                "V1, and nothing shows which release runs",
                at=_given_at(report, entry.fields[-1]) or _given_at(report, entry.fields[0]),
                setting=entry.fields[0],
                fix="pass --framework-version with the release that runs",
                severity="info",
            )
        )
    return out
