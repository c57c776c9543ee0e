"""Comparing a simulated output with its reference, under a tolerance derived from the dtypes and
the reduction length.

**The tolerance.** Let ``u`` be the unit roundoff of the narrowest floating dtype the graph's values
take (its HLO's float types and the NEFF's input and output dtypes: ``2**-24`` for float32,
``2**-11`` for float16, ``2**-8`` for bfloat16, ``2**-4`` / ``2**-3`` for the float8s), ``u_acc``
that of the sums (float32, ``2**-24``: the PE accumulates and the engines compute in float32, S-4
and S-41; a narrower HLO ``dot``/``convolution``/``reduce`` result type widens it), ``K`` the
longest reduction feeding the graph's outputs (the product of the contracted sizes of a ``dot``,
the kernel's elements per output feature of a ``convolution``, the reduced elements of a
``reduce`` or ``reduce-window``; 1 when there is none) and ``M = max |ref|`` over the output. The
reference is computed on the same (rounded) inputs. An element matches when::

    |sim - ref| <= 8 * u * |ref| + K * u_acc * M

the first term for the few roundings of an element-wise chain (a transcendental's approximation, a
final narrowing), the second the classic ``K u`` bound of a sum of ``K`` terms, taken norm-wise.
NaN matches NaN, an infinity only the same infinity.

**Bit-exact** when the maths is exact: an integer or boolean output, or a graph whose arithmetic on
floats is none (data movement, ``maximum``/``minimum``, ``compare``, ``select``, conversions that
widen or leave integers): then ``tol = 0`` and the bytes must be equal (``-0.0`` and ``0.0``
differ; any NaN equals any NaN).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: unit roundoff (half an ulp of 1) of each floating dtype, by numpy/ml_dtypes name
UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8,
                 "float8_e4m3fn": 2.0**-4, "float8_e4m3": 2.0**-4, "float8_e5m2": 2.0**-3, "float8_e3m4": 2.0**-5}
#: the element-wise term's multiple of u
ELEMENTWISE_ULPS = 8


def unit_roundoff(dtypes: Sequence[Any]) -> float:
    """The largest unit roundoff among the floating dtypes (0.0 when none is floating)."""
    us = [UNIT_ROUNDOFF[str(np.dtype(d).name) if not isinstance(d, str) else d] for d in dtypes
          if (str(np.dtype(d).name) if not isinstance(d, str) else d) in UNIT_ROUNDOFF]
    return max(us, default=0.0)


@dataclass(frozen=True)
class Tolerance:
    """``|sim - ref| <= ELEMENTWISE_ULPS * u * |ref| + k * u_acc * max|ref|``; ``exact``: the bytes must be equal."""

    u: float
    k: int
    exact: bool
    u_acc: float = 2.0**-24

    def describe(self) -> str:
        if self.exact:
            return "bit-exact"
        return (f"{ELEMENTWISE_ULPS}u|ref| + {self.k}u_acc max|ref|, u=2^{int(np.log2(self.u))}, "
                f"u_acc=2^{int(np.log2(self.u_acc))}")


@dataclass(frozen=True)
class Comparison:
    """One output: how far the simulation is from the reference."""

    name: str
    matched: bool
    max_error: float  # max |sim - ref| (inf when a NaN/inf pattern differs; 0 for exact equality)
    worst_ratio: float  # max over elements of |sim - ref| / allowed (0 when all equal)
    mismatches: int  # elements outside the tolerance
    size: int
    tolerance: Tolerance
    why: str = ""  # a shape or dtype mismatch


def compare(name: str, sim: np.ndarray, ref: np.ndarray, tol: Tolerance) -> Comparison:
    """Compare ``sim`` with ``ref`` (same shape; ``sim`` already in ``ref``'s dtype)."""
    if sim.shape != ref.shape:
        return Comparison(name, False, float("inf"), float("inf"), sim.size, ref.size, tol,
                          f"shape {list(sim.shape)} vs the reference's {list(ref.shape)}")
    exact = tol.exact or not np.issubdtype(ref.dtype, np.floating) and ref.dtype.kind != "V" and \
        str(ref.dtype) not in UNIT_ROUNDOFF
    if exact:
        if np.issubdtype(ref.dtype, np.floating) or str(ref.dtype) in UNIT_ROUNDOFF:
            s64, r64 = sim.astype(np.float64), ref.astype(np.float64)
            both_nan = np.isnan(s64) & np.isnan(r64)
            isz = ref.dtype.itemsize
            view = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[isz]
            bad = (np.ascontiguousarray(sim).view(view) != np.ascontiguousarray(ref).view(view)) & ~both_nan
            diff = np.where(both_nan, 0.0, np.abs(s64 - r64))
        else:
            bad = sim != ref
            diff = np.abs(sim.astype(np.float64) - ref.astype(np.float64))
        n = int(np.count_nonzero(bad))
        err = float(np.nanmax(np.where(bad, diff, 0.0))) if diff.size else 0.0
        if n and err == 0.0:  # -0.0 vs 0.0, or bits differing in a way the values hide
            err = float(np.finfo(np.float32).tiny)
        return Comparison(name, n == 0, err, float("inf") if n else 0.0, n, ref.size, tol)
    s64, r64 = sim.astype(np.float64), ref.astype(np.float64)
    finite = np.isfinite(r64)
    m = float(np.max(np.abs(r64[finite]))) if finite.any() else 0.0
    allowed = ELEMENTWISE_ULPS * tol.u * np.abs(r64) + tol.k * tol.u_acc * m
    special_ok = (np.isnan(s64) & np.isnan(r64)) | (np.isinf(r64) & (s64 == r64))
    diff = np.abs(s64 - r64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(special_ok, 0.0, np.where(allowed > 0, diff / np.where(allowed > 0, allowed, 1.0),
                                                   np.where(diff == 0, 0.0, np.inf)))
    ratio = np.where(np.isnan(ratio), np.inf, ratio)
    bad = ratio > 1.0
    errs = np.where(special_ok, 0.0, np.where(np.isnan(diff), np.inf, diff))
    return Comparison(name, not bad.any(), float(errs.max()) if errs.size else 0.0,
                      float(ratio.max()) if ratio.size else 0.0, int(np.count_nonzero(bad)), ref.size, tol)


__all__ = ["ELEMENTWISE_ULPS", "UNIT_ROUNDOFF", "Comparison", "Tolerance", "compare", "unit_roundoff"]
