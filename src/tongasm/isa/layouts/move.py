"""The DVE data-movement layouts (the book's DMOV page, ``isa/dve-datamove-encoding.md``, read_file id
59678033298) as the real bundles show them: LoadMaskSelect 0x69, StreamShuffle 0x6A and
StreamTranspose 0x6B.

Every real bundle of these opcodes is in the yolox-trn1 corpus (neuronx-cc 2.14, sunda/gen2): 31,131
LoadMaskSelect, 327 StreamShuffle and 31,631 StreamTranspose bundles, all on the DVE stream. A field
is tagged V where every one of them fits it (per-byte statistics over the corpus,
``/work/notes/move.md``), C where only the book's store site speaks, I where neither does.

* **LoadMaskSelect 0x69** loads the engine's 32-lane mask and nothing else (R-50): +0x0C..+0x1F are
  zero, +0x20+i is lane i's byte (0..31 a lane, 0xFF "leave this lane alone", R-51). It comes right
  before the bundle that uses it (R-52), not after it as the book orders the pair.
* **StreamShuffle 0x6A** (the book calls this byte the 'stream_transpose half' of StreamShuffle; the
  master opcode table's name StreamShuffle is what it does): src and dst TENSOR4D at +0x0C / +0x2C,
  dtypes +0x20 / +0x21, num_active_channels at +0x22 (u32), +0x26..+0x2B zero. Each dst lane copies the
  src lane the loaded mask names (S-65).
* **StreamTranspose 0x6B**: the same band, and +0x26 says whether the loaded mask applies (R-53;
  the book's d3_transpose_ch). src 32 elements per partition (R-54), dst at most 32 (S-67).
"""

from __future__ import annotations

from ..decisions import DecisionSet
from ..descriptors import slot
from ..fields import Conf, Field, Slot
from ..layout import Binding, LanesText, Layout, Sem, IntText, aps
from ..opcodes import op
from .common import V, dtype, u32, zero_run

LOAD_MASK_SELECT = op(0x69, "LoadMaskSelect", "StreamShuffle", "tensor", Conf.V,
                      "load the DVE's 32-lane mask for the next StreamShuffle / StreamTranspose")
STREAM_SHUFFLE = op(0x6A, "StreamShuffle", "StreamShuffle", "tensor", Conf.V,
                    "dst lane i of each 32-partition quadrant = src lane mask[i] (0xFF: unmodified)")
STREAM_TRANSPOSE = op(0x6B, "StreamTranspose", "StreamTranspose", "tensor", Conf.V,
                      "dst[i, j] = src[j, i] within a 32 x 32 block (the lane mask selects the dst lanes)")

#: The lanes of a quadrant: the mask has one byte per lane.
LANES = 32
#: The lane byte that leaves its dst partition unmodified (R-51).
KEEP_LANE = 0xFF
#: The elements per partition of a StreamTranspose src (one per dst lane, R-54).
TRANSPOSE_SRC_ELEMENTS = 32

_ZERO_0X69 = "zero in all 31,131 real LoadMaskSelect bundles; the book puts a src AP here (R-50)"


def lane_fields() -> tuple[str, ...]:
    """The names of the mask's lane fields, lane 0 first."""
    return tuple(f"lane{i}" for i in range(LANES))


def load_mask_select(ds: DecisionSet) -> list[Layout]:
    """0x69: the mask and nothing else (R-50)."""
    lanes = tuple(
        Field(name, 0x20 + i, 1, conf=V, decision="R-51",
              doc=f"lane {i}'s byte: 0..31 names a lane (the src lane a StreamShuffle copies, S-65; on a "
                  f"StreamTranspose S-66), 0xFF = leave the lane alone (DMOV instr.immediate.uint8[{i}])")
        for i, name in enumerate(lane_fields()))
    return [Layout(
        "LoadMaskSelect", (LOAD_MASK_SELECT,),
        (*zero_run(0x0C, 0x14, V, _ZERO_0X69, decision="R-50"), *lanes),
        Sem.LOAD_LANE_MASK,
        (LanesText(name="mask", fields=lane_fields()),),
        checks=("dmov.mask_lanes",),
        doc="load the DVE's 32-lane mask (R-50, R-52): the next StreamShuffle / StreamTranspose reads it",
    )]


def _slots() -> tuple[Slot, Slot]:
    parts = "num_active_channels"
    return (slot("src", 0x0C, 4, dtype="src_dtype", conf=Conf.V, parts=parts),
            slot("dst", 0x2C, 4, dtype="dst_dtype", conf=Conf.V, write=True, parts=parts))


def _band() -> tuple[Field, ...]:
    return (
        dtype("src_dtype", 0x20, V, "wire(src dtype) (DMOV in_dtype; equal to dst_dtype in every real bundle)"),
        dtype("dst_dtype", 0x21, V, "wire(dst dtype) (DMOV out_dtype)"),
        u32("num_active_channels", 0x22, V, "partitions streamed: a multiple of the 32-lane quadrant (DMOV "
                                            "instr.num_active_channels; 32 in every real bundle)"),
    )


def stream_shuffle(ds: DecisionSet) -> list[Layout]:
    """0x6A: src / dst TENSOR4D, the dtypes and the channel count; the mask comes from the 0x69 before it."""
    slots = _slots()
    return [Layout(
        "StreamShuffle", (STREAM_SHUFFLE,),
        (*_band(), *zero_run(0x26, 6, V, "zero in all 327 real StreamShuffle bundles (DMOV: the shuffle's "
                                         "bundle leaves +0x26 zero)")),
        Sem.STREAM_SHUFFLE, tuple(aps(slots, "src")), slots,
        binding=Binding({"src": "src", "dst": "dst"}, None, dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("dmov.channels", "dmov.same_dtype", "dmov.shuffle_counts"),
        doc="each dst lane of every 32-partition quadrant copies the src lane the loaded mask names (S-65)",
    )]


def stream_transpose(ds: DecisionSet) -> list[Layout]:
    """0x6B: the StreamShuffle band plus the mask flag at +0x26 (R-53)."""
    slots = _slots()
    return [Layout(
        "StreamTranspose", (STREAM_TRANSPOSE,),
        (*_band(),
         Field("use_mask", 0x26, 1, conf=V, decision="R-53",
               doc="whether the loaded lane mask selects the dst lanes written (1, right after a LoadMaskSelect) "
                   "or every lane is written (0) (DMOV d3_transpose_ch)"),
         *zero_run(0x27, 5, V, "zero in all 31,631 real StreamTranspose bundles")),
        Sem.STREAM_TRANSPOSE,
        (*aps(slots, "src"), IntText(name="use_mask", field="use_mask").opt()),
        slots,
        binding=Binding({"src": "src", "dst": "dst"}, None, dtypes={"src_dtype": "src", "dst_dtype": "dst"}),
        checks=("dmov.channels", "dmov.same_dtype", "dmov.transpose_counts", "dmov.mask_flag"),
        doc="dst[i, j] = src[j, i] within each 32 x 32 block; with use_mask the loaded mask selects dst lanes "
            "(S-66, S-67)",
    )]


BUILDERS = (load_mask_select, stream_shuffle, stream_transpose)

__all__ = ["BUILDERS", "KEEP_LANE", "LANES", "LOAD_MASK_SELECT", "STREAM_SHUFFLE", "STREAM_TRANSPOSE",
           "TRANSPOSE_SRC_ELEMENTS", "lane_fields"]
