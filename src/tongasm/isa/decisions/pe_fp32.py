"""The PE's fp32 passes: what byte +0x21 of Ldweights 0x01 and Matmul 0x02 holds (R-45).

The PE array multiplies 16-bit operands; an fp32 matmul is done in passes over a high and a low
half of each fp32 value. The compiler marks each PE bundle with the pass it is: the vendor
profiler prints ``fp32_mode=LOW``, ``HIGH`` or ``LOW_HIGH`` for +0x21 = 1, 2, 3 and prints no
``fp32_mode`` for 0 (a 16-bit or 8-bit input).
"""

from __future__ import annotations

from collections.abc import Mapping

from .base import Decision, Reading


class PeFp32Mode(Decision):
    id = "R-45"
    subject = "PE Ldweights 0x01 / Matmul 0x02 +0x21: the fp32 pass (the book's perf-mode byte)"
    reason = ("neuron-profile's listing of the attention-trn2 corpus (cayman, 2.23) prints fp32_mode=LOW for "
              "+0x21 = 1 (464 Ldweights), HIGH for 2 (236 Ldweights), LOW_HIGH for 3 (700 Matmuls) and no "
              "fp32_mode for 0 (72 bf16 bundles): all 1,472 aligned PE bundles agree. Over the whole corpus "
              "(776,488 PE bundles: sunda 2.14 and 2.23, cayman 2.23) +0x21 is 1..3 on every fp32 input (+0x20 = "
              "0x0A: 56,544 Ldweights 1 or 2, 56,553 Matmuls 2 or 3) and 0 on every other dtype (663,391 bf16 and "
              "uint8 bundles), none of the book's 0x80. The book reads the byte as a perf-mode number (0 default, 2 load-weights "
              "perf / fp32r two-pass, 3 perf/transpose, 0x80 gen2 fp32); no real bundle holds 0x80 and its 3 is "
              "on non-transpose Matmuls, so its reading is kept selectable, not default")
    FP32_PASSES = Reading("fp32-passes", "an enum: 0 none (not an fp32 input), 1 low, 2 high, 3 low_high (the pass "
                                         "of an fp32 matmul over the halves of its values), field fp32_mode")
    PERF_VARIANT = Reading("perf-variant", "book: a plain perf-mode number, field perf_variant")

    @property
    def name(self) -> str:
        """The field's name under the reading."""
        return "fp32_mode" if self.reading is self.FP32_PASSES else "perf_variant"

    def names(self) -> Mapping[int, str] | None:
        """The enum's names, or None for a plain number."""
        if self.reading is self.FP32_PASSES:
            return {0: "none", 1: "low", 2: "high", 3: "low_high"}
        return None
