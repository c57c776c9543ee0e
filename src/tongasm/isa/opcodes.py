"""Opcode bytes (+0x00) of the Tonga ISA.

``OPCODES`` lists the opcodes tongasm encodes (SPEC §4), each with its mnemonic, the BIR
instruction family that produces it and its confidence. ``ISA_OPCODE_NAMES`` is the ISA's full
opcode name table (the compiler's ``enum_variant_string_opcode``, 161 live values) so that a
decoder can name an opcode even when tongasm has no layout for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping

from .fields import Conf


@dataclass(frozen=True)
class Op:
    """One opcode byte tongasm encodes."""

    byte: int
    mnemonic: str  # the ISA's name for the byte (listing mnemonic)
    bir: str  # the BIR instruction family that produces it
    family: str  # "sp" (register-lane ops) or "tensor"
    conf: Conf
    doc: str


# --- the opcodes tongasm encodes, as named constants (codegen, checks and the simulator use these) ---

MOVE = Op(0xA7, "Move", "RegisterMove", "sp", Conf.C, "register move (32-bit or 64-bit)")
ALU = Op(0xA8, "AluOp", "RegisterAlu", "sp", Conf.C, "register ALU op")
PSEUDO_TENSOR_LOAD = Op(0xCE, "PseudoTensorLoad", "TensorLoad", "sp", Conf.C,
                        "load register(s) from a DRAM variable (IMM form)")
TENSOR_LOAD = Op(0xAA, "TensorLoad", "TensorLoad", "sp", Conf.C, "load register(s), address in a register (REG form)")
PSEUDO_TENSOR_STORE = Op(0xCD, "PseudoTensorStore", "TensorSave", "sp", Conf.C,
                         "store register(s) to a DRAM variable (IMM form)")
TENSOR_STORE = Op(0xAB, "TensorStore", "TensorSave", "sp", Conf.C, "store register(s), address in a register (REG form)")
TT_ARITH = Op(0x41, "TensorTensorArithOp", "TensorTensor", "tensor", Conf.C, "elementwise ALU op, arithmetic class")
TT_BITVEC = Op(0x51, "TensorTensorBitvecOp", "TensorTensor", "tensor", Conf.C, "elementwise ALU op, bit-vector class")
# 0x8A/0x8E: the TensorTensor page names them; the opcode enum has 0x8A reserved and 0x8E =
# BatchNormParamLoad2 (contradiction C-16). The spec follows the TensorTensor page.
TT_INT_ADD = Op(0x8A, "TensorTensorIntAdd", "TensorTensor", "tensor", Conf.I, "GPSIMD int32 add (D-13)")
TT_INT_MULT = Op(0x8E, "TensorTensorIntMult", "TensorTensor", "tensor", Conf.I, "GPSIMD int32 mult (D-13)")
COPY_PREDICATED = Op(0x72, "CopyPredicated", "CopyPredicated", "tensor", Conf.C, "predicated copy, same dtype")
CAST_PREDICATED = Op(0x99, "CastPredicated", "CopyPredicated", "tensor", Conf.C, "predicated copy with cast")
COPY_PREDICATED_SCALAR = Op(0xE8, "CopyPredicatedScalar", "CopyPredicated", "tensor", Conf.C,
                            "predicated write of a scalar")
SELECT_REDUCE = Op(0xEA, "SelectReduce", "CopyPredicated", "tensor", Conf.C, "predicated select with reduction")
COPY = Op(0x46, "Copy", "TensorCopy", "tensor", Conf.C, "tensor copy, same dtype")
CAST = Op(0x47, "Cast", "TensorCopy", "tensor", Conf.C, "tensor copy with cast")
MEMSET = Op(0x49, "Memset", "Memset", "tensor", Conf.C, "fill with a constant")
RNG = Op(0x4D, "Rng", "Memset", "tensor", Conf.C, "fill with random bits")
MOVE_SHAPE = Op(0xB2, "MoveShape", "MoveShape", "tensor", Conf.C, "load the DMA shape registers")

#: Every opcode tongasm has a layout for, by byte (the layout modules may add their own with :func:`op`).
OPCODES: dict[int, Op] = {
    o.byte: o
    for o in (MOVE, ALU, PSEUDO_TENSOR_LOAD, TENSOR_LOAD, PSEUDO_TENSOR_STORE, TENSOR_STORE, TT_ARITH, TT_BITVEC,
              TT_INT_ADD, TT_INT_MULT, COPY_PREDICATED, CAST_PREDICATED, COPY_PREDICATED_SCALAR, SELECT_REDUCE,
              COPY, CAST, MEMSET, RNG, MOVE_SHAPE)
}


def op(byte: int, mnemonic: str, bir: str, family: str, conf: Conf, doc: str) -> Op:
    """Declare (and register) an opcode tongasm encodes; a byte is declared once."""
    if byte in OPCODES:
        raise ValueError(f"opcode {byte:#04x} declared twice ({OPCODES[byte].mnemonic}, {mnemonic})")
    o = OPCODES[byte] = Op(byte, mnemonic, bir, family, conf, doc)
    return o


# --- the vector families of the next-families chapter (``next-families.md``; confidence as in its byte
# maps, §3-§7); the other families declare theirs with their layout records (``isa/layouts/``)

C, H, I = Conf.C, Conf.H, Conf.I  # noqa: E741

# --- Activation (Scalar engine, chapter §3) ---------------------------------------------------------
ACTIVATE = op(0x21, "Activate", "Activation", "tensor", C, "out = f(in*scale + bias; alpha), Activation engine")
ACT_TABLE_LOAD = op(0x23, "ActivationTableLoad", "LoadActFuncSet", "tensor", C,
                    "install an activation function set on the Activation engine")
ACT_READ_ACC = op(0x24, "ActivationReadAccumulator", "ActivationReadAccumulator", "tensor", C,
                  "dst[p,0] = the Activation engine's accumulator of lane p")

# --- TensorScalar (chapter §4) ------------------------------------------------------------------
TS_ARITH = op(0x43, "TensorScalarArithOp", "TensorScalarPtr", "tensor", C, "out = op1(op0(in, s0), s1), arithmetic")
TS_PTR_ARITH = op(0x44, "TensorScalarPtrArithOp", "TensorScalarPtr", "tensor", I,
                  "0x43 with pointer scalars (never emitted under N-37's default)")
TS_BITVEC = op(0x53, "TensorScalarBitvecOp", "TensorScalarPtr", "tensor", C, "out = op1(op0(in, s0), s1), bit-vector")
TS_PTR_BITVEC = op(0x54, "TensorScalarPtrBitvecOp", "TensorScalarPtr", "tensor", I,
                   "0x53 with pointer scalars (never emitted under N-37's default)")
TS_TRANSPOSE = op(0x93, "TransposeTensorScalarArithOp", "TensorScalarPtr", "tensor", C,
                  "0x43 with apply_transpose (encoded; not simulated)")
TS_CACHE_REDUCE = op(0x9A, "TensorScalarCacheReduce", "TensorScalarPtr", "tensor", C,
                     "out = op0(in, s0); the DVE accumulator folds it with op1 (fused reduce)")
TS_CACHE_CUMULATIVE = op(0xE6, "TensorScalarCacheCumulative", "TensorScalarPtr", "tensor", C,
                         "running scan: out[i] = acc = op1(op0(in[i], s0), acc) (TensorScalarCache)")
STT_ARITH = op(0x9D, "ScalarTensorTensorArith", "TensorScalarPtr", "tensor", C,
               "out = op1(op0(tensor0, scalar), tensor1), arithmetic (ScalarTensorTensor, N-21)")
STT_BITVEC = op(0x9E, "ScalarTensorTensorBitvec", "TensorScalarPtr", "tensor", C,
                "out = op1(op0(tensor0, scalar), tensor1), bit-vector (ScalarTensorTensor, N-21)")
TT_SCAN = op(0xE5, "TensorTensorScanArith", "TensorScalarPtr", "tensor", C,
             "scan: out[i] = op1(op0(tensor0[i], out[i-1]), tensor1[i]), out[-1] = the scalar (S-38)")
DVE_READ_ACC = op(0x9B, "DveReadAccumulator", "DveReadAccumulator", "tensor", I,
                  "dst[p,0] = (negated ? -1 : 1) * the DVE engine's accumulator of lane p")

# --- Reduce, reciprocal (chapter §5) -----------------------------------------------------------------
TR_ARITH = op(0x42, "TensorReduceArithOp", "TensorReduce", "tensor", I, "free-axis reduce, arithmetic op (N-12)")
TR_BITVEC = op(0x52, "TensorReduceBitvecOp", "TensorReduce", "tensor", I, "free-axis reduce, bit-vector op (N-12)")
TR_T_ARITH = op(0x83, "TransposeTensorReduceArithOp", "TensorReduce", "tensor", I,
                "free-axis reduce with apply_transpose (N-12; not simulated)")
TR_T_BITVEC = op(0x84, "TransposeTensorReduceBitvecOp", "TensorReduce", "tensor", I,
                 "bit-vector free-axis reduce with apply_transpose (N-12; not simulated)")
CROSS_ARITH = op(0x7C, "CrossLaneReduceArith", "TensorReduce", "tensor", I,
                 "cross-lane (partition) reduce (N-12 default); the free-axis reduce under N-12=book-literal")
CROSS_BITVEC = op(0x7D, "CrossLaneReduceBitvec", "TensorReduce", "tensor", I,
                  "cross-lane bit-vector reduce (N-12 default); the free-axis one under N-12=book-literal")
POOL = op(0x45, "Pool", "Pool", "tensor", C, "max or average over the two innermost input dims (the window)")
# 0x7E carries a layout unless N-22=off (the draft's reading)
IOTA = op(0x7E, "Iota", "Iota", "tensor", C, "dst = base + channel*channel_multiplier + pattern index (int32)")
RECIPROCAL = op(0x48, "Reciprocal", "Reciprocal", "tensor", C, "out = 1 / in (fp32)")

# --- BatchNorm statistics (chapter §7) -----------------------------------------------------------------
BN_STATS = op(0x61, "BatchNormStats2", "BNStats", "tensor", C,
              "per-partition count, mean and M2 of the even and odd elements")
BN_STATS_T = op(0x82, "TransposeBatchNormStats2", "BNStats", "tensor", C, "BNStats with apply_transpose (not simulated)")
BN_AGGREGATE = op(0x62, "BatchNormAggregate", "BNStatsAggregate", "tensor", C,
                  "merge (count, mean, M2) triples into mean and variance")



#: The ISA opcode enum (wire-format dossier §1.8, C): every live opcode byte and its name.
ISA_OPCODE_NAMES: Mapping[int, str] = {
    0x01: "Ldweights", 0x02: "Matmul", 0x03: "PeRegWrite", 0x04: "WeightMask", 0x05: "WeightShift",
    0x06: "Ldtags", 0x07: "MatmulSparse", 0x08: "PeManageSeed", 0x09: "LdweightsMX",
    0x0A: "MatmulMX", 0x21: "Activate", 0x22: "ActivateQuantize", 0x23: "ActivationTableLoad",
    0x24: "ActivationReadAccumulator", 0x25: "Activate2", 0x30: "Exponential",
    0x41: "TensorTensorArithOp", 0x42: "TensorReduceArithOp", 0x43: "TensorScalarArithOp",
    0x44: "TensorScalarPtrArithOp", 0x45: "Pool", 0x46: "Copy", 0x47: "Cast", 0x48: "Reciprocal",
    0x49: "Memset", 0x4A: "RegLoad", 0x4B: "RegStore", 0x4C: "RegShuffle", 0x4D: "Rng",
    0x4E: "TensorCumulativeArithOp", 0x4F: "TensorScalarPtrMultiArith",
    0x51: "TensorTensorBitvecOp", 0x52: "TensorReduceBitvecOp", 0x53: "TensorScalarBitvecOp",
    0x54: "TensorScalarPtrBitvecOp", 0x58: "MaxPoolSelect", 0x5E: "TensorCumulativeBitvecOp",
    0x5F: "TensorScalarPtrMultiBitvec", 0x60: "BatchNormStats", 0x61: "BatchNormStats2",
    0x62: "BatchNormAggregate", 0x63: "BatchNormGradAccumulate", 0x64: "BatchNormParamLoad",
    0x65: "BatchNormBackProp", 0x66: "LoadParameterRam", 0x67: "PoolBufferLoad", 0x68: "Gather",
    0x69: "LoadMaskSelect", 0x6A: "StreamShuffle", 0x6B: "StreamTranspose", 0x6C: "Max8",
    0x6D: "MatchValueLoad", 0x6E: "FindIndex8", 0x6F: "MatchReplace8",
    0x70: "TensorScalarImmLdArith", 0x71: "TensorScalarImmLdBitvec", 0x72: "CopyPredicated",
    0x73: "RoiAlign", 0x74: "TensorScalarAddr", 0x76: "Rand", 0x77: "RandGetState",
    0x78: "RandSetState", 0x79: "EmbeddingUpdate", 0x7A: "LoadPoolArgument",
    0x7B: "TensorDequantize", 0x7C: "CrossLaneReduceArith", 0x7D: "CrossLaneReduceBitvec",
    0x7E: "Iota", 0x7F: "Dropout", 0x81: "JpegDecode", 0x82: "TransposeBatchNormStats2",
    0x83: "TransposeTensorReduceArithOp", 0x84: "TransposeTensorReduceBitvecOp",
    0x85: "CustomOpHeader", 0x86: "CustomOpPayload", 0x8E: "BatchNormParamLoad2",
    0x92: "TensorScalarAffineSelect", 0x93: "TransposeTensorScalarArithOp",
    0x94: "BatchNormGradAccumulate2", 0x95: "ModifyPoolConfig", 0x96: "Sort",
    0x98: "TensorScalarSelect", 0x99: "CastPredicated", 0x9A: "TensorScalarCacheReduce",
    0x9B: "DveReadAccumulator", 0x9C: "TensorReduceRangeCheck", 0x9D: "ScalarTensorTensorArith",
    0x9E: "ScalarTensorTensorBitvec", 0x9F: "EngineNop", 0xA0: "EventSemaphore", 0xA1: "Halt",
    0xA2: "Drain", 0xA3: "InstructionFlush", 0xA4: "Nop", 0xA5: "Write", 0xA6: "Notify",
    0xA7: "Move", 0xA8: "AluOp", 0xA9: "CompareBranch", 0xAA: "TensorLoad", 0xAB: "TensorStore",
    0xB0: "EventSemaphoreRangeClear", 0xB1: "SetOrderingMode", 0xB2: "MoveShape", 0xB3: "PollSem",
    0xB4: "TestEventSem", 0xB5: "BranchPrefetchHint", 0xB7: "UcodeConfig", 0xB8: "DMAMemcpy",
    0xBB: "DmaIndirect", 0xBC: "RangeSelect", 0xBD: "DmaTranspose", 0xBE: "GetSequenceBounds",
    0xBF: "Sb2sbCollective", 0xC1: "PseudoDMATrigger", 0xC2: "PseudoDMARearm",
    0xC3: "PseudoDMABarrier", 0xC4: "PseudoDMAMemcpyFullInd", 0xC5: "PseudoSemaphoreSet",
    0xC6: "PseudoLoadActFuncSet", 0xC7: "PseudoTriggerAllReduce", 0xC8: "PseudoTriggerCollective",
    0xC9: "PseudoReadVarAddr", 0xCA: "PseudoEmbeddingUpdate", 0xCB: "PseudoSendRecv",
    0xCC: "PseudoBranchLabel", 0xCD: "PseudoTensorStore", 0xCE: "PseudoTensorLoad",
    0xCF: "PseudoDMASwapQueueSet", 0xD0: "PseudoSetRngSeed", 0xD1: "PseudoFunctionBegin",
    0xD2: "PseudoFunctionReturn", 0xD3: "PseudoFunctionCall", 0xD4: "PseudoDmaDirect2d",
    0xD5: "PseudoSyncBarrier", 0xD6: "PseudoRangeCheck", 0xD7: "PseudoJpegDecode",
    0xD8: "PseudoCoreBarrier", 0xD9: "PseudoTriggerCollective2", 0xDA: "PseudoExtension",
    0xDB: "PseudoCurProcessingRankID", 0xDC: "PseudoGidLoad", 0xDD: "PseudoBranchPrefetchHint",
    0xDE: "PseudoTensorCompletion", 0xDF: "PseudoInst", 0xE0: "SparsityCompress",
    0xE1: "SparsityCompressTag", 0xE2: "Rand2", 0xE3: "QuantizeMX", 0xE4: "ConvLutLoad",
    0xE5: "TensorTensorScanArith", 0xE6: "TensorScalarCacheCumulative", 0xE7: "IndirectCopy",
    0xE8: "CopyPredicatedScalar", 0xE9: "DveReadIndices", 0xEA: "SelectReduce", 0xEB: "Hint",
    0xF0: "ExtendedInst", 0xF1: "DmaGatherTranspose", 0xF2: "NonzeroWithCount", 0xFF: "Invalid",
}


def opcode_name(byte: int) -> str:
    """The best name for an opcode byte: tongasm's mnemonic, else the ISA's, else RESERVED."""
    op = OPCODES.get(byte)
    if op is not None:
        return op.mnemonic
    return ISA_OPCODE_NAMES.get(byte, "RESERVED")

