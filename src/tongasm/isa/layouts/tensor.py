"""The tensor layouts of SPEC §4.4–§4.9: TensorTensor, the CopyPredicated family, TensorCopy,
Memset and MoveShape."""

from __future__ import annotations

from collections.abc import Mapping

from ..decisions import DecisionSet
from ..decisions.tensor import CopyPredicatedSlots, TensorTensorSlots
from ..decisions.spec import MoveShapeCounts, SelectReduceFill, SelectReduceSrc
from ..descriptors import slot
from ..enums import INT32_BAND, AluOp
from ..fields import Field, Kind, Slot
from ..layout import Binding, DtypeText, EnumText, ImmText, IntText, Layout, Sem, ShapeText, TextOp, aps
from ..opcodes import Op
from ..opcodes import (
    CAST, CAST_PREDICATED, COPY, COPY_PREDICATED, COPY_PREDICATED_SCALAR, MEMSET, MOVE_SHAPE, RNG, SELECT_REDUCE,
    TT_ARITH, TT_BITVEC, TT_INT_ADD, TT_INT_MULT,
)
from ..tables import ACC_TABLE, ALU_TABLE
from .common import C, D, H, V, dtype, nibble, product, u8

#: MoveShape's shape registers: four dims (SPEC §4.9).
MOVESHAPE_DIMS = 4
#: D-13 (gen2): on the Pool engine with all operands int32, add and mult take their own opcodes,
#: with the op's byte from the GPSIMD int32 band at +0x0E.
INT32_FORMS_GEN2: Mapping[AluOp, tuple[Op, int]] = {
    AluOp.add: (TT_INT_ADD, INT32_BAND[AluOp.add]), AluOp.mult: (TT_INT_MULT, INT32_BAND[AluOp.mult])}


def _roles(slots: tuple[Slot, ...]) -> dict[str, str]:
    """Each slot filled by the operand of the same role name."""
    return {s.name: s.name for s in slots}


def tensor_tensor(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.4 TensorTensor, Family B: three TENSOR3D slots at +0x10/+0x20/+0x30, which operand
    where by R-7 (the real bytes fix +0x10 as an input)."""
    r7 = ds.get(TensorTensorSlots)
    at = r7.offsets()
    first = r7.first_input  # its dtype is the low nibble, its partition count +0x0F
    second = "in1" if first == "in0" else "in0"
    body = (
        nibble(f"{first}_dtype", 0x0C, False, C, f"wire({first} dtype)"),
        nibble(f"{second}_dtype", 0x0C, True, C, f"wire({second} dtype)"),
        dtype("out_dtype", 0x0D, V, "wire(out dtype)"),
        Field("op", 0x0E, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, decision="D-13",
              doc="ALU op (or the GPSIMD int32 band)"),
        u8("num_partitions", 0x0F, V, f"active partitions ({first})"),
    )
    # the record's slot order is the listing's operand order (out first, as the other families)
    slots = (slot("out", at["out"], 3, dtype="out_dtype", write=True, role_decision="R-7"),
             slot("in0", at["in0"], 3, dtype="in0_dtype", role_decision="R-7"),
             slot("in1", at["in1"], 3, dtype="in1_dtype", role_decision="R-7"))
    return [Layout(
        "TensorTensor", (TT_ARITH, TT_BITVEC, TT_INT_ADD, TT_INT_MULT), body, Sem.TENSOR_TENSOR,
        (EnumText(name="op", field="op"), *aps(slots, first)), slots,
        binding=Binding(_roles(slots), first, dtypes={"in0_dtype": "in0", "in1_dtype": "in1", "out_dtype": "out"}),
        checks=("tt.opcode_class", "tt.int_band", "tt.gpsimd_psum", "tt.alu_legal", "tt.equal_elements"),
    )]


def copy_predicated(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.5 the CopyPredicated family (0x72/0x99, 0xE8, 0xEA)."""
    at = ds.get(CopyPredicatedSlots).offsets()  # no real bundle; the book's order is doubtful
    cp_slots = (slot("dst", at["dst"], 3, dtype="dst_dtype", write=True, conf=H, role_decision="R-8"),
                slot("src", at["src"], 3, dtype="src_dtype", conf=H, role_decision="R-8"),
                slot("mask", at["mask"], 3, dtype="mask_dtype", conf=H, role_decision="R-8"))
    tt_band = Layout(
        "CopyPredicated", (COPY_PREDICATED, CAST_PREDICATED),
        (
            nibble("mask_dtype", 0x0C, False, H, "wire(mask dtype)"),
            nibble("src_dtype", 0x0C, True, H, "wire(src dtype)"),
            dtype("dst_dtype", 0x0D, H, "wire(dst dtype)"),
            u8("num_partitions", 0x0F, H, "active partitions (mask)"),
        ),
        Sem.COPY_PREDICATED, tuple(aps(cp_slots, "mask")), cp_slots,
        binding=Binding(_roles(cp_slots), "mask",
                        dtypes={"mask_dtype": "mask", "src_dtype": "src", "dst_dtype": "dst"}),
        checks=("cp.mask_dtype", "cp.equal_elements", "cp.opcode_dtype"),
    )
    sc_slots = (slot("dst", 0x10, 3, dtype="dst_dtype", write=True, conf=H), slot("mask", 0x30, 3, dtype="mask_dtype", conf=H))
    scalar = Layout(
        "CopyPredicatedScalar", (COPY_PREDICATED_SCALAR,),
        (
            dtype("mask_dtype", 0x20, H, "wire(mask dtype)"),
            Field("polarity", 0x21, 1, conf=D, decision="D-14", doc="1 = write the scalar where the predicate is non-zero"),
            u8("num_partitions", 0x22, H, "active partitions (dst)"),
            dtype("scalar_dtype", 0x29, H, "wire(scalar dtype)"),
            dtype("dst_dtype", 0x2A, H, "wire(dst dtype)"),
            Field("scalar", 0x2B, 4, conf=H, decision="D-23", doc="the scalar's bit pattern"),
        ),
        Sem.COPY_PREDICATED_SCALAR,
        (*aps(sc_slots, "dst"), ImmText(name="scalar", field="scalar", dtype_field="scalar_dtype"),
         IntText(name="polarity", field="polarity").opt()),
        sc_slots,
        binding=Binding(_roles(sc_slots), "dst", dtypes={"mask_dtype": "mask", "dst_dtype": "dst"}),
        checks=("cp.mask_dtype", "cp.equal_elements", "cps.imm_dtype", "cps.polarity"),
    )
    if ds.get(SelectReduceFill).one_byte:
        fill: tuple[Field, ...] = (
            Field("fill", 0x27, 1, conf=D, decision="D-16", doc="fill: register id, or the immediate's low byte"),
        )
        fill_text: tuple[TextOp, ...] = (IntText(name="fill", field="fill", hexa=True).opt(),)
    else:
        fill = (
            Field("fill_source", 0x27, 1, conf=D, decision="D-16", doc="0 immediate, 1 register, 2 pointer"),
            Field("fill_value", 0x3C, 4, conf=D, decision="D-16", doc="fill immediate bits or register id"),
        )
        fill_text = (IntText(name="fill_source", field="fill_source").opt(),
                     IntText(name="fill_value", field="fill_value", hexa=True).opt())
    reduce_slots = [slot("dst", 0x18, 2, dtype="dst_dtype", write=True, conf=H),
                    slot("mask", 0x30, 2, dtype="mask_dtype", conf=H)]
    if ds.get(SelectReduceSrc).encoded:
        reduce_slots.insert(0, slot("src", 0x0C, 2, dtype="src_dtype", conf=D, decision="D-15"))
    sr_slots = tuple(reduce_slots)
    reduce = Layout(
        "SelectReduce", (SELECT_REDUCE,),
        (
            Field("copy_op", 0x24, 1, Kind.ENUM, enum=ALU_TABLE, const=0, conf=H, doc="copy ALU op (bypass)"),
            Field("reduce_op", 0x25, 1, Kind.ENUM, enum=ALU_TABLE, conf=H, doc="reduce ALU op"),
            Field("use_fill", 0x26, 1, conf=D, decision="D-14", doc="1 iff a false fill is given"),
            *fill,
            nibble("mask_dtype", 0x28, False, H, "wire(mask dtype)"),
            nibble("src_dtype", 0x28, True, H, "wire(src dtype)"),
            dtype("dst_dtype", 0x29, H, "wire(dst dtype)"),
            u8("num_partitions", 0x2A, H, "active partitions (mask)"),
            dtype("fill_dtype", 0x2B, H, "wire(fill dtype), 0 without fill"),
            Field("acc", 0x2C, 1, Kind.ENUM, enum=ACC_TABLE, conf=H, doc="accumulation"),
        ),
        Sem.SELECT_REDUCE,
        (EnumText(name="op", field="reduce_op"), *aps(sr_slots, "mask"), EnumText(name="acc", field="acc").opt(),
         IntText(name="use_fill", field="use_fill").opt(), DtypeText(name="fill_dtype", field="fill_dtype").opt(),
         *fill_text),
        sr_slots,
        binding=Binding(_roles(sr_slots), "mask", dtypes={"mask_dtype": "mask", "src_dtype": "src", "dst_dtype": "dst"}),
        checks=("cp.mask_dtype", "cp.equal_elements", "sr.flags", "sr.op_max", "sr.acc", "sr.operands", "sr.dtypes",
                "sr.fill_float32"),
    )
    return [tt_band, scalar, reduce]


def tensor_copy(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.7 TensorCopy, Family C: TENSOR4D at +0x0C and +0x2C."""
    slots = (slot("src", 0x0C, 4, dtype="src_dtype"), slot("dst", 0x2C, 4, dtype="dst_dtype", write=True))
    return [Layout(
        "TensorCopy", (COPY, CAST),
        (
            dtype("src_dtype", 0x20, C, "wire(src dtype)", decision="D-18"),
            dtype("dst_dtype", 0x21, C, "wire(dst dtype)", decision="D-18"),
            u8("num_partitions", 0x22, H, "active partitions (src)"),
            Field("reserved_25", 0x25, 1, Kind.CONSTANT, const=0, conf=C, doc="reserved"),
        ),
        Sem.TENSOR_COPY, tuple(aps(slots, "src")), slots,
        binding=Binding(_roles(slots), "src", dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("copy.equal_elements", "copy.opcode_dtype"),
    )]


def memset(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.8 Memset (Const 0x49, Random 0x4D)."""
    slots = (slot("dst", 0x2C, 4, dtype="dtype", write=True, conf=D, decision="D-19"),)
    return [Layout(
        "Memset", (MEMSET, RNG),
        (
            Field("element_count", 0x1C, 4, conf=C, doc="elements per partition"),
            dtype("dtype", 0x20, C, "wire(dst dtype)", decision="D-18"),
            u8("num_partitions", 0x22, H, "active partitions (dst)"),
            Field("fill", 0x28, 4, conf=C, doc="fill value (raw 32 bits); 0 for Random"),
        ),
        Sem.MEMSET, (*aps(slots, "dst"), ImmText(name="fill", field="fill", dtype_field="dtype", claim_dtype=False)),
        slots,
        binding=Binding({"dst": "dst"}, "dst", elements={"element_count": "dst"}, dtypes={"dtype": "dst"}),
        implied={"element_count": product("dst", 4)},
        checks=("memset.element_count", "memset.random_zero", "memset.fill_width"),
    )]


def move_shape(ds: DecisionSet) -> list[Layout]:
    """SPEC §4.9 MoveShape 0xB2: four u32 byte steps and four counts (D-20: u16 or u32)."""
    steps_off, counts_off = 0x20, 0x30
    count_size = ds.get(MoveShapeCounts).count_size
    body: list[Field] = [
        Field("shape_const", 0x0C, 2, Kind.CONSTANT, const=0x0100, conf=C, doc="constant 0x0100"),
        Field("flag", 0x0E, 1, Kind.CONSTANT, const=1, conf=C, doc="constant 1"),
        u8("is_output", 0x10, C, "1 when the AP is the DMA's destination"),
    ]
    for i in range(MOVESHAPE_DIMS):
        body.append(Field(f"step{i}", steps_off + 4 * i, 4, conf=C, doc=f"byte step of free dim {i} (innermost first)"))
    for i in range(MOVESHAPE_DIMS):
        body.append(Field(f"count{i}", counts_off + count_size * i, count_size, conf=D, decision="D-20",
                          doc=f"count of free dim {i} (innermost first)"))
    return [Layout("MoveShape", (MOVE_SHAPE,), tuple(body), Sem.MOVE_SHAPE,
                   (IntText(name="is_output", field="is_output").opt(), ShapeText(dims=MOVESHAPE_DIMS)),
                   checks=("moveshape.counts",))]


BUILDERS = (tensor_tensor, copy_predicated, tensor_copy, memset, move_shape)
