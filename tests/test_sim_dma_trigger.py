"""0xC1 PseudoDMATrigger on the simulator (R-90, R-100): a trigger fires the descriptor block of its own
engine's sidecar, the descriptors' sizes and steps are bytes, and the block's semaphore gains 16 when
it has moved.

The expectations come from the bytes of one real graph, yolox ``MODULE_7566293729687800478`` (the sum
over the last axis of a float32 (1, 120, 5) input, by its HLO's reduce ``aten__sum``): SP's block
``I-22-0-block-1`` (queue qSPIO0, semaphore 8) reads input0 as 120 rows of 20 bytes 20 bytes apart and
writes row p to SBUF partition p at byte 196584 (to_off 196584, to_steps [1, 262144]); Pool's block
``I-24-0-block-1`` (qPoolIO0, semaphore 24) writes 4 bytes of each of partitions 0..119 at byte 0 to
output0, 4 bytes apart.
"""

from __future__ import annotations

import numpy as np
import pytest

from corpus_support import corpus_dir
from tongasm.isa.decisions import DecisionSet
from tongasm.sim.machine import SimError

MODULE = "yolox-trn1/MODULE_7566293729687800478.neff"


def _neff():  # type: ignore[no-untyped-def]
    from tongasm.neff import read_neff

    return read_neff(corpus_dir() / MODULE)


def _x() -> np.ndarray:
    return np.random.default_rng(7).uniform(-1, 1, (1, 120, 5)).astype(np.float32)


def test_the_sidecar_blocks_are_the_ones_the_triggers_name() -> None:
    from tongasm.neff.run import core_program

    blocks = core_program(_neff(), "sg00").blocks
    assert sorted(blocks) == [("pool", "qPoolIO0", 0), ("sp", "qSPIO0", 0)]
    sp = blocks[("sp", "qSPIO0", 0)]
    assert (sp.name, sp.semaphore, len(sp.descriptors)) == ("I-22-0-block-1", 8, 1)
    d = sp.descriptors[0]
    assert (d.src, d.src_off, d.src_dims) == (1, 0, ((20, 1), (120, 20)))  # input0 is var_id 1
    assert (d.dst, d.dst_off, d.dst_dims) == (None, 196584, ((20, 1), (120, 262144)))  # None: SBUF


def test_a_triggered_block_moves_bytes_and_raises_its_semaphore_by_16() -> None:
    from tongasm.neff.run import run_neff

    x = _x()
    res = run_neff(_neff(), {"input0": x})
    m = res.cores[0].machine
    stride = m.sbuf_stride
    # SP's block: row p of input0 (20 bytes) at byte 196584 of partition p
    rows = np.stack([m.sbuf[p * stride + 196584:p * stride + 196604] for p in range(120)])
    assert rows.tobytes() == x.tobytes()
    # one trigger of each block: its semaphore holds 16, nothing else raised them
    assert int(m.semaphores[8]) == 16 and int(m.semaphores[24]) == 16
    # the graph's answer: the HLO's sum over the last axis (5 float32 adds per row)
    np.testing.assert_allclose(res.outputs()["output0"], x.sum(axis=-1), rtol=1e-6, atol=1e-6)


def test_r100_elements_reading_reads_past_the_input() -> None:
    from tongasm.neff.run import run_neff

    ds = DecisionSet.parse(["R-100=elements"])
    with pytest.raises(SimError, match=r"I-22-0-block-1 descriptor 0 from: a run leaves variable 1 \(2400 bytes\)"):
        run_neff(_neff(), {"input0": _x()}, decisions=ds)


def test_a_trigger_of_a_block_its_engine_does_not_hold_stops_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    import tongasm.neff.run as run

    real = run.descriptor_blocks
    monkeypatch.setattr(run, "descriptor_blocks",
                        lambda *a: {k: v for k, v in real(*a).items() if k[0] != "sp"})
    with pytest.raises(SimError, match=r"sg00\.sp bundle 1 .*fires block 0 of queue 'qSPIO0', which the sp engine's "
                                       r"sidecar does not hold \(R-90\)"):
        run.run_neff(_neff(), {"input0": _x()})


def test_race_footprints_read_the_descriptors_as_bytes() -> None:
    from tongasm.neff.semaphores import _desc_region

    var_ids = {"input0": 1, "output0": 2}
    # input0 rows: bytes 0 .. 2400 of var 1 (as elements it would end at 9600)
    assert _desc_region("input0", 0, [20, 120], [1, 20], "float32", var_ids) == ("dram", 1, 1, 0, 2400)
    assert _desc_region("input0", 0, [20, 120], [1, 20], "float32", var_ids, False) == ("dram", 1, 1, 0, 9600)
    # SBUF: 120 partitions from 0, bytes 196584 .. 196604
    assert _desc_region("SB", 196584, [20, 120], [1, 262144], "float32", var_ids) == ("sbuf", 0, 120, 196584, 196604)
    assert _desc_region("output0", 0, [4, 120], [1, 4], "float32", var_ids) == ("dram", 2, 1, 0, 480)


def test_r102_a_tensor_load_of_var_0_reads_the_sbuf_address() -> None:
    """moe-trn2/v6b sg00 Pool bundle 6: PseudoTensorLoad var_id 0, var_offset 94976 (partition 0, byte 94976,
    where SP's block inst.50-block-1 puts input1), uint32 into r60."""
    from tongasm.check.races import decode_streams
    from tongasm.isa.decisions import DEFAULT_DECISIONS
    from tongasm.neff import read_neff
    from tongasm.sim.execute import execute
    from tongasm.sim.machine import Machine

    n = read_neff(corpus_dir() / "moe-trn2/v6b.neff")
    g = n.graph("sg00")
    d = decode_streams({"pool": n.stream_data(g.streams["pool"])}, DEFAULT_DECISIONS)["pool"][6]
    assert (d.mnemonic, d.fields["var_id"], d.fields["var_offset"], d.fields["data_reg"]) == (
        "PseudoTensorLoad", 0, 94976, 60)
    m = Machine(n.target)
    m.sbuf[94976:94980] = np.frombuffer(np.uint32(0x01020304).tobytes(), np.uint8)
    execute(m, "pool", d, DEFAULT_DECISIONS)
    assert m.reg("pool", 60) == 0x01020304
    with pytest.raises(SimError, match="no variable with id 0"):
        execute(Machine(n.target), "pool", d, DecisionSet.parse(["R-102=variable"]))
