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


class DmaBlockCompletion(Decision):
    id = "R-90"
    subject = ("PseudoDMATrigger 0xC1: what a fired descriptor block moves and which semaphore its completion "
               "signals (the engine sidecar's dma blocks)")
    reason = ("an engine's sidecar (<E>.json) lists its blocks by queue and id with a 'semaphore' and descriptors "
              "(from/to variable, offset, sizes, steps, dtypes); in the first 12 yolox NEFFs, on 97 of the 115 "
              "semaphores the blocks signal the largest wait is 16 x the triggers of those blocks (the other 18: "
              "16 x (triggers - 1), the last DMA awaited by none), as R-15's 0x10 on 0xD4. Descriptor offsets are "
              "bytes (SB: partition << 18 | byte, the engines' operands at the same place); DRAM steps are "
              "elements (input0 [20, 120] steps [1, 20] of a 120 x 20 array); an SB step that is a multiple of "
              "0x40000 moves partitions")
    ADD_16 = Reading("add-16", "each trigger of a block adds 16 to the block's semaphore when the whole block has "
                               "moved; descriptor steps are elements, an SB step of k x 0x40000 is k partitions")

    INCREMENT = 16


class RaceSources(Decision):
    id = "S-90"
    subject = "the race check: which updates can raise a semaphore, and its value before the first"
    reason = ("a wait orders a bundle after an update only when every way of reaching its count needs that "
              "update, so every source must be known: the engines' sync updates, 0xD4 completions (R-15) and "
              "0xC1 block completions (R-90). The indirect DMA 0xC4 names its semaphore in no field tongasm "
              "reads; the simulator starts every semaphore at 0")
    KNOWN = Reading("known", "semaphores start at 0 and are raised only by the known sources; a DMA whose "
                             "completion semaphore is unknown (0xC4) is listed as unanalysed, not assumed to "
                             "raise any semaphore")
    STRICT = Reading("strict", "as known, but a graph holding a DMA with an unknown completion semaphore proves "
                               "no wait at all (it might raise any semaphore)")

    @property
    def strict(self) -> bool:
        return self.reading is self.STRICT


__all__ = ["DmaBlockCompletion", "ExtensionForm", "RaceSources", "RangeCheckOperands"]
