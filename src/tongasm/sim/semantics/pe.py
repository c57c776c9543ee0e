"""What the PE, DMA and sync/control bundles do, read from their decoded fields.

* 0x01 Ldweights loads the stationary ``W`` (R-10: the element visited i-th is column M-1-i; S-42),
  or, in an fp32 pass (R-28), its high half or the rest (S-110);
* 0x02 Matmul computes ``W^T @ moving`` (S-41) into PSUM, overwriting or accumulating by its flags
  (R-11, S-43), in fp32, in int32 for an integer input (S-111) or, for a transpose, the input dtype
  (R-12);
* 0xD4 moves ``num1 x num0`` runs from its src side to its dst side with element conversion (R-16,
  R-17, S-44, S-45) and then adds its increment to its completion semaphore (R-15); when, is S-40
  (the transfer is queued on the machine and the scheduler completes it);
* Halt / Exit end their engine's stream, Drain completes the engine's queued DMAs,
  EventSemaphoreRangeClear zeroes semaphores (S-46); EventSemaphore, Nop, SetOrderingMode and
  PseudoBranchLabel only wait (their sync lanes are the scheduler's, S-47).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.dma import Addr8Modes, DmaCompletion, DmaElementOrder
from ...isa.decisions.pe import PeFp32Mode, PeTranspose, PsumFlags, StationaryPattern
from ...isa.decisions.semantics import DmaTiming, PeArithmetic, PeFp32Passes, PeIntegerPsum
from ...isa.decisions.spec import FreeDimOrder
from ...isa.descriptors import SBUF_PARTITION_SHIFT
from ...isa.enums import WireDtype
from ...isa.layout import Sem
from ...isa.layouts.control import CLEAR_TABLE, SEM_MASK_WORDS
from .. import numeric
from ..context import Ctx
from ..machine import DmaTransfer, SimError, Stationary

# --- PE ----------------------------------------------------------------------------------------------------


def _tile(c: Ctx, slot: str, parts: int, w: int) -> np.ndarray:
    """[partitions, elements in access-pattern order] view of a PE slot in wire dtype ``w``."""
    f = c.f
    s = c.d.fmt.slots[slot]
    dims = c.ds.get(FreeDimOrder).from_slots([(f[sk], f[nk]) for sk, nk in zip(s.step_keys, s.num_keys)])
    try:
        view = c.m.tensor_view(c.engine, f[s.addr_key], parts, dims, w)
    except (SimError, numeric.NumericError) as e:
        raise SimError(f"{c.where()} {slot}: {e}") from None
    return view.reshape(parts, -1)


def load_stationary(c: Ctx) -> None:
    k, m, w = c.f["num_rows"], c.f["num_active_cols"], c.f["in_dtype"]
    v = _tile(c, "stationary", k, w)
    if v.shape[1] != m:
        raise SimError(f"{c.where()}: the stationary pattern visits {v.shape[1]} elements per partition, M is {m}")
    weights = v[:, ::-1] if c.ds.get(StationaryPattern).reverses else v
    mode = c.f.get("fp32_mode", 0)  # R-28 (absent under its book reading)
    if mode in (1, 2) and not c.f["is_transpose"] and c.ds.get(PeFp32Passes).splits:  # S-110
        if w != WireDtype.FLOAT32:
            raise SimError(f"{c.where()}: fp32 pass {mode} on a {WireDtype(w).name} stationary (S-110: fp32 only)")
        high = (np.ascontiguousarray(weights, dtype=np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
        weights = high if mode == 2 else weights.astype(np.float32) - high
    c.m.stationary[c.engine] = Stationary(weights.copy(), w, bool(c.f["is_transpose"]))


def multiply_moving(c: Ctx) -> None:
    st = c.m.stationary.get(c.engine)
    k, m, w = c.f["num_rows"], c.f["num_active_cols"], c.f["in_dtype"]
    if st is None:
        raise SimError(f"{c.where()}: a Matmul with no stationary loaded (S-42)")
    if st.weights.shape != (k, m):
        raise SimError(f"{c.where()}: K x M = {k} x {m}, but the stationary loaded is "
                       f"{st.weights.shape[0]} x {st.weights.shape[1]} (S-42)")
    if c.f.get("fp32_mode", 0) in (1, 2) and c.ds.get(PeFp32Passes).splits:  # S-110
        raise SimError(f"{c.where()}: a Matmul with fp32_mode {PeFp32Mode.NAMES[c.f['fp32_mode']].upper()} alone on "
                       "its moving tile is not simulated (S-110)")
    moving = _tile(c, "moving", k, w)
    if w in _INTEGER_PE and not c.f["is_transpose"] and c.ds.get(PeIntegerPsum).integer:  # S-111
        _integer_matmul(c, st.weights, moving, m)
        return
    with np.errstate(all="ignore"):  # inf * 0 and inf - inf are NaN, as IEEE says
        if c.ds.get(PeArithmetic).wide:  # S-41
            result = (st.weights.astype(np.float64).T @ moving.astype(np.float64)).astype(np.float32)
        else:
            result = st.weights.astype(np.float32).T @ moving.astype(np.float32)
    wout = c.ds.get(PeTranspose).psum_wire(bool(c.f["is_transpose"]), w, WireDtype.FLOAT32)
    dst = _tile(c, "psum", m, wout)
    if dst.shape != result.shape:
        raise SimError(f"{c.where()}: the moving tensor gives {result.shape[1]} elements per partition, the PSUM "
                       f"destination holds {dst.shape[1]}")
    if c.ds.get(PsumFlags).accumulates(c.f["psum_flags"]):  # R-11; S-43: fp32 add, one rounding
        result = numeric.to_fp32(dst, wout) + result
    dst[...] = numeric.from_fp32(result, wout)


#: the wire dtypes whose Matmul writes int32 (S-111)
_INTEGER_PE = frozenset({WireDtype.INT8, WireDtype.UINT8, WireDtype.INT16, WireDtype.UINT16})


def _integer_matmul(c: Ctx, weights: np.ndarray, moving: np.ndarray, m: int) -> None:
    """S-111: the exact integer W^T @ moving (plus the old value when accumulating), saturated to int32."""
    result = weights.astype(np.int64).T @ moving.astype(np.int64)
    dst = _tile(c, "psum", m, WireDtype.INT32)
    if dst.shape != result.shape:
        raise SimError(f"{c.where()}: the moving tensor gives {result.shape[1]} elements per partition, the PSUM "
                       f"destination holds {dst.shape[1]}")
    if c.ds.get(PsumFlags).accumulates(c.f["psum_flags"]):
        result = result + dst.astype(np.int64)
    dst[...] = np.clip(result, -(2**31), 2**31 - 1).astype(np.int32)


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


HANDLERS_PE: dict[Sem, Callable[[Ctx], None]] = {
    Sem.LOAD_STATIONARY: load_stationary,
    Sem.MULTIPLY_MOVING: multiply_moving,
    Sem.DMA_2D: dma_2d,
    Sem.SEMAPHORE_CLEAR: semaphore_clear,
    Sem.HALT: halt,
    Sem.DRAIN: drain,
    Sem.UNMODELLED: unmodelled,
}
