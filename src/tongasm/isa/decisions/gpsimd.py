"""The decisions of the Pool-engine (GPSIMD) opcodes that real compiler output exercises:
TensorScalarAddr 0x74, the custom-op pair 0x85/0x86, the gather pair 0x67/0x68 and
TensorScalarAffineSelect 0x92 (R-70..R-74), and the simulator's choices for them (S-75..S-79, S-121).

Evidence is the shared corpus (``shared/groundtruth/corpus``): 559 bundles of 0x74 (458 distinct,
31 yolox-trn1 NEFFs, neuronx-cc 2.14, sunda), 92 of 0x85 and 460 of 0x86 (2 NEFFs), 18 each of 0x67
and 0x68 (4 NEFFs), 8 of 0x92 (6 causal-attention-trn1 NEFFs on sunda and moe-trn2/attn_v6 on
cayman, both 2.23). Counts per byte were taken over the distinct bundles.
"""

from __future__ import annotations

from .base import Decision, Reading


class TensorScalarAddrSlots(Decision):
    id = "R-70"
    subject = "TensorScalarAddr 0x74: descriptor slots and scalar value words"
    reason = ("the book (S2D2_TS_AS) gives only the control band +0x28..+0x2F and 'two TENSOR2D with unknown "
              "placement'; the bytes (458 distinct real bundles): +0x0C..+0x17 and +0x34..+0x3F each hold an ADDR4 "
              "then steps {1,1} and counts whose num0 equals in both (448 of 458 bundles have num0 1, the rest "
              "3..0x78) - the in and out TENSOR2D; +0x18 and +0x20 carry the two scalars' value words: small "
              "integers where the kind byte says immediate, ADDR4 words (partition bits set) where it says pointer; "
              "an immediate -1 (16 bundles) fills all of +0x20..+0x27 with 0xFF, so each word is 8 bytes; "
              "+0x30..+0x33 are zero in every bundle")
    BYTES = Reading("bytes", "in TENSOR2D +0x0C, s0 value u64 +0x18, s1 value u64 +0x20, +0x30 reserved, "
                             "out TENSOR2D +0x34")
    WORD32 = Reading("u32-words", "as 'bytes' but the value words are 4 bytes (+0x18, +0x20) and +0x1C/+0x24 "
                                  "reserved: contradicted by the 16 bundles whose s1 = -1 sets +0x24..+0x27")

    @property
    def value_width(self) -> int:
        """Bytes of each scalar's value word."""
        return 8 if self.reading is self.BYTES else 4


class TensorScalarAddrKinds(Decision):
    id = "R-71"
    subject = "TensorScalarAddr 0x74: the scalar kind bytes +0x2A / +0x2B"
    reason = ("the bytes: kind 1 in 234 distinct bundles, each with an ADDR4 word (start partition and byte "
              "offset, e.g. 0x00018050) as its value; kind 0 in the rest with small integers or -1 (1, 4, 0, -1); "
              "the vendor profiler prints TensorScalar's kinds as imm=0, ptr=1, reg=2; N-2's draft (0 = pointer) "
              "is the reverse; no register kind is seen")
    IMM0_PTR1 = Reading("imm0-ptr1", "0 = immediate (the value word, in the scalar's dtype), 1 = pointer (the "
                                     "value word is the ADDR4 of a [P,1] column), 2 = register")
    PTR0_IMM1 = Reading("ptr0-imm1", "N-2's draft: 0 = pointer, 1 = immediate (contradicted: kind 1 values are "
                                     "ADDR4 words)")

    def names(self) -> dict[int, str]:
        if self.reading is self.IMM0_PTR1:
            return {0: "imm", 1: "ptr", 2: "reg"}
        return {0: "ptr", 1: "imm", 2: "reg"}


class CustomOpHeader(Decision):
    id = "R-72"
    subject = "CustomOpHeader 0x85 / CustomOpPayload 0x86: the header's function byte and the payload count"
    reason = ("MASTER: 'header 0x85 + 0x86 x (1+num_args)'; no byte map in the book. The bytes (92 headers): "
              "+0x0C = 5 in all, and exactly 5 payloads follow each header; +0x0F = 4 in all (= num_args, "
              "5 = 1 + 4); +0x0E is 0 (23) or 1 (69), and the graph's ucode_lib.json lists two functions of "
              "opcode 133 (0x85): sub_opcode 0 partial_sort_multicore_compute, 1 partial_merge_multicore_compute")
    BYTES = Reading("bytes", "+0x0C payload count, +0x0E sub_opcode (ucode_lib.json function), +0x0F argument count")


class GatherPair(Decision):
    id = "R-73"
    subject = "the gather pair: PoolBufferLoad 0x67 and its co-issued 0x68"
    reason = ("POOL 5: 0x67 (S4_PB) src TENSOR4D +0x0C, dtype +0x20, lane +0x22, element count +0x28, 0x1FF "
              "+0x2C; 0x68 (reg_load) dtypes +0x20/+0x21, lane +0x22, u16 +0x24, param +0x28 = 0. The bytes (18 "
              "pairs): every 0x67 has +0x28 = 0 (the book's 'load span' is not written) and +0x2C = 0x1FF; every "
              "0x68 has +0x24 = 256, +0x28 = 0 and a second TENSOR4D at +0x2C (ADDR4, steps and counts 1) the "
              "book does not place; 0x68's src is one uint32 per lane, its dst one float32 per lane; each 0x67 is "
              "followed by a 0x68 with its lane count")
    BYTES = Reading("bytes", "0x67: src TENSOR4D +0x0C, dtype +0x20, lanes +0x22, element count +0x28, mask +0x2C; "
                             "0x68: src/dst TENSOR4D +0x0C/+0x2C, dtypes +0x20/+0x21, lanes +0x22, depth +0x24, "
                             "param +0x28")


class AffineSelectLayout(Decision):
    id = "R-74"
    subject = "TensorScalarAffineSelect 0x92: byte map"
    reason = ("the book: 'wire byte-map not recovered'; operands idx pattern, index expr, fill_value, cmp_mode, "
              "dtype; MASTER: '4-D mask + 2-bit compare'. The bytes (8 bundles, sunda and cayman, identity "
              "matrices 'IDAffineSelect(mask,fill=1)'): +0x0C = 0x80 lanes; +0x0D = 0x66 (bf16) / 0xAA (fp32) "
              "dtype nibbles; +0x0E = 3; +0x0F = 0x3D, the register the RegisterMove just before sets to 1.0f "
              "(the fill); +0x10 offset 0 then steps {1,1,1,1} and counts {128,1,1,1} (a 4-D pattern as Iota's); "
              "+0x24 and +0x30 TENSOR2D (same address: in place); +0x3C = -1, the channel multiplier that makes "
              "f - p the affine value")
    BYTES = Reading("bytes", "lanes +0x0C, in dtype lo / out dtype hi nibble +0x0D, compare +0x0E, fill register "
                             "+0x0F, offset +0x10, pattern steps +0x14, counts +0x1C, in TENSOR2D +0x24, out "
                             "TENSOR2D +0x30, channel multiplier +0x3C")


# --- the simulator's choices ----------------------------------------------------------------------------------

class TensorScalarAddrArith(Decision):
    id = "S-75"
    subject = "TensorScalarAddr 0x74: arithmetic"
    reason = ("the graphs compute gather/scatter addresses with it (BIR names *_TSPAddAddr, *_TSPAddOffset): in "
              "yolox MODULE_15847435347519622229 TSPAddAddr multiplies an int32 row index by 28 (the 7 float32 of a "
              "row of the HLO gather's [8400,7] operand) and adds a per-partition uint64 pointer; TSPAddOffset adds "
              "that result (a pointer to it) to an int32 offset, and the IndirectLoad after it reads the uint64 it "
              "wrote; every real bundle has integer dtypes only (int32, uint64)")
    INT64 = Reading("int64", "out = op1(op0(in, s0), s1) in 64-bit two's complement, each operand read in its "
                             "dtype, the result wrapped to the out dtype; a float dtype stops the simulator")
    FP32 = Reading("fp32", "as TensorScalar: operands converted to float32 (loses address bits above 2^24)")

    @property
    def integer(self) -> bool:
        return self.reading is self.INT64


class AffineSelectCompare(Decision):
    id = "S-76"
    subject = "TensorScalarAffineSelect 0x92: the compare code and what is selected"
    reason = ("NKI affine_select: value = offset + p*channel_multiplier + sum(step*index); where cmp(value, 0) "
              "the on_true tile, else on_false_value. The real bundles build identity matrices with code 3 and "
              "fill 1.0 from value f - p: only 'not equal' puts the fill on the diagonal; the other codes of the "
              "2-bit field are not seen")
    NE3 = Reading("code3-not-equal", "code 3 = not_equal; true keeps the input element, false writes the fill "
                                     "register's float32; other codes stop the simulator")
    EQ3 = Reading("code3-equal", "code 3 = equal (the fill off the diagonal: no identity)")

    def compare(self, code: int) -> str | None:
        """The numpy comparison name of a compare code, or None when unknown."""
        if code != 3:
            return None
        return "not_equal" if self.reading is self.NE3 else "equal"


class CustomOpExecution(Decision):
    id = "S-77"
    subject = "custom ops (0x85 + 0x86)"
    reason = ("the function is Xtensa code (the NEFF's libbuiltincustomop_cpu*.so members) run by the Pool "
              "engine's CPUs; its behaviour is not in any byte map. Its HLO does not state it either: the two "
              "graphs that reach one (yolox MODULE_14856528739640727327, MODULE_15023315273075843957) hold no "
              "partial_sort custom-call; their HLO has 9 and 14 key/value `sort`s (f32[142] resp. f32[346] with an "
              "s32 iota, compare-less-than, from aten topk), and the NEFFs lower each to one "
              "partial_sort_multicore_compute (sub_opcode 0: 9 and 14 headers) and three "
              "partial_merge_multicore_compute (sub_opcode 1: 27 and 42). The HLO states what the four together "
              "compute, not what one of them leaves for the next (the layout of the partial results, which of the "
              "four payload descriptors is keys, indices, scratch or output: R-72 leaves their words unread). S-121 reads "
              "those two functions from the NEFF's own DMAs and names; every other function stops here")
    STOP = Reading("stop", "the simulator stops at the header, naming the ucode_lib.json function (but for the "
                           "two sort functions under S-121)")


class SortMergeCustomOps(Decision):
    id = "S-121"
    subject = "the custom ops partial_sort_multicore_compute / partial_merge_multicore_compute (0x85 sub_opcodes 0, 1)"
    reason = ("what the bytes, the NEFF's own JSON and the HLO say (docs/research/partial-sort-custom-ops.md). "
              "Every one of the 23 partial_sort calls (yolox MODULE_14856528739640727327: 9, "
              "MODULE_15023315273075843957: 14) has 5 payloads: a float32 of 2n elements (the tensor_map names "
              "it sort_kernelSort_*_sort_dst, f32[2n]), float32 n (its keys: the DMA before it fills them from "
              "*_sort_src), int32 n (an iota 0..n-1, the HLO sort's s32 operand), and two int32 scalars that read "
              "0 and 1 in every call; n = 142 resp. 346, the HLO sorts' length. Every one of the 69 partial_merge "
              "calls has a float32 2n out, a float32 2n in (the last call's out or a reload of it; once the same "
              "address: in place), an int32 scalar that reads 8, 4, 2 in the three calls of one sort (the "
              "tensor_map's merge_sort_dst_8 / _4 / _2 are their outs) and the same two scalars 0, 1. The last "
              "merge's out is read back by a DMA that takes its bytes 4n..8n (the second half) and casts float32 "
              "to int32 into the HLO sort's s32 result (sort.2, ...): the [keys | values] halves, values held as "
              "float32. The HLO's comparators are all compare LT (ascending, key = the f32 operand, not stable); "
              "ucode_lib.json says total_cpus 8, the number of runs the first merge takes. How the n keys are "
              "split among the 8 CPUs is not observable: each merge output is read only by the next merge, and "
              "any split gives the same full sort after 8 -> 4 -> 2 -> 1. On the harness's seeded inputs every key "
              "reaching partial_sort is -NaN (0xFFC00000) in both graphs, so their index results are 0, 1, 2, ... "
              "under TOTALORDER; the HLO reads only each sort's first index")
    RUNS = Reading("sorted-runs", "partial_sort: the keys in total_cpus chunks of ceil(n/total_cpus), each "
                                  "sorted ascending (stable) carrying its values; out = [keys | values as "
                                  "float32]. partial_merge with count N: the in holds N such runs (groups of "
                                  "total_cpus/N chunks), merged pairwise (stable, left run first) into N/2. Keys "
                                  "compare in IEEE total order, the HLO comparators' TOTALORDER (-NaN first, +NaN "
                                  "last). Scalars other than 0, 1, an unsorted input run, other shapes or dtypes "
                                  "stop the simulator naming the function")
    RUNS_NAN_STOP = Reading("sorted-runs-nan-stop", "as sorted-runs, but a NaN key stops the simulator (where the "
                                                    "CPUs' code puts NaN is not known: TOTALORDER is what the HLO "
                                                    "asks, not what the Xtensa code is seen to do)")
    STOP = Reading("stop", "as S-77: the simulator stops at the header, naming the function")

    @property
    def simulated(self) -> bool:
        return self.reading is not self.STOP

    @property
    def nan_total_order(self) -> bool:
        """NaN keys sort in IEEE total order (else they stop the simulator)."""
        return self.reading is self.RUNS


class GatherExecution(Decision):
    id = "S-78"
    subject = "the gather pair 0x67 / 0x68"
    reason = ("POOL: 'a buffer-load of indices plus a register/vector load'. The graph (yolox "
              "MODULE_15847435347519622229, HLO gather f32[6,7] = rows idx[6] of a [6,7] table, slice [1,7]) "
              "lowers to 7 pairs on 6 lanes: each 0x67 loads 6 float32 per lane (one table column, 24 bytes "
              "apart), each 0x68 reads one uint32 index per lane and writes one float32 per lane, 4 bytes apart "
              "(column k of the [6,7] result); in the other graphs 0x67 loads 9..346 elements per lane and its lanes "
              "are other partitions than 0x68's (p32 vs p96), with equal lane counts. So: the pool buffer holds, per "
              "lane (counted from the first), the vector 0x67 loaded; 0x68 lane i picks element idx of lane i's "
              "vector. Run against HLO gather.3276 of that graph on the memory its own DMA descriptors place (tests/"
              "test_corpus_gpsimd.py): output0 = R1[select(p0 < 0, p0 + p1, p0)] exactly. The program broadcasts the "
              "same table transpose to all 6 lanes (a StreamShuffle) before the pairs, so that graph cannot tell a "
              "per-lane buffer from one buffer shared by the lanes")
    LANE_BUFFER = Reading("lane-buffer", "0x67: lane i's buffer = its src elements; 0x68: dst[i] = buffer[i][src[i] "
                                         "& mask], lanes counted from each operand's start partition (an index past "
                                         "the buffer stops the simulator)")
    STOP = Reading("stop", "the simulator stops at the pair, naming it")

    @property
    def simulated(self) -> bool:
        return self.reading is self.LANE_BUFFER
