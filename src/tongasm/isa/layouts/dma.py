"""The DMA layouts: PseudoDmaDirect2d 0xD4 (every DMA of the real NEFFs: 8,778 bundles) and the
book's other DMA members: PseudoExtension 0xDA, PseudoDMATrigger 0xC1, PseudoDMAMemcpyFullInd 0xC4,
PseudoRangeCheck 0xD6, PseudoEmbeddingUpdate 0xCA, PseudoDMASwapQueueSet 0xCF, PseudoDMARearm 0xC2
and IndirectCopy 0xE7 (DVE).

A 0xD4 moves ``num1 x num0`` runs of ``elem_size`` bytes from its src side to its dst side (R-16),
converting the elements from ``src_dtype`` to ``dst_dtype``, and when the whole transfer is done adds
``dma_sem_increment`` to semaphore ``dma_semaphore`` (R-15). Each side is an ADDR8 address (R-17: a
byte offset and a DRAM variable id, a DGE-table entry, or SBUF when the variable is 0) with two byte
steps and counts: not a TENSOR descriptor, so its fields are declared here (:func:`addr8_side`) and
the text form is :class:`~tongasm.isa.layout.Addr8Text`. The book's page is ``isa/dma-encoding.md``;
the real bytes confirm its DIRECT2D map except +0x0F (R-14).
"""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.dma import ExtensionBound, ExtensionForm, RangeCheckOperands, RangeCheckRows
from ..decisions.dma import Addr8Modes, BookOnlyLayouts, DmaCompletion, DmaOffsetRegisters, DmaStepWords
from ..descriptors import slot
from ..fields import Conf, EnumTable, Field, Kind, Slot
from ..layout import Addr8Text, ApText, AsciiText, IntText, Layout, Sem, TextOp
from ..opcodes import op
from .common import H, I, V, ascii_run, const, dtype, u8, u16, u32, zero_run

DMA_DIRECT2D = op(0xD4, "PseudoDmaDirect2d", "DMACopy", "tensor", V,
                  "DMA: a 2-D copy between DRAM variables and SBUF, signalled on its queue semaphore")
DMA_EXTENSION = op(0xDA, "PseudoExtension", "DMACopy", "tensor", H,
                   "DMA with run-time (DGE) addresses or bounds (book; 0xD4's encoder re-tagged)")
DMA_TRIGGER = op(0xC1, "PseudoDMATrigger", "DMATrigger", "tensor", H, "fire a pre-built descriptor block (book)")
DMA_INDIRECT = op(0xC4, "PseudoDMAMemcpyFullInd", "IndirectLoad", "tensor", H,
                  "indirect (gather / scatter) DMA: IndirectLoad, IndirectSave (book)")
DMA_RANGE_CHECK = op(0xD6, "PseudoRangeCheck", "IndirectLoad", "tensor", H,
                     "Pool bound-checked indirect DMA (book)")
DMA_EMBEDDING_UPDATE = op(0xCA, "PseudoEmbeddingUpdate", "IndirectSaveAccumulate", "tensor", H,
                          "accumulate update rows into an embedding table (book)")
DMA_SWAP_QUEUE = op(0xCF, "PseudoDMASwapQueueSet", "SwitchQueueInstance", "tensor", H,
                    "re-point the trigger engine at a queue instance (book)")
DMA_REARM = op(0xC2, "PseudoDMARearm", "ResetQueueInstance", "tensor", H, "re-arm a DMA queue (book)")
INDIRECT_COPY = op(0xE7, "IndirectCopy", "IndirectCopy", "tensor", H,
                   "DVE gather by an index list (book; a trn1 prototype: gen3 compilers do not emit it)")

REAL_D4 = "all 2,159 corpus DMAs (and the 8,778 of the two matmul NEFFs)"
BOOK_ZERO = "book: zero (the DMA encoders zero the bundle first); no real bundle"
#: The byte offsets of an ADDR8 side's fields, relative to the side (src +0x10, dst +0x28).
SIDE = {"addr": 0, "var": 4, "var_hi": 6, "addr_mode": 7, "step0": 8, "step1": 0x0C, "num0": 0x10, "num1": 0x12,
        "elem_size": 0x14}


def addr8_modes(ds: DecisionSet) -> EnumTable:
    return EnumTable("addr8 mode", ds.get(Addr8Modes).names())


def addr8_side(ds: DecisionSet, side: str, off: int) -> list[Field]:
    """The fields of one DMA side at ``off``: the ADDR8 address (R-17) and the 2-D pattern (R-16, R-22)."""
    signed = ds.get(DmaStepWords).signed
    step = Kind.SIGNED if signed else Kind.UNSIGNED
    seen = {"src": "SBUF 0x40000 (one partition), DRAM the row pitch 0x100..0x20000",
            "dst": "SBUF 0x40000, DRAM the row pitch"}[side]
    return [
        u32(f"{side}.addr", off, V, f"{side} ADDR8 word 0: byte offset in the variable; SBUF: partition << 18 | byte",
            decision="R-17"),
        u16(f"{side}.var", off + 4, V, f"{side} ADDR8: var_id (mode 0x10; 0 = SBUF) or DGE-table entry (mode 0x20)",
            decision="R-17"),
        u8(f"{side}.var_hi", off + 6, V, f"{side} ADDR8: var_id bits 16..23 (mode 0x10); 0 in {REAL_D4}",
           decision="R-17"),
        Field(f"{side}.addr_mode", off + 7, 1, Kind.ENUM, enum=addr8_modes(ds), conf=V, decision="R-17",
              doc=f"{side} ADDR8 mode: 0x10 physical var, 0x20 DGE immediate (seen); book: 0x28 DGE offset register, "
                  "| 0x04 two registers, | 0x40 move"),
        Field(f"{side}.step0", off + 8, 4, step, conf=V, decision="R-22",
              doc=f"{side} byte step of dim 0 (the inner dim, R-16): {seen}"),
        Field(f"{side}.step1", off + 0x0C, 4, step, conf=V, decision="R-22",
              doc=f"{side} byte step of dim 1 (outer); 1 (a dummy: num1 = 1) in {REAL_D4}"),
        u16(f"{side}.num0", off + 0x10, V, f"{side} count of dim 0 (128 in {REAL_D4})", decision="R-16"),
        u16(f"{side}.num1", off + 0x12, V, f"{side} count of dim 1 (1 in {REAL_D4})", decision="R-16"),
        u16(f"{side}.elem_size", off + 0x14, V, f"{side} contiguous bytes per (dim 0, dim 1) point = dtype size x "
                                                "innermost count (differs from the other side's on a converting DMA)",
            decision="R-16"),
    ]


def _offset_regs(ds: DecisionSet) -> list[Field]:
    if ds.get(DmaOffsetRegisters).registers:
        return [u8("src.offset_reg", 0x26, V, "src offset register of a DGE register-mode (0x28) side: id & 0x3F | 0x80 "
                                              "(0xBD = r61 in all 912 corpus ones), else 0", decision="R-23"),
                u8("dst.offset_reg", 0x27, H, "book: dst offset-register id & 0x3F | 0x80 on a mode-0x28 dst side; 0 in "
                                              f"{REAL_D4}", decision="R-23")]
    return [Field(f"{s}.offset_reg", o, 1, Kind.CONSTANT, const=0, conf=V, decision="R-23",
                  doc=f"book: {s} offset-register id | 0x80 (DGE register mode only); observed zero in {REAL_D4}")
            for s, o in (("src", 0x26), ("dst", 0x27))]


def _direct2d_body(ds: DecisionSet) -> tuple[Field, ...]:
    return (
        Field("qos", 0x0C, 1, conf=V, shift=0, bits=3, decision="R-14",
              doc=f"book: DMA QoS class (arch <= 49); 0 in {REAL_D4}"),
        Field("qos_flags", 0x0C, 1, Kind.CONSTANT, shift=3, bits=5, const=0, conf=V, decision="R-14",
              doc=f"book: the preserved upper bits of +0x0C; observed zero in {REAL_D4}"),
        u8("dma_semaphore", 0x0D, V, "completion semaphore: one of the issuing engine's queue set (def.json dma_queue)",
           decision="R-15"),
        u8("dma_sem_increment", 0x0E, V, f"added to dma_semaphore when the whole DMA has completed; 0x10 in {REAL_D4}",
           decision="R-15"),
        u8("sync_command", 0x0F, V, f"book: 3 COPY / 1 TRANSPOSE (its worked example writes 3); 0 in {REAL_D4} "
                                    "(book contradicted)", decision="R-14"),
        *addr8_side(ds, "src", 0x10),
        *_offset_regs(ds),
        *addr8_side(ds, "dst", 0x28),
        dtype("src_dtype", 0x3E, V, "element dtype read"),
        dtype("dst_dtype", 0x3F, V, "element dtype written (differs from src_dtype: a converting DMA)"),
    )


def _dma_text() -> tuple[TextOp, ...]:
    return (Addr8Text(name="src", side="src", dtype_field="src_dtype"),
            Addr8Text(name="dst", side="dst", dtype_field="dst_dtype"),
            IntText(name="sem", field="dma_semaphore"), IntText(name="inc", field="dma_sem_increment").opt(),
            IntText(name="qos", field="qos").opt())


def direct2d(ds: DecisionSet) -> list[Layout]:
    """0xD4 (real-opcodes.md §1.8; chapter §2.7)."""
    return [Layout(
        "DmaDirect2d", (DMA_DIRECT2D,), _direct2d_body(ds), Sem.DMA_2D, _dma_text(),
        implied={"dma_sem_increment": const(DmaCompletion.DEFAULT_INCREMENT)},
        checks=("dma.sides", "dma.run_sizes", "dma.sync_command", "dma.offset_reg"),
        doc="a 2-D DMA: num1 x num0 runs of elem_size bytes, src -> dst with element conversion, then "
            "sem[dma_semaphore] += dma_sem_increment (R-15, R-16, R-17)",
    )]


def extension(ds: DecisionSet) -> list[Layout]:
    """0xDA (R-30): by default the corpus's form, a continuation bundle of the DGE register-mode 0xD4
    before it; under R-30=book the book's dynamic/DGE form of 0xD4 (its extra rows, [INFERRED] dword
    indices, overlap the sync band and the 0xD4 fields (R-25), so only the 0xD4 map is declared)."""
    if ds.get(ExtensionForm).continuation:
        body = (
            Field("inst_word_len", 0x01, 1, Kind.CONSTANT, const=0, conf=V, decision="R-30",
                  doc="0 in all 912 corpus PseudoExtensions: not an instruction of its own (the 0xD4 before it is)"),
            *zero_run(0x0C, 3, V, "observed zero in all 912 corpus PseudoExtensions"),
            u8("dge_param", 0x0F, V, "0x10 after a DMA of DGE-table entry 1 (640 bundles), 0x08 after entry 2 (272): "
                                     "the top byte of the u32 at +0x0C, the byte bound of that DMA's variable "
                                     "(R-105)", decision="R-30"),
            *zero_run(0x10, 0x30, V, "observed zero in all 912 corpus PseudoExtensions"),
        )
        sem = Sem.DMA_EXTENSION if ds.get(ExtensionBound).bound else Sem.UNMODELLED
        return [Layout("DmaExtension", (DMA_EXTENSION,), body, sem,
                       (IntText(name="param", field="dge_param", hexa=True),),
                       doc="the continuation of the DGE register-mode (0x28) 0xD4 before it (R-30); not encoded")]
    return [Layout(
        "DmaExtension", (DMA_EXTENSION,), tuple(_with_conf(_direct2d_body(ds), I)), Sem.UNMODELLED, _dma_text(),
        doc="book: generateDynamicDMA re-tagged 0xDA; declared with 0xD4's map (R-25: the book's own extra rows "
            "for dge_compute_op +0x03, index starts +0x04/+0x08 and bounds +0x0C/+0x10/+0x38/+0x3C overlap it and are "
            "not declared); not encoded",
    )]


def _with_conf(fields: tuple[Field, ...], conf: Conf) -> list[Field]:
    from dataclasses import replace

    return [replace(f, conf=conf) for f in fields]


def trigger(ds: DecisionSet) -> list[Layout]:
    """0xC1 PseudoDMATrigger (book): the queue's name and the descriptor block to fire."""
    name = ascii_run("queue_name", 0x0C, 31, H, "book: the queue's basic-block name, strncpy(..., 0x1F)")
    body = (*name, *zero_run(0x2B, 5, H, BOOK_ZERO),
            u32("dma_block_id", 0x30, H, "book: InstDMABlock::getBlockId(getDmaBlock(0))"),
            *zero_run(0x34, 12, H, BOOK_ZERO))
    return [Layout("DmaTrigger", (DMA_TRIGGER,), body, Sem.DMA_TRIGGER,
                   (AsciiText(name="queue", fields=tuple(f.name for f in name)),
                    IntText(name="block", field="dma_block_id")),
                   doc="book: fire descriptor block dma_block_id on the named queue; not encoded")]


def indirect(ds: DecisionSet) -> list[Layout]:
    """0xC4 PseudoDMAMemcpyFullInd (book): IndirectLoad / IndirectSave."""
    body = (
        Field("indirect_start_offset", 0x0C, 4, Kind.ADDR4, conf=H, doc="book: index AP address (one per partition)"),
        Field("addr_mode", 0x10, 4, Kind.CONSTANT, const=1, conf=H, doc="book: addr-mode / valid, constant 1"),
        u32("engine_config", 0x14, H, "book: the arch tile stride"),
        u32("indirect_num_elems0", 0x18, H, "book: index AP dim 0"),
        u32("indirect_num_elems1", 0x1C, H, "book: index AP dim 1"),
        Field("direct_start_offset", 0x20, 4, Kind.ADDR4, conf=H, doc="book: data AP address"),
        u32("direct_step_elems0", 0x24, H, "book: bytes (dtype size x stride)"),
        u32("engine_config2", 0x28, H, "book: as engine_config"),
        u32("direct_num_elems0", 0x2C, H, "book: data AP dim 0"),
        u32("direct_num_elems1", 0x30, H, "book: data AP dim 1"),
        u32("direct_elem_size", 0x34, H, "book: bytes per partition run"),
        *zero_run(0x38, 2, H, BOOK_ZERO),
        u16("semaphore_wait_value", 0x3A, H, "book: runtime semaphore wait value, low word"),
        u8("direction", 0x3C, H, "book: 0 load, 1 save (isLoad ^ 1)"),
        *zero_run(0x3D, 1, H, BOOK_ZERO),
        u16("semaphore_wait_value_hi", 0x3E, H, "book: high word (non-zero: the 64-bit semaphore-wait feature)"),
    )
    return [Layout("DmaIndirect", (DMA_INDIRECT,), body, Sem.DMA_INDIRECT,
                   doc="book: per-partition gather (load) or scatter (save) by an index list; not encoded")]


def range_check(ds: DecisionSet) -> list[Layout]:
    """0xD6 PseudoRangeCheck (Pool only). R-29: the corpus places two TENSOR2D operands at +0x0C and
    +0x34 and an SBUF address at +0x18; under R-29=book the book's register at +0x18 and, under R-25,
    its slots unplaced (partial) or at the same places (guess)."""
    real = ds.get(RangeCheckOperands).sbuf_operands
    seen = "all 234 corpus PseudoRangeChecks" if real else "no real bundle"
    conf = V if real else H
    third: Field = (Field("bound_addr", 0x18, 4, Kind.ADDR4, conf=V, decision="R-29",
                          doc="an SBUF address (book: bound_result_reg, a register; contradicted: 4-byte aligned bytes "
                              "of partitions 0/32/96 in all 234 corpus bundles)")
                    if real else Field("bound_result_reg", 0x18, 4, Kind.REGISTER, conf=H, doc="book: vcall(*(this+76)+32)",
                                       decision="R-29"))
    body: list[Field] = [
        third,
        *zero_run(0x1C, 4, conf, f"book: zero; {seen}"),
        Field("bound_size_bytes", 0x20, 8, conf=conf, doc=f"book: the bound checked; {seen}"),
        Field("tag", 0x28, 1, Kind.CONSTANT, const=0x11, conf=conf, doc=f"book: constant 0x11; {seen}"),
        u8("src_dtype_tag", 0x29, conf, f"book: wire dtype OR 0x30; 0x31 in {seen}"),
        Field("one", 0x2A, 2, Kind.CONSTANT, const=1, conf=conf, doc=f"book: constant 1; {seen}"),
        *zero_run(0x2C, 2, conf, f"book: zero; {seen}"),
        u8("idx_meta", 0x2E, conf, "book: *(idxAP+80 +8)"),
        *zero_run(0x2F, 1, conf, f"book: zero; {seen}"),
        u32("branch_label_id", 0x30, conf, "the Pool bound-loop label: the label_id of a PseudoBranchLabel later in "
                                           "the stream (all 234 corpus bundles; R-27)"),
    ]
    slots: tuple[Slot, ...] = ()
    rows = False
    if real or ds.get(BookOnlyLayouts).guess:  # the free runs +0x0C..+0x17 and +0x34..+0x3F hold them
        sconf, sdec = (V, "R-29") if real else (I, "R-25")
        rows = real and ds.get(RangeCheckRows).index_rows
        slots = (slot("slot_a", 0x0C, 2, dtype=None, conf=sconf, decision=sdec, parts="idx_meta" if rows else None,
                      doc="TENSOR2D operand (steps 1, 1 and counts 1, 1 in every corpus bundle): the uint64 index "
                          "rows the next 0xC4 reads, idx_meta partitions (R-110)" if rows else
                          "TENSOR2D operand (steps 1, 1 and counts 1, 1 in every corpus bundle)"),
                 slot("slot_b", 0x34, 2, dtype=None, conf=sconf, decision=sdec, parts=None,
                      doc="TENSOR2D operand (steps 1, 1 and counts 1, 1 in every corpus bundle)"))
    text: list[TextOp] = [ApText(name=s.name, slot=s.name) for s in slots]
    if real:
        text += [IntText(name="bound", field="bound_addr", hexa=True),
                 IntText(name="size", field="bound_size_bytes", hexa=True),
                 IntText(name="label", field="branch_label_id")]
    return [Layout("DmaRangeCheck", (DMA_RANGE_CHECK,), tuple(body), Sem.RANGE_CHECK if real else Sem.UNMODELLED,
                   tuple(text), slots, pointer_reads=(("bound_addr", ""),) if rows else (),
                   pointer_parts="idx_meta",
                   doc="an indirect DMA that checks each index against bound_size_bytes and branches to "
                       "branch_label_id on failure (Pool only; R-29); not encoded")]


def embedding_update(ds: DecisionSet) -> list[Layout]:
    """0xCA PseudoEmbeddingUpdate (book). R-25: its three slots are named but not placed."""
    body: list[Field] = [
        dtype("index_dtype", 0x0C, H, "book: dtype of the index list"),
        *zero_run(0x0D, 3, H, BOOK_ZERO),
        Field("embedding_table_base_addr", 0x2C, 4, Kind.ADDR4, conf=H, doc="book: scratch base, 64-byte aligned"),
        u16("embed_entry_num_elements", 0x30, H, "book: row width"),
        u16("embed_entry_bytes_lo", 0x32, H, "book: entry byte size, low half"),
        u16("sequence_length", 0x34, H, "book: number of indices"),
        *zero_run(0x36, 2, H, BOOK_ZERO),
        u32("table_num_entries", 0x38, H, "book: bound check only"),
        u16("embed_entry_bytes_hi", 0x3C, H, "book: entry byte size, high half"),
        *zero_run(0x3E, 2, H, BOOK_ZERO),
    ]
    slots: tuple[Slot, ...] = ()
    if ds.get(BookOnlyLayouts).guess:  # 8 + 12 + 8 bytes fit +0x10..+0x2B exactly
        slots = (slot("index", 0x10, 1, dtype="index_dtype", conf=I, decision="R-25", parts=None),
                 slot("data", 0x18, 2, dtype=None, conf=I, decision="R-25", parts=None),
                 slot("table", 0x24, 1, dtype=None, conf=I, decision="R-25", parts=None))
    return [Layout("DmaEmbeddingUpdate", (DMA_EMBEDDING_UPDATE,), tuple(body), Sem.UNMODELLED,
                   tuple(ApText(name=s.name, slot=s.name) for s in slots), slots,
                   doc="book: for each index, accumulate the update row into the table row it names; +0x10..+0x2B "
                       "undeclared under R-25=partial; not encoded")]


def queue_ops(ds: DecisionSet) -> list[Layout]:
    """0xCF PseudoDMASwapQueueSet and 0xC2 PseudoDMARearm (book): a queue by name."""
    def name() -> list[Field]:
        return ascii_run("queue_name", 0x0C, 31, H, "book: strncpy(bundle+12, queue->name, 0x1F)")

    swap_name, rearm_name = name(), name()
    swap = Layout("DmaSwapQueueSet", (DMA_SWAP_QUEUE,), (
        *swap_name, *zero_run(0x2B, 0x10, H, BOOK_ZERO),
        u8("queue_instance", 0x3B, H, "book: *(I+0x100)"),
        Field("swap_marker", 0x3C, 4, Kind.CONSTANT, const=1, conf=H, doc="book: constant 1"),
    ), Sem.UNMODELLED, (AsciiText(name="queue", fields=tuple(f.name for f in swap_name)),
                        IntText(name="instance", field="queue_instance")),
        doc="book: re-point the trigger engine at a queue instance; not encoded")
    rearm = Layout("DmaRearm", (DMA_REARM,), (*rearm_name, *zero_run(0x2B, 0x15, H, BOOK_ZERO)), Sem.UNMODELLED,
                   (AsciiText(name="queue", fields=tuple(f.name for f in rearm_name)),),
                   doc="book: re-arm a queue (needs neff_feature_SQI_no_rearm); not encoded")
    return [swap, rearm]


def indirect_copy(ds: DecisionSet) -> list[Layout]:
    """0xE7 IndirectCopy (book, DVE data-move page)."""
    dst = slot("dst", 0x2C, 4, dtype="dst_dtype", write=True, conf=H, doc="gathered elements")
    body = (
        Field("index_addr", 0x0C, 4, Kind.ADDR4, conf=H, doc="book: index address; ADDR4 bit 29 (the indirect bit) set"),
        Field("data_addr", 0x10, 4, Kind.ADDR4, conf=H, doc="book: data address"),
        u32("index_num_elem", 0x14, H, "book: elements per partition of the index AP"),
        *zero_run(0x18, 8, H, BOOK_ZERO),
        dtype("src_dtype", 0x20, H, "book: src dtype"),
        dtype("dst_dtype", 0x21, H, "book: dst dtype, equal to src_dtype"),
        u8("num_partitions", 0x22, H, "book: active channels"),
        u8("src_num_elem_per_idx", 0x23, H, "book: elements gathered per index"),
        *zero_run(0x24, 2, H, BOOK_ZERO),
        u32("src_buffer_size", 0x26, H, "book: unaligned u32 at +0x26..+0x29"),
        *zero_run(0x2A, 2, H, BOOK_ZERO),
    )
    return [Layout("IndirectCopy", (INDIRECT_COPY,), body, Sem.UNMODELLED,
                   (ApText(name="dst", slot="dst", parts=True), IntText(name="per_index", field="src_num_elem_per_idx")),
                   (dst,), doc="book: gather src_num_elem_per_idx elements per index into dst (trn1 prototype: 'on TRN3+, "
                               "use COPY with TensorIndirect AP instead'); not encoded")]


BUILDERS = (direct2d, extension, trigger, indirect, range_check, embedding_update, queue_ops, indirect_copy)

__all__ = ["BUILDERS", "DMA_DIRECT2D", "SIDE", "addr8_side"]
