"""Semantics of the Pool-engine (GPSIMD) opcodes on real bundles (bytes copied from the corpus NEFFs named
beside each), run one at a time on a fresh gen2 machine. The expected values are worked out by hand from
the fields the bundle's bytes hold (stated beside each), never from the simulator.
"""

from __future__ import annotations

import numpy as np
import pytest

from tongasm.decode.bundle import decode_bundle
from tongasm.isa import DecisionSet, get_target
from tongasm.sim.execute import execute
from tongasm.sim.machine import Machine, SimError

GEN2 = get_target("gen2")

# yolox-trn1/MODULE_10080151182636209274.neff pool bundle 5 (I-18787-0_TSPAddAddr):
# src sb[p0:103]+0x18000 int32 (1 element), s0 = imm 4 (int32), s1 = ptr 0x50 (uint64 per partition),
# op0 mult (6), op1 add (4), dst sb[p0:103]+0x58 uint64 (1 element)
TSP_ADD_ADDR = bytes.fromhex(
    "74100000051a1303500000000080010001000100010001000400000000000000"
    "5000000000000000181800010604670000000000580000000100010001000100")
# yolox-trn1/MODULE_10101716439099106427.neff pool bundle 1 (I-42-0): src sb[p0:1]+0x2fff0 int32, 3 elements,
# s0 = imm 1, s1 = imm -1 (both int32), mult then add: dst sb[p0:1]+0x20 int32 = in*1 + (-1)
DECREMENT = bytes.fromhex(
    "741000000506130305000000f0ff020001000100030001000100000000000000"
    "ffffffffffffffff888800000604010000000000200000000100010003000100")
# causal-attention-trn1/model_3c6ff38f.neff pool bundle 4 (IDAffineSelect): 128 lanes, bf16 in/out at
# sb[p0:128]+0xc250 [128], compare 3, fill register r61, offset 0, pattern step 1 x 128, channel_multiplier -1
AFFINE_SELECT_ID = bytes.fromhex(
    "9210000005061303040000008066033d00000000010001000100010080000100"
    "0100010050c20000010001008000010050c200000100010080000100ffffffff")
# yolox-trn1/MODULE_15847435347519622229.neff pool bundle 3 (I-12579-3): Iota base 3, pattern slot 0
# {step 5, num 16}, slot 1 {step 0, num 80}, channel_multiplier 0, 105 lanes, int32 dst sb+0x5dc0 [1280]
IOTA_BASE3 = bytes.fromhex(
    "7e10000005061303e20900000300000005000000010001001000500001000100"
    "000869000000000000000000c05d000001000100010001000005010001000100")
# yolox-trn1/MODULE_11369514141456202230.neff pool bundle 1 (I-65-0): 9 lanes, 1 element, channel_multiplier 1
IOTA_CHANNEL = bytes.fromhex(
    "7e10000005061303020000000000000001000100010001000100010001000100"
    "0008090001000000000000000000000101000100010001000100010001000100")
# yolox-trn1/MODULE_14856528739640727327.neff pool bundle 4664 (a custom op header, sub_opcode 0)
CUSTOM_HEADER = bytes.fromhex(
    "8510000005060000663200000500000400000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000")
# yolox-trn1/MODULE_15847435347519622229.neff pool bundle 16 (PoolBufferLoad)
POOL_BUFFER_LOAD = bytes.fromhex(
    "6710000005060000000a000058ff820101000100010001000600010001000100"
    "0a0006000000000000000000ff01000000000000000000000000000000000000")


def _sb(m: Machine, partition: int, byte: int, values: np.ndarray) -> None:
    """Write ``values`` ([P, n] in their dtype) at ``byte`` of partitions ``partition``...``partition + P - 1``."""
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(values.shape[0], -1)
    for i, row in enumerate(raw):
        at = (partition + i) * m.sbuf_stride + byte
        m.sbuf[at:at + row.size] = row


def _read(m: Machine, partition: int, byte: int, P: int, n: int, dtype: type) -> np.ndarray:
    size = np.dtype(dtype).itemsize * n
    rows = [m.sbuf[(partition + i) * m.sbuf_stride + byte:(partition + i) * m.sbuf_stride + byte + size] for i in range(P)]
    return np.stack(rows).view(dtype).reshape(P, n)


def _run(raw: bytes, m: Machine, decisions: tuple[str, ...] = ()) -> None:
    ds = DecisionSet.parse(decisions)
    execute(m, "pool", decode_bundle(raw, decisions=ds), ds)


def test_the_bundles_decode_as_their_comments_say() -> None:
    f = decode_bundle(TSP_ADD_ADDR).fields
    assert (f["src.addr"], f["num_partitions"], f["s0_kind"], f["s0_value"], f["s1_kind"], f["s1_value"]) == \
        (0x18000, 103, 0, 4, 1, 0x50)
    assert (f["src_dtype"], f["dst_dtype"], f["s0_dtype"], f["s1_dtype"], f["op0"], f["op1"]) == (8, 1, 8, 1, 6, 4)
    f = decode_bundle(AFFINE_SELECT_ID).fields
    assert (f["num_partitions"], f["src_dtype"], f["dst_dtype"], f["compare"], f["fill_reg"]) == (128, 6, 6, 3, 61)
    assert (f["offset"], f["pstep0"], f["pnum0"], f["src.addr"], f["dst.addr"]) == (0, 1, 128, 0xC250, 0xC250)
    assert f["channel_multiplier"] == -1
    f = decode_bundle(IOTA_BASE3).fields
    assert (f["base"], f["pstep0"], f["pnum0"], f["pstep1"], f["pnum1"], f["num_partitions"]) == (3, 5, 16, 0, 80, 105)


def test_tensor_scalar_addr_computes_index_times_four_plus_the_per_partition_base() -> None:
    m = Machine(GEN2)
    idx = (np.arange(103, dtype=np.int32) * 3 - 50).reshape(103, 1)
    base = (np.uint64(0x1000_0000_0000) + np.arange(103, dtype=np.uint64) * np.uint64(16)).reshape(103, 1)
    _sb(m, 0, 0x18000, idx)
    _sb(m, 0, 0x50, base)
    _run(TSP_ADD_ADDR, m)
    got = _read(m, 0, 0x58, 103, 1, np.uint64)
    # by hand: p*3 - 50 times 4 plus 0x1000_0000_0000 + 16p, as a 64-bit address
    want = np.array([[(0x1000_0000_0000 + 16 * p + 4 * (3 * p - 50)) % (1 << 64)] for p in range(103)], np.uint64)
    assert (got == want).all()


def test_tensor_scalar_addr_with_two_immediates_decrements() -> None:
    m = Machine(GEN2)
    _sb(m, 0, 0x2FFF0, np.array([[7, 0, -2147483648]], np.int32))
    _run(DECREMENT, m)
    # 7*1 - 1 = 6; 0 - 1 = -1; INT32_MIN - 1 wraps to INT32_MAX in the int32 out dtype (S-75 int64, wrapped)
    assert _read(m, 0, 0x20, 1, 3, np.int32).tolist() == [[6, -1, 2147483647]]


def test_tensor_scalar_addr_fp32_reading_loses_the_low_address_bits() -> None:
    m = Machine(GEN2)
    _sb(m, 0, 0x18000, np.ones((103, 1), np.int32))
    _sb(m, 0, 0x50, np.full((103, 1), (1 << 40) + 1, np.uint64))
    _run(TSP_ADD_ADDR, m, ("S-75=fp32",))
    # 1*4 + 2^40 + 1 = 2^40 + 5; float32 keeps 24 bits: 2^40
    assert (_read(m, 0, 0x58, 103, 1, np.uint64) == np.uint64(1 << 40)).all()


def _bf16(x: np.ndarray) -> np.ndarray:
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype(np.uint16)


def test_affine_select_builds_the_identity_from_zeros_and_a_fill_of_one() -> None:
    m = Machine(GEN2)
    _sb(m, 0, 0xC250, _bf16(np.zeros((128, 128))))
    m.set_reg("pool", 61, 0x3F800000)  # the RegisterMove before it: r61 = 1.0f
    _run(AFFINE_SELECT_ID, m)
    # value f - p; not equal to 0 keeps the input (0), equal (the diagonal) takes the fill 1.0
    assert (_read(m, 0, 0xC250, 128, 128, np.uint16) == _bf16(np.eye(128))).all()


def test_affine_select_keeps_the_input_off_the_diagonal() -> None:
    m = Machine(GEN2)
    x = np.arange(128 * 128, dtype=np.float32).reshape(128, 128) % 7 + 2
    _sb(m, 0, 0xC250, _bf16(x))
    m.set_reg("pool", 61, 0xC0400000)  # -3.0f
    _run(AFFINE_SELECT_ID, m)
    want = np.where(np.eye(128, dtype=bool), -3.0, x)
    assert (_read(m, 0, 0xC250, 128, 128, np.uint16) == _bf16(want)).all()


def test_affine_select_unknown_compare_code_stops() -> None:
    raw = bytearray(AFFINE_SELECT_ID)
    raw[0x0E] = 1
    m = Machine(GEN2)
    with pytest.raises(SimError, match="compare code 1"):
        ds = DecisionSet()
        d = decode_bundle(bytes(raw), decisions=ds)
        execute(m, "pool", d, ds)


def test_iota_slot0_pattern_from_the_real_bytes() -> None:
    m = Machine(GEN2)
    _run(IOTA_BASE3, m)
    got = _read(m, 0, 0x5DC0, 105, 1280, np.int32)
    # slot 0 (innermost) {5, 16}, slot 1 {0, 80}: element k = i1*16 + i0 holds 3 + 5*i0, every partition alike
    want = np.array([[3 + 5 * (k % 16) for k in range(1280)]] * 105, np.int32)
    assert (got == want).all()


def test_iota_channel_multiplier_gives_the_partition_index() -> None:
    m = Machine(GEN2)
    _sb(m, 64, 0, np.full((9, 1), 77, np.int32))  # dst sb[p64:9]+0 (ADDR4 0x01000000)
    _run(IOTA_CHANNEL, m)
    assert _read(m, 64, 0, 9, 1, np.int32).ravel().tolist() == list(range(9))


def test_custom_op_stops_naming_its_function() -> None:
    m = Machine(GEN2)
    m.custom_functions = {0: "partial_sort_multicore_compute", 1: "partial_merge_multicore_compute"}
    with pytest.raises(SimError, match="custom op 'partial_sort_multicore_compute'.*sub_opcode 0.*S-77"):
        _run(CUSTOM_HEADER, m, ("S-121=stop",))  # the sort pair runs under S-121's default (test_sim_sortmerge)
    m.custom_functions = {0: "some_other_function"}
    with pytest.raises(SimError, match="custom op 'some_other_function'.*sub_opcode 0.*S-77"):
        _run(CUSTOM_HEADER, m)
    with pytest.raises(SimError, match="sub_opcode 0 of opcode 133 .no ucode_lib.json"):
        _run(CUSTOM_HEADER, Machine(GEN2))


# yolox-trn1/MODULE_15847435347519622229.neff pool bundle 17 (Gather): src sb[p96:6]+0x148 uint32 (one per lane),
# dst sb[p96:6]+0xc000 float32 (one per lane), depth 256
GATHER = bytes.fromhex(
    "6810000000001303000000004801800101000100010001000100010001000100"
    "090a0600000100000000000000c0800101000100010001000100010001000100")


def test_gather_picks_each_lanes_element_by_index() -> None:
    m = Machine(GEN2)
    table = np.array([[10.0 * p + j for j in range(6)] for p in range(6)], np.float32)
    _sb(m, 96, 0x2FF58, table)  # the PoolBufferLoad's src: 6 lanes x 6 float32
    _sb(m, 96, 0x148, np.array([[5 - p] for p in range(6)], np.uint32))
    _run(POOL_BUFFER_LOAD, m)
    _run(GATHER, m)
    # lane p: element 5 - p of its own buffer = 10p + 5 - p
    assert _read(m, 96, 0xC000, 6, 1, np.float32).ravel().tolist() == [10.0 * p + 5 - p for p in range(6)]


def test_gather_index_past_the_buffer_stops() -> None:
    m = Machine(GEN2)
    _sb(m, 96, 0x148, np.full((6, 1), 6, np.uint32))
    _run(POOL_BUFFER_LOAD, m)
    with pytest.raises(SimError, match="index 6 is past the pool buffer's 6 elements"):
        _run(GATHER, m)


def test_gather_without_a_buffer_load_stops() -> None:
    with pytest.raises(SimError, match="no PoolBufferLoad before it"):
        _run(GATHER, Machine(GEN2))


def test_gather_pair_stops_under_s78_stop() -> None:
    with pytest.raises(SimError, match="gather pair .*not simulated under S-78=stop"):
        _run(POOL_BUFFER_LOAD, Machine(GEN2), ("S-78=stop",))


# yolox-trn1/MODULE_14856528739640727327.neff pool bundles 5063/5064: the buffer loads 142 float32 on lanes p32..p33,
# the Gather reads indices on p96..p97 and writes p0..p1 (lanes counted from each operand's start, S-78)
PBL_P32 = bytes.fromhex(
    "671000000506000000330000c8fb820001000100010001008e00010001000100"
    "0a0002000000000000000000ff01000000000000000000000000000000000000")
GATHER_P96 = bytes.fromhex(
    "68100000000013030000000050f7810101000100010001000100010001000100"
    "090a020000010000000000006083000001000100010001000100010001000100")


def test_gather_lanes_are_counted_from_each_operands_start() -> None:
    m = Machine(GEN2)
    _sb(m, 32, 0x2FBC8, np.array([np.arange(142) * 0.5, np.arange(142) * -1.0], np.float32))
    _sb(m, 96, 0x1F750, np.array([[141], [7]], np.uint32))
    _run(PBL_P32, m)
    _run(GATHER_P96, m)
    # lane 0: element 141 of lane 0 (p32) = 70.5; lane 1: element 7 of lane 1 (p33) = -7.0
    assert _read(m, 0, 0x8360, 2, 1, np.float32).ravel().tolist() == [70.5, -7.0]


def test_bir_tensor_scalar_addr_is_integer_address_arithmetic() -> None:
    """TensorScalarPtr with is_tensor_scalar_addr from BIR, on the Pool engine: dst = src * 28 + base[p]
    (an immediate and a [P,1] pointer, as the real IndirectLoad address bundles), int32 (S-75)."""
    from conftest import ap, imm, inst, kernel, loc
    from tongasm.ir import read_bir
    from tongasm.sim.run import run_kernel

    b = np.zeros((128, 16384), np.int32)
    b[:3, 0:4] = [[0, 1, 2, 3], [5, -1, 7, 0], [2, 2, 2, 2]]
    b[:3, 8] = [1000, 2000, -50]
    k = kernel(inst("TensorScalarPtr", [ap("b", "int32", [[16384, 3], [1, 4]]), imm("int32", 28),
                                        ap("b", "int32", [[16384, 3], [1, 1]], 8)],
                    [ap("b", "int32", [[16384, 3], [1, 4]], 16)], engine="Pool", op0="mult", op1="add",
                    reverse0=False, reverse1=False, is_tensor_scalar_addr=True),
               allocs=[loc("b")])
    out = run_kernel(read_bir(k), {"b": b}).outputs(["b"])["b"]
    np.testing.assert_array_equal(out[:3, 16:20], b[:3, 0:4] * 28 + b[:3, 8:9])
