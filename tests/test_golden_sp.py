"""Golden vectors for the SP register-lane ops and the header/sync band, derived by hand from SPEC
§3.2 and §4.1–§4.3. Each expected string is written byte group by byte group with its derivation;
none was copied from tongasm's output."""

from __future__ import annotations

from conftest import ap, fails, hx, imm, inst, kernel, loc, one, reg, reg_ap, streams

HDR_A7 = "a7 10 0000"  # +0x00 opcode, +0x01 inst_word_len 0x10 (D-1), +0x02 reserved u16
NO_SYNC = "00 00 00 00 00000000"  # +0x04..+0x0B: no wait, no update, shared value 0


def mv(src, dst, **kw):
    return kernel(inst("RegisterMove", [src], [dst], engine="SP", **kw), registers={"x": 4, "y": 9, "p": [10, 11]})


# --- RegisterMove 0xA7 (SPEC §4.1) ----------------------------------------------------------------

def test_move_register_to_register_int32():
    got = one(mv(reg("y"), reg("x")))
    assert got == hx(
        HDR_A7 + NO_SYNC +
        "01"          # +0x0C valid_num 1: 32-bit move
        "08"          # +0x0D dtype wire(int32) = 0x08
        "00"          # +0x0E src_mode 0: register source
        "00"          # +0x0F -
        "09 000000 00000000"  # +0x10 src register id 9 (y)
        "04"          # +0x18 dst register id 4 (x)
    )


def test_move_immediate_int32_negative_is_twos_complement():
    got = one(mv(imm("int32", -2), reg("x")))
    assert got == hx(
        HDR_A7 + NO_SYNC +
        "01 08 01 00"           # valid_num 1, wire(int32), src_mode 1 (immediate)
        "00000000 00000000"     # +0x10..+0x17 unused
        "04 00 000000 000000"   # +0x18 dst 4
        "feffffff"              # +0x20 u32 immediate: -2 as int32 two's complement (D-23)
    )


def test_move_immediate_float32_is_bitcast():
    # 1.5f = 0x3FC00000 (sign 0, exponent 127, mantissa 0x400000); D-23 bit-cast
    got = one(mv(imm("float32", 1.5), reg("x", "float32")))
    assert got == hx(HDR_A7 + NO_SYNC + "01 0a 01 00" + "00" * 8 + "04" + "00" * 7 + "0000c03f")


def test_move_immediate_uint32_as_is():
    got = one(mv(imm("uint32", 0xDEADBEEF), reg("x", "uint32")))
    assert got == hx(HDR_A7 + NO_SYNC + "01 09 01 00" + "00" * 8 + "04" + "00" * 7 + "efbeadde")


def test_move_64bit_immediate_into_pair():
    # int64 dst: valid_num 2, dtype written as wire(int32) 0x08, pair lo 10 / hi 11, u64 immediate
    got = one(mv(imm("int64", -1), reg("p", "int64")))
    assert got == hx(
        HDR_A7 + NO_SYNC +
        "02 08 01 00"          # valid_num 2, dtype 0x08, src_mode 1
        "00000000 00000000"
        "0a 0b 000000 000000"  # +0x18 dst lo 10, +0x19 dst hi 11, +0x1A..+0x1F
        "ffffffffffffffff"     # +0x20 u64: -1 as int64
    )


def test_move_64bit_literal_register_uses_n_and_n_plus_1():
    got = one(kernel(inst("RegisterMove", [imm("int64", 5)], [reg("r20", "int64")], engine="SP")))
    assert got[0x18 * 2:0x1A * 2] == "1415"  # r20 → lo 20 (0x14), hi 21 (0x15)


def test_move_errors():
    assert "64bit REG MOVE instr must have ImmediateValue src" in str(fails(mv(reg("y", "int64"), reg("p", "int64"))))
    for bad in ("int16", "uint64", "bfloat16", "int8"):
        e = fails(mv(imm(bad, 1), reg("x", bad)))
        assert "only support fp32/uint32/int32 for REG MOVE instr" in str(e), bad
    e = fails(mv(imm("int32", 2**31), reg("x")))
    assert "does not fit int32" in str(e)


# --- RegisterAlu 0xA8 (SPEC §4.2, D-7) ------------------------------------------------------------

def alu(op, src1, src2, dst, is_64bit=False):
    return kernel(inst("RegisterAlu", [src1, src2], [dst], engine="SP", op=op, is_64bit=is_64bit),
                  registers={"d": 1, "a": 2, "b": 3, "w": [6, 7]})


def test_alu_register_path():
    got = one(alu("subtract", reg("a"), reg("b"), reg("d")))
    assert got == hx(
        "a8 10 0000" + NO_SYNC +
        "05"      # +0x0C ALU wire(subtract) = 0x05
        "01"      # +0x0D register path: constant 1 (D-7)
        "00"      # +0x0E operand_mode 0: src2 is a register
        "00"      # +0x0F register path: 0 (D-7)
        "01 02 03 00"  # +0x10 dst 1, +0x11 src1 2, +0x12 src2 3, +0x13 third 0 (D-7)
    )


def test_alu_immediate_path_places_its_registers_at_0x10_and_0x14():
    """R-31 (the corpus's 2,704 RegisterAlus): registers at +0x10 and +0x14, +0x0F zero; R-103: +0x10 is the
    source (the corpus's chains read it), +0x14 the destination; under R-31=spec D-7's bytes."""
    k = alu("is_lt", reg("a", "uint32"), imm("uint32", 7), reg("d", "uint32"))
    assert one(k) == hx(
        "a8 10 0000" + NO_SYNC +
        "16"      # is_lt wire byte 0x16 (SPEC §2.2: the compare bytes are re-mapped)
        "09"      # +0x0D wire(src1 dtype uint32) = 0x09
        "01"      # operand_mode 1: immediate
        "00"      # +0x0F zero: no dst dtype
        "02 00 00 00"     # +0x10 src1 2; +0x11..+0x13 zero
        "01 00 00 00"     # +0x14 dst 1
        "07000000"        # +0x18 u32 immediate 7
    )
    assert one(k, decisions=("R-103=dst-at-0x10",)) == hx(
        "a8 10 0000" + NO_SYNC + "16" "09" "01" "00"
        "01 00 00 00"     # +0x10 dst 1 (R-31's first roles)
        "02 00 00 00"     # +0x14 src1 2
        "07000000"
    )
    assert one(k, decisions=("R-31=spec",)) == hx(
        "a8 10 0000" + NO_SYNC +
        "16" "09" "01"
        "09"      # +0x0F wire(dst dtype uint32) (D-7)
        "01 02 00 00"     # dst 1, src1 2, no src2, third 0 (D-7)
        "00000000"        # +0x14..+0x17
        "07000000"        # +0x18 u32 immediate 7
    )


def test_alu_64bit_register_path_has_dst_pair():
    got = one(alu("add", reg("a", "uint64"), reg("b", "uint64"), reg("w", "uint64"), is_64bit=True))
    assert got == hx("a8 10 0000" + NO_SYNC + "04 01 00 00" + "06 02 03 00" + "06 07")  # dst 6; pair 6/7 at +0x14


def test_alu_64bit_immediate_is_u64():
    got = one(alu("add", reg("a", "uint64"), imm("uint64", 2**40 + 1), reg("w", "uint64"), is_64bit=True))
    assert got == hx("a8 10 0000" + NO_SYNC + "04 01 01 01" + "06 02 00 00" + "06 07 0000" + "0100000000010000")


def test_alu_ops_map_through_the_table():
    table = {"bypass": "00", "bitwise_not": "01", "max": "08", "logical_shift_right": "11", "is_equal": "12",
             "not_equal": "18", "is_gt": "13", "is_ge": "14", "is_le": "15", "pow": "1a", "mod": "1b",
             "rsqrt": "1d", "abs": "19"}
    for op, byte in table.items():
        assert one(alu(op, reg("a"), reg("b"), reg("d")))[0x0C * 2:0x0D * 2] == byte, op


def test_alu_invalid_ops():
    for op in ("average", "elemwise_mul", 24, 25, 30, 99):
        assert "Invalid enum variant for enum AluOpType" in str(fails(alu(op, reg("a"), reg("b"), reg("d")))), op


# --- TensorLoad / TensorSave (SPEC §4.3, D-8, D-9, D-10, D-22) --------------------------------------

def ls_kernel(*insts, registers=None, **kw):
    allocs = [loc("v", "DRAM", dims=(1, 4096), tensor_id=12), loc("w", "Input", dims=(1, 4096)),
              loc("s", "SB", dims=(128, 4096)), loc("ps", "PSUM", dims=(128, 2048))]
    return kernel(*insts, allocs=allocs, registers=registers or {"d": 3, "q": [8, 9], "o": 5, "m": 20}, **kw)


def test_tensor_load_imm_form_one_pair():
    k = ls_kernel(inst("TensorLoad", [ap("v", "int32", [[1, 1]], offset=6)], [reg("d")], engine="SP"))
    assert one(k) == hx(
        "ce 10 0000" + NO_SYNC +
        "08 00"          # +0x0C wire(int32), +0x0D reserved
        "01 01"          # +0x0E num_elem[0] = innermost num 1, +0x0F num_elem[1] = 1 (one pair)
        "0c000000"       # +0x10 var_id = tensor_id 12 (D-8)
        "18000000"       # +0x14 var_offset = offset 6 × 4 bytes = 24 (D-8)
        "01000000"       # +0x18 step_elem[0] = innermost step 1
        "00000000"       # +0x1C step_elem[1] = 0 (one pair)
        "03 00"          # +0x20 data register 3 (D-9), +0x21 no offset register (D-22)
    )


def test_tensor_load_imm_two_pairs_and_location_index():
    # location 'w' has no tensor_id: var_id = its index among the function's locations (1)
    k = ls_kernel(inst("TensorLoad", [ap("w", "int32", [[16, 2], [2, 3]])], [reg("d")], engine="SP"))
    assert one(k) == hx("ce 10 0000" + NO_SYNC + "08 00 03 02" + "01000000 00000000" + "02000000 10000000" + "03 00")


def test_tensor_save_imm_form_to_dram_with_offset_register():
    k = ls_kernel(inst("TensorSave", [reg("d", "float32")], [ap("v", "float32", [[1, 1]]), reg("o")], engine="SP"))
    # +0x21 = offset register 5 (D-22, 32-bit data)
    assert one(k) == hx("cd 10 0000" + NO_SYNC + "0a 00 01 01" + "0c000000 00000000" + "01000000 00000000" + "03 05")


def test_tensor_load_64bit_doubles_count_and_uses_pair():
    k = ls_kernel(inst("TensorLoad", [ap("v", "int64", [[1, 1]], offset=1)], [reg("q", "int64")], engine="SP"))
    # int64: dtype wire(int32) 0x08, num_elem[0] = 1 × 2, var_offset 1 × 8, data pair 8/9 at +0x20/+0x21
    assert one(k) == hx("ce 10 0000" + NO_SYNC + "08 00 02 01" + "0c000000 08000000" + "01000000 00000000" + "08 09")


def test_tensor_load_reg_form():
    k = ls_kernel(inst("TensorLoad", [reg_ap("m", "int32", [[1, 1]], "v_set"), reg("o")], [reg("d")], engine="SP"))
    assert one(k) == hx(
        "aa 10 0000" + NO_SYNC +
        "08 00 01 01"
        "14"             # +0x10 regref id of the memory register AP (m = 20)
        "05"             # +0x11 offset register id 5 (D-22, REG form)
        "00 00 000000"   # +0x12..+0x16
        "80"             # +0x17 register-address marker
        "01000000 00000000"
        "03 05"          # data register 3; +0x21 offset register again (32-bit data)
    )


def test_tensor_save_reg_form_without_offset():
    k = ls_kernel(inst("TensorSave", [reg("d")], [reg_ap("m", "int32", [[1, 1]], "v_set")], engine="SP"))
    assert one(k) == hx("ab 10 0000" + NO_SYNC + "08 00 01 01" + "14 00 0000 000000 80" + "01000000 00000000" + "03 00")


def test_tensor_save_targets_d11():
    sb = ap("s", "int32", [[1, 1]])
    save_sb = ls_kernel(inst("TensorSave", [reg("d")], [sb], engine="SP"))
    assert "SBUF is refused on gen2" in str(fails(save_sb))                       # D-11 on gen2
    assert streams(save_sb, target="gen3")["sp"][0].startswith("cd10")           # allowed on gen3
    save_ps = ls_kernel(inst("TensorSave", [reg("d")], [ap("ps", "int32", [[1, 1]])], engine="SP"))
    assert "PSUM" in str(fails(save_ps)) and "PSUM" in str(fails(save_ps, target="gen3"))
    save_reg_sb = ls_kernel(inst("TensorSave", [reg("d")], [reg_ap("m", "int32", [[1, 1]], "s_set")], engine="SP"))
    assert "SBUF is refused on gen2" in str(fails(save_reg_sb))                   # REG form: memsetref's type
    # TensorLoad has no such rule
    assert one(ls_kernel(inst("TensorLoad", [sb], [reg("d")], engine="SP"))).startswith("ce10")


def test_tensor_load_save_errors():
    bad_kind = ls_kernel(inst("TensorLoad", [{"kind": "symbolic_ap", "dtype": "int32", "ap": [[1, 1]]}], [reg("d")],
                              engine="SP"))
    assert "codegen stage can only have PhysicalAP or RegisterAP, no SymbolicAP is allowed" in str(fails(bad_kind))
    three = ls_kernel(inst("TensorLoad", [ap("v", "int32", [[1, 1], [1, 1], [1, 1]])], [reg("d")], engine="SP"))
    assert "one or two pairs" in str(fails(three))
    neg = ls_kernel(inst("TensorLoad", [ap("v", "int32", [[-1, 2]])], [reg("d")], engine="SP"))
    assert "negative step" in str(fails(neg))
    big = ls_kernel(inst("TensorLoad", [ap("v", "int32", [[1, 256]])], [reg("d")], engine="SP"))
    e = fails(big)
    assert "num_elem0" in str(e) and "256" in str(e) and "255" in str(e)
    big64 = ls_kernel(inst("TensorLoad", [ap("v", "int64", [[1, 128]])], [reg("q", "int64")], engine="SP"))
    assert "256" in str(fails(big64))  # 128 × 2 does not fit the u8 count
    off64 = ls_kernel(inst("TensorLoad", [ap("v", "int64", [[1, 1]]), reg("o")], [reg("q", "int64")], engine="SP"))
    assert "64-bit" in str(fails(off64))
    mismatch = ls_kernel(inst("TensorLoad", [ap("v", "int32", [[1, 1]])], [reg("d", "float32")], engine="SP"))
    assert "must equal" in str(fails(mismatch))


# --- header and sync band (SPEC §3.2, D-2, D-4) ------------------------------------------------------

def synced(sync):
    return mv(reg("y"), reg("x"), sync=sync)


def sync_band(sync):
    return one(synced(sync))[8:24]


def test_sync_waits():
    assert sync_band({"wait": {"mode": "sem_ge_imm", "index": 3, "value": 5}}) == "0503000005000000"
    assert sync_band({"wait": {"mode": "sem_ge_reg", "index": 200, "value": "x"}}) == "05c8000004000000".replace(
        "05c8", "85c8")  # 0x85 = sem_ge_reg, value = register id 4
    assert sync_band({"wait": {"mode": "evt_set_clear", "index": 7}}) == "0707000000000000"


def test_sync_updates_through_the_lut():
    lut = {"evt_set": "11", "sem_add_imm": "15", "sem_sub_imm": "17", "sem_inc": "13", "sem_dec": "14",
           "sem_wr_imm": "19"}
    for mode, byte in lut.items():
        value = None if mode in ("sem_inc", "sem_dec") else 9
        band = sync_band({"update": {"mode": mode, "index": 255, **({"value": value} if value else {})}})
        expect_value = "09000000" if value else "00000000"  # sem_inc/sem_dec do not write the value
        assert band == "0000" + byte + "ff" + expect_value, mode


def test_sync_wait_plus_valueless_update_is_fine():
    band = sync_band({"wait": {"mode": "sem_ge_imm", "index": 1, "value": 3}, "update": {"mode": "sem_dec", "index": 2}})
    assert band == "05011402" + "03000000"


def test_sync_event_wait_plus_value_update_is_fine():
    band = sync_band({"wait": {"mode": "evt_set_clear", "index": 1}, "update": {"mode": "sem_wr_imm", "index": 2,
                                                                                "value": 77}})
    assert band == "07011902" + "4d000000"


def test_sync_d4_conflict_is_refused():
    for wait in ({"mode": "sem_ge_imm", "index": 1, "value": 3}, {"mode": "sem_ge_reg", "index": 1, "value": "x"}):
        for upd in ("evt_set", "sem_add_imm", "sem_sub_imm", "sem_wr_imm"):
            e = fails(synced({"wait": wait, "update": {"mode": upd, "index": 2, "value": 1}}))
            assert "D-4" in str(e) and "'i0'" in str(e), (wait, upd)


def test_sync_errors():
    assert "Too many sync wait commands" in str(fails(synced({"wait": [
        {"mode": "sem_ge_imm", "index": 1, "value": 1}, {"mode": "sem_ge_imm", "index": 2, "value": 1}]})))
    assert "Too many sync update commands" in str(fails(synced({"update": [
        {"mode": "sem_inc", "index": 1}, {"mode": "sem_inc", "index": 2}]})))
    e = fails(synced({"wait": {"mode": "sem_ge_imm", "index": 256, "value": 1}}))
    assert "256" in str(e) and "255" in str(e)
    assert "256" in str(fails(synced({"update": {"mode": "sem_inc", "index": 256}})))
    assert "evt_set_clear" in str(fails(synced({"wait": {"mode": "evt_set_clear", "index": 1, "value": 4}})))


def test_sp_ops_route_to_sp_when_unassigned_and_to_their_engine_otherwise():
    base = inst("RegisterMove", [imm("int32", 1)], [reg("x")])
    assert set(streams(kernel(base, registers={"x": 1}))) == {"sp"}
    for engine, stream in (("Pool", "pool"), ("Activation", "act"), ("PE", "pe"), ("DMA", "dma"), ("DVE", "dve")):
        k = kernel(dict(base, engine=engine), registers={"x": 1})
        assert set(streams(k)) == {stream}
    e = fails(kernel(dict(base, engine="ALL"), registers={"x": 1}))
    assert "D-25" in str(e)
