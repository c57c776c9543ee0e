"""The N-n decisions of the next-families chapter (``next-families.md``): Activation, TensorScalar,
TensorReduce, Reciprocal and BatchNorm statistics.

No real bundle of these opcodes exists, so every point where the book's pages, the NKI docs and the
NEFF tables leave room is a decision here, with its readings (the first is the default) and the
behaviour each implies. Where the chapter's default (its §15 audit included) is contradicted by the
evidence of ``docs/research/next-families-verification.md``, the default follows the evidence and the
chapter's reading stays selectable; the class's ``reason`` says so (N-4, N-38, N-40's tag). N-38..N-41
are new ids: the chapter asked for the decision (§15.2, §15.5, §15.6) or left a gap (verification
finding #7) without giving one.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ..enums import AluClass, AluOp
from ..opcodes import (
    CROSS_ARITH, CROSS_BITVEC, TR_ARITH, TR_BITVEC, TR_T_ARITH, TR_T_BITVEC, TS_ARITH, TS_BITVEC, TS_PTR_ARITH,
    TS_PTR_BITVEC,
)
from ..vector_enums import ACT_SETS, NKI_REDUCE_OPS, ActFunc, ActSet, ScalarKind
from ..opcodes import Op
from .base import Decision, Reading

if TYPE_CHECKING:
    from .spec import FreeDimOrder


class FamilyASlots(Decision):
    id = "N-1"
    subject = "Activation 0x21 and TensorScalar (S3D3) descriptor slots"
    reason = ("BUNDLE (59717809742): '+0x10 (Family A) SRC TENSOR3D ... activation src, TS input | CERTAIN' and the "
              "TensorScalar store sites lea [r14+0x10] / [r14+0x30]; ACT's 'never touched' list counts only direct "
              "stores (contradiction 1), TS's 24-byte row cannot hold two descriptors (contradiction 2)")
    FIXED = Reading("in-0x10-out-0x30", "input TENSOR3D at +0x10, output TENSOR3D at +0x30")


class KindByte(enum.Enum):
    """Which scalar kind byte a code is read from: the real bytes give them two code sets (N-2)."""

    ACT_ARG1 = "act.arg1"  # Activate +0x0F: args[1] (the bias under N-4's default)
    ACT_ARG2 = "act.arg2"  # Activate +0x0D: args[2] (the scale under N-4's default)
    ACT_ARG3 = "act.arg3"  # Activate +0x0C: args[3] (alpha; written only for Prelu, Copy, Reciprocal)
    IMM_SRC = "imm_src"  # TensorScalar +0x23 / +0x27, ScalarTensorTensor +0x27


class ScalarKindCodes(Decision):
    id = "N-2"
    subject = ("IMM_SRC kind codes of a scalar operand (0x21 +0x0C/+0x0D/+0x0F, TensorScalar +0x23/+0x27, "
               "ScalarTensorTensor +0x27), per kind byte")
    reason = ("Real bytes (the 96-NEFF corpus; neuronx-cc 2.14 sunda and 2.23 sunda/cayman agree): the kind bytes "
              "do not share one code set. TensorScalar 0x43: the profiler prints imm_src=PTR,INSTRUCTION for +0x23=1, "
              "+0x27=0 (attention-trn2, 44 bundles, value 0x8040 = an SBUF address); in 2.14's 23,012 0x43 bundles "
              "every kind-1 word is an SBUF address (0x0081a408...) and every kind-0 word a float32 (0xff7fffff, "
              "1.0, 0.000625); 0x53's 167 are kind 0 with the integer 31. Activate +0x0D (args[2], the scale): kind 0 "
              "with a float32 at +0x24 (1.0 in 121,885 bundles, 0.97, 0.0025...), kind 1 with an SBUF address "
              "(23,014 bundles, both versions). Activate +0x0F (args[1], the bias) keeps ACT's direct stores, mem-ptr "
              "0, inline float 1 (profile bias_ptr= with +0x0F=0; 86,411 Copy bundles +0x0F=1 with word 0). +0x0C "
              "(args[3]) is 1 for Copy and 0 otherwise with word 0 in all 148,279 Activates, which both code sets "
              "fit; it stays with +0x0F (ACT's forced (1, 0) = the immediate 0.0). Register = 2 in both sets has no "
              "real bundle. ENUM 21's order (0 immediate, 1 register, 2 pointer) is contradicted by every kind-1 "
              "pointer word; the one-set reading of the draft by every TensorScalar and scale pointer")
    PER_BYTE = Reading("per-byte", "the real bytes: Activate +0x0F and +0x0C: 0 pointer, 1 immediate, 2 register; "
                                   "Activate +0x0D, TensorScalar +0x23/+0x27, ScalarTensorTensor +0x27: 0 immediate, "
                                   "1 pointer, 2 register")
    PTR0 = Reading("ptr0-imm1-reg2", "every kind byte: 0 pointer (SB/PSUM), 1 instruction immediate, 2 register "
                                     "(the draft's reading of ACT's direct stores)")
    IMM0 = Reading("imm0-reg1-ptr2", "every kind byte: ENUM 21's order: 0 immediate, 1 register, 2 pointer")

    def codes(self, byte: KindByte = KindByte.IMM_SRC) -> Mapping[ScalarKind, int]:
        """Scalar kind → its wire code in kind byte ``byte``."""
        if self.reading is self.IMM0:
            return {ScalarKind.IMMEDIATE: 0, ScalarKind.REGISTER: 1, ScalarKind.POINTER: 2}
        if self.reading is self.PER_BYTE and byte in (KindByte.ACT_ARG2, KindByte.IMM_SRC):
            return {ScalarKind.IMMEDIATE: 0, ScalarKind.POINTER: 1, ScalarKind.REGISTER: 2}
        return {ScalarKind.POINTER: 0, ScalarKind.IMMEDIATE: 1, ScalarKind.REGISTER: 2}

    def code(self, kind: ScalarKind, byte: KindByte = KindByte.IMM_SRC) -> int:
        return self.codes(byte)[kind]

    def kind(self, code: int, byte: KindByte = KindByte.IMM_SRC) -> ScalarKind | None:
        """The kind a wire code of kind byte ``byte`` stands for (None: not a code)."""
        for k, c in self.codes(byte).items():
            if c == code:
                return k
        return None

    def names(self, byte: KindByte = KindByte.IMM_SRC) -> dict[int, str]:
        """Wire code → the kind's name (a kind byte's enum table; :func:`kinds_of_names` reads it back)."""
        return {c: k.value for k, c in self.codes(byte).items()}


def kinds_of_names(names: Mapping[int, str]) -> dict[ScalarKind, int]:
    """Scalar kind → code, read back from a kind field's enum table (:meth:`ScalarKindCodes.names`): the
    text form, the checks and the simulator take the codes from the layout's own field, so they follow
    the byte the field is."""
    return {ScalarKind(n): c for c, n in names.items()}


def kind_of_names(names: Mapping[int, str], code: int) -> ScalarKind | None:
    """The kind code ``code`` of a kind field stands for, from the field's enum table (None: not a code)."""
    n = names.get(code)
    return None if n is None else ScalarKind(n)


class TsScalarWords(Decision):
    id = "N-3"
    subject = "TensorScalar scalar value words (s0, s1)"
    reason = ("INFERRED: with N-1 only +0x28..+0x2F are free; 0x21 keeps its values at +0x28/+0x2C (C); a value at the "
              "kind byte +0x23 would overwrite op0/op1/reverse, whose stores come first. Not checkable on a real NEFF "
              "yet")
    S0_28 = Reading("s0-0x28-s1-0x2c", "s0's value word is the u32 at +0x28, s1's at +0x2C")
    S1_28 = Reading("s1-0x28-s0-0x2c", "swapped: s1 at +0x28, s0 at +0x2C")
    POINTER_ONLY = Reading("pointer-only", "as the default, but immediates and registers are refused (only "
                                           "[P,1] pointers, whose value word cannot be mistaken for a float)")

    def offsets(self) -> dict[str, int]:
        """Scalar → offset of its value word."""
        if self.reading is self.S1_28:
            return {"s0": 0x2C, "s1": 0x28}
        return {"s0": 0x28, "s1": 0x2C}

    @property
    def pointers_only(self) -> bool:
        return self.reading is self.POINTER_ONLY


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


class PointerWord(Decision):
    id = "N-6"
    subject = "the 32-bit value word of a pointer (SB/PSUM [P,1]) scalar"
    reason = ("ACT 'bundle[0x28] = slot32_resolver(this+76, imm) // SB/PSUM slot id (dword)'; the exact format is not "
              "shown (I). NKI: one element per partition, the data's partition count; same start is inferred")
    ADDR4 = Reading("addr4", "the ADDR4 word of the pointer's first element (D-5)")
    BYTE_OFFSET = Reading("byte-offset", "the byte offset inside the partition only (no partition/PSUM bits)")

    def word(self, addr4: int, byte: int) -> int:
        return byte if self.reading is self.BYTE_OFFSET else addr4

    @property
    def has_address(self) -> bool:
        """Whether the word is a whole ADDR4 (else only the byte in the partition)."""
        return self.reading is self.ADDR4


class RegisterWord(Decision):
    id = "N-7"
    subject = "the value word of a register scalar"
    reason = "ACT 'Register::getRegId(reg@+232)' (C); register_ap and register_access are both accepted (finding #8)"
    FIXED = Reading("register-id", "the register id, zero-extended; an offset register is refused")


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


class MultiBundleSync(Decision):
    id = "N-10"
    subject = "sync of an instruction that becomes two bundles (0x21 + 0x24, 0x9A + 0x9B)"
    reason = "SPEC D-24 extended"
    FIXED = Reading("first-wait-last-update", "the wait on the first bundle, the update on the last")


class ReadAccumulatorSlot(Decision):
    id = "N-11"
    subject = "0x24 / 0x9B (D1_RD) destination slot"
    reason = ("INFERRED: Memset's TENSOR1D sits at +0x2C (BUNDLE, lea [r12+0x2c]) and 0x24's control bytes are "
              "Memset's; 0x9B has no byte map anywhere")
    AT_2C = Reading("tensor1d-0x2c", "TENSOR1D at +0x2C; 0x9B +0x21 = negated")
    AT_30 = Reading("tensor1d-0x30", "TENSOR1D at +0x30")

    def offset(self) -> int:
        return 0x30 if self.reading is self.AT_30 else 0x2C


class ReduceOpcodePairing(Decision):
    id = "N-12"
    subject = "which TensorReduce opcodes carry the free-axis field block"
    reason = ("ENUM names 0x42/0x52 TensorReduce*, 0x7C/0x7D CrossLaneReduce*, 0x83/0x84 TransposeTensorReduce*; the "
              "NEFF's gen3 DVE table enables 0x42/0x52/0x83/0x84 (0x83/0x84 = 0x42's row + slow program 4) and not "
              "0x7C/0x7D; PENG/MASTER pair them the other way by arithmetic on register contents (contradiction 7)")
    FREE_0X42 = Reading("free-0x42", "free axis: 0x42 arith / 0x52 bitvec, 0x83 / 0x84 with apply_transpose; "
                                     "cross-lane: 0x7C / 0x7D")
    BOOK_LITERAL = Reading("book-literal", "the book's pairing: free axis 0x7C arith / 0x7D bitvec (no transpose "
                                           "form); cross-lane 0x42 / 0x52")

    def free_axis(self, bitvec: bool, transpose: bool) -> Op | None:
        """The free-axis opcode (None: apply_transpose has no opcode under this reading)."""
        if self.reading is self.BOOK_LITERAL:
            return None if transpose else (CROSS_BITVEC if bitvec else CROSS_ARITH)
        if transpose:
            return TR_T_BITVEC if bitvec else TR_T_ARITH
        return TR_BITVEC if bitvec else TR_ARITH

    def free_axis_opcodes(self) -> tuple[Op, ...]:
        if self.reading is self.BOOK_LITERAL:
            return (CROSS_ARITH, CROSS_BITVEC)
        return (TR_ARITH, TR_BITVEC, TR_T_ARITH, TR_T_BITVEC)

    def cross_lane(self, bitvec: bool) -> Op:
        """The cross-lane (partition) reduce opcode."""
        if self.reading is self.BOOK_LITERAL:
            return TR_BITVEC if bitvec else TR_ARITH
        return CROSS_BITVEC if bitvec else CROSS_ARITH

    def cross_lane_opcodes(self) -> tuple[Op, ...]:
        return (TR_ARITH, TR_BITVEC) if self.reading is self.BOOK_LITERAL else (CROSS_ARITH, CROSS_BITVEC)


class ReduceAxisByte(Decision):
    id = "N-13"
    subject = "TensorReduce axis byte (+0x25) versus the num == 1 pairs D-6 drops"
    reason = ("PENG 'reduce-count = AxisListType value + 1', sub_120EAB0 axis + 2; D-6 drops num == 1 pairs before "
              "packing, so the wire byte must count the reduced pairs that remain")
    COUNT_PACKED = Reading("count-packed", "+0x25 = 1 + the number of reduced pairs with num > 1 (= axis + 2 when "
                                           "none is degenerate); reducing only size-1 dims is refused")
    NO_DROPPING = Reading("no-dropping", "TensorReduce inputs keep their num == 1 pairs; +0x25 = axis + 2")

    @property
    def drops_degenerate(self) -> bool:
        return self.reading is self.COUNT_PACKED


class ReduceOpGate(Decision):
    id = "N-14"
    subject = "which ALU ops TensorReduce accepts"
    reason = "NKI 'Legal Reduction' column; PENG 'average(24) / elemwise_mul(25) → ERR'"
    NKI_SET = Reading("nki-set", "add, subtract, mult, max, min, bitwise and/or/xor, logical and/or/xor")
    ALU_LUT = Reading("alu-lut", "every op the ALU LUT maps")

    def allows(self, op: AluOp) -> bool:
        return self.reading is self.ALU_LUT or op in NKI_REDUCE_OPS


class BitvecSelection(Decision):
    id = "N-15"
    subject = "bit-vector opcode selection (TensorScalar 0x53, TensorReduce 0x52)"
    reason = "TS isBitVecInstruction; NKI 'must be of the same type (both bitvec or both arithmetic)'"
    FIXED = Reading("op0-class", "the op's SPEC §2.2 class (bypass arithmetic); mixing op classes is refused")

    @staticmethod
    def is_bitvec(cls: AluClass) -> bool:
        return cls is AluClass.BITVEC


class SttLayout(Decision):
    id = "N-21"
    subject = "ScalarTensorTensor 0x9D / 0x9E / 0xE5 (S2S2D2_STT): the three TENSOR2D slots and the scalar's bytes"
    reason = ("INFERRED from SelectReduce's S2S2D2 struct (TT 59659692757: '+0x18 dst CERTAIN lea [r15+0x18] "
              "@0x125f944', '+0x30 the args[0] operand CERTAIN lea [r15+0x30] @0x125f97b', the other source "
              "'register-packed', SPEC D-15 +0x0C). TS (60106828309) gives only '+0x28..+0x3F overlap TENSOR2D "
              "(t0/t1/out)', which collides with its own control band +0x28..+0x2C. The scalar's kind byte +0x27 is "
              "sub_12051E0's (the IMM_SRC helper of N-2/N-3, chapter §13), so its codes are N-2's and its value word "
              "is a pointer's ADDR4 (N-6), a register id (N-7) or an immediate's bits (N-33) in the only free 4-byte "
              "hole +0x3C. The one-byte alternative is SPEC D-16's default reading of the same byte in SelectReduce")
    DEFAULT = Reading("t1-0x0c-t0-0x30", "tensor1 TENSOR2D at +0x0C, out at +0x18, tensor0 at +0x30; the scalar's "
                                         "kind byte at +0x27 (N-2's codes) and its 32-bit value word at +0x3C")
    SWAPPED = Reading("t0-0x0c-t1-0x30", "tensor0 at +0x0C, tensor1 at +0x30 (swapped); out and the scalar as the "
                                         "default")
    ONE_BYTE = Reading("one-byte-scalar", "slots as the default; the scalar is one byte at +0x27 (D-16=one-byte's "
                                          "reading): an immediate whose bit pattern fits a byte, no kind byte and "
                                          "no +0x3C word (registers and pointers are refused)")

    def slot_offsets(self) -> dict[str, int]:
        """Operand role → offset of its TENSOR2D slot."""
        if self.reading is self.SWAPPED:
            return {"tensor0": 0x0C, "out": 0x18, "tensor1": 0x30}
        return {"tensor1": 0x0C, "out": 0x18, "tensor0": 0x30}

    @property
    def one_byte(self) -> bool:
        """Whether the scalar is a single byte at +0x27 (no kind byte, no value word)."""
        return self.reading is self.ONE_BYTE

    def value_offset(self) -> int | None:
        """The offset of the scalar's 32-bit value word (None: the one-byte reading has none)."""
        return None if self.one_byte else 0x3C


class IotaBand(Decision):
    id = "N-22"
    subject = "Iota 0x7E: the generation pattern in the source descriptor band"
    reason = ("POOL (C): '+0x10 src dim0 sentinel = 1', '+0x18 src dim sentinel = 1', out dtype +0x21, lanes +0x22, "
              "channel_multiplier +0x24; the real bytes settle the band (16 bundles, 11 distinct, 6 yolox-trn1 "
              "NEFFs, sunda, neuronx-cc 2.14): slot 0 carries the innermost pattern pair (step 5 count 16, step 1 "
              "count 9: not the {1,1} sentinel in 7 of 11 distinct bundles), base at +0x0C takes 0..4 (5 bundles "
              "that differ only in base and dst), and the pattern's element count equals the dst's in all 11; "
              "only slot0-pattern decodes all 16 with no finding (base-slot0-fixed: 22 findings, its slot-0 constants "
              "broken; no-base: 30; off: all 16 undecoded)")
    SLOT0_PATTERN = Reading("slot0-pattern", "base at +0x0C; 4 pattern slots from slot 0 (the book's '= 1' stores "
                                             "are defaults later overwritten)")
    BASE_SLOT0_FIXED = Reading("base-slot0-fixed", "base (int32) at +0x0C; slot 0 is {1,1} (the two C stores); "
                                                   "3 pattern slots, innermost first")
    NO_BASE = Reading("no-base", "as base-slot0-fixed, but +0x0C is not written: base must be 0")
    OFF = Reading("off", "Iota is refused (the chapter's draft: experimental)")

    @property
    def enabled(self) -> bool:
        return self.reading is not self.OFF

    @property
    def first_slot(self) -> int:
        """The first pattern slot (slot 0 is the {1,1} sentinel unless N-22=slot0-pattern)."""
        return 0 if self.reading is self.SLOT0_PATTERN else 1

    @property
    def has_base(self) -> bool:
        return self.reading is not self.NO_BASE


class CrossLaneMean(Decision):
    id = "N-23"
    subject = "cross-lane average: the 1/N word at +0x28"
    reason = "PENG: '1.0f / (in.Pattern[?].num * getNumElementsPerPartition(in))' (the '?' is the book's)"
    BY_AXIS = Reading("by-axis", "C: 1/P; XYZWC: 1/(P x elements per partition)")
    ALWAYS_ALL = Reading("all-elements", "always 1/(P x elements per partition)")

    def count(self, partitions: int, elements: int, whole: bool) -> int:
        return partitions * elements if whole or self.reading is self.ALWAYS_ALL else partitions


class PoolPacking(Decision):
    id = "N-24"
    subject = "Pool 0x45 input packing"
    reason = "POOL/PENG: the window is Pattern[3] x Pattern[4]; Avg asserts in0.size() == 5"
    FIXED = Reading("no-dropping", "the input keeps its num == 1 pairs (the window stays in the two innermost "
                                   "slots); Avg needs exactly 5 pairs, Max 3 to 5")

    @staticmethod
    def window(slots: Sequence[tuple[int, int]], order: FreeDimOrder) -> int:
        """The window size of a Pool src descriptor (its (step, num) slots, slot 0 first): the two
        innermost free dims. Under D-6=outermost-first the trailing {1,1} slots are the fill."""
        pairs = list(slots)
        if not order.innermost_first:
            while len(pairs) > 2 and pairs[-1] == (1, 1):
                pairs.pop()
        dims = order.from_slots(pairs)
        return dims[-1][1] * dims[-2][1]


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


class DefaultStream(Decision):
    id = "N-16"
    subject = "the stream of an Unassigned instruction of these families"
    reason = ("NKI: activation 'using Scalar Engine', iota / tensor_partition_reduce 'using GpSimd Engine'; the NEFF's "
              "DVE table enables the DVE opcodes; SPEC §5 sends every non-SP op to dve")
    PER_FAMILY = Reading("per-family", "Activation family → act; cross-lane reduce and Iota → pool; others → dve")
    SPEC_DVE = Reading("spec-dve", "SPEC §5: every non-SP instruction → dve")

    def stream(self, family: str) -> str:
        """The stream of an Unassigned instruction of IR family ``family`` (``sp``, ``pe``, ``act``, ``pool``,
        ``tensor``); the ``engine`` family (DMA, sync/control) has none: codegen refuses it."""
        if family in ("sp", "pe"):  # SPEC §5: the SP ops and the PE pair keep their engine
            return family
        if self.reading is self.PER_FAMILY and family in ("act", "pool"):
            return family
        return "dve"


class GpsimdPsum(Decision):
    id = "N-17"
    subject = "Pool engine operands in PSUM"
    reason = "NKI 'GpSimd Engine cannot access PSUM'"
    FIXED = Reading("refuse", "refused for every opcode of these families ('GPSIMD engine cannot access PSUM')")


class TsTwoOutputsIdle(Decision):
    id = "N-18"
    subject = "TensorScalarPtr with two outputs and acc Idle"
    reason = "TS: the encoder 'fires reportError(\"Reduce Accum result is not outputed\") and forces acc=3'"
    REFUSE = Reading("refuse", "refused with 'Reduce Accum result is not outputed'")
    ZERO_ACCUMULATE = Reading("zero-accumulate", "encoded as ZeroAccumulate, as the compiler forces it")

    @property
    def refuses(self) -> bool:
        return self.reading is self.REFUSE


class FusedReduceRoles(Decision):
    id = "N-19"
    subject = "the fused-reduce TensorScalar 0x9A"
    reason = "TS '0x9A is the TensorScalarCacheReduce opcode'; NKI tensor_scalar_reduce"
    FIXED = Reading("op1-reduces", "op1 is the reduce operator; s1 the reduce init (LoadAccumulate only); outs[1] "
                                   "is read out by a trailing 0x9B")


class TensorScalarLowering(Decision):
    id = "N-20"
    subject = "BIR TensorScalar (IT28, immediate constants) on the wire"
    reason = "TS: 'There is no plain InstTensorScalar (IT28) wire emitter'; KLR fills op1 bypass / const1 0"
    TWO_ARGS = Reading("two-args-if-bypass", "as TensorScalarPtr with float32 immediates; 2 args when op1 is bypass")
    THREE_ARGS = Reading("always-3-args", "always 3 args (const1 written even with op1 bypass)")

    @property
    def always_three(self) -> bool:
        return self.reading is self.THREE_ARGS


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


class TscacheReverse0(Decision):
    id = "N-28"
    subject = "TensorScalarCache 0xE6: what reverse0 does"
    reason = ("TS: 'reverse0 selects scan direction'; NKI tensor_scalar_cumulative's pseudocode uses it as operand "
              "order (contradiction 12); the wire bit is the same")
    OPERAND_ORDER = Reading("operand-order", "NKI: op0(imm0, x) instead of op0(x, imm0); the scan runs first to last")
    SCAN_DIRECTION = Reading("scan-direction", "the book: the scan runs last to first; op0(x, imm0)")

    @property
    def reverses_scan(self) -> bool:
        return self.reading is self.SCAN_DIRECTION


class IdleActivationAccumulator(Decision):
    id = "N-29"
    subject = "the Activation accumulator after an Idle 0x21"
    reason = ("ACT '(acc==0) ? 3 : ACCUM_map(acc)': the wire carries ZeroAccumulate for Idle, so a bundle cannot "
              "tell the two apart; NKI's 'idle: do not modify reduce_regs' (contradiction 15) has no byte to live in")
    FIXED = Reading("zero-accumulate", "an Idle Activation leaves its row sums in the accumulator (wire 3)")


class AccumulatorSemantics(Decision):
    id = "N-30"
    subject = "engine accumulator commands"
    reason = "NKI tensor_scalar_reduce / activation (identities 0, 1, -inf, +inf)"
    FIXED = Reading("nki", "Zero: reset to id(op); ZeroAccumulate: reset, fold; AddAccumulate: fold; LoadAccumulate: "
                           "load the init, fold; Idle: unchanged")


class Gen4Only(Decision):
    id = "N-31"
    subject = "gen4-only forms (Activate2 0x25, Exponential 0x30)"
    reason = "ACT / TS: CoreV4-only encoders"
    FIXED = Reading("refuse", "refused on gen2/gen3")


class ImmediateValues(Decision):
    id = "N-33"
    subject = "immediate value words"
    reason = "TS 'arith immediate dtype must be fp32', 'bitvec immediate dtype size must be >= input dtype'"
    FIXED = Reading("bit-pattern", "the value's bit pattern in its own dtype, zero-extended; float32 for arithmetic "
                                   "ops and activations; 64-bit immediates refused")


class PartitionAgreement(Decision):
    id = "N-34"
    subject = "partition counts of inputs, outputs and pointers"
    reason = "NKI 'The partition dimension size of input data and output dst tiles must be the same'"
    FIXED = Reading("equal", "equal partition counts; a pointer also starts at the data's start partition")


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


class TsPointerOpcodes(Decision):
    id = "N-37"
    subject = "TensorScalarPtr* opcodes 0x44 / 0x54"
    reason = ("the encoder's fork stores 0x53 / 0x93 / 0x9A and 0x43 (TS store sites); the NEFF's DVE table gives "
              "0x44/0x54 the same row as 0x43/0x53 (microcode aliases)")
    NEVER = Reading("never", "never emitted")
    POINTERS = Reading("pointer-scalars", "0x44 / 0x54 when any scalar is a pointer")

    def opcode(self, bitvec: bool, any_pointer: bool) -> Op:
        if self.reading is self.POINTERS and any_pointer:
            return TS_PTR_BITVEC if bitvec else TS_PTR_ARITH
        return TS_BITVEC if bitvec else TS_ARITH


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


class BnStatsPartitionByte(Decision):
    id = "N-39"
    subject = "BNStats / BNStatsAggregate +0x22"
    reason = ("BN calls it the BASE partition, but its accessor *(*(arg0+0x50)+8) is the one ACT/TS call "
              "num_active_channels and POOL the lane count (§15.6, verification)")
    LANE_COUNT = Reading("lane-count", "the input's partition count (as every other Family C op)")
    START_PARTITION = Reading("start-partition", "the input's start partition")

    @property
    def is_count(self) -> bool:
        return self.reading is self.LANE_COUNT


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
