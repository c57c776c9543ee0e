"""Decisions of the act family: the Activation band (N-4, N-5, N-8, N-9, N-27, N-31, N-36, N-38, N-40,
N-41), the accumulator read-out (N-11, N-29), the function tables (R-21) and their residency (N-35)."""

from __future__ import annotations

from collections.abc import Sequence

from ..vector_enums import ACT_SETS, ActFunc, ActSet
from .base import Decision, Reading


class ActivationRoles(Decision):
    id = "N-4"
    subject = "Activation operand roles: what ins[1], ins[2] and ins[3] are"
    reason = ("SIMACT (59936398521): the simulate loop multiplies by operand 2 and adds operand 1, alpha = operand 3 "
              "'used only by Prelu'; ACT writes args[1]'s dtype in +0x20's high nibble (only the bias has a free "
              "dtype) and calls it getImmediatePointer (NKI: on NC-v2 'the bias must be a [N,1] vector'). The "
              "chapter's §15.3 default [in, bias, alpha, scale] is contradicted by the same pages (verification "
              "finding #1): it stays selectable, not the default")
    BIAS_SCALE_ALPHA = Reading("in-bias-scale-alpha", "ins = [in, bias (added), scale (multiplier), alpha (Prelu)]")
    SCALE_BIAS_ALPHA = Reading("in-scale-bias-alpha", "ins = [in, scale, bias, alpha] (SIMACT's variable names)")
    BIAS_ALPHA_SCALE = Reading("in-bias-alpha-scale", "chapter §15.3: ins = [in, bias, alpha, scale] (contradicted)")

    def roles(self) -> tuple[str, str, str]:
        """The roles of args[1], args[2], args[3]."""
        if self.reading is self.SCALE_BIAS_ALPHA:
            return ("scale", "bias", "alpha")
        if self.reading is self.BIAS_ALPHA_SCALE:
            return ("bias", "alpha", "scale")
        return ("bias", "scale", "alpha")

    def arg_of(self, role: str) -> int:
        """The args index (1..3) of a role."""
        return 1 + self.roles().index(role)


class ActivationArg2Word(Decision):
    id = "N-5"
    subject = "Activation 0x21: the value word of args[2] (the scale under N-4's default)"
    reason = ("Real bytes overturn §15.1's 'reserved zero': +0x24..+0x27 is args[2]'s value word, read by its kind "
              "byte +0x0D (N-2). In the corpus's 148,279 Activate bundles (147,387 neuronx-cc 2.14 sunda, 892 2.23 "
              "sunda/cayman) it is zero in only 21: kind 0 carries a float32 (1.0 in 121,885 bundles; 0.97, 0.0025, "
              "0.000625... in 3,380 more, 120 of them 2.23), kind 1 an SBUF pointer word (0x0181b890...; 22,758 2.14 and 256 "
              "2.23 bundles); the vendor profiler prints the word as scale=1.000000 (attention-trn2, 52 traced "
              "ACTIVATE bundles) beside bias_ptr= for +0x28. §15.1 (ACT 60160079624, 'never touched ... "
              "d3_ac_reserved_zero') counted only direct stores (verification finding #2); it stays selectable")
    AT_0X24 = Reading("scale-at-0x24", "args[2]'s value word is the u32 at +0x24, read by its kind byte +0x0D "
                                       "(the real bytes; the chapter's pre-§15 N-5)")
    RESERVED_ZERO = Reading("reserved-zero", "§15.1: +0x24..+0x27 are reserved zero; args[2] must be the immediate "
                                             "neutral value (scale 1.0), anything else is refused")
    SWAPPED = Reading("swapped", "args[2]'s value word at +0x28 and args[1]'s at +0x24")
    STRICT = Reading("strict-scale", "as scale-at-0x24, but args[2] must be the immediate 1.0")

    def value_offsets(self) -> dict[int, int | None]:
        """args index → offset of its value word (None: no word on the wire)."""
        if self.reading is self.RESERVED_ZERO:
            return {1: 0x28, 2: None}
        if self.reading is self.SWAPPED:
            return {1: 0x24, 2: 0x28}
        return {1: 0x28, 2: 0x24}

    @property
    def arg2_must_be_neutral(self) -> bool:
        """Whether args[2] may only be the immediate neutral value (nothing else can be carried)."""
        return self.reading in (self.RESERVED_ZERO, self.STRICT)


class ShortActivationArgs(Decision):
    id = "N-8"
    subject = "an Activation with fewer than 4 ins"
    reason = ("ACT: 'takes exactly four arguments'; JSON: scale and alpha are required keys; KLR's default scale is 0, "
              "so a synthesised scale comes only from an explicit 'scale' key (verification finding #6)")
    SYNTHESIZE = Reading("synthesize", "1 or 2 ins: bias = immediate 0.0, scale = immediate 'scale' (the key is "
                                       "required), alpha = immediate 'alpha' (default 0.0)")
    REFUSE = Reading("refuse", "refused: 'Activation instruction can only have 4 arguments'")

    @property
    def synthesizes(self) -> bool:
        return self.reading is self.SYNTHESIZE


class NonPreluAlpha(Decision):
    id = "N-9"
    subject = "a non-zero alpha with a function other than Prelu"
    reason = "ACT writes +0x2C only for wire func 4; SIMACT: Lrelu's slope is '0.01 hardcoded, alpha unused'"
    REFUSE = Reading("refuse", "refused (it would be dropped)")
    DROP = Reading("drop", "encoded without it, as the compiler does (a lint warning says so)")

    @property
    def refuses(self) -> bool:
        return self.reading is self.REFUSE


class ReadAccumulatorSlot(Decision):
    id = "N-11"
    subject = "0x24 / 0x9B (D1_RD) destination slot"
    reason = ("INFERRED: Memset's TENSOR1D sits at +0x2C (BUNDLE, lea [r12+0x2c]) and 0x24's control bytes are "
              "Memset's; 0x9B has no byte map anywhere")
    AT_2C = Reading("tensor1d-0x2c", "TENSOR1D at +0x2C; 0x9B +0x21 = negated")
    AT_30 = Reading("tensor1d-0x30", "TENSOR1D at +0x30")

    def offset(self) -> int:
        return 0x30 if self.reading is self.AT_30 else 0x2C


class ActTableIndex(Decision):
    id = "R-21"
    subject = "ActivationTableLoad 0x23: what the act_tbl_sel byte (+0x23) indexes"
    reason = ("Real bytes (the 96-NEFF corpus): +0x23 is the position in the graph's own Activation.json "
              "activation_function_sets[], a per-graph list of set names (e.g. ['sigmoid_and_others', "
              "'reciprocal_sqrt_and_small', 'natural_log_exp_and_others', 'exp_and_others']), each named in "
              "act_info.json's act_func_sets[]. Read so, every one of the 148,279 Activate bundles uses a function "
              "its last loaded set holds (Sigmoid 21,887 in sigmoid_and_others, Rsqrt 2,125 in "
              "reciprocal_sqrt_and_small, Ln 50 and Exp 310 in natural_log_exp_and_others, Silu 32 in "
              "silu_and_others, Sqrt 7 in sqrt_and_others; 4,298 0x23 bundles, sel 0..3, in 70 Activation streams, "
              "neuronx-cc 2.14 and 2.23). Read as act_info.json's position (the book's LAF reading), 24,342 of them "
              "use a function the set does not hold (sel 1 names softplus_and_others there, where a graph's list has, "
              "e.g., reciprocal_sqrt_and_small in second place). Where no graph "
              "table is at hand (a BIR kernel, a bare .bin stream) the index is read in act_info.json's order, "
              "which is what act_func_set_id names in BIR")
    GRAPH_TABLE = Reading("graph-table", "the position in the graph's Activation.json activation_function_sets[] "
                                         "(set names, resolved in act_info.json's 21 sets); act_info.json's order "
                                         "where no graph table is given (a BIR kernel, a bare stream)")
    ACT_INFO = Reading("act-info", "the book (LAF): always the position in act_info.json's act_func_sets[]: the 21 "
                                   "sets of isa.vector_enums.ACT_SETS (0 = exp_and_others), even in a NEFF")
    ACTIVATION_JSON = Reading("activation-json", "the draft chapter (§2.8) from one NEFF: Activation.json's "
                                                 "activation_function_sets[] holds only set 0 (exp_and_others)")

    def sets(self, table: Sequence[str] | None = None) -> tuple[ActSet | None, ...]:
        """The function sets the byte can name, by index. ``table``: the graph's Activation.json
        activation_function_sets[] (names) when known; a name act_info.json does not have is None."""
        if self.reading is self.ACTIVATION_JSON:
            return ACT_SETS[:1]
        if self.reading is self.GRAPH_TABLE and table is not None:
            by_name = {st.name: st for st in ACT_SETS}
            return tuple(by_name.get(n) for n in table)
        return ACT_SETS

    def holding(self, f: ActFunc, table: Sequence[str] | None = None) -> tuple[int, ...]:
        """The indexes of the sets in which function ``f`` is resident."""
        return tuple(k for k, st in enumerate(self.sets(table)) if st is not None and st.holds(f))


class ActivationUnsupportedKeys(Decision):
    id = "N-27"
    subject = "Activation keys the 0x21 band has no byte for"
    reason = "ACT 'The legacy 0x21 band has no separate ALU-op bytes'; NKI 'reduce_op must be nl.add'"
    REFUSE = Reading("refuse", "is_activate2, op0/op1 other than bypass, reverse0/1, reduce_op other than "
                               "bypass/add are refused")
    IGNORE = Reading("ignore", "they are ignored (a lint warning says so)")

    @property
    def refuses(self) -> bool:
        return self.reading is self.REFUSE


class IdleActivationAccumulator(Decision):
    id = "N-29"
    subject = "the Activation accumulator after an Idle 0x21"
    reason = ("ACT '(acc==0) ? 3 : ACCUM_map(acc)': the wire carries ZeroAccumulate for Idle, so a bundle cannot "
              "tell the two apart; NKI's 'idle: do not modify reduce_regs' (contradiction 15) has no byte to live in")
    FIXED = Reading("zero-accumulate", "an Idle Activation leaves its row sums in the accumulator (wire 3)")


class Gen4Only(Decision):
    id = "N-31"
    subject = "gen4-only forms (Activate2 0x25, Exponential 0x30)"
    reason = "ACT / TS: CoreV4-only encoders"
    FIXED = Reading("refuse", "refused on gen2/gen3")


class Residency(Decision):
    id = "N-35"
    subject = "activation function residency (the set loaded by the last 0x23 on the stream)"
    reason = ("CAT: 'To use function X you load the set whose act map contains X'; SIMACT's LoadActFuncSet is a no-op "
              "gate (the compiler's simulator does not model residency)")
    ENFORCE = Reading("enforce", "an Activation whose function is not in the last loaded set (or before any 0x23) "
                                 "is refused")
    OFF = Reading("off", "not checked")

    @property
    def enforced(self) -> bool:
        return self.reading is self.ENFORCE


class Gen2Bias(Decision):
    id = "N-36"
    subject = "an immediate or register Activation bias on gen2"
    reason = "NKI: 'In NeuronCore-v2, the bias must be a [N, 1] vector'"
    VECTOR_OR_ZERO = Reading("vector-or-zero-imm", "a [P,1] vector, or the immediate 0.0 (what N-8 synthesises)")
    VECTOR_ONLY = Reading("vector-only", "a [P,1] vector only")

    def allows(self, is_pointer: bool, is_zero_immediate: bool) -> bool:
        return is_pointer or (is_zero_immediate and self.reading is self.VECTOR_OR_ZERO)


class ActivationArg3Kind(Decision):
    id = "N-38"
    subject = "Activation 0x21 +0x0C (args[3] kind) for functions other than Prelu, Copy, Reciprocal"
    reason = ("ACT's decompiled encoder (0x12596f0, CORRECTION ACT-ENC-01) writes +0x0C only for wire 128/129 (= 1) "
              "and wire 4 (args[3]'s kind); its field-map row and how-to say 'else = 1' (§15.2). The decompiled "
              "code is the stronger evidence (verification finding #3): not written (0) is the default, §15.2's 1 "
              "the alternative")
    ZERO = Reading("zero", "not written: 0")
    ONE = Reading("one", "§15.2: 1")

    def byte(self) -> int:
        return 1 if self.reading is self.ONE else 0


class ActivationTwoOutputs(Decision):
    id = "N-40"
    subject = "an Activation with two outputs (the reduce result)"
    reason = ("ACT: the encoder 'additionally records opcode 0x24' and 'emits a 0x24 back-to-back with the 0x21' (H, "
              "two sentences and NKI's 'another instruction'); the same page also says 0x21 'or' 0x24 (§15.5)")
    APPEND = Reading("append", "0x21, then a 0x24 reading the accumulator into outs[1]")
    INSTEAD = Reading("instead", "§15.5's literal reading: only the 0x24 bundle (the activation itself is not "
                                 "encoded)")

    @property
    def appends(self) -> bool:
        return self.reading is self.APPEND


class ActivationLoadAccumulate(Decision):
    id = "N-41"
    subject = "Activation 0x21 with acc LoadAccumulate"
    reason = ("N-30 loads the accumulator with imm1 = args[3], which 0x21 writes only for Prelu (+0x2C); for any other "
              "function the bundle carries no init (verification finding #7)")
    PRELU_ONLY = Reading("prelu-only", "refused unless the function is Prelu (the init is then args[3], +0x2C)")
    WORD = Reading("word", "accepted; the init is whatever +0x2C holds (0 for functions other than Prelu)")

    @property
    def prelu_only(self) -> bool:
        return self.reading is self.PRELU_ONLY


class ActivationAccumulatorLanes(Decision):
    id = "S-98"
    subject = "which engine accumulators an Activation (0x21) folds into when its src and dst start at different partitions"
    reason = ("the Activation engine's accumulators are per output lane, and the read-out (0x24 "
              "ActivationReadAccumulator) reads the lanes of its dst. yolox-trn1 MODULE_2676601027628379632 computes a "
              "batch norm's sum of squares as four Activate Square bundles I-10930-0..3 whose src is SBUF partitions "
              "0..63 and whose dst starts at partition 64 (ZeroAccumulate, then AddAccumulate x3), then reads the "
              "result with I-14806-0-chain-readActAcc, dst partitions 64..127. Folding into the src's lanes (0..63) "
              "leaves lanes 64..127 at their S-18 value (-inf): the read-out returns -inf, the rsqrt of the variance "
              "NaN, and all 819,200 outputs are NaN where XLA's are finite; folding into the dst's lanes gives the "
              "sum the read-out expects and the graph matches (benchmarks/corpus_oracle_results.md). Of the corpus's "
              "1,231 Activates that accumulate (acc byte not Idle; 147,048 are Idle), 999 have src and dst at the "
              "same start partition, where the readings agree, and 232 in 27 yolox-trn1 files (every one holding "
              "a batch-norm-training) move between partitions 0 and 64; none of the graphs that matched before "
              "has one")
    DST = Reading("dst", "the accumulators of the dst's partitions (the engine's output lanes)")
    SRC = Reading("src", "the accumulators of the src's partitions (contradicted: the graph above then reads -inf)")

    @property
    def follows_dst(self) -> bool:
        """The dst's start partition names the accumulator lanes (else the src's)."""
        return self.reading is self.DST
