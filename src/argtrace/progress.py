"""Progress for long work (resolution 10-40 s, SGLang's own pool sizing, ``resolver add``) on stderr.

Shown only when stderr is a terminal, with rich: a spinner, the stage and the elapsed time on one line that
disappears when the work is done; when stderr is not a terminal nothing is written (logs and CI output stay
exactly as before). The labels are argtrace's own words (a stage, a framework and release), never input
data, so the live display draws on the terminal behind the redacting stream (``boundary.RedactingStream``
would escape the cursor controls it needs).

The seam for tests: :func:`force` sends progress to a given stream as if it were a terminal (or turns it off
with ``None`` → back to "is stderr a terminal").
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TextIO

_forced: TextIO | None = None
_forced_set = False


def force(stream: TextIO | None) -> None:
    """Tests: draw progress on ``stream`` as on a terminal; ``force(None)`` restores the terminal check."""
    global _forced, _forced_set
    _forced, _forced_set = stream, stream is not None


def _terminal() -> TextIO | None:
    """The stream to draw on: the forced one, else the terminal behind stderr, else None (no progress)."""
    if _forced_set:
        return _forced
    err: Any = sys.stderr
    isatty = getattr(err, "isatty", None)
    try:
        if not callable(isatty) or not isatty():
            return None
    except (ValueError, OSError):  # a closed stream
        return None
    raw = getattr(err, "terminal_stream", None)  # RedactingStream: the terminal it wraps
    return raw if raw is not None else err


def active() -> bool:
    """True when progress is drawn (stderr is a terminal, or a test forced it)."""
    return _terminal() is not None


@contextmanager
def stage(label: str) -> Iterator[Callable[[str], None]]:
    """A stage of long work: ``with stage("resolving ...") as update: ...; update("installing torch")``.

    ``update`` replaces the label's detail (``resolver add``'s pip steps); it does nothing off a terminal.
    """
    stream = _terminal()
    if stream is None:
        yield lambda detail: None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    console = Console(file=stream, force_terminal=True, highlight=False)
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(detail: str) -> None:
            bar.update(task, description=f"{label}: {detail.strip()[:60]}")

        yield update
