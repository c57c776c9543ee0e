"""The simulator against plain numpy / ml_dtypes, bit for bit, for the arithmetic cases (issue 5, item 4).

Each case is one instruction on random inputs and random shapes; both the bundle simulator
(``run_kernel``: assemble, decode, execute) and the IR interpreter (``interpret``) must produce exactly
the bytes of the same maths written directly in numpy. Where a rule is an S-n decision the expected
value is written independently of :mod:`tongasm.sim.numeric` (e.g. S-1's saturating truncation is
a scalar Python loop), so a slip in the shared kernels shows up here even though both simulators
would agree with each other.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tongasm.ir.builder import KernelBuilder
from tongasm.numeric import numpy_dtype
from tongasm.isa.enums import Dtype
from tongasm.sim.reference import interpret
from tongasm.sim.run import run_kernel

SETTINGS = settings(max_examples=40, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

shapes = st.tuples(st.integers(1, 16), st.integers(1, 64))


def np_dtype(name: str) -> np.dtype:
    return numpy_dtype(Dtype[name])


SPECIALS = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 3.4e38, -3.4e38, 1e-45, 1.0, -1.0], np.float32)


def _with_specials(arr_seed: tuple[np.ndarray, int]) -> np.ndarray:
    """Put NaN, ±inf, ±0, huge and tiny values at random places (hypothesis fills arrays mostly
    with one repeated value, so specials would rarely meet each other or an op that cares)."""
    arr, seed = arr_seed
    rng = np.random.default_rng(seed)
    out = arr.copy()
    hit = rng.random(out.shape) < 0.25
    out[hit] = rng.choice(SPECIALS, size=int(hit.sum()))
    return out


def values(name: str, shape: tuple[int, int], *, elements: Any = None) -> st.SearchStrategy[np.ndarray]:
    dt = np_dtype(name)
    if elements is None and dt == np.float32:
        return st.tuples(arrays(dt, shape, elements=st.floats(width=32)), st.integers(0, 2**32 - 1)).map(_with_specials)
    if elements is None and (dt.kind == "f" or dt.kind == "V"):  # bf16/fp16 etc.: random bit patterns
        u = {1: np.uint8, 2: np.uint16}[dt.itemsize]
        return arrays(u, shape).map(lambda a: a.view(dt))
    return arrays(dt, shape, elements=elements)


def run_both(kb: KernelBuilder, inputs: dict[str, np.ndarray], out: str, target: str = "gen2") -> list[np.ndarray]:
    """The output variable ``out`` after the bundle simulator and after the interpreter."""
    k = kb.build()
    sim = run_kernel(k, inputs, target=target).outputs([out])[out]
    ref = interpret(k, inputs, target=target).outputs([out])[out]
    return [sim, ref]


def assert_bits(results: list[np.ndarray], want: np.ndarray) -> None:
    for got, who in zip(results, ("simulator", "interpreter")):
        assert got.dtype == want.dtype and got.shape == want.shape, (who, got.dtype, want.dtype, got.shape, want.shape)
        if got.tobytes() != want.tobytes():
            bad = np.flatnonzero(got.reshape(-1).view(np.uint8) != want.reshape(-1).view(np.uint8))
            raise AssertionError(f"{who} differs from numpy at byte(s) {bad[:8]}: got {got.reshape(-1)[:8]}, "
                                 f"want {want.reshape(-1)[:8]}")


def three(P: int, n: int, da: str, db: str, do: str, target: str = "gen2") -> tuple[KernelBuilder, Any, Any, Any]:
    kb = KernelBuilder(arch=target)
    sz = {k: np_dtype(k).itemsize for k in (da, db, do)}
    a = kb.sbuf("a", bytes_per_partition=n * sz[da], partitions=P)
    b = kb.sbuf("b", bytes_per_partition=n * sz[db], partitions=P, addr=4096)
    o = kb.sbuf("o", bytes_per_partition=n * sz[do], partitions=P, addr=8192)
    return kb, a, b, o


def tensor_tensor(a: np.ndarray, b: np.ndarray, do: str, op: str, *, engine: str = "DVE",
                  target: str = "gen2", da: str | None = None, db: str | None = None) -> list[np.ndarray]:
    da = da or Dtype(_dt_of(a)).name
    db = db or Dtype(_dt_of(b)).name
    P, n = a.shape
    kb, ta, tb, to = three(P, n, da, db, do, target)
    kb.tensor_tensor(to.tile(do, P, n), ta.tile(da, P, n), tb.tile(db, P, n), op, engine=engine)
    return run_both(kb, {"a": a, "b": b}, "o", target)


def _dt_of(a: np.ndarray) -> Dtype:
    for d in Dtype:
        try:
            if numpy_dtype(d) == a.dtype:
                return d
        except Exception:
            continue
    raise AssertionError(a.dtype)


def saturating_trunc(x: np.ndarray, dt: np.dtype) -> np.ndarray:
    """S-1 written out element by element: truncate toward zero, saturate, NaN → 0."""
    info = np.iinfo(dt)
    out = []
    for v in np.asarray(x, dtype=np.float64).reshape(-1):
        if math.isnan(v):
            out.append(0)
        elif v >= info.max:
            out.append(info.max)
        elif v <= info.min:
            out.append(info.min)
        else:
            out.append(math.trunc(v))
    return np.array(out, dtype=dt).reshape(np.shape(x))


# --- TensorTensor, float32 ----------------------------------------------------------------------------

ARITH = {"add": np.add, "subtract": np.subtract, "mult": np.multiply, "divide": np.divide,
         "max": np.maximum, "min": np.minimum}  # S-8: NaN propagates in max/min (numpy maximum/minimum)
COMPARE = {"is_equal": np.equal, "not_equal": np.not_equal, "is_gt": np.greater, "is_ge": np.greater_equal,
           "is_lt": np.less, "is_le": np.less_equal}


@SETTINGS
@given(st.data(), shapes, st.sampled_from(sorted(ARITH)), st.sampled_from(["DVE", "Activation", "Pool"]))
def test_float32_arithmetic(data: Any, shape: tuple[int, int], op: str, engine: str) -> None:
    a = data.draw(values("float32", shape))
    b = data.draw(values("float32", shape))
    with np.errstate(all="ignore"):
        want = ARITH[op](a, b).astype(np.float32)
    assert_bits(tensor_tensor(a, b, "float32", op, engine=engine), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(sorted(COMPARE)), st.sampled_from(["uint8", "float32", "int32"]))
def test_compares(data: Any, shape: tuple[int, int], op: str, do: str) -> None:
    """S-5: 1 where true, 0 where false, in the dst dtype (NaN: only not_equal is true)."""
    a = data.draw(values("float32", shape))
    b = data.draw(st.one_of(st.just(a.copy()), values("float32", shape)))
    want = COMPARE[op](a, b).astype(np_dtype(do))
    assert_bits(tensor_tensor(a, b, do, op), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["add", "subtract", "mult"]), st.sampled_from(["gen2", "gen3"]))
def test_int32_on_pool_wraps(data: Any, shape: tuple[int, int], op: str, target: str) -> None:
    """S-4: the GPSIMD int32 forms (and any all-integer op on Pool) compute exactly and wrap."""
    a = data.draw(values("int32", shape))
    b = data.draw(values("int32", shape))
    wide = {"add": np.add, "subtract": np.subtract, "mult": np.multiply}[op](a.astype(np.int64), b.astype(np.int64))
    want = (wide & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    assert_bits(tensor_tensor(a, b, "int32", op, engine="Pool", target=target), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["add", "subtract", "mult"]),
       st.sampled_from([("int16", "int16", "int16"), ("uint8", "uint8", "uint8"), ("int32", "uint8", "int16")]))
def test_narrow_ints_on_pool_wrap(data: Any, shape: tuple[int, int], op: str, dts: tuple[str, str, str]) -> None:
    a = data.draw(values(dts[0], shape))
    b = data.draw(values(dts[1], shape))
    wide = {"add": np.add, "subtract": np.subtract, "mult": np.multiply}[op](a.astype(np.int64), b.astype(np.int64))
    out = np_dtype(dts[2])
    want = wide.astype(np.uint64).astype({1: np.uint8, 2: np.uint16}[out.itemsize]).view(out)
    assert_bits(tensor_tensor(a, b, dts[2], op, engine="Pool"), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["add", "mult"]))
def test_int32_on_dve_goes_through_fp32(data: Any, shape: tuple[int, int], op: str) -> None:
    """S-4: on DVE the same int32 op runs in fp32 and converts back by S-1 (large values lose bits)."""
    a = data.draw(values("int32", shape))
    b = data.draw(values("int32", shape))
    with np.errstate(all="ignore"):
        f = {"add": np.add, "mult": np.multiply}[op](a.astype(np.float32), b.astype(np.float32))
    assert_bits(tensor_tensor(a, b, "int32", op, engine="DVE"), saturating_trunc(f, np.dtype(np.int32)))


# --- bit-vector ops ------------------------------------------------------------------------------------

INT_DTS = ["int32", "uint32", "int16", "uint16", "int8", "uint8"]


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"]),
       st.sampled_from(INT_DTS), st.sampled_from(["DVE", "Pool"]))
def test_bitwise(data: Any, shape: tuple[int, int], op: str, dt: str, engine: str) -> None:
    a = data.draw(values(dt, shape))
    b = data.draw(values(dt, shape))
    want = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
            "bitwise_not": lambda x, _y: np.invert(x)}[op](a, b)
    assert_bits(tensor_tensor(a, b, dt, op, engine=engine), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["logical_shift_left", "logical_shift_right", "arith_shift_right",
                                           "arith_shift_left"]), st.sampled_from(INT_DTS))
def test_shifts(data: Any, shape: tuple[int, int], op: str, dt: str) -> None:
    """S-6 with in-range shift amounts: on the raw bits (logical: unsigned; arith right: sign fill)."""
    ndt = np_dtype(dt)
    width = ndt.itemsize * 8
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32}[ndt.itemsize]
    s = {1: np.int8, 2: np.int16, 4: np.int32}[ndt.itemsize]
    a = data.draw(values(dt, shape))
    b = data.draw(values(dt, shape, elements=st.integers(0, width - 1)))
    ua, ub = a.view(u), b.view(u)
    if op in ("logical_shift_left", "arith_shift_left"):
        r = np.left_shift(ua, ub)
    elif op == "logical_shift_right":
        r = np.right_shift(ua, ub)
    else:
        r = np.right_shift(a.view(s), b.view(s)).view(u)
    assert_bits(tensor_tensor(a, b, dt, op), r.astype(u).view(ndt))


# --- copies and casts ------------------------------------------------------------------------------------

def copy(src: np.ndarray, ds: str, dd: str, *, generic: bool = False, engine: str = "DVE") -> list[np.ndarray]:
    P, n = src.shape
    kb = KernelBuilder()
    a = kb.sbuf("a", bytes_per_partition=n * np_dtype(ds).itemsize, partitions=P)
    o = kb.sbuf("o", bytes_per_partition=n * np_dtype(dd).itemsize, partitions=P, addr=4096)
    kb.tensor_copy(o.tile(dd, P, n), a.tile(ds, P, n), generic=generic, engine=engine)
    return run_both(kb, {"a": src}, "o")


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["float32", "bfloat16", "float16", "int32", "uint8", "float8e4", "int16"]),
       st.booleans())
def test_same_dtype_copy_is_bit_exact(data: Any, shape: tuple[int, int], dt: str, generic: bool) -> None:
    ndt = np_dtype(dt)
    raw = data.draw(arrays(np.uint8, (shape[0], shape[1] * ndt.itemsize)))
    src = raw.view(ndt)  # any bit pattern, NaN payloads included
    assert_bits(copy(src, dt, dt, generic=generic), src)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["bfloat16", "float16"]))
def test_float32_narrowing_casts(data: Any, shape: tuple[int, int], dd: str) -> None:
    """S-2: round to nearest even; bf16/fp16 overflow to ±inf; NaN stays NaN."""
    src = data.draw(values("float32", shape))
    with np.errstate(all="ignore"):
        want = src.astype(ml_dtypes.bfloat16 if dd == "bfloat16" else np.float16)
    assert_bits(copy(src, "float32", dd), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["int32", "uint8", "int16", "uint32"]))
def test_float32_to_int_casts(data: Any, shape: tuple[int, int], dd: str) -> None:
    """S-1: truncate toward zero, saturate, NaN → 0."""
    src = data.draw(values("float32", shape))
    assert_bits(copy(src, "float32", dd), saturating_trunc(src, np_dtype(dd)))


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["int32", "uint8", "int16"]))
def test_int_to_float32_casts(data: Any, shape: tuple[int, int], ds: str) -> None:
    src = data.draw(values(ds, shape))
    assert_bits(copy(src, ds, "float32"), src.astype(np.float32))


# --- predicated copies, Select, Memset --------------------------------------------------------------------

@SETTINGS
@given(st.data(), shapes, st.sampled_from(["uint8", "int16", "uint32", "int8"]),
       st.sampled_from([("float32", "float32"), ("int32", "int32"), ("bfloat16", "bfloat16"), ("float32", "bfloat16"),
                        ("float32", "float16")]))
def test_copy_predicated_is_where(data: Any, shape: tuple[int, int], md: str, sd_dd: tuple[str, str]) -> None:
    """S-10: dst = where(mask != 0, src, dst); 0x99 converts src first (S-2)."""
    sd, dd = sd_dd
    P, n = shape
    mask = data.draw(values(md, shape, elements=st.sampled_from([0, 0, 1, 2, -1] if md[0] == "i" else [0, 0, 1, 255])))
    src = data.draw(values(sd, shape))
    old = data.draw(values(dd, shape))
    kb = KernelBuilder()
    tm = kb.sbuf("m", bytes_per_partition=n * np_dtype(md).itemsize, partitions=P)
    ts = kb.sbuf("s", bytes_per_partition=n * np_dtype(sd).itemsize, partitions=P, addr=4096)
    td = kb.sbuf("d", bytes_per_partition=n * np_dtype(dd).itemsize, partitions=P, addr=8192)
    kb.copy_predicated(td.tile(dd, P, n), tm.tile(md, P, n), ts.tile(sd, P, n))
    with np.errstate(all="ignore"):
        new = src if sd == dd else src.astype(np_dtype(dd))
    want = np.where(mask != 0, new, old)
    assert_bits(run_both(kb, {"m": mask, "s": src, "d": old}, "d"), want)


@SETTINGS
@given(st.data(), shapes, st.sampled_from(["float32", "int32", "bfloat16"]))
def test_select_is_where(data: Any, shape: tuple[int, int], dt: str) -> None:
    P, n = shape
    pred = data.draw(values("uint8", shape, elements=st.sampled_from([0, 1, 7])))
    t = data.draw(values(dt, shape))
    f = data.draw(values(dt, shape))
    size = np_dtype(dt).itemsize
    kb = KernelBuilder()
    tp = kb.sbuf("p", bytes_per_partition=n, partitions=P)
    tt = kb.sbuf("t", bytes_per_partition=n * size, partitions=P, addr=4096)
    tf = kb.sbuf("f", bytes_per_partition=n * size, partitions=P, addr=8192)
    to = kb.sbuf("o", bytes_per_partition=n * size, partitions=P, addr=12288)
    kb.select(to.tile(dt, P, n), tp.tile("uint8", P, n), tt.tile(dt, P, n), tf.tile(dt, P, n))
    assert_bits(run_both(kb, {"p": pred, "t": t, "f": f}, "o"), np.where(pred != 0, t, f))


@SETTINGS
@given(shapes, st.sampled_from(["float32", "bfloat16", "int32", "uint8", "int16", "float16"]), st.data())
def test_memset_const(shape: tuple[int, int], dt: str, data: Any) -> None:
    P, n = shape
    ndt = np_dtype(dt)
    bits = data.draw(st.integers(0, (1 << (8 * ndt.itemsize)) - 1))
    kb = KernelBuilder()
    o = kb.sbuf("o", bytes_per_partition=n * ndt.itemsize, partitions=P)
    kb.memset(o.tile(dt, P, n), constant_bits=bits, engine=data.draw(st.sampled_from(["DVE", "Pool", "Activation"])))
    u = {1: np.uint8, 2: np.uint16, 4: np.uint32}[ndt.itemsize]
    assert_bits(run_both(kb, {}, "o"), np.full(shape, bits, dtype=u).view(ndt))


def test_saturating_trunc_reference() -> None:
    """The test's own S-1 helper, on the corner cases."""
    got = saturating_trunc(np.array([np.nan, np.inf, -np.inf, 2.9, -2.9, 3e9, -3e9], np.float32), np.dtype(np.int32))
    assert got.tolist() == [0, 2**31 - 1, -2**31, 2, -2, 2**31 - 1, -2**31]


def test_pool_reading_psum_through_a_register_ap_is_refused_at_run_time() -> None:
    """Codegen refuses a Pool TensorTensor on a static PSUM AP (SPEC §4.4); through a register AP
    the address is only known when the bundle runs, so the simulator refuses it there."""
    import pytest

    from conftest import imm, inst, kernel, loc, reg, reg_ap
    from tongasm.ir import read_bir
    from tongasm.sim.machine import SimError

    sb = [[512, 128], [1, 512]]
    k = kernel(
        inst("RegisterMove", [imm("int32", 0x2000000)], [reg("r", "int32")], name="m", engine="Pool"),
        inst("TensorTensor", [reg_ap("r", "float32", sb), {"kind": "physical_ap", "dtype": "float32",
                                                                     "ap": sb, "memref": "a"}],
             [{"kind": "physical_ap", "dtype": "float32", "ap": sb, "memref": "a", "offset": 512}],
             name="t", engine="Pool", op="add"),
        allocs=[loc("a", "SB", dims=(128, 4096))], registers={"r": 5})
    with pytest.raises(SimError, match="GPSIMD engine cannot access PSUM"):
        run_kernel(read_bir(k))



def test_s19_repeated_destination_element_keeps_the_last_write_in_ap_order() -> None:
    """S-19: out names each of two elements three times (a 0 step on the outer free axis) while
    in0 walks its rows backwards. In AP order the writes to out[0:2] are a[4:6]+10, a[2:4]+10 and
    last a[0:2]+10, so 11 and 12 survive; numpy's ufunc over the same views (which may reorder a
    negative-stride loop) would leave a[4:6]+10."""
    kb = KernelBuilder()
    a = kb.sbuf("a", bytes_per_partition=64, kind="Input", dtype="float32", shape=[1, 6])
    b = kb.sbuf("b", bytes_per_partition=64, addr=64, kind="Input", dtype="float32", shape=[1, 6])
    o = kb.sbuf("o", bytes_per_partition=64, addr=128, kind="Output", dtype="float32", shape=[1, 6])
    kb.tensor_tensor(o.ap("float32", [[16, 1], [0, 3], [1, 2]]),
                     a.ap("float32", [[16, 1], [-2, 3], [1, 2]], offset=4),
                     b.ap("float32", [[16, 1], [-2, 3], [1, 2]], offset=4), "add")
    inputs = {"a": np.array([[1, 2, 3, 4, 5, 6]], np.float32), "b": np.full((1, 6), 10, np.float32)}
    for got in run_both(kb, inputs, "o"):
        assert list(got[0]) == [11.0, 12.0, 0.0, 0.0, 0.0, 0.0]
