"""The Activation family (``next-families.md`` §3): Activate 0x21 (S3D3_AC), the function-set load
ActivationTableLoad 0x23 (BIR LoadActFuncSet) and the accumulator read-out 0x24 (D1_RD), whose
layout the DVE's read-out 0x9B shares (N-11).

0x21's scalar operands are args[1..3] of the BIR instruction (what each one is, bias, scale or
alpha, is N-4): each has a kind byte (codes N-2) and a value word. args[1]'s kind is +0x0F (C), its
dtype +0x20's high nibble (C) and its value +0x28 (C store; the pointer format is N-6); args[2]'s kind
is +0x0D (C store) and its value word is N-5; args[3]'s kind +0x0C and value +0x2C are written only for
Prelu (C), forced to (1, 0) for Copy and Reciprocal (C), and left to N-38 otherwise.
"""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.act import ActivationArg2Word, ActivationRoles, ReadAccumulatorSlot
from ..decisions.scalar import KindByte, ScalarKindCodes
from ..descriptors import slot
from ..enums import WireDtype
from ..opcodes import ACT_READ_ACC, ACT_TABLE_LOAD, ACTIVATE, DVE_READ_ACC
from ..vector_enums import ACT_FUNC_TABLE
from ..fields import EnumTable, Field, Kind
from ..layout import Binding, BirAttr, BirForm, EnumText, IntText, Layout, ScalarText, Sem, TextOp, aps
from ..opcodes import Op
from ..tables import ACC_TABLE
from .common import C, D, H, I, V, dtype, nibble, product, u8


def kind_table(ds: DecisionSet, byte: KindByte = KindByte.IMM_SRC) -> EnumTable:
    """The names of the codes of one scalar kind byte (N-2: the real bytes give two code sets)."""
    return EnumTable("scalar kind", ds.get(ScalarKindCodes).names(byte))


def activate(ds: DecisionSet) -> list[Layout]:
    """§3.1 Activate 0x21 (gen2/gen3; gen4's 0x25 is refused, N-31)."""
    words = ds.get(ActivationArg2Word).value_offsets()
    roles = ds.get(ActivationRoles).roles()
    slots = (slot("src", 0x10, 3, dtype="src_dtype", conf=H, decision="N-1"),
             slot("dst", 0x30, 3, dtype="dst_dtype", write=True, conf=H, decision="N-1"))
    body: list[Field] = [
        Field("arg3_kind", 0x0C, 1, Kind.ENUM, enum=kind_table(ds, KindByte.ACT_ARG3), conf=D, decision="N-38",
              doc=f"kind of args[3] ({roles[2]}): Prelu: its kind (C); Copy/Reciprocal: 1 (C); otherwise N-38"),
        Field("arg2_kind", 0x0D, 1, Kind.ENUM, enum=kind_table(ds, KindByte.ACT_ARG2), conf=V, decision="N-2",
              doc=f"kind of args[2] ({roles[1]}) (C store pack_mem_pattern(getImm0, &bundle[0x0D])); real bytes: 0 "
                  "with a float32 word, 1 with an SBUF pointer word (N-2=per-byte)"),
        Field("acc", 0x0E, 1, Kind.ENUM, enum=ACC_TABLE, conf=C,
              doc="accumulator command (Idle is written 3: '(acc==0) ? 3 : ACCUM_map(acc)')"),
        Field("arg1_kind", 0x0F, 1, Kind.ENUM, enum=kind_table(ds, KindByte.ACT_ARG1), conf=C, decision="N-2",
              doc=f"kind of args[1] ({roles[0]}): mem-ptr, inline float or register (C stores)"),
        nibble("src_dtype", 0x20, False, C, "wire(in dtype)"),
        nibble("arg1_dtype", 0x20, True, C, f"wire(args[1] ({roles[0]}) dtype)"),
        dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
        u8("num_partitions", 0x22, C, "num_active_channels: partitions of the input"),
        Field("func", 0x23, 1, Kind.ENUM, enum=ACT_FUNC_TABLE, conf=C,
              doc="activation function (§2.1 LUT; 11 of its bytes are the real NEFF's func_id)"),
        Field("arg3_value", 0x2C, 4, conf=C, decision="N-6",
              doc=f"value word of args[3] ({roles[2]}): Prelu only (C); 0 otherwise"),
    ]
    for arg, off in words.items():
        if off is not None:
            conf = C if (arg, off) == (1, 0x28) else V if (arg, off) == (2, 0x24) else I
            body.append(Field(f"arg{arg}_value", off, 4, conf=conf, decision="N-5",
                              doc=f"value word of args[{arg}] ({roles[arg - 1]}): fp32 bits, register id or "
                                  "pointer word (N-6)"))
    if words[2] is None:
        body.append(Field("reserved_24", 0x24, 4, Kind.CONSTANT, const=0, conf=C, decision="N-5",
                          doc="reserved zero (§15.1: never touched, d3_ac_reserved_zero)"))
    f32 = int(WireDtype.FLOAT32)
    text: list[TextOp] = [
        EnumText(name="func", field="func"), *aps(slots, "src"),
        ScalarText(name=roles[0], kind="arg1_kind", value="arg1_value", dtype_field="arg1_dtype"),
        ScalarText(name=roles[1], kind="arg2_kind", value="arg2_value" if words[2] is not None else None,
                   fixed_dtype=f32),
        ScalarText(name=roles[2], kind="arg3_kind", value="arg3_value", fixed_dtype=f32).opt(),
        EnumText(name="acc", field="acc"),
    ]
    return [Layout(
        "Activate", (ACTIVATE,), tuple(body), Sem.ACTIVATE, tuple(text), slots,
        binding=Binding({"src": "src", "dst": "dst"}, "src", dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("act.func_byte", "act.scalar_kinds", "act.arg3_gate"),
        doc="dst = f(src*scale + bias; alpha); the accumulator folds the row (N-30)",
    )]


def table_load(ds: DecisionSet) -> list[Layout]:
    """§3.4 ActivationTableLoad 0x23 (BIR LoadActFuncSet): one field and the header sync band. The
    real NEFFs' four 0x23 bundles are ``23 10`` and 62 zero bytes (set 0, no sync): they decode to
    this layout with no unexplained byte (R-21 says what the index names)."""
    return [Layout(
        "ActivationTableLoad", (ACT_TABLE_LOAD,),
        (Field("act_tbl_sel", 0x23, 1, conf=V, decision="R-21",
               doc="act_tbl_sel: the function set (R-21: act_info.json index; range_checked_set(&bundle[0x23])); "
                   "0 in the four real bundles"),),
        Sem.NONE, (IntText(name="set", field="act_tbl_sel"),),
        bir=BirForm("LoadActFuncSet", attrs=(BirAttr("act_func_set_id", "act_tbl_sel", int, default=0),),
                    family="act"),
        checks=("act.set_id",),
        doc="install activation function set act_tbl_sel (no data effect; residency is N-35)",
    )]


def read_accumulator(name: str, code: Op, ds: DecisionSet, *, negated: bool) -> Layout:
    """§3.2 / §4.2 the D1_RD read-out: element count +0x1C, dtype +0x20, +0x21 (0x24: 0; 0x9B: the
    negated flag), partitions +0x22, TENSOR1D dst (N-11)."""
    at = ds.get(ReadAccumulatorSlot).offset()
    conf = C if code is ACT_READ_ACC else I
    slots = (slot("dst", at, 1, dtype="dst_dtype", write=True, conf=I, decision="N-11"),)
    neg = (Field("negated", 0x21, 1, conf=I, decision="N-11", doc="1: the accumulator is written negated")
           if negated else Field("negated", 0x21, 1, Kind.CONSTANT, const=0, conf=C, doc="0 (bundle[0x21] = 0)"))
    return Layout(
        name, (code,),
        (
            Field("element_count", 0x1C, 4, conf=conf, doc="elements per partition of dst (must be 1)"),
            dtype("dst_dtype", 0x20, conf, "wire(dst dtype)"),
            neg,
            u8("num_partitions", 0x22, conf, "partitions of dst"),
        ),
        Sem.READ_ACCUMULATOR,
        (*aps(slots, "dst"), *((IntText(name="negated", field="negated").opt(),) if negated else ())),
        slots,
        binding=Binding({"dst": "dst"}, "dst", elements={"element_count": "dst"}, dtypes={"dst_dtype": "dst"}),
        implied={"element_count": product("dst", 1)},
        checks=("read.count_one",) + (("read.negated_flag",) if negated else ()),
        doc="dst[p,0] = the engine's accumulator of lane p" + (" (negated when the flag is set)" if negated else ""),
    )


def act_read_accumulator(ds: DecisionSet) -> list[Layout]:
    return [read_accumulator("ActivationReadAccumulator", ACT_READ_ACC, ds, negated=False)]


def dve_read_accumulator(ds: DecisionSet) -> list[Layout]:
    return [read_accumulator("DveReadAccumulator", DVE_READ_ACC, ds, negated=True)]


BUILDERS = (activate, table_load, act_read_accumulator, dve_read_accumulator)
