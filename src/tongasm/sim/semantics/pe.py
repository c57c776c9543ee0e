"""What the PE bundles do, read from their decoded fields.

* 0x01 Ldweights loads the stationary ``W`` (R-10: the element visited i-th is column M-1-i; S-42),
  or, in an fp32 pass (R-28), its high half or the rest (S-110);
* 0x02 Matmul computes ``W^T @ moving`` (S-41; ``W^T @ hi(moving)`` for sunda 2.14's fp32=high, S-112)
  into PSUM, overwriting or accumulating by its flags (R-11, S-43), in fp32, in int32 for an integer
  input (S-111) or, for a transpose, the input dtype (R-12).

The DMA bundles are :mod:`.dma`'s, the sync/control bundles :mod:`.control`'s.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.pe import PeEvaluation, PeFp32Mode, PeTranspose, PsumFlags, StationaryPattern
from ...isa.decisions.semantics import PeArithmetic, PeFp32MovingHigh, PeFp32Passes, PeIntegerPsum, PsumGroupStart
from ...isa.decisions.spec import FreeDimOrder
from ...isa.descriptors import ADDR4_REGMODE, PSUM_BANK_BYTES
from ...isa.enums import WireDtype
from ...isa.layout import Sem
from .. import numeric
from ..context import Ctx
from ..machine import SimError, Stationary, rewrap

# --- PE ----------------------------------------------------------------------------------------------------


def _view(c: Ctx, slot: str, parts: int, w: int) -> np.ndarray:
    """The [partitions, *free dims] view of a PE slot in wire dtype ``w`` (a view into SBUF/PSUM)."""
    f = c.f
    s = c.d.fmt.slots[slot]
    dims = c.ds.get(FreeDimOrder).from_slots([(f[sk], f[nk]) for sk, nk in zip(s.step_keys, s.num_keys)])
    try:
        return c.m.tensor_view(c.engine, f[s.addr_key], parts, dims, w)
    except (SimError, numeric.NumericError) as e:
        raise rewrap(e, f"{c.where()} {slot}") from None


def _tile(c: Ctx, slot: str, parts: int, w: int) -> np.ndarray:
    """[partitions, elements in access-pattern order] of a PE slot in wire dtype ``w``: a view where the
    pattern's rows merge, else a copy (to read; a destination is then written back, :func:`_written`).
    ``parts`` and ``w`` are read from the bundle's own fields, so a bundle at a static address always gets
    the same view: it is kept per distinct bundle, as the machine's view cache keeps it per address."""
    fields = c.d.fields  # identical bundles share one field dict (decode.bundle.iter_stream): one view for all
    key = (id(fields), slot)
    hit = c.m.pe_tiles.get(key)
    if hit is not None and hit[0] is fields:
        return hit[1]
    view = _view(c, slot, parts, w)
    tile = view.reshape(parts, -1)
    # kept only when it is a view (a pattern numpy cannot flatten in place reshapes to a copy, read anew each
    # time) at a static address (a register-mode address can change between runs of the bundle)
    if not c.f[c.d.fmt.slots[slot].addr_key] & ADDR4_REGMODE and np.may_share_memory(tile, view):
        if len(c.m.pe_tiles) >= 1 << 16:
            c.m.pe_tiles.clear()
        c.m.pe_tiles[key] = (fields, tile)
    return tile


def _written(c: Ctx, tile: np.ndarray, parts: int, w: int) -> None:
    """Write a PSUM tile back when :func:`_tile` gave a copy (a pattern whose rows do not merge, as a
    convolution tap that skips the pad column): the copy's values go through the view into PSUM."""
    if not np.may_share_memory(tile, c.m.psum):
        view = _view(c, "psum", parts, w)
        view[...] = tile.reshape(view.shape)


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


def _first_writes(c: Ctx, parts: int, w: int) -> np.ndarray | None:
    """S-99 bank-first-write: the [parts, elements] mask of the PSUM destination's elements not yet written
    since their group's START (a START marks its bank rows first), then clears the mark on the tile; None
    under S-99 = tile (only the START's own tile overwrites, R-11)."""
    if not c.ds.get(PsumGroupStart).first_write:
        return None
    view = _view(c, "psum", parts, w)
    m = c.m
    offset = view.__array_interface__["data"][0] - m.psum.__array_interface__["data"][0]
    if not 0 <= offset < m.psum.size:
        raise SimError(f"{c.where()}: the PSUM destination is not a view into PSUM (S-99)")
    marks = np.lib.stride_tricks.as_strided(m.psum_unwritten[offset:], view.shape, view.strides, writeable=True)
    if not c.ds.get(PsumFlags).accumulates(c.f["psum_flags"]):  # a START: its bank rows become unwritten
        first, last = offset, offset
        for n, stride in zip(view.shape[1:], view.strides[1:]):
            span = (n - 1) * stride
            first, last = first + min(span, 0), last + max(span, 0)
        rows = m.psum_unwritten.reshape(-1, m.psum_stride)
        p0, lo, hi = offset // m.psum_stride, first % m.psum_stride, last % m.psum_stride
        rows[p0:p0 + parts, lo - lo % PSUM_BANK_BYTES:hi - hi % PSUM_BANK_BYTES + PSUM_BANK_BYTES] = 1
    fresh = marks.reshape(parts, -1).astype(bool)
    marks[...] = 0
    return fresh


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def multiply_moving(c: Ctx) -> None:
    st = c.m.stationary.get(c.engine)
    k, m, w = c.f["num_rows"], c.f["num_active_cols"], c.f["in_dtype"]
    if st is None:
        raise SimError(f"{c.where()}: a Matmul with no stationary loaded (S-42)")
    if st.weights.shape != (k, m):
        raise SimError(f"{c.where()}: K x M = {k} x {m}, but the stationary loaded is "
                       f"{st.weights.shape[0]} x {st.weights.shape[1]} (S-42)")
    mode = c.f.get("fp32_mode", 0)
    high = c.ds.get(PeFp32MovingHigh)
    if mode in (1, 2) and c.ds.get(PeFp32Passes).splits and (mode == 1 or high.stops):  # S-110, S-112
        raise SimError(f"{c.where()}: a Matmul with fp32_mode {PeFp32Mode.NAMES[c.f['fp32_mode']].upper()} alone on "
                       "its moving tile is not simulated (S-110, S-112)")
    moving = _tile(c, "moving", k, w)
    if mode == 2 and high.truncates and c.ds.get(PeFp32Passes).splits:  # S-112: hi(moving), as S-110's hi(W)
        if w != WireDtype.FLOAT32:
            raise SimError(f"{c.where()}: a Matmul fp32=high on a {WireDtype(w).name} moving tile (S-112: fp32 only)")
        moving = (np.ascontiguousarray(moving, dtype=np.float32).view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32)
    if w in _INTEGER_PE and not c.f["is_transpose"] and c.ds.get(PeIntegerPsum).integer:  # S-111
        _integer_matmul(c, st.weights, moving, m)
        return
    wout = c.ds.get(PeTranspose).psum_wire(bool(c.f["is_transpose"]), w, WireDtype.FLOAT32)
    dst = _tile(c, "psum", m, wout)
    if dst.shape != (m, moving.shape[1]):
        raise SimError(f"{c.where()}: the moving tensor gives {moving.shape[1]} elements per partition, the PSUM "
                       f"destination holds {dst.shape[1]}")
    # S-41 f64-round, evaluated as S-120 says: exact-f64 in float64, f32-accumulate in float32 (as S-41=fp32)
    t = _F64 if c.ds.get(PeArithmetic).wide and c.ds.get(PeEvaluation).exact else _F32
    shape = dst.shape
    with np.errstate(all="ignore"):  # inf * 0 and inf - inf are NaN, as IEEE says
        rhs = numeric.scratch("pe.moving", moving.shape, t)
        if t is _F32:
            numeric.copy_to_float32(rhs, moving)  # the same bits, by table for fp16 and bf16
        else:
            np.copyto(rhs, moving, casting="unsafe")  # as astype: bf16, fp8 and integer inputs too
        result = numeric.scratch("pe.product", shape, t)
        np.matmul(st.as_type(t).T, rhs, out=result)
        if t is _F64:
            result = numeric.scratch("pe.result", shape, _F32)
            np.copyto(result, numeric.scratch("pe.product", shape, t))
        fresh = _first_writes(c, m, wout)  # S-99
        if c.ds.get(PsumFlags).accumulates(c.f["psum_flags"]):  # R-11; S-43: fp32 add, one rounding
            if dst.dtype == _F32 and fresh is None:
                np.add(dst, result, out=dst)
                _written(c, dst, m, wout)
                return
            summed = numeric.to_fp32(dst, wout) + result
            result = summed if fresh is None else np.where(fresh, result, summed)
    dst[...] = numeric.from_fp32(result, wout)
    _written(c, dst, m, wout)


#: the wire dtypes whose Matmul writes int32 (S-111)
_INTEGER_PE = frozenset({WireDtype.INT8, WireDtype.UINT8, WireDtype.INT16, WireDtype.UINT16})


def _integer_matmul(c: Ctx, weights: np.ndarray, moving: np.ndarray, m: int) -> None:
    """S-111: the exact integer W^T @ moving (plus the old value when accumulating), saturated to int32."""
    result = weights.astype(np.int64).T @ moving.astype(np.int64)
    dst = _tile(c, "psum", m, WireDtype.INT32)
    if dst.shape != result.shape:
        raise SimError(f"{c.where()}: the moving tensor gives {result.shape[1]} elements per partition, the PSUM "
                       f"destination holds {dst.shape[1]}")
    fresh = _first_writes(c, m, WireDtype.INT32)  # S-99
    if c.ds.get(PsumFlags).accumulates(c.f["psum_flags"]):
        summed = result + dst.astype(np.int64)
        result = summed if fresh is None else np.where(fresh, result, summed)
    dst[...] = np.clip(result, -(2**31), 2**31 - 1).astype(np.int32)
    _written(c, dst, m, WireDtype.INT32)


HANDLERS_PE: dict[Sem, Callable[[Ctx], None]] = {
    Sem.LOAD_STATIONARY: load_stationary,
    Sem.MULTIPLY_MOVING: multiply_moving,
}
