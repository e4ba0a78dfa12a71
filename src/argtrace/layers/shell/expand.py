"""Word expansion, in bash's order: parameters (``${x:-y}`` and every operator), command substitution
(computed by emulating pure commands or evaluating the body in a subshell, once per construct),
arithmetic, quote removal, field splitting on IFS and pathname expansion, producing the ``ExpWord`` list
a command receives. Expansion never imports the runner: the subshell of ``$(...)`` is run through the
``run_block`` hook that ``core`` declares and ``control`` provides.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell import wordparts as W
from argtrace.layers.shell.core import (
    _BREAK,
    _PLAIN,
    _PLAIN_BRACKETS,
    HOLE,
    MAX_WORD_BYTES,
    ArithError,
    ExpWord,
    _Chunk,
    _Exit,
    _has_glob,
    to_str,
)
from argtrace.layers.shell.deferred import Deferred
from argtrace.layers.shell.params import Params

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a word whose expansion may assign a variable (`${x:=v}`, `${x=v}`, `$((i = 1))`, `$((i++))`); also matches
# harmless words (`--port=1`), which are then evaluated by _capture instead, with the same result
_MAY_ASSIGN = re.compile(r"=|\+\+|--")


# the names get_param answers before it looks the variable up (a name, not a digit or a sign): for any
# other, a variable set in the one scope outside functions is what it gives
_SPECIAL_NAMES = frozenset(
    {"RANDOM", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME", "BASHPID", "LINENO", "PPID", "HOSTNAME", "UID"}
    | {"EUID", "FUNCNAME", "BASH_SOURCE"}
)


class Expander(Params):
    def mark_arith_unknown(
        self, expr: str, reason: str = "arithmetic on a value that is not known statically"
    ) -> None:
        for m in re.finditer(
            r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+*/%&|^]|<<|>>|\*\*)?=(?!=)|"
            r"(?:\+\+|--)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(?:\+\+|--)",
            expr,
        ):
            name = m.group(1) or m.group(2) or m.group(3)
            self.set_var(
                name,
                None,
                at=self.cur_at,
                expansion=f"(({expr}))",
                reason=reason,
            )

    def expand_arith_text(self, expr: str) -> str | None:
        """Expand ``$`` expansions inside arithmetic text (quotes are removed as bash does)."""
        if "$" not in expr and "`" not in expr and '"' not in expr and "'" not in expr:
            return expr
        parts = W.parse_word(expr, in_dq=True)
        if '"' in expr:
            # a double quote in the expression is removed (bash(1), ARITHMETIC EVALUATION: `(( "$#" ))`); one
            # inside a command substitution is that command's own (in the CmdSub part, not a literal here)
            parts = [W.Lit(p.text.replace('"', ""), p.quoted) if isinstance(p, W.Lit) else p for p in parts]
        chunks = self.expand_parts(parts, self.cur_at, assignment=True)
        out: list[str] = []
        for c in chunks:
            if c.text is None:
                return None
            out.append(c.text)
        return "".join(out)

    def pattern_regex(self, raw: str, offset: int) -> str | None:
        """A case/[[ == ]] pattern as a regex; None when part of it is unknown."""
        return self._pattern(raw, self.src.at(offset))

    def expand_parts(self, parts: Sequence[W.Part], at: str, assignment: bool = False) -> list[_Chunk]:
        out: list[_Chunk] = []
        for p in parts:
            if isinstance(p, W.Lit):
                out.append(_Chunk(p.text, p.quoted, False))
            elif isinstance(p, W.DQStart):
                out.append(_Chunk("", True, False, "DQ"))
            elif isinstance(p, W.DQEnd):
                out.append(_Chunk("", True, False, "DQEND"))
            elif isinstance(p, W.Param):
                got = self.expand_param(p, at, assignment)
                for c in got:
                    if c.text is None and c.source is None:
                        c.source = p.raw
                out.extend(got)
            elif isinstance(p, W.CmdSub):
                sub = self.command_substitution(p, at)
                if sub.text is None and sub.source is None:
                    sub.source = p.raw
                out.append(sub)
            elif isinstance(p, W.Arith):
                self.cur_at = at
                expanded = self.expand_arith_text(p.expr)
                if expanded is None:
                    out.append(
                        _Chunk(
                            None,
                            p.quoted,
                            not p.quoted,
                            f"`{to_str(p.raw)}`: arithmetic on a value that is not known statically",
                        )
                    )
                    self.mark_arith_unknown(p.expr)
                    continue
                try:
                    out.append(_Chunk(str(self.arith(expanded)), p.quoted, not p.quoted))
                except ArithError as e:
                    out.append(_Chunk(None, p.quoted, not p.quoted, f"`{to_str(p.raw)}`: {e}"))
                    self.mark_arith_unknown(p.expr)
            elif isinstance(p, W.Tilde):
                if p.user:
                    out.append(
                        _Chunk(None, True, False, f"`~{p.user}` is that user's home directory at run time")
                    )
                else:
                    st, home, reason = self.get_param("HOME")
                    if st == "set":
                        out.append(_Chunk(home, True, False))
                    elif st == "unset":
                        out.append(_Chunk(None, True, False, "HOME is not set; bash uses the passwd entry"))
                    else:
                        out.append(_Chunk(None, True, False, reason))
            elif isinstance(p, W.ProcSub):
                out.append(
                    _Chunk(
                        None,
                        False,
                        False,
                        f"process substitution `{to_str(p.raw)}` becomes a /dev/fd path at run time",
                    )
                )
        size = sum(len(c.text) for c in out if c.text)
        if size > 64 and not self.expanded(size, at):
            return [_Chunk(None, True, False, f"the word expands to more than {MAX_WORD_BYTES:,} bytes")]
        return out

    command_substitution = Deferred("argtrace.layers.shell.expand_substitution")
    _capture = Deferred("argtrace.layers.shell.expand_substitution")
    _cap_write = Deferred("argtrace.layers.shell.expand_substitution")
    _emulate = Deferred("argtrace.layers.shell.expand_substitution")
    _pure = Deferred("argtrace.layers.shell.expand_substitution")

    def expand_param(self, p: W.Param, at: str, assignment: bool) -> list[_Chunk]:
        q = p.quoted
        raw = to_str(p.raw)
        name = p.name
        if p.op == "?bad" or (not name and not p.length):
            self.emit("bad_substitution", at, raw=raw)
            return [_Chunk(None, q, not q, f"`{raw}`: bad substitution")]
        if p.indirect:
            if p.op == "!prefix":
                names = sorted(
                    {n for s in self.scopes for n, v in s.items() if n.startswith(name) and v.is_set}
                )
                # `"${!P@}"` is one word a name, as `"$@"` (bash(1), Parameter Expansion)
                return self._list_chunks(names, q, p.raw.rstrip("}").endswith("*"))
            if p.index in ("@", "*"):
                st0, items0, r0 = self.get_list(name, p.index)
                if st0 != "set" or items0 is None:
                    return [_Chunk(None, q, not q, r0)]
                keys = [str(k) for k, _ in items0]
                return self._list_chunks(keys, q, p.index == "*")
            st, target, reason = self.get_param(name)
            if st == "unknown" or target is None:
                return [_Chunk(None, q, not q, reason or f"`{raw}`: indirection through an unset variable")]
            m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(.*)\])?|(\d+|[@*#?$!-])", target)
            if not m:
                return [_Chunk(None, q, not q, f"`{raw}`: invalid indirect name")]
            name = m.group(1) or m.group(3)
            p = W.Param(p.raw, name, q, index=m.group(2), op=p.op, arg=p.arg, arg2=p.arg2, length=p.length)
        is_list = name in ("@", "*") or p.index in ("@", "*")
        star = name == "*" or p.index == "*"
        if is_list:
            st, items, reason = self.get_list(name, p.index)
            if st == "unknown" or items is None:
                return [_Chunk(None, q, not q, reason)]
            if p.length:
                return [_Chunk(str(len(items)), q, not q)]
            values = [v for _, v in items]
            if any(v is None for v in values):
                return [_Chunk(None, q, not q, "an element is not known statically")]
            vals: list[str] = [v for v in values if v is not None]
            if p.op == ":":
                try:
                    off = self.arith(self._expand_operand(p.arg or "0", at) or "")
                    ln = None if p.arg2 is None else self.arith(self._expand_operand(p.arg2, at) or "")
                except ArithError as e:
                    return [_Chunk(None, q, not q, f"`{raw}`: {e}")]
                if name in ("@", "*"):
                    full = [self.arg0, *vals]
                    if off < 0:
                        off = len(full) + off
                        if off < 0:
                            return []
                    sel = full[off:] if ln is None else full[off : off + ln] if ln >= 0 else None
                else:
                    if off < 0:
                        off = len(vals) + off
                        if off < 0:
                            return []
                    sel = vals[off:] if ln is None else vals[off : off + ln] if ln >= 0 else None
                if sel is None:
                    return [_Chunk(None, q, not q, f"`{raw}`: negative length")]
                vals = sel
            elif p.op in (":-", "-", ":+", "+", ":=", "=", ":?", "?"):
                empty = not vals or (p.op.startswith(":") and "".join(vals) == "" and len(vals) <= 1)
                unset = not vals
                use_alt = empty if p.op.startswith(":") else unset
                if p.op in (":-", "-"):
                    if use_alt:
                        return self._operand_chunks(p.arg or "", q, at)
                elif p.op in (":+", "+"):
                    if use_alt:
                        # `"${A[@]+word}"` of an empty list is no word (bash 5.2), `"${A[*]+word}"` one empty
                        return [_Chunk(None, True, False, "EMPTY_AT")] if q and not star else []
                    return self._operand_chunks(p.arg or "", q, at)
                elif p.op in (":?", "?") and use_alt:
                    self.emit(
                        "param_error", at, raw=raw, message=to_str(p.arg or "parameter null or not set")
                    )
                    raise _Exit(1, f"{raw} aborts the script")
            elif p.op is not None:
                newvals: list[str] = []
                for v in vals:
                    r = self._apply_op(p, v, at)
                    if r is None:
                        return [_Chunk(None, q, not q, self._op_unknown(raw))]
                    newvals.append(r)
                vals = newvals
            return self._list_chunks(vals, q, star)
        # scalar
        self.read_names.add(to_str(name))
        if p.op in (None, ":?", "?"):  # no default of the script's own: what the variable holds decides
            self.plain_read_names.add(to_str(name))
        if p.index is not None:
            st, value, reason = self._get_element(name, p.index, at)
        else:
            st, value, reason = self.get_param(name)
        if st == "unknown":
            if p.op in (":-", "-", ":=", "=", ":+", "+") and p.arg is not None:
                reason = reason or "not known statically"
            chunk = _Chunk(None, q, not q, reason or f"`{raw}` is not known statically")
            if p.op is None and p.index is None and self.holed_values:
                var = self.lookup(name)
                kept = self.holed_values.get(id(var))
                if kept is not None and kept[0] is var:
                    chunk.holed, chunk.holes = kept[1], kept[2]
            return [chunk]
        if p.length:
            if st == "unset":
                self._nounset(name, raw, at)
                return [_Chunk("0", q, not q)]
            assert value is not None
            return [_Chunk(str(len(to_str(value))), q, not q)]
        op = p.op
        if op in (":-", "-", ":=", "=", ":+", "+", ":?", "?"):
            use_alt = st == "unset" or (op.startswith(":") and value == "")
            if op in (":-", "-"):
                if use_alt:
                    return self._operand_chunks(p.arg or "", q, at)
            elif op in (":=", "="):
                if use_alt:
                    chunks = self._operand_chunks(p.arg or "", True, at)
                    text = (
                        None if any(c.text is None for c in chunks) else "".join(c.text or "" for c in chunks)
                    )
                    if name.isdigit() or name in "@*#?$!-":
                        self.emit("bad_assign", at, raw=raw)
                        raise _Exit(1, f"{raw}: cannot assign in this way")
                    self.set_var(name, text, at=at, expansion=raw, reason="default not known statically")
                    return [
                        _Chunk(text, q, not q, None if text is not None else "default not known statically")
                    ]
            elif op in (":+", "+"):
                if use_alt:
                    return [] if not q else [_Chunk("", True, False)]
                return self._operand_chunks(p.arg or "", q, at)
            elif op in (":?", "?") and use_alt:
                msg = to_str(p.arg) if p.arg else ("parameter null or not set")
                if st == "unset" and not name.isdigit():
                    # a variable the script requires of its caller (`${MODEL_PATH:?set it}`) and never sets,
                    # not in the environment argtrace was given: the caller's, as an unset `--port "$PORT"`
                    # is (SH026's assumption); read with its value unknown rather than as the exit
                    if to_str(name) not in self.callers_names:
                        self.callers_names.add(to_str(name))
                        self.emit("param_error", at, raw=raw, message=msg, name=name, caller=True)
                    return [_Chunk(None, q, not q, f"`{raw}`: set by the script's caller (not given here)")]
                self.emit("param_error", at, raw=raw, message=msg, name=name)
                raise _Exit(1, f"`{raw}` aborts the script: {msg}")
            if st == "unset":
                return [] if not q else [_Chunk("", True, False)]
            return [_Chunk(value, q, not q)]
        if st == "unset":
            if self._nounset_callers(to_str(name), raw, at):
                return [_Chunk(None, q, not q, f"`{raw}`: set by the script's caller (not given here)")]
            self._nounset(name, raw, at)
            return [_Chunk("", q, not q, "UNSET")]
        assert value is not None
        if op is None:
            return [_Chunk(value, q, not q, "EMPTY" if value == "" else None)]
        r = self._apply_op(p, value, at)
        if r is None:
            return [_Chunk(None, q, not q, self._op_unknown(raw))]
        return [_Chunk(r, q, not q)]

    _list_chunks = Deferred("argtrace.layers.shell.expand_operators")
    _emit_list = Deferred("argtrace.layers.shell.expand_operators")
    _operand_chunks = Deferred("argtrace.layers.shell.expand_operators")
    _expand_operand = Deferred("argtrace.layers.shell.expand_operators")
    _pattern = Deferred("argtrace.layers.shell.expand_operators")
    _op_unknown = Deferred("argtrace.layers.shell.expand_operators")

    # set by _apply_op when its pattern match ran out of steps (glob_match.WORK_LIMIT)
    match_ran_out = False

    _apply_op = Deferred("argtrace.layers.shell.expand_operators")
    _apply_op_to = Deferred("argtrace.layers.shell.expand_operators")

    # ---------------------------------------------------------------------- words

    def expand_single(self, tok: L.WordTok | None, rebase: bool = True) -> str | None:
        """Expand a word without splitting or globbing (assignment values, redirect targets, case words)."""
        return self.expand_value(tok, rebase)[0]

    def expand_value(self, tok: L.WordTok | None, rebase: bool = True) -> tuple[str | None, str | None]:
        """(value, reason it is unknown) of a word expanded without splitting or globbing."""
        if tok is None:
            return None, None
        if _PLAIN.fullmatch(tok.raw):
            return tok.raw, None
        parts = W.parse_word(tok.raw, assignment=True)
        at = self.src.at(tok.start) if rebase else self.cur_at
        chunks = self.expand_parts(parts, at, assignment=True)
        bad = next((c for c in chunks if c.text is None and c.reason != "EMPTY_AT"), None)
        if bad is not None:
            from argtrace.layers.shell.holes import holed_text  # (imported where a value is unknown)

            self.last_holed = holed_text(chunks)
            return None, bad.reason
        if not any(c is _BREAK for c in chunks):  # by identity: `in` compares every chunk field by field
            return "".join(c.text or "" for c in chunks), None
        from argtrace.layers.shell.patterns import _split_on_break  # (imported where a value has a break)

        return " ".join("".join(c.text or "" for c in grp) for grp in _split_on_break(chunks)), None

    def expand_word(
        self,
        tok: L.WordTok,
        rebase: bool = True,
        vanished: list[tuple[str, str, str | None]] | None = None,
    ) -> list[ExpWord]:
        """Full expansion of one word: brace, parameter/command/arithmetic, splitting, globbing, quotes."""
        at = self.src.at(tok.start) if rebase else self.cur_at
        raw = tok.raw
        if _PLAIN.fullmatch(raw) or (_PLAIN_BRACKETS.fullmatch(raw) and not _has_glob(raw)):
            # nothing to expand, split or glob (the `[` and `]` of every test): what _expand_one gives
            return [ExpWord(raw, at, "literal", offset=tok.start)]
        if raw[:1] == '"':
            m = W.QUOTED_NAME.fullmatch(raw)
            if m is not None:
                # "$NAME" or "${NAME}" (the operand of most tests): nothing brace-expands inside quotes, and
                # its parts are known from the match (issue 18)
                known = self.quoted_name_field(raw, m.group(1) or m.group(2), at, tok.start)
                if known is not None:
                    return [known]
                return self._expand_one(raw, at, tok.start, vanished, W.quoted_name_parts(raw, m))
        raws = [raw]
        if "{" in raw and not W.QUOTED_NAME.fullmatch(raw):  # inside double quotes nothing brace-expands
            from argtrace.layers.shell.patterns import (  # (a word with `{`)
                BRACE_LIMIT,
                BraceLimit,
                brace_expand,
            )

            try:
                raws = brace_expand(raw)
            except BraceLimit:
                reason = f"brace expansion of `{to_str(tok.raw)[:60]}` makes more than {BRACE_LIMIT} words"
                return [ExpWord(None, at, to_str(tok.raw), reason, offset=tok.start)]
        if len(raws) > 1:
            self.emit("brace", at, raw=to_str(tok.raw), words=[to_str(r) for r in raws][:20])
        out: list[ExpWord] = []
        for raw in raws:
            out.extend(self._expand_one(raw, at, tok.start, vanished))
        return out

    def quoted_name_field(self, raw: str, name: str, at: str, offset: int) -> ExpWord | None:
        """The field of ``"$NAME"``/``"${NAME}"`` (``raw``) when the variable is set to a value of at most 64
        characters (no byte budget to count), or None: ``_expand_one`` must read it. What ``expand_param``
        (a scalar read with no operator: both read-name sets, ``get_param``), ``expand_parts`` and
        ``_one_field`` make of it, without their general tests (issue 18: the operands of a big script's
        tests; ``tests/shell/test_large_scripts26.py`` compares the two)."""
        self.read_names.add(name)
        self.plain_read_names.add(name)
        scopes = self.scopes
        v = scopes[0].get(name) if len(scopes) == 1 and name not in _SPECIAL_NAMES else None
        if v is not None and v.is_set and v.known and v.array is None:
            value: str | None = v.value  # get_param's "set" and Var.scalar, without their calls (issue 18)
        else:
            st, value, _reason = self.get_param(name)
            if st != "set":
                return None
        if value is None or len(value) > 64:
            return None  # expand_param reads it again: the sets above are sets
        # to_str(raw): "$NAME"/"${NAME}" is ASCII without placeholders
        return ExpWord(value, at, raw, None, False, None, offset)

    def _expand_one(
        self,
        raw: str,
        at: str,
        offset: int,
        vanished: list[tuple[str, str, str | None]] | None,
        quoted_name: list[W.Part] | None = None,
    ) -> list[ExpWord]:
        if quoted_name is None:
            parts = W.parse_word(raw)
            has_exp = any(isinstance(p, (W.Param, W.CmdSub, W.Arith, W.Tilde, W.ProcSub)) for p in parts)
            expansion = "literal" if not has_exp else to_str(raw)
            quoted_exp = (
                raw.startswith('"')
                and raw.endswith('"')
                and len([p for p in parts if not isinstance(p, W.DQStart)]) == 1
                and has_exp
            )
        else:
            # the parts of "$NAME"/"${NAME}" (W.quoted_name_parts): what the lines above find for them, the
            # Param an expansion, and two parts (the Param and DQEnd) besides DQStart
            parts, has_exp, expansion, quoted_exp = quoted_name, True, to_str(raw), False
        chunks = self.expand_parts(parts, at)
        text = _one_field(chunks)
        if text is not None:
            # what the splitting loop below makes of such chunks: one field, known, not split
            return [ExpWord(text, at, expansion, None, quoted_exp, None, offset)]
        ifs = self._ifs()
        fields: list[dict[str, Any]] = []
        cur: dict[str, Any] | None = None
        merge_ws = False
        split_happened = False
        nfields_from_split = 0

        def new_field() -> dict[str, Any]:
            return {"pieces": [], "glob": False, "reason": None}

        pending_dq = False  # inside quotes, nothing produced yet
        empty_at = False
        for c in chunks:
            if c is _BREAK:
                if cur is not None:
                    fields.append(cur)
                cur = None
                merge_ws = False
                continue
            if c.reason == "DQ" and c.text == "":
                pending_dq = True
                empty_at = False
                continue
            if c.reason == "DQEND" and c.text == "":
                if pending_dq and not empty_at and cur is None:
                    cur = new_field()  # "" or '' : an empty word
                pending_dq = False
                continue
            if c.text is None and c.reason == "EMPTY_AT":
                empty_at = True
                continue
            if c.quoted and c.text is not None:
                pending_dq = False
            if c.text is None and not (c.split and c.holed is not None and ifs):
                from argtrace.layers.shell.holes import holes_fit

                cur = cur or new_field()
                cur["reason"] = cur["reason"] or c.reason or "not known statically"
                if c.split and not cur["pieces"]:  # unquoted, first: where its words end is not known
                    cur["reason_split"] = True
                elif c.holed is not None and not c.split and holes_fit(cur, c):  # known but for its holes
                    cur["pieces"].append(c.holed)
                    cur.setdefault("holes", []).extend(c.holes)
                else:  # a hole in a known text (unquoted after text, `img:$TAG`: may split too, hole_split)
                    cur["pieces"].append(HOLE)
                    cur["hole_split"] = c.split or cur.get("hole_split", False)
                    source = to_str(c.source) if c.source is not None else None
                    cur.setdefault("holes", []).append((source, c.reason or "not known statically"))
                continue
            if not c.split and c.text is not None:  # (an unknown chunk here is split: handled below)
                if cur is None:
                    cur = new_field()
                cur["pieces"].append(c.text)
                if not c.quoted and _has_glob(c.text):
                    cur["glob"] = True
                merge_ws = False
                continue
            # unquoted expansion: split on IFS
            if ifs is None:
                if cur is None:
                    cur = new_field()
                cur["reason"] = cur["reason"] or "IFS is not known statically"
                cur["no_holes"] = True  # where this field ends is not known
                continue
            queue: list[tuple[str | None, str]] | None = None
            if c.text is None:  # an unquoted variable known but for its holes (`$CMD`): its text is split
                if not self.expanded(len(c.holed or ""), at):  # within the script's expansion budget
                    cur = cur or new_field()
                    cur["reason"], cur["no_holes"] = cur["reason"] or c.reason, True
                    continue
                from argtrace.layers.shell.holes import take_holes

                text, queue = c.holed or "", list(c.holes)
            else:
                text = c.text or ""
            if ifs == "":
                if text:
                    if cur is None:
                        cur = new_field()
                    cur["pieces"].append(text)
                    if _has_glob(text):
                        cur["glob"] = True
                continue
            ws = "".join(ch for ch in ifs if ch in " \t\n")
            buf: list[str] = []
            i = 0
            n = len(text)
            while i < n:
                ch = text[i]
                if ch in ifs:
                    if buf:
                        if cur is None:
                            cur = new_field()
                        cur["pieces"].append("".join(buf))
                        if queue is not None:
                            take_holes(cur, cur["pieces"][-1], queue)
                        buf = []
                    if ch in ws:
                        if cur is not None:
                            fields.append(cur)
                            cur = None
                            merge_ws = True
                            split_happened = True
                            nfields_from_split += 1
                        i += 1
                        continue
                    # non-whitespace delimiter
                    if cur is not None:
                        fields.append(cur)
                        cur = None
                    elif not merge_ws:
                        fields.append(new_field())
                    merge_ws = False
                    split_happened = True
                    i += 1
                    while i < n and text[i] in ws:
                        i += 1
                    continue
                buf.append(ch)
                merge_ws = False
                i += 1
            if buf:
                if cur is None:
                    cur = new_field()
                piece = "".join(buf)
                cur["pieces"].append(piece)
                if queue is not None:
                    take_holes(cur, piece, queue)
                if _has_glob(piece):
                    cur["glob"] = True
        if cur is not None:
            fields.append(cur)
        if not fields and has_exp and vanished is not None:
            state = "empty"
            name = None
            for p in parts:
                if isinstance(p, W.Param):
                    name = p.name
                    st, _v, _r = (
                        self.get_param(p.name) if p.index is None and p.name not in "@*" else ("set", 0, 0)
                    )
                    if st == "unset":
                        state = "unset"
            vanished.append((to_str(raw), state, name))
        result: list[ExpWord] = []
        for f in fields:
            ftext: str | None = "".join(f["pieces"])
            reason = f["reason"]
            unglobbed = None
            holed = None
            if (
                reason is not None
                and "holes" in f
                and not (f.get("reason_split") or f.get("no_holes") or f["glob"])
            ):
                holed = ftext
            if reason is None and f["glob"] and "noglob" not in self.options:
                reason = (
                    f"pathname expansion of `{to_str(ftext or '')}` depends on the files present when the "
                    "script runs"
                )
                self.emit("glob", at, word=to_str(ftext or ""), raw=to_str(raw))
                ftext, unglobbed = None, ftext
            elif reason is not None:
                if f.get("reason_split") or f.get("hole_split"):
                    reason += " (unquoted: it may also split into several words)"
                ftext = None
            result.append(
                ExpWord(
                    ftext,
                    at,
                    expansion,
                    reason,
                    quoted_exp,
                    to_str(raw) if split_happened and len(fields) > 1 else None,
                    offset,
                    unglobbed,
                    holed,
                    tuple(f["holes"]) if holed is not None else (),
                )
            )
        return result

    def _arith_index(self, index: str) -> int | None:
        """An indexed array's subscript, evaluated as arithmetic (None: not known statically)."""
        expanded = self.expand_arith_text(index)
        try:
            return self.arith(expanded) if expanded is not None else None
        except ArithError:
            return None

    def _get_element(self, name: str, index: str, at: str) -> tuple[str, str | None, str | None]:
        if name == "FUNCNAME":
            stack = self.funcname_stack()
            i = self._arith_index(index)
            if i is None:
                return "unknown", None, "the array index is not known statically"
            return ("set", stack[i], None) if -len(stack) <= i < len(stack) else ("unset", None, None)
        v = self.lookup(name)
        if name == "BASH_SOURCE" and (v is None or not v.is_set):
            try:
                i = int(index)
            except ValueError:
                return "unknown", None, "BASH_SOURCE index not known"
            stack = list(reversed(self.bash_source))
            return ("set", stack[i], None) if 0 <= i < len(stack) else ("unset", None, None)
        if v is None or not v.is_set:
            return "unset", None, None
        if not v.known:
            return "unknown", None, v.reason
        if v.assoc:
            key = self._expand_operand(index, at)
            if key is None:
                return "unknown", None, "the array index is not known statically"
            items = dict(v.array or ())
            return ("set", items[key], None) if key in items else ("unset", None, None)
        idx = self._arith_index(index)
        if idx is None:
            return "unknown", None, "the array index is not known statically"
        items = dict(v.array) if v.array is not None else {0: v.value}
        if idx < 0:
            keys = [k for k in items if isinstance(k, int)]
            idx = (max(keys) + 1 + idx) if keys else idx
        if idx in items:
            val = items[idx]
            return (
                ("set", val, None) if val is not None else ("unknown", None, "element not known statically")
            )
        return "unset", None, None


def _one_field(chunks: list[_Chunk]) -> str | None:
    """The text of the one field that ``_expand_one``'s splitting loop makes of ``chunks`` when each is known,
    not subject to splitting and no unquoted glob (`"$X"`, `"--port=$P"`, `'a b'`), or None: the loop is
    needed. Such chunks never end a field, so the loop puts them all in one; the quote marks' empty chunks
    add nothing to it, and at least one other chunk makes it exist."""
    made = False
    for c in chunks:
        if c is _BREAK or c.text is None or c.split:
            return None
        if c.text == "" and (c.reason == "DQ" or c.reason == "DQEND"):
            continue
        if not c.quoted and _has_glob(c.text):
            return None
        made = True
    return "".join([c.text or "" for c in chunks]) if made else None
