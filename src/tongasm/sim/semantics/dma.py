"""What the DMA bundles do, read from their decoded fields.

* 0xD4 moves ``num1 x num0`` runs from its src side to its dst side with element conversion (R-16,
  R-17, S-44, S-45) and then adds its increment to its completion semaphore (R-15); when, is S-40
  (the transfer is queued on the machine and the scheduler completes it).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.dma import Addr8Modes, DmaCompletion, DmaElementOrder
from ...isa.decisions.semantics import DmaTiming
from ...isa.descriptors import SBUF_PARTITION_SHIFT
from ...isa.layout import Sem
from ..context import Ctx
from ..machine import DmaTransfer, SimError

# --- DMA ---------------------------------------------------------------------------------------------------

def _side(c: Ctx, side: str, points: list[tuple[int, int]]) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """S-45: the bytes of one DMA side, runs in transfer order: a [runs, run bytes] view of the buffer
    when the runs are evenly spaced and do not overlap (every real DMA), else (the buffer, the byte
    index of every byte of every run)."""
    f, m = c.f, c.m
    mode, var = f[f"{side}.addr_mode"], f[f"{side}.var"] | f[f"{side}.var_hi"] << 16
    word, run = f[f"{side}.addr"], f[f"{side}.elem_size"]
    step0, step1 = f[f"{side}.step0"], f[f"{side}.step1"]
    starts = np.array([word + i * step0 + j * step1 for i, j in points], dtype=np.int64)
    if mode not in (Addr8Modes.PHYSICAL, Addr8Modes.DGE_IMMEDIATE):
        raise SimError(f"{c.where()} {side}: ADDR8 mode {mode:#04x} is not simulated (R-17)")
    if mode == Addr8Modes.PHYSICAL and var == Addr8Modes.SBUF_VAR:
        parts, byte = starts >> SBUF_PARTITION_SHIFT, starts & ((1 << SBUF_PARTITION_SHIFT) - 1)
        if (starts < 0).any() or (parts >= m.target.sbuf_partitions).any() or (byte + run > m.sbuf_stride).any():
            raise SimError(f"{c.where()} {side}: a run leaves the SBUF partitions ({m.sbuf_stride:#x} bytes each)")
        buf, base = m.sbuf, parts * m.sbuf_stride + byte
    else:
        try:
            vid = c.ds.get(Addr8Modes).var_id(mode, var, [-1 if e is None else e for e in m.dge_table])
        except ValueError as e:
            raise SimError(f"{c.where()} {side}: {e}") from None
        buf_ = m.dram.get(vid)
        if buf_ is None:
            raise SimError(f"{c.where()} {side}: no DRAM variable with var_id {vid} in the memory description")
        if (starts < 0).any() or (starts + run > buf_.size).any():
            raise SimError(f"{c.where()} {side}: a run leaves variable {vid} ({buf_.size} bytes)")
        buf, base = buf_, starts
    return _strided(buf, base, run)


def _strided(buf: np.ndarray, base: np.ndarray, run: int) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """A [runs, run] view when ``base`` is an arithmetic progression with runs that do not overlap."""
    n = base.size
    step = int(base[1] - base[0]) if n > 1 else run
    if n and step >= run and (n < 3 or bool((np.diff(base) == step).all())):
        return np.lib.stride_tricks.as_strided(buf[int(base[0]):], shape=(n, run), strides=(step, 1), writeable=True)
    return buf, base[:, None] + np.arange(run, dtype=np.int64)[None, :]


def dma_2d(c: Ctx) -> None:
    f = c.f
    order = c.ds.get(DmaElementOrder)
    reads = _side(c, "src", order.points(f["src.num0"], f["src.num1"]))
    writes = _side(c, "dst", order.points(f["dst.num0"], f["dst.num1"]))
    t = DmaTransfer(c.engine, c.where(), reads, writes, f["src_dtype"], f["dst_dtype"], f["dma_semaphore"],
                    c.ds.get(DmaCompletion).increments(f["dma_sem_increment"]))
    if c.ds.get(DmaTiming).deferred:  # S-40: the scheduler completes it when every engine is blocked
        c.m.dma_pending.append(t)
    else:
        t.complete(c.m)


HANDLERS_DMA: dict[Sem, Callable[[Ctx], None]] = {
    Sem.DMA_2D: dma_2d,
}
