"""Codegen of the next families (``next-families.md``): TensorReduce, Activation (and its
accumulator read-out), TensorScalarPtr / TensorScalar, the DVE accumulator read-out and the
BatchNorm statistics. Reciprocal and LoadActFuncSet are declarative (their layout records declare
the BIR form) and need nothing here.

As in :mod:`.tensor_ops`, each family has an ``*_opcodes`` function (COLLECT_OPCODES) and a
``*_select`` function (the layout and its static fields). The refusals quote the book's strings
where the chapter gives one (C) and name the decision otherwise. Scalar operands (chapter §1.3) are
encoded by :func:`scalar_words` (N-2 kind codes, N-6 pointer words, N-7 register ids, N-33
immediates). Operand geometry a select must not read (it belongs to a bound slot) is never read
here; rules between operands' geometries (partition counts, element counts) are IR checks in
:mod:`tongasm.check.family_checks`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import EncodeError
from ..isa.decisions.families import (
    ActivationArg2Word, ActivationArg3Kind, ActivationLoadAccumulate, ActivationRoles, ActivationUnsupportedKeys,
    BnStatsPartitionByte, Gen2Bias, NonPreluAlpha, PointerWord, ReduceAxisByte, ReduceOpcodePairing, ReduceOpGate,
    ScalarKindCodes, TensorScalarLowering, TsPointerOpcodes, TsScalarWords, TsTwoOutputsIdle,
)
from ..isa.enums import ALU_WIRE, DTYPE_INFO, AccType, AluClass, AluOp, Dtype, Engine, MemoryType
from ..isa.family_opcodes import (
    ACT_READ_ACC, ACTIVATE, BN_AGGREGATE, BN_STATS, BN_STATS_T, DVE_READ_ACC, TS_CACHE_REDUCE, TS_TRANSPOSE,
)
from ..isa.family_tables import ACT_FUNC_INVALID_MSG, ACT_FUNC_WIRE, ActFunc, AxisList, ScalarKind
from ..isa.fields import Format
from ..ir.family_instructions import (
    Activation, ActivationReadAccumulator, BNStats, BNStatsAggregate, DveReadAccumulator, TensorReduce, TensorScalar,
    TensorScalarPtr,
)
from ..ir.instructions import Instruction
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAccess, RegisterAP, SymbolicAP
from ..numeric import NumericError, bit_pattern
from .plan import Family
from .common import (
    Context, acc_wire, alu_class, alu_op, alu_wire, check_pairs, dtype_of, engine_of, pack_descriptor, partitions,
    start_address,
)

Selection = tuple[Format, dict[str, int]]

GPSIMD_PSUM_MSG = "GPSIMD engine cannot access PSUM"
ARGS4_MSG = "Activation instruction can only have 4 arguments"
OUTS12_MSG = "Activation instruction can only have 1 or 2 outputs"
POINTER_SPACE_MSG = "ISA immediate pointer should only be SB/PSUM accesses"
REG_OFFSET_MSG = "offset register cannot be applied to register immediate in ISA"
WRONG_ARG_MSG = "contains wrong argument type"
ACT_FP32_MSG = "activation function only support float32 bias/scale/alpha"
TS_ARITH_FP32_MSG = "TensorScalarPtr arith immediate dtype must be fp32"
TS_BITVEC_SIZE_MSG = "bitvec immediate dtype size must be >= input dtype"
TS_BITVEC_TRANSPOSE_MSG = "TensorScalarPtr bitvec does not support transpose"
TS_NUMARGS_MSG = "NumArgs == 2 || NumArgs == 3"
TS_REDUCE_IDLE_MSG = "Reduce Accum result is not outputed"
TS_ADDR_MSG = "TensorScalarAddr (0x74) is not supported: descriptor and scalar slots unknown"
AXIS_INVALID_MSG = "Invalid enum variant for enum AxisListType"
BN_INDIRECT_MSG = "TODO: support BATCH_NORM_STATS2 with TensorIndirect AP once ISA supports it"
#: DOC NKI bn_stats: "must not exceed 512 (nl.tile_size.bn_stats_fmax)".
BN_STATS_FMAX = 512
BN_STATS_OUT = 6
BN_AGGR_OUT = 2


# --- shared helpers ---------------------------------------------------------------------------------

def _name(v: Any) -> Any:
    return getattr(v, "name", v)


def counts(what: str, inst: Instruction, n_in: tuple[int, ...], n_out: tuple[int, ...], shape: str) -> None:
    if len(inst.ins) not in n_in or len(inst.outs) not in n_out:
        raise EncodeError(f"{what} needs {shape}; got {len(inst.ins)} input(s) and {len(inst.outs)} output(s)",
                          check="operands.shape")


def in_psum(op: Operand | None) -> bool:
    if isinstance(op, PhysicalAP) and op.location is not None:
        return op.location.type == MemoryType.PSUM
    if isinstance(op, RegisterAP) and op.allocation is not None:
        return MemoryType.PSUM in op.allocation.memory_types
    return False


def no_pool_psum(inst: Instruction, roles: dict[str, Operand | None]) -> None:
    """N-17: on the Pool (GpSimd) engine no operand may be in PSUM."""
    if engine_of(inst.engine) != Engine.Pool:
        return
    for role, op in roles.items():
        if in_psum(op):
            raise EncodeError(GPSIMD_PSUM_MSG, field=role, value="PSUM", check="family.gpsimd_psum")


def no_indirect(roles: dict[str, Operand | None]) -> None:
    """§1.2: indirect (gather) descriptors are out of scope in every opcode of the chapter."""
    for role, op in roles.items():
        if isinstance(op, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in op.extra:
            raise EncodeError(f"{role}: an indirect access pattern (indirect_dim) has no descriptor in these "
                              "opcodes (chapter §1.2)", field=role, value="indirect_dim", check="family.indirect")


def f32_bits(v: float) -> int:
    return bit_pattern(float(v), Dtype.float32)


@dataclass(frozen=True)
class Scalar:
    """A scalar operand as the wire sees it: its kind, value word and dtype (wire tag)."""

    kind: ScalarKind
    word: int
    wire: int
    dtype: Dtype
    value: float | int | None = None  # an immediate's value


def scalar_words(op: Operand | None, role: str, ctx: Context) -> Scalar:
    """Chapter §1.3: an immediate (N-33: its bit pattern, 32 bits at most), a register (N-7: its id)
    or a pointer to one element per partition in SBUF/PSUM (N-6: ADDR4 or byte offset). The shape of
    a pointer against the data it scales is an IR check (family.pointer_shape)."""
    if isinstance(op, Immediate):
        d = dtype_of(op, role)
        try:
            bits = bit_pattern(op.value, d)
        except NumericError as e:
            raise EncodeError(f"{role}: {e}", field=role, value=op.value, check="imm.value") from None
        if DTYPE_INFO[d].size > 4:
            raise EncodeError(f"{role}: a 64-bit immediate ({d.name}) has no 32-bit value word (N-33)", field=role,
                              value=d.name, limit="a dtype of at most 32 bits", check="family.scalar_kind")
        return Scalar(ScalarKind.IMMEDIATE, bits, DTYPE_INFO[d].wire, d, op.value)
    if isinstance(op, (RegisterAccess, RegisterAP)):
        if isinstance(op, RegisterAP) and (op.is_regloc_offset or op.reg_ap_offset):
            raise EncodeError(REG_OFFSET_MSG, field=role, value="offset register", check="family.scalar_kind")
        assert op.register is not None
        rid = op.register.lo
        if not 0 <= rid <= 0xFF:
            raise EncodeError(f"{role}: register id {rid} does not fit", field=role, value=rid, limit="0..255",
                              check="field.range")
        d = dtype_of(op, role)
        return Scalar(ScalarKind.REGISTER, rid, DTYPE_INFO[d].wire, d)
    if isinstance(op, PhysicalAP):
        loc = op.location
        assert loc is not None
        if loc.type not in (MemoryType.SB, MemoryType.PSUM):
            raise EncodeError(POINTER_SPACE_MSG, field=role, value=loc.type.value, limit="SB, PSUM",
                              check="family.scalar_kind")
        if "indirect_dim" in op.extra:
            raise EncodeError(f"{role}: an indirect pointer has no encoding", field=role, value="indirect_dim",
                              check="family.indirect")
        check_pairs(op, role)
        word = start_address(op, role, ctx)
        addr = word & 0x1FFFFFFF
        byte = (addr - 0x2000000) & 0x7FFF if in_psum(op) else addr & 0x3FFFF
        d = dtype_of(op, role)
        return Scalar(ScalarKind.POINTER, ctx.decisions.get(PointerWord).word(word, byte), DTYPE_INFO[d].wire, d)
    got = "nothing" if op is None else op.kind
    raise EncodeError(f"{role} {WRONG_ARG_MSG} ({got}: an immediate, a register or an SB/PSUM [P,1] pointer)",
                      field=role, value=got, check="family.scalar_kind")


# --- TensorReduce (chapter §5.1) -------------------------------------------------------------------------

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
    if not axis.free_pairs:
        raise EncodeError(f"TensorReduce over axis {axis.name} is the cross-lane (partition) reduce 0x7C/0x7D of the "
                          "Pool engine, which tongasm does not encode yet", field="axis", value=axis.name,
                          limit="X, XY, XYZ, XYZW", check="tr.cross_lane")
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


# --- the families (registered in codegen.generator.FAMILIES) ------------------------------------------------

FAMILIES: dict[type[Instruction], Family] = {
    TensorReduce: Family("TensorReduce", tensor_reduce_select, tensor_reduce_opcodes),
}
