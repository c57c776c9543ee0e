"""The bundle formats of SPEC §3–§4, declared once, as data.

Each opcode's layout is a list of :class:`~tongasm.isa.fields.Field` declarations assembled from
the shared header, the sync band and the op body. Where an opcode has several layouts (a 32-bit
and a 64-bit RegisterMove, the IMM and REG forms of TensorLoad...), each layout is a *variant*
with a ``match`` rule that tells them apart on decode; variants are tried in declaration order.

Layouts that depend on a decision (D-1, D-2, D-3, D-7, D-15, D-16, D-20, D-22) are built by
:func:`build_formats` for a given :class:`~tongasm.isa.decisions.DecisionSet`; the default set is
``FORMATS``. Every byte offset of every format appears exactly once in this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator, Mapping

from .decisions import DEFAULT_DECISIONS, DecisionSet
from .decisions.spec import (
    HeaderWordLength, LoadSaveOffset, MoveShapeCounts, RegisterAluDtypes, SelectReduceFill, SelectReduceSrc,
    SyncBandScope, UpdateModeWire,
)
from .descriptors import slot, slot_fields
from .enums import ACC_WIRE, ALU_WIRE_NAMES, WAIT_WIRE, WireDtype
from .fields import NONZERO, Conf, EnumTable, Field, Format, Kind, MatchValue, Slot
from .opcodes import OPCODES, Op

C, H, I, D = Conf.C, Conf.H, Conf.I, Conf.D

# --- enum tables (names of wire values) --------------------------------------------------

WIRE_DTYPE_TABLE = EnumTable("wire dtype", {w.value: w.name for w in WireDtype})
ALU_TABLE = EnumTable("ALU op", ALU_WIRE_NAMES)
ACC_TABLE = EnumTable("accumulation", {w: a.name for a, w in ACC_WIRE.items()})
WAIT_TABLE = EnumTable("wait mode", {0: "none", **{w: m.name for m, w in WAIT_WIRE.items()}})
OPCODE_TABLE = EnumTable("opcode", {o.byte: o.mnemonic for o in OPCODES.values()})


def update_table(ds: DecisionSet) -> EnumTable:
    """Names of the update-mode byte. D-2: LUT (default) or the raw ordinal."""
    return _update_table(ds.get(UpdateModeWire))


@lru_cache(maxsize=None)
def _update_table(d2: UpdateModeWire) -> EnumTable:
    return EnumTable("update mode", d2.names())


def _u8(name: str, off: int, conf: Conf, doc: str, **kw: object) -> Field:
    return Field(name, off, 1, conf=conf, doc=doc, **kw)  # type: ignore[arg-type]


def _dtype(name: str, off: int, conf: Conf, doc: str, **kw: object) -> Field:
    return Field(name, off, 1, Kind.ENUM, enum=WIRE_DTYPE_TABLE, conf=conf, doc=doc, **kw)  # type: ignore[arg-type]


def _nibble(name: str, off: int, hi: bool, conf: Conf, doc: str) -> Field:
    return Field(name, off, 1, Kind.ENUM, shift=4 if hi else 0, bits=4, enum=WIRE_DTYPE_TABLE,
                 conf=conf, doc=doc)


def _reg(name: str, off: int, conf: Conf, doc: str, decision: str | None = None) -> Field:
    return Field(name, off, 1, Kind.REGISTER, conf=conf, decision=decision, doc=doc)


# --- header and sync band (SPEC §3.2) --------------------------------------------------------

def header_fields(ds: DecisionSet, sp_op: bool) -> list[Field]:
    """+0x00..+0x03. D-1: +0x01 is 0x10 on every opcode (alternative: 0 on SP register-lane ops)."""
    word_len = ds.get(HeaderWordLength).word_len(sp_op)
    return [
        Field("opcode", 0x00, 1, Kind.ENUM, enum=OPCODE_TABLE, conf=C, doc="opcode"),
        Field("inst_word_len", 0x01, 1, Kind.CONSTANT, const=word_len, conf=C, decision="D-1",
              doc="instruction length in dwords (16 = 64 bytes)"),
        Field("reserved_02", 0x02, 2, Kind.CONSTANT, const=0, conf=C, doc="reserved"),
    ]


def sync_fields(ds: DecisionSet) -> list[Field]:
    """+0x04..+0x0B: the sync band; +0x08 is shared by the wait and the update (D-4)."""
    return [
        Field("wait_mode", 0x04, 1, Kind.ENUM, enum=WAIT_TABLE, conf=C, doc="sync wait mode (0 = no wait)"),
        _u8("wait_idx", 0x05, C, "semaphore waited on"),
        Field("update_mode", 0x06, 1, Kind.ENUM, enum=update_table(ds), conf=H, decision="D-2",
              doc="sync update mode (0 = no update)"),
        _u8("update_idx", 0x07, C, "semaphore updated"),
        Field("sync_value", 0x08, 4, conf=C, decision="D-4",
              doc="wait threshold, wait register id, or update value (shared)"),
    ]


# --- per-opcode bodies (SPEC §4) -------------------------------------------------------------

@dataclass(frozen=True)
class Variant:
    """One layout of one or more opcodes: body fields, descriptor slots and its decode match."""

    name: str
    opcodes: tuple[Op, ...]
    body: tuple[Field, ...]
    slots: tuple[Slot, ...] = ()
    match: Mapping[str, MatchValue] | None = None
    doc: str = ""


def _register_move(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.1 RegisterMove 0xA7."""
    valid_num = _u8("valid_num", 0x0C, C, "1 = 32-bit move, 2 = 64-bit move")
    dtype = _dtype("dtype", 0x0D, C, "wire(dst dtype); the 64-bit path writes INT32")
    src_mode = _u8("src_mode", 0x0E, C, "0 = register source, 1 = immediate source")
    src = _reg("src", 0x10, C, "source register")
    dst = _reg("dst", 0x18, C, "destination register (lo)")
    dst_hi = _reg("dst_hi", 0x19, C, "destination register (hi), 64-bit only")
    imm_off = 0x20
    imm32 = Field("imm", imm_off, 4, conf=C, decision="D-23", doc="immediate, bit pattern in the dst dtype")
    imm64 = Field("imm", imm_off, 8, conf=C, decision="D-23", doc="64-bit immediate")
    op = (OPCODES[0xA7],)
    return [
        Variant("RegisterMove.reg", op, (valid_num, dtype, src_mode, src, dst),
                match={"valid_num": 1, "src_mode": 0}, doc="32-bit register → register"),
        Variant("RegisterMove.imm", op, (valid_num, dtype, src_mode, dst, imm32),
                match={"valid_num": 1, "src_mode": 1}, doc="32-bit immediate → register"),
        Variant("RegisterMove.imm64", op, (valid_num, dtype, src_mode, dst, dst_hi, imm64),
                match={"valid_num": 2, "src_mode": 1}, doc="64-bit immediate → register pair"),
    ]


def _register_alu(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.2 RegisterAlu 0xA8 (register roles and dtype bytes: D-7)."""
    op_f = Field("op", 0x0C, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="ALU op")
    count = Field("count", 0x0D, 1, Kind.CONSTANT, const=1, conf=H, decision="D-7",
                  doc="register path: constant 1")
    src_dtype = _dtype("src_dtype", 0x0D, H, "wire(src1 dtype)", decision="D-7")
    mode = _u8("operand_mode", 0x0E, C, "0 = src2 is a register, 1 = src2 is an immediate")
    dst_dtype = _dtype("dst_dtype", 0x0F, H, "wire(dst dtype)", decision="D-7")
    dst = _reg("dst", 0x10, I, "destination register", "D-7")
    src1 = _reg("src1", 0x11, I, "first source register", "D-7")
    src2 = _reg("src2", 0x12, I, "second source register", "D-7")
    third = Field("third", 0x13, 1, Kind.CONSTANT, const=0, conf=I, decision="D-7",
                  doc="third source (role unknown), 0")
    dst_lo = _reg("dst_lo", 0x14, I, "64-bit destination pair, lo", "D-7")
    dst_hi = _reg("dst_hi", 0x15, I, "64-bit destination pair, hi", "D-7")
    imm_off = 0x18
    imm32 = Field("imm", imm_off, 4, conf=C, decision="D-23", doc="immediate, bit pattern in src1's dtype")
    imm64 = Field("imm", imm_off, 8, conf=C, decision="D-23", doc="64-bit immediate")
    reg_dtypes: tuple[Field, ...] = ((src_dtype, dst_dtype) if ds.get(RegisterAluDtypes).register_path_has_dtypes
                                     else (count,))
    imm_dtypes = (src_dtype, dst_dtype)
    op = (OPCODES[0xA8],)
    reg_common = (op_f, *reg_dtypes, mode, dst, src1, src2, third)
    imm_common = (op_f, *imm_dtypes, mode, dst, src1, third)
    # 64-bit variants first: they are told apart by a non-zero dst pair hi byte (hi = lo + 1 ≥ 1).
    return [
        Variant("RegisterAlu.reg64", op, (*reg_common, dst_lo, dst_hi),
                match={"operand_mode": 0, "dst_hi": NONZERO}, doc="64-bit, src2 register"),
        Variant("RegisterAlu.reg", op, reg_common, match={"operand_mode": 0}, doc="32-bit, src2 register"),
        Variant("RegisterAlu.imm64", op, (*imm_common, dst_lo, dst_hi, imm64),
                match={"operand_mode": 1, "dst_hi": NONZERO}, doc="64-bit, src2 immediate"),
        Variant("RegisterAlu.imm", op, (*imm_common, imm32), match={"operand_mode": 1},
                doc="32-bit, src2 immediate"),
    ]


def _tensor_load_save(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.3 TensorLoad/TensorSave: IMM form 0xCE/0xCD, REG form 0xAA/0xAB (m2d: D-10)."""
    m2d = (
        _dtype("dtype", 0x0C, C, "wire(memory dtype); 64-bit dtypes → INT32"),
        Field("reserved_0d", 0x0D, 1, Kind.CONSTANT, const=0, conf=C, doc="reserved"),
        Field("num_elem0", 0x0E, 1, conf=C, decision="D-10", doc="innermost pair num (x2 for 64-bit)"),
        Field("num_elem1", 0x0F, 1, conf=C, decision="D-10", doc="next pair num, or 1"),
        Field("step_elem0", 0x18, 4, conf=C, decision="D-10", doc="innermost pair step"),
        Field("step_elem1", 0x1C, 4, conf=C, decision="D-10", doc="next pair step, or 0"),
        _reg("data_reg", 0x20, D, "data register (lo)", "D-9"),
        _reg("data_hi_or_offset", 0x21, D,
             "64-bit data: data register hi (D-9); 32-bit data: offset register, 0 if none (D-22)", "D-22"),
    )
    imm_body = (
        Field("var_id", 0x10, 4, conf=C, decision="D-8", doc="DRAM variable id"),
        Field("var_offset", 0x14, 4, conf=C, decision="D-8", doc="byte offset in the variable"),
    )
    if ds.get(LoadSaveOffset).offset_register_in_reg_form:
        reg_regs: tuple[Field, ...] = (
            _reg("addr_reg", 0x10, C, "register holding the memory address (regref)"),
            _reg("offset_reg", 0x11, D, "offset operand register, 0 if none", "D-22"),
        )
    else:
        reg_regs = (
            _reg("addr_reg", 0x10, C, "memory address register pair, lo", "D-22"),
            _reg("addr_reg_hi", 0x11, D, "memory address register pair, hi", "D-22"),
        )
    reg_body = (*reg_regs,
                Field("reg_marker", 0x17, 1, Kind.CONSTANT, const=0x80, conf=C, doc="register-address marker"))
    return [
        Variant("TensorLoadSave.imm", (OPCODES[0xCE], OPCODES[0xCD]), (*m2d, *imm_body),
                doc="IMM form: DRAM variable + offset"),
        Variant("TensorLoadSave.reg", (OPCODES[0xAA], OPCODES[0xAB]), (*m2d, *reg_body),
                doc="REG form: address in a register"),
    ]


def _tensor_tensor(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.4 TensorTensor, Family B: three TENSOR3D slots at +0x10/+0x20/+0x30."""
    body = (
        _nibble("in0_dtype", 0x0C, False, C, "wire(in0 dtype)"),
        _nibble("in1_dtype", 0x0C, True, C, "wire(in1 dtype)"),
        _dtype("out_dtype", 0x0D, C, "wire(out dtype)"),
        Field("op", 0x0E, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, decision="D-13",
              doc="ALU op (or the GPSIMD int32 band)"),
        _u8("num_partitions", 0x0F, H, "active partitions (in0)"),
    )
    slots = (slot("out", 0x10, 3, dtype="out_dtype", write=True), slot("in0", 0x20, 3, dtype="in0_dtype"),
             slot("in1", 0x30, 3, dtype="in1_dtype"))
    ops = tuple(OPCODES[b] for b in (0x41, 0x51, 0x8A, 0x8E))
    return [Variant("TensorTensor", ops, body, slots)]


def _copy_predicated(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.5 the CopyPredicated family (0x72/0x99, 0xE8, 0xEA)."""
    tt_band = Variant(
        "CopyPredicated", (OPCODES[0x72], OPCODES[0x99]),
        (
            _nibble("mask_dtype", 0x0C, False, H, "wire(mask dtype)"),
            _nibble("src_dtype", 0x0C, True, H, "wire(src dtype)"),
            _dtype("dst_dtype", 0x0D, H, "wire(dst dtype)"),
            _u8("num_partitions", 0x0F, H, "active partitions (mask)"),
        ),
        (slot("dst", 0x10, 3, dtype="dst_dtype", write=True, conf=H), slot("src", 0x20, 3, dtype="src_dtype", conf=H),
         slot("mask", 0x30, 3, dtype="mask_dtype", conf=H)),
    )
    scalar = Variant(
        "CopyPredicatedScalar", (OPCODES[0xE8],),
        (
            _dtype("mask_dtype", 0x20, H, "wire(mask dtype)"),
            Field("polarity", 0x21, 1, conf=D, decision="D-14",
                  doc="1 = write the scalar where the predicate is non-zero"),
            _u8("num_partitions", 0x22, H, "active partitions (dst)"),
            _dtype("scalar_dtype", 0x29, H, "wire(scalar dtype)"),
            _dtype("dst_dtype", 0x2A, H, "wire(dst dtype)"),
            Field("scalar", 0x2B, 4, conf=H, decision="D-23", doc="the scalar's bit pattern"),
        ),
        (slot("dst", 0x10, 3, dtype="dst_dtype", write=True, conf=H), slot("mask", 0x30, 3, dtype="mask_dtype", conf=H)),
    )
    if ds.get(SelectReduceFill).one_byte:
        fill: tuple[Field, ...] = (
            Field("fill", 0x27, 1, conf=D, decision="D-16", doc="fill: register id, or the immediate's low byte"),
        )
    else:
        fill = (
            Field("fill_source", 0x27, 1, conf=D, decision="D-16", doc="0 immediate, 1 register, 2 pointer"),
            Field("fill_value", 0x3C, 4, conf=D, decision="D-16", doc="fill immediate bits or register id"),
        )
    reduce_slots = [slot("dst", 0x18, 2, dtype="dst_dtype", write=True, conf=H),
                    slot("mask", 0x30, 2, dtype="mask_dtype", conf=H)]
    if ds.get(SelectReduceSrc).encoded:
        reduce_slots.insert(0, slot("src", 0x0C, 2, dtype="src_dtype", conf=D, decision="D-15"))
    reduce = Variant(
        "SelectReduce", (OPCODES[0xEA],),
        (
            Field("copy_op", 0x24, 1, Kind.ENUM, enum=ALU_TABLE, const=0, conf=H, doc="copy ALU op (bypass)"),
            Field("reduce_op", 0x25, 1, Kind.ENUM, enum=ALU_TABLE, conf=H, doc="reduce ALU op"),
            Field("use_fill", 0x26, 1, conf=D, decision="D-14", doc="1 iff a false fill is given"),
            *fill,
            _nibble("mask_dtype", 0x28, False, H, "wire(mask dtype)"),
            _nibble("src_dtype", 0x28, True, H, "wire(src dtype)"),
            _dtype("dst_dtype", 0x29, H, "wire(dst dtype)"),
            _u8("num_partitions", 0x2A, H, "active partitions (mask)"),
            _dtype("fill_dtype", 0x2B, H, "wire(fill dtype), 0 without fill"),
            Field("acc", 0x2C, 1, Kind.ENUM, enum=ACC_TABLE, conf=H, doc="accumulation"),
        ),
        tuple(reduce_slots),
    )
    return [tt_band, scalar, reduce]


def _tensor_copy(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.7 TensorCopy, Family C: TENSOR4D at +0x0C and +0x2C."""
    return [Variant(
        "TensorCopy", (OPCODES[0x46], OPCODES[0x47]),
        (
            _dtype("src_dtype", 0x20, C, "wire(src dtype)", decision="D-18"),
            _dtype("dst_dtype", 0x21, C, "wire(dst dtype)", decision="D-18"),
            _u8("num_partitions", 0x22, H, "active partitions (src)"),
            Field("reserved_25", 0x25, 1, Kind.CONSTANT, const=0, conf=C, doc="reserved"),
        ),
        (slot("src", 0x0C, 4, dtype="src_dtype"), slot("dst", 0x2C, 4, dtype="dst_dtype", write=True)),
    )]


def _memset(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.8 Memset (Const 0x49, Random 0x4D)."""
    return [Variant(
        "Memset", (OPCODES[0x49], OPCODES[0x4D]),
        (
            Field("element_count", 0x1C, 4, conf=C, doc="elements per partition"),
            _dtype("dtype", 0x20, C, "wire(dst dtype)", decision="D-18"),
            _u8("num_partitions", 0x22, H, "active partitions (dst)"),
            Field("fill", 0x28, 4, conf=C, doc="fill value (raw 32 bits); 0 for Random"),
        ),
        (slot("dst", 0x2C, 4, dtype="dtype", write=True, conf=D, decision="D-19"),),
    )]


MOVESHAPE_DIMS = 4


def _move_shape(ds: DecisionSet) -> list[Variant]:
    """SPEC §4.9 MoveShape 0xB2: four u32 byte steps and four counts (D-20: u16 or u32)."""
    steps_off, counts_off = 0x20, 0x30
    count_size = ds.get(MoveShapeCounts).count_size
    body: list[Field] = [
        Field("shape_const", 0x0C, 2, Kind.CONSTANT, const=0x0100, conf=C, doc="constant 0x0100"),
        Field("flag", 0x0E, 1, Kind.CONSTANT, const=1, conf=C, doc="constant 1"),
        _u8("is_output", 0x10, C, "1 when the AP is the DMA's destination"),
    ]
    for i in range(MOVESHAPE_DIMS):
        body.append(Field(f"step{i}", steps_off + 4 * i, 4, conf=C,
                          doc=f"byte step of free dim {i} (innermost first)"))
    for i in range(MOVESHAPE_DIMS):
        body.append(Field(f"count{i}", counts_off + count_size * i, count_size, conf=D, decision="D-20",
                          doc=f"count of free dim {i} (innermost first)"))
    return [Variant("MoveShape", (OPCODES[0xB2],), tuple(body))]


_BUILDERS = (_register_move, _register_alu, _tensor_load_save, _tensor_tensor, _copy_predicated,
             _tensor_copy, _memset, _move_shape)


class FormatSet:
    """All bundle formats for one decision selection, indexed by opcode and by name."""

    def __init__(self, decisions: DecisionSet) -> None:
        self.decisions = decisions
        self.by_name: dict[str, Format] = {}
        self.by_opcode: dict[int, list[Format]] = {}
        for build in _BUILDERS:
            for v in build(decisions):
                sp_op = all(o.family == "sp" for o in v.opcodes)
                with_sync = decisions.get(SyncBandScope).carries_sync(sp_op)
                fields = [*header_fields(decisions, sp_op), *(sync_fields(decisions) if with_sync else ()),
                          *v.body]
                for s in v.slots:
                    fields.extend(slot_fields(s))
                fmt = Format(v.name, {o.byte: o.mnemonic for o in v.opcodes}, fields,
                             match=v.match, slots=v.slots, doc=v.doc)
                self.by_name[v.name] = fmt
                for o in v.opcodes:
                    self.by_opcode.setdefault(o.byte, []).append(fmt)

    def variants(self, opcode: int) -> list[Format]:
        """The layouts of an opcode, in match order (empty if tongasm does not know it)."""
        return self.by_opcode.get(opcode, [])

    def select(self, opcode: int, buf: object, offset: int = 0) -> tuple[Format, dict[str, int]] | None:
        """Pick the variant whose ``match`` holds for the bytes; return it with the decoded fields."""
        for fmt in self.by_opcode.get(opcode, ()):
            vals = fmt.decode(buf, offset)
            if fmt.matches(vals):
                return fmt, vals
        return None

    def __iter__(self) -> Iterator[Format]:  # type: ignore[override]
        return iter(self.by_name.values())


@lru_cache(maxsize=64)
def build_formats(decisions: DecisionSet = DEFAULT_DECISIONS) -> FormatSet:
    """The formats for a decision selection (cached: one build per selection)."""
    return FormatSet(decisions)


FORMATS = build_formats(DEFAULT_DECISIONS)
