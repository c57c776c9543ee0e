"""Decisions of the PE (matmul) family read from the real NEFFs: the unused descriptor dims (R-9),
the stationary pattern (R-10), the psum flags (R-11), the transpose (R-12), the tile geometry (R-13)
(neff-and-real-opcodes.md §2) and the fp32 pass mode of the control band (R-28, from the corpus).
"""

from __future__ import annotations

from .base import Decision, Reading


class PeFp32Mode(Decision):
    id = "R-28"
    subject = "PE +0x21 (0x01 Ldweights, 0x02 Matmul): the fp32 pass mode"
    reason = ("the vendor profiler prints +0x21 as fp32_mode: LOW (1) and HIGH (2) on Ldweights, LOW_HIGH (3) on "
              "Matmul, nothing for 0 (attention-trn2 listings). Over the corpus +0x21 is non-zero exactly on the fp32 "
              "(wire 0x0A) bundles: Ldweights LOW 28,384 / HIGH 28,160, Matmul LOW_HIGH 40,883 / HIGH 15,670 (HIGH on "
              "Matmul only in sunda 2.14), and 0 on all 663,391 bf16 and 1-byte ones, on both targets and both "
              "compiler versions. The book reads it as a perf/opcode-variant byte (0 default, 2 load-weights perf, "
              "3 perf/transpose, 0x80 CoreV2 fp32): 0x80 never occurs and 2/3 occur only with fp32 inputs, "
              "transposes or not")
    FP32_MODE = Reading("fp32-mode", "an enum: 0 none, 1 LOW, 2 HIGH, 3 LOW_HIGH (the profiler's names); the text "
                                     "writes fp32=low|high|low_high")
    BOOK_PERF = Reading("book-perf", "the book: a raw perf/opcode-variant byte (0 default, 2 load-weights perf, 3 "
                                     "perf/transpose, 0x80 CoreV2 fp32), shown as a number")

    NAMES = {0: "none", 1: "low", 2: "high", 3: "low_high"}

    @property
    def named(self) -> bool:
        """Whether +0x21 decodes to the fp32-mode names (else a plain byte)."""
        return self.reading is self.FP32_MODE


__all__ = ["PeEvaluation", "PeFp32Mode"]


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


class PeEvaluation(Decision):
    id = "S-120"
    subject = "how the simulator evaluates a Matmul's (0x02) products and K-sum under S-41=f64-round"
    reason = ("the hardware accumulates in float32 (NKI: matmul accumulation and results are always float32), in an "
              "order no public source gives; f32-accumulate does too, in the BLAS's order, and is the faster: "
              "matmul_large's 33,280 Matmuls (K = M = 128, N = 512, fp16) are most of its CPU time and a float64 "
              "product takes ~1.7x a float32 one (0.39 vs 0.23 ms, one BLAS thread): the whole run is 3.67x np.matmul "
              "under exact-f64, 2.52x under f32-accumulate (24.8 vs 17.1 CPU s, np.matmul 6.77, same process, "
              "benchmarks/pe_cpu.py's data). Corpus evidence "
              "(benchmarks/corpus_oracle.py, seed 0, both readings): all 25 graphs that match their references and "
              "hold Matmuls (2,565 Matmul bundles: the 7 attention-trn2, the 6 causal-attention-trn1, 12 yolox-trn1) "
              "still match under f32-accumulate; max error equal on 17, larger on 7 (the fp32 attention graphs "
              "~1.45x, err/tol 0.09 at most; causal-attention o 1 -> 2 bf16 ulps, err/tol 0.18), smaller on 1 "
              "(MODULE_13214175252872346393). Products of 1- and 2-byte floats (fp8, fp16, bf16: at most 11 "
              "significand bits) are exact in float32, so for them the readings differ only in how the K-sum "
              "rounds; they agree whenever every partial sum is a float32 value (matmul_large's k/8 benchmark data: "
              "all 8,388,608 outputs equal under both). tests/test_sim_pe_speed.py pins both on hand-derived values")
    F32_ACCUMULATE = Reading("f32-accumulate", "the inputs as float32, a float32 matrix product (products exact for "
                                               "1- and 2-byte inputs, each addition rounded, in the BLAS's order), "
                                               "as the hardware accumulates in float32")
    EXACT_F64 = Reading("exact-f64", "S-41 as written: the inputs as float64, a float64 matrix product, rounded once to "
                                     "float32 (RNE): deterministic, independent of a BLAS's order (the default before "
                                     "the corpus check)")

    @property
    def exact(self) -> bool:
        """Whether the K-sum is taken in float64 and rounded once (else in float32, each addition rounded)."""
        return self.reading is self.EXACT_F64
