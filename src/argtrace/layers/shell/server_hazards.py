"""Findings about one server command the script starts: its words (positional arguments that were
never given, variables left unset, operators passed as words), its output (a log another server also
writes), and how the run reached it. ``analysis`` calls ``server_findings`` once per server."""

from __future__ import annotations

import re

from argtrace.layers.shell import evaluate as E
from argtrace.layers.shell.vanished import vanished_after_flags
from argtrace.model import Evidence, Finding, ServerCommand
from argtrace.rules import shell as R


def show_word(text: str | None) -> str:
    """A word as people should see it: control characters made visible."""
    if text is None:
        return "<unknown>"
    if text == "":
        return "''"
    out = text.replace("\r", "\\r").replace("\t", "\\t").replace("\n", "\\n")
    if out != text or " " in text:
        return "$'" + out.replace("'", "\\'") + "'" if out != text else "'" + text + "'"
    return out


def server_outputs(s: E.FoundServer) -> dict[str, str | None]:
    fds: dict[str, str | None] = {"1": None, "2": None}  # None: inherited (terminal or the caller's)
    modes: dict[str, str] = {}
    for fd, op, tgt, _at in [*s.inherited_redirects, *s.redirects]:
        _apply_redirect(fds, modes, fd, op, tgt)
    if s.in_pipeline and fds["1"] is None:
        fds["1"] = "|pipe"
    return {
        "stdout": fds["1"],
        "stderr": fds["2"],
        "stdout_mode": modes.get("1"),
        "stderr_mode": modes.get("2"),
    }


def is_stream(target: str) -> bool:
    """A device or another process's descriptor (`/dev/stdout`, `/proc/1/fd/1`: a container's log stream),
    not a file `>` empties: nothing written there before is lost."""
    return target.startswith("/dev/") or re.match(r"^/proc/(?:\d+|self)/fd/\d+$", target) is not None


def _apply_redirect(
    fds: dict[str, str | None], modes: dict[str, str], fd: str | None, op: str, tgt: str | None
) -> None:
    target = E.to_str(tgt) if tgt is not None else "<unknown>"
    if op in (">", ">>", ">|"):
        k = fd or "1"
        fds[k] = target
        modes[k] = op
    elif op in ("&>", "&>>"):
        fds["1"] = fds["2"] = target
        modes["1"] = modes["2"] = ">" if op == "&>" else ">>"
    elif op == ">&":
        k = fd or "1"
        if tgt is not None and tgt.isdigit():
            fds[k] = fds.get(tgt)
            modes[k] = modes.get(tgt, "")
        elif tgt == "-":
            fds[k] = "<closed>"
        else:
            fds["1"] = fds["2"] = target
            modes["1"] = modes["2"] = ">"


_OPERATOR_WORD = re.compile(r"\d?>>?(&\d)?|&>>?|<|\||\|\||&&|&|;|2>&1|1>&2|>&2")


_POSITIONAL = re.compile(r"^\"?\$\{?([1-9][0-9]*)\}?\"?$")


_NAMED_VARIABLE = re.compile(r"^\"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?\"?$")


def runs_under_bash(ev: E.ShellEvaluator) -> bool:
    """The script's first line names bash (`#!/bin/bash`, `#!/usr/bin/env bash`): `sh` (POSIX mode) would
    expand aliases without `shopt -s expand_aliases`."""
    return ev.bash_shebang()


def ended_early(ev: E.ShellEvaluator, args: list[str]) -> str:
    """Why the run stopped early, when an ``exit`` ended it (a usage check that fails without arguments)."""
    if ev.ended_by is None or ev.ended_by[0] is None:
        return ""
    where, status = ev.ended_by
    plural = "s" if len(args) != 1 else ""
    shown = f" with status {status}" if status is not None else ""
    return f": it stops at {where}{shown} (given {len(args)} argument{plural})"


def server_findings(
    label: str, s: E.FoundServer, cmd: ServerCommand, ev: E.ShellEvaluator, args: list[str]
) -> list[Finding]:
    out: list[Finding] = []
    argv = s.argv
    start = s.detection.server_args_start
    nargs = len(args)
    plural = "s" if nargs != 1 else ""

    def txt(i: int) -> str | None:
        t = argv[i].text if 0 <= i < len(argv) else None
        return E.to_str(t) if t is not None else None

    out.extend(vanished_after_flags(cmd, nargs))
    # empty quoted values after a flag
    for i in range(start, len(argv)):
        w = argv[i]
        if w.text != "" or w.expansion == "literal" or w.expansion.startswith("systemd-run: "):
            continue  # systemd-run's own substitution emptied it: SH049 says why
        prev = txt(i - 1)
        if prev is None or not prev.startswith("-") or "=" in prev or i - 1 < start:
            continue
        m = _POSITIONAL.match(w.expansion)
        if m and int(m.group(1)) > nargs:
            why = f"`{w.expansion}` is unset (the script got {nargs} argument{plural})"
            out.append(
                R.SH007.finding(
                    f"{why}: `{prev}` gets an empty value",
                    at=w.at,
                    evidence=[Evidence("shell", w.at, f"{prev} {w.expansion}")],
                )
            )
        else:
            named = _NAMED_VARIABLE.match(w.expansion)
            unset = named is not None and ev.get_param(named.group(1))[0] == "unset"
            caller = named is not None and unset
            why = (
                f"`{w.expansion}` is not set in the environment argtrace was given (if the caller sets it, "
                f"pass `--env {named.group(1)}=...`)"
                if named is not None and unset
                else f"`{w.expansion}` is empty"
            )
            out.append(
                R.SH026.finding(
                    f"{why}: `{prev}` gets an empty value",
                    at=w.at,
                    evidence=[Evidence("shell", w.at, f"{prev} {w.expansion}")],
                    severity="warning" if caller else None,
                    basis="assumed" if caller else None,
                )
            )
    # `--flag=$2` with $2 unset/empty
    for i in range(start, len(argv)):
        w = argv[i]
        t = txt(i)
        if t is None or not t.startswith("--") or not t.endswith("=") or w.expansion == "literal":
            continue
        # `--port=$PORT` rests on what `--port "$PORT"` rests on: a caller's variable not set here, or a
        # script argument check was not given, is an assumption (warning), not a certainty
        value = w.expansion[len(t) :] if w.expansion.startswith(t) else ""
        m = _POSITIONAL.match(value)
        named = _NAMED_VARIABLE.match(value)
        caller = named is not None and ev.get_param(named.group(1))[0] == "unset"
        if m and int(m.group(1)) > nargs:
            # as `--port $2`: the invocation's arguments decide (verdicts.settle: assumed when none given)
            why = (
                f"`{value}` is unset (the script got {nargs} argument{plural}), so `{w.expansion}` "
                "expands to "
            )
        elif caller and named is not None:
            why = (
                f"`{value}` is not set in the environment argtrace was given (if the caller sets it, pass "
                f"`--env {named.group(1)}=...`), so `{w.expansion}` expands to "
            )
        else:
            why = f"`{w.expansion}` expands to "
        out.append(
            R.SH007.finding(
                f"{why}`{t}`: the flag gets an empty value",
                at=w.at,
                evidence=[Evidence("shell", w.at, w.expansion)],
                severity="warning" if caller else None,
                basis="assumed" if caller else None,
            )
        )
    # unquoted expansions that split a value
    i = start
    while i < len(argv):
        w = argv[i]
        if w.split_from is None:
            i += 1
            continue
        j = i
        while j + 1 < len(argv) and argv[j + 1].split_from == w.split_from and argv[j + 1].at == w.at:
            j += 1
        group = [txt(k) for k in range(i, j + 1)]
        prev = txt(i - 1)
        if re.search(r"\$\{?[@*]|\[[@*]\]", w.split_from):
            i = j + 1
            continue  # a list expansion ($@, $*, ${arr[@]}): several words are the point
        flags_only = all(g is not None and g.startswith("-") for g in group[:1]) or (
            group and group[0] is not None and group[0].startswith("-")
        )
        if (
            prev is not None
            and prev.startswith("-")
            and "=" not in prev
            and i - 1 >= start
            and not flags_only
        ):
            pieces = ", ".join(f"`{show_word(g)}`" for g in group[:4])
            out.append(
                R.SH008.finding(
                    f"`{w.split_from}` is unquoted and splits into {len(group)} words ({pieces}): "
                    f"`{prev}` gets only "
                    f"`{show_word(group[0])}`",
                    at=w.at,
                    evidence=[Evidence("shell", w.at, f"{prev} {w.split_from}")],
                )
            )
        i = j + 1
    # shell operators that arrived as words (a command kept in a string: `CMD="... > log 2>&1"; $CMD`)
    for k in range(start, len(argv)):
        w = argv[k]
        t = txt(k)
        if t is None or w.expansion == "literal" or not _OPERATOR_WORD.fullmatch(t):
            continue
        out.append(
            R.SH028.finding(
                f"`{t}` comes from the expansion `{w.expansion}`, so bash passes it to the server as an "
                "argument instead of treating it as a redirection or operator",
                at=w.at,
                evidence=[Evidence("shell", w.at, w.expansion)],
            )
        )
    # unknown words, globs, braces
    brace_events = ev.brace_events()
    for k, w in enumerate(argv):
        if w.text is None:
            reason = w.reason or "not known statically"
            if reason.startswith("pathname expansion"):
                out.append(
                    R.SH021.finding(
                        f"argument {k} of the server: {reason}",
                        at=w.at,
                        evidence=[Evidence("shell", w.at, w.expansion)],
                    )
                )
            else:
                out.append(
                    R.SH018.finding(
                        f"argument {k} of the server (`{w.expansion}`) is not known statically: {reason}",
                        at=w.at,
                        evidence=[Evidence("shell", w.at, w.expansion)],
                    )
                )
    word_ats = {w.at for w in argv}
    for e in brace_events:
        if e.at in word_ats:
            jsonish = any(ch in e.data["raw"] for ch in "\"':")
            out.append(
                R.SH022.finding(
                    severity="error" if jsonish else "info",
                    message=f"brace expansion turns the unquoted `{e.data['raw']}` into "
                    f"{len(e.data['words'])} words: " + ", ".join(f"`{x}`" for x in e.data["words"][:4]),
                    at=e.at,
                    evidence=[Evidence("shell", e.at, e.data["raw"])],
                )
            )
    # output redirections
    outs = server_outputs(s)
    so, se = outs["stdout"], outs["stderr"]
    if so is not None and so.startswith("-"):
        so = None  # `<path> --flag`: a placeholder redirected into a flag-named file (SH005 explains it)
    if (
        so is not None
        and so not in ("|pipe", "<closed>", "/dev/null", "<unknown>")
        and not is_stream(so)
        and outs["stdout_mode"] == ">"
    ):
        out.append(
            R.SH009.finding(
                f"the server's output goes to `{so}` and `>` empties it at each start: an earlier "
                f"run's log is lost, and "
                "after an early failure it holds only the traceback",
                at=s.at,
                evidence=[Evidence("shell", s.at, f"> {so}")],
            )
        )
    if so is not None and so not in ("|pipe", "<closed>", "/dev/null") and se != so and not s.nohup:
        if se is None:
            order = [r for r in s.redirects if r[0] == "2" and r[1] == ">&"]
            if order:
                msg = (
                    f"`2>&1` comes before `> {so}`: standard error still goes where standard output "
                    f"went before "
                    f"(the terminal), not to `{so}`; tracebacks and log records will not be in `{so}`"
                )
            else:
                what = (
                    "SGLang's log records and Python's tracebacks go"
                    if s.detection.framework == "sglang"
                    else "Python's tracebacks (the error that stops the server) go"
                )
                msg = (
                    f"only standard output goes to `{so}`: {what} to standard error, which is not "
                    f"redirected, so they will not be in `{so}`"
                )
            out.append(R.SH010.finding(msg, at=s.at, evidence=[Evidence("shell", s.at, f"> {so}")]))
    # background
    if s.backgrounded and not ev.pid_kept and not ev.waited:
        how = "`nohup ... &`" if s.nohup else "`&`"
        out.append(
            R.SH011.finding(
                f"the server is started in the background ({how}) and the script keeps neither its "
                f"PID (`$!`) nor its "
                "exit status (`wait`): if it fails while loading, nothing reports it",
                at=s.at,
            )
        )
    if s.conditional:
        out.append(R.SH020.finding(f"this server command runs only depending on {s.conditional}", at=s.at))
    return out
