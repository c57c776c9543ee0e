"""The R-n decisions of the real-NEFF chapter (``neff-and-real-opcodes.md``), each with the
behaviour its readings imply. R-1..R-6 govern what a NEFF repack copies or recomputes (§1.3-§1.6);
they affect no bundle.
"""

from __future__ import annotations

import hashlib
import time
import uuid as _uuid
from collections.abc import Iterable, Mapping

from .base import Decision, Reading


class HeaderHash(Decision):
    id = "R-1"
    subject = "NEFF header hash (0x0AC, 32 bytes) on a repack"
    reason = ("the 16-byte digest is not MD5/SHA of anything in the file that was tried (§1.3); the runtime "
              "accepts the original, so copying it is the only reading known to load")
    COPY = Reading("copy", "copy the input's 32 bytes (its input is unknown: not MD5/SHA of anything in the file)")
    MD5_PAYLOAD = Reading("md5-payload", "MD5 of the payload (everything after the header) in the first 16 bytes, "
                                         "rest zero")
    ZERO = Reading("zero", "all 32 bytes zero")

    def digest(self, payload: bytes) -> tuple[bytes, bytes] | None:
        """The (first 16, last 16) bytes of the hash field for ``payload``, or None to copy."""
        if self.reading is self.MD5_PAYLOAD:
            return hashlib.md5(payload).digest(), bytes(16)
        if self.reading is self.ZERO:
            return bytes(16), bytes(16)
        return None


class KelpVersionMajor(Decision):
    id = "R-2"
    subject = "NEFF header word 0x018 (kelp_version_major)"
    COPY = Reading("copy", "copy the input's word (2 in both real files; the book's 1 is contradicted)")


class UnknownHeaderWords(Decision):
    id = "R-3"
    subject = "NEFF header words 0x220 and 0x228 (meaning unknown)"
    COPY = Reading("copy", "copy both from the input NEFF; no header is written without a template")
    GRAPH_COUNT = Reading("graph-count", "0x228 = number of graphs in kelf-0.json (inferred); 0x220 copied")

    def word_0x228(self, graphs: int) -> int | None:
        """The word at 0x228 for a NEFF of ``graphs`` graphs, or None to copy."""
        return graphs if self.reading is self.GRAPH_COUNT else None


class HeaderUuid(Decision):
    id = "R-4"
    subject = "NEFF header UUID (0x0CC) on a repack"
    KEEP = Reading("keep", "keep the input's UUID")
    FRESH = Reading("fresh", "draw a fresh RFC 4122 version-4 UUID")

    def uuid(self) -> bytes | None:
        """A new UUID, or None to keep the input's."""
        return _uuid.uuid4().bytes if self.reading is self.FRESH else None


class GzipMtime(Decision):
    id = "R-5"
    subject = "gzip MTIME of a repacked NEFF payload"
    COPY = Reading("copy", "copy the input's MTIME")
    NOW = Reading("now", "the current time")

    def mtime(self, original: int) -> int:
        return original if self.reading is self.COPY else int(time.time()) & 0xFFFFFFFF


class MemberOrder(Decision):
    id = "R-6"
    subject = "order of the tar members of a NEFF"
    reason = ("the compilers do not agree: of the 96 corpus files 78 (2.14) and 6 (2.23, trn1) are in plain byte "
              "order, 7 (2.23, trn2) and both matmul files in byte order with neff.json last, and 5 in neither: 3 "
              "(2.23, moe: neff.json last, a '*.klir.debuginfo.json' among sg00's members) and 2 (2.14: the "
              "custom-op libbuiltincustomop_cpu*.stripped.so members right after kelf-0.json); only the input's "
              "own order reproduces every file")
    INPUT_ORDER = Reading("input-order", "the input's order; members it did not have follow in byte order (every "
                                         "real file)")
    NEFF_JSON_LAST = Reading("neff-json-last", "byte order of the paths, neff.json moved to the end (9 of 98 real "
                                               "files: the trn2 attention kernels and both matmul files)")
    BYTE_ORDER = Reading("byte-order", "plain byte order of the paths (84 of 98 real files: most of 2.14's and the "
                                       "trn1 2.23 kernels)")

    def order(self, names: Iterable[str], input_order: Mapping[str, int] | None = None) -> list[str]:
        """The member names in the order a writer emits them."""
        names = list(names)
        by_bytes = sorted(names, key=lambda s: s.encode())
        if self.reading is self.BYTE_ORDER:
            return by_bytes
        if self.reading is self.NEFF_JSON_LAST:
            return [n for n in by_bytes if n != "neff.json"] + (["neff.json"] if "neff.json" in names else [])
        pos = input_order or {}
        return sorted(names, key=lambda s: (0, pos[s], b"") if s in pos else (1, 0, s.encode()))


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


# --- issue 13: the PE, DMA and sync/control opcodes of the real NEFFs (R-9..R-19, R-22..R-27) ---------
#
# R-9..R-19 are the chapter's (neff-and-real-opcodes.md §2), R-22..R-27 the research's proposals
# (docs/research/real-opcodes.md §5); R-20 (the execution model) is the simulator's S-16/S-40 and
# R-21 (0x23's table index) is the activation family's: isa.decisions.scalar.ActTableIndex.


class PeUnusedDims(Decision):
    id = "R-9"
    subject = "unused free dims of the PE descriptor slots (0x01, 0x02, 0x06, 0x07)"
    reason = ("every real Ldweights and Matmul holds {step 0, count 1} in its unused TENSOR3D dims (42,000 bundles), "
              "and the book's own Ldtags constants (+0x14 = 1, +0x16 = 0, +0x18 = 0, +0x1C = 0x00010001) show the same "
              "fill; D-6's {1, 1} holds for 0x41/0x46/0x47/0x49. Whether the PE minds {1, 1} is untested")
    STEP0 = Reading("step0-count1", "an unused dim holds step 0, count 1 (every real PE bundle)")
    STEP1 = Reading("step1-count1", "D-6's {step 1, count 1} fill, as the other families")

    @property
    def fill(self) -> tuple[int, int]:
        """(step, count) of an unused free dim of a PE slot."""
        return (0, 1) if self.reading is self.STEP0 else (1, 1)


class StationaryPattern(Decision):
    id = "R-10"
    subject = "the Ldweights (0x01) stationary access pattern and the column each element lands in"
    reason = ("every one of the 379,567 real Ldweights (corpus: sunda 2.14 375,795, sunda and cayman 2.23 3,772) has "
              "step -1 innermost and visits the tile's M columns one by one from the last to the first: with steps "
              "(-1, 0, -32) and counts (32, 1, M/32) (76,382 bundles, all with M = 128 and a 1- or 2-byte dtype: bf16 "
              "or wire dtype 3) or with one dim (-1, M) (303,185: every fp32 tile, every M < 128, and 933 M = 128 bf16 tiles of "
              "sunda 2.14); the vendor profiler prints both as src=dtype@ADDR[-1,0,-32][32,1,4] and "
              "[-1,0,0][128,1,1]. The first reading (from the two matmul NEFFs: M = 128 only, quadrants only) "
              "refused 303 k of them. Simulating matmul_small with the element visited i-th in column M-1-i "
              "reproduces x @ y, without the reversal it is wrong (chapter §2.1, §4.5)")
    REVERSED = Reading("reversed", "ADDR4 = the tile's last column; the M columns are visited from the last to the "
                                   "first (step -1 innermost): written as (-1, 32), unused, (-32, M/32) for M = 128 of "
                                   "a 1- or 2-byte dtype, else as one dim (-1, M), as the compiler writes them; "
                                   "the element visited i-th lands in column M-1-i")
    NATURAL = Reading("natural", "ADDR4 = the tile's first column, one free dim (1, M) packed as D-6 packs; the "
                                 "element visited i-th lands in column i (no real bundle; the simulation of the "
                                 "real bundles is wrong under it)")

    QUADRANT = 32
    #: the tile width written in quadrant runs (every real quadrant-form bundle has M = 128)
    QUADRANT_TILE = 128

    @property
    def reverses(self) -> bool:
        """Whether the element visited i-th lands in column M-1-i (else in column i)."""
        return self.reading is self.REVERSED

    def pattern(self, columns: int, elem_size: int, fill: tuple[int, int]) -> tuple[int, list[tuple[int, int]]]:
        """For a [K, M] tile of ``columns`` = M elements per partition: the bytes to add to the tile's
        start address and the slot dims (step, count), slot 0 first. Raises ValueError when M is not
        1..128."""
        if not 1 <= columns <= self.QUADRANT_TILE:
            raise ValueError(f"M = {columns} is not 1..{self.QUADRANT_TILE}")
        if self.reading is self.NATURAL:
            return 0, [(1, columns), fill, fill]
        delta = (columns - 1) * elem_size
        if columns == self.QUADRANT_TILE and elem_size <= 2:
            return delta, [(-1, self.QUADRANT), fill, (-self.QUADRANT, columns // self.QUADRANT)]
        return delta, [(-1, columns), fill, fill]

    def visits(self, columns: int, dims: list[tuple[int, int]]) -> bool:
        """Whether slot dims (step, count), slot 0 innermost, visit the M = ``columns`` columns in the
        order this reading reads them: last to first (REVERSED) or first to last (NATURAL)."""
        total = 1
        for _step, count in dims:
            total *= count
        if total != columns or not 1 <= columns <= self.QUADRANT_TILE:
            return False
        offsets = [0]
        for step, count in dims:  # slot 0 innermost (D-6)
            offsets = [o + k * step for k in range(count) for o in offsets]
        want = range(0, -columns, -1) if self.reverses else range(columns)
        return offsets == list(want)


class PsumFlags(Decision):
    id = "R-11"
    subject = "Matmul (0x02) +0x2B psum flags: the accumulation-group role"
    reason = ("matmul_large's 512 groups per core are 01, 00 x30, 02 on one PSUM address, its transposes 03 (33,288 "
              "bundles); reading 0x00 as 'overwrite unless ACCU 0x04' (the book) breaks the simulated x @ y")
    START_STOP = Reading("start-stop", "bit 0 START (overwrite), bit 1 STOP (closes the group); 0x01 first, 0x00 "
                                       "interior (accumulate), 0x02 last (accumulate), 0x03 a single Matmul")
    BOOK_ACCU = Reading("book-accu", "the book: a Matmul accumulates only with ACCU 0x04; first 0x01, interior 0x04, "
                                     "last 0x06, single 0x03")

    START, STOP, ACCU = 0x01, 0x02, 0x04

    def flags(self, start: bool, stop: bool) -> int:
        """The +0x2B byte of a Matmul that starts and/or stops its accumulation group."""
        value = (self.START if start else 0) | (self.STOP if stop else 0)
        if self.reading is self.BOOK_ACCU and not start:
            value |= self.ACCU
        return value

    def accumulates(self, flags: int) -> bool:
        """Whether the Matmul adds to the PSUM destination (else it overwrites it)."""
        if self.reading is self.BOOK_ACCU:
            return bool(flags & self.ACCU)
        return not flags & self.START

    def names(self) -> dict[int, str]:
        """The byte values this reading writes, by name (the decoder's enum table)."""
        out = {self.flags(True, False): "first", self.flags(False, False): "middle", self.flags(False, True): "last",
               self.flags(True, True): "whole"}
        return out


class PeTranspose(Decision):
    id = "R-12"
    subject = "PE +0x22 is_transpose (0x01 and 0x02) and the PSUM dtype of a transpose"
    reason = ("+0x22 is 1 on exactly the 516 Ldweights/Matmul pairs whose moving operand is the identity (the book "
              "calls it reserved-zero); their PSUM outputs are 256 bytes apart for 128 elements, so two-byte elements; "
              "writing them as fp32 breaks the simulated x @ y; NKI: the output of a PE transpose has the input dtype")
    INPUT_DTYPE = Reading("input-dtype", "is_transpose = 1 on both bundles of a PE transpose; its PSUM result is "
                                         "written in the input dtype (any other Matmul writes fp32)")
    FP32 = Reading("fp32", "a transpose writes fp32 like any Matmul (is_transpose only marks it)")

    def psum_wire(self, is_transpose: bool, in_wire: int, fp32_wire: int) -> int:
        """The wire dtype of a Matmul's PSUM result."""
        return in_wire if is_transpose and self.reading is self.INPUT_DTYPE else fp32_wire


class PeGeometry(Decision):
    id = "R-13"
    subject = "PE +0x26/+0x27 (K rows, M active columns) and +0x2C/+0x2D (row/column groups)"
    reason = ("the corpus's 776,488 Ldweights/Matmuls have K and M of 1..128 (64 x 128, 12 x 32, 1 x 128, 128 x 2, "
              "85 x 1...: 659,691 of them partial; the vendor profiler prints them as K*M, '128*1'); +0x26 is K, not the "
              "book's base partition (a K = 1 tile at partition 32 has +0x26 = 1). +0x2C is the book's "
              "translateToRowGroup(start partition, K) in every bundle: K <= 32: 1 << quadrant (1, 2, 4, 8), "
              "K <= 64: 3 or 12, else 0x0F. +0x2D is translateToColGroup(0, M) the same way or 0x0F (the book's "
              "'force'): sunda forces it on 10,893 Ldweights and 10,872 Matmuls of M <= 64 (all fp32), cayman 2.23 "
              "on all 5,188 (969 of them M <= 64); the book's '+0x2E dropped on CoreV3' holds (0 on cayman, "
              "written on sunda). The first reading (K = M = 128 only, groups 0x0F, from two matmul NEFFs) refused "
              "1.15 M real bundles")
    GROUP_LUT = Reading("group-lut", "K and M of 1..128 within the 128-row array; +0x2C = translateToRowGroup(start "
                                     "partition, K), +0x2D = translateToColGroup(0, M) or 0x0F (forced); tongasm "
                                     "writes the row group so and the forced 0x0F column group of every gen3 bundle")
    WHOLE_ARRAY = Reading("whole-array", "K and M of 1..128, both group bytes 0x0F whatever the tile (consistent with "
                                         "every gen3 bundle; contradicted by the row groups of 518,766 sunda "
                                         "bundles)")

    FULL = 128
    ALL_GROUPS = 0x0F
    QUADRANT = 32

    def allows(self, rows: int, cols: int, start: int = 0) -> bool:
        """Whether a K x M tile whose rows start at partition ``start`` fits the array."""
        return 1 <= rows and start + rows <= self.FULL and 1 <= cols <= self.FULL

    def group(self, start: int, size: int) -> int:
        """The book's translateToRowGroup/translateToColGroup(start, size): the 32-row quadrants the
        rows (columns) use, as a mask; 0x0F under WHOLE_ARRAY."""
        if not self.uses_lut or size > 2 * self.QUADRANT:
            return self.ALL_GROUPS
        if size <= self.QUADRANT:
            return 1 << ((start >> 5) & 3)
        return 3 << (2 * ((start >> 6) & 1))

    @property
    def uses_lut(self) -> bool:
        """Whether the group bytes follow the book's LUT (else always 0x0F)."""
        return self.reading is self.GROUP_LUT

    def col_groups(self, cols: int) -> tuple[int, ...]:
        """The column-group bytes a tile of M = ``cols`` may hold: its LUT code, or the forced 0x0F."""
        return tuple(dict.fromkeys((self.group(0, cols), self.ALL_GROUPS)))

    @property
    def group_code(self) -> int:
        """The column group tongasm writes (gen3: forced 0x0F in every real bundle)."""
        return self.ALL_GROUPS


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


class StreamPrologue(Decision):
    id = "R-18"
    subject = "SetOrderingMode (0xB1) and PseudoBranchLabel (0xCC) at the start of every stream"
    reason = ("all 20 real streams start with 0xB1 then 0xCC, all-zero bodies and no BIR instruction; whether the "
              "runtime needs them is unknown, and prepending them would change every stream tongasm writes")
    EXPLICIT = Reading("explicit", "tongasm writes them only where the kernel has SetOrderingMode/PseudoBranchLabel "
                                   "instructions")
    PROLOGUE = Reading("prologue", "the program starts with SetOrderingMode (mode 0) and PseudoBranchLabel on each "
                                   "of the sp, pool, pe, act and dve streams, as every real stream does")

    @property
    def prologue(self) -> bool:
        return self.reading is self.PROLOGUE


class EventSemaphoreUpdate(Decision):
    id = "R-19"
    subject = "EventSemaphore (0xA0) update lane +0x22/+0x23/+0x28"
    reason = ("the book's wait lanes (+0x04/+0x05/+0x08, +0x20/+0x21/+0x24) are confirmed by 7,474 real bundles (260 "
              "use the second); the update lane is never used")
    LANE = Reading("lane", "the book: +0x22 update mode (the D-2 LUT), +0x23 semaphore, +0x28 value (not written for "
                           "sem_inc/sem_dec), applied after both waits hold")
    NONE = Reading("none", "no update lane: those bytes are reserved-zero and an update is refused")

    @property
    def has_lane(self) -> bool:
        return self.reading is self.LANE


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
              "+0x26: 0x80 | 61, register 61 being the one the RegisterAlu just before each of them writes; +0x26 "
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


class OrderingMode(Decision):
    id = "R-24"
    subject = "SetOrderingMode (0xB1) +0x0C ordering mode"
    reason = "0 in all 20 real bundles; the book's runtime builder writes an ordering-mode byte there, meaning unknown"
    ZERO = Reading("zero", "tongasm writes 0; a non-zero ordering_mode is refused (ctrl.ordering_mode)")
    PARAMETER = Reading("parameter", "the BIR attribute ordering_mode is written as given")

    @property
    def takes_parameter(self) -> bool:
        return self.reading is self.PARAMETER


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


class EventSemaphoreHeader(Decision):
    id = "R-26"
    subject = "EventSemaphore (0xA0) +0x06/+0x07"
    reason = "zero in all 7,474 real bundles; the book: not written in the event-semaphore path"
    RESERVED = Reading("reserved", "reserved-zero")
    HEADER_UPDATE = Reading("header-update", "the header band's update (+0x06 mode, +0x07 semaphore, value in +0x08 "
                                             "shared with the first wait, D-4), as on every other opcode")

    @property
    def header_update(self) -> bool:
        return self.reading is self.HEADER_UPDATE


class BranchLabelBody(Decision):
    id = "R-27"
    subject = "PseudoBranchLabel (0xCC) body"
    reason = ("sunda 2.14 writes a label id at +0x0C: 364 corpus labels in 156 streams, the ids unique in each "
              "stream (0, 1, 2... in stream order; 208 non-zero, the highest 89 in a stream of 90 labels), and every "
              "one of the 234 PseudoRangeCheck (0xD6) bundles names at its +0x30 a label of its own stream that "
              "follows it; +0x0D..+0x3F are zero in all 364. The 2.23 files (130 labels) have one label per stream, "
              "id 0, as the two matmul NEFFs (20) that first read the body as all zero")
    LABEL_ID = Reading("label-id", "a u32 label id at +0x0C, unique in its stream (the target a PseudoRangeCheck names); "
                                   "+0x10..+0x3F zero")
    ZERO = Reading("zero", "no body: the label is its position in the stream (every 2.23 stream; contradicted by 208 "
                           "sunda 2.14 labels)")

    @property
    def label_id(self) -> bool:
        return self.reading is self.LABEL_ID


# --- writing a NEFF from a kernel (tongasm.neff.build): what the real files cannot settle ---------------

class NeffInterface(Decision):
    id = "R-80"
    subject = "which variables of a kernel a NEFF written from it takes as inputs and outputs"
    reason = ("a real NEFF's inputs and outputs are its def.json 'input'/'output' variables, named in neff.json "
              "(matmul_small: x, y -> output0; the 2.23 sunda attention files: input0..input3 -> output0); a BIR "
              "kernel says Input/Output by its allocations' kind, but the example kernels keep their operands as "
              "'Internal' SBUF tensors that a run gives with -i (vector_add's a, b, mask): what the kernel reads "
              "before anything writes it can only come from outside")
    LIVE_IN = Reading("live-in", "inputs: kind Input, and every other variable whose first access in program order "
                                 "is a read; outputs: kind Output (and ExternalOutput...); any other DRAM variable "
                                 "is a 'virtual' (private) variable")
    KINDS = Reading("kinds", "only the allocation kinds: Input -> input, Output -> output; the rest private")

    def is_input(self, kind: str | None, read_first: bool) -> bool:
        """Whether a variable of allocation ``kind`` (None: not given) whose first access is a read
        (``read_first``) is an input of the NEFF."""
        if kind == "Input":
            return True
        if self.reading is self.KINDS or kind in ("Output", "ExternalOutput", "ExternalOutputParameter"):
            return False
        return read_first


class NeffStaging(Decision):
    id = "R-81"
    subject = "a kernel's inputs and outputs that are not in DRAM (SBUF, PSUM) in a NEFF written from it"
    reason = ("the runtime hands a NEFF its inputs and takes its outputs as DRAM buffers (def.json 'input'/'output' "
              "variables, reached by the DMAs through their var_id); every real kernel moves its data between "
              "DRAM and SBUF with 0xD4 DMAs on a queue's engine and waits on their completion semaphore (R-15); "
              "a DMA side is DRAM or SBUF, never PSUM (dma.operands)")
    DMA = Reading("dma", "each becomes a DRAM variable of its name and bytes: Pool DMAs load the inputs before "
                         "anything else (every engine's first bundle waits on their semaphore) and store the "
                         "outputs once every engine has signalled it is done; a PSUM output is first copied to "
                         "free SBUF by a DVE copy")
    REFUSE = Reading("refuse", "refuse a kernel whose inputs or outputs are not DRAM variables")

    @property
    def staged(self) -> bool:
        return self.reading is self.DMA


class NeffToolVersion(Decision):
    id = "R-82"
    subject = "info.json tool_version (and what the files call the compiler) of a NEFF written from a kernel"
    reason = ("every 2.23 corpus file (16) says '2.23.6484.0+3b612583'; whether the runtime compares it with its "
              "own version is unknown, so the string of the files whose layout is followed is the one known to load")
    COMPILER = Reading("compiler", "'2.23.6484.0+3b612583': the compiler whose files' layout the writer follows")
    TONGASM = Reading("tongasm", "'tongasm <version>': says who wrote the file (never seen by a runtime)")

    def tool_version(self, compiler: str, tongasm: str) -> str:
        return compiler if self.reading is self.COMPILER else f"tongasm {tongasm}"


class NeffFreshHeader(Decision):
    id = "R-83"
    subject = "the header fields of a NEFF written from a kernel that R-1..R-5 copy on a repack (no input to copy)"
    reason = ("R-1's digest input is unknown (§1.3); packaging_version 2 is 'tgz + md5' in KLR's NEFF writer; the "
              "UUID is an RFC 4122 v4 in both matmul files; 0x220 is 0x209C00 in matmul_small (one graph of "
              "five small streams), meaning unknown; the 2.23 gzip MTIME is what R-5 copies")
    DERIVED = Reading("derived", "hash = MD5 of the payload (first 16 bytes, rest zero); UUID = a v4 UUID made from "
                                 "the MD5 of the payload (the same kernel gives the same file); 0x220 = 0x209C00 (as "
                                 "matmul_small), 0x228 = the number of graphs; gzip MTIME 0")
    RANDOM = Reading("random", "as derived, but a fresh random v4 UUID and the gzip MTIME of now")
    ZERO = Reading("zero", "hash, UUID, 0x220 and gzip MTIME zero; 0x228 = the number of graphs")

    WORD_0x220 = 0x209C00

    def fields(self, payload: bytes, graphs: int) -> dict[str, int | bytes]:
        """Header values for a fresh NEFF of ``payload`` (its MD5 is the digest and, v4-formatted, the UUID)."""
        if self.reading is self.ZERO:
            return {"hash": bytes(16), "hash_rest": bytes(16), "uuid": bytes(16), "unknown_0x220": 0,
                    "unknown_0x228": graphs}
        digest = hashlib.md5(payload).digest()
        u = _uuid.uuid4().bytes if self.reading is self.RANDOM else _uuid.UUID(bytes=digest, version=4).bytes
        return {"hash": digest, "hash_rest": bytes(16), "uuid": u, "unknown_0x220": self.WORD_0x220,
                "unknown_0x228": graphs}

    def gzip_mtime(self) -> int:
        return int(time.time()) & 0xFFFFFFFF if self.reading is self.RANDOM else 0


class NeffCopiedFields(Decision):
    id = "R-84"
    subject = ("def.json and sidecar fields of a NEFF written from a kernel whose derivation is unknown "
               "(runtime_event_count, runtime_semaphore_count, runtime_statebuffer_reservation, neff_features, "
               "fp8_conversion_config, act_semaphore, cc_streams, a virtual variable's backing_variable_off)")
    reason = ("the same in every graph of the 2.23 files (cayman: the 22 graphs of the 10 trn2 corpus files and "
              "the two matmul NEFFs; sunda: the 6 trn1 files): 12 events, 3 runtime semaphores, act_semaphore 12, "
              "no cc streams; cayman reserves SBUF 229368..229375 (evtaccel) and lists neff_feature_vnc, sunda "
              "neither; every 2.23 'virtual' variable has backing_variable_off 0")
    COPY = Reading("copy", "the values of the target's 2.23 files, as they are")


class NeffDmaQueues(Decision):
    id = "R-86"
    subject = "the def.json dma_queue table of a NEFF written from a kernel"
    reason = ("the 2.23 files declare one queue per engine that issues DMAs, 16 queues owning a block of 16 "
              "semaphores from 8 (8..23, 24..39, 40..55; which engine gets which block varies: cayman pool 24..39 "
              "and sp 8..23 in 7 graphs, pool 8..23 with sp/act/dve at 24.. or 40.. in 9, none in 10 graphs "
              "without queues; sunda pool 8..23 in all 6), named qPoolDynamic (with dynamic_dma scratch 0/16384), "
              "qSPDynamicHW, qActDynamicHW; no PE or DVE DynamicHW queue was seen")
    PER_ENGINE = Reading("per-engine", "one queue per engine whose bundles hold a DMA, owning the block of the "
                                       "semaphores they signal (one block per engine, refused otherwise, S-64); the "
                                       "staging's Pool DMAs (R-81) take Pool's block, else the lowest free one; a "
                                       "pe or dve queue is named qPEDynamicHW / qDVEDynamicHW by analogy")


class NeffTables(Decision):
    id = "R-85"
    subject = "the activation-function and DVE table members of a NEFF written from a kernel"
    reason = ("the tables (act_info.json, <set>.json, <set>_bkt.bin, <set>_ctrl.bin, default_*_table.bin) are the "
              "compiler's data, which tongasm does not have; the simulator reads none of them (it computes each "
              "function). The sets a graph loads are named in Activation.json activation_function_sets, which "
              "R-21 makes the index of every ActivationTableLoad")
    NAMES = Reading("names", "Activation.json lists the sets the Activation stream loads (in first-load order, "
                             "each ActivationTableLoad's +0x23 rewritten to its position under R-21=graph-table); no "
                             "table member is written, and no sidecar key names one (act_info, dve_tables)")
