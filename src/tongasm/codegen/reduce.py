"""Codegen of the reduce family: TensorReduce over the free axes (chapter §5.1) and across the
partitions (the Pool engine's cross-lane 0x7C/0x7D), Pool, Iota and the batch-norm statistics
(BNStats, BNStatsAggregate).
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import EncodeError, brief_int
from ..ir.instructions import Instruction
from ..ir.operands import PhysicalAP, RegisterAP, SymbolicAP
from ..ir.reduce import BNStats, BNStatsAggregate, CrossLaneReduce, Iota, Pool, TensorReduce
from ..isa.decisions.reduce import (
    BnStatsPartitionByte,
    CrossLaneMean,
    IotaBand,
    ReduceAxisByte,
    ReduceOpcodePairing,
    ReduceOpGate,
)
from ..isa.decisions.spec import FreeDimOrder
from ..isa.enums import ALU_WIRE, AluClass, AluOp
from ..isa.opcodes import (
    BN_AGGREGATE,
    BN_STATS,
    BN_STATS_T,
    IOTA,
    POOL,
)
from ..isa.vector_enums import (
    POOL_FUNC_INVALID_MSG,
    POOL_FUNC_WIRE,
    AxisList,
    PoolFunc,
)
from .common import (
    Context,
    Selection,
    alu_class,
    alu_op,
    alu_wire,
    counts,
    enum_name,
    f32_bits,
    in_psum,
    no_indirect,
    no_pool_psum,
    pack_descriptor,
    partitions,
)
from .plan import Family

AXIS_INVALID_MSG = "Invalid enum variant for enum AxisListType"


BN_INDIRECT_MSG = "TODO: support BATCH_NORM_STATS2 with TensorIndirect AP once ISA supports it"


#: DOC NKI bn_stats: "must not exceed 512 (nl.tile_size.bn_stats_fmax)".
BN_STATS_FMAX = 512


def _axis(inst: Instruction) -> AxisList:
    axis = inst.attr("axis")
    if not isinstance(axis, AxisList):
        raise EncodeError(AXIS_INVALID_MSG, field="axis", value=axis, limit="X, XY, XYZ, XYZW, XYZWC, C",
                          check="tr.axis")
    return axis


def tensor_reduce_plan(inst: TensorReduce, ctx: Context) -> tuple[int, AluOp, AxisList]:
    """(opcode, op, axis) of a TensorReduce, with the refusals of §5.1."""
    counts("TensorReduce", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    op = alu_op(inst.attr("op"))
    alu_wire(op)  # average / elemwise_mul / >= 30: 'Invalid enum variant for enum AluOpType'
    axis = _axis(inst)
    if not axis.free_pairs:  # the lowering hands it over as a CrossLaneReduce (N-16: the Pool stream)
        raise EncodeError(f"TensorReduce over axis {axis.name} is a cross-lane reduce: lowered before codegen",
                          field="axis", value=axis.name, limit="X, XY, XYZ, XYZW", check="tr.cross_lane")
    if not ctx.decisions.get(ReduceOpGate).allows(op):
        raise EncodeError(f"TensorReduce op {op.name} is not a legal reduction (N-14: add, subtract, mult, max, min, "
                          "bitwise and/or/xor, logical and/or/xor)", field="op", value=op.name, check="tr.op")
    bitvec = alu_class(op) is AluClass.BITVEC
    if inst.attr("negate") and bitvec:
        raise EncodeError(f"TensorReduce negate is only applicable to an arithmetic op (NKI), not {op.name}",
                          field="negate", value=True, check="tr.negate")
    transpose = bool(inst.attr("apply_transpose"))
    code = ctx.decisions.get(ReduceOpcodePairing).free_axis(bitvec, transpose)
    if code is None:
        raise EncodeError("TensorReduce apply_transpose has no opcode under N-12=book-literal", field="apply_transpose",
                          value=True, check="tr.transpose")
    return code.byte, op, axis


def tensor_reduce_opcodes(inst: TensorReduce, ctx: Context) -> list[int]:
    return [tensor_reduce_plan(inst, ctx)[0]]


def tensor_reduce_select(inst: TensorReduce, ctx: Context) -> Selection:
    """The src slot is packed here (not by the binding): the axis byte counts the reduced pairs that
    survive D-6's dropping (N-13), so it depends on the src pattern."""
    opcode, op, axis = tensor_reduce_plan(inst, ctx)
    fmt = ctx.formats.by_name["TensorReduce"]
    src, dst = inst.src, inst.dst
    no_indirect({"src": src, "dst": dst})
    no_pool_psum(inst, {"src": src, "dst": dst})
    values: dict[str, int] = {"opcode": opcode, "op": ALU_WIRE[op][0], "negate": int(bool(inst.attr("negate")))}
    values.update(pack_descriptor(src, fmt.slots["src"], ctx, "src"))
    assert isinstance(src, (PhysicalAP, RegisterAP))
    values["num_partitions"] = partitions(src, "src")
    free = list(src.ap[1:])
    a = axis.free_pairs
    if a > len(free):
        raise EncodeError(f"TensorReduce axis {axis.name} names the {a} innermost free dims; src has {len(free)}",
                          field="axis", value=axis.name, limit=f"at most {len(free)} free dims", check="tr.axis")
    if ctx.decisions.get(ReduceAxisByte).drops_degenerate:
        k = sum(1 for _s, n in free[len(free) - a:] if n != 1)
        if k == 0:
            raise EncodeError(f"TensorReduce reduces only size-1 dims (axis {axis.name}); use TensorCopy (N-13)",
                              field="axis", value=axis.name, check="tr.axis")
        values["axis"] = k + 1
    else:
        values["axis"] = a + 1
    return fmt, values


def _bn(inst: BNStats | BNStatsAggregate, ctx: Context, code: int, counts_: bool) -> Selection:
    counts(inst.opcode, inst, (1,), (1,), "ins = [src] and outs = [dst]")
    src = inst.src
    if isinstance(src, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in src.extra:
        raise EncodeError(BN_INDIRECT_MSG, field="src", value="indirect_dim", check="family.indirect")
    no_indirect({"dst": inst.dst})
    no_pool_psum(inst, {"src": src, "dst": inst.dst})
    fmt = ctx.formats.by_name["BNStats" if counts_ else "BNStatsAggregate"]
    values: dict[str, int] = {"opcode": code}
    values.update(pack_descriptor(src, fmt.slots["src"], ctx, "src"))
    assert isinstance(src, (PhysicalAP, RegisterAP))
    if ctx.decisions.get(BnStatsPartitionByte).is_count:
        values["num_partitions"] = partitions(src, "src")
    else:
        from ..isa.descriptors import decode_addr4

        a = decode_addr4(values["src.addr"])
        values["start_partition"] = a.partition if a.partition is not None else 0
    n = math.prod(num for _s, num in src.ap[1:])
    if counts_:
        if n > BN_STATS_FMAX:
            raise EncodeError(f"BNStats takes at most {BN_STATS_FMAX} elements per partition (NKI bn_stats_fmax); src "
                              f"has {n}", field="src", value=n, limit=f"<= {BN_STATS_FMAX}", check="bn.fmax")
        values["n_even"] = f32_bits((n + 1) >> 1)
        values["n_odd"] = f32_bits(n >> 1)
    return fmt, values


def bn_stats_select(inst: BNStats, ctx: Context) -> Selection:
    code = (BN_STATS_T if inst.attr("apply_transpose") else BN_STATS).byte
    return _bn(inst, ctx, code, True)


def bn_stats_opcodes(inst: BNStats, ctx: Context) -> list[int]:
    return [(BN_STATS_T if inst.attr("apply_transpose") else BN_STATS).byte]


def bn_aggr_select(inst: BNStatsAggregate, ctx: Context) -> Selection:
    return _bn(inst, ctx, BN_AGGREGATE.byte, False)


def bn_aggr_opcodes(inst: BNStatsAggregate, ctx: Context) -> list[int]:
    return [BN_AGGREGATE.byte]


CROSS_NEGATE_MSG = "Cross-lane-reduce cannot perform negate"


CROSS_INDIRECT_MSG = "TODO: support CROSS_LANE_REDUCE with TensorIndirect AP once ISA supports it"


#: §2.5 (POOL/PENG switch, C): op → command byte; the last three are bit-vector (0x7D).
CROSS_COMMANDS = {AluOp.add: 0, AluOp.average: 1, AluOp.max: 2, AluOp.bitwise_or: 3, AluOp.bitwise_and: 4,
                  AluOp.bitwise_xor: 5}


def cross_plan(inst: TensorReduce, ctx: Context) -> tuple[int, dict[str, int]]:
    counts("TensorReduce", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    axis = _axis(inst)
    if inst.attr("negate"):
        raise EncodeError(CROSS_NEGATE_MSG, field="negate", value=True, check="tr.cross_lane")
    op = inst.attr("op")
    if op not in CROSS_COMMANDS:
        raise EncodeError("cross-lane reduce supports add, average, max, bitwise_or, bitwise_and, bitwise_xor (§2.5), "
                          f"not {enum_name(op)}", field="op", value=enum_name(op), check="tr.cross_lane")
    if inst.attr("apply_transpose"):
        raise EncodeError("the cross-lane reduce has no apply_transpose form (N-12)", field="apply_transpose",
                          value=True, check="tr.transpose")
    src, dst = inst.src, inst.dst
    if isinstance(src, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in src.extra:
        raise EncodeError(CROSS_INDIRECT_MSG, field="src", value="indirect_dim", check="family.indirect")
    no_indirect({"dst": dst})
    no_pool_psum(inst, {"src": src, "dst": dst})
    command = CROSS_COMMANDS[op]
    code = ctx.decisions.get(ReduceOpcodePairing).cross_lane(command >= 3)
    fmt = ctx.formats.by_name["CrossLaneReduce"]
    values: dict[str, int] = {"opcode": code.byte, "command": command, "cross_lane": int(axis is AxisList.C)}
    values.update(pack_descriptor(src, fmt.slots["src"], ctx, "src"))
    assert isinstance(src, (PhysicalAP, RegisterAP))
    parts = partitions(src, "src")
    values["num_partitions"] = parts
    values["scale"] = 0
    if op is AluOp.average:  # N-23
        n = ctx.decisions.get(CrossLaneMean).count(parts, math.prod(num for _s, num in src.ap[1:]),
                                                      axis is AxisList.XYZWC)
        values["scale"] = f32_bits(float(np.float32(1.0) / np.float32(n)))
    return code.byte, values


def cross_select(inst: TensorReduce, ctx: Context) -> Selection:
    return ctx.formats.by_name["CrossLaneReduce"], cross_plan(inst, ctx)[1]


def cross_opcodes(inst: TensorReduce, ctx: Context) -> list[int]:
    return [cross_plan(inst, ctx)[0]]


POOL_AVG_INDIRECT_MSG = "POOL with Average Function doesn't support TensorIndirect AP as src AP"


def pool_select(inst: Pool, ctx: Context) -> Selection:
    counts("Pool", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    func = inst.attr("func")
    if not isinstance(func, PoolFunc):
        raise EncodeError(POOL_FUNC_INVALID_MSG, field="func", value=func, limit="Max, Avg", check="pool.func")
    src, dst = inst.src, inst.dst
    if isinstance(src, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in src.extra:
        raise EncodeError(POOL_AVG_INDIRECT_MSG if func is PoolFunc.Avg else
                          "an indirect Pool input has no encoding here", field="src", value="indirect_dim",
                          check="family.indirect")
    no_indirect({"dst": dst})
    no_pool_psum(inst, {"src": src, "dst": dst})
    if src is not None and not isinstance(src, (PhysicalAP, RegisterAP)):
        raise EncodeError(f"Pool takes an access pattern as its input (the window), got {src.kind}", field="src",
                          value=src.kind, limit="an SBUF/PSUM access pattern", check="operands.shape")
    pairs = list(src.ap) if src is not None else []
    allowed = (5,) if func is PoolFunc.Avg else (3, 4, 5)  # N-24: Avg asserts in0.size() == 5
    if len(pairs) not in allowed:
        raise EncodeError(f"Pool {func.name} takes an input of {' or '.join(map(str, allowed))} access-pattern pairs "
                          f"(partition + window; N-24), got {len(pairs)}", field="src", value=len(pairs),
                          limit=", ".join(map(str, allowed)), check="pool.shape")
    free = [tuple(p) for p in pairs[1:]]
    if len(free) < 4 and free[-1] == (1, 1) and not ctx.decisions.get(FreeDimOrder).innermost_first:
        raise EncodeError("under D-6=outermost-first a Pool input's innermost pair [1, 1] cannot be told from the "
                          "{1,1} fill of the unused slots (N-24 keeps pairs in place)", field="src", value=[1, 1],
                          check="pool.shape")
    fmt = ctx.formats.by_name["Pool"]
    values: dict[str, int] = {"opcode": POOL.byte, "func": POOL_FUNC_WIRE[func]}
    values.update(pack_descriptor(src, fmt.slots["src"], ctx, "src"))
    values["num_partitions"] = partitions(src, "src")
    window = pairs[-2][1] * pairs[-1][1]
    values["scale"] = f32_bits(1.0 if func is PoolFunc.Max else float(np.float32(1.0) / np.float32(window)))
    return fmt, values


def pool_opcodes(inst: Pool, ctx: Context) -> list[int]:
    return [pool_select(inst, ctx)[1]["opcode"]]


IOTA_U16_MSG = "ISA requirement: Data Pattern Num (...) cannot exceed uint16 range"


def iota_select(inst: Iota, ctx: Context) -> Selection:
    counts("Iota", inst, (0,), (1,), "ins = [] and outs = [dst]")
    n22 = ctx.decisions.get(IotaBand)
    if not n22.enabled:
        raise EncodeError("Iota is experimental (N-22=off: its pattern band is inferred); enable it with --decision "
                          "N-22=base-slot0-fixed", field="opcode", value="Iota", check="iota.off")
    dst = inst.dst
    if in_psum(dst):
        raise EncodeError("Iota writes SBUF only (NKI iota)", field="dst", value="PSUM", check="iota.operands")
    no_indirect({"dst": dst})
    base, cm = inst.attr("base"), inst.attr("channel_multiplier") or 0
    for key, v in (("base", base), ("channel_multiplier", cm)):
        if not isinstance(v, int) or not -(1 << 31) <= v < (1 << 31):
            raise EncodeError(f"Iota {key} {v!r} is not an int32", field=key, value=v, limit="int32",
                              check="field.range")
    if not n22.has_base and base:
        raise EncodeError("Iota base has no field under N-22=no-base; only base 0 can be encoded", field="base",
                          value=base, limit="0", check="iota.operands")
    try:
        pattern = inst.pattern_pairs()
    except (KeyError, TypeError, ValueError):
        raise EncodeError("Iota pattern is a list of {\"step\", \"num\"} objects or [step, num] pairs", field="pattern",
                          value=inst.attr("pattern"), check="iota.operands") from None
    for step, num in pattern:
        if not 1 <= num <= 0xFFFF:
            raise EncodeError(IOTA_U16_MSG, field="pattern", value=num, limit="1..65535", check="iota.operands")
        if not -(1 << 15) <= step < (1 << 15):
            raise EncodeError(f"Iota pattern step {brief_int(step)} does not fit the i16 step field", field="pattern", value=step,
                              limit="-32768..32767", check="iota.operands")
    packed = [p for p in pattern if p[1] != 1][::-1]  # innermost first, num == 1 pairs dropped (N-22)
    slots = 4 - n22.first_slot
    if len(packed) > slots:
        raise EncodeError(f"Iota pattern has {len(packed)} dims with num > 1; the band holds {slots} (N-22)",
                          field="pattern", value=len(packed), limit=str(slots), check="iota.operands")
    packed += [(1, 1)] * (slots - len(packed))
    values: dict[str, int] = {"opcode": IOTA.byte, "channel_multiplier": cm}
    if n22.has_base:
        values["base"] = base
    for k, (step, num) in enumerate(packed, start=n22.first_slot):
        values[f"pstep{k}"] = step
        values[f"pnum{k}"] = num
    return ctx.formats.by_name["Iota"], values


def iota_opcodes(inst: Iota, ctx: Context) -> list[int]:
    iota_select(inst, ctx)
    return [IOTA.byte]


FAMILIES: dict[type[Instruction], Family] = {
    TensorReduce: Family("TensorReduce", tensor_reduce_select, tensor_reduce_opcodes),
    CrossLaneReduce: Family("TensorReduce", cross_select, cross_opcodes),
    Pool: Family("Pool", pool_select, pool_opcodes),
    Iota: Family("Iota", iota_select, iota_opcodes),
    BNStats: Family("BNStats", bn_stats_select, bn_stats_opcodes),
    BNStatsAggregate: Family("BNStatsAggregate", bn_aggr_select, bn_aggr_opcodes),
}
