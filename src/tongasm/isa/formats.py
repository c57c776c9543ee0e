"""The compiled bundle formats: every layout record of :mod:`tongasm.isa.layouts` turned into a
:class:`~tongasm.isa.fields.Format` (its codec) for one decision selection.

Each format's fields are the shared header, the sync band (on the opcodes that carry it, D-3), the
layout's own body and its descriptor slots' fields; ``fmt.layout`` is the record it came from, so
every consumer reaches the text template, the semantics kind, the binding and the checks through
the format it decoded. Where an opcode has several layouts (a 32-bit and a 64-bit RegisterMove...),
each is a *variant* with a ``match`` rule; variants are tried in declaration order.
"""

from __future__ import annotations

from functools import lru_cache
from collections.abc import Iterator

from . import layouts as _layouts
from .decisions import DEFAULT_DECISIONS, DecisionSet
from .decisions.spec import SyncBandScope
from .descriptors import slot_fields
from .fields import EnumTable, Field, Format
from .layout import HEADER_SYNC, Layout
from .layouts.common import header_fields, sync_fields
from .opcodes import Op
from .tables import opcode_table


def compile_layout(layout: Layout, decisions: DecisionSet, opcodes: EnumTable) -> Format:
    """The codec of one layout record (header, sync band, body and slot fields); ``opcodes`` names
    the opcode bytes of every layout."""
    sp_op = layout.family == "sp"
    # a layout with its own sync lanes (EventSemaphore) declares their fields in its body
    with_sync = layout.sync is None and decisions.get(SyncBandScope).carries_sync(sp_op)
    # a body field named as a header field replaces it (0xDA's inst_word_len: R-30)
    own = {f.name for f in layout.body}
    header = [f for f in header_fields(decisions, sp_op, opcodes) if f.name not in own]
    fields: list[Field] = [*header, *(sync_fields(decisions) if with_sync else ()), *layout.body]
    for s in layout.slots:
        fields.extend(slot_fields(s))
    fmt = Format(layout.name, {o.byte: o.mnemonic for o in layout.opcodes}, fields, match=layout.match,
                 slots=layout.slots, doc=layout.doc)
    fmt.layout = layout
    fmt.sync = layout.sync if layout.sync is not None else (HEADER_SYNC if with_sync else None)
    return fmt


class FormatSet:
    """All bundle formats for one decision selection, indexed by opcode and by name."""

    def __init__(self, decisions: DecisionSet, builders: tuple[_layouts.Builder, ...] | None = None) -> None:
        self.decisions = decisions
        self.by_name: dict[str, Format] = {}
        self.by_opcode: dict[int, list[Format]] = {}
        records = list(_layouts.layouts(decisions, builders))
        #: every opcode with a layout, by byte
        self.ops: dict[int, Op] = {}
        for layout in records:
            for o in layout.opcodes:
                if self.ops.setdefault(o.byte, o) is not o:
                    raise ValueError(f"opcode {o.byte:#04x} declared twice ({self.ops[o.byte].mnemonic}, {o.mnemonic})")
        names = opcode_table(self.ops.values())
        for layout in records:
            if layout.name in self.by_name:
                raise ValueError(f"layout {layout.name!r} declared twice")
            fmt = compile_layout(layout, decisions, names)
            self.by_name[layout.name] = fmt
            for o in layout.opcodes:
                self.by_opcode.setdefault(o.byte, []).append(fmt)

    def variants(self, opcode: int) -> list[Format]:
        """The layouts of an opcode, in match order (empty if tongasm does not know it)."""
        return self.by_opcode.get(opcode, [])

    def mnemonic(self, fmt: Format, opcode: int) -> str:
        """The listing mnemonic of an opcode in a layout: the opcode's name, plus ``.variant`` when the
        opcode has several layouts (``Move.imm64``)."""
        m = fmt.opcodes[opcode]
        if len(self.by_opcode.get(opcode, ())) > 1 and fmt.layout.variant:
            m += "." + fmt.layout.variant
        return m

    def select(self, opcode: int, buf: object, offset: int = 0) -> tuple[Format, dict[str, int]] | None:
        """Pick the variant whose ``match`` holds for the bytes; return it with the decoded fields."""
        for fmt in self.by_opcode.get(opcode, ()):
            vals = fmt.decode(buf, offset)
            if fmt.matches(vals):
                return fmt, vals
        return None

    def __iter__(self) -> Iterator[Format]:
        return iter(self.by_name.values())


def build_formats(decisions: DecisionSet = DEFAULT_DECISIONS) -> FormatSet:
    """The formats for a decision selection (cached: one build per selection and set of registered
    layout builders, so the same selection always gives the same format objects)."""
    return _build(decisions, _layouts.builders())


@lru_cache(maxsize=256)  # one per decision selection the tests sweep (each_reading) and more
def _build(decisions: DecisionSet, builders: tuple[_layouts.Builder, ...]) -> FormatSet:
    return FormatSet(decisions, builders)


def __getattr__(name: str) -> FormatSet:
    if name == "FORMATS":  # the default selection's formats, built on first use (not at import)
        return build_formats(DEFAULT_DECISIONS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
