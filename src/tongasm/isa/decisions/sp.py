"""Decisions of the SP register-lane family found on the real-NEFF corpus (R-31): where the real
RegisterAlu bundles put their operands, against SPEC D-7's inferred roles, and which of its two register
bytes is read and which written (R-103).
"""

from __future__ import annotations

from .base import Decision, Reading


class RegisterAluImmediateForm(Decision):
    id = "R-31"
    subject = "RegisterAlu (0xA8) immediate path: the src1 register byte and +0x0F"
    reason = ("all 2,704 corpus RegisterAlus (cayman 2.23, Pool, moe-trn2: chains such as r61 = r60 * 0x100000, "
              "r31 = r61 * 2, feeding the address register of the DGE DMA that follows) take the immediate path "
              "(+0x0E = 1) with its registers at +0x10 and +0x14 (0x1F, 0x3C, 0x3D; which is read and which "
              "written is R-103), the immediate at +0x18 and +0x11..+0x13 "
              "zero; +0x0D is wire(src1) = uint32 (9) and +0x0F is 0 in every one, which no wire dtype is. SPEC D-7 "
              "(inferred from the dumper's view, no real bundle) puts src1 at +0x11 and the dst dtype at +0x0F. The "
              "register path (+0x0E = 0) and the 64-bit forms are not in the corpus and keep D-7")
    SRC1_AT_14 = Reading("src1-at-0x14", "immediate path: registers at +0x10 and +0x14 (roles: R-103), immediate "
                                         "+0x18, +0x0D wire(src1 dtype), +0x0F zero (every corpus bundle)")
    SPEC = Reading("spec", "SPEC D-7: src1 +0x11, +0x0F wire(dst dtype) on the immediate path")

    @property
    def src1_at_14(self) -> bool:
        return self.reading is self.SRC1_AT_14


class RegisterAluImmediateRoles(Decision):
    id = "R-103"
    subject = "RegisterAlu (0xA8) immediate path (R-31's bytes): which of +0x10 / +0x14 is read and which written"
    reason = ("the dataflow of all 2,704 corpus RegisterAlus (moe-trn2 Pool, 912 chains of 2-4 before each DGE "
              "register-mode DMA): in all 912 the chain starts right after a PseudoTensorLoad whose data register "
              "(the expert index it loads from SBUF) is the first RegisterAlu's +0x10; each later RegisterAlu's "
              "+0x10 is the previous one's +0x14; the last one's +0x14 is 31, the register the DMA's address word "
              "names (R-104). Read as +0x10 = source, +0x14 = destination the chains compute the kernels' byte "
              "offsets, 2 * (expert * 1048576 + h * 65536) for gate_up_weights [E, 2048, 512] bf16 and "
              "2 * (expert * 524288 + i * 262144) for down_weights [E, 256, 2048] (nki-moe-megakernel v6b: "
              ".ap(offset=..., scalar_offset=expert, indirect_dim=0)); read as R-31 first had it (+0x10 = dst) "
              "every chain's first RegisterAlu overwrites the value just loaded and r31 is never written")
    SOURCE_AT_10 = Reading("source-at-0x10", "immediate path: +0x10 is src1 (read), +0x14 is dst (written): "
                                             "dst = src1 op imm (every corpus chain)")
    DST_AT_10 = Reading("dst-at-0x10", "immediate path: +0x10 is dst, +0x14 src1 (R-31's first reading; "
                                       "contradicted by the 912 chains)")

    @property
    def source_at_10(self) -> bool:
        return self.reading is self.SOURCE_AT_10


__all__ = ["RegisterAluImmediateForm", "RegisterAluImmediateRoles"]
