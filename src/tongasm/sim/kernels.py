"""Numeric kernels of the next families: activation functions, folds, the accumulator commands,
TensorScalar's two ops, reciprocal and the batch-norm statistics.

Like :mod:`tongasm.sim.numeric`, this is code the bundle simulator and the IR reference interpreter
share (and the only such code of these families): both call these kernels with values they found
their own way (the simulator from the decoded bundle, the interpreter from the BIR instruction).
Everything computes in float32 with numpy; each rule cites its S-n decision
(:mod:`tongasm.isa.decisions.semantics`) or N-n decision.

Activation functions are the mathematical functions of ``next-families.md`` §2.1, *not* the
hardware's piecewise-polynomial (PWP) approximations: by default (S-21) each is evaluated on float32
values with float32 arithmetic (numpy's float32 ufuncs; erf through C's double ``erf`` rounded to
float32), so a result may differ from the device by the PWP error and from the exact function by a
few float32 ulps.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..isa.decisions import DecisionSet
from ..isa.decisions.semantics import ActivationEvaluation, ActivationPrescale
from ..isa.enums import AccType, AluOp
from ..isa.vector_enums import REDUCE_IDENTITY, ActFunc
from . import numeric

F32 = np.float32
_WIRE_F32 = 10

# --- activation functions (chapter §2.1, S-21) -----------------------------------------------------------

_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erf_t(v: np.ndarray) -> np.ndarray:
    return _erf(v.astype(np.float64)).astype(v.dtype)


def _softplus(v: np.ndarray, T: type) -> np.ndarray:
    return np.log1p(np.exp(-np.abs(v))) + np.maximum(v, T(0))


def _sigmoid(v: np.ndarray, T: type) -> np.ndarray:
    return T(1) / (np.exp(-v) + T(1))


#: Closed forms of chapter §2.1 (the research table's ``maths_fp32`` column, Derivative_silu
#: corrected), each written once for values of dtype ``T`` (float32 or float64): constants are cast
#: to ``T`` so every step rounds in ``T``.
ACT_FORMULAS: Mapping[ActFunc, Callable[[np.ndarray, Any, type], np.ndarray]] = {
    ActFunc.Identity: lambda v, al, T: v,
    ActFunc.Copy: lambda v, al, T: v,
    ActFunc.Square: lambda v, al, T: v * v,
    ActFunc.Relu: lambda v, al, T: np.maximum(v, T(0)),
    ActFunc.Lrelu: lambda v, al, T: np.where(v <= 0, v * T(0.01), v),
    ActFunc.Prelu: lambda v, al, T: np.where(v <= 0, v * np.asarray(al, dtype=T), v),
    ActFunc.Sigmoid: lambda v, al, T: _sigmoid(v, T),
    ActFunc.Tanh: lambda v, al, T: np.tanh(v),
    ActFunc.Exp: lambda v, al, T: np.exp(v),
    ActFunc.Softplus: lambda v, al, T: _softplus(v, T),
    ActFunc.Sqrt: lambda v, al, T: np.sqrt(v),
    ActFunc.Rsqrt: lambda v, al, T: T(1) / np.sqrt(v),
    ActFunc.Ln: lambda v, al, T: np.log(v),
    ActFunc.Erf: lambda v, al, T: _erf_t(v),
    ActFunc.Sin: lambda v, al, T: np.sin(v),
    ActFunc.Arctan: lambda v, al, T: np.arctan(v),
    ActFunc.Sign: lambda v, al, T: np.sign(v),
    ActFunc.Gelu: lambda v, al, T: T(0.5) * v * (_erf_t(v / T(math.sqrt(2.0))) + T(1)),
    ActFunc.Mish: lambda v, al, T: v * np.tanh(_softplus(v, T)),
    ActFunc.Gelu_apprx_tanh: lambda v, al, T: T(0.5) * v * (
        np.tanh((T(0.044715) * v * v * v + v) * T(0.7978845608028654)) + T(1)),
    ActFunc.Gelu_apprx_sigmoid: lambda v, al, T: v * _sigmoid(T(1.702) * v, T),
    ActFunc.Derivative_Gelu_apprx_sigmoid: lambda v, al, T: _dgelu_sigmoid(T(1.702) * v, T),
    ActFunc.Derivative_Gelu: lambda v, al, T: (T(0.5) * (_erf_t(v * T(0.7071067811865476)) + T(1))
                                               + v * T(0.3989423) * np.exp(-(v * v) / T(2))),
    ActFunc.Derivative_Erf: lambda v, al, T: T(1.1283792) * np.exp(-(v * v)),
    ActFunc.Abs: lambda v, al, T: np.abs(v),
    ActFunc.Reciprocal: lambda v, al, T: T(1) / v,
    ActFunc.Abs_reciprocal_sqrt: lambda v, al, T: T(1) / np.sqrt(np.abs(v)),
    ActFunc.Silu: lambda v, al, T: v / (np.exp(-v) + T(1)),
    ActFunc.Derivative_silu: lambda v, al, T: _dsilu(v, T),
    ActFunc.Is_finite: lambda v, al, T: np.isfinite(v).astype(T),
}


def _dgelu_sigmoid(u: np.ndarray, T: type) -> np.ndarray:
    e = np.exp(u)
    return (u + e + T(1)) * e / ((e + T(1)) * (e + T(1)))


def _dsilu(v: np.ndarray, T: type) -> np.ndarray:
    e = np.exp(v)
    return e * (v + e + T(1)) / ((e + T(1)) * (e + T(1)))


def activation_value(func: ActFunc, v: np.ndarray, alpha: np.ndarray | float, ds: DecisionSet) -> np.ndarray:
    """``F(v; alpha)`` as float32 (S-21: in float32 arithmetic, or evaluated in float64 and rounded
    once)."""
    T = ds.get(ActivationEvaluation).dtype
    with np.errstate(all="ignore"):
        return np.asarray(ACT_FORMULAS[func](v.astype(T), alpha, T), dtype=T).astype(F32)


def prescale(x: np.ndarray, scale: np.ndarray | float, bias: np.ndarray | float, ds: DecisionSet) -> np.ndarray:
    """S-20: ``v = x*scale + bias`` in float32, two roundings (multiply, then add), or one (fused)."""
    with np.errstate(all="ignore"):
        if ds.get(ActivationPrescale).fused:  # one rounding: the exact product-sum fits float64's 53 bits
            return (x.astype(np.float64) * np.asarray(scale, np.float64) + np.asarray(bias, np.float64)).astype(F32)
        return ((x.astype(F32) * np.asarray(scale, F32)).astype(F32) + np.asarray(bias, F32)).astype(F32)


# --- folds and the accumulators (S-22, S-28, N-30) -----------------------------------------------------------

def fold(op: AluOp, x: np.ndarray, *, bitvec: bool = False, w: int = _WIRE_F32) -> np.ndarray:
    """A sequential left-to-right fold of the last axis of ``x`` with ``op`` (S-22, S-28): float32
    values, or raw bits of wire dtype ``w`` for a bit-vector op (S-6). Returns float32 (raw bits as
    uint64 for bit-vector ops)."""
    n = x.shape[-1]
    if bitvec:
        acc = np.ascontiguousarray(x[..., 0])
        for j in range(1, n):
            acc = numeric.tensor_tensor(op, acc, w, np.ascontiguousarray(x[..., j]), w, w, bitvec=True)
        return numeric.bits_view(np.ascontiguousarray(acc)).astype(np.uint64)
    xf = numeric.to_fp32(x, w)
    ufunc = numeric.fold_ufunc(op)
    if ufunc is not None and n:  # the same steps in one call: accumulate is sequential, each step float32
        with np.errstate(all="ignore"):
            return np.array(ufunc.accumulate(xf, axis=-1, dtype=F32)[..., -1], dtype=F32)
    acc = np.array(xf[..., 0], dtype=F32)
    for j in range(1, n):
        acc = numeric.tensor_tensor(op, acc, _WIRE_F32, np.ascontiguousarray(xf[..., j]), _WIRE_F32, _WIRE_F32)
    return acc


def accumulate(acc: np.ndarray, cmd: AccType, op: AluOp, row: np.ndarray, init: np.ndarray | float | None) -> None:
    """N-30 on one engine's accumulators ``acc`` (float32, one per lane, updated in place) for the
    lanes of ``row`` (float32 [lanes, n], the instruction's values before any dst conversion):
    Zero resets to the identity of ``op``; ZeroAccumulate resets and folds; AddAccumulate folds;
    LoadAccumulate loads ``init`` and folds; Idle leaves it. The fold is sequential in float32 (S-22)."""
    if cmd == AccType.Idle:
        return
    if cmd in (AccType.Zero, AccType.ZeroAccumulate):
        acc[...] = F32(REDUCE_IDENTITY.get(op, 0.0))
    elif cmd == AccType.LoadAccumulate:
        acc[...] = np.asarray(0.0 if init is None else init, dtype=F32).reshape(-1)
    if cmd == AccType.Zero:
        return
    cur = acc.astype(F32)
    ufunc = numeric.fold_ufunc(op)
    if ufunc is not None:  # the fold below in one sequential float32 accumulate, the old value first
        with np.errstate(all="ignore"):
            steps = np.concatenate([cur.reshape(-1, 1), np.asarray(row, dtype=F32)], axis=1)
            acc[...] = ufunc.accumulate(steps, axis=1, dtype=F32)[:, -1].reshape(acc.shape)
        return
    for j in range(row.shape[1]):
        cur = numeric.tensor_tensor(op, cur, _WIRE_F32, np.ascontiguousarray(row[:, j], dtype=F32), _WIRE_F32,
                                    _WIRE_F32)
    acc[...] = cur


def scan(acc: np.ndarray, cmd: AccType, op: AluOp, t: np.ndarray, init: np.ndarray | None,
         backwards: bool = False) -> np.ndarray:
    """S-36, the cumulative scan of 0xE6 on ``t`` (float32 [lanes, n]) with the engine accumulators
    ``acc`` of those lanes (updated in place): reg starts at id(op) (Zero, ZeroAccumulate), at ``init``
    (LoadAccumulate) or at ``acc`` (AddAccumulate, Idle); ``reg = op(t_i, reg)`` element by element
    (last to first when ``backwards``, N-28), each written; the accumulator keeps the last reg (Zero:
    id(op); Idle: unchanged). Returns the float32 outputs."""
    if cmd in (AccType.Zero, AccType.ZeroAccumulate):
        reg = np.full(acc.shape, F32(REDUCE_IDENTITY.get(op, 0.0)), F32)
    elif cmd == AccType.LoadAccumulate:
        reg = np.broadcast_to(np.asarray(0.0 if init is None else init, F32).reshape(-1), acc.shape).astype(F32)
    else:
        reg = acc.astype(F32)
    out = np.empty_like(t, dtype=F32)
    order = range(t.shape[1] - 1, -1, -1) if backwards else range(t.shape[1])
    for i in order:
        reg = numeric.tensor_tensor(op, np.ascontiguousarray(t[:, i], dtype=F32), _WIRE_F32, reg, _WIRE_F32, _WIRE_F32)
        out[:, i] = reg
    if cmd == AccType.Zero:
        acc[...] = F32(REDUCE_IDENTITY.get(op, 0.0))
    elif cmd != AccType.Idle:
        acc[...] = reg
    return out


# --- TensorScalar (S-26) -------------------------------------------------------------------------------

def scalar_op(op: AluOp, x: np.ndarray, wx: int, s: np.ndarray, ws: int, w_out: int, reverse: bool,
              bitvec: bool) -> np.ndarray:
    """``op(x, s)`` (``op(s, x)`` when ``reverse``) with ``s`` a per-partition column [P, 1]
    broadcast along the free elements; arithmetic in float32, bit-vector ops on raw bits (S-6)."""
    s = np.broadcast_to(s, x.shape)
    a, wa, b, wb = (s, ws, x, wx) if reverse else (x, wx, s, ws)
    return numeric.tensor_tensor(op, np.ascontiguousarray(a), wa, np.ascontiguousarray(b), wb, w_out, bitvec=bitvec)


# --- ScalarTensorTensor (S-37) and the tensor-tensor scan (S-38, S-39) -------------------------------------

def scalar_tensor_tensor(op0: AluOp, op1: AluOp, x0: np.ndarray, w0: int, s: np.ndarray, ws: int, x1: np.ndarray,
                         w1: int, w_out: int, reverse0: bool, reverse1: bool, bitvec: bool) -> np.ndarray:
    """S-37: ``out = op1(op0(x0, s), x1)`` on [P, n] tensors ``x0``, ``x1`` (wire dtypes ``w0``, ``w1``)
    and the per-partition column ``s`` [P, 1] (wire dtype ``ws``); ``reverse0`` / ``reverse1`` swap
    each op's operands. Arithmetic: every input to float32, both ops in float32, the result to
    ``w_out``. Bit-vector: raw bits, ``t`` at x0's width (``s`` already cut to it, as S-26). Returns
    the out-dtype array [P, n]."""
    wt = w0 if bitvec else _WIRE_F32
    t = scalar_op(op0, x0, w0, s, ws, wt, reverse0, bitvec)
    a, wa, b, wb = (x1, w1, t, wt) if reverse1 else (t, wt, x1, w1)
    return numeric.tensor_tensor(op1, np.ascontiguousarray(a), wa, np.ascontiguousarray(b), wb, w_out, bitvec=bitvec)


def tensor_tensor_scan(op0: AluOp, op1: AluOp, x0: np.ndarray, w0: int, initial: np.ndarray, x1: np.ndarray,
                       w1: int, w_out: int, reverse0: bool, reverse1: bool, carry_rounded: bool) -> np.ndarray:
    """NKI tensor_tensor_scan on [P, n] tensors, per partition and element by element:
    ``r_i = op1(op0(x0_i, c_(i-1)), x1_i)`` (``reverse0``: ``op0(c_(i-1), x0_i)``; ``reverse1``:
    ``op1(x1_i, t)``), everything in float32, ``c_(-1)`` = ``initial`` (float32 [P] or [P, 1], S-38) and
    ``c_i`` = ``r_i`` (S-39=fp32) or ``r_i`` rounded to ``w_out`` and back (S-39=out-dtype). Returns the
    out-dtype array [P, n] of the ``r_i``."""
    f0 = numeric.to_fp32(x0, w0).astype(F32)
    f1 = numeric.to_fp32(x1, w1).astype(F32)
    carry = np.asarray(initial, F32).reshape(-1).copy()
    r = np.empty(f0.shape, F32)
    for i in range(f0.shape[1]):
        a, b = (carry, f0[:, i]) if reverse0 else (f0[:, i], carry)
        t = numeric.tensor_tensor(op0, np.ascontiguousarray(a), _WIRE_F32, np.ascontiguousarray(b), _WIRE_F32,
                                  _WIRE_F32)
        a, b = (f1[:, i], t) if reverse1 else (t, f1[:, i])
        r[:, i] = numeric.tensor_tensor(op1, np.ascontiguousarray(a), _WIRE_F32, np.ascontiguousarray(b), _WIRE_F32,
                                        _WIRE_F32)
        carry = r[:, i].copy()
        if carry_rounded:
            carry = numeric.to_fp32(numeric.from_fp32(carry, w_out), w_out).astype(F32)
    return numeric.from_fp32(r, w_out)


# --- Pool (S-33), the cross-lane reduce (S-29), Iota (S-34) --------------------------------------------------

def pool(x: np.ndarray, is_max: bool, scale: float) -> np.ndarray:
    """S-33 on windows ``x`` (float32 [..., window]): Max = fmaxf fold from -FLT_MAX (NaN ignored, C
    fmaxf), Avg = sequential float32 sum x ``scale``."""
    if is_max:
        acc = np.full(x.shape[:-1], -np.finfo(F32).max, F32)
        for i in range(x.shape[-1]):
            acc = np.fmax(x[..., i], acc).astype(F32)
        return acc
    total = fold(AluOp.add, x) if x.shape[-1] else np.zeros(x.shape[:-1], F32)
    with np.errstate(all="ignore"):
        return (total * F32(scale)).astype(F32)


def cross_lane(x: np.ndarray, command: int, per_element: bool, scale: float, w: int) -> np.ndarray:
    """S-29 on ``x`` ([P, n] of wire dtype ``w``): fold over the partitions for each free element
    (``per_element``: axis C, -> [n]) or over everything partition-major (XYZWC, -> [1]). Commands:
    add, average (the sum x ``scale``), max in float32; or, and, xor on raw bits. Returns float32, or
    uint64 bits for the bit-vector commands."""
    op = {0: AluOp.add, 1: AluOp.add, 2: AluOp.max, 3: AluOp.bitwise_or, 4: AluOp.bitwise_and,
          5: AluOp.bitwise_xor}[command]
    y = np.ascontiguousarray(x.T) if per_element else np.ascontiguousarray(x).reshape(1, -1)
    if command >= 3:
        return fold(op, y, bitvec=True, w=w)
    r = fold(op, y, w=w)
    if command == 1:
        with np.errstate(all="ignore"):
            r = (r * F32(scale)).astype(F32)
    return r


def iota(P: int, base: int, channel_multiplier: int, pattern: list[tuple[int, int]]) -> np.ndarray:
    """S-34: int32 [P, n] = base + c*channel_multiplier + sum of step x index over the pattern
    (outermost first, row-major), wrapping in 32 bits; c is the partition within the tile."""
    nums = [n for _s, n in pattern] or [1]
    steps = np.array([s for s, _n in pattern] or [0], np.int64)
    idx = np.indices(nums).reshape(len(nums), -1)
    free = (steps[:, None] * idx).sum(axis=0)
    v = base + np.arange(P, dtype=np.int64)[:, None] * channel_multiplier + free[None, :]
    return ((v + (1 << 31)) % (1 << 32) - (1 << 31)).astype(np.int32)


# --- Reciprocal (S-30) ---------------------------------------------------------------------------------

def reciprocal(x: np.ndarray, w_in: int, w_out: int) -> np.ndarray:
    """S-30: ``1.0f / x`` in float32 (IEEE: 1/±0 = ±inf)."""
    with np.errstate(all="ignore"):
        return numeric.from_fp32(F32(1) / numeric.to_fp32(x, w_in).astype(F32), w_out)


# --- batch-norm statistics (S-31, S-32) --------------------------------------------------------------------

def _welford(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    P = x.shape[0]
    n, mean, m2 = np.zeros(P, F32), np.zeros(P, F32), np.zeros(P, F32)
    with np.errstate(all="ignore"):
        for j in range(x.shape[1]):
            e = x[:, j]
            n = (n + F32(1)).astype(F32)
            d = (e - mean).astype(F32)
            mean = (mean + (d / n).astype(F32)).astype(F32)
            m2 = (m2 + (d * (e - mean).astype(F32)).astype(F32)).astype(F32)
    return n, mean, m2


def bn_stats(x: np.ndarray) -> np.ndarray:
    """S-31: per partition of ``x`` (float32 [P, N], element order), [n_A, mean_A, M2_A, n_B, mean_B,
    M2_B] over the even-indexed (A) and odd-indexed (B) elements, by Welford's update in float32."""
    out = np.zeros((x.shape[0], 6), F32)
    for k, lane in enumerate((x[:, 0::2], x[:, 1::2])):
        n, mean, m2 = _welford(np.ascontiguousarray(lane, dtype=F32))
        out[:, 3 * k], out[:, 3 * k + 1], out[:, 3 * k + 2] = n, mean, m2
    return out


def bn_aggregate(st: np.ndarray) -> np.ndarray:
    """S-32: merge the (n, mean, M2) triples of each row of ``st`` (float32 [P, 3K]) in order with
    Chan's formula in float32, skipping n = 0; [mean, M2 / n] per partition ([0, 0] if all empty)."""
    P = st.shape[0]
    n, mean, m2 = np.zeros(P, F32), np.zeros(P, F32), np.zeros(P, F32)
    with np.errstate(all="ignore"):
        for k in range(0, st.shape[1], 3):
            nb, mb, m2b = st[:, k], st[:, k + 1], st[:, k + 2]
            live = nb != 0
            tot = (n + nb).astype(F32)
            d = (mb - mean).astype(F32)
            new_mean = (mean + (d * (nb / tot).astype(F32)).astype(F32)).astype(F32)
            new_m2 = (m2 + m2b + ((d * d).astype(F32) * ((n * nb).astype(F32) / tot).astype(F32)).astype(F32))
            mean = np.where(live, new_mean, mean).astype(F32)
            m2 = np.where(live, new_m2.astype(F32), m2).astype(F32)
            n = np.where(live, tot, n).astype(F32)
        var = np.where(n > 0, (m2 / np.where(n > 0, n, F32(1))).astype(F32), F32(0)).astype(F32)
    return np.stack([np.where(n > 0, mean, F32(0)).astype(F32), var], axis=1)
