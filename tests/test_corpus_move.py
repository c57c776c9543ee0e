"""The DVE data-movement family against every real bundle of the corpus: LoadMaskSelect 0x69,
StreamShuffle 0x6A, StreamTranspose 0x6B.

Every bundle of these opcodes in every stream of every corpus NEFF decodes to its layout, has no
byte its fields leave unexplained, passes every check, and its text assembles back to the same
bytes (the reference listing and the fast listing alike). The stream facts the layouts rest on
(R-52: a mask comes right before the bundle that uses it; R-53: +0x26 of a transpose is 1 exactly
after a mask) are counted here from the raw bytes, and two graphs are run against what their HLO
computes (S-65, S-67).
"""

from __future__ import annotations

import math
import struct
from collections import Counter
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from corpus_support import corpus_files
from tongasm.check.runner import check_bundle, check_stream
from tongasm.decode.bundle import decode_all
from tongasm.isa.decisions import DecisionSet
from tongasm.isa.formats import build_formats
from tongasm.isa.targets import GEN2
from tongasm.neff.neff import Neff
from tongasm.sim import numeric
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine
from tongasm.text.assembler import assemble_text
from tongasm.text.fast import fast_listing
from tongasm.text.listing import StreamInput, listing

OPS = {0x69: "LoadMaskSelect", 0x6A: "StreamShuffle", 0x6B: "StreamTranspose"}
#: The bundles of each opcode in the corpus (counted with a plain byte scan of every stream).
COUNTS = {0x69: 31_131, 0x6A: 327, 0x6B: 31_631}
MULTIPLY = "yolox-trn1/MODULE_10119949978640653758.neff"  # out = in1 [512,1024,1,1] * broadcast(in0 scalar)
CONVOLUTION = "yolox-trn1/MODULE_10747631036569739100.neff"  # out = conv(in1 [1,32,160,160], in0 [32,32,1,1])
BF16, F32 = 0x06, 0x0A


@dataclass(frozen=True)
class Stream:
    file: str
    name: str
    target: str
    data: bytes


@cache
def streams() -> tuple[Stream, ...]:
    """Every engine stream of the corpus that holds one of the family's opcodes."""
    out = []
    for cf in corpus_files():
        n = Neff.read(cf.path)
        for s in n.streams():
            data = n.stream_data(s)
            if any(data[i] in OPS for i in range(0, len(data), 64)):
                out.append(Stream(cf.relative, s.name, cf.target, bytes(data)))
    return tuple(out)


@cache
def distinct() -> tuple[bytes, ...]:
    seen = {s.data[i:i + 64] for s in streams() for i in range(0, len(s.data), 64) if s.data[i] in OPS}
    return tuple(sorted(seen))


def test_counts_and_where() -> None:
    count = Counter(s.data[i] for s in streams() for i in range(0, len(s.data), 64) if s.data[i] in OPS)
    assert dict(count) == COUNTS
    assert {(s.target, s.name.split(".")[1]) for s in streams()} == {("sunda", "dve")}
    assert len(streams()) == 36


def test_every_bundle_decodes_with_no_unexplained_byte_and_no_finding() -> None:
    fs = build_formats(DecisionSet())
    bad = []
    for raw in distinct():
        sel = fs.select(raw[0], raw)
        assert sel is not None, raw.hex()
        fmt, fields = sel
        assert fmt.name == OPS[raw[0]]
        mask = fmt.covered_mask()
        extra = [i for i in range(64) if raw[i] & ~mask[i] & 0xFF]
        findings = check_bundle(fmt, fields, raw, target=GEN2, stream="dve")
        if extra or findings:
            bad.append((raw.hex(), extra, [f.check for f in findings]))
    assert not bad, bad[:5]


def test_streams_check_clean_on_this_family() -> None:
    """check_stream (the vector path) over each whole stream: no finding on a bundle of the family."""
    for s in streams():
        fs = check_stream(s.data, target=GEN2, stream="dve", unmodelled="note")
        ours = [f for f in fs if f.offset is not None and s.data[f.offset] in OPS]
        assert not ours, (s.file, ours[:3])
        assert not [f for f in fs if f.check.startswith("dmov.")], s.file


def test_text_round_trips() -> None:
    """Reference listing → text assembler → the same bytes, and the fast listing prints the same text."""
    data = b"".join(distinct())
    lines = list(listing([StreamInput("dve", data)], target=GEN2))
    prog = assemble_text("\n".join(lines) + "\n")
    assert bytes(prog.streams["dve"]) == data
    assert list(fast_listing([StreamInput("dve", data)], target=GEN2)) == lines


def test_mask_comes_right_before_its_bundle() -> None:
    """R-52 and R-53 from the raw bytes: every 0x69 is followed by a 0x6A or 0x6B, every 0x6A follows a
    0x69, and a 0x6B has +0x26 = 1 exactly when a 0x69 comes right before it."""
    follows = Counter()
    flag = Counter()
    for s in streams():
        ops = s.data[::64]
        for i, o in enumerate(ops):
            prev = ops[i - 1] if i else None
            if o == 0x69:
                follows[ops[i + 1]] += 1
            if o == 0x6A:
                assert prev == 0x69
            if o == 0x6B:
                flag[(s.data[i * 64 + 0x26], prev == 0x69)] += 1
    assert follows == Counter({0x6B: 30_804, 0x6A: 327})
    assert flag == Counter({(1, True): 30_804, (0, False): 827})


def test_lane_masks_are_a_prefix_of_zero_lanes() -> None:
    """R-51: the real lane bytes are 0x00 or 0xFF (never the book's sentinel 0x20 | count), lane 0
    is always 0x00, and the zero lanes come first."""
    for raw in distinct():
        if raw[0] != 0x69:
            continue
        lanes = raw[0x20:0x40]
        k = lanes.count(0)
        assert set(lanes) <= {0, 0xFF} and lanes[0] == 0
        assert lanes == bytes(k) + b"\xff" * (32 - k)


def test_transpose_geometry_of_every_bundle() -> None:
    """R-54: the src holds 32 elements per partition (1,495 bundles repeat a column with an outer step
    of 0), the dst at most 32; dtypes are equal; the channel count is 32."""
    repeat = 0
    for raw in distinct():
        if raw[0] == 0x69:
            continue
        steps, nums = struct.unpack_from("<4h", raw, 0x10), struct.unpack_from("<4H", raw, 0x18)
        dnums = struct.unpack_from("<4H", raw, 0x38)
        assert raw[0x20] == raw[0x21] and struct.unpack_from("<I", raw, 0x22)[0] == 32
        if raw[0] == 0x6B:
            assert math.prod(nums) == 32 and 1 <= math.prod(dnums) <= 32
            repeat += steps[3] == 0
        else:
            assert math.prod(nums) == math.prod(dnums)
    assert repeat > 0


def _bundles(file: str, stream: str) -> list:  # type: ignore[type-arg]
    cf = next(c for c in corpus_files() if c.relative == file)
    n = Neff.read(cf.path)
    return decode_all(n.stream_data(n.graph("sg00").streams[stream]))


def test_multiply_graph_broadcasts_the_scalar() -> None:
    """S-65 against the HLO of MODULE_10119949978640653758: ``multiply(input1, broadcast_in_dim(input0))``.
    The scalar lands at partition 0 byte 0x2bff8 (the StreamShuffles' src); four all-zero masks and
    StreamShuffles to partitions 0, 32, 64, 96 must leave it at byte 0 of all 128 partitions, where the
    Activates read their scale (a [P,1] pointer to byte 0) to multiply input1."""
    m = Machine(GEN2)
    rows = m.sbuf.reshape(128, m.sbuf_stride)
    rows[0, 0x2BFF8:0x2BFFC] = np.frombuffer(np.float32(3.25).tobytes(), np.uint8)
    rows[1:32, 0x2BFF8:0x2BFFC] = 0x55  # other src partitions: a lane-for-lane copy would bring these
    for d in _bundles(MULTIPLY, "dve"):
        execute(m, "dve", d, DecisionSet())
    scale = rows[:, 0:4].copy().view(np.float32).ravel()
    assert np.all(scale == np.float32(3.25))


def test_convolution_graph_transposes_the_weights() -> None:
    """S-67 against the HLO of MODULE_10747631036569739100: a 1x1 convolution, out[o] = sum_i W[o,i] x[i].
    The weights W [32,32] arrive as bf16, row o at partition 32+o; the lone StreamTranspose then the PE's
    Ldweights and first Matmul (x at the Matmul's moving address, channel i at partition i) must put
    W @ x in PSUM: the PE's stationary is the transpose, W^T."""
    rng = np.random.default_rng(7)
    w = numeric.convert(rng.standard_normal((32, 32)).astype(np.float32), F32, BF16)
    x = numeric.convert(rng.standard_normal((32, 480)).astype(np.float32), F32, BF16)
    m = Machine(GEN2)
    rows = m.sbuf.reshape(128, m.sbuf_stride)
    rows[32:64, 0:64] = np.ascontiguousarray(w).view(np.uint8).reshape(32, 64)
    (transpose,) = [d for d in _bundles(CONVOLUTION, "dve") if d.opcode == 0x6B]
    execute(m, "dve", transpose, DecisionSet())
    pe = _bundles(CONVOLUTION, "pe")
    ld = next(d for d in pe if d.opcode == 0x01)
    mm = next(d for d in pe if d.opcode == 0x02)
    a = mm.fields["moving.addr"]
    part, off = a >> 18, a & 0x3FFFF
    rows[part:part + 32, off:off + 960] = np.ascontiguousarray(x).view(np.uint8).reshape(32, 960)
    execute(m, "pe", ld, DecisionSet())
    execute(m, "pe", mm, DecisionSet())
    p = mm.fields["psum.addr"] - 0x2000000
    bank = m.psum.reshape(128, -1)[(p >> 15):(p >> 15) + 32, (p & 0x7FFF):(p & 0x7FFF) + 480 * 4]
    got = bank.copy().view(np.float32)
    want = numeric.to_fp32(w, BF16) @ numeric.to_fp32(x, BF16)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert not np.allclose(got, numeric.to_fp32(w, BF16).T @ numeric.to_fp32(x, BF16), atol=1e-2)


@pytest.mark.parametrize("op", sorted(OPS))
def test_explain_has_no_unexplained_byte(op: int) -> None:
    from tongasm.text.explain import explain_bundle

    raws = [r for r in distinct() if r[0] == op]
    for raw in raws[:: max(1, len(raws) // 200)]:
        ex = explain_bundle(raw, target=GEN2, stream="dve")
        assert ex.layout == OPS[op] and not ex.unexplained and not ex.findings, raw.hex()


def test_every_real_bundle_of_the_family_runs_on_the_simulator() -> None:
    """Each stream's masks, shuffles and transposes in stream order on one machine: no view falls
    outside SBUF/PSUM and no bundle reads a mask before one is loaded (R-52, S-68)."""
    fs = build_formats(DecisionSet())
    ran = Counter()
    for s in streams():
        m = Machine(GEN2)
        for i in range(0, len(s.data), 64):
            if s.data[i] not in OPS:
                continue
            d = decode_all(s.data[i:i + 64], decisions=DecisionSet())[0]
            assert d.fmt is fs.select(s.data[i], s.data[i:i + 64])[0]  # type: ignore[index]
            execute(m, "dve", d, DecisionSet())
            ran[s.data[i]] += 1
    assert dict(ran) == COUNTS


def test_bir_golden_vectors_are_real_bundles() -> None:
    """The BIR forms' golden vectors expect the real bytes (their kernels were written to reproduce them)."""
    from corpus_bundles import vector_is_real

    vector_is_real("move/001_stream_shuffle_real_broadcast.json", MULTIPLY, "dve", [1, 2, 3, 4])
    vector_is_real("move/002_stream_transpose_real_partial.json", "yolox-trn1/MODULE_14856528739640727327.neff",
                   "dve", [5172, 5173])
    vector_is_real("move/003_stream_transpose_real_whole.json", "yolox-trn1/MODULE_10080151182636209274.neff",
                   "dve", [1213])


def _transpose_kernel(dst_parts: int, src_parts: int) -> dict:  # type: ignore[type-arg]
    def loc(name: str, addr: int, parts: int) -> dict:  # type: ignore[type-arg]
        return {"name": f"{name}_set", "memorylocations": [{"name": name, "type": "SB", "addr": addr, "base": 0,
                                                             "bank": 0, "dims": [parts, 128]}]}

    def ap(name: str, parts: int, n: int) -> dict:  # type: ignore[type-arg]
        return {"kind": "physical_ap", "dtype": "float32", "ap": [[n, parts], [1, n]], "offset": 0,
                "memsetref": f"{name}_set", "memref": name}

    inst = {"opcode": "StreamTranspose", "name": "t", "engine": "DVE", "ins": [ap("s", src_parts, 32)],
            "outs": [ap("d", dst_parts, src_parts)]}
    return {"arch": "gen2", "version": 2, "functions": [{"name": "f", "allocations": [
        loc("s", 0, src_parts), loc("d", 0x1000, dst_parts)], "blocks": [{"name": "b", "instructions": [inst]}]}]}


def test_r55_a_partial_transpose_gets_the_mask_every_real_one_has() -> None:
    """R-55: every real mask before a StreamTranspose is k lanes 0x00 then 0xFF with k < 32 (counted here
    from the raw bytes), and the BIR lowering of a dst of k partitions emits exactly that mask, then the
    0x6B with +0x26 = 1; a dst of 32 partitions is one 0x6B with +0x26 = 0 (the book's fork is the reverse)."""
    from tongasm.codegen import assemble
    from tongasm.ir import read_bir

    ks = Counter()
    for s in streams():
        a = np.frombuffer(s.data, np.uint8).reshape(-1, 64)
        for i in np.flatnonzero(a[:-1, 0] == 0x69):
            if a[i + 1, 0] == 0x6B:
                lanes = bytes(a[i, 0x20:0x40])
                k = 32 - lanes.count(0xFF)
                assert lanes == bytes(k) + b"\xff" * (32 - k) and 0 < k < 32
                assert a[i + 1, 0x26] == 1
                ks[k] += 1
    assert sum(ks.values()) == 30_804
    for k in (1, 5, 20, 29):
        (dve,) = assemble(read_bir(_transpose_kernel(k, 20))).streams.values()
        assert [dve[j * 64] for j in range(len(dve) // 64)] == [0x69, 0x6B]
        assert dve[0x20:0x40] == bytes(k) + b"\xff" * (32 - k)
        assert dve[64 + 0x26] == 1 and dve[64 + 0x22] == 32
    (dve,) = assemble(read_bir(_transpose_kernel(32, 32))).streams.values()
    assert len(dve) == 64 and dve[0] == 0x6B and dve[0x26] == 0
