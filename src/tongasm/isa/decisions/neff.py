"""The NEFF container decisions of the real-NEFF chapter (``neff-and-real-opcodes.md`` §1.3-§1.6),
each with the behaviour its readings imply: R-1..R-6 govern what a NEFF repack copies or recomputes
(header hash, kelp version, unknown words, UUID, gzip MTIME, member order); they affect no bundle.
The tar style decisions are in :mod:`.archive`; the bundle decisions the same chapter read are with
their families (:mod:`.tensor`, :mod:`.pe`, :mod:`.dma`, :mod:`.control`).
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
    reason = ("the compilers do not agree: of the 96 corpus files 78 (2.14) and 6 (2.23, trn1) are in plain byte "
              "order, 7 (2.23, trn2) and both matmul files in byte order with neff.json last, and 5 in neither: 3 "
              "(2.23, moe: neff.json last, a '*.klir.debuginfo.json' among sg00's members) and 2 (2.14: the "
              "custom-op libbuiltincustomop_cpu*.stripped.so members right after kelf-0.json); only the input's "
              "own order reproduces every file")
    INPUT_ORDER = Reading("input-order", "the input's order; members it did not have follow in byte order (every "
                                         "real file)")
    NEFF_JSON_LAST = Reading("neff-json-last", "byte order of the paths, neff.json moved to the end (9 of 98 real "
                                               "files: the trn2 attention kernels and both matmul files)")
    BYTE_ORDER = Reading("byte-order", "plain byte order of the paths (84 of 98 real files: most of 2.14's and the "
                                       "trn1 2.23 kernels)")

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
