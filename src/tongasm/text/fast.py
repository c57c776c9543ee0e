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

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from ..decode.batch import StreamColumns, as_uint8, decode_stream
from ..decode.bundle import why_undecodable
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import DEFAULT_TARGET, Target
from .listing import HEAD_BYTES, StreamInput, bir_comment, header_lines
from .syntax import (
    ApOp, Ctx, ImmOp, Operand, Template, default_value, generic_text, patch_text, render_sync, template_for,
)

CACHE_LIMIT = 200_000  # entries per operand before a memo is cleared (bounded memory on unique streams)


def _reads(op: Operand, fmt: Format) -> tuple[str, ...]:
    """The fields an operand's text depends on (what it claims, plus what it reads besides)."""
    extra: tuple[str, ...] = ()
    if isinstance(op, ApOp) and op.slot.parts_field in fmt.field_map:
        extra = (op.slot.parts_field,)
    elif isinstance(op, ImmOp) and op.dt and not op.claim_dt:
        extra = (op.dt,)
    names = list(op.claims) + [e for e in extra if e not in op.claims]
    return tuple(names)


def _byte_spans(fmt: Format, names: Iterable[str]) -> np.ndarray:
    """The bundle byte offsets that the named fields occupy, ascending."""
    return np.array(sorted({b for n in names for b in range(fmt.field_map[n].offset,
                                                            fmt.field_map[n].offset + fmt.field_map[n].size)}),
                    dtype=np.intp)


class FastTemplate:
    """A format's template compiled for rows of ints (in ``fmt.fields`` order)."""

    def __init__(self, fmt: Format, mnemonic: str, ds: DecisionSet) -> None:
        self.fmt, self.mnemonic, self.ds = fmt, mnemonic, ds
        tpl: Template = template_for(fmt)
        self.tpl = tpl
        pos = {f.name: i for i, f in enumerate(fmt.fields)}
        # (getter, memo, render): a memo maps the fields an operand reads to its text ("" = left out)
        # (positions of the fields read, memo, render); memo values are ", name=value" or "" (left out)
        # and the bundle bytes those fields live in (a multi-field operand is memoised on its bytes)
        self.ops: list[tuple[tuple[int, ...], np.ndarray, dict[object, str], Callable[[object], str]]] = []
        self.sync_names: tuple[str, ...] = fmt.sync.fields if fmt.sync is not None else ()
        claimed = {"opcode", *self.sync_names}
        for op in tpl.operands:
            reads = _reads(op, fmt)
            self.ops.append((tuple(pos[r] for r in reads), _byte_spans(fmt, reads), {}, self._renderer(op, reads)))
            claimed.update(op.claims)
        # fields left to "field=value" when they differ from the parser's default
        self.leftover = [(f, pos[f.name]) for f in fmt.fields if f.name not in claimed]
        self.has_sync = fmt.sync is not None
        self.pos = pos
        self.sync_spans = _byte_spans(fmt, self.sync_names) if self.has_sync else np.zeros(0, dtype=np.intp)
        self.sync_memo: dict[bytes, str] = {}

    def _renderer(self, op: Operand, reads: tuple[str, ...]) -> Callable[[object], str]:
        fmt, ds, name, tpl = self.fmt, self.ds, op.name, self.tpl

        def render(key: object) -> str:
            values = dict(zip(reads, key if isinstance(key, tuple) else (key,)))
            if op.optional and all(values[c] == default_value(fmt, fmt.field_map[c], values, tpl) for c in op.claims):
                return ""
            return f", {name}={op.render(Ctx(fmt, ds, values))}"

        return render

    def defaults_differ(self, columns: dict[str, np.ndarray]) -> np.ndarray:
        """Per row: does any left-over field differ from its default (vectorised)?"""
        n = len(columns["opcode"])
        flag = np.zeros(n, dtype=bool)
        for f, _i in self.leftover:
            if f.name in self.tpl.derived:  # on Python ints: a product of dims must not wrap like numpy's
                d = self.tpl.derived[f.name](_ExactColumns(columns))  # type: ignore[arg-type]
            else:
                d = default_value(self.fmt, f, {}, self.tpl)
            flag |= columns[f.name] != d
        return flag

    def operand_columns(self, lists: _Columns, rows: np.ndarray) -> list[list[str]]:
        """Per operand, the text of every row of a group (", name=value" or ""), memoised.

        A one-field operand is keyed on its value; a wider one on the bytes its fields occupy (as a
        fixed-width ``S`` view, which is injective and hashes in C), so no per-row tuple is built.
        """
        out = []
        for positions, spans, memo, render in self.ops:
            if len(positions) == 1:
                keys: list = lists[positions[0]]
            else:
                keys = np.ascontiguousarray(rows[:, spans]).view(f"S{len(spans)}").ravel().tolist()
            if len(memo) >= CACHE_LIMIT:
                memo.clear()
            col: list[str | None] = list(map(memo.get, keys))
            if None in col:
                for k, key in enumerate(keys):
                    if col[k] is None:
                        t = memo.get(key)
                        if t is None:
                            values = tuple(lists[p][k] for p in positions)
                            t = memo[key] = render(values if len(values) > 1 else values[0])
                        col[k] = t
            out.append(col)
        return out  # type: ignore[return-value]  # no None is left

    def leftover_text(self, row: tuple[int, ...]) -> str:
        """", field=value" for each left-over field of a row that differs from its default."""
        fields = {x.name: row[k] for k, x in enumerate(self.fmt.fields)}
        return "".join(", " + generic_text(f, row[i]) for f, i in self.leftover
                       if row[i] != default_value(self.fmt, f, fields, self.tpl))

    def sync_column(self, lists: _Columns, rows: np.ndarray) -> list[str]:
        """The sync band of every row (", wait ... / upd ..." or ""), memoised on its bytes."""
        if not self.has_sync:
            return []
        keys = np.ascontiguousarray(rows[:, self.sync_spans]).view(f"S{len(self.sync_spans)}").ravel().tolist()
        col: list[str | None] = list(map(self.sync_memo.get, keys))
        if None in col:
            names = self.sync_names
            pos = [self.pos[n] for n in names]
            for k, key in enumerate(keys):
                if col[k] is None:
                    t = self.sync_memo.get(key)
                    if t is None:
                        vals = {n: lists[p][k] for n, p in zip(names, pos)}
                        text, claimed = render_sync(vals, self.ds, self.fmt.sync)  # type: ignore[arg-type]
                        items = [generic_text(self.fmt.field_map[n], vals[n]) for n in names if n not in claimed]
                        items += [text] if text else []
                        t = self.sync_memo[key] = "".join(", " + i for i in items)
                    col[k] = t
        return col  # type: ignore[return-value]  # no None is left


class _ExactColumns:
    """Columns read (``get``) as object arrays of Python ints, for the derived defaults."""

    def __init__(self, columns: dict[str, np.ndarray]) -> None:
        self.columns = columns

    def get(self, name: str, default: object = None) -> object:
        col = self.columns.get(name)
        return default if col is None else col.astype(object)


class _Columns:
    """A group's field columns as Python lists, converted on first use (most are never needed)."""

    def __init__(self, fmt: Format, fields: dict[str, np.ndarray]) -> None:
        self.names = [f.name for f in fmt.fields]
        self.fields = fields
        self.cache: dict[int, list[int]] = {}

    def __getitem__(self, i: int) -> list[int]:
        col = self.cache.get(i)
        if col is None:
            col = self.cache[i] = self.fields[self.names[i]].tolist()
        return col

    def row(self, k: int) -> tuple[int, ...]:
        return tuple(self[i][k] for i in range(len(self.names)))


_TEMPLATES: dict[tuple[Format, int, DecisionSet], FastTemplate] = {}


def fast_template(fmt: Format, opcode: int, fs: FormatSet, ds: DecisionSet) -> FastTemplate:
    key = (fmt, opcode, ds)
    t = _TEMPLATES.get(key)
    if t is None:
        t = _TEMPLATES[key] = FastTemplate(fmt, fs.mnemonic(fmt, opcode), ds)
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
    return _bodies(data, decisions, cols)[0]


def _bodies(data: bytes | bytearray | memoryview | np.ndarray, decisions: DecisionSet,
            cols: StreamColumns | None = None) -> tuple[list[str], list[int]]:
    """stream_bodies, and the indexes of the undecodable bundles."""
    arr = as_uint8(data)
    fs = build_formats(decisions)
    cols = cols or decode_stream(arr, decisions=decisions)
    n = cols.count
    out = np.empty(n, dtype=object)
    data2d = arr.reshape(n, BUNDLE_SIZE) if n else arr.reshape(0, BUNDLE_SIZE)
    for g in cols.groups.values():
        fmt = g.fmt
        lists = _Columns(fmt, g.fields)
        rows = data2d[g.index]
        opcodes = lists[0]
        first = fast_template(fmt, opcodes[0], fs, decisions)
        parts = first.operand_columns(lists, rows)
        left = np.flatnonzero(first.defaults_differ(g.fields)).tolist()
        if left:  # non-default left-over fields, after the operands
            col = [""] * len(g)
            for k in left:
                col[k] = first.leftover_text(lists.row(k))
            parts.append(col)
        sync = first.sync_column(lists, rows)
        if sync:
            parts.append(sync)
        odd = np.flatnonzero(_unexplained(fmt, data2d, g.index)).tolist()
        if odd:  # unexplained bytes, patched in last
            col = [""] * len(g)
            for k in odd:
                col[k] = "".join(", " + t for t in patch_text(fmt, bytes(rows[k])))
            parts.append(col)
        ops = set(opcodes)
        mnemonics = {op: fast_template(fmt, op, fs, decisions).mnemonic for op in ops}
        bodies = np.empty(len(g), dtype=object)
        if not parts:
            bodies[:] = [mnemonics[op] for op in opcodes]
        else:  # "Mnemonic, a=1, b=2" with its first ", " made a space; a row without operands keeps the mnemonic
            lead = [mnemonics[opcodes[0]]] * len(g) if len(ops) == 1 else [mnemonics[op] for op in opcodes]
            texts = list(map("".join, zip(lead, *parts)))
            bodies[:] = [t.replace(", ", " ", 1) for t in texts]
        out[g.index] = bodies
    bad = cols.undecodable.tolist()
    for i in bad:
        raw = bytes(data2d[i])
        out[i] = f".bytes {raw.hex()}  ; {why_undecodable(raw, fs)}"
    return out.tolist(), bad


def stream_lines(data: bytes | bytearray | memoryview | np.ndarray, *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 full_bytes: bool = False, base: int = 0,
                 bir_names: Sequence[str | None] | None = None) -> list[str]:
    """The listing lines of one stream (offset, bytes column, instruction), fast path.

    ``base`` is the byte offset of ``data`` in its stream (a multiple of 64), for listing a large
    stream chunk by chunk: the lines are those the whole stream would have at that offset.
    ``bir_names`` (one per bundle of ``data``) ends each line with its BIR instruction's name.
    """
    lines = _stream_lines(data, decisions, full_bytes, base)
    if bir_names is not None:
        lines = [ln + bir_comment(nm) for ln, nm in zip(lines, bir_names)] + lines[len(bir_names):]
    return lines


def _stream_lines(data: bytes | bytearray | memoryview | np.ndarray, decisions: DecisionSet, full_bytes: bool,
                  base: int) -> list[str]:
    if base % BUNDLE_SIZE:
        raise ValueError(f"base must be a multiple of {BUNDLE_SIZE}, not {base}")
    first = base // BUNDLE_SIZE
    arr = as_uint8(data)
    if arr.size % BUNDLE_SIZE:
        from ..decode.bundle import check_stream_length

        check_stream_length(arr.size)
    n = arr.size // BUNDLE_SIZE
    bodies, bad = _bodies(arr, decisions)
    rows = arr.reshape(n, BUNDLE_SIZE)
    if base + n * BUNDLE_SIZE > 0xFFFFFFFF:  # offsets wider than 8 digits: the plain path
        return [_line(first + i, rows[i], b, full_bytes) for i, b in enumerate(bodies)]
    prefixes = _prefixes(rows, full_bytes, first)
    lines = list(map(operator.add, prefixes, bodies))
    for i in bad:  # an undecodable bundle's line has no bytes column (its .bytes directive holds them)
        lines[i] = f"{(first + i) * BUNDLE_SIZE:08x}:  {bodies[i]}"
    return lines


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8).astype(np.uint32)


def _prefixes(rows: np.ndarray, full_bytes: bool, first: int = 0) -> list[str]:
    """``"OOOOOOOO:  |hhhhhhhh hhhhhhhh ... …|  "`` for every row, built as one UCS-4 character matrix."""
    n = len(rows)
    nbytes = BUNDLE_SIZE if full_bytes else HEAD_BYTES
    hexw = nbytes // 4 * 9 - 1
    width = 8 + 3 + 1 + hexw + (0 if full_bytes else 2) + 1 + 2
    m = np.full((n, width), ord(" "), dtype=np.uint32)
    off = (np.arange(n, dtype=np.uint64) + np.uint64(first)) * np.uint64(BUNDLE_SIZE)
    for j in range(8):
        m[:, j] = _HEX[((off >> np.uint64(4 * (7 - j))) & np.uint64(15)).astype(np.intp)]
    m[:, 8] = ord(":")
    m[:, 11] = ord("|")
    b = rows[:, :nbytes]
    cols = 12 + np.arange(nbytes) * 2 + np.arange(nbytes) // 4  # first hex digit of each byte
    m[:, cols] = _HEX[b >> 4]
    m[:, cols + 1] = _HEX[b & 15]
    at = 12 + hexw
    if not full_bytes:
        more = rows[:, HEAD_BYTES:].any(axis=1)
        m[more, at + 1] = ord("…")
        at += 2
    m[:, at] = ord("|")
    return m.view(f"<U{width}").reshape(n).tolist() if n else []


def _line(i: int, row: np.ndarray, body: str, full_bytes: bool) -> str:
    if body[0] == ".":
        return f"{i * BUNDLE_SIZE:08x}:  {body}"
    raw = bytes(row)
    head = raw.hex(" ", 4) if full_bytes else raw[:HEAD_BYTES].hex(" ", 4) + (" …" if any(raw[HEAD_BYTES:]) else "  ")
    return f"{i * BUNDLE_SIZE:08x}:  |{head}|  {body}"


def fast_listing(streams: Iterable[StreamInput], *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 target: Target = DEFAULT_TARGET, full_bytes: bool = False) -> Iterator[str]:
    """Same lines as :func:`tongasm.text.listing.listing`, for large streams (listed in pieces of
    :data:`CHUNK` bundles, so the working set stays in cache and memory stays bounded)."""
    yield from header_lines(target, decisions)
    for s in streams:
        yield f".stream {s.name}"
        arr = as_uint8(s.data)
        if arr.size % BUNDLE_SIZE:
            from ..decode.bundle import check_stream_length

            check_stream_length(arr.size)
        step = CHUNK * BUNDLE_SIZE
        for start in range(0, arr.size, step):
            names = s.bir_names[start // BUNDLE_SIZE:(start + step) // BUNDLE_SIZE] if s.bir_names is not None else None
            yield from stream_lines(arr[start:start + step], decisions=decisions, full_bytes=full_bytes, base=start,
                                    bir_names=names)


CHUNK = 16384  # bundles listed at a time by fast_listing

