"""Decisions of the tensor family (TensorTensor 0x41/0x51/0x8A/0x8E and the predicated copies
0x72/0x99) read from the real NEFFs (R-7, R-8): which operand each descriptor slot holds, where the
book's order is refuted by the bytes (neff-and-real-opcodes.md §3).
"""

from __future__ import annotations

from .base import Decision, Reading


class TensorTensorSlots(Decision):
    id = "R-7"
    subject = "TensorTensor slots (0x41/0x51/0x8A/0x8E): which operand is at +0x10, +0x20, +0x30"
    reason = ("matmul_large's 1,024 0x41 add bundles name a PSUM bank at +0x10 and the same SBUF accumulator at "
              "+0x20 and +0x30; a Memset zeroes the accumulator first, casts read it after, and the compiler "
              "orders the casts after the TTs as after writers: +0x10 is an input (the book's out reading leaves "
              "the output at zero). Which input is in0, and whether out is +0x20 or +0x30, the bytes cannot "
              "tell (chapter §3)")
    IN0_IN1_OUT = Reading("in0-in1-out", "in0 +0x10, in1 +0x20, out +0x30; +0x0C lo nibble in0, hi nibble in1, "
                                         "+0x0D out, +0x0F in0's partition count (default)")
    IN0_OUT_IN1 = Reading("in0-out-in1", "in0 +0x10, out +0x20, in1 +0x30 (same bytes for every real bundle)")
    IN1_IN0_OUT = Reading("in1-in0-out", "in1 +0x10, in0 +0x20, out +0x30 (inputs swapped: lo nibble and the "
                                         "partition count follow +0x10)")
    OUT_IN0_IN1 = Reading("out-in0-in1", "the book's out +0x10, in0 +0x20, in1 +0x30 (refuted by the real bytes)")

    def offsets(self) -> dict[str, int]:
        """Slot offset of each operand role (in0, in1, out)."""
        order = {self.IN0_IN1_OUT: ("in0", "in1", "out"), self.IN0_OUT_IN1: ("in0", "out", "in1"),
                 self.IN1_IN0_OUT: ("in1", "in0", "out"), self.OUT_IN0_IN1: ("out", "in0", "in1")}[self.reading]
        return {role: 0x10 + 0x10 * k for k, role in enumerate(order)}

    @property
    def first_input(self) -> str:
        """The input whose dtype is the low nibble of +0x0C and whose partition count is +0x0F."""
        return "in1" if self.reading is self.IN1_IN0_OUT else "in0"


class CopyPredicatedSlots(Decision):
    id = "R-8"
    subject = "CopyPredicated/CastPredicated slots (0x72/0x99)"
    reason = ("no real bundle of 0x72/0x99 exists; the book's dst/src/mask order comes from the same encoder page "
              "whose TensorTensor order the real bytes refute, and by the band's own logic (low nibble and +0x0F "
              "belong to the +0x10 operand) mask comes first (chapter §3.5). 0xE8 and 0xEA keep SPEC.md's layout")
    MASK_SRC_DST = Reading("mask-src-dst", "mask +0x10, src +0x20, dst +0x30 (default)")
    DST_SRC_MASK = Reading("dst-src-mask", "the book's dst +0x10, src +0x20, mask +0x30 (SPEC.md §4.5 as written)")
    SRC_MASK_DST = Reading("src-mask-dst", "src +0x10, mask +0x20, dst +0x30")

    def offsets(self) -> dict[str, int]:
        """Slot offset of each operand role (mask, src, dst)."""
        order = {self.MASK_SRC_DST: ("mask", "src", "dst"), self.DST_SRC_MASK: ("dst", "src", "mask"),
                 self.SRC_MASK_DST: ("src", "mask", "dst")}[self.reading]
        return {role: 0x10 + 0x10 * k for k, role in enumerate(order)}
