"""Checks of the DVE data-movement family (LoadMaskSelect 0x69, StreamShuffle 0x6A, StreamTranspose
0x6B; layouts in :mod:`tongasm.isa.layouts.move`).

Every rule here holds on all 63,089 real bundles of these opcodes (``tests/test_corpus_move.py``);
the book's rules the real bytes break are left out: its validator's
``instr.src_mem_pattern.num_elem[3] == 1`` for StreamTranspose (R-54) and the passthrough sentinel
of the mask (R-51).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..isa.layouts.move import KEEP_LANE, LANES, TRANSPOSE_SRC_ELEMENTS, lane_fields
from .bundle_checks import BundleView, bundle_check
from .registry import Finding
from .vectorized import by_classes, vector

#: The channel counts a shuffle or transpose may stream: whole 32-lane quadrants.
CHANNELS = tuple(LANES * q for q in range(1, 5))


def _elements(b: BundleView, slot: str) -> int:
    return math.prod(b.fields[k] for k in b.fmt.slots[slot].num_keys)


@bundle_check("dmov.mask_lanes", "a lane mask byte names a lane of the quadrant (0..31) or is 0xFF (left alone)",
              "NKI nc_stream_shuffle, R-51")
def _mask_lanes(b: BundleView) -> Iterator[Finding]:
    for name in lane_fields():
        v = b.fields[name]
        if v >= LANES and v != KEEP_LANE:
            yield Finding("dmov.mask_lanes", f"{name} is {v:#04x}: neither a lane (0..31) nor 0xFF", name, v,
                          "0..31 or 0xff")


@bundle_check("dmov.channels", "num_active_channels is a whole number of 32-lane quadrants (32, 64, 96 or 128)",
              "NKI nc_stream_shuffle (32/64/96/128 partitions); DMOV has_valid_active_channel_range")
def _channels(b: BundleView) -> Iterator[Finding]:
    v = b.fields["num_active_channels"]
    if v not in CHANNELS:
        yield Finding("dmov.channels", f"num_active_channels is {v}, not a whole number of quadrants",
                      "num_active_channels", v, ", ".join(map(str, CHANNELS)))


@bundle_check("dmov.same_dtype", "src and dst have the same dtype (a data movement does not convert)",
              "NKI nc_stream_shuffle / nc_transpose ('dst must have same data type as src')")
def _same_dtype(b: BundleView) -> Iterator[Finding]:
    if b.fields["src_dtype"] != b.fields["dst_dtype"]:
        yield Finding("dmov.same_dtype", "src and dst dtypes differ", "dst_dtype", b.fields["dst_dtype"],
                      f"{b.fields['src_dtype']} (the src dtype)")


@bundle_check("dmov.shuffle_counts", "StreamShuffle src and dst have the same elements per partition",
              "NKI nc_stream_shuffle constraint 2; DMOV d4_tr_same_src_dst_count")
def _shuffle_counts(b: BundleView) -> Iterator[Finding]:
    src, dst = _elements(b, "src"), _elements(b, "dst")
    if src != dst:
        yield Finding("dmov.shuffle_counts", f"src has {src} elements per partition, dst {dst}", "dst", dst,
                      str(src))


@bundle_check("dmov.transpose_counts", "StreamTranspose src has 32 elements per partition (one per dst lane) and "
              "the dst 1..32 (one per src partition)", "NKI nc_transpose (Vector engine: 32 x 32 at most), R-54")
def _transpose_counts(b: BundleView) -> Iterator[Finding]:
    src, dst = _elements(b, "src"), _elements(b, "dst")
    if src != TRANSPOSE_SRC_ELEMENTS:
        yield Finding("dmov.transpose_counts", f"src has {src} elements per partition", "src", src,
                      str(TRANSPOSE_SRC_ELEMENTS))
    if not 1 <= dst <= LANES:
        yield Finding("dmov.transpose_counts", f"dst has {dst} elements per partition", "dst", dst, f"1..{LANES}")


@bundle_check("dmov.mask_flag", "the StreamTranspose mask flag (+0x26) is 0 or 1", "R-53")
def _mask_flag(b: BundleView) -> Iterator[Finding]:
    if b.fields["use_mask"] not in (0, 1):
        yield Finding("dmov.mask_flag", "use_mask is neither 0 nor 1", "use_mask", b.fields["use_mask"], "0, 1")


def _dims(slot: str) -> tuple[str, ...]:
    return tuple(f"{slot}.num{i}" for i in range(4))


vector("dmov.mask_lanes")(by_classes(_mask_lanes, *lane_fields()))
vector("dmov.channels")(by_classes(_channels, "num_active_channels"))
vector("dmov.same_dtype")(by_classes(_same_dtype, "src_dtype", "dst_dtype"))
vector("dmov.shuffle_counts")(by_classes(_shuffle_counts, *_dims("src"), *_dims("dst")))
vector("dmov.transpose_counts")(by_classes(_transpose_counts, *_dims("src"), *_dims("dst")))
vector("dmov.mask_flag")(by_classes(_mask_flag, "use_mask"))
