"""A run's schedule as a Chrome / Perfetto trace-event file (``tongasm run --trace FILE.json``).

The scheduler reports to a :class:`Timeline`: each bundle as it runs, each wait an engine sat in
before its bundle could start, and each DMA from issue to completion. Time is the scheduler's
logical clock (one step of :class:`~tongasm.sim.scheduler.Scheduler` = 1 µs in the viewer; not
hardware time): a bundle is a slice of one step on its engine's track, a wait a slice named after
what was awaited, a DMA an async slice on its queue's track. One process per core (graph), one
thread (track) per engine. Open the file in https://ui.perfetto.dev or chrome://tracing.

The format is the Trace Event Format's JSON object form: ``{"traceEvents": [...]}`` with complete
events (``ph: "X"``), async begin/end pairs (``"b"``/``"e"``) and metadata (``"M"``) naming the
processes and threads.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from .machine import ENGINES

#: the track order in a viewer: the engines (S-16 order), then the DMA queues
_DMA_TID = 100


class Timeline:
    """The events of one run; :meth:`core` starts a new process (one per NEFF graph)."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._pid = 0
        self._tids: dict[tuple[int, str], int] = {}
        self._dma_ids = 0
        self.offset = 0  # added to the scheduler's clock: the cores of a sequential run follow each other

    def core(self, name: str) -> None:
        """Start the events of a new core (process) named ``name``."""
        self._pid += 1
        self.events.append({"ph": "M", "name": "process_name", "pid": self._pid, "tid": 0, "args": {"name": name}})
        self.events.append({"ph": "M", "name": "process_sort_index", "pid": self._pid, "tid": 0,
                            "args": {"sort_index": self._pid}})

    def _tid(self, track: str) -> int:
        key = (self._pid, track)
        tid = self._tids.get(key)
        if tid is None:
            tid = ENGINES.index(track) + 1 if track in ENGINES else _DMA_TID + sum(1 for p, _ in self._tids if p == self._pid)
            self._tids[key] = tid
            self.events.append({"ph": "M", "name": "thread_name", "pid": self._pid, "tid": tid, "args": {"name": track}})
            self.events.append({"ph": "M", "name": "thread_sort_index", "pid": self._pid, "tid": tid,
                                "args": {"sort_index": tid}})
        return tid

    def bundle(self, engine: str, t: int, name: str, args: dict[str, Any]) -> None:
        """A bundle ran on ``engine`` at step ``t``."""
        self.events.append({"ph": "X", "cat": "bundle", "name": name, "pid": self._pid, "tid": self._tid(engine),
                            "ts": self.offset + t, "dur": 1, "args": args})

    def wait(self, engine: str, start: int, end: int, what: str) -> None:
        """``engine`` waited from step ``start`` to ``end`` for ``what`` (a semaphore condition)."""
        if end > start:
            self.events.append({"ph": "X", "cat": "wait", "name": f"wait {what}", "pid": self._pid,
                                "tid": self._tid(engine), "ts": self.offset + start, "dur": end - start,
                                "args": {"waits for": what}})

    def dma(self, queue: str, start: int, end: int, name: str, args: dict[str, Any]) -> None:
        """A DMA on ``queue`` from issue (step ``start``) to completion (``end``)."""
        self._dma_ids += 1
        tid = self._tid(queue)
        base = {"cat": "dma", "name": name, "pid": self._pid, "tid": tid, "id": self._dma_ids}
        self.events.append({**base, "ph": "b", "ts": self.offset + start, "args": args})
        self.events.append({**base, "ph": "e", "ts": self.offset + max(end, start)})

    def to_json(self) -> dict[str, Any]:
        return {"traceEvents": self.events, "displayTimeUnit": "ms",
                "otherData": {"producer": "tongasm run --trace", "clock": "scheduler steps (1 step = 1 us), not "
                                                                          "hardware time"}}

    def chunks(self) -> Iterator[str]:
        """The JSON text in pieces (a large run has ~10^5 events: no one giant string)."""
        head = self.to_json()
        events = head.pop("traceEvents")
        yield "{\"traceEvents\": [\n"
        for i, e in enumerate(events):
            yield ("" if i == 0 else ",\n") + json.dumps(e, separators=(",", ":"))
        yield "\n]"
        for k, v in head.items():
            yield f", {json.dumps(k)}: {json.dumps(v)}"
        yield "}\n"


def write_trace(timeline: Timeline, path: str) -> None:
    """Write the trace file atomically (nothing is left behind on an error)."""
    from ..io.outputs import atomic_write

    def fill(fh: Any) -> None:
        for piece in timeline.chunks():
            fh.write(piece.encode())

    atomic_write(path, fill)


__all__ = ["Timeline", "write_trace"]
