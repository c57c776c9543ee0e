"""What the DMA bundles do, read from their decoded fields.

* 0xD4 moves ``num1 x num0`` runs from its src side to its dst side with element conversion (R-16,
  R-17, S-44, S-45) and then adds its increment to its completion semaphore (R-15); when, is S-40
  (the transfer is queued on the machine and the scheduler completes it); a side of the DGE register
  mode 0x28 starts at the byte offset its address word's register holds (R-104), and the
  PseudoExtension 0xDA after it checks the bytes read against its bound (R-105);
* 0xC1 PseudoDMATrigger fires a descriptor block of its engine's sidecar (R-90): each descriptor
  moves its src pattern to its dst pattern (R-100: bytes, dims innermost first) with element
  conversion (S-44), one queued transfer per descriptor, and the block's semaphore gains 16 when the
  last of them completes;
* 0xD6 PseudoRangeCheck checks the uint64 addresses of the next indirect DMA's rows against a
  variable's bounds (S-101), and 0xC4 PseudoDMAMemcpyFullInd moves one run per row between SBUF and
  the DRAM address the row holds (R-101; addresses are S-100's), then adds 8 to its engine's
  indirect_memcpy queue semaphore.
"""

from __future__ import annotations

import math

from collections.abc import Callable

import numpy as np

from ...isa.decisions.dma import (Addr8Modes, DescriptorUnits, DgeRegisterAddress, DgeRegisterSide, DmaBlockCompletion,
                                  DmaCompletion, DmaElementOrder, IndirectBounds, IndirectTransfer)
from ...isa.decisions.semantics import DmaTiming
from ...isa.descriptors import SBUF_PARTITION_SHIFT, decode_addr4
from ...isa.enums import WireDtype
from ...isa.layout import Sem
from ..context import Ctx
from .. import numeric
from ..machine import DmaDescriptor, DmaTransfer, Machine, SimError, check_extent, rewrap

# --- DMA ---------------------------------------------------------------------------------------------------

def run_starts(word: int, num0: int, step0: int, num1: int, step1: int, order: DmaElementOrder) -> np.ndarray:
    """The start of every run, ``word + i * step0 + j * step1``, in R-16's order (as ``order.points`` lists
    the (i, j)), int64."""
    i = np.arange(num0, dtype=np.int64) * step0
    j = np.arange(num1, dtype=np.int64) * step1
    return (word + (j[:, None] + i[None, :] if order.dim0_inner else i[:, None] + j[None, :])).reshape(-1)


def _side(c: Ctx, side: str, order: DmaElementOrder) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """S-45: the bytes of one DMA side, runs in transfer order: a [runs, run bytes] view of the buffer
    when the runs are evenly spaced and do not overlap (every real DMA), else (the buffer, the byte
    index of every byte of every run)."""
    f, m = c.f, c.m
    mode, var = f[f"{side}.addr_mode"], f[f"{side}.var"] | f[f"{side}.var_hi"] << 16
    word, run = f[f"{side}.addr"], f[f"{side}.elem_size"]
    step0, step1 = f[f"{side}.step0"], f[f"{side}.step1"]
    register_mode = mode == Addr8Modes.DGE_REGISTER and c.ds.get(DgeRegisterAddress).simulated
    if register_mode:  # the address word names the register holding the byte offset
        mark = f.get(f"{side}.offset_reg", 0)
        if mark != DgeRegisterAddress.ADDRESS_MARK:
            raise SimError(f"{c.where()} {side}: ADDR8 mode 0x28 with +0x26 = {mark:#04x}; only "
                           f"{DgeRegisterAddress.ADDRESS_MARK:#04x} is known (R-104)")
        if not 0 <= word < c.m.target.registers:
            raise SimError(f"{c.where()} {side}: ADDR8 mode 0x28 names register {word}, which the engine does not "
                           f"have ({c.m.target.registers}) (R-104)")
        word = c.m.reg(c.engine, word)
    num0, num1 = f[f"{side}.num0"], f[f"{side}.num1"]
    ap = None if register_mode else _progression(word, num0, step0, num1, step1, order.dim0_inner)
    if mode not in (Addr8Modes.PHYSICAL, Addr8Modes.DGE_IMMEDIATE) and not register_mode:
        raise SimError(f"{c.where()} {side}: ADDR8 mode {mode:#04x} is not simulated (R-17)")
    if mode == Addr8Modes.PHYSICAL and var == Addr8Modes.SBUF_VAR and ap is not None:
        view = _sbuf_progression(m, *ap, run)
        if view is not None:
            return view
    if mode == Addr8Modes.PHYSICAL and var == Addr8Modes.SBUF_VAR:
        starts = run_starts(word, num0, step0, num1, step1, order)
        parts, byte = starts >> SBUF_PARTITION_SHIFT, starts & ((1 << SBUF_PARTITION_SHIFT) - 1)
        if (starts < 0).any() or (parts >= m.target.sbuf_partitions).any() or (byte + run > m.sbuf_stride).any():
            raise SimError(f"{c.where()} {side}: a run leaves the SBUF partitions ({m.sbuf_stride:#x} bytes each)")
        buf, base = m.sbuf, parts * m.sbuf_stride + byte
    else:
        if register_mode and not c.ds.get(DgeRegisterSide).indexed:
            raise SimError(f"{c.where()} {side}: ADDR8 mode 0x28 under R-91=any names no variable")
        try:  # R-91: a register-mode side's var indexes the dge-table list as mode 0x20's does
            vid = c.ds.get(Addr8Modes).var_id(Addr8Modes.DGE_IMMEDIATE if register_mode else mode, var,
                                              [-1 if e is None else e for e in m.dge_table])
        except ValueError as e:
            raise rewrap(e, f"{c.where()} {side}") from None
        buf_ = m.dram.get(vid)
        if buf_ is None:
            raise SimError(f"{c.where()} {side}: no DRAM variable with var_id {vid} in the memory description")
        if ap is not None:
            first, step, n = ap
            lo, hi = first + min(0, (n - 1) * step), first + max(0, (n - 1) * step)
            if lo >= 0 and hi + run <= buf_.size and (n == 1 or step >= run):  # what _strided would make
                return _runs_view(buf_, first, step, n, run)
        starts = run_starts(word, num0, step0, num1, step1, order)
        if (starts < 0).any() or (starts + run > buf_.size).any():
            raise SimError(f"{c.where()} {side}: a run leaves variable {vid} ({buf_.size} bytes)")
        buf, base = buf_, starts
        if register_mode:  # the PseudoExtension after this DMA checks these bytes against its bound
            c.m.dge_register_reads[c.engine] = (vid, int(starts.max()) + run if starts.size else 0, c.where())
    return _strided(buf, base, run)


def _progression(word: int, num0: int, step0: int, num1: int, step1: int, dim0_inner: bool) -> tuple[int, int, int] | None:
    """(first, step, count) when :func:`run_starts` is an arithmetic progression (every real DMA: one of
    the dims has one element, or the outer step is the inner dim's span), else None; no array is made."""
    n = num0 * num1
    if n <= 0:
        return None
    if num1 == 1:
        return word, step0, n
    if num0 == 1:
        return word, step1, n
    if dim0_inner and step1 == num0 * step0:
        return word, step0, n
    if not dim0_inner and step0 == num1 * step1:
        return word, step1, n
    return None


def _sbuf_progression(m: Machine, first: int, step: int, n: int, run: int) -> np.ndarray | None:
    """The [runs, run] SBUF view :func:`_side` and :func:`_strided` make of the run starts ``first + k *
    step`` (k < n), computed without the arrays, when every run is in bounds and the runs are evenly
    spaced and apart in the buffer: partition steps (a multiple of 1 << 18), or steps within one
    partition. None otherwise: the caller then takes the general path, which also makes its errors."""
    shift = SBUF_PARTITION_SHIFT
    mask = (1 << shift) - 1
    if first < 0 or step < 0:
        return None
    part0, byte0 = first >> shift, first & mask
    if n == 1 or step & mask == 0:
        pstep = step >> shift if n > 1 else 0
        if part0 + (n - 1) * pstep >= m.target.sbuf_partitions or byte0 + run > m.sbuf_stride:
            return None
        bstep = pstep * m.sbuf_stride
    elif byte0 + (n - 1) * step <= mask:  # no carry into the partition bits
        if part0 >= m.target.sbuf_partitions or byte0 + (n - 1) * step + run > m.sbuf_stride:
            return None
        bstep = step
    else:
        return None
    if n > 1 and bstep < run:
        return None
    return _runs_view(m.sbuf, part0 * m.sbuf_stride + byte0, bstep, n, run)


def _runs_view(buf: np.ndarray, first: int, step: int, n: int, run: int) -> np.ndarray:
    """The writeable [n, run] view of ``buf``'s runs at ``first + k * step`` (the caller has checked they are
    in bounds and apart: ``step >= run`` when n > 1)."""
    return np.lib.stride_tricks.as_strided(buf[first:], shape=(n, run), strides=(step if n > 1 else run, 1),
                                           writeable=True)


def _strided(buf: np.ndarray, base: np.ndarray, run: int) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """A [runs, run] view when ``base`` is an arithmetic progression with runs that do not overlap."""
    n = base.size
    step = int(base[1] - base[0]) if n > 1 else run
    if n and step >= run and (n < 3 or bool((np.diff(base) == step).all())):
        return _runs_view(buf, int(base[0]), step, n, run)
    return buf, base[:, None] + np.arange(run, dtype=np.int64)[None, :]


def dma_2d(c: Ctx) -> None:
    f = c.f
    order = c.ds.get(DmaElementOrder)
    for side in ("src", "dst"):  # the runs are listed one by one: bound them before they are
        check_extent(f[f"{side}.num0"] * f[f"{side}.num1"] * max(f[f"{side}.elem_size"], 1), f"{c.where()} {side}",
                     "bytes")
    reads = _side(c, "src", order)
    writes = _side(c, "dst", order)
    t = DmaTransfer(c.engine, c.where(), reads, writes, f["src_dtype"], f["dst_dtype"], f["dma_semaphore"],
                    c.ds.get(DmaCompletion).increments(f["dma_sem_increment"]))
    if c.ds.get(DmaTiming).deferred:  # S-40: the scheduler completes it when every engine is blocked
        c.m.dma_pending.append(t)
    else:
        t.complete(c.m)


def dma_extension(c: Ctx) -> None:
    """R-105: the u32 at +0x0C bounds the bytes the register-mode DMA before it read (R-30: +0x0C..+0x0E are zero,
    +0x0F the top byte)."""
    last = c.m.dge_register_reads.pop(c.engine, None)
    if last is None:
        raise SimError(f"{c.where()}: a PseudoExtension with no DGE register-mode (0x28) DMA before it on this "
                       "engine (R-105)")
    vid, end, dma = last
    bound = int.from_bytes(bytes(c.d.raw[0x0C:0x10]), "little")
    if end > bound:
        raise SimError(f"{c.where()}: the DMA before it ({dma}) read variable {vid} up to byte {end:#x}, past the "
                       f"bound {bound:#x} (R-105: whether the hardware clips, skips or faults is not known)")


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
    check_extent(math.prod(n for n, _st in units), f"{c.where()} {what}", "bytes")
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


# --- 0xD6 / 0xC4: indirect DMA (R-101, S-100, S-101) -------------------------------------------------------

def _sbuf_rows(c: Ctx, what: str, word: int, rows: int, stride: int, run: int) -> np.ndarray:
    """The flat SBUF byte index of the first byte of each row: ADDR4 ``word``, rows ``stride`` bytes apart
    (a multiple of one partition)."""
    a = decode_addr4(word)
    if a.space != "sbuf" or a.partition is None or a.byte is None:
        raise SimError(f"{c.where()} {what}: {a.describe()} is not an SBUF address")
    if stride % _PART:
        raise SimError(f"{c.where()} {what}: a row stride of {stride:#x} bytes is not whole partitions (R-101)")
    parts = a.partition + np.arange(rows, dtype=np.int64) * (stride >> SBUF_PARTITION_SHIFT)
    if rows and (int(parts[-1]) >= c.m.target.sbuf_partitions or a.byte + run > c.m.sbuf_stride):
        raise SimError(f"{c.where()} {what}: {rows} rows from partition {a.partition} byte {a.byte:#x} leave the SBUF")
    return parts * c.m.sbuf_stride + a.byte


def _addresses(c: Ctx, what: str, word: int, rows: int, stride: int) -> np.ndarray:
    """The uint64 address each row holds (8 bytes per row, little-endian)."""
    at = _sbuf_rows(c, what, word, rows, stride, 8)
    return c.m.sbuf[at[:, None] + np.arange(8)].copy().view("<u8").reshape(-1)


def range_check(c: Ctx) -> None:
    f = c.f
    rows, size = f["idx_meta"], f["bound_size_bytes"]
    addrs = _addresses(c, "slot_a", f["slot_a.addr"], rows, _PART)
    base = _addresses(c, "bound", f["bound_addr"], rows, _PART)
    ok = (addrs >= base) & (addrs - base < np.uint64(size))
    if not ok.all() and not c.ds.get(IndirectBounds).skips:
        r = int(np.flatnonzero(~ok)[0])
        raise SimError(f"{c.where()}: row {r} holds address {int(addrs[r]):#x}, outside [{int(base[r]):#x}, "
                       f"+{size:#x}) ({int((~ok).sum())} of {rows} rows out of range; S-101=stop)")
    c.m.range_checks[c.engine] = (f["slot_a.addr"], ok)


def _resolve(c: Ctx, addrs: np.ndarray, run: int, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """S-100: the variable and byte offset of each address (refused when a run is in no variable)."""
    m = c.m
    items = sorted((b, v) for v, b in m.dram_bases.items() if v in m.dram)
    starts = np.array([b for b, _ in items] or [0], dtype=np.uint64)
    vids = np.array([v for _, v in items] or [-1], dtype=np.int64)
    sizes = np.array([m.dram[v].size for _, v in items] or [0], dtype=np.uint64)
    k = np.searchsorted(starts, addrs, side="right").astype(np.int64) - 1
    kk = np.maximum(k, 0)
    off = addrs - starts[kk]  # wraps where k < 0; those rows are refused
    bad = (k < 0) | (off + np.uint64(run) > sizes[kk]) | (vids[kk] < 0)
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        raise SimError(f"{c.where()}: row {int(rows[i])} addresses {int(addrs[i]):#x}, where no DRAM variable holds "
                       f"{run} bytes (S-100)")
    return vids[kk], off.astype(np.int64)


def dma_indirect(c: Ctx) -> None:
    f, m = c.f, c.m
    if f["indirect_num_elems0"] != 1 or f["direct_num_elems0"] != 1:
        raise SimError(f"{c.where()}: {f['indirect_num_elems0']} indices and {f['direct_num_elems0']} runs per row "
                       "are not simulated (R-101 knows 1 and 1, as in every corpus bundle)")
    direction = f["direction"]
    if direction not in (0, 1):
        raise SimError(f"{c.where()}: direction {direction} is not known (R-101: 0 load, 1 save)")
    sem = m.indirect_semaphores.get(c.engine)
    if sem is None:
        raise SimError(f"{c.where()}: the {c.engine} engine owns no indirect_memcpy DMA queue (R-101)")
    rows, run = f["indirect_num_elems1"], f["direct_elem_size"]
    addrs = _addresses(c, "indirect_start_offset", f["indirect_start_offset"], rows, f["engine_config"])
    sb = _sbuf_rows(c, "direct_start_offset", f["direct_start_offset"], rows, f["engine_config2"], run)
    keep = np.ones(rows, dtype=bool)
    check = m.range_checks.pop(c.engine, None)
    if check is not None and check[0] == f["indirect_start_offset"] and check[1].size == rows:
        keep = check[1]  # S-101: the rows the range check found out of range are not moved
    idx = np.flatnonzero(keep)
    vids, offs = _resolve(c, addrs[idx], run, idx) if idx.size else (np.zeros(0, np.int64), np.zeros(0, np.int64))
    lane = np.arange(run, dtype=np.int64)[None, :]
    u8 = int(WireDtype.UINT8)
    groups = sorted(set(vids.tolist())) or [None]
    transfers = []
    for g in groups:
        sel = vids == g if g is not None else np.zeros(0, dtype=bool)
        dram = (m.dram[g], offs[sel][:, None] + lane) if g is not None else (m.sbuf, np.zeros((0, run), np.int64))
        sbuf = (m.sbuf, sb[idx[sel] if g is not None else idx][:, None] + lane)
        reads, writes = (dram, sbuf) if direction == 0 else (sbuf, dram)
        transfers.append(DmaTransfer(c.engine, c.where(), reads, writes, u8, u8, sem, []))
    transfers[-1].increments = [c.ds.get(IndirectTransfer).increment]
    if c.ds.get(DmaTiming).deferred:  # S-40
        m.dma_pending.extend(transfers)
    else:
        for t in transfers:
            t.complete(m)


HANDLERS_DMA: dict[Sem, Callable[[Ctx], None]] = {
    Sem.DMA_2D: dma_2d,
    Sem.DMA_EXTENSION: dma_extension,
    Sem.DMA_TRIGGER: dma_trigger,
    Sem.RANGE_CHECK: range_check,
    Sem.DMA_INDIRECT: dma_indirect,
}
