"""One test per spec decision D-1..D-27 (SPEC §6), each pinning the default reading and, where the
decision is selectable, the alternative. A change of reading must change exactly these tests."""

from __future__ import annotations

import pytest

from conftest import ap, fails, imm, inst, kernel, loc, one, reg, reg_ap, streams
from tongasm.decode import decode_bundle
from tongasm.errors import TongasmError
from tongasm.isa import DECISIONS, DecisionSet

F32 = [[512, 128], [1, 512]]
ALLOCS = [loc("a", "SB"), loc("m", "SB", addr=0x8000), loc("ps", "PSUM", bank=1, dims=(128, 2048)),
          loc("v", "DRAM", dims=(1, 4096), tensor_id=3), loc("w", "DRAM", dims=(1, 4096))]
REGS = {"d": 3, "o": 5, "pr": [20, 21], "q": [8, 9]}


def k(*insts, **kw):
    return kernel(*insts, allocs=ALLOCS, registers=REGS, **kw)


def byte(hexstr: str, off: int, n: int = 1) -> str:
    return hexstr[off * 2:(off + n) * 2]


MOVE = inst("RegisterMove", [imm("int32", 1)], [reg("d")], engine="SP")
TT_ADD = inst("TensorTensor", [ap("a", "int32", F32)] * 2, [ap("a", "int32", F32)], engine="Pool", op="add")


def test_every_decision_has_a_test_here():
    """Every D-n has a ``test_d<n>_...`` here; every R-n, N-n and S-n a test that cites its id
    (``test_r7_...``, ``test_s12_...`` anywhere in the suite, or its id in a test module)."""
    import re
    from pathlib import Path

    names = {n for n in globals() if n.startswith("test_d")}
    texts = {p: p.read_text() for p in Path(__file__).parent.glob("test_*.py")}
    for did in DECISIONS:
        kind, num = did.split("-")
        if kind == "D":
            assert any(n.startswith(f"test_d{num}_") for n in names), f"no test_d{num}_... for {did}"
            continue
        named = re.compile(rf"def test_{kind.lower()}{num}_")
        cited = re.compile(rf"\b{kind}-{num}\b")
        assert any(named.search(t) or cited.search(t) for t in texts.values()), f"no test pins {did}"


def test_d1_inst_word_len_is_0x10_everywhere():
    # D-1: +0x01 = 0x10 on every opcode, SP ops included
    assert byte(one(k(MOVE)), 1) == "10"
    assert byte(one(k(MOVE), decisions=("D-1=zero",)), 1) == "00"
    assert byte(one(k(TT_ADD), decisions=("D-1=zero",)), 1) == "10"  # only the SP register-lane ops change


def test_d2_update_mode_goes_through_the_lut():
    m = dict(MOVE, sync={"update": {"mode": "sem_sub_imm", "index": 1, "value": 2}})
    assert byte(one(k(m)), 6) == "17"  # D-2: LUT 11 15 17 13 14 19
    assert byte(one(k(m), decisions=("D-2=raw",)), 6) == "02"


def test_d3_every_op_carries_the_sync_band():
    t = dict(TT_ADD, sync={"wait": {"mode": "sem_ge_imm", "index": 9, "value": 1}})
    assert byte(one(k(t)), 4, 2) == "0509"  # D-3: the tensor op carries it too
    assert "D-3" in str(fails(k(t), decisions=("D-3=sp-only",)))


def test_d4_shared_value_conflict():
    m = dict(MOVE, sync={"wait": {"mode": "sem_ge_imm", "index": 1, "value": 7},
                         "update": {"mode": "sem_add_imm", "index": 2, "value": 9}})
    assert "D-4" in str(fails(k(m)))  # D-4: refused
    got = one(k(m), decisions=("D-4=update-wins",))
    assert byte(got, 4, 8) == "0501150209000000"  # alternative: the update's value is written last


def test_d5_addr4_composition():
    # D-5: SBUF part << 18 | byte; PSUM 0x2000000 + part << 15 + bank << 11 + byte
    x = ap("a", "float32", [[512, 4], [1, 512]], offset=512 * 16384 // 512 * 3 + 5)  # partition 3, element 5
    t = inst("TensorCopy", [x], [ap("ps", "float32", [[512, 4], [1, 512]], offset=512 * 2 + 1)], engine="DVE")
    got = one(k(t))
    assert byte(got, 0x0C, 4) == (3 << 18 | 20).to_bytes(4, "little").hex()
    assert byte(got, 0x2C, 4) == (0x2000000 + (2 << 15) + (1 << 11) + 4).to_bytes(4, "little").hex()


def test_d6_free_dims_innermost_first():
    x = ap("a", "float32", [[4096, 128], [64, 4], [1, 64]])
    t = inst("TensorCopy", [x], [x], engine="DVE")
    assert byte(one(k(t)), 0x10, 4) == "01004000"  # steps: inner 1 first, then 64
    assert byte(one(k(t), decisions=("D-6=outermost-first",)), 0x10, 4) == "40000100"
    d = decode_bundle(bytes.fromhex(one(k(t), decisions=("D-6=outermost-first",))),
                      decisions=DecisionSet.parse(["D-6=outermost-first"]))
    assert (d.fields["src.step0"], d.fields["src.num0"]) == (64, 4)


def test_d7_register_alu_dtype_bytes():
    r = inst("RegisterAlu", [reg("d"), reg("o")], [reg("d")], engine="SP", op="add")
    assert byte(one(k(r)), 0x0D, 3) == "010000"  # D-7: register path → +0x0D = 1, +0x0F = 0
    assert byte(one(k(r), decisions=("D-7=both-dtype-bytes",)), 0x0D, 3) == "080008"
    assert byte(one(k(r)), 0x10, 4) == "03030500"  # roles: dst, src1, src2, third = 0


def test_d8_var_id_and_offset():
    by_id = inst("TensorLoad", [ap("v", "int32", [[1, 1]], offset=5)], [reg("d")], engine="SP")
    assert byte(one(k(by_id)), 0x10, 8) == "03000000" "14000000"  # tensor_id 3; 5 × 4 bytes
    by_index = inst("TensorLoad", [ap("w", "int16", [[1, 1]], offset=5)], [reg("d", "int16")], engine="SP")
    assert byte(one(k(by_index)), 0x10, 8) == "04000000" "0a000000"  # w is location #4; 5 × 2 bytes


def test_d9_data_register_lo_hi():
    ld = inst("TensorLoad", [ap("v", "uint64", [[1, 1]])], [reg("pr", "uint64")], engine="SP")
    assert byte(one(k(ld)), 0x20, 2) == "1415"


def test_d10_m2d_byte_map():
    ld = inst("TensorLoad", [ap("v", "int32", [[70000, 2], [3, 4]])], [reg("d")], engine="SP")
    got = one(k(ld))
    assert byte(got, 0x0E, 2) == "0402"  # u8 counts, innermost first
    assert byte(got, 0x18, 8) == "03000000" "70110100"  # u32 steps (70000 does not fit an i16 and needs not)


def test_d11_tensor_save_targets_on_gen2():
    to_sb = inst("TensorSave", [reg("d")], [ap("a", "int32", [[1, 1]])], engine="SP")
    to_dram = inst("TensorSave", [reg("d")], [ap("v", "int32", [[1, 1]])], engine="SP")
    assert "D-11" in str(fails(k(to_sb)))
    assert one(k(to_dram))
    alt = ("D-11=only-sbuf-on-gen2",)
    assert one(k(to_sb), decisions=alt)
    assert "D-11" in str(fails(k(to_dram), decisions=alt))
    assert one(k(to_sb), target="gen3")


def test_d12_bypass_stays_arithmetic():
    t = dict(TT_ADD, engine="DVE", op="bypass")
    assert byte(one(k(t)), 0) == "41"
    assert byte(one(k(t), decisions=("D-12=bypass-bitvec",)), 0) == "51"


def test_d13_gpsimd_override_gated_on_pool():
    assert byte(one(k(TT_ADD)), 0) == "8a"
    dve = dict(TT_ADD, engine="DVE")
    assert byte(one(k(dve)), 0) == "41"
    got = one(k(dve), decisions=("D-13=no-engine-gate",))
    assert byte(got, 0) == "8a" and byte(got, 0x0E) == "c4"


def test_d14_predicate_flags():
    m, s, d = ap("m", "uint8", F32), ap("a", "float32", F32), ap("a", "float32", F32, offset=4096)
    scalar = inst("CopyPredicated", [m, imm("float32", 1.0)], [d], engine="DVE")
    assert byte(one(k(scalar)), 0x21) == "01"  # D-14: 1 iff reverse_pred is false
    assert byte(one(k(dict(scalar, reverse_pred=True))), 0x21) == "00"
    assert byte(one(k(scalar), decisions=("D-14=reverse-pred",)), 0x21) == "00"
    red = inst("CopyPredicated", [m, s, imm("float32", 0.0)], [d], engine="DVE", op="max")
    assert byte(one(k(red)), 0x26) == "01"  # 1 iff a fill is given
    assert byte(one(k(red), decisions=("D-14=reverse-pred",)), 0x26) == "00"
    assert byte(one(k(dict(red, reverse_pred=True)), decisions=("D-14=reverse-pred",)), 0x26) == "01"


def test_d15_select_reduce_src_slot():
    m, s, d = ap("m", "uint8", F32), ap("a", "float32", F32, offset=64), ap("a", "float32", F32, offset=4096)
    red = inst("CopyPredicated", [m, s], [d], engine="DVE", op="max")
    assert byte(one(k(red)), 0x0C, 4) == "00010000"  # src TENSOR2D ADDR4 at +0x0C: byte 256
    assert byte(one(k(red), decisions=("D-15=unencoded",)), 0x0C, 12) == "00" * 12


def test_d16_select_reduce_fill_byte():
    m, s, d = ap("m", "uint8", F32), ap("a", "float32", F32), ap("a", "float32", F32, offset=4096)
    red = inst("CopyPredicated", [m, s, imm("float32", -1.0)], [d], engine="DVE", op="max")
    assert "D-16" in str(fails(k(red)))  # 0xBF800000 does not fit one byte
    got = one(k(red), decisions=("D-16=source-byte",))
    assert byte(got, 0x27) == "00" and byte(got, 0x3C, 4) == "000080bf"
    small = inst("CopyPredicated", [m, s, imm("uint8", 200)], [d], engine="DVE", op="max")
    assert byte(one(k(small)), 0x27) == "c8"


def test_d17_generic_copy_and_scalar_select():
    g = inst("GenericCopy", [ap("a", "float32", F32)], [ap("a", "float32", F32, offset=512)], engine="DVE")
    assert byte(one(k(g)), 0) == "46"
    sel = inst("Select", [ap("m", "uint8", F32), ap("a", "float32", F32), imm("float32", -0.0)],
               [ap("a", "float32", F32, offset=512)], engine="DVE")
    first, second = streams(k(sel))["dve"]
    assert byte(first, 0) == "49" and byte(first, 0x28, 4) == "00000080"  # -0.0f bit pattern (D-17b)
    assert byte(second, 0) == "72"


def test_d18_reinterpret_is_identity():
    c = inst("TensorCopy", [ap("a", "float8_e4m3fn", F32)], [ap("a", "float8e4", F32, offset=512)], engine="DVE")
    got = one(k(c))
    assert byte(got, 0) == "47" and byte(got, 0x20, 2) == "0e0e"  # distinct BIR dtypes, same wire tag


def test_d19_memset_dst_is_tensor4d():
    msi = inst("Memset", [], [ap("a", "float32", [[4096, 128], [1024, 2], [256, 2], [16, 4], [1, 8]])],
               engine="DVE", mode="Const", constant=0)
    got = one(k(msi))
    assert byte(got, 0x2C, 20) == "00000000" "0100100000010004" "0800040002000200"


def test_d20_move_shape_counts_u16():
    x = ap("v", "int8", [[0, 1], [100, 3], [1, 100]])
    msi = inst("MoveShape", [x])
    got = one(k(msi))
    assert byte(got, 0x30, 16) == "6400" "0300" "0100" "0100" + "00" * 8
    alt = one(k(msi), decisions=("D-20=u32",))
    assert byte(alt, 0x30, 16) == "64000000" "03000000" "01000000" "01000000"


def test_d21_gen3_pool_band():
    got = one(k(dict(TT_ADD, op="divide")), target="gen3")
    assert byte(got, 0) == "41" and byte(got, 0x0E) == "c7"


def test_d22_offset_register_placement():
    ld = inst("TensorLoad", [reg_ap("pr", "int32", [[1, 1]], "v_set"), reg("o")], [reg("d")], engine="SP")
    got = one(k(ld))
    assert byte(got, 0x10, 2) == "1405" and byte(got, 0x21) == "05"  # +0x11 and +0x21 get the offset
    alt = one(k(ld), decisions=("D-22=regref-pair",))
    assert byte(alt, 0x10, 2) == "1415" and byte(alt, 0x21) == "05"  # regref pair lo/hi; offset at +0x21


def test_d23_float_immediates_bitcast():
    m = inst("RegisterMove", [imm("float32", -0.5)], [reg("d", "float32")], engine="SP")
    assert byte(one(k(m)), 0x20, 4) == "000000bf"


def test_d24_select_sync_split():
    sel = inst("Select", [ap("m", "uint8", F32), ap("a", "float32", F32), ap("a", "float32", F32, offset=64)],
               [ap("a", "float32", F32, offset=512)], engine="DVE",
               sync={"wait": {"mode": "sem_ge_imm", "index": 4, "value": 1}, "update": {"mode": "sem_inc", "index": 5}})
    first, second = streams(k(sel))["dve"]
    assert byte(first, 4, 8) == "0504000001000000"
    assert byte(second, 4, 8) == "0000130500000000"


def test_d25_engine_all_refused():
    assert "D-25" in str(fails(k(dict(TT_ADD, engine="ALL"))))
    assert "D-25" in str(fails(k(dict(TT_ADD, engine=7))))


def test_d26_packed_dtypes_on_gen3_tensor_tensor_only():
    packed = inst("TensorTensor", [ap("a", "float8_e5m2_x4", F32)] * 2, [ap("a", "float32", F32)], engine="DVE",
                  op="add")
    assert "D-26" in str(fails(k(packed), target="gen3"))
    assert byte(one(k(packed)), 0x0C) == "ff"  # gen2: LUT maps _x4 to 0x0F
    copy = inst("TensorCopy", [ap("a", "float8_e5m2_x4", F32)], [ap("a", "float32", F32)], engine="DVE")
    assert byte(one(k(copy), target="gen3"), 0x20) == "0f"  # other opcodes map it on gen3 too


def test_d27_scalar_dtype_must_equal_dst():
    m, d = ap("m", "uint8", F32), ap("a", "bfloat16", F32)
    bad = inst("CopyPredicated", [m, imm("float32", 1.0)], [d], engine="DVE")
    assert "Immediate value type must match output type" in str(fails(k(bad)))
    got = one(k(bad), decisions=("D-27=same-kind",))
    assert byte(got, 0x29, 2) == "0a06" and byte(got, 0x2B, 4) == "0000803f"


@pytest.mark.parametrize("did", [d for d, dec in DECISIONS.items() if dec.selectable])
def test_selectable_decisions_change_something(did):
    """Sanity: every selectable alternative is accepted by the parser and is not the default."""
    dec = DECISIONS[did]
    for c in dec.choices[1:]:
        ds = DecisionSet.parse([f"{did}={c}"])
        assert ds[did] == c and not ds.is_default(did)


def test_d28_register_ap_offset_on_load_save_is_refused():
    # D-28: refused, not dropped (the SP page has no field for it)
    k = kernel(inst("TensorLoad", [reg_ap("r3", "int32", [[1, 1]], reg_ap_offset="r4")], [reg("r1")], engine="SP"))
    with pytest.raises(TongasmError, match="D-28"):
        one(k)


def test_d29_memset_constant_is_a_value_in_the_dst_dtype():
    # D-29=value (default): 1 on float32 fills 1.0 = 0x3F800000 (little-endian at +0x28: 0000803f);
    # D-29=bits (SPEC §4.8 as written): the same key is the raw pattern 0x00000001
    msi = inst("Memset", [], [ap("a", "float32", F32)], engine="DVE", mode="Const", constant=1)
    assert byte(one(k(msi)), 0x28, 4) == "0000803f"
    assert byte(one(k(msi), decisions=("D-29=bits",)), 0x28, 4) == "01000000"


def test_d35_a_listing_becomes_a_neff_from_its_var_lines():
    """D-35: the .var lines give a listing's variables; a var_id the bundles name without one is refused."""
    from pathlib import Path

    import pytest

    from tongasm.codegen import assemble
    from tongasm.errors import InputError
    from tongasm.ir import read_bir
    from tongasm.neff import Neff
    from tongasm.neff.build import build_neff_from_listing, graph_directives
    from tongasm.text.assembler import assemble_text
    from tongasm.text.listing import StreamInput, listing

    n = Neff.from_bytes(assemble(read_bir(Path(__file__).parent.parent / "examples" / "softmax.json"),
                                 target="gen3").to_neff().to_bytes())
    streams = [StreamInput(f"sg00.{s.stream}", n.stream_data(s), n.bir_names(s)) for s in n.streams()]
    lines = list(listing(streams, target="gen3"))
    text = "\n".join([lines[0], *graph_directives(n, "sg00"), *lines[1:]]) + "\n"
    assert build_neff_from_listing(assemble_text(text)).to_bytes() == n.to_bytes()
    bare = "\n".join(x for x in text.splitlines() if not x.startswith(".var")) + "\n"
    with pytest.raises(InputError, match=r"DRAM variables 1 \(pool bundle 0\).*no \.var directive"):
        build_neff_from_listing(assemble_text(bare))


def test_d36_the_tables_come_from_a_real_neff_of_the_writers_compiler():
    """D-36: copied from a 2.23 file of the target; a 2.14 one is refused unless D-36=any-compiler."""
    from pathlib import Path

    import pytest

    from corpus_support import corpus_dir
    from tongasm.codegen import assemble
    from tongasm.errors import InputError
    from tongasm.ir import read_bir
    from tongasm.neff import read_neff

    asm = assemble(read_bir(Path(__file__).parent.parent / "examples" / "softmax.json"), target="gen2")
    old = read_neff(corpus_dir() / "yolox-trn1" / "MODULE_10047695098172950179.neff")  # 2.14, loads exp_and_others
    with pytest.raises(InputError, match="written by compiler 2.14"):
        asm.to_neff(tables=old)
    n = asm.to_neff(tables=old, decisions=DecisionSet.parse(["D-36=any-compiler"]))
    assert n.members["sg00/act_info.json"] == old.members["sg00/act_info.json"]


def test_d37_a_wait_depends_on_the_updaters_of_its_semaphore():
    """D-37: the backend .dbg entry of a wait lists the other engines' instructions that update its semaphore."""
    from pathlib import Path

    from tongasm.codegen import assemble
    from tongasm.ir import read_bir
    from tongasm.neff.debuginfo import parse_debug_info

    n = assemble(read_bir(Path(__file__).parent.parent / "examples" / "vector_add.json"), target="gen3").to_neff()
    entries = {}
    for m, data in n.members.items():
        if "debug_info_backend_" in m:
            entries.update({i.id: (m, i) for i in parse_debug_info(data, m).instructions})
    sp_wait = next(i for m, i in entries.values() if m.endswith("_SP.dbg") and i.name == "R-81-wait-inputs")
    assert sorted(entries[d][1].name for d in sp_wait.sync_deps) == ["R-81-load-a", "R-81-load-b", "R-81-load-mask"]
    assert list(sp_wait.sync_dep_kinds) == [4, 4, 4] and sp_wait.unknown_6 == 1
