"""Compare two programs bundle by bundle: ``tongasm diff A B`` and its Python form.

A side of the comparison (:class:`Side`) is a set of named bundle streams with the target they are
for, and, for a whole NEFF, its members that are not streams. The three inputs the command reads all
become a side: a raw bundle stream (one stream named by its file stem), a listing (assembled first, one
stream per ``.stream``) and a NEFF (every engine stream of every graph, ``sg00.pe``, or the one a
selector picks). Two sides are matched stream by stream (by name; two single-stream sides are compared
whatever their names), and two streams bundle by bundle by index. A bundle that differs is decoded on
both sides through the layout declarations and reported by the fields that differ; a bundle that does
not decode on either side (no layout for its opcode) is reported byte by byte, and so are bytes of two
decoded bundles that no field of the layout explains. Bundles past the end of the shorter stream are
added (only in B) or removed (only in A).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE
from ..isa.formats import FormatSet, build_formats
from ..isa.opcodes import opcode_name


@dataclass
class Side:
    """One input of a comparison: where it came from, what kind it is, its target and its streams.

    ``members`` holds a whole NEFF's members other than its engine streams (None for any other input):
    those are compared byte for byte, by member path."""

    label: str
    kind: str  # "stream", "listing" or "neff"
    target: str
    streams: dict[str, bytes | memoryview]
    members: dict[str, bytes] | None = None


@dataclass(frozen=True)
class FieldChange:
    """One field (or, for bundles compared byte by byte, one byte ``byte+0x12``) that differs.
    ``a``/``b`` are None where that side's layout has no such field."""

    name: str
    a: int | None
    b: int | None
    a_text: str | None = None  # the enum name of the value, when the field has one
    b_text: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "a": self.a, "b": self.b}
        if self.a_text or self.b_text:
            out.update(a_name=self.a_text, b_name=self.b_text)
        return out

    def line(self) -> str:
        """``name: a -> b``, with enum names in parentheses."""
        return f"{self.name}: {_value(self.name, self.a, self.a_text)} -> {_value(self.name, self.b, self.b_text)}"


def _value(name: str, v: int | None, text: str | None) -> str:
    if v is None:
        return "(absent)"
    if name.startswith("byte+"):
        return f"{v:#04x}"
    notes = ([] if -10 < v < 10 else [f"{v:#x}"]) + ([text] if text else [])
    return f"{v} ({', '.join(notes)})" if notes else str(v)


@dataclass(frozen=True)
class BundleChange:
    """A bundle at the same index on both sides whose bytes differ."""

    index: int
    offset: int
    a_mnemonic: str
    b_mnemonic: str
    a_layout: str | None  # None: the bundle does not decode on that side
    b_layout: str | None
    by_bytes: bool  # compared byte by byte (a side does not decode, or no field explains the change)
    fields: tuple[FieldChange, ...]

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "offset": self.offset, "a": {"mnemonic": self.a_mnemonic, "layout": self.a_layout},
                "b": {"mnemonic": self.b_mnemonic, "layout": self.b_layout}, "by_bytes": self.by_bytes,
                "fields": [f.to_json() for f in self.fields]}


@dataclass
class StreamDiff:
    """The comparison of one stream: the changed bundles, and the bundles only one side has."""

    name: str
    a_name: str | None  # the stream's name on each side (None: the side has no such stream)
    b_name: str | None
    a_bundles: int
    b_bundles: int
    changed: list[BundleChange] = field(default_factory=list)

    @property
    def removed(self) -> int:
        """Bundles at the end of A that B does not have."""
        return max(0, self.a_bundles - self.b_bundles)

    @property
    def added(self) -> int:
        """Bundles at the end of B that A does not have."""
        return max(0, self.b_bundles - self.a_bundles)

    @property
    def identical(self) -> bool:
        return self.a_name is not None and self.b_name is not None and not self.changed and not self.removed \
            and not self.added

    def to_json(self) -> dict[str, Any]:
        return {"stream": self.name, "a": self.a_name, "b": self.b_name, "a_bundles": self.a_bundles,
                "b_bundles": self.b_bundles, "identical": self.identical,
                "changed": [c.to_json() for c in self.changed],
                "removed": ({"from_index": self.b_bundles, "count": self.removed} if self.removed else None),
                "added": ({"from_index": self.a_bundles, "count": self.added} if self.added else None)}


@dataclass
class Diff:
    """The comparison of two sides: per-stream results, target and member differences."""

    a: Side
    b: Side
    streams: list[StreamDiff]
    members_changed: list[str] = field(default_factory=list)
    members_removed: list[str] = field(default_factory=list)  # only in A
    members_added: list[str] = field(default_factory=list)  # only in B

    @property
    def identical(self) -> bool:
        return (self.a.target == self.b.target and all(s.identical for s in self.streams)
                and not (self.members_changed or self.members_removed or self.members_added))

    def counts(self) -> dict[str, int]:
        return {"streams": len(self.streams), "streams_differing": sum(not s.identical for s in self.streams),
                "bundles_a": sum(s.a_bundles for s in self.streams),
                "bundles_b": sum(s.b_bundles for s in self.streams),
                "bundles_changed": sum(len(s.changed) for s in self.streams),
                "bundles_removed": sum(s.removed for s in self.streams),
                "bundles_added": sum(s.added for s in self.streams),
                "members_differing": len(self.members_changed) + len(self.members_removed) + len(self.members_added)}

    def summary(self) -> str:
        """The one-line summary the command ends with."""
        c = self.counts()
        if self.identical:
            return (f"identical: {_plural(c['streams'], 'stream')}, {_plural(c['bundles_a'], 'bundle')}"
                    + (", every member equal" if self.a.members is not None and self.b.members is not None else ""))
        n = c["streams_differing"]
        parts = [f"{n} of {_plural(c['streams'], 'stream')} differ{'s' * (c['streams'] == 1)}",
                 f"{_plural(c['bundles_changed'], 'bundle')} changed",
                 f"{c['bundles_removed']} removed", f"{c['bundles_added']} added"]
        if c["members_differing"]:
            parts.append(f"{_plural(c['members_differing'], 'other member')} differ")
        if self.a.target != self.b.target:
            parts.append(f"target {self.a.target} -> {self.b.target}")
        return "different: " + ", ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {"a": {"input": self.a.label, "kind": self.a.kind, "target": self.a.target},
                "b": {"input": self.b.label, "kind": self.b.kind, "target": self.b.target},
                "identical": self.identical, "summary": self.summary(), "counts": self.counts(),
                "streams": [s.to_json() for s in self.streams],
                "members": {"changed": self.members_changed, "removed": self.members_removed,
                            "added": self.members_added} if self.a.members is not None or self.b.members is not None
                else None}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


# --- comparing --------------------------------------------------------------------------------------------

def _decode(raw: bytes, fs: FormatSet) -> tuple[Any, dict[str, int]] | None:
    return fs.select(raw[0], raw)


def compare_bundles(a: bytes, b: bytes, index: int = 0, *, formats: FormatSet | None = None,
                    decisions: DecisionSet = DEFAULT_DECISIONS) -> BundleChange | None:
    """Compare two 64-byte bundles: None when equal, else what differs (fields when both decode,
    bytes otherwise, and bytes no field of the layout covers)."""
    if a == b:
        return None
    fs = formats or build_formats(decisions)
    da, db = _decode(a, fs), _decode(b, fs)
    changes: list[FieldChange] = []
    by_bytes = da is None or db is None
    if da is not None and db is not None:
        (fa, va), (fb, vb) = da, db
        enums = {f.name: f.enum for f in fa.fields if f.enum is not None}
        enums.update({f.name: f.enum for f in fb.fields if f.enum is not None and f.name not in enums})
        names = [f.name for f in fa.fields] + [f.name for f in fb.fields if f.name not in va]
        for n in names:
            x, y = va.get(n), vb.get(n)
            if x != y:
                e = enums.get(n)
                changes.append(FieldChange(n, x, y, e.name_of(x) if e and x is not None else None,
                                           e.name_of(y) if e and y is not None else None))
        if not changes:  # bytes no field explains (reserved or unexplained)
            by_bytes = True
    if by_bytes:
        changes += [FieldChange(f"byte+{i:#04x}", a[i], b[i]) for i in range(BUNDLE_SIZE) if a[i] != b[i]]

    def mnemonic(raw: bytes, d: tuple[Any, dict[str, int]] | None) -> str:
        return opcode_name(raw[0]) if d is None else str(d[0].opcodes.get(raw[0], opcode_name(raw[0])))

    return BundleChange(index, index * BUNDLE_SIZE, mnemonic(a, da), mnemonic(b, db),
                        None if da is None else da[0].name, None if db is None else db[0].name, by_bytes,
                        tuple(changes))


def diff_streams(a: bytes | memoryview, b: bytes | memoryview, name: str = "stream", *,
                 decisions: DecisionSet = DEFAULT_DECISIONS, a_name: str | None = None,
                 b_name: str | None = None) -> StreamDiff:
    """Compare two bundle streams bundle by bundle (each a whole number of 64-byte bundles)."""
    for what, data in (("A", a), ("B", b)):
        if len(data) % BUNDLE_SIZE:
            raise InputError(f"stream {name} of {what} has {len(data)} bytes, not a whole number of bundles")
    out = StreamDiff(name, a_name or name, b_name or name, len(a) // BUNDLE_SIZE, len(b) // BUNDLE_SIZE)
    if memoryview(a) == memoryview(b):  # no copy of a memory-mapped stream
        return out
    fs = build_formats(decisions)
    ma, mb = memoryview(a), memoryview(b)
    for i in range(min(out.a_bundles, out.b_bundles)):
        at = i * BUNDLE_SIZE
        x, y = ma[at:at + BUNDLE_SIZE], mb[at:at + BUNDLE_SIZE]
        if x != y:
            c = compare_bundles(bytes(x), bytes(y), i, formats=fs)
            if c is not None:
                out.changed.append(c)
    return out


def match_streams(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[tuple[str, str | None, str | None]]:
    """Pairs of stream names to compare: ``(shown name, name in A, name in B)``. Two single-stream
    sides pair whatever their names; otherwise by name, A's order first, then B's streams A lacks."""
    if len(a) == 1 and len(b) == 1:
        (na,), (nb,) = a, b
        return [(na if na == nb else f"{na} / {nb}", na, nb)]
    pairs: list[tuple[str, str | None, str | None]] = [(n, n, n if n in b else None) for n in a]
    pairs += [(n, None, n) for n in b if n not in a]
    return pairs


def diff_sides(a: Side, b: Side, *, decisions: DecisionSet = DEFAULT_DECISIONS) -> Diff:
    """Compare two sides stream by stream (and, for two whole NEFFs, their other members)."""
    streams = []
    for shown, na, nb in match_streams(a.streams, b.streams):
        if na is None or nb is None:
            da = a.streams[na] if na is not None else b""
            db = b.streams[nb] if nb is not None else b""
            streams.append(StreamDiff(shown, na, nb, len(da) // BUNDLE_SIZE, len(db) // BUNDLE_SIZE))
        else:
            streams.append(diff_streams(a.streams[na], b.streams[nb], shown, decisions=decisions, a_name=na,
                                        b_name=nb))
    d = Diff(a, b, streams)
    if a.members is not None and b.members is not None:
        d.members_changed = [m for m in a.members if m in b.members and a.members[m] != b.members[m]]
        d.members_removed = [m for m in a.members if m not in b.members]
        d.members_added = [m for m in b.members if m not in a.members]
    return d


# --- reading the inputs -----------------------------------------------------------------------------------

def stream_side(label: str, name: str, data: bytes | memoryview, target: str) -> Side:
    """A raw bundle stream as a side (one stream named ``name``)."""
    if len(data) % BUNDLE_SIZE:
        n = len(data)
        raise InputError(f"{label} has {n} bytes, which is not a whole number of {BUNDLE_SIZE}-byte bundles: "
                         "not a bundle stream")
    return Side(label, "stream", target, {name: data})


def listing_side(path: str, *, decisions: DecisionSet | None = None, target: str | None = None) -> Side:
    """A listing (the text ``tongasm disasm`` prints), assembled with :mod:`tongasm.text.assembler`:
    one stream per ``.stream``; ``target`` overrides the file's ``.target`` (as ``tongasm asm`` does)."""
    from ..text.assembler import assemble_file

    prog = assemble_file(path, decisions=decisions, target=target)
    return Side(path, "listing", prog.target.name, {n: bytes(d) for n, d in prog.streams.items()})


def neff_side(spec: str) -> Side:
    """A NEFF (``FILE.neff``, or ``FILE.neff:sg00``, ``FILE.neff:sg00/pe``) as a side: its engine
    streams by ``.stream`` name; a whole NEFF also brings its other members."""
    from .select import resolve_selector

    sel = resolve_selector(spec, names=False)
    if sel.selector.bundle_offset is not None:
        raise InputError(f"{spec}: diff compares streams, not one bundle; drop the bundle index")
    streams: dict[str, bytes | memoryview] = {ns.name: ns.data for ns in sel.streams}
    members = None
    if sel.selector.graph is None:
        instr = {s.member for s in sel.neff.streams()}
        members = {m: d for m, d in sel.neff.members.items() if m not in instr}
    return Side(spec, "neff", sel.target.name, streams, members)


# --- text ---------------------------------------------------------------------------------------------------

def render_text(d: Diff) -> Iterator[str]:
    """The lines of the text report (without newlines): per differing stream, each changed bundle with
    its index, offset, both mnemonics and the fields that differ; then the bundles only one side has;
    then the members; the last line is :meth:`Diff.summary`."""
    yield f"--- {d.a.label} ({d.a.kind}, {d.a.target})"
    yield f"+++ {d.b.label} ({d.b.kind}, {d.b.target})"
    for s in d.streams:
        if s.identical:
            continue
        if s.a_name is None or s.b_name is None:
            side, n = ("B", s.b_bundles) if s.a_name is None else ("A", s.a_bundles)
            yield f"== {s.name}: only in {side} ({_plural(n, 'bundle')})"
            continue
        yield f"== {s.name}: {s.a_bundles} -> {_plural(s.b_bundles, 'bundle')}, {len(s.changed)} changed"
        for c in s.changed:
            mn = c.a_mnemonic if c.a_mnemonic == c.b_mnemonic else f"{c.a_mnemonic} -> {c.b_mnemonic}"
            how = " (bytes)" if c.by_bytes else ""
            yield f"  #{c.index} @{c.offset:#x}  {mn}{how}"
            for f in c.fields:
                yield f"      {f.line()}"
        if s.removed:
            yield (f"  removed: {_plural(s.removed, 'bundle')} at the end of A (#{s.b_bundles}..#{s.a_bundles - 1}, "
                   f"@{s.b_bundles * BUNDLE_SIZE:#x})")
        if s.added:
            yield (f"  added: {_plural(s.added, 'bundle')} at the end of B (#{s.a_bundles}..#{s.b_bundles - 1}, "
                   f"@{s.a_bundles * BUNDLE_SIZE:#x})")
    for what, names in (("changed", d.members_changed), ("only in A", d.members_removed),
                        ("only in B", d.members_added)):
        for m in names:
            yield f"== member {m}: {what}"
    yield d.summary()


__all__ = ["BundleChange", "Diff", "FieldChange", "Side", "StreamDiff", "compare_bundles", "diff_sides",
           "diff_streams", "listing_side", "match_streams", "neff_side", "render_text", "stream_side"]
