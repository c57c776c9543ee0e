"""Codegen of the scalar family: TensorScalarPtr, TensorScalar, TensorScalarCache and ScalarTensorTensor.

As in :mod:`.tensor`, each form has an ``*_opcodes`` function (COLLECT_OPCODES) and a ``*_select``
function (the layout and its static fields). The refusals quote the book's strings where the chapter gives
one (C) and name the decision otherwise. Scalar operands (chapter §1.3) are encoded by
:func:`~.common.scalar_words` (N-2 kind codes, N-6 pointer words, N-7 register ids, N-33 immediates).
Rules between operands' geometries are IR checks in :mod:`tongasm.check.scalar` (and :mod:`tongasm.check.operands`).
"""

from __future__ import annotations

from ..errors import EncodeError
from ..ir.act import DveReadAccumulator
from ..ir.instructions import Instruction
from ..ir.operands import Immediate, Operand, PhysicalAP, RegisterAP, SymbolicAP
from ..ir.scalar import (
    ScalarTensorTensor,
    TensorScalar,
    TensorScalarAddr,
    TensorScalarCache,
    TensorScalarPtr,
    is_scalar_tensor_tensor,
)
from ..isa.decisions.scalar import (
    BitvecSelection,
    KindByte,
    ScalarKindCodes,
    SttLayout,
    TensorScalarLowering,
    TsPointerOpcodes,
    TsScalarWords,
)
from ..isa.enums import DTYPE_INFO, PACKED_DTYPES, AccType, AluClass, AluOp, Dtype, Engine
from ..isa.opcodes import (
    DVE_READ_ACC,
    STT_ARITH,
    STT_BITVEC,
    TS_BITVEC,
    TS_CACHE_CUMULATIVE,
    TS_CACHE_REDUCE,
    TS_PTR_BITVEC,
    TS_TRANSPOSE,
    TT_SCAN,
)
from ..isa.vector_enums import (
    TSC_MODE_INVALID_MSG,
    ScalarKind,
    TSCMode,
)
from .common import (
    TS_NUMARGS_MSG,
    Context,
    Selection,
    acc_wire,
    alu_class,
    alu_op,
    alu_wire,
    counts,
    dtype_of,
    engine_of,
    enum_name,
    in_psum,
    no_indirect,
    no_pool_psum,
    same_space_pointer,
    scalar_words,
)
from .plan import Family

TS_ARITH_FP32_MSG = "TensorScalarPtr arith immediate dtype must be fp32"


TS_BITVEC_SIZE_MSG = "bitvec immediate dtype size must be >= input dtype"


TS_BITVEC_TRANSPOSE_MSG = "TensorScalarPtr bitvec does not support transpose"


TS_REDUCE_IDLE_MSG = "Reduce Accum result is not outputed"


BN_STATS_OUT = 6


BN_AGGR_OUT = 2


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
            raise EncodeError(TSC_DVE_MSG, field="engine", value=enum_name(inst.engine), limit="DVE", check="ts.cache")
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
        raise EncodeError(f"ScalarTensorTensor acc {enum_name(acc)}: an accumulator command (+0x2C) is not encoded: what "
                          "the fused form folds, and with which op, is not documented", field="acc", value=enum_name(acc),
                          limit="Idle", check="stt.unsupported")
    if engine_of(inst.engine) not in (Engine.DVE, Engine.Unassigned):
        raise EncodeError("ScalarTensorTensor runs on the Vector engine (NKI scalar_tensor_tensor / "
                          "tensor_tensor_scan 'using Vector Engine'; TS: DVE)", field="engine", value=enum_name(inst.engine),
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


FAMILIES: dict[type[Instruction], Family] = {
    TensorScalarPtr: Family("TensorScalarPtr", ts_select, ts_opcodes),
    TensorScalar: Family("TensorScalarPtr", ts_select, ts_opcodes),
    TensorScalarCache: Family("TensorScalarPtr", ts_select, ts_opcodes),
    ScalarTensorTensor: Family("TensorScalarPtr", stt_select, stt_opcodes),
}
