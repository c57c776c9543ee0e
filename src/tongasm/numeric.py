"""Numeric helpers shared by codegen and the simulator: dtypes as numpy types, bit patterns.

Immediates are written on the wire as the bit pattern of their value in some dtype (D-23: floats
are bit-cast to IEEE bits). :func:`bit_pattern` does that conversion and refuses values that do
not fit instead of wrapping them.

``ml_dtypes`` (bfloat16 and the fp8 types) is imported only when one of its types is asked for: its
import costs more CPU than numpy's, and most commands (disasm, check, asm of float32 code) never
convert such a value.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from .errors import InputError, brief_int
from .isa.enums import DTYPE_INFO, FLOAT_DTYPES, INTEGER_DTYPES, PACKED_DTYPES, Dtype


class NumericError(InputError, ValueError):
    """A value that cannot be represented in the requested dtype."""


def signed(v: int, bits: int) -> int:
    """The two's-complement value of the low ``bits`` bits of ``v`` (a register, a semaphore count or
    a wait value read as the signed word it is)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


@cache
def numpy_dtype(d: Dtype) -> np.dtype:
    """The numpy (or ml_dtypes) dtype of a BIR dtype; packed types have none."""
    name = DTYPE_INFO[d].numpy_name
    if name is None:
        raise NumericError(f"{d.name} is a packed type with no element representation")
    if hasattr(np, name) and name not in ("float8_e4m3",):
        return np.dtype(getattr(np, name))
    import ml_dtypes  # only here: a bfloat16 / fp8 value is being converted

    return np.dtype(getattr(ml_dtypes, name))


def int_range(d: Dtype) -> tuple[int, int]:
    """Inclusive range of an integer dtype."""
    info = np.iinfo(numpy_dtype(d))
    return int(info.min), int(info.max)


def uint_view(size: int) -> np.dtype:
    return np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size])


_BITS_MEMO: dict[tuple[object, ...], int] = {}


def bit_pattern(value: int | float, d: Dtype) -> int:
    """The bit pattern of ``value`` stored in dtype ``d``, as a non-negative int.

    Integers must be integral and in range (two's complement for signed dtypes). Floats are
    rounded to nearest-even; a finite value that overflows to infinity or NaN is refused.
    Memoised (keyed on the value's type and sign too, so -0.0 and 0.0 stay apart).
    """
    key = (d, type(value), value, math.copysign(1.0, value) if isinstance(value, float) else 0)
    hit = _BITS_MEMO.get(key)
    if hit is not None:
        return hit
    bits = _bit_pattern(value, d)
    if len(_BITS_MEMO) < 65536:
        _BITS_MEMO[key] = bits
    return bits


def _bit_pattern(value: int | float, d: Dtype) -> int:
    if d in PACKED_DTYPES:
        raise NumericError(f"{d.name} is a packed type and cannot hold a scalar value")
    size = DTYPE_INFO[d].size
    if d in INTEGER_DTYPES:
        if isinstance(value, float):
            if not math.isfinite(value) or not value.is_integer():
                raise NumericError(f"{value!r} is not an integer, so it cannot be a {d.name}")
            value = int(value)
        lo, hi = int_range(d)
        if not lo <= value <= hi:
            raise NumericError(f"{brief_int(value)} does not fit {d.name} (range {lo}..{hi})")
        return value & ((1 << (8 * size)) - 1)
    if d in FLOAT_DTYPES:
        nt = numpy_dtype(d)
        with np.errstate(over="ignore", invalid="ignore"):
            arr = np.array([value], dtype=np.float64).astype(nt)
        back = float(arr.astype(np.float64)[0])
        if math.isfinite(float(value)) and not math.isfinite(back):
            raise NumericError(f"{value!r} overflows {d.name}")
        if d == Dtype.float8_e8m0fnu and float(value) <= 0:
            raise NumericError(f"{value!r} cannot be represented in {d.name} (positive powers of two only)")
        return int(arr.view(uint_view(size))[0])
    raise NumericError(f"unsupported dtype {d!r}")


def value_of_bits(bits: int, d: Dtype) -> int | float:
    """Inverse of :func:`bit_pattern`: the value a bit pattern holds in dtype ``d``."""
    size = DTYPE_INFO[d].size
    arr = np.array([bits & ((1 << (8 * size)) - 1)], dtype=uint_view(size)).view(numpy_dtype(d))
    v = arr[0]
    if d in INTEGER_DTYPES:
        return int(v)
    return float(v)
