"""Family C layouts of ``next-families.md`` §5: TensorReduce over free axes (0x42 / 0x52, with
apply_transpose 0x83 / 0x84; N-12) and Reciprocal (0x48). Both are TENSOR4D src at +0x0C and
dst at +0x2C with the control band at +0x20..+0x2B, like TensorCopy."""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.families import ReduceAxisByte, ReduceOpcodePairing
from ..descriptors import slot
from ..family_opcodes import RECIPROCAL
from ..fields import Field, Kind
from ..layout import Binding, BirForm, EnumText, IntText, Layout, Sem, aps
from ..tables import ALU_TABLE
from .common import C, D, dtype, reserved, u8


def tensor_reduce(ds: DecisionSet) -> list[Layout]:
    """§5.1: the free-axis reduce. The src slot is packed by the family's codegen (its axis byte
    depends on which reduced pairs D-6 drops, N-13), the dst slot by the binding."""
    keep = not ds.get(ReduceAxisByte).drops_degenerate
    slots = (slot("src", 0x0C, 4, dtype="src_dtype", keep_degenerate=keep,
                  decision="N-13" if keep else None),
             slot("dst", 0x2C, 4, dtype="dst_dtype", write=True))
    return [Layout(
        "TensorReduce", ds.get(ReduceOpcodePairing).free_axis_opcodes(),
        (
            dtype("src_dtype", 0x20, C, "wire(in dtype)"),
            dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
            u8("num_partitions", 0x22, C, "lane count: partitions of the input (POOL 12393ba)"),
            Field("negate", 0x23, 1, conf=C, doc="1: the result is negated after the reduce (POOL 12393e9)"),
            Field("op", 0x24, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="reduce ALU op (POOL 123938b)"),
            Field("axis", 0x25, 1, conf=D, decision="N-13",
                  doc="1 + the number of reduced (innermost) free dims in the descriptor (book: axis + 2)"),
        ),
        Sem.TENSOR_REDUCE,
        (EnumText(name="op", field="op"), *aps(slots, "src"), IntText(name="axis", field="axis"),
         IntText(name="negate", field="negate").opt()),
        slots,
        binding=Binding({"dst": "dst"}, None, dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("tr.opcode_class", "tr.axis_byte", "tr.flags"),
        doc="reduce the innermost free dims of src with op (then negate) into dst",
    )]


def reciprocal(ds: DecisionSet) -> list[Layout]:
    """§5.3: every byte C (POOL 1239bf9, 1239c07, 1239c31, 1239c3a)."""
    slots = (slot("src", 0x0C, 4, dtype="src_dtype"), slot("dst", 0x2C, 4, dtype="dst_dtype", write=True))
    return [Layout(
        "Reciprocal", (RECIPROCAL,),
        (
            dtype("src_dtype", 0x20, C, "wire(in dtype)"),
            dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
            u8("num_partitions", 0x22, C, "lane count: partitions of the input"),
            reserved("mode", 0x25, 1, C, "mode: 0 (POOL 1239c31 movb $0x0,0x25)"),
        ),
        Sem.RECIPROCAL, tuple(aps(slots, "src")), slots,
        binding=Binding({"src": "src", "dst": "dst"}, "src", dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        bir=BirForm("Reciprocal", ins=("src",), outs=("dst",)),
        checks=("family.equal_elements",),
        doc="dst = 1 / src in fp32 (S-30)",
    )]


BUILDERS = (tensor_reduce, reciprocal)
