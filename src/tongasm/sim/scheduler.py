"""Engines, streams and synchronisation (S-16).

Each engine runs its own stream in order. Before a bundle runs, its wait must hold (sem_ge_imm:
semaphore >= value; sem_ge_reg: semaphore >= the engine's register; evt_set_clear: the event is
set, and the wait clears it); after it runs, its update is applied. Engines take turns one bundle
at a time in the order pool, act, pe, dma, dve, sp. When every engine that still has bundles is
waiting, the run stops with a report of who waits for what.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Mapping

from ..decode.bundle import DecodedBundle, DecodeFailure, iter_stream
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.spec import UpdateModeWire
from ..isa.enums import WAIT_WIRE, UpdateMode, WaitMode
from ..isa.formats import build_formats
from ..isa.layout import SyncLanes, UpdateLane, WaitLane
from .execute import execute
from .machine import ENGINES, Machine, SimError

_WAIT = {w: m for m, w in WAIT_WIRE.items()}


class Deadlock(SimError):
    """Every engine with work left is waiting; ``waiting`` says who waits for what."""

    def __init__(self, waiting: list[str]) -> None:
        self.waiting = waiting
        super().__init__("deadlock: every engine with bundles left is waiting:\n  " + "\n  ".join(waiting))


@dataclass
class Stream:
    engine: str
    bundles: list[DecodedBundle]
    pc: int = 0
    name: str = ""

    @property
    def done(self) -> bool:
        return self.pc >= len(self.bundles)


@dataclass
class RunStats:
    executed: int = 0
    rounds: int = 0
    per_engine: dict[str, int] = field(default_factory=dict)


def _signed32(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


def load_streams(streams: Mapping[str, bytes | bytearray | memoryview], decisions: DecisionSet = DEFAULT_DECISIONS) -> list[Stream]:
    """Decode each engine's stream; an undecodable bundle cannot run."""
    fs = build_formats(decisions)
    out = []
    for engine, data in streams.items():
        if engine not in ENGINES:
            raise SimError(f"stream {engine!r} is not an engine ({', '.join(ENGINES)}); name the files "
                           "pool.bin, act.bin, pe.bin, dma.bin, dve.bin or sp.bin")
        bundles = []
        for d in iter_stream(data, formats=fs):
            if isinstance(d, DecodeFailure):
                raise SimError(f"{engine}+{d.offset:#x}: cannot run an undecodable bundle: {d.reason}")
            bundles.append(d)
        out.append(Stream(engine, bundles, name=engine))
    out.sort(key=lambda s: ENGINES.index(s.engine))
    return out


class Scheduler:
    """Runs engine streams on a machine, honouring their sync bands."""

    def __init__(self, machine: Machine, streams: list[Stream], decisions: DecisionSet = DEFAULT_DECISIONS,
                 trace: Callable[[str, DecodedBundle, int], None] | None = None,
                 progress: Callable[[int, int | None], None] | None = None) -> None:
        self.m = machine
        self.progress = progress  # progress(executed, total bundles), every 256 bundles or so
        self.streams = streams
        self.ds = decisions
        self.trace = trace
        self.stats = RunStats()
        self._d2 = decisions.get(UpdateModeWire)
        self._by_wire = self._d2.by_wire()

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

    def _lane_wait(self, s: Stream, d: DecodedBundle, lane: WaitLane) -> str | None:
        f = d.fields
        mode = f[lane.mode]
        if mode == 0:
            return None
        wm = _WAIT.get(mode)
        idx = f[lane.index]
        if wm == WaitMode.sem_ge_imm:
            need, have = _signed32(f[lane.value]), int(self.m.semaphores[idx])
            return None if have >= need else f"sem{idx} >= {need} (sem{idx} = {have})"
        if wm == WaitMode.sem_ge_reg:
            need = _signed32(self.m.reg(s.engine, f[lane.value]))
            have = int(self.m.semaphores[idx])
            return None if have >= need else f"sem{idx} >= r{f[lane.value]} = {need} (sem{idx} = {have})"
        if wm == WaitMode.evt_set_clear:
            return None if self.m.events[idx] else f"event {idx} to be set"
        raise SimError(f"{s.engine}+{d.offset:#x}: unknown wait mode {mode:#04x}")

    def _after(self, s: Stream, d: DecodedBundle) -> None:
        lanes = d.fmt.sync
        if lanes is None:
            return
        f = d.fields
        for w in lanes.waits:
            if f[w.mode] == WAIT_WIRE[WaitMode.evt_set_clear]:
                self.m.events[f[w.index]] = False  # the waiter clears the event
        for u in lanes.updates:
            self._apply_update(s, d, u, lanes)

    def _apply_update(self, s: Stream, d: DecodedBundle, u: UpdateLane, lanes: SyncLanes) -> None:
        f = d.fields
        mode = f[u.mode]
        if mode == 0 and self._d2.zero_is_none:
            return
        if mode == 0 and f[u.index] == 0:
            # D-2=raw: mode 0 is evt_set, but an all-zero band is no update. The shared dword tells
            # them apart only when no sem_ge wait owns it (else "set event 0" cannot be told apart).
            wait_owns_value = any(f[w.mode] in (WAIT_WIRE[WaitMode.sem_ge_imm], WAIT_WIRE[WaitMode.sem_ge_reg])
                                  for w in lanes.waits if w.value == u.value)
            if not f[u.value] or wait_owns_value:
                return
        um = self._by_wire.get(mode)
        if um is None:
            raise SimError(f"{s.engine}+{d.offset:#x}: unknown update mode {mode:#04x}")
        idx, value = f[u.index], _signed32(f[u.value])
        sem = self.m.semaphores
        if um == UpdateMode.evt_set:
            self.m.events[idx] = True
        elif um == UpdateMode.sem_add_imm:
            sem[idx] = _signed32(int(sem[idx]) + value)
        elif um == UpdateMode.sem_sub_imm:
            sem[idx] = _signed32(int(sem[idx]) - value)
        elif um == UpdateMode.sem_inc:
            sem[idx] = _signed32(int(sem[idx]) + 1)
        elif um == UpdateMode.sem_dec:
            sem[idx] = _signed32(int(sem[idx]) - 1)
        elif um == UpdateMode.sem_wr_imm:
            sem[idx] = value

    # --- run --------------------------------------------------------------------------------------

    def run(self, max_rounds: int | None = None) -> RunStats:
        live = [s for s in self.streams if not s.done]
        progress, next_report = self.progress, 0
        total = sum(len(s.bundles) for s in self.streams)
        while live:
            progressed = False
            for s in live:
                d = s.bundles[s.pc]
                if self._wait_text(s, d) is not None:
                    continue
                if self.trace is not None:
                    self.trace(s.engine, d, self.stats.executed)
                execute(self.m, s.engine, d, self.ds)
                self._after(s, d)
                s.pc += 1
                if self.m.halted and s.engine in self.m.halted:  # S-46: Halt / Exit end the stream
                    s.pc = len(s.bundles)
                self.stats.executed += 1
                self.stats.per_engine[s.engine] = self.stats.per_engine.get(s.engine, 0) + 1
                progressed = True
            self.stats.rounds += 1
            if progress is not None and self.stats.executed >= next_report:
                progress(self.stats.executed, total)
                next_report = self.stats.executed + 256
            live = [s for s in live if not s.done]
            if not progressed and self.m.dma_pending:
                self.m.complete_dmas(count=1)  # S-40: every engine is blocked, the oldest queued DMA completes
                continue
            if not progressed:
                raise Deadlock([f"{s.engine}+{s.bundles[s.pc].offset:#x} ({s.bundles[s.pc].mnemonic}, bundle "
                                f"{s.pc}) waits for {self._wait_text(s, s.bundles[s.pc])}" for s in live])
            if max_rounds is not None and self.stats.rounds >= max_rounds:
                break
        else:
            self.m.complete_dmas()  # S-40: what is still queued completes at the end of the run
        return self.stats
