"""Decisions of the PE (matmul) family found on the real-NEFF corpus (R-28): what the bytes of the
Ldweights/Matmul control band mean where the book's reading is contradicted.

The geometry (R-13), stationary pattern (R-10), psum flags (R-11) and transpose (R-12) decisions of
the same opcodes are in :mod:`.real`, where the chapter that first read them put them.
"""

from __future__ import annotations

from .base import Decision, Reading


class PeFp32Mode(Decision):
    id = "R-28"
    subject = "PE +0x21 (0x01 Ldweights, 0x02 Matmul): the fp32 pass mode"
    reason = ("the vendor profiler prints +0x21 as fp32_mode: LOW (1) and HIGH (2) on Ldweights, LOW_HIGH (3) on "
              "Matmul, nothing for 0 (attention-trn2 listings). Over the corpus +0x21 is non-zero exactly on the fp32 "
              "(wire 0x0A) bundles: Ldweights LOW 28,384 / HIGH 28,160, Matmul LOW_HIGH 40,883 / HIGH 15,670 (HIGH on "
              "Matmul only in sunda 2.14), and 0 on all 663,391 bf16 and 1-byte ones, on both targets and both "
              "compiler versions. The book reads it as a perf/opcode-variant byte (0 default, 2 load-weights perf, "
              "3 perf/transpose, 0x80 CoreV2 fp32): 0x80 never occurs and 2/3 occur only with fp32 inputs, "
              "transposes or not")
    FP32_MODE = Reading("fp32-mode", "an enum: 0 none, 1 LOW, 2 HIGH, 3 LOW_HIGH (the profiler's names); the text "
                                     "writes fp32=low|high|low_high")
    BOOK_PERF = Reading("book-perf", "the book: a raw perf/opcode-variant byte (0 default, 2 load-weights perf, 3 "
                                     "perf/transpose, 0x80 CoreV2 fp32), shown as a number")

    NAMES = {0: "none", 1: "low", 2: "high", 3: "low_high"}

    @property
    def named(self) -> bool:
        """Whether +0x21 decodes to the fp32-mode names (else a plain byte)."""
        return self.reading is self.FP32_MODE


__all__ = ["PeFp32Mode"]
