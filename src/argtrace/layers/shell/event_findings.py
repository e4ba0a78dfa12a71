"""Findings from the evaluator's events: what the run of a script met on its way, one finding per event.

The evaluator (``evaluate.py`` and the modules under it) records an event where bash would stop, fail or
do something else than the script's author expected (a flag line cut off from its command, an unbound
variable under ``set -u``, a failing command under ``set -e``, a ``source`` or ``eval`` that cannot be
followed, an alias bash does not expand, srun/systemd-run/sbatch taking the environment or words away, a
budget reached). This module turns each event into its finding (code, message, evidence); it is a unit
because it reads only the events and the evaluator's state, never the script's text or its servers.
``analysis.py`` calls ``event_findings`` after the evaluation; ``missing_backslash_message`` is shared
with the text hazards there.
"""

from __future__ import annotations

from argtrace.layers.shell import evaluate as E
from argtrace.layers.shell.lost import lost_value_finding
from argtrace.layers.shell.server_hazards import runs_under_bash, show_word
from argtrace.model import Evidence, Finding
from argtrace.rules import shell as R

# the last script split into lines (the message is asked once per finding: a page of 2,000 such lines split
# its text 2,000 times, session 29's fuzzers)
_SPLIT: list[tuple[bytes, list[bytes]]] = []


def missing_backslash_message(data: bytes, line: int, word: str, words: str | None) -> str:
    if not _SPLIT or _SPLIT[0][0] is not data:
        _SPLIT[:] = [(data, data.split(b"\n"))]
    lines = _SPLIT[0][1]
    prev = lines[line - 2].rstrip(b"\r") if line >= 2 else b""
    if prev.lstrip().startswith(b"#"):
        why = (
            "the line before it is a comment: inside a continued command a comment ends the command (a "
            "trailing backslash is part of the comment)"
        )
    else:
        why = "the line before it does not end with a backslash"
    what = f"`{words}`" if words else "this line"
    return (
        f"line {line} starts with `{word}`: {why}, so the command ended there and {what} runs as a separate "
        f"command (`{word}: command not found`); these flags never reach the server"
    )


def _read_as_set_by_it(ev: E.ShellEvaluator, first: list[bool]) -> str:
    """What the first unreadable `source` adds to its note: the variables read after it as set by it."""
    if not first[0] or not ev.read_after_unread_source:
        return ""
    first[0] = False
    names = ", ".join(f"${n}" for n in ev.read_after_unread_source)
    return (
        f"; the script reads {names} after it and never sets "
        + ("it" if len(ev.read_after_unread_source) == 1 else "them")
        + ", so argtrace reads "
        + ("it" if len(ev.read_after_unread_source) == 1 else "them")
        + " as set by it (value unknown); pass `--env NAME=VALUE` to check with the values it sets"
    )


def event_findings(label: str, ev: E.ShellEvaluator, args: list[str], data: bytes) -> list[Finding]:
    out: list[Finding] = []
    first_unread = [True]
    for e in ev.events:
        d = e.data
        if e.kind == "flag_as_command":
            words = " ".join(show_word(w) for w in d["words"])
            out.append(
                R.SH004.finding(
                    missing_backslash_message(
                        data if (e.at or "").startswith(f"{label}:") else b"", d["line"], d["word"], words
                    ),
                    at=e.at,
                    evidence=[Evidence("shell", e.at, words)],
                )
            )
        elif e.kind == "python_program":
            out.extend(d["findings"])  # what the Python launch reader found in the program (TP094...)
        elif e.kind == "nounset" and d.get("caller"):
            out.append(
                R.SH012.finding(
                    f"`{d['raw']}` is not set (in the environment argtrace was given) and `set -u` is on: "
                    f"where the script's caller does not set it either, bash prints `{d['name']}: unbound "
                    f"variable` and the script exits here; checked with its value unknown (pass "
                    f"`--env {d['name']}=...` to check with the caller's value)",
                    at=e.at,
                    severity="info",
                    basis="assumed",
                    evidence=[Evidence("shell", e.at, d["raw"])],
                )
            )
        elif e.kind == "nounset":
            if d.get("positional"):
                n = d["nargs"]
                why = f"`{d['raw']}` is unset (the script got {n} argument{'s' if n != 1 else ''})"
            else:
                why = f"`{d['raw']}` is not set"
            out.append(
                R.SH012.finding(
                    f"{why} and `set -u` is on: bash prints `{d['name']}: unbound variable` and "
                    f"exits here; the "
                    "commands after this point never run",
                    at=e.at,
                    evidence=[Evidence("shell", e.at, d["raw"])],
                )
            )
        elif e.kind == "errexit":
            if d.get("conditional"):
                # reached on one fork of a condition not known statically: a possible exit, not a certain one
                out.append(
                    R.SH023.finding(
                        f"`{d['command']}` fails (status {d['status']}) and `set -e` is on: the script exits "
                        f"here if it gets this far, which depends on {d['conditional']}",
                        at=e.at,
                        severity="info",
                        evidence=[Evidence("shell", e.at, d["command"])],
                    )
                )
                continue
            out.append(
                R.SH023.finding(
                    f"`{d['command']}` fails (status {d['status']}) and `set -e` is on: the script "
                    "exits here",
                    at=e.at,
                    evidence=[Evidence("shell", e.at, d["command"])],
                )
            )
        elif e.kind == "param_error" and d.get("caller"):
            out.append(
                R.SH023.finding(
                    f"`{d['raw']}` requires ${d['name']} of the script's caller, and it is not set in the "
                    f"environment argtrace was given: where the caller does not set it either, bash prints "
                    f"`{d['message']}` and the script exits here; checked with its value unknown "
                    f"(pass `--env {d['name']}=...` to check with the caller's value)",
                    at=e.at,
                    severity="info",
                    basis="assumed",
                    evidence=[Evidence("shell", e.at, d["raw"])],
                )
            )
        elif e.kind == "param_error":
            out.append(
                R.SH023.finding(
                    f"`{d['raw']}` is unset or empty: bash prints `{d['message']}` and the script exits here",
                    at=e.at,
                    evidence=[Evidence("shell", e.at, d["raw"])],
                )
            )
        elif e.kind == "source_loop":
            chain = " -> ".join(d["chain"])
            out.append(
                R.SH016.finding(
                    f"`source {d['file']}` closes a loop ({chain}): bash would recurse "
                    "until it fails; argtrace stops here",
                    at=e.at,
                    evidence=[Evidence("shell", e.at, f"source {d['file']}")],
                )
            )
        elif e.kind == "source_missing" and d.get("guarded"):
            out.append(
                R.SH017.finding(
                    f"`source {d['file']}`: the file is not on this machine, and the script reads it only "
                    "where a test finds it, so what it sets is not known here"
                    + _read_as_set_by_it(ev, first_unread),
                    at=e.at,
                    severity="info",
                    evidence=[Evidence("shell", e.at, d["file"])],
                    fix=(
                        "Check with the values the file sets where the script runs: `argtrace check --env "
                        "NAME=VALUE ...` for each variable the launch reads from it."
                    ),
                )
            )
        elif e.kind == "source_missing" and not d.get("near_script"):
            out.append(
                R.SH017.finding(
                    f"`source {d['file']}`: the file does not exist on this machine; if it does not exist "
                    "where the script runs either, bash reports an error and "
                    + (
                        "the script exits there (`set -e`)"
                        if d.get("errexit")
                        else "continues without what it would set"
                    )
                    + _read_as_set_by_it(ev, first_unread),
                    at=e.at,
                    severity="info",
                    evidence=[Evidence("shell", e.at, d["file"])],
                    # not a wrong directory (the rule's fix): no such file here at all, often an env file kept
                    # out of the repository and sourced beside the script (`"$(dirname "$0")/.env"`)
                    fix=(
                        "Check with the values the file sets where the script runs: `argtrace check --env "
                        "NAME=VALUE ...` for each variable the launch reads from it."
                    ),
                )
            )
        elif e.kind == "source_missing":
            out.append(
                R.SH017.finding(
                    f"`source {d['file']}`: bash looks for it in the current directory ({d.get('cwd')}), not "
                    f"in the script's directory, where it is ({d['near_script']}): the script works only "
                    "when started from its own directory; elsewhere bash reports an error and continues "
                    "without what the file sets",
                    at=e.at,
                    evidence=[Evidence("shell", e.at, d["file"])],
                )
            )
        elif e.kind == "source_unknown":
            out.append(
                R.SH018.finding(
                    f"`source {d.get('raw')}` reads a file whose name is not known statically "
                    f"({d.get('reason')}): what "
                    "it sets is not followed" + _read_as_set_by_it(ev, first_unread),
                    at=e.at,
                )
            )
        elif e.kind == "eval_unknown":
            out.append(
                R.SH018.finding(
                    f"`eval` runs a string that is not known statically ({d.get('reason')}): "
                    f"commands inside it are "
                    "not followed" + _read_as_set_by_it(ev, first_unread),
                    at=e.at,
                )
            )
        elif e.kind == "unknown_declare":
            out.append(
                R.SH018.finding(
                    f"`{d['cmd']} {d['raw']}`: a word that is not known statically ({d.get('reason')}): "
                    "the variables it sets are not followed" + _read_as_set_by_it(ev, first_unread),
                    at=e.at,
                )
            )
        elif e.kind == "alias_unknown":
            out.append(
                R.SH018.finding(
                    f"the alias `{d.get('name')}` is not known statically (defined differently on forks of "
                    "an unknown condition, or more than one simple command): the command it starts is not "
                    "followed",
                    at=e.at,
                )
            )
        elif e.kind == "return_outside_function" and not d.get("quiet"):
            out.append(
                R.SH051.finding(
                    f"`return` at {e.at} is outside a function: bash refuses it here (\"can only `return' "
                    'from a function or sourced script", status 2) and the script goes on with the next '
                    "command instead of ending",
                    at=e.at,
                )
            )
        elif e.kind == "alias_not_expanded" and runs_under_bash(ev):
            name = d.get("name")
            out.append(
                R.SH031.finding(
                    f"`{name}` is an alias, but bash expands aliases in a script only after `shopt -s "
                    f"expand_aliases`: it runs a program named `{name}` instead (command not found unless "
                    "the node has one), and what the alias names never starts",
                    at=e.at,
                    basis="assumed",
                )
            )
        elif e.kind in ("env_line_runs_word", "caller_env_replaced"):
            out.append(lost_value_finding(e.kind, e.at, d))
        elif e.kind == "sbatch_wrap_args":
            from argtrace.rules.wrappers import SH050

            shown = " ".join(d["words"][:4]) + (" ..." if len(d["words"]) > 4 else "")
            out.append(
                SH050.finding(
                    f"`sbatch --wrap={d['wrap']}` is followed by more words ({shown}): sbatch reads them as "
                    "a batch script's arguments and refuses the job (\"Script arguments not permitted with "
                    '--wrap option"), so nothing is submitted and the server never starts',
                    at=e.at,
                )
            )
        elif e.kind == "srun_export":
            from argtrace.rules.multinode import PA_EXPORT_DROPS

            names = ", ".join(f"${n}" for n in d["names"])
            out.append(
                PA_EXPORT_DROPS.finding(
                    f"srun {d['export']} keeps {names} from the tasks, but each task's shell reads it: "
                    "there it is unset (empty)",
                    at=e.at,
                    setting=d["names"][0],
                )
            )
        elif e.kind == "systemd_run_unset":
            import dataclasses

            from argtrace.model import Assumption
            from argtrace.rules.wrappers import SH049

            flag = d.get("flag")
            if d["vanished"]:
                happens = f"the word vanishes{f' and `{flag}` loses its value' if flag else ''}"
            else:
                happens = f"`{flag}` gets an empty value" if flag else "the word becomes empty"
            finding = SH049.finding(
                f"`{d['word']}` reaches systemd-run as written, and the service manager substitutes it "
                f"from the transient service's environment, where {d['name']} is not set (systemd-run "
                f"gives the service --setenv/-p Environment= values, not the caller's variables): "
                f"{happens}",
                at=e.at,
                evidence=[Evidence("shell", e.at, f"{flag or ''} {d['word']}".strip())],
                basis="assumed",
                fix=(
                    f"Pass the value with `--setenv={d['name']}=VALUE` (or `-E {d['name']}` to copy the "
                    "caller's), or let the caller's shell expand it (double quotes)."
                ),
            )
            assumed = Assumption(
                "environment",
                f"{d['name']} is not set in the service manager's own environment",
                f"--setenv={d['name']}=VALUE on the systemd-run line",
            )
            out.append(dataclasses.replace(finding, assumptions=(assumed,)))
        elif e.kind == "srun_export_ignored":
            from argtrace.rules.multinode import PA_EXPORT_IGNORED

            out.append(
                PA_EXPORT_IGNORED.finding(
                    f"the batch shell exports {d['name']}={d['value']} and srun {d['export']} keeps the "
                    f"caller's value (ALL wins over the assignment): the tasks get {d['value']}, not "
                    f"{d['text']}",
                    at=e.at,
                    setting=d["name"],
                )
            )
        elif e.kind == "envsubst_unexported":
            import dataclasses

            from argtrace.model import Assumption

            name, set_at = d["name"], d.get("set_at")
            finding = R.SH054.finding(
                f"envsubst replaces ${name} by nothing: the script sets {name}"
                + (f" ({d['value']!r})" if d.get("value") is not None else "")
                + (f" at {set_at}" if set_at else "")
                + " without exporting it, and envsubst reads only its environment (GNU gettext manual, "
                '"envsubst Invocation": an unset variable becomes the empty string)',
                at=e.at,
                setting=name,
                evidence=[Evidence("shell", set_at or e.at, f"{name}=... (not exported)")],
                basis="assumed",
                fix=f"Export it before envsubst runs (`export {name}`), or give it on the command: "
                f'`{name}="${name}" envsubst ...`.',
            )
            assumed = Assumption(
                "environment",
                f"{name} is not in the environment the script starts with (an exported one would keep "
                "its export attribute)",
                f"--env {name}=VALUE",
            )
            out.append(dataclasses.replace(finding, assumptions=(assumed,)))
        elif e.kind == "budget":
            out.append(
                R.SH029.finding(
                    f"argtrace stopped evaluating at {e.at or label} after {d.get('steps')} steps (its "
                    + (f"budget of {d['bytes']:,} expanded bytes" if d.get("bytes") else "evaluation budget")
                    + "); what comes after is not followed",
                    at=e.at or label,
                )
            )
        elif e.kind in ("recursion", "loop_limit", "loop_servers"):
            what = {
                "recursion": f"the nesting limit ({d.get('name')})",
                "loop_limit": f"the loop limit ({d.get('limit')} iterations)",
                "loop_servers": f"the limit of {d.get('limit')} different servers started by one command "
                "in a loop (the rest are folded into the last one)",
            }[e.kind]
            out.append(
                R.SH024.finding(
                    f"argtrace reached {what}; values after this point may be incomplete", at=e.at or label
                )
            )
    return out
