"""The numeric kernels: element types, conversions, ALU ops, the register ALU and xorwow.

These are the only code the bundle simulator and the IR reference interpreter share. Everything
is vectorised with numpy and ml_dtypes and keyed by *wire* dtype tags (what a bundle carries;
the interpreter maps its BIR dtypes through the spec's LUT). Each rule cites its S-n decision
(:mod:`tongasm.isa.decisions.semantics`).
"""

from __future__ import annotations

from functools import cache

import ml_dtypes
import numpy as np

from ..errors import InputError
from ..numeric import signed
from ..isa.enums import ALU_WIRE, AluClass, AluOp

# --- element types (S-3) -------------------------------------------------------------------------

_WIRE_NP = {
    1: np.uint64, 2: np.int8, 3: np.uint8, 4: np.int16, 5: np.uint16, 6: ml_dtypes.bfloat16, 7: np.float16,
    8: np.int32, 9: np.uint32, 10: np.float32, 11: np.float32, 12: np.int64,
    13: ml_dtypes.float8_e3m4, 14: ml_dtypes.float8_e4m3fn, 15: ml_dtypes.float8_e5m2,
}
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_SINT = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}


class NumericError(InputError, ValueError):
    """A value or dtype the kernels cannot handle (e.g. an unknown wire dtype)."""


@cache
def element_type(w: int) -> np.dtype:
    """S-3: the numpy element type a wire dtype computes as."""
    t = _WIRE_NP.get(w)
    if t is None:
        raise NumericError(f"wire dtype {w} has no element type on gen2/gen3")
    return np.dtype(t)


def size_of(w: int) -> int:
    return element_type(w).itemsize


def is_int(w: int) -> bool:
    return element_type(w).kind in "iu"


def is_signed(w: int) -> bool:
    return element_type(w).kind == "i"


def bits_view(x: np.ndarray) -> np.ndarray:
    """The raw bits of an array as unsigned integers of the same width."""
    return x.view(_UINT[x.dtype.itemsize])


# --- conversions (S-1, S-2) --------------------------------------------------------------------------

_F32 = np.dtype(np.float32)


def to_fp32(x: np.ndarray, w: int) -> np.ndarray:
    """Values of a storage array (element type of ``w``) as float32 (no copy when already float32)."""
    x = np.asarray(x)
    return x if x.dtype == _F32 else x.astype(np.float32)


def from_fp32(y: np.ndarray, w: int) -> np.ndarray:
    """float32 values → storage of wire dtype ``w`` (S-1 for integers, S-2 for floats)."""
    t = element_type(w)
    y = np.asarray(y, dtype=np.float32)
    if t == _F32:
        return y if y.flags.owndata else y.copy()
    if t.kind in "iu":
        info = np.iinfo(t)
        with np.errstate(invalid="ignore"):
            z = np.trunc(y.astype(np.float64))
        z = np.nan_to_num(z, nan=0.0, posinf=float(info.max), neginf=float(info.min))
        return np.clip(z, info.min, info.max).astype(t)
    if w in (13, 14, 15):  # S-2: fp8 saturates to its largest finite value
        fmax = float(ml_dtypes.finfo(t).max)
        y = np.clip(y, -fmax, fmax)
    with np.errstate(over="ignore", invalid="ignore"):
        return y.astype(t)


def convert(x: np.ndarray, w_from: int, w_to: int) -> np.ndarray:
    """A copy (same wire dtype: bit-exact) or a cast through the fp32 hub (different)."""
    if w_from == w_to:
        return np.array(x, dtype=element_type(w_to), copy=True)
    return from_fp32(to_fp32(x, w_from), w_to)


def wrap_int(z: np.ndarray, w: int) -> np.ndarray:
    """int64 values → integer wire dtype ``w`` by two's-complement wrap (the integer path, S-4)."""
    t = element_type(w)
    bits = t.itemsize * 8
    u = z.astype(np.int64).view(np.uint64) & np.uint64((1 << bits) - 1 if bits < 64 else 0xFFFFFFFFFFFFFFFF)
    return u.astype(_UINT[t.itemsize]).view(t)


def as_int64(x: np.ndarray) -> np.ndarray:
    """Integer storage → int64 values (uint64 wraps into int64 bit patterns)."""
    if x.dtype == np.uint64:
        return x.view(np.int64)
    return x.astype(np.int64)


# --- scratch arrays ----------------------------------------------------------------------------------

_SCRATCH: dict[tuple[str, tuple[int, ...], np.dtype], np.ndarray] = {}


@cache
def _half_table(t: np.dtype) -> np.ndarray:
    """Every 2-byte value of float type ``t`` (its bits as the index) as float32, converted by numpy's cast."""
    return np.arange(1 << 16, dtype=np.uint16).view(t).astype(np.float32)


def copy_to_float32(out: np.ndarray, x: np.ndarray) -> None:
    """``np.copyto(out, x, casting="unsafe")`` for a float32 ``out``, the same bits (NaN payloads too):
    a 2-byte float ``x`` (fp16, bf16) is looked up in a table of numpy's own casts of all 65,536 values,
    ~1.5x faster than numpy's fp16 -> float32 cast loop on this machine (it has no SIMD path there)."""
    if x.dtype.itemsize == 2 and x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16:
        np.take(_half_table(x.dtype), x.view(np.uint16), out=out)  # a gather: no float arithmetic, no fp errors
        return
    np.copyto(out, x, casting="unsafe")


def scratch(name: str, shape: tuple[int, ...], t: np.dtype) -> np.ndarray:
    """A reusable array (contents undefined) for a kernel's intermediate ``name``: a fresh 512 KiB array is
    mapped and page-faulted anew each time (glibc maps large blocks), which costs as much as the float64
    product it holds. The caller must be done with it before it asks for the same name again."""
    key = (name, shape, t)
    a = _SCRATCH.get(key)
    if a is None:
        if len(_SCRATCH) >= 64:
            _SCRATCH.clear()
        a = _SCRATCH[key] = np.empty(shape, dtype=t)
    return a


# --- elementwise ALU (S-4..S-9) --------------------------------------------------------------------

def alu_class(op: AluOp) -> AluClass:
    return ALU_WIRE[op][1]


_BOOL_OPS = {AluOp.logical_and, AluOp.logical_or, AluOp.logical_xor, AluOp.is_equal, AluOp.not_equal,
             AluOp.is_gt, AluOp.is_ge, AluOp.is_lt, AluOp.is_le}


def _bool_op(op: AluOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if op == AluOp.logical_and:
        return (a != 0) & (b != 0)
    if op == AluOp.logical_or:
        return (a != 0) | (b != 0)
    if op == AluOp.logical_xor:
        return (a != 0) ^ (b != 0)
    return {AluOp.is_equal: np.equal, AluOp.not_equal: np.not_equal, AluOp.is_gt: np.greater,
            AluOp.is_ge: np.greater_equal, AluOp.is_lt: np.less, AluOp.is_le: np.less_equal}[op](a, b)


#: The float32 ALU ops that are one numpy ufunc (also used to write straight into an output view).
_UFUNCS = {AluOp.add: np.add, AluOp.subtract: np.subtract, AluOp.mult: np.multiply, AluOp.divide: np.divide,
           AluOp.max: np.maximum, AluOp.min: np.minimum, AluOp.pow: np.power, AluOp.mod: np.fmod}


def fold_ufunc(op: AluOp) -> np.ufunc | None:
    """The numpy ufunc whose float32 ``accumulate`` is the sequential float32 left fold
    ``acc = OP(acc, x)`` that :func:`tensor_tensor` computes one step at a time on float32 operands
    (the arithmetic ops of :data:`_UFUNCS`, each step rounded to float32), or None (bypass, pow, the
    comparison and bit-vector ops: the step-by-step path)."""
    if op not in _UFUNCS or alu_class(op) == AluClass.BITVEC or op == AluOp.pow:
        # pow: numpy's power.accumulate and its elementwise power give NaNs of different signs (numpy 2.4:
        # 0x7FC00000 against 0xFFC00000 for a negative base and a fractional exponent), so a pow fold takes
        # the step path, which is the S-22 fold by definition
        return None
    return _UFUNCS[op]


def _float_op(op: AluOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == AluOp.bypass:
            return a
        ufunc = _UFUNCS.get(op)
        if ufunc is not None:
            return ufunc(a, b)
        if op == AluOp.rsqrt:
            return np.float32(1) / np.sqrt(a)
        if op == AluOp.abs:
            return np.abs(a)
    raise NumericError(f"ALU op {op.name} is not an arithmetic op")


def _int_op(op: AluOp, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """int64 arithmetic (S-7: truncating division, C remainder, x/0 = x%0 = 0)."""
    if op == AluOp.bypass:
        return a
    if op == AluOp.add:
        return a + b
    if op == AluOp.subtract:
        return a - b
    if op == AluOp.mult:
        return a * b
    if op in (AluOp.divide, AluOp.mod):
        safe = np.where(b == 0, 1, b)
        q = np.abs(a) // np.abs(safe) * np.sign(a) * np.sign(safe)
        r = a - q * safe
        return np.where(b == 0, 0, q if op == AluOp.divide else r)
    if op == AluOp.max:
        return np.maximum(a, b)
    if op == AluOp.min:
        return np.minimum(a, b)
    if op == AluOp.abs:
        return np.abs(a)
    if op == AluOp.pow:
        return np.where(b < 0, 0, np.power(a, np.maximum(b, 0)))
    if op == AluOp.rsqrt:
        with np.errstate(all="ignore"):
            r = np.where(a > 0, 1.0 / np.sqrt(np.maximum(a, 1).astype(np.float64)), 0.0)
        return r.astype(np.int64)
    raise NumericError(f"ALU op {op.name} is not an arithmetic op")


def _bitvec_op(op: AluOp, a: np.ndarray, wa: int, b: np.ndarray, wb: int) -> np.ndarray:
    """S-6: raw bits, unsigned, each input at its own width; results as uint64."""
    ua = bits_view(np.ascontiguousarray(a)).astype(np.uint64)
    ub = bits_view(np.ascontiguousarray(b)).astype(np.uint64)
    width = size_of(wa) * 8
    mask = np.uint64((1 << width) - 1) if width < 64 else np.uint64(0xFFFFFFFFFFFFFFFF)
    if op == AluOp.bypass:
        return ua
    if op == AluOp.bitwise_not:
        return ~ua & mask
    if op == AluOp.bitwise_and:
        return ua & ub
    if op == AluOp.bitwise_or:
        return ua | ub
    if op == AluOp.bitwise_xor:
        return ua ^ ub
    big = ub >= np.uint64(width)
    amt = np.where(big, np.uint64(0), ub)
    if op in (AluOp.logical_shift_left, AluOp.arith_shift_left):
        return np.where(big, np.uint64(0), (ua << amt) & mask)
    if op == AluOp.logical_shift_right:
        return np.where(big, np.uint64(0), ua >> amt)
    if op == AluOp.arith_shift_right:
        sign = (ua >> np.uint64(width - 1)) & np.uint64(1)
        ext = np.where(sign == 1, ~mask, np.uint64(0)) | ua  # sign-extended to 64 bits
        shifted = (ext.view(np.int64) >> np.minimum(ub, np.uint64(63)).astype(np.int64)).view(np.uint64)
        return shifted & mask
    raise NumericError(f"ALU op {op.name} is not a bit-vector op")


def bits_to(w_out: int, u: np.ndarray) -> np.ndarray:
    """uint64 bit patterns → storage of ``w_out`` (cut or zero-extended, S-6)."""
    t = element_type(w_out)
    return u.astype(_UINT[t.itemsize]).view(t)


def tensor_tensor(op: AluOp, a: np.ndarray, wa: int, b: np.ndarray, wb: int, w_out: int, *,
                  int_path: bool = False, bitvec: bool | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """``out = OP(a, b)`` elementwise, as the TensorTensor ALU computes it (S-4..S-9).

    ``bitvec`` defaults to the op's class (bypass is arithmetic unless told otherwise, D-12).
    ``int_path`` selects exact integer arithmetic (S-4); else arithmetic goes through float32.
    With ``out`` (same shape as ``a`` and ``b``), the result is written there; when all three are
    float32 the fp32 hub is the identity and the ufunc writes straight into ``out``.
    """
    if (out is not None and not int_path and bitvec is not True and a.dtype == _F32 and b.dtype == _F32
            and out.dtype == _F32 and wa in (10, 11) and wb in (10, 11) and w_out == 10
            and op in _UFUNCS and a.shape == b.shape == out.shape):
        with np.errstate(all="ignore"):
            _UFUNCS[op](a, b, out=out)
        return out
    r = _tensor_tensor(op, a, wa, b, wb, w_out, int_path, bitvec)
    if out is not None:
        out[...] = r.reshape(out.shape)
        return out
    return r


def _tensor_tensor(op: AluOp, a: np.ndarray, wa: int, b: np.ndarray, wb: int, w_out: int, int_path: bool,
                   bitvec: bool | None) -> np.ndarray:
    if bitvec is None:
        bitvec = alu_class(op) == AluClass.BITVEC
    if bitvec:
        return bits_to(w_out, _bitvec_op(op, a, wa, b, wb))
    if int_path and is_int(wa) and is_int(wb) and is_int(w_out):
        ia, ib = as_int64(a), as_int64(b)
        if op in _BOOL_OPS:
            return from_fp32(_bool_op(op, ia, ib).astype(np.float32), w_out)
        return wrap_int(_int_op(op, ia, ib), w_out)
    fa, fb = to_fp32(a, wa), to_fp32(b, wb)
    if op in _BOOL_OPS:
        r = _bool_op(op, fa, fb).astype(np.float32)
    else:
        r = _float_op(op, fa, fb).astype(np.float32)
    return from_fp32(r, w_out)


def predicate(mask: np.ndarray) -> np.ndarray:
    """S-10: a predicate element is true iff its bits are non-zero."""
    return bits_view(np.ascontiguousarray(mask)) != 0


# --- the register ALU (S-13) ---------------------------------------------------------------------------

def register_alu(op: AluOp, a: int, b: int, bits: int = 32) -> int:
    """``dst = a OP b`` on raw register bits, two's complement ``bits`` wide (S-13); returns raw bits."""
    mask = (1 << bits) - 1
    ua, ub = a & mask, b & mask
    sa, sb = signed(a, bits), signed(b, bits)
    if op == AluOp.bypass:
        r = ua
    elif op == AluOp.bitwise_not:
        r = ~ua
    elif op == AluOp.bitwise_and:
        r = ua & ub
    elif op == AluOp.bitwise_or:
        r = ua | ub
    elif op == AluOp.bitwise_xor:
        r = ua ^ ub
    elif op in (AluOp.arith_shift_left, AluOp.logical_shift_left):
        r = 0 if ub >= bits else ua << ub
    elif op == AluOp.logical_shift_right:
        r = 0 if ub >= bits else ua >> ub
    elif op == AluOp.arith_shift_right:
        r = sa >> min(ub, bits - 1)
    elif op == AluOp.add:
        r = sa + sb
    elif op == AluOp.subtract:
        r = sa - sb
    elif op == AluOp.mult:
        r = sa * sb
    elif op in (AluOp.divide, AluOp.mod):
        if sb == 0:
            r = 0
        else:
            q = abs(sa) // abs(sb) * (1 if (sa >= 0) == (sb >= 0) else -1)
            r = q if op == AluOp.divide else sa - q * sb
    elif op == AluOp.max:
        r = max(sa, sb)
    elif op == AluOp.min:
        r = min(sa, sb)
    elif op in _BOOL_OPS:
        r = int(bool(_bool_op(op, np.asarray(sa, np.int64), np.asarray(sb, np.int64))))
    elif op == AluOp.abs:
        r = abs(sa)
    elif op == AluOp.pow:
        r = pow(sa, sb, 1 << bits) if sb >= 0 else 0  # modular: the low bits of sa ** sb, without the bignum
    elif op == AluOp.rsqrt:
        r = int(1 / (sa ** 0.5)) if sa > 0 else 0
    else:
        raise NumericError(f"ALU op {op.name} has no register-ALU meaning")
    return r & mask


# --- xorwow (S-12) ---------------------------------------------------------------------------------------

XORWOW_SEEDS = (123456789, 362436069, 521288629, 88675123, 5783321, 6615241)


def xorwow_init(partitions: int, seed: int = 0) -> np.ndarray:
    """Initial xorwow states, one row of 6 uint32 per partition (S-12)."""
    st = np.tile(np.array(XORWOW_SEEDS, dtype=np.uint32), (partitions, 1))
    st[:, 0] ^= (np.arange(partitions, dtype=np.uint64) + np.uint64(seed)).astype(np.uint32)
    return st


def xorwow_draw(states: np.ndarray, n: int) -> np.ndarray:
    """``n`` draws for each partition (rows of ``states``, updated in place) → uint32 [P, n]."""
    out = np.empty((states.shape[0], n), dtype=np.uint32)
    s = [states[:, i].copy() for i in range(6)]
    with np.errstate(over="ignore"):
        for k in range(n):
            t = s[0]
            s[0], s[1], s[2], s[3] = s[1], s[2], s[3], s[4]
            t = t ^ (t >> np.uint32(2))
            t = t ^ (t << np.uint32(1))
            t = t ^ (s[4] ^ (s[4] << np.uint32(4)))
            s[4] = t
            s[5] = s[5] + np.uint32(362437)
            out[:, k] = s[5] + t
    for i in range(6):
        states[:, i] = s[i]
    return out
