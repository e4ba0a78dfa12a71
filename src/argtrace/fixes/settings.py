"""Fixes that change what a setting is: candidates tried in order, the framework's own code decides.

Two cases read the whole report, not one position:

- the Mamba radix-cache refusal (RS001 from ``_handle_mamba_radix_cache``): when ``extra_buffer`` is written
  but cut off from the command, the fix is the shell finding's edit; otherwise the candidates are the
  strategy flag with ``extra_buffer`` (spelt as the release spells it) and ``--disable-radix-cache``. Each is
  re-checked (``verify.py``) and the first one the framework's resolution accepts is the fix, so a model or
  release whose own check rejects ``extra_buffer`` gets the other one.
- an observed mismatch (the log's or the server's value is not the one intended) whose predicted value is
  already wrong: the predicted layers' own edits (a shell hazard that cut the flag off) are the fix.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from argtrace.fixes.edits import Proposal, SourceFile, parse_at
from argtrace.fixes.words import word_end
from argtrace.model import Finding, FixEdit, Report, Setting

STRATEGY_FLAGS = ("--mamba-radix-cache-strategy", "--mamba-scheduler-strategy")
STRATEGY_FIELDS = ("mamba_scheduler_strategy", "mamba_radix_cache_strategy")


def find_setting(report: Report, name: str | None) -> Setting | None:
    """The report's setting by field name, dest, or (for SGLang's renamed strategy) its other name."""
    if name is None:
        return None
    names = STRATEGY_FIELDS if name in STRATEGY_FIELDS else (name,)
    for setting in report.settings:
        if setting.name in names or setting.dest in names:
            return setting
    return None


def predicted_value(setting: Setting) -> object:
    """The value of the deepest predicted layer (the log's and the server's come after it)."""
    predicted = [o for o in setting.history if o.layer not in ("log", "live")]
    return predicted[-1].value if predicted else None


def append_after_server_args(report: Report, source: SourceFile, words: Sequence[str]) -> FixEdit | None:
    """An insertion of ``words`` right after the described server's last argument word, when that word is
    written in ``source`` (a script or ``-c`` command; manifests are not edited this way)."""
    if not report.servers:
        return None
    server = report.servers[0]
    for word in reversed(server.server_args):
        where = parse_at(word.origin.at)
        if where is None or where[0] != source.label or where[2] is None:
            continue
        line = source.line(where[1])
        if line is None:
            return None
        end = word_end(line, where[2] - 1)
        position = f"{where[1]}:{end + 1}"
        return FixEdit(source.label, position, position, "".join(" " + w for w in words))
    return None


def _strategy_flag(report: Report) -> str | None:
    """The spelling of the Mamba strategy flag that the analysed release accepts without deprecation."""
    from argtrace.frameworks.schema import choose_schema

    name, release = report.framework.name, report.framework.release
    if name != "sglang" or release is None:
        return None
    schema = choose_schema(name, release)[0]
    known = [f for f in STRATEGY_FLAGS if schema.option(f) is not None]
    current = [f for f in known if not (spec := schema.option(f)) or not spec.deprecation_message]
    choices = current or known
    return choices[0] if choices else None


def _shell_causes(findings: Sequence[Finding]) -> list[Finding]:
    return [
        f for f in findings if f.layer in ("shell", "transport") and f.fix_edits and f.severity == "error"
    ]


def mamba_candidates(
    finding: Finding, report: Report, sources: Mapping[str, SourceFile], done: Sequence[Finding]
) -> list[Proposal]:
    """RS001 from ``_handle_mamba_radix_cache``: the proposals, best first."""
    if "_handle_mamba_radix_cache" not in finding.message:
        return []
    setting = find_setting(report, "mamba_scheduler_strategy")
    if (
        setting is not None
        and setting.intended == "extra_buffer"
        and predicted_value(setting) != "extra_buffer"
    ):
        written = setting.flag or STRATEGY_FLAGS[1]
        return [_borrowed(cause, f"{written} extra_buffer is written") for cause in _shell_causes(done)]
    candidates: list[Proposal] = []
    for label, source in sources.items():
        flag = _strategy_flag(report)
        if flag is not None and (setting is None or setting.intended is None):
            edit = append_after_server_args(report, source, [flag, "extra_buffer"])
            if edit is not None:
                candidates.append(
                    Proposal(
                        (edit,),
                        f"Add {flag} extra_buffer to the server command at {label}:{_line(edit)} (keeps the "
                        "radix cache; doubles the Mamba state cache per request, so fewer requests fit); "
                        "the other way out is --disable-radix-cache (no prefix reuse between requests).",
                    )
                )
        edit = append_after_server_args(report, source, ["--disable-radix-cache"])
        if edit is not None:
            candidates.append(
                Proposal(
                    (edit,),
                    f"Add --disable-radix-cache to the server command at {label}:{_line(edit)} (no prefix "
                    "reuse between requests: every prompt is prefilled in full)"
                    + (
                        "; the framework's own check, re-run, refuses extra_buffer for this model and release"
                        if candidates
                        else ""
                    )
                    + ".",
                )
            )
    return candidates


def _line(edit: FixEdit) -> str:
    return edit.start.split(":", 1)[0]


def _borrowed(cause: Finding, what: str) -> Proposal:
    return Proposal(
        cause.fix_edits,
        f"{what} but never reaches the server: {cause.code} at {cause.at}. {cause.fix}",
    )


def observed_candidates(
    finding: Finding, report: Report, sources: Mapping[str, SourceFile], done: Sequence[Finding]
) -> list[Proposal]:
    """An observed mismatch of a setting whose predicted value already differs from the intended one: the
    predicted layers' edits of the hazard that cut it off (verified by the re-check predicting the
    intended value)."""
    setting = find_setting(report, finding.setting)
    if setting is None or setting.intended is None:
        return []
    predicted = predicted_value(setting)
    if predicted == setting.intended:
        return []
    causes = _shell_causes(done)
    if not causes:
        return []
    edits = tuple(dict.fromkeys(e for cause in causes for e in cause.fix_edits))
    flag = f"{setting.flag} {setting.intended}" if setting.flag else f"{setting.name}={setting.intended!r}"
    texts = "; ".join(f"{c.code} at {c.at}: {c.fix}" for c in causes)
    return [
        Proposal(
            edits,
            f"{flag} is written but never reaches the server (the launch predicts {predicted!r}): {texts}",
        )
    ]


_FLAG_VALUE = re.compile(r"(--[a-z0-9][a-z0-9-]*)(?: ([A-Za-z0-9_.]+))?")
_VAR_VALUE = re.compile(r"\b([A-Z][A-Z0-9_]{2,})=([^\s,;)]+)")


def already_passed(finding: Finding, report: Report) -> str | None:
    """A fix text for an observed error that tells the user to pass what the launch already passes (the
    log signature's advice, ``--mamba-scheduler-strategy extra_buffer and set SGLANG_ENABLE_SPEC_V2=1``):
    when every flag and variable of its first way out is predicted to reach the server as written, the text
    says so instead, and keeps the other ways out."""
    first, _, rest = (finding.fix or "").partition(", or ")
    flags = _FLAG_VALUE.findall(first)
    names = _VAR_VALUE.findall(first)
    if (not flags and not names) or not report.servers:
        return None
    passed: list[str] = []
    for flag, value in flags:
        setting = next((s for s in report.settings if s.flag == flag), None)
        if setting is None or setting.intended is None:
            return None
        if value and str(predicted_value(setting)) != value:
            return None
        passed.append(f"{flag} {value}".strip())
    env = report.servers[0].env
    for name, value in names:
        if name not in env or env[name].value != value:
            return None
        passed.append(f"{name}={value}")
    them = "it" if len(passed) == 1 else "them"
    text = (
        f"The launch already passes {' and '.join(passed)}, and argtrace predicts {them} reaching the "
        "server: the error is not this launch's (relaunch and read the new log), or the node runs other "
        "code than the analysis (pass --framework-version)."
    )
    return text + (f" Otherwise: {rest}" if rest else "")
