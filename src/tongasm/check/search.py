"""Checks of the DVE search family (Max8 0x6C, MatchValueLoad 0x6D): the element counts the book's
encoder asserts (visitInstMax: the destination holds 8 elements per partition, the source 8..16384;
the MatchValueLoad source the 8 values to match). Every real bundle passes them."""

from __future__ import annotations

import math
from collections.abc import Iterator

from ..isa.layouts.search import MAX8
from .bundle_checks import BundleView, bundle_check
from .registry import Finding
from .vectorized import Columns, by_classes, vector

import numpy as np

#: the book's bounds on Max8's source elements per partition (cmpl $0x7 / cmpl $0x4000)
SRC_MIN, SRC_MAX = 8, 16384


def _elements(b: BundleView, slot: str) -> int:
    return math.prod(b.fields[k] for k in b.fmt.slots[slot].num_keys)


@bundle_check("search.eight", "Max8 writes 8 elements per partition from 8..16384; MatchValueLoad reads 8",
              "dve-search-encoding (visitInstMax asserts, MatchValueLoad num_elem[0] = 8)")
def _eight(b: BundleView) -> Iterator[Finding]:
    if b.opcode == MAX8.byte:
        n_dst, n_src = _elements(b, "dst"), _elements(b, "src")
        if n_dst != 8:
            yield Finding("search.eight", "Max8 writes 8 elements per partition", "dst", n_dst, "8")
        if not SRC_MIN <= n_src <= SRC_MAX:
            yield Finding("search.eight", "Max8 reads 8..16384 elements per partition", "src", n_src,
                          f"{SRC_MIN}..{SRC_MAX}")
    else:
        n = _elements(b, "src")
        if n != 8:
            yield Finding("search.eight", "MatchValueLoad reads the 8 values to match per partition", "src", n, "8")


def _eight_vector(c: Columns) -> np.ndarray:
    dims = [k for sl in c.fmt.slots.values() for k in sl.num_keys]
    return by_classes(_eight, *dims)(c)


vector("search.eight")(_eight_vector)
