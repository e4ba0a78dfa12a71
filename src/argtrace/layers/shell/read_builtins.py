"""The builtins that read input (code35: loaded on a script's first one): read, mapfile/readarray and
getopts, with the text they read (a here-document, a here-string, a file). Methods of
:class:`~argtrace.layers.shell.inputs.Inputs` (see ``deferred.py``).
"""

from __future__ import annotations

import re

from argtrace.layers.shell import hostfs
from argtrace.layers.shell.core import ExpWord, to_str
from argtrace.layers.shell.getopts import getopts_step, restart_index
from argtrace.layers.shell.inputs import _split_mapfile
from argtrace.layers.shell.state import Var
from argtrace.layers.shell.stdin_text import here_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.inputs import Inputs


def b_read(
    self: Inputs,
    args: list[ExpWord],
    at: str,
    argv: list[ExpWord],
    prefix_env: Any = None,
    redirs: Any = (),
    *rest: Any,
) -> int | None:
    cmd = to_str(argv[0].text or "read")
    own = [r for r in redirs or () if r[0] in (None, "0")]
    stream = self.stdin_streams[-1] if self.stdin_streams and not own and self.pipe_in is None else None
    if cmd in ("mapfile", "readarray"):
        if stream is not None and stream.text is not None:
            stream.text, stream.why = None, f"`{cmd}` at {at} read the rest of"  # not followed here
        return self._mapfile(cmd, args, at, redirs or ())
    names: list[str] = []
    array_name: str | None = None
    raw_mode = False
    unsupported = False
    k = 0
    while k < len(args):
        t = args[k].text
        if t is None:
            unsupported = True
            k += 1
            continue
        if t.startswith("-") and len(t) > 1 and not names:
            flags = t[1:]
            for ci, ch in enumerate(flags):
                if ch == "r":
                    raw_mode = True
                elif ch == "s":
                    pass
                elif ch in "adinNptu":
                    val = flags[ci + 1 :] or (args[k + 1].text if k + 1 < len(args) else None)
                    if not flags[ci + 1 :]:
                        k += 1
                    if ch == "a":
                        array_name = val
                    elif ch != "p":
                        unsupported = True
                    break
                else:
                    unsupported = True
            k += 1
            continue
        names.append(t)
        k += 1
    if cmd == "read" and not names and array_name is None:
        names = ["REPLY"]
    # `read ... <<< "$known"`, `read ... <<'EOF'`: the first line is known, so are the variables
    line: str | None = None
    at_end = False
    text = None
    if not unsupported and len(own) == 1 and len(redirs) == 1:
        _fd, op, target, _rat, tok = own[0]
        text = here_text(self, op, target, tok)
    reason = f"`{cmd}` at {at} reads it at run time"
    if text is not None:
        at_end = text == ""
        line = text.split("\n", 1)[0]
    elif stream is not None and not unsupported:
        # `while read -r a b; do ...; done <<EOF`: the next line of the compound's here-document
        got = stream.next_line(len(self.spec))
        if got is None:
            reason = f"`{cmd}` at {at} reads a here-document what is left of which {stream.why}"
        else:
            line, at_end = got
    if line is not None and not raw_mode and "\\" in line:
        line = None
    ifs = self._ifs()
    if prefix_env and "IFS" in prefix_env:
        ifs = prefix_env["IFS"][0]
    values: list[str] | None = None
    if line is not None and ifs is not None:
        from argtrace.layers.shell.outputs import _read_split  # (imported at a script's first `read`)

        values = _read_split(line, ifs, None if array_name else len(names))
    if array_name is not None and re.fullmatch(r"[A-Za-z_]\w*", array_name):
        items: list[tuple[Any, str | None]] | None = None if values is None else [(None, v) for v in values]
        self.set_array(array_name, items, at=at, expansion=cmd, reason=reason)
    for idx, n in enumerate(names):
        if re.fullmatch(r"[A-Za-z_]\w*", n):
            v = None if values is None else (values[idx] if idx < len(values) else "")
            self.set_var(n, v, at=at, expansion=cmd, reason=reason)
    if values is None:
        return None
    return 1 if at_end else 0  # at the end of its input read fails, the variables set empty


def _mapfile(self: Inputs, cmd: str, args: list[ExpWord], at: str, redirs: Any) -> int | None:
    """``mapfile``/``readarray`` (bash manual): the lines of standard input into an indexed array, from
    a here-string or from a file found on this machine by the rules ``source`` follows (a file the script
    itself writes first, or that is not here, stays unknown). ``-t``, ``-n``, ``-s``, ``-O``, ``-d`` are
    applied; ``-u``, ``-C``, ``-c`` leave the array unknown."""
    texts = [w.text for w in args]
    opts: dict[str, str] = {}
    name = "MAPFILE"
    unknown = None if all(t is not None for t in texts) else "an option not known statically"
    k = 0
    while unknown is None and k < len(texts):
        t = texts[k] or ""
        if t.startswith("-") and len(t) > 1 and t != "--":
            ci = 1
            while ci < len(t):
                ch = t[ci]
                if ch == "t":
                    opts["t"] = ""
                    ci += 1
                    continue
                if ch in "nsOdu":
                    val = t[ci + 1 :] if ci + 1 < len(t) else (texts[k + 1] if k + 1 < len(texts) else None)
                    if ci + 1 >= len(t):
                        k += 1
                    if val is None:
                        unknown = f"`-{ch}` without its value"
                    else:
                        opts[ch] = val
                    break
                unknown = f"its option `-{ch}`"
                break
            k += 1
            continue
        if t == "--":
            k += 1
        if k < len(texts):
            name = texts[k] or ""
        break
    reason = f"`{cmd}` at {at} reads it at run time"
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    data: str | None = None
    if unknown is not None:
        reason = f"`{cmd}` at {at} has {unknown}"
    elif opts.get("u", "0") != "0":
        reason = f"`{cmd} -u {opts['u']}` at {at} reads a file descriptor opened elsewhere"
    else:
        data, why = self._stdin_text(redirs, at)
        if why:
            reason = f"`{cmd}` at {at} {why}"
    lines = None if data is None else _split_mapfile(data, opts)
    if lines is None:
        self.set_array(name, None, at=at, expansion=cmd, reason=reason)
        return None
    origin = opts.get("O")
    if origin is not None:
        try:
            base = int(origin)
        except ValueError:
            return 1
        old = self.lookup(name)
        if old is not None and not old.known:
            self.set_array(name, None, at=at, expansion=cmd, reason=old.reason or reason)
            return None
        kept = dict(old.array or ()) if old is not None and old.array is not None else {}
        if old is not None and old.array is None and old.is_set and old.value is not None:
            kept[0] = old.value
        for i, line in enumerate(lines):
            kept[base + i] = line
        items: list[tuple[Any, str | None]] = sorted(kept.items())
    else:
        items = list(enumerate(lines))
    self.set_array(name, items, at=at, expansion=cmd)
    return 0


def _stdin_text(self: Inputs, redirs: Any, at: str) -> tuple[str | None, str | None]:
    """What a builtin reads on standard input: (the text, or None and why not)."""
    text: str | None = None
    why: str | None = "reads standard input, which is not known statically"
    for fd, op, tgt, _rat, r in redirs:
        if fd not in (None, "0"):
            continue
        if op in ("<<<", "<<", "<<-"):
            text = here_text(self, op, tgt, r)
            shown = "here-string" if op == "<<<" else "here-document"
            why = None if text is not None else f"reads a {shown} not known statically"
        elif op == "<":
            text, why = self._file_text(tgt)
        elif op in ("<&", "<>"):
            text, why = None, f"reads `{op}` input, which is not followed"
    return text, why


def _file_text(self: Inputs, name: str | None) -> tuple[str | None, str | None]:
    if name is None:
        return None, "reads a file whose name is not known statically"
    fname = to_str(name)
    path = self.resolve_path(fname)
    for written, _op, wat in self.log_writes:
        if path is not None and self.resolve_path(to_str(written)) == path:
            return None, f"reads `{fname}`, which the script writes first ({wat})"
    if path is None or not hostfs.isfile(path):
        return None, f"reads `{fname}`, which is not on this machine (it may be on the node)"
    try:
        data = hostfs.read(path, 4 * 1024 * 1024)
    except OSError as e:
        return None, f"reads `{fname}`, which cannot be read here ({e})"
    return data.decode("latin-1"), None


def b_getopts(self: Inputs, args: list[ExpWord], at: str, *rest: Any) -> int | None:
    """bash's ``getopts`` (layers/shell/getopts.py) on the positional parameters or the words given;
    OPTIND carries the position inside a grouped word in its ``expansion`` (``getopts:N``), so forks
    and subshells keep it with the variable."""
    reason = f"`getopts` at {at}"
    name = args[1].text if len(args) >= 2 else None
    optstring = args[0].text if args else None
    words: list[str] | None
    if len(args) > 2:
        words = None if any(w.text is None for w in args[2:]) else [w.text or "" for w in args[2:]]
    else:
        words = None if self.positional is None else list(self.positional)
    step = None
    var = self.lookup("OPTIND")
    if optstring is not None and words is not None and (var is None or var.known):
        text = var.scalar if var is not None and var.is_set else None
        if var is not None and (var.expansion or "").startswith("getopts:") and text is not None:
            optind, charindex = int(text), int((var.expansion or "")[8:])
            step = getopts_step(optstring, words, optind, charindex)
        else:
            optind, fresh = restart_index(text)
            # an OPTIND assigned a value above 1 keeps bash's place inside a word this evaluator no
            # longer has: left unknown
            step = getopts_step(optstring, words, optind, 0) if fresh else None
    if step is None:
        if name:
            self.set_var(name, None, at=at, expansion="getopts", reason=reason)
        self.set_var("OPTARG", None, at=at, expansion="getopts", reason=reason)
        self.set_var("OPTIND", None, at=at, expansion="getopts", reason=reason)
        return None
    if name and re.fullmatch(r"[A-Za-z_]\w*", name):
        self.set_var(name, step.name_value, at=at, expansion="getopts")
    if step.optarg is None:
        self._unset_scalar("OPTARG", at)
    else:
        self.set_var("OPTARG", step.optarg, at=at, expansion="getopts")
    self.set_var("OPTIND", str(step.optind), at=at, expansion=f"getopts:{step.charindex}")
    return step.status


def _unset_scalar(self: Inputs, name: str, at: str) -> None:
    scope = self._scope_of(name)
    var = scope.get(name)
    if var is None or var.readonly:
        return
    if len(self.scopes) > 1 and scope is not self.scopes[0]:
        scope[name] = Var(is_set=False, at=at, expansion="unset")
    else:
        del scope[name]
