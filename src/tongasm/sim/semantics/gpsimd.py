"""What the Pool-engine (GPSIMD) bundles of real output do (:mod:`tongasm.isa.layouts.gpsimd`), read
from their decoded fields: TensorScalarAddr 0x74 (S-75), TensorScalarAffineSelect 0x92 (S-76); the
custom ops 0x85/0x86 stop the simulator with a message that names the function (S-77); the gather pair
0x67/0x68 runs through a per-lane pool buffer (S-78). Iota 0x7E is :func:`tongasm.sim.semantics.reduce.iota` (S-34).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.gpsimd import AffineSelectCompare, GatherExecution, TensorScalarAddrArith, TensorScalarAddrKinds
from ...isa.layouts.gpsimd import POOL_BUFFER_LOAD
from ...isa.enums import AluOp
from ...isa.layout import Sem
from .. import kernels as fn
from .. import numeric
from ..context import Ctx, _alu, _store
from ..machine import SimError

_CMP: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {"not_equal": np.not_equal, "equal": np.equal}


# --- TensorScalarAddr 0x74 (S-75) ---------------------------------------------------------------------------

def _tsa_scalar(c: Ctx, s: str, count: int) -> tuple[np.ndarray, int]:
    """Scalar ``s`` (s0, s1) as a [count, 1] column in its dtype and that wire dtype (R-71)."""
    w = c.f[f"{s}_dtype"]
    kind = c.ds.get(TensorScalarAddrKinds).names().get(c.f[f"{s}_kind"])
    word = c.f[f"{s}_value"]
    try:
        t = numeric.element_type(w)
    except numeric.NumericError as e:
        raise SimError(f"{c.where()} {s}_dtype: {e}") from None
    if kind == "imm":
        bits = np.array([word & ((1 << (8 * t.itemsize)) - 1)], dtype=f"u{t.itemsize}")
        return np.full((count, 1), bits.view(t)[0], dtype=t), w
    if kind == "reg":
        bits = np.array([c.m.reg(c.engine, word) & 0xFFFFFFFF], dtype=np.uint64)
        return np.full((count, 1), bits.astype(f"u{t.itemsize}").view(t)[0], dtype=t), w
    if kind == "ptr":
        try:
            view = c.m.tensor_view(c.engine, word & 0xFFFFFFFF, count, (), w)
        except (SimError, numeric.NumericError) as e:
            raise SimError(f"{c.where()} {s}_value: {e}") from None
        return np.array(view).reshape(count, 1), w
    raise SimError(f"{c.where()}: unknown scalar kind {c.f[f'{s}_kind']} at {s}_kind (R-71)")


def _apply(op: AluOp, a: np.ndarray, b: np.ndarray, integer: bool) -> np.ndarray:
    if integer:
        return numeric._int_op(op, a, b)
    return numeric._float_op(op, a, b)


def tensor_scalar_addr(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    if src.size != dst.size:
        raise SimError(f"{c.where()}: src has {src.size} elements, dst {dst.size}")
    P = src.shape[0]
    s0, w0 = _tsa_scalar(c, "s0", P)
    s1, w1 = _tsa_scalar(c, "s1", P)
    op0, op1 = _alu(c, c.f["op0"]), _alu(c, c.f["op1"])
    integer = c.ds.get(TensorScalarAddrArith).integer
    x = np.ascontiguousarray(src).reshape(P, -1)
    if integer:
        floats = [n for n, w in (("src", ws), ("dst", wd), ("s0", w0), ("s1", w1)) if not numeric.is_int(w)]
        if floats:
            raise SimError(f"{c.where()}: {', '.join(floats)} not an integer dtype; S-75=int64 models integer "
                           "address arithmetic only")
        a, b0, b1 = numeric.as_int64(x), numeric.as_int64(s0), numeric.as_int64(s1)
    else:
        a, b0, b1 = (numeric.to_fp32(v, w).astype(np.float32) for v, w in ((x, ws), (s0, w0), (s1, w1)))
    t = _apply(op0, b0, a, integer) if c.f["reverse0"] else _apply(op0, a, b0, integer)
    r = _apply(op1, b1, t, integer) if c.f["reverse1"] else _apply(op1, t, b1, integer)
    out = numeric.wrap_int(np.asarray(r, np.int64), wd) if integer else numeric.from_fp32(np.asarray(r, np.float32), wd)
    _store(dst, out)


# --- TensorScalarAffineSelect 0x92 (S-76) -----------------------------------------------------------------

def affine_select(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    name = c.ds.get(AffineSelectCompare).compare(c.f["compare"])
    if name is None:
        raise SimError(f"{c.where()}: compare code {c.f['compare']} is not known (S-76 knows code 3 only)")
    slots = [(numeric.signed(c.f[f"pstep{i}"], 16), c.f[f"pnum{i}"]) for i in range(4)]
    while slots and slots[-1] == (1, 1):
        slots.pop()
    value = fn.iota(P, numeric.signed(c.f["offset"], 32), numeric.signed(c.f["channel_multiplier"], 32),
                    slots[::-1])  # innermost first on the wire: outermost first here
    if value.size != dst.size or src.size != dst.size:
        raise SimError(f"{c.where()}: the pattern has {value.size // P} elements per partition, src "
                       f"{src.size // P}, dst {dst.size // P}")
    fill = np.array([c.m.reg(c.engine, c.f["fill_reg"]) & 0xFFFFFFFF], np.uint32).view(np.float32)[0]
    keep = _CMP[name](value.astype(np.int64), 0)
    x = numeric.to_fp32(np.ascontiguousarray(src).reshape(P, -1), ws).astype(np.float32)
    _store(dst, numeric.from_fp32(np.where(keep, x, fill).astype(np.float32), wd))


# --- custom ops (S-77) and the gather pair (S-78): the simulator stops ---------------------------------------

def custom_op(c: Ctx) -> None:
    if "function" not in c.f:
        raise SimError(f"{c.where()}: a CustomOpPayload with no CustomOpHeader before it ran (S-77)")
    sub = c.f["function"]
    name = c.m.custom_functions.get(sub)
    which = f"{name!r} (ucode_lib.json: opcode 133, sub_opcode {sub})" if name else \
        f"sub_opcode {sub} of opcode 133 (no ucode_lib.json names it here)"
    raise SimError(f"{c.where()}: custom op {which} is Xtensa code run by the Pool engine's CPUs; the simulator "
                   "does not model it (S-77)")


def gather(c: Ctx) -> None:
    if not c.ds.get(GatherExecution).simulated:
        raise SimError(f"{c.where()}: the gather pair (PoolBufferLoad 0x67 + Gather 0x68) is decoded and checked but "
                       "not simulated under S-78=stop")
    if c.d.opcode == POOL_BUFFER_LOAD.byte:
        src, ws = c.ap("src")
        P = src.shape[0]
        c.m.pool_buffers[c.engine] = (c.start_partition("src"), np.array(src).reshape(P, -1), ws, c.f["mask"])
        return
    held = c.m.pool_buffers.get(c.engine)
    if held is None:
        raise SimError(f"{c.where()}: a Gather with no PoolBufferLoad before it on this engine (S-78)")
    _p0, buf, wb, mask = held
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    if P > buf.shape[0]:  # lanes are relative: the real pairs load at p32 and gather at p96
        raise SimError(f"{c.where()}: {P} lanes; the pool buffer holds {buf.shape[0]} (S-78)")
    if src.size != P or dst.size != P:
        raise SimError(f"{c.where()}: a Gather reads one index and writes one element per lane (S-78); src has "
                       f"{src.size // P}, dst {dst.size // P}")
    if not numeric.is_int(ws):
        raise SimError(f"{c.where()}: the indices are not an integer dtype (S-78)")
    idx = numeric.as_int64(np.array(src).reshape(P)) & mask
    if (idx >= buf.shape[1]).any() or (idx < 0).any():
        bad = int(idx[(idx >= buf.shape[1]) | (idx < 0)][0])
        raise SimError(f"{c.where()}: index {bad} is past the pool buffer's {buf.shape[1]} elements per lane (S-78)")
    rows = buf[np.arange(P), idx]
    _store(dst, numeric.convert(rows.reshape(P, 1), wb, wd))


GPSIMD_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.TENSOR_SCALAR_ADDR: tensor_scalar_addr,
    Sem.AFFINE_SELECT: affine_select,
    Sem.CUSTOM_OP: custom_op,
    Sem.GATHER: gather,
}

__all__ = ["GPSIMD_HANDLERS"]
