"""Decisions of the reduce family: the chapter's TensorReduce pairing, axis byte and op gate (N-12..N-14),
Iota (N-22), the cross-lane mean (N-23), Pool packing (N-24), the BNStats partition byte (N-39), and what
the real bytes settled (R-60: opcode 0x8C)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..enums import AluOp
from ..opcodes import CROSS_ARITH, CROSS_BITVEC, TR_ARITH, TR_BITVEC, TR_T_ARITH, TR_T_BITVEC, Op
from ..vector_enums import NKI_REDUCE_OPS
from .base import Decision, Reading

if TYPE_CHECKING:
    from .spec import FreeDimOrder


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


class ReduceOpcodePairing(Decision):
    id = "N-12"
    subject = "which TensorReduce opcodes carry the free-axis field block"
    reason = ("ENUM names 0x42/0x52 TensorReduce*, 0x7C/0x7D CrossLaneReduce*, 0x83/0x84 TransposeTensorReduce*; the "
              "NEFF's gen3 DVE table enables 0x42/0x52/0x83/0x84 (0x83/0x84 = 0x42's row + slow program 4) and not "
              "0x7C/0x7D; PENG/MASTER pair them the other way by arithmetic on register contents (contradiction 7)")
    FREE_0X42 = Reading("free-0x42", "free axis: 0x42 arith / 0x52 bitvec, 0x83 / 0x84 with apply_transpose; "
                                     "cross-lane: 0x7C / 0x7D")
    BOOK_LITERAL = Reading("book-literal", "the book's pairing: free axis 0x7C arith / 0x7D bitvec (no transpose "
                                           "form); cross-lane 0x42 / 0x52")

    def free_axis(self, bitvec: bool, transpose: bool) -> Op | None:
        """The free-axis opcode (None: apply_transpose has no opcode under this reading)."""
        if self.reading is self.BOOK_LITERAL:
            return None if transpose else (CROSS_BITVEC if bitvec else CROSS_ARITH)
        if transpose:
            return TR_T_BITVEC if bitvec else TR_T_ARITH
        return TR_BITVEC if bitvec else TR_ARITH

    def free_axis_opcodes(self) -> tuple[Op, ...]:
        if self.reading is self.BOOK_LITERAL:
            return (CROSS_ARITH, CROSS_BITVEC)
        return (TR_ARITH, TR_BITVEC, TR_T_ARITH, TR_T_BITVEC)

    def cross_lane(self, bitvec: bool) -> Op:
        """The cross-lane (partition) reduce opcode."""
        if self.reading is self.BOOK_LITERAL:
            return TR_BITVEC if bitvec else TR_ARITH
        return CROSS_BITVEC if bitvec else CROSS_ARITH

    def cross_lane_opcodes(self) -> tuple[Op, ...]:
        return (TR_ARITH, TR_BITVEC) if self.reading is self.BOOK_LITERAL else (CROSS_ARITH, CROSS_BITVEC)


class ReduceAxisByte(Decision):
    id = "N-13"
    subject = "TensorReduce axis byte (+0x25) versus the num == 1 pairs D-6 drops"
    reason = ("PENG 'reduce-count = AxisListType value + 1', sub_120EAB0 axis + 2; D-6 drops num == 1 pairs before "
              "packing, so the wire byte must count the reduced pairs that remain")
    COUNT_PACKED = Reading("count-packed", "+0x25 = 1 + the number of reduced pairs with num > 1 (= axis + 2 when "
                                           "none is degenerate); reducing only size-1 dims is refused")
    NO_DROPPING = Reading("no-dropping", "TensorReduce inputs keep their num == 1 pairs; +0x25 = axis + 2")

    @property
    def drops_degenerate(self) -> bool:
        return self.reading is self.COUNT_PACKED


class ReduceOpGate(Decision):
    id = "N-14"
    subject = "which ALU ops TensorReduce accepts"
    reason = "NKI 'Legal Reduction' column; PENG 'average(24) / elemwise_mul(25) → ERR'"
    NKI_SET = Reading("nki-set", "add, subtract, mult, max, min, bitwise and/or/xor, logical and/or/xor")
    ALU_LUT = Reading("alu-lut", "every op the ALU LUT maps")

    def allows(self, op: AluOp) -> bool:
        return self.reading is self.ALU_LUT or op in NKI_REDUCE_OPS


class IotaBand(Decision):
    id = "N-22"
    subject = "Iota 0x7E: the generation pattern in the source descriptor band"
    reason = ("POOL (C): '+0x10 src dim0 sentinel = 1', '+0x18 src dim sentinel = 1', out dtype +0x21, lanes +0x22, "
              "channel_multiplier +0x24; the real bytes settle the band (16 bundles, 11 distinct, 6 yolox-trn1 "
              "NEFFs, sunda, neuronx-cc 2.14): slot 0 carries the innermost pattern pair (step 5 count 16, step 1 "
              "count 9: not the {1,1} sentinel in 7 of 11 distinct bundles), base at +0x0C takes 0..4 (5 bundles "
              "that differ only in base and dst), and the pattern's element count equals the dst's in all 11; "
              "only slot0-pattern decodes all 16 with no finding (base-slot0-fixed: 22 findings, its slot-0 constants "
              "broken; no-base: 30; off: all 16 undecoded)")
    SLOT0_PATTERN = Reading("slot0-pattern", "base at +0x0C; 4 pattern slots from slot 0 (the book's '= 1' stores "
                                             "are defaults later overwritten)")
    BASE_SLOT0_FIXED = Reading("base-slot0-fixed", "base (int32) at +0x0C; slot 0 is {1,1} (the two C stores); "
                                                   "3 pattern slots, innermost first")
    NO_BASE = Reading("no-base", "as base-slot0-fixed, but +0x0C is not written: base must be 0")
    OFF = Reading("off", "Iota is refused (the chapter's draft: experimental)")

    @property
    def enabled(self) -> bool:
        return self.reading is not self.OFF

    @property
    def first_slot(self) -> int:
        """The first pattern slot (slot 0 is the {1,1} sentinel unless N-22=slot0-pattern)."""
        return 0 if self.reading is self.SLOT0_PATTERN else 1

    @property
    def has_base(self) -> bool:
        return self.reading is not self.NO_BASE


class CrossLaneMean(Decision):
    id = "N-23"
    subject = "cross-lane average: the 1/N word at +0x28"
    reason = "PENG: '1.0f / (in.Pattern[?].num * getNumElementsPerPartition(in))' (the '?' is the book's)"
    BY_AXIS = Reading("by-axis", "C: 1/P; XYZWC: 1/(P x elements per partition)")
    ALWAYS_ALL = Reading("all-elements", "always 1/(P x elements per partition)")

    def count(self, partitions: int, elements: int, whole: bool) -> int:
        return partitions * elements if whole or self.reading is self.ALWAYS_ALL else partitions


class PoolPacking(Decision):
    id = "N-24"
    subject = "Pool 0x45 input packing"
    reason = "POOL/PENG: the window is Pattern[3] x Pattern[4]; Avg asserts in0.size() == 5"
    FIXED = Reading("no-dropping", "the input keeps its num == 1 pairs (the window stays in the two innermost "
                                   "slots); Avg needs exactly 5 pairs, Max 3 to 5")

    @staticmethod
    def window(slots: Sequence[tuple[int, int]], order: FreeDimOrder) -> int:
        """The window size of a Pool src descriptor (its (step, num) slots, slot 0 first): the two
        innermost free dims. Under D-6=outermost-first the trailing {1,1} slots are the fill."""
        pairs = list(slots)
        if not order.innermost_first:
            while len(pairs) > 2 and pairs[-1] == (1, 1):
                pairs.pop()
        dims = order.from_slots(pairs)
        return dims[-1][1] * dims[-2][1]


class BnStatsPartitionByte(Decision):
    id = "N-39"
    subject = "BNStats / BNStatsAggregate +0x22"
    reason = ("BN calls it the BASE partition, but its accessor *(*(arg0+0x50)+8) is the one ACT/TS call "
              "num_active_channels and POOL the lane count (§15.6, verification)")
    LANE_COUNT = Reading("lane-count", "the input's partition count (as every other Family C op)")
    START_PARTITION = Reading("start-partition", "the input's start partition")

    @property
    def is_count(self) -> bool:
        return self.reading is self.LANE_COUNT
