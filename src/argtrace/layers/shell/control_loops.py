"""The interpreter's loops (code35: loaded on a script's first loop): ``for``, ``for ((;;))``, ``while`` and
``until``, with their iteration limits, the fixed points that end a loop early and the folding of server
starts a loop repeats. Methods of :class:`~argtrace.layers.shell.control.Control` (see ``deferred.py``).
"""

from __future__ import annotations

from collections.abc import Callable

from argtrace.layers.shell import lexer as L
from argtrace.layers.shell.core import (
    MAX_LOOP,
    ArithError,
    ExpWord,
    _Break,
    _Continue,
    _Exit,
    from_str,
)
from argtrace.layers.shell.loop_frame import _Loop

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.control import Control


def _enter_loop(self: Control, node: Any) -> _Loop:
    frame = _Loop(self.src.line_at(node.start_byte), len(self.servers))
    self.loops.append(frame)
    return frame


def _leave_loop(self: Control, frame: _Loop) -> None:
    """Close a loop: when its iterations are unknown or endless, each server start inside it repeats."""
    self.loops.remove(frame)
    if frame.unbounded:
        for srv in self.servers[frame.first_server :]:
            if srv.loop is None:
                srv.loop = frame.at


def _in_loop(self: Control, node: Any, run: Callable[[Any, _Loop], int | None]) -> int | None:
    frame = self._enter_loop(node)
    try:
        try:
            status = run(node, frame)
        except _Exit:
            if not any(kind == "break" for kind, _s, _r in frame.diverted):
                raise
            # the paths still in the loop exit; those that left it by `break` go on after it
            parked = [snap for kind, snap, _r in frame.diverted if kind == "break"]
            reason = next(r for kind, _s, r in frame.diverted if kind == "break")
            frame.diverted.clear()
            self._merge(parked, reason)
            del self.spec[min(frame.marks or [len(self.spec)]) :]
            self.spec.append(reason)
            return None
        if frame.diverted:
            self.settle_diverted(frame, ("break", "continue"))
            status = None
        return status
    finally:
        self._leave_loop(frame)


def _iteration(self: Control, body: Any) -> int | None:
    """One run of a loop's body. ``break N`` and ``continue N`` aimed further out go on with N - 1; for
    this loop they come through as they are. The paths a fork sent to the next iteration by
    ``continue`` join the others at the end of the body."""
    frame = self.loops[-1] if self.loops else None
    try:
        status = self.run_node(body)
    except _Break as b:
        if b.n > 1:
            raise _Break(b.n - 1) from None
        raise
    except _Continue as c:
        if c.n > 1:
            raise _Continue(c.n - 1) from None
        if frame is not None:
            self.settle_diverted(frame, ("continue",))
        raise
    except _Exit:
        if frame is None or not any(kind == "continue" for kind, _s, _r in frame.diverted):
            raise
        # this path exits; the ones sent on by `continue` make the next iteration
        parked = [(snap, r) for kind, snap, r in frame.diverted if kind == "continue"]
        frame.diverted = [d for d in frame.diverted if d[0] != "continue"]
        self._merge([snap for snap, _r in parked], parked[0][1])
        return None
    if frame is not None and any(kind == "continue" for kind, _s, _r in frame.diverted):
        self.settle_diverted(frame, ("continue",))
        return None
    return status


def _state_key(self: Control) -> tuple[Any, ...]:
    """What the next loop iteration depends on: the same key twice in a row means the loop is in a
    fixed point (``while true; do server; sleep 5; done``) and every further iteration repeats."""
    return (self.snapshot(), self.last_status, self.pid_kept, self.waited)


def run_for(self: Control, node: Any) -> int | None:
    return self._in_loop(node, self._run_for)


def _run_for(self: Control, node: Any, frame: _Loop) -> int | None:
    var_node = node.child_by_field_name("variable")
    body = node.child_by_field_name("body")
    if var_node is None or body is None:
        return 0
    name = from_str(self.node_text(var_node))
    in_tok = next((c for c in node.children if not c.is_named and c.type == "in"), None)
    at = self.src.at(node.start_byte)
    self.cur_at = at
    words: list[ExpWord] | None
    if in_tok is None:
        words = self._positional_words(at)
    else:
        toks = L.tokenize_command(self.src.text, in_tok.end_byte, body.start_byte)
        words = []
        for w in toks.words:
            words.extend(self.expand_word(w))
    if words is None or any(w.text is None for w in words):
        reason = f"the list of `for {name}` ({self.src.line_at(node.start_byte)}) is not known statically"

        def once() -> int | None:
            self.set_var(name, None, at=at, expansion=f"for {name}", reason=reason)
            return self._loop_body(body)

        frame.unbounded = True
        return self.fork([once, lambda: 0], reason)
    status: int | None = 0
    for ew in words[:MAX_LOOP]:
        if frame.stop:
            return None
        self.set_var(name, ew.text, at=ew.at, expansion=f"for {name} in ...")
        try:
            status = self._iteration(body)
        except _Break:
            break
        except _Continue:
            continue
    return status


def _positional_words(self: Control, at: str) -> list[ExpWord] | None:
    if self.positional is None:
        return None
    return [ExpWord(p, at, '"$@"') for p in self.positional]


def _loop_body(self: Control, body: Any) -> int | None:
    try:
        return self.run_node(body)
    except (_Break, _Continue):
        return None


def run_c_for(self: Control, node: Any) -> int | None:
    return self._in_loop(node, self._run_c_for)


def _run_c_for(self: Control, node: Any, frame: _Loop) -> int | None:
    body = node.child_by_field_name("body")
    open_tok = next((c for c in node.children if c.type == "(("), None)
    close_tok = next((c for c in node.children if c.type == "))"), None)
    if open_tok is None or close_tok is None or body is None:
        return 0
    inner = self.src.text[open_tok.end_byte : close_tok.start_byte]
    parts = inner.split(";")
    if len(parts) != 3:
        return 0
    init, cond, upd = parts
    at = self.src.at(node.start_byte)
    self.cur_at = at
    reason = f"the loop `for (({inner}))` ({self.src.line_at(node.start_byte)}) is not known statically"
    try:
        if init.strip():
            e = self.expand_arith_text(init)
            if e is None:
                raise ArithError("unknown")
            self.arith(e)
        n = 0
        status: int | None = 0
        previous: tuple[Any, ...] | None = None
        while n < MAX_LOOP:
            n += 1
            key = self._state_key()
            if key == previous or frame.stop:
                frame.unbounded = True  # `for ((;;))`: the same iteration forever
                return None
            previous = key
            if cond.strip():
                e = self.expand_arith_text(cond)
                if e is None:
                    raise ArithError("unknown")
                if not self.arith(e):
                    break
            try:
                status = self._iteration(body)
            except _Break:
                break
            except _Continue:
                pass
            if upd.strip():
                e = self.expand_arith_text(upd)
                if e is None:
                    raise ArithError("unknown")
                self.arith(e)
        return status
    except ArithError:
        self.mark_arith_unknown(inner)
        frame.unbounded = True
        return self.fork([lambda: self._loop_body(body), lambda: 0], reason)


def run_while(self: Control, node: Any) -> int | None:
    return self._in_loop(node, self._run_while)


def _run_while(self: Control, node: Any, frame: _Loop) -> int | None:
    body = node.child_by_field_name("body")
    kw = node.children[0].type if node.child_count else "while"
    cond = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "condition"]
    if body is None:
        return 0
    status: int | None = 0
    start = cond[0].start_byte if cond else node.start_byte
    reason = (
        f"the condition of `{kw} {' '.join(self._short(c) for c in cond if c.is_named)}` "
        f"({self.src.line_at(start)}), which is not known statically"
    )
    previous: tuple[Any, ...] | None = None
    for _ in range(MAX_LOOP):
        key = self._state_key()
        if key == previous or frame.stop:
            # a restart loop: the condition and the body see what they saw last time, forever
            frame.unbounded = True
            return None
        previous = key
        st = self.run_condition(cond)
        if st is None:
            frame.unbounded = True
            self.fork([lambda: self._loop_body(body), lambda: 0], reason)
            # after an unknown number of iterations, what the body assigns is unknown
            return None
        if (st == 0) != (kw == "while"):
            return status
        try:
            status = self._iteration(body)
        except _Break:
            return 0
        except _Continue:
            pass
    frame.unbounded = True
    self.emit("loop_limit", self.src.at(node.start_byte), limit=MAX_LOOP)
    return None
