"""What the DVE search bundles do, read from their decoded fields: Max8 0x6C writes the 8 largest
values of each partition (compared in fp32, NKI), MatchValueLoad 0x6D latches 8 values per lane on
its engine, MatchReplace8 0x6F writes its data with the latched values struck out by the immediate.
The order Max8 writes (S-70) and which elements a match strikes (S-71) are decisions."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...isa.decisions.search import MatchReplaceOccurrence, Max8Order
from ...isa.layout import Sem
from .. import numeric
from ..context import Ctx, _flat, _store
from ..machine import SimError

#: the key of MatchValueLoad's latch in the engine state
LATCH = "match_values"


def _f32_word(bits: int) -> np.float32:
    return np.array([bits & 0xFFFFFFFF], np.uint32).view(np.float32)[0]


def _values(c: Ctx, slot: str) -> np.ndarray:
    view, w = c.ap(slot)
    return numeric.to_fp32(_flat(np.ascontiguousarray(view)), w).astype(np.float32)


def max8(c: Ctx) -> None:
    """S-70: the 8 largest of each partition, smallest first along dst (the real -1 step makes memory
    descending, as NKI documents) or, under S-70=descending, largest first."""
    x = _values(c, "src")
    dst, wd = c.ap("dst")
    P = x.shape[0]
    if x.shape[1] < 8 or dst.size != 8 * P:
        raise SimError(f"{c.where()}: Max8 needs >= 8 src elements and 8 dst elements per partition "
                       f"(src {x.shape[1]}, dst {dst.size // max(P, 1)})")
    top = np.sort(x, axis=1, kind="stable")[:, -8:]  # ascending; NaN sorts last (largest)
    if c.ds.get(Max8Order).largest_first:
        top = top[:, ::-1]
    _store(dst, numeric.from_fp32(top, wd))


def match_value_load(c: Ctx) -> None:
    """Latch the 8 values of each lane (in fp32) for the next MatchReplace8 of this engine."""
    vals = _values(c, "src")
    if vals.shape[1] != 8:
        raise SimError(f"{c.where()}: MatchValueLoad loads 8 values per partition, its src has {vals.shape[1]}")
    c.m.engines[c.engine].latched[LATCH] = vals


def match_replace(c: Ctx) -> None:
    """S-71: each latched value strikes the first not yet struck equal element of its lane (or, under
    S-71=all-equal, every equal element); struck elements become the float32 immediate."""
    vals = c.m.engines[c.engine].latched.get(LATCH)
    if vals is None:
        raise SimError(f"{c.where()}: MatchReplace8 with no MatchValueLoad before it on {c.engine}")
    x = _values(c, "src")
    dst, wd = c.ap("dst")
    P = x.shape[0]
    if vals.shape[0] != P:
        raise SimError(f"{c.where()}: MatchReplace8 runs on {P} partitions, the last MatchValueLoad latched "
                       f"{vals.shape[0]}")
    if dst.size != x.size:
        raise SimError(f"{c.where()}: dst has {dst.size} elements, src {x.size}")
    if c.ds.get(MatchReplaceOccurrence).first_only:
        struck = np.zeros(x.shape, dtype=bool)
        for p in range(P):
            for v in vals[p, ::-1]:  # NKI: the values are processed 7..0
                hits = np.flatnonzero((x[p] == v) & ~struck[p])
                if hits.size:
                    struck[p, hits[0]] = True
    else:
        struck = (x[:, :, None] == vals[:, None, :]).any(axis=2)
    out = np.where(struck, _f32_word(c.f["imm"]), x)
    _store(dst, numeric.from_fp32(out, wd))


SEARCH_HANDLERS: dict[Sem, Callable[[Ctx], None]] = {
    Sem.MAX8: max8,
    Sem.MATCH_VALUE_LOAD: match_value_load,
    Sem.MATCH_REPLACE: match_replace,
}

__all__ = ["LATCH", "SEARCH_HANDLERS"]
