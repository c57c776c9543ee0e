"""Engines, streams and synchronisation (S-16).

Each engine runs its own stream in order. Before a bundle runs, its wait must hold (sem_ge_imm:
semaphore >= value; sem_ge_reg: semaphore >= the engine's register; evt_set_clear: the event is
set, and the wait clears it); after it runs, its update is applied. Engines take turns one bundle
at a time in the order pool, act, pe, dma, dve, sp. When every engine that still has bundles is
waiting, the run stops with a report of who waits for what.
"""

from __future__ import annotations


from dataclasses import dataclass, field
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..decode.bundle import DecodedBundle, DecodeFailure, iter_stream
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.semantics import EngineSchedule
from ..isa.decisions.spec import UpdateModeWire
from ..isa.enums import WAIT_WIRE, UpdateMode, WaitMode
from ..isa.fields import BUNDLE_SIZE
from ..isa.formats import build_formats
from ..isa.layout import WaitLane
from ..numeric import signed
from .context import bundle_where
from .execute import execute
from .machine import DmaTransfer, ENGINES, LazyText, Machine, SimError, rewrap
from .trace import Timeline

_WAIT = {w: m for m, w in WAIT_WIRE.items()}


class Deadlock(SimError):
    """Every engine with work left is waiting and no DMA is in flight; ``waiting`` says who waits for
    what (one line per engine: the bundle, the condition, the semaphore's value and who last changed it)."""

    def __init__(self, waiting: list[str]) -> None:
        self.waiting = waiting
        super().__init__("deadlock: every engine with bundles left is waiting and no DMA is in flight:\n  "
                         + "\n  ".join(waiting))


def _where_at(s: Stream, pc: int) -> LazyText:
    """``s.where(pc)``, formatted when read (its BIR label parsed from the .dbg members only then)."""
    return LazyText(lambda: s.where(pc))


def _issued_where(s: Stream, pc: int, d: DecodedBundle, text: str | LazyText) -> LazyText:
    """The name of a DMA issued by bundle ``pc`` of ``s``: the stream, bundle and BIR instruction that
    issued it (what the handler added after its own name of the bundle, a 0xC1 block's descriptor say,
    stays after it), formatted when read."""
    def make() -> str:
        head, own = bundle_where(s.engine, d), str(text)
        return s.where(pc) + own[len(head):] if own.startswith(head) else s.where(pc)
    return LazyText(make)


@dataclass
class Stream:
    engine: str
    bundles: list[DecodedBundle]
    pc: int = 0
    name: str = ""
    #: the BIR instruction name of each bundle (a NEFF's .dbg members), for reports and traces
    labels: Sequence[str | None] | None = None
    #: per bundle, its active waits as (kind, index, operand) (:meth:`Scheduler._wait_plan`), made on first test
    wait_plans: dict[int, tuple[tuple[int, int, int], ...]] = field(default_factory=dict, repr=False)
    #: per bundle, its sync effects as (events to clear, (update mode, index, value)...) (:meth:`Scheduler._update_plan`)
    update_plans: dict[int, tuple[tuple[int, ...], tuple[tuple[UpdateMode, int, int], ...]]] = field(
        default_factory=dict, repr=False)

    @property
    def done(self) -> bool:
        return self.pc >= len(self.bundles)

    def where(self, pc: int | None = None) -> str:
        """``sg00.pe bundle 3 (I-87-0, Ldweights) at +0xc0``: a bundle as a report names it."""
        pc = self.pc if pc is None else pc
        d = self.bundles[pc]
        label = self.labels[pc] if self.labels is not None and pc < len(self.labels) else None
        return f"{self.name or self.engine} bundle {pc} ({f'{label}, ' if label else ''}{d.mnemonic}) at +{d.offset:#x}"


@dataclass
class RunStats:
    executed: int = 0
    rounds: int = 0
    per_engine: dict[str, int] = field(default_factory=dict)
    #: DMAs completed
    dmas: int = 0


StandIn = Callable[[DecodeFailure], DecodedBundle | None]


def load_streams(streams: Mapping[str, bytes | bytearray | memoryview], decisions: DecisionSet = DEFAULT_DECISIONS,
                 *, stand_in: StandIn | None = None, names: Mapping[str, str] | None = None) -> list[Stream]:
    """Decode each engine's stream; an undecodable bundle cannot run (unless ``stand_in`` gives a
    bundle to run in its place: the NEFF runner's S-62). ``names`` gives a stream's report name
    (``sg00.pe``) by engine."""
    fs = build_formats(decisions)
    out = []
    for engine, data in streams.items():
        if engine not in ENGINES:
            raise SimError(f"stream {engine!r} is not an engine ({', '.join(ENGINES)}); name the files "
                           "pool.bin, act.bin, pe.bin, dma.bin, dve.bin or sp.bin")
        name = (names or {}).get(engine, engine)
        bundles = []
        for d in iter_stream(data, formats=fs):
            if isinstance(d, DecodeFailure):
                alt = stand_in(d) if stand_in is not None else None
                if alt is None:
                    raise SimError(f"{name} bundle {d.offset // BUNDLE_SIZE} at +{d.offset:#x}: cannot run an "
                                   f"undecodable bundle: {d.reason}")
                d = alt
            bundles.append(d)
        out.append(Stream(engine, bundles, name=name))
    out.sort(key=lambda s: ENGINES.index(s.engine))
    return out


class Scheduler:
    """Runs engine streams on a machine, honouring their sync bands.

    ``timeline`` (optional) records the schedule for ``--trace`` (:mod:`.trace`); ``dma_queues``
    names the DMA track of each engine there (a NEFF's ``dma_queue``); ``seed`` drives S-60=random.
    """

    def __init__(self, machine: Machine, streams: list[Stream], decisions: DecisionSet = DEFAULT_DECISIONS,
                 trace: Callable[[str, DecodedBundle, int, str | None], None] | None = None,
                 progress: Callable[[int, int | None], None] | None = None, *, timeline: Timeline | None = None,
                 dma_queues: Mapping[str, str] | None = None, seed: int = 0,
                 max_executed: int | None = None) -> None:
        from ..passes.program import max_instructions

        self.m = machine
        #: the run stops with a SimError after this many executed bundles (branches can loop): the
        #: instruction cap (``TONGASM_MAX_INSTRUCTIONS``) unless given
        self.max_executed = max_instructions() if max_executed is None else max_executed
        self.progress = progress  # progress(executed, total bundles), every 256 bundles or so
        self.streams = streams
        self.ds = decisions
        self.trace = trace
        self.stats = RunStats()
        self._d2 = decisions.get(UpdateModeWire)
        self._by_wire = self._d2.by_wire()
        self.timeline = timeline
        self.dma_queues = dict(dma_queues or {})
        self.seed = seed
        self.clock = 0  # rounds (S-60=turns) or steps (S-60=random): the trace's time
        self._blocked: dict[str, tuple[int, str]] = {}  # engine -> (since, what) while it waits (trace only)
        #: (trace only) the last change of each semaphore ("sem", i) / event ("evt", i): (track, step, who),
        #: the start of the flow arrow to the wait it releases
        self._changed: dict[tuple[str, int], tuple[str, int, str]] = {}
        self._prev_dma_hook = machine.on_dma_complete
        machine.on_dma_complete = self._dma_done

    # --- sync -----------------------------------------------------------------------------------

    def _wait_text(self, s: Stream, d: DecodedBundle) -> str | None:
        """None when every wait of the bundle holds, else a description of what is awaited (S-47:
        EventSemaphore's two wait lanes are both checked before it runs)."""
        lanes = d.fmt.sync
        if lanes is None:
            return None
        for lane in lanes.waits:
            text = self._lane_wait(s, d, lane)
            if text is not None:
                return text
        return None

    def _wait_plan(self, s: Stream, d: DecodedBundle) -> tuple[tuple[int, int, int], ...]:
        """The bundle's active waits, read once from its fields: (0, sem, need) for sem >= imm, (1, sem,
        register) for sem >= register, (2, event, 0) for an event; a lane of an unknown mode makes no plan
        (:meth:`_ready` then asks :meth:`_wait_text`, which names it)."""
        plan = s.wait_plans.get(s.pc)
        if plan is None:
            out = []
            lanes = d.fmt.sync
            for lane in lanes.waits if lanes is not None else ():
                f = d.fields
                mode = f[lane.mode]
                if mode == 0:
                    continue
                wm = _WAIT.get(mode)
                if wm == WaitMode.sem_ge_imm:
                    out.append((0, f[lane.index], signed(f[lane.value], 32)))
                elif wm == WaitMode.sem_ge_reg:
                    out.append((1, f[lane.index], f[lane.value]))
                elif wm == WaitMode.evt_set_clear:
                    out.append((2, f[lane.index], 0))
                else:
                    return ((3, 0, 0),)  # not cached: _wait_text raises the unknown mode
            plan = s.wait_plans[s.pc] = tuple(out)
        return plan

    def _ready(self, s: Stream, d: DecodedBundle) -> bool:
        """Whether every wait of the bundle holds (what :meth:`_wait_text` says, without its text)."""
        for kind, idx, v in self._wait_plan(s, d):
            if kind == 0:
                if self.m.semaphores[idx] < v:
                    return False
            elif kind == 1:
                if self.m.semaphores[idx] < signed(self.m.reg(s.engine, v), 32):
                    return False
            elif kind == 2:
                if not self.m.events[idx]:
                    return False
            else:
                return self._wait_text(s, d) is None
        return True

    def _lane_wait(self, s: Stream, d: DecodedBundle, lane: WaitLane) -> str | None:
        f = d.fields
        mode = f[lane.mode]
        if mode == 0:
            return None
        wm = _WAIT.get(mode)
        idx = f[lane.index]
        if wm == WaitMode.sem_ge_imm:
            need, have = signed(f[lane.value], 32), int(self.m.semaphores[idx])
            return None if have >= need else f"sem{idx} >= {need} (sem{idx} = {have})"
        if wm == WaitMode.sem_ge_reg:
            need = signed(self.m.reg(s.engine, f[lane.value]), 32)
            have = int(self.m.semaphores[idx])
            return None if have >= need else f"sem{idx} >= r{f[lane.value]} = {need} (sem{idx} = {have})"
        if wm == WaitMode.evt_set_clear:
            return None if self.m.events[idx] else f"event {idx} to be set"
        raise SimError(f"{s.where()}: unknown wait mode {mode:#04x}")

    def _waiting_report(self, s: Stream) -> str:
        """What a blocked stream waits for, with who last changed the semaphore (deadlock reports)."""
        d = s.bundles[s.pc]
        text = self._wait_text(s, d) or "nothing (its waits hold)"
        lanes = d.fmt.sync
        notes = []
        for lane in lanes.waits if lanes is not None else ():
            if d.fields[lane.mode] == 0 or self._lane_wait(s, d, lane) is None:
                continue
            idx = d.fields[lane.index]
            kind = "event" if _WAIT.get(d.fields[lane.mode]) == WaitMode.evt_set_clear else "sem"
            last = self.m.sem_last.get(idx) if kind == "sem" else None
            notes.append(f"{kind}{idx} last changed by {last}" if last else f"{kind}{idx} never changed")
            break
        return f"{s.where()} waits for {text}" + (f"; {notes[0]}" if notes else "")

    def _after(self, s: Stream, d: DecodedBundle) -> None:
        plan = s.update_plans.get(s.pc)
        if plan is None:
            plan = s.update_plans[s.pc] = self._update_plan(s, d)
        clears, updates = plan
        for idx in clears:
            self.m.events[idx] = False  # the waiter clears the event
        for um, idx, value in updates:
            self._apply_update(s, um, idx, value)

    def _update_plan(self, s: Stream, d: DecodedBundle) -> tuple[tuple[int, ...], tuple[tuple[UpdateMode, int, int], ...]]:
        """The bundle's sync effects, read once from its fields: the events its waits clear, and its
        updates as (mode, index, value) in lane order (D-2: the all-zero bands that are no update left out)."""
        lanes = d.fmt.sync
        if lanes is None:
            return (), ()
        f = d.fields
        clears = tuple(f[w.index] for w in lanes.waits if f[w.mode] == WAIT_WIRE[WaitMode.evt_set_clear])
        updates = []
        for u in lanes.updates:
            mode = f[u.mode]
            if mode == 0 and self._d2.zero_is_none:
                continue
            if mode == 0 and f[u.index] == 0:
                # D-2=raw: mode 0 is evt_set, but an all-zero band is no update. The shared dword tells
                # them apart only when no sem_ge wait owns it (else "set event 0" cannot be told apart).
                wait_owns_value = any(f[w.mode] in (WAIT_WIRE[WaitMode.sem_ge_imm], WAIT_WIRE[WaitMode.sem_ge_reg])
                                      for w in lanes.waits if w.value == u.value)
                if not f[u.value] or wait_owns_value:
                    continue
            um = self._by_wire.get(mode)
            if um is None:
                raise SimError(f"{s.where()}: unknown update mode {mode:#04x}")
            updates.append((um, f[u.index], signed(f[u.value], 32)))
        return clears, tuple(updates)

    def _apply_update(self, s: Stream, um: UpdateMode, idx: int, value: int) -> None:
        sem = self.m.semaphores
        if um == UpdateMode.evt_set:
            self.m.events[idx] = True
        elif um == UpdateMode.sem_add_imm:
            sem[idx] = signed(int(sem[idx]) + value, 32)
        elif um == UpdateMode.sem_sub_imm:
            sem[idx] = signed(int(sem[idx]) - value, 32)
        elif um == UpdateMode.sem_inc:
            sem[idx] = signed(int(sem[idx]) + 1, 32)
        elif um == UpdateMode.sem_dec:
            sem[idx] = signed(int(sem[idx]) - 1, 32)
        elif um == UpdateMode.sem_wr_imm:
            sem[idx] = value
        if um != UpdateMode.evt_set:
            self.m.sem_last[idx] = _where_at(s, s.pc)
        if self.timeline is not None:
            self._changed[("evt" if um == UpdateMode.evt_set else "sem", idx)] = (s.engine, self.clock, s.where())

    # --- the trace ----------------------------------------------------------------------------------

    def _dma_done(self, t: DmaTransfer) -> None:
        self.stats.dmas += 1
        if self.timeline is not None:
            start = t.issued if t.issued >= 0 else self.clock
            queue = self.dma_queues.get(t.engine, f"{t.engine} DMA")
            self.timeline.dma(queue, start, self.clock, t.where,
                              {"semaphore": t.semaphore, "increments": list(t.increments)})
            if t.semaphore is not None:
                self._changed[("sem", t.semaphore)] = (queue, self.clock, f"the completion of the DMA of {t.where}")
        if self._prev_dma_hook is not None:
            self._prev_dma_hook(t)

    def _released_by(self, d: DecodedBundle) -> list[tuple[str, int, str]]:
        """(trace) The last change of each semaphore or event the bundle waits on: what let it run."""
        lanes = d.fmt.sync
        out = []
        for lane in lanes.waits if lanes is not None else ():
            mode = d.fields[lane.mode]
            if mode == 0:
                continue
            kind = "evt" if _WAIT.get(mode) == WaitMode.evt_set_clear else "sem"
            src = self._changed.get((kind, d.fields[lane.index]))
            if src is not None:
                out.append(src)
        return out

    def _note_blocked(self, s: Stream, text: str) -> None:
        if s.engine not in self._blocked:
            self._blocked[s.engine] = (self.clock, text)

    # --- run --------------------------------------------------------------------------------------

    def _step(self, s: Stream, d: DecodedBundle) -> None:
        """Run the stream's next bundle (its waits hold) and apply its updates."""
        tl = self.timeline
        if tl is not None:
            waited = self._blocked.pop(s.engine, None)
            released = self._released_by(d) if waited is not None else []
            if waited is not None:
                tl.wait(s.engine, waited[0], self.clock, waited[1],
                        {"released by": [who for _track, _t, who in released]} if released else None)
            label = s.labels[s.pc] if s.labels is not None and s.pc < len(s.labels) else None
            tl.bundle(s.engine, self.clock, f"{d.mnemonic} {label}" if label else d.mnemonic,
                      {"bundle": s.pc, "offset": f"{d.offset:#x}", "mnemonic": d.mnemonic,
                       **({"bir": label} if label else {})})
            for track, t, _who in released:  # an arrow from the update that let this bundle run
                tl.flow(track, t, s.engine, self.clock)
        mark = self.m.dma_pending.appended
        if self.trace is not None:
            self.trace(s.engine, d, self.stats.executed,
                       s.labels[s.pc] if s.labels is not None and s.pc < len(s.labels) else None)
        try:
            execute(self.m, s.engine, d, self.ds)
        except SimError as e:
            if s.name and s.name != s.engine:
                raise rewrap(e, f"{s.where()}") from None
            raise
        self._after(s, d)
        for issued in self.m.dma_pending.since(mark):
            issued.issued = self.clock
            issued.where = _issued_where(s, s.pc, d, issued._where)
        s.pc += 1
        if self.m.halted and s.engine in self.m.halted:  # S-46: Halt / Exit end the stream
            s.pc = len(s.bundles)
        self.stats.executed += 1
        if self.stats.executed >= self.max_executed and not all(x.done for x in self.streams):
            raise SimError(f"the run has executed {self.stats.executed} bundles and is not done; tongasm runs at "
                           f"most {self.max_executed} (TONGASM_MAX_INSTRUCTIONS raises the cap)")
        self.stats.per_engine[s.engine] = self.stats.per_engine.get(s.engine, 0) + 1

    def _deadlock(self, live: list[Stream]) -> Deadlock:
        return Deadlock([self._waiting_report(s) for s in live])

    def run(self, max_rounds: int | None = None) -> RunStats:
        """Run every stream to its end (or ``max_rounds`` rounds); a deadlock raises :class:`Deadlock`."""
        try:
            if self.ds.get(EngineSchedule).randomised:
                return self._run_random(max_rounds)
            return self._run_turns(max_rounds)
        finally:
            self.m.on_dma_complete = self._prev_dma_hook

    def _run_turns(self, max_rounds: int | None) -> RunStats:
        live = [s for s in self.streams if not s.done]
        progress, next_report = self.progress, 0
        total = sum(len(s.bundles) for s in self.streams)
        tl = self.timeline
        while live:
            progressed = finished = False
            for s in live:
                d = s.bundles[s.pc]
                if not self._ready(s, d):
                    if tl is not None:
                        self._note_blocked(s, self._wait_text(s, d) or "")
                    continue
                self._step(s, d)
                progressed = True
                finished = finished or s.pc >= len(s.bundles)
            self.stats.rounds += 1
            if progress is not None and self.stats.executed >= next_report:
                progress(self.stats.executed, total)
                next_report = self.stats.executed + 256
            if finished:
                live = [s for s in live if not s.done]
            if not progressed and self.m.dma_pending:
                self.m.complete_dmas(count=1)  # S-40: every engine is blocked, the oldest queued DMA completes
                self.clock += 1
                continue
            self.clock += 1
            if not progressed:
                raise self._deadlock(live)
            if max_rounds is not None and self.stats.rounds >= max_rounds:
                break
        else:
            self.m.complete_dmas()  # S-40: what is still queued completes at the end of the run
        return self.stats

    def _run_random(self, max_rounds: int | None) -> RunStats:
        """S-60=random: each step runs one ready engine or completes one in-flight DMA, picked uniformly."""
        rng = np.random.default_rng(self.seed)
        live = [s for s in self.streams if not s.done]
        progress, next_report = self.progress, 0
        total = sum(len(s.bundles) for s in self.streams)
        tl = self.timeline
        pending = self.m.dma_pending
        while live or pending:
            ready = []
            for s in live:
                d = s.bundles[s.pc]
                text = self._wait_text(s, d)
                if text is None:
                    ready.append(s)
                elif tl is not None:
                    self._note_blocked(s, text)
            n = len(ready) + len(pending)
            if n == 0:
                raise self._deadlock(live)
            k = int(rng.integers(n))
            if k < len(ready):
                s = ready[k]
                self._step(s, s.bundles[s.pc])
                if s.done:
                    live.remove(s)
            else:
                pending.pop_at(k - len(ready)).complete(self.m)
            self.stats.rounds += 1
            self.clock += 1
            if progress is not None and self.stats.executed >= next_report:
                progress(self.stats.executed, total)
                next_report = self.stats.executed + 256
            if max_rounds is not None and self.stats.rounds >= max_rounds:
                break
        return self.stats
