"""Reading many targets at once, bounded: at most ``jobs`` at a time, each given ``timeout(item)`` seconds
from the moment it starts. A target past its time is aborted (its ``abort`` callback: the ssh session is
killed) and reported as timed out; one that still has not returned ``grace`` seconds later is abandoned
(its thread is a daemon: it never holds the command's exit) and its slot given to the next target. So the
whole run ends within ``ceil(len(items) / jobs) * (max timeout + grace)`` seconds, whatever the targets do.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

GRACE = 5.0  # after an abort, how long the aborted read may take to notice and return
POLL = 0.05


@dataclass
class Outcome(Generic[T, R]):
    """One target read by ``fleet``: its result, or the error it raised, or that it timed out, and how long
    it took."""

    item: T
    result: R | None = None
    error: BaseException | None = None
    timed_out: bool = False
    seconds: float = 0.0


def run_bounded(
    items: Sequence[T],
    work: Callable[[T], R],
    *,
    jobs: int,
    timeout: Callable[[T], float],
    abort: Callable[[T], None] | None = None,
    grace: float = GRACE,
) -> list[Outcome[T, R]]:
    """``work(item)`` for every item, in threads, ``timeout(item)`` seconds each; the outcomes in the order
    of ``items``. The caller's context (the run's redactor, ``--host``) is copied into each thread."""
    outcomes = [Outcome[T, R](item) for item in items]
    limits = [timeout(item) for item in items]
    done: queue.Queue[tuple[int, R | None, BaseException | None]] = queue.Queue()
    context = contextvars.copy_context()

    def run(index: int) -> None:
        try:
            done.put((index, work(items[index]), None))
        except Exception as exc:  # a reader's failure is its target's outcome, never the run's
            done.put((index, None, exc))

    started: dict[int, float] = {}  # running (or aborted, not yet given up): index -> start
    aborted: dict[int, float] = {}  # index -> when it was aborted
    finished: set[int] = set()
    waiting = list(range(len(items)))
    width = max(1, min(jobs, len(items) or 1))
    rounds = -(-len(items) // width)
    # The loop's own bound, beyond the per-item ones: it cannot outlive every round at its longest.
    limit = time.monotonic() + rounds * (max(limits, default=0.0) + grace) + 1.0
    from argtrace import deferred_dataclass

    deferred_dataclass.process_all()  # before any reader thread: none meets a dataclass half processed
    while len(finished) < len(items) and time.monotonic() < limit:
        while waiting and len(started) < width:
            index = waiting.pop(0)
            started[index] = time.monotonic()
            thread = threading.Thread(
                target=context.copy().run, args=(run, index), daemon=True, name=f"fleet-{index}"
            )
            thread.start()
        try:
            index, result, error = done.get(timeout=POLL)
        except queue.Empty:
            pass
        else:
            if index in started:  # not given up on yet
                outcome = outcomes[index]
                outcome.seconds = time.monotonic() - started.pop(index)
                outcome.result, outcome.error = (None, None) if index in aborted else (result, error)
                outcome.timed_out = index in aborted
                finished.add(index)
        now = time.monotonic()
        for index, begun in list(started.items()):
            if index not in aborted and now - begun > limits[index]:
                aborted[index] = now
                if abort is not None:
                    try:
                        abort(items[index])
                    except Exception:
                        pass  # the read is reported as timed out whatever the abort did
            elif index in aborted and now - aborted[index] > grace:
                outcomes[index].timed_out = True  # it ignored the abort: abandoned, its slot freed
                outcomes[index].seconds = now - started.pop(index)
                finished.add(index)
    for index in range(len(items)):  # past the loop's bound: reported, never waited for
        if index not in finished:
            outcomes[index].timed_out = True
            outcomes[index].seconds = time.monotonic() - started.get(index, time.monotonic())
    return outcomes
