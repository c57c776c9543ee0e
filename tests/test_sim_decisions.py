"""One test per simulator decision (S-n) that the rest of the suite does not already cite by id: each
pins the behaviour its reading states, with the expected value written independently of the code
under test (plain numpy / ml_dtypes / Python)."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from tongasm.isa.enums import AluOp, WireDtype
from tongasm.isa.targets import GEN2
from tongasm.sim import numeric
from tongasm.sim.machine import Machine


def test_s3_wire_0x0e_computes_as_float8_e4m3fn() -> None:
    raw = np.array([0x7E, 0x38, 0xFF], np.uint8)  # e4m3fn: 448, 1.0, NaN (e4m3 without fn: inf would be 0x78)
    want = raw.view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    got = numeric.to_fp32(raw.view(numeric.element_type(WireDtype.FLOAT8_E4M3)), WireDtype.FLOAT8_E4M3)
    np.testing.assert_array_equal(got[:2], want[:2])
    assert np.isnan(got[2]) and np.isnan(want[2])
    assert numeric.element_type(WireDtype.FLOAT32R) == np.dtype(np.float32)  # float32r reads as float32


def test_s7_integer_division_by_zero_gives_zero_and_truncates() -> None:
    i32 = WireDtype.INT32
    a = np.array([7, -7, 5], np.int32)
    b = np.array([2, 2, 0], np.int32)
    got = numeric.tensor_tensor(AluOp.divide, a, i32, b, i32, i32, int_path=True, bitvec=False)
    assert got.tolist() == [3, -3, 0]  # truncating quotient; x / 0 = 0
    got = numeric.tensor_tensor(AluOp.mod, a, i32, b, i32, i32, int_path=True, bitvec=False)
    assert got.tolist() == [1, -1, 0]  # C remainder (the dividend's sign); x % 0 = 0


def test_s9_rsqrt_and_abs_in_fp32() -> None:
    f32 = WireDtype.FLOAT32
    a = np.array([4.0, 0.25, -3.0], np.float32)
    got = numeric.tensor_tensor(AluOp.rsqrt, a[:2], f32, a[:2], f32, f32, int_path=False, bitvec=False)
    np.testing.assert_array_equal(got, np.float32(1) / np.sqrt(a[:2]))
    got = numeric.tensor_tensor(AluOp.abs, a, f32, a, f32, f32, int_path=False, bitvec=False)
    assert got.tolist() == [4.0, 0.25, 3.0]


def test_s12_xorwow_is_seeded_per_partition_and_reproducible() -> None:
    s1, s2 = numeric.xorwow_init(4, seed=1), numeric.xorwow_init(4, seed=1)
    d1, d2 = numeric.xorwow_draw(s1, 8), numeric.xorwow_draw(s2, 8)
    np.testing.assert_array_equal(d1, d2)  # same seed, same draws
    assert len({tuple(r) for r in d1.tolist()}) == 4  # each partition its own stream
    # Marsaglia's xorwow, written out in Python for partition 0 (s0 = 123456789 ^ (seed + partition))
    x, y, z, w, v, d = 123456789 ^ 1, 362436069, 521288629, 88675123, 5783321, 6615241
    first = []
    for _ in range(3):
        t = x ^ (x >> 2) & 0xFFFFFFFF
        x, y, z, w = y, z, w, v
        v = (v ^ (v << 4) ^ (t ^ (t << 1))) & 0xFFFFFFFF
        d = (d + 362437) & 0xFFFFFFFF
        first.append((d + v) & 0xFFFFFFFF)
    assert numeric.xorwow_draw(numeric.xorwow_init(1, seed=1), 3).tolist()[0] == first


def test_s13_registers_start_at_zero_and_wrap_as_int32() -> None:
    m = Machine(GEN2)
    assert all(int(m.reg("sp", r)) == 0 for r in range(GEN2.registers))
    assert numeric.register_alu(AluOp.add, 0x7FFFFFFF, 1, 32) == 0x80000000  # two's complement wrap
    assert numeric.register_alu(AluOp.subtract, 0, 1, 32) == 0xFFFFFFFF


def test_s17_memory_starts_zeroed() -> None:
    m = Machine(GEN2)
    assert not m.sbuf.any() and not m.psum.any()


def test_s18_accumulators_start_at_minus_infinity() -> None:
    m = Machine(GEN2)
    assert all(np.all(np.isneginf(e.accumulator)) for e in m.engines.values())


def test_s15_moveshape_loads_the_shape_registers_only() -> None:
    from tongasm.ir.builder import KernelBuilder
    from tongasm.sim.run import run_kernel

    kb = KernelBuilder()
    t = kb.sbuf("t", bytes_per_partition=4096)
    kb.move_shape(t.ap("float32", [[1024, 4], [16, 3], [1, 8]]), engine="DVE")
    res = run_kernel(kb.build())
    sh = res.machine.engines["dve"].shape
    # innermost first, byte steps: [1 x 8] then [16 x 3] (float32: x4), unused dims {4 bytes, 1}
    assert sh.steps == (4, 64, 4, 4) and sh.counts == (8, 3, 1, 1) and not sh.is_output
    assert not res.machine.sbuf.any()  # no memory effect


def test_s16_a_wait_holds_an_engine_until_another_engine_updates() -> None:
    """Engines take turns (pool, act, pe, dma, dve, sp); a bundle whose wait does not hold yet waits
    while the others run, and an update applies after its bundle ran."""
    from tongasm.ir.builder import KernelBuilder, sync
    from tongasm.sim.run import run_kernel

    kb = KernelBuilder()
    t = kb.sbuf("t", bytes_per_partition=64, kind="Output", dtype="int32", shape=[128, 16])
    dst = t.ap("int32", [[16, 128], [1, 16]])
    # DVE (earlier in program order) waits for semaphore 3, which Pool's Memset raises after writing 7
    kb.memset(dst, 9, engine="DVE", sync=sync(wait=("sem_ge_imm", 3, 1)))
    kb.memset(dst, 7, engine="Pool", sync=sync(update=("sem_inc", 3)))
    res = run_kernel(kb.build())
    assert int(res.machine.semaphores[3]) == 1
    assert (res.outputs()["t"] == 9).all()  # the waiting DVE Memset ran last
