"""Decisions of the TensorReduce family found on real bytes (the chapter's N-12 / N-13 are in
:mod:`.families`)."""

from __future__ import annotations

from .base import Decision, Reading


class ReduceBf16Opcode(Decision):
    id = "R-60"
    subject = "what opcode 0x8C is (DVE, sunda, neuronx-cc 2.23; absent from the book's 2.24 opcode list)"
    reason = ("All 32 distinct 0x8C bundles (64 bundles, causal-attention-trn1 model_795597d1 / model_e0afb7fc, DVE) "
              "have TensorReduce 0x42's byte map byte for byte: TENSOR4D src +0x0C, TENSOR4D dst +0x2C, +0x20 in "
              "dtype, +0x21 out dtype, +0x22 partitions (128), +0x24 ALU op, +0x25 axis byte 2, the rest zero; they "
              "differ only in the input dtype: every 0x8C reads bfloat16 (op add, fp32 out, 1024 -> 1 element), every "
              "0x42 of the same files reads float32. The kernels' source (ucb-bar/autocomp diag_exp_sum.py) is "
              "nisa.tensor_reduce(op=add, data=<bf16 exp values>, axis=1) into fp32. Its neighbours 0x8A / 0x8E "
              "are unrelated (GPSIMD TensorTensor / BatchNormParamLoad2 in the opcode list)")
    TENSOR_REDUCE = Reading("tensor-reduce", "0x8C is a TensorReduce (arithmetic) of a bfloat16 input: 0x42's layout "
                                             "and meaning")
    UNKNOWN = Reading("unknown", "0x8C decodes with 0x42's layout, but the simulator stops at it (meaning not "
                                 "documented)")

    @property
    def simulated(self) -> bool:
        return self.reading is self.TENSOR_REDUCE
