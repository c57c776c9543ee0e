"""What the DMA bundles do, read from their decoded fields.

* 0xD4 moves ``num1 x num0`` runs from its src side to its dst side with element conversion (R-16,
  R-17, S-44, S-45) and then adds its increment to its completion semaphore (R-15); when, is S-40
  (the transfer is queued on the machine and the scheduler completes it);
* 0xC1 PseudoDMATrigger fires a descriptor block of its engine's sidecar (R-90): each descriptor
  moves its src pattern to its dst pattern (R-100: bytes, dims innermost first) with element
  conversion (S-44), one queued transfer per descriptor, and the block's semaphore gains 16 when the
  last of them completes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.dma import Addr8Modes, DescriptorUnits, DmaBlockCompletion, DmaCompletion, DmaElementOrder
from ...isa.decisions.semantics import DmaTiming
from ...isa.descriptors import SBUF_PARTITION_SHIFT
from ...isa.layout import Sem
from ..context import Ctx
from .. import numeric
from ..machine import DmaDescriptor, DmaTransfer, SimError

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


# --- 0xC1: descriptor blocks (R-90, R-100) ------------------------------------------------------------------

_PART = 1 << SBUF_PARTITION_SHIFT


def _desc_side(c: Ctx, what: str, var: int | None, off: int, dims: tuple[tuple[int, int], ...],
               dtype: int) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """One side of a descriptor as the runs it moves (S-45's two forms): the first dim is the run, the
    others give the run starts, innermost first (R-100)."""
    m = c.m
    if c.ds.get(DescriptorUnits).bytes:
        units = list(dims)
    else:  # R-100=elements: sizes and steps count elements, an SBUF step of k << 18 is k partitions
        size = numeric.size_of(dtype)
        units = [(n * size, st) if k == 0 else (n, st if var is None and st % _PART == 0 else st * size)
                 for k, (n, st) in enumerate(dims)]  # dim 0 of step 1: a run of n elements
    (run, step0), outer = units[0], units[1:]
    if step0 != 1:
        raise SimError(f"{c.where()} {what}: the innermost step is {step0}, not 1 (R-100: every corpus descriptor's is)")
    starts = np.array([off], dtype=np.int64)
    for n, st in outer:  # innermost first: the first outer dim varies fastest
        starts = (starts[None, :] + np.arange(n, dtype=np.int64)[:, None] * st).reshape(-1)
    if var is None:
        parts, byte = starts >> SBUF_PARTITION_SHIFT, starts & (_PART - 1)
        if (starts < 0).any() or (parts >= m.target.sbuf_partitions).any() or (byte + run > m.sbuf_stride).any():
            raise SimError(f"{c.where()} {what}: a run leaves the SBUF partitions ({m.sbuf_stride:#x} bytes each)")
        return _strided(m.sbuf, parts * m.sbuf_stride + byte, run)
    buf = m.dram.get(var)
    if buf is None:
        raise SimError(f"{c.where()} {what}: no DRAM variable with var_id {var} in the memory description")
    if (starts < 0).any() or (starts + run > buf.size).any():
        raise SimError(f"{c.where()} {what}: a run leaves variable {var} ({buf.size} bytes)")
    return _strided(buf, starts, run)


def _descriptor(c: Ctx, block: str, k: int, d: DmaDescriptor, increments: list[int], semaphore: int) -> DmaTransfer:
    where = f"{c.where()} {block} descriptor {k}"
    reads = _desc_side(c, f"{block} descriptor {k} from", d.src, d.src_off, d.src_dims, d.src_dtype)
    writes = _desc_side(c, f"{block} descriptor {k} to", d.dst, d.dst_off, d.dst_dims, d.dst_dtype)
    return DmaTransfer(c.engine, where, reads, writes, d.src_dtype, d.dst_dtype, semaphore, increments)


def dma_trigger(c: Ctx) -> None:
    queue = bytes(c.d.raw[0x0C:0x2B]).split(b"\0")[0].decode("ascii", "replace")
    bid = c.f["dma_block_id"]
    block = c.m.dma_blocks.get((c.engine, queue, bid))
    if block is None:
        raise SimError(f"{c.where()}: the trigger fires block {bid} of queue {queue!r}, which the {c.engine} "
                       "engine's sidecar does not hold (R-90)")
    last = len(block.descriptors) - 1
    inc = [DmaBlockCompletion.INCREMENT]
    transfers = [_descriptor(c, block.name, k, d, inc if k == last else [], block.semaphore)
                 for k, d in enumerate(block.descriptors)]
    if not transfers:
        raise SimError(f"{c.where()}: block {block.name} holds no descriptor")
    if c.ds.get(DmaTiming).deferred:  # S-40
        c.m.dma_pending.extend(transfers)
    else:
        for t in transfers:
            t.complete(c.m)


HANDLERS_DMA: dict[Sem, Callable[[Ctx], None]] = {
    Sem.DMA_2D: dma_2d,
    Sem.DMA_TRIGGER: dma_trigger,
}
