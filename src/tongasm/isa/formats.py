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
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

from . import layouts as _layouts
from .decisions import DEFAULT_DECISIONS, DecisionSet
from .decisions.spec import SyncBandScope
from .descriptors import slot_fields
from .fields import EnumTable, Field, Format
from .layout import HEADER_SYNC, Layout
from .layouts.common import header_fields, sync_fields
from .opcodes import Op
from .tables import opcode_table

_K = TypeVar("_K")
_V = TypeVar("_V")


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


class _Lazy(Mapping[_K, _V]):
    """A read-only mapping whose keys are known up front and whose values are made on first read
    (then kept). Iterating or ``len`` makes nothing; ``values()``/``items()`` make every value."""

    def __init__(self, keys: Iterable[_K], make: Callable[[_K], _V]) -> None:
        self._keys = list(dict.fromkeys(keys))
        self._known = frozenset(self._keys)
        self._made: dict[_K, _V] = {}
        self._make = make

    def __getitem__(self, key: _K) -> _V:
        try:
            return self._made[key]
        except KeyError:
            if key not in self._known:
                raise
        value = self._made[key] = self._make(key)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._known

    def __iter__(self) -> Iterator[_K]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"<{len(self._keys)} entries, {len(self._made)} built>"


class FormatSet:
    """All bundle formats for one decision selection, indexed by opcode and by name.

    Built lazily, one layout at a time: making a ``FormatSet`` runs the registered layout builders
    (cheap: they return :class:`~tongasm.isa.layout.Layout` records) and checks that no opcode and no
    layout name is declared twice; a layout's codec (its :class:`~tongasm.isa.fields.Format`, with
    the generated encoder and decoder and the field-overlap checks) is compiled the first time it is
    read, through ``by_name[name]``, ``by_opcode[op]``, :meth:`variants`, :meth:`select` or iteration.
    A command that decodes one bundle compiles one format, not every layout's. ``layouts`` and
    ``ops`` answer from the records without compiling anything.

    Adding a layout needs nothing here: declare its record in a module of :mod:`tongasm.isa.layouts`
    and list the module's builders there (or :func:`tongasm.isa.layouts.register` one); the sets
    built afterwards include it, compiled on first use like every other. ``tongasm formats`` and the
    test suite (``tests/test_formats.py``) compile every layout, so a layout whose fields overlap
    fails there.
    """

    def __init__(self, decisions: DecisionSet, builders: tuple[_layouts.Builder, ...] | None = None) -> None:
        self.decisions = decisions
        records = list(_layouts.layouts(decisions, builders))
        #: every opcode with a layout, by byte
        self.ops: dict[int, Op] = {}
        for layout in records:
            for o in layout.opcodes:
                if self.ops.setdefault(o.byte, o) is not o:
                    raise ValueError(f"opcode {o.byte:#04x} declared twice ({self.ops[o.byte].mnemonic}, {o.mnemonic})")
        #: every layout record, by name, in declaration order (nothing compiled)
        self.layouts: dict[str, Layout] = {}
        #: the names of each opcode's layouts, in match order
        self._names_of: dict[int, list[str]] = {}
        for layout in records:
            if layout.name in self.layouts:
                raise ValueError(f"layout {layout.name!r} declared twice")
            self.layouts[layout.name] = layout
            for o in layout.opcodes:
                self._names_of.setdefault(o.byte, []).append(layout.name)
        self._opcode_names = opcode_table(self.ops.values())
        #: the codec of each layout, by name (compiled on first read)
        self.by_name: Mapping[str, Format] = _Lazy(self.layouts, self._compile)
        #: each opcode's codecs, in match order (compiled on first read)
        self.by_opcode: Mapping[int, list[Format]] = _Lazy(
            self._names_of, lambda op: [self.by_name[n] for n in self._names_of[op]])

    def _compile(self, name: str) -> Format:
        return compile_layout(self.layouts[name], self.decisions, self._opcode_names)

    def layout_names(self) -> Mapping[int, list[str]]:
        """The names of each opcode's layouts, in match order (from the records: nothing compiled)."""
        return self._names_of

    def variants(self, opcode: int) -> list[Format]:
        """The layouts of an opcode, in match order (empty if tongasm does not know it)."""
        return self.by_opcode.get(opcode, [])

    def mnemonic(self, fmt: Format | Layout, opcode: int) -> str:
        """The listing mnemonic of an opcode in a layout: the opcode's name, plus ``.variant`` when the
        opcode has several layouts (``Move.imm64``)."""
        if isinstance(fmt, Format):
            layout, m = fmt.layout, fmt.opcodes[opcode]
        else:
            layout, m = fmt, next(o.mnemonic for o in fmt.opcodes if o.byte == opcode)
        if len(self._names_of.get(opcode, ())) > 1 and layout.variant:
            m += "." + layout.variant
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
