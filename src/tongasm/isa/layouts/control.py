"""The sync/control layouts: EventSemaphore 0xA0, Nop 0xA4, SetOrderingMode 0xB1 and
PseudoBranchLabel 0xCC (all in the real NEFFs), and the book's other SP sync/control members:
CompareBranch 0xA9, Halt 0xA1, Drain 0xA2, EventSemaphoreRangeClear 0xB0, PseudoSyncBarrier 0xD5,
PseudoFunctionReturn 0xD2, PseudoFunctionCall 0xD3 and PseudoInst 0xDF (book ``isa/sp-sync-encoding.md``).

Every one carries the header sync band (D-3; the real 0xA4 uses it) except EventSemaphore, which has
its own lanes: two waits (+0x04/+0x05/+0x08 and +0x20/+0x21/+0x24, both verified on real bundles)
and an update (+0x22/+0x23/+0x28, book only: R-19). The compiler uses EventSemaphore to carry the
extra waits of the next instruction (a bundle has one header wait).
"""

from __future__ import annotations

from ..decisions import DecisionSet
from ..decisions.control import BranchLabelBody, EventSemaphoreHeader, EventSemaphoreUpdate
from ..fields import EnumTable, Field, Kind
from ..layout import AsciiText, BirAttr, BirForm, EnumText, IntText, Layout, Sem, SyncLanes, UpdateLane, WaitLane
from ..opcodes import op
from ..tables import WAIT_TABLE, update_table
from .common import H, V, ascii_run, dtype, reg, u8, u32, zero_run

EVENT_SEMAPHORE = op(0xA0, "EventSemaphore", "EventSemaphore", "tensor", V,
                     "wait on up to two semaphores (and update one): the carrier of an instruction's extra waits")
NOP = op(0xA4, "Nop", "NoOp", "tensor", V, "no operation (its sync band only)")
SET_ORDERING_MODE = op(0xB1, "SetOrderingMode", "SetOrderingMode", "tensor", V,
                       "select the engine's instruction-ordering mode (bundle 0 of every real stream)")
PSEUDO_BRANCH_LABEL = op(0xCC, "PseudoBranchLabel", "PseudoBranchLabel", "tensor", V,
                         "a branch label (bundle 1 of every real stream)")
COMPARE_BRANCH = op(0xA9, "CompareBranch", "CompareAndBranch", "tensor", H, "compare a register and branch (book)")
HALT = op(0xA1, "Halt", "Halt", "tensor", H, "stop this engine's sequencer (book)")
DRAIN = op(0xA2, "Drain", "Drain", "tensor", H, "wait until this engine's outstanding DMAs have retired (book)")
SEM_RANGE_CLEAR = op(0xB0, "EventSemaphoreRangeClear", "GroupResetSemaphores", "tensor", H,
                     "set a range or a mask of semaphores to zero (book)")
SYNC_BARRIER = op(0xD5, "PseudoSyncBarrier", "AllEngineBarrier", "tensor", H,
                  "one engine's half of an all-engine barrier (book)")
FUNCTION_RETURN = op(0xD2, "PseudoFunctionReturn", "Return", "tensor", H, "return from a called function (book)")
FUNCTION_CALL = op(0xD3, "PseudoFunctionCall", "Call", "tensor", H, "call a function by name (book)")
PSEUDO_INST = op(0xDF, "PseudoInst", "Exit", "tensor", H, "end the program's execution (BIR Exit; book)")

BOOK_ZERO = "book: zero (the SP encoders zero the bundle first); no real bundle"
#: BranchCompareOp → the +0x0C byte (book LUT byte_1DF5780): immediate rhs 1..6, register rhs 9..14.
COMPARE_TABLE = EnumTable("compare op", {0: "always", 1: "lt_imm", 2: "le_imm", 3: "eq_imm", 4: "ne_imm", 5: "ge_imm",
                                         6: "gt_imm", 9: "lt_reg", 10: "le_reg", 11: "eq_reg", 12: "ne_reg",
                                         13: "ge_reg", 14: "gt_reg"})
CLEAR_TABLE = EnumTable("clear mode", {1: "range", 2: "mask"})
SEM_MASK_WORDS = 8


def event_semaphore(ds: DecisionSet) -> list[Layout]:
    """0xA0 (real-opcodes.md §1.3): two wait lanes (verified) and an update lane (R-19, book)."""
    seen = "all 7,474 real EventSemaphores"
    upd = update_table(ds)
    body: list[Field] = [
        Field("wait_mode", 0x04, 1, Kind.ENUM, enum=WAIT_TABLE, conf=V, decision="R-19",
              doc="wait 0 mode (events.wait_mode): 0x05 sem_ge_imm in every real bundle"),
        u8("wait_idx", 0x05, V, "wait 0 semaphore", decision="R-19"),
        u32("sync_value", 0x08, V, "wait 0 threshold (or register, sem_ge_reg)", decision="R-19"),
        *zero_run(0x0C, 20, V, f"observed zero in {seen}"),
        Field("wait1_mode", 0x20, 1, Kind.ENUM, enum=WAIT_TABLE, conf=V, decision="R-19",
              doc="wait 1 mode (events_extended.wait_mode): 0 = no second wait (260 real bundles use it)"),
        u8("wait1_idx", 0x21, V, "wait 1 semaphore", decision="R-19"),
        u32("wait1_value", 0x24, V, "wait 1 threshold (or register)", decision="R-19"),
        *zero_run(0x2C, 20, V, f"observed zero in {seen}"),
    ]
    waits = (WaitLane(), WaitLane("wait1_mode", "wait1_idx", "wait1_value"))
    updates: list[UpdateLane] = []
    if ds.get(EventSemaphoreUpdate).has_lane:
        body += [
            Field("update_mode", 0x22, 1, Kind.ENUM, enum=upd, conf=H, decision="R-19",
                  doc=f"book: update mode (events_extended.update_mode, the D-2 LUT); 0 in {seen}"),
            u8("update_idx", 0x23, H, f"book: update semaphore; 0 in {seen}", decision="R-19"),
            u32("update_value", 0x28, H, f"book: update value (not written for sem_inc/sem_dec); 0 in {seen}",
                decision="R-19"),
        ]
        updates.append(UpdateLane("update_mode", "update_idx", "update_value"))
    else:
        body += [*zero_run(0x22, 2, V, f"observed zero in {seen} (R-19=none: no update lane)", "R-19"),
                 *zero_run(0x28, 4, V, f"observed zero in {seen} (R-19=none: no update lane)", "R-19")]
    if ds.get(EventSemaphoreHeader).header_update:
        body += [Field("hdr_update_mode", 0x06, 1, Kind.ENUM, enum=upd, conf=H, decision="R-26",
                       doc=f"R-26=header-update: the header band's update mode; 0 in {seen}"),
                 u8("hdr_update_idx", 0x07, H, f"R-26=header-update: the header band's update semaphore; 0 in {seen}",
                    decision="R-26")]
        updates.append(UpdateLane("hdr_update_mode", "hdr_update_idx", "sync_value"))
    else:
        body += zero_run(0x06, 2, V, f"observed zero in {seen}; the book: not written in the event-semaphore path",
                         "R-26")
    return [Layout(
        "EventSemaphore", (EVENT_SEMAPHORE,), tuple(body), Sem.NONE, sync=SyncLanes(waits, tuple(updates)),
        bir=BirForm("EventSemaphore", family="engine"),
        doc="waits on up to two semaphores before the engine goes on, then applies its update (R-19); the compiler "
            "names it <instruction>-wait-<k>, before the instruction whose waits it carries",
    )]


def nop(ds: DecisionSet) -> list[Layout]:
    """0xA4 (real-opcodes.md §1.4; book CTRL_NO: header and sync only)."""
    return [Layout("Nop", (NOP,), tuple(zero_run(0x0C, 52, V, "observed zero in all 4 real Nops; the book (CTRL_NO): "
                                                              "header and sync band only")),
                   Sem.NONE, bir=BirForm("NoOp", family="engine"),
                   doc="no operation: waits (and updates) only; the real ones end the Pool stream waiting for the "
                       "last output DMA")]


def set_ordering_mode(ds: DecisionSet) -> list[Layout]:
    """0xB1 (real-opcodes.md §1.5): no BIR instruction in the real files; bundle 0 of every stream."""
    body = (u8("ordering_mode", 0x0C, V, "book (runtime builder add_set_ordering_mode): the ordering mode; 0 in all 20 "
                                        "real bundles, meaning unknown", decision="R-24"),
            *zero_run(0x0D, 51, V, "observed zero in all 20 real SetOrderingMode bundles"))
    return [Layout("SetOrderingMode", (SET_ORDERING_MODE,), body, Sem.NONE,
                   (IntText(name="mode", field="ordering_mode").opt(),),
                   bir=BirForm("SetOrderingMode", family="engine",
                               attrs=(BirAttr("ordering_mode", "ordering_mode", int, default=0),)),
                   checks=("ctrl.ordering_mode",),
                   doc="selects the sequencer's instruction-ordering mode; no effect on memory or semaphores (R-18, "
                       "R-24)")]


def pseudo_branch_label(ds: DecisionSet) -> list[Layout]:
    """0xCC (real-opcodes.md §1.6): no byte-level book layout; R-27 for its body."""
    if ds.get(BranchLabelBody).label_id:
        body: tuple[Field, ...] = (u32("label_id", 0x0C, V, "the label's id, unique in its stream (0..89 in the corpus); "
                                                            "a PseudoRangeCheck's branch_label_id names it", decision="R-27"),
                                   *zero_run(0x10, 48, V, "observed zero in all 364 corpus PseudoBranchLabels"))
        text: tuple = (IntText(name="label", field="label_id").opt(),)
    else:
        body = tuple(zero_run(0x0C, 52, V, "zero in every 2.23 PseudoBranchLabel; sunda 2.14 writes a label id here "
                                           "(R-27=label-id)", "R-27"))
        text = ()
    attrs = (BirAttr("label_id", "label_id", int, default=0),) if "label_id" in {f.name for f in body} else ()
    return [Layout("PseudoBranchLabel", (PSEUDO_BRANCH_LABEL,), body, Sem.NONE, text,
                   bir=BirForm("PseudoBranchLabel", family="engine", attrs=attrs),
                   doc="marks a branch target (the runtime's block identification); no effect on machine state")]


def book_control(ds: DecisionSet) -> list[Layout]:
    """The book's other SP sync/control members (no real bundle: H)."""
    name = ascii_run("target_name", 0x0C, 35, H, "book: the called function's name, strncpy(..., 0x23)")
    return [
        Layout("CompareBranch", (COMPARE_BRANCH,), (
            Field("compare_op", 0x0C, 1, Kind.ENUM, enum=COMPARE_TABLE, conf=H,
                  doc="book: BranchCompareOp through LUT byte_1DF5780 (negated when the encoded edge is on_false)"),
            dtype("lhs_dtype", 0x0D, H, "book: compare width"),
            Field("operand_kind", 0x0E, 1, Kind.CONSTANT, const=3, conf=H, doc="book: register-AP / scalar, constant 3"),
            *zero_run(0x0F, 1, H, BOOK_ZERO),
            u32("rhs_imm", 0x10, H, "book: immediate rhs (immediate forms only)"),
            *zero_run(0x14, 12, H, BOOK_ZERO),
            reg("lhs_reg", 0x20, H, "book: lhs register"),
            reg("rhs_reg", 0x21, H, "book: rhs register (register forms only)"),
            *zero_run(0x22, 14, H, BOOK_ZERO),
            Field("branch_target", 0x30, 8, conf=H, doc="book: instruction-stream PC of the taken block"),
            *zero_run(0x38, 8, H, BOOK_ZERO),
        ), Sem.UNMODELLED, (EnumText(name="op", field="compare_op"), IntText(name="target", field="branch_target")),
            doc="book: if lhs <op> rhs jump to branch_target, else fall through; not encoded, not simulated"),
        Layout("Halt", (HALT,), tuple(zero_run(0x0C, 52, H, BOOK_ZERO)), Sem.HALT,
               bir=BirForm("Halt", family="engine"), doc="book: stop this engine's sequencer after its wait/update"),
        Layout("Drain", (DRAIN,), (*zero_run(0x0C, 28, H, BOOK_ZERO),
                                   u8("drain_count", 0x28, H, "book: compile-time constant; lower_control writes 1 = full "
                                                              "drain"),
                                   *zero_run(0x29, 23, H, BOOK_ZERO)),
               Sem.DRAIN, (IntText(name="count", field="drain_count"),),
               bir=BirForm("Drain", family="engine", attrs=(BirAttr("drain_count", "drain_count", int, default=1),)),
               doc="book: wait until this engine's outstanding DMAs have retired"),
        Layout("EventSemaphoreRangeClear", (SEM_RANGE_CLEAR,), (
            Field("clear_mode", 0x0C, 1, Kind.ENUM, enum=CLEAR_TABLE, conf=H, doc="book: 0x01 range, 0x02 bitmask"),
            u8("range_first", 0x0D, H, "book: first semaphore cleared (range mode)"),
            u8("range_last", 0x0E, H, "book: last semaphore cleared (range mode)"),
            *zero_run(0x0F, 17, H, BOOK_ZERO),
            *[u32(f"sem_mask{k}", 0x20 + 4 * k, H, f"book: bitmask mode: semaphores {32 * k}..{32 * k + 31}, bit id & 31")
              for k in range(SEM_MASK_WORDS)],
        ), Sem.SEMAPHORE_CLEAR, (EnumText(name="mode", field="clear_mode"), IntText(name="first", field="range_first"),
                                 IntText(name="last", field="range_last")),
            bir=BirForm("GroupResetSemaphores", family="engine",
                        attrs=(BirAttr("first", "range_first", int, required=True),
                               BirAttr("last", "range_last", int, required=True),
                               BirAttr("clear_mode", "clear_mode", int, default=1))),
            checks=("ctrl.clear_range",),
            doc="book: zero every semaphore in [first, last] (range) or in the mask; BIR GroupResetSemaphores (range "
                "form: tongasm's first/last attributes)"),
        Layout("PseudoSyncBarrier", (SYNC_BARRIER,), tuple(zero_run(0x0C, 52, H, BOOK_ZERO)), Sem.NONE,
               bir=BirForm("AllEngineBarrier", family="engine"),
               doc="book: one engine's half of an all-engine rendezvous, through its own sync band"),
        Layout("PseudoFunctionReturn", (FUNCTION_RETURN,), tuple(zero_run(0x0C, 52, H, BOOK_ZERO)), Sem.UNMODELLED,
               doc="book: return from a called function; not encoded, not simulated"),
        Layout("PseudoFunctionCall", (FUNCTION_CALL,), (
            *name, *zero_run(0x2F, 1, H, BOOK_ZERO),
            u32("args_table_var_id", 0x30, H, "book: the arguments table's var_id (calls with arguments only)"),
            *zero_run(0x34, 12, H, BOOK_ZERO),
        ), Sem.UNMODELLED, (AsciiText(name="target", fields=tuple(f.name for f in name)),
                            IntText(name="args", field="args_table_var_id").opt()),
            doc="book: call the named function (the runtime resolves the name); not encoded, not simulated"),
        Layout("PseudoInst", (PSEUDO_INST,), (u8("datapath_flag", 0x0C, H, "book: written 1 on a datapath engine"),
                                              *zero_run(0x0D, 51, H, BOOK_ZERO)),
               Sem.HALT, (IntText(name="datapath", field="datapath_flag"),),
               bir=BirForm("Exit", family="engine", attrs=(BirAttr("datapath_flag", "datapath_flag", int, default=1),)),
               doc="book: BIR Exit (PSEUDO_EXIT_EXECUTION): end of the program's execution"),
    ]


BUILDERS = (event_semaphore, nop, set_ordering_mode, pseudo_branch_label, book_control)

__all__ = ["BUILDERS", "EVENT_SEMAPHORE", "NOP", "PSEUDO_BRANCH_LABEL", "SET_ORDERING_MODE"]
