"""One test per decision of the PE, DMA and control layouts (R-9..R-19, R-22..R-27, S-40..S-47): each pins the default reading
and, where the decision is selectable, what the alternative changes. The encode-side golden vectors
(tests/golden/vectors/pe, dma, control) pin the bytes of every reading; these tests pin the behaviour
behind them (decode, checks, simulation)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import ap, fails, imm, inst, kernel, loc, streams
from tongasm.codegen import assemble
from tongasm.decode import decode_bundle
from tongasm.isa import DecisionSet, build_formats
from tongasm.isa.decisions.dma import Addr8Modes
from tongasm.isa.decisions.pe import PsumFlags
from tongasm.ir import read_bir
from tongasm.ir.memory import describe_kernel
from tongasm.sim.run import run_kernel

SB = loc("sb", "SB", dims=(128, 229376))
PS = loc("ps", "PSUM", dims=(128, 16384))
X = loc("x", "DRAM", dims=(1, 32768), tensor_id=1)
Y = {"name": "y_set", "memorylocations": [{"name": "y", "type": "DRAM", "dims": [1, 32768], "tensor_id": 2,
                                            "dge_entry": 0}]}
OUT = loc("out", "DRAM", dims=(1, 65536), tensor_id=3)
T = [[1, 128], [1, 128]]


def k(*insts: dict, **kw: object) -> dict:
    return kernel(*insts, allocs=[SB, PS, X, Y, OUT], arch="gen3", **kw)  # type: ignore[arg-type]


def ls(offset: int = 0, pairs: list[list[int]] | None = None, **kw: object) -> dict:
    return inst("LoadStationary", [ap("sb", "float16", pairs or T, offset)], [], engine="PE", **kw)


def mm(start: bool = True, stop: bool = True, **kw: object) -> dict:
    return inst("MultiplyMoving", [ap("sb", "float16", T, 0x4000)], [ap("ps", "float32", T)], engine="PE",
                start_tensor_calc=start, stop_tensor_calc=stop, **kw)


def one(kern: dict, *decisions: str) -> bytes:
    (hexes,) = streams(kern, decisions=decisions).values()
    return bytes.fromhex(hexes[-1])


def test_r9_pe_unused_dims_hold_0_1() -> None:
    raw = one(k(mm()))
    assert decode_bundle(raw).fields["moving.step1"] == 0 and decode_bundle(raw).fields["moving.num1"] == 1
    alt = one(k(mm()), "R-9=step1-count1")
    ds = DecisionSet.parse(["R-9=step1-count1"])
    assert decode_bundle(alt, decisions=ds).fields["moving.step1"] == 1
    assert build_formats(ds).by_name["Matmul"].slots["moving"].fill == (1, 1)


def test_r10_stationary_is_addressed_at_its_last_column_in_reverse_quadrants() -> None:
    f = decode_bundle(one(k(ls(0x100)))).fields
    assert f["stationary.addr"] == 0x200 + 254
    assert [(f[f"stationary.step{i}"], f[f"stationary.num{i}"]) for i in range(3)] == [(-1, 32), (0, 1), (-32, 4)]
    ds = DecisionSet.parse(["R-10=natural"])
    g = decode_bundle(one(k(ls(0x100)), "R-10=natural"), decisions=ds).fields
    assert g["stationary.addr"] == 0x200 and (g["stationary.step0"], g["stationary.num0"]) == (1, 128)


def test_r11_flags_first_middle_last_whole() -> None:
    got = [decode_bundle(one(k(mm(bool(s), bool(t))))).fields["psum_flags"] for s, t in ((1, 0), (0, 0), (0, 1), (1, 1))]
    assert got == [0x01, 0x00, 0x02, 0x03]
    book = DecisionSet.parse(["R-11=book-accu"]).get(PsumFlags)
    assert [book.flags(bool(s), bool(t)) for s, t in ((1, 0), (0, 0), (0, 1), (1, 1))] == [0x01, 0x04, 0x06, 0x03]
    assert DecisionSet().get(PsumFlags).accumulates(0x00) and not book.accumulates(0x00)


def test_r12_transpose_writes_the_input_dtype() -> None:
    tr = inst("MultiplyMoving", [ap("sb", "float16", T, 0x4000)], [ap("ps", "float16", T)], engine="PE",
              start_tensor_calc=True, stop_tensor_calc=True, is_transpose=True)
    assert decode_bundle(one(k(tr))).fields["is_transpose"] == 1
    assert "R-12" in str(fails(k(tr), decisions=("R-12=fp32",)))


def test_r13_partial_tiles_take_the_book_group_codes() -> None:
    small_tile = k(ls(pairs=[[1, 64], [1, 64]]))
    f = decode_bundle(one(small_tile)).fields
    # K = 64 rows from partition 0: the book's LUT64 code 0x03; the column group forced 0x0F (gen3)
    assert (f["num_rows"], f["num_active_cols"], f["row_group"], f["col_group"]) == (64, 64, 0x03, 0x0F)
    g = decode_bundle(one(small_tile, "R-13=whole-array")).fields
    assert (g["row_group"], g["col_group"]) == (0x0F, 0x0F)


def dma(engine: str = "SP", src: dict | None = None, dst: dict | None = None, **kw: object) -> dict:
    return inst("DMACopy", [src or ap("x", "float16", [[128, 128], [1, 128]])], [dst or ap("sb", "float16", T, 0x100)],
                engine=engine, dma_semaphore=8, **kw)


def test_r14_sync_command_zero() -> None:
    assert decode_bundle(one(k(dma()))).fields["sync_command"] == 0
    assert decode_bundle(one(k(dma()), "R-14=book-copy")).fields["sync_command"] == 3


def test_r15_the_increment_is_added_at_completion() -> None:
    assert decode_bundle(one(k(dma()))).fields["dma_sem_increment"] == 16
    res = run_kernel(read_bir(k(dma())), {"x": np.ones((128, 128), np.float16)})
    assert res.state()["semaphores"] == {"8": 16}
    res = run_kernel(read_bir(k(dma())), {"x": np.ones((128, 128), np.float16)}, decisions=DecisionSet.parse(["R-15=parts"]))
    assert res.state()["semaphores"] == {"8": 16}  # 16 parts of 1: the same count once the DMA is done


def test_r16_dim0_is_the_inner_dim() -> None:
    two = dma(src=ap("x", "float16", [[256, 2], [128, 64], [1, 128]]), dst=ap("sb", "float16", [[1, 64], [128, 2], [1, 128]]))
    f = decode_bundle(one(k(two))).fields
    assert (f["src.step0"], f["src.num0"], f["src.step1"], f["src.num1"]) == (256, 64, 512, 2)
    g = decode_bundle(one(k(two), "R-16=dim0-outer")).fields
    assert (g["src.step0"], g["src.num0"]) == (512, 2)


def test_r17_dge_entries_and_sbuf() -> None:
    f = decode_bundle(one(k(dma(src=ap("y", "float16", [[128, 128], [1, 128]]))))).fields
    assert (f["src.addr_mode"], f["src.var"]) == (0x20, 0) and (f["dst.addr_mode"], f["dst.var"]) == (0x10, 0)
    assert f["dst.addr"] == 0x200  # SBUF word: partition 0, byte 0x200
    r17 = DecisionSet().get(Addr8Modes)
    assert r17.var_id(0x20, 1, [1, 2, 3]) == 2 and r17.var_id(0x10, 4, [1, 2, 3]) == 4
    assert DecisionSet.parse(["R-17=dge-var-id"]).get(Addr8Modes).var_id(0x20, 1, [1, 2, 3]) == 1


def test_r18_prologue_on_request() -> None:
    nop = inst("NoOp", engine="Pool")
    assert set(streams(k(nop))) == {"pool"}
    pro = streams(k(nop), decisions=("R-18=prologue",))
    assert set(pro) == {"sp", "pool", "pe", "act", "dve"} and pro["pool"][0][:4] == "b110" and pro["pool"][1][:4] == "cc10"


def test_r19_event_semaphore_update_lane() -> None:
    e = inst("EventSemaphore", engine="PE", sync={"wait": {"mode": "sem_ge_imm", "index": 1, "value": 2},
                                                  "update": {"mode": "sem_inc", "index": 9}})
    f = decode_bundle(one(k(e))).fields
    assert (f["update_mode"], f["update_idx"], f["reserved_06"]) == (0x13, 9, 0)
    assert "Too many sync update commands" in str(fails(k(e), decisions=("R-19=none",)))


def test_r21_act_table_index() -> None:
    """R-21: the real 0x23 bundle (golden real 17, bytes of matmul_small sg00 Activation bundle 2) is set 0
    under both readings; act_info.json's 21 sets (default) let LoadActFuncSet 11 through, Activation.json's
    one set (the draft) refuses it, and the N-35 residency follows the reading."""
    real = bytes.fromhex("2310" + "00" * 62)
    for ds in (DecisionSet(), DecisionSet.parse(["R-21=activation-json"])):
        d = decode_bundle(real, decisions=ds)
        assert d.fmt.name == "ActivationTableLoad" and d.fields["act_tbl_sel"] == 0
    load11 = inst("LoadActFuncSet", [], [], name="load", engine="Activation", act_func_set_id=11)
    gelu = inst("Activation", [ap("sb", "float32", T), ap("sb", "float32", [[1, 128], [1, 1]], 0x8000),
                               imm("float32", 1.0), imm("float32", 0.0)],
                [ap("sb", "float32", T, 0x4000)], engine="Activation", func="Gelu_apprx_tanh", acc="Idle",
                scale=1.0, alpha=0.0)
    ok = assemble(read_bir(k(load11, gelu)), check="warn")
    assert not ok.findings and bytes(ok.streams["act"])[0x23] == 11
    alt = assemble(read_bir(k(load11, gelu)), check="warn", decisions=DecisionSet.parse(["R-21=activation-json"]))
    assert {f.check for f in alt.findings} == {"act.set_id", "act.resident"}, [f.line() for f in alt.findings]


def test_r22_dma_steps_unsigned() -> None:
    rev = dma(src=ap("x", "float16", [[-128, 128], [1, 128]], 127 * 128))
    assert "R-22" in str(fails(k(rev)))
    assert decode_bundle(one(k(rev), "R-22=signed"), decisions=DecisionSet.parse(["R-22=signed"])).fields["src.step0"] == -256


def test_r23_offset_register_bytes() -> None:
    assert build_formats().by_name["DmaDirect2d"].field_map["src.offset_reg"].const is None
    alt = build_formats(DecisionSet.parse(["R-23=reserved"])).by_name["DmaDirect2d"].field_map["src.offset_reg"]
    assert alt.const == 0


def test_r24_ordering_mode() -> None:
    so = inst("SetOrderingMode", engine="PE", ordering_mode=2)
    assert "ctrl.ordering_mode" in str(fails(k(so)))
    assert one(k(so), "R-24=parameter")[0x0C] == 2


def test_r25_book_only_partial_layouts() -> None:
    partial = build_formats().by_name["MatmulSparse"]
    assert "moving" not in partial.slots and partial.covered_mask()[0x10:0x26] == bytes(0x16)
    guess = build_formats(DecisionSet.parse(["R-25=guess"])).by_name["MatmulSparse"]
    assert guess.slots["moving"].type_name == "TENSOR3D" and "in_dtype" in guess.field_map


def test_r26_event_semaphore_header_update() -> None:
    assert build_formats().by_name["EventSemaphore"].field_map["reserved_06"].const == 0
    alt = build_formats(DecisionSet.parse(["R-26=header-update"])).by_name["EventSemaphore"]
    assert alt.sync is not None and [u.mode for u in alt.sync.updates] == ["update_mode", "hdr_update_mode"]


def test_r27_branch_label_body() -> None:
    assert build_formats().by_name["PseudoBranchLabel"].field_map["label_id"].offset == 0x0C
    assert "label_id" not in build_formats(DecisionSet.parse(["R-27=zero"])).by_name["PseudoBranchLabel"].field_map


# --- the simulator's decisions -------------------------------------------------------------------------------

def matmul_kernel(y_wait: bool = True) -> dict:
    """x [128, 128] and y [128, 128] fp16 loaded by two Pool DMAs, out = x^T y through PSUM (the stationary is
    x: out[m][n] = sum_k x[k][m] y[k][n]), copied to SBUF by Activation and stored by a third DMA."""
    w = {"mode": "sem_ge_imm"}
    y_sync = {"wait": [{**w, "index": 25, "value": 16}]} if y_wait else None
    insts = [
        inst("DMACopy", [ap("x", "float16", [[128, 128], [1, 128]])], [ap("sb", "float16", T, 0)], engine="Pool",
             dma_semaphore=24),
        inst("DMACopy", [ap("y", "float16", [[128, 128], [1, 128]])], [ap("sb", "float16", T, 0x4000)], engine="Pool",
             dma_semaphore=25),
        inst("Matmult", [ap("sb", "float16", T, 0), ap("sb", "float16", T, 0x4000)], [ap("ps", "float32", T)],
             engine="PE", start_tensor_calc=True, stop_tensor_calc=True,
             sync={"wait": [{**w, "index": 24, "value": 16}], "update": {"mode": "sem_inc", "index": 5}}),
        inst("TensorCopy", [ap("ps", "float32", T)], [ap("sb", "float32", T, 0x8000)], engine="Activation",
             sync={"wait": {**w, "index": 5, "value": 1}, "update": {"mode": "sem_inc", "index": 4}}),
        inst("DMACopy", [ap("sb", "float32", T, 0x8000)], [ap("out", "float32", [[128, 128], [1, 128]])], engine="Pool",
             dma_semaphore=26, sync={"wait": {**w, "index": 4, "value": 1}}),
        inst("NoOp", engine="Pool", sync={"wait": {**w, "index": 26, "value": 16}})]
    if y_sync:  # the Matmult's second wait rides an EventSemaphore before it, as the compiler does
        insts.insert(2, inst("EventSemaphore", engine="PE", sync=y_sync))
    return k(*insts)


def run_matmul(*decisions: str, y_wait: bool = True) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    y = rng.uniform(-1, 1, (128, 128)).astype(np.float16)
    res = run_kernel(read_bir(matmul_kernel(y_wait)), {"x": x, "y": y}, decisions=DecisionSet.parse(decisions))
    out = res.outputs(["out"])["out"].view(np.float32).reshape(128, 128)
    return out, x.astype(np.float64).T @ y.astype(np.float64)


def test_s40_dma_timing_and_s42_s43_a_tongasm_matmul_runs() -> None:
    """S-40 (DMAs complete when every engine is blocked), S-41, S-42 (the stationary held), S-43 (START
    overwrites): a kernel tongasm builds computes x^T y."""
    out, ref = run_matmul()
    assert np.allclose(out, ref, rtol=1e-5, atol=1e-5)
    out2, _ = run_matmul("S-40=at-issue")
    assert np.array_equal(out, out2)


def test_s40_a_missing_wait_shows_as_wrong_data() -> None:
    """Without the wait on y's DMA the Matmult reads SBUF before y lands: S-40's late completion shows it,
    completing DMAs at issue hides it."""
    out, ref = run_matmul(y_wait=False)
    assert not np.allclose(out, ref, rtol=1e-3, atol=1e-3)
    out, ref = run_matmul("S-40=at-issue", y_wait=False)
    assert np.allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_s41_products_in_float64_rounded_once() -> None:
    out, ref = run_matmul("S-120=exact-f64")  # S-41 as written (the default S-120 accumulates in float32)
    assert np.array_equal(out, ref.astype(np.float32))  # one rounding of the exact float64 sum
    out32, _ = run_matmul("S-41=fp32")
    assert np.allclose(out32, ref, rtol=1e-5, atol=1e-5)


def test_s42_a_matmul_needs_a_loaded_stationary() -> None:
    with pytest.raises(Exception, match="S-42"):
        run_kernel(read_bir(k(mm())))


def test_s43_start_overwrites_and_the_rest_accumulate() -> None:
    kern = k(ls(), mm(True, False), mm(False, False), mm(False, True))
    res = run_kernel(read_bir(kern))  # zero SBUF: 0 each time; the point is that it runs through all three roles
    assert res.stats.executed == 4


def test_s44_a_converting_dma() -> None:
    conv = dma(src=ap("x", "float32", [[64, 64], [1, 64]]), dst=ap("sb", "float16", [[1, 64], [1, 64]], 0x100))
    back = inst("DMACopy", [ap("sb", "float16", [[1, 64], [1, 64]], 0x100)], [ap("out", "float16", [[64, 64], [1, 64]])],
                engine="SP", dma_semaphore=9, sync={"wait": {"mode": "sem_ge_imm", "index": 8, "value": 16}})
    x = np.linspace(-2, 2, 64 * 64, dtype=np.float32).reshape(64, 64) + np.float32(1e-4)
    kern = read_bir(k(conv, back))
    whole = np.zeros(describe_kernel(kern, "gen3").by_name("x").logical_shape(), np.float32)  # an input fills its variable
    whole[:x.size] = x.reshape(-1)
    res = run_kernel(kern, {"x": whole})
    got = res.outputs(["out"])["out"].view(np.float16).reshape(-1)[:64 * 64].reshape(64, 64)
    assert np.array_equal(got, x.astype(np.float16))  # RNE, element by element


def test_s45_sbuf_partitions_and_the_dge_table() -> None:
    y = np.arange(128 * 128, dtype=np.float16).reshape(128, 128)
    load = dma(src=ap("y", "float16", [[128, 128], [1, 128]]))  # through DGE entry 0 (the location's dge_entry)
    res = run_kernel(read_bir(k(load)), {"y": y})
    rows = res.machine.sbuf.reshape(128, -1)[:, 0x200:0x300].view(np.float16)
    assert np.array_equal(rows, y)  # row p of y lands in partition p (one 0x40000 step per partition)


def test_s46_halt_and_semaphore_clear() -> None:
    kern = k(inst("GroupResetSemaphores", engine="Pool", first=4, last=9,
                  sync={"wait": {"mode": "sem_ge_imm", "index": 8, "value": 16}}),
             inst("Halt", engine="Pool"), inst("NoOp", engine="Pool", sync={"wait": {"mode": "sem_ge_imm", "index": 99,
                                                                                       "value": 1}}),
             dma())
    res = run_kernel(read_bir(kern), {"x": np.ones((128, 128), np.float16)})
    assert res.state()["semaphores"] == {}  # s8 = 16 then cleared; the NoOp after the Halt never runs


def test_s47_event_semaphore_waits_for_both_lanes() -> None:
    e = inst("EventSemaphore", engine="PE", sync={"wait": [{"mode": "sem_ge_imm", "index": 8, "value": 16},
                                                           {"mode": "sem_ge_imm", "index": 9, "value": 16}]})
    kern = k(e, dma())  # only s8 is ever signalled: the second lane blocks forever
    with pytest.raises(Exception, match="sem9 >= 16"):
        run_kernel(read_bir(kern), {"x": np.ones((128, 128), np.float16)})


def test_s43_a_psum_pattern_whose_rows_do_not_merge_is_written() -> None:
    """A Matmul writing 2 rows of 3 PSUM elements at a row step of 4 (a conv tap that skips a column): the
    result lands in those six elements (it was once written into a copy and lost), and a second, accumulating
    Matmul adds to them. Stationary = the 4 x 4 identity, moving = 4 partitions x 6 values 0..23."""
    st = inst("LoadStationary", [ap("sb", "float16", [[1, 4], [1, 4]], 0)], [], engine="PE")

    def tap(start: bool) -> dict:
        return inst("MultiplyMoving", [ap("sb", "float16", [[1, 4], [1, 6]], 0x4000)],
                    [ap("ps", "float32", [[1, 4], [4, 2], [1, 3]])], engine="PE", start_tensor_calc=start,
                    stop_tensor_calc=not start)

    sb = np.zeros((128, 229376 // 2), np.float16)
    sb[:4, :4] = np.eye(4)
    sb[:4, 0x4000:0x4000 + 6] = np.arange(24).reshape(4, 6)
    for taps, scale in (([tap(True)], 1), ([tap(True), tap(False)], 2)):
        r = run_kernel(read_bir(k(st, *taps)), {"sb": sb})
        ps = r.outputs(["ps"])["ps"].view(np.uint8).reshape(128, -1)[:4, :32].view(np.float32)
        want = np.zeros((4, 8), np.float32)
        v = np.arange(24, dtype=np.float32).reshape(4, 6) * scale
        want[:, 0:3], want[:, 4:7] = v[:, :3], v[:, 3:]
        assert ps.tolist() == want.tolist()


def _first_tap_skips_element_0(*decisions: str) -> list[list[float]]:
    """S-99's case by hand (stationary = the 4 x 4 identity): a single Matmul writes a_i = 100 + i into PSUM
    elements 0..11; then a group STARTs on elements 1..3 only (b = 10, 20, 30) and accumulates over 0..3
    (c = 1, 2, 3, 4), as a convolution's first tap skips the pad column. Partition 0's 12 elements."""
    st = inst("LoadStationary", [ap("sb", "float16", [[1, 4], [1, 4]], 0)], [], engine="PE")

    def tap(moving: int, n: int, ps_offset: int, start: bool, stop: bool) -> dict:
        return inst("MultiplyMoving", [ap("sb", "float16", [[1, 4], [1, n]], moving)],
                    [ap("ps", "float32", [[1, 4], [1, n]], ps_offset)], engine="PE", start_tensor_calc=start,
                    stop_tensor_calc=stop)

    sb = np.zeros((128, 229376 // 2), np.float16)
    sb[:4, :4] = np.eye(4)
    sb[:4, 0x4000:0x4000 + 12] = 100 + np.arange(12)
    sb[:4, 0x4100:0x4100 + 3] = [10, 20, 30]
    sb[:4, 0x4200:0x4200 + 4] = [1, 2, 3, 4]
    kern = k(st, tap(0x4000, 12, 0, True, True), tap(0x4100, 3, 1, True, False), tap(0x4200, 4, 0, False, True))
    r = run_kernel(read_bir(kern), {"sb": sb}, decisions=DecisionSet.parse(list(decisions)))
    ps = r.outputs(["ps"])["ps"].view(np.uint8).reshape(128, -1)[0, :48].view(np.float32)
    return ps.tolist()


def test_s99_a_start_that_skips_element_0() -> None:
    kept = [100.0 + i for i in range(4, 12)]
    first_write = _first_tap_skips_element_0("S-99=bank-first-write")
    assert first_write == [1.0, 12.0, 23.0, 34.0, *kept]  # element 0: c_0, not a_0 + c_0; 4..11 survive the START
    assert _first_tap_skips_element_0() == [101.0, 12.0, 23.0, 34.0, *kept]  # S-99 = tile (the default): a_0 + c_0
