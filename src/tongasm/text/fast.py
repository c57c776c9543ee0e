"""The fast listing: the same text as :mod:`tongasm.text.listing`, for whole streams at speed.

A piece of stream (:data:`CHUNK` bundles) is grouped by layout (:func:`tongasm.decode.batch.group_stream`;
field columns are extracted only when read) and each layout's bundles are rendered as columns:

* the offset and the bytes column up to its last digit: one character matrix per layout, its digits
  from ``bytes.hex`` -- the only text made anew for every line;
* the column's end (``" …|  "`` or ``"  |  "``) and the mnemonic: shared text by opcode;
* each operand of the layout's template, and the sync band: rendered by the *same* renderers as the
  reference path (:mod:`tongasm.text.syntax`) once per distinct value of the bundle bits they read,
  kept in a :class:`VectorMemo` (numpy arrays and an open-addressing hash table keyed on those bits,
  or on the words of them that vary in the column), so a whole column is looked up with a few vector
  operations and only values not seen before are rendered in Python;
* left-over fields that differ from their defaults and bytes no field explains: found with numpy
  (on the bundle words), written for the few bundles that have them.

Each line is one C-level ``str.join`` across its layout's columns, made in stream order as the lines
are taken. Property tests keep this path's output identical to the reference listing
(``tests/test_text.py``: random bundles, and long repetitive streams under small memo limits and an
all-colliding hash).
"""

from __future__ import annotations

import itertools

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

from ..decode.batch import LayoutGroup, LazyFields, StreamColumns, as_uint8, group_stream
from ..decode.bundle import why_undecodable
from ..isa.decisions import DEFAULT_DECISIONS, DecisionSet
from ..isa.fields import BUNDLE_SIZE, Format
from ..isa.formats import FormatSet, build_formats
from ..isa.targets import DEFAULT_TARGET, Target
from .listing import HEAD_BYTES, StreamInput, bir_comment, header_lines, stream_directive
from .syntax import (
    ApOp, Ctx, ImmOp, Operand, Template, default_value, generic_text, patch_text, render_sync, template_for,
)

CACHE_LIMIT = 200_000  # texts per memo before it is cleared (bounded memory on streams of unique values)

WORDS = BUNDLE_SIZE // 8  # a bundle as little-endian 64-bit words
_U64 = np.dtype("<u8")
_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd 64-bit multiplier (Fibonacci hashing)


def _reads(op: Operand, fmt: Format) -> tuple[str, ...]:
    """The fields an operand's text depends on (what it claims, plus what it reads besides)."""
    extra: tuple[str, ...] = ()
    if isinstance(op, ApOp) and op.slot.parts_field in fmt.field_map:
        extra = (op.slot.parts_field,)
    elif isinstance(op, ImmOp) and op.dt and not op.claim_dt:
        extra = (op.dt,)
    names = list(op.claims) + [e for e in extra if e not in op.claims]
    return tuple(names)


def bit_words(fmt: Format, names: Iterable[str]) -> tuple[tuple[int, int], ...]:
    """The bundle words (index, bit mask) that hold the named fields' bits: the key of a memo.

    The masked words determine the fields' values and nothing else, so two bundles with equal keys
    have equal values in those fields (and hence the same text for an operand reading only them)."""
    masks = [0] * WORDS
    for n in names:
        lo, hi = fmt.field_map[n].bit_range
        for b in range(lo, hi):
            masks[b // 64] |= 1 << (b % 64)
    return tuple((j, m) for j, m in enumerate(masks) if m)


DIRECT_BITS = 12  # a key of at most this many bits indexes a table directly (no hashing)
PROBE_WINDOW = 8  # slots a second probe looks at at once
MAX_TABLES = 64  # tables per VectorMemo (choices of varying words and values of the others) before it starts again


def _runs(mask: int) -> list[tuple[int, int]]:
    """The runs of set bits of a mask: (lowest bit, length)."""
    out, b = [], 0
    while mask >> b:
        if mask >> b & 1:
            lo = b
            while mask >> b & 1:
                b += 1
            out.append((lo, b - lo))
        else:
            b += 1
    return out


class MemoTable:
    """Texts keyed by a few masked 64-bit words (one :class:`VectorMemo` key, or the words of it
    that vary), looked up for a whole column at once.

    Entries live in numpy arrays (their key words, their text, the text as a line's first item,
    whether it is empty). A key of at most :data:`DIRECT_BITS` bits indexes a table of entry
    numbers directly; a wider one goes through an open-addressing table (linear probing) on a hash
    of its words, and a lookup compares the full key words, so the hash only places entries: a
    collision costs a probe, never a wrong text. Texts are ``", item"`` or ``""``; ``first`` holds
    ``" item"`` (the first item after the mnemonic is set off by a space, the others by a comma).
    """

    def __init__(self, words: Sequence[tuple[int, int]]) -> None:
        self.words = tuple(words)
        nbits = sum(bin(m).count("1") for _, m in words)
        # a narrow key packed into an index: (key word, its bit run's lowest bit, mask, place in the index)
        self.pack: list[tuple[int, np.uint64, np.uint64, int]] | None = None
        self.direct_bits = DIRECT_BITS
        if nbits <= self.direct_bits:
            self.pack, at = [], 0
            for i, (_, m) in enumerate(words):
                for lo, length in _runs(m):
                    self.pack.append((i, np.uint64(lo), np.uint64((1 << length) - 1), at))
                    at += length
        self.clear()

    def clear(self) -> None:
        self.bits = 10
        self.slots = np.full(1 << self.bits, -1, dtype=np.intp)
        self.direct = np.full(1 << self.direct_bits, -1, dtype=np.intp) if self.pack is not None else None
        self.keys = [np.zeros(0, dtype=np.uint64) for _ in self.words]
        self.text = np.zeros(0, dtype=object)
        self.first = np.zeros(0, dtype=object)
        self.empty = np.zeros(0, dtype=bool)

    def __len__(self) -> int:
        return len(self.text)

    def _index(self, k: list[np.ndarray]) -> np.ndarray:
        """A narrow key packed into a direct-table index."""
        v = None
        for i, lo, m, at in self.pack:  # type: ignore[union-attr]
            x = (k[i] >> lo) & m if lo else k[i] & m
            if at:
                x <<= np.uint64(at)
            v = x if v is None else v | x
        return v.astype(np.intp)  # type: ignore[union-attr]

    @staticmethod
    def _hash(k: list[np.ndarray]) -> np.ndarray:
        """The key words folded into one (a polynomial in the odd multiplier, wrapping): the home
        slot's multiply-shift (Fibonacci hashing) then spreads it. Keys are mostly addresses, whose
        even strides this places without collisions."""
        if len(k) == 1:
            return k[0]
        h = k[0] * _MIX
        h += k[1]
        for kj in k[2:]:
            h *= _MIX
            h += kj
        return h

    def _home(self, h: np.ndarray) -> np.ndarray:
        s = h * _MIX
        s >>= np.uint64(64 - self.bits)
        return s.view(np.int64)  # < 2**bits: the same number as a signed index

    def _same(self, e: np.ndarray, k: list[np.ndarray], rows: np.ndarray | None = None) -> np.ndarray:
        """Entry ``e[i]`` holds the key of row ``i`` (of ``rows``, when given)."""
        same = None
        for kj, ej in zip(k, self.keys):
            eq = ej[e] == (kj if rows is None else kj[rows])
            same = eq if same is None else same & eq
        return same  # type: ignore[return-value]

    def find(self, k: list[np.ndarray]) -> np.ndarray:
        """The entry of every key (rows of ``k``), -1 where there is none."""
        if not len(self):
            return np.full(len(k[0]), -1, dtype=np.intp)
        if self.direct is not None:
            return self.direct[self._index(k)]
        top = len(self.slots) - 1
        s = self._home(self._hash(k))
        e = self.slots[s]
        hit = self._same(e, k)  # e = -1 (a free slot) reads the last entry: ruled out below
        live = e >= 0
        hit &= live
        if hit.all():  # (usual once the memo is warm: every key in its home slot)
            return e
        out = np.where(hit, e, -1)
        todo = np.flatnonzero(live & ~hit)
        while len(todo):  # the few keys not in their home slot: look a window further at once
            win = (s[todo, None] + np.arange(1, PROBE_WINDOW + 1)) & top
            e = self.slots[win]
            hit = e >= 0
            for kj, ej in zip(k, self.keys):
                hit &= ej[e] == kj[todo, None]
            free = e < 0
            found = hit.any(axis=1)
            at = hit.argmax(axis=1)
            # a free slot before the first hit ends the probe (the key is absent)
            ends = free.any(axis=1) & (~found | (free.argmax(axis=1) < at))
            ok = found & ~ends
            out[todo[ok]] = e[ok, at[ok]]
            more = ~found & ~ends
            s[todo[more]] = win[more, -1]
            todo = todo[more]
        return out

    def _place(self, ids: np.ndarray, h: np.ndarray) -> None:
        """Put entries ``ids`` (hashes ``h``) in free slots by linear probing, all at once."""
        top = len(self.slots) - 1
        s = self._home(h)
        pending = np.arange(len(ids))
        while len(pending):
            sp = s[pending]
            cand = pending[self.slots[sp] < 0]
            if len(cand):  # one entry per free slot wins it; the others probe on
                _, at = np.unique(s[cand], return_index=True)
                win = cand[at]
                self.slots[s[win]] = ids[win]
                lost = np.ones(len(ids), dtype=bool)
                lost[win] = False
                pending = pending[lost[pending]]
            s[pending] = (s[pending] + 1) & top

    def add(self, k: list[np.ndarray], texts: list[str]) -> np.ndarray:
        """Enter new keys (distinct, absent) with their texts; their entry numbers."""
        base = len(self)
        t = np.empty(len(texts), dtype=object)
        t[:] = texts
        f = np.empty(len(texts), dtype=object)
        f[:] = [" " + x[2:] if x else "" for x in texts]
        self.keys = [np.concatenate([a, b]) for a, b in zip(self.keys, k)]
        self.text = np.concatenate([self.text, t])
        self.first = np.concatenate([self.first, f])
        self.empty = np.concatenate([self.empty, np.array([not x for x in texts], dtype=bool)])
        n = len(self)
        ids = np.arange(base, n)
        if self.direct is not None:
            self.direct[self._index(k)] = ids
        elif n * 4 > len(self.slots):  # keep the table at most a quarter full: short probes
            while n * 4 > (1 << self.bits):
                self.bits += 1
            self.slots = np.full(1 << self.bits, -1, dtype=np.intp)
            self._place(np.arange(n), self._hash(self.keys))
        else:
            self._place(ids, self._hash(k))
        return ids

    def lookup(self, k: list[np.ndarray], render: Callable[[np.ndarray], list[str]],
               room: int | None = None) -> np.ndarray | None:
        """The entry of every key (rows of ``k``), rendering the keys not seen before: ``render(rows)``
        gets one row per new key and returns their texts. None (and nothing entered) when the new
        keys would take the table past ``room`` entries."""
        e = self.find(k)
        miss = np.flatnonzero(e < 0)
        if len(miss):
            km = [kj[miss] for kj in k]
            order = np.lexsort(km[::-1])
            new = np.zeros(len(miss), dtype=bool)
            new[0] = True
            for kj in km:
                ks = kj[order]
                new[1:] |= ks[1:] != ks[:-1]
            group = np.cumsum(new) - 1
            reps = order[new]  # one miss row per distinct new key
            if room is not None and len(self) and len(self) + len(reps) > room:
                return None
            ids = self.add([kj[reps] for kj in km], render(miss[reps]))
            inv = np.empty(len(miss), dtype=np.intp)
            inv[order] = group
            e[miss] = ids[inv]
        return e


class VectorMemo:
    """The texts of one operand (or sync band) keyed by the bundle bits it reads, looked up for a
    whole column of bundles at once.

    The key of a bundle is a few masked 64-bit words (:func:`bit_words`). Most of them are usually
    the same over a column (an access pattern's dims and dtype) while one varies (its address), so
    the column is looked up in a :class:`MemoTable` keyed on the words that vary, one table per
    choice of varying words and values of the others; a column that holds one key is looked up
    once. The tables hold at most ``limit`` texts together, and there are at most
    :data:`MAX_TABLES` of them (then they start again).
    """

    def __init__(self, words: Sequence[tuple[int, int]], limit: int | None = None) -> None:
        words = tuple(words) or ((0, 0),)  # a text that reads no bits: one key, always 0
        self.words = tuple((j, np.uint64(m), m == (1 << 64) - 1) for j, m in words)
        self.spec = tuple(words)
        self.limit = CACHE_LIMIT if limit is None else limit
        self.tables: dict[tuple[tuple[int, ...], tuple[int, ...]], MemoTable] = {}

    def __len__(self) -> int:
        return sum(len(t) for t in self.tables.values())

    def key(self, words: np.ndarray) -> list[np.ndarray]:
        """The key words of every bundle (``words``: the bundles' 8 little-endian words, word-major:
        ``words[j]`` is word ``j`` of every bundle)."""
        return [words[j] if whole else words[j] & m for j, m, whole in self.words]

    def lookup(self, words: np.ndarray, render: Callable[[np.ndarray], list[str]]) -> tuple[MemoTable, np.ndarray | int]:
        """The table and entry of every bundle (columns of ``words``, word-major; one entry number,
        an int, when every bundle has the same key), rendering the keys not seen before:
        ``render(rows)`` gets one row per new key and returns their texts."""
        k = self.key(words)
        n = words.shape[1]
        same = [n > 0 and bool(kj[0] == kj[-1]) and bool((kj == kj[0]).all()) for kj in k]
        if n > 1 and all(same):  # one key for the whole column
            one, at = self.lookup(words[:, :1], render)
            return one, int(at[0])  # type: ignore[index]
        vary = tuple(i for i, s in enumerate(same) if not s) if n > 1 else tuple(range(len(k)))
        sig = (vary, tuple(int(k[i][0]) for i in range(len(k)) if i not in vary))
        keys = [k[i] for i in vary]
        if sig not in self.tables:
            if len(self.tables) >= MAX_TABLES:
                self.tables.clear()
            self.tables[sig] = MemoTable([self.spec[i] for i in vary])
        table = self.tables[sig]
        e = table.lookup(keys, render, self.limit - len(self) + len(table))
        if e is None:  # full: start again
            self.tables.clear()
            table = self.tables[sig] = MemoTable([self.spec[i] for i in vary])
            e = table.lookup(keys, render)
        assert e is not None  # a fresh table takes every key
        return table, e


class FastTemplate:
    """A layout's template compiled for whole columns: one :class:`VectorMemo` per operand (keyed on
    the bits of the fields it reads) and one for the sync band. Operand texts do not depend on the
    opcode, so one is shared by every opcode of a layout (the mnemonic is a column of its own)."""

    def __init__(self, fmt: Format, ds: DecisionSet) -> None:
        self.fmt, self.ds = fmt, ds
        tpl: Template = template_for(fmt)
        self.tpl = tpl
        self.names = [f.name for f in fmt.fields]
        # (fields read, memo, renderer); the renderer gets the values of the fields read
        self.ops: list[tuple[tuple[str, ...], VectorMemo, Callable[[tuple[int, ...]], str]]] = []
        self.sync_names: tuple[str, ...] = fmt.sync.fields if fmt.sync is not None else ()
        claimed = {"opcode", *self.sync_names}
        for op in tpl.operands:
            reads = _reads(op, fmt)
            self.ops.append((reads, VectorMemo(bit_words(fmt, reads)), self._renderer(op, reads)))
            claimed.update(op.claims)
        # fields left to "field=value" when they differ from the parser's default
        self.leftover = [f for f in fmt.fields if f.name not in claimed]
        # the left-over fields with a fixed default, as (word, mask, expected bits) of the bundle: a
        # bundle whose masked words equal the expected bits holds every such default
        fixed, expect, self.never_default = 0, 0, False
        for f in self.leftover:
            if f.name in tpl.derived:
                continue
            d = default_value(fmt, f, {}, tpl)
            dlo, dhi = (0, (1 << f.nbits) - 1) if f.is_bitfield else (f.lo, f.hi)  # what the decoder yields
            if not dlo <= d <= dhi:  # a default the field never decodes to: every bundle differs
                self.never_default = True
            lo, hi = f.bit_range
            fixed |= ((1 << (hi - lo)) - 1) << lo
            expect |= (d & ((1 << (hi - lo)) - 1)) << lo
        self.default_words = [(j, np.uint64(fixed >> (64 * j) & (2**64 - 1)), np.uint64(expect >> (64 * j) & (2**64 - 1)))
                              for j in range(WORDS) if fixed >> (64 * j) & (2**64 - 1)]
        self.derived_leftover = [f for f in self.leftover if f.name in tpl.derived]
        self.sync_memo = VectorMemo(bit_words(fmt, self.sync_names)) if self.sync_names else None

    def _renderer(self, op: Operand, reads: tuple[str, ...]) -> Callable[[tuple[int, ...]], str]:
        fmt, ds, name, tpl = self.fmt, self.ds, op.name, self.tpl

        def render(key: tuple[int, ...]) -> str:
            values = dict(zip(reads, key))
            if op.optional and all(values[c] == default_value(fmt, fmt.field_map[c], values, tpl) for c in op.claims):
                return ""
            return f", {name}={op.render(Ctx(fmt, ds, values))}"

        return render

    def _sync_text(self, vals: dict[str, int]) -> str:
        text, claimed = render_sync(vals, self.ds, self.fmt.sync)  # type: ignore[arg-type]
        items = [generic_text(self.fmt.field_map[n], vals[n]) for n in self.sync_names if n not in claimed]
        items += [text] if text else []
        return "".join(", " + i for i in items)

    def defaults_differ(self, columns: dict[str, np.ndarray], words: np.ndarray) -> np.ndarray:
        """Per row: does any left-over field differ from its default (vectorised: the fixed
        defaults on the bundle words (word-major), the derived ones on the field columns)?"""
        flag = np.full(words.shape[1], self.never_default, dtype=bool)
        for j, mask, expect in self.default_words:
            flag |= (words[j] & mask) != expect
        for f in self.derived_leftover:  # on Python ints: a product of dims must not wrap like numpy's
            d = self.tpl.derived[f.name](_ExactColumns(columns))  # type: ignore[arg-type]
            flag |= columns[f.name] != d
        return flag

    def leftover_text(self, row: dict[str, int]) -> str:
        """", field=value" for each left-over field of a row that differs from its default."""
        return "".join(", " + generic_text(f, row[f.name]) for f in self.leftover
                       if row[f.name] != default_value(self.fmt, f, row, self.tpl))

    def columns(self, g: LayoutGroup, words: np.ndarray, by_row: np.ndarray) -> list[list[str]]:
        """The items of every bundle of a group after its mnemonic, as columns (one per operand,
        then the non-default left-over fields, the sync band and unexplained-byte patches where any
        bundle has them); in each row the first non-empty item starts with a space, the others with
        a comma. ``words``: the group's bundles as 64-bit words, word-major (``words[j]`` is word
        ``j`` of every bundle); ``by_row``: the same bundle by bundle (rows of 8 words)."""
        n = len(g)
        fields = g.fields
        out: list[list[str]] = []
        found: np.ndarray | bool = False  # rows that have an item already (so later ones take a comma)
        same: list[str | None] = []  # per column of out: its one text, when it has one for every row

        def one_text(text: str) -> None:  # a column of one text: joined to the last one if that is one too
            if not text:
                return
            if same and same[-1] is not None:
                text = same[-1] + text
                out.pop()
                same.pop()
            out.append([text] * n)
            same.append(text)

        def memo_column(vmemo: VectorMemo, render: Callable[[np.ndarray], list[str]]) -> None:
            nonlocal found
            memo, e = vmemo.lookup(words, render)
            if isinstance(e, int):  # one text for the whole column
                text = memo.text[e]
                if found is True or not text:
                    one_text(text)
                elif found is False:
                    one_text(memo.first[e])
                    found = True
                else:
                    col = np.full(n, text, dtype=object)
                    col[~found] = memo.first[e]
                    out.append(col.tolist())
                    same.append(None)
                    found = True
                return
            same.append(None)
            if found is True:
                out.append(memo.text[e].tolist())
                return
            empty = memo.empty[e]
            starts = ~empty if found is False else ~empty & ~found  # the row's first item is this one
            if starts.all():
                col = memo.first[e]
            else:
                col = memo.text[e]
                if starts.any():
                    col[starts] = memo.first[e[starts]]
            out.append(col.tolist())
            found = True if not empty.any() else (~empty if found is False else found | ~empty)
            if found is not True and found.all():  # type: ignore[union-attr]
                found = True

        def sparse_column(rows: list[int], texts: list[str]) -> None:
            nonlocal found
            col = [""] * n
            for k, t in zip(rows, texts):
                if t and not (found is True or (found is not False and found[k])):
                    t = " " + t[2:]
                col[k] = t
            if rows and found is not True:
                if found is False:
                    found = np.zeros(n, dtype=bool)
                found[[k for k, t in zip(rows, texts) if t]] = True
            out.append(col)
            same.append(None)

        def take(name: str, rows: np.ndarray) -> list[int]:
            col = fields.take(name, rows) if isinstance(fields, LazyFields) else fields[name][rows]
            return col.tolist()

        for reads, memo, render in self.ops:

            def values(rows: np.ndarray, reads: tuple[str, ...] = reads, render: Callable = render) -> list[str]:
                return [render(key) for key in zip(*(take(r, rows) for r in reads))]

            memo_column(memo, values)
        left = np.flatnonzero(self.defaults_differ(fields, words)).tolist()
        if left:  # non-default left-over fields, after the operands
            at = np.array(left, dtype=np.intp)
            lists = {name: take(name, at) for name in self.names}
            sparse_column(left, [self.leftover_text({name: lists[name][i] for name in self.names})
                                 for i in range(len(left))])
        if self.sync_memo is not None:
            def sync_values(rows: np.ndarray) -> list[str]:
                vals = zip(*(take(name, rows) for name in self.sync_names))
                return [self._sync_text(dict(zip(self.sync_names, v))) for v in vals]

            memo_column(self.sync_memo, sync_values)
        odd = _unexplained(self.fmt, words)
        if len(odd):  # unexplained bytes, patched in last
            raw = by_row[odd].view(np.uint8)
            sparse_column(odd.tolist(), ["".join(", " + t for t in patch_text(self.fmt, bytes(r))) for r in raw])
        return out


class _ExactColumns:
    """Columns read (``get``) as object arrays of Python ints, for the derived defaults."""

    def __init__(self, columns: dict[str, np.ndarray]) -> None:
        self.columns = columns

    def get(self, name: str, default: object = None) -> object:
        try:
            col = self.columns[name]  # (lazy columns are extracted here)
        except KeyError:
            return default
        return col.astype(object)


_TEMPLATES: dict[tuple[Format, DecisionSet], FastTemplate] = {}
_MNEMONICS: dict[tuple[Format, DecisionSet], np.ndarray] = {}


def fast_template(fmt: Format, ds: DecisionSet) -> FastTemplate:
    key = (fmt, ds)
    t = _TEMPLATES.get(key)
    if t is None:
        t = _TEMPLATES[key] = FastTemplate(fmt, ds)
    return t


def mnemonics(fmt: Format, fs: FormatSet, ds: DecisionSet) -> np.ndarray:
    """The listing mnemonic of every opcode of a layout, indexed by the opcode byte."""
    key = (fmt, ds)
    m = _MNEMONICS.get(key)
    if m is None:
        m = _MNEMONICS[key] = np.full(256, "", dtype=object)
        for op in fmt.opcodes:
            m[op] = fs.mnemonic(fmt, op)
    return m


_UNCOVERED: dict[Format, list[tuple[int, np.uint64]]] = {}


def _unexplained(fmt: Format, words: np.ndarray) -> np.ndarray:
    """The bundles (given as word-major 64-bit words) with bits outside every field (vectorised)."""
    spare = _UNCOVERED.get(fmt)
    if spare is None:
        inv = np.frombuffer(bytes((~b) & 0xFF for b in fmt.covered_mask()), dtype=_U64)
        spare = _UNCOVERED[fmt] = [(j, inv[j]) for j in np.flatnonzero(inv).tolist()]
    if not spare:
        return np.zeros(0, dtype=np.intp)
    odd = np.zeros(words.shape[1], dtype=bool)
    for j, m in spare:
        odd |= (words[j] & m) != 0
    return np.flatnonzero(odd)


def stream_bodies(data: bytes | bytearray | memoryview | np.ndarray, *, decisions: DecisionSet = DEFAULT_DECISIONS,
                  cols: StreamColumns | None = None) -> list[str]:
    """The instruction text of every bundle of a stream, in order (``.bytes ...`` for undecodable ones)."""
    it, bad = _texts(as_uint8(data), decisions, None, cols)
    texts = list(it)
    for i, t in bad.items():
        texts[i] = t
    return texts


def _texts(arr: np.ndarray, decisions: DecisionSet, head: tuple[int, bool] | None,
           cols: StreamColumns | None = None, comments: np.ndarray | None = None) -> tuple[Iterable[str], dict[int, str]]:
    """Every bundle's text, in order, and the text of each undecodable bundle (``.bytes ...``) by its
    index (its place holds ``""``). With ``head`` = (number of the first bundle, full bytes column)
    a text is its whole listing line, else its instruction text; ``comments`` (an object array of
    strings, one per bundle) ends each decodable bundle's text.

    Each line is one ``str.join`` across its layout's columns (offset and bytes (:func:`_heads`),
    the rest of the bytes column and the mnemonic (:func:`_tails`), items). The joins run in
    stream order, each layout's lazily (``map`` over ``zip``), so a line is built where it is stored
    and no list is reordered afterwards."""
    fs = build_formats(decisions)
    cols = cols or group_stream(arr, decisions=decisions)
    n = cols.count
    words = arr.view(_U64).reshape(n, WORDS) if n else np.zeros((0, WORDS), dtype=_U64)
    sources: list[Iterator[str]] = []  # per layout, its lines in stream order, made on demand
    which = np.empty(n, dtype=np.intp)  # per bundle, its source
    for g in cols.groups.values():
        fmt = g.fmt
        dense = len(g) == n  # one layout for the whole stream: no gathers, no interleaving
        gw = words if dense else words[g.index]  # the layout's bundles as rows of words
        wt = np.ascontiguousarray(gw.T)  # and word-major: each key word one contiguous array
        opcode = g.fields["opcode"]
        if head is None:
            lists = [mnemonics(fmt, fs, decisions)[opcode].tolist()]
        else:
            full_bytes = head[1]
            tail = opcode.astype(np.intp)
            if not full_bytes:  # bytes past the first 16 not all zero: " …" closes the column
                rest = wt[HEAD_BYTES // 8].copy()
                for j in range(HEAD_BYTES // 8 + 1, WORDS):
                    rest |= wt[j]
                tail[rest != 0] += 256
            lists = [_heads(gw, g.index + head[0], full_bytes).tolist(),
                     _tails(fmt, fs, decisions, full_bytes)[tail].tolist()]
        lists += fast_template(fmt, decisions).columns(g, wt, gw)
        if comments is not None:
            lists.append((comments if dense else comments[g.index]).tolist())
        if dense:
            return (map("".join, zip(*lists)) if len(lists) > 1 else lists[0]), {}
        which[g.index] = len(sources)
        sources.append(map("".join, zip(*lists)) if len(lists) > 1 else iter(lists[0]))
    bad = {}
    for i in cols.undecodable.tolist():
        raw = arr[i * BUNDLE_SIZE:(i + 1) * BUNDLE_SIZE].tobytes()
        bad[i] = f".bytes {raw.hex()}  ; {why_undecodable(raw, fs)}"
    if bad:
        which[list(bad)] = len(sources)
        sources.append(iter([""] * len(bad)))
    table = np.empty(len(sources), dtype=object)
    for k, src in enumerate(sources):
        table[k] = src
    return map(next, table[which].tolist()), bad


def stream_lines(data: bytes | bytearray | memoryview | np.ndarray, *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 full_bytes: bool = False, base: int = 0,
                 bir_names: Sequence[str | None] | None = None) -> list[str]:
    """The listing lines of one stream (offset, bytes column, instruction), fast path.

    ``base`` is the byte offset of ``data`` in its stream (a multiple of 64), for listing a large
    stream chunk by chunk: the lines are those the whole stream would have at that offset.
    ``bir_names`` (one per bundle of ``data``) ends each line with its BIR instruction's name.
    """
    lines = _chunk_lines(data, decisions, full_bytes, base, bir_names)
    return lines if isinstance(lines, list) else list(lines)


def _chunk_lines(data: bytes | bytearray | memoryview | np.ndarray, decisions: DecisionSet, full_bytes: bool,
                 base: int, bir_names: Sequence[str | None] | None) -> Iterable[str]:
    """:func:`stream_lines`, as an iterable: the lines are joined as they are taken."""
    if base % BUNDLE_SIZE:
        raise ValueError(f"base must be a multiple of {BUNDLE_SIZE}, not {base}")
    first = base // BUNDLE_SIZE
    arr = as_uint8(data)
    if arr.size % BUNDLE_SIZE:
        from ..decode.bundle import check_stream_length

        check_stream_length(arr.size)
    n = arr.size // BUNDLE_SIZE
    names = [bir_comment(nm) for nm in bir_names[:n]] + [""] * max(n - len(bir_names), 0) if bir_names is not None else None
    if base + n * BUNDLE_SIZE > 0xFFFFFFFF:  # offsets wider than 8 digits: the plain path
        rows = arr.reshape(n, BUNDLE_SIZE)
        lines = [_line(first + i, rows[i], b, full_bytes) for i, b in enumerate(stream_bodies(arr, decisions=decisions))]
        return lines if names is None else [ln + c for ln, c in zip(lines, names)]
    comments = None
    if names is not None:
        comments = np.empty(n, dtype=object)
        comments[:] = names
    it, bad = _texts(arr, decisions, (first, full_bytes), comments=comments)
    if not bad:
        return it
    lines = list(it)
    for i, t in bad.items():  # an undecodable bundle's line has no bytes column (its .bytes directive holds them)
        lines[i] = f"{(first + i) * BUNDLE_SIZE:08x}:  {t}" + (names[i] if names is not None else "")
    return lines


def _hex_digits(data: bytes, n: int, sep: bool) -> np.ndarray:
    """The lowercase hex digits of ``n`` equal rows of bytes, as an ``(n, width)`` uint8 matrix (with
    ``sep``: a space after every 4 bytes but a row's last, like the bytes column)."""
    text = data.hex(" ", 4) if sep else data.hex()
    if sep:  # the text has no space after the last row: view it as rows one wider, minus that space
        width = len(text) // n  # = (row width + 1) - 1/n, rounded down
        return np.lib.stride_tricks.as_strided(np.frombuffer(text.encode(), dtype=np.uint8), (n, width),
                                               (width + 1, 1), writeable=False)
    return np.frombuffer(text.encode(), dtype=np.uint8).reshape(n, -1)


def _heads(words: np.ndarray, numbers: np.ndarray, full_bytes: bool) -> np.ndarray:
    """``"OOOOOOOO:  |hhhhhhhh hhhhhhhh ..."`` (offset and bytes column up to its last hex digit) for
    bundles given as rows of 64-bit words (``numbers``: their bundle numbers in the stream), as an
    array of fixed-width strings: one UCS-4 character matrix whose digits come from ``bytes.hex``.
    The rest of the column (``" …|  "`` or ``"  |  "``) is shared text (:func:`_tails`)."""
    n = len(words)
    nbytes = BUNDLE_SIZE if full_bytes else HEAD_BYTES
    hexw = nbytes // 4 * 9 - 1
    width = 12 + hexw
    m = np.empty((n, width), dtype=np.uint32)
    if n:
        off = (numbers.astype(np.uint64) * np.uint64(BUNDLE_SIZE)).astype(">u4")
        m[:, :8] = _hex_digits(off.tobytes(), n, False)
        m[:, 8:12] = _COLON_BAR
        m[:, 12:] = _hex_digits(np.ascontiguousarray(words[:, :nbytes // 8]).tobytes(), n, True)
    return m.view(f"<U{width}").reshape(n)


_COLON_BAR = np.array([ord(c) for c in ":  |"], dtype=np.uint32)
_TAILS: dict[tuple[Format, DecisionSet, bool], np.ndarray] = {}


def _tails(fmt: Format, fs: FormatSet, ds: DecisionSet, full_bytes: bool) -> np.ndarray:
    """The end of the bytes column and the mnemonic, shared by every line of a layout with that
    opcode: indexed by ``opcode`` (``+ 256`` when bytes past the first 16 are not all zero: " …")."""
    key = (fmt, ds, full_bytes)
    t = _TAILS.get(key)
    if t is None:
        names = mnemonics(fmt, fs, ds)
        t = _TAILS[key] = np.full(512, "", dtype=object)
        for op in fmt.opcodes:
            t[op] = ("|  " if full_bytes else "  |  ") + names[op]
            t[op + 256] = ("|  " if full_bytes else " …|  ") + names[op]
    return t


def _line(i: int, row: np.ndarray, body: str, full_bytes: bool) -> str:
    if body[0] == ".":
        return f"{i * BUNDLE_SIZE:08x}:  {body}"
    raw = bytes(row)
    head = raw.hex(" ", 4) if full_bytes else raw[:HEAD_BYTES].hex(" ", 4) + (" …" if any(raw[HEAD_BYTES:]) else "  ")
    return f"{i * BUNDLE_SIZE:08x}:  |{head}|  {body}"


def fast_listing(streams: Iterable[StreamInput], *, decisions: DecisionSet = DEFAULT_DECISIONS,
                 target: Target = DEFAULT_TARGET, full_bytes: bool = False) -> Iterator[str]:
    """Same lines as :func:`tongasm.text.listing.listing`, for large streams (listed in pieces of
    :data:`CHUNK` bundles, so memory stays bounded)."""
    return itertools.chain.from_iterable(_pieces(streams, decisions, target, full_bytes))


def _pieces(streams: Iterable[StreamInput], decisions: DecisionSet, target: Target,
            full_bytes: bool) -> Iterator[Iterable[str]]:
    yield header_lines(target, decisions)
    for s in streams:
        yield [stream_directive(s.name)]
        arr = as_uint8(s.data)
        if arr.size % BUNDLE_SIZE:
            from ..decode.bundle import check_stream_length

            check_stream_length(arr.size)
        step = CHUNK * BUNDLE_SIZE
        for start in range(0, arr.size, step):
            names = s.bir_names[start // BUNDLE_SIZE:(start + step) // BUNDLE_SIZE] if s.bir_names is not None else None
            yield _chunk_lines(arr[start:start + step], decisions, full_bytes, start, names)


CHUNK = 65536  # bundles listed at a time by fast_listing (larger pieces spread the per-layout numpy calls thinner)
