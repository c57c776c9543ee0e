"""Decisions of the SP register-lane family found on the real-NEFF corpus (R-31): where the real
RegisterAlu bundles put their operands, against SPEC D-7's inferred roles.
"""

from __future__ import annotations

from .base import Decision, Reading


class RegisterAluImmediateForm(Decision):
    id = "R-31"
    subject = "RegisterAlu (0xA8) immediate path: the src1 register byte and +0x0F"
    reason = ("all 2,704 corpus RegisterAlus (cayman 2.23, Pool, moe-trn2: r61 = r31 op 2, r60 = r31 op 2, r61 = r60 op "
              "0x100000, feeding the offset register 0xBD of the DGE DMA that follows) take the immediate path "
              "(+0x0E = 1) with dst at +0x10, src1 at +0x14 (0x1F, 0x3C, 0x3D), the immediate at +0x18 and +0x11..+0x13 "
              "zero; +0x0D is wire(src1) = uint32 (9) and +0x0F is 0 in every one, which no wire dtype is. SPEC D-7 "
              "(inferred from the dumper's view, no real bundle) puts src1 at +0x11 and the dst dtype at +0x0F. The "
              "register path (+0x0E = 0) and the 64-bit forms are not in the corpus and keep D-7")
    SRC1_AT_14 = Reading("src1-at-0x14", "immediate path: dst +0x10, src1 +0x14, immediate +0x18, +0x0D wire(src1 "
                                         "dtype), +0x0F zero (every corpus bundle)")
    SPEC = Reading("spec", "SPEC D-7: src1 +0x11, +0x0F wire(dst dtype) on the immediate path")

    @property
    def src1_at_14(self) -> bool:
        return self.reading is self.SRC1_AT_14


__all__ = ["RegisterAluImmediateForm"]
