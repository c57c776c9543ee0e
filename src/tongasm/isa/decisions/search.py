"""Decisions of the DVE search family (Max8 0x6C, MatchValueLoad 0x6D, MatchReplace8 0x6F): what the
simulator does where neither the book nor the real bytes pin the meaning down."""

from __future__ import annotations

from .base import Decision, Reading


class Max8Order(Decision):
    id = "S-70"
    subject = "the order in which Max8 (0x6C) writes its 8 values along the destination pattern"
    reason = ("NKI nki.isa.max8: the destination holds the 8 largest values 'in descending order'; the book (visitInstMax): "
              "the encoder negates the destination step, and all 14 distinct real Max8 bundles (yolox-trn1) start the "
              "destination at its last element with step -1, read back by MatchValueLoad ascending from the first. "
              "The hardware therefore produces them ascending along its pattern, and memory holds them descending")
    ASCENDING = Reading("ascending", "the smallest of the 8 first along the destination pattern (with the real -1 "
                                     "step: descending in memory, as NKI documents)")
    DESCENDING = Reading("descending", "the largest first along the destination pattern (NKI's memory order taken as the "
                                       "hardware's; with the real -1 step memory would hold them ascending)")

    @property
    def largest_first(self) -> bool:
        return self.reading is self.DESCENDING


class MatchReplaceOccurrence(Decision):
    id = "S-71"
    subject = "which elements MatchReplace8 (0x6F) replaces"
    reason = ("NKI nki.isa.nc_match_replace8: 'Replace first occurrence of each value in vals with imm', duplicates "
              "paired with distinct occurrences (vals processed 7..0); the book only names the sentinel. No real "
              "bundle tells them apart (the yolox top-k graphs strike Max8's own output, whose values are in the data)")
    FIRST_EACH = Reading("first-each", "each of the 8 latched values strikes the first not yet struck element equal "
                                       "to it (in fp32), so duplicates strike distinct elements")
    ALL_EQUAL = Reading("all-equal", "every element equal to any latched value is replaced")

    @property
    def first_only(self) -> bool:
        return self.reading is self.FIRST_EACH
