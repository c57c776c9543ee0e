"""A run's schedule as a Chrome / Perfetto trace-event file (``tongasm run --trace FILE.json``).

The scheduler reports to a :class:`Timeline`: each bundle as it runs, each wait an engine sat in
before its bundle could start, and each DMA from issue to completion. Time is the scheduler's
logical clock (one step of :class:`~tongasm.sim.scheduler.Scheduler` = 1 µs in the viewer; not
hardware time): a bundle is a slice of one step on its engine's track, a wait a slice named after
what was awaited, a DMA an async slice on its queue's track. One process per core (graph), one
thread (track) per engine. A bundle's slice is named by its mnemonic and BIR instruction
(``Matmul I-87-0``; a kernel's instruction names), a DMA's by the bundle that issued it; a flow arrow
goes from each semaphore update (a bundle, or a DMA's completion) to the bundle whose wait it released,
and the wait slice names it. The cores of a NEFF are simulated one after the other: the trace shows
them so, each core's process labelled with its place in that order. Open the file in
https://ui.perfetto.dev or chrome://tracing.

The format is the Trace Event Format's JSON object form: ``{"traceEvents": [...]}`` with complete
events (``ph: "X"``), async begin/end pairs (``"b"``/``"e"``), flow pairs (``"s"``/``"f"``) and
metadata (``"M"``) naming the processes and threads.
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
        self._flow_ids = 0
        self._completions: set[tuple[int, str, int]] = set()
        self.offset = 0  # added to the scheduler's clock: the cores of a sequential run follow each other

    def core(self, name: str, label: str | None = None) -> None:
        """Start the events of a new core (process) named ``name``; ``label`` is shown beside the name
        (how this core's time relates to the others')."""
        self._pid += 1
        self.events.append({"ph": "M", "name": "process_name", "pid": self._pid, "tid": 0, "args": {"name": name}})
        if label:
            self.events.append({"ph": "M", "name": "process_labels", "pid": self._pid, "tid": 0,
                                "args": {"labels": label}})
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

    def wait(self, engine: str, start: int, end: int, what: str, args: dict[str, Any] | None = None) -> None:
        """``engine`` waited from step ``start`` to ``end`` for ``what`` (a semaphore condition);
        ``args`` (the update that released it...) go with the slice."""
        if end > start:
            self.events.append({"ph": "X", "cat": "wait", "name": f"wait {what}", "pid": self._pid,
                                "tid": self._tid(engine), "ts": self.offset + start, "dur": end - start,
                                "args": {"waits for": what, **(args or {})}})

    def flow(self, src: str, src_t: int, dst: str, dst_t: int) -> None:
        """A flow arrow from the slice on track ``src`` at step ``src_t`` (a semaphore update: a bundle,
        or a DMA's completion, drawn as a one-step ``completion`` slice on its queue's track) to the
        bundle on ``dst`` at ``dst_t`` whose wait it released."""
        self._flow_ids += 1
        if src not in ENGINES and (self._pid, src, src_t) not in self._completions:
            # a DMA queue: its async slice cannot hold an arrow's end, a one-step slice does
            self._completions.add((self._pid, src, src_t))
            self.events.append({"ph": "X", "cat": "dma", "name": "completion", "pid": self._pid,
                                "tid": self._tid(src), "ts": self.offset + src_t, "dur": 1, "args": {}})
        base = {"cat": "sync", "name": "release", "pid": self._pid, "id": self._flow_ids}
        self.events.append({**base, "ph": "s", "tid": self._tid(src), "ts": self.offset + src_t})
        self.events.append({**base, "ph": "f", "bp": "e", "tid": self._tid(dst), "ts": self.offset + dst_t})

    def dma(self, queue: str, start: int, end: int, name: str, args: dict[str, Any]) -> None:
        """A DMA on ``queue`` from issue (step ``start``) to completion (``end``)."""
        self._dma_ids += 1
        tid = self._tid(queue)
        base = {"cat": "dma", "name": name, "pid": self._pid, "tid": tid, "id": self._dma_ids}
        self.events.append({**base, "ph": "b", "ts": self.offset + start, "args": args})
        self.events.append({**base, "ph": "e", "ts": self.offset + max(end, start)})

    def to_json(self) -> dict[str, Any]:
        other = {"producer": "tongasm run --trace", "clock": "scheduler steps (1 step = 1 us), not hardware time"}
        if self._pid > 1:
            other["cores"] = ("simulated one after the other, each from where the one before ended (the simulator "
                              "shares memory between them in that order); on the device they run at the same time")
        return {"traceEvents": self.events, "displayTimeUnit": "ms", "otherData": other}

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
