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


class SttSemantics(Decision):
    id = "S-37"
    subject = "ScalarTensorTensor 0x9D / 0x9E element op"
    reason = ("NKI scalar_tensor_tensor: '(data <op0> operand0) <op1> operand1', 'reverse0 ... if true, operand0 is "
              "the lhs of op0', 'reverse1 ... if true, operand1 is the lhs of op1', 'automatically casts input data "
              "types to float32 and performs all computations in float32 math'; TS: 0x9E is the bit-vector form "
              "(isBitVecInstruction), which NKI does not expose ('Bitvec operators are not supported'). The book's "
              "one-line 'out = (scalar op0 tensor0) op1 tensor1' (TS 60106828309, KLR codegen 59773786256) puts the "
              "scalar first, against NKI's operand order with reverse0 false; NKI is followed")
    CHOSEN = Reading("two-ops", "t = op0(tensor0, scalar) (op0(scalar, tensor0) when reverse0), out = op1(t, tensor1) "
                                "(op1(tensor1, t) when reverse1), per element; 0x9D: tensor0, tensor1 and the scalar "
                                "(read in its +0x2B dtype) converted to float32, computed in float32, the result "
                                "converted to the out dtype; 0x9E: raw bits, t at tensor0's width with the scalar cut "
                                "to it (as S-26); the DVE accumulator is untouched (a non-Idle +0x2C is not simulated)")


class ScanInitial(Decision):
    id = "S-38"
    subject = "TensorTensorScan 0xE5: what the scan starts from (NKI's 'initial')"
    reason = ("NKI tensor_tensor_scan(data0, data1, initial, op0, op1): 'result[:, 0] = op1(op0(data0[:, 0], initial), "
              "data1[:, 0])', 'initial can either be a float32 compile-time scalar constant ... or a tile with the "
              "same partition axis size as data0/data1 and one element per partition'. The bundle shares 0x9D's "
              "struct, whose only scalar is ins[1] (+0x27 kind, +0x3C value, +0x2B dtype), and op0's right operand "
              "is where 0x9D reads that scalar and where the scan reads result[:, i-1]. The book's KLR codegen "
              "(59773786256, codegenTensorTensorScan @0xf2b450) confirms it: 'inst.addInputAP(in0); "
              "addOperandToInst(inst, klr.scanInit); inst.addInputAP(in1)', is_tensor_tensor_scan and "
              "is_scalar_tensor_tensor both set. The alternative of 0xE6 "
              "(an init loaded into the DVE accumulator by the +0x2C command, S-36) has no support here: NKI gives "
              "the scan no accumulator command (KLR's codegen copies one, undocumented), and tongasm refuses acc != "
              "Idle on these opcodes")
    CHOSEN = Reading("scalar-operand", "initial = the scalar operand ins[1] of the TensorScalarPtr: per lane p the "
                                       "immediate, the register's 32 bits or element p of the [P,1] pointer, read in "
                                       "its +0x2B dtype and converted to float32; the DVE accumulator is neither read "
                                       "nor written")


class ScanCarry(Decision):
    id = "S-39"
    subject = "TensorTensorScan 0xE5: the value carried from element i-1 to element i"
    reason = ("NKI tensor_tensor_scan: 'performs the computation in float32 math. The float32 computation results "
              "are cast to dst.dtype'; its numpy pseudocode reads result[:, i-1] back from an array of data0's dtype. "
              "The 0xE6 scan carries its float32 register (S-36)")
    FP32 = Reading("fp32", "the float32 result of step i-1, before its conversion to the out dtype (as 0xE6's "
                           "register, S-36)")
    OUT_DTYPE = Reading("out-dtype", "the step i-1 result as written: converted to the out dtype and back to float32 "
                                     "(NKI's numpy pseudocode)")

    @property
    def rounds_carry(self) -> bool:
        return self.reading is self.OUT_DTYPE


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


# --- the PE, DMA and sync/control opcodes of the real NEFFs (S-40..S-59) ---------------------------------
#
# S-20..S-39 belong to the next families (activation, tensor-scalar, reduce, batch norm). What the
# bytes of these opcodes mean is decided by the R-n (R-10 the stationary's columns, R-11 the psum
# flags, R-12 the transpose dtype, R-15 the completion increment, R-16 the element order, R-17 the
# addresses); these are the choices of the simulator itself.


class DmaTiming(Decision):
    id = "S-40"
    subject = "when a DMA (0xD4) moves its data and signals its completion semaphore"
    reason = ("chapter §4.2 (R-20): a DMA is issued when its wait holds, the engine goes on at once, and its data may "
              "not be assumed present before its completion increment; the reference simulation completes DMAs at "
              "random later points and both real programs still compute x @ y. Completing them as late as possible "
              "shows a missing wait as wrong data; completing them at issue is the plain sequential model")
    WHEN_BLOCKED = Reading("when-blocked", "a DMA is queued when issued; the transfer (its reads and its writes) and "
                                           "its completion increment happen when every engine is blocked (the oldest "
                                           "queued DMA first), when its engine drains, or at the end of the run")
    AT_ISSUE = Reading("at-issue", "the transfer and its completion increment happen when the bundle executes")

    @property
    def deferred(self) -> bool:
        return self.reading is self.WHEN_BLOCKED


class PeArithmetic(Decision):
    id = "S-41"
    subject = "PE (0x02) products and sums"
    reason = ("NKI: matmul accumulation and results are always in float32; the summation order is not observable "
              "with the real programs' data (their large run's partial sums are exact)")
    F64_ROUND = Reading("f64-round", "products and the sum over K in float64, rounded once to float32 (RNE) per "
                                     "Matmul: deterministic, independent of a BLAS's order")
    FP32 = Reading("fp32", "a float32 matrix product (numpy's order)")

    @property
    def wide(self) -> bool:
        return self.reading is self.F64_ROUND


class StationaryState(Decision):
    id = "S-42"
    subject = "the PE's stationary matrix between bundles"
    reason = "chapter §4.3: 0x01 loads W, every following 0x02 multiplies by it (large: 4 Matmuls per Ldweights)"
    CHOSEN = Reading("held", "one stationary per PE engine, loaded by 0x01 (with its dtype and K x M) and read by every "
                             "0x02 until the next 0x01; a 0x02 before any 0x01, or whose K or M differs from the "
                             "loaded one, stops the run")


class PsumAccumulation(Decision):
    id = "S-43"
    subject = "how a Matmul writes PSUM"
    reason = "chapter §4.3 and R-11: START overwrites, otherwise the result is added; STOP changes no data"
    CHOSEN = Reading("fp32-add", "overwrite: the result converted to the PSUM dtype (R-12); accumulate: the old PSUM "
                                 "value as float32 plus the float32 result, rounded once (RNE), stored in the PSUM dtype")


class DmaConversion(Decision):
    id = "S-44"
    subject = "a DMA whose src and dst dtypes differ (0xD4 +0x3E != +0x3F)"
    reason = "chapter §4.6 item 5: fp32 -> fp16 in the DMA rounds to nearest even (not distinguishable at rtol 1e-3)"
    CHOSEN = Reading("element-wise", "the src runs are read as src-dtype elements, converted one by one (S-1/S-2: RNE, "
                                     "fp8 saturates) and written as dst-dtype elements in the same order (R-16); "
                                     "the same dtype copies bytes")


class DmaAddressing(Decision):
    id = "S-45"
    subject = "what memory a DMA side names"
    reason = ("R-17: variable 0 is SBUF, others are def.json variables, mode 0x20 goes through the dge-table; the "
              "machine's variables are the memory description's (a NEFF run adds its def.json)")
    CHOSEN = Reading("variables", "variable 0: SBUF, the word's partition (bits 18..24) and byte (bits 0..17), a step "
                                  "of 0x40000 one partition; another variable: the DRAM bytes of that var_id; mode "
                                  "0x20: the var_id of the machine's DGE table at that entry; a run may not cross a "
                                  "partition or the variable's end")


class ControlEffects(Decision):
    id = "S-46"
    subject = "what the sync/control opcodes do besides their sync lanes"
    reason = ("chapter §4.2 (4): 0xA0, 0xA4 wait only; 0xB1, 0xCC have no effect on memory or semaphores; the book's "
              "Halt, Drain and EventSemaphoreRangeClear (no real bundle)")
    CHOSEN = Reading("book", "EventSemaphore, Nop, SetOrderingMode, PseudoBranchLabel and PseudoSyncBarrier change "
                             "nothing; Halt and PseudoInst (Exit) end their engine's stream; Drain completes the "
                             "engine's queued DMAs; EventSemaphoreRangeClear zeroes its semaphores; the other book-only "
                             "opcodes (branches, calls, indirect DMAs, MX) stop the run")


class EventSemaphoreLanes(Decision):
    id = "S-47"
    subject = "EventSemaphore's two waits and its update"
    reason = "chapter §4.2 (1): a bundle starts only when each of its waits holds; R-19: the update after both"
    CHOSEN = Reading("all-waits", "the bundle runs when both waits hold (a wait does not change the semaphore), then "
                                  "its update applies, as for a header band")


# --- running a real NEFF (S-60..S-69; S-48..S-59 stay free for the PE, DMA and control families) -------


class EngineSchedule(Decision):
    id = "S-60"
    subject = "the order in which ready engines run and in-flight DMAs complete"
    reason = ("chapter §4.2 (R-20) fixes only what may start when (waits before, updates after, DMAs signal at "
              "completion); the hardware's interleaving is not observable from the bytes. The chapter's reference "
              "simulator picked uniformly at random among the ready engines and the in-flight DMAs and got x @ y under "
              "six schedules: a program whose semaphores are sufficient gives the same answer under every schedule, "
              "so a seeded random schedule is a test of the waits, and the fixed turns are reproducible")
    TURNS = Reading("turns", "engines take turns one bundle at a time in the S-16 order; DMAs complete as S-40 says")
    RANDOM = Reading("random", "at each step one of the engines whose next bundle may start, or one in-flight DMA, "
                               "is picked uniformly at random (numpy's PCG64 seeded by the run's --seed) and runs or "
                               "completes; S-40 at-issue still completes a DMA when it is issued")

    @property
    def randomised(self) -> bool:
        return self.reading is self.RANDOM


class NeffCores(Decision):
    id = "S-61"
    subject = "the graphs (cores) of one NEFF"
    reason = ("chapter §1.11 and §4.1 (I): an LNC=2 NEFF holds one program per physical core (sg00, sg01); they "
              "share no semaphore, read the same inputs and write disjoint columns of the output; nothing in "
              "def.json names a cross-core dependency")
    SEQUENTIAL = Reading("sequential", "each graph runs on its own machine (SBUF, PSUM, semaphores, file constants "
                                       "and virtual variables private), the graphs one after the other in "
                                       "kelf-0.json order; the input and output variables (by name) are one shared "
                                       "DRAM buffer each")


class ActTableLoadStandIn(Decision):
    id = "S-62"
    subject = "ActivationTableLoad (0x23) while no layout decodes it"
    reason = ("chapter §2.8 and §4.2 (4): the four real 0x23 bundles are all zero after +0x01 except the table index "
              "+0x23 (0 = exp_and_others), carry no sync and change no data the copies read. R-21 "
              "declares its layout, so the real bundles decode and run as ActivationTableLoad; this stand-in is "
              "reached only by an undecodable bundle with the 0x23 opcode (a non-zero byte no field explains)")
    NO_EFFECT = Reading("no-effect", "an undecodable bundle with the ActivationTableLoad opcode is read through "
                                     "the Nop layout (the shared header sync band, D-3: its waits and updates are "
                                     "honoured, all zero in the real files) and changes nothing; shown as "
                                     "ActivationTableLoad in traces and reports")
    REFUSE = Reading("refuse", "an undecodable 0x23 stops the run before it starts, naming the bundle")

    @property
    def stands_in(self) -> bool:
        return self.reading is self.NO_EFFECT


class NeffVariables(Decision):
    id = "S-63"
    subject = "the DRAM variables of a NEFF's def.json var table"
    reason = ("chapter §1.8 and §4.1: var_id is what 0xD4 names (R-17); §4.6 item 7 (I): a `file` variable holds "
              "the .npy member's data without its header; the `virtual` spill variables (large) name a backing "
              "variable that def.json does not list; neff.json records the shapes and dtypes of the inputs and "
              "outputs")
    CHOSEN = Reading("def-json", "input and output: a DRAM variable of `size` bytes, its dtype and shape from "
                                 "neff.json (else given by the user); file: the member's .npy data, exactly `size` "
                                 "bytes, dtype and shape from the .npy header; virtual: its own zeroed buffer of "
                                 "`size` bytes (backing_variable_off ignored: no two virtual ranges of the real "
                                 "files overlap); state-buffer: var 0 = SBUF (S-45); dge-table: its list is the DGE "
                                 "table (R-17); any other type stops the run, naming it")


class DmaQueues(Decision):
    id = "S-64"
    subject = "DMA queues (def.json dma_queue)"
    reason = ("chapter §1.9 (V): every 0xD4 is in the stream of its queue's owner and its completion semaphore "
              "(+0x0D) is in that queue's semaphore_set; the queues are dynamic (descriptors generated at run time), "
              "so a 0xD4 bundle is the whole DMA (§4.2 (7))")
    CHECKED = Reading("checked", "before the run, every 0xD4's completion semaphore must be in the semaphore_set of "
                                 "a queue its engine owns (else the run is refused, naming the bundle); the trace "
                                 "shows each DMA from issue to completion on its queue's track")
    FREE = Reading("free", "any semaphore; the trace names the issuing engine's DMAs")

    @property
    def checked(self) -> bool:
        return self.reading is self.CHECKED


# --- what the real graphs' references settle (S-110..S-119) -----------------------------------------------


class PeFp32Passes(Decision):
    id = "S-110"
    subject = "what an fp32 Ldweights (0x01) loads in its LOW and HIGH passes (R-28's +0x21)"
    reason = ("the compiler writes an fp32 matmul as two passes over the same moving tile: Ldweights fp32=low, "
              "Matmul (first), Ldweights fp32=high, Matmul (last), accumulating in PSUM. Loading W whole in both "
              "passes computes 2 W^T X: every fp32 attention-trn2 graph then disagrees with its kernel source's "
              "numpy_attention (max error 1.52 on outputs below 1; the bf16 ones too, whose P @ V runs in fp32). "
              "With the split, all seven attention-trn2 graphs (baseline_attention, baseline_fp32_s512, "
              "fused_fp32_s512, fused_fp32_s1024: max error 2.5e-6; baseline_bf16_s512, baseline_bf16_s1024, "
              "fused_bf16_s512: 1.95e-3, the bf16 output's rounding) match under the oracle's tolerance "
              "(benchmarks/corpus_oracle.py). The transposes of those graphs (is_transpose=1, one Ldweights "
              "fp32=low and one Matmul, fp32 data through an identity moving tile) match only with W loaded "
              "whole. Truncating or rounding (RNE) the high half give the same verdict on these graphs: the "
              "products are exact either way and only the split's sum, W, is observable here")
    SPLIT = Reading("split", "a non-transpose fp32 Ldweights with fp32=high loads hi(W), the upper 16 bits of each "
                             "element (the bfloat16 truncation, as float32); with fp32=low it loads W - hi(W) "
                             "(exact in float32); a transpose or fp32_mode 0 loads W whole; a Matmul uses its moving "
                             "tile whole for fp32_mode 0 and LOW_HIGH; for HIGH alone (sunda 2.14) see S-112; LOW "
                             "alone stops the run")
    WHOLE = Reading("whole", "every pass loads W whole (the mode byte ignored; contradicted: the fp32 attention "
                             "graphs compute 2 W^T X)")

    @property
    def splits(self) -> bool:
        return self.reading is self.SPLIT


class PeFp32MovingHigh(Decision):
    id = "S-112"
    subject = "what a Matmul (0x02) with fp32_mode HIGH (R-28's +0x21 = 2, sunda 2.14 only) takes of its moving tile"
    reason = ("sunda 2.14 writes its fp32 matmuls as Ldweights fp32=low, Matmul fp32=high flags=first, Ldweights "
              "fp32=high, Matmul fp32=high flags=last on the same moving tile, and Matmul fp32=low_high (S-110's "
              "whole moving tile) where the moving tile is general data. In the yolox-trn1 graphs every HIGH Matmul's "
              "moving tile is an identity (0/1, bf16-exact: 0 of the elements of the 288 HIGH Matmuls of the four "
              "small graphs, nor of the 52 and 48 of MODULE_11680213520571265389 and MODULE_2676601027628379632, "
              "have low bits), so the pair computes (W - hi(W))^T I + hi(W)^T I = W^T exactly: an fp32 transpose. "
              "With either reading below MODULE_15756455156218002102, MODULE_3288600609627781372, "
              "MODULE_5403215385800979758 and MODULE_8654990275793488851 (previously stopped at their first HIGH "
              "Matmul) are bit-exact against XLA (benchmarks/corpus_oracle.py; 8,400 elements each); multiplying "
              "by X - hi(X) instead (a 'low' moving half) makes 2,091..8,400 of 8,400 disagree (max error 1.0). "
              "The six other graphs that stopped (MODULE_11680213520571265389, 16206633299416188819, "
              "17067470237953524932, 17993241003530017078, 2676601027628379632, 5112068020371278582) now run to "
              "the end; they have no reference (their HLO calls AwsNeuronTransferWithStaticRing, ResizeNearest). "
              "hi(X) is chosen by analogy with Ldweights HIGH (the bytes cannot tell it from X whole: no real "
              "HIGH moving tile has low bits)")
    HIGH = Reading("high", "a Matmul with fp32=high multiplies W^T by hi(moving), the upper 16 bits of each fp32 "
                           "element (the bfloat16 truncation, as float32); Matmul fp32=low still stops the run "
                           "(it never occurs)")
    WHOLE = Reading("whole", "a Matmul with fp32=high uses its moving tile whole, as fp32=low_high (the same "
                             "verdict on every real graph)")
    STOP = Reading("stop", "a Matmul with fp32=high stops the run (S-110 before S-112)")

    @property
    def truncates(self) -> bool:
        return self.reading is self.HIGH

    @property
    def stops(self) -> bool:
        return self.reading is self.STOP


class PeIntegerPsum(Decision):
    id = "S-111"
    subject = "what a Matmul (0x02) of an integer wire dtype writes to PSUM"
    reason = ("yolox-trn1 MODULE_10875128352584523134 (HLO: convert pred[120,8400] to s64, reduce-add over the 120) "
              "transposes its uint8 input through the PE (Ldweights/Matmul of wire dtype uint8, not is_transpose) "
              "and the DVE then reads that PSUM as int32 and adds it up. Writing fp32 there (1.0 = 0x3F800000) "
              "saturates every sum at INT32_MAX: 8,400 of 8,400 elements disagree with XLA; writing the exact "
              "integer result as int32 makes the graph bit-exact (run with the 0xC1 DMA path of the corpus-dma "
              "work)")
    INT32 = Reading("int32", "a non-transpose Matmul whose in_dtype is int8, uint8, int16 or uint16 writes int32: the "
                             "exact integer sum of products (plus the old int32 value when it accumulates), saturated "
                             "to the int32 range (S-1's rule)")
    FP32 = Reading("fp32", "every non-transpose Matmul writes fp32 (contradicted: the graph above then saturates)")

    @property
    def integer(self) -> bool:
        return self.reading is self.INT32


class NeffOutputAlias(Decision):
    id = "S-113"
    subject = ("an output that neff.json's signature says must alias an input "
               "(metadata.signatures.default.inputs[X].must_alias)")
    reason = ("the XLA frontend hands a parameter back as a result (input_output_alias ... must-alias) and the "
              "compiler records it in neff.json: input X's must_alias lists the outputs bound to X's own buffer. "
              "yolox-trn1 MODULE_36492259600070294 (an optimizer-state pass-through: its HLO returns 388 of its "
              "parameters unchanged, plus 74 s64 zeros) has 388 inputs whose must_alias names one output each and "
              "never copies them: its 1,077 bundles write only the other outputs. With separate, zeroed output "
              "buffers 388 of its 924 NEFF outputs (output0..output460, every aliased f32 one) disagree with XLA; "
              "with the output bound to the input's buffer all 924 are bit-exact (benchmarks/corpus_oracle.py). "
              "Two other corpus NEFFs carry must_alias (MODULE_14856528739640727327 and MODULE_15023315273075843957, "
              "222 inputs each); may_alias is empty in all 96")
    SHARED = Reading("shared", "an output named in an input's must_alias is the input's DRAM buffer: it starts "
                               "with the input's bytes and every write to either is a write to both (refused when "
                               "their sizes differ or the output is named by two inputs)")
    SEPARATE = Reading("separate", "every output is its own buffer, zeroed (contradicted: the graph above then "
                                   "returns zeros for its pass-through results)")

    @property
    def shared(self) -> bool:
        return self.reading is self.SHARED


class OracleFloatToIntConvert(Decision):
    id = "S-114"
    subject = ("what the oracle takes an HLO float -> integer convert to compute where the NEFF has no conversion "
               "for it (the reference side of benchmarks/corpus_oracle.py, not a bundle)")
    reason = ("yolox-trn1 MODULE_11715220187876601876 is F.one_hot(x.to(int64), 80) of one float (HLO: pad the "
              "f32[1] to the index vector (0, x), convert.2 to s64, scatter 1 into s64[1,80]). Its NEFF has no "
              "conversion: the SP DMA I-32 copies input0 float32 -> float32 into SB p0+0x2fff8, and the Pool's "
              "TensorScalarAddr I-35-0_TSPAddAddr reads those bytes with src dtype INT32 (+0x29 low nibble 8) as the "
              "index, then PseudoRangeCheck drops the write when index*4 is outside the 320-byte output. XLA truncates "
              "(0.27 -> column 0); the NEFF uses the float's bits (0.27 -> 0x3E8A3D71, out of range, no write): "
              "1 of 80 elements differs by 1.0 for every x in (-1, 1) except +0.0. The simulator follows the bytes: "
              "on crafted inputs whose bits are 5 and 79 it writes column 5 and 79, on bits 80 nothing, as XLA does "
              "with convert.2 replaced by a bitcast; with that replacement the graph is bit-exact (seeds 0..9). The "
              "same scatter with a real conversion, MODULE_11369514141456202230 (f32[9] -> one-hot f32[9,80]), "
              "converts through Activate Copy float32 -> int32 plus a sign/compare correction and matches XLA's "
              "plain convert: the difference is this NEFF's compilation (pad + convert folded away), not a "
              "semantic the simulator lacks")
    BITS_FALLBACK = Reading("bits-fallback", "where the plain reference disagrees and the HLO holds float -> integer "
                                             "converts, the oracle reruns XLA with each one reinterpreting the "
                                             "float's bits as a same-width signed integer (then widened or "
                                             "narrowed) and accepts the graph only when every output then agrees "
                                             "under the same tolerance; the table names the reference 'hlo, "
                                             "<converts> as float bits'")
    TRUNCATE = Reading("truncate", "XLA's convert only (round toward zero): the graph above then disagrees")

    @property
    def falls_back(self) -> bool:
        return self.reading is self.BITS_FALLBACK


class OracleCompiledKernel(Decision):
    id = "S-115"
    subject = ("what the causal-attention-trn1 reference (tongasm.oracle.kernels.csa2048) takes where the six NEFFs "
               "differ from the stored source of their kernel (beta2_csa2048_test.py)")
    reason = ("all six NEFFs are the kernel test(q, k, v, causal_mask) of ucb-bar/autocomp's beta2_csa2048_test.py "
              "(each NEFF's debug info names it), keeping one of its results o, l or m. Against the stored revision "
              "(commit ad74e876) all six disagree (max error 5.4..8.1; m outside the tolerance in 767 of 2,048 rows). Two "
              "differences are in the NEFFs' own bundles: (1) one 0xD4 DMA reads k (input2), k[:, 0:512]: the "
              "source's four k-tile loads became one, and every QK tile multiplies keys 0..511 (the simulated m "
              "then equals the max over keys 0..511 in every row where the others would win); (2) each score tile "
              "goes float32 -> bfloat16 -> float32 (a Cast pair) before the max and the exp, where the stored "
              "revision keeps it float32 (its debug lines after line 63 are two further on: a later revision was "
              "compiled). With both, m (model_3c6ff38f, model_d3959d01) and l (model_795597d1, model_e0afb7fc) are "
              "bit-exact and o (model_84dd1b5e, model_fe60d24a) is within 10 elements of bit-exact (<= 1 bf16 ulp, "
              "err/tol 0.13; seed 0); with (1) alone m and l match and o does not (45,504 of 262,144 outside)")
    AS_COMPILED = Reading("as-compiled", "k's tiles as the NEFF's DMAs load them (tongasm.oracle.kernels.csa_k_tiles) "
                                         "and every stored score tile rounded to bfloat16")
    SOURCE = Reading("source", "the stored revision's text: k tile j for QK tile j, scores kept float32 "
                               "(contradicted by all six NEFFs)")

    @property
    def as_compiled(self) -> bool:
        return self.reading is self.AS_COMPILED


class OracleDroppedParameter(Decision):
    id = "S-102"
    subject = ("what the oracle feeds an HLO parameter that is not an input of the NEFF (the reference side of "
               "benchmarks/corpus_oracle.py, not a bundle)")
    reason = ("yolox-trn1 MODULE_10080151182636209274's HLO has 397 parameters, its NEFF 395 inputs: input329 and "
              "input330 (f32[4] each) have no NEFF variable, so the compiler found the result independent of them. "
              "The NEFF cannot compute a function of values it never reads: a reference that takes seeded random "
              "values for them and still matches shows the output does not depend on them; a dependence would show "
              "as a disagreement, not be hidden. Measured: XLA's output0 is the same bits with input329 * 3 + 1 and "
              "input330 * -2 + 5 (seed 0), so the reference does not depend on them; the graph still disagrees "
              "(the simulator's output is inf, as in the graphs S-99 leaves open), a disagreement to settle, no "
              "longer 'no reference'")
    RANDOM = Reading("random", "the dropped parameters take seeded random values as every other input does, and "
                               "the table's reference names them ('hlo, ... inputNNN not read by the NEFF')")
    REFUSE = Reading("refuse", "no reference for such a graph (as before)")

    @property
    def feeds(self) -> bool:
        return self.reading is self.RANDOM


class OracleStaticRingTransfer(Decision):
    id = "S-95"
    subject = ("what the oracle takes the HLO custom call AwsNeuronTransferWithStaticRing to compute (the reference "
               "side of benchmarks/corpus_oracle.py, not a bundle)")
    reason = ("all 6,600 calls in the 29 yolox-trn1 modules that hold one take a single entry parameter (a weight) "
              "and return its own type and dims, with no backend_config; torch-neuronx wraps every weight in it "
              "(op xla___op_TransferWithStaticRingTransfer of torch_xla's xla_op_registry.py in public HLO dumps, "
              "and transformers-neuronx builds it as transfer_with_static_ring(shape) of the input's own shape): a "
              "placement hint (keep the tensor in a static DMA ring), nothing that could carry another value. "
              "Evidence (benchmarks/corpus_oracle_results.md, seed 0): 29 graphs then have a reference; the three "
              "float-output necks MODULE_2676601027628379632, MODULE_5112068020371278582 (141 calls each) and "
              "MODULE_17993241003530017078 (159) match under the loose bf16 tolerance, the 13 TopK graphs compared match "
              "bit-exact on their one s32 result; five full-network graphs disagree for a simulator reason (PSUM pad "
              "columns, see the results file)")
    IDENTITY = Reading("identity", "the call is a copy of its operand (refused when the result's type or dims differ "
                                   "from the operand's)")
    NONE = Reading("none", "not rewritten: a graph holding it has no reference")

    @property
    def rewrites(self) -> bool:
        return self.reading is self.IDENTITY


class OracleResizeNearest(Decision):
    id = "S-96"
    subject = "what the oracle takes the HLO custom call ResizeNearest to compute (the reference side, not a bundle)"
    reason = ("the 58 corpus calls resize T[N,H,W,C] (a transpose of torch's NCHW tensor) to T[N,2H,2W,C] with "
              "backend_config \"\\\"00\\\"\". pytorch/xla's resize_ops.cc emits the call for upsample_nearest2d on "
              "TPU and Neuron devices with backend config '\"' + align_corners + half_pixel_centers + '\"': \"00\" is "
              "both false, torch's nearest rule out[i] = in[floor(i * in / out)], for an integer factor f "
              "out[i] = in[i // f] (the half-pixel rule gives the same indices then). Evidence "
              "(benchmarks/corpus_oracle_results.md, seed 0): the necks MODULE_2676601027628379632, "
              "MODULE_5112068020371278582 and MODULE_17993241003530017078 (two 2x upsamples each; outputs "
              "f32[1,128,80,80] and f32[1,256,40,40]) match under the loose bf16 tolerance")
    REPEAT = Reading("repeat", "an integer upscale factor on dims 1 and 2 (dims 0 and 3 kept) with backend config "
                               "\"00\": each element repeated f_h x f_w times (broadcast + reshape); any other shape "
                               "or config is refused, naming it")
    NONE = Reading("none", "not rewritten: a graph holding it has no reference")

    @property
    def rewrites(self) -> bool:
        return self.reading is self.REPEAT


class OracleTopK(Decision):
    id = "S-97"
    subject = "what the oracle takes the HLO custom call AwsNeuronTopK to compute (the reference side, not a bundle)"
    reason = ("the 15 corpus calls take f32[R,L] to (f32[R,k], u32[R,k]) with backend_config \"10\", k = 10 = the "
              "result's last dim; torch-neuronx lowers a 2-D last-dim torch.topk(x, k, sorted=True) to it: the k "
              "largest of each row, descending, and their column indices. The order of equal values' indices and "
              "NaN's place are not documented; every corpus call uses only the values (get-tuple-element index 0: "
              "YOLOX's SimOTA topk_ious), so only the values matter. Evidence, weak: the 13 TopK graphs compared match, but "
              "each returns one s32 scalar (a clamp(sum(top-10 IoUs).int(), min=1)-like count) that is 1 on seed "
              "0's random boxes in both the simulator and XLA, so a wrong top-k could hide; the unit tests derive "
              "the values by hand")
    SORT_SLICE = Reading("sort-slice", "a stable sort of (row, column iota) along the last dim, descending under "
                                       "IEEE total order (NaN first, +0 before -0; ties keep the lower index "
                                       "first), then the first k of both, the indices as u32; refused when "
                                       "backend_config is not the result's k or the operand is not rank >= 1 "
                                       "with k <= its last dim")
    NONE = Reading("none", "not rewritten: a graph holding it has no reference")

    @property
    def rewrites(self) -> bool:
        return self.reading is self.SORT_SLICE


class PsumGroupStart(Decision):
    id = "S-99"
    subject = ("which PSUM elements a Matmul accumulation group's START (R-11) makes overwrite: its own tile, or "
               "every element of its bank rows until first written")
    reason = ("a convolution whose first tap skips the pad column starts its group with a tile that does not cover "
              "every element a later tap of the group accumulates into: yolox-trn1 MODULE_14980155933156805795's stem "
              "starts with psum+0x4[1x319] (elements 1..319), then accumulates [1x320] (0..319) and [1x319] (0..318); "
              "the taps' moving addresses (0x2e74a, 0x2e74a, 0x2e74c: inputs x-1, x, x+1) show the first tap rightly "
              "skips element 0, so it is no decoding error. 1,526 of that graph's 18,471 Matmuls (844 of "
              "MODULE_2676601027628379632's 9,401) accumulate into elements their group's START did not write (pad "
              "columns and pad rows of 1-D and 2-D taps). Under 'tile' element 0 adds onto the previous tile's value "
              "and 14980's stem grows into NaN (the START Matmul at pe+0xf9d00 already reads NaN); under 'bank-first-write' the stem "
              "stays finite (no Matmul sees NaN before pe+0x17cf40; the graph still disagrees), but 2676, which matches "
              "under 'tile' (err/tol 0.71), turns inf (NaN reaches the Matmul at pe+0xfdf40). Clearing the whole bank's "
              "data at START also turns 2676 inf. Neither reading explains both graphs yet: 'tile' stays the default")
    TILE = Reading("tile", "a START Matmul overwrites its own tile only; every other Matmul of the group adds onto "
                           "what each element holds (2676 matches; 14980's stem grows into NaN)")
    BANK_FIRST_WRITE = Reading(
        "bank-first-write",
        "a START Matmul marks every element of its 2 KiB PSUM bank(s), in its partitions, not yet written (the data "
        "stay); any Matmul writing an element so marked overwrites it and clears the mark, otherwise it "
        "accumulates as R-11 says (fixes 14980's stem; turns 2676 inf)")

    @property
    def first_write(self) -> bool:
        return self.reading is self.BANK_FIRST_WRITE
