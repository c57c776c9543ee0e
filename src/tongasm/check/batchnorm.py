"""Checks of the batch-norm backward family (0x63, 0x64): the element counts the book's verifier names
(ga_dst_element_cnt == 3, the 3-element packed coefficients, x and dy alike: ga_src_element_cnt_check).
Every real bundle passes them."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np

from ..isa.layouts.batchnorm import BN_GRAD_ACCUMULATE
from .bundle_checks import BundleView, bundle_check
from .registry import Finding
from .vectorized import Columns, by_classes, vector


def _elements(b: BundleView, slot: str) -> int:
    return math.prod(b.fields[k] for k in b.fmt.slots[slot].num_keys)


@bundle_check("bn.backward_shape", "BatchNormGradAccumulate writes 3 elements per partition from x and dy of equal "
              "counts; BatchNormParamLoad reads 3 coefficients", "batchnorm-encoding (ga_dst_element_cnt, "
              "ga_src_element_cnt_check, the 3-element [scale, A, Bc])")
def _backward_shape(b: BundleView) -> Iterator[Finding]:
    if b.opcode == BN_GRAD_ACCUMULATE.byte:
        n_out = _elements(b, "out")
        if n_out != 3:
            yield Finding("bn.backward_shape", "BatchNormGradAccumulate writes 3 sums per partition", "out", n_out, "3")
        nx, ndy = _elements(b, "x"), _elements(b, "dy")
        if nx != ndy:
            yield Finding("bn.backward_shape", "x and dy have different element counts per partition", "dy", ndy,
                          str(nx))
    else:
        n = _elements(b, "coeff")
        if n != 3:
            yield Finding("bn.backward_shape", "BatchNormParamLoad reads [scale, A, Bc] per partition", "coeff", n, "3")


def _backward_shape_vector(c: Columns) -> np.ndarray:
    dims = [k for sl in c.fmt.slots.values() for k in sl.num_keys]
    return by_classes(_backward_shape, *dims)(c)


vector("bn.backward_shape")(_backward_shape_vector)
