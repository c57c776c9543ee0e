"""DVE layouts of ``next-families.md`` §4: TensorScalar (S3D3_TS: 0x43 / 0x53, the transposed 0x93, the
fused reduce 0x9A, the never-emitted 0x44 / 0x54 of N-37) and ScalarTensorTensor (S2S2D2_STT: 0x9D / 0x9E
and the scan 0xE5, N-21)."""

from __future__ import annotations



from ..decisions import DecisionSet
from ..decisions.scalar import SttLayout, TsScalarWords
from ..descriptors import slot
from ..enums import WireDtype
from ..opcodes import (
    STT_ARITH, STT_BITVEC, TS_ARITH, TS_BITVEC, TS_CACHE_CUMULATIVE, TS_CACHE_REDUCE,
    TS_PTR_ARITH, TS_PTR_BITVEC, TS_TRANSPOSE, TT_SCAN,
)
from ..fields import Field, Kind
from ..layout import Binding, DtypeText, EnumText, IntText, Layout, ScalarText, Sem, TextOp, aps
from ..opcodes import Op
from ..tables import ACC_TABLE, ALU_TABLE
from .act import kind_table
from .common import C, I, V, dtype, nibble, u8


def _tensor_scalar(name: str, codes: tuple[Op, ...], ds: DecisionSet, *, bitvec: bool) -> Layout:
    kinds = kind_table(ds)
    at = ds.get(TsScalarWords).offsets()
    slots = (slot("src", 0x10, 3, dtype="src_dtype", decision="N-1"),
             slot("dst", 0x30, 3, dtype="dst_dtype", write=True, decision="N-1"))
    body = (
        Field("acc", 0x0C, 1, Kind.ENUM, enum=ACC_TABLE, conf=C, doc="accumulator command (0x9A)"),
        dtype("src_dtype", 0x20, C, "wire(in dtype)"),
        dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
        u8("num_partitions", 0x22, C, "num_active_channels: partitions of the input"),
        Field("s0_kind", 0x23, 1, Kind.ENUM, enum=kinds, conf=V, decision="N-2",
              doc="kind of scalar 0 (C store sub_12051E0 @0x1265b16; real bytes: 0 immediate, 1 pointer)"),
        Field("op0", 0x24, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="first ALU op"),
        Field("op1", 0x25, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="second ALU op (0x9A: the reduce op, N-19)"),
        Field("reverse0", 0x26, 1, bits=1, conf=C, doc="1: op0(s0, in) instead of op0(in, s0)"),
        Field("reverse1", 0x26, 1, shift=1, bits=1, conf=C, doc="1: op1(s1, t) instead of op1(t, s1)"),
        Field("s1_kind", 0x27, 1, Kind.ENUM, enum=kinds, conf=V, decision="N-2",
              doc="kind of scalar 1, written only with 3 args (§15.4: no store site)"),
        Field("s0_value", at["s0"], 4, conf=V if at["s0"] == 0x28 else I, decision="N-3", doc="value word of scalar 0"),
        Field("s1_value", at["s1"], 4, conf=V if at["s1"] == 0x2C else I, decision="N-3",
              doc="value word of scalar 1 (0x9A: the reduce init)"),
    )
    imm: dict[str, object] = ({"dtype_field": "src_dtype"} if bitvec else {"fixed_dtype": int(WireDtype.FLOAT32)})
    text: tuple[TextOp, ...] = (
        EnumText(name="op0", field="op0"), EnumText(name="op1", field="op1").opt(), *aps(slots, "src"),
        ScalarText(name="s0", kind="s0_kind", value="s0_value", **imm),  # type: ignore[arg-type]
        ScalarText(name="s1", kind="s1_kind", value="s1_value", **imm).opt(),  # type: ignore[arg-type]
        IntText(name="reverse0", field="reverse0").opt(), IntText(name="reverse1", field="reverse1").opt(),
        EnumText(name="acc", field="acc").opt(),
    )
    return Layout(
        name, codes, body, Sem.TENSOR_SCALAR, text, slots,
        binding=Binding({"src": "data", "dst": "dst"}, "data", dtypes={"src_dtype": "data", "dst_dtype": "dst"}),
        checks=("ts.opcode_class", "ts.scalar_kinds", "ts.fused"),
        doc="dst = op1(op0(src, s0), s1); 0x9A: dst = op0(src, s0), op1 folds it into the accumulator",
    )


def tensor_scalar(ds: DecisionSet) -> list[Layout]:
    """§4.1: one byte map for every opcode of the family; two records so that an immediate reads as a
    float32 (arithmetic) or as bits of the input's dtype (bit-vector)."""
    return [_tensor_scalar("TensorScalar", (TS_ARITH, TS_PTR_ARITH, TS_TRANSPOSE, TS_CACHE_REDUCE, TS_CACHE_CUMULATIVE),
                           ds, bitvec=False),
            _tensor_scalar("TensorScalarBitvec", (TS_BITVEC, TS_PTR_BITVEC), ds, bitvec=True)]


def scalar_tensor_tensor(ds: DecisionSet) -> list[Layout]:
    """§4.4 ScalarTensorTensor (S2S2D2_STT): 0x9D arithmetic, 0x9E bit-vector, 0xE5 the tensor-tensor scan.
    One byte map; the control band +0x24..+0x2C is the book's (C), the three TENSOR2D slots and the
    scalar's value word are N-21 (I)."""
    n21 = ds.get(SttLayout)
    at = n21.slot_offsets()
    slots = (slot("tensor0", at["tensor0"], 2, dtype="tensor0_dtype", conf=I, decision="N-21", role_decision="N-21"),
             slot("tensor1", at["tensor1"], 2, dtype="tensor1_dtype", conf=I, decision="N-21", role_decision="N-21"),
             slot("out", at["out"], 2, dtype="out_dtype", write=True, conf=I, decision="N-21", role_decision="N-21"))
    scalar: tuple[Field, ...]
    scalar_text: tuple[TextOp, ...]
    if n21.one_byte:
        scalar = (Field("scalar_byte", 0x27, 1, conf=I, decision="N-21",
                        doc="the scalar's one byte: an immediate's bit pattern (N-21=one-byte-scalar, as D-16=one-byte)"),)
        scalar_text = (IntText(name="scalar", field="scalar_byte", hexa=True),
                       DtypeText(name="scalar_dtype", field="scalar_dtype"))
    else:
        scalar = (
            Field("scalar_kind", 0x27, 1, Kind.ENUM, enum=kind_table(ds), conf=I, decision="N-21",
                  doc="IMM_SRC kind of the scalar, N-2's codes (C store sub_12051E0(scalar))"),
            Field("scalar_value", n21.value_offset() or 0, 4, conf=I, decision="N-21",
                  doc="value word of the scalar: pointer ADDR4 (N-6), register id (N-7), immediate bits (N-33); "
                      "0xE5: the scan's initial value (S-38)"),
        )
        scalar_text = (ScalarText(name="scalar", kind="scalar_kind", value="scalar_value", dtype_field="scalar_dtype"),)
    body = (
        Field("op0", 0x24, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="first ALU op: op0(tensor0, scalar)"),
        Field("op1", 0x25, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="second ALU op: op1(t, tensor1)"),
        Field("reverse0", 0x26, 1, bits=1, conf=C,
              doc="1: op0(scalar, tensor0) instead of op0(tensor0, scalar) (0xE5: the previous result is the scalar)"),
        Field("reverse1", 0x26, 1, shift=1, bits=1, conf=C, doc="1: op1(tensor1, t) instead of op1(t, tensor1)"),
        *scalar,
        nibble("tensor0_dtype", 0x28, False, C, "wire(tensor0 dtype) (TS CORRECTION D-J04)"),
        nibble("tensor1_dtype", 0x28, True, C, "wire(tensor1 dtype) (TS CORRECTION D-J04)"),
        dtype("out_dtype", 0x29, C, "wire(out dtype)"),
        u8("num_partitions", 0x2A, C, "num_active_channels: partitions of tensor0"),
        dtype("scalar_dtype", 0x2B, C, "wire(scalar dtype)"),
        Field("acc", 0x2C, 1, Kind.ENUM, enum=ACC_TABLE, conf=C, doc="accumulator command (Idle: tongasm refuses others)"),
    )
    text: tuple[TextOp, ...] = (
        EnumText(name="op0", field="op0"), EnumText(name="op1", field="op1"), *aps(slots, "tensor0"), *scalar_text,
        IntText(name="reverse0", field="reverse0").opt(), IntText(name="reverse1", field="reverse1").opt(),
        EnumText(name="acc", field="acc").opt(),
    )
    return [Layout(
        "ScalarTensorTensor", (STT_ARITH, STT_BITVEC, TT_SCAN), body, Sem.SCALAR_TENSOR_TENSOR, text, slots,
        binding=Binding({"tensor0": "tensor0", "tensor1": "tensor1", "out": "out"}, "tensor0",
                        dtypes={"tensor0_dtype": "tensor0", "tensor1_dtype": "tensor1", "out_dtype": "out",
                                "scalar_dtype": "scalar"}),
        checks=("stt.opcode_class", "stt.scalar_kind", "stt.acc", "family.equal_elements"),
        doc="out = op1(op0(tensor0, scalar), tensor1); 0xE5: out[i] = op1(op0(tensor0[i], out[i-1]), tensor1[i]) "
            "from out[-1] = the scalar",
    )]


BUILDERS = (tensor_scalar, scalar_tensor_tensor)
