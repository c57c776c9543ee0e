"""The DMA side fast path (runs as an arithmetic progression, no index arrays) makes the view the general
path makes: the same buffer offset, shape and strides, on hand-derived cases and on seeded random sides."""

from __future__ import annotations

import random
import types

import numpy as np

from tongasm.isa.descriptors import SBUF_PARTITION_SHIFT
from tongasm.sim.semantics import dma

STRIDE = 196608  # SBUF bytes per partition (trn1)


def machine() -> types.SimpleNamespace:
    return types.SimpleNamespace(target=types.SimpleNamespace(sbuf_partitions=128), sbuf_stride=STRIDE,
                                 sbuf=np.zeros(128 * STRIDE, np.uint8))


def where(m: types.SimpleNamespace, v: object) -> object:
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, tuple):
        return "index arrays"
    assert isinstance(v, np.ndarray)
    return v.shape, v.strides, v.__array_interface__["data"][0] - m.sbuf.__array_interface__["data"][0]


def general(m: types.SimpleNamespace, word: int, n0: int, s0: int, n1: int, s1: int, inner: bool, run: int) -> object:
    starts = dma.run_starts(word, n0, s0, n1, s1, types.SimpleNamespace(dim0_inner=inner))  # type: ignore[arg-type]
    parts, byte = starts >> SBUF_PARTITION_SHIFT, starts & ((1 << SBUF_PARTITION_SHIFT) - 1)
    if (starts < 0).any() or (parts >= 128).any() or (byte + run > STRIDE).any():
        return "error"
    return where(m, dma._strided(m.sbuf, parts * STRIDE + byte, run))


def fast(m: types.SimpleNamespace, word: int, n0: int, s0: int, n1: int, s1: int, inner: bool, run: int) -> object:
    ap = dma._progression(word, n0, s0, n1, s1, inner)
    return None if ap is None else where(m, dma._sbuf_progression(m, *ap, run))  # type: ignore[arg-type]


def test_hand_derived_sides() -> None:
    m = machine()
    # 128 runs of 4096 bytes, one a partition (step 1 << 18), from partition 0 byte 139256: rows STRIDE apart
    assert fast(m, 139256, 128, 1 << 18, 1, 1, True, 4096) == ((128, 4096), (STRIDE, 1), 139256)
    # 4 runs of 64 bytes 256 apart in partition 5, from byte 1024
    assert fast(m, (5 << 18) + 1024, 4, 256, 1, 1, True, 64) == ((4, 64), (256, 1), 5 * STRIDE + 1024)
    # num0 = 2 runs inside, num1 = 3 outer steps of 2 * 256: one progression of 6, step 256
    assert fast(m, 0, 2, 256, 3, 512, True, 64) == ((6, 64), (256, 1), 0)
    # the same dims with dim 0 outer are not a progression: the general path decides
    assert fast(m, 0, 2, 256, 3, 512, False, 64) is None
    # overlapping runs (step < run), past the partition's end, past partition 127: the general path
    assert fast(m, 0, 4, 32, 1, 1, True, 64) is None
    assert fast(m, STRIDE - 100, 1, 0, 1, 0, True, 200) is None
    assert fast(m, 127 << 18, 2, 1 << 18, 1, 1, True, 64) is None


def test_agrees_with_the_general_path() -> None:
    m = machine()
    rng = random.Random(7)
    agreed = 0
    for _ in range(20000):
        run = rng.choice([0, 1, 2, 64, 1024, 4096])
        n0, n1 = rng.choice([0, 1, 2, 3, 128]), rng.choice([0, 1, 2, 5])
        s0 = rng.choice([0, 1, 64, 4096, 1 << 18, 2 << 18, -1024, 3 << 17, rng.randint(-5000, 300000)])
        s1 = rng.choice([0, n0 * s0, 1 << 18, -4096, rng.randint(-5000, 300000)])
        word = rng.choice([0, 1024, (5 << 18) + 1024, 127 << 18, (1 << 18) - 100, STRIDE - 1024,
                           rng.randint(-100, 128 << 18)])
        inner = rng.random() < 0.5
        got = fast(m, word, n0, s0, n1, s1, inner, run)
        if got is not None:
            assert got == general(m, word, n0, s0, n1, s1, inner, run), (word, n0, s0, n1, s1, inner, run)
            agreed += 1
    assert agreed > 1000
