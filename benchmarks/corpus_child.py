"""What the corpus benchmarks share: one graph per forked child, so a hang or a crash is a row of the
table (a timeout, a dead child), never the end of the run."""

from __future__ import annotations

import multiprocessing as mp
import time
from collections.abc import Callable, Iterator
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


def run_in_children(target: Callable[..., None], argsets: list[tuple[Any, ...]], timeout: float,
                    row: dict[str, Any], jobs: int = 1) -> Iterator[dict[str, Any]]:
    """:func:`run_in_child` for each of ``argsets``, up to ``jobs`` children at a time, each with its own
    ``timeout``; yields the rows in the order of ``argsets`` (as each is known and all before it are)."""
    if jobs <= 1:
        for args in argsets:
            yield run_in_child(target, args, timeout, row)
        return
    ctx = mp.get_context("fork")
    done: dict[int, dict[str, Any]] = {}
    running: list[tuple[int, Any, Any, float]] = []  # (index, process, queue, start)
    nxt, emit = 0, 0
    while emit < len(argsets):
        while nxt < len(argsets) and len(running) < jobs:
            q = ctx.Queue()
            p = ctx.Process(target=target, args=(*argsets[nxt], q))
            p.start()
            running.append((nxt, p, q, time.perf_counter()))
            nxt += 1
        still = []
        for i, p, q, t0 in running:
            try:  # take the answer before joining: a child blocks on a full pipe until it is read
                r: dict[str, Any] | None = q.get_nowait()
            except Exception:
                r = None
            if r is not None:
                p.join()
            elif not p.is_alive():
                try:
                    r = q.get(timeout=5)
                except Exception:
                    r = dict(row, why=f"child died (exit {p.exitcode})")
            elif time.perf_counter() - t0 > timeout:
                p.kill()
                p.join()
                r = dict(row, why=f"timeout ({timeout:.0f} s)")
            if r is None:
                still.append((i, p, q, t0))
                continue
            r.setdefault("time", time.perf_counter() - t0)
            done[i] = r
        running = still
        while emit in done:
            yield done.pop(emit)
            emit += 1
        if running and emit not in done:
            time.sleep(0.02)
