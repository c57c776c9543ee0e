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
