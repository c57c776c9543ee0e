"""What the Pool-engine (GPSIMD) bundles of real output do (:mod:`tongasm.isa.layouts.gpsimd`), read
from their decoded fields: TensorScalarAddr 0x74 (S-75), TensorScalarAffineSelect 0x92 (S-76); the
custom ops 0x85/0x86 stop the simulator with a message that names the function (S-77), but for the
sort pair partial_sort / partial_merge_multicore_compute (S-121); the gather pair
0x67/0x68 runs through a per-lane pool buffer (S-78). Iota 0x7E is :func:`tongasm.sim.semantics.reduce.iota` (S-34).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.gpsimd import (AffineSelectCompare, GatherExecution, SortMergeCustomOps, TensorScalarAddrArith,
                                     TensorScalarAddrKinds)
from ...isa.layouts.gpsimd import POOL_BUFFER_LOAD
from ...isa.enums import AluOp, WireDtype
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


# --- custom ops (S-77, S-121) and the gather pair (S-78) -----------------------------------------------------

_SORT, _MERGE = "partial_sort_multicore_compute", "partial_merge_multicore_compute"
_SCALARS = (0, 1)  # the two trailing int32 scalars of every real call (S-121)


def custom_op(c: Ctx) -> None:
    if c.d.mnemonic == "CustomOpHeader":
        _custom_header(c)
        return
    call = c.m.custom_calls.get(c.engine)
    if call is None:
        raise SimError(f"{c.where()}: a CustomOpPayload with no CustomOpHeader before it ran (S-77)")
    where, sub, count, args = call
    f = c.f
    args.append({"addr": f["addr"], "dtype": f["arg_dtype"], "count": f["w2c"], "count2": f["w34"],
                 "w30": f["w30"]})
    if len(args) == count:
        del c.m.custom_calls[c.engine]
        _custom_run(c, where, c.m.custom_functions[sub], args)


def _custom_header(c: Ctx) -> None:
    sub = c.f["function"]
    name = c.m.custom_functions.get(sub)
    which = f"{name!r} (ucode_lib.json: opcode 133, sub_opcode {sub})" if name else \
        f"sub_opcode {sub} of opcode 133 (no ucode_lib.json names it here)"
    if name in (_SORT, _MERGE) and c.ds.get(SortMergeCustomOps).simulated:
        if c.f["payloads"] != 5 or c.f["num_args"] != 4:
            raise SimError(f"{c.where()}: custom op {which} with {c.f['payloads']} payloads and {c.f['num_args']} "
                           "arguments; S-121 models the real calls' 5 payloads, 4 arguments only")
        if c.engine in c.m.custom_calls:
            raise SimError(f"{c.where()}: custom op {which} starts before the one at {c.m.custom_calls[c.engine][0]} "
                           "has all its payloads (S-121)")
        c.m.custom_calls[c.engine] = (c.where(), sub, c.f["payloads"], [])
        return
    raise SimError(f"{c.where()}: custom op {which} is Xtensa code run by the Pool engine's CPUs; the simulator "
                   "does not model it (S-77)")


def _arg(c: Ctx, what: str, a: dict[str, int], w: int, count: int) -> np.ndarray:
    """A custom-op argument as a 1-D view of ``count`` elements of wire dtype ``w`` at its address."""
    if a["dtype"] != w or a["count"] != count or a["count2"] != count or a["w30"] != 1:
        raise SimError(f"{what}: {_wname(a['dtype'])} x {a['count']} (w34 {a['count2']}, w30 {a['w30']}); S-121 "
                       f"models {_wname(w)} x {count} here")
    try:
        return c.m.tensor_view(c.engine, a["addr"] & 0xFFFFFFFF, 1, ((1, count),), w).reshape(count)
    except (SimError, numeric.NumericError) as e:
        raise SimError(f"{what}: {e}") from None


def _wname(w: int) -> str:
    try:
        return WireDtype(w).name.lower()
    except ValueError:
        return f"wire dtype {w}"


def _total_order(x: np.ndarray) -> np.ndarray:
    """float32 keys as int64 ranks in IEEE total order (the HLO comparators' TOTALORDER): -NaN < -inf < ...
    < -0 < +0 < ... < +inf < +NaN."""
    i = np.ascontiguousarray(x, np.float32).view(np.int32).astype(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFF) - 1, i)


def _chunks(n: int, cpus: int, groups: int) -> list[tuple[int, int]]:
    """The [lo, hi) of ``groups`` runs over ``n`` keys: ``cpus`` chunks of ceil(n/cpus), grouped."""
    size = -(-n // cpus)
    per = cpus // groups
    return [(min(n, j * per * size), min(n, (j + 1) * per * size)) for j in range(groups)]


def _custom_run(c: Ctx, where: str, name: str, args: list[dict[str, int]]) -> None:
    label = f"{where}: custom op {name!r} (S-121)"
    rule = c.ds.get(SortMergeCustomOps)
    cpus = c.m.custom_cpus
    if cpus is None or cpus & (cpus - 1):
        raise SimError(f"{label}: the ucode_lib.json's total_cpus is {cpus}; S-121 needs one power of two")
    i32, f32 = int(WireDtype.INT32), int(WireDtype.FLOAT32)
    scal = [int(_arg(c, f"{label} argument {k}", args[k], i32, 1)[0]) for k in (3, 4)]
    if tuple(scal) != _SCALARS:
        raise SimError(f"{label}: its scalar arguments 3, 4 read {scal[0]}, {scal[1]}; every real call has 0, 1 "
                       "(their meaning, a direction or an offset, is not known)")
    n2 = args[0]["count"]
    if n2 % 2 or n2 < 2:
        raise SimError(f"{label}: the out holds {n2} float32, not [keys | values] of n each")
    n = n2 // 2
    out = _arg(c, f"{label} argument 0", args[0], f32, n2)
    if name == _SORT:
        keys = np.array(_arg(c, f"{label} argument 1", args[1], f32, n))
        vals = numeric.as_int64(np.array(_arg(c, f"{label} argument 2", args[2], i32, n)))
        if (np.abs(vals) > 1 << 24).any():
            raise SimError(f"{label}: a value is past 2^24, not exact in the float32 half of the out")
        runs = _chunks(n, cpus, cpus)
    else:
        src = np.array(_arg(c, f"{label} argument 1", args[1], f32, n2))
        groups = int(_arg(c, f"{label} argument 2", args[2], i32, 1)[0])
        if groups < 2 or groups > cpus or groups & (groups - 1):
            raise SimError(f"{label}: it merges {groups} runs; S-121 models a power of two 2..{cpus}")
        keys, vals = src[:n], src[n:].astype(np.int64)
        order_keys = _total_order(keys)
        for j, (lo, hi) in enumerate(_chunks(n, cpus, groups)):
            if (np.diff(order_keys[lo:hi]) < 0).any():
                raise SimError(f"{label}: input run {j} of {groups} (keys {lo}..{hi - 1}) is not ascending: not "
                               "what partial_sort leaves as S-121 models it")
        runs = _chunks(n, cpus, groups // 2)
    if np.isnan(keys).any() and not rule.nan_total_order:
        raise SimError(f"{label}: a NaN key; under S-121={rule.reading.name} where the CPUs order NaN is not known")
    ranks = _total_order(keys)
    new_k, new_v = np.empty(n, np.float32), np.empty(n, np.float32)
    for lo, hi in runs:
        order = np.argsort(ranks[lo:hi], kind="stable")  # a merge of two sorted runs, left first on ties
        new_k[lo:hi] = keys[lo:hi][order]
        new_v[lo:hi] = vals[lo:hi][order].astype(np.float32)
    out[:n], out[n:] = new_k, new_v


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
