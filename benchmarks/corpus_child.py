"""What the corpus benchmarks share: one graph per forked child, so a hang or a crash is a row of the
table (a timeout, a dead child), never the end of the run."""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable
from typing import Any


def failure(e: BaseException) -> str:
    """A failure as a table cell: its class and the first line of its message."""
    msg = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {msg}"[:300]


def run_in_child(target: Callable[..., None], args: tuple[Any, ...], timeout: float,
                 row: dict[str, Any]) -> dict[str, Any]:
    """Run ``target(*args, queue)`` in a forked child for at most ``timeout`` seconds: the dict it puts
    on the queue, or ``row`` with ``why`` saying it timed out or died; ``time`` is the child's own
    figure when it gives one, else the wall time."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(*args, q))
    t0 = time.perf_counter()
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.kill()
        p.join()
        r = dict(row, why=f"timeout ({timeout:.0f} s)")
    else:
        try:
            r = q.get(timeout=5)
        except Exception:
            r = dict(row, why=f"child died (exit {p.exitcode})")
    r.setdefault("time", time.perf_counter() - t0)
    return r
