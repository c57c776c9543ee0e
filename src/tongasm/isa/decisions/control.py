"""Decisions of the sync/control opcodes read from the real NEFFs (R-18, R-19, R-24, R-26, R-27):
the stream prologue, EventSemaphore's update and header bytes, SetOrderingMode's mode and the
PseudoBranchLabel body (neff-and-real-opcodes.md §2, docs/research/real-opcodes.md §5).
"""

from __future__ import annotations

from .base import Decision, Reading


class StreamPrologue(Decision):
    id = "R-18"
    subject = "SetOrderingMode (0xB1) and PseudoBranchLabel (0xCC) at the start of every stream"
    reason = ("all 20 real streams start with 0xB1 then 0xCC, all-zero bodies and no BIR instruction; whether the "
              "runtime needs them is unknown, and prepending them would change every stream tongasm writes")
    EXPLICIT = Reading("explicit", "tongasm writes them only where the kernel has SetOrderingMode/PseudoBranchLabel "
                                   "instructions")
    PROLOGUE = Reading("prologue", "the program starts with SetOrderingMode (mode 0) and PseudoBranchLabel on each "
                                   "of the sp, pool, pe, act and dve streams, as every real stream does")

    @property
    def prologue(self) -> bool:
        return self.reading is self.PROLOGUE


class EventSemaphoreUpdate(Decision):
    id = "R-19"
    subject = "EventSemaphore (0xA0) update lane +0x22/+0x23/+0x28"
    reason = ("the book's wait lanes (+0x04/+0x05/+0x08, +0x20/+0x21/+0x24) are confirmed by 7,474 real bundles (260 "
              "use the second); the update lane is never used")
    LANE = Reading("lane", "the book: +0x22 update mode (the D-2 LUT), +0x23 semaphore, +0x28 value (not written for "
                           "sem_inc/sem_dec), applied after both waits hold")
    NONE = Reading("none", "no update lane: those bytes are reserved-zero and an update is refused")

    @property
    def has_lane(self) -> bool:
        return self.reading is self.LANE


class OrderingMode(Decision):
    id = "R-24"
    subject = "SetOrderingMode (0xB1) +0x0C ordering mode"
    reason = "0 in all 20 real bundles; the book's runtime builder writes an ordering-mode byte there, meaning unknown"
    ZERO = Reading("zero", "tongasm writes 0; a non-zero ordering_mode is refused (ctrl.ordering_mode)")
    PARAMETER = Reading("parameter", "the BIR attribute ordering_mode is written as given")

    @property
    def takes_parameter(self) -> bool:
        return self.reading is self.PARAMETER


class EventSemaphoreHeader(Decision):
    id = "R-26"
    subject = "EventSemaphore (0xA0) +0x06/+0x07"
    reason = "zero in all 7,474 real bundles; the book: not written in the event-semaphore path"
    RESERVED = Reading("reserved", "reserved-zero")
    HEADER_UPDATE = Reading("header-update", "the header band's update (+0x06 mode, +0x07 semaphore, value in +0x08 "
                                             "shared with the first wait, D-4), as on every other opcode")

    @property
    def header_update(self) -> bool:
        return self.reading is self.HEADER_UPDATE


class BranchLabelBody(Decision):
    id = "R-27"
    subject = "PseudoBranchLabel (0xCC) body"
    reason = ("sunda 2.14 writes a label id at +0x0C: 364 corpus labels in 156 streams, the ids unique in each "
              "stream (0, 1, 2... in stream order; 208 non-zero, the highest 89 in a stream of 90 labels), and every "
              "one of the 234 PseudoRangeCheck (0xD6) bundles names at its +0x30 a label of its own stream that "
              "follows it; +0x0D..+0x3F are zero in all 364. The 2.23 files (130 labels) have one label per stream, "
              "id 0, as the two matmul NEFFs (20) that first read the body as all zero")
    LABEL_ID = Reading("label-id", "a u32 label id at +0x0C, unique in its stream (the target a PseudoRangeCheck names); "
                                   "+0x10..+0x3F zero")
    ZERO = Reading("zero", "no body: the label is its position in the stream (every 2.23 stream; contradicted by 208 "
                           "sunda 2.14 labels)")

    @property
    def label_id(self) -> bool:
        return self.reading is self.LABEL_ID
