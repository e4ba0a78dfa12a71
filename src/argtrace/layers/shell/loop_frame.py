"""The frame of a loop being evaluated (``_Loop``), in a module of its own: a script without a loop never
makes the class (dcls36: a dataclass made at import costs ~0.3 M instructions; ``control_loops`` makes the
frames, ``core.Core.loops`` holds them)."""

from __future__ import annotations

from dataclasses import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@dataclass
class _Loop:
    """A loop being evaluated: where it is and which servers were recorded since it started."""

    at: str  # FILE:LINE
    first_server: int  # index into ShellEvaluator.servers
    unbounded: bool = False  # the number of iterations is unknown (or infinite): every start inside repeats
    stop: bool = False  # set when further iterations could only fold more servers into one (MAX_LOOP_SERVERS)
    # the paths that left this loop's body by `break`/`continue` on one fork of an unknown condition while
    # other forks went on: (kind, state, the condition), merged where bash resumes them (the loop's end,
    # the next iteration); `marks` are the positions in ``spec`` that say the rest is conditional on them
    diverted: list[tuple[str, Any, str]] = field(default_factory=list)
    marks: list[int] = field(default_factory=list)
