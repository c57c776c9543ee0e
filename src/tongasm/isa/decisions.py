"""Every D-n decision of SPEC §6, in one place.

The public reverse-engineering sources are silent or contradict each other on these points. The
spec picks one reading for each; a real compiled NEFF could overturn any of them. This module is
the *only* place where a reading is chosen: each :class:`Decision` names its default and the
alternatives a user can select (``--decision D-6=outermost-first`` on the command line, or
``DecisionSet.parse(["D-6=outermost-first"])`` in Python). Encoders, decoders, checks and explain
all read the choice from a :class:`DecisionSet`; nothing else hard-codes it.

To change a default when better evidence turns up, change the first entry of ``choices`` in the
decision's line below; the test that pins it cites the same id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ..errors import UsageError


@dataclass(frozen=True)
class Decision:
    """One numbered decision: its subject and its readings (the first is the default)."""

    id: str
    subject: str
    choices: tuple[str, ...]
    readings: Mapping[str, str]  # choice → what it means

    @property
    def default(self) -> str:
        return self.choices[0]

    @property
    def selectable(self) -> bool:
        return len(self.choices) > 1


def _d(id: str, subject: str, *readings: tuple[str, str]) -> Decision:
    return Decision(id, subject, tuple(r[0] for r in readings), dict(readings))


#: The registry. One line (one tuple) per reading; the first reading of each is the default.
DECISIONS: Mapping[str, Decision] = {
    d.id: d
    for d in (
        _d("D-1", "+0x01 (inst_word_len) on the SP register-lane ops",
           ("0x10", "+0x01 is 0x10 on every opcode, SP ops included (the header writer is shared)"),
           ("zero", "+0x01 is 0x00 on the SP register-lane ops (0xA7, 0xA8, 0xAA, 0xAB, 0xCD, 0xCE)")),
        _d("D-2", "update-mode wire byte at +0x06",
           ("lut", "update mode goes through the LUT 11 15 17 13 14 19"),
           ("raw", "the update mode ordinal is written raw")),
        _d("D-3", "which opcodes carry the sync band",
           ("all", "every opcode of the spec carries the sync band at +0x04..+0x0B"),
           ("sp-only", "only the SP register-lane ops carry it; sync info on any other op is refused")),
        _d("D-4", "a sem_ge wait and a value-carrying update in one instruction",
           ("refuse", "refused: both want the shared dword at +0x08"),
           ("update-wins", "encoded; the update value overwrites the wait value at +0x08 (write order)")),
        _d("D-5", "ADDR4 composition",
           ("fixed", "SBUF part<<18 | byte; PSUM 0x2000000 + part<<15 + bank<<11 + byte")),
        _d("D-6", "order of free dims in TENSOR descriptors",
           ("innermost-first", "slot 0 gets the last (fastest) pair; num==1 pairs dropped; {1,1} fill"),
           ("outermost-first", "slot 0 gets the first free pair; num==1 pairs dropped; {1,1} fill")),
        _d("D-7", "RegisterAlu dtype bytes +0x0D/+0x0F and register roles",
           ("by-operand-mode", "register path: +0x0D = 1, +0x0F = 0; immediate path: both dtype bytes"),
           ("both-dtype-bytes", "both paths: +0x0D = wire(src1 dtype), +0x0F = wire(dst dtype)")),
        _d("D-8", "TensorLoad/Save var_id and var_offset",
           ("fixed", "var_id = tensor_id or location index (u32 +0x10); var_offset = offset x size (u32 +0x14)")),
        _d("D-9", "TensorLoad/Save data register",
           ("fixed", "+0x20 data register lo, +0x21 hi")),
        _d("D-10", "TensorLoad/Save m2d layout",
           ("fixed", "SP page byte map: u8 counts at +0x0E/+0x0F, u32 steps at +0x18/+0x1C")),
        _d("D-11", "TensorSave memory targets on gen2",
           ("sbuf-refused-on-gen2", "on gen2 a TensorSave into SBUF is refused; DRAM allowed"),
           ("only-sbuf-on-gen2", "on gen2 only SBUF targets are allowed")),
        _d("D-12", "which ALU ops take the bit-vector TensorTensor opcode 0x51",
           ("bypass-arith", "bit-vector class ops → 0x51; bypass stays on 0x41"),
           ("bypass-bitvec", "bit-vector class ops and bypass → 0x51")),
        _d("D-13", "GPSIMD int32 override on gen2",
           ("pool-engine", "engine Pool, all int32, add → 0x8A/0xC4, mult → 0x8E/0xC5"),
           ("no-engine-gate", "any engine, all int32, add → 0x8A/0xC4, mult → 0x8E/0xC5")),
        _d("D-14", "predicated-copy flags (0xE8 +0x21, 0xEA +0x26)",
           ("not-reverse-pred", "0xE8 +0x21 = 1 iff not reverse_pred; 0xEA +0x26 = 1 iff a fill is given"),
           ("reverse-pred", "both flags equal reverse_pred")),
        _d("D-15", "SelectReduce src slot",
           ("tensor2d-at-0x0c", "src is a TENSOR2D at +0x0C"),
           ("unencoded", "src is 'register-packed': not encoded, +0x0C..+0x17 stay zero")),
        _d("D-16", "SelectReduce fill",
           ("one-byte", "one byte at +0x27 (register id or the immediate's low byte)"),
           ("source-byte", "+0x27 = fill source (0 imm, 1 register), 32-bit value at +0x3C")),
        _d("D-17", "GenericCopy and Select lowering",
           ("fixed", "GenericCopy encodes as TensorCopy; a scalar on_false lowers to Memset (D-17b)")),
        _d("D-18", "copy dtype reinterpret",
           ("identity", "getReinterpretedCopyDtype is the identity")),
        _d("D-19", "Memset dst descriptor",
           ("tensor4d", "TENSOR4D at +0x2C")),
        _d("D-20", "MoveShape count words",
           ("u16", "4 x u16 counts at +0x30; +0x38..+0x3F zero"),
           ("u32", "4 x u32 counts at +0x30, like the steps")),
        _d("D-21", "gen3 Pool int32 band",
           ("fixed", "opcode stays 0x41; add 0xC4, subtract 0xC6, mult 0xC5, divide 0xC7 at +0x0E")),
        _d("D-22", "TensorLoad/Save offset operand",
           ("offset-at-0x21", "its register id at +0x21 (32-bit data) and at +0x11 (REG form)"),
           ("regref-pair", "+0x10/+0x11 are the lo/hi ids of the memory regref; offset only at +0x21")),
        _d("D-23", "float immediates",
           ("bitcast", "float values are bit-cast to IEEE bits")),
        _d("D-24", "Select sync",
           ("first-wait-last-update", "the wait goes on the first bundle, the update on the last")),
        _d("D-25", "engine ALL",
           ("refuse", "refused with a clear message")),
        _d("D-26", "packed dtypes on gen3",
           ("refuse-in-tensortensor", "refused in TensorTensor only")),
        _d("D-27", "0xE8 immediate dtype",
           ("equal", "the immediate's dtype must equal the dst dtype (BIR217)"),
           ("same-kind", "the immediate's dtype must be of the same kind (int/float) as the dst dtype")),
    )
}


@dataclass(frozen=True)
class DecisionSet:
    """A selection of readings: the defaults, with some decisions overridden.

    Hashable, so format tables built from it can be cached per selection.
    """

    overrides: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        table = {d.id: d.default for d in DECISIONS.values()}
        for did, choice in self.overrides:
            dec = DECISIONS.get(did)
            if dec is None:
                raise UsageError(f"unknown decision {did!r}; known: {', '.join(DECISIONS)}")
            if choice not in dec.choices:
                shown = choice if len(choice) <= 40 else choice[:20] + "..."
                raise UsageError(f"decision {did} has no reading {shown!r}; choose one of: {', '.join(dec.choices)}")
            table[did] = choice
        object.__setattr__(self, "_table", table)  # O(1) lookups on the hot path

    def __getitem__(self, did: str) -> str:
        return self._table[did]  # type: ignore[attr-defined, no-any-return]

    def is_default(self, did: str) -> bool:
        return self[did] == DECISIONS[did].default

    @classmethod
    def parse(cls, specs: Iterable[str] | None) -> "DecisionSet":
        """Build from ``["D-6=outermost-first", ...]`` (the ``--decision`` option)."""
        found: dict[str, str] = {}
        for spec in specs or ():
            did, sep, choice = spec.partition("=")
            did = did.strip().upper()
            if not sep or not choice.strip():
                raise UsageError(f"--decision expects D-n=reading, got {spec!r}")
            if not did.startswith("D-"):
                did = "D-" + did.lstrip("D")
            if did in found and found[did] != choice.strip():
                raise UsageError(f"--decision {did} is given twice ({found[did]} and {choice.strip()}); "
                                 "choose one reading")
            found[did] = choice.strip()
        return cls.of(found)

    @classmethod
    def of(cls, choices: Mapping[str, str]) -> "DecisionSet":
        """Build from a mapping; entries equal to the default are dropped (canonical form)."""
        items = []
        for did in choices:
            if did not in DECISIONS:
                shown = did if len(did) <= 40 else f"{did[:20]}... ({len(did)} characters)"
                raise UsageError(f"unknown decision {shown!r}; known: {', '.join(DECISIONS)}")
        for did, choice in sorted(choices.items(), key=lambda kv: _did_key(kv[0])):
            if choice != DECISIONS[did].default:
                items.append((did, choice))
        return cls(tuple(items))

    def describe(self) -> list[str]:
        """``D-n=reading`` for each non-default reading."""
        return [f"{d}={c}" for d, c in self.overrides]


def each_reading() -> list[DecisionSet]:
    """The defaults, then every alternative reading on its own: the selections that tests and
    fuzzers sweep."""
    return [DecisionSet()] + [DecisionSet.of({d.id: c}) for d in DECISIONS.values() for c in d.choices[1:]]


def _did_key(did: str) -> tuple[int, str]:
    num = "".join(ch for ch in did if ch.isdigit())
    return (int(num) if num else 0, did)


DEFAULT_DECISIONS = DecisionSet()
