"""What the DVE data-movement bundles do: LoadMaskSelect 0x69, StreamShuffle 0x6A, StreamTranspose 0x6B
(layouts in :mod:`tongasm.isa.layouts.move`).

LoadMaskSelect loads the engine's 32-lane mask (R-52, S-68); StreamShuffle copies whole partitions
within each 32-partition quadrant as the mask says (S-65); StreamTranspose transposes partitions and
free elements within a 32 x 32 block, the mask selecting the dst lanes when its flag is set (R-53,
S-66, S-67). Both move bits: src and dst must have the same dtype (a bundle that converts stops the
simulator, as does one that reads a mask before any was loaded).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.move import TransposeMask
from ...isa.layout import Sem
from ...isa.layouts.move import KEEP_LANE, LANES, lane_fields
from ..context import Ctx
from ..machine import SimError


def load_lane_mask(c: Ctx) -> None:
    """0x69: the engine keeps the 32 lane bytes until the next LoadMaskSelect (S-68)."""
    c.m.engines[c.engine].lane_mask = tuple(c.f[name] for name in lane_fields())


def _mask(c: Ctx) -> tuple[int, ...]:
    mask = c.m.engines[c.engine].lane_mask
    if mask is None:
        raise SimError(f"{c.where()}: reads the lane mask, but no LoadMaskSelect (0x69) has loaded one on the "
                       f"{c.engine} engine (R-52, S-68)")
    return mask


def _quadrants(c: Ctx) -> int:
    ch = c.f["num_active_channels"]
    if ch < LANES or ch % LANES:
        raise SimError(f"{c.where()}: num_active_channels {ch} is not a whole number of {LANES}-lane quadrants")
    return ch // LANES


def _views(c: Ctx) -> tuple[np.ndarray, np.ndarray]:
    """(src rows, dst view): src flattened per partition (a copy: the dst may be the src), dst as is."""
    src, ws = c.ap("src")
    dst, wd = c.ap("dst")
    if ws != wd:
        raise SimError(f"{c.where()}: src dtype {ws:#x} and dst dtype {wd:#x} differ; a data movement that "
                       f"converts is not modelled")
    return src.reshape(src.shape[0], -1).copy(), dst


def stream_shuffle(c: Ctx) -> None:
    """0x6A, S-65: dst partition 32q+i = src partition 32q+mask[i] for every lane whose byte is not 0xFF."""
    mask = _mask(c)
    rows, dst = _views(c)
    if rows.shape[1] != dst[0].size:
        raise SimError(f"{c.where()}: src has {rows.shape[1]} elements per partition, dst {dst[0].size}")
    for q in range(_quadrants(c)):
        for lane, pick in enumerate(mask):
            if pick == KEEP_LANE:
                continue
            if pick >= LANES:
                raise SimError(f"{c.where()}: lane {lane} names src lane {pick}, outside the quadrant")
            dst[q * LANES + lane][...] = rows[q * LANES + pick].reshape(dst[0].shape)


def stream_transpose(c: Ctx) -> None:
    """0x6B, S-67: dst[32q+i, j] = src[32q+j, i] (i < 32 lanes, j < the dst's elements per partition);
    with use_mask (R-53) the loaded mask selects the lanes written (S-66)."""
    rows, dst = _views(c)
    per_dst = dst[0].size
    if rows.shape[1] != LANES or not 1 <= per_dst <= LANES:
        raise SimError(f"{c.where()}: a transpose of src {rows.shape[1]} x dst {per_dst} elements per partition "
                       f"(the block is {LANES} x {LANES}: src {LANES}, dst 1..{LANES})")
    mask = _mask(c) if c.f["use_mask"] else None
    lane_index = c.ds.get(TransposeMask).lane_index
    for q in range(_quadrants(c)):
        block = rows[q * LANES:q * LANES + per_dst]  # src partitions j = 0..per_dst-1, 32 elements each
        cols = block.T  # cols[i] = the elements of lane i: src[j, i] for every j
        for lane in range(LANES):
            pick = lane
            if mask is not None:
                if mask[lane] == KEEP_LANE:
                    continue
                if lane_index:
                    pick = mask[lane]
                    if pick >= LANES:
                        raise SimError(f"{c.where()}: lane {lane} names column {pick}, outside the block")
            dst[q * LANES + lane][...] = cols[pick].reshape(dst[0].shape)


#: The handlers of this family (merged into :data:`tongasm.sim.execute.HANDLERS`).
MOVE_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.LOAD_LANE_MASK: load_lane_mask,
    Sem.STREAM_SHUFFLE: stream_shuffle,
    Sem.STREAM_TRANSPOSE: stream_transpose,
}
