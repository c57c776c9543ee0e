"""The Pool-engine (GPSIMD) opcodes real compiler output carries: TensorScalarAddr 0x74 (S2D2_TS_AS,
R-70/R-71), the custom-op pair CustomOpHeader 0x85 + CustomOpPayload 0x86 (R-72), the gather pair
PoolBufferLoad 0x67 + Gather 0x68 (R-73) and TensorScalarAffineSelect 0x92 (R-74). Iota 0x7E is the
Family-C record of :mod:`.reduce`.

Every field was checked against every real bundle of the shared corpus (per-byte statistics over the
distinct bundles; the decisions give the counts). Tags: **V** the corpus shows the field varying as
declared (or holding its one value in every bundle where the book names it), **C/H** the book's,
**I** a reading of the bytes with no source naming it.
"""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.gpsimd import AffineSelectCompare, TensorScalarAddrKinds, TensorScalarAddrSlots
from ..descriptors import slot
from ..fields import EnumTable, Field, Kind
from ..layout import Binding, DtypeText, EnumText, IntText, Layout, RegText, Sem, TextOp, aps
from ..opcodes import op
from ..tables import ALU_TABLE
from .common import C, I, V, dtype, nibble, u8, u16, u32, zero_run

TENSOR_SCALAR_ADDR = op(0x74, "TensorScalarAddr", "TensorScalarPtr", "tensor", C,
                        "out = op1(op0(in, s0), s1) with immediate or pointer scalars (address arithmetic)")
CUSTOM_OP_HEADER = op(0x85, "CustomOpHeader", "CustomOp", "tensor", C,
                      "start a custom op: a ucode_lib.json function run by the Pool engine's CPUs")
CUSTOM_OP_PAYLOAD = op(0x86, "CustomOpPayload", "CustomOp", "tensor", C, "one argument of the custom op before it")
POOL_BUFFER_LOAD = op(0x67, "PoolBufferLoad", "Gather", "tensor", C, "gather, first half: load the pool buffer")
GATHER = op(0x68, "Gather", "Gather", "tensor", C, "gather, second half: per lane, an index in, an element out")
AFFINE_SELECT = op(0x92, "TensorScalarAffineSelect", "TensorScalarAffineSelect", "tensor", V,
                   "out = cmp(offset + p*channel_multiplier + pattern, 0) ? in : fill register")

_R70 = "R-70"
_R72 = "R-72"
_R73 = "R-73"
_R74 = "R-74"


def tensor_scalar_addr(ds: DecisionSet) -> list[Layout]:
    """0x74: the book's control band (+0x28..+0x2F, C) and the slots and value words the bytes place (R-70)."""
    width = ds.get(TensorScalarAddrSlots).value_width
    kinds = EnumTable("scalar kind", ds.get(TensorScalarAddrKinds).names())
    slots = (slot("src", 0x0C, 2, dtype="src_dtype", conf=V, decision=_R70),
             slot("dst", 0x34, 2, dtype="dst_dtype", write=True, conf=V, decision=_R70))
    body: list[Field] = [
        Field("s0_value", 0x18, width, conf=V, decision=_R70,
              doc="scalar 0: the immediate's bits (in s0_dtype) or the pointer's ADDR4 word"),
        Field("s1_value", 0x20, width, conf=V, decision=_R70,
              doc="scalar 1: the immediate's bits (in s1_dtype) or the pointer's ADDR4 word"),
        nibble("s0_dtype", 0x28, False, C, "wire dtype of scalar 0 (low nibble)"),
        nibble("s1_dtype", 0x28, True, C, "wire dtype of scalar 1 (high nibble)"),
        nibble("src_dtype", 0x29, False, C, "wire dtype of in (low nibble)"),
        nibble("dst_dtype", 0x29, True, C, "wire dtype of out (high nibble)"),
        Field("s0_kind", 0x2A, 1, Kind.ENUM, enum=kinds, conf=V, decision="R-71", doc="kind of scalar 0"),
        Field("s1_kind", 0x2B, 1, Kind.ENUM, enum=kinds, conf=V, decision="R-71", doc="kind of scalar 1"),
        Field("op0", 0x2C, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="first ALU op (real: mult, add)"),
        Field("op1", 0x2D, 1, Kind.ENUM, enum=ALU_TABLE, conf=C, doc="second ALU op (real: add, bypass)"),
        u8("num_partitions", 0x2E, C, "num_active_channels: partitions of in"),
        Field("reverse0", 0x2F, 1, bits=1, conf=C, doc="1: op0(s0, in) (zero in every real bundle)"),
        Field("reverse1", 0x2F, 1, shift=1, bits=1, conf=C, doc="1: op1(s1, t) (zero in every real bundle)"),
        *zero_run(0x30, 4, V, "zero in all 458 distinct real bundles", _R70),
    ]
    if width == 4:
        body += zero_run(0x1C, 4, I, "the value word's upper half under R-70=u32-words", _R70)
        body += zero_run(0x24, 4, I, "the value word's upper half under R-70=u32-words", _R70)
    text: tuple[TextOp, ...] = (
        EnumText(name="op0", field="op0"), EnumText(name="op1", field="op1"), *aps(slots, "src"),
        EnumText(name="s0", field="s0_kind"), IntText(name="s0_value", field="s0_value", hexa=True),
        DtypeText(name="s0_dtype", field="s0_dtype"),
        EnumText(name="s1", field="s1_kind"), IntText(name="s1_value", field="s1_value", hexa=True),
        DtypeText(name="s1_dtype", field="s1_dtype"),
        IntText(name="reverse0", field="reverse0").opt(), IntText(name="reverse1", field="reverse1").opt(),
    )
    return [Layout(
        "TensorScalarAddr", (TENSOR_SCALAR_ADDR,), tuple(body), Sem.TENSOR_SCALAR_ADDR, text, slots,
        binding=Binding({"src": "data", "dst": "dst"}, "data", dtypes={"src_dtype": "data", "dst_dtype": "dst"}),
        checks=("tsa.scalar_kinds",),
        doc="dst = op1(op0(src, s0), s1), integer; s0/s1 immediates or [P,1] pointers (R-71, S-75)",
    )]


def custom_op(ds: DecisionSet) -> list[Layout]:
    """0x85 header and 0x86 payload (R-72). The payload's words are the argument's descriptor; what each
    holds is read off the bytes (I), none is named by a source."""
    header = Layout(
        "CustomOpHeader", (CUSTOM_OP_HEADER,),
        (
            u8("payloads", 0x0C, V, "number of CustomOpPayload bundles that follow (5 in all 92 real headers)",
               decision=_R72),
            *zero_run(0x0D, 1, V, "zero in all 92 real headers", _R72),
            u8("function", 0x0E, V, "sub_opcode of the ucode_lib.json function of opcode 133 (real: 0, 1)",
               decision=_R72),
            u8("num_args", 0x0F, V, "arguments (4 in all 92 real headers: payloads = 1 + num_args)", decision=_R72),
            *zero_run(0x10, 0x30, V, "zero in all 92 real headers", _R72),
        ),
        Sem.CUSTOM_OP,
        (IntText(name="function", field="function"), IntText(name="payloads", field="payloads"),
         IntText(name="num_args", field="num_args")),
        checks=("custom.payloads",),
        doc="start the ucode_lib.json function 'function' (opcode 133) on the Pool engine's CPUs",
    )
    payload = Layout(
        "CustomOpPayload", (CUSTOM_OP_PAYLOAD,),
        (
            *zero_run(0x0C, 3, V, "zero in all 460 real payloads", _R72),
            u8("w0f", 0x0F, I, "1 in every real payload", decision=_R72),
            u16("w10", 0x10, I, "1 in every real payload", decision=_R72),
            dtype("arg_dtype", 0x12, I, "wire dtype of the argument (real: int32, float32)", decision=_R72),
            *zero_run(0x13, 5, V, "zero in all 460 real payloads", _R72),
            u16("w18", 0x18, I, "1 (299 payloads) or 2 (161): a rank?", decision=_R72),
            u16("w1a", 0x1A, I, "0, 1, 142, 346: dim 0? (1 whenever w18 = 2)", decision=_R72),
            u16("w1c", 0x1C, I, "0, 142, 346: dim 1? (0 whenever w18 = 1)", decision=_R72),
            *zero_run(0x1E, 0x0A, V, "zero in all 460 real payloads", _R72),
            u32("addr", 0x28, I, "an ADDR4-shaped word: the argument's start partition and byte offset", decision=_R72),
            u32("w2c", 0x2C, I, "1, 142, 284, 346, 692: the dims' product (x2 when w18 = 2; 1 for dim 0)",
                decision=_R72),
            u32("w30", 0x30, I, "1 in every real payload", decision=_R72),
            u32("w34", 0x34, I, "equal to w2c in every real payload", decision=_R72),
            *zero_run(0x38, 8, V, "zero in all 460 real payloads", _R72),
        ),
        Sem.CUSTOM_OP,
        (IntText(name="addr", field="addr", hexa=True), DtypeText(name="dtype", field="arg_dtype")),
        doc="an argument of the custom op whose header precedes it",
    )
    return [header, payload]


def gather(ds: DecisionSet) -> list[Layout]:
    """0x67 PoolBufferLoad and 0x68 Gather (POOL 5, C; R-73 for what the bytes add or contradict)."""
    pbl_slots = (slot("src", 0x0C, 4, dtype="dtype"),)
    pbl = Layout(
        "PoolBufferLoad", (POOL_BUFFER_LOAD,),
        (
            dtype("dtype", 0x20, C, "wire dtype of the loaded elements (POOL 1253a9a; real: float32)"),
            *zero_run(0x21, 1, V, "zero in all 18 real bundles (POOL: no out dtype)", _R73),
            u8("num_partitions", 0x22, C, "lanes: partitions of src (POOL 1253ab0)"),
            *zero_run(0x23, 5, V, "zero in all 18 real bundles (POOL: s4_pb_reserved_zero)", _R73),
            u32("element_count", 0x28, V, "POOL 1253a88 'load span'; 0 in all 18 real bundles", decision=_R73),
            Field("mask", 0x2C, 4, Kind.CONSTANT, const=0x1FF, conf=V,
                  doc="vector depth / mask: 0x1FF (POOL 1253aa1 and all 18 real bundles)"),
            *zero_run(0x30, 0x10, V, "zero in all 18 real bundles", _R73),
        ),
        Sem.GATHER, tuple(aps(pbl_slots, "src")), pbl_slots,
        doc="load src into the pool buffer (the gather's table)",
    )
    g_slots = (slot("src", 0x0C, 4, dtype="src_dtype"), slot("dst", 0x2C, 4, dtype="dst_dtype", write=True,
                                                                conf=V, decision=_R73))
    gat = Layout(
        "Gather", (GATHER,),
        (
            dtype("src_dtype", 0x20, C, "wire dtype of the indices (real: uint32)"),
            dtype("dst_dtype", 0x21, C, "wire dtype of the gathered elements (real: float32)"),
            u8("num_partitions", 0x22, C, "lanes: partitions of src"),
            *zero_run(0x23, 1, V, "zero in all 18 real bundles", _R73),
            u16("depth", 0x24, V, "active channels / vector depth (POOL 125379c; 256 in all 18 real bundles)"),
            *zero_run(0x26, 2, V, "zero in all 18 real bundles", _R73),
            u32("param", 0x28, C, "reg_load param (POOL 125377d: 0; 0 in all 18 real bundles)"),
        ),
        Sem.GATHER, (*aps(g_slots, "src"), IntText(name="depth", field="depth")), g_slots,
        checks=("family.equal_elements",),
        doc="per lane, read an index from src and write the selected pool-buffer element to dst",
    )
    return [pbl, gat]


def affine_select(ds: DecisionSet) -> list[Layout]:
    """0x92 (R-74): every field read off the 8 real bundles; the book has no byte map."""
    compare = EnumTable("affine compare", {3: ds.get(AffineSelectCompare).compare(3) or "code3"})  # S-76
    slots = (slot("src", 0x24, 2, dtype="src_dtype", conf=V, decision=_R74),
             slot("dst", 0x30, 2, dtype="dst_dtype", write=True, conf=V, decision=_R74))
    pattern: list[Field] = []
    text: list[TextOp] = []
    for i in range(4):
        pattern += [Field(f"pstep{i}", 0x14 + 2 * i, 2, Kind.SIGNED, conf=V, decision=_R74,
                          doc=f"affine pattern step, slot {i} (innermost first)"),
                    Field(f"pnum{i}", 0x1C + 2 * i, 2, conf=V, decision=_R74, doc=f"affine pattern count, slot {i}")]
        text += [IntText(name=f"pstep{i}", field=f"pstep{i}"), IntText(name=f"pnum{i}", field=f"pnum{i}")]
    return [Layout(
        "TensorScalarAffineSelect", (AFFINE_SELECT,),
        (
            u8("num_partitions", 0x0C, V, "lanes: partitions of in (0x80 in all 8 real bundles)", decision=_R74),
            nibble("src_dtype", 0x0D, False, V, "wire dtype of in (low nibble; in = out in every real bundle)"),
            nibble("dst_dtype", 0x0D, True, V, "wire dtype of out (high nibble)"),
            Field("compare", 0x0E, 1, Kind.ENUM, enum=compare, conf=I, decision="S-76",
                  doc="the 2-bit compare of the affine value with 0 (3 in every real bundle)"),
            Field("fill_reg", 0x0F, 1, Kind.REGISTER, conf=V, decision=_R74,
                  doc="register holding the fill (on_false) value as float32 bits"),
            Field("offset", 0x10, 4, Kind.SIGNED, conf=V, decision=_R74, doc="affine offset (int32)"),
            *pattern,
            Field("channel_multiplier", 0x3C, 4, Kind.SIGNED, conf=V, decision=_R74,
                  doc="added per partition (int32; -1 in every real bundle)"),
        ),
        Sem.AFFINE_SELECT,
        (EnumText(name="cmp", field="compare"), *aps(slots, "src"), RegText(name="fill", field="fill_reg"),
         IntText(name="offset", field="offset"), IntText(name="channel_multiplier", field="channel_multiplier"),
         *text),
        slots,
        checks=("affsel.pattern",),
        doc="where cmp(offset + p*channel_multiplier + sum step*index, 0): in, else the fill register (S-76)",
    )]


BUILDERS = (tensor_scalar_addr, custom_op, gather, affine_select)
