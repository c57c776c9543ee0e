"""One test per decision of the next families (N-n of next-families.md, S-20..S-39 of the simulator),
each pinning the default reading and, where the decision is selectable, the alternative. Byte
positions are read off the chapter's byte maps (cited per test); values are derived by hand."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from conftest import ap, fails, imm, inst, kernel, loc, one, reg, streams
from tongasm.codegen import assemble
from tongasm.ir import read_bir
from tongasm.isa import DECISIONS, DecisionSet
from tongasm.sim.reference import InterpretError, interpret
from tongasm.sim.run import run_kernel

ALLOCS = [loc("a", "SB", dims=(128, 65536)), loc("ps", "PSUM", bank=1, dims=(128, 2048)),
          loc("d", "DRAM", dims=(1, 4096))]
F32 = [[512, 128], [1, 512]]
COL = [[1, 128], [1, 1]]
NO_RES = ("N-35=off",)


def k(*insts, arch="gen2"):
    return kernel(*insts, allocs=ALLOCS, registers={"r": 5}, arch=arch)


def b(h: str, off: int, n: int = 1) -> str:
    return h[off * 2:(off + n) * 2]


def f32(v: float) -> str:
    return struct.pack("<f", v).hex()


def act(func="Exp", ins=None, outs=None, **kw):
    kw = {"acc": "Idle", "scale": 1.0, "alpha": 0.0, **kw}
    return inst("Activation", ins if ins is not None else
                [ap("a", "float32", F32), ap("a", "float32", COL, 8192), imm("float32", 1.0), imm("float32", 0.0)],
                outs or [ap("a", "float32", F32, 4096)], engine="Activation", func=func, **kw)


def ts(op0="mult", ins=None, outs=None, **kw):
    return inst("TensorScalarPtr", ins or [ap("a", "float32", F32), imm("float32", 2.0)],
                outs or [ap("a", "float32", F32, 4096)], engine="DVE", op0=op0, **{"op1": "bypass", **kw})


def tr(op="max", axis="X", s=None, d=None, engine="DVE", **kw):
    return inst("TensorReduce", [s or ap("a", "float32", F32)], [d or ap("a", "float32", COL, 4096)], engine=engine,
                op=op, axis=axis, **kw)


OURS = [d for d in DECISIONS if d.startswith("N-") or (d.startswith("S-") and 20 <= int(d[2:]) <= 39)]


def test_every_decision_has_a_test_here() -> None:
    names = {n for n in globals() if n.startswith("test_")}
    for did in OURS:
        kind, num = did.split("-")
        assert any(n.startswith(f"test_{kind.lower()}{num}_") for n in names), f"no test for {did}"


def test_n1_family_a_slots() -> None:
    h = one(k(ts()))  # in TENSOR3D at +0x10, out at +0x30 (BUNDLE store sites)
    assert b(h, 0x10, 4) == "00000000" and b(h, 0x30, 4) == "00400000"


def test_n2_scalar_kind_codes() -> None:
    # per-byte (the real bytes): TensorScalar's IMM_SRC bytes: immediate 0, pointer 1
    assert b(one(k(ts())), 0x23) == "00"  # immediate → 0
    assert b(one(k(ts(ins=[ap("a", "float32", F32), ap("a", "float32", COL, 8192)]))), 0x23) == "01"  # pointer → 1
    # Activate: +0x0F (bias) pointer 0 / immediate 1, +0x0D (scale) immediate 0
    h = one(k(act()), decisions=NO_RES)
    assert b(h, 0x0F) == "00" and b(h, 0x0D) == "00"
    h = one(k(act(ins=[ap("a", "float32", F32), imm("float32", 0.0), ap("a", "float32", COL, 8192),
                       imm("float32", 0.0)])), decisions=NO_RES)
    assert b(h, 0x0F) == "01" and b(h, 0x0D) == "01"  # immediate bias → 1, pointer scale → 1
    # the draft's one set: immediate 1, pointer 0 on every byte
    assert b(one(k(ts()), decisions=("N-2=ptr0-imm1-reg2",)), 0x23) == "01"
    assert b(one(k(act()), decisions=(*NO_RES, "N-2=ptr0-imm1-reg2")), 0x0D) == "01"
    assert b(one(k(ts()), decisions=("N-2=imm0-reg1-ptr2",)), 0x23) == "00"  # ENUM order: immediate → 0


def test_n3_ts_value_words() -> None:
    ins = [ap("a", "float32", F32), imm("float32", 2.0), imm("float32", 3.0)]
    h = one(k(ts(ins=ins, op1="add")))
    assert b(h, 0x28, 4) == f32(2.0) and b(h, 0x2C, 4) == f32(3.0)
    h = one(k(ts(ins=ins, op1="add")), decisions=("N-3=s1-0x28-s0-0x2c",))
    assert b(h, 0x28, 4) == f32(3.0) and b(h, 0x2C, 4) == f32(2.0)
    assert "pointer-only" in str(fails(k(ts()), decisions=("N-3=pointer-only",)))


def _act_run(ds: tuple[str, ...], ins) -> np.ndarray:
    kern = k(act("Identity", ins=ins), arch="gen3")
    r = run_kernel(read_bir(kern), {"a": np.zeros((128, 16384), np.float32) + 2.0},
                   decisions=DecisionSet.parse([*NO_RES, *ds]))
    return r.outputs(["a"])["a"][0, 4096:4100]


def test_n4_activation_roles() -> None:
    ins = [ap("a", "float32", F32), imm("float32", 0.0), imm("float32", 1.0), imm("float32", 0.0)]
    assert list(_act_run((), ins)) == [2.0] * 4  # 2*1 + 0
    # [in, scale, bias, alpha]: args[1] = 0 is the scale, args[2] = 1 the bias: 2*0 + 1 = 1
    assert list(_act_run(("N-4=in-scale-bias-alpha", "N-5=scale-at-0x24"), ins)) == [1.0] * 4
    # §15.3 [in, bias, alpha, scale]: args[2] (here 1.0) is alpha (no field for Exp), args[3] = 0 the scale,
    # which has no byte for a non-Prelu function: refused rather than dropped
    assert "no byte" in str(fails(k(act("Identity", ins=ins), arch="gen3"),
                                  decisions=(*NO_RES, "N-4=in-bias-alpha-scale")))


def test_n5_activation_arg2_word() -> None:
    h = one(k(act()), decisions=NO_RES)
    assert b(h, 0x24, 4) == f32(1.0)  # the real bytes: the scale's float32 (1.0 in 121,885 real bundles)
    h = one(k(act()), decisions=(*NO_RES, "N-5=reserved-zero"))
    assert b(h, 0x24, 4) == "00000000"  # §15.1: reserved zero
    ins2 = [ap("a", "float32", F32), ap("a", "float32", COL, 8192), imm("float32", 0.5), imm("float32", 0.0)]
    # a scale 0.5 has nowhere to go under §15.1
    assert "no byte" in str(fails(k(act(ins=ins2)), decisions=(*NO_RES, "N-5=reserved-zero")))
    h = one(k(act(ins=ins2)), decisions=NO_RES)
    assert b(h, 0x24, 4) == f32(0.5) and b(h, 0x28, 4) == "00800000"
    h = one(k(act(ins=ins2)), decisions=(*NO_RES, "N-5=swapped"))
    assert b(h, 0x28, 4) == f32(0.5) and b(h, 0x24, 4) == "00800000"
    assert "no byte" in str(fails(k(act(ins=ins2)), decisions=(*NO_RES, "N-5=strict-scale")))
    assert b(one(k(act()), decisions=(*NO_RES, "N-5=strict-scale")), 0x24, 4) == f32(1.0)


def test_n5_scale_reaches_the_simulator() -> None:
    """The scale word +0x24 (N-5's default) is what the simulator multiplies by: Identity(2 * x + 0.5) of x = 2 is
    4.5; a scale from a [P,1] pointer (kind 1 at +0x0D) reads lane p's element (here 3.0 everywhere: 6.5)."""
    ins = [ap("a", "float32", F32), imm("float32", 0.5), imm("float32", 2.0), imm("float32", 0.0)]
    assert list(_act_run((), ins)) == [4.5] * 4
    kern = k(act("Identity", ins=[ap("a", "float32", F32), imm("float32", 0.5), ap("a", "float32", COL, 8192),
                                  imm("float32", 0.0)]), arch="gen3")
    x = np.zeros((128, 16384), np.float32) + 2.0
    x[:, 8192] = 3.0
    r = run_kernel(read_bir(kern), {"a": x}, decisions=DecisionSet.parse(list(NO_RES)))
    assert list(r.outputs(["a"])["a"][0, 4096:4100]) == [6.5] * 4


def test_n6_pointer_word() -> None:
    ins = [ap("a", "float32", F32, 16384 * 32), ap("a", "float32", [[1, 96], [1, 1]], 16384 * 32 + 8192)]
    out = [ap("a", "float32", F32, 16384 * 32 + 4096)]
    kern = k(ts(ins=[ins[0], ins[1]], outs=out))
    kern["functions"][0]["blocks"][0]["instructions"][0]["ins"][0]["ap"] = [[512, 96], [1, 512]]
    kern["functions"][0]["blocks"][0]["instructions"][0]["outs"][0]["ap"] = [[512, 96], [1, 512]]
    assert b(one(kern), 0x28, 4) == struct.pack("<I", (32 << 18) | 0x8000).hex()  # ADDR4: partition 32
    assert b(one(kern, decisions=("N-6=byte-offset",)), 0x28, 4) == struct.pack("<I", 0x8000).hex()


def test_n7_register_word() -> None:
    h = one(k(ts(ins=[ap("a", "float32", F32), reg("r", "float32")])))
    assert b(h, 0x23) == "02" and b(h, 0x28, 4) == "05000000"


def test_n8_short_activation_args() -> None:
    two = [ap("a", "float32", F32), ap("a", "float32", COL, 8192)]
    h = one(k(act(ins=two)), decisions=NO_RES)  # scale from the key (1.0), alpha 0
    assert b(h, 0x0D) == "00" and b(h, 0x24, 4) == f32(1.0)  # an immediate scale: kind 0 (N-2), word +0x24
    assert "4 arguments" in str(fails(k(act(ins=two)), decisions=(*NO_RES, "N-8=refuse")))
    no_scale = act(ins=two)
    del no_scale["scale"]
    assert "'scale' key" in str(fails(k(no_scale), decisions=NO_RES))
    # the IR interpreter forms the same args: the same refusals, and the synthesised scale computes
    with pytest.raises(InterpretError, match="'scale' key"):
        interpret(read_bir(k(no_scale)), {}, decisions=DecisionSet.parse(list(NO_RES)))
    with pytest.raises(InterpretError, match="takes 4 ins"):
        interpret(read_bir(k(act(ins=two))), {}, decisions=DecisionSet.parse([*NO_RES, "N-8=refuse"]))


def test_n9_non_prelu_alpha() -> None:
    ins = [ap("a", "float32", F32), ap("a", "float32", COL, 8192), imm("float32", 1.0), imm("float32", 0.5)]
    assert "N-9" in str(fails(k(act(ins=ins)), decisions=NO_RES))
    h = one(k(act(ins=ins)), decisions=(*NO_RES, "N-9=drop"))
    assert b(h, 0x2C, 4) == "00000000"  # dropped


def test_n10_multi_bundle_sync() -> None:
    s = streams(k(act(outs=[ap("a", "float32", F32, 4096), ap("a", "float32", COL, 8196)],
                      sync={"wait": {"mode": "sem_ge_imm", "index": 3, "value": 1},
                            "update": {"mode": "sem_inc", "index": 4}})), decisions=NO_RES)["act"]
    assert [b(x, 4, 4) for x in s] == ["05030000", "00001304"]  # wait on the 0x21, update on the 0x24


def test_n11_read_accumulator_slot() -> None:
    rd = inst("ActivationReadAccumulator", [], [ap("a", "float32", COL, 8192)], engine="Activation")
    assert b(one(k(rd)), 0x2C, 4) == "00800000"
    assert b(one(k(rd), decisions=("N-11=tensor1d-0x30",)), 0x30, 4) == "00800000"


def test_n12_reduce_opcode_pairing() -> None:
    assert b(one(k(tr())), 0) == "42" and b(one(k(tr(apply_transpose=True))), 0) == "83"
    assert b(one(k(tr()), decisions=("N-12=book-literal",)), 0) == "7c"


def test_n13_reduce_axis_byte() -> None:
    s = ap("a", "float32", [[16, 128], [16, 1], [1, 16]])
    assert b(one(k(tr(axis="XY", s=s))), 0x25) == "02"  # one reduced pair survives D-6
    assert b(one(k(tr(axis="XY", s=s)), decisions=("N-13=no-dropping",)), 0x25) == "03"


def test_n14_reduce_op_gate() -> None:
    assert "N-14" in str(fails(k(tr("is_equal"))))
    assert b(one(k(tr("is_equal")), decisions=("N-14=alu-lut",)), 0x24) == "12"


def test_n15_bitvec_selection() -> None:
    i = ap("a", "int32", F32)
    assert b(one(k(ts("bitwise_and", ins=[i, imm("int32", 1)], outs=[ap("a", "int32", F32, 4096)]))), 0) == "53"
    assert "N-15" in str(fails(k(ts("bitwise_and", ins=[i, imm("int32", 1), imm("int32", 1)], op1="add",
                                    outs=[ap("a", "int32", F32, 4096)]))))


def test_n16_default_stream() -> None:
    a1 = act()
    a1["engine"] = "Unassigned"
    assert set(streams(k(a1), decisions=NO_RES)) == {"act"}
    assert set(streams(k(a1), decisions=(*NO_RES, "N-16=spec-dve"))) == {"dve"}


def test_n17_gpsimd_psum() -> None:
    assert "GPSIMD" in str(fails(k(tr(s=ap("ps", "float32", F32), engine="Pool"))))


def test_n18_ts_two_outputs_idle() -> None:
    two = ts(op1="add", outs=[ap("a", "float32", F32, 4096), ap("a", "float32", COL, 8192)])
    assert "Reduce Accum result is not outputed" in str(fails(k(two)))
    s = streams(k(two), decisions=("N-18=zero-accumulate",))["dve"]
    assert [b(x, 0) for x in s] == ["9a", "9b"] and b(s[0], 0x0C) == "03"


def test_n19_fused_reduce_roles() -> None:
    s = streams(k(ts(op1="max", acc="ZeroAccumulate", negate_second_output=True,
                     outs=[ap("a", "float32", F32, 4096), ap("a", "float32", COL, 8192)])))["dve"]
    assert b(s[0], 0x25) == "08" and b(s[1], 0x21) == "01"  # op1 is the reduce op; 0x9B negated


def test_n20_tensor_scalar_lowering() -> None:
    it28 = inst("TensorScalar", [ap("a", "float32", F32)], [ap("a", "float32", F32, 4096)], engine="DVE",
                op0="mult", const0=2.0, reverse0=False, op1="bypass", const1=5.0, reverse1=False)
    assert b(one(k(it28)), 0x2C, 4) == "00000000"
    assert b(one(k(it28), decisions=("N-20=always-3-args",)), 0x2C, 4) == f32(5.0)


def _iota(**kw):
    return inst("Iota", [], [ap("a", "int32", [[64, 128], [1, 64]])], engine="Pool",
                **{"base": 0, "pattern": [{"step": 1, "num": 64}], "channel_multiplier": 64, **kw})


def stt(op0="mult", ins=None, outs=None, **kw):
    """ScalarTensorTensor (§4.4): tensor0 at byte 0, tensor1 at byte 0x2000, out at byte 0x4000 of partition 0."""
    return inst("TensorScalarPtr", ins or [ap("a", "float32", F32), imm("float32", 0.5), ap("a", "float32", F32, 2048)],
                outs or [ap("a", "float32", F32, 4096)], engine="DVE", op0=op0,
                **{"op1": "add", "is_scalar_tensor_tensor": True, **kw})


def test_n21_stt_layout() -> None:
    h = one(k(stt()))  # chapter §4.4 byte map; N-21: tensor1 +0x0C, out +0x18, tensor0 +0x30, value +0x3C
    assert b(h, 0) == "9d" and b(h, 0x0C, 4) == "00200000" and b(h, 0x18, 4) == "00400000"
    # +0x27: the immediate's kind, 0 (N-2: the store TensorScalar's +0x23 shares, sub_12051E0)
    assert b(h, 0x30, 4) == "00000000" and b(h, 0x27) == "00" and b(h, 0x3C, 4) == f32(0.5)
    h = one(k(stt()), decisions=("N-21=t0-0x0c-t1-0x30",))  # swapped: tensor0 +0x0C, tensor1 +0x30
    assert b(h, 0x0C, 4) == "00000000" and b(h, 0x30, 4) == "00200000" and b(h, 0x18, 4) == "00400000"
    one_byte = ("N-21=one-byte-scalar",)  # as D-16=one-byte: only a scalar whose bits fit +0x27
    assert "does not fit the one scalar byte" in str(fails(k(stt()), decisions=one_byte))
    assert "cannot be told from an immediate" in str(
        fails(k(stt(ins=[ap("a", "float32", F32), reg("r", "float32"), ap("a", "float32", F32, 2048)])),
              decisions=one_byte))
    h = one(k(stt(ins=[ap("a", "float32", F32), imm("int32", 7), ap("a", "float32", F32, 2048)])), decisions=one_byte)
    assert b(h, 0x27) == "07" and b(h, 0x2B) == "08" and b(h, 0x3C, 4) == "00000000"  # int32 wire 0x08


def test_n21_follows_the_imm_src_model_of_n2_and_d16() -> None:
    """§13: one helper (sub_12051E0) writes every IMM_SRC scalar, so N-21's scalar bytes sit where SPEC
    D-16's alternative puts SelectReduce's fill (same S2S2D2 struct: source +0x27, value +0x3C), its
    kind codes are N-2's table, and its one-byte reading is D-16's default."""
    from tongasm.isa import build_formats

    for ds, src_ds in ((DecisionSet(), DecisionSet.parse(["D-16=source-byte"])),
                       (DecisionSet.parse(["N-2=imm0-reg1-ptr2"]), DecisionSet.parse(["D-16=source-byte"]))):
        stt_fmt = build_formats(ds).by_name["ScalarTensorTensor"]
        sr_fmt = build_formats(src_ds).by_name["SelectReduce"]
        assert stt_fmt.field_map["scalar_kind"].offset == sr_fmt.field_map["fill_source"].offset == 0x27
        assert stt_fmt.field_map["scalar_value"].offset == sr_fmt.field_map["fill_value"].offset == 0x3C
        ts_fmt = build_formats(ds).by_name["TensorScalar"]
        assert stt_fmt.field_map["scalar_kind"].enum == ts_fmt.field_map["s0_kind"].enum  # N-2's one table
    assert b(one(k(stt()), decisions=("N-2=imm0-reg1-ptr2",)), 0x27) == "00"  # ENUM order: immediate → 0
    one_stt = build_formats(DecisionSet.parse(["N-21=one-byte-scalar"])).by_name["ScalarTensorTensor"]
    one_sr = build_formats(DecisionSet()).by_name["SelectReduce"]  # D-16's default: one byte
    assert one_stt.field_map["scalar_byte"].offset == one_sr.field_map["fill"].offset == 0x27
    assert "scalar_value" not in one_stt.field_map and "fill_value" not in one_sr.field_map


def test_n21_opcodes_are_the_ones_the_neffs_dve_table_enables() -> None:
    """Contradiction 9 (MASTER 0x9C vs TS 0x9D), measured: in both real NEFFs' gen3 DVE microcode opcode
    table (1024 B, one 4-byte descriptor per opcode, 0 = disabled) 0x9C is disabled and the three bytes
    the ScalarTensorTensor record encodes are enabled (0x9D and 0x9E share one descriptor)."""
    from neff_support import large, small

    from tongasm.isa import build_formats
    from tongasm.neff import read_neff

    codes = set(build_formats(DecisionSet()).by_name["ScalarTensorTensor"].opcodes)
    assert codes == {0x9D, 0x9E, 0xE5}
    for path in (small(), large()):
        neff = read_neff(path)
        for name in ("sg00/default_opcode_table.bin", "sg01/default_opcode_table.bin"):
            table = bytes(neff.member(name))
            assert len(table) == 1024
            slot = {op: table[4 * op:4 * op + 4] for op in (0x9C, *codes)}
            assert slot[0x9C] == bytes(4) and all(slot[op] != bytes(4) for op in codes), slot
            assert slot[0x9D] == slot[0x9E]


def test_n22_iota_band() -> None:
    assert "N-22" in str(fails(k(_iota()), decisions=("N-22=off",)))
    h = one(k(_iota(base=5)), decisions=("N-22=base-slot0-fixed",))
    assert b(h, 0x0C, 4) == "05000000" and b(h, 0x10, 2) == "0100" and b(h, 0x1A, 2) == "4000"  # slot 1 = (1, 64)
    h = one(k(_iota()), decisions=("N-22=slot0-pattern",))
    assert b(h, 0x18, 2) == "4000"  # slot 0 = (1, 64)
    assert "no-base" in str(fails(k(_iota(base=5)), decisions=("N-22=no-base",)))


def _cross(op="average", axis="XYZWC", d=None):
    return inst("TensorReduce", [ap("a", "float32", [[8, 128], [1, 8]])],
                [d or ap("a", "float32", [[1, 1], [1, 1]], 4096)], engine="Unassigned", op=op, axis=axis)


def test_n23_cross_lane_mean() -> None:
    cross_c = _cross(axis="C", d=ap("a", "float32", [[8, 1], [1, 8]], 4096))
    s = streams(k(cross_c))
    assert list(s) == ["pool"] and b(s["pool"][0], 0x28, 4) == f32(1 / 128)  # C: 1/P
    assert b(streams(k(cross_c), decisions=("N-23=all-elements",))["pool"][0], 0x28, 4) == f32(1 / 1024)
    assert b(one(k(_cross())), 0x28, 4) == f32(1 / 1024)  # XYZWC: 1/(P x NEPP)


def test_n24_pool_packing() -> None:
    p = inst("Pool", [ap("a", "float32", [[16, 128], [16, 1], [4, 4], [1, 4]])], [ap("a", "float32", COL, 4096)],
             engine="DVE", func="Max")
    h = one(k(p))
    assert b(h, 0x10, 8) == "0100040010000100"  # the (16, 1) pair keeps its slot
    assert "5" in str(fails(k(dict(p, func="Avg"))))  # Avg needs five pairs
    # under D-6=outermost-first the window is in the last used slots and the {1,1} fill follows
    avg = inst("Pool", [ap("a", "float32", [[16, 128], [16, 1], [1, 1], [4, 4], [1, 4]])],
               [ap("a", "float32", COL, 4096)], engine="DVE", func="Avg")
    h = one(k(avg), decisions=("D-6=outermost-first",))  # slots (16,1) (1,1) (4,4) (1,4): window 4 x 4
    assert b(h, 0x10, 8) == "1000010004000100" and b(h, 0x28, 4) == f32(1 / 16)
    x = np.zeros((128, 16384), np.float32)
    x[:, :16] = np.arange(16, dtype=np.float32)
    assert _out(k(avg), x, ("D-6=outermost-first",), n=1)[0] == np.float32(7.5)  # the mean of 0..15
    mx = inst("Pool", [ap("a", "float32", [[16, 128], [4, 4], [1, 4]])], [ap("a", "float32", COL, 4096)],
              engine="DVE", func="Max")
    h = one(k(mx), decisions=("D-6=outermost-first",))  # slots (4,4) (1,4) then the fill (1,1) (1,1)
    assert b(h, 0x10, 8) == "0400010001000100" and b(h, 0x18, 8) == "0400040001000100"
    assert _out(k(mx), x, ("D-6=outermost-first",), n=1)[0] == 15.0
    # an innermost [1, 1] pair cannot be told from the fill there: refused, loudly
    amb = inst("Pool", [ap("a", "float32", [[16, 128], [4, 4], [1, 1]])], [ap("a", "float32", COL, 4096)],
               engine="DVE", func="Max")
    assert "fill" in str(fails(k(amb), decisions=("D-6=outermost-first",)))
    assert b(one(k(amb)), 0x18, 4) == "01000400"  # innermost first: slot 0 (1,1), slot 1 (4,4)


def test_s29_cross_lane() -> None:
    x = np.zeros((128, 16384), np.float32)
    x[:, :8] = np.arange(128, dtype=np.float32)[:, None]  # partition p holds p
    sim, ref = _both(k(_cross("max", "C", ap("a", "float32", [[8, 1], [1, 8]], 4096))), {"a": x})
    assert sim["a"].tobytes() == ref["a"].tobytes() and list(sim["a"][0, 4096:4098]) == [127.0, 127.0]
    sim, _ = _both(k(_cross()), {"a": x})
    assert sim["a"][0, 4096] == np.float32(127 / 2)  # the mean of 0..127


def test_s33_pool() -> None:
    p = inst("Pool", [ap("a", "float32", [[16, 128], [4, 4], [1, 4]])], [ap("a", "float32", COL, 4096)],
             engine="DVE", func="Max")
    x = np.zeros((128, 16384), np.float32)
    x[:, :16] = np.arange(16, dtype=np.float32)
    x[:, 5] = np.nan  # fmaxf ignores NaN
    assert _out(k(p), x, n=1)[0] == 15.0
    avg = inst("Pool", [ap("a", "float32", [[16, 128], [8, 2], [2, 2], [4, 2], [1, 2]])],
               [ap("a", "float32", [[4, 128], [1, 4]], 4096)], engine="DVE", func="Avg")
    x[:, 5] = 5.0
    assert list(_out(k(avg), x, n=4)) == [2.5, 4.5, 10.5, 12.5]  # the 2x2 means of a 4x4 image 0..15


def test_s34_iota() -> None:
    sim, ref = _both(k(_iota(base=-3)), {"a": np.zeros((128, 16384), np.float32)}, ("N-22=base-slot0-fixed",))
    got = sim["a"].view(np.int32)
    assert sim["a"].tobytes() == ref["a"].tobytes()
    assert list(got[2, :3]) == [-3 + 128, -3 + 129, -3 + 130]  # base + c*64 + x


def test_n27_activation_unsupported_keys() -> None:
    assert "N-27" in str(fails(k(act(op0="add")), decisions=NO_RES))
    assert b(one(k(act(op0="add")), decisions=(*NO_RES, "N-27=ignore")), 0) == "21"
    assert "is_activate2" in str(fails(k(act(is_activate2=True)), decisions=(*NO_RES, "N-27=ignore")))


def _acc_after(kern: dict, ds: tuple[str, ...] = ()) -> np.ndarray:
    x = np.zeros((128, 16384), np.float32)
    x[:, :512] = 1.0  # the data; the bias pointer (column 8192) is 0
    r = run_kernel(read_bir(kern), {"a": x}, decisions=DecisionSet.parse(ds))
    return r.machine.engines["act"].accumulator


def _tsc(**kw):
    return inst("TensorScalarCache", [ap("a", "float32", F32), imm("float32", 2.0)], [ap("a", "float32", F32, 4096)],
                engine="DVE", **{"op0": "subtract", "op1": "add", "mode": "Cumulative", "acc": "ZeroAccumulate",
                                 "reverse0": True, **kw})


def test_n28_tscache_reverse0() -> None:
    x = np.zeros((128, 16384), np.float32)
    x[:, :512] = 1.0
    # operand order (NKI): t = 2 - x = 1, scanned forwards: 1, 2, 3, ...
    assert list(_out(k(_tsc()), x, n=3)) == [1.0, 2.0, 3.0]
    # scan direction (the book): t = x - 2 = -1, scanned from the last element: out[511] = -1, out[0] = -512
    got = _out(k(_tsc()), x, ("N-28=scan-direction",), at=4096, n=512)
    assert got[-1] == -1.0 and got[0] == -512.0


def test_s36_cumulative_scan() -> None:
    x = np.zeros((128, 16384), np.float32)
    x[:, :512] = 1.0
    kern = k(_tsc(op0="mult", op1="max", reverse0=False, acc="LoadAccumulate") | {"ins": [ap("a", "float32", F32), imm("float32", 2.0), imm("float32", 5.0)]})
    assert list(_out(kern, x, n=2)) == [5.0, 5.0]  # max(init 5, 2 * 1), running
    b0 = streams(k(_tsc()))["dve"][0]
    assert b(b0, 0) == "e6" and b(b0, 0x0C) == "03"


def test_n29_idle_activation_accumulator() -> None:
    acc = _acc_after(k(act("Identity")), NO_RES)  # Idle arrives as ZeroAccumulate: the row sums (512 ones)
    assert acc[0] == 512.0 and b(one(k(act()), decisions=NO_RES), 0x0E) == "03"


def test_n30_accumulator_semantics() -> None:
    acc = _acc_after(k(act("Identity", acc="Zero")), NO_RES)
    assert acc[0] == 0.0  # reset to id(add), no fold
    acc = _acc_after(k(act("Identity", acc="ZeroAccumulate"), act("Identity", acc="AddAccumulate")), NO_RES)
    assert acc[0] == 1024.0


def test_n31_gen4_only() -> None:
    assert "gen4" in str(fails(k(act(is_activate2=True)), decisions=NO_RES))


def test_n33_immediate_values() -> None:
    assert "fp32" in str(fails(k(ts(ins=[ap("a", "float32", F32), imm("int32", 2)]))))
    assert b(one(k(ts(ins=[ap("a", "float32", F32), imm("float32", -0.0)]))), 0x28, 4) == "00000080"


def test_n34_partition_agreement() -> None:
    e = fails(k(tr(d=ap("a", "float32", [[1, 64], [1, 1]], 4096))))
    assert "tr.equal_partitions" in str(e)


def test_n35_residency() -> None:
    assert "not resident" in str(fails(k(act())))
    lafs = inst("LoadActFuncSet", [], [], engine="Activation", act_func_set_id=0)
    assert len(streams(k(lafs, act()))["act"]) == 2
    assert "not resident" in str(fails(k(lafs, act("Gelu"))))
    assert len(streams(k(act("Gelu")), decisions=NO_RES)["act"]) == 1


def test_n36_gen2_bias() -> None:
    ins = [ap("a", "float32", F32), imm("float32", 0.0), imm("float32", 1.0), imm("float32", 0.0)]
    assert b(one(k(act(ins=ins)), decisions=NO_RES), 0x0F) == "01"  # the immediate 0.0 is allowed on gen2
    assert "gen2" in str(fails(k(act(ins=ins)), decisions=(*NO_RES, "N-36=vector-only")))
    assert b(one(k(act(ins=ins), arch="gen3"), decisions=(*NO_RES, "N-36=vector-only")), 0) == "21"


def test_n37_ts_pointer_opcodes() -> None:
    p = ts(ins=[ap("a", "float32", F32), ap("a", "float32", COL, 8192)])
    assert b(one(k(p)), 0) == "43"
    assert b(one(k(p), decisions=("N-37=pointer-scalars",)), 0) == "44"


def test_n38_activation_arg3_kind() -> None:
    assert b(one(k(act()), decisions=NO_RES), 0x0C) == "00"  # ACT's decompiled code: not written
    assert b(one(k(act()), decisions=(*NO_RES, "N-38=one")), 0x0C) == "01"  # §15.2
    assert b(one(k(act("Copy")), decisions=NO_RES), 0x0C) == "01"  # Copy / Reciprocal: forced 1 (C)


def test_n39_bn_partition_byte() -> None:
    bn = inst("BNStats", [ap("a", "float32", [[512, 96], [1, 512]], 16384 * 32)],
              [ap("a", "float32", [[6, 96], [1, 6]], 16384 * 32 + 4096)], engine="DVE", apply_transpose=False)
    assert b(one(k(bn)), 0x22) == "60"
    assert b(one(k(bn), decisions=("N-39=start-partition",)), 0x22) == "20"


def test_n40_activation_two_outputs() -> None:
    two = act(outs=[ap("a", "float32", F32, 4096), ap("a", "float32", COL, 8192)])
    assert [b(x, 0) for x in streams(k(two), decisions=NO_RES)["act"]] == ["21", "24"]
    assert [b(x, 0) for x in streams(k(two), decisions=(*NO_RES, "N-40=instead"))["act"]] == ["24"]


def test_n41_activation_load_accumulate() -> None:
    assert "N-41" in str(fails(k(act(acc="LoadAccumulate")), decisions=NO_RES))
    assert b(one(k(act(acc="LoadAccumulate")), decisions=(*NO_RES, "N-41=word")), 0x0E) == "04"


# --- S-20..S-35: the semantics, bundle simulator and IR interpreter both --------------------------------

def _both(kern: dict, inputs: dict, ds: tuple[str, ...] = ()) -> tuple[dict, dict]:
    d = DecisionSet.parse(ds)
    sim = run_kernel(read_bir(kern), inputs, decisions=d).outputs(["a"])
    ref = interpret(read_bir(kern), inputs, decisions=d).outputs(["a"])
    return sim, ref


def _out(kern: dict, x: np.ndarray, ds: tuple[str, ...] = (), at: int = 4096, n: int = 4) -> np.ndarray:
    sim, ref = _both(kern, {"a": x}, ds)
    assert sim["a"].tobytes() == ref["a"].tobytes()
    return sim["a"][0, at:at + n]


def _x(v: float) -> np.ndarray:
    x = np.zeros((128, 16384), np.float32)
    x[:, :512] = v
    return x


def test_s20_activation_prescale() -> None:
    # x*s + b with x = 1 + 2^-23, s = 1 + 2^-23, b = -1: two roundings lose the 2^-46 term, a fused one keeps it
    e = np.float32(1 + 2 ** -23)
    x = _x(float(e))
    ins = [ap("a", "float32", F32), imm("float32", -1.0), imm("float32", float(e)), imm("float32", 0.0)]
    kern = k(act("Identity", ins=ins), arch="gen3")
    two = _out(kern, x, (*NO_RES, "N-5=scale-at-0x24"))
    fused = _out(kern, x, (*NO_RES, "N-5=scale-at-0x24", "S-20=fused"))
    assert two[0] == np.float32(2 ** -22) and fused[0] == np.float32(2 ** -22 + 2 ** -46)


def test_s21_activation_evaluation() -> None:
    kern = k(act("Exp"))
    x = _x(1.0)
    assert _out(kern, x, NO_RES)[0] == np.exp(np.float32(1.0))
    assert _out(kern, x, (*NO_RES, "S-21=f64-once"))[0] == np.float32(np.exp(1.0))


def test_s22_accumulator_fold() -> None:
    x = np.zeros((128, 16384), np.float32)
    x[:, 0], x[:, 1:512] = 1.0, 2 ** -25  # sequential fp32: 1 + tiny stays 1 each time
    kern = k(act("Identity", acc="ZeroAccumulate", outs=[ap("a", "float32", F32, 4096),
                                                          ap("a", "float32", COL, 8192)]))
    assert _out(kern, x, NO_RES, at=8192, n=1)[0] == 1.0


def test_s24_activation_load_init() -> None:
    ins = [ap("a", "float32", F32), imm("float32", 0.0), imm("float32", 1.0), imm("float32", 3.0)]
    kern = k(act("Prelu", ins=ins, acc="LoadAccumulate", outs=[ap("a", "float32", F32, 4096),
                                                               ap("a", "float32", COL, 8192)]))
    assert _out(kern, _x(1.0), NO_RES, at=8192, n=1)[0] == 3.0 + 512.0  # init alpha 3, then the row sum


def test_s25_read_accumulator() -> None:
    kern = k(ts(op1="add", acc="ZeroAccumulate", negate_second_output=True,
                outs=[ap("a", "float32", F32, 4096), ap("a", "float32", COL, 8192)]))
    assert _out(kern, _x(1.0), at=8192, n=1)[0] == -1024.0  # -(sum of 2*1 over 512)


def test_s26_tensor_scalar() -> None:
    kern = k(ts("subtract", ins=[ap("a", "float32", F32), imm("float32", 5.0)], reverse0=True))
    assert _out(kern, _x(1.0))[0] == 4.0  # reverse0: 5 - x


def test_s27_fused_reduce() -> None:
    kern = k(ts(op1="max", acc="LoadAccumulate", ins=[ap("a", "float32", F32), imm("float32", 2.0),
                                                      imm("float32", 100.0)],
                outs=[ap("a", "float32", F32, 4096), ap("a", "float32", COL, 8192)]))
    assert _out(kern, _x(1.0), at=8192, n=1)[0] == 100.0  # max(init 100, 2*1)
    assert _out(kern, _x(1.0))[0] == 2.0  # out = op0 only
    assert _out(kern, _x(1.0), ("S-27=op1-elementwise-too",))[0] == 100.0


def test_s28_reduce_fold() -> None:
    kern = k(tr("subtract", d=ap("a", "float32", COL, 4096)))
    x = _x(1.0)
    assert _out(kern, x, n=1)[0] == 1.0 - 511.0  # x0 - x1 - ... - x511


def test_s30_reciprocal() -> None:
    kern = k(inst("Reciprocal", [ap("a", "float32", F32)], [ap("a", "float32", F32, 4096)], engine="DVE"))
    assert _out(kern, _x(0.0))[0] == np.inf and _out(kern, _x(4.0))[0] == 0.25


def test_s31_bn_stats() -> None:
    bn = inst("BNStats", [ap("a", "float32", [[512, 128], [1, 5]])], [ap("a", "float32", [[6, 128], [1, 6]], 4096)],
              engine="DVE", apply_transpose=False)
    x = np.zeros((128, 16384), np.float32)
    x[:, :5] = [1, 10, 3, 20, 5]
    assert list(_out(k(bn), x, n=6)) == [3.0, 3.0, 8.0, 2.0, 15.0, 50.0]  # evens 1,3,5; odds 10,20


def test_s32_bn_aggregate() -> None:
    ag = inst("BNStatsAggregate", [ap("a", "float32", [[6, 128], [1, 6]])],
              [ap("a", "float32", [[2, 128], [1, 2]], 4096)], engine="DVE")
    x = np.zeros((128, 16384), np.float32)
    x[:, :6] = [3, 3, 8, 2, 15, 50]  # the bn_stats of [1, 10, 3, 20, 5]
    # mean 39/5, population variance 230.8/5 (Chan's merge of the two lanes in float32)
    np.testing.assert_allclose(_out(k(ag), x, n=2), [7.8, 46.16], rtol=1e-6)


def test_s35_pointer_scalars() -> None:
    kern = k(ts(ins=[ap("a", "float32", F32), ap("a", "float32", COL, 8192)]))
    x = _x(1.0)
    x[:, 8192] = np.arange(128, dtype=np.float32)  # the pointer: lane p holds p
    sim, _ = _both(kern, {"a": x})
    assert list(sim["a"][:4, 4096]) == [0.0, 1.0, 2.0, 3.0]


def test_s37_scalar_tensor_tensor() -> None:
    x = _x(3.0)
    x[:, 2048:2560] = 12.0  # tensor1
    # op0 subtract with reverse0: 0.5 - 3 = -2.5; op1 divide with reverse1: tensor1 / t = 12 / -2.5
    kern = k(stt("subtract", op1="divide", reverse0=True, reverse1=True))
    assert _out(kern, x)[0] == np.float32(12.0) / np.float32(-2.5)
    assert _out(k(stt()), x)[0] == 3.0 * 0.5 + 12.0  # (tensor0 * 0.5) + tensor1
    # 0x9E: raw bits, (tensor0 & 0xF0) | tensor1
    i32 = [[512, 128], [1, 512]]
    kern = k(stt("bitwise_and", op1="bitwise_or", ins=[ap("a", "int32", i32), imm("int32", 0xF0),
                                                       ap("a", "int32", i32, 2048)], outs=[ap("a", "int32", i32, 4096)]))
    assert b(one(kern), 0) == "9e"
    xi = np.zeros((128, 16384), np.int32)
    xi[:, :512], xi[:, 2048:2560] = 0x1234, 0x3
    assert _out(kern, xi)[0] == (0x1234 & 0xF0) | 0x3


def test_s38_scan_initial() -> None:
    # 0xE5: r_i = tensor0_i * r_(i-1) + tensor1_i; r_(-1) = the scalar, here a [P,1] pointer: lane p holds p
    ins = [ap("a", "float32", F32), ap("a", "float32", COL, 8192), ap("a", "float32", F32, 2048)]
    kern = k(stt(ins=ins, is_scalar_tensor_tensor=False, is_tensor_tensor_scan=True))
    assert b(one(kern), 0) == "e5" and b(one(kern), 0x27) == "01"  # the pointer's kind (N-2)
    x = _x(2.0)
    x[:, 2048:2560] = 1.0
    x[:, 8192] = np.arange(128, dtype=np.float32)
    sim, _ = _both(kern, {"a": x})
    assert list(sim["a"][3, 4096:4099]) == [2 * 3 + 1, 2 * 7 + 1, 2 * 15 + 1]
    assert list(sim["a"][0, 4096:4099]) == [1.0, 3.0, 7.0]
    # an immediate initial, reverse0 puts the carry first: r_i = r_(i-1) - tensor0_i + tensor1_i
    kern = k(stt("subtract", reverse0=True, is_tensor_tensor_scan=True,
                 ins=[ap("a", "float32", F32), imm("float32", 10.0), ap("a", "float32", F32, 2048)]))
    assert list(_out(kern, x, n=3)) == [10.0 - 2 + 1, 10.0 - 2 * 2 + 2, 10.0 - 3 * 2 + 3]


def test_s39_scan_carry() -> None:
    # out int32: r_i = (tensor0_i + carry) + 0; tensor0 = 0.5, initial 0. The fp32 carry runs 0.5, 1, 1.5, 2
    # (written truncated: 0, 1, 1, 2); the out-dtype carry is truncated to 0 at every step.
    kern = k(stt("add", is_tensor_tensor_scan=True, outs=[ap("a", "int32", F32, 4096)],
                 ins=[ap("a", "float32", F32), imm("float32", 0.0), ap("a", "float32", F32, 2048)]))
    x = _x(0.5)
    assert list(_out(kern, x).view(np.int32)) == [0, 1, 1, 2]
    assert list(_out(kern, x, ("S-39=out-dtype",)).view(np.int32)) == [0, 0, 0, 0]


@pytest.mark.parametrize("ds", ["N-2=imm0-reg1-ptr2", "N-3=s1-0x28-s0-0x2c", "N-6=byte-offset"])
def test_n2_n3_n6_alternatives_simulate_the_same(ds: str) -> None:
    """The byte-level alternatives move words around; the simulator reads them back the same way."""
    kern = k(ts(op1="add", ins=[ap("a", "float32", F32), ap("a", "float32", COL, 8192), imm("float32", 1.0)]))
    x = _x(2.0)
    x[:, 8192] = 3.0
    assert _out(kern, x, (ds,))[0] == 7.0
    assert assemble(read_bir(kern), decisions=DecisionSet.parse([ds])).streams


@pytest.mark.parametrize("ds", ["N-2=imm0-reg1-ptr2", "N-6=byte-offset", "N-21=t0-0x0c-t1-0x30"])
def test_n21_alternatives_simulate_the_same(ds: str) -> None:
    """N-21's swapped slots (and the scalar's N-2/N-6 bytes) move fields; the simulator reads them back."""
    kern = k(stt(ins=[ap("a", "float32", F32), ap("a", "float32", COL, 8192), ap("a", "float32", F32, 2048)]))
    x = _x(2.0)
    x[:, 2048:2560], x[:, 8192] = 1.0, 3.0
    assert _out(kern, x, (ds,))[0] == 7.0


def test_s98_activation_accumulates_into_the_dst_lanes() -> None:
    # src on partitions 0..63, dst on 64..127 (offset 64 rows of 16384 elements): the row sums (512 ones) land in
    # the dst's accumulators; the src's stay at S-18's -inf. Both the bundle simulator and the IR interpreter.
    half = [[512, 64], [1, 512]]
    a = inst("Activation", [ap("a", "float32", half), ap("a", "float32", [[1, 64], [1, 1]], 8192), imm("float32", 1.0),
                            imm("float32", 0.0)], [ap("a", "float32", half, 4096 + 64 * 16384)], engine="Activation",
             func="Identity", acc="ZeroAccumulate", scale=1.0, alpha=0.0)
    x = np.zeros((128, 16384), np.float32)
    x[:64, :512] = 1.0
    for ds, lanes in ((NO_RES, slice(64, 128)), ((*NO_RES, "S-98=src"), slice(0, 64))):
        sim = run_kernel(read_bir(k(a)), {"a": x}, decisions=DecisionSet.parse(ds)).machine.engines["act"].accumulator
        ref = interpret(read_bir(k(a)), {"a": x}, decisions=DecisionSet.parse(ds)).accumulators["act"]
        for acc in (sim, ref):
            want = np.full(128, -np.inf, np.float32)
            want[lanes] = 512.0
            assert acc.tolist() == want.tolist()
