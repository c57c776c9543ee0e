"""The moe-trn2 graphs' dynamic expert loads: the RegisterAlu chains that compute a byte offset (R-103),
the DGE register-mode DMA side that reads at it (R-104) and the PseudoExtension that bounds it (R-105).
The bytes of all 912 chains first; then both MoE NEFFs run on the simulator and give the MoE layer the
kernel source states (nki-moe-megakernel kernels/moe_tkg/agents/v6b*.py), against the oracle's numpy
reference (tongasm.oracle.moe).
"""

from __future__ import annotations

import struct

import numpy as np
import pytest

from corpus_support import corpus_dir
from tongasm.isa.decisions import DecisionSet
from tongasm.oracle.moe import moe_inputs, moe_reference
from tongasm.sim.machine import SimError

MOE = ("moe-trn2/v6b.neff", "moe-trn2/neff_171450338541704.neff")


def _pool_rows(name: str) -> np.ndarray:
    from tongasm.neff.neff import Neff

    n = Neff.read(corpus_dir() / name)
    s = next(s for s in n.streams() if s.graph == "sg00" and s.stream == "pool")
    a = np.frombuffer(n.stream_data(s), np.uint8)
    return a[: len(a) // 64 * 64].reshape(-1, 64)


def _chains() -> list[tuple[np.ndarray, list[np.ndarray], np.ndarray, np.ndarray]]:
    """Per register-mode DMA: the PseudoTensorLoad before its RegisterAlu chain, the chain, the DMA, the 0xDA."""
    out = []
    for name in MOE:
        a = _pool_rows(name)
        for i in np.flatnonzero((a[:, 0] == 0xD4) & (a[:, 0x17] == 0x28)):
            j = i - 1
            while a[j, 0] == 0xA8:
                j -= 1
            out.append((a[j], list(a[j + 1:i]), a[i], a[i + 1]))
    return out


def test_r103_the_chains_read_0x10_and_write_0x14() -> None:
    chains = _chains()
    assert len(chains) == 912
    for load, alus, dma, _ext in chains:
        assert load[0] == 0xCE and 2 <= len(alus) <= 4
        assert alus[0][0x10] == load[0x20]  # the first reads the register the load wrote
        assert all(b[0x10] == a[0x14] for a, b in zip(alus, alus[1:]))  # each reads what the one before wrote
        assert alus[-1][0x14] == 31 == struct.unpack_from("<I", dma, 0x10)[0]  # the last writes the DMA's r31


def test_r104_r105_the_register_sides_and_their_bounds() -> None:
    sizes = {1: 268_435_456, 2: 134_217_728}  # dge-table [5, 4, 3]: entry 1 = input3, entry 2 = input2
    seen = {1: 0, 2: 0}
    for _load, _alus, dma, ext in _chains():
        entry = int(dma[0x14])
        seen[entry] += 1
        assert dma[0x26] == 0xBD and ext[0] == 0xDA
        assert struct.unpack_from("<I", ext, 0x0C)[0] == sizes[entry]
    assert seen == {1: 640, 2: 272}


@pytest.mark.slow
@pytest.mark.parametrize("name", MOE)
def test_the_moe_graphs_run_to_the_kernels_answer(name: str) -> None:
    """Each output element within one bf16 rounding (2^-8 relative) of the float64 reference: the products of
    bf16 inputs are exact in fp32 and the sums of 2048 or 256 of them lose far less; the routing of a
    wrong expert (e.g. expert 0 for every k, an offset register ignored) is off by hundreds."""
    from tongasm.neff import read_neff
    from tongasm.neff.run import run_neff

    x = moe_inputs(1)
    res = run_neff(read_neff(corpus_dir() / name), x, copy_inputs=False)
    got = res.outputs()["output0"].astype(np.float64)
    ref = moe_reference(x)
    assert np.abs(ref).max() > 100
    assert (np.abs(got - ref) <= 2.0 ** -8 * np.abs(ref) + 1e-3).all()


def _decoded(name: str, offset: int, decisions: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    from tongasm.check.races import decode_streams
    from tongasm.neff import read_neff

    n = read_neff(corpus_dir() / name)
    g = n.graph("sg00")
    ds = decode_streams({"pool": n.stream_data(g.streams["pool"])}, DecisionSet.parse(list(decisions)))["pool"]
    return n, next(d for d in ds if d.offset == offset)


def test_r104_a_register_side_reads_at_its_registers_offset_and_r105_bounds_it() -> None:
    """v6b sg00 Pool +0x240 (inst.183): 128 rows of 1024 bytes of input3 from r31's byte offset; its 0xDA at
    +0x280 passes while the rows end inside 0x10000000 bytes."""
    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.neff.run import core_program
    from tongasm.sim.execute import execute
    from tongasm.sim.machine import Machine

    n, dma = _decoded(MOE[0], 0x240)
    _, ext = _decoded(MOE[0], 0x280)
    mem = core_program(n, "sg00").memory
    m = Machine(n.target, memory=mem)
    src = m.dram[4]  # input3
    off = 2 * (5 * 1048576 + 0)  # expert 5, h tile 0
    src[off:off + 128 * 1024] = np.arange(128 * 1024, dtype=np.uint32).astype(np.uint8)
    m.set_reg("pool", 31, off)
    execute(m, "pool", dma, DEFAULT_DECISIONS)
    m.complete_dmas("pool")
    got = m.sbuf.reshape(n.target.sbuf_partitions, -1)[:, 0x4000:0x4400]
    assert (got == src[off:off + 128 * 1024].reshape(128, 1024)).all()
    execute(m, "pool", ext, DEFAULT_DECISIONS)  # within its bound
    with pytest.raises(SimError, match="no DGE register-mode"):
        execute(m, "pool", ext, DEFAULT_DECISIONS)  # a second one has no DMA before it
    with pytest.raises(SimError, match="mode 0x28 is not simulated"):
        execute(Machine(n.target, memory=mem), "pool", dma, DecisionSet.parse(["R-104=stop"]))


def test_r104_an_unknown_mark_and_r105_a_run_past_the_bound_stop_the_run() -> None:
    from dataclasses import replace

    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.neff.run import core_program
    from tongasm.sim.execute import execute
    from tongasm.sim.machine import Machine

    n, dma = _decoded(MOE[0], 0x240)
    _, ext = _decoded(MOE[0], 0x280)
    mem = core_program(n, "sg00").memory
    bad = replace(dma, fields={**dma.fields, "src.offset_reg": 0x80 | 31})
    with pytest.raises(SimError, match=r"\+0x26 = 0x9f; only 0xbd is known \(R-104\)"):
        execute(Machine(n.target, memory=mem), "pool", bad, DEFAULT_DECISIONS)
    m = Machine(n.target, memory=mem)
    m.set_reg("pool", 31, 0x10000000 - 128 * 1024)  # the last rows of input3: inside the variable
    execute(m, "pool", dma, DEFAULT_DECISIONS)
    raw = bytearray(ext.raw)
    raw[0x0F] = 0x08  # a bound of 0x08000000, below what the DMA read
    with pytest.raises(SimError, match="past the bound 0x8000000"):
        execute(m, "pool", replace(ext, raw=bytes(raw)), DEFAULT_DECISIONS)
    _, stop = _decoded(MOE[0], 0x280, ("R-105=stop",))
    with pytest.raises(SimError, match="PseudoExtension.* not simulated"):
        execute(Machine(n.target, memory=mem), "pool", stop, DecisionSet.parse(["R-105=stop"]))


def test_the_moe_reference_on_a_hand_computed_layer() -> None:
    """E = 2, H = 2, I = 1: h = [1, 0] picks row 0 of Wgu, gate 2 and up 0.5 give silu(2) * 0.5 =
    2 / (1 + e^-2) * 0.5 = 0.880797, stored bf16 as 225 * 2^-8 = 0.87890625 (0x3F61); the down row [1, -2] scaled by the
    routing weight 0.5; the second routed expert has weight 0 and adds nothing."""
    import ml_dtypes

    bf = ml_dtypes.bfloat16
    x = {"input0": np.array([[0.5, 0.0]], np.float32), "input1": np.array([[1, 0]], np.int32),
         "input2": np.array([[[9.0, 9.0]], [[1.0, -2.0]]], bf),
         "input3": np.array([[[9.0, 9.0], [9.0, 9.0]], [[2.0, 0.5], [7.0, 7.0]]], bf),
         "input4": np.array([[1.0, 0.0]], bf)}
    got = moe_reference(x)
    assert got.shape == (1, 2)
    assert np.allclose(got, [[0.5 * 0.87890625, -2 * 0.5 * 0.87890625]], rtol=0, atol=1e-12)


def test_the_attention_reference_contracts_as_the_source_states() -> None:
    """hidden = e_0 and Wq = Wk = 0: q = k = 0 (RMSNorm of 0 is 0), every score 0, each of the 640 + 1
    positions has weight exp(0) = 1 and the sum is 641. V_cache[kv 0, row 5, :] = 1 and Wv = 0: the
    source's value matmul ``nc_matmul(V_tile.T, e) = V_tile @ e`` sums row 5 over its 128 columns into
    output element 5 (128 / 641 = 0.199688, stored bf16 as 204 * 2^-10 = 0.19921875) for both heads of kv 0;
    a textbook ``e @ V`` would give every element 1/641."""
    import ml_dtypes

    from tongasm.oracle.moe import attn_tkg_v6

    bf = ml_dtypes.bfloat16
    v_cache = np.zeros((1, 4, 640, 128), bf)
    v_cache[0, 0, 5, :] = 1
    hidden = np.zeros((1, 1, 2048), bf)
    hidden[0, 0, 0] = 1
    a = {"hidden": hidden, "Wq": np.zeros((1024, 2048), bf), "Wk": np.zeros((512, 2048), bf),
         "Wv": np.zeros((512, 2048), bf), "q_norm_weight": np.ones(128, bf), "k_norm_weight": np.ones(128, bf),
         "K_cache": np.ones((1, 4, 640, 128), bf), "V_cache": v_cache, "cos": np.ones((1, 128), bf),
         "sin": np.zeros((1, 128), bf)}
    got = attn_tkg_v6(a).reshape(8, 128)
    want = np.zeros((8, 128))
    want[0:2, 5] = 0.19921875
    assert (got == want).all()


def test_attn_v6_runs_to_the_kernels_answer() -> None:
    """attn_v6.neff against :func:`tongasm.oracle.moe.attn_tkg_v6` on the harness's inputs: every element
    within the tolerance; with Wk and Wv exchanged (a wrong input mapping) the reference is far off."""
    from tongasm.oracle.compare import compare
    from tongasm.oracle.harness import check_neff
    from tongasm.oracle.harness import _prepare_moe as prepare_moe
    from tongasm.oracle.moe import ATTN_ARGS, attn_tkg_v6
    from tongasm.neff import read_neff
    from tongasm.neff.run import run_neff

    path = corpus_dir() / "moe-trn2/attn_v6.neff"
    r = check_neff(path, 0)
    assert r.ran and r.matched and r.reference == "numpy", r.why
    prep = prepare_moe(path, read_neff(path), 0)
    sim = run_neff(read_neff(path), prep.neff_inputs, seed=0).outputs()["output0"].astype(np.float64)
    args = {a: prep.neff_inputs[n] for a, n in ATTN_ARGS.items()}
    args["Wk"], args["Wv"] = args["Wv"], args["Wk"]
    wrong = compare("output0", sim, attn_tkg_v6(args), prep.tolerance("output0"))
    assert not wrong.matched and wrong.mismatches > 500
