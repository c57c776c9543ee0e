"""The race check's region arithmetic (hand-derived boxes)."""

from tongasm.check.races import Footprint, _overlap


def test_boxes_overlap_only_when_space_partitions_and_bytes_all_meet() -> None:
    a = ("sbuf", 0, 64, 0x100, 0x200)  # partitions 0..63, bytes 0x100..0x1ff
    assert _overlap(a, ("sbuf", 63, 1, 0x1FF, 0x200))  # the last byte of the last partition
    assert not _overlap(a, ("sbuf", 64, 8, 0x100, 0x200))  # the next partition
    assert not _overlap(a, ("sbuf", 0, 64, 0x200, 0x300))  # the next byte (end is exclusive)
    assert not _overlap(a, ("psum", 0, 64, 0x100, 0x200))  # another space


def test_footprint_json_names_partition_and_byte_ranges() -> None:
    fp = Footprint(reads=(("psum", 2, 3, 16, 32),), writes=())
    assert fp.to_json() == {"reads": [{"space": "psum", "partitions": [2, 5], "bytes": [16, 32]}], "writes": []}


def _matmul_small():
    import os
    from pathlib import Path

    import pytest

    from tongasm.neff.neff import Neff

    corpus = os.environ.get("TONGASM_CORPUS")
    p = Path(corpus).parent / "matmul_small.neff" if corpus else None
    if p is None or not p.is_file():
        pytest.skip("the real matmul_small.neff is not here (TONGASM_CORPUS)")
    return Neff.read(p)


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
