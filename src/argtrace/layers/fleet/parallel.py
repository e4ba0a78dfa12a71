"""Reading many targets at once, bounded: at most ``jobs`` at a time, each given ``timeout`` seconds from
the moment it starts. A target past its time is aborted (its ``abort`` callback: the ssh session is
killed) and reported as timed out; the whole run therefore ends within about
``ceil(len(items) / jobs) * (timeout + GRACE)`` seconds, whatever the targets do."""

from __future__ import annotations

import concurrent.futures as cf
import contextvars
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
    of ``items``. The caller's
    context (``--host`` of the CLI, the run's redactor) is copied into each thread."""
    outcomes = [Outcome[T, R](item) for item in items]
    if not items:
        return outcomes
    started: dict[int, float] = {}
    lock = threading.Lock()

    def run(index: int) -> R:
        with lock:
            started[index] = time.monotonic()
        return work(items[index])

    context = contextvars.copy_context()
    pool = cf.ThreadPoolExecutor(max_workers=max(1, min(jobs, len(items))), thread_name_prefix="fleet")
    futures = {pool.submit(context.copy().run, run, i): i for i in range(len(items))}
    pending = set(futures)
    aborted: dict[int, float] = {}
    # Bounded in time: no item runs longer than timeout + GRACE once started, and at most ``jobs`` run at
    # once, so this loop ends by ``limit`` at the latest.
    limits = [timeout(item) for item in items]
    rounds = -(-len(items) // max(1, jobs))
    limit = time.monotonic() + rounds * (max(limits) + grace) + 1.0
    try:
        while pending and time.monotonic() < limit:
            done, pending = cf.wait(pending, timeout=POLL, return_when=cf.FIRST_COMPLETED)
            for future in done:
                index = futures[future]
                outcome = outcomes[index]
                outcome.seconds = time.monotonic() - started.get(index, time.monotonic())
                if index in aborted:
                    outcome.timed_out = True
                    continue
                try:
                    outcome.result = future.result()
                except Exception as exc:  # a reader's failure is its target's outcome, never the run's
                    outcome.error = exc
            now = time.monotonic()
            with lock:
                running = dict(started)
            for future in pending:
                index = futures[future]
                begun = running.get(index)
                if begun is None or index in aborted or now - begun <= limits[index]:
                    continue
                aborted[index] = now
                if abort is not None:
                    try:
                        abort(items[index])
                    except Exception:
                        pass  # the read is reported as timed out whatever the abort did
        for future in pending:  # still running past the limit: reported, never waited for
            index = futures[future]
            outcomes[index].timed_out = True
            outcomes[index].seconds = time.monotonic() - started.get(index, time.monotonic())
            future.cancel()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return outcomes
