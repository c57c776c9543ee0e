"""The D-n decisions of SPEC.md §6, each with the behaviour its readings imply.

The public reverse-engineering sources are silent or contradict each other on these points; the
spec picks one reading for each and a real compiled NEFF can overturn any of them. To change a
default when better evidence turns up, move the reading to the top of its class; the test that pins
it cites the same id.
"""

from __future__ import annotations

from typing import Protocol, TypeVar
from collections.abc import Iterable, Sequence

from ..enums import UPDATE_LUT, AluClass, AluOp, MemoryType, UpdateMode
from .base import Decision, Reading

P = TypeVar("P")


class HeaderWordLength(Decision):
    id = "D-1"
    subject = "+0x01 (inst_word_len) on the SP register-lane ops"
    ALL = Reading("0x10", "+0x01 is 0x10 on every opcode, SP ops included (the header writer is shared)")
    ZERO_ON_SP = Reading("zero", "+0x01 is 0x00 on the SP register-lane ops (0xA7, 0xA8, 0xAA, 0xAB, 0xCD, 0xCE)")

    def word_len(self, sp_op: bool) -> int:
        """The constant at +0x01 of a layout (``sp_op``: an SP register-lane layout)."""
        return 0 if (sp_op and self.reading is self.ZERO_ON_SP) else 0x10


class UpdateModeWire(Decision):
    id = "D-2"
    subject = "update-mode wire byte at +0x06"
    LUT = Reading("lut", "update mode goes through the LUT 11 15 17 13 14 19")
    RAW = Reading("raw", "the update mode ordinal is written raw")

    @property
    def zero_is_none(self) -> bool:
        """Whether byte 0 unambiguously means "no update" (under the raw reading 0 is also evt_set)."""
        return self.reading is self.LUT

    def wire(self, mode: UpdateMode) -> int:
        """The wire byte of an update mode."""
        return UPDATE_LUT[mode] if self.reading is self.LUT else int(mode)

    def mode(self, byte: int) -> UpdateMode | None:
        """The update mode a wire byte stands for (None: not a known byte; 0 under the LUT = none)."""
        return self.by_wire().get(byte)

    def by_wire(self) -> dict[int, UpdateMode]:
        if self.reading is self.LUT:
            return {w: m for m, w in UPDATE_LUT.items()}
        return {m.value: m for m in UpdateMode}

    def names(self) -> dict[int, str]:
        """Names of the update-mode byte values (the decoder's enum table)."""
        if self.reading is self.LUT:
            return {0: "none", **{w: m.name for m, w in UPDATE_LUT.items()}}
        return {0: "evt_set (or none)", **{m.value: m.name for m in UpdateMode if m}}


class SyncBandScope(Decision):
    id = "D-3"
    subject = "which opcodes carry the sync band"
    ALL = Reading("all", "every opcode of the spec carries the sync band at +0x04..+0x0B")
    SP_ONLY = Reading("sp-only", "only the SP register-lane ops carry it; sync info on any other op is refused")

    def carries_sync(self, sp_op: bool) -> bool:
        return self.reading is self.ALL or sp_op


class SharedSyncValue(Decision):
    id = "D-4"
    subject = "a sem_ge wait and a value-carrying update in one instruction"
    REFUSE = Reading("refuse", "refused: both want the shared dword at +0x08")
    UPDATE_WINS = Reading("update-wins", "encoded; the update value overwrites the wait value at +0x08 (write order)")

    @property
    def refuses(self) -> bool:
        """Whether such an instruction is refused (else the update's value is written)."""
        return self.reading is self.REFUSE


class Addr4Composition(Decision):
    id = "D-5"
    subject = "ADDR4 composition"
    FIXED = Reading("fixed", "SBUF part<<18 | byte; PSUM 0x2000000 + part<<15 + bank<<11 + byte")


class FreeDimOrder(Decision):
    id = "D-6"
    subject = "order of free dims in TENSOR descriptors"
    INNERMOST_FIRST = Reading("innermost-first",
                              "slot 0 gets the last (fastest) pair; num==1 pairs dropped; {1,1} fill")
    OUTERMOST_FIRST = Reading("outermost-first", "slot 0 gets the first free pair; num==1 pairs dropped; {1,1} fill")

    @property
    def innermost_first(self) -> bool:
        return self.reading is self.INNERMOST_FIRST

    def to_slots(self, outer_first: Sequence[P]) -> list[P]:
        """Free dims written outermost first (as in an access pattern) → descriptor slot order."""
        return list(outer_first[::-1]) if self.reading is self.INNERMOST_FIRST else list(outer_first)

    def from_slots(self, slots: Sequence[P]) -> list[P]:
        """Descriptor slots (slot 0 first) → free dims outermost first (the order is an involution)."""
        return self.to_slots(slots)

    def slot_meaning(self, i: int) -> str:
        """What slot ``i`` holds (for explain)."""
        side = "innermost" if self.reading is self.INNERMOST_FIRST else "outermost"
        return f"free dim {i} from the {side}"


class RegisterAluDtypes(Decision):
    id = "D-7"
    subject = "RegisterAlu dtype bytes +0x0D/+0x0F and register roles"
    BY_OPERAND_MODE = Reading("by-operand-mode",
                              "register path: +0x0D = 1, +0x0F = 0; immediate path: both dtype bytes")
    BOTH = Reading("both-dtype-bytes", "both paths: +0x0D = wire(src1 dtype), +0x0F = wire(dst dtype)")

    @property
    def register_path_has_dtypes(self) -> bool:
        """Whether the register path writes the two dtype bytes (else a constant 1 at +0x0D)."""
        return self.reading is self.BOTH


class _Location(Protocol):
    @property
    def tensor_id(self) -> int | None: ...

    @property
    def index(self) -> int: ...


class VariableId(Decision):
    id = "D-8"
    subject = "TensorLoad/Save var_id and var_offset"
    FIXED = Reading("fixed", "var_id = tensor_id or location index (u32 +0x10); var_offset = offset x size (u32 +0x14)")

    @staticmethod
    def var_id(loc: _Location) -> int:
        """The variable id of a memory location: its ``tensor_id``, else its 0-based index among the
        memory locations of its function."""
        return loc.tensor_id if loc.tensor_id is not None else loc.index


class DataRegister(Decision):
    id = "D-9"
    subject = "TensorLoad/Save data register"
    FIXED = Reading("fixed", "+0x20 data register lo, +0x21 hi")


class M2dLayout(Decision):
    id = "D-10"
    subject = "TensorLoad/Save m2d layout"
    FIXED = Reading("fixed", "SP page byte map: u8 counts at +0x0E/+0x0F, u32 steps at +0x18/+0x1C")


class SaveTargetsGen2(Decision):
    id = "D-11"
    subject = "TensorSave memory targets on gen2"
    SBUF_REFUSED = Reading("sbuf-refused-on-gen2", "on gen2 a TensorSave into SBUF is refused; DRAM allowed")
    ONLY_SBUF = Reading("only-sbuf-on-gen2", "on gen2 only SBUF targets are allowed")

    def refusal(self, types: Iterable[MemoryType]) -> str | None:
        """Why a gen2 TensorSave into locations of these memory types is refused, or None."""
        ts = set(types)
        if self.reading is self.SBUF_REFUSED:
            if MemoryType.SB in ts:
                return ("TensorSave into SBUF is refused on gen2 (module version 20): the compiler FATALs on an "
                        "SB store there (D-11)")
            return None
        if any(t.is_dram for t in ts):
            return "TensorSave into DRAM is refused on gen2 under D-11=only-sbuf-on-gen2"
        return None

    def refused_space(self) -> str:
        """The memory space the reading refuses (for findings)."""
        return "SB" if self.reading is self.SBUF_REFUSED else "DRAM"


class BitvecOpcode(Decision):
    id = "D-12"
    subject = "which ALU ops take the bit-vector TensorTensor opcode 0x51"
    BYPASS_ARITH = Reading("bypass-arith", "bit-vector class ops → 0x51; bypass stays on 0x41")
    BYPASS_BITVEC = Reading("bypass-bitvec", "bit-vector class ops and bypass → 0x51")

    def is_bitvec(self, op: AluOp, cls: AluClass) -> bool:
        """Whether an ALU op takes the bit-vector opcode (and the bit-vector semantics)."""
        return cls is AluClass.BITVEC or (op is AluOp.bypass and self.reading is self.BYPASS_BITVEC)


class Int32OverrideGen2(Decision):
    id = "D-13"
    subject = "GPSIMD int32 override on gen2"
    POOL = Reading("pool-engine", "engine Pool, all int32, add → 0x8A/0xC4, mult → 0x8E/0xC5")
    ANY_ENGINE = Reading("no-engine-gate", "any engine, all int32, add → 0x8A/0xC4, mult → 0x8E/0xC5")

    def gate(self, on_pool: bool) -> bool:
        """Whether the gen2 override may apply on this engine."""
        return on_pool or self.reading is self.ANY_ENGINE


class PredicateFlags(Decision):
    id = "D-14"
    subject = "predicated-copy flags (0xE8 +0x21, 0xEA +0x26)"
    NOT_REVERSE = Reading("not-reverse-pred",
                          "0xE8 +0x21 = 1 iff not reverse_pred; 0xEA +0x26 = 1 iff a fill is given")
    REVERSE = Reading("reverse-pred", "both flags equal reverse_pred")

    def polarity(self, reverse_pred: bool) -> int:
        """The 0xE8 +0x21 flag; 1 writes the scalar where the predicate is non-zero."""
        return int(not reverse_pred) if self.reading is self.NOT_REVERSE else int(reverse_pred)

    def use_fill(self, fill_given: bool, reverse_pred: bool) -> int:
        """The 0xEA +0x26 flag (read as "false lanes take the fill")."""
        return int(fill_given) if self.reading is self.NOT_REVERSE else int(reverse_pred)

    @property
    def reverse_pred_has_no_field(self) -> bool:
        """Whether a SelectReduce reverse_pred has no field (and is refused)."""
        return self.reading is self.NOT_REVERSE

    @property
    def fill_required(self) -> bool:
        """Whether BIR210 (a SelectReduce needs a fill) is read off the +0x26 flag."""
        return self.reading is self.NOT_REVERSE


class SelectReduceSrc(Decision):
    id = "D-15"
    subject = "SelectReduce src slot"
    TENSOR2D = Reading("tensor2d-at-0x0c", "src is a TENSOR2D at +0x0C")
    UNENCODED = Reading("unencoded", "src is 'register-packed': not encoded, +0x0C..+0x17 stay zero")

    @property
    def encoded(self) -> bool:
        return self.reading is self.TENSOR2D


class SelectReduceFill(Decision):
    id = "D-16"
    subject = "SelectReduce fill"
    ONE_BYTE = Reading("one-byte", "one byte at +0x27 (register id or the immediate's low byte)")
    SOURCE_BYTE = Reading("source-byte", "+0x27 = fill source (0 imm, 1 register), 32-bit value at +0x3C")

    @property
    def one_byte(self) -> bool:
        return self.reading is self.ONE_BYTE


class CopyLowering(Decision):
    id = "D-17"
    subject = "GenericCopy and Select lowering"
    FIXED = Reading("fixed", "GenericCopy encodes as TensorCopy; a scalar on_false lowers to Memset (D-17b)")


class CopyReinterpret(Decision):
    id = "D-18"
    subject = "copy dtype reinterpret"
    IDENTITY = Reading("identity", "getReinterpretedCopyDtype is the identity")


class MemsetDescriptor(Decision):
    id = "D-19"
    subject = "Memset dst descriptor"
    TENSOR4D = Reading("tensor4d", "TENSOR4D at +0x2C")


class MoveShapeCounts(Decision):
    id = "D-20"
    subject = "MoveShape count words"
    U16 = Reading("u16", "4 x u16 counts at +0x30; +0x38..+0x3F zero")
    U32 = Reading("u32", "4 x u32 counts at +0x30, like the steps")

    @property
    def count_size(self) -> int:
        return 2 if self.reading is self.U16 else 4


class Int32BandGen3(Decision):
    id = "D-21"
    subject = "Pool int32 band on TensorTensor 0x41 (gen3; gen2 too)"
    reason = ("Real bytes: 62 Pool TensorTensor bundles of neuronx-cc 2.14 on sunda (gen2; 29 streams of the "
              "yolox-trn1 cache) are opcode 0x41 with +0x0E = 0xC4 (add in the band) and in0, in1, out all int32 "
              "(+0x0C = 0x88, +0x0D = 0x08); none of the corpus's 1.23 M bundles is a 0x8A/0x8E (D-13's gen2 "
              "forms). So the band on 0x41 is not gen3-only: the checker takes it on both targets. D-13 still "
              "says which form the encoder writes on gen2 (both forms decode and check)")
    BOTH = Reading("both-targets", "opcode 0x41 with add 0xC4, subtract 0xC6, mult 0xC5, divide 0xC7 at +0x0E, "
                                   "on gen3 and on gen2 (the real 2.14 bytes), beside gen2's 0x8A/0x8E")
    GEN3_ONLY = Reading("gen3-only", "the band on 0x41 is the gen3 form only; gen2 has 0x8A/0x8E (SPEC)")

    def band_on_0x41(self, target: str) -> bool:
        """Whether the int32 band byte may stand on opcode 0x41 for ``target`` (gen2, gen3...)."""
        return self.reading is self.BOTH or target != "gen2"


class LoadSaveOffset(Decision):
    id = "D-22"
    subject = "TensorLoad/Save offset operand"
    OFFSET_AT_0X21 = Reading("offset-at-0x21", "its register id at +0x21 (32-bit data) and at +0x11 (REG form)")
    REGREF_PAIR = Reading("regref-pair", "+0x10/+0x11 are the lo/hi ids of the memory regref; offset only at +0x21")

    @property
    def offset_register_in_reg_form(self) -> bool:
        """Whether the REG form has an offset register at +0x11 (else the address pair's hi id)."""
        return self.reading is self.OFFSET_AT_0X21


class FloatImmediates(Decision):
    id = "D-23"
    subject = "float immediates"
    BITCAST = Reading("bitcast", "float values are bit-cast to IEEE bits")


class SelectSync(Decision):
    id = "D-24"
    subject = "Select sync"
    SPLIT = Reading("first-wait-last-update", "the wait goes on the first bundle, the update on the last")


class EngineAll(Decision):
    id = "D-25"
    subject = "engine ALL"
    REFUSE = Reading("refuse", "refused with a clear message")


class PackedDtypesGen3(Decision):
    id = "D-26"
    subject = "packed dtypes on gen3"
    REFUSE_TT = Reading("refuse-in-tensortensor", "refused in TensorTensor only")


class ScalarImmediateDtype(Decision):
    id = "D-27"
    subject = "0xE8 immediate dtype"
    EQUAL = Reading("equal", "the immediate's dtype must equal the dst dtype (BIR217)")
    SAME_KIND = Reading("same-kind", "the immediate's dtype must be of the same kind (int/float) as the dst dtype")

    @property
    def must_equal(self) -> bool:
        """Whether the scalar's dtype must equal the dst dtype (else only be of the same kind)."""
        return self.reading is self.EQUAL


class LoadSaveRegApOffset(Decision):
    id = "D-28"
    subject = "a register_ap offset (reg_ap_offset, is_regloc_offset) on the TensorLoad/Save memory or offset operand"
    reason = ("the SP page (D-10) has no field for it and SPEC §3.3 refuses it in descriptors; encoding the load "
              "without it would silently address another place (an earlier encoder dropped it)")
    REFUSE = Reading("refuse", "refused with a message: the m2d bundle has no field for it")


class MemsetConstant(Decision):
    id = "D-29"
    subject = "what a BIR JSON Memset `constant` means"
    reason = ("SPEC §4.8 reads `constant` as the raw u32 fill, so `1` on a float32 dst filled 1.4e-45 and nothing "
              "said so; a kernel engineer writes the value (NKI's memset takes a value in the tile's dtype). The "
              "bundle is the same either way: +0x28 holds the bit pattern of the value in the dst dtype. The raw "
              "bits stay expressible with the `constant_bits` key under both readings")
    VALUE = Reading("value", "`constant` is a value in the dst dtype (1 on float32 fills 1.0, -1 on int32 fills "
                             "0xffffffff); a value the dtype cannot hold is refused; `constant_bits` is the raw pattern")
    BITS = Reading("bits", "SPEC §4.8 as written: `constant` is the raw u32 bit pattern, like `constant_bits`")

    @property
    def is_value(self) -> bool:
        """Whether ``constant`` is a value in the dst dtype (else the raw bits)."""
        return self.reading is self.VALUE
