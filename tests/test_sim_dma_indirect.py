"""The indirect DMA on the simulator: PseudoRangeCheck 0xD6 then PseudoDMAMemcpyFullInd 0xC4 (R-101,
S-100, S-101), run on the real bundles of yolox ``MODULE_11369514141456202230`` (a scatter into the
9 x 80 int32 buffer ``scatter.1``, var_id 2, 2,880 bytes).

Its Pool bundles 9 (0xD6) and 10 (0xC4) read: slot_a = indirect_start_offset = 0x1800188 (partition 96,
byte 0x188: nine uint64 row addresses on partitions 96..104), bound = 0x1800008 (partition 96, byte 8:
the copy of the pointer 'scatter.1-ADDR' on the same partitions), bound size 0xB40 = 2,880, 9 rows;
the data rows are 4 bytes at direct_start_offset 0 (partitions 0..8, byte 0), direction 1 (SBUF to
DRAM). The engine's indirect_memcpy queue qPoolIndirectMemCopy0 has semaphore 56. Here the rows are set
by hand: row r addresses element (r, r) of scatter.1 and carries the int32 100 + r.
"""

from __future__ import annotations

import numpy as np
import pytest

from corpus_support import corpus_dir
from tongasm.isa.decisions import DEFAULT_DECISIONS, DecisionSet
from tongasm.sim.machine import Machine, SimError

MODULE = "yolox-trn1/MODULE_11369514141456202230.neff"
PART = 196608  # SBUF bytes per partition (gen2)


def _setup(ds: DecisionSet, addresses: list[int] | None = None):  # type: ignore[no-untyped-def]
    from tongasm.check.races import decode_streams
    from tongasm.neff import read_neff
    from tongasm.neff.run import core_program

    n = read_neff(corpus_dir() / MODULE)
    core = core_program(n, "sg00", decisions=ds)
    pool = decode_streams({"pool": core.streams["pool"]}, ds)["pool"]
    check, indirect = pool[9], pool[10]
    assert (check.mnemonic, indirect.mnemonic) == ("PseudoRangeCheck", "PseudoDMAMemcpyFullInd")
    m = Machine(n.target, core.memory, dram=core.files)
    m.dram_bases, m.indirect_semaphores = dict(core.dram_bases), dict(core.indirect_sems)
    assert m.indirect_semaphores == {"pool": 56}
    base = core.dram_bases[2]
    # the pointer variable (var 4) holds scatter.1's address (S-100)
    assert int(core.files[4].view("<u8")[0]) == base
    rows = addresses if addresses is not None else [base + 4 * (80 * r + r) for r in range(9)]
    for r in range(9):
        p = 96 + r
        m.sbuf[p * PART + 8:p * PART + 16] = np.frombuffer(np.uint64(base).tobytes(), np.uint8)
        m.sbuf[p * PART + 0x188:p * PART + 0x190] = np.frombuffer(np.uint64(rows[r]).tobytes(), np.uint8)
        m.sbuf[r * PART:r * PART + 4] = np.frombuffer(np.int32(100 + r).tobytes(), np.uint8)
    return m, check, indirect, base


def _run(m: Machine, check, indirect, ds: DecisionSet) -> np.ndarray:  # type: ignore[no-untyped-def]
    from tongasm.sim.execute import execute

    execute(m, "pool", check, ds)
    execute(m, "pool", indirect, ds)
    m.complete_dmas()
    return m.dram[2].view(np.int32).reshape(9, 80)


@pytest.mark.parametrize("reading", ["windows", "packed"])
def test_each_row_goes_to_the_address_it_holds_and_the_queue_semaphore_gains_8(reading: str) -> None:
    ds = DecisionSet.parse([f"S-100={reading}"])
    m, check, indirect, _base = _setup(ds)
    out = _run(m, check, indirect, ds)
    want = np.zeros((9, 80), np.int32)
    want[np.arange(9), np.arange(9)] = 100 + np.arange(9)
    assert (out == want).all()
    assert int(m.semaphores[56]) == 8


def _oob_addresses(base: int) -> list[int]:
    rows = [base + 4 * (80 * r + r) for r in range(9)]
    rows[3] = base + 2880  # one past the end of scatter.1
    return rows


def test_s101_skip_rows_moves_the_rows_in_range_only() -> None:
    ds = DEFAULT_DECISIONS
    base = _setup(ds)[3]
    m2, check2, indirect2, _ = _setup(ds, _oob_addresses(base))
    out = _run(m2, check2, indirect2, ds)
    want = np.zeros((9, 80), np.int32)
    want[np.arange(9), np.arange(9)] = 100 + np.arange(9)
    want[3, 3] = 0
    assert (out == want).all()
    assert int(m2.semaphores[56]) == 8


def test_s101_stop_names_the_row_out_of_range() -> None:
    ds = DecisionSet.parse(["S-101=stop"])
    base = _setup(ds)[3]
    m, check, indirect, _ = _setup(ds, _oob_addresses(base))
    with pytest.raises(SimError, match=r"PseudoRangeCheck.*row 3 holds address 0x[0-9a-f]+, outside .*\(1 of 9 rows out of range"):
        _run(m, check, indirect, ds)


def test_an_address_in_no_variable_stops_the_indirect_dma() -> None:
    ds = DEFAULT_DECISIONS
    base = _setup(ds)[3]
    m, _check, indirect, _ = _setup(ds, [base + 4 * r for r in range(8)] + [1 << 60])
    from tongasm.sim.execute import execute

    with pytest.raises(SimError, match=r"PseudoDMAMemcpyFullInd.*row 8 addresses 0x1000000000000000, where no DRAM "
                                       r"variable holds 4 bytes \(S-100\)"):
        execute(m, "pool", indirect, ds)
