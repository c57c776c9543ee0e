"""The opcode bytes of the next families (``next-families.md``), declared once as named
:class:`~tongasm.isa.opcodes.Op` constants: codegen, checks, decisions and the simulator refer to
these, never to the numbers. Confidence as in the chapter's byte maps (§3-§7)."""

from __future__ import annotations

from .fields import Conf
from .opcodes import op

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
