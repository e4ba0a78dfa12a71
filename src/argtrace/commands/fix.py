"""``argtrace fix [OPTIONS] SCRIPT [ARGS...]``, ``fix -c COMMAND``, and manifests: the verified edits as a
unified diff (``patch -p0`` applies it from the current directory), or written in place with ``--write``.

Exit status: 0 nothing to fix, 1 fixes printed or written, 2 usage errors.
"""

from __future__ import annotations

import argparse

from argtrace.commands import check as check_command

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TextIO

    from argtrace.check import CheckOptions
    from argtrace.fixes.diff import Plan
    from argtrace.fixes.edits import SourceFile
    from argtrace.model import EnvEdit, FixEdit, Report

NAME = "fix"
HELP = "print (or write) the edits that fix a launch script's findings, each verified by re-checking"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    check_command.add_arguments(parser)  # the same inputs and options as check, re-checked with them
    parser.usage = (
        "argtrace fix [OPTIONS] SCRIPT [SCRIPT_ARGS...]\n"
        "       argtrace fix [OPTIONS] -c COMMAND [-- ARG0 ARGS...]"
    )
    parser.add_argument(
        "--write", action="store_true", help="apply the edits in place, keeping the old file as FILE.orig"
    )
    parser.add_argument(
        "--unverified",
        action="store_true",
        help="also apply edits whose re-check did not prove them (listed, not applied, by default)",
    )


split_argv = check_command.split_argv
apply_rest = check_command.apply_rest


def run(args: argparse.Namespace) -> int:
    import sys
    from dataclasses import replace

    from argtrace.check import COMMAND_LABEL, CheckOptions, run_check
    from argtrace.fixes.apply import shell_lines
    from argtrace.fixes.attach import all_sources, attach_fixes
    from argtrace.fixes.diff import new_texts, plan, unified_diff, write_in_place
    from argtrace.model import UsageError

    if args.write and getattr(args, "host", None):
        # the files are the node's: a diff can be applied there, this machine's copy is not the launch's
        raise UsageError("--write edits files here; with --host, apply the printed diff on the node")
    options = CheckOptions.from_args(args)
    report = attach_fixes(run_check(options), options)
    sources = all_sources(options, report)
    fix_plan = plan(report.findings, sources, unverified=args.unverified)
    texts = new_texts(fix_plan, sources)
    written: list[str] = []
    diff = ""
    command = texts.get(COMMAND_LABEL)
    # the files edited: the script or manifest, and the env and --config files the launch reads (with -c,
    # those only: the fixed command is printed)
    files = replace(fix_plan, edits={k: v for k, v in fix_plan.edits.items() if k != COMMAND_LABEL})
    if args.write and files.edits:
        written = write_in_place(files, sources)
    elif files.edits:
        diff = unified_diff(files, sources)
    if not args.show_secrets:
        from argtrace.render.json import to_dict
        from argtrace.render.redaction import learn_report_secrets

        learn_report_secrets(to_dict(report))  # the diff's lines are masked by the values the report names
    if not args.show_secrets and diff:
        from argtrace.fixes.diff import diff_without_secrets
        from argtrace.redact import run_redactor

        # a secret in a context line only: fewer context lines keep the printed diff applicable (the
        # JSON section's too)
        if run_redactor().text(diff) != diff:
            diff = diff_without_secrets(files, sources, run_redactor().text) or diff
    # environment changes (a variable the launch inherits from --env or the caller): shell lines after
    # the diff, for the shell the launch is started from; never written into a file
    shell = "".join(line + "\n" for line in shell_lines(fix_plan.environment))
    if args.format == "json":
        from argtrace.render import render_report

        report.sections["fix"] = {
            "diff": diff,
            "command": command,
            "written": written,
            "environment": [{"env": e.env, "value": e.value} for e in fix_plan.environment],
            "shell": shell,
            "applied": [f.code + (f" {f.at}" if f.at else "") for f in fix_plan.applied],
            "not_applied": [
                {"code": f.code, "at": f.at, "why": why, "fix": f.fix} for f, why in fix_plan.skipped
            ],
        }
        sys.stdout.write(render_report(report, fmt="json", show_secrets=args.show_secrets))
    else:
        out = diff + ("" if command is None else command + "\n") + shell
        if not args.show_secrets and out:
            from argtrace.redact import run_redactor

            hide = run_redactor().text
            if hide(diff) != diff:
                print(
                    "argtrace fix: secrets are shown as <redacted:...>, so this diff does not apply as "
                    "printed: use --write, or --show-secrets",
                    file=sys.stderr,
                )
            rest = out[len(diff) :]
            if hide(rest) != rest:
                # a -c command and the shell lines are printed, never written: --write cannot help
                printed = "the fixed command does" if command is not None else "the shell lines do"
                print(
                    f"argtrace fix: secrets are shown as <redacted:...>, so {printed} not run as printed: "
                    "use --show-secrets",
                    file=sys.stderr,
                )
            out = hide(out)
        sys.stdout.write(out)
        _summary(report, fix_plan, written, sys.stderr)
        if len({f.fix_edits for f in fix_plan.applied}) > 1:
            _together(report, options, sources, fix_plan, sys.stderr)
    return 1 if (diff or written or command is not None or shell) else 0


def _summary(report: Report, fix_plan: Plan, written: list[str], stream: TextIO) -> None:
    """What was fixed, what was left out and why, and the findings no edit can fix (on stderr, so that
    standard output stays a patch)."""
    lines: list[str] = []
    for finding in fix_plan.applied:
        lines.append(f"fixed: {finding.code} {finding.at or ''}: {finding.fix}")
    for finding, why in fix_plan.skipped:
        lines.append(f"not applied ({why}): {finding.code} {finding.at or ''}: {finding.fix}")
    for finding in report.findings:
        if finding.severity in ("error", "warning") and not finding.fix_edits and finding.fix:
            lines.append(f"no edit: {finding.code} {finding.at or ''}: {finding.fix}")
    for name in written:
        lines.append(f"wrote {name} (the old file is {name}.orig)")
    if lines:
        print("\n".join(lines), file=stream)


def _together(
    report: Report, options: CheckOptions, sources: Mapping[str, SourceFile], fix_plan: Plan, stream: TextIO
) -> None:
    """Each fix was proven alone; several at once are re-checked once more, and what is left is said."""
    from argtrace.fixes.verify import VERIFIED_SEVERITIES, Rechecker

    every: list[FixEdit | EnvEdit] = [e for edits in fix_plan.edits.values() for e in edits]
    every += fix_plan.environment
    after = Rechecker(options, sources).recheck(every)
    if after is None:
        print("re-check of all edits together: the edited launch cannot be analysed", file=stream)
        return
    left = [f for f in after.findings if f.severity in VERIFIED_SEVERITIES]
    codes = ", ".join(dict.fromkeys(f"{f.code} ({f.severity})" for f in left))
    left_text = f"{len(left)} error(s)/warning(s) left" + (f": {codes}" if codes else "")
    print(f"re-check of all edits together: {left_text}", file=stream)
