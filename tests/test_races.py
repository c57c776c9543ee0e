"""The race check's region arithmetic (hand-derived boxes and patterns) and its decisions on real NEFFs."""

from __future__ import annotations

import pytest

from corpus_support import corpus_dir
from tongasm.check.races import Footprint, _overlap, _pattern, byte_runs, dram_range, sbuf_box


def _neff(rel: str):
    from tongasm.neff.neff import Neff

    return Neff.read(corpus_dir() / rel)


def _matmul_small():
    from tongasm.neff.neff import Neff

    p = corpus_dir().parent / "matmul_small.neff"
    if not p.is_file():
        pytest.skip("the real matmul_small.neff is not beside the corpus")
    return Neff.read(p)


def test_boxes_overlap_only_when_space_partitions_and_bytes_all_meet() -> None:
    a = ("sbuf", 0, 64, 0x100, 0x200)  # partitions 0..63, bytes 0x100..0x1ff
    assert _overlap(a, ("sbuf", 63, 1, 0x1FF, 0x200))  # the last byte of the last partition
    assert not _overlap(a, ("sbuf", 64, 8, 0x100, 0x200))  # the next partition
    assert not _overlap(a, ("sbuf", 0, 64, 0x200, 0x300))  # the next byte (end is exclusive)
    assert not _overlap(a, ("psum", 0, 64, 0x100, 0x200))  # another space


def test_interleaved_rows_are_disjoint_though_their_boxes_overlap() -> None:
    # rows of 6 bytes every 24 bytes, 128 rows, at 0x721a and at 0x720e (12 bytes apart): disjoint
    a = dram_range(3, 0x721A, [(2, 3), (24, 128)], 2)
    b = dram_range(3, 0x720E, [(2, 3), (24, 128)], 2)
    assert a[3] < b[4] and b[3] < a[4]  # the boxes meet
    assert not _overlap(a, b)
    c = dram_range(3, 0x721A + 24 * 127 + 4, [(1, 1)], 2)  # the last two bytes of a's last row
    assert _overlap(a, c) and _overlap(c, a)
    assert not _overlap(a, dram_range(3, 0x721A + 6, [(1, 18)], 1))  # the gap between a's first two rows
    assert byte_runs(_pattern(0, [(1, 4), (16, 3)], 1) or (0, (), 0)) == ((0, 4), (16, 20), (32, 36))
    # a pattern of one run (the dims only lengthen it) is a plain box
    assert len(dram_range(1, 0, [(1, 20), (20, 120)], 1)) == 5
    # partition dims stay partitions, the bytes' pattern is kept per partition
    s = sbuf_box(5 << 18 | 0x100, [(1, 4), (8, 2), (1 << 18, 3)], 1)
    assert s[:5] == ("sbuf", 5, 3, 0x100, 0x10C) and byte_runs(s[5]) == ((0x100, 0x104), (0x108, 0x10C))


def test_footprint_json_names_partition_and_byte_ranges() -> None:
    fp = Footprint(reads=(("psum", 2, 3, 16, 32),), writes=(dram_range(3, 0, [(1, 4), (16, 2)], 1),))
    assert fp.to_json() == {
        "reads": [{"space": "psum", "partitions": [2, 5], "bytes": [16, 32]}],
        "writes": [{"space": "dram", "var": 3, "bytes": [0, 20],
                    "pattern": {"first": 0, "dims": [[16, 2]], "run": 4}}]}


def test_r90_block_offsets_sizes_and_steps_are_bytes() -> None:
    """yolox MODULE_7566293729687800478: qSPIO0 block 0 reads input0 (2,400 B) with sizes [20, 120]
    steps [1, 20] float32 and writes 120 partitions x 20 bytes at SB 196584 (partition 0, byte
    0x2ffe8): exactly the variable's 2,400 bytes (as elements it would be 9,600)."""
    from tongasm.neff.semaphores import dma_blocks

    n = _neff("yolox-trn1/MODULE_7566293729687800478.neff")
    assert n.graph("sg00").definition.variables["input0"].size == 2400
    b = dma_blocks(n, "sg00")[("qSPIO0", 0)]
    assert b.footprint.reads == (("dram", 1, 1, 0, 2400),)
    assert b.footprint.writes == (("sbuf", 0, 120, 0x2FFE8, 0x2FFE8 + 20),)
    out = dma_blocks(n, "sg00")[("qPoolIO0", 0)]  # 4 bytes of 120 partitions to output0 (480 B)
    assert out.footprint.writes == (("dram", 2, 1, 0, 480),)


def test_r12_a_transpose_matmul_writes_two_byte_psum_elements() -> None:
    """attention-trn2 baseline_bf16_s1024: PE bundle 43 (a bf16 transpose Matmul) writes 128 elements
    at psum bank 1 + 0x700: 256 bytes 0xf00..0x1000, not 512 (which reached bank 2, read by DVE's
    Copy 7 before the transpose's consumer waits: a false race)."""
    from tongasm.check.races import decode_streams, footprints
    from tongasm.neff.semaphores import graph_races

    n = _neff("attention-trn2/baseline_bf16_s1024.neff")
    g = n.graph("sg00")
    pe = decode_streams({"pe": n.stream_data(g.streams["pe"])})["pe"]
    d = pe[43]
    assert d.mnemonic == "Matmul" and d.fields["is_transpose"] == 1
    assert footprints(d).writes == (("psum", 0, 128, 0xF00, 0x1000),)
    assert graph_races(n, "sg00").count == 0


def test_r91_a_register_offset_side_is_its_dge_variable_not_any() -> None:
    """moe-trn2 neff_171450338541704: Pool's 0xD4 at +0x49d00 reads mode 0x28 var 2, the dge-table
    entry input2 (var_id 3), at a register's offset: any byte of input2, so the output0 writes of
    the 0xC1 block that follows do not conflict with it."""
    from tongasm.check.races import WHOLE, decode_streams, dma_footprint
    from tongasm.neff.semaphores import dge_table, graph_races

    n = _neff("moe-trn2/neff_171450338541704.neff")
    g = n.graph("sg00")
    table = dge_table(n, "sg00")
    assert table == [5, 4, 3]
    pool = decode_streams({"pool": n.stream_data(g.streams["pool"])})["pool"]
    d = next(b for b in pool if b.offset == 0x49D00)
    assert d.fields["src.addr_mode"] == 0x28
    assert dma_footprint(d, table).reads == (("dram", 3, 1, 0, WHOLE),)
    assert graph_races(n, "sg00").count == 0
    assert graph_races(n, "sg00", _decisions("R-91=any")).count == 2


def _decisions(*sel: str):
    from tongasm.isa.decisions import DecisionSet

    return DecisionSet.parse(sel)


def test_r90_s90_matmul_small_is_race_free_and_a_removed_wait_is_found() -> None:
    """The real NEFF reports no race (S-90: its semaphores' only sources are its updates and DMA
    completions); removing PE's wait on sem8 (the completion of SP's DMA of x into SBUF 0x37b00)
    leaves the two Matmuls reading 0x37b00 unordered with that DMA: exactly those two races."""
    from tongasm.isa.fields import BUNDLE_SIZE
    from tongasm.neff.semaphores import graph_races

    n = _matmul_small()
    assert graph_races(n, "sg00").count == 0
    s = n.graph("sg00").streams["pe"]
    data = bytearray(n.stream_data(s))
    o = 3 * BUNDLE_SIZE  # Ldweights, wait sem8 >= 16
    assert data[o + 4] == 0x05 and data[o + 5] == 8
    data[o + 4] = 0
    n.replace_stream("sg00", "pe", bytes(data))
    r = graph_races(n, "sg00")
    assert r.count == 2
    assert {(x.first.stream, x.first.index, x.first.dma, x.second.index) for x in r.races} == \
        {("sg00.sp", 2, True, 4), ("sg00.sp", 2, True, 6)}
    assert all(x.region[0] == "sbuf" and x.region[3] == 0x37B00 for x in r.races)



def test_s91_a_wait_on_a_queues_last_block_orders_the_blocks_before_it() -> None:
    """yolox MODULE_10437825443067299145 (13 bundles): DVE spills two int32 pairs through
    qDVESpillReload0 (block 0: DRAM var 3 bytes 0..4 and 8..12, sem 24; block 1: 4..8 and 12..16,
    sem 25); SP reloads bytes 0..16 waiting only sem25 >= 16. Completions in trigger order (S-91
    fifo) make that wait cover block 0 too; without the rule the reload races block 0's write."""
    from tongasm.neff.semaphores import graph_races

    n = _neff("yolox-trn1/MODULE_10437825443067299145.neff")
    assert graph_races(n, "sg00").count == 0
    r = graph_races(n, "sg00", _decisions("S-91=none"))
    assert r.count == 1
    x = r.races[0]
    assert (x.first.stream, x.first.index, x.first.dma) == ("sg00.dve", 3, True)
    assert (x.second.stream, x.second.index, x.second.dma) == ("sg00.sp", 2, True)
    assert x.region[:5] == ("dram", 3, 1, 0, 16) and x.semaphore == 24  # the reload's bytes; block 0's semaphore


def test_a_masked_stream_transpose_reads_only_the_columns_its_mask_picks() -> None:
    """yolox MODULE_10341811298787591934 DVE 5119: StreamTranspose src=sb[p96:32]+0xe8e0[1x32].float32
    under the mask [0*20, -*12] loaded by 5118 (R-53 lane-index: every written lane picks column 0):
    it reads only 0xe8e0..0xe8e4 of each partition, not ACT's 0xe930.. (a false race of the box)."""
    from tongasm.check.races import _masked_transpose, decode_streams, footprints
    from tongasm.isa.layouts.move import lane_fields

    n = _neff("yolox-trn1/MODULE_10341811298787591934.neff")
    dve = decode_streams({"dve": n.stream_data(n.graph("sg00").streams["dve"])})["dve"]
    ld, tr = dve[5118], dve[5119]
    assert (ld.mnemonic, tr.mnemonic) == ("LoadMaskSelect", "StreamTranspose") and tr.fields["use_mask"] == 1
    mask = tuple(ld.fields[f] for f in lane_fields())
    assert mask == (0,) * 20 + (0xFF,) * 12
    box = footprints(tr)
    assert box.reads == (("sbuf", 96, 32, 0xE8E0, 0xE960),)
    assert _masked_transpose(tr, box, mask, True).reads == (("sbuf", 96, 32, 0xE8E0, 0xE8E4),)
    assert _masked_transpose(tr, box, mask, False).reads == (("sbuf", 96, 32, 0xE8E0, 0xE8E0 + 80),)  # lanes 0..19


def test_s92_an_indirect_dmas_completion_orders_the_reload_that_waits_on_its_queue() -> None:
    """yolox MODULE_10890989129169494766 sg00: Pool's PseudoRangeCheck (bundle 6) reads byte 0x160 of
    every partition and its 0xC4 (bundle 7) moves 128 rows of 16 bytes to SBUF 0x2fff0, its index rows
    the uint64s at 0x8; SP's reload (bundle 859, qSPSpillReload0 block 67: SBUF partition 96 bytes
    0x50..0x250) waits sem104 >= 8, the only semaphore of the indirect_memcpy queue qPoolIndirectMemCopy0:
    the first 0xC4's completion (+8, R-101). Unanalysed (S-92=unanalysed) that wait proves nothing."""
    from tongasm.check.races import ANY_DRAM, decode_streams, indirect_footprint, races
    from tongasm.neff.semaphores import dma_blocks, indirect_semaphores

    n = _neff("yolox-trn1/MODULE_10890989129169494766.neff")
    g = n.graph("sg00")
    assert indirect_semaphores(n, "sg00") == {"sg00.pool": 104}
    bs = decode_streams({s: n.stream_data(g.streams[s]) for s in ("pool", "sp")})
    c4 = bs["pool"][7]
    assert c4.mnemonic == "PseudoDMAMemcpyFullInd"
    fp = indirect_footprint(c4)
    assert fp.reads == (("sbuf", 0, 128, 0x8, 0x10), ANY_DRAM)  # 128 uint64 index rows, any DRAM byte
    assert fp.writes == (("sbuf", 0, 128, 0x2FFF0, 0x30000),)  # 16 bytes a partition
    streams = {"sg00.pool": bs["pool"][6:8], "sg00.sp": [bs["sp"][859]]}
    blocks = dma_blocks(n, "sg00")
    kw = {"blocks": blocks, "indirect": {"sg00.pool": 104}}
    assert races(streams, **kw).count == 0  # type: ignore[arg-type]
    r = races(streams, _decisions("S-92=unanalysed"), **kw)  # type: ignore[arg-type]
    assert r.count == 1 and len(r.unanalysed) == 1
    x = r.races[0]
    assert {(a.stream, a.index, a.dma) for a in (x.first, x.second)} == {("sg00.pool", 0, False), ("sg00.sp", 0, True)}
    assert x.region[:5] == ("sbuf", 96, 1, 0x50, 0x250)  # the reload's bytes, which meet 0x160..0x168


def test_s93_an_indirect_save_touches_the_variable_of_the_pointer_copied_to_its_bound() -> None:
    """yolox MODULE_14856528739640727327 sg00: Pool's IndirectSave (0xC4 bundle 4758, one byte) follows a
    0xD6 of bound_addr SBUF p96 0xc8e0 and bound 0x8e; the only block writing p96 0xc8e0 is qSPPIO0 block 9,
    a copy of scatter.2-ADDR (referenced: scatter.2, var 1188). Nine scatter variables are 142 bytes; SP's
    reload 1539 (qSPSpillReload0 block 186) reads scatter.1 (var 1185) bytes 0..128, which the save
    does not touch. As any variable (S-93=any) the pair is reported."""
    from tongasm.check.races import decode_streams, races
    from tongasm.neff.semaphores import dma_blocks, indirect_semaphores, pointer_copies, pointer_targets

    n = _neff("yolox-trn1/MODULE_14856528739640727327.neff")
    g = n.graph("sg00")
    blocks = dma_blocks(n, "sg00")
    copies = pointer_copies(n, "sg00", blocks)
    assert copies[(96, 0xC8E0)] == [1188]
    assert len(pointer_targets(n, "sg00")[142]) == 9
    bs = decode_streams({s: n.stream_data(g.streams[s]) for s in ("pool", "sp")})
    assert [d.mnemonic for d in bs["pool"][4757:4759]] == ["PseudoRangeCheck", "PseudoDMAMemcpyFullInd"]
    streams = {"sg00.pool": bs["pool"][4757:4759], "sg00.sp": [bs["sp"][1539]]}
    kw = {"blocks": blocks, "indirect": indirect_semaphores(n, "sg00"), "pointer_copies": copies,
          "indirect_targets": pointer_targets(n, "sg00")}
    assert races(streams, **kw).count == 0  # type: ignore[arg-type]
    r = races(streams, _decisions("S-93=any"), **kw)  # type: ignore[arg-type]
    assert r.count == 1 and {r.races[0].first.stream, r.races[0].second.stream} == {"sg00.pool", "sg00.sp"}


def test_s94_a_dma_reusing_its_semaphore_is_ordered_after_the_earlier_count_s_waiters() -> None:
    """causal-attention model_3c6ff38f sg00: Pool's DMA 20 signals sem8 and waits sem8 >= 16 (bundle 2's DMA
    on sem8). Deleted, no race: PE bundle 2, the only other waiter of sem8 >= 16, reaches Pool 20 through
    waits on one-stream semaphores (the test's own search). S-94=pipelined is not modelled: refused."""
    from test_race_mutants import classify, mutants
    from tongasm.check.races import races
    from tongasm.errors import UsageError

    n = _neff("causal-attention-trn1/model_3c6ff38f.neff")
    m = next(m for m in mutants(n) if m.stream == "sg00.pool" and m.index == 20)
    assert (m.sem, m.need) == (8, 16)
    assert classify(m) == ("reuse-ordered", "")
    with pytest.raises(UsageError, match="S-94"):
        races({}, _decisions("S-94=pipelined"))


def test_r110_a_range_check_reads_the_index_rows_of_its_indirect_dma_not_every_partition() -> None:
    """yolox MODULE_5809157664872167249 sg00: Pool's PseudoRangeCheck (bundle 10) has slot_a = SBUF
    partition 32 byte 0x14d78 (ADDR4 0x814d78), bound_addr partition 32 byte 0x3658 (0x803658),
    idx_meta 1; the 0xC4 after it (bundle 11) reads one index row at 0x814d78. ACT's Activate 5041
    writes partition 64 bytes 0x14d70..0x14eb0 (0x14d70 + 80 fp32): it meets the slot_a bytes only in
    another partition. Read as every partition from the first (R-110=from-first), the pair is reported."""
    from tongasm.check.races import decode_streams, footprints, races

    n = _neff("yolox-trn1/MODULE_5809157664872167249.neff")
    g = n.graph("sg00")
    data = {s: n.stream_data(g.streams[s]) for s in ("pool", "act")}
    bs = decode_streams(data)
    chk, act = bs["pool"][10], bs["act"][5041]
    assert (chk.mnemonic, act.mnemonic) == ("PseudoRangeCheck", "Activate")
    assert (chk.fields["slot_a.addr"], chk.fields["bound_addr"], chk.fields["idx_meta"]) == (0x814D78, 0x803658, 1)
    assert bs["pool"][11].fields["indirect_start_offset"] == 0x814D78
    fp = footprints(chk)
    assert fp.reads[0] == ("sbuf", 32, 1, 0x14D78, 0x14D80)  # one uint64 index row, partition 32
    assert fp.reads[2] == ("sbuf", 32, 1, 0x3658, 0x3660)  # its bound's base address, partition 32
    assert footprints(act).writes == (("sbuf", 64, 1, 0x14D70, 0x14EB0),)
    streams = {"sg00.pool": [chk], "sg00.act": [act]}
    assert races(streams).count == 0
    old = _decisions("R-110=from-first")
    wide = decode_streams(data, old)
    assert footprints(wide["pool"][10]).reads[0] == ("sbuf", 32, 96, 0x14D78, 0x14D80)
    r = races({"sg00.pool": [wide["pool"][10]], "sg00.act": [wide["act"][5041]]}, old)
    assert r.count == 1 and r.races[0].region[:5] in {("sbuf", 32, 96, 0x14D78, 0x14D80), ("sbuf", 64, 1, 0x14D70, 0x14EB0)}
