"""Runs the shell layer's pieces in order and turns what they saw into ``ServerCommand``s and findings."""

from __future__ import annotations

import functools
import gc
import re
import sys
from collections.abc import Callable, Mapping, Sequence

from argtrace.layers.shell import evaluate as E
from argtrace.layers.shell import hazards as H
from argtrace.layers.shell.event_findings import event_findings, missing_backslash_message
from argtrace.layers.shell.heredoc_lines import masked_bodies
from argtrace.layers.shell.lost import (
    assignment_as_program_findings,
    declared_server_findings,
    subcommand_findings,
)
from argtrace.layers.shell.result import ScriptSource, ShellResult
from argtrace.layers.shell.server_hazards import (
    ended_early,
    is_stream,
    server_findings,
    server_outputs,
    show_word,
)
from argtrace.layers.shell.syntax import parse_tree, start_bash_syntax_check
from argtrace.model import EnvValue, Evidence, Finding, Origin, ServerCommand, VanishedWord, Word
from argtrace.rules import shell as R

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ParamSpec, TypeVar

    P = ParamSpec("P")
    T = TypeVar("T")

SHELLCHECK_MAX = 32 * 1024  # shellcheck.MAX_BYTES: about a second of shellcheck (issue 18)


def _without_cyclic_gc(fn: Callable[P, T]) -> Callable[P, T]:
    """``fn`` run with the cyclic GC off (and back on after, if it was)."""

    # the analysis makes many small acyclic objects: with the cyclic GC on, each collection walks all of
    # them, which makes big scripts quadratic
    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        gc_was_on = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if gc_was_on:
                _age_young_objects()
                gc.enable()

    return run


def _age_young_objects() -> None:
    """Move every object the analysis left in the young generation to the oldest one, without a scan.

    With the collector off, everything the analysis made and kept stays young: the next allocation after
    ``gc.enable()`` set off one young collection that walked all of it (a 1 MB script's tree and results:
    40-70 ms, 5% of its check, issue 18), only to promote it. ``freeze`` then ``unfreeze`` moves the
    generations' lists to the oldest one in O(1); a garbage cycle among them is still found by the next full
    collection. Skipped when objects are frozen already (a warm process's start-up, argtrace/warm/):
    ``unfreeze`` would give those back to the collector.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


@_without_cyclic_gc
def analyze(
    source: ScriptSource,
    args: list[str],
    env: dict[str, str],
    *,
    arg0: str,
    run_shellcheck: bool,
    cwd: str | None,
    unknown_env: Mapping[str, str] | None = None,
    args_unknown: str | None = None,
) -> ShellResult:
    label = source.label
    data = source.data
    findings: list[Finding] = []
    # shellcheck runs beside the analysis below (its opinion is folded in at the end)
    pending = None
    if run_shellcheck and len(data) <= SHELLCHECK_MAX and b"\x00" not in data:
        from argtrace.layers.shell.shellcheck import start_shellcheck

        # a file whose last line ends with `\` and no newline: bash reads the backslash as continuing the
        # line to the end of the file, and drops it (`'{...}'\` is the word `{...}`); shellcheck stops there
        # with SC1073/SC1072 ("Couldn't parse this escaped char"). Given the same text with its newline, it
        # reads the script as bash runs it; the line numbers stay the file's.
        odd = (len(data) - len(data.rstrip(b"\\"))) % 2 == 1
        pending = start_shellcheck(data + b"\n" if odd else data)
    # ---- binary
    if b"\x00" in data:
        first_nl = data.find(b"\n")
        first_line = data if first_nl < 0 else data[:first_nl]
        if b"\x00" in first_line[:80] or b"\x00" in data[:80]:
            findings.append(
                R.SH013.finding(
                    f"{label} is a binary file (it contains NUL bytes): bash refuses to run it "
                    "(`cannot execute binary file`)",
                    at=f"{label}:1",
                    evidence=[Evidence("shell", f"{label}:1", repr(data[:40])[2:-1])],
                )
            )
            return ShellResult(servers=[], findings=findings, syntax_ok=False)
        data = data.replace(b"\x00", b"")
    # bash -n runs beside the evaluation too (its findings are put first, where they always were)
    syntax = start_bash_syntax_check(data, label)
    text = data.decode("latin-1")
    prepared = E.prepare_text(text)
    blanked: list[tuple[int, int]] = []
    tree = parse_tree(prepared, blanked)
    if blanked:
        findings.append(_unread_lines(label, blanked))
    # ---- evaluation
    src = E.Source(label, prepared, str(source.path) if source.path else None)
    src.tree = tree
    ev, exit_reason = _evaluate(src, args, env, arg0, cwd, unknown_env, args_unknown, findings)
    # A script that exits before its server start because a variable it does not set is not set here
    # (`[ -z "$HF_TOKEN" ] && exit 1`): on the node it is set, so read the script again with those
    # variables set to unknown values, and say so (SH046), rather than "no server start" (SH019).
    guard = _caller_guard(ev, env, unknown_env)
    if guard:
        why = "not set where argtrace runs; the script exits without it, so it is read as set (value unknown)"
        again_findings: list[Finding] = []
        unknown = {**(unknown_env or {}), **dict.fromkeys(guard, why)}
        again, again_reason = _evaluate(src, args, env, arg0, cwd, unknown, args_unknown, again_findings)
        # guards one after another (`[ -z "$MODEL_LIST" ] && exit 1`, then `[ ! -d "$MODEL_DIR" ] && exit 1`,
        # vllm_deployer's run.sh after sourcing its .env): the run past the first stops at the next, on a
        # variable it had not reached; each is the caller's as well (bounded: a few guards, not a search)
        for _ in range(4):
            further = _caller_guard(again, env, unknown)
            if not further:
                break
            guard = [*guard, *further]
            unknown = {**unknown, **dict.fromkeys(further, why)}
            again_findings = []
            again, again_reason = _evaluate(src, args, env, arg0, cwd, unknown, args_unknown, again_findings)
        # past the guard the script reads more of the same caller's environment (a platform that sets
        # NODE_WORKER_HOSTS sets NODE_WORKER_0_HOST too): those are unknown as well, not unset
        more = _unset_reads(again, env, unknown)
        if again.servers and more:
            why_more = "read from the caller's environment, like the variables the script stops without"
            unknown = {**unknown, **dict.fromkeys(more, why_more)}
            again_findings = []
            again, again_reason = _evaluate(src, args, env, arg0, cwd, unknown, args_unknown, again_findings)
        if again.servers:
            from argtrace.rules.wrappers import SH046

            exited = bool(ev.ended_by and ev.ended_by[0] and ev.ended_by[1])
            where = (ev.ended_by[0] if exited and ev.ended_by else None) or "`exit`"  # "`exit` at F:L:C"
            names = ", ".join(f"${n}" for n in guard)
            findings.extend(again_findings)
            findings.append(
                SH046.finding(
                    (
                        f"{label} stops at {where} when {names} "
                        if exited
                        else f"{label} starts no server when {names} "
                    )
                    + ("is" if len(guard) == 1 else "are")
                    + " not set, as where argtrace runs: its server start is read as if "
                    + ("it were" if len(guard) == 1 else "they were")
                    + " set where the script runs (value unknown)",
                    at=where.rsplit(" at ", 1)[-1] if exited and " at " in where else label,
                    basis="assumed",
                )
            )
            ev, exit_reason = again, again_reason
    # The same for the script's own arguments: `[[ $# -lt 3 ]] && { echo usage; exit 2; }` stops a script
    # given none (check was given none after the file); its user runs it with them, so read it again with
    # $1, $@, $# unknown, as `argtrace lint` reads every script, and say so (SH046)
    if _argument_guard(ev, args, args_unknown):
        why_args = "not given to check; the script exits without them"
        args_findings: list[Finding] = []
        again, again_reason = _evaluate(src, args, env, arg0, cwd, unknown_env, why_args, args_findings)
        if again.servers:
            from argtrace.rules.wrappers import SH046

            exited = bool(ev.ended_by and ev.ended_by[0] and ev.ended_by[1])
            where = (ev.ended_by[0] if exited and ev.ended_by else None) or "`exit`"
            findings.extend(args_findings)
            findings.append(
                SH046.finding(
                    (f"{label} stops at {where}" if exited else f"{label} starts no server")
                    + " when it is given no arguments, as here: its server start is "
                    "read as if it were given the arguments it expects (values unknown); pass them after the "
                    "file (`argtrace check FILE ARG...`) to check the launch as it is run",
                    at=where.rsplit(" at ", 1)[-1] if exited and " at " in where else label,
                    basis="assumed",
                )
            )
            ev, exit_reason = again, again_reason
    # A script that sources a file argtrace cannot read (`source ./.env` with no .env here, `. "$CONF"`)
    # and then reads variables it never sets: where the script runs that file may set them, so they are read
    # as set (value unknown) rather than empty, and the SH017/SH018 note on the `source` says so; one read
    # with a default of the script's own (`${PORT:-30000}`) keeps it, as bash does without the file
    late = _read_after_unread_source(ev, env, unknown_env)
    if late:
        sourced, what = ev.unread_sources[0]
        why_late = f"not set here; read after `{sourced}`, {what}, which may set it"
        late_findings: list[Finding] = []
        unknown_late = {**(unknown_env or {}), **dict.fromkeys(late, why_late)}
        again, again_reason = _evaluate(src, args, env, arg0, cwd, unknown_late, args_unknown, late_findings)
        if again.servers:
            findings.extend(late_findings)
            again.read_after_unread_source = late
            ev, exit_reason = again, again_reason
    # ---- syntax (bash -n)
    syntax_ok = True
    problems = syntax.result()
    if problems:
        syntax_ok = False
        syntax_findings: list[Finding] = []
        for p in problems[:5]:
            at = f"{label}:{p.line}" if p.line else label
            line_text = ""
            if p.line:
                lines = data.split(b"\n")
                if 0 < p.line <= len(lines):
                    line_text = lines[p.line - 1].decode("utf-8", "replace").rstrip("\r")
            syntax_findings.append(
                R.SH001.finding(
                    f"bash cannot parse {label}" + (f" (line {p.line})" if p.line else "") + f": {p.message}",
                    at=at,
                    evidence=[Evidence("shell", at, line_text or p.message)],
                )
            )
        findings[:0] = syntax_findings
    elif problems is None and tree.root_node.has_error:
        syntax_ok = False
    servers = [_server_command(s, frozenset(ev.read_names)) for s in ev.servers]
    # ---- hazards and findings
    hazards = H.scan(data, tree, masked_bodies(src.text))
    # a line that runs on its own because the continuation before it broke (CR or blank after the backslash)
    # is explained by SH002/SH003; SH004 ("missing backslash") would be wrong there
    broken_after: set[int] = set()
    for h in hazards:
        if h.kind == "crlf":
            broken_after.update(n + 1 for n in h.get("broken"))
        elif h.kind == "backslash_blank":
            broken_after.add(h.line + 1)
    ev.events = [
        e
        for e in ev.events
        if not (
            e.kind == "flag_as_command"
            and e.data.get("line") in broken_after
            and (e.at or "").startswith(f"{label}:")
        )
    ]
    findings.extend(_text_findings(label, hazards, ev, data, broken_after))
    findings.extend(event_findings(label, ev, args, data))
    for s, cmd in zip(ev.servers, servers, strict=True):
        findings.extend(server_findings(label, s, cmd, ev, args))
    findings.extend(_shared_logs(ev))
    unfollowed = _unfollowed_findings(ev)
    findings.extend(unfollowed)
    as_program = assignment_as_program_findings(ev)
    findings.extend(f for f, _server in as_program)
    declared = declared_server_findings(ev)
    findings.extend(declared)
    no_subcommand = subcommand_findings(ev)  # TP104: `sglang --model-path M`, the console without `serve`
    findings.extend(no_subcommand)
    if (
        not ev.servers
        and not unfollowed
        and not declared
        and not no_subcommand
        and not any(srv for _f, srv in as_program)
        and not _starts_router(ev)
        # sbatch refused a --wrap job whose server SH050 names: one cause, one finding
        and not any(e.kind == "sbatch_wrap_args" for e in ev.events)
    ):
        findings.append(
            R.SH019.finding(
                f"no SGLang or vLLM server start found in the commands {label} would run"
                f"{ended_early(ev, args)}{_unreadable_lines(ev)}",
                at=label,
            )
        )
    # ---- shellcheck
    if run_shellcheck:
        findings.extend(_shellcheck_findings(label, source.data, findings, pending, source.page))
    columns = _command_columns(ev.commands)
    return ShellResult(
        servers=servers,
        findings=_dedupe(findings),
        syntax_ok=syntax_ok,
        commands=columns[0],
        command_vanished=columns[1],
        command_paths=columns[2],
        command_dirs=columns[3],
        command_background=columns[4],
        command_io=columns[5],
        command_env=columns[6],
        command_holed=columns[7],
        conditions=[s.conditional for s in ev.servers],
        outputs=[server_outputs(s) for s in ev.servers],
        exit_reason=exit_reason,
    )


def _unread_lines(label: str, blanked: list[tuple[int, int]]) -> Finding:
    """SH056: the lines ``parse_tree`` read as blank (its read budget), one finding for them all; a negative
    number is where the parser still stopped early."""
    lines = [(n, size) for n, size in blanked if n > 0]
    stopped = [-n for n, _ in blanked if n < 0]
    said = ", ".join(f"line {n} ({size:,} characters)" for n, size in lines)
    parts = []
    if said:
        parts.append(f"{said} of {label} {'is' if len(lines) == 1 else 'are'} read as blank")
    if stopped:
        parts.append(f"{'the rest of ' if said else ''}{label} is read only as far as its parser got")
    message = (
        " and ".join(parts)
        + ": tree-sitter-bash's error recovery there takes time that grows with the square of the "
        "statement's length (minutes); what is not read is unknown here, though bash may run it"
    )
    at = f"{label}:{lines[0][0]}" if lines else label
    return R.SH056.finding(message, at=at, evidence=[Evidence("shell", at, said or "parse stopped early")])


def _unreadable_lines(ev: E.ShellEvaluator) -> str:
    """Where the script could not be read as bash reads it (``Control.unreadable``): a server started
    there may not have been seen."""
    lines = [str(e.data["lines"]) for e in ev.events if e.kind == "unreadable"]
    if not lines:
        return ""
    where = ", ".join(dict.fromkeys(lines))
    return f" (argtrace could not read {where} as bash does: a start there is not seen)"


def _command_columns(commands: list[E.PredictedCommand]) -> tuple[Any, ...]:
    """The ``ShellResult`` fields that hold one item per predicted command (``commands``, then
    ``command_vanished``, ``_paths``, ``_dirs``, ``_background``, ``_io``, ``_env``; then ``command_holed``,
    by number, for the few commands that have such words), made in one pass over
    the commands (seven list comprehensions over a 1 MB script's 6,700 commands each read every command
    again, issue 18); a command without vanished words gets the empty tuple without a generator."""
    texts: list[Any] = []
    vanished: list[Any] = []
    paths: list[Any] = []
    dirs: list[Any] = []
    background: list[Any] = []
    io: list[Any] = []
    env: list[Any] = []
    holed: dict[int, Any] = {}
    for c in commands:
        if c.holed:
            holed[len(texts)] = c.holed
        texts.append((c.at, list(c.texts), c.conditional))
        vanished.append(
            tuple(VanishedWord(v.index, v.raw, v.at, v.state, v.name, v.via) for v in c.vanished)
            if c.vanished
            else ()
        )
        paths.append(c.path)
        dirs.append((c.moved, c.cwd))
        background.append(c.background)
        io.append(c.io)
        env.append(c.env)
    return texts, vanished, paths, dirs, background, io, env, holed


def _evaluate(
    src: Any,
    args: list[str],
    env: dict[str, str],
    arg0: str,
    cwd: str | None,
    unknown_env: Mapping[str, str] | None,
    args_unknown: str | None,
    findings: list[Finding],
) -> tuple[Any, str | None]:
    """Run the evaluator over the script; an internal error is reported (SH024), never raised."""
    ev = E.ShellEvaluator(src, args, env, arg0=arg0, cwd=cwd, parse=parse_tree, unknown_env=unknown_env)
    if args_unknown is not None:  # argtrace lint: no arguments given, rather than none passed
        ev.positional, ev.positional_reason = None, args_unknown
    exit_reason: str | None = None
    limit = sys.getrecursionlimit()
    try:
        sys.setrecursionlimit(max(limit, 8000))  # deeply nested if/for/functions
        ev.run()
    except Exception as exc:  # never a traceback: report and keep what was found
        exit_reason = f"internal error while evaluating: {type(exc).__name__}: {exc}"
        findings.append(
            R.SH024.finding(f"argtrace stopped evaluating {src.label} early ({exit_reason})", at=src.label)
        )
    finally:
        sys.setrecursionlimit(limit)
    return ev, exit_reason


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _caller_guard(ev: Any, env: Mapping[str, str], unknown_env: Mapping[str, str] | None) -> list[str]:
    """The variables of the caller's environment a script read, found unset, and then exited on: the run
    found no server start and ended at an ``exit`` with a failing status, and these names were expanded but
    neither given (``env``, ``unknown_env``) nor set by the script. Empty when that is not the case."""
    if ev.servers:
        return []
    # an `exit` with a failing status, or no server start on any path at all (`if [[ "$ENGINE" == vllm ]];
    # then vllm serve ...; fi` with ENGINE unset here): either way the caller's variables decide it
    return _unset_reads(ev, env, unknown_env)


_POSITIONAL = frozenset({"#", "@", "*", *map(str, range(1, 10))})


def _argument_guard(ev: Any, args: Sequence[str], args_unknown: str | None) -> bool:
    """Whether a script given no arguments found no server start after reading its positional parameters
    (``$#``, ``$1``...): it stops, or starts nothing, for want of them."""
    if args or args_unknown is not None or ev.servers:
        return False
    return bool(_POSITIONAL & set(ev.read_names))


def _unset_reads(ev: Any, env: Mapping[str, str], unknown_env: Mapping[str, str] | None) -> list[str]:
    """The variables the run expanded that it neither started with (``env``, ``unknown_env``) nor set."""
    scope = ev.scopes[0]
    return sorted(
        n
        for n in ev.read_names
        if _NAME.fullmatch(n) and n not in env and n not in (unknown_env or {}) and n not in scope
    )


def _read_after_unread_source(
    ev: Any, env: Mapping[str, str], unknown_env: Mapping[str, str] | None
) -> list[str]:
    """The variables a run with a server start read unset after its first `source` of a file argtrace cannot
    read, and never set: that file may set them where the script runs. Positional and special parameters are
    the caller's, never the file's."""
    before = ev.read_before_unread_source
    if before is None or not ev.servers:
        return []
    return [n for n in _unset_reads(ev, env, unknown_env) if n not in before and n in ev.plain_read_names]


def _dedupe(findings: list[Finding]) -> list[Finding]:
    seen: set[tuple[str, str | None, str]] = set()
    out: list[Finding] = []
    for f in findings:
        key = (f.code, f.at, f.message)
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    return out


def _server_command(s: E.FoundServer, script_reads: frozenset[str] = frozenset()) -> ServerCommand:
    argv: list[Word] = []
    for w in s.argv:
        known = w.text is not None
        origin = _origin(w.at, w.expansion, known, None if known else w.reason)
        argv.append(_word(E.to_str(w.text) if w.text is not None else None, origin))
    env: dict[str, EnvValue] = {}
    for name, (value, at, expansion, reason) in sorted(s.env.items()):
        known = value is not None
        env[E.to_str(name)] = _env_value(
            E.to_str(value) if value is not None else None,
            _origin(at, expansion or None, known, None if known else reason),
        )
    det = s.detection
    interp = (
        argv[det.command_index].text
        if det.interpreter is not None and det.command_index < len(argv)
        else None
    )
    return ServerCommand(
        at=s.at,
        framework=det.framework,
        argv=tuple(argv),
        env=env,
        server_args_start=det.server_args_start,
        entrypoint=det.entrypoint,
        interpreter=interp,
        cwd=s.cwd,
        backgrounded=s.backgrounded,
        loop=s.loop,
        script_reads=script_reads,
        runner=det.runner,
        conditional=s.conditional,
        vanished=tuple(VanishedWord(v.index, v.raw, v.at, v.state, v.name, v.via) for v in s.vanished),
        from_missing_arguments=s.from_missing_arguments,
        from_unset_variables=s.from_unset_variables,
        script_files=s.script_files,
    )


def _origin(at: str | None, expansion: str | None, known: bool, reason: str | None) -> Origin:
    """``Origin(at, expansion, known, reason)``, equal field for field, without the frozen dataclass's
    ``__init__`` (an ``object.__setattr__`` call per field): a server's environment makes one per
    variable, 3,200 for a big script's exports (issue 18)."""
    new = object.__new__(Origin)
    new.__dict__.update(at=at, expansion=expansion, known=known, reason=reason)
    return new


def _word(text: str | None, origin: Origin) -> Word:
    """``Word(text, origin)`` made as :func:`_origin` makes its ``Origin`` (a server's argv makes two
    frozen objects per word, each in a check and again in each fix re-check)."""
    new = object.__new__(Word)
    new.__dict__.update(text=text, origin=origin)
    return new


def _env_value(value: str | None, origin: Origin) -> EnvValue:
    """``EnvValue(value, origin)`` made as :func:`_origin` makes its ``Origin``."""
    new = object.__new__(EnvValue)
    new.__dict__.update(value=value, origin=origin)
    return new


def _starts_router(ev: E.ShellEvaluator) -> bool:
    """The script starts the SGLang router alone (read by layers/disaggregation.py): a start, not SH019."""
    from argtrace.frameworks.router_words import router_argv

    return any(router_argv(c.texts) is not None for c in ev.commands)


def _unfollowed_findings(ev: E.ShellEvaluator) -> list[Finding]:
    """SH040: commands that look like a server start through a program argtrace does not follow."""
    from argtrace.frameworks.unfollowed import unfollowed_start

    out: list[Finding] = []
    for c in ev.commands:
        found = unfollowed_start(c.texts)
        if found is None:
            continue
        from argtrace.rules.wrappers import SH040  # here: most scripts start nothing through one

        out.append(SH040.finding(found.message, at=c.at))
    return out


def _shared_logs(ev: E.ShellEvaluator) -> list[Finding]:
    """Several servers writing one log file, one of them with `>`: one server's log replaces another's."""
    by_file: dict[str, list[E.FoundServer]] = {}
    for s in ev.servers:
        o = server_outputs(s)
        so = o["stdout"]
        if so is None or so.startswith(("|", "<")) or is_stream(so):
            continue
        by_file.setdefault(so, []).append(s)
    out: list[Finding] = []
    for name, every in by_file.items():
        # one command met again with the same words (a retry loop's `launch` after the last start died) is
        # the same server started anew, whose earlier log the single-server note (SH009 info) covers
        group = list({(s.at, tuple(w.text for w in s.argv)): s for s in every}.values())
        if len(group) < 2 or not any(server_outputs(s)["stdout_mode"] == ">" for s in group):
            continue
        ats = ", ".join(s.at for s in group[:4])
        out.append(
            R.SH009.finding(
                f"{len(group)} server commands ({ats}) write `{name}` and `>` empties it at each start: the "
                "log of one replaces the other's, so a failure of the first may no longer be in the file",
                at=group[-1].at,
                severity="warning",
                evidence=[Evidence("shell", s.at, f"> {name}") for s in group[:4]],
            )
        )
    return out


# -------------------------------------------------------------------------- text hazards


def _text_findings(
    label: str, hazards: list[H.TextHazard], ev: E.ShellEvaluator, data: bytes, broken_after: set[int]
) -> list[Finding]:
    out: list[Finding] = []
    server_lines: dict[int, E.FoundServer] = {}
    if any(h.kind in ("backslash_blank", "lookalike") for h in hazards):
        # the lines each server command spans (its words may be on continuation lines)
        line_re = re.compile(rf"^{re.escape(label)}:(\d+):")
        for s in ev.servers:
            if s.source_label != label:
                continue
            start_line = s.line
            end_line = start_line
            for w in s.argv:
                m = line_re.match(w.at)
                if m and start_line <= int(m.group(1)) <= start_line + 1000:
                    end_line = max(end_line, int(m.group(1)))
            for ln in range(start_line, end_line + 1):
                server_lines.setdefault(ln, s)
    for h in hazards:
        at = f"{label}:{h.line}:{h.col}"
        if h.kind == "bom":
            out.append(
                R.SH027.finding(
                    f"{label} starts with a UTF-8 byte order mark: bash reads the first line as a "
                    f"command named "
                    "`\\ufeff...` and the kernel does not see the `#!` line",
                    at=f"{label}:1:1",
                    evidence=[Evidence("shell", f"{label}:1", "EF BB BF")],
                )
            )
        elif h.kind == "crlf":
            lines: tuple[int, ...] = h.get("lines")
            broken: tuple[int, ...] = h.get("broken")
            ev_items = []
            affected = []
            for s in ev.servers:
                for w in s.argv:
                    if w.text is not None and "\r" in E.to_str(w.text):
                        affected.append(f"the server gets `{show_word(E.to_str(w.text))}` ({w.at})")
            msg = f"{label} has CRLF (Windows) line endings on {len(lines)} line(s): bash keeps the `\\r`"
            if affected:
                msg += "; " + "; ".join(affected[:3])
            if broken:
                msg += (
                    f"; the backslash on line(s) {', '.join(map(str, broken[:5]))} escapes `\\r` "
                    f"instead of the "
                    "newline, so the command ends there and the next line runs on its own"
                )
            for ln in lines[:3]:
                line_bytes = data.split(b"\n")[ln - 1]
                ev_items.append(
                    Evidence(
                        "shell", f"{label}:{ln}", line_bytes.decode("utf-8", "replace").replace("\r", "\\r")
                    )
                )
            out.append(R.SH002.finding(msg, at=f"{label}:{lines[0]}", evidence=ev_items))
        elif h.kind == "utf8":
            out.append(
                R.SH014.finding(
                    f"{label} is not valid UTF-8 (line {h.line})",
                    at=at,
                    evidence=[Evidence("shell", at, h.text)],
                )
            )
        elif h.kind == "backslash_blank":
            blanks = h.get("blanks")
            shown = "space" if blanks == " " else "tab" if blanks == "\t" else f"{len(blanks)} blanks"
            if h.get("array"):
                msg = (
                    f"{shown} after the backslash at the end of line {h.line}: inside the array literal the "
                    "escaped blank becomes an element `' '`, which reaches the command as an argument"
                )
            else:
                where = (
                    f"on line {h.line}, before its comment"
                    if h.get("comment")
                    else f"at the end of line {h.line}"
                )
                msg = (
                    f"{shown} after the line-continuation backslash {where}: the command "
                    f"ends on line {h.line} with an extra argument `' '`, and line {h.line + 1} runs as a "
                    "separate command"
                )
                if h.line in server_lines:
                    msg += "; the flags after it never reach the server"
            # with a comment after the blanks, deleting the blanks would escape the `#`: the comment moves
            fix = (
                "move the comment off the line (above the command), so that `\\` is the last character of it"
                if h.get("comment")
                else None
            )
            out.append(
                R.SH003.finding(
                    msg,
                    at=at,
                    evidence=[Evidence("shell", at, h.text.replace("\t", "\\t") + "\u2190")],
                    fix=fix,
                )
            )
        elif h.kind == "lookalike":
            ch, name, ascii_ = h.get("char"), h.get("name"), h.get("ascii")
            in_server = h.line in server_lines
            repl = f"`{ascii_}`" if ascii_ else "nothing (delete it)"
            msg = (
                f"U+{ord(ch):04X} {name} on line {h.line} looks like {repl if ascii_ else 'nothing'} "
                "but bash "
                "treats it as an ordinary character"
            )
            if in_server:
                words = [
                    w for w in server_lines[h.line].argv if w.text is not None and ch in E.to_str(w.text)
                ]
                if words:
                    msg += f": the server gets `{E.to_str(words[0].text or '')}`"
            out.append(
                R.SH006.finding(
                    msg,
                    at=at,
                    severity="error" if in_server else "info",
                    fix=f"Replace U+{ord(ch):04X} {name} with {repl}.",
                    evidence=[Evidence("shell", at, h.text.strip())],
                )
            )
        elif h.kind == "flag_line":
            word = h.get("word")
            if h.line in broken_after:
                continue  # SH002/SH003 explain why this line runs on its own
            if any(e.kind == "flag_as_command" and e.at == at for e in ev.events):
                continue  # reported by the evaluation, with the words
            out.append(
                R.SH004.finding(
                    missing_backslash_message(data, h.line, word, None),
                    at=at,
                    evidence=[Evidence("shell", at, h.text.strip())],
                )
            )
        elif h.kind == "placeholder":
            ph, name, eaten = h.get("placeholder"), h.get("name"), h.get("eaten")
            msg = (
                f"`{ph}` on line {h.line} looks like a placeholder from documentation, but bash reads it as "
                f"redirections: standard input from a file named `{name}`"
            )
            if eaten:
                msg += f" and standard output into a file named `{eaten}`, so `{eaten}` vanishes from the "
                msg += "command"
            msg += (
                f" (if `{name}` does not exist, bash prints `{name}: No such file or directory` and skips "
                "the command)"
            )
            out.append(R.SH005.finding(msg, at=at, evidence=[Evidence("shell", at, h.text.strip())]))
    return out


# -------------------------------------------------------------------------- shellcheck

# our code -> SC codes it already covers (same line)
_SC_COVERED: dict[str, set[int]] = {
    "SH002": {1017},
    "SH003": {1101},
    "SH004": {2215},
    "SH006": {1018, 1100, 1110, 1111, 1112},
    "SH027": {1082},
    "SH008": {2086},
    "SH007": {2086},
    "SH026": {2086},
    "SH005": {2211},
}
_SC_LEVEL: dict[str, Any] = {"error": "warning", "warning": "info", "info": "info", "style": "info"}


def _no_effect_on_launch(code: int, text: str) -> bool:
    """A shellcheck error that changes nothing the launch runs: SC2145 (`"...$@"` joins the arguments) on a
    line that only prints them (`echo "args: $@"`, gpu-recipes' launchers), and SC1128 (a license comment
    above `#!/bin/bash`): bash reads the file as a script all the same when it is run with `bash FILE` or
    exec'd from a shell (bash(1), COMMAND EXECUTION: a file that is not a binary is read by a subshell);
    only an exec without a shell would fail, and that is not in the file."""
    if code == 1128:
        return True
    return code == 2145 and text.lstrip().startswith(("echo ", "printf "))


def _continues_after(lines: list[bytes], line: int) -> bool:
    """Whether the first line after ``line`` (1-based) that is neither blank nor a comment reads as the rest
    of a command cut off by a comment's trailing backslash (SC1143): it starts with an option (`--port 8000`).
    At the end of the file, or before a command of its own, nothing was cut off."""
    for raw in lines[line:]:
        text = raw.decode("utf-8", "replace").strip()
        if not text or text.startswith("#"):
            continue
        return text.startswith("-")
    return False


def _page_placeholder(page: bytes | None, line: int, column: int, text: str) -> bool:
    """Whether shellcheck's comment at ``line:column`` of a Markdown page's script is on a ``${name}`` that
    stands for the page's ``<name>`` (markdown.py's ``_filled``: same line, same start column): the page
    has no such variable (SC2154 "referenced but not assigned", SC2086 "double quote" were about argtrace's
    rewrite of a placeholder, not about what the reader runs)."""
    if page is None or not text[column - 1 : column + 1] == "${":
        return False
    lines = page.split(b"\n")
    if not 0 < line <= len(lines):
        return False
    return lines[line - 1].decode("utf-8", "replace")[column - 1 : column] == "<"


def _shellcheck_findings(
    label: str, data: bytes, own: list[Finding], pending: Any = None, page: bytes | None = None
) -> list[Finding]:
    from argtrace.layers.shell.shellcheck import TIMEOUT, dialect_of, run_shellcheck
    from argtrace.rules import Rule

    if len(data) > SHELLCHECK_MAX:
        return [
            R.SH015.finding(
                f"shellcheck skipped: {label} is {len(data) // 1024} KB (argtrace runs shellcheck "
                f"on scripts up to "
                f"{SHELLCHECK_MAX // 1024} KB)",
                at=label,
            )
        ]
    comments, why = pending.result() if pending is not None else run_shellcheck(data, TIMEOUT)
    if comments is None:
        return [R.SH025.finding(f"{why}; no second opinion on {label}", at=label)]
    covered: set[tuple[int, int]] = set()
    for f in own:
        if f.at is None:
            continue
        m = re.match(rf"^{re.escape(label)}:(\d+)", f.at)
        if not m:
            continue
        line = int(m.group(1))
        for sc in _SC_COVERED.get(f.code, ()):
            covered.add((sc, line))
            if f.code == "SH002":
                covered.update((sc, ln) for ln in range(1, 1 + data.count(b"\n") + 1))
    out: list[Finding] = []
    lines = data.split(b"\n")
    del Rule
    bashisms = [c for c in comments if 3000 <= c.code < 4000] if dialect_of(data) == "sh" else []
    if bashisms:
        first = lines[0].decode("utf-8", "replace").rstrip("\r")
        out.append(
            _bash_features_under_sh(
                label,
                f"{label} starts with `{first}`",
                bashisms,
                f"Make the first line of {label} `#!/bin/bash` (or run it with `bash {label}`).",
            )
        )
    for c in comments:
        if (c.code, c.line) in covered or (c.code == 1017 and any(f.code == "SH002" for f in own)):
            continue
        if bashisms and 3000 <= c.code < 4000:
            continue  # each one is evidence of the SH052 finding above
        at = f"{label}:{c.line}:{c.column}"
        text = lines[c.line - 1].decode("utf-8", "replace").rstrip("\r") if 0 < c.line <= len(lines) else ""
        if _page_placeholder(page, c.line, c.column, text):
            continue
        level = _SC_LEVEL.get(c.level, "info")
        if c.code == 1143 and not _continues_after(lines, c.line):
            level = "info"  # the comment's backslash cuts nothing off: only comments or blanks follow it
        elif _no_effect_on_launch(c.code, text):
            level = "info"
        out.append(
            Finding(
                code=f"SC{c.code}",
                severity=level,
                layer="shell",
                message=f"shellcheck: {c.message}",
                at=at,
                fix=f"See https://www.shellcheck.net/wiki/SC{c.code}",
                evidence=(Evidence("shell", at, text.strip()),),
            )
        )
    return out


def sh_script_bash_features(label: str, data: bytes, runner: str, fix: str) -> Finding | None:
    """SH052 for a script string a container gives to sh (``sh -c STRING``; ``runner`` says so), when
    shellcheck, reading it as sh, finds bash features in it; None otherwise (or without shellcheck)."""
    from argtrace.layers.shell.shellcheck import run_shellcheck

    comments, _why = run_shellcheck(data, dialect="sh")
    bashisms = [c for c in comments or () if 3000 <= c.code < 4000]
    if not bashisms:
        return None
    return _bash_features_under_sh(
        label,
        f"{runner} runs this script",
        bashisms,
        fix,
        at_first_feature=True,
    )


def _bash_features_under_sh(
    label: str, subject: str, bashisms: list[Any], fix: str, at_first_feature: bool = False
) -> Finding:
    """SH052: one finding for every bash feature shellcheck finds in a script sh runs, each shellcheck
    comment its evidence."""
    shown = sorted({c.line for c in bashisms})
    places = ", ".join(f"line {n}" for n in shown[:6]) + (
        f" and {len(shown) - 6} more" if len(shown) > 6 else ""
    )
    evidence = []
    for c in bashisms[:8]:
        at = f"{label}:{c.line}:{c.column}"
        evidence.append(Evidence("shell", at, f"shellcheck SC{c.code}: {c.message}"))
    return R.SH052.finding(
        f"{subject} but uses bash features ({places}): where sh is dash (Debian, Ubuntu, and the SGLang and "
        "vLLM images built on them) they fail or mean something else, and the values argtrace reads from "
        "them follow bash",
        at=f"{label}:{shown[0] if at_first_feature else 1}",
        evidence=evidence,
        fix=fix,
    )
