"""Family C layouts of ``next-families.md`` §5 and §6: TensorReduce over free axes (0x42 / 0x52, with
apply_transpose 0x83 / 0x84; N-12), the cross-lane reduce (0x7C / 0x7D), Reciprocal (0x48), Pool (0x45)
and Iota (0x7E, only when N-22 enables it). All have a TENSOR4D dst at +0x2C and the control band at
+0x20..+0x2B; all but Iota a TENSOR4D src at +0x0C, like TensorCopy. And §7: the batch-norm statistics
BNStats 0x61 (0x82 transposed) and BNStatsAggregate 0x62 (S4D2_BN)."""

from __future__ import annotations

import struct
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..decisions import DecisionSet
from ..decisions.reduce import BnStatsPartitionByte, IotaBand, ReduceAxisByte, ReduceOpcodePairing
from ..descriptors import slot
from ..enums import WireDtype
from ..opcodes import BN_AGGREGATE, BN_STATS, BN_STATS_T, IOTA, POOL, RECIPROCAL, Op
from ..vector_enums import POOL_FUNC_TABLE
from ..fields import Conf, EnumTable, Field, Kind
from ..layout import Binding, BirForm, EnumText, ImmText, IntText, Layout, Sem, TextOp, aps
from ..opcodes import op
from ..tables import ALU_TABLE
from .common import C, D, H, V, dtype, reserved, u8

#: R-60: 0x8C (not in the book's 2.24 opcode list) is the TensorReduce the 2.23 compiler emits for a
#: bfloat16 input on sunda's DVE: 0x42's byte map on all 32 distinct real bundles (decoded only; codegen
#: keeps 0x42, which the book documents for every input dtype).
TR_BF16 = op(0x8C, "TensorReduceBf16", "TensorReduce", "tensor", Conf.V,
             "free-axis reduce of a bfloat16 input (R-60; decoded, simulated as 0x42)")


def tensor_reduce(ds: DecisionSet) -> list[Layout]:
    """§5.1: the free-axis reduce. The src slot is packed by the family's codegen (its axis byte
    depends on which reduced pairs D-6 drops, N-13), the dst slot by the binding."""
    keep = not ds.get(ReduceAxisByte).drops_degenerate
    slots = (slot("src", 0x0C, 4, dtype="src_dtype", packing="keep-degenerate" if keep else "free-dims",
                  decision="N-13" if keep else None),
             slot("dst", 0x2C, 4, dtype="dst_dtype", write=True))
    return [Layout(
        "TensorReduce", (*ds.get(ReduceOpcodePairing).free_axis_opcodes(), TR_BF16),
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


#: §2.5 the cross-lane reduce command (POOL/PENG switch, C).
CROSS_LANE_TABLE = EnumTable("cross-lane command", {0: "add", 1: "average", 2: "max", 3: "bitwise_or", 4: "bitwise_and",
                                                    5: "bitwise_xor"})
_F32 = int(WireDtype.FLOAT32)


def cross_lane(ds: DecisionSet) -> list[Layout]:
    """§5.2: the partition (cross-lane) reduce, axis C or XYZWC. The count byte is the input's lane
    count; the dst always has one partition (its text says so, the bundle does not store it)."""
    slots = (slot("src", 0x0C, 4, dtype="src_dtype"), slot("dst", 0x2C, 4, dtype="dst_dtype", write=True, parts=None,
                                                              partitions=1))
    return [Layout(
        "CrossLaneReduce", ds.get(ReduceOpcodePairing).cross_lane_opcodes(),
        (
            dtype("src_dtype", 0x20, C, "wire(in dtype)"),
            dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
            u8("num_partitions", 0x22, C, "lane count: partitions of the input (the dst has one)"),
            Field("command", 0x23, 1, Kind.ENUM, enum=CROSS_LANE_TABLE, conf=C, doc="reduce command (§2.5 switch)"),
            Field("cross_lane", 0x24, 1, conf=C, doc="1: axis C (per free element); 0: XYZWC (everything)"),
            Field("scale", 0x28, 4, conf=D, decision="N-23", doc="average: float32 1/N (C store, I value); else 0"),
        ),
        Sem.CROSS_LANE_REDUCE,
        (EnumText(name="op", field="command"), *aps(slots, "src"), IntText(name="per_element", field="cross_lane"),
         ImmText(name="scale", field="scale", fixed_dtype=_F32).opt()),
        slots,
        binding=Binding({"dst": "dst"}, None, dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("tr.cross_flags",),
        doc="fold across partitions: axis C per free element, XYZWC over everything; average scales the sum",
    )]


def pool(ds: DecisionSet) -> list[Layout]:
    """§5.4 Pool: every row C (POOL 123a068, 123a06d, 123a075, 123a45c, 123a977); the input keeps its
    num == 1 pairs (N-24)."""
    slots = (slot("src", 0x0C, 4, dtype="src_dtype", packing="keep-degenerate", decision="N-24"),
             slot("dst", 0x2C, 4, dtype="dst_dtype", write=True))
    return [Layout(
        "Pool", (POOL,),
        (
            dtype("src_dtype", 0x20, C, "wire(in dtype)"),
            dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
            u8("num_partitions", 0x22, C, "lane count: partitions of the input"),
            Field("func", 0x24, 1, Kind.ENUM, enum=POOL_FUNC_TABLE, conf=C, doc="pool function: Max 1, Avg 2"),
            Field("mode", 0x25, 1, Kind.CONSTANT, const=3, conf=C, doc="mode 3 (movb $0x3,0x25)"),
            Field("scale", 0x28, 4, conf=C, doc="float32: Max 1.0; Avg 1/(window size)"),
        ),
        Sem.POOL,
        (EnumText(name="func", field="func"), *aps(slots, "src"), ImmText(name="scale", field="scale", fixed_dtype=_F32)),
        slots,
        binding=Binding({"dst": "dst"}, None, dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("pool.scale",),
        doc="max (fmaxf) or average (sum x scale) over the window: the two innermost input dims",
    )]


def iota(ds: DecisionSet) -> list[Layout]:
    """§6 Iota, behind N-22: the pattern in the source band from slot 0 (N-22's default, verified on the
    real bundles; the draft's readings keep slot 0 the {1,1} sentinel); channel_multiplier at +0x24."""
    n22 = ds.get(IotaBand)
    if not n22.enabled:
        return []
    body: list[Field] = []
    band = V if n22.first_slot == 0 else D  # slot0-pattern: verified on the 16 real bundles
    if n22.has_base:
        body.append(Field("base", 0x0C, 4, Kind.SIGNED, conf=band, decision="N-22", doc="base value (int32)"))
    else:
        body.append(Field("base", 0x0C, 4, Kind.CONSTANT, const=0, conf=D, decision="N-22", doc="not written"))
    text: list[TextOp] = []
    for i in range(4):
        step_at, num_at = 0x10 + 2 * i, 0x18 + 2 * i
        if i < n22.first_slot:  # the two C stores: src dim0 sentinel = 1
            body += [Field(f"pstep{i}", step_at, 2, Kind.CONSTANT, const=1, conf=C, doc="pattern slot 0 step: sentinel 1"),
                     Field(f"pnum{i}", num_at, 2, Kind.CONSTANT, const=1, conf=C, doc="pattern slot 0 count: sentinel 1")]
            continue
        body += [Field(f"pstep{i}", step_at, 2, Kind.SIGNED, conf=band, decision="N-22",
                       doc=f"pattern step, slot {i} (innermost first)"),
                 Field(f"pnum{i}", num_at, 2, conf=band, decision="N-22", doc=f"pattern count, slot {i}")]
        text += [IntText(name=f"pstep{i}", field=f"pstep{i}"), IntText(name=f"pnum{i}", field=f"pnum{i}")]
    body += [
        Field("reserved_20", 0x20, 1, Kind.CONSTANT, const=0, conf=C, doc="reserved (d4_iota_reserved_z)"),
        dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
        u8("num_partitions", 0x22, C, "lane count: partitions of the output"),
        Field("channel_multiplier", 0x24, 4, Kind.SIGNED, conf=V if n22.first_slot == 0 else H,
              doc="added per partition (int32; POOL 123d8dd; real: 0 and 1)"),
    ]
    slots = (slot("dst", 0x2C, 4, dtype="dst_dtype", write=True),)
    return [Layout(
        "Iota", (IOTA,), tuple(body), Sem.IOTA,
        (*aps(slots, "dst"), IntText(name="base", field="base").opt(),
         IntText(name="channel_multiplier", field="channel_multiplier").opt(), *text),
        slots,
        binding=Binding({"dst": "dst"}, "dst", dtypes={"dst_dtype": "dst"}),
        checks=("iota.pattern",),
        doc="dst[c, i] = base + c*channel_multiplier + sum of step x index over the pattern (int32)",
    )]


def _bn(name: str, codes: tuple[Op, ...], ds: DecisionSet, *, counts: bool) -> Layout:
    lane = ds.get(BnStatsPartitionByte).is_count
    slots = (slot("src", 0x0C, 4, dtype="src_dtype"),
             slot("dst", 0x30, 2, dtype="dst_dtype", write=True))
    body: list[Field] = [
        dtype("src_dtype", 0x20, C, "wire(in dtype)"),
        dtype("dst_dtype", 0x21, C, "wire(out dtype)"),
        (u8("num_partitions", 0x22, C, "partitions of the input (BN: 'BASE partition'; N-39)", decision="N-39") if lane
         else u8("start_partition", 0x22, C, "start partition of the input (N-39=start-partition)", decision="N-39")),
    ]
    if counts:
        body += [Field("n_even", 0x28, 4, conf=C, doc="float32 (N + 1) >> 1: the count of the even elements"),
                 Field("n_odd", 0x2C, 4, conf=C, doc="float32 N >> 1: the count of the odd elements")]
    return Layout(
        name, codes, tuple(body), Sem.BN_STATS if counts else Sem.BN_AGGREGATE,
        (*aps(slots, "src" if lane else None),) + ((IntText(name="start", field="start_partition"),) if not lane else ()),
        slots,
        binding=Binding({"dst": "dst"}, None, dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        implied={"n_even": _count_bits(1), "n_odd": _count_bits(0)} if counts else {},
        checks=("bn.shape",) + (("bn.counts",) if counts else ()),
        doc=("[n, mean, M2] of the even and of the odd elements of each partition" if counts else
             "[mean, variance] of each partition from its (n, mean, M2) triples"),
    )


def _count_bits(plus: int) -> Callable[[Mapping[str, int]], int]:
    """The implied float32 bits of (N + plus) >> 1, N = the src descriptor's element count (BN)."""

    def implied(v: Mapping[str, int]) -> int:
        n = 1
        for i in range(4):
            n *= v.get(f"src.num{i}", 1)
        if isinstance(n, int):
            return int(struct.unpack("<I", struct.pack("<f", float((n + plus) >> 1)))[0])
        # a column of values (the fast listing's derived defaults): the same, element by element
        column: Any = np.array([struct.unpack("<I", struct.pack("<f", float((int(k) + plus) >> 1)))[0]
                                for k in np.asarray(n).reshape(-1)], dtype=object)
        return column

    return implied


def bn_stats(ds: DecisionSet) -> list[Layout]:
    """§7.1 BNStats 0x61 (0x82 with apply_transpose)."""
    return [_bn("BNStats", (BN_STATS, BN_STATS_T), ds, counts=True)]


def bn_aggregate(ds: DecisionSet) -> list[Layout]:
    """§7.2 BNStatsAggregate 0x62: BNStats' fields minus the two count words."""
    return [_bn("BNStatsAggregate", (BN_AGGREGATE,), ds, counts=False)]


BUILDERS = (tensor_reduce, cross_lane, reciprocal, pool, iota, bn_stats, bn_aggregate)
