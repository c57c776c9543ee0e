"""What the PE bundles do, read from their decoded fields.

* 0x01 Ldweights loads the stationary ``W`` (R-10: the element visited i-th is column M-1-i; S-42);
* 0x02 Matmul computes ``W^T @ moving`` (S-41) into PSUM, overwriting or accumulating by its flags
  (R-11, S-43), in fp32 or, for a transpose, the input dtype (R-12).

The DMA bundles are :mod:`.dma`'s, the sync/control bundles :mod:`.control`'s.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.pe import PeEvaluation, PeTranspose, PsumFlags, StationaryPattern
from ...isa.decisions.semantics import PeArithmetic
from ...isa.decisions.spec import FreeDimOrder
from ...isa.enums import WireDtype
from ...isa.layout import Sem
from .. import numeric
from ..context import Ctx
from ..machine import SimError, Stationary

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
    c.m.stationary[c.engine] = Stationary(weights.copy(), w, bool(c.f["is_transpose"]))


_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def multiply_moving(c: Ctx) -> None:
    st = c.m.stationary.get(c.engine)
    k, m, w = c.f["num_rows"], c.f["num_active_cols"], c.f["in_dtype"]
    if st is None:
        raise SimError(f"{c.where()}: a Matmul with no stationary loaded (S-42)")
    if st.weights.shape != (k, m):
        raise SimError(f"{c.where()}: K x M = {k} x {m}, but the stationary loaded is "
                       f"{st.weights.shape[0]} x {st.weights.shape[1]} (S-42)")
    moving = _tile(c, "moving", k, w)
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
        np.copyto(rhs, moving, casting="unsafe")  # as astype: bf16, fp8 and integer inputs too
        result = numeric.scratch("pe.product", shape, t)
        np.matmul(st.as_type(t).T, rhs, out=result)
        if t is _F64:
            result = numeric.scratch("pe.result", shape, _F32)
            np.copyto(result, numeric.scratch("pe.product", shape, t))
        if c.ds.get(PsumFlags).accumulates(c.f["psum_flags"]):  # R-11; S-43: fp32 add, one rounding
            if dst.dtype == _F32:
                np.add(dst, result, out=dst)
                return
            result = numeric.to_fp32(dst, wout) + result
    dst[...] = numeric.from_fp32(result, wout)


HANDLERS_PE: dict[Sem, Callable[[Ctx], None]] = {
    Sem.LOAD_STATIONARY: load_stationary,
    Sem.MULTIPLY_MOVING: multiply_moving,
}
