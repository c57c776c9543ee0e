"""The DVE data-movement family (LoadMaskSelect 0x69, StreamShuffle 0x6A, StreamTranspose 0x6B):
hand-derived bundles decoded and listed, the lane-mask text form and its refusals, and the
semantics on small hand-made machines (S-65..S-68).

Bundles are packed here byte by byte from the layout the real bytes show (R-50..R-54), never with
tongasm's encoder, and the expected values are worked out by hand from the rule under test.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from tongasm.decode.bundle import decode_bundle
from tongasm.errors import TongasmError
from tongasm.isa.decisions import DecisionSet
from tongasm.isa.targets import GEN2
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError
from tongasm.text.assembler import assemble_text
from tongasm.text.listing import StreamInput, listing

F32, BF16, I32 = 0x0A, 0x06, 0x08
P = 1 << 18  # D-5: an SBUF address is (partition << 18) | byte


def mask_bundle(lanes: list[int], wait: bytes = bytes(8)) -> bytes:
    """0x69: header, sync band, 20 zero bytes (R-50), the 32 lane bytes at +0x20."""
    assert len(lanes) == 32
    return bytes([0x69, 0x10, 0, 0]) + wait + bytes(20) + bytes(lanes)


def ap(addr: int, nums: tuple[int, ...], steps: tuple[int, ...] = (1, 1, 1, 1)) -> bytes:
    """TENSOR4D: ADDR4, four i16 steps, four u16 counts (SPEC §3.4), innermost first."""
    nums = tuple(nums) + (1,) * (4 - len(nums))
    return struct.pack("<I4h4H", addr, *steps, *nums)


def move_bundle(op: int, src: bytes, dst: bytes, dtype: int = F32, channels: int = 32, use_mask: int = 0) -> bytes:
    """0x6A / 0x6B: src TENSOR4D +0x0C, dtypes +0x20/+0x21, channels u32 +0x22, +0x26 flag, dst +0x2C."""
    raw = bytes([op, 0x10, 0, 0]) + bytes(8) + src + bytes([dtype, dtype]) + struct.pack("<I", channels)
    raw += bytes([use_mask]) + bytes(5) + dst
    assert len(raw) == 64
    return raw


def run(m: Machine, *bundles: bytes, ds: DecisionSet | None = None) -> None:
    for raw in bundles:
        execute(m, "dve", decode_bundle(raw), ds or DecisionSet())


def rows(m: Machine) -> np.ndarray:
    return m.sbuf.reshape(GEN2.sbuf_partitions, m.sbuf_stride)


def put_f32(m: Machine, partition: int, byte: int, values: np.ndarray) -> None:
    rows(m)[partition, byte:byte + 4 * values.size] = values.astype(np.float32).view(np.uint8)


def get_f32(m: Machine, partition: int, byte: int, n: int) -> np.ndarray:
    return rows(m)[partition, byte:byte + 4 * n].copy().view(np.float32)


# --- decode and text ---------------------------------------------------------------------------------

MASK_HEX = ("69100000" "05080000" "10000000" + "00" * 20 + "03ff001f" + "ff" * 28)


def test_mask_bundle_decodes_by_hand() -> None:
    raw = bytes.fromhex(MASK_HEX)
    d = decode_bundle(raw)
    assert d.fmt.name == "LoadMaskSelect"
    assert [d.fields[f"lane{i}"] for i in range(4)] == [3, 0xFF, 0, 31]
    assert all(d.fields[f"lane{i}"] == 0xFF for i in range(4, 32))
    assert (d.fields["wait_mode"], d.fields["wait_idx"], d.fields["sync_value"]) == (5, 8, 16)


def test_mask_text_and_back() -> None:
    raw = bytes.fromhex(MASK_HEX)
    (line,) = [ln for ln in listing([StreamInput("dve", raw)], target=GEN2) if ln.startswith("0")]
    assert line.split("|  ", 1)[1] == "LoadMaskSelect mask=[3,-,0,31,-*28], wait sem8>=16"
    prog = assemble_text(".target gen2\n.stream dve\nLoadMaskSelect mask=[3, -, 0, 0x1f, -*28], wait sem8>=16\n")
    assert bytes(prog.streams["dve"]) == raw


@pytest.mark.parametrize("text", ["mask=[0*31]", "mask=[0*33]", "mask=[256,-*31]", "mask=0", "mask=[0*0,-*32]",
                                  "mask=[x*32]"])
def test_mask_text_refusals(text: str) -> None:
    with pytest.raises(TongasmError):
        assemble_text(f".target gen2\n.stream dve\nLoadMaskSelect {text}\n")


def test_shuffle_and_transpose_text_by_hand() -> None:
    shuffle = move_bundle(0x6A, ap(32 * P + 0x100, (4,)), ap(0, (4,)))
    transpose = move_bundle(0x6B, ap(0, (1, 1, 1, 32), (1, 1, 1, 0)), ap(64 * P + 0x40, (20,)), BF16, use_mask=1)
    lines = [ln.split("|  ", 1)[1] for ln in listing([StreamInput("dve", shuffle + transpose)], target=GEN2)
             if ln.startswith("0")]
    # the src's {1,1} slots inside its outermost (step-0) dim keep their places in the text
    assert lines == [
        "StreamShuffle src=sb[p32:32]+0x100[1x4].float32, dst=sb[p0:32][1x4].float32",
        "StreamTranspose src=sb[p0:32][0x32][1x1][1x1][1x1].bfloat16, dst=sb[p64:32]+0x40[1x20].bfloat16, use_mask=1",
    ]
    text = ".target gen2\n.stream dve\n" + "\n".join(lines) + "\n"
    assert bytes(assemble_text(text).streams["dve"]) == shuffle + transpose


# --- semantics ---------------------------------------------------------------------------------------

def test_shuffle_copies_the_lanes_the_mask_names() -> None:
    """S-65: dst lane i = src lane mask[i]; 0xFF leaves the dst partition alone."""
    m = Machine(GEN2)
    for p in range(32):
        put_f32(m, p, 0x100, np.array([p, p + 0.5, -p, 100 + p]))
        put_f32(m, 32 + p, 0, np.full(4, -7.0))
    lanes = [31 - i if i < 16 else 0xFF for i in range(32)]
    run(m, mask_bundle(lanes), move_bundle(0x6A, ap(0x100, (4,)), ap(32 * P, (4,))))
    for i in range(32):
        want = [31 - i, 31 - i + 0.5, -(31 - i), 131 - i] if i < 16 else [-7.0] * 4
        assert get_f32(m, 32 + i, 0, 4).tolist() == want


def test_shuffle_applies_the_mask_to_every_quadrant() -> None:
    """S-65: with 64 channels the same mask serves partitions 0..31 and 32..63 of each side."""
    m = Machine(GEN2)
    for p in range(64):
        put_f32(m, p, 0, np.array([float(p)]))
    run(m, mask_bundle([1] * 32), move_bundle(0x6A, ap(0, (1,)), ap(0x10, (1,)), channels=64))
    assert [get_f32(m, p, 0x10, 1)[0] for p in (0, 31, 32, 63)] == [1.0, 1.0, 33.0, 33.0]


def test_the_mask_lasts_until_the_next_load() -> None:
    """S-68: a second shuffle without a new 0x69 reuses the mask; a new 0x69 replaces it."""
    m = Machine(GEN2)
    for p in range(32):
        put_f32(m, p, 0, np.array([float(p)]))
    shuffle = move_bundle(0x6A, ap(0, (1,)), ap(0x10, (1,)))
    run(m, mask_bundle([2] * 32), shuffle)
    put_f32(m, 2, 0, np.array([9.0]))
    run(m, shuffle)
    assert get_f32(m, 5, 0x10, 1)[0] == 9.0
    run(m, mask_bundle([4] + [0xFF] * 31), shuffle)
    assert (get_f32(m, 0, 0x10, 1)[0], get_f32(m, 5, 0x10, 1)[0]) == (4.0, 9.0)


def test_transpose_without_mask() -> None:
    """S-67: dst[i, j] = src[j, i] over a full 32 x 32 block (no mask read: the engine has none)."""
    m = Machine(GEN2)
    block = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)  # block[j, i]: partition j, element i
    for j in range(32):
        put_f32(m, 32 + j, 0, block[j])
    run(m, move_bundle(0x6B, ap(32 * P, (32,)), ap(0x200, (32,))))
    for i in (0, 7, 31):
        assert get_f32(m, i, 0x200, 32).tolist() == [32.0 * j + i for j in range(32)]


def test_transpose_of_a_partial_block_with_a_write_mask() -> None:
    """S-66 write-enable: 20 src partitions x 32 elements, mask of 5 zero lanes: dst partitions 0..4 get
    20 elements (src[j, i] for j < 20); partitions 5..31 keep their bytes."""
    m = Machine(GEN2)
    for j in range(20):
        put_f32(m, j, 0, np.array([100.0 * j + i for i in range(32)]))
    for i in range(32):
        put_f32(m, 64 + i, 0, np.full(20, -1.0))
    lanes = [0] * 5 + [0xFF] * 27
    run(m, mask_bundle(lanes), move_bundle(0x6B, ap(0, (32,)), ap(64 * P, (20,)), use_mask=1))
    assert get_f32(m, 64 + 3, 0, 20).tolist() == [100.0 * j + 3 for j in range(20)]
    assert get_f32(m, 64 + 5, 0, 20).tolist() == [-1.0] * 20


def test_transpose_mask_as_lane_index() -> None:
    """S-66=lane-index: every enabled lane takes the column its byte names (all 0 here: column 0)."""
    m = Machine(GEN2)
    for j in range(2):
        put_f32(m, j, 0, np.array([10.0 * j + i for i in range(32)]))
    ds = DecisionSet.parse(["S-66=lane-index"])
    run(m, mask_bundle([0] * 3 + [0xFF] * 29), move_bundle(0x6B, ap(0, (32,)), ap(0x80, (2,)), use_mask=1), ds=ds)
    assert [get_f32(m, i, 0x80, 2).tolist() for i in range(3)] == [[0.0, 10.0]] * 3


def test_transpose_of_a_repeated_column() -> None:
    """R-54: src {1 x 32} with an outer step of 0 reads one element 32 times: each dst lane gets it."""
    m = Machine(GEN2)
    for j in range(4):
        put_f32(m, j, 0x20, np.array([float(j + 1)]))
    run(m, move_bundle(0x6B, ap(0x20, (1, 1, 1, 32), (1, 1, 1, 0)), ap(0x40, (4,))))
    assert get_f32(m, 17, 0x40, 4).tolist() == [1.0, 2.0, 3.0, 4.0]


def test_the_simulator_stops_without_a_mask() -> None:
    m = Machine(GEN2)
    with pytest.raises(SimError, match="LoadMaskSelect"):
        run(m, move_bundle(0x6A, ap(0, (1,)), ap(0x10, (1,))))
    with pytest.raises(SimError, match="LoadMaskSelect"):
        run(m, move_bundle(0x6B, ap(0, (32,)), ap(0x200, (4,)), use_mask=1))


def test_the_simulator_stops_on_a_converting_move() -> None:
    raw = bytearray(move_bundle(0x6B, ap(0, (32,)), ap(0x200, (4,))))
    raw[0x21] = BF16
    with pytest.raises(SimError, match="converts"):
        run(Machine(GEN2), bytes(raw))


def test_the_simulator_stops_on_a_partial_quadrant() -> None:
    with pytest.raises(SimError, match="quadrant"):
        run(Machine(GEN2), mask_bundle([0] * 32), move_bundle(0x6A, ap(0, (1,)), ap(0x10, (1,)), channels=48))


# --- the golden listing (every opcode needs one: tests/test_golden_listings.py) --------------------------

GOLDEN_LISTING = Path(__file__).parent / "golden" / "listings" / "move" / "move.s"
#: The bundles of the golden listing: the hand-packed mask above, then three real bundles: a mask of
#: five zero lanes (13,244 real bundles hold it), a StreamTranspose with use_mask of
#: MODULE_10080151182636209274's DVE stream and MODULE_10119949978640653758's first StreamShuffle;
#: then the hand-packed shuffle and transpose.
GOLDEN_BUNDLES = (
    MASK_HEX,
    "69100000000000000000000000000000000000000000000000000000000000000000000000ffffffffffffffffffffff"
    "ffffffffffffffffffffffffffffffff",
    "6b10000000001306000000000000800101000100010001002000010001000100060620000000010000000000f8960200010001"
    "00010001002000010001000100",
    "6a1000000000130600000000f8bf0200010001000100010001000100010001000a0a200000000000000000000000000001000100"
    "010001000100010001000100",
)


def test_the_golden_listing_is_current_and_assembles_back() -> None:
    data = b"".join(bytes.fromhex(h) for h in GOLDEN_BUNDLES)
    data += move_bundle(0x6A, ap(32 * P + 0x100, (4,)), ap(0, (4,)))
    data += move_bundle(0x6B, ap(0, (1, 1, 1, 32), (1, 1, 1, 0)), ap(64 * P + 0x40, (20,)), BF16, use_mask=1)
    text = GOLDEN_LISTING.read_text()
    body = [ln for ln in text.splitlines() if not ln.startswith(";")]
    assert body == list(listing([StreamInput("dve", data)], target=GEN2))
    assert bytes(assemble_text(text).streams["dve"]) == data


# --- the BIR forms, assembled and run (the lowering's mask and channel count reach the simulator) ------------

def _run_move(inst_: dict, x: np.ndarray) -> np.ndarray:
    from conftest import kernel, loc
    from tongasm.ir import read_bir
    from tongasm.sim.run import run_kernel

    r = run_kernel(read_bir(kernel(inst_, allocs=[loc("a")])), {"a": x})
    return r.outputs(["a"])["a"]


def test_bir_stream_shuffle_runs_the_mask_it_was_given() -> None:
    """StreamShuffle(mask) from BIR: dst lane i = src lane mask[i]; lane 5 (255) is left alone (S-65)."""
    from conftest import ap, inst

    x = np.arange(128 * 16384, dtype=np.float32).reshape(128, 16384)
    x[:, 256:260] = -1.0
    mask = [31 - i for i in range(32)]
    mask[5] = 255
    out = _run_move(inst("StreamShuffle", [ap("a", "float32", [[16384, 32], [1, 4]])],
                         [ap("a", "float32", [[16384, 32], [1, 4]], 256)], engine="DVE", mask=mask), x.copy())
    for i in range(32):
        want = x[31 - i, 0:4] if i != 5 else np.full(4, -1.0, np.float32)
        np.testing.assert_array_equal(out[i, 256:260], want)


@pytest.mark.parametrize("k", [5, 32])
def test_bir_stream_transpose_writes_its_dst_partitions_only(k: int) -> None:
    """StreamTranspose from BIR of a [20, 32] tile into [k, 20]: dst[i, j] = src[j, i] (S-67); with k = 5 the
    lowering's mask (R-55) keeps partitions 5..31 of the dst untouched (S-66)."""
    from conftest import ap, inst

    x = np.arange(128 * 16384, dtype=np.float32).reshape(128, 16384)
    x[:, 512:532] = -7.0
    out = _run_move(inst("StreamTranspose", [ap("a", "float32", [[16384, 20], [1, 32]])],
                         [ap("a", "float32", [[16384, k], [1, 20]], 512)], engine="DVE"), x.copy())
    np.testing.assert_array_equal(out[:k, 512:532], x[:20, :k].T)
    if k < 32:
        assert (out[k:32, 512:532] == -7.0).all()
