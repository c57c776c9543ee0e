"""Decisions of the batch-norm backward family (BatchNormGradAccumulate 0x63, BatchNormParamLoad 0x64,
BatchNormBackProp 0x65)."""

from __future__ import annotations

from collections.abc import Mapping

from ..vector_enums import ScalarKind
from .base import Decision, Reading


class BnParamLoadKinds(Decision):
    id = "R-61"
    subject = "the codes of BatchNormParamLoad's (0x64) mean kind byte (+0x30)"
    reason = ("The book (BN) places Mean's IMM_SRC at +0x30 without its codes. All 55 real 0x64 bundles (yolox-trn1, "
              "29 distinct) hold 1 at +0x30 and, at +0x2C, an SBUF ADDR4 word (0x0002F368 is the mean pointer the "
              "graph's 0x63 holds at +0x0C) - so 1 = pointer, as the profiler's listing prints TensorScalar's codes "
              "(immediate 0, pointer 1, register 2). N-2's draft order (pointer 0, immediate 1) is contradicted by "
              "all 55")
    PROFILE = Reading("profile-codes", "0 immediate, 1 pointer, 2 register (the real bundles and the profiler listing)")
    N2_DRAFT = Reading("n2-codes", "N-2's draft: 0 pointer, 1 immediate, 2 register (contradicted by every real bundle)")

    def names(self) -> Mapping[int, str]:
        if self.reading is self.N2_DRAFT:
            return {0: ScalarKind.POINTER.value, 1: ScalarKind.IMMEDIATE.value, 2: ScalarKind.REGISTER.value}
        return {0: ScalarKind.IMMEDIATE.value, 1: ScalarKind.POINTER.value, 2: ScalarKind.REGISTER.value}

    def kind(self, code: int) -> ScalarKind | None:
        name = self.names().get(code)
        return None if name is None else ScalarKind(name)


class BnGradientOrder(Decision):
    id = "S-72"
    subject = "the order of BatchNormGradAccumulate's (0x63) three sums"
    reason = ("The book lists [sum dy, sum (x-m) dy vf, sum (x-m) dy vf^2]. In the real yolox batch-norm-grad graphs "
              "(MODULE_10954531377403532558: one 0x63, one 0x64) vf = rsqrt(var + eps) (Reciprocal, Square, Rsqrt "
              "into +0x18, the 0x63 vf pointer), the Activation engine copies the first two sums into the 0x64 "
              "coefficients [scale, A, Bc], and the BackProp formula dx = (dy N - ((x-m) Bc + A)) scale equals HLO's "
              "batch-norm-grad only with Bc = vf^2 sum (x-m) dy: the second sum carries vf^2. MODULE_12365272536577238319 "
              "outputs HLO's grad_scale (tuple element 1, sum dy (x-m) vf) by copying the third sum of its two 0x63 "
              "bundles: the third carries vf. Both graphs contradict the book's order")
    DATAFLOW = Reading("dataflow", "[sum dy, sum (x-m) dy vf^2, sum (x-m) dy vf] (what the real graphs need)")
    BOOK = Reading("book", "[sum dy, sum (x-m) dy vf, sum (x-m) dy vf^2] (the book's list)")

    def vf_powers(self) -> tuple[int, int, int]:
        """The power of vf in each of the three sums of (x - m)^k dy (k = 0 for the first)."""
        return (0, 1, 2) if self.reading is self.BOOK else (0, 2, 1)
