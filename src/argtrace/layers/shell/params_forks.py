"""The forks of the shell's state where a condition is not known statically (code35: loaded on a script's
first one): each branch run from a copy of the state, diverted and settled again, and the branches' states
merged. Methods of :class:`~argtrace.layers.shell.params.Params` (see ``deferred.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from argtrace.layers.shell.core import _Break, _Continue, _Exit, _Return, to_str
from argtrace.layers.shell.state import Snapshot, Var

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from argtrace.layers.shell.params import Params


def fork(self: Params, alternatives: Sequence[Callable[[], int | None]], reason: str) -> int | None:
    """Run each alternative on a copy of the state and merge the results."""
    base = self.snapshot()
    results: list[Snapshot] = []
    statuses: list[int | None] = []
    exits: list[_Exit] = []
    ctl: BaseException | None = None
    returned: list[int | None] = []  # statuses of the forks that left the function by `return`
    frame = self.return_frames[-1] if self.return_frames else None
    partial_before = len(frame["partial"]) if frame is not None else 0
    first_event = len(self.events)
    depth = len(self.spec)
    diverted: list[tuple[_Break | _Continue, Snapshot, Any]] = []  # paths that left by break/continue
    for alt in alternatives:
        self.restore(base)
        self.spec.append(reason)
        try:
            statuses.append(alt())
            results.append(self.snapshot())
        except _Exit as e:
            exits.append(e)
        except (_Break, _Continue) as e:
            loop = self._loop_aimed_at(e)
            if loop is None:
                # `break` outside any loop the evaluator knows: the path ends here
                ctl = e
                results.append(self.snapshot())
            else:
                diverted.append((e, self.snapshot(), loop))
        except _Return as e:
            # control leaves the construct on this path only: treat as the path ending here
            ctl = e
            if isinstance(e, _Return):
                returned.append(e.status)
            results.append(self.snapshot())
        finally:
            # a nested fork may have left its own reason for the rest of this path: drop it with ours
            del self.spec[depth:]
    if diverted:
        kept = self._divert(diverted, reason, keep_one=not results)
        if kept is not None:
            raise kept
    if not results:
        self.restore(base)
        # every fork exits: the exit is certain here, not conditional on this fork's condition
        for event in self.events[first_event:]:
            if event.kind == "errexit":
                if self.spec:
                    event.data["conditional"] = self.spec[-1]
                else:
                    event.data.pop("conditional", None)
        raise _Exit(None, reason)
    self._merge(results, reason)
    if frame is not None and returned and len(returned) < len(alternatives):
        frame["partial"].extend(returned)
    if frame is not None and len(frame["partial"]) > partial_before:
        # some forks returned from the function here: what follows runs only on the others
        self.spec.append(reason)
    if ctl is not None and len(results) == 1 and not statuses:
        raise ctl
    if len(set(statuses)) == 1 and len(statuses) == len(results):
        return statuses[0]
    return None


def _loop_aimed_at(self: Params, ctl: _Break | _Continue) -> Any:
    """The loop a ``break N``/``continue N`` leaves or goes on with (bash: the outermost when N is
    larger than the nesting), or None outside any loop."""
    loops = getattr(self, "loops", None)
    if not loops:
        return None
    index = max(len(loops) - ctl.n, 0)
    return loops[index] if index >= getattr(self, "loop_floor", 0) else None


def _divert(
    self: Params, diverted: list[tuple[_Break | _Continue, Snapshot, Any]], reason: str, keep_one: bool
) -> _Break | _Continue | None:
    """Park the paths that left by ``break``/``continue`` on their loop, where bash resumes them (the
    loop's end, its next iteration), instead of letting them run on as if they had not. With no other
    path going on (``keep_one``), the last of them is the one that goes on now: its state is restored
    and its exception returned, to be raised."""
    parked = diverted[:-1] if keep_one else diverted
    for ctl, snap, loop in parked:
        loop.diverted.append(("break" if isinstance(ctl, _Break) else "continue", snap, reason))
    if keep_one:
        ctl, snap, _loop = diverted[-1]
        self.restore(snap)
        return ctl
    # what follows in the body runs only on the forks that did not leave it
    for _ctl, _snap, loop in parked:
        loop.marks.append(len(self.spec))
    self.spec.append(reason)
    return None


def settle_diverted(self: Params, loop: Any, kinds: tuple[str, ...]) -> None:
    """Merge the paths parked on ``loop`` by ``kinds`` (``continue`` at the end of an iteration, both at
    the loop's end) into the current state, as bash joins them there."""
    parked = [(snap, why) for kind, snap, why in loop.diverted if kind in kinds]
    if not parked:
        return
    loop.diverted = [d for d in loop.diverted if d[0] not in kinds]
    self._merge([self.snapshot(), *(snap for snap, _why in parked)], parked[0][1])
    if loop.marks and not loop.diverted:
        del self.spec[min(loop.marks) :]
        loop.marks.clear()


def frame_status(self: Params, status: int | None) -> int | None:
    """The status of the function call or `source` ending now (its frame is the innermost): ``status``
    when every `return` taken on only some forks gave the same one, else not known statically."""
    partial = self.return_frames[-1]["partial"]
    return status if all(s == status for s in partial) else None


def run_frame(self: Params, run: Callable[[], int | None]) -> int | None:
    """Runs a function's body or a sourced file in a frame of its own: `return` ends it with its status,
    and the unknowns it noted are dropped when it ends."""
    self.return_frames.append({"partial": [], "spec": len(self.spec)})
    try:
        try:
            status = run()
        except _Return as r:
            status = r.status
        return self.frame_status(status)
    finally:
        del self.spec[self.return_frames.pop()["spec"] :]


def _merge(self: Params, snaps: list[Snapshot], reason: str) -> None:
    first = snaps[0]
    if len(snaps) == 1:
        self.restore(first)
        return
    depth = min(len(s.scopes) for s in snaps)
    scopes: list[dict[str, Var]] = []
    for level in range(depth):
        names: set[str] = set()
        for s in snaps:
            names.update(s.scopes[level])
        merged: dict[str, Var] = {}
        for name in names:
            vals = [s.scopes[level].get(name) for s in snaps]
            v0 = vals[0]
            if all(v == v0 for v in vals):
                if v0 is not None:
                    merged[name] = v0
                continue
            present = [v for v in vals if v is not None]
            if all(
                v is not None
                and v.known == present[0].known
                and v.value == present[0].value
                and v.array == present[0].array
                for v in vals
            ):
                merged[name] = present[0].with_(exported=any(v.exported for v in present))
                continue
            cands: list[str] = []
            for v in vals:
                shown = (
                    "unset"
                    if v is None or not v.is_set
                    else (f"`{to_str(v.scalar or '')}`" if v.known and v.array is None else "unknown")
                )
                if shown not in cands:
                    cands.append(shown)
            why = f"its value depends on {reason}"
            if len(cands) <= 4:
                why += " (" + " or ".join(cands) + ")"
            merged[name] = Var(
                value=None,
                known=False,
                exported=any(v.exported for v in present),
                reason=why,
                at=present[-1].at,
                expansion=present[-1].expansion,
            )
        scopes.append(merged)
    self.scopes = scopes
    pos = [s.positional for s in snaps]
    if all(p == pos[0] for p in pos):
        self.positional = None if pos[0] is None else list(pos[0])
        self.positional_reason = first.positional_reason
    else:
        self.positional = None
        self.positional_reason = f"the positional parameters depend on {reason}"
    self.funcs = {}
    for s in snaps:
        self.funcs.update(s.funcs)
    cwds = {s.cwd for s in snaps}
    if len(cwds) == 1:
        self.cwd = first.cwd
        self.cwd_reason = first.cwd_reason
    else:
        self.cwd = None
        self.cwd_reason = f"the working directory depends on {reason}"
    self.options = set().union(*(s.options for s in snaps))
    aliases: dict[str, Any] = {}
    for s in snaps:
        for name, a in s.extra.get("aliases", {}).items():
            if name in aliases and aliases[name] != a:
                a = replace(a, value=None)  # defined differently on the forks
            aliases[name] = a
    for name, a in aliases.items():
        if not all(name in s.extra.get("aliases", {}) for s in snaps):
            aliases[name] = replace(a, value=None)  # defined on some forks only
    self.aliases = aliases
