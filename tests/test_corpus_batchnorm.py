"""The batch-norm backward family on the real bytes: every BatchNormGradAccumulate (0x63),
BatchNormParamLoad (0x64) and BatchNormBackProp (0x65) bundle of the corpus (yolox-trn1
``batch-norm-grad`` graphs, neuronx-cc 2.14) decodes, explains with no unexplained byte, round-trips
through the text and passes the checks; the fields the layouts tag V hold what the bytes hold (read
with ``struct``); and the real bundles of MODULE_10954531377403532558 compute its HLO, batch-norm-grad
with epsilon 0.001, to float32 rounding (S-72's default; the book's order of the sums does not).
"""

from __future__ import annotations

import struct
from collections import defaultdict

import numpy as np
import pytest

from corpus_support import CorpusBundle, assert_explained, assert_text_round_trip, corpus_bundles
from tongasm.check import check_stream
from tongasm.decode.batch import decode_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError

GEN2 = get_target("gen2")
GRAD, LOAD, BACK = 0x63, 0x64, 0x65
OPS = frozenset({GRAD, LOAD, BACK})
LAYOUT = {GRAD: "BatchNormGradAccumulate", LOAD: "BatchNormParamLoad", BACK: "BatchNormBackProp"}
#: the corpus census (bundles, distinct bundles), counted from the bytes
CENSUS = {GRAD: (57, 57), LOAD: (55, 29), BACK: (55, 55)}
SMALL = "yolox-trn1/MODULE_10954531377403532558.neff"


def bundles(op: int | None = None) -> list[CorpusBundle]:
    return [b for b in corpus_bundles(OPS) if op is None or b.raw[0] == op]


def distinct(op: int) -> list[bytes]:
    return sorted({b.raw for b in bundles(op)})


def u16(raw: bytes, off: int) -> int:
    return int(struct.unpack_from("<H", raw, off)[0])


def u32(raw: bytes, off: int) -> int:
    return int(struct.unpack_from("<I", raw, off)[0])


def f32(raw: bytes, off: int) -> float:
    return float(struct.unpack_from("<f", raw, off)[0])


def elements3(raw: bytes, off: int) -> int:
    """Elements of the TENSOR3D at ``off`` (its counts follow the three steps)."""
    return u16(raw, off + 10) * u16(raw, off + 12) * u16(raw, off + 14)


@pytest.mark.parametrize("op", sorted(OPS))
def test_census(op: int) -> None:
    assert (len(bundles(op)), len(distinct(op))) == CENSUS[op]
    assert {b.stream.split(".")[-1] for b in bundles(op)} == {"dve"}  # the DVE, not the book's Pool engine


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_real_bundle_decodes_to_its_layout(op: int) -> None:
    cols = decode_stream(b"".join(b.raw for b in bundles(op)))
    assert not cols.undecodable.any()
    assert list(cols.groups) == [LAYOUT[op]]


@pytest.mark.parametrize("op", sorted(OPS))
def test_no_unexplained_byte(op: int) -> None:
    assert_explained(distinct(op), LAYOUT[op], GEN2)


def test_text_round_trip_is_the_identity() -> None:
    assert_text_round_trip(bundles(), "dve", GEN2)


def test_the_checks_find_nothing() -> None:
    data = b"".join(b.raw for b in bundles())
    assert [f.line() for f in check_stream(data, name="bn.dve", target=GEN2, stream="dve")] == []


# --- the per-byte statistics, field by field (values read with struct, not through tongasm) ------------------

def _sbuf(word: int) -> bool:
    return word < 0x2000000 and (word & 0x3FFFF) < 0x30000


def test_grad_accumulate_fields() -> None:
    for raw in distinct(GRAD):
        d = decode_bundle(raw).fields
        # the book's 'BASE partition' is the partition count: 128 or 32, with x at partition 0
        assert raw[0x3F] in (32, 128) and u32(raw, 0x10) >> 18 == 0 and d["num_partitions"] == raw[0x3F]
        assert (u16(raw, 0x34), u16(raw, 0x36)) == (1, 3)  # the TENSOR1D out: step 1, 3 sums
        assert elements3(raw, 0x10) == elements3(raw, 0x20)
        assert (raw[0x3C], raw[0x3D], raw[0x3E]) == (0xAA, 0x0A, 0x0A)  # float32 x | dy << 4, coeff, out
        assert _sbuf(u32(raw, 0x0C)) and _sbuf(u32(raw, 0x38))  # the mean and varfactor pointers
        assert (d["mean_ptr"], d["varfactor_ptr"]) == (u32(raw, 0x0C), u32(raw, 0x38))


def test_param_load_fields() -> None:
    for raw in distinct(LOAD):
        d = decode_bundle(raw).fields
        assert raw[0x30] == 1 and _sbuf(u32(raw, 0x2C))  # kind 1 with an SBUF address: a pointer
        assert d["mean_kind"] == 1 and d["mean_value"] == u32(raw, 0x2C)
        assert f32(raw, 0x1C) in (400.0, 25600.0) and raw[0x22] in (32, 128) and raw[0x20] == 0x0A
        assert (u16(raw, 0x18), u16(raw, 0x1A)) == (3, 1)  # [scale, A, Bc]
        assert raw[0x0C:0x10] == bytes(4) and raw[0x21] == 0 and raw[0x23:0x2C] == bytes(9) and raw[0x31:] == bytes(15)


def test_backprop_fields() -> None:
    for raw in distinct(BACK):
        assert (raw[0x0C], raw[0x0D], raw[0x0E]) == (0xAA, 0x0A, 0)
        assert raw[0x0F] in (32, 128) and u32(raw, 0x10) >> 18 == 0
        assert elements3(raw, 0x10) == elements3(raw, 0x20) == elements3(raw, 0x30)


def test_the_small_graph_pairs_its_pointers() -> None:
    """MODULE_10954531377403532558: 0x63's mean pointer is 0x64's, its x / dy are 0x65's, its N (400.0) the
    elements per channel (20 x 20), its varfactor pointer +0x18 (where the Activation engine's Rsqrt writes)."""
    grad, load, back = (next(b.raw for b in bundles(op) if b.file.relative == SMALL) for op in (GRAD, LOAD, BACK))
    assert u32(grad, 0x0C) == u32(load, 0x2C) == 0x2F368
    assert grad[0x10:0x30] == back[0x10:0x30]
    assert f32(load, 0x1C) == 400.0 == elements3(grad, 0x10)
    assert u32(grad, 0x38) == 0x18


# --- the real bundles compute HLO's batch-norm-grad ----------------------------------------------------------

def _put(m: Machine, byte: int, arr: np.ndarray) -> None:
    a = np.ascontiguousarray(arr, dtype=np.float32).view(np.uint8).reshape(128, -1)
    for p in range(128):
        m.sbuf[p * m.sbuf_stride + byte:p * m.sbuf_stride + byte + a.shape[1]] = a[p]


def _get(m: Machine, byte: int, n: int) -> np.ndarray:
    return np.stack([m.sbuf[p * m.sbuf_stride + byte:p * m.sbuf_stride + byte + 4 * n].view(np.float32)
                     for p in range(128)])


def _small_graph(ds: DecisionSet) -> tuple[np.ndarray, np.ndarray]:
    """The real 0x63, 0x64 and 0x65 of MODULE_10954531377403532558 on placed inputs; the graph's other
    steps (the Activation engine's Reciprocal / Square / Rsqrt into +0x18, the TensorScalar gamma * vf /
    400 into +0x20, the Activation Copy of the first two sums into +0x24) are done here in numpy.
    Returns (dx as simulated, dx by HLO's definition)."""
    grad, load, back = (next(b.raw for b in bundles(op) if b.file.relative == SMALL) for op in (GRAD, LOAD, BACK))
    rng = np.random.default_rng(72)
    n = 400
    x, dy = rng.normal(size=(128, n)).astype(np.float32), rng.normal(size=(128, n)).astype(np.float32)
    mean = (x.mean(axis=1) + rng.normal(scale=0.1, size=128)).astype(np.float32)
    invstd = rng.uniform(0.5, 2.0, size=128).astype(np.float32)
    gamma = rng.normal(size=128).astype(np.float32)
    # HLO: var = (1 / invstd)^2 - 0.001; batch-norm-grad(x, gamma, mean, var, dy), epsilon 0.001, feature 1
    var = (1.0 / invstd.astype(np.float64)) ** 2 - 0.001
    vf = 1.0 / np.sqrt(var + 0.001)
    m = Machine(GEN2)
    _put(m, 0x2F9B0, x)
    _put(m, 0x2F370, dy)
    _put(m, 0x2F368, mean[:, None])
    _put(m, 0x18, vf[:, None])
    execute(m, "dve", decode_bundle(grad, decisions=ds), ds)
    sums = _get(m, 0x30, 3)
    _put(m, 0x20, (gamma * vf / n)[:, None])
    _put(m, 0x24, sums[:, 0:2])
    execute(m, "dve", decode_bundle(load, decisions=ds), ds)
    execute(m, "dve", decode_bundle(back, decisions=ds), ds)
    X, DY, M = x.astype(np.float64), dy.astype(np.float64), mean.astype(np.float64)[:, None]
    xhat = (X - M) * vf[:, None]
    want = gamma[:, None] * vf[:, None] / n * (n * DY - DY.sum(1, keepdims=True)
                                                - xhat * (DY * xhat).sum(1, keepdims=True))
    return _get(m, 0x40, n).astype(np.float64), want


def test_the_real_bundles_compute_hlo_batch_norm_grad() -> None:
    got, want = _small_graph(DecisionSet())
    assert np.abs(got - want).max() <= 1e-6 * np.abs(want).max()


def test_the_books_order_of_the_sums_does_not() -> None:
    got, want = _small_graph(DecisionSet.parse(["S-72=book"]))
    assert np.abs(got - want).max() > 1e-3 * np.abs(want).max()


def test_every_real_sequence_runs() -> None:
    """Every stream's bundles in stream order on random SBUF contents: the addresses, counts and latches of
    every real bundle are consistent (0x65 always finds its 0x64 latched; one graph has only 0x63s)."""
    rng = np.random.default_rng(3)
    seqs: dict[tuple[str, str], list[bytes]] = defaultdict(list)
    for b in bundles():
        seqs[(b.file.relative, b.stream)].append(b.raw)
    assert len(seqs) == 3
    for seq in seqs.values():
        m = Machine(GEN2)
        m.sbuf[:] = rng.integers(0x30, 0x40, size=m.sbuf.size, dtype=np.uint8)  # finite float32 everywhere
        for raw in seq:
            execute(m, "dve", decode_bundle(raw), DecisionSet())
        assert ("bn_params" in m.engines["dve"].latched) == (LOAD in {raw[0] for raw in seq})


def test_backprop_without_param_load_stops() -> None:
    back = distinct(BACK)[0]
    with pytest.raises(SimError, match="no BatchNormParamLoad before it"):
        execute(Machine(GEN2), "dve", decode_bundle(back), DecisionSet())


GRAD_ONLY = "yolox-trn1/MODULE_12365272536577238319.neff"


@pytest.mark.parametrize("reading", ["S-72=dataflow", "S-72=book"])
def test_the_third_sum_is_hlo_grad_scale(reading: str) -> None:
    """MODULE_12365272536577238319 outputs batch-norm-grad's tuple element 1 (grad_scale = sum dy (x - m) vf,
    vf = rsqrt(var + eps)); its Activation engine copies the third sum of each of its two 0x63 bundles (+0x28,
    +0x34) to the output. The third sum is grad_scale under S-72's default only."""
    first = next(b.raw for b in bundles(GRAD) if b.file.relative == GRAD_ONLY)
    assert (u32(first, 0x30), u16(first, 0x36)) == (0x20, 3)  # its sums at +0x20, +0x24, +0x28
    rng = np.random.default_rng(12)
    n = elements3(first, 0x10)
    x, dy = rng.normal(size=(128, n)).astype(np.float32), rng.normal(size=(128, n)).astype(np.float32)
    mean = rng.normal(size=128).astype(np.float32)
    vf = rng.uniform(0.5, 2.0, size=128).astype(np.float32)
    m = Machine(GEN2)
    _put(m, u32(first, 0x10), x)
    _put(m, u32(first, 0x20), dy)
    _put(m, u32(first, 0x0C), mean[:, None])
    _put(m, u32(first, 0x38), vf[:, None])
    ds = DecisionSet.parse([reading])
    execute(m, "dve", decode_bundle(first, decisions=ds), ds)
    got = _get(m, 0x28, 1)[:, 0].astype(np.float64)
    want = ((x.astype(np.float64) - mean[:, None]) * dy).sum(axis=1) * vf
    assert np.allclose(got, want, rtol=1e-5, atol=1e-4) is (reading == "S-72=dataflow")


def test_bir_golden_vectors_are_real_bundles() -> None:
    """The BNGradients / BNBackprop golden vectors expect the real bundles (their kernels reproduce them)."""
    from corpus_bundles import vector_is_real

    f = "yolox-trn1/MODULE_10954531377403532558.neff"
    vector_is_real("batchnorm/001_bn_gradients_real_bundle.json", f, "dve", [5])
    vector_is_real("batchnorm/002_bn_backprop_real_pair.json", f, "dve", [8, 9])
