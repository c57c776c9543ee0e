"""The decisions of the NEFF archive's tar headers (R-40, R-41): how a written NEFF's tar headers
look, and what header a member gets that the file did not have in that form.

The evidence is the whole real corpus (``shared/groundtruth/corpus``, 96 files, and the two matmul
NEFFs): every file is written in one of two tar styles (:data:`tongasm.neff.container.TAR_STYLES`),
and each file's own style, detected on reading, rebuilds its tar byte for byte:

* ``ustar`` — neuronx-cc 2.23.6484 (16 corpus files, 923 members; both matmul files): no PAX header,
  mode 0664, uid/gid 1000, uname/gname ``nobody``, mtime 0 on every member;
* ``pax-times`` — neuronx-cc 2.14.227 (80 files, 3,525 members, every one of them): before each
  member a PAX header ``DIR/PaxHeader/BASE`` with ``ctime``, ``atime``, ``mtime`` at nanosecond
  resolution, the ustar header's mtime the whole seconds, uname/gname empty, mode 0664 (3,509
  members) or 0775 (16: the ``libbuiltincustomop_cpu*.stripped.so`` members of 2 files).

The gzip wrapper is the same in both (deflate level 1, ``1f 8b 08 00 MTIME 04 03``, padding to
10,240 bytes): raw deflate at level 1 reproduces all 96 payloads.
"""

from __future__ import annotations

from .base import Decision, Reading


class ArchiveStyle(Decision):
    id = "R-40"
    subject = "tar headers of a written NEFF: the file's own style (PAX times headers, owner, mtime) or plain ustar"
    reason = ("the compilers write two styles (96 of 96 corpus files rebuild byte for byte in their own): 2.23.6484 "
              "writes plain ustar with mode 0664, owner 1000 'nobody', mtime 0 (16 files, 923 members); 2.14.227 "
              "writes libarchive pax, a 'DIR/PaxHeader/BASE' header with ctime/atime/mtime (nanoseconds) before "
              "every member, empty uname/gname and the real mtime (80 files, 3,525 members). Writing every file "
              "in the 2.23 style (what tongasm did before) changed 89 of 96 files on a repack")
    AS_READ = Reading("as-read", "every member keeps the header it was read with (mode, owner, mtime, its PAX "
                                 "times header), written in the style detected from the file (ustar: 2.23; "
                                 "pax-times: 2.14); a NEFF built without a source is written in ustar")
    USTAR = Reading("ustar", "every member gets 2.23's plain ustar header (owner 1000 'nobody', mtime 0, no PAX "
                             "header; its mode as read, 0664 for a new one): a 2.14 file's times are dropped")

    @property
    def as_read(self) -> bool:
        """Whether each member keeps the header (and the file its style) as read."""
        return self.reading is self.AS_READ


class NewMemberHeader(Decision):
    id = "R-41"
    subject = "tar header of a member that is added or replaced in a NEFF (times, PAX record)"
    reason = ("a compiler writes every member of a file in one run, so a member rewritten by tongasm has no "
              "header of its own in the real files; keeping the replaced member's header (only its size changes) "
              "leaves a NEFF whose every header is one the compiler wrote. No real file shows an added member: "
              "copying the header of the member before it (mode, owner, times) keeps the file's style, and in a "
              "2.23-style file (mtime 0 everywhere) every reading gives the same bytes")
    KEEP = Reading("keep", "a replaced member keeps its header (mode, owner, mtime, PAX times), only its size "
                           "changes; an added member copies the header of the member before it in the archive "
                           "(the style's template when it is the first)")
    NOW = Reading("now", "a replaced or added member is stamped with the current time, as the file's style writes "
                         "times (pax-times: PAX ctime/atime/mtime in nanoseconds and the ustar mtime in whole "
                         "seconds; ustar writes no time, mtime stays 0)")

    @property
    def stamps_now(self) -> bool:
        """Whether a new or replaced member's times are the current time (else copied)."""
        return self.reading is self.NOW
