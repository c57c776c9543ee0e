"""What the reduce family's bundles do: TensorReduce, Reciprocal, the cross-lane reduce, Pool, Iota (S-34)
and the batch-norm statistics. :mod:`tongasm.sim.execute` merges :data:`REDUCE_HANDLERS` into its table.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.reduce import (
    IotaBand,
    PoolPacking,
    ReduceBf16Opcode,
)
from ...isa.decisions.spec import FreeDimOrder
from ...isa.enums import WireDtype
from ...isa.layout import Sem
from ...isa.layouts.reduce import TR_BF16
from ...isa.opcodes import (
    CROSS_BITVEC,
    TR_BITVEC,
    TR_T_BITVEC,
)
from .. import kernels as fn
from .. import numeric
from ..context import Ctx, _alu, _flat, _store
from ..machine import SimError
from .operands import refuse_transposed

_BITVEC_TR = frozenset({TR_BITVEC.byte, TR_T_BITVEC.byte, CROSS_BITVEC.byte})


def tensor_reduce(c: Ctx) -> None:
    refuse_transposed(c)
    if c.d.opcode == TR_BF16.byte and not c.ds.get(ReduceBf16Opcode).simulated:
        raise SimError(f"{c.where()}: opcode 0x8c is decoded with TensorReduce's layout but not simulated under "
                       "R-60=unknown")
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    r = c.f["axis"] - 1  # the number of innermost free dims reduced (N-13)
    dims = list(src.shape[1:])
    if not c.ds.get(FreeDimOrder).innermost_first:  # D-6 outermost-first: the {1,1} fills trail
        while len(dims) > r and dims[-1] == 1:
            dims.pop()
    if not 1 <= r <= len(dims):
        raise SimError(f"{c.where()}: axis byte {c.f['axis']} reduces {r} dims; the src descriptor has {len(dims)}")
    P = src.shape[0]
    x = np.ascontiguousarray(src).reshape(P, -1, int(np.prod(dims[len(dims) - r:])))
    op = _alu(c, c.f["op"])
    bitvec = c.d.opcode in _BITVEC_TR
    if x.shape[1] * P != dst.size:
        raise SimError(f"{c.where()}: dst has {dst.size} elements; the reduce leaves {x.shape[1] * P}")
    if bitvec:
        out = numeric.bits_to(wd, fn.fold(op, x, bitvec=True, w=ws))
    else:
        acc = fn.fold(op, x, w=ws)
        if c.f["negate"]:
            acc = -acc
        out = numeric.from_fp32(acc, wd)
    _store(dst, out)


def reciprocal(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    if src.size != dst.size:
        raise SimError(f"{c.where()}: operands have different element counts ({src.size}, {dst.size})")
    _store(dst, fn.reciprocal(_flat(np.ascontiguousarray(src)), ws, wd))


def _bn_io(c: Ctx) -> tuple[np.ndarray, int, np.ndarray, int]:
    refuse_transposed(c)
    if "num_partitions" not in c.f:
        raise SimError(f"{c.where()}: under N-39=start-partition the bundle carries no partition count to run with")
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    return numeric.to_fp32(_flat(np.ascontiguousarray(src)), ws).astype(np.float32), ws, dst, wd


def bn_stats(c: Ctx) -> None:
    x, _ws, dst, wd = _bn_io(c)
    if dst.size != x.shape[0] * 6:
        raise SimError(f"{c.where()}: BNStats writes 6 elements per partition; dst has {dst.size // max(x.shape[0], 1)}")
    _store(dst, numeric.from_fp32(fn.bn_stats(x), wd))


def bn_aggregate(c: Ctx) -> None:
    x, _ws, dst, wd = _bn_io(c)
    if x.shape[1] % 3 or dst.size != x.shape[0] * 2:
        raise SimError(f"{c.where()}: BNStatsAggregate reads triples and writes 2 elements per partition")
    _store(dst, numeric.from_fp32(fn.bn_aggregate(x), wd))


def _f32_word(bits: int) -> float:
    return float(np.array([bits], np.uint32).view(np.float32)[0])


def cross_lane_reduce(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")  # one partition (the layout's slot says so)
    x = _flat(np.ascontiguousarray(src))
    per_element = bool(c.f["cross_lane"])
    r = fn.cross_lane(x, c.f["command"], per_element, _f32_word(c.f["scale"]), ws)
    out = numeric.bits_to(wd, r) if c.f["command"] >= 3 else numeric.from_fp32(r, wd)
    if out.size != dst.size:
        raise SimError(f"{c.where()}: dst has {dst.size} elements; the reduce leaves {out.size}")
    _store(dst, out)


def pool(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    window = PoolPacking.window([(c.f[f"src.step{i}"], c.f[f"src.num{i}"]) for i in range(4)], c.ds.get(FreeDimOrder))
    x = numeric.to_fp32(np.ascontiguousarray(src), ws).reshape(P, -1, window).astype(np.float32)
    r = fn.pool(x, c.f["func"] == 1, _f32_word(c.f["scale"]))
    if r.size != dst.size:
        raise SimError(f"{c.where()}: dst has {dst.size} elements; the windows are {r.size}")
    _store(dst, numeric.from_fp32(r, wd))


def iota(c: Ctx) -> None:
    dst, wd = c.ap("dst")
    n22 = c.ds.get(IotaBand)
    first = n22.first_slot
    slots = [(numeric.signed(c.f[f"pstep{i}"], 16), c.f[f"pnum{i}"]) for i in range(first, 4)]
    while slots and slots[-1] == (1, 1):
        slots.pop()
    pattern = slots[::-1]  # innermost first on the wire (N-22): outermost first here
    base = numeric.signed(c.f["base"], 32) if n22.has_base else 0
    v = fn.iota(dst.shape[0], base, numeric.signed(c.f["channel_multiplier"], 32), pattern)
    if v.size != dst.size:
        raise SimError(f"{c.where()}: the pattern has {v.shape[1]} elements per partition, dst {dst.size // dst.shape[0]}")
    _store(dst, numeric.convert(v, int(WireDtype.INT32), wd))


REDUCE_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.TENSOR_REDUCE: tensor_reduce,
    Sem.RECIPROCAL: reciprocal,
    Sem.CROSS_LANE_REDUCE: cross_lane_reduce,
    Sem.POOL: pool,
    Sem.IOTA: iota,
    Sem.BN_STATS: bn_stats,
    Sem.BN_AGGREGATE: bn_aggregate,
}
