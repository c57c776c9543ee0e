"""Decisions of the DMA family read from the real NEFFs: the 0xD4 DMA bundle (R-14..R-17, R-22, R-23:
sync command, completion, element order, ADDR8 modes, step words, offset registers), the byte maps of
PseudoRangeCheck 0xD6 and PseudoExtension 0xDA (R-29, R-30), and the book layouts that are
inconsistent or incomplete (R-25: 0x07, 0xCA and the book forms of 0xD6/0xDA).
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


class RangeCheckRows(Decision):
    id = "R-110"
    subject = "PseudoRangeCheck 0xD6: how many partitions its slot_a and bound_addr operands cover (R-29 places them)"
    reason = ("0xD6 has no num_partitions field; its slot dims are 1, 1 (steps and counts) in all 234 corpus bundles "
              "(26 yolox-trn1 files). In all 234 the 0xC4 after it reads its index rows at slot_a (indirect_start_"
              "offset = slot_a.addr) and idx_meta is that 0xC4's row count indirect_num_elems1 (1 .. 128: 27 bundles "
              "of 1 row, 128 of 128), a row a partition (engine_config 0x40000): slot_a is the [idx_meta, 1] column "
              "of uint64 addresses the 0xC4 then moves by, and bound_addr the column of base addresses it is checked "
              "against (R-101, S-101). Read as every partition from the first, yolox MODULE_5809157664872167249's "
              "bundle 10 (slot_a partition 32 byte 0x14d78, idx_meta 1; its 0xC4 11 reads one row) reads partitions "
              "32..127, and ACT's Activate 5041 writing partition 64 bytes 0x14d70..0x14eb0 was reported as an "
              "unordered pair; with idx_meta rows none. slot_b's extent is not known (the simulator does not read it; "
              "149 of the 234 are 8 bytes past slot_a): it stays every partition from its first")
    INDEX_ROWS = Reading("index-rows", "slot_a and bound_addr cover idx_meta partitions from their first, 8 bytes "
                                       "each (every corpus bundle's 0xC4 reads idx_meta rows at slot_a); slot_b "
                                       "every partition from its first")
    FROM_FIRST = Reading("from-first", "every operand covers every partition from its first (no count field), "
                                       "bound_addr is not read")

    @property
    def index_rows(self) -> bool:
        return self.reading is self.INDEX_ROWS


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


class DmaSyncCommand(Decision):
    id = "R-14"
    subject = "DMA (0xD4) +0x0C QoS and +0x0F sync_command"
    reason = "both 0 in all 8,778 real DMAs; the book's worked example writes sync_command 3 (COPY)"
    ZERO = Reading("zero", "QoS 0 and sync_command 0 (every real DMA)")
    BOOK_COPY = Reading("book-copy", "the book: sync_command 3 (COPY) at +0x0F")

    def sync_command(self) -> int:
        return 3 if self.reading is self.BOOK_COPY else 0


class DmaCompletion(Decision):
    id = "R-15"
    subject = "DMA (0xD4) +0x0D completion semaphore and +0x0E increment"
    reason = ("+0x0E is 0x10 in all 8,778 real DMAs and all 17,480 waits on queue semaphores are multiples of 16; "
              "whether the 16 is added once at the end or in 16 parts of 1 the bytes cannot tell")
    ONCE = Reading("once", "the increment is added once, when the whole DMA has completed")
    PARTS = Reading("parts", "the DMA completes in +0x0E parts, each adding 1")

    DEFAULT_INCREMENT = 16

    def increments(self, inc: int) -> list[int]:
        """The additions to the completion semaphore, in order."""
        return [inc] if self.reading is self.ONCE else [1] * inc


class DmaElementOrder(Decision):
    id = "R-16"
    subject = "element order of a DMA's two dims (0xD4 num0/num1)"
    reason = "only num1 = 1 is seen; the book orders src_step_elem[0] (dim 2) inside [1] (dim 3)"
    DIM1_OUTER = Reading("dim1-outer", "for j < num1: for i < num0: a run at addr + i*step0 + j*step1 (dim 0 inner)")
    DIM0_OUTER = Reading("dim0-outer", "for i < num0: for j < num1: (dim 1 inner)")

    def dims_of(self, outer_first: list[tuple[int, int]]) -> tuple[tuple[int, int], tuple[int, int]]:
        """An access pattern's (step, count) dims, outermost first (one or two) → (dim 0, dim 1)."""
        one = (1, 1)
        if len(outer_first) == 1:
            return outer_first[0], one
        outer, inner = outer_first
        return (inner, outer) if self.reading is self.DIM1_OUTER else (outer, inner)

    @property
    def dim0_inner(self) -> bool:
        """Whether dim 0 varies fastest: the runs of one j come one after another (as :meth:`points`)."""
        return self.reading is self.DIM1_OUTER

    def points(self, num0: int, num1: int) -> list[tuple[int, int]]:
        """The (i, j) of every run, in transfer order."""
        if self.reading is self.DIM1_OUTER:
            return [(i, j) for j in range(num1) for i in range(num0)]
        return [(i, j) for i in range(num0) for j in range(num1)]


class Addr8Modes(Decision):
    id = "R-17"
    subject = "DMA ADDR8 address (0xD4 +0x10..+0x17, +0x28..+0x2F): what the var field names per mode"
    reason = ("mode 0x10 with var 0 addresses SBUF (part<<18 | byte) on all engines and var 4 / 5..20 the file and "
              "virtual variables of def.json; mode 0x20 appears only on Pool for x, y and output0 with var 0, 1, 2 = "
              "the positions of their var_ids in the dge-table variable's list [1, 2, 3]")
    DGE_LIST = Reading("dge-list", "mode 0x10: var = var_id (0 = SBUF); mode 0x20: var = index into the dge-table "
                                   "list, giving the var_id")
    DGE_VAR_ID = Reading("dge-var-id", "mode 0x20: var is the var_id itself")

    PHYSICAL, DGE_IMMEDIATE, DGE_REGISTER = 0x10, 0x20, 0x28
    SBUF_VAR = 0

    def var_id(self, mode: int, var: int, dge_table: list[int] | tuple[int, ...]) -> int:
        """The variable a side addresses (mode 0x10 or 0x20); raises ValueError for an entry the table lacks."""
        if mode == self.DGE_IMMEDIATE and self.reading is self.DGE_LIST:
            if not 0 <= var < len(dge_table):
                raise ValueError(f"DGE-table entry {var} does not exist (the table has {len(dge_table)})")
            return dge_table[var]
        return var

    def names(self) -> dict[int, str]:
        return {self.PHYSICAL: "physical", self.DGE_IMMEDIATE: "dge", self.DGE_REGISTER: "dge-register"}


class DmaStepWords(Decision):
    id = "R-22"
    subject = "DMA (0xD4) step words +0x18/+0x1C/+0x30/+0x34: unsigned or signed"
    reason = "every real step is positive; the book derives them from signed AP steps times the dtype size"
    UNSIGNED = Reading("unsigned", "u32 byte steps; a negative step is refused (dma.step_sign)")
    SIGNED = Reading("signed", "i32 byte steps (two's complement)")

    @property
    def signed(self) -> bool:
        return self.reading is self.SIGNED


class DmaOffsetRegisters(Decision):
    id = "R-23"
    subject = "DMA (0xD4) +0x26/+0x27 (book: offset-register ids of the DGE register mode)"
    reason = ("the 912 corpus DMAs whose src side uses ADDR8 mode 0x28 (cayman 2.23 Pool, moe-trn2) hold 0xBD at "
              "+0x26: 0x80 | 61 (not the register the RegisterAlu just before each writes: that is r31, the address "
              "word's, R-103/R-104); +0x26 "
              "and +0x27 are 0 on the 1,247 DMAs of modes 0x10 and 0x20 (and +0x27 on all 2,159: no dst side uses "
              "mode 0x28), as on the 8,778 of the two matmul NEFFs that first read them as reserved")
    REGISTERS = Reading("registers", "the book: register id & 0x3F | 0x80 (bit 6 the mode) on a side of mode 0x28, "
                                     "0 on any other side (dma.offset_reg)")
    RESERVED = Reading("reserved", "reserved-zero: a non-zero byte is flagged (contradicted by 912 corpus DMAs)")

    MARK = 0x80
    ID_MASK = 0x3F

    @property
    def registers(self) -> bool:
        return self.reading is self.REGISTERS


class BookOnlyLayouts(Decision):
    id = "R-25"
    subject = "book layouts that are inconsistent or incomplete: 0x07, 0xCA (0xD6 under R-29=book, 0xDA under R-30=book)"
    reason = ("0x07's TENSOR4D ifmap at +0x10 overlaps its +0x20/+0x21 dtype bytes; 0xD6 and 0xCA name slots the "
              "book does not place; 0xDA's extra rows overlap the sync band and the 0xD4 fields it shares; no real "
              "bundle of 0x07 or 0xCA exists. The corpus's 0xD6 and 0xDA bundles settle those two (R-29, R-30): "
              "the 0xD6 guess placement is what all 234 real ones hold")
    PARTIAL = Reading("partial", "declare only the rows that do not conflict: the other bytes are left unexplained "
                                 "(a non-zero one is flagged); not encodable")
    GUESS = Reading("guess", "complete the maps by the most probable placement: 0x07's ifmap a TENSOR3D; 0xCA's "
                             "index/data/table slots at +0x10/+0x18/+0x24; 0xD6's TENSOR2D slots at +0x0C/+0x34")

    @property
    def guess(self) -> bool:
        return self.reading is self.GUESS


class DmaBlockCompletion(Decision):
    id = "R-90"
    subject = ("PseudoDMATrigger 0xC1: what a fired descriptor block moves and which semaphore its completion "
               "signals (the engine sidecar's dma blocks)")
    reason = ("an engine's sidecar (<E>.json) lists its blocks by queue and id with a 'semaphore' and descriptors "
              "(from/to variable, offset, sizes, steps, dtypes). All 42,679 0xC1 bundles of the corpus (42,609 in "
              "the 83 yolox-trn1 files, 70 in moe-trn2) name a (queue, block id) of the sidecar of the engine whose "
              "stream holds them, on a def.json queue that engine owns, and every block's semaphore is in that "
              "queue's semaphore_set. In the first 12 yolox NEFFs, on 97 of the 115 semaphores the blocks signal "
              "the largest wait is 16 x the triggers of those blocks (the other 18: 16 x (triggers - 1), the last "
              "DMA awaited by none), as R-15's 0x10 on 0xD4. The units of the descriptors' sizes and steps are "
              "R-100's (over the 83 corpus NEFFs with blocks, all 78,315 DRAM sides fit their variable "
              "as bytes, 17,551 ending on its last byte; 51,781 overrun it as elements)")
    ADD_16 = Reading("add-16", "a trigger fires the block of its own engine's sidecar; the block adds 16 to its "
                               "semaphore when all its descriptors have moved")

    INCREMENT = 16


class DescriptorUnits(Decision):
    id = "R-100"
    subject = "the units of a 0xC1 descriptor's offsets, sizes and steps (an engine sidecar's dma entries)"
    reason = ("all 77,423 descriptors of the corpus's sidecars have from_steps[0] = to_steps[0] = 1, and on every "
              "one the byte count prod(sizes) / itemsize is the same on both sides, casts included (1,970 "
              "float32 -> bfloat16 and others), only when the sizes are bytes. yolox MODULE_7566293729687800478: "
              "input0 is float32 (1, 120, 5), 2,400 bytes; its block I-22-0-block-1 reads from_sizes [20, 120] "
              "from_steps [1, 20] (120 rows of 20 bytes = 5 floats, 20 bytes apart, exactly the 2,400 bytes) and "
              "writes to_sizes [20, 120] steps [1, 262144] into SBUF (one row per partition, 1 << 18 = one "
              "partition); as elements the same read would cover 9,600 bytes of a 2,400-byte variable. Dims are "
              "listed innermost first")
    BYTES = Reading("bytes", "offsets, sizes and steps are bytes, dims innermost first (sizes[0] the bytes of a "
                             "contiguous run); an SBUF address is partition << 18 | byte (every corpus descriptor)")
    ELEMENTS = Reading("elements", "sizes and steps count elements of the side's dtype, except an SBUF step that "
                                   "is a multiple of 1 << 18 (k partitions); offsets are bytes (contradicted: the "
                                   "yolox input reads above leave their variables)")

    @property
    def bytes(self) -> bool:
        return self.reading is self.BYTES


class IndirectTransfer(Decision):
    id = "R-101"
    subject = ("PseudoDMAMemcpyFullInd 0xC4: what it moves and what its completion signals (IndirectLoad / "
               "IndirectSave on a def.json indirect_memcpy queue)")
    reason = ("234 bundles in 26 yolox-trn1 files (sunda 2.14, Pool): each is preceded by a 0xD6 whose slot_a is "
              "the 0xC4's indirect_start_offset and whose idx_meta is its indirect_num_elems1; indirect_num_elems0 "
              "= direct_num_elems0 = 1 and engine_config = engine_config2 = 0x40000 (one partition) in all. The "
              "index rows are the uint64 addresses 0x74 TensorScalarAddr builds from a pointer variable's value "
              "(the DMA'd '<var>-ADDR' word plus index x row bytes). The engine's indirect_memcpy queue has one "
              "semaphore; in all 26 files the largest wait on it is 8 x the 0xC4 bundles (1 .. 90 of them), and "
              "the k-th 0xC4's semaphore_wait_value is 8k + 4")
    ADD_8 = Reading("add-8", "row r (r < indirect_num_elems1) moves direct_elem_size bytes between DRAM at the "
                             "uint64 address at indirect_start_offset + r x engine_config and SBUF at "
                             "direct_start_offset + r x engine_config2 (direction 0: DRAM to SBUF, 1: SBUF to "
                             "DRAM); the queue's semaphore gains 8 when all rows have moved (every corpus file)")
    ADD_16 = Reading("add-16", "as add-8, but the semaphore gains 16, as a 0xC1 block's (contradicted: the waits "
                               "are 8 per 0xC4)")

    @property
    def increment(self) -> int:
        return 8 if self.reading is self.ADD_8 else 16


class DramAddresses(Decision):
    id = "S-100"
    subject = "the DRAM address of a variable: the value a 'pointer' variable holds, and how an indirect row's " \
              "address resolves to a variable and an offset"
    reason = ("def.json 'pointer' variables (8 bytes, referenced_var_id) hold an address the runtime assigns; the "
              "graph only adds byte offsets to it and bound-checks the sum against the referenced variable "
              "(0xD6), so any placement that keeps variables apart computes the same. Placing each variable in "
              "its own 4 GiB window makes an address outside a variable land in no variable at all")
    WINDOWS = Reading("windows", "variable v lives at v << 32 (an address resolves to var addr >> 32, offset "
                                 "addr & 0xFFFFFFFF)")
    PACKED = Reading("packed", "variables laid end to end by var_id from 0x1000, each 4 KiB aligned (an address "
                               "past a variable may land in the next one, as on a device)")

    def bases(self, sizes: dict[int, int]) -> dict[int, int]:
        """The address of each variable (by var_id, sizes in bytes)."""
        if self.reading is self.WINDOWS:
            return {v: v << 32 for v in sizes}
        out, at = {}, 0x1000
        for v in sorted(sizes):
            out[v] = at
            at += (sizes[v] + 0xFFF) // 0x1000 * 0x1000 or 0x1000
        return out


class IndirectBounds(Decision):
    id = "S-101"
    subject = ("PseudoRangeCheck 0xD6 before an indirect DMA: what happens to a row whose address is outside "
               "[base, base + bound_size_bytes)")
    reason = ("each of the 234 corpus 0xD6 bundles precedes a 0xC4 on the same index rows (slot_a = its "
              "indirect_start_offset, idx_meta = its row count) with bound_addr the SBUF copy of the pointer "
              "variable's value (one per row partition) and bound_size_bytes the referenced variable's size; "
              "the graphs carry neff_feature_indirect_memcpy_bound_check. What the device does with a row out "
              "of range is not in the bytes; XLA's scatter drops out-of-bounds updates. Its branch label (R-27) is "
              "the PseudoBranchLabel right after the 0xC4, and the waits after it need the 0xC4's +8 (R-101), so "
              "skipping the whole 0xC4 on a failed check would deadlock the graph. The 0xD6's slot_b operand is "
              "not written by the simulator (what it receives is unknown)")
    SKIP_ROWS = Reading("skip-rows", "the rows out of range are not moved; the others are")
    STOP = Reading("stop", "a row out of range stops the run, naming the bundle and the row")

    @property
    def skips(self) -> bool:
        return self.reading is self.SKIP_ROWS


class StateBufferVariable(Decision):
    id = "R-102"
    subject = "PseudoTensorLoad / PseudoTensorSave of var_id 0 in a NEFF (def.json: var 0 is the state buffer)"
    reason = ("moe-trn2/v6b sg00: all 144 Pool PseudoTensorLoads name var_id 0; the first (bundle 6, var_offset "
              "94976) waits sem24 >= 16, which SP's block inst.50-block-1 raises after copying input1 (32 bytes) "
              "to SB offset 94976, an R-17/R-100 SBUF address (partition << 18 | byte: partition 0, byte 94976)")
    SBUF_ADDRESS = Reading("sbuf-address", "var_id 0, when no variable of the memory description has it, is SBUF "
                                           "and var_offset + the element's offset is partition << 18 | byte")
    VARIABLE = Reading("variable", "var_id 0 must be a variable of the memory description (the kernel form)")

    @property
    def sbuf(self) -> bool:
        return self.reading is self.SBUF_ADDRESS


class RaceSources(Decision):
    id = "S-90"
    subject = "the race check: which updates can raise a semaphore, and its value before the first"
    reason = ("a wait orders a bundle after an update only when every way of reaching its count needs that "
              "update, so every source must be known: the engines' sync updates, 0xD4 completions (R-15) and "
              "0xC1 block completions (R-90), 0xC4 completions on the engine's indirect_memcpy queue (S-92). A DMA "
              "of no known completion (a 0xC4 of an engine with no such queue, a 0xC1 of no known block) "
              "names its semaphore in no field tongasm reads; the simulator starts every semaphore at 0")
    KNOWN = Reading("known", "semaphores start at 0 and are raised only by the known sources; a DMA whose "
                             "completion semaphore is unknown is listed as unanalysed, not assumed to "
                             "raise any semaphore")
    STRICT = Reading("strict", "as known, but a graph holding a DMA with an unknown completion semaphore proves "
                               "no wait at all (it might raise any semaphore)")

    @property
    def strict(self) -> bool:
        return self.reading is self.STRICT


class DgeRegisterSide(Decision):
    id = "R-91"
    subject = "DMA (0xD4) ADDR8 mode 0x28 (DGE register offset): which variable the var field names, for footprints"
    reason = ("all 912 corpus sides of mode 0x28 (moe-trn2 Pool, src only) hold var 1 or 2 with address word 31 "
              "and a register offset (R-23); as an index into the dge-table list ([5, 4, 3] in neff_171450338541704 "
              "and v6b) they are input3 (256 MiB, 640 sides) and input2 (128 MiB, 272 sides), the experts' weights "
              "a MoE gathers by a computed offset; as var_ids they would be input0/input1, 32 bytes each, which "
              "a 128-row read at a 0x1000 step cannot fit. The register's value is not tracked statically")
    DGE_INDEX = Reading("dge-index", "var indexes the dge-table list as in mode 0x20; the side may touch any byte "
                                     "of that variable (the offset is a register's)")
    ANY = Reading("any", "the side may touch any byte of any DRAM variable")

    @property
    def indexed(self) -> bool:
        return self.reading is self.DGE_INDEX


class QueueOrder(Decision):
    id = "S-91"
    subject = "the race check: whether the 0xC1 blocks one engine triggers on one DMA queue complete in trigger order"
    reason = ("a queue's blocks signal its semaphore set in turn (qSPIO0 block k: sem 8 + k mod 16, R-90), and "
              "the compiler's consumers rely on the queue's order: in yolox MODULE_10080151182636209274 ACT's "
              "first Activate reads SBUF 0x1e120..0x1f110, written by qSPIO0 blocks 0 (sem 8) and 1 (sem 9), and "
              "waits only sem9 >= 16; the first wait on sem 8 comes later. Without the rule that NEFF reports "
              "3,261 unordered pairs, with it none; no corpus kernel waits on each block it reads")
    FIFO = Reading("fifo", "a wait that proves a block of a queue complete proves every block the same engine "
                           "triggered on that queue before it complete too (completions in trigger order)")
    NONE = Reading("none", "blocks complete in any order: each needs its own wait")

    @property
    def fifo(self) -> bool:
        return self.reading is self.FIFO


class DgeRegisterAddress(Decision):
    id = "R-104"
    subject = "DMA (0xD4) ADDR8 mode 0x28 (DGE register): what the address word and +0x26 say"
    reason = ("all 912 corpus sides of mode 0x28 (moe-trn2 Pool: neff_171450338541704 768, v6b 144; src only) hold "
              "address word 31 (0x1F), var 1 or 2 (a dge-table entry, R-91) and +0x26 = 0xBD; in all 912 the "
              "RegisterAlu just before writes r31 (R-103), the last link of a chain from the PseudoTensorLoad of an "
              "expert index: r31 = 2 * (expert * 1048576 + h * 65536) before entry 1 (input3 = gate_up_weights "
              "[128, 2048, 512] bf16) and 2 * (expert * 524288 + i * 262144) before entry 2 (input2 = "
              "down_weights [128, 256, 2048]), the byte offsets of the kernel's .ap(offset, scalar_offset=expert, "
              "indirect_dim=0) (nki-moe-megakernel v6b_coalesce_down_dma.py). Register 61, which 0xBD = 0x80 | 61 "
              "would name (R-23), holds the raw expert index at some of those DMAs and expert * 1048576 at others: "
              "it is not the offset, and what +0x26 does is not known")
    OFFSET_REGISTER = Reading("offset-register", "mode 0x28: the address word names the register whose value "
                                                 "(unsigned 32-bit) is the byte offset into the variable the var "
                                                 "field's dge-table entry gives; +0x26 must be 0xBD (every corpus "
                                                 "side; any other value stops the simulator) and is not read")
    STOP = Reading("stop", "a side of mode 0x28 stops the simulator (ADDR8 mode 0x28 not simulated)")

    ADDRESS_MARK = 0xBD  # the only +0x26 of the corpus's 912 register-mode sides

    @property
    def simulated(self) -> bool:
        return self.reading is self.OFFSET_REGISTER


class ExtensionBound(Decision):
    id = "R-105"
    subject = "PseudoExtension 0xDA: the u32 at +0x0C (R-30's +0x0F byte, +0x0C..+0x0E zero)"
    reason = ("in all 912 corpus bundles the u32 at +0x0C is the byte size of the variable the register-mode DMA "
              "before it reads: 0x10000000 after entry 1 (640 bundles; input3, 268,435,456 bytes) and 0x08000000 "
              "after entry 2 (272; input2, 134,217,728 bytes), in both moe-trn2 NEFFs (dge-table [5, 4, 3]). A "
              "register offset is computed at run time; the bound is what keeps it inside its variable. Only "
              "bounds equal to the variable's size are seen, so whether a run past it is clipped, skipped or a "
              "fault is not known")
    BOUND = Reading("bound", "the u32 at +0x0C is the byte bound of the preceding register-mode DMA's variable: "
                             "the simulator checks every byte that DMA read lies below it and stops the run if "
                             "not, or if no register-mode DMA precedes it on its engine")
    STOP = Reading("stop", "a PseudoExtension stops the simulator (its meaning unknown)")

    @property
    def bound(self) -> bool:
        return self.reading is self.BOUND


class IndirectRaceSource(Decision):
    id = "S-92"
    subject = "the race check: the 0xC4 indirect DMA as a transfer and a semaphore source, and its completion order"
    reason = ("yolox-trn1 MODULE_10890989129169494766 sg00: SP bundle 859 (aten__add_add.3500-t15951_ReloadStore261_"
              "Reload-trig, a 0xC1 of qSPSpillReload0 block 67 writing SBUF partition 96 bytes 0x50..0x250) waits "
              "sem104 >= 8; sem104 is the only semaphore of def.json's qPoolIndirectMemCopy0 (indirect_memcpy, owner "
              "pool) and no bundle, 0xD4 or 0xC1 block raises it: the 8 is the completion of Pool's first 0xC4 "
              "(bundle 7, R-101: +8 per 0xC4), issued after the PseudoRangeCheck (bundle 6) that reads byte 0x160 of "
              "every partition. The consumers count the queue's completions in issue order: in "
              "MODULE_13897282659183476702 Pool issues three 0xC4s back to back (bundles 11, 15, 18: SBUF rows "
              "0x2fff0, 0x2ffe0, 0x2ffd0) and ACT's readers of those rows (7950, 7951, 7952) wait sem104 >= 8, >= 16 "
              "and >= 24, DVE's 8684 >= 8 for the first; the k-th 0xC4's semaphore_wait_value is 8k + 4 in all 234 "
              "corpus 0xC4s (each waits on those before it). With the 0xC4 unanalysed (S-90) those waits proved "
              "nothing: MODULE_10890989129169494766 reported 1 pair, MODULE_13897282659183476702 2 (Pool's "
              "TensorScalarAddr 7 and PseudoRangeCheck 10 against SP's reload 2155, which waits sem104 >= 8); modelled "
              "in any completion order 8 pairs there; in issue order none. The rows' DRAM addresses are computed at "
              "run time (uint64s built by TensorScalarAddr): the DRAM side is any byte of any variable; the SBUF "
              "rows are exact")
    QUEUE_FIFO = Reading("queue-fifo", "a 0xC4 reads its index rows and moves its data rows in a transfer after its "
                                       "bundle; its end raises its engine's indirect_memcpy queue semaphore "
                                       "(def.json) by R-101's increment, the 0xC4s of one engine completing in "
                                       "issue order (the n-th unit of the semaphore is a fixed 0xC4's); its DRAM "
                                       "side is any variable")
    QUEUE = Reading("queue", "as queue-fifo, but the 0xC4s may complete in any order (a wait proves a 0xC4 complete "
                             "only when every way of reaching its count needs it)")
    UNANALYSED = Reading("unanalysed", "a 0xC4 is listed as unanalysed: no footprint, no semaphore source (S-90 "
                                       "decides whether waits are proven at all then)")

    @property
    def modelled(self) -> bool:
        return self.reading is not self.UNANALYSED

    @property
    def fifo(self) -> bool:
        return self.reading is self.QUEUE_FIFO


class IndirectRaceBounds(Decision):
    id = "S-93"
    subject = "the race check: which DRAM variables a 0xC4 indirect DMA may touch"
    reason = ("the rows' addresses are a pointer variable's value plus computed offsets (TensorScalarAddr), and the "
              "0xD6 before each 0xC4 checks the same rows (slot_a = indirect_start_offset, idx_meta = the row count, "
              "R-101) against bound_size_bytes, the size of the variable the pointer references (S-101; rows out of "
              "range are not moved). yolox-trn1 MODULE_14856528739640727327 sg00: Pool's 0xC4 4531 follows a 0xD6 "
              "of bound 0x20d00 = 134,400, the size of reshape.20 (var 1181, referenced by reshape.20-ADDR) and of no "
              "other referenced variable; with the DRAM side any variable 192 pairs were reported against DMAs of "
              "reshape.10 (var 1178) and input398 (var 399), none with it the referenced variables of that size")
    REFERENCED = Reading("referenced", "after a 0xD6 on its rows, a 0xC4's DRAM side is any byte of the variables "
                                       "a def.json pointer references whose size is the 0xD6's bound; else any "
                                       "variable")
    ANY = Reading("any", "a 0xC4's DRAM side is any byte of any variable")

    @property
    def bounded(self) -> bool:
        return self.reading is self.REFERENCED


class SelfWaits(Decision):
    id = "S-94"
    subject = ("the race check: the compiler's self-waits (an engine waiting on a semaphore only its own bundles "
               "or its own DMAs' completions raise)")
    reason = ("causal-attention-trn1 model_3c6ff38f sg00 (448 bundles, 308 sem_ge_imm waits, each deleted in turn by "
              "tests/test_race_mutants.py): 99 waits are on a semaphore only the waiting engine's bundles raise "
              "(ACT, DVE and Pool wait their own sem4/sem6/sem3 counts before a DMA or a bundle reads what they "
              "wrote); 15 are Pool DMAs waiting their own queue semaphore's earlier use (bundle 20, "
              "src=dge2+0x600800, signals sem8 and waits sem8 >= 16, the completion of bundle 2's DMA on sem8; "
              "40 waits sem8 >= 32): a re-used semaphore's counts keep naming one DMA each. Deleting one of the 99 "
              "changes no schedule tongasm knows (S-40: a bundle finishes before the next of its engine starts, "
              "and the check compares only different engines and queues); deleting one of the 15 left no race, "
              "and for each every other waiter of that count (PE bundle 2 waits sem8 >= 16) reaches the DMA's "
              "bundle through waits on one-stream semaphores (found by the test's own search, 'reuse-ordered'): "
              "the re-use was already ordered. The 16th, DVE bundle 6 (Memset of 0x7c04..0x7c08) waiting sem3 >= 1 "
              "(Pool bundle 4, a TensorScalarAffineSelect of 0xc250 only), orders DVE after a bundle it shares no "
              "byte with (by hand; the test's 'nothing-to-order' looks at the whole window, which conflicts with "
              "later bundles ordered by other waits): a wait the compiler did not need. Whether the hardware needs "
              "the 99 (an engine's pipeline still writing when its own DMA starts reading) is not in the bytes")
    PROGRAM_ORDER = Reading("program-order", "an engine's bundles are ordered by program order (each finishes "
                                             "before the next starts): a self-wait on the engine's own updates "
                                             "orders nothing more; a wait on its own DMAs' completion orders as "
                                             "any wait")
    PIPELINED = Reading("pipelined", "an engine's bundle may still be writing when a later bundle of it, or a DMA "
                                     "it issues, starts; only a self-wait orders them (not modelled: selecting it "
                                     "is refused)")

    @property
    def program_order(self) -> bool:
        return self.reading is self.PROGRAM_ORDER


__all__ = ["DescriptorUnits", "DgeRegisterAddress", "DgeRegisterSide", "DmaBlockCompletion", "DramAddresses",
           "ExtensionBound", "ExtensionForm", "IndirectBounds", "IndirectRaceBounds", "IndirectRaceSource",
           "IndirectTransfer", "QueueOrder", "RaceSources", "RangeCheckOperands", "RangeCheckRows", "SelfWaits", "StateBufferVariable"]
