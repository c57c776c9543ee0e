"""Checks of the reduce family: TensorReduce (free-axis and cross-lane), Reciprocal, Pool, Iota and the
batch-norm statistics (BNStats, BNStatsAggregate): bundle checks on the decoded fields, IR checks on the
BIR instruction, the ids of the family's encoder refusals and the vector forms ``check_stream`` runs.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator

import numpy as np

from ..ir.instructions import Instruction
from ..ir.reduce import BNStats, BNStatsAggregate, Iota, Pool, TensorReduce
from ..isa.decisions.reduce import (
    PoolPacking,
)
from ..isa.decisions.spec import FreeDimOrder
from ..isa.enums import ALU_FROM_WIRE, ALU_WIRE, AluClass
from ..isa.opcodes import CROSS_BITVEC, TR_BITVEC, TR_T_BITVEC
from ..isa.vector_enums import AxisList
from ..passes.lower_compound import is_lowered_part
from .bundle_checks import BundleView, bundle_check
from .ir_checks import ir_check
from .operands import elements, equal_partitions, finding, slot_elements, tensor_ap, with_slot_dims
from .registry import Finding, register_refusals
from .vectorized import by_classes, vector

# --- encoder refusals (the reduce family's; the codegen raises these ids) ---

_ENCODE = [
    ("tr.axis", "the TensorReduce axis is a known AxisListType naming free dims the input has, not only size-1 ones",
     "chapter §2.4, N-13"),
    ("tr.cross_lane", "TensorReduce over the partitions (C, XYZWC) is not encoded yet", "chapter §5.2"),
    ("tr.op", "the TensorReduce op is a legal reduction", "N-14"),
    ("tr.negate", "negate only with an arithmetic reduce op", "chapter §5.1 (NKI)"),
    ("tr.transpose", "apply_transpose has an opcode under the selected pairing", "N-12"),
    ("bn.fmax", "BNStats reads at most 512 elements per partition", "chapter §7.1 (NKI)"),
    ("pool.func", "the pool function is Max or Avg ('has unimplemented Pooling type')", "chapter §5.4"),
    ("pool.shape", "a Pool input has 5 pairs (Avg) or 3 to 5 (Max): partition, outer dims, the window", "N-24"),
    ("iota.off", "Iota only when N-22 enables it (experimental)", "N-22"),
    ("iota.operands", "Iota: an SBUF dst, int32 base and multiplier, a pattern of at most 3 (4) dims with counts "
     "that fit u16", "chapter §6, N-22"),
]
register_refusals(_ENCODE)


_BITVEC_TR = frozenset({TR_BITVEC.byte, TR_T_BITVEC.byte, CROSS_BITVEC.byte})


@bundle_check("tr.opcode_class", "a TensorReduce bit-vector op is on 0x52 / 0x84, an arithmetic op on 0x42 / 0x83",
              "N-12, N-15")
def _tr_class(b: BundleView) -> Iterator[Finding]:
    op = ALU_FROM_WIRE.get(b.fields["op"])
    if op is None or op not in ALU_WIRE:
        return
    bitvec = ALU_WIRE[op][1] is AluClass.BITVEC
    if bitvec != (b.opcode in _BITVEC_TR):
        want = "a bit-vector opcode" if bitvec else "an arithmetic opcode"
        yield finding("tr.opcode_class", f"{op.name} belongs on {want}", "op", b.fields["op"], want)


@bundle_check("tr.axis_byte", "the TensorReduce axis byte names 1..4 reduced dims the src descriptor has (2..5)",
              "chapter §2.4, N-13")
def _tr_axis(b: BundleView) -> Iterator[Finding]:
    v = b.fields["axis"]
    if not 2 <= v <= 5:
        yield finding("tr.axis_byte", "axis byte out of range (1 + the number of reduced dims, 1..4)", "axis", v, "2..5")


@bundle_check("tr.flags", "the TensorReduce negate flag is 0 or 1, and 0 with a bit-vector op", "chapter §5.1")
def _tr_flags(b: BundleView) -> Iterator[Finding]:
    v = b.fields["negate"]
    if v > 1:
        yield finding("tr.flags", "negate flag must be 0 or 1", "negate", v, "0, 1")
    elif v and b.opcode in _BITVEC_TR:
        yield finding("tr.flags", "negate is only applicable to an arithmetic op", "negate", v, "0")


def _free_axis(inst: Instruction) -> bool:
    return isinstance(inst, TensorReduce) and inst.stream_family() != "pool" and not is_lowered_part(inst)


@ir_check("tr.equal_partitions", "TensorReduce src and dst have equal partition counts", "N-34", (TensorReduce,))
def _tr_partitions(inst: Instruction) -> Iterator[Finding]:
    if _free_axis(inst):
        yield from equal_partitions("tr.equal_partitions", ("src", "dst"))(inst)


@ir_check("tr.cross_out", "a cross-lane reduce writes one partition: the src's free shape (C) or one element (XYZWC)",
          "chapter §5.2", (TensorReduce,))
def _tr_cross_out(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, TensorReduce)
    if inst.stream_family() != "pool" or is_lowered_part(inst):
        return
    d = tensor_ap(inst.dst)
    if d is None:
        return
    if d.ap[0][1] != 1:
        yield Finding("tr.cross_out", "a cross-lane reduce writes one partition", "dst.partitions", d.ap[0][1], "1")
    want = elements(inst.src) if inst.attr("axis") is AxisList.C else 1
    if want is not None and elements(inst.dst) != want:
        yield Finding("tr.cross_out", f"dst has {elements(inst.dst)} elements; the reduce leaves {want}", "dst",
                      elements(inst.dst), str(want))


@ir_check("tr.out_elements", "the TensorReduce dst holds one element per non-reduced src element", "chapter §5.1 "
          "(NKI: 'consistent with the axis field')", (TensorReduce,))
def _tr_out(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, TensorReduce)
    src, axis = tensor_ap(inst.src), inst.attr("axis")
    out = elements(inst.dst)
    if src is None or out is None or not isinstance(axis, AxisList) or not axis.free_pairs or is_lowered_part(inst):
        return
    free = list(src.ap[1:])
    keep = math.prod(n for _s, n in free[:max(len(free) - axis.free_pairs, 0)])
    if out != keep:
        yield Finding("tr.out_elements", f"dst has {out} elements per partition; reducing axis {axis.name} leaves "
                      f"{keep}", "dst", out, str(keep))


def _declared(opcode: str, fn: Callable[[Instruction], Iterator[Finding]]) -> Callable[[Instruction], Iterator[Finding]]:
    """An IR check of a declared instruction (its class is made from the layout record, and made again
    when the registered layouts change): it applies by BIR opcode."""

    def check(inst: Instruction) -> Iterator[Finding]:
        if inst.opcode == opcode:
            yield from fn(inst)

    return check


ir_check("recip.equal_partitions", "Reciprocal src and dst have equal partition counts", "N-34",
         (Instruction,))(_declared("Reciprocal", equal_partitions("recip.equal_partitions", ("src", "dst"))))


@bundle_check("bn.shape", "BNStats writes 6 elements per partition; BNStatsAggregate reads triples and writes 2",
              "chapter §7 (BN verifier)")
def _bn_shape(b: BundleView) -> Iterator[Finding]:
    n_in, n_out = slot_elements(b, "src"), slot_elements(b, "dst")
    if "n_even" in b.fields:
        if n_out != 6:
            yield finding("bn.shape", "BNStats writes 6 elements per partition", "dst", n_out, "6")
    else:
        if n_in % 3:
            yield finding("bn.shape", "BNStatsAggregate reads (n, mean, M2) triples: in elements % 3 == 0", "src", n_in,
                     "a multiple of 3")
        if n_out != 2:
            yield finding("bn.shape", "BNStatsAggregate writes mean and variance: 2 elements per partition", "dst", n_out,
                     "2")


@bundle_check("bn.counts", "the BNStats count words are (N + 1) >> 1 and N >> 1 of the src element count (float32)",
              "chapter §7.1 (BN)")
def _bn_counts(b: BundleView) -> Iterator[Finding]:
    import struct

    n = slot_elements(b, "src")
    for name, want in (("n_even", (n + 1) >> 1), ("n_odd", n >> 1)):
        bits = struct.unpack("<I", struct.pack("<f", float(want)))[0]
        if b.fields[name] != bits:
            yield finding("bn.counts", f"{name} must be {want}.0 for {n} src elements", name, b.fields[name], f"{bits:#x}")


ir_check("bn.equal_partitions", "BNStats / BNStatsAggregate src and dst have equal partition counts", "N-34",
         (BNStats, BNStatsAggregate))(equal_partitions("bn.equal_partitions", ("src", "dst")))


@bundle_check("tr.cross_flags", "the cross-lane flag is 0 or 1 and the 1/N word is non-zero exactly for average "
              "(the lane count: partitions.count, geometry.partitions)",
              "chapter §5.2, N-23")
def _cross_flags(b: BundleView) -> Iterator[Finding]:
    if b.fields["cross_lane"] > 1:
        yield finding("tr.cross_flags", "the cross-lane flag must be 0 or 1", "cross_lane", b.fields["cross_lane"], "0, 1")
    average = b.fields["command"] == 1
    if average != bool(b.fields["scale"]):
        yield finding("tr.cross_flags", "the 1/N word goes with average only", "scale", b.fields["scale"],
                 "non-zero for average, else 0")


@bundle_check("pool.scale", "the Pool scale word is 1.0 for Max and 1/(window) for Avg (window = the two innermost "
              "slots, N-24)", "chapter §5.4 (POOL)")
def _pool_scale(b: BundleView) -> Iterator[Finding]:
    window = PoolPacking.window([(b.fields[f"src.step{i}"], b.fields[f"src.num{i}"]) for i in range(4)],
                                b.decisions.get(FreeDimOrder))  # no dropping (N-24)
    want = 1.0 if b.fields["func"] != 2 else float(np.float32(1.0) / np.float32(max(window, 1)))
    bits = struct.unpack("<I", struct.pack("<f", want))[0]
    if b.fields["scale"] != bits:
        yield finding("pool.scale", f"scale must be {want!r}", "scale", b.fields["scale"], f"{bits:#x}")


@bundle_check("iota.pattern", "the Iota pattern holds as many elements as the dst (iota_same_src_dst_count)",
              "chapter §6")
def _iota_pattern(b: BundleView) -> Iterator[Finding]:
    n = math.prod(b.fields[f"pnum{i}"] for i in range(4))
    out = slot_elements(b, "dst")
    if n != out:
        yield finding("iota.pattern", f"the pattern has {n} elements, the dst {out}", "pattern", n, str(out))


ir_check("pool.equal_partitions", "Pool src and dst have equal partition counts", "N-34",
         (Pool,))(equal_partitions("pool.equal_partitions", ("src", "dst")))


@ir_check("pool.out_elements", "the Pool dst holds one element per window position (the outer input dims)",
          "chapter §5.4", (Pool,))
def _pool_out(inst: Instruction) -> Iterator[Finding]:
    src = tensor_ap(inst.ins[0] if inst.ins else None)
    out = elements(inst.outs[0] if inst.outs else None)
    if src is None or out is None or len(src.ap) < 3:
        return
    keep = math.prod(n for _s, n in src.ap[1:-2])
    if out != keep:
        yield Finding("pool.out_elements", f"dst has {out} elements per partition; the windows are {keep}", "dst", out,
                      str(keep))


@ir_check("iota.count", "the Iota pattern's element count equals the dst's elements per partition", "chapter §6",
          (Iota,))
def _iota_count(inst: Instruction) -> Iterator[Finding]:
    assert isinstance(inst, Iota)
    out = elements(inst.dst)
    try:
        n = math.prod(num for _s, num in inst.pattern_pairs())
    except (KeyError, TypeError, ValueError):
        return
    if out is not None and n != out:
        yield Finding("iota.count", f"the pattern has {n} elements, dst {out} per partition", "pattern", n, str(out))


vector("tr.opcode_class")(by_classes(_tr_class, "op"))


vector("tr.axis_byte")(by_classes(_tr_axis, "axis"))


vector("tr.flags")(by_classes(_tr_flags, "negate"))


vector("bn.shape")(with_slot_dims(_bn_shape))


vector("bn.counts")(with_slot_dims(_bn_counts, "n_even", "n_odd"))


vector("tr.cross_flags")(by_classes(_cross_flags, "cross_lane", "command", "scale"))


vector("pool.scale")(with_slot_dims(_pool_scale, "func", "scale", steps=True))


vector("iota.pattern")(with_slot_dims(_iota_pattern, *(f"pnum{i}" for i in range(4))))
