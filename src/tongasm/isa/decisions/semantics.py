"""The S-n decisions of the simulator: what tongasm's simulator and reference interpreter compute
where the semantic sources (``background/semantics.md``, the real NEFFs) disagree or are silent.

Each is a decision with its reason; the numeric kernels (:mod:`tongasm.sim.numeric`), the bundle
simulator and the IR reference interpreter follow them and cite their ids where the code depends on
them. Most have one reading (the behaviour is implemented once); those with alternatives are
selectable like any D-n.
"""

from __future__ import annotations

from .base import Decision, Reading


class FloatToInt(Decision):
    id = "S-1"
    subject = "float → integer conversion"
    reason = (
        "semantics §3 item 6: the cast page says truncation (numpy astype); the book says narrowing clamps; "
        "numpy's wrap/INT_MIN is an x86 artefact, not a device rule"
    )
    CHOSEN = Reading("truncate-saturate", "truncate toward zero, saturate to the destination range, NaN → 0")


class FloatNarrowing(Decision):
    id = "S-2"
    subject = "float → narrower float"
    reason = (
        "semantics §3 items 5 and 9: one rounding mode (RNE); the compiler's FP8 config defaults to "
        "saturation; bf16/fp16 narrowing keeps inf (range_select note)"
    )
    CHOSEN = Reading(
        "rne",
        "round to nearest even; float8 saturates to its largest finite value, bfloat16/float16 overflow to ±inf; NaN stays NaN",
    )


class WireElementType(Decision):
    id = "S-3"
    subject = "which element type a wire dtype computes as"
    reason = (
        "the wire tag is all the bundle carries; 0x0E is shared by float8e4 and float8_e4m3fn and the "
        "runtime's default e4m3 range (emax 8, saturation) matches e4m3fn (semantics §2.3); float32r rounding"
        " is undocumented (§14)"
    )
    CHOSEN = Reading(
        "e4m3fn",
        "0x0E → float8_e4m3fn, 0x0D → float8_e3m4, 0x0F → float8_e5m2, 0x03 → uint8, 0x05 → uint16, 0x0B (float32r) → float32",
    )


class TensorTensorPath(Decision):
    id = "S-4"
    subject = "TensorTensor arithmetic path"
    reason = (
        "semantics §3 items 1 and 8: VectorE/ScalarE do arithmetic in fp32; GpSimd has true integer "
        "arithmetic that wraps"
    )
    CHOSEN = Reading(
        "fp32-hub",
        "float32 hub (inputs → fp32, op in fp32, result → dst dtype), except the integer path: the GPSIMD int32 forms (0x8A, 0x8E, band 0xC4..0xC7) and any op on the Pool engine whose in0, in1 and out are all integers compute exactly in integers and wrap to the dst width",
    )


class CompareResults(Decision):
    id = "S-5"
    subject = "comparison and logical results"
    reason = "semantics §4.3"
    CHOSEN = Reading(
        "one-zero", "1 where true, 0 where false, written in the dst dtype; logical ops test operands != 0"
    )


class BitvecOps(Decision):
    id = "S-6"
    subject = "bit-vector ops and shifts"
    reason = "semantics §3 item 2; over-wide shifts are undocumented (§14)"
    CHOSEN = Reading(
        "raw-bits",
        "on the raw bits of each input (unsigned, its own width); the result is cut or zero-extended to the dst width; a shift amount >= the width gives 0 (arith right: sign fill)",
    )


class DivisionAndMod(Decision):
    id = "S-7"
    subject = "division and mod"
    reason = "semantics §4.3 and §14: the device value for a zero divisor is undocumented"
    CHOSEN = Reading(
        "ieee-truncating",
        "float: IEEE (x/0 → ±inf or NaN), mod = C fmod; integer: truncating quotient, C remainder (sign of the dividend); integer x/0 and x%0 give 0",
    )


class NanInMaxMin(Decision):
    id = "S-8"
    subject = "NaN in max/min"
    reason = "semantics §14: undocumented for DVE; this matches a plain numpy reference"
    CHOSEN = Reading("propagate", "NaN propagates (numpy maximum/minimum)")


class PowRsqrtAbs(Decision):
    id = "S-9"
    subject = "pow, rsqrt, abs"
    reason = "semantics §4.3: the device uses approximations that are not bit-exact"
    CHOSEN = Reading("fp32", "pow = numpy power in fp32; rsqrt = 1/sqrt in fp32; abs = |a| (b ignored); bypass = a")


class PredicatedWrites(Decision):
    id = "S-10"
    subject = "predicated writes"
    reason = "semantics §5, §8.1, §8.2"
    CHOSEN = Reading(
        "nonzero-true",
        "a predicate element is true iff its bits are non-zero; unwritten lanes keep the dst value; 0x72 copies bits, 0x99 converts through fp32 (S-1/S-2); 0xE8 writes its scalar where the predicate is non-zero when the polarity flag is 1 and where it is zero when the flag is 0 (D-14)",
    )


class SelectReduceSemantics(Decision):
    id = "S-11"
    subject = "SelectReduce"
    reason = (
        "semantics §8.3 (NKI reading of the false lanes with a fill; the book's merge reading without one); "
        "the accumulator is engine state, not memory"
    )
    CHOSEN = Reading(
        "nki-fill",
        "dst = predicate ? src : (fill if the use-fill flag is set, else the old dst); the per-partition max of the resulting row goes to the engine's accumulator: Idle leaves it, Zero resets it to -inf, ZeroAccumulate and LoadAccumulate set it to the row max, AddAccumulate takes max(acc, row max)",
    )


class RandomFill(Decision):
    id = "S-12"
    subject = "Memset Random (xorwow)"
    reason = "semantics §10.2: the draw order, lane mapping and seeding are undocumented"
    CHOSEN = Reading(
        "xorwow",
        "one xorwow state per engine and partition, initialised to Marsaglia's seeds with s0 = 123456789 XOR (seed + partition); one draw per element, in access-pattern order (outermost first) within each partition; the low bits of the 32-bit draw fill the element",
    )


class Registers(Decision):
    id = "S-13"
    subject = "registers"
    reason = "semantics §12.1 and §12.3 (BIR-sim doRegisterAlu<int>/<long>); KLR initialises to 0"
    CHOSEN = Reading(
        "int32-wrap",
        "62 physical 32-bit registers per engine, all 0 at start; RegisterAlu computes in two's complement int32 (int64 for a pair when 64-bit), wrapping, whatever the dtypes say; float bits are not special",
    )


class LoadSaveLanes(Decision):
    id = "S-14"
    subject = "TensorLoad / TensorSave"
    reason = "semantics §12.4: the register path's details are undocumented beyond the encoders"
    CHOSEN = Reading(
        "lanes",
        "the m2d pattern counts lanes of its wire dtype (64-bit data = two int32 lanes, lo first); a 32-bit load reads lane 0 into the data register, a 64-bit load lanes 0 and 1 into lo/hi; save writes the same lanes; an offset register adds its value, in elements, to the start; the IMM form addresses variable var_id at byte var_offset; the REG form's register holds an ADDR4-style SBUF/PSUM address; from bytes, data is 64-bit iff num_elem[0] is even and +0x21 = +0x20 + 1",
    )


class MoveShapeEffect(Decision):
    id = "S-15"
    subject = "MoveShape"
    reason = "SPEC §4.9: a DMA helper"
    CHOSEN = Reading(
        "shape-registers", "loads the engine's shape registers (steps, counts, direction); no memory effect"
    )


class Synchronisation(Decision):
    id = "S-16"
    subject = "synchronisation"
    reason = "semantics §12 / sp-and-enums §2.7 (the BIR-sim's needWait / actOn)"
    CHOSEN = Reading(
        "in-order-turns",
        "256 int32 semaphores and 256 event bits, all 0 at start; a bundle's wait is checked before it runs (an evt_set_clear wait consumes the event); its update is applied after it runs; engines take turns one bundle at a time in the order pool, act, pe, dma, dve, sp",
    )


class InitialMemory(Decision):
    id = "S-17"
    subject = "initial memory"
    reason = "the sources do not say; zero makes runs reproducible"
    CHOSEN = Reading("zero", "SBUF and PSUM start zeroed; inputs are written before the run")


class AccumulatorInit(Decision):
    id = "S-18"
    subject = "accumulator initial value"
    reason = "NKI: reset_reduce resets the accumulators to -inf"
    CHOSEN = Reading("minus-inf", "-inf per engine and partition")


class RepeatedWrites(Decision):
    id = "S-19"
    subject = "a destination access pattern that reaches one element more than once"
    reason = (
        "SPEC §3.4 passes a 0 step through (a broadcast), so a destination can name one element several "
        "times; the sources do not say which write survives; an engine streaming the pattern in order leaves "
        "the last"
    )
    CHOSEN = Reading(
        "last-wins",
        "the last write in access-pattern order wins (free dims outermost first, the innermost fastest); every input is read before the first write",
    )


# --- the next families (next-families.md; research: docs/research/next-families-semantics.md) -------------
# S-20..S-39 belong to these families (S-40..S-59 to the PE/DMA families). S-23 of the research note
# (Idle on 0x21) is N-29: the bytes cannot tell Idle from ZeroAccumulate, so it has no simulator reading.

class ActivationPrescale(Decision):
    id = "S-20"
    subject = "Activation pre-scale v = in*scale + bias"
    reason = "SIMACT simulate @0xccf0: mulss then addss (two float32 operations)"
    TWO_ROUNDINGS = Reading("mul-then-add", "float32 multiply, round, float32 add, round")
    FUSED = Reading("fused", "one fused multiply-add (the float64 product is exact; the float64 sum is then rounded "
                             "to float32)")

    @property
    def fused(self) -> bool:
        return self.reading is self.FUSED


class ActivationEvaluation(Decision):
    id = "S-21"
    subject = "activation function values"
    reason = ("the functions are the maths of next-families.md §2.1, not the hardware's PWP approximations (the NEFF "
              "ships only the exp_and_others tables, in an undocumented format); SIMACT's fallbacks are C double "
              "expressions returning float")
    FP32 = Reading("fp32", "the closed form evaluated in float32 arithmetic (numpy float32 ufuncs; erf via C's "
                           "double erf rounded to float32); results may differ from the device by the PWP error")
    F64_ONCE = Reading("f64-once", "the closed form evaluated in float64 and rounded once to float32 (SIMACT's C "
                                   "double fallbacks)")

    @property
    def dtype(self) -> type:
        """The numpy scalar type the closed forms are evaluated in."""
        import numpy as np

        return np.float64 if self.reading is self.F64_ONCE else np.float32


class AccumulatorFold(Decision):
    id = "S-22"
    subject = "accumulator folds (Activation, fused TensorScalar)"
    reason = "NKI activation pseudocode folds the function's output; PENG birsim folds sequentially"
    CHOSEN = Reading("sequential-fp32", "a left-to-right float32 fold in element order of the values before the dst "
                                        "conversion")


class ActivationLoadInit(Decision):
    id = "S-24"
    subject = "the init of an Activation LoadAccumulate"
    reason = "ACT writes imm1 (+0x0C kind, +0x2C value) only for Prelu; N-41 refuses the others by default"
    CHOSEN = Reading("imm1-word", "the +0x2C word read by its +0x0C kind: an immediate's float32 bits, a register's "
                                  "bits, a pointer's element of the lane")


class ReadAccumulatorSemantics(Decision):
    id = "S-25"
    subject = "0x24 / 0x9B read-outs"
    reason = "SIMACT: 'drain the per-engine accumulator with no math'"
    CHOSEN = Reading("drain", "dst[p,0] = the engine's accumulator of lane p (negated on 0x9B when the flag is set), "
                              "converted to the dst dtype; the accumulator is unchanged")


class TensorScalarSemantics(Decision):
    id = "S-26"
    subject = "TensorScalar element op"
    reason = "TS 'out = op1(op0(in, s0), s1)'; NKI tensor_scalar (reverse = operand order)"
    CHOSEN = Reading("two-ops", "t = op0(x, s0) (op0(s0, x) when reverse0), then op1 with s1 likewise; arithmetic in "
                                "float32 (pointer scalars are float32), bit-vector ops on raw bits at the input's "
                                "width (immediates and registers cut to it, pointers of the input's dtype)")


class FusedReduceSemantics(Decision):
    id = "S-27"
    subject = "TensorScalarCacheReduce 0x9A"
    reason = "N-19; NKI tensor_scalar_reduce ('only one operator is supported')"
    CHOSEN = Reading("op0-then-fold", "out = op0(x, s0) only; op1 folds the row into the executing engine's "
                                      "accumulator per N-30 (LoadAccumulate loads s1)")
    ELEMENTWISE = Reading("op1-elementwise-too", "0x9A also applies op1(t, s1) elementwise before the fold")

    @property
    def op1_elementwise(self) -> bool:
        return self.reading is self.ELEMENTWISE


class CumulativeSemantics(Decision):
    id = "S-36"
    subject = "TensorScalarCache cumulative scan 0xE6"
    reason = "NKI tensor_scalar_cumulative: reg = op1(op0(x[i], imm0), reg); out[i] = reg"
    CHOSEN = Reading("scan", "per lane the accumulator starts at id(op1) (Zero, ZeroAccumulate), at s1 "
                             "(LoadAccumulate) or at its value (AddAccumulate); each element folds in and is written; the "
                             "accumulator keeps the last value (Zero: id(op1))")


class ReduceFold(Decision):
    id = "S-28"
    subject = "TensorReduce fold"
    reason = "PENG birsim applyEngReduce: acc = in[base]; for j in 1..extent: acc = reduceFn(acc, ...); negate after"
    CHOSEN = Reading("sequential", "a float32 fold over the reduced elements in row-major order from the first one "
                                   "(bit-vector ops: raw bits), then negate")


class CrossLaneSemantics(Decision):
    id = "S-29"
    subject = "cross-lane reduce 0x7C / 0x7D"
    reason = "POOL/PENG (the encoder writes 1/N at +0x28); the fold order is undocumented"
    CHOSEN = Reading("partition-major", "axis C: per free element a fold over the partitions in order; XYZWC: one fold "
                                        "over everything, partition-major; average = the float32 sum x the +0x28 "
                                        "word; or/and/xor on raw bits")


class ReciprocalSemantics(Decision):
    id = "S-30"
    subject = "Reciprocal 0x48"
    reason = "SIMACT: 'InstReciprocal ... is inline exact 1.0f/x'"
    CHOSEN = Reading("ieee", "1.0f / x in float32 (1/±0 = ±inf), converted to the dst dtype")


class BnStatsSemantics(Decision):
    id = "S-31"
    subject = "BNStats 0x61"
    reason = "BN: 'Lane A accumulates the even-indexed free elements ... lane B the odd', Welford accumulator"
    CHOSEN = Reading("welford-even-odd", "[n_A, mean_A, M2_A, n_B, mean_B, M2_B] over the even and odd elements, by "
                                         "Welford's update in float32; an empty lane gives 0, 0, 0")


class BnAggregateSemantics(Decision):
    id = "S-32"
    subject = "BNStatsAggregate 0x62"
    reason = "BN: the Chan / parallel-variance merge then the divide by N"
    CHOSEN = Reading("chan", "triples merged in order in float32, n = 0 skipped; [mean, M2 / n] (population "
                                 "variance); all empty gives [0, 0]")


class PoolSemantics(Decision):
    id = "S-33"
    subject = "Pool 0x45"
    reason = "PENG birsim visitInstPool: 'acc = -FLT_MAX; for x in window: acc = fmaxf(x, acc)', AvgPool sum x 1/N"
    CHOSEN = Reading("fmaxf-sum", "window = the two innermost input dims; Max: fmaxf fold from -FLT_MAX (NaN ignored); "
                                  "Avg: sequential float32 sum x the +0x28 word")


class IotaSemantics(Decision):
    id = "S-34"
    subject = "Iota 0x7E"
    reason = "NKI iota pseudocode: computed in 32-bit integer arithmetic, per channel"
    CHOSEN = Reading("int32", "base + c x channel_multiplier + sum of step x index (pattern outermost first), int32 "
                              "wrapping, c = the partition within the dst tile; converted to the dst dtype")


class PointerScalars(Decision):
    id = "S-35"
    subject = "pointer and register scalars"
    reason = "NKI: 'the value in each partition is broadcast along the free dimension'"
    CHOSEN = Reading("per-lane", "lane p of the data reads element p of the [P,1] pointer (same start, N-34), "
                                 "converted to float32; a register scalar is its 32 bits read as float32 (arithmetic) "
                                 "or raw (bit-vector)")
