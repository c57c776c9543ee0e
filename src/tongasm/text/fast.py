"""The fast listing: the same text as :mod:`tongasm.text.listing`, for whole streams at speed.

The stream is decoded into numpy columns (:func:`tongasm.decode.batch.decode_stream`); each layout's
bundles are rendered from rows of plain ints with the *same* operand renderers as the reference
path (:mod:`tongasm.text.syntax`), memoised per operand on the fields it reads, so a repeated access
pattern or register is formatted once. Bytes columns, "more bytes" markers and unexplained-byte
patches are worked out with numpy for the whole group at once. A property test keeps this path's
output identical to the reference listing.
"""

from __future__ import annotations

import operator
from typing import Callable, Iterable, Iterator

import numpy as np

from ..decode.batch import StreamColumns, as_uint8, decode_stream
from ..decode.bundle import why_undecodable
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import DEFAULT_TARGET, Target
from .listing import HEAD_BYTES, StreamInput, header_lines
from .syntax import (
    ApOp, Ctx, ImmOp, Operand, Template, default_value, generic_text, patch_text, render_sync, template_for,
)

_SYNC = ("wait_mode", "wait_idx", "update_mode", "update_idx", "sync_value")
CACHE_LIMIT = 200_000  # entries per operand before a memo is cleared (bounded memory on unique streams)


def _reads(op: Operand, fmt: Format) -> tuple[str, ...]:
    """The fields an operand's text depends on (what it claims, plus what it reads besides)."""
    extra: tuple[str, ...] = ()
    if isinstance(op, ApOp) and "num_partitions" in fmt.field_map:
        extra = ("num_partitions",)
    elif isinstance(op, ImmOp) and op.dt and not op.claim_dt:
        extra = (op.dt,)
    names = list(op.claims) + [e for e in extra if e not in op.claims]
    return tuple(names)


class FastTemplate:
    """A format's template compiled for rows of ints (in ``fmt.fields`` order)."""

    def __init__(self, fmt: Format, mnemonic: str, ds: DecisionSet) -> None:
        self.fmt, self.mnemonic, self.ds = fmt, mnemonic, ds
        tpl: Template = template_for(fmt)
        self.tpl = tpl
        pos = {f.name: i for i, f in enumerate(fmt.fields)}
        # (getter, memo, render): a memo maps the fields an operand reads to its text ("" = left out)
        self.ops: list[tuple[Callable[[tuple[int, ...]], object], dict[object, str], Callable[[object], str]]] = []
        claimed = {"opcode", *_SYNC}
        for op in tpl.operands:
            reads = _reads(op, fmt)
            self.ops.append((operator.itemgetter(*[pos[r] for r in reads]), {}, self._renderer(op, reads)))
            claimed.update(op.claims)
        # fields left to "field=value" when they differ from the parser's default
        self.leftover = [(f, pos[f.name]) for f in fmt.fields if f.name not in claimed]
        self.has_sync = "wait_mode" in fmt.field_map
        self.sync_get = operator.itemgetter(*[pos[n] for n in _SYNC]) if self.has_sync else None
        self.sync_memo: dict[tuple[int, ...], tuple[str | None, list[str]]] = {}

    def _renderer(self, op: Operand, reads: tuple[str, ...]) -> Callable[[object], str]:
        fmt, ds, name, tpl = self.fmt, self.ds, op.name, self.tpl

        def render(key: object) -> str:
            values = dict(zip(reads, key if isinstance(key, tuple) else (key,)))
            if op.optional and all(values[c] == default_value(fmt, fmt.field_map[c], values, tpl) for c in op.claims):
                return ""
            return f"{name}={op.render(Ctx(fmt, ds, values))}"

        return render

    def defaults_differ(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Per row: does any left-over field differ from its default (vectorised)?"""
        n = len(columns["opcode"])
        flag = np.zeros(n, dtype=bool)
        for f, _i in self.leftover:
            if f.name in self.tpl.derived:
                d = self.tpl.derived[f.name](columns)
            else:
                d = default_value(self.fmt, f, {}, self.tpl)
            flag |= columns[f.name] != d
        return flag

    def sync_present(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        n = len(columns["opcode"])
        if not self.has_sync:
            return np.zeros(n, dtype=bool)
        flag = np.zeros(n, dtype=bool)
        for name in _SYNC:
            flag |= columns[name] != 0
        return flag

    def line_body(self, row: tuple[int, ...], leftovers: bool, sync: bool, raw: bytes | None) -> str:
        """The instruction text of one bundle (``raw`` only when it has unexplained bytes)."""
        items: list[str] = []
        for getter, memo, render in self.ops:
            key = getter(row)
            t = memo.get(key)
            if t is None:
                if len(memo) >= CACHE_LIMIT:
                    memo.clear()
                t = memo[key] = render(key)
            if t:
                items.append(t)
        if leftovers:
            fields = {x.name: row[k] for k, x in enumerate(self.fmt.fields)}
            for f, i in self.leftover:
                if row[i] != default_value(self.fmt, f, fields, self.tpl):
                    items.append(generic_text(f, row[i]))
        if sync:
            assert self.sync_get is not None
            skey = self.sync_get(row)
            hit = self.sync_memo.get(skey)
            if hit is None:
                vals = dict(zip(_SYNC, skey))
                text, claimed = render_sync(vals, self.ds)
                extra = [generic_text(self.fmt.field_map[n], vals[n]) for n in _SYNC if n not in claimed]
                hit = self.sync_memo[skey] = (text, extra)
            items.extend(hit[1])
            if hit[0]:
                items.append(hit[0])
        if raw is not None:
            items.extend(patch_text(self.fmt, raw))
        return self.mnemonic + (" " + ", ".join(items) if items else "")


_TEMPLATES: dict[tuple[Format, int, DecisionSet], FastTemplate] = {}


def fast_template(fmt: Format, opcode: int, fs: FormatSet, ds: DecisionSet) -> FastTemplate:
    key = (fmt, opcode, ds)
    t = _TEMPLATES.get(key)
    if t is None:
        m = fmt.opcodes[opcode]
        if len(fs.variants(opcode)) > 1:
            m += "." + fmt.name.split(".", 1)[1]
        t = _TEMPLATES[key] = FastTemplate(fmt, m, ds)
    return t


def _unexplained(fmt: Format, data2d: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Which bundles of a group have bits outside every field (vectorised)."""
    inv = np.frombuffer(bytes((~b) & 0xFF for b in fmt.covered_mask()), dtype=np.uint8)
    cols = np.flatnonzero(inv)
    if len(cols) == 0:
        return np.zeros(len(index), dtype=bool)
    sub = data2d[index][:, cols] & inv[cols]
    return sub.any(axis=1)


def stream_bodies(data: bytes | bytearray | memoryview | np.ndarray, *, decisions: DecisionSet = DEFAULT_DECISIONS,
                  cols: StreamColumns | None = None) -> list[str]:
    """The instruction text of every bundle of a stream, in order (``.bytes ...`` for undecodable ones)."""
    arr = as_uint8(data)
    fs = build_formats(decisions)
    cols = cols or decode_stream(arr, decisions=decisions)
    n = cols.count
    out: list[str] = [""] * n
    data2d = arr.reshape(n, BUNDLE_SIZE) if n else arr.reshape(0, BUNDLE_SIZE)
    for name, g in cols.groups.items():
        fmt = g.fmt
        lists = [g.fields[f.name].tolist() for f in fmt.fields]
        odd_set = set(np.flatnonzero(_unexplained(fmt, data2d, g.index)).tolist())
        first = fast_template(fmt, int(g.fields["opcode"][0]), fs, decisions)
        left = first.defaults_differ(g.fields).tolist()
        sync = first.sync_present(g.fields).tolist()
        templates: dict[int, FastTemplate] = {}
        index = g.index.tolist()
        for k, row in enumerate(zip(*lists)):
            op = row[0]
            t = templates.get(op)
            if t is None:
                t = templates[op] = fast_template(fmt, op, fs, decisions)
            raw = bytes(data2d[index[k]]) if k in odd_set else None
            out[index[k]] = t.line_body(row, left[k], sync[k], raw)
    for i in cols.undecodable.tolist():
        raw = bytes(data2d[i])
        out[i] = f".bytes {raw.hex()}  ; {why_undecodable(raw, fs)}"
    return out


def stream_lines(data: bytes | bytearray | memoryview | np.ndarray, *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 full_bytes: bool = False) -> list[str]:
    """The listing lines of one stream (offset, bytes column, instruction), fast path."""
    arr = as_uint8(data)
    if arr.size % BUNDLE_SIZE:
        from ..decode.bundle import check_stream_length

        check_stream_length(arr.size)
    n = arr.size // BUNDLE_SIZE
    bodies = stream_bodies(arr, decisions=decisions)
    rows = arr.reshape(n, BUNDLE_SIZE)
    if full_bytes:
        width = 16 * 9
        cols = rows.tobytes().hex(" ", 4) + " "
        head = [f"|{cols[i * width:(i + 1) * width - 1]}|" for i in range(n)]
    else:
        width = 4 * 9
        cols = np.ascontiguousarray(rows[:, :HEAD_BYTES]).tobytes().hex(" ", 4) + " "
        more = rows[:, HEAD_BYTES:].any(axis=1).tolist() if n else []
        head = [f"|{cols[i * width:(i + 1) * width - 1]}{' …' if more[i] else '  '}|" for i in range(n)]
    return [f"{i * BUNDLE_SIZE:08x}:  {body}" if body[0] == "." else f"{i * BUNDLE_SIZE:08x}:  {head[i]}  {body}"
            for i, body in enumerate(bodies)]


def fast_listing(streams: Iterable[StreamInput], *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 target: Target = DEFAULT_TARGET, full_bytes: bool = False) -> Iterator[str]:
    """Same lines as :func:`tongasm.text.listing.listing`, for large streams."""
    yield from header_lines(target, decisions)
    for s in streams:
        yield f".stream {s.name}"
        yield from stream_lines(s.data, decisions=decisions, full_bytes=full_bytes)

