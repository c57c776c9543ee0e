"""The sort custom ops partial_sort_multicore_compute / partial_merge_multicore_compute (S-121) on their real
bundles (bytes copied from yolox-trn1/MODULE_14856528739640727327.neff, the first HLO sort's chain
I-37129 -> I-37137 -> I-37145 -> I-37153), run on a fresh gen2 machine with hand-made keys. The expected values
are worked out by hand from the keys (stated beside each), never from the simulator.
"""

from __future__ import annotations

import numpy as np
import pytest

from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError

GEN2 = get_target("gen2")
N = 142
_HDR0 = "8510000005060000663200000500000400000000000000000000000000000000" + "0" * 64
_HDR1 = "8510000005030000910000000500010400000000000000000000000000000000" + "0" * 64


def _payload(dtype: int, rank: int, dims: tuple[int, int], addr: int, count: int, last: bool = False) -> bytes:
    """A CustomOpPayload as the real ones are laid out (R-72): +0x0F = 1, +0x10 = 1, dtype +0x12, rank +0x18,
    dims +0x1A / +0x1C, ADDR4 +0x28, count +0x2C, 1 at +0x30, count again +0x34."""
    raw = bytearray(64)
    raw[0], raw[1], raw[0x0F], raw[0x10], raw[0x12] = 0x86, 0x10, 1, 1, dtype
    raw[0x18:0x1E] = b"".join(v.to_bytes(2, "little") for v in (rank, *dims))
    raw[0x28:0x38] = b"".join(v.to_bytes(4, "little") for v in (addr, count, 1, count))
    if last:  # the real last payload's sync band: upd sem3++
        raw[6:8] = b"\x13\x03"
    return bytes(raw)


def _pairs(addr: int) -> bytes:  # float32 x 284 (w18 2, w1a 1, w1c 142)
    return _payload(10, 2, (1, N), addr, 2 * N)


def _scalar(addr: int, last: bool = False) -> bytes:  # int32 x 1
    return _payload(8, 1, (0, 0), addr, 1, last)


# I-37129-0 (pool bundles 4664..4669): out p0+0xadd0 f32 x 284, keys p96+0x18008 f32 x 142, values p64+0x8350
# int32 x 142, scalars p96+0x8580 and p96+0x8578
SORT = [bytes.fromhex(_HDR0), _pairs(0xADD0), _payload(10, 1, (N, 0), 0x1818008, N),
        _payload(8, 1, (N, 0), 0x1008350, N), _scalar(0x1808580), _scalar(0x1808578, True)]
# I-37137-0: out p0+0x2fb90, in p0+0xadd0, count p96+0x194b0 (8), the same two scalars
MERGE8 = [bytes.fromhex(_HDR1), _pairs(0x2FB90), _pairs(0xADD0), _scalar(0x18194B0), _scalar(0x1808580),
          _scalar(0x1808578, True)]
# I-37145-0: out p96+0x1a8, in p0+0x2fb90, count p96+0x194b8 (4)
MERGE4 = [bytes.fromhex(_HDR1), _pairs(0x18001A8), _pairs(0x2FB90), _scalar(0x18194B8), _scalar(0x1808580),
          _scalar(0x1808578, True)]
# I-37153-0: out p96+0xc470, in p96+0x18250 (where the DMAs I-37147 / I-37148 reload I-37145's out), count
# p96+0x194e8 (2)
MERGE2 = [bytes.fromhex(_HDR1), _pairs(0x180C470), _pairs(0x1818250), _scalar(0x18194E8), _scalar(0x1808580),
          _scalar(0x1808578, True)]


def _at(m: Machine, partition: int, byte: int, n: int, dtype: type) -> np.ndarray:
    at = partition * m.sbuf_stride + byte
    return m.sbuf[at:at + n * np.dtype(dtype).itemsize].view(dtype)


def _machine(keys: np.ndarray, scalars: tuple[int, int] = (0, 1)) -> Machine:
    m = Machine(GEN2)
    m.custom_functions = {0: "partial_sort_multicore_compute", 1: "partial_merge_multicore_compute"}
    m.custom_cpus = 8
    _at(m, 96, 0x18008, N, np.float32)[:] = keys
    _at(m, 64, 0x8350, N, np.int32)[:] = np.arange(N)  # the HLO sort's s32 iota
    _at(m, 96, 0x8580, 1, np.int32)[:] = scalars[0]
    _at(m, 96, 0x8578, 1, np.int32)[:] = scalars[1]
    for byte, count in ((0x194B0, 8), (0x194B8, 4), (0x194E8, 2)):
        _at(m, 96, byte, 1, np.int32)[:] = count
    return m


def _run(m: Machine, bundles: list[bytes], decisions: tuple[str, ...] = ()) -> None:
    ds = DecisionSet.parse(decisions)
    for raw in bundles:
        execute(m, "pool", decode_bundle(raw, decisions=ds), ds)


# the real bytes of I-37129-0's first payload and I-37137-0's fourth (pool bundles 4665 and 4681)
REAL_PAIRS = "8610000000000000000000000000000101000a0000000000020001008e0000000000000000000000d0ad00001c010000010000001c01" \
             "00000000000000000000"
REAL_SCALAR = "86100000000000000000000000000001010008000000000001000000000000000000000000000000808580010100000001000000" \
              "010000000000000000000000"


def test_the_bundles_decode_as_the_real_ones() -> None:
    assert _pairs(0xADD0).hex() == REAL_PAIRS and _scalar(0x1808580).hex() == REAL_SCALAR
    f = [decode_bundle(b).fields for b in SORT]
    assert (f[0]["function"], f[0]["payloads"], f[0]["num_args"]) == (0, 5, 4)
    assert [(x["addr"], x["arg_dtype"], x["w2c"]) for x in f[1:]] == [
        (0xADD0, 10, 284), (0x1818008, 10, 142), (0x1008350, 8, 142), (0x1808580, 8, 1), (0x1808578, 8, 1)]
    assert decode_bundle(MERGE2[0]).fields["function"] == 1


def test_partial_sort_sorts_eight_chunks_carrying_the_values() -> None:
    m = _machine(np.arange(N - 1, -1, -1, dtype=np.float32))  # key i = 141 - i: descending
    _run(m, SORT)
    out = _at(m, 0, 0xADD0, 2 * N, np.float32)
    # chunks of ceil(142/8) = 18: [0,18), ..., [108,126), [126,142); each one reversed
    want_idx = [lo + hi - 1 - i for lo, hi in [(18 * r, min(18 * r + 18, N)) for r in range(8)] for i in range(lo, hi)]
    assert out[N:].tolist() == [float(i) for i in want_idx]  # the values as float32
    assert out[:N].tolist() == [float(N - 1 - i) for i in want_idx]  # the keys beside them


def test_the_chain_of_four_sorts_the_whole_row() -> None:
    keys = np.array([(i * 53) % N for i in range(N)], np.float32) - 70.5  # a permutation of -70.5 .. 70.5
    m = _machine(keys)
    _run(m, SORT)
    _run(m, MERGE8)
    _run(m, MERGE4)
    _at(m, 96, 0x18250, 2 * N, np.float32)[:] = _at(m, 96, 0x1A8, 2 * N, np.float32)  # the spill + reload DMAs
    _run(m, MERGE2)
    out = _at(m, 96, 0xC470, 2 * N, np.float32)
    inv = pow(53, -1, N)  # the key v - 70.5 sits at index v * 53^-1 mod 142
    assert out[N:].tolist() == [float((v * inv) % N) for v in range(N)]
    assert out[:N].tolist() == [v - 70.5 for v in range(N)]


def test_a_merge_in_place() -> None:
    m = _machine(np.zeros(N, np.float32))
    # count 2: two runs of 4 chunks each, keys [0, 72) and [72, 142): evens 0..142, then odds 1..139
    runs = np.concatenate([np.arange(72, dtype=np.float32) * 2, np.arange(70, dtype=np.float32) * 2 + 1])
    _at(m, 96, 0x18250, N, np.float32)[:] = runs
    _at(m, 96, 0x18250 + 4 * N, N, np.float32)[:] = np.arange(N)
    same = MERGE2[:1] + [_pairs(0x1818250), _pairs(0x1818250)] + MERGE2[3:]
    _run(m, same)
    out = _at(m, 96, 0x18250, 2 * N, np.float32)
    assert out[:N].tolist() == [float(k) for k in range(140)] + [140.0, 142.0]
    # key 2j came from index j, key 2j + 1 from index 72 + j
    assert out[N:].tolist() == [float(k // 2 + (72 if k % 2 else 0)) for k in range(140)] + [70.0, 71.0]


def test_nan_keys_sort_in_total_order_or_stop() -> None:
    keys = np.full(N, 5.0, np.float32)
    keys[3] = np.float32(np.nan)  # +NaN: last
    keys[7] = -np.float32(np.nan)  # -NaN: first
    keys[9] = -1.0
    m = _machine(keys)
    _run(m, SORT)
    idx = _at(m, 0, 0xADD0 + 4 * N, 18, np.float32).tolist()  # chunk 0 = keys 0..17
    assert idx == [7.0, 9.0, 0.0, 1.0, 2.0, 4.0, 5.0, 6.0, 8.0, *[float(i) for i in range(10, 18)], 3.0]
    with pytest.raises(SimError, match="a NaN key; under S-121=sorted-runs-nan-stop"):
        _run(_machine(keys), SORT, ("S-121=sorted-runs-nan-stop",))


def test_other_scalars_stop_naming_the_function() -> None:
    with pytest.raises(SimError, match="'partial_sort_multicore_compute' .S-121.: its scalar arguments 3, 4 read 1, 1"):
        _run(_machine(np.zeros(N, np.float32), (1, 1)), SORT)


def test_an_unsorted_merge_input_stops() -> None:
    m = _machine(np.zeros(N, np.float32))
    _at(m, 0, 0xADD0, N, np.float32)[:] = np.arange(N, 0, -1)  # not 8 ascending runs
    with pytest.raises(SimError, match="input run 0 of 8 .keys 0..17. is not ascending"):
        _run(m, MERGE8)


def test_a_merge_count_past_the_cpus_stops() -> None:
    m = _machine(np.zeros(N, np.float32))
    _at(m, 96, 0x194B0, 1, np.int32)[:] = 16
    with pytest.raises(SimError, match="it merges 16 runs; S-121 models a power of two 2..8"):
        _run(m, MERGE8)


def test_under_stop_the_header_stops() -> None:
    with pytest.raises(SimError, match="custom op 'partial_sort_multicore_compute'.*sub_opcode 0.*S-77"):
        _run(_machine(np.zeros(N, np.float32)), SORT[:1], ("S-121=stop",))


def test_a_wrong_shape_stops() -> None:
    bad = SORT[:2] + [_payload(10, 1, (N - 1, 0), 0x1818008, N - 1)] + SORT[3:]
    with pytest.raises(SimError, match="argument 1: float32 x 141 .* S-121 models float32 x 142"):
        _run(_machine(np.zeros(N, np.float32)), bad)


def test_without_the_cpu_count_it_stops() -> None:
    m = _machine(np.zeros(N, np.float32))
    m.custom_cpus = None  # no ucode_lib.json total_cpus
    with pytest.raises(SimError, match="total_cpus is None; S-121 needs one power of two"):
        _run(m, SORT)
