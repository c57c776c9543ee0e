"""Decisions of the DMA family found on the real-NEFF corpus (R-29, R-30): the byte maps of
PseudoRangeCheck 0xD6 and PseudoExtension 0xDA, which the book leaves incomplete (R-25) and the
corpus's Pool streams exercise.

The 0xD4 decisions (R-14..R-17, R-22, R-23) are in :mod:`.real`, where the chapter that first read
them put them.
"""

from __future__ import annotations

from .base import Decision, Reading


class RangeCheckOperands(Decision):
    id = "R-29"
    subject = "PseudoRangeCheck 0xD6: the operands at +0x0C, +0x18 and +0x34"
    reason = ("all 234 corpus bundles (sunda 2.14, Pool, 26 files) hold a TENSOR2D at +0x0C and one at +0x34 (an "
              "SBUF ADDR4 word, partitions 0/32/64/96, then steps 1, 1 and counts 1, 1), and at +0x18 an SBUF "
              "ADDR4 word (4-byte aligned bytes of partitions 0, 32 and 96: 0x50 ... 0x180c8e0), not the book's "
              "bound_result_reg register (ids of 80 and more, 'out of range'); +0x1C..+0x1F are zero. Their "
              "+0x28 = 0x11, +0x2A = 1 and +0x30 (the branch label, R-27) confirm the book's rows")
    SBUF_OPERANDS = Reading("sbuf-operands", "TENSOR2D operands at +0x0C and +0x34 and an SBUF address at +0x18 "
                                             "(every corpus bundle)")
    BOOK = Reading("book", "the book's partial map: a register at +0x18 and the TENSOR2D operands left unplaced "
                           "(R-25 places them under its guess reading)")

    @property
    def sbuf_operands(self) -> bool:
        return self.reading is self.SBUF_OPERANDS


class ExtensionForm(Decision):
    id = "R-30"
    subject = "PseudoExtension 0xDA: a 64-byte continuation of the DMA before it, or 0xD4's map re-tagged"
    reason = ("all 912 corpus bundles (cayman 2.23, Pool, moe-trn2) follow a 0xD4 whose src side uses the DGE "
              "register mode 0x28 (and only those 912 0xD4s do), hold 0 at +0x01 (no inst_word_len: not an "
              "instruction of its own) and are zero except +0x0F: 0x10 after a DMA of DGE-table entry 1 (640), 0x08 "
              "after entry 2 (272). The book's generateDynamicDMA re-tags a whole 0xD4 bundle as 0xDA: its header, "
              "sync band and DMA fields would not be zero")
    CONTINUATION = Reading("continuation", "+0x01 = 0, +0x0F a byte in step with the preceding DMA's DGE-table entry, "
                                           "every other byte zero (every corpus bundle)")
    BOOK = Reading("book", "the book: 0xD4's map under opcode 0xDA (inst_word_len 0x10, sync band, ADDR8 sides)")

    @property
    def continuation(self) -> bool:
        return self.reading is self.CONTINUATION


__all__ = ["ExtensionForm", "RangeCheckOperands"]
