"""What the sync/control bundles do (S-46): Halt / Exit end their engine's stream, Drain completes
the engine's queued DMAs, EventSemaphoreRangeClear zeroes semaphores; EventSemaphore, Nop,
SetOrderingMode and PseudoBranchLabel only wait (their sync lanes are the scheduler's, S-47).
"""

from __future__ import annotations

from collections.abc import Callable

from ...isa.layout import Sem
from ...isa.layouts.control import CLEAR_TABLE, SEM_MASK_WORDS
from ..context import Ctx
from ..machine import SimError

# --- sync/control (S-46) -----------------------------------------------------------------------------------

def halt(c: Ctx) -> None:
    c.m.halted.add(c.engine)


def drain(c: Ctx) -> None:
    c.m.complete_dmas(c.engine)


def semaphore_clear(c: Ctx) -> None:
    f = c.f
    if CLEAR_TABLE.names.get(f["clear_mode"]) == "range":
        c.m.semaphores[f["range_first"]:f["range_last"] + 1] = 0
        return
    if CLEAR_TABLE.names.get(f["clear_mode"]) != "mask":
        raise SimError(f"{c.where()}: unknown clear mode {f['clear_mode']:#04x}")
    for k in range(SEM_MASK_WORDS):
        word = f[f"sem_mask{k}"]
        for bit in range(32):
            if word >> bit & 1:
                c.m.semaphores[32 * k + bit] = 0


def unmodelled(c: Ctx) -> None:
    raise SimError(f"{c.where()}: {c.d.fmt.name} is decoded and checked but not simulated (book only, S-46)")


HANDLERS_CONTROL: dict[Sem, Callable[[Ctx], None]] = {
    Sem.SEMAPHORE_CLEAR: semaphore_clear,
    Sem.HALT: halt,
    Sem.DRAIN: drain,
    Sem.UNMODELLED: unmodelled,
}
