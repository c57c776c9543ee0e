"""Checks of the scalar family: TensorScalarPtr, TensorScalar, TensorScalarCache and ScalarTensorTensor
(bundle checks on the decoded fields, IR checks on the BIR instruction, the ids of the encoder refusals,
the vector forms ``check_stream`` runs).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir.instructions import Instruction
from ..ir.scalar import ScalarTensorTensor, TensorScalar, TensorScalarCache, TensorScalarPtr, is_scalar_tensor_tensor
from ..isa.enums import ALU_FROM_WIRE, ALU_WIRE, AluClass, AluOp
from ..isa.opcodes import (
    STT_BITVEC,
    TS_BITVEC,
    TS_CACHE_CUMULATIVE,
    TS_CACHE_REDUCE,
    TS_PTR_BITVEC,
)
from ..isa.vector_enums import REDUCE_IDENTITY
from ..passes.lower_compound import is_lowered_part
from .bundle_checks import BundleView, bundle_check
from .ir_checks import ir_check
from .operands import equal_elements, equal_partitions, finding, pointer_shape, unknown_kind
from .registry import Finding, register_refusals
from .vectorized import by_classes, vector

# --- encoder refusals (the scalar family's; the codegen raises these ids) ---

_ENCODE = [
    ("ts.operands", "a TensorScalarPtr has 2 or 3 ins (NumArgs == 2 || NumArgs == 3), a second scalar for op1 and "
     "negate_second_output only with two outputs", "chapter §4.1"),
    ("ts.unsupported", "a TensorScalarAddr (0x74, is_tensor_scalar_addr) runs on the Pool engine over integer operands",
     "R-70, chapter §4.5"),
    ("stt.operands", "a ScalarTensorTensor has ins = [tensor0 (an AP), scalar, tensor1] ('ScalarTensorTensor must "
     "have 3 inputs') and one output", "chapter §4.4 (TS)"),
    ("stt.tensor1", "the ScalarTensorTensor tensor1 is an access pattern ('ScalarTensorTensor's 3rd argument must be "
     "AP')", "chapter §4.4 (TS)"),
    ("stt.unsupported", "no ScalarTensorTensor transpose or accumulator command (fused form)", "chapter §4.4 (TS)"),
    ("stt.op_class", "ScalarTensorTensor op0 and op1 of one class (N-15); the scan 0xE5 takes arithmetic ops",
     "N-15, chapter §4.4 (NKI)"),
    ("stt.scalar", "the ScalarTensorTensor scalar is encodable: not packed; bit-vector immediates integers at least "
     "as wide as tensor0, bit-vector pointers of tensor0's dtype; under N-21=one-byte-scalar an immediate whose bits "
     "fit one byte", "N-21, N-33, S-37"),
    ("stt.engine", "ScalarTensorTensor runs on the Vector engine (DVE)", "chapter §4.4 (TS, NKI)"),
    ("stt.psum", "ScalarTensorTensor tensor0 and tensor1 are not both in PSUM", "chapter §4.4 (NKI)"),
    ("ts.op_class", "op0 and op1 are both arithmetic or both bit-vector", "N-15"),
    ("ts.transpose", "no apply_transpose with a bit-vector op", "chapter §4.1 (TS)"),
    ("ts.fused", "the fused reduce folds with add/subtract/mult/max/min and has an init exactly with LoadAccumulate",
     "N-19"),
    ("ts.scalar_kind", "only pointer scalars under N-3=pointer-only", "N-3"),
    ("ts.scalar_dtype", "arithmetic scalars are float32; bit-vector immediates integers at least as wide as the "
     "data; bit-vector pointers of the data's dtype", "N-33, S-26"),
    ("ts.reduce_idle", "two outputs need an accumulating acc ('Reduce Accum result is not outputed')", "N-18"),
    ("ts.cache", "TensorScalarCache: DVE only, a known TSCMode, an accumulator command, s1 only with "
     "LoadAccumulate", "chapter §4.3 (TS)"),
]
register_refusals(_ENCODE)


_TS_BITVEC = frozenset({TS_BITVEC.byte, TS_PTR_BITVEC.byte})


_BYPASS = ALU_WIRE[AluOp.bypass][0]


@bundle_check("ts.opcode_class", "TensorScalar ops match the opcode: bit-vector ops on 0x53/0x54, arithmetic ones "
              "elsewhere (op1 bypass or the same class)", "N-15")
def _ts_class(b: BundleView) -> Iterator[Finding]:
    return _op_class("ts.opcode_class", b, b.opcode in _TS_BITVEC)


def _op_class(check: str, b: BundleView, bitvec: bool) -> Iterator[Finding]:
    """op0/op1 of the class the opcode takes (bit-vector or arithmetic; op1 may bypass), N-15."""
    for name in ("op0", "op1"):
        op = ALU_FROM_WIRE.get(b.fields[name])
        if op is None or op not in ALU_WIRE or (name == "op1" and b.fields[name] == _BYPASS):
            continue
        if (ALU_WIRE[op][1] is AluClass.BITVEC) != bitvec:
            want = "a bit-vector op" if bitvec else "an arithmetic op"
            yield finding(check, f"{op.name} on opcode {b.opcode:#04x}, which takes {want}", name, b.fields[name], want)


@bundle_check("ts.scalar_kinds", "the TensorScalar scalar kind bytes hold known codes (N-2)", "chapter §1.3, N-2")
def _ts_kinds(b: BundleView) -> Iterator[Finding]:
    if unknown_kind(b, "s0_kind"):
        yield finding("ts.scalar_kinds", "unknown scalar kind code", "s0_kind", b.fields["s0_kind"], "0, 1, 2")
    if unknown_kind(b, "s1_kind"):
        yield finding("ts.scalar_kinds", "unknown scalar kind code", "s1_kind", b.fields["s1_kind"], "0, 1, 2")


@bundle_check("ts.fused", "the accumulator command is Idle except on the fused reduce 0x9A and the scan 0xE6, whose "
              "op1 is a reduce op", "chapter §4.1, §4.3, N-19")
def _ts_fused(b: BundleView) -> Iterator[Finding]:
    fused = b.opcode in (TS_CACHE_REDUCE.byte, TS_CACHE_CUMULATIVE.byte)
    if not fused and b.fields["acc"]:
        yield finding("ts.fused", "an accumulator command on a TensorScalar other than 0x9A", "acc", b.fields["acc"], "0")
    if fused:
        op = ALU_FROM_WIRE.get(b.fields["op1"])
        if op not in REDUCE_IDENTITY:
            yield finding("ts.fused", f"{b.opcode:#04x} folds with op1: add, subtract, mult, max or min", "op1",
                     b.fields["op1"], "add, subtract, mult, max, min")
        if not b.fields["acc"]:
            yield finding("ts.fused", f"{b.opcode:#04x} without an accumulator command", "acc", 0, "1..4")


_TS = (TensorScalarPtr, TensorScalar, TensorScalarCache)


def _plain_ts(inst: Instruction) -> bool:
    """A TensorScalar instruction the ts.* IR checks apply to: not a lowered part, and not the
    ScalarTensorTensor form (its operands are checked as the ScalarTensorTensor it lowers to)."""
    return not is_lowered_part(inst) and not is_scalar_tensor_tensor(inst)


@ir_check("ts.equal_partitions", "TensorScalar data, dst and reduce_res have equal partition counts", "N-34", _TS)
def _ts_partitions(inst: Instruction) -> Iterator[Finding]:
    if _plain_ts(inst):
        yield from equal_partitions("ts.equal_partitions", ("data", "dst", "reduce_res"))(inst)


@ir_check("ts.equal_elements", "TensorScalar data and dst have equal element counts per partition", "chapter §4.1",
          _TS)
def _ts_elements(inst: Instruction) -> Iterator[Finding]:
    if _plain_ts(inst):
        yield from equal_elements("ts.equal_elements", ("data", "dst"))(inst)


_ts_pointers = pointer_shape("ts.pointer_shape", "data", (("s0", 1), ("s1", 2)))


@ir_check("ts.pointer_shape", "a TensorScalar pointer scalar is [P,1] over the data's partitions", "N-6, N-34",
          (TensorScalarPtr, TensorScalarCache), offsets=True)
def _ts_pointer_shape(inst: Instruction) -> Iterator[Finding]:
    if not is_scalar_tensor_tensor(inst):
        yield from _ts_pointers(inst)


@bundle_check("stt.opcode_class", "ScalarTensorTensor ops match the opcode: bit-vector ops on 0x9E, arithmetic ones "
              "on 0x9D and the scan 0xE5 (op1 bypass or the same class)", "N-15, chapter §4.4")
def _stt_class(b: BundleView) -> Iterator[Finding]:
    return _op_class("stt.opcode_class", b, b.opcode == STT_BITVEC.byte)


@bundle_check("stt.scalar_kind", "the ScalarTensorTensor scalar kind byte holds a known code (N-2, N-21)",
              "chapter §1.3, N-2, N-21")
def _stt_kind(b: BundleView) -> Iterator[Finding]:
    if "scalar_kind" in b.fields and unknown_kind(b, "scalar_kind"):
        yield finding("stt.scalar_kind", "unknown scalar kind code", "scalar_kind", b.fields["scalar_kind"], "0, 1, 2")


@bundle_check("stt.acc", "no accumulator command on a ScalarTensorTensor: the book allows the fused form, but not "
              "what it folds (tongasm neither encodes nor simulates it; pedantic)", "chapter §4.4 (TS)", pedantic=True)
def _stt_acc(b: BundleView) -> Iterator[Finding]:
    if b.fields["acc"]:
        yield finding("stt.acc", f"accumulator command on {b.opcode:#04x}: its reduce is not documented (not simulated)",
                 "acc", b.fields["acc"], "0 (Idle)")


ir_check("stt.equal_partitions", "ScalarTensorTensor tensor0, tensor1 and out have equal partition counts", "N-34 "
         "(NKI: 'The partition dimension size of input data, operand1, and output dst tiles must be the same')",
         (ScalarTensorTensor,))(equal_partitions("stt.equal_partitions", ("tensor0", "tensor1", "out")))


ir_check("stt.pointer_shape", "a ScalarTensorTensor pointer scalar is [P,1] over tensor0's partitions (0xE5: the "
         "scan's initial tile)", "N-6, N-34", (ScalarTensorTensor,), offsets=True)(
    pointer_shape("stt.pointer_shape", "tensor0", (("scalar", 1),)))


vector("ts.opcode_class")(by_classes(_ts_class, "op0", "op1"))


vector("ts.scalar_kinds")(by_classes(_ts_kinds, "s0_kind", "s1_kind"))


vector("ts.fused")(by_classes(_ts_fused, "acc", "op1"))


vector("stt.opcode_class")(by_classes(_stt_class, "op0", "op1"))


vector("stt.scalar_kind")(by_classes(_stt_kind, "scalar_kind"))


vector("stt.acc")(by_classes(_stt_acc, "acc"))
