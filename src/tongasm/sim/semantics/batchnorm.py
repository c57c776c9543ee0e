"""What the batch-norm backward bundles do, read from their decoded fields. With x, dy, the mean m
and the varfactor vf (rsqrt(var + eps) in the real graphs) of each partition:

* BatchNormGradAccumulate 0x63 writes three sums, sum dy and sum (x - m) dy times vf^2 and vf (S-72
  says which is which);
* BatchNormParamLoad 0x64 latches [scale, A, Bc], N and the mean of each lane on its engine;
* BatchNormBackProp 0x65 writes dx = (dy N - ((x - m) Bc + A)) scale (the book's formula; with the
  real graphs' coefficients it is HLO's batch-norm-grad).

Sums run in float64 and are rounded to the output dtype once; pointer words follow N-6.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.batchnorm import BnGradientOrder, BnParamLoadKinds
from ...isa.decisions.scalar import PointerWord
from ...isa.descriptors import decode_addr4
from ...isa.vector_enums import ScalarKind
from ...isa.layout import Sem
from .. import numeric
from ..context import Ctx, _flat, _store
from ..machine import SimError, rewrap

#: the key of BatchNormParamLoad's latch in the engine state
LATCH = "bn_params"


def _f32_word(bits: int) -> float:
    return float(np.array([bits & 0xFFFFFFFF], np.uint32).view(np.float32)[0])


def _values(c: Ctx, slot: str) -> np.ndarray:
    view, w = c.ap(slot)
    return numeric.to_fp32(_flat(np.ascontiguousarray(view)), w).astype(np.float64)


def _column(c: Ctx, word: int, data_slot: str, count: int, w: int, what: str) -> np.ndarray:
    """The [count, 1] column a pointer word addresses (N-6: the whole ADDR4, or the byte in the data's
    partition and space), as float64."""
    address = word
    if not c.ds.get(PointerWord).has_address:
        a = decode_addr4(c.f[f"{data_slot}.addr"])
        address = (a.word & ~0x3FFFF) | word if a.space == "sbuf" else 0x2000000 + ((a.partition or 0) << 15) + word
    try:
        view = c.m.tensor_view(c.engine, address, count, (), w)
    except (SimError, numeric.NumericError) as e:
        raise rewrap(e, f"{c.where()} {what}") from None
    return numeric.to_fp32(np.array(view), w).astype(np.float64).reshape(count, 1)


def grad_accumulate(c: Ctx) -> None:
    x, dy = _values(c, "x"), _values(c, "dy")
    out, wo = c.ap("out")
    P = x.shape[0]
    if x.shape != dy.shape or out.size != 3 * P:
        raise SimError(f"{c.where()}: x {x.shape[1]}, dy {dy.shape[1]} and out {out.size // max(P, 1)} elements per "
                       "partition (x and dy alike, out 3)")
    w = c.f["coeff_dtype"]
    mean = _column(c, c.f["mean_ptr"], "x", P, w, "mean")
    vf = _column(c, c.f["varfactor_ptr"], "x", P, w, "varfactor")
    s_dy = dy.sum(axis=1, keepdims=True)
    s_xdy = ((x - mean) * dy).sum(axis=1, keepdims=True)
    p0, p1, p2 = c.ds.get(BnGradientOrder).vf_powers()
    sums = np.concatenate([s_dy * vf ** p0, s_xdy * vf ** p1, s_xdy * vf ** p2], axis=1)
    _store(out, numeric.from_fp32(sums.astype(np.float32), wo))


def param_load(c: Ctx) -> None:
    k = _values(c, "coeff")
    P = k.shape[0]
    if k.shape[1] != 3:
        raise SimError(f"{c.where()}: BatchNormParamLoad reads [scale, A, Bc]: 3 elements per partition, not {k.shape[1]}")
    kind = c.ds.get(BnParamLoadKinds).kind(c.f["mean_kind"])
    word, w = c.f["mean_value"], c.f["coeff_dtype"]
    if kind is ScalarKind.POINTER:
        mean = _column(c, word, "coeff", P, w, "mean")
    elif kind is ScalarKind.IMMEDIATE:
        mean = np.full((P, 1), _f32_word(word))
    elif kind is ScalarKind.REGISTER:
        mean = np.full((P, 1), _f32_word(c.m.reg(c.engine, word)))
    else:
        raise SimError(f"{c.where()}: unknown mean kind {c.f['mean_kind']} at mean_kind (R-61)")
    c.m.engines[c.engine].latched[LATCH] = (k, _f32_word(c.f["total_elements"]), mean)


def backprop(c: Ctx) -> None:
    latched = c.m.engines[c.engine].latched.get(LATCH)
    if latched is None:
        raise SimError(f"{c.where()}: BatchNormBackProp with no BatchNormParamLoad before it on {c.engine}")
    k, n, mean = latched
    x, dy = _values(c, "x"), _values(c, "dy")
    dx, wd = c.ap("dx")
    P = x.shape[0]
    if k.shape[0] != P:
        raise SimError(f"{c.where()}: BatchNormBackProp runs on {P} partitions, the last BatchNormParamLoad latched "
                       f"{k.shape[0]}")
    if x.shape != dy.shape or dx.size != x.size:
        raise SimError(f"{c.where()}: x, dy and dx have different element counts")
    scale, a, bc = k[:, 0:1], k[:, 1:2], k[:, 2:3]
    r = (dy * n - ((x - mean) * bc + a)) * scale
    _store(dx, numeric.from_fp32(r.astype(np.float32), wd))


BATCHNORM_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.BN_GRAD_ACCUMULATE: grad_accumulate,
    Sem.BN_PARAM_LOAD: param_load,
    Sem.BN_BACKPROP: backprop,
}

__all__ = ["BATCHNORM_HANDLERS", "LATCH"]
