"""The decisions of the DVE data-movement family (the book's DMOV page, ``isa/dve-datamove-encoding.md``):
LoadMaskSelect 0x69, StreamShuffle 0x6A and StreamTranspose 0x6B.

The R-n here record what the real bundles settled against the book: every real bundle of these
opcodes is in the yolox-trn1 part of the corpus (neuronx-cc 2.14, sunda): 31,131 LoadMaskSelect,
327 StreamShuffle and 31,631 StreamTranspose bundles in 36 graphs (the counts are of every bundle of
every corpus NEFF; ``tests/test_corpus_move.py`` recounts them). The S-n say what the simulator
computes where the book, the NKI documentation and the graphs' HLO leave room.
"""

from __future__ import annotations

from .base import Decision, Reading


class MaskBundleBand(Decision):
    id = "R-50"
    subject = "LoadMaskSelect 0x69: what the bundle holds besides the header and the sync band"
    reason = ("DMOV pairs the 32 lane bytes at +0x20..+0x3F with a src AP at +0x0C and a dst AP at +0x2C on the "
              "0x69 bundle; the real bundles hold no access pattern: +0x0C..+0x1F are zero in all 31,131 of them "
              "(a TENSOR4D there would need non-zero counts), +0x20..+0x3F hold the lane bytes (a dst AP at +0x2C "
              "would overlap lanes 12..31). The mask is loaded alone; the bundle after it moves the data")
    MASK_ONLY = Reading("mask-only", "+0x0C..+0x1F reserved (zero); +0x20+i = the byte of lane i, i = 0..31")


class MaskKeepByte(Decision):
    id = "R-51"
    subject = "LoadMaskSelect 0x69: how a lane that is left alone is written"
    reason = ("DMOV: the encoder replaces a 0xFF mask entry by a passthrough sentinel (partition_count | 0x20); "
              "the real lane bytes are 0x00 or 0xFF only (0xFF in 15,890 bundles at +0x25, never a byte in "
              "0x20..0xFE): the compiler of the corpus (2.14) stores 0xFF itself, NKI's value for 'this partition "
              "is unmodified' (nc_stream_shuffle)")
    FF = Reading("0xff", "a lane byte 0xFF leaves the lane's dst partition unmodified; 0..31 name a lane")


class MaskOrder(Decision):
    id = "R-52"
    subject = "the order of a mask and the bundle that uses it"
    reason = ("DMOV describes StreamShuffle as {0x6A, 0x69} and StreamTranspose as {0x6B, 0x69}, the mask half "
              "second; in the real streams every one of the 31,131 LoadMaskSelect bundles is followed at once by "
              "a StreamTranspose (30,804) or a StreamShuffle (327) of the same BIR instruction (the .dbg names "
              "agree), and every StreamShuffle is preceded by one: the mask is loaded first and the data "
              "movement after it reads it")
    MASK_FIRST = Reading("mask-first", "0x69 loads the engine's lane mask; a later 0x6A/0x6B reads it")


class TransposeMaskFlag(Decision):
    id = "R-53"
    subject = "StreamTranspose 0x6B: byte +0x26"
    reason = ("DMOV names +0x26 d3_transpose_ch, a constant-1 store that only the standalone transpose makes; the "
              "real bytes: +0x26 = 1 in 30,804 bundles, each right after a LoadMaskSelect of the same BIR "
              "instruction, and 0 in the other 827, none of them after a mask of their instruction (the lone "
              "transpose of the convolution graph MODULE_10747631036569739100 among them, in a DVE stream with "
              "no 0x69 at all). The byte says whether the transpose applies the loaded lane mask")
    MASK_SELECT = Reading("mask-select", "1: the loaded lane mask selects the dst lanes written; 0: every lane is "
                                         "written and no mask is read")


class TransposeSourceRepeat(Decision):
    id = "R-54"
    subject = "StreamTranspose 0x6B: the src descriptor's outermost dim"
    reason = ("DMOV quotes the validator string 'instr.src_mem_pattern.num_elem[3] == 1'; 1,495 real bundles have "
              "src num3 = 32 or 16 with step3 = 0 (src {1 x 32} or {2 x 16}: a column read again until the src "
              "gives 32 elements per partition), so no such rule holds for these bundles. In every real bundle "
              "the src holds 32 elements per partition and the dst at most 32")
    REPEAT = Reading("repeat-allowed", "any src dims whose element count is 32; a step-0 outer dim repeats")


class ShuffleLanes(Decision):
    id = "S-65"
    subject = "what StreamShuffle 0x6A writes"
    reason = ("NKI nc_stream_shuffle: 'shuffle_mask[i] indicates which input partition the output partition [i] "
              "copies from within each 32-partition quadrant', 255 leaves partition [i] unmodified, the same mask "
              "for every quadrant. Checked against the HLO of MODULE_10119949978640653758 (multiply by a scalar "
              "broadcast to 512x1024: four all-zero masks copy the scalar from partition 0 to partitions 0..127, "
              "tests/test_corpus_move.py runs the graph)")
    LANE_INDEX = Reading("lane-index", "for each quadrant q of num_active_channels and each lane i with mask[i] != "
                                       "0xFF: dst partition 32q+i = src partition 32q+mask[i] (every element)")


class TransposeMask(Decision):
    id = "S-66"
    subject = "what a loaded lane mask does to a StreamTranspose with +0x26 = 1"
    reason = ("no source says: DMOV has the mask half but not its meaning, NKI nc_transpose has no mask. Every real "
              "mask before a transpose is k lanes of 0x00 then 0xFF (k = 1..29): as lane indices all k written "
              "lanes would receive the same column, which no compiler would emit for a transpose; as a write "
              "enable they keep the transpose to its first k dst partitions (k = the dst partitions the "
              "instruction needs: a {1 x 32} repeated src column comes with k = 1)")
    WRITE_ENABLE = Reading("write-enable", "a lane whose byte is 0xFF keeps its dst partition; any other byte lets "
                                           "the lane's own transposed column be written")
    LANE_INDEX = Reading("lane-index", "as StreamShuffle: dst lane i receives transposed column mask[i] (0xFF keeps)")

    @property
    def lane_index(self) -> bool:
        """Whether a lane byte names the column the lane receives (else it only enables the write)."""
        return self.reading is self.LANE_INDEX


class TransposeGeometry(Decision):
    id = "S-67"
    subject = "what StreamTranspose 0x6B computes"
    reason = ("NKI nc_transpose on the Vector engine: a partition/free (PF) transpose of at most 32 x 32. The real "
              "bundles give the src 32 elements per partition (one per dst lane) and the dst E <= 32 elements "
              "(one per src partition read). Checked against the HLO of the convolution graph "
              "MODULE_10747631036569739100 (its 32x32 weights are transposed once before the PE reads them)")
    PF = Reading("pf-transpose", "for each quadrant: dst[32q+i, j] = src[32q+j, i] for lanes i < 32 and j < the "
                                 "dst elements per partition (free dims flattened in access-pattern order)")


class MaskState(Decision):
    id = "S-68"
    subject = "how long a loaded lane mask lasts"
    reason = ("R-52: the mask is engine state that a later bundle reads; the real streams always use it in the "
              "very next bundle, so nothing in them tells whether it lasts longer")
    PERSIST = Reading("until-replaced", "the DVE keeps the last LoadMaskSelect's mask until the next one; a bundle "
                                        "that reads a mask before any was loaded stops the simulator")


class TransposeLowering(Decision):
    id = "R-55"
    subject = "which BIR StreamTranspose gets a LoadMaskSelect, and what mask"
    reason = ("DMOV: visitInstStreamTranspose forks on the dst partition size, 'if ebx <= 31 ... emits only 0x6B', "
              "'if ebx >= 32 the full {0x6B + 0x69} pair'. The real bytes say the reverse: each of the 30,804 masked "
              "0x6B bundles follows a mask of k lanes 0x00 then 0xFF (k = 1..29, never 32) and every mask before a "
              "transpose is such a prefix; the 827 unmasked ones include the 32 x 32 weight transpose of "
              "MODULE_10747631036569739100, which writes all 32 dst partitions. A mask enabling the first k lanes is "
              "what a dst of k < 32 partitions needs (S-66); a whole quadrant needs none")
    PARTIAL_DST = Reading("partial-dst", "a dst of k < 32 partitions: LoadMaskSelect of k lanes 0 then 0xFF, then "
                                         "0x6B with use_mask 1; any other dst: the 0x6B alone, use_mask 0")
