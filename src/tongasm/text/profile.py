"""The vendor profiler's listing syntax: each bundle the way ``neuron-profile`` prints it.

``neuron-profile`` (the Neuron SDK's profiler) lists every traced instruction with a mnemonic
(``ACTIVATE``, ``DMA_DIRECT2D``...), an instruction type (``REGULAR`` or ``TRANSPOSE``) and its
decoded operands::

    S[6] (Vector)>=7 S[4] (Scalar)++@complete EXP bias_ptr=fp32@0x6010 src=fp32@0x357f8[1,1,1][512,1,1] ...

``tongasm disasm --syntax profile`` prints the same text from tongasm's own decoding, so the vendor's
listing (``corpus/attention-trn2/profile/*.aligned.jsonl``: 1,976 bundles) is an oracle for tongasm's
field meanings: every token is one layout field (or a few) read through tongasm's layout records, and
a token that disagrees is a field tongasm reads wrong.

Everything the profiler's syntax says is declared here once, as data:

* :data:`MNEMONICS`: opcode byte -> the profiler's mnemonic;
* :data:`SPELLING`: per tongasm enum table, how the profiler spells a value (``mult`` -> ``MULTIPLY``);
* :data:`FORMS`: per layout (by name), the profiler's tokens in order, each naming the layout field(s)
  it shows and its format (:class:`Named`, :class:`Bare`, :class:`Wait`, :class:`Update`,
  :class:`Addr8` and the values :class:`Int`, :class:`Enum`, :class:`F32`, :class:`Tensor`...).

Names the bytes cannot hold come from the NEFF's own tables (:class:`ProfileContext`, built for a
NEFF's graph by :func:`tongasm.neff.semaphores.profile_context`): a semaphore's role
(``S[40] (qScalarDynamicHW)``) is the ``def.json`` DMA queue whose ``semaphore_set`` holds it, or
the engine whose stream increments it (``S[4] (Scalar)``), in the profiler's engine names
(:data:`ENGINE_NAMES`). A DRAM address (``src_addr_imm=0x800001080000``) is where the runtime placed
the variable, which no file holds: given the variables' bases it is printed as the profiler does,
without them as ``var6+0x80000``. A layout with no form here prints its mnemonic (or tongasm's, in
capitals) and every non-zero field as ``name=value``.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..decode.bundle import DecodedBundle, DecodeFailure, iter_stream
from ..errors import TongasmError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.decisions.spec import UpdateModeWire
from ..isa.enums import WAIT_WIRE, UpdateMode, WaitMode
from ..isa.fields import Format
from ..isa.formats import FormatSet, build_formats

# --- the profiler's names --------------------------------------------------------------------------------

#: The profiler's name of each engine (the hardware's names), by tongasm stream name. Its queue names
#: are ``def.json``'s with the owner's part respelled: ``qActDynamicHW`` (owner ``act``) is printed
#: ``qScalarDynamicHW``, ``qSPDynamicHW`` ``qSyncDynamicHW``, ``qPoolDynamic`` ``qGpSimdDynamic``.
ENGINE_NAMES: Mapping[str, str] = {"act": "Scalar", "pe": "Tensor", "dve": "Vector", "pool": "GpSimd", "sp": "Sync"}

#: The profiler's stream (engine file) names, for its ``engine`` column: tongasm stream -> name.
ENGINE_COLUMN: Mapping[str, str] = {"act": "Activation", "pe": "PE", "dve": "DVE", "pool": "Pool", "sp": "SP"}

#: Opcode byte -> the profiler's mnemonic (every opcode of the aligned listing).
MNEMONICS: Mapping[int, str] = {
    0x01: "LDWEIGHTS", 0x02: "MATMUL", 0x21: "ACTIVATE", 0x23: "ACT_TABLE_LOAD", 0x42: "TENSOR_REDUCE",
    0x43: "TENSOR_SCALAR", 0x46: "COPY", 0x47: "CAST", 0x48: "RECIPROCAL", 0xA0: "EVENT_SEMAPHORE", 0xA4: "NOP",
    0xD4: "DMA_DIRECT2D",
}

#: Per tongasm enum table (by its name), how the profiler spells a value that is not tongasm's name in
#: capitals. Wire dtypes are spelled in lower case unless listed.
SPELLING: Mapping[str, Mapping[str, str]] = {
    "wire dtype": {"FLOAT32": "fp32", "BFLOAT16": "bfloat16"},
    "ALU op": {"mult": "MULTIPLY"},
    "scalar kind": {"pointer": "PTR", "immediate": "INSTRUCTION", "register": "REGISTER"},
}

#: The device address of SBUF byte 0 of partition 0 in the profiler's DMA addresses, per target:
#: ``dst_addr_imm=0x8020000357f8`` for ``sb[p0]+0x357f8`` (every SBUF side of the aligned DMAs).
SBUF_DEVICE_BASE: Mapping[str, int] = {"gen3": 0x8020_0000_0000}


class ProfileError(TongasmError):
    """A profile form that names a field or slot its layout does not have (a table defect)."""


def spell(table: str | None, name: str) -> str:
    """The profiler's spelling of tongasm's enum value ``name`` of the table ``table``."""
    if table is not None and name in SPELLING.get(table, {}):
        return SPELLING[table][name]
    return name.lower() if table == "wire dtype" else name.upper()


# --- values: one field (or a few) -> text -------------------------------------------------------------------

@dataclass(frozen=True)
class Bundle:
    """What a value renders from: the layout, the decoded fields and the NEFF's context."""

    fmt: Format
    fields: Mapping[str, int]
    ctx: ProfileContext

    def get(self, name: str) -> int:
        try:
            return self.fields[name]
        except KeyError:
            raise ProfileError(f"profile form of {self.fmt.name} names field {name!r}, which the layout does not "
                               f"have (fields: {', '.join(self.fields)})") from None

    def enum_name(self, name: str) -> tuple[str | None, str]:
        """The field's enum table name and the value's profiler spelling (the number when unnamed)."""
        v = self.get(name)
        f = self.fmt.field_map[name]
        if f.enum is None:
            return None, str(v)
        n = f.enum.name_of(v)
        return f.enum.name, spell(f.enum.name, n) if n is not None else str(v)


class Value:
    """A token's value: ``text`` of a decoded bundle; ``zero`` when every field it shows is 0."""

    def text(self, b: Bundle) -> str:
        raise NotImplementedError

    def fields(self) -> tuple[str, ...]:
        return ()

    def zero(self, b: Bundle) -> bool:
        return all(b.get(f) == 0 for f in self.fields())


@dataclass(frozen=True)
class Int(Value):
    """An integer field, decimal or (``hexa``) ``0x`` hex."""

    field: str
    hexa: bool = False

    def text(self, b: Bundle) -> str:
        v = b.get(self.field)
        return hex(v) if self.hexa else str(v)

    def fields(self) -> tuple[str, ...]:
        return (self.field,)


@dataclass(frozen=True)
class Enum(Value):
    """An enum field by the profiler's name (:data:`SPELLING` of tongasm's name), or by ``numbers`` (a
    field tongasm reads as a number that the profiler names: value -> name); an unnamed value prints
    as its number. ``alt``: the field's names under the other readings of the decision that names it
    (the first the layout has is shown): under a reading that makes it a plain number, the number shows."""

    field: str
    numbers: Mapping[int, str] | None = None
    alt: tuple[str, ...] = ()

    def name(self, b: Bundle) -> str:
        names = (self.field, *self.alt)
        n = next((n for n in names if n in b.fields), None)
        if n is None:
            raise ProfileError(f"profile form of {b.fmt.name}: none of the fields {', '.join(names)} is in the layout")
        return n

    def text(self, b: Bundle) -> str:
        name = self.name(b)
        if self.numbers is not None:
            v = b.get(name)
            return self.numbers.get(v, str(v))
        return b.enum_name(name)[1]

    def zero(self, b: Bundle) -> bool:
        return b.get(self.name(b)) == 0


@dataclass(frozen=True)
class F32(Value):
    """A 32-bit word read as float32, printed ``%f`` (``1.000000``)."""

    field: str

    def text(self, b: Bundle) -> str:
        return f"{struct.unpack('<f', struct.pack('<I', b.get(self.field) & 0xFFFFFFFF))[0]:f}"

    def fields(self) -> tuple[str, ...]:
        return (self.field,)


@dataclass(frozen=True)
class Scalar(Value):
    """A scalar operand's value word read by its kind byte (the layout's kind enum, N-2): a pointer in
    hex; an immediate as float32 ``%f`` (``f32``) or the word in decimal. ``alt``: the word's field
    under the other readings of the decision that places it (the first the layout has is read:
    Activate's scale is ``arg2_value`` under N-5 ``scale-at-0x24``, ``reserved_24`` under ``reserved-zero``)."""

    value: str
    kind: str
    f32: bool = False
    alt: tuple[str, ...] = ()

    def word(self, b: Bundle) -> str:
        names = (self.value, *self.alt)
        name = next((n for n in names if n in b.fields), None)
        if name is None:
            raise ProfileError(f"profile form of {b.fmt.name}: none of the fields {', '.join(names)} is in the layout")
        return name

    def text(self, b: Bundle) -> str:
        f = b.fmt.field_map[self.kind]
        kind = f.enum.name_of(b.get(self.kind)) if f.enum is not None else None
        v = b.get(self.word(b))
        if kind == "pointer":
            return hex(v)
        return F32(self.word(b)).text(b) if self.f32 and kind == "immediate" else str(v)

    def fields(self) -> tuple[str, ...]:
        return (self.value, *self.alt, self.kind)

    def zero(self, b: Bundle) -> bool:
        return b.get(self.word(b)) == 0 and b.get(self.kind) == 0


@dataclass(frozen=True)
class Pointer(Value):
    """A typed pointer operand: ``fp32@0x6010``, when its kind byte (``kind``) reads pointer; another kind
    prints as :class:`Scalar` does (the profiler has not been seen to list one)."""

    value: str
    dtype: str
    kind: str

    def text(self, b: Bundle) -> str:
        f = b.fmt.field_map[self.kind]
        if f.enum is None or f.enum.name_of(b.get(self.kind)) != "pointer":
            return Scalar(self.value, self.kind).text(b)
        return f"{b.enum_name(self.dtype)[1]}@{b.get(self.value):#x}"

    def fields(self) -> tuple[str, ...]:
        return (self.value, self.dtype, self.kind)


@dataclass(frozen=True)
class Tensor(Value):
    """A descriptor slot: ``dtype@0xADDR[step0,step1,...][num0,num1,...]`` (the slot's dims, innermost
    first; the dtype from the slot's dtype field, left out when the slot has none, as PSUM's)."""

    slot: str

    def text(self, b: Bundle) -> str:
        s = b.fmt.slots.get(self.slot)
        if s is None:
            raise ProfileError(f"profile form of {b.fmt.name} names slot {self.slot!r}, which the layout does not have")
        steps = ",".join(str(b.fields.get(k, 0)) for k in s.step_keys)
        nums = ",".join(str(b.fields.get(k, 0)) for k in s.num_keys)
        dt = f"{b.enum_name(s.dtype_field)[1]}@" if s.dtype_field else ""
        return f"{dt}{b.get(s.addr_key):#x}[{steps}][{nums}]"


@dataclass(frozen=True)
class Pattern(Value):
    """A DMA side's 2-D pattern: ``[step0,step1][num0,num1]``."""

    side: str

    def text(self, b: Bundle) -> str:
        s = self.side
        return f"[{b.get(s + '.step0')},{b.get(s + '.step1')}][{b.get(s + '.num0')},{b.get(s + '.num1')}]"


@dataclass(frozen=True)
class Product(Value):
    """Several integer fields joined by ``*`` (``128*128``: the PE's rows x columns)."""

    parts: tuple[str, ...]

    def text(self, b: Bundle) -> str:
        return "*".join(str(b.get(f)) for f in self.parts)


@dataclass(frozen=True)
class Joined(Value):
    """Several values joined by commas (``ops=MULTIPLY,BYPASS``)."""

    parts: tuple[Value, ...]

    def text(self, b: Bundle) -> str:
        return ",".join(p.text(b) for p in self.parts)


@dataclass(frozen=True)
class Unlocated(Value):
    """A token the profiler prints with one value in every aligned bundle and that no byte tongasm
    declares can be told to hold (every candidate byte is zero wherever it appears): printed as the
    profiler prints it, and counted apart by the oracle test."""

    value: str
    why: str

    def text(self, b: Bundle) -> str:
        return self.value


# --- tokens: what one bundle's operand text is made of -----------------------------------------------------

class Token:
    """Zero or more words of the operand text."""

    def words(self, b: Bundle) -> list[str]:
        raise NotImplementedError


@dataclass(frozen=True)
class Named(Token):
    """``name=value``; ``omit_zero``: left out when the value's fields are all 0; ``unless_equal``: left out
    when field ``unless_equal[0]`` equals field ``unless_equal[1]``."""

    name: str
    value: Value
    omit_zero: bool = False
    unless_equal: tuple[str, str] | None = None

    def words(self, b: Bundle) -> list[str]:
        if self.omit_zero and self.value.zero(b):
            return []
        if self.unless_equal is not None and b.get(self.unless_equal[0]) == b.get(self.unless_equal[1]):
            return []
        return [f"{self.name}={self.value.text(b)}"]


@dataclass(frozen=True)
class Bare(Token):
    """A value with no name (``EXP``, ``128*128``); ``text`` a fixed word (the DMA's empty one)."""

    value: Value | None = None
    fixed: str = ""

    def words(self, b: Bundle) -> list[str]:
        return [self.value.text(b) if self.value is not None else self.fixed]


def _sem(b: Bundle, idx: int) -> str:
    role = b.ctx.roles.get(idx)
    return f"S[{idx}] ({role})" if role else f"S[{idx}]"


@dataclass(frozen=True)
class Wait(Token):
    """Wait lane ``lane`` of the layout's sync lanes: ``S[6] (Vector)>=12``; nothing when unused."""

    lane: int = 0

    def words(self, b: Bundle) -> list[str]:
        if b.fmt.sync is None or self.lane >= len(b.fmt.sync.waits):
            return []
        lane = b.fmt.sync.waits[self.lane]
        mode, idx, v = b.get(lane.mode), b.get(lane.index), b.get(lane.value)
        if mode == 0:
            return []
        if mode == WAIT_WIRE[WaitMode.sem_ge_imm]:
            return [f"{_sem(b, idx)}>={v}"]
        if mode == WAIT_WIRE[WaitMode.sem_ge_reg]:  # not in the aligned listing: the form is tongasm's
            return [f"{_sem(b, idx)}>=R[{v}]"]
        return [f"E[{idx}]" if mode == WAIT_WIRE[WaitMode.evt_set_clear] else f"S[{idx}]?wait_mode={mode}"]


@dataclass(frozen=True)
class Update(Token):
    """Update lane ``lane``: ``S[4] (Scalar)++@complete`` (the increment on completion); nothing when unused."""

    lane: int = 0

    def words(self, b: Bundle) -> list[str]:
        if b.fmt.sync is None or self.lane >= len(b.fmt.sync.updates):
            return []
        lane = b.fmt.sync.updates[self.lane]
        wire, idx, v = b.get(lane.mode), b.get(lane.index), b.get(lane.value)
        if wire == 0 and idx == 0:
            return []
        mode = b.ctx.decisions.get(UpdateModeWire).by_wire().get(wire)
        # only ++ is in the aligned listing; the other forms follow it
        sym = {UpdateMode.sem_inc: "++", UpdateMode.sem_dec: "--", UpdateMode.sem_add_imm: f"+={v}",
               UpdateMode.sem_sub_imm: f"-={v}", UpdateMode.sem_wr_imm: f"={v}"}
        if mode in sym:
            return [f"{_sem(b, idx)}{sym[mode]}@complete"]
        if mode == UpdateMode.evt_set:
            return [f"E[{idx}]@complete"]
        return [f"S[{idx}]?update_mode={wire}"]


@dataclass(frozen=True)
class Addr8(Token):
    """A DMA side's address (R-17): SBUF or a DRAM variable (mode 0x10) as ``<side>_addr_imm=0x...``,
    a DGE-table entry (mode 0x20) as ``<side>_table_offset_imm=0x.. <side>_table_index=N``."""

    side: str

    def words(self, b: Bundle) -> list[str]:
        s = self.side
        mode, var, addr = b.get(f"{s}.addr_mode"), b.get(f"{s}.var") | b.get(f"{s}.var_hi") << 16, b.get(f"{s}.addr")
        if mode == 0x20:
            return [f"{s}_table_offset_imm={addr:#x}", f"{s}_table_index={var}"]
        if mode != 0x10:  # the book's register modes: not in the aligned listing, the form is tongasm's
            return [f"{s}_addr_mode={mode:#x}", f"{s}_addr_imm={addr:#x}", f"{s}_var={var}"]
        if var == 0:
            base = SBUF_DEVICE_BASE.get(b.ctx.target)
            return [f"{s}_addr_imm={base + addr:#x}" if base is not None else f"{s}_addr_imm=sb+{addr:#x}"]
        base = b.ctx.dram_bases.get(var)
        return [f"{s}_addr_imm={base + addr:#x}" if base is not None else f"{s}_addr_imm=var{var}+{addr:#x}"]


SYNC: tuple[Token, ...] = (Wait(0), Update(0))
"""The header band's tokens, first in every form but EventSemaphore's: the wait, then the update."""

_UNLOCATED_DMA = "0 in every aligned DMA and +0x26/+0x27 (the book's offset registers, R-23) are 0 too"


@dataclass(frozen=True)
class Form:
    """The profiler's form of a layout: its tokens in order and the field (if any) whose non-zero value
    makes the instruction type ``TRANSPOSE``."""

    tokens: tuple[Token, ...]
    transpose: str | None = None


def _ap_form(*extra: Token) -> Form:
    return Form((*SYNC, *extra, Named("src", Tensor("src")), Named("dst", Tensor("dst")),
                 Named("channels", Int("num_partitions"))))


#: Per layout name, the profiler's form (see the module docstring).
FORMS: Mapping[str, Form] = {
    "TensorCopy": _ap_form(),
    "Reciprocal": _ap_form(),
    "TensorReduce": _ap_form(Named("op", Enum("op")), Named("dim", Enum("axis", {2: "X"})),
                             Named("negated", Int("negate"), omit_zero=True)),
    "TensorScalar": _ap_form(Named("ops", Joined((Enum("op0"), Enum("op1")))),
                             Named("imm", Joined((Scalar("s0_value", "s0_kind"), Scalar("s1_value", "s1_kind")))),
                             Named("imm_src", Joined((Enum("s0_kind"), Enum("s1_kind"))))),
    "Activate": Form((*SYNC, Bare(Enum("func")), Named("bias_ptr", Pointer("arg1_value", "arg1_dtype", "arg1_kind")),
                      Named("src", Tensor("src")), Named("dst", Tensor("dst")),
                      Named("channels", Int("num_partitions")),
                      Named("scale", Scalar("arg2_value", "arg2_kind", f32=True, alt=("reserved_24",))),
                      Named("imm", F32("arg3_value")), Named("accumulator_cmd", Enum("acc")))),
    "ActivationTableLoad": Form((*SYNC, Named("table_sel", Int("act_tbl_sel")))),
    "EventSemaphore": Form((Wait(0), Named("setter", Unlocated("0", "0 in every aligned EventSemaphore, as is "
                                                              "every byte tongasm leaves unnamed")),
                            Wait(1), Update(0))),
    "Nop": Form((*SYNC, Named("cycle", Unlocated("0", "0 in every aligned Nop, as is every byte after the "
                                                     "sync band")))),
    "Ldweights": Form((*SYNC, Named("fp32_mode", Enum("fp32_mode", alt=("perf_variant",)), omit_zero=True),
                       Named("transpose_mode", Enum("is_transpose", {0: "DISABLED", 1: "ENABLED"})),
                       Named("src", Tensor("stationary")), Bare(Product(("num_rows", "num_active_cols")))),
                      transpose="is_transpose"),
    "Matmul": Form((*SYNC, Named("acc_flags", Int("psum_flags")),
                    Named("fp32_mode", Enum("fp32_mode", alt=("perf_variant",)), omit_zero=True),
                    Named("src", Tensor("moving")), Named("dst", Tensor("psum")),
                    Bare(Product(("num_rows", "num_active_cols")))), transpose="is_transpose"),
    "DmaDirect2d": Form((*SYNC, Named("semaphore", Int("dma_semaphore")),
                         Named("sem_increment", Int("dma_sem_increment")), Bare(),
                         Named("src_elem_size", Int("src.elem_size")), Named("dst_elem_size", Int("dst.elem_size")),
                         Named("src_pattern", Pattern("src")), Named("dst_pattern", Pattern("dst")),
                         Addr8("src"), Named("src_shape_reg", Unlocated("0", _UNLOCATED_DMA)),
                         Addr8("dst"), Named("dst_shape_reg", Unlocated("0", _UNLOCATED_DMA)),
                         Named("in_dtype", Enum("src_dtype"), unless_equal=("src_dtype", "dst_dtype")),
                         Named("out_dtype", Enum("dst_dtype"), unless_equal=("src_dtype", "dst_dtype")),
                         Named("compute_op", Unlocated("NONE", _UNLOCATED_DMA)))),
}


# --- the NEFF's tables ---------------------------------------------------------------------------------------

@dataclass
class ProfileContext:
    """What the profiler knows beyond a bundle's bytes: semaphore roles, DRAM variable bases, the target."""

    decisions: DecisionSet = DEFAULT_DECISIONS
    target: str = "gen3"
    roles: Mapping[int, str] = field(default_factory=dict)
    dram_bases: Mapping[int, int] = field(default_factory=dict)


def queue_role(name: str, owner: str) -> str:
    """The profiler's name of a ``def.json`` DMA queue: the owner's part respelled (:data:`ENGINE_NAMES`)."""
    eng = ENGINE_NAMES.get(owner)
    m = re.match(r"q(" + re.escape(owner) + ")(.*)$", name, re.IGNORECASE)
    return f"q{eng}{m.group(2)}" if eng is not None and m else name


def semaphore_roles(queues: Iterable[tuple[str, str, Sequence[int]]],
                    streams: Mapping[str, bytes | bytearray | memoryview],
                    formats: FormatSet) -> dict[int, str]:
    """Semaphore id -> role: a DMA queue's (``queues``: name, owner, semaphore set) name, else the engine
    whose stream (tongasm stream name -> bytes) increments it in a sync lane, when exactly one does."""
    roles: dict[int, str] = {}
    for name, owner, sems in queues:
        for s in sems:
            roles[s] = queue_role(name, owner)
    by_sem: dict[int, set[str]] = {}
    for stream, data in streams.items():
        for d in iter_stream(data, formats=formats):
            if isinstance(d, DecodeFailure):
                continue
            for lane in (d.fmt.sync.updates if d.fmt.sync is not None else ()):
                if d.fields[lane.mode]:
                    by_sem.setdefault(d.fields[lane.index], set()).add(stream)
    for sem, engines in by_sem.items():
        if sem not in roles and len(engines) == 1:
            eng = ENGINE_NAMES.get(next(iter(engines)))
            if eng is not None:
                roles[sem] = eng
    return roles


# --- rendering -----------------------------------------------------------------------------------------------

def mnemonic(d: DecodedBundle, fs: FormatSet) -> str:
    """The profiler's mnemonic of a bundle (:data:`MNEMONICS`; else tongasm's in the profiler's manner:
    ``SetOrderingMode`` -> ``SET_ORDERING_MODE``)."""
    name = MNEMONICS.get(d.opcode)
    if name is not None:
        return name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", fs.mnemonic(d.fmt, d.opcode)).upper().replace(".", "_")


def instruction_type(d: DecodedBundle) -> str:
    """``TRANSPOSE`` when the layout's transpose field is set, else ``REGULAR``."""
    form = FORMS.get(d.fmt.name)
    return "TRANSPOSE" if form is not None and form.transpose and d.fields.get(form.transpose) else "REGULAR"


def _generic(b: Bundle) -> list[str]:
    lanes = b.fmt.sync
    skip = {"opcode", "inst_word_len", *(lanes.fields if lanes is not None else ())}
    waits = (Wait(i) for i in range(len(lanes.waits) if lanes is not None else 0))
    updates = (Update(i) for i in range(len(lanes.updates) if lanes is not None else 0))
    words = [w for t in (*waits, *updates) for w in t.words(b)]
    return words + [f"{k}={v}" for k, v in b.fields.items() if v and k not in skip]


def operand_words(d: DecodedBundle, ctx: ProfileContext) -> list[str]:
    """The bundle's operand text as the profiler's words (split on single spaces; the DMA's empty word
    makes its double space)."""
    b = Bundle(d.fmt, d.fields, ctx)
    form = FORMS.get(d.fmt.name)
    if form is None:
        return _generic(b)
    return [w for t in form.tokens for w in t.words(b)]


def split_words(text: str) -> list[str]:
    """The profiler's operand text as words: split on single spaces, a semaphore with its role
    (``S[6] (Vector)>=12``) one word, the empty word of a double space kept."""
    out: list[str] = []
    for w in text.split(" "):
        if w.startswith("(") and out and re.fullmatch(r"[SE]\[\d+\]", out[-1]):
            out[-1] += " " + w
        else:
            out.append(w)
    return out


def operand_text(d: DecodedBundle, ctx: ProfileContext) -> str:
    return " ".join(operand_words(d, ctx))


def profile_row(d: DecodedBundle | DecodeFailure, fs: FormatSet, ctx: ProfileContext) -> dict[str, Any]:
    """One bundle of the listing: offset, mnemonic, instruction type and operand text (or the error)."""
    if isinstance(d, DecodeFailure):
        return {"offset": d.offset, "bytes": d.raw.hex(), "error": d.reason}
    return {"offset": d.offset, "mnemonic": mnemonic(d, fs), "instruction_type": instruction_type(d),
            "operands": operand_text(d, ctx)}


def row_line(row: Mapping[str, Any]) -> str:
    """``OFFSET:  MNEMONIC TYPE  OPERANDS  ; BIR`` (a bundle that does not decode: ``.bytes HEX  ; reason``)."""
    if "error" in row:
        return f"{row['offset']:08x}:  .bytes {row['bytes']}  ; {row['error']}"
    bir = f"  ; {row['bir']}" if row.get("bir") else ""
    return f"{row['offset']:08x}:  {row['mnemonic']} {row['instruction_type']}  {row['operands']}{bir}"


def profile_rows(data: bytes | bytearray | memoryview, ctx: ProfileContext, *, base: int = 0,
                 formats: FormatSet | None = None,
                 bir_names: Sequence[str | None] | None = None) -> list[dict[str, Any]]:
    """The rows of one stream (``base``: the byte offset of ``data`` in its stream; ``bir_names``: each
    bundle's BIR instruction, added as ``bir``)."""
    fs = formats or build_formats(ctx.decisions)
    rows = []
    for i, d in enumerate(iter_stream(data, formats=fs)):
        d.offset += base
        row = profile_row(d, fs, ctx)
        if bir_names is not None:
            row["bir"] = bir_names[i] if i < len(bir_names) else None
        rows.append(row)
    return rows


def profile_lines(data: bytes | bytearray | memoryview, ctx: ProfileContext, **kw: Any) -> Iterator[str]:
    """The listing's lines of one stream (the keywords of :func:`profile_rows`)."""
    for row in profile_rows(data, ctx, **kw):
        yield row_line(row)
