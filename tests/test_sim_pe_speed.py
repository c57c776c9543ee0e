"""S-120: how the simulator evaluates a Matmul's K-sum, pinned on values worked out by hand.

x's column 0 is (256, 2047/1024, -2**-12, 0, ...) and y's column 0 is (-256, 2, 2**-11, 0, ...), all fp16.
The products are -65536, 2047/1024 * 2 = 3.998046875 and -2**-23, each exact in float32.
Their exact sum is -65532.001953125 - 2**-23. float32 values near 65532 are 2**-8 apart, so -65532.001953125 is
the midpoint of -65532 and -65532.00390625, and the -2**-23 puts the exact sum past it:

* exact-f64 (-D S-120=exact-f64): float64 holds the sum exactly (its spacing there is 2**-37), one rounding gives -65532.00390625;
* f32-accumulate (the default): whatever the order or grouping of the float32 additions, -2**-23 is lost against either
  large partial sum (less than half their spacing) and -65536 + 3.998046875 = -65532.001953125 is a tie that
  rounds to the even -65532.0; adding the tiny term first (3.998046875 - 2**-23) also rounds back to 3.998046875.
"""

from __future__ import annotations

import numpy as np

from test_pe_dma_control_decisions import matmul_kernel
from tongasm.ir import read_bir
from tongasm.isa import DecisionSet
from tongasm.sim.run import run_kernel


def inputs() -> tuple[np.ndarray, np.ndarray]:
    x = np.zeros((128, 128), np.float16)
    y = np.zeros((128, 128), np.float16)
    x[:3, 0] = [256, 2047 / 1024, -2.0 ** -12]
    y[:3, 0] = [-256, 2, 2.0 ** -11]
    y[0, 1] = 1  # out[0][1] = x[0][0] * 1 = 256: every reading, and the column order (out[m][n] = sum_k x[k][m] y[k][n])
    return x, y


def run(*decisions: str) -> np.ndarray:
    x, y = inputs()
    res = run_kernel(read_bir(matmul_kernel()), {"x": x, "y": y}, decisions=DecisionSet.parse(decisions))
    return res.outputs(["out"])["out"].view(np.float32).reshape(128, 128)


def test_s120_exact_f64_rounds_the_exact_sum_once() -> None:
    out = run("S-120=exact-f64")
    assert out[0, 0] == np.float32(-65532.00390625)
    assert out[0, 1] == 256 and out[1, 0] == 0


def test_s120_f32_accumulate_rounds_each_addition() -> None:
    out = run("S-120=f32-accumulate")
    assert out[0, 0] == np.float32(-65532.0)
    assert out[0, 1] == 256 and out[1, 0] == 0


def test_s120_default_is_f32_accumulate() -> None:
    """The default rounds as the hardware's float32 accumulation (S-120's corpus check): -65532.0, not
    exact-f64's -65532.00390625."""
    assert run()[0, 0] == np.float32(-65532.0)


def test_s120_does_not_apply_under_s41_fp32() -> None:
    assert run("S-41=fp32")[0, 0] == np.float32(-65532.0)
    assert run("S-41=fp32", "S-120=exact-f64")[0, 0] == np.float32(-65532.0)



def test_the_float32_copy_of_2_byte_floats_is_numpy_s_cast_bit_for_bit() -> None:
    """The fast path's fp16 / bf16 -> float32 table gives numpy's own cast of every one of the 65,536
    values, NaN payloads and signed zeros included (a strided source, as an SBUF tile is)."""
    import ml_dtypes

    from tongasm.sim import numeric

    for t in (np.float16, ml_dtypes.bfloat16):
        x = np.arange(1 << 17, dtype=np.uint32).astype(np.uint16).view(t).reshape(512, 256)[:, ::2]
        out = np.empty(x.shape, np.float32)
        numeric.copy_to_float32(out, x)
        with np.errstate(all="ignore"):
            want = x.astype(np.float32)
        assert (out.view(np.uint32) == want.view(np.uint32)).all()
    # spot values worked out by hand: fp16 0x3C00 = 1.0, 0x8000 = -0.0, 0x0001 = 2**-24 (the least subnormal)
    h = np.array([0x3C00, 0x8000, 0x0001], np.uint16).view(np.float16)
    out = np.empty(3, np.float32)
    numeric.copy_to_float32(out, h)
    assert list(out.view(np.uint32)) == [0x3F800000, 0x80000000, 0x33800000]
