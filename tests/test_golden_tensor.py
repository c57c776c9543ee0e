"""Golden vectors for the tensor family, ADDR4 and the TENSOR descriptors, derived by hand from SPEC
§3.3, §3.4 and §4.4–§4.9. Each expected string is laid out byte group by byte group with its
derivation; none was copied from tongasm's output."""

from __future__ import annotations

from conftest import ap, fails, hx, imm, inst, kernel, loc, one, reg, reg_ap, streams

NO_SYNC = "00 00 00 00 00000000"
ALLOCS = [loc("a", "SB", dims=(128, 65536)), loc("b", "SB", addr=0x40, base=32, dims=(64, 1024)),
          loc("ps", "PSUM", addr=0x100, bank=2, dims=(128, 2048)), loc("d", "DRAM", dims=(1, 4096)),
          loc("m", "SB", addr=0x8000, dims=(128, 4096))]
F32 = [[512, 128], [1, 512]]  # a dense 128 x 512 tile


def sp(text: str) -> str:
    return "".join(text.split())


def tt(op, in0, in1, out, engine="DVE", **kw):
    return kernel(inst("TensorTensor", [in0, in1], [out], engine=engine, op=op, **kw), allocs=ALLOCS,
                  registers={"r": 7})


# TENSOR3D of a dense [[512,128],[1,512]] tile at SBUF byte A: ADDR4 A, steps (1,1,1), nums (512,1,1)
def t3(addr_le: str) -> str:
    return addr_le + "0100 0100 0100" + "0002 0100 0100"


def test_tensor_tensor_add_float32():
    got = one(tt("add", ap("a", "float32", F32), ap("a", "float32", F32, offset=512), ap("a", "float32", F32,
                                                                                          offset=1024)))
    assert got == hx(
        "41 10 0000" + NO_SYNC +
        "aa"    # +0x0C in0 wire(float32)=0xA in the lo nibble, in1 0xA in the hi nibble
        "0a"    # +0x0D out dtype
        "04"    # +0x0E ALU add
        "80"    # +0x0F num_partitions 128 (in0's partition pair)
        # in0 +0x10, in1 +0x20, out +0x30 (the real NEFFs fix +0x10 as an input)
        # in0: offset 0 → ADDR4 0
        + t3("00000000")
        # in1: offset 512 x 4 = 0x800
        + t3("00080000")
        # out: offset 1024 elements x 4 B = 4096 B; dims[1] = 65536 → partition 0, byte 0x1000 (D-5)
        + t3("00100000")
    )


def test_bitvec_op_takes_0x51_and_bypass_stays_0x41():
    a = ap("a", "int32", F32)
    assert one(tt("bitwise_and", a, a, a))[:2] == "51"       # D-12: bit-vector class → 0x51
    assert one(tt("logical_shift_left", a, a, a))[:2] == "51"
    assert one(tt("bypass", a, a, a))[:2] == "41"            # D-12: bypass stays arithmetic
    assert one(tt("logical_and", a, a, a))[:2] == "41"       # logical_* are arithmetic class
    assert one(tt("is_equal", a, a, a))[:2] == "41"


def test_compare_ops_write_remapped_bytes():
    a = ap("a", "float32", F32)
    for op, byte in {"not_equal": "18", "is_gt": "13", "is_ge": "14", "is_lt": "16", "is_le": "15"}.items():
        assert one(tt(op, a, a, a))[0x0E * 2:0x0F * 2] == byte, op


def test_gpsimd_int32_override_gen2_d13():
    i = ap("a", "int32", F32)
    add = one(tt("add", i, i, i, engine="Pool"))
    assert add[:2] == "8a" and add[0x0C * 2:0x10 * 2] == "8808c480"  # in dtypes 8|8, out 8, band byte 0xC4
    mult = one(tt("mult", i, i, i, engine="Pool"))
    assert mult[:2] == "8e" and mult[0x0E * 2:0x0F * 2] == "c5"
    sub = one(tt("subtract", i, i, i, engine="Pool"))
    assert sub[:2] == "41" and sub[0x0E * 2:0x0F * 2] == "05"       # gen2 override is add/mult only
    assert one(tt("add", i, i, i, engine="DVE"))[:2] == "41"        # D-13: gated on the Pool engine
    f = ap("a", "float32", F32)
    assert one(tt("add", i, i, f, engine="Pool"))[:2] == "41"       # all three must be int32


def test_gpsimd_int32_band_gen3_d21():
    i = ap("a", "int32", F32)
    for op, byte in {"add": "c4", "subtract": "c6", "mult": "c5", "divide": "c7"}.items():
        got = one(tt(op, i, i, i, engine="Pool"), target="gen3")
        assert got[:2] == "41" and got[0x0E * 2:0x0F * 2] == byte, op
    assert one(tt("max", i, i, i, engine="Pool"), target="gen3")[0x0E * 2:0x0F * 2] == "08"
    assert one(tt("add", i, i, i, engine="DVE"), target="gen3")[0x0E * 2:0x0F * 2] == "04"


def test_descriptor_drops_degenerate_pairs_and_packs_innermost_first():
    # free pairs [256,2] [1,1] [16,8] [2,4]: [1,1] dropped; slot 0 = [2,4], slot 1 = [16,8], slot 2 = [256,2]
    x = ap("a", "float32", [[2048, 128], [256, 2], [1, 1], [16, 8], [2, 4]])
    got = one(tt("add", x, x, x))
    assert got[0x10 * 2:0x20 * 2] == sp("00000000" "0200 1000 0001" "0400 0800 0200")


def test_descriptor_zero_and_negative_steps():
    z = ap("a", "float32", [[0, 128], [0, 512]])         # broadcast: step 0 passes through, no flag
    n = ap("a", "float32", [[512, 128], [-1, 512]], offset=511)  # reverse walk: step -1 = 0xFFFF
    got = one(tt("add", z, n, z))
    assert got[0x30 * 2:0x40 * 2] == sp("00000000" "0000 0100 0100" "0002 0100 0100")  # out at +0x30
    assert got[0x20 * 2:0x30 * 2] == sp("fc070000" "ffff 0100 0100" "0002 0100 0100")  # in1: 511 x 4 = 0x7FC


def test_addr4_sbuf_offset_crosses_partitions():
    # b: SB base 32, addr 0x40, dims [64, 1024]; offset 2563 bf16 = 5126 B → partition 32 + 5 = 37,
    # byte 0x40 + 6 = 0x46; ADDR4 = 37 << 18 | 0x46 = 0x00940046
    x = ap("b", "bfloat16", [[512, 32], [1, 512]], offset=2563)
    got = one(tt("add", x, x, x))
    assert got[0x10 * 2:0x14 * 2] == "46009400"
    assert got[0x0C * 2:0x10 * 2] == "66060420"  # bf16 nibbles 6|6, out 6, add 04, 32 partitions


def test_addr4_psum_bank_and_offset():
    # ps: PSUM base 0, addr 0x100, bank 2, dims [128, 2048]; offset 1540 f32 = 6160 B → partition 3,
    # byte 0x100 + 16 = 0x110, + bank 2 x 2048 = 0x1110; ADDR4 = 0x2000000 + (3 << 15) + 0x1110 = 0x02019110
    p = ap("ps", "float32", [[512, 64], [1, 64]], offset=1540)
    a = ap("a", "float32", [[512, 64], [1, 64]])
    got = one(tt("add", a, a, p))
    assert got[0x30 * 2:0x34 * 2] == "10910102"  # out at +0x30


def test_addr4_register_mode():
    r = reg_ap("r", "float32", F32, "a_set")
    got = one(tt("add", r, r, r))
    assert got[0x20 * 2:0x24 * 2] == "07000080"  # 0x80000000 | 7


def test_descriptor_errors():
    a = ap("a", "float32", F32)
    four = ap("a", "float32", [[4096, 128], [512, 2], [64, 2], [8, 2], [1, 8]])
    assert ("Illegal ISA memory access dimension 4, which must be in range of [1, 3]D tensor for ISA mem pattern"
            in str(fails(tt("add", four, a, a))))
    sym = {"kind": "symbolic_ap", "dtype": "float32", "ap": F32, "memsetref": "a_set"}
    assert "codegen stage can only have PhysicalAP or RegisterAP, no SymbolicAP is allowed" in str(fails(tt("add", sym, a, a)))
    regoff = reg_ap("r", "float32", F32, "a_set", is_regloc_offset=True)
    assert "offset register cannot be applied to 32bit Addressing in ISA" in str(fails(tt("add", regoff, a, a)))
    assert "DRAM" in str(fails(tt("add", ap("d", "float32", [[1, 1], [1, 64]]), a, a)))
    big = ap("a", "float32", [[512, 128], [40000, 2]])
    e = fails(tt("add", big, a, a))
    assert "40000" in str(e) and "-32768..32767" in str(e)
    neg_part = ap("a", "float32", [[-512, 128], [1, 512]])
    assert "Negative step in Pattern[0]" in str(fails(tt("add", neg_part, a, a)))
    zero_num = ap("a", "float32", [[512, 128], [1, 0]])
    assert "1..65535" in str(fails(tt("add", zero_num, a, a)))


def test_tensor_tensor_errors():
    a = ap("a", "float32", F32)
    p = ap("ps", "float32", [[512, 64], [1, 64]])
    assert "GPSIMD engine cannot access PSUM" in str(fails(tt("add", p, a, a, engine="Pool")))
    pa = ap("a", "float32", [[512, 64], [1, 64]])
    assert one(tt("add", pa, pa, p, engine="Pool"))  # output in PSUM is not the rule's concern
    assert "acc" in str(fails(tt("add", a, a, a, acc="Zero")))
    assert "Invalid enum variant for enum AluOpType" in str(fails(tt("average", a, a, a)))
    packed = ap("a", "float8_e4m3fn_x4", F32)
    assert "D-26" in str(fails(tt("add", packed, a, a), target="gen3"))
    assert one(tt("add", packed, a, a))  # gen2 maps packed dtypes through the LUT


# --- CopyPredicated family (SPEC §4.5) -------------------------------------------------------------

def cp(ins, dst, **attrs):
    return kernel(inst("CopyPredicated", ins, [dst], engine="DVE", **attrs), allocs=ALLOCS, registers={"r": 7})


M = ap("m", "uint8", F32)     # mask at SBUF 0x8000
S = ap("a", "float32", F32)   # src at 0
D = ap("a", "float32", F32, offset=4096)  # dst at 0x4000


def test_copy_predicated_same_dtype_0x72():
    got = one(cp([M, S], D))
    assert got == hx(
        "72 10 0000" + NO_SYNC +
        "a3"     # +0x0C mask wire(uint8)=3 lo nibble, src wire(float32)=0xA hi nibble
        "0a"     # +0x0D dst dtype
        "00"     # +0x0E no ALU byte on this band
        "80"     # +0x0F num_partitions of the mask
        + t3("00800000")   # +0x10 mask
        + t3("00000000")   # +0x20 src
        + t3("00400000")   # +0x30 dst
    )


def test_cast_predicated_0x99():
    got = one(cp([M, ap("a", "bfloat16", F32)], D))
    assert got[:2] == "99" and got[0x0C * 2:0x0E * 2] == "630a"


def test_copy_predicated_scalar_0xe8():
    got = one(cp([M, imm("float32", -2.0)], D))
    assert got == hx(
        "e8 10 0000" + NO_SYNC + "00000000"
        + t3("00400000")     # +0x10 dst
        + "03"               # +0x20 mask dtype uint8
        + "01"               # +0x21 polarity 1: reverse_pred false (D-14)
        + "80"               # +0x22 num_partitions of dst
        + "000000 000000"    # +0x23..+0x28
        + "0a"               # +0x29 scalar dtype float32
        + "0a"               # +0x2A dst dtype
        + "000000c0"         # +0x2B -2.0f = 0xC0000000 (unaligned u32)
        + "00"               # +0x2F
        + t3("00800000")     # +0x30 mask
    )
    rev = one(cp([M, imm("float32", -2.0)], D, reverse_pred=True))
    assert rev[0x21 * 2:0x22 * 2] == "00"


def test_select_reduce_0xea_with_zero_fill():
    m2 = ap("m", "uint8", F32)
    got = one(cp([m2, S, imm("float32", 0.0)], D, op="max", acc="ZeroAccumulate"))
    # TENSOR2D of the dense tile: ADDR4, steps (1, 1), nums (512, 1)
    t2 = lambda a: a + "0100 0100" + "0002 0100"  # noqa: E731
    assert got == hx(
        "ea 10 0000" + NO_SYNC
        + t2("00000000")     # +0x0C src TENSOR2D (D-15)
        + t2("00400000")     # +0x18 dst TENSOR2D
        + "00"               # +0x24 copy ALU byte: bypass
        + "08"               # +0x25 reduce ALU byte: max
        + "01"               # +0x26 use-false-fill: a fill is given (D-14)
        + "00"               # +0x27 fill: 0.0f bit pattern fits one byte (D-16)
        + "a3"               # +0x28 mask uint8 lo nibble, src float32 hi nibble
        + "0a"               # +0x29 dst dtype
        + "80"               # +0x2A num_partitions of the mask
        + "0a"               # +0x2B fill dtype float32
        + "03"               # +0x2C accumulation ZeroAccumulate → 3
        + "000000"
        + t2("00800000")     # +0x30 mask TENSOR2D
    )


def test_select_reduce_register_fill_and_no_fill():
    reg_fill = one(cp([M, S, reg("r", "float32")], D, op="max"))
    assert reg_fill[0x26 * 2:0x28 * 2] == "0107" and reg_fill[0x2B * 2:0x2C * 2] == "0a"
    no_fill = one(cp([M, S], D, op="max", acc="AddAccumulate"))
    assert no_fill[0x26 * 2:0x28 * 2] == "0000" and no_fill[0x2B * 2:0x2D * 2] == "0002"


def test_copy_predicated_errors():
    assert "Non-scalar and Non-Reduce CopyPredicated cannot have reverse predication" in str(
        fails(cp([M, S], D, reverse_pred=True)))
    assert "fill" in str(fails(cp([M, S, imm("float32", 0.0)], D)))
    assert "fill" in str(fails(cp([M, imm("float32", 1.0), imm("float32", 0.0)], D)))
    assert "acc" in str(fails(cp([M, imm("float32", 1.0)], D, acc="Zero")))
    assert "Immediate value type must match output type" in str(fails(cp([M, imm("bfloat16", 1.0)], D)))
    e = fails(cp([M, S, imm("float32", -1e30)], D, op="max"))
    assert "D-16" in str(e) and "+0.0" in str(e)
    assert "reverse_pred" in str(fails(cp([M, S], D, op="max", reverse_pred=True)))
    assert "scalar" in str(fails(cp([M, imm("float32", 1.0)], D, op="max")))
    assert "Invalid enum variant for enum EngineAccumulationType" in str(fails(cp([M, S], D, op="max", acc="Accumulate")))


# --- Select lowering (SPEC §4.6, D-17, D-24) ---------------------------------------------------------

def test_select_lowers_to_copy_then_predicated_copy():
    sync = {"wait": {"mode": "sem_ge_imm", "index": 1, "value": 2}, "update": {"mode": "sem_inc", "index": 3}}
    F = ap("a", "float32", F32, offset=8192)  # on_false at 0x8000
    k = kernel(inst("Select", [M, S, F], [D], engine="DVE", sync=sync), allocs=ALLOCS)
    copy, pred = streams(k)["dve"]
    # GenericCopy(dst ← on_false) encodes as TensorCopy 0x46, carrying the wait (D-24)
    assert copy[:24] == "461000000501000002000000"
    assert copy[0x0C * 2:0x10 * 2] == "00800000" and copy[0x2C * 2:0x30 * 2] == "00400000"
    # CopyPredicated(mask, src = on_true) → 0x72 carrying the update (D-24)
    assert pred[:24] == "721000000000130300000000"


def test_select_scalar_on_false_lowers_to_memset():
    k = kernel(inst("Select", [M, S, imm("float32", 1.0)], [D], engine="DVE"), allocs=ALLOCS)
    ms, pred = streams(k)["dve"]
    assert ms[:2] == "49" and ms[0x28 * 2:0x2C * 2] == "0000803f"  # 1.0f bit pattern in the dst dtype (D-17b)
    assert pred[:2] == "72"


def test_select_routes_both_parts_to_its_engine():
    F = ap("a", "float32", F32, offset=8192)
    k = kernel(inst("Select", [M, S, F], [D], engine="Activation"), allocs=ALLOCS)
    assert list(streams(k)) == ["act"] and len(streams(k)["act"]) == 2


# --- TensorCopy (SPEC §4.7) --------------------------------------------------------------------------

def t4(addr_le: str, step0="0100", num0="0002") -> str:
    return addr_le + step0 + "0100 0100 0100" + num0 + "0100 0100 0100"


def test_tensor_copy_same_dtype_0x46():
    k = kernel(inst("TensorCopy", [S], [D], engine="DVE"), allocs=ALLOCS)
    assert one(k) == hx(
        "46 10 0000" + NO_SYNC
        + t4("00000000")    # +0x0C src TENSOR4D
        + "0a 0a 80"        # +0x20 src dtype, +0x21 dst dtype, +0x22 num_partitions of src
        + "00 00 00"        # +0x23..+0x25 (+0x25 reserved)
        + "000000 000000"   # +0x26..+0x2B
        + t4("00400000")    # +0x2C dst TENSOR4D
    )


def test_tensor_copy_cast_0x47_and_generic_copy():
    k = kernel(inst("TensorCopy", [ap("a", "bfloat16", F32)], [D], engine="DVE"), allocs=ALLOCS)
    got = one(k)
    assert got[:2] == "47" and got[0x20 * 2:0x23 * 2] == "060a80"
    # uint8 and float8_e8m0fnu share wire 0x03 but are different BIR dtypes → still a cast
    k = kernel(inst("TensorCopy", [ap("m", "uint8", F32)], [ap("m", "float8_e8m0fnu", F32)], engine="DVE"),
               allocs=ALLOCS)
    assert one(k)[:2] == "47"
    g = kernel(inst("GenericCopy", [S], [D], engine="DVE"), allocs=ALLOCS)
    assert one(g)[:2] == "46"  # D-17: GenericCopy encodes as TensorCopy


def test_tensor_copy_4d():
    x = ap("a", "float32", [[4096, 128], [1024, 2], [256, 2], [16, 4], [1, 8]])
    got = one(kernel(inst("TensorCopy", [x], [x], engine="DVE"), allocs=ALLOCS))
    assert got[0x0C * 2:0x20 * 2] == sp("00000000" "0100 1000 0001 0004" "0800 0400 0200 0200")


# --- Memset (SPEC §4.8) ------------------------------------------------------------------------------

def ms(dst, mode="Const", constant=0, engine="DVE"):  # constant: the raw fill bits (constant_bits)
    return kernel(inst("Memset", [], [dst], engine=engine, mode=mode, constant_bits=constant), allocs=ALLOCS)


def test_memset_const_bf16():
    x = ap("b", "bfloat16", [[512, 32], [2, 16], [1, 32]])
    got = one(ms(x, constant=0x3F80))
    assert got == hx(
        "49 10 0000" + NO_SYNC + "00" * 16  # +0x0C..+0x1B
        + "00020000"    # +0x1C element count per partition = 16 x 32 = 512
        + "06 00 20"    # +0x20 dtype bf16, +0x22 num_partitions 32
        + "00 00000000"
        + "803f0000"    # +0x28 fill value, raw 32 bits
        # +0x2C dst TENSOR4D: SBUF partition 32, byte 0x40 → 0x00800040; slots: [1,32] then [2,16]
        + "40008000" "0100 0200 0100 0100" "2000 1000 0100 0100"
    )


def test_memset_random_and_errors():
    x = ap("a", "float32", F32)
    assert one(ms(x, "Random"))[:2] == "4d"
    assert "Random" in str(fails(ms(x, "Random", 5)))
    assert "has unimplemented Memset Mode" in str(fails(ms(x, 2)))
    assert "do not fit" in str(fails(ms(ap("b", "bfloat16", [[512, 32], [1, 32]]), constant=0x10000)))
    assert "do not fit" in str(fails(ms(x, constant=2**32)))


# --- MoveShape (SPEC §4.9, D-20) ----------------------------------------------------------------------

def test_move_shape_in_and_out():
    x = ap("d", "float32", [[0, 1], [64, 3], [1, 64]])
    k = kernel(inst("MoveShape", [x], []), allocs=ALLOCS)
    assert one(k) == hx(
        "b2 10 0000" + NO_SYNC
        + "0001"          # +0x0C u16 constant 0x0100
        + "01 00"         # +0x0E flag 1
        + "00"            # +0x10 is-output 0 (the AP is in ins)
        + "00" * 15
        # +0x20 byte steps, innermost first: 1 x 4, 64 x 4; unused = element size 4
        + "04000000 00010000 04000000 04000000"
        # +0x30 u16 counts, innermost first: 64, 3, unused 1 (D-20)
        + "4000 0300 0100 0100"
    )
    k = kernel(inst("MoveShape", [], [x]), allocs=ALLOCS)
    assert one(k)[0x10 * 2:0x11 * 2] == "01"


def test_move_shape_errors():
    six = ap("d", "float32", [[0, 1], [1, 2], [1, 2], [1, 2], [1, 2], [1, 2]])
    assert "ImmPattern.size() <= SHAPE_REGISTER_SIZE + 1" in str(fails(kernel(inst("MoveShape", [six]), allocs=ALLOCS)))
    ind = ap("d", "float32", [[0, 1], [1, 2]], indirect_dim=1)
    assert "Hardware Restriction: Shape registers doesn't work with TensorIndirect AP" in str(
        fails(kernel(inst("MoveShape", [ind]), allocs=ALLOCS)))
    neg = ap("d", "float32", [[0, 1], [-1, 2]])
    assert "negative" in str(fails(kernel(inst("MoveShape", [neg]), allocs=ALLOCS)))


# --- refusals (SPEC §4.10) ------------------------------------------------------------------------------

def test_refused_and_unsupported_opcodes():
    for op in ("Load", "Save"):
        assert "DMA" in str(fails(kernel(inst(op, [S], [D]), allocs=ALLOCS)))
    assert "lowered upstream" in str(fails(kernel(inst("TensorDequantize", [S], [D]), allocs=ALLOCS)))
    e = fails(kernel(inst("Dropout", [S], [D]), allocs=ALLOCS))
    assert "unsupported opcode 'Dropout'" in str(e)
