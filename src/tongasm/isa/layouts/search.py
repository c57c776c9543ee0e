"""DVE search layouts (the book's ``dve-search-encoding`` page, checked against every real bundle):
Max8 0x6C (the running top-8 of each partition), MatchValueLoad 0x6D (latch 8 values per partition
for the next match) and MatchReplace8 0x6F (strike the latched values in the data with an
immediate). The real compiler issues them as a top-k fold: Max8, then MatchValueLoad of its output
and MatchReplace8 of the data with -inf, then Max8 again (yolox ``AwsNeuronTopK`` graphs).

What the real bytes settled (14 Max8, 7 MatchValueLoad, 7 MatchReplace8 distinct bundles of the
yolox-trn1 corpus, neuronx-cc 2.14): +0x22 is the partition count on all three (the book: the
source's element count; it is 0x3B / 0x0C / 0x09 ... where the sources hold 929 / 257 / 221
elements); MatchValueLoad's source descriptor is a plain ascending TENSOR2D with the {1, 1} fill
(the book: a negated step and a zero second step); Max8's destination is the book's: start at the
last of the 8 elements, step -1, the unused dim {0, 1}.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..decisions import DecisionSet
from ..decisions.spec import FreeDimOrder
from ..descriptors import packing, slot
from ..enums import WireDtype
from ...errors import EncodeError
from ..fields import Conf, Slot
from ..layout import Binding, BirForm, ImmText, Layout, Sem, aps
from ..opcodes import op
from .common import V, dtype, u8, u32, zero_run

MAX8 = op(0x6C, "Max8", "Max", "tensor", Conf.V, "the 8 largest values of each partition (fp32 compare)")
MATCH_VALUE_LOAD = op(0x6D, "MatchValueLoad", "MatchReplace", "tensor", Conf.V,
                      "latch 8 values per partition for the next MatchReplace8 (co-issued, no BIR form of its own)")
MATCH_REPLACE8 = op(0x6F, "MatchReplace8", "MatchReplace", "tensor", Conf.V,
                    "dst = src with the first occurrence of each latched value replaced by an immediate")

#: provenance of the bytes no source gives a meaning to
_ZERO = "zero in every real bundle (yolox-trn1); the book: zero-initialised, never written"
_PARTS = ("partitions of the source: V on every real bundle (the book's 'lane = element count' reading is "
          "contradicted by all of them)")
_F32 = int(WireDtype.FLOAT32)


@packing("last-element-backwards")
def pack_backwards(ds: DecisionSet, s: Slot, addr: int, free: Sequence[tuple[int, int]], esize: int,
                   role: str) -> tuple[int, ...]:
    """Max8's destination as the real encoder writes it (visitInstMax: 'negated'; all 14 distinct real
    bundles): the pattern's one free dim {step, n} becomes the start at its last element and step -step,
    the unused dim the slot's fill ({0, 1})."""
    kept = [p for p in free if p[1] != 1]
    if len(kept) > 1:
        raise EncodeError(f"Illegal ISA memory access dimension {len(kept)}, which must be in range of [1, 1]D "
                          "tensor for the Max8 destination", field=f"{role}.ap", value=len(kept), limit="1..1",
                          check="desc.active_dims")
    step, n = kept[0] if kept else (1, 1)
    dims = ds.get(FreeDimOrder).to_slots([(-step, n)]) + [s.fill] * (s.ndims - 1)
    return (addr + (n - 1) * step * esize, *[d[0] for d in dims], *[d[1] for d in dims])


def max8(ds: DecisionSet) -> list[Layout]:
    """0x6C Max8 (struct S4D2_BN): TENSOR4D source at +0x0C, the 8-element TENSOR2D destination at
    +0x30 written from its last element backwards (step -1, the unused dim {0, 1})."""
    slots = (slot("src", 0x0C, 4, dtype="src_dtype", conf=V),
             slot("dst", 0x30, 2, dtype="dst_dtype", write=True, conf=V, fill=(0, 1), packing="last-element-backwards",
                  doc="8 values per partition; the real encoder starts at the last one with step -1"))
    return [Layout(
        "Max8", (MAX8,),
        (
            dtype("src_dtype", 0x20, V, "wire(src dtype) (book: in_dtype)"),
            dtype("dst_dtype", 0x21, V, "wire(dst dtype) (book: out_dtype)"),
            u8("num_partitions", 0x22, V, _PARTS),
            *zero_run(0x23, 0x0D, V, _ZERO),
            *zero_run(0x3C, 0x04, V, _ZERO + " (d2_bn_reserved_z)"),
        ),
        Sem.MAX8, tuple(aps(slots, "src")), slots,
        binding=Binding({"src": "src", "dst": "dst"}, "src", dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        bir=BirForm("Max", ins=("src",), outs=("dst",)),
        checks=("search.eight",),
        doc="the 8 largest values of each partition of src (compared in fp32) into dst (S-70 says their order)",
    )]


def match_value_load(ds: DecisionSet) -> list[Layout]:
    """0x6D MatchValueLoad: one TENSOR2D source at +0x10 (8 values per partition), no destination."""
    slots = (slot("src", 0x10, 2, dtype="src_dtype", conf=V),)
    return [Layout(
        "MatchValueLoad", (MATCH_VALUE_LOAD,),
        (
            *zero_run(0x0C, 0x04, V, _ZERO),
            *zero_run(0x1C, 0x04, V, _ZERO),
            dtype("src_dtype", 0x20, V, "wire(dtype of the 8 values) (book: in_dtype)"),
            *zero_run(0x21, 0x01, V, "no out dtype (book, C): zero in every real bundle"),
            u8("num_partitions", 0x22, V, _PARTS),
            *zero_run(0x23, 0x1D, V, _ZERO),
        ),
        Sem.MATCH_VALUE_LOAD, tuple(aps(slots, "src")), slots,
        binding=Binding({"src": "vals"}, "vals", dtypes={"src_dtype": "vals"}),
        checks=("search.eight",),
        doc="latch the 8 values of each partition for the next MatchReplace8 of this engine",
    )]


def match_replace8(ds: DecisionSet) -> list[Layout]:
    """0x6F MatchReplace8 (struct D4_MR): TENSOR4D data at +0x0C, the float32 replacement at +0x28,
    the TENSOR4D result at +0x2C (in place in every real bundle)."""
    slots = (slot("src", 0x0C, 4, dtype="src_dtype", conf=V),
             slot("dst", 0x2C, 4, dtype="dst_dtype", write=True, conf=V))
    return [Layout(
        "MatchReplace8", (MATCH_REPLACE8,),
        (
            dtype("src_dtype", 0x20, V, "wire(data dtype) (book: in_dtype / match_replace_dtype)"),
            dtype("dst_dtype", 0x21, V, "wire(result dtype) (book: out_dtype)"),
            u8("num_partitions", 0x22, V, _PARTS),
            *zero_run(0x23, 0x05, V, _ZERO + " (d4_mr_reserved_zero)"),
            u32("imm", 0x28, V, "float32 replacement value (-inf, 0xFF800000, in every real bundle; book C)"),
        ),
        Sem.MATCH_REPLACE, (*aps(slots, "src"), ImmText(name="imm", field="imm", fixed_dtype=_F32)), slots,
        binding=Binding({"src": "data", "dst": "dst"}, "data", dtypes={"src_dtype": "data", "dst_dtype": "dst"}),
        checks=("family.equal_elements",),
        doc="dst = src with the first occurrence of each latched value (MatchValueLoad) replaced by imm (S-71)",
    )]


BUILDERS = (max8, match_value_load, match_replace8)
