"""Opcode 0x8C on the real bytes (R-60): every 0x8C bundle of the corpus (causal-attention-trn1, sunda,
neuronx-cc 2.23, 64 bundles, 32 distinct) has TensorReduce 0x42's byte map and differs from the 0x42
bundles of the same files only in reading a bfloat16 input; it decodes as TensorReduce, explains with
no unexplained byte, round-trips, passes the checks, and simulates as the sum nisa.tensor_reduce of the
kernel's source computes (or, under R-60=unknown, stops the simulator naming the opcode)."""

from __future__ import annotations

import struct

import ml_dtypes
import numpy as np
import pytest

from corpus_support import CorpusBundle, corpus_bundles
from tongasm.check import check_stream
from tongasm.decode.batch import decode_stream
from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError
from tongasm.text.assembler import assemble_text
from tongasm.text.explain import explain_bundle
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput

GEN2 = get_target("gen2")
BF16_REDUCE, TR = 0x8C, 0x42


def bundles(op: int) -> list[CorpusBundle]:
    return [b for b in corpus_bundles(frozenset({BF16_REDUCE, TR})) if b.raw[0] == op]


def distinct() -> list[bytes]:
    return sorted({b.raw for b in bundles(BF16_REDUCE)})


def test_census() -> None:
    bs = bundles(BF16_REDUCE)
    assert (len(bs), len(distinct())) == (64, 32)
    assert {b.file.relative for b in bs} == {"causal-attention-trn1/model_795597d1.neff",
                                            "causal-attention-trn1/model_e0afb7fc.neff"}
    assert {b.stream.split(".")[-1] for b in bs} == {"dve"}


def test_byte_map_is_0x42s_with_a_bf16_input() -> None:
    """Every 0x8C: bf16 in, fp32 out, 128 partitions, +0x23 0, op add (4), axis byte 2, zero elsewhere outside the
    two TENSOR4D slots; every 0x42 of the same files reads float32."""
    for raw in distinct():
        assert (raw[0x20], raw[0x21], raw[0x22], raw[0x23], raw[0x24], raw[0x25]) == (6, 10, 128, 0, 4, 2)
        assert raw[0x26:0x2C] == bytes(6)
        n_src = np.prod(struct.unpack_from("<4H", raw, 0x18))
        n_dst = np.prod(struct.unpack_from("<4H", raw, 0x38))
        assert (n_src, n_dst) == (1024, 1)
    files = {b.file.relative for b in bundles(BF16_REDUCE)}
    same_files = [b.raw for b in bundles(TR) if b.file.relative in files]
    assert same_files and {raw[0x20] for raw in same_files} == {10}


def test_decodes_explains_round_trips_and_passes_the_checks() -> None:
    data = b"".join(b.raw for b in bundles(BF16_REDUCE))
    cols = decode_stream(data)
    assert not cols.undecodable.any() and list(cols.groups) == ["TensorReduce"]
    for raw in distinct():
        ex = explain_bundle(raw, target=GEN2)
        assert ex.layout == "TensorReduce" and not ex.error and ex.unexplained == [], raw.hex()
    lines = list(fast_listing([StreamInput("attn.dve", data)], target=GEN2))
    assert all("TensorReduceBf16 op=add" in line for line in lines if line.startswith("0"))
    assert bytes(assemble_text("\n".join(lines)).streams["attn.dve"]) == data
    assert check_stream(data, name="attn.dve", target=GEN2, stream="dve") == []


def _run(raw: bytes, ds: DecisionSet) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(60)
    x = rng.uniform(0, 1, size=(128, 1024)).astype(ml_dtypes.bfloat16)
    m = Machine(GEN2)
    src, dst = struct.unpack_from("<I", raw, 0x0C)[0], struct.unpack_from("<I", raw, 0x2C)[0]
    a = x.view(np.uint8).reshape(128, -1)
    for p in range(128):
        m.sbuf[p * m.sbuf_stride + src:p * m.sbuf_stride + src + a.shape[1]] = a[p]
    execute(m, "dve", decode_bundle(raw, decisions=ds), ds)
    got = np.stack([m.sbuf[p * m.sbuf_stride + dst:p * m.sbuf_stride + dst + 4].view(np.float32) for p in range(128)])
    return got[:, 0].astype(np.float64), x.astype(np.float64).sum(axis=1)


def test_simulates_the_sum_of_its_bf16_input() -> None:
    got, want = _run(distinct()[0], DecisionSet())
    assert np.allclose(got, want, rtol=1e-5)


def test_r60_unknown_stops_the_simulator_naming_it() -> None:
    with pytest.raises(SimError, match="0x8c"):
        _run(distinct()[0], DecisionSet.parse(["R-60=unknown"]))
