"""The N-n decisions of the next-families chapter (``next-families.md``) that belong to the scalar family or
to every vector family: descriptor slots (N-1), scalar operands (their kind codes, words and values: N-2,
N-3, N-6, N-7, N-33), TensorScalar and ScalarTensorTensor (N-15, N-18..N-21, N-28, N-37), and the
chapter-wide rules (N-10, N-16, N-17, N-30, N-34). The act family's are in :mod:`.act`, the reduce
family's in :mod:`.reduce`.

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
from collections.abc import Mapping

from ..enums import AluClass
from ..opcodes import TS_ARITH, TS_BITVEC, TS_PTR_ARITH, TS_PTR_BITVEC, Op
from ..vector_enums import ScalarKind
from .base import Decision, Reading


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






class MultiBundleSync(Decision):
    id = "N-10"
    subject = "sync of an instruction that becomes two bundles (0x21 + 0x24, 0x9A + 0x9B)"
    reason = "SPEC D-24 extended"
    FIXED = Reading("first-wait-last-update", "the wait on the first bundle, the update on the last")










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




class AccumulatorSemantics(Decision):
    id = "N-30"
    subject = "engine accumulator commands"
    reason = "NKI tensor_scalar_reduce / activation (identities 0, 1, -inf, +inf)"
    FIXED = Reading("nki", "Zero: reset to id(op); ZeroAccumulate: reset, fold; AddAccumulate: fold; LoadAccumulate: "
                           "load the init, fold; Idle: unchanged")




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








