"""The R-n decisions of the real-NEFF chapter (``neff-and-real-opcodes.md``), each with the
behaviour its readings imply. R-1..R-6 govern what a NEFF repack copies or recomputes (§1.3-§1.6);
they affect no bundle.
"""

from __future__ import annotations

import hashlib
import time
import uuid as _uuid
from collections.abc import Iterable, Mapping

from .base import Decision, Reading


class HeaderHash(Decision):
    id = "R-1"
    subject = "NEFF header hash (0x0AC, 32 bytes) on a repack"
    reason = ("the 16-byte digest is not MD5/SHA of anything in the file that was tried (§1.3); the runtime "
              "accepts the original, so copying it is the only reading known to load")
    COPY = Reading("copy", "copy the input's 32 bytes (its input is unknown: not MD5/SHA of anything in the file)")
    MD5_PAYLOAD = Reading("md5-payload", "MD5 of the payload (everything after the header) in the first 16 bytes, "
                                         "rest zero")
    ZERO = Reading("zero", "all 32 bytes zero")

    def digest(self, payload: bytes) -> tuple[bytes, bytes] | None:
        """The (first 16, last 16) bytes of the hash field for ``payload``, or None to copy."""
        if self.reading is self.MD5_PAYLOAD:
            return hashlib.md5(payload).digest(), bytes(16)
        if self.reading is self.ZERO:
            return bytes(16), bytes(16)
        return None


class KelpVersionMajor(Decision):
    id = "R-2"
    subject = "NEFF header word 0x018 (kelp_version_major)"
    COPY = Reading("copy", "copy the input's word (2 in both real files; the book's 1 is contradicted)")


class UnknownHeaderWords(Decision):
    id = "R-3"
    subject = "NEFF header words 0x220 and 0x228 (meaning unknown)"
    COPY = Reading("copy", "copy both from the input NEFF; no header is written without a template")
    GRAPH_COUNT = Reading("graph-count", "0x228 = number of graphs in kelf-0.json (inferred); 0x220 copied")

    def word_0x228(self, graphs: int) -> int | None:
        """The word at 0x228 for a NEFF of ``graphs`` graphs, or None to copy."""
        return graphs if self.reading is self.GRAPH_COUNT else None


class HeaderUuid(Decision):
    id = "R-4"
    subject = "NEFF header UUID (0x0CC) on a repack"
    KEEP = Reading("keep", "keep the input's UUID")
    FRESH = Reading("fresh", "draw a fresh RFC 4122 version-4 UUID")

    def uuid(self) -> bytes | None:
        """A new UUID, or None to keep the input's."""
        return _uuid.uuid4().bytes if self.reading is self.FRESH else None


class GzipMtime(Decision):
    id = "R-5"
    subject = "gzip MTIME of a repacked NEFF payload"
    COPY = Reading("copy", "copy the input's MTIME")
    NOW = Reading("now", "the current time")

    def mtime(self, original: int) -> int:
        return original if self.reading is self.COPY else int(time.time()) & 0xFFFFFFFF


class MemberOrder(Decision):
    id = "R-6"
    subject = "order of the tar members of a NEFF"
    NEFF_JSON_LAST = Reading("neff-json-last", "byte order of the paths, neff.json moved to the end (both real files)")
    BYTE_ORDER = Reading("byte-order", "plain byte order of the paths")
    INPUT_ORDER = Reading("input-order", "the input's order; members it did not have follow in byte order")

    def order(self, names: Iterable[str], input_order: Mapping[str, int] | None = None) -> list[str]:
        """The member names in the order a writer emits them."""
        names = list(names)
        by_bytes = sorted(names, key=lambda s: s.encode())
        if self.reading is self.BYTE_ORDER:
            return by_bytes
        if self.reading is self.NEFF_JSON_LAST:
            return [n for n in by_bytes if n != "neff.json"] + (["neff.json"] if "neff.json" in names else [])
        pos = input_order or {}
        return sorted(names, key=lambda s: (0, pos[s], b"") if s in pos else (1, 0, s.encode()))


class TensorTensorSlots(Decision):
    id = "R-7"
    subject = "TensorTensor slots (0x41/0x51/0x8A/0x8E): which operand is at +0x10, +0x20, +0x30"
    reason = ("matmul_large's 1,024 0x41 add bundles name a PSUM bank at +0x10 and the same SBUF accumulator at "
              "+0x20 and +0x30; a Memset zeroes the accumulator first, casts read it after, and the compiler "
              "orders the casts after the TTs as after writers: +0x10 is an input (the book's out reading leaves "
              "the output at zero). Which input is in0, and whether out is +0x20 or +0x30, the bytes cannot "
              "tell (chapter §3)")
    IN0_IN1_OUT = Reading("in0-in1-out", "in0 +0x10, in1 +0x20, out +0x30; +0x0C lo nibble in0, hi nibble in1, "
                                         "+0x0D out, +0x0F in0's partition count (default)")
    IN0_OUT_IN1 = Reading("in0-out-in1", "in0 +0x10, out +0x20, in1 +0x30 (same bytes for every real bundle)")
    IN1_IN0_OUT = Reading("in1-in0-out", "in1 +0x10, in0 +0x20, out +0x30 (inputs swapped: lo nibble and the "
                                         "partition count follow +0x10)")
    OUT_IN0_IN1 = Reading("out-in0-in1", "the book's out +0x10, in0 +0x20, in1 +0x30 (refuted by the real bytes)")

    def offsets(self) -> dict[str, int]:
        """Slot offset of each operand role (in0, in1, out)."""
        order = {self.IN0_IN1_OUT: ("in0", "in1", "out"), self.IN0_OUT_IN1: ("in0", "out", "in1"),
                 self.IN1_IN0_OUT: ("in1", "in0", "out"), self.OUT_IN0_IN1: ("out", "in0", "in1")}[self.reading]
        return {role: 0x10 + 0x10 * k for k, role in enumerate(order)}

    @property
    def first_input(self) -> str:
        """The input whose dtype is the low nibble of +0x0C and whose partition count is +0x0F."""
        return "in1" if self.reading is self.IN1_IN0_OUT else "in0"


class CopyPredicatedSlots(Decision):
    id = "R-8"
    subject = "CopyPredicated/CastPredicated slots (0x72/0x99)"
    reason = ("no real bundle of 0x72/0x99 exists; the book's dst/src/mask order comes from the same encoder page "
              "whose TensorTensor order the real bytes refute, and by the band's own logic (low nibble and +0x0F "
              "belong to the +0x10 operand) mask comes first (chapter §3.5). 0xE8 and 0xEA keep SPEC.md's layout")
    MASK_SRC_DST = Reading("mask-src-dst", "mask +0x10, src +0x20, dst +0x30 (default)")
    DST_SRC_MASK = Reading("dst-src-mask", "the book's dst +0x10, src +0x20, mask +0x30 (SPEC.md §4.5 as written)")
    SRC_MASK_DST = Reading("src-mask-dst", "src +0x10, mask +0x20, dst +0x30")

    def offsets(self) -> dict[str, int]:
        """Slot offset of each operand role (mask, src, dst)."""
        order = {self.MASK_SRC_DST: ("mask", "src", "dst"), self.DST_SRC_MASK: ("dst", "src", "mask"),
                 self.SRC_MASK_DST: ("src", "mask", "dst")}[self.reading]
        return {role: 0x10 + 0x10 * k for k, role in enumerate(order)}
