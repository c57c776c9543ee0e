"""Codegen of the next families (``next-families.md``): TensorReduce, Activation (and its
accumulator read-out), TensorScalarPtr / TensorScalar, the DVE accumulator read-out and the
BatchNorm statistics. Reciprocal and LoadActFuncSet are declarative (their layout records declare
the BIR form) and need nothing here.

As in :mod:`.tensor`, each family has an ``*_opcodes`` function (COLLECT_OPCODES) and a
``*_select`` function (the layout and its static fields). The refusals quote the book's strings
where the chapter gives one (C) and name the decision otherwise. Scalar operands (chapter §1.3) are
encoded by :func:`scalar_words` (N-2 kind codes, N-6 pointer words, N-7 register ids, N-33
immediates). Operand geometry a select must not read (it belongs to a bound slot) is never read
here; rules between operands' geometries (partition counts, element counts) are IR checks in
:mod:`tongasm.check.scalar`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import EncodeError
from ..isa.decisions.scalar import (
    ActivationArg2Word, ActivationArg3Kind, ActivationLoadAccumulate, ActivationRoles, ActivationUnsupportedKeys,
    BitvecSelection, BnStatsPartitionByte, CrossLaneMean, Gen2Bias, IotaBand, NonPreluAlpha, PointerWord,
    KindByte, ReduceAxisByte, ReduceOpcodePairing, ReduceOpGate, ScalarKindCodes, ShortActivationArgs, SttLayout,
    TensorScalarLowering, TsPointerOpcodes, TsScalarWords,
)
from ..isa.decisions.batchnorm import BnParamLoadKinds
from ..isa.decisions.gpsimd import TensorScalarAddrKinds, TensorScalarAddrSlots
from ..isa.decisions.spec import FreeDimOrder
from ..isa.enums import ALU_WIRE, DTYPE_INFO, PACKED_DTYPES, AccType, AluClass, AluOp, Dtype, Engine, MemoryType
from ..isa.opcodes import (
    ACT_READ_ACC, ACTIVATE, BN_AGGREGATE, BN_STATS, BN_STATS_T, DVE_READ_ACC, IOTA, POOL, STT_ARITH, STT_BITVEC,
    TS_BITVEC, TS_CACHE_CUMULATIVE, TS_CACHE_REDUCE, TS_PTR_BITVEC, TS_TRANSPOSE, TT_SCAN,
)
from ..isa.vector_enums import (
    ACT_FUNC_INVALID_MSG, ACT_FUNC_WIRE, POOL_FUNC_INVALID_MSG, POOL_FUNC_WIRE, TSC_MODE_INVALID_MSG, ActFunc, AxisList,
    PoolFunc, ScalarKind, TSCMode,
)
from ..isa.fields import Format
from ..ir.act import Activation, ActivationReadAccumulator, DveReadAccumulator, ReadActivationAccumulator
from ..ir.scalar import (
    ScalarTensorTensor,
    TensorScalar,
    TensorScalarAddr,
    TensorScalarCache,
    TensorScalarPtr,
    is_scalar_tensor_tensor,
)
from ..ir.reduce import BNStats, BNStatsAggregate, CrossLaneReduce, Iota, Pool, TensorReduce
from ..ir.batchnorm import BNBackprop, BNBackpropPart, BNGradients, BNParamLoadPart
from ..ir.search import MatchReplace, MatchReplacePart, MatchValueLoadPart
from ..ir.move import LaneMaskLoad, StreamShuffle, StreamShuffleMove, StreamTranspose, StreamTransposeMove
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
TS_ADDR_MSG = "TensorScalarAddr (0x74) runs on the Pool engine (the gen3 DVE opcode table disables 0x74)"
TS_ADDR_INT_MSG = "TensorScalarAddr (0x74) is integer address arithmetic"
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


def same_space_pointer(sc: Scalar, op: Operand | None, data: Operand | None, role: str, ctx: Context) -> None:
    """N-6=byte-offset: the word has no SBUF/PSUM bits, so a pointer lives where its data lives."""
    if sc.kind is ScalarKind.POINTER and not ctx.decisions.get(PointerWord).has_address and in_psum(op) != in_psum(data):
        raise EncodeError(f"{role}: under N-6=byte-offset a pointer's word carries no memory space; it must be in the "
                          "data's (SBUF or PSUM)", field=role, value="PSUM" if in_psum(op) else "SB",
                          check="family.scalar_kind")


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


# --- Activation (chapter §3.1) ---------------------------------------------------------------------------

#: The value of each Activation role that changes nothing: what a role with no byte on the wire must be.
NEUTRAL = {"bias": 0.0, "scale": 1.0, "alpha": 0.0}
#: wire functions whose args[3] bytes are forced (C): Copy 128 and Reciprocal 129 → (+0x0C, +0x2C) = (1, 0)
_FORCED_ARG3 = frozenset({ACT_FUNC_WIRE[ActFunc.Copy], ACT_FUNC_WIRE[ActFunc.Reciprocal]})
_PRELU = ACT_FUNC_WIRE[ActFunc.Prelu]


def _is_imm(op: Operand | None, value: float) -> bool:
    return (isinstance(op, Immediate) and op.dtype == Dtype.float32 and isinstance(op.value, (int, float))
            and float(op.value) == value and math.copysign(1.0, float(op.value)) == math.copysign(1.0, value))


def activation_func(inst: Activation) -> ActFunc:
    func = inst.attr("func")
    if not isinstance(func, ActFunc) or func not in ACT_FUNC_WIRE:
        raise EncodeError(ACT_FUNC_INVALID_MSG, field="func", value=_name(func), limit="ordinals 0..29",
                          check="act.func")
    return func


def activation_args(inst: Activation, ctx: Context) -> list[Operand | None]:
    """args[1..3] of an Activation (N-8: synthesised as float32 immediates when ins has 1 or 2)."""
    n = len(inst.ins)
    if n == 4:
        return [inst.arg(1), inst.arg(2), inst.arg(3)]
    if n not in (1, 2) or not ctx.decisions.get(ShortActivationArgs).synthesizes:
        raise EncodeError(ARGS4_MSG, field="ins", value=n, limit="4 (N-8: or 1, 2 with the scale key)",
                          check="act.operands")
    roles = ctx.decisions.get(ActivationRoles).roles()
    out: list[Operand | None] = []
    for k in (1, 2, 3):
        if k < n:
            out.append(inst.arg(k))
            continue
        role = roles[k - 1]
        if role == "scale":
            v = inst.attr("scale")
            if v is None:  # KLR's default scale is 0: never synthesise one the kernel did not give (finding #6)
                raise EncodeError("Activation with fewer than 4 ins needs the 'scale' key to synthesise its scale "
                                  "operand (N-8)", field="scale", value=None, check="act.operands")
        elif role == "alpha":
            v = inst.attr("alpha") or 0.0
        else:
            v = 0.0
        out.append(Immediate(Dtype.float32, float(v)))
    return out


def activation_checks(inst: Activation, ctx: Context, func: ActFunc) -> None:
    """N-27 / N-31: keys the 0x21 band has no byte for."""
    refuse = ctx.decisions.get(ActivationUnsupportedKeys).refuses
    if inst.attr("is_activate2"):  # Activate2 0x25 is gen4 only (N-31): never ignored
        raise EncodeError("is_activate2: Activate2 (0x25) is gen4 only (N-31); gen2/gen3 encode 0x21", field="is_activate2",
                          value=True, check="act.unsupported_key")
    if not refuse:
        return
    for key in ("op0", "op1"):
        if inst.attr(key) not in (None, AluOp.bypass):
            raise EncodeError(f"Activation {key} {_name(inst.attr(key))} has no byte in the 0x21 band (N-27)",
                              field=key, value=_name(inst.attr(key)), limit="bypass", check="act.unsupported_key")
    for key in ("reverse0", "reverse1"):
        if inst.attr(key):
            raise EncodeError(f"Activation {key} has no byte in the 0x21 band (N-27)", field=key, value=True,
                              limit="false", check="act.unsupported_key")
    if inst.attr("reduce_op") not in (None, AluOp.bypass, AluOp.add):
        raise EncodeError(f"Activation reduce_op {_name(inst.attr('reduce_op'))}: the Activation accumulator only "
                          "adds (N-27; NKI 'reduce_op must be nl.add')", field="reduce_op",
                          value=_name(inst.attr("reduce_op")), limit="bypass, add", check="act.unsupported_key")


def activation_select(inst: Activation, ctx: Context) -> Selection:
    if len(inst.outs) not in (1, 2):
        raise EncodeError(OUTS12_MSG, field="outs", value=len(inst.outs), limit="1, 2", check="act.operands")
    if len(inst.outs) == 2:
        raise EncodeError("an Activation with two outputs is lowered to 0x21 + 0x24 before codegen (N-40)",
                          check="act.operands")
    func = activation_func(inst)
    wire_func = ACT_FUNC_WIRE[func]
    activation_checks(inst, ctx, func)
    fmt = ctx.formats.by_name["Activate"]
    roles = ctx.decisions.get(ActivationRoles).roles()
    words = ctx.decisions.get(ActivationArg2Word)
    offsets = words.value_offsets()
    kinds = ctx.decisions.get(ScalarKindCodes)
    args = activation_args(inst, ctx)
    no_indirect({"src": inst.src, "dst": inst.dst})
    no_pool_psum(inst, {"src": inst.src, "dst": inst.dst, **{roles[k]: a for k, a in enumerate(args)}})
    acc = inst.attr("acc")
    values: dict[str, int] = {"opcode": ACTIVATE.byte, "func": wire_func,
                              "acc": 3 if acc in (None, AccType.Idle) else acc_wire(acc)}
    if acc == AccType.LoadAccumulate and func is not ActFunc.Prelu and \
            ctx.decisions.get(ActivationLoadAccumulate).prelu_only:
        raise EncodeError(f"Activation {func.name} with acc LoadAccumulate: the 0x21 bundle carries the init (args[3], "
                          "+0x2C) only for Prelu (N-41)", field="acc", value="LoadAccumulate", check="act.load_accumulate")
    for k, arg in enumerate(args, start=1):
        role = roles[k - 1]
        sc = scalar_words(arg, role, ctx)
        same_space_pointer(sc, arg, inst.src, role, ctx)
        if sc.kind is ScalarKind.IMMEDIATE and sc.dtype != Dtype.float32:
            raise EncodeError(ACT_FP32_MSG, field=role, value=sc.dtype.name, limit="float32", check="act.imm_dtype")
        if sc.kind is not ScalarKind.IMMEDIATE and k > 1 and sc.dtype != Dtype.float32:
            raise EncodeError(f"{role} (args[{k}]): a {sc.kind.value} scalar here is read as float32 (only args[1] has a "
                              "dtype field)", field=role, value=sc.dtype.name, limit="float32", check="act.imm_dtype")
        if role == "bias" and ctx.target.name == "gen2" and not ctx.decisions.get(Gen2Bias).allows(
                sc.kind is ScalarKind.POINTER, _is_imm(arg, 0.0)):
            raise EncodeError("gen2 Activation bias must be a [P,1] SBUF/PSUM vector (N-36)", field="bias",
                              value=sc.kind.value, check="act.gen2_bias")
        on_wire = (k == 1 or (k == 2 and offsets[2] is not None and not words.arg2_must_be_neutral)
                   or (k == 3 and wire_func == _PRELU))
        if not on_wire and not _is_imm(arg, NEUTRAL[role]):
            if role == "alpha" and k == 3:
                if ctx.decisions.get(NonPreluAlpha).refuses:
                    raise EncodeError(f"Activation {func.name}: alpha is used only by Prelu; a non-zero alpha would be "
                                      "dropped (N-9)", field="alpha", value=getattr(arg, "value", getattr(arg, "kind", None)),
                                      limit="0.0", check="act.alpha")
            else:
                why = "N-5" if k == 2 else "the +0x2C gate (written only for Prelu)"
                raise EncodeError(f"Activation {role} (args[{k}]) has no byte under {why} with the selected readings; "
                                  f"only the immediate {NEUTRAL[role]} can be encoded, refused rather than dropped",
                                  field=role, value=getattr(arg, "value", getattr(arg, "kind", None)),
                                  limit=f"{NEUTRAL[role]}:float32", check="act.no_field")
        if k == 1:
            values.update(arg1_kind=kinds.code(sc.kind, KindByte.ACT_ARG1), arg1_dtype=sc.wire)
            values["arg1_value"] = sc.word
        elif k == 2:
            values["arg2_kind"] = kinds.code(sc.kind, KindByte.ACT_ARG2)
            if offsets[2] is not None:
                values["arg2_value"] = sc.word
        elif wire_func == _PRELU:
            values.update(arg3_kind=kinds.code(sc.kind, KindByte.ACT_ARG3), arg3_value=sc.word)
        elif wire_func in _FORCED_ARG3:
            values.update(arg3_kind=1, arg3_value=0)  # C: bundle[0x0C] = 1; *(dword)&bundle[0x2C] = 0
        else:
            values.update(arg3_kind=ctx.decisions.get(ActivationArg3Kind).byte(), arg3_value=0)
    return fmt, values


def activation_opcodes(inst: Activation, ctx: Context) -> list[int]:
    if len(inst.outs) not in (1, 2):
        raise EncodeError(OUTS12_MSG, field="outs", value=len(inst.outs), limit="1, 2", check="act.operands")
    activation_func(inst)
    return [ACTIVATE.byte] if len(inst.outs) < 2 else [ACTIVATE.byte, ACT_READ_ACC.byte]


# --- the accumulator read-outs 0x24 / 0x9B (chapter §3.2, §4.2) --------------------------------------------

def _read_acc(inst: Instruction, name: str) -> None:
    counts(inst.opcode, inst, (0,), (1,), "ins = [] and outs = [dst]")
    dst = inst.outs[0]
    if isinstance(dst, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in dst.extra:
        raise EncodeError("ACTIVATION_READ_ACCUMULATOR doesn't support TensorIndirect AP since ISA only has one "
                          "dimensional AP", field="dst", value="indirect_dim", check="family.indirect")


def act_read_select(inst: ActivationReadAccumulator, ctx: Context) -> Selection:
    _read_acc(inst, "ActivationReadAccumulator")
    no_pool_psum(inst, {"dst": inst.dst})
    return ctx.formats.by_name["ActivationReadAccumulator"], {"opcode": ACT_READ_ACC.byte}


def act_read_opcodes(inst: ActivationReadAccumulator, ctx: Context) -> list[int]:
    _read_acc(inst, "ActivationReadAccumulator")
    return [ACT_READ_ACC.byte]


def dve_read_select(inst: DveReadAccumulator, ctx: Context) -> Selection:
    _read_acc(inst, "DveReadAccumulator")
    no_pool_psum(inst, {"dst": inst.dst})
    return ctx.formats.by_name["DveReadAccumulator"], {"opcode": DVE_READ_ACC.byte,
                                                       "negated": int(bool(inst.attr("negated")))}


def dve_read_opcodes(inst: DveReadAccumulator, ctx: Context) -> list[int]:
    _read_acc(inst, "DveReadAccumulator")
    return [DVE_READ_ACC.byte]


# --- TensorScalarPtr / TensorScalar (chapter §4.1, §4.2) ---------------------------------------------------

#: N-19 / NKI tensor_scalar_reduce: the ops a fused reduce folds with (their identities: N-30).
TS_REDUCE_OPS = frozenset({AluOp.add, AluOp.subtract, AluOp.mult, AluOp.max, AluOp.min})


def _ts_flags(inst: Instruction) -> None:
    """The book's dispatcher (§4): TensorScalarAddr first, then ScalarTensorTensor (each lowered to its
    own instruction before codegen)."""
    if inst.attr("is_tensor_scalar_addr") and not isinstance(inst, TensorScalarAddr):
        raise EncodeError("a TensorScalarPtr with is_tensor_scalar_addr is lowered to TensorScalarAddr (0x74) before "
                          "codegen", field="is_tensor_scalar_addr", value=True, check="ts.unsupported")
    if is_scalar_tensor_tensor(inst):
        raise EncodeError("a TensorScalarPtr with is_scalar_tensor_tensor / is_tensor_tensor_scan is lowered to "
                          "ScalarTensorTensor before codegen (§4.4)", field="is_scalar_tensor_tensor", value=True,
                          check="stt.operands")


TsInst = TensorScalarPtr | TensorScalar | TensorScalarCache
TSC_DVE_MSG = "TensorScalarCache must be on the DVE engine"
TSC_IMM1_MSG = "TensorScalarCache can only have imm1 if accumulation mode is LoadAccumulate"
TSC_FP32_MSG = "TensorScalarCache immediate value must be fp32"


def ts_args(inst: TsInst, ctx: Context) -> tuple[Operand | None, Operand | None]:
    """(s0, s1) of an instruction: its ins (IT29), or float32 immediates of its constants (IT28, N-20)."""
    if isinstance(inst, TensorScalar):
        counts("TensorScalar", inst, (1,), (1,), "ins = [data] and outs = [dst]")
        s0 = Immediate(Dtype.float32, float(inst.attr("const0") or 0.0))
        three = inst.attr("op1") not in (None, AluOp.bypass) or ctx.decisions.get(TensorScalarLowering).always_three
        return s0, (Immediate(Dtype.float32, float(inst.attr("const1") or 0.0)) if three else None)
    if len(inst.ins) not in (2, 3):
        raise EncodeError(TS_NUMARGS_MSG, field="ins", value=len(inst.ins), limit="2, 3", check="ts.operands")
    if isinstance(inst, TensorScalarCache):
        if engine_of(inst.engine) not in (Engine.DVE, Engine.Unassigned):
            raise EncodeError(TSC_DVE_MSG, field="engine", value=_name(inst.engine), limit="DVE", check="ts.cache")
        if len(inst.ins) == 3 and inst.attr("acc") != AccType.LoadAccumulate:
            raise EncodeError(TSC_IMM1_MSG, field="s1", value=getattr(inst.ins[2], "kind", None), check="ts.cache")
    if len(inst.outs) != 1:
        raise EncodeError("a TensorScalarPtr with two outputs is lowered to 0x9A + 0x9B before codegen (N-19)",
                          field="outs", value=len(inst.outs), limit="1, 2", check="ts.operands")
    return inst.ins[1], (inst.ins[2] if len(inst.ins) == 3 else None)


def ts_plan(inst: TsInst, ctx: Context) -> tuple[int, dict[str, int]]:
    """The opcode and the static fields of a TensorScalar bundle (§4.1, §4.2 fork; §4.3 TensorScalarCache)."""
    _ts_flags(inst)
    cache = isinstance(inst, TensorScalarCache)
    mode = inst.attr("mode") if cache else None
    if cache and not isinstance(mode, TSCMode):
        raise EncodeError(TSC_MODE_INVALID_MSG, field="mode", value=mode, limit="Reduce, Cumulative, TensorScan",
                          check="ts.cache")
    s0_op, s1_op = ts_args(inst, ctx)
    op0 = alu_op(inst.attr("op0"))
    op1 = alu_op(inst.attr("op1") if inst.attr("op1") is not None else AluOp.bypass)
    w0, w1 = alu_wire(op0), alu_wire(op1)
    bitvec = alu_class(op0) is AluClass.BITVEC  # N-15
    cls1 = alu_class(op1)
    if op1 is not AluOp.bypass and (cls1 is AluClass.BITVEC) != bitvec:
        raise EncodeError(f"TensorScalar op0 {op0.name} and op1 {op1.name} mix arithmetic and bit-vector ops (N-15; "
                          "NKI: 'must be of the same type')", field="op1", value=op1.name, check="ts.op_class")
    acc = inst.attr("acc") if isinstance(inst, (TensorScalarPtr, TensorScalarCache)) else None
    fused = acc not in (None, AccType.Idle)
    if cache and not fused:
        raise EncodeError(f"TensorScalarCache {getattr(mode, 'name', mode)} needs an accumulator command (acc Idle has "
                          "nothing to fold into or scan from)", field="acc", value="Idle", check="ts.cache")
    if cache and bitvec:
        raise EncodeError(f"TensorScalarCache op0 {op0.name} is a bit-vector op; its scalars are float32 "
                          "immediates ('TensorScalarCache immediate value must be fp32')", field="op0", value=op0.name,
                          check="ts.op_class")
    transpose = bool(inst.attr("apply_transpose")) if isinstance(inst, TensorScalarPtr) else False
    if bitvec and transpose:
        raise EncodeError(TS_BITVEC_TRANSPOSE_MSG, field="apply_transpose", value=True, check="ts.transpose")
    if isinstance(inst, TensorScalarPtr) and inst.attr("negate_second_output") and len(inst.outs) < 2:
        raise EncodeError("negate_second_output without a second output has no field (0x9B's negated is written only "
                          "for the read-out)", field="negate_second_output", value=True, check="ts.operands")
    kinds = ctx.decisions.get(ScalarKindCodes)
    data = inst.ins[0] if inst.ins else None
    data_d = dtype_of(data, "data")
    values: dict[str, int] = {"op0": w0, "op1": w1, "reverse0": int(bool(inst.attr("reverse0"))),
                              "reverse1": int(bool(inst.attr("reverse1"))), "acc": acc_wire(acc) if fused else 0}
    if fused:
        if op1 not in TS_REDUCE_OPS:
            raise EncodeError(f"the fused reduce (0x9A) folds with op1 {op1.name}, not a reduce op (N-19: add, "
                              "subtract, mult, max, min)", field="op1", value=op1.name, check="ts.fused")
        if (acc == AccType.LoadAccumulate) != (s1_op is not None):
            raise EncodeError("the fused reduce (0x9A) has its init s1 exactly with LoadAccumulate (N-19; TSCache "
                              "'can only have imm1 if accumulation mode is LoadAccumulate')", field="s1",
                              value=getattr(s1_op, "kind", None), check="ts.fused")
    elif s1_op is None and op1 is not AluOp.bypass:
        raise EncodeError(f"op1 {op1.name} needs a second scalar (ins = [data, s0, s1])", field="op1", value=op1.name,
                          check="ts.operands")
    any_pointer = False
    for key, op in (("s0", s0_op), ("s1", s1_op)):
        if op is None:
            continue
        sc = scalar_words(op, key, ctx)
        same_space_pointer(sc, op, inst.ins[0] if inst.ins else None, key, ctx)
        any_pointer |= sc.kind is ScalarKind.POINTER
        if ctx.decisions.get(TsScalarWords).pointers_only and sc.kind is not ScalarKind.POINTER:
            raise EncodeError(f"{key}: only pointer scalars under N-3=pointer-only", field=key, value=sc.kind.value,
                              limit="pointer", check="ts.scalar_kind")
        if not bitvec and sc.dtype != Dtype.float32:
            msg = (TSC_FP32_MSG if cache else TS_ARITH_FP32_MSG) if sc.kind is ScalarKind.IMMEDIATE else \
                f"{key}: an arithmetic scalar is float32 (NKI; the bundle has no dtype field for it)"
            raise EncodeError(msg, field=key, value=sc.dtype.name, limit="float32", check="ts.scalar_dtype")
        if bitvec and sc.kind is ScalarKind.IMMEDIATE and (sc.dtype not in INTEGER_SCALARS or
                                                          DTYPE_INFO[sc.dtype].size < DTYPE_INFO[data_d].size):
            raise EncodeError(TS_BITVEC_SIZE_MSG, field=key, value=sc.dtype.name,
                              limit=f"an integer of at least {DTYPE_INFO[data_d].size} bytes", check="ts.scalar_dtype")
        if bitvec and sc.kind is ScalarKind.POINTER and sc.dtype != data_d:
            raise EncodeError(f"{key}: a bit-vector pointer scalar has the data's dtype {data_d.name} (no dtype field)",
                              field=key, value=sc.dtype.name, limit=data_d.name, check="ts.scalar_dtype")
        values[f"{key}_kind"] = kinds.code(sc.kind, KindByte.IMM_SRC)
        values[f"{key}_value"] = sc.word
    if cache and mode is not TSCMode.Reduce:
        code = TS_CACHE_CUMULATIVE  # Cumulative and TensorScan share 0xE6 (§2.5)
    elif fused:
        code = TS_CACHE_REDUCE
    elif transpose:
        code = TS_TRANSPOSE
    else:
        code = ctx.decisions.get(TsPointerOpcodes).opcode(bitvec, any_pointer)
    values["opcode"] = code.byte
    no_indirect({"data": data, "dst": inst.outs[0] if inst.outs else None, "s0": s0_op, "s1": s1_op})
    no_pool_psum(inst, {"data": data, "dst": inst.outs[0] if inst.outs else None, "s0": s0_op, "s1": s1_op})
    return code.byte, values


INTEGER_SCALARS = frozenset({Dtype.int8, Dtype.uint8, Dtype.int16, Dtype.uint16, Dtype.int32, Dtype.uint32})


def ts_select(inst: TsInst, ctx: Context) -> Selection:
    code, values = ts_plan(inst, ctx)
    bitvec = code in (TS_BITVEC.byte, TS_PTR_BITVEC.byte)
    return ctx.formats.by_name["TensorScalarBitvec" if bitvec else "TensorScalar"], values


def ts_opcodes(inst: TsInst, ctx: Context) -> list[int]:
    if isinstance(inst, (TensorScalarPtr, TensorScalarCache)) and (len(inst.outs) == 2 or
                                                                    is_scalar_tensor_tensor(inst)):
        from ..passes.lower_compound import lower_family

        return [x for part in lower_family(inst, ctx.decisions)
                for x in (stt_opcodes(part, ctx) if isinstance(part, ScalarTensorTensor)
                          else ts_opcodes(part, ctx))]  # type: ignore[arg-type]
    if isinstance(inst, DveReadAccumulator):
        return [DVE_READ_ACC.byte]
    return [ts_plan(inst, ctx)[0]]


# --- ScalarTensorTensor 0x9D / 0x9E / 0xE5 (chapter §4.4, N-21) -------------------------------------------

STT_INS_MSG = "ScalarTensorTensor must have 3 inputs"
STT_AP_MSG = "ScalarTensorTensor's 3rd argument must be AP"
_APS = (PhysicalAP, RegisterAP, SymbolicAP)


def stt_plan(inst: ScalarTensorTensor, ctx: Context) -> tuple[int, dict[str, int]]:
    """The opcode and the static fields of a ScalarTensorTensor bundle (§4.4): 0xE5 for the scan,
    else 0x9D / 0x9E by the op class (isBitVecInstruction, N-15); the scalar's bytes by N-21."""
    if len(inst.ins) != 3:
        raise EncodeError(STT_INS_MSG + " (ins = [tensor0, scalar, tensor1])", field="ins", value=len(inst.ins),
                          limit="3", check="stt.operands")
    if not isinstance(inst.tensor1, _APS):
        raise EncodeError(STT_AP_MSG + " (tensor1 = ins[2] is a tensor, not a scalar)", field="tensor1",
                          value=getattr(inst.tensor1, "kind", None), limit="an access pattern", check="stt.tensor1")
    if not isinstance(inst.tensor0, _APS):
        raise EncodeError("ScalarTensorTensor's 1st argument (tensor0 = ins[0]) must be an access pattern",
                          field="tensor0", value=getattr(inst.tensor0, "kind", None), limit="an access pattern",
                          check="stt.operands")
    if len(inst.outs) != 1:
        raise EncodeError("ScalarTensorTensor has one output (outs = [out]); the fused-reduce form (two outputs, "
                          "+0x2C and a 0x9B read-out) is not encoded: its reduce operator is not documented",
                          field="outs", value=len(inst.outs), limit="1", check="stt.operands")
    if inst.attr("negate_second_output"):
        raise EncodeError("negate_second_output without a second output has no field", field="negate_second_output",
                          value=True, check="stt.operands")
    if inst.attr("apply_transpose"):
        raise EncodeError("ScalarTensorTensor has no transpose form (TS: the verifier asserts 'no transpose')",
                          field="apply_transpose", value=True, check="stt.unsupported")
    acc = inst.attr("acc")
    if acc not in (None, AccType.Idle):
        raise EncodeError(f"ScalarTensorTensor acc {_name(acc)}: an accumulator command (+0x2C) is not encoded: what "
                          "the fused form folds, and with which op, is not documented", field="acc", value=_name(acc),
                          limit="Idle", check="stt.unsupported")
    if engine_of(inst.engine) not in (Engine.DVE, Engine.Unassigned):
        raise EncodeError("ScalarTensorTensor runs on the Vector engine (NKI scalar_tensor_tensor / "
                          "tensor_tensor_scan 'using Vector Engine'; TS: DVE)", field="engine", value=_name(inst.engine),
                          limit="DVE", check="stt.engine")
    if in_psum(inst.tensor0) and in_psum(inst.tensor1):
        raise EncodeError("ScalarTensorTensor's tensor0 and tensor1 cannot both be in PSUM (NKI)", field="tensor1",
                          value="PSUM", limit="SB when tensor0 is in PSUM", check="stt.psum")
    op0 = alu_op(inst.attr("op0"))
    op1 = alu_op(inst.attr("op1") if inst.attr("op1") is not None else AluOp.bypass)
    w0, w1 = alu_wire(op0), alu_wire(op1)
    bitvec = BitvecSelection.is_bitvec(alu_class(op0))  # N-15: isBitVecInstruction
    if op1 is not AluOp.bypass and BitvecSelection.is_bitvec(alu_class(op1)) != bitvec:
        raise EncodeError(f"ScalarTensorTensor op0 {op0.name} and op1 {op1.name} mix arithmetic and bit-vector ops "
                          "(N-15)", field="op1", value=op1.name, check="stt.op_class")
    if inst.scan and (bitvec or BitvecSelection.is_bitvec(alu_class(op1))):
        raise EncodeError(f"the tensor-tensor scan (0xE5 TensorTensorScanArith) takes arithmetic ops (NKI "
                          f"tensor_tensor_scan), not {(op0 if bitvec else op1).name}", field="op0" if bitvec else "op1",
                          value=(op0 if bitvec else op1).name, check="stt.op_class")
    no_indirect({"tensor0": inst.tensor0, "tensor1": inst.tensor1, "out": inst.out, "scalar": inst.scalar})
    values: dict[str, int] = {"op0": w0, "op1": w1, "reverse0": int(bool(inst.attr("reverse0"))),
                              "reverse1": int(bool(inst.attr("reverse1"))), "acc": 0}
    values.update(_stt_scalar(inst, ctx, bitvec))
    code = TT_SCAN if inst.scan else (STT_BITVEC if bitvec else STT_ARITH)
    values["opcode"] = code.byte
    return code.byte, values


def _stt_scalar(inst: ScalarTensorTensor, ctx: Context, bitvec: bool) -> dict[str, int]:
    """The scalar's fields (N-21): IMM_SRC kind (N-2) and value word (N-6, N-7, N-33), or the one byte of
    N-21=one-byte-scalar. Its dtype goes to +0x2B through the binding."""
    op = inst.scalar
    sc = scalar_words(op, "scalar", ctx)
    same_space_pointer(sc, op, inst.tensor0, "scalar", ctx)
    if sc.dtype in PACKED_DTYPES:
        raise EncodeError(f"scalar: a packed dtype ({sc.dtype.name}) has no scalar value", field="scalar",
                          value=sc.dtype.name, check="stt.scalar")
    data_d = dtype_of(inst.tensor0, "tensor0")
    if bitvec and sc.kind is ScalarKind.IMMEDIATE and (sc.dtype not in INTEGER_SCALARS or
                                                      DTYPE_INFO[sc.dtype].size < DTYPE_INFO[data_d].size):
        raise EncodeError(TS_BITVEC_SIZE_MSG, field="scalar", value=sc.dtype.name,
                          limit=f"an integer of at least {DTYPE_INFO[data_d].size} bytes", check="stt.scalar")
    if bitvec and sc.kind is ScalarKind.POINTER and sc.dtype != data_d:
        raise EncodeError(f"scalar: a bit-vector pointer scalar has tensor0's dtype {data_d.name} (S-37: the scalar is "
                          "cut to tensor0's width)", field="scalar", value=sc.dtype.name, limit=data_d.name,
                          check="stt.scalar")
    n21 = ctx.decisions.get(SttLayout)
    if n21.one_byte:
        if sc.kind is not ScalarKind.IMMEDIATE:
            raise EncodeError(f"scalar: under N-21=one-byte-scalar the scalar is one byte with no kind byte; a "
                              f"{sc.kind.value} cannot be told from an immediate there", field="scalar",
                              value=sc.kind.value, limit="an immediate", check="stt.scalar")
        if sc.word > 0xFF:
            raise EncodeError(f"scalar {sc.value!r} ({sc.dtype.name}) has bit pattern {sc.word:#x}, which does not fit "
                              "the one scalar byte at +0x27 (N-21=one-byte-scalar, as D-16=one-byte); only scalars "
                              "whose bit pattern fits one byte (a +0.0 float32) can be encoded", field="scalar",
                              value=sc.value, limit="bit pattern 0x00..0xff", check="stt.scalar")
        return {"scalar_byte": sc.word}
    return {"scalar_kind": ctx.decisions.get(ScalarKindCodes).code(sc.kind, KindByte.IMM_SRC), "scalar_value": sc.word}


def stt_select(inst: ScalarTensorTensor, ctx: Context) -> Selection:
    return ctx.formats.by_name["ScalarTensorTensor"], stt_plan(inst, ctx)[1]


def stt_opcodes(inst: ScalarTensorTensor, ctx: Context) -> list[int]:
    return [stt_plan(inst, ctx)[0]]


# --- BNStats / BNStatsAggregate (chapter §7) ----------------------------------------------------------------

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


# --- the cross-lane reduce (chapter §5.2) ------------------------------------------------------------------

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
                          f"not {_name(op)}", field="op", value=_name(op), check="tr.cross_lane")
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


# --- Pool (chapter §5.4) -----------------------------------------------------------------------------------

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
    assert isinstance(src, (PhysicalAP, RegisterAP)) or src is None
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


# --- Iota (chapter §6, N-22) ---------------------------------------------------------------------------------

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
            raise EncodeError(f"Iota pattern step {step} does not fit the i16 step field", field="pattern", value=step,
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


# --- data movement, search and batch-norm backward (the families of real compiler output) -----------------
# The two-bundle BIR forms are lowered first (passes.lower_compound): each part below encodes one bundle;
# the BIR class itself only answers COLLECT_OPCODES (both opcodes, in wire order).

MASK_SIZE_MSG = "Mask.size() == 32"
BN_AP_MSG = "in2 and in3 must be AP argument type"
KEEP_LANE = 0xFF


_DVE = (Engine.DVE, Engine.Unassigned)
_DVE_POOL = (Engine.DVE, Engine.Pool, Engine.Unassigned)


def _engine(inst: Instruction, what: str, allowed: tuple[Engine, ...], why: str) -> None:
    if engine_of(inst.engine) not in allowed:
        names = "/".join(e.name for e in allowed if e is not Engine.Unassigned)
        raise EncodeError(f"{what} runs on the {names} engine ({why})", field="engine", value=_name(inst.engine),
                          limit=names, check="family.engine")


_DMOV_WHY = "DMOV, SRCH and every real bundle: a DVE stream"
_BN_WHY = "BN names the Pool engine; every real bundle is in a DVE stream"


def _lowered_only(what: str) -> Any:
    def select(inst: Instruction, ctx: Context) -> Selection:
        raise EncodeError(f"{what} is two bundles: it must be lowered before codegen (tongasm.passes.lower)",
                          check="opcode.supported")
    return select


def _pair_opcodes() -> Any:
    """COLLECT_OPCODES of a two-bundle form: its parts' opcodes, in wire order."""
    def opcodes(inst: Instruction, ctx: Context) -> list[int]:
        from ..passes.lower_compound import lower_family

        return [x for part in lower_family(inst, ctx.decisions) for x in FAMILIES[type(part)].opcodes(part, ctx)]
    return opcodes


def _one(name: str) -> Any:
    def opcodes(inst: Instruction, ctx: Context) -> list[int]:
        return [next(iter(ctx.formats.by_name[name].opcodes))]
    return opcodes


def lane_mask_select(inst: LaneMaskLoad, ctx: Context) -> Selection:
    """0x69 (R-50, R-51): the 32 lane bytes, 0..31 a src lane, 0xFF the lane kept."""
    _engine(inst, "LoadMaskSelect", _DVE, _DMOV_WHY)
    mask = inst.attr("mask")
    if not isinstance(mask, list) or len(mask) != 32:
        n = len(mask) if isinstance(mask, list) else type(mask).__name__
        raise EncodeError(f"StreamShuffle mask must list 32 lanes ({MASK_SIZE_MSG}); got {n}", field="mask", value=n,
                          limit="32 entries", check="dmov.mask_lanes")
    fmt = ctx.formats.by_name["LoadMaskSelect"]
    values: dict[str, int] = {"opcode": next(iter(fmt.opcodes))}
    for i, v in enumerate(mask):
        if type(v) is not int or not (0 <= v < 32 or v == KEEP_LANE):
            raise EncodeError(f"StreamShuffle mask[{i}] = {v!r}: a lane is 0..31 (the src lane) or 255 (left alone, "
                              "R-51)", field=f"mask[{i}]", value=v, limit="0..31 or 255", check="dmov.mask_lanes")
        values[f"lane{i}"] = v
    return fmt, values


def _channels(inst: Instruction, what: str) -> int:
    ch = inst.attr("num_active_channels")
    if type(ch) is not int or ch <= 0:
        raise EncodeError(f"{what}: src and dst must be access patterns with a partition pair (the channel count "
                          "is their partitions)", field="num_active_channels", value=ch, check="operands.shape")
    return ch


def shuffle_select(inst: StreamShuffleMove, ctx: Context) -> Selection:
    """0x6A: the dtypes and slots from the binding, the channel count the lowering worked out."""
    counts("StreamShuffle", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    _engine(inst, "StreamShuffle", _DVE, _DMOV_WHY)
    no_indirect({"src": inst.src, "dst": inst.dst})
    fmt = ctx.formats.by_name["StreamShuffle"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "num_active_channels": _channels(inst, "StreamShuffle")}


def transpose_select(inst: StreamTransposeMove, ctx: Context) -> Selection:
    """0x6B: as 0x6A plus the mask flag (R-53: 1 right after the lowering's LoadMaskSelect)."""
    counts("StreamTranspose", inst, (1,), (1,), "ins = [src] and outs = [dst]")
    _engine(inst, "StreamTranspose", _DVE, _DMOV_WHY)
    src = inst.src
    if isinstance(src, (PhysicalAP, RegisterAP, SymbolicAP)) and "indirect_dim" in src.extra:
        raise EncodeError("STREAM_TRANSPOSE cannot have TensorIndirect AP as src", field="src", value="indirect_dim",
                          check="family.indirect")
    no_indirect({"dst": inst.dst})
    fmt = ctx.formats.by_name["StreamTranspose"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "num_active_channels": _channels(inst, "StreamTranspose"),
                 "use_mask": int(bool(inst.attr("use_mask")))}


def match_value_load_select(inst: MatchValueLoadPart, ctx: Context) -> Selection:
    """0x6D: the 8 values of vals (binding: slot, dtype, partitions)."""
    counts("MatchReplace", inst, (2,), (1,), "ins = [vals, data] and outs = [dst]")
    _engine(inst, "MatchReplace", _DVE, _DMOV_WHY)
    no_indirect({"vals": inst.ins[0]})
    fmt = ctx.formats.by_name["MatchValueLoad"]
    return fmt, {"opcode": next(iter(fmt.opcodes))}


def match_replace_select(inst: MatchReplacePart, ctx: Context) -> Selection:
    """0x6F: data and dst from the binding, imm_value the float32 at +0x28."""
    counts("MatchReplace", inst, (2,), (1,), "ins = [vals, data] and outs = [dst]")
    _engine(inst, "MatchReplace", _DVE, _DMOV_WHY)
    no_indirect({"data": inst.ins[1], "dst": inst.outs[0]})
    imm = inst.attr("imm_value")
    if isinstance(imm, bool) or not isinstance(imm, (int, float)):
        raise EncodeError(f"MatchReplace imm_value must be a number, got {imm!r}", field="imm_value", value=imm,
                          check="operands.shape")
    fmt = ctx.formats.by_name["MatchReplace8"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "imm": f32_bits(imm)}


def _bn_pointer(op: Operand | None, role: str, ctx: Context) -> Scalar:
    sc = scalar_words(op, role, ctx)
    if sc.kind is not ScalarKind.POINTER:
        raise EncodeError(f"{role}: {BN_AP_MSG} (a [P,1] SBUF/PSUM pointer), got {sc.kind.value}", field=role,
                          value=sc.kind.value, check="family.scalar_kind")
    return sc


def bn_gradients_select(inst: BNGradients, ctx: Context) -> Selection:
    """0x63: x, dy, out from the binding; the mean and varfactor pointer words (N-6) and their dtype."""
    counts("BNGradients", inst, (4,), (1,), "ins = [x, dy, mean, varfactor] and outs = [out]")
    _engine(inst, "BNGradients", _DVE_POOL, _BN_WHY)
    no_indirect({"x": inst.ins[0], "dy": inst.ins[1], "out": inst.outs[0]})
    mean = _bn_pointer(inst.ins[2], "mean", ctx)
    vf = _bn_pointer(inst.ins[3], "varfactor", ctx)
    if mean.dtype != vf.dtype:
        raise EncodeError(f"BNGradients mean ({mean.dtype.name}) and varfactor ({vf.dtype.name}) must have one dtype "
                          "(in2.getType() == in3.getType())", field="varfactor.dtype", value=vf.dtype.name,
                          limit=mean.dtype.name, check="family.scalar_kind")
    fmt = ctx.formats.by_name["BatchNormGradAccumulate"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "mean_ptr": mean.word, "varfactor_ptr": vf.word,
                 "coeff_dtype": mean.wire}


def bn_param_load_select(inst: BNParamLoadPart, ctx: Context) -> Selection:
    """0x64: coeff from the binding; N (total_elements) as float32; the mean operand's word and kind (R-61)."""
    counts("BNBackprop", inst, (4,), (1,), "ins = [x, dy, coeff, mean] and outs = [dx]")
    _engine(inst, "BNBackprop", _DVE_POOL, _BN_WHY)
    no_indirect({"coeff": inst.ins[2]})
    n = inst.attr("total_elements")
    if isinstance(n, bool) or not isinstance(n, (int, float)):
        raise EncodeError(f"BNBackprop total_elements must be a number, got {n!r}", field="total_elements", value=n,
                          check="operands.shape")
    mean = scalar_words(inst.ins[3], "mean", ctx)
    codes = {v: k for k, v in ctx.decisions.get(BnParamLoadKinds).names().items()}
    fmt = ctx.formats.by_name["BatchNormParamLoad"]
    return fmt, {"opcode": next(iter(fmt.opcodes)), "total_elements": f32_bits(n), "mean_value": mean.word,
                 "mean_kind": codes[mean.kind.value]}


def bn_backprop_select(inst: BNBackpropPart, ctx: Context) -> Selection:
    """0x65: x, dy and dx from the binding."""
    counts("BNBackprop", inst, (4,), (1,), "ins = [x, dy, coeff, mean] and outs = [dx]")
    _engine(inst, "BNBackprop", _DVE_POOL, _BN_WHY)
    no_indirect({"x": inst.ins[0], "dy": inst.ins[1], "dx": inst.outs[0]})
    fmt = ctx.formats.by_name["BatchNormBackProp"]
    return fmt, {"opcode": next(iter(fmt.opcodes))}


# --- TensorScalarAddr 0x74 (R-70, R-71) ---------------------------------------------------------------------

def tsa_select(inst: TensorScalarAddr, ctx: Context) -> Selection:
    """0x74: data and dst from the binding; op0/op1, the reverse bits and each scalar's kind, value word
    (R-70: 8 bytes; an immediate sign-extended, as the real -1 fills all 8) and dtype nibble."""
    if engine_of(inst.engine) not in (Engine.Pool, Engine.Unassigned):
        raise EncodeError(TS_ADDR_MSG, field="engine", value=_name(inst.engine), limit="Pool", check="ts.unsupported")
    if len(inst.ins) not in (2, 3):
        raise EncodeError(TS_NUMARGS_MSG, field="ins", value=len(inst.ins), limit="2, 3", check="ts.operands")
    counts("TensorScalarAddr", inst, (2, 3), (1,), "ins = [data, s0, s1?] and outs = [dst]")
    no_indirect({"data": inst.ins[0], "dst": inst.outs[0]})
    no_pool_psum(inst, {"data": inst.ins[0], "dst": inst.outs[0]})
    for role, op in (("data", inst.ins[0]), ("dst", inst.outs[0])):
        d = dtype_of(op, role)
        if not d.name.startswith(("int", "uint")):
            raise EncodeError(f"{TS_ADDR_INT_MSG}: {role} is {d.name}", field=f"{role}.dtype", value=d.name,
                              limit="an integer dtype", check="ts.unsupported")
    fmt = ctx.formats.by_name["TensorScalarAddr"]
    width = ctx.decisions.get(TensorScalarAddrSlots).value_width
    codes = {v: k for k, v in ctx.decisions.get(TensorScalarAddrKinds).names().items()}
    values: dict[str, int] = {"opcode": next(iter(fmt.opcodes))}
    for k, key in ((0, "op0"), (1, "op1")):
        alu = inst.attr(key) if k == 0 or inst.attr(key) is not None else AluOp.bypass
        values[key] = alu_wire(alu)
        values[f"reverse{k}"] = int(bool(inst.attr(f"reverse{k}")))
    # no s1: the immediate int32 0 of the real bundles whose op1 is bypass
    scalars = [inst.ins[1], inst.ins[2] if len(inst.ins) == 3 else Immediate(Dtype.int32, 0)]
    for k, op in enumerate(scalars):
        role = f"s{k}"
        sc = scalar_words(op, role, ctx)
        if sc.kind not in (ScalarKind.IMMEDIATE, ScalarKind.POINTER):
            raise EncodeError(f"{role}: a TensorScalarAddr scalar is an immediate or a [P,1] pointer (R-71: no real "
                              "bundle has a register)", field=role, value=sc.kind.value, check="family.scalar_kind")
        word = sc.word
        if sc.kind is ScalarKind.IMMEDIATE and isinstance(sc.value, int):
            word = int(sc.value) & ((1 << (8 * width)) - 1)  # the real immediate -1 fills the whole word
        values[f"{role}_value"] = word
        values[f"{role}_kind"] = codes["imm" if sc.kind is ScalarKind.IMMEDIATE else "ptr"]
        values[f"{role}_dtype"] = sc.wire
    return fmt, values


# --- the families (registered in codegen.generator.FAMILIES) ------------------------------------------------

FAMILIES: dict[type[Instruction], Family] = {
    TensorReduce: Family("TensorReduce", tensor_reduce_select, tensor_reduce_opcodes),
    Activation: Family("Activation", activation_select, activation_opcodes),
    ActivationReadAccumulator: Family("ActivationReadAccumulator", act_read_select, act_read_opcodes),
    ReadActivationAccumulator: Family("ActivationReadAccumulator", act_read_select, act_read_opcodes),
    DveReadAccumulator: Family("DveReadAccumulator", dve_read_select, dve_read_opcodes),
    TensorScalarPtr: Family("TensorScalarPtr", ts_select, ts_opcodes),
    TensorScalar: Family("TensorScalarPtr", ts_select, ts_opcodes),
    TensorScalarCache: Family("TensorScalarPtr", ts_select, ts_opcodes),
    ScalarTensorTensor: Family("TensorScalarPtr", stt_select, stt_opcodes),
    BNStats: Family("BNStats", bn_stats_select, bn_stats_opcodes),
    BNStatsAggregate: Family("BNStatsAggregate", bn_aggr_select, bn_aggr_opcodes),
    CrossLaneReduce: Family("TensorReduce", cross_select, cross_opcodes),
    Pool: Family("Pool", pool_select, pool_opcodes),
    Iota: Family("Iota", iota_select, iota_opcodes),
    StreamShuffle: Family("StreamShuffle", _lowered_only("StreamShuffle"), _pair_opcodes()),
    LaneMaskLoad: Family("StreamShuffle", lane_mask_select, _one("LoadMaskSelect")),
    StreamShuffleMove: Family("StreamShuffle", shuffle_select, _one("StreamShuffle")),
    StreamTranspose: Family("StreamTranspose", _lowered_only("StreamTranspose"), _pair_opcodes()),
    StreamTransposeMove: Family("StreamTranspose", transpose_select, _one("StreamTranspose")),
    MatchReplace: Family("MatchReplace", _lowered_only("MatchReplace"), _pair_opcodes()),
    MatchValueLoadPart: Family("MatchReplace", match_value_load_select, _one("MatchValueLoad")),
    MatchReplacePart: Family("MatchReplace", match_replace_select, _one("MatchReplace8")),
    BNGradients: Family("BNGradients", bn_gradients_select, _one("BatchNormGradAccumulate")),
    BNBackprop: Family("BNBackprop", _lowered_only("BNBackprop"), _pair_opcodes()),
    BNParamLoadPart: Family("BNBackprop", bn_param_load_select, _one("BatchNormParamLoad")),
    BNBackpropPart: Family("BNBackprop", bn_backprop_select, _one("BatchNormBackProp")),
    TensorScalarAddr: Family("TensorScalarPtr", tsa_select, _one("TensorScalarAddr")),
}
