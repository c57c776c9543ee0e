"""Proposed byte layouts of the real-NEFF opcodes, as data (research draft, not tongasm code).

This is the single declaration from which docs/research/real-opcodes.md builds its field tables
(make_docs.py) and from which the golden vectors tests/golden/real/*.json get their per-field readings
(goldens.py). It checks nothing by itself. Each field:
    (offset, width, name, kind, confidence, decision, meaning)
width: u8 u16 u32 u64 i16 i32 | lo4/hi4 (nibbles) | bits<a>-<b> | bytes<n> (a reserved run)
kind: unsigned, signed, enum:<table>, constant=<v>, reserved-zero, addr4, addr8, register, ascii
confidence: V (all real bundles agree), S (meaning needed to reproduce x@y in refsim.py),
            B (book only), I (inferred); combinations like "V,S".
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class F:
    off: int
    width: str
    name: str
    kind: str
    conf: str
    decision: str
    meaning: str

    @property
    def size(self) -> int:
        w = self.width
        if w in ("u8", "lo4", "hi4") or w.startswith("bits"):
            return 1
        if w in ("u16", "i16"):
            return 2
        if w in ("u32", "i32"):
            return 4
        if w == "u64":
            return 8
        if w.startswith("bytes"):
            return int(w[5:])
        raise ValueError(w)

    def value(self, b: bytes) -> int:
        if self.width == "lo4":
            return b[self.off] & 15
        if self.width == "hi4":
            return b[self.off] >> 4
        if self.width.startswith("bits"):
            lo, hi = map(int, self.width[4:].split("-"))
            return (b[self.off] >> lo) & ((1 << (hi - lo + 1)) - 1)
        signed = self.width[0] == "i"
        return int.from_bytes(b[self.off:self.off + self.size], "little", signed=signed)


def header() -> list[F]:
    return [
        F(0x00, "u8", "opcode", "enum:opcode", "V", "", "opcode byte"),
        F(0x01, "u8", "inst_word_len", "constant=0x10", "V", "D-1", "instruction length in dwords (16 = 64 bytes)"),
        F(0x02, "u16", "reserved_02", "constant=0", "V", "", "reserved (setupHeader writes 0)"),
    ]


def sync_band(update_note: str = "") -> list[F]:
    return [
        F(0x04, "u8", "wait_mode", "enum:wait_mode", "V", "", "sync wait mode: 0 none, 0x05 sem_ge_imm (only value seen)"),
        F(0x05, "u8", "wait_idx", "unsigned", "V", "", "semaphore waited on"),
        F(0x06, "u8", "update_mode", "enum:update_mode", "V", "D-2", "sync update mode: 0 none, 0x13 sem_inc (only value seen)" + update_note),
        F(0x07, "u8", "update_idx", "unsigned", "V", "", "semaphore updated"),
        F(0x08, "u32", "sync_value", "unsigned", "V", "D-4", "wait threshold (sem_ge_imm); not written for sem_inc"),
    ]


def tensor(slot: str, off: int, nd: int, conf: str, decision: str, what: str) -> list[F]:
    out = [F(off, "u32", f"{slot}.addr", "addr4", conf, "D-5", f"{what}: start address (ADDR4: SBUF part<<18|byte, PSUM 0x2000000+byte)")]
    for i in range(nd):
        out.append(F(off + 4 + 2 * i, "i16", f"{slot}.step{i}", "signed", conf, decision, f"{what}: step of free slot {i} (elements; slot 0 innermost)"))
    for i in range(nd):
        out.append(F(off + 4 + 2 * nd + 2 * i, "u16", f"{slot}.num{i}", "unsigned", conf, decision, f"{what}: count of free slot {i}"))
    return out


def rz(off: int, n: int, note: str = "") -> F:
    return F(off, f"bytes{n}", f"reserved_{off:02x}", "reserved-zero", "V", "", note or "reserved-zero")


def addr8(side: str, off: int) -> list[F]:
    return [
        F(off, "u32", f"{side}.addr", "addr8", "V,S", "R-17", f"{side} ADDR8 word 0: byte offset in the variable; SBUF: part<<18|byte"),
        F(off + 4, "u16", f"{side}.var", "unsigned", "V,S", "R-17", f"{side} ADDR8: var_id (mode 0x10; 0 = SBUF) or DGE-table entry (mode 0x20)"),
        F(off + 6, "u8", f"{side}.var_hi", "unsigned", "V", "R-17", f"{side} ADDR8: var_id bits 16..23 (mode 0x10)"),
        F(off + 7, "u8", f"{side}.addr_mode", "enum:addr8_mode", "V,S", "R-17", f"{side} ADDR8 mode: 0x10 physical var, 0x20 DGE immediate, 0x28 DGE offset register (|0x04 2-reg, |0x40 move)"),
    ]


LAYOUTS: dict[int, tuple[str, list[F]]] = {}

LAYOUTS[0x01] = ("Ldweights", header() + sync_band(" — never seen on 0x01 (observed zero)") + [
    F(0x0C, "u8", "bg_transpose", "reserved-zero", "V,B", "", "book: CoreV3 writes 2 here only for arch ≥ 40 background transpose; gen3: observed zero"),
    rz(0x0D, 3),
    *tensor("stationary", 0x10, 3, "V,S", "R-10", "stationary (weights) TENSOR3D"),
    F(0x20, "u8", "in_dtype", "enum:wire_dtype", "V", "", "PE input dtype (weights); fp32r would write 0x0A here with +0x21 = 0x02 (book)"),
    F(0x21, "u8", "perf_variant", "unsigned", "V,B", "", "book: 0 default, 2 load-weights perf / fp32r two-pass marker, 0x80 V2 fp32; observed 0"),
    F(0x22, "u8", "is_transpose", "unsigned", "V,S", "R-12", "1 on the Ldweights of a PE transpose (BIR is_transpose); book said reserved-zero"),
    F(0x23, "u8", "perf_opt_dtype", "unsigned", "V,B", "", "book: perfModeToDstDtype(perf_mode); observed 0"),
    F(0x24, "u8", "replication_lo", "reserved-zero", "V,B", "", "book: CoreV2 replication pair, not written on gen3"),
    F(0x25, "u8", "replication_hi", "reserved-zero", "V,B", "", "book: CoreV2 replication pair, not written on gen3"),
    F(0x26, "u8", "num_rows", "unsigned", "V", "R-13", "K: partitions (rows) of the stationary; book's 'base partition' contradicted"),
    F(0x27, "u8", "num_active_cols", "unsigned", "V", "R-13", "M: stationary columns = PSUM output partitions"),
    rz(0x28, 4, "book: lw_reserved_zero"),
    F(0x2C, "u8", "row_group", "unsigned", "V,B", "R-13", "PE row-group code (book LUT {1,2,4,8 | 3,12,32,64 | 0x0F}); 0x0F = all 128 rows"),
    F(0x2D, "u8", "col_group", "unsigned", "V,B", "R-13", "PE column-group code; 0x0F = all 128 columns"),
    F(0x2E, "u8", "xbus", "reserved-zero", "V,B", "", "book: CoreV2 writes 0x10; dropped on CoreV3"),
    rz(0x2F, 17),
])

LAYOUTS[0x02] = ("Matmul", header() + sync_band() + [
    rz(0x0C, 4),
    *tensor("moving", 0x10, 3, "V,S", "R-9", "moving (ifmap) TENSOR3D"),
    F(0x20, "u8", "in_dtype", "enum:wire_dtype", "V,S", "", "PE input dtype (moving and stationary)"),
    F(0x21, "u8", "perf_variant", "unsigned", "V,B", "", "book: 0 dense, 2 load-weights, 3 perf/transpose; observed 0 (also on transposes)"),
    F(0x22, "u8", "is_transpose", "unsigned", "V,S", "R-12", "1 = PE transpose: PSUM result written in the input dtype; book said reserved-zero"),
    F(0x23, "u8", "perf_dst_dtype", "unsigned", "V,B", "R-12", "book: PSUM dst dtype perfModeToDstDtype(perf_mode); observed 0 for fp32 and fp16 results"),
    F(0x24, "u8", "perf_opt_dtype", "unsigned", "V,B", "", "book: perf-opt config byte; observed 0"),
    F(0x25, "u8", "perf_opt_src", "unsigned", "V,B", "", "book: perf-opt src / replication; observed 0"),
    F(0x26, "u8", "num_rows", "unsigned", "V", "R-13", "K: contraction partitions of stationary and moving"),
    F(0x27, "u8", "num_active_cols", "unsigned", "V,S", "R-13", "M: output partitions (stationary columns); book's 'moving elements' contradicted"),
    rz(0x28, 3, "book: d3_mm_reserved_z*"),
    F(0x2B, "u8", "psum_flags", "enum:psum_flags", "V,S", "R-11", "bit0 START (overwrite), bit1 STOP (close group); 0x00 = accumulate; book bit2 ACCU never seen"),
    F(0x2C, "u8", "row_group", "unsigned", "V,B", "R-13", "PE row-group code; 0x0F = all rows"),
    F(0x2D, "u8", "col_group", "unsigned", "V,B", "R-13", "PE column-group code; 0x0F = all columns"),
    F(0x2E, "u8", "xbus", "reserved-zero", "V,B", "", "book: CoreV2 writes 0x10; dropped on CoreV3"),
    rz(0x2F, 1),
    *tensor("psum", 0x30, 3, "V,S", "R-9", "PSUM destination TENSOR3D"),
])

LAYOUTS[0xA0] = ("EventSemaphore", header() + [
    F(0x04, "u8", "wait_mode", "enum:wait_mode", "V", "R-19", "wait 0 mode (events.wait_mode); 0x05 in every real 0xA0"),
    F(0x05, "u8", "wait_idx", "unsigned", "V", "R-19", "wait 0 semaphore"),
    F(0x06, "u8", "reserved_06", "reserved-zero", "V,B", "", "book: not written in the ev-sem path"),
    F(0x07, "u8", "reserved_07", "reserved-zero", "V,B", "", "book: not written in the ev-sem path"),
    F(0x08, "u32", "sync_value", "unsigned", "V", "R-19", "wait 0 threshold"),
    rz(0x0C, 20),
    F(0x20, "u8", "wait1_mode", "enum:wait_mode", "V", "R-19", "wait 1 mode (events_extended.wait_mode); 0 = no second wait"),
    F(0x21, "u8", "wait1_idx", "unsigned", "V", "R-19", "wait 1 semaphore"),
    F(0x22, "u8", "update_mode", "enum:update_mode", "V,B", "R-19", "update mode (events_extended.update_mode, LUT of D-2); never non-zero in real bytes"),
    F(0x23, "u8", "update_idx", "unsigned", "V,B", "R-19", "update semaphore; never non-zero in real bytes"),
    F(0x24, "u32", "wait1_value", "unsigned", "V", "R-19", "wait 1 threshold"),
    F(0x28, "u32", "update_value", "unsigned", "V,B", "R-19", "update value (not written for sem_inc/sem_dec); never non-zero in real bytes"),
    rz(0x2C, 20),
])

LAYOUTS[0xA4] = ("Nop", header() + sync_band(" — never seen on 0xA4") + [rz(0x0C, 52, "book CTRL_NO: header + sync only")])

LAYOUTS[0xB1] = ("SetOrderingMode", header() + sync_band(" — observed zero") + [
    F(0x0C, "u8", "ordering_mode", "unsigned", "V,B", "R-24", "book (runtime builder add_set_ordering_mode): the ordering mode; observed 0 in all 20"),
    rz(0x0D, 51),
])

LAYOUTS[0xCC] = ("PseudoBranchLabel", header() + sync_band(" — observed zero") + [rz(0x0C, 52, "no byte-level book layout; observed zero")])

LAYOUTS[0x23] = ("ActivationTableLoad", header() + sync_band(" — observed zero") + [
    rz(0x0C, 23),
    F(0x23, "u8", "act_tbl_sel", "unsigned", "V,B", "R-21", "activation function-set index (BIR LoadActFuncSet.act_func_set_id); 0 = exp_and_others"),
    rz(0x24, 28),
])

LAYOUTS[0xD4] = ("DmaDirect2d", header() + sync_band(" — never seen on 0xD4 (completion is +0x0D/+0x0E)") + [
    F(0x0C, "bits0-2", "qos", "unsigned", "V,B", "R-14", "book: DMA QoS class (arch ≤ 49); observed 0"),
    F(0x0C, "bits3-7", "qos_flags", "reserved-zero", "V,B", "R-14", "book: preserved upper bits of +0x0C; observed 0"),
    F(0x0D, "u8", "dma_semaphore", "unsigned", "V,S", "R-15", "completion semaphore (instr.semaphore): a member of the issuing engine's queue set"),
    F(0x0E, "u8", "dma_sem_increment", "unsigned", "V,S", "R-15", "added to +0x0D when the whole DMA has completed (instr.sem_increment); 0x10 in all"),
    F(0x0F, "u8", "sync_command", "unsigned", "V,B", "R-14", "book: 3 COPY / 1 TRANSPOSE; 0 in all 8 778 real DMAs (book contradicted)"),
    *addr8("src", 0x10),
    F(0x18, "u32", "src.step0", "unsigned", "V,S", "R-22", "src byte step of dim 0 (rows; inner of the two)"),
    F(0x1C, "u32", "src.step1", "unsigned", "V", "R-22", "src byte step of dim 1 (outer)"),
    F(0x20, "u16", "src.num0", "unsigned", "V,S", "R-16", "src count of dim 0"),
    F(0x22, "u16", "src.num1", "unsigned", "V", "R-16", "src count of dim 1"),
    F(0x24, "u16", "src.elem_size", "unsigned", "V,S", "R-16", "contiguous src bytes per (dim0, dim1) point = dtype size × innermost count (65536 → 0)"),
    F(0x26, "u8", "src.offset_reg", "reserved-zero", "V,B", "R-23", "book: offset-register id |0x80 (bit6 mode), DGE register mode only; observed 0"),
    F(0x27, "u8", "dst.offset_reg", "reserved-zero", "V,B", "R-23", "book: as +0x26 for dst; observed 0"),
    *addr8("dst", 0x28),
    F(0x30, "u32", "dst.step0", "unsigned", "V,S", "R-22", "dst byte step of dim 0"),
    F(0x34, "u32", "dst.step1", "unsigned", "V", "R-22", "dst byte step of dim 1"),
    F(0x38, "u16", "dst.num0", "unsigned", "V,S", "R-16", "dst count of dim 0"),
    F(0x3A, "u16", "dst.num1", "unsigned", "V", "R-16", "dst count of dim 1"),
    F(0x3C, "u16", "dst.elem_size", "unsigned", "V,S", "R-16", "contiguous dst bytes per point (differs from src on a converting DMA)"),
    F(0x3E, "u8", "src_dtype", "enum:wire_dtype", "V,S", "", "element dtype read"),
    F(0x3F, "u8", "dst_dtype", "enum:wire_dtype", "V,S", "", "element dtype written (≠ src: converting DMA)"),
])

# Opcodes tongasm already knows (SPEC §4.4/§4.7/§4.8), restated so the golden vectors can be read.
LAYOUTS[0x41] = ("TensorTensor (R-7)", header() + sync_band() + [
    F(0x0C, "lo4", "in0_dtype", "enum:wire_dtype", "V", "R-7", "dtype of in0 (+0x10)"),
    F(0x0C, "hi4", "in1_dtype", "enum:wire_dtype", "V", "R-7", "dtype of in1 (+0x20)"),
    F(0x0D, "u8", "out_dtype", "enum:wire_dtype", "V", "R-7", "dtype of out (+0x30)"),
    F(0x0E, "u8", "op", "enum:alu", "V", "D-13", "ALU op (0x04 add)"),
    F(0x0F, "u8", "num_partitions", "unsigned", "V", "R-7", "active partitions"),
    *tensor("in0", 0x10, 3, "V,S", "R-7", "in0 TENSOR3D"),
    *tensor("in1", 0x20, 3, "V", "R-7", "in1 TENSOR3D"),
    *tensor("out", 0x30, 3, "V,S", "R-7", "out TENSOR3D"),
])
_copy = header() + sync_band() + [
    *tensor("src", 0x0C, 4, "V,S", "D-6", "src TENSOR4D"),
    F(0x20, "u8", "src_dtype", "enum:wire_dtype", "V,S", "D-18", "src dtype"),
    F(0x21, "u8", "dst_dtype", "enum:wire_dtype", "V,S", "D-18", "dst dtype"),
    F(0x22, "u8", "num_partitions", "unsigned", "V,S", "", "active partitions"),
    rz(0x23, 9),
    *tensor("dst", 0x2C, 4, "V,S", "D-6", "dst TENSOR4D"),
]
LAYOUTS[0x46] = ("TensorCopy", _copy)
LAYOUTS[0x47] = ("TensorCopy", _copy)
LAYOUTS[0x49] = ("Memset", header() + sync_band() + [
    rz(0x0C, 16),
    F(0x1C, "u32", "element_count", "unsigned", "V,S", "", "elements per partition"),
    F(0x20, "u8", "dtype", "enum:wire_dtype", "V,S", "", "dst dtype"),
    rz(0x21, 1),
    F(0x22, "u8", "num_partitions", "unsigned", "V,S", "", "active partitions"),
    rz(0x23, 5),
    F(0x28, "u32", "fill", "unsigned", "V,S", "", "fill bits"),
    *tensor("dst", 0x2C, 4, "V,S", "D-19", "dst TENSOR4D"),
])


def check_layouts() -> None:
    """Every layout covers each of the 64 bytes exactly once (bit fields may share a byte)."""
    for op, (name, fields) in LAYOUTS.items():
        cover = [0] * 64
        bits = {}
        for f in fields:
            if f.width.startswith("bits") or f.width in ("lo4", "hi4"):
                bits.setdefault(f.off, []).append(f)
                continue
            for k in range(f.off, f.off + f.size):
                cover[k] += 1
        for off in bits:
            cover[off] += 1
        bad = [k for k in range(64) if cover[k] != 1]
        assert not bad, (hex(op), name, [hex(k) for k in bad])


check_layouts()
