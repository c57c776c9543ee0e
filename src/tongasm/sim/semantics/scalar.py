"""What the next families' bundles do (``next-families.md``), read from their decoded fields.

One handler per :class:`~tongasm.isa.layout.Sem` kind; :mod:`tongasm.sim.execute` merges
:data:`FAMILY_HANDLERS` into its table. Like every handler, these read only the bundle (never the
IR): operands through :meth:`Ctx.ap`, scalars through the kind byte and value word (N-2, N-6, S-35),
the accumulators from the executing engine's state. The numeric kernels are
:mod:`tongasm.sim.kernels` (shared with the IR reference interpreter).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.scalar import (
    ActivationRoles, IotaBand, PointerWord, PoolPacking, TscacheReverse0, kind_of_names,
)
from ...isa.decisions.semantics import FusedReduceSemantics, ScanCarry
from ...isa.decisions.reduce import ReduceBf16Opcode
from ...isa.decisions.spec import FreeDimOrder
from ...isa.descriptors import decode_addr4
from ...isa.enums import ACC_WIRE, AccType, AluOp, WireDtype
from ...isa.opcodes import (
    STT_BITVEC, TR_BITVEC, TR_T_ARITH, TR_T_BITVEC, TS_BITVEC, TS_CACHE_CUMULATIVE, TS_CACHE_REDUCE, TS_PTR_BITVEC,
    TS_TRANSPOSE, TT_SCAN, BN_STATS_T, CROSS_BITVEC,
)
from ...isa.vector_enums import ACT_FUNC_FROM_WIRE, ScalarKind
from ...isa.layout import Sem
from ...isa.layouts.reduce import TR_BF16
from .. import kernels as fn
from .. import numeric
from ..context import Ctx, _alu, _flat, _store
from ..machine import SimError

_ACC_BY_WIRE = {w: a for a, w in ACC_WIRE.items()}
_F32 = 10
_BITVEC_TR = frozenset({TR_BITVEC.byte, TR_T_BITVEC.byte, CROSS_BITVEC.byte})
_NOT_SIMULATED = {TR_T_ARITH.byte: "apply_transpose (0x83)", TR_T_BITVEC.byte: "apply_transpose (0x84)",
                  TS_TRANSPOSE.byte: "apply_transpose (0x93)", BN_STATS_T.byte: "apply_transpose (0x82)"}


def _refuse_transposed(c: Ctx) -> None:
    what = _NOT_SIMULATED.get(c.d.opcode)
    if what is not None:
        raise SimError(f"{c.where()}: {what} is encoded but not simulated: the book says only that the input is "
                       "'FP32-cast and 32-lane partition-transposed' (chapter §5.1)")


def _acc_cmd(c: Ctx, field: str) -> AccType:
    acc = _ACC_BY_WIRE.get(c.f[field])
    if acc is None:
        raise SimError(f"{c.where()}: unknown accumulation byte {c.f[field]:#04x}")
    return acc


def _lanes(c: Ctx, slot: str, count: int) -> slice:
    p0 = c.start_partition(slot)
    return slice(p0, p0 + count)


# --- scalar operands (chapter §1.3, S-35) -------------------------------------------------------------------

def scalar_column(c: Ctx, kind_field: str, value_field: str | None, data_slot: str, w: int | None,
                  count: int) -> tuple[np.ndarray, int]:
    """A scalar operand as a [count, 1] column of its element type and its wire dtype: an immediate
    (the value word's bits in dtype ``w``), a register (its 32 bits in dtype ``w``) or a pointer (the
    [P,1] elements it addresses, N-6; in dtype ``w``). ``w`` None: float32."""
    wd = _F32 if w is None else w
    table = c.d.fmt.field_map[kind_field].enum  # N-2: the codes of this kind byte, from its layout field
    kind = None if table is None else kind_of_names(table.names, c.f[kind_field])
    if kind is None:
        raise SimError(f"{c.where()}: unknown scalar kind {c.f[kind_field]} at {kind_field} (N-2)")
    if value_field is None:
        if kind is ScalarKind.IMMEDIATE:  # N-5=reserved-zero: the neutral value the encoder insisted on
            return np.full((count, 1), 1.0, dtype=numeric.element_type(wd)), wd
        raise SimError(f"{c.where()}: a {kind.value} scalar with no value word (N-5)")
    word = c.f[value_field]
    if kind is ScalarKind.IMMEDIATE:
        return np.full((count, 1), _bits(word, wd), dtype=numeric.element_type(wd)), wd
    if kind is ScalarKind.REGISTER:
        return np.full((count, 1), _bits(c.m.reg(c.engine, word), wd), dtype=numeric.element_type(wd)), wd
    if c.ds.get(PointerWord).has_address:
        address = word
    else:  # N-6=byte-offset: the data's start partition and space (N-34), the byte from the word
        a = decode_addr4(c.f[f"{data_slot}.addr"])
        if a.space == "register":
            a = decode_addr4(c.m.reg(c.engine, a.register or 0))
        address = (a.word & ~0x3FFFF) | word if a.space == "sbuf" else 0x2000000 + ((a.partition or 0) << 15) + word
    try:
        view = c.m.tensor_view(c.engine, address, count, (), wd)
    except (SimError, numeric.NumericError) as e:
        raise SimError(f"{c.where()} {value_field}: {e}") from None
    return np.array(view).reshape(count, 1), wd


def _bits(bits: int, w: int) -> np.generic:
    size = numeric.size_of(w)
    u = np.array([bits & ((1 << (8 * size)) - 1)], dtype={1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    return u.view(numeric.element_type(w))[0]


# --- TensorReduce (S-28) -----------------------------------------------------------------------------------

def tensor_reduce(c: Ctx) -> None:
    _refuse_transposed(c)
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


# --- Reciprocal (S-30) --------------------------------------------------------------------------------------

def reciprocal(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    if src.size != dst.size:
        raise SimError(f"{c.where()}: operands have different element counts ({src.size}, {dst.size})")
    _store(dst, fn.reciprocal(_flat(np.ascontiguousarray(src)), ws, wd))


# --- Activation 0x21 (S-20, S-21, S-22, N-29, N-30) and the read-outs 0x24 / 0x9B (S-25) ----------------------

#: Activation roles whose argument has no value on the wire take these (the encoder refused anything else).
_NEUTRAL = {"bias": 0.0, "scale": 1.0, "alpha": 0.0}
_PRELU_WIRE = 4


def _column_f32(c: Ctx, kind: str, value: str | None, w: int | None, count: int) -> np.ndarray:
    col, wc = scalar_column(c, kind, value, "src", w, count)
    return numeric.to_fp32(col, wc).astype(np.float32)


def activate(c: Ctx) -> None:
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    X = numeric.to_fp32(_flat(np.ascontiguousarray(src)), ws).astype(np.float32)
    if X.size != dst.size:
        raise SimError(f"{c.where()}: operands have different element counts ({X.size}, {dst.size})")
    func = ACT_FUNC_FROM_WIRE.get(c.f["func"])
    if func is None:
        raise SimError(f"{c.where()}: unknown activation function byte {c.f['func']:#04x}")
    roles = c.ds.get(ActivationRoles).roles()
    vals: dict[str, np.ndarray] = {}
    for k, role in enumerate(roles, start=1):
        if k == 1:
            vals[role] = _column_f32(c, "arg1_kind", "arg1_value", c.f["arg1_dtype"], P)
        elif k == 2 and "arg2_value" in c.f:
            vals[role] = _column_f32(c, "arg2_kind", "arg2_value", None, P)
        elif k == 3 and c.f["func"] == _PRELU_WIRE:
            vals[role] = _column_f32(c, "arg3_kind", "arg3_value", None, P)
        else:  # no value on the wire: the role's neutral value (N-5, the +0x2C gate)
            vals[role] = np.full((P, 1), _NEUTRAL[role], np.float32)
    v = fn.prescale(X, vals["scale"], vals["bias"], c.ds)  # S-20
    y = fn.activation_value(func, v, vals["alpha"], c.ds)  # S-21
    _store(dst, numeric.from_fp32(y, wd))
    cmd = _acc_cmd(c, "acc")  # N-29: an Idle Activation arrives as ZeroAccumulate (wire 3)
    init = None
    if cmd == AccType.LoadAccumulate:  # S-24: imm1, the +0x2C word read by its +0x0C kind
        init = _column_f32(c, "arg3_kind", "arg3_value", None, P).reshape(-1)
    state = c.m.engines[c.engine].accumulator
    lanes = _lanes(c, "src", P)
    acc = state[lanes].copy()
    fn.accumulate(acc, cmd, AluOp.add, y, init)  # N-30 with the Activation engine's add (S-22)
    state[lanes] = acc


def read_accumulator(c: Ctx) -> None:
    dst, wd = c.ap("dst")
    P = dst.shape[0]
    state = c.m.engines[c.engine].accumulator
    acc = state[_lanes(c, "dst", P)].astype(np.float32)
    if c.f.get("negated"):  # S-25: 0x9B's flag
        acc = -acc
    _store(dst, numeric.from_fp32(np.repeat(acc.reshape(P, 1), dst.size // max(P, 1), axis=1), wd))


# --- TensorScalar 0x43/0x53 (S-26) and the fused reduce 0x9A (S-27, N-19, N-30) ----------------------------

_TS_BITVEC = frozenset({TS_BITVEC.byte, TS_PTR_BITVEC.byte})


def tensor_scalar(c: Ctx) -> None:
    _refuse_transposed(c)
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    P = src.shape[0]
    x = _flat(np.ascontiguousarray(src))
    if x.size != dst.size:
        raise SimError(f"{c.where()}: operands have different element counts ({x.size}, {dst.size})")
    bitvec = c.d.opcode in _TS_BITVEC
    wt = ws if bitvec else _F32  # S-26: the value t lives at the input's width (bit-vector) or in float32
    op0, op1 = _alu(c, c.f["op0"]), _alu(c, c.f["op1"])
    s0, w0 = scalar_column(c, "s0_kind", "s0_value", "src", wt, P)
    if c.d.opcode == TS_CACHE_CUMULATIVE.byte:
        _cumulative(c, x, ws, s0, w0, op0, op1, dst, wd, P)
        return
    t = fn.scalar_op(op0, x, ws, s0, w0, wt, bool(c.f["reverse0"]), bitvec)
    fused = c.d.opcode == TS_CACHE_REDUCE.byte
    if (not fused and op1 != AluOp.bypass) or (fused and c.ds.get(FusedReduceSemantics).op1_elementwise
                                               and c.f["acc"] == ACC_WIRE[AccType.LoadAccumulate]):
        s1, w1 = scalar_column(c, "s1_kind", "s1_value", "src", wt, P)
        t = fn.scalar_op(op1, t, wt, s1, w1, wt, bool(c.f["reverse1"]), bitvec)
    out = numeric.bits_to(wd, numeric.bits_view(np.ascontiguousarray(t)).astype(np.uint64)) if bitvec else \
        numeric.from_fp32(t, wd)
    _store(dst, out)
    if not fused:
        return
    cmd = _acc_cmd(c, "acc")
    init = None
    if cmd == AccType.LoadAccumulate:
        init = numeric.to_fp32(scalar_column(c, "s1_kind", "s1_value", "src", _F32, P)[0], _F32).reshape(-1)
    state = c.m.engines[c.engine].accumulator
    lanes = _lanes(c, "src", P)
    acc = state[lanes].copy()
    fn.accumulate(acc, cmd, op1, numeric.to_fp32(t, wt).astype(np.float32), init)
    state[lanes] = acc


def _cumulative(c: Ctx, x: np.ndarray, ws: int, s0: np.ndarray, w0: int, op0: AluOp, op1: AluOp, dst: np.ndarray,
                wd: int, P: int) -> None:
    """0xE6 (S-36): t = op0(x, s0), scanned with op1 through the accumulator; N-28 says what reverse0 does."""
    backwards = c.ds.get(TscacheReverse0).reverses_scan
    rev0 = bool(c.f["reverse0"]) and not backwards
    t = fn.scalar_op(op0, x, ws, s0, w0, _F32, rev0, False)
    cmd = _acc_cmd(c, "acc")
    init = None
    if cmd == AccType.LoadAccumulate:
        init = numeric.to_fp32(scalar_column(c, "s1_kind", "s1_value", "src", _F32, P)[0], _F32).reshape(-1)
    state = c.m.engines[c.engine].accumulator
    lanes = _lanes(c, "src", P)
    acc = state[lanes].copy()
    out = fn.scan(acc, cmd, op1, numeric.to_fp32(t, _F32).astype(np.float32), init,
                  backwards=backwards and bool(c.f["reverse0"]))
    state[lanes] = acc
    _store(dst, numeric.from_fp32(out, wd))


# --- ScalarTensorTensor 0x9D / 0x9E (S-37) and the tensor-tensor scan 0xE5 (S-38, S-39) ----------------------

def scalar_tensor_tensor(c: Ctx) -> None:
    if c.f["acc"]:
        raise SimError(f"{c.where()}: an accumulator command ({c.f['acc']}) on {c.d.opcode:#04x} is decoded but not "
                       "simulated: the fused form's fold is not documented (S-37)")
    t0, w0 = c.ap("tensor0")
    t1, w1 = c.ap("tensor1")
    out, wo = c.ap("out")
    x0, x1 = _flat(np.ascontiguousarray(t0)), _flat(np.ascontiguousarray(t1))
    if not x0.size == x1.size == out.size:
        raise SimError(f"{c.where()}: operands have different element counts (tensor0 {x0.size}, tensor1 {x1.size}, "
                       f"out {out.size})")
    x1 = x1.reshape(x0.shape)
    P = x0.shape[0]
    bitvec = c.d.opcode == STT_BITVEC.byte
    ws = w0 if bitvec else c.f["scalar_dtype"]  # S-37: a bit-vector scalar is cut to tensor0's width
    if "scalar_kind" in c.f:
        s, ws = scalar_column(c, "scalar_kind", "scalar_value", "tensor0", ws, P)
    else:  # N-21=one-byte-scalar: the byte is an immediate's bit pattern
        s = np.full((P, 1), _bits(c.f["scalar_byte"], ws), dtype=numeric.element_type(ws))
    op0, op1 = _alu(c, c.f["op0"]), _alu(c, c.f["op1"])
    rev0, rev1 = bool(c.f["reverse0"]), bool(c.f["reverse1"])
    if c.d.opcode == TT_SCAN.byte:  # S-38: the scalar is the scan's initial value
        init = numeric.to_fp32(s, ws).astype(np.float32).reshape(-1)
        r = fn.tensor_tensor_scan(op0, op1, x0, w0, init, x1, w1, wo, rev0, rev1,
                                  c.ds.get(ScanCarry).rounds_carry)
    else:
        r = fn.scalar_tensor_tensor(op0, op1, x0, w0, s, ws, x1, w1, wo, rev0, rev1, bitvec)
    _store(out, r)


# --- BNStats 0x61 (S-31), BNStatsAggregate 0x62 (S-32) ------------------------------------------------------

def _bn_io(c: Ctx) -> tuple[np.ndarray, int, np.ndarray, int]:
    _refuse_transposed(c)
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


# --- the cross-lane reduce 0x7C/0x7D (S-29), Pool 0x45 (S-33), Iota 0x7E (S-34) --------------------------------

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


FAMILY_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.CROSS_LANE_REDUCE: cross_lane_reduce,
    Sem.POOL: pool,
    Sem.IOTA: iota,
    Sem.TENSOR_SCALAR: tensor_scalar,
    Sem.SCALAR_TENSOR_TENSOR: scalar_tensor_tensor,
    Sem.BN_STATS: bn_stats,
    Sem.BN_AGGREGATE: bn_aggregate,
    Sem.ACTIVATE: activate,
    Sem.READ_ACCUMULATOR: read_accumulator,
    Sem.TENSOR_REDUCE: tensor_reduce,
    Sem.RECIPROCAL: reciprocal,
}

__all__ = ["FAMILY_HANDLERS", "scalar_column"]
